/* sandbox.h - the interactive sandbox: an SDL2 window with an OpenGL 3.3 core
 * context, the world stepped at a fixed rate, the fly camera, the tools and
 * the HUD. Driven a frame at a time, so tests can run it offscreen
 * (SDL_VIDEODRIVER=offscreen) and look inside.
 *
 * One frame (sandbox.c): script events are fed to SDL; the input (input.h)
 * turns events into actions, which the loop carries out (sandbox_actions.c);
 * the step clock (step_clock.h) says how many steps the frame owes; the view
 * (view.h) reads the world once and fills the renderer; capture.h reads the
 * frame back for screenshots. docs/architecture.md has the whole picture. */
#ifndef RB_SANDBOX_H
#define RB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "app/options.h"
#include "panels.h"
#include "app/paths.h"
#include "replay.h"
#include "scenes/entities.h"
#include "render/quality.h"
#include "sim/world.h"
#include "tools.h"

/* Runs the sandbox until the user quits (or --frames are done). Returns the
 * process exit code. */
int rb_sandbox_run(const rb_options *opts, const rb_paths *paths);

typedef struct rb_sandbox rb_sandbox;

/* Opens the window, loads shaders (from paths->shaders), plugins and the
 * starting formation. NULL with the reason in err. The options and paths are
 * copied (the options' strings must outlive the sandbox). */
rb_sandbox *rb_sandbox_create(const rb_options *opts, const rb_paths *paths, char *err, size_t err_size);
void rb_sandbox_destroy(rb_sandbox *sb);

/* One frame: script events, input, simulation steps, drawing, present.
 * Returns false once the sandbox should quit. */
bool rb_sandbox_frame(rb_sandbox *sb);

/* Makes every frame advance the clock by dt seconds instead of the wall
 * clock (0 = the wall clock). Scripts, --frames and --screenshot turn on
 * 1/60 s, so a run gives the same result however fast the machine is. */
void rb_sandbox_set_fixed_dt(rb_sandbox *sb, double dt);
/* Replaces the script with one given as text; false with err on a bad line.
 * Its clock starts at the next frame. */
bool rb_sandbox_set_script(rb_sandbox *sb, const char *text, char *err, size_t err_size);

/* Saves the last drawn frame as a PNG. */
bool rb_sandbox_screenshot(rb_sandbox *sb, const char *path);
/* The last drawn frame, RGBA rows from the top; *rgba is malloc'd, the caller frees it. */
bool rb_sandbox_read_pixels(rb_sandbox *sb, int *width, int *height, uint8_t **rgba);

/* Clears the world and builds formation k (1..5) of the --bodies count;
 * k = 0: the current scene again (a formation or a scene file). */
void rb_sandbox_reset(rb_sandbox *sb, int formation);

/* What a test can see. */
typedef struct rb_sandbox_stats {
    uint64_t frame; /* frames drawn */
    double time;    /* s, the sandbox clock */
    uint64_t steps; /* simulation steps taken in all */
    uint32_t bodies, particles;
    rb_tool tool;
    int shape; /* entity row (= registry index) of the selected shape */
    int shape_count;
    int formation;
    bool paused, particle_view, exploded_view, help, quit;
    bool grabbing;
    rb_body_id grabbed;        /* the body held by the grab tool */
    rb_body_id last_thrown;    /* the body the last throw added */
    rb_body_id last_deleted;   /* the body the delete tool last removed */
    int last_exploded;         /* dynamic bodies within reach of the last blast when it was set off */
    uint32_t emitters, fields; /* the debris layer's acting now (the HUD's count) */
    const char *message;       /* the notice the HUD shows now, "" if none */
    float grab_target[3];      /* m, where the grab pulls */
    unsigned gl_errors;
    bool shader_error;    /* the last F5 failed; the old shaders are in use */
    int screenshots;      /* screenshots saved */
    uint32_t frame_steps; /* simulation steps in the last frame */
    bool slowed;          /* the simulation fell behind real time and was slowed down */
    double sim_rate;      /* simulated seconds per second of the clock, smoothed */
    double read_ms;       /* host ms the last frame spent reading the world and filling the renderer */
    double read_ms_mean;  /* the same, averaged over every frame drawn */
    uint32_t drawn_instances, drawn_particle_bodies; /* the last frame's bodies drawn as meshes, as particles */
    const char *scene_file;                          /* the scene file installed, "" for a formation */
    const char *last_saved;                          /* the last Ctrl+S, "" if none */
    rb_body_id hover;                                /* the body under the cursor, drawn lighter */
    rb_body_id selected;                             /* the selection (middle button, grab) */
    uint32_t debug_views;                            /* bit k: debug view k on (debug_views.h) */
    uint32_t contacts_drawn, cells_drawn;            /* by the contacts' and the grid's views, last frame */
    rb_render_quality quality;                       /* the drawing quality in use */
    const char *gl_renderer;                         /* GL_RENDERER, which chose it */
} rb_sandbox_stats;

void rb_sandbox_get_stats(const rb_sandbox *sb, rb_sandbox_stats *out);
rb_world *rb_sandbox_world(rb_sandbox *sb);
rb_camera *rb_sandbox_camera(rb_sandbox *sb);

const rb_entities *rb_sandbox_entities(const rb_sandbox *sb);
/* --replay's replay; NULL in a live run (and once Enter has made it live). */
const rb_replay *rb_sandbox_replay(const rb_sandbox *sb);
/* The view of the last frame drawn: its bodies' transforms (view.h). */
const rb_view *rb_sandbox_view(const rb_sandbox *sb);

/* The world's shape index of the shape of that name, or -1. */
int rb_sandbox_world_shape(const rb_sandbox *sb, const char *name);

/* The settings panels (panels.h, sandbox_panels.c): shown or hidden, as F2
 * does (the first show starts Dear ImGui; failing, the sandbox runs on
 * without them, the reason logged). The program shows them in a window a
 * person drives; a sandbox made here starts with them hidden, unless
 * --panels. */
void rb_sandbox_show_panels(rb_sandbox *sb, bool shown);
bool rb_sandbox_panels_shown(const rb_sandbox *sb);
/* Their handle (NULL until first shown): where they drew what, their messages. */
rb_panels *rb_sandbox_panels(rb_sandbox *sb);
/* Whether the program shows them at the start: in a window a person drives
 * (no --script, --frames, --screenshot or --video), or with --panels. */
bool rb_sandbox_panels_wanted(const rb_options *o);
/* The body the Inspector showed in the last frame (valid false: none, or
 * the panels hidden). */
bool rb_sandbox_inspected(const rb_sandbox *sb, rb_panel_body *out);
/* What the settings (settings.h) change in this sandbox now: the panels' own. */
void rb_sandbox_settings(rb_sandbox *sb, rb_settings *out);
/* A new step (s), as the World panel sets it: live, or with a debris layer
 * (it keeps time in steps) the scene loaded again at it, as --dt loads
 * one. True with what was done in why; false with the reason, nothing
 * changed (a step the materials cannot take, --record recording). */
bool rb_sandbox_set_step(rb_sandbox *sb, float dt, char *why, size_t why_size);

#endif
