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

/* Checks every time against the run's length (steps * dt, the step of the
 * world the run will have; the first time past it named in err) and opens
 * an offscreen OpenGL context (SDL_VIDEODRIVER=offscreen unless the
 * environment says otherwise: a headless run shows no window). Open it
 * before the run's world is made, as the sandbox opens its window first
 * (GL before OpenCL, torn down after it: LeakSanitizer's exit scan stumbles
 * on the other order). NULL with the reason in err; nothing is written. */
rb_shots *rb_shots_open(const rb_shots_desc *desc, float dt, char *err, size_t err_size);

/* Places the camera on the run's scene (its bodies as they are, before its
 * first step) and has the run stop at the first step at or after each time
 * (rb_run_on_steps) to draw and write its shot. */
void rb_shots_attach(rb_shots *s, rb_run *run);

/* True when every shot due so far was drawn and written; else false with
 * the reason in err (the failure stopped the run there). */
bool rb_shots_ok(const rb_shots *s, char *err, size_t err_size);

/* Closes the context and SDL. Call once the run has stepped for the last
 * time (it keeps the shots' steps), after the run is destroyed or before:
 * the headless run ends them last, once the OpenCL world is gone. */
void rb_shots_end(rb_shots *s);

#endif
