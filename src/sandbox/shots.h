/* shots.h - a headless run's pictures at simulated times (rubble --headless
 * --shots T1,T2,...): each drawn offscreen by the sandbox's renderer and view
 * from one camera, the scene's start camera, else its first bookmark, else
 * the bodies at the start framed as the sandbox frames them (framing.h),
 * and written as a PNG whole or not at all. Drawing reads the bodies and
 * changes nothing of the run: its digest is the same with shots or
 * without (tests/test_wedge_sheet.c). */
#ifndef RB_SHOTS_H
#define RB_SHOTS_H

#include <stdbool.h>
#include <stddef.h>

#include "app/run.h"

typedef struct rb_shots_desc {
    const double *times; /* simulated s from the run's start, ascending */
    int count;
    const char *prefix;   /* each file is prefix + "%.2f" of its time + ".png" (rb_options_shot_name) */
    int width, height;    /* pixels */
    const char *shaders;  /* the renderer's shader folder */
    long steps;           /* the run's length: a time past steps * dt is refused */
} rb_shots_desc;

typedef struct rb_shots rb_shots;

/* Checks every time against the run's length (steps * the world's dt; the
 * first time past it named in err), opens an offscreen OpenGL context
 * (SDL_VIDEODRIVER=offscreen unless the environment says otherwise: a
 * headless run shows no window), places the camera and has the run stop at
 * the first step at or after each time (rb_run_on_steps) to draw and write
 * its shot. NULL with the reason in err; nothing is written then. */
rb_shots *rb_shots_start(rb_run *run, const rb_shots_desc *desc, char *err, size_t err_size);

/* How many shots were written. */
int rb_shots_written(const rb_shots *s);

/* Closes the context. False, with the reason in err, when a shot could
 * not be drawn or written (which stopped the run there). */
bool rb_shots_end(rb_shots *s, char *err, size_t err_size);

#endif
