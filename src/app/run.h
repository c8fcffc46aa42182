/* run.h - the headless runner: puts a scene on a stage of its own
 * (scenes/stage.h: a new world, its entity table, the scene's debris
 * effects), steps it in chunks with progress, and collects what a run is
 * judged by (speed, stage and kernel times, the state at the end).
 * `rubble --headless` and `rubble-bench` both run scenes through it and only
 * print differently. */
#ifndef RB_RUN_H
#define RB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenes/debris_events.h"
#include "scenes/entities.h"
#include "scenes/scene.h"
#include "scenes/stage.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_RUN_MAX_KERNELS 16

/* What to build: a scene file, a formation, or the benchmark pile (scenes/pile.h).
 * rubble-bench's repose scene is not built here: it pours its spheres as it
 * runs (src/app/bench.c). */
typedef struct rb_run_scene {
    const char *file; /* a scene file (docs/scene-format.md); NULL: formation or pile */
    int formation;    /* 1..5: the thesis's formations; 0: the benchmark pile */
    int bodies;
    bool repose; /* rubble-bench repose N: N spheres poured into a heap, its angle of repose measured */
} rb_run_scene;

/* The scene a run_scene names, with bodies of `shape` for a formation or the
 * pile. NULL with the reason in err ("FILE: key: what is wrong" for a file). */
rb_scene *rb_run_make_scene(const rb_registry *registry, const char *shape, const rb_run_scene *spec, char *err,
                            size_t err_size);

/* Time spent in rb_run_steps, summed over its steps. */
typedef struct rb_run_stats {
    long steps;
    double wall_s;
    double cpu_s; /* CPU time of the process meanwhile: cpu_s / wall_s is how many cores it had */
    double stage_ms[RB_STAGE_COUNT];
    const char *const *kernel_names; /* the backend's timed kernels; none for the reference */
    uint32_t kernel_count;
    double kernel_ms[RB_RUN_MAX_KERNELS];
    uint64_t rested;   /* sleeping bodies the steps left out, a body a step (rb_world_rested) */
    uint64_t off_grid; /* of them, those left out of the grid too (rb_world_off_grid) */
} rb_run_stats;

/* The state at the end of a run. */
typedef struct rb_run_summary {
    uint32_t bodies, particles;
    float max_speed;           /* m/s, the fastest body */
    float min_y;               /* m, the lowest point of any particle (its centre less the radius); 0 without bodies */
    uint32_t sleeping;         /* bodies asleep at the end */
    uint64_t contact_overflow; /* contacts that found no history slot (rb_world_contact_overflow) */
    bool nan;                  /* any body state or particle position not finite */
    uint64_t digest;           /* rb_world_digest */
    bool ok;                   /* false if reading the state failed */
} rb_run_summary;

typedef struct rb_run rb_run;

/* Why rb_run_create made no run. */
typedef struct rb_run_refusal {
    uint32_t added; /* the bodies the world took before it refused one; the scene's body_count where it refused none */
    /* the scene was refused (too big for memory or its own world.max_bodies:
     * rb_stage_fits; a step its materials cannot take; a body; its debris
     * effects), not the machine (a backend that failed, memory run out):
     * what the command line asked cannot be had (exit status 2) */
    bool scene;
} rb_run_refusal;

/* A new world for the scene (its settings; backend and device from base),
 * with the scene's bodies, spawned through an entity table of the registry
 * (which must outlive the run), and its debris effects. The run takes the
 * scene, whatever happens. NULL with the reason in err (and in *why, if not
 * NULL) when the scene cannot be had here (rb_stage_fits), the world cannot
 * be made, refuses a body or cannot run the scene's debris effects. */
rb_run *rb_run_create(const rb_registry *registry, rb_scene *scene, const rb_world_desc *base, rb_run_refusal *why,
                      char *err, size_t err_size);
void rb_run_destroy(rb_run *run);

rb_world *rb_run_world(rb_run *run);
/* The entity table the scene was spawned through. */
const rb_entities *rb_run_entities(const rb_run *run);
/* The stage the run's scene is on (scenes/stage.h): what a cache records
 * it from (rb_cache_begin_stage). */
const rb_stage *rb_run_stage(const rb_run *run);
/* The scene's debris effects (scenes/debris.h), or NULL when it has none. */
const rb_debris *rb_run_debris(const rb_run *run);
/* The scene the run was made from. */
const rb_scene *rb_run_get_scene(const rb_run *run);

/* Runs one step's kernels on the OpenCL backend and takes the step back
 * whole (rb_world_warm: bodies, contact history, pieces, joints; the stage
 * and its debris layer are not stepped): the kernels PoCL compiles at their
 * first launch are compiled before timing starts, and the run is the same
 * warmed or not. Returns the seconds it took (about 0 on the reference). */
double rb_run_warm(rb_run *run);

/* Takes count events (scenes/debris_events.h) in time order, and the
 * break events' pieces. False stops the run. */
typedef bool (*rb_run_events_fn)(void *user, const rb_event *events, uint32_t count, const rb_body_id *pieces);
/* From now on, rb_run_steps hands fn the events of the run's debris layer
 * (made empty for a scene without debris effects) as they are ready, after
 * each chunk of steps and all that are left at the end: impacts above
 * impulse N s, breaks, spawns and removals (docs/events.md). False with
 * the reason in err. */
bool rb_run_on_events(rb_run *run, float impulse, rb_run_events_fn fn, void *user, char *err, size_t err_size);

/* Called at each frame of a recording with the simulated time since the
 * run began (s): the world is as it is at that time. False stops the run. */
typedef bool (*rb_run_frame_fn)(void *user, double time);
/* From now on, rb_run_steps stops at every frame of rate_hz (frame k at the
 * first step at or after k / rate_hz s; frame 0 at the run's start, before
 * its first step) and calls fn there. */
void rb_run_on_frames(rb_run *run, double rate_hz, rb_run_frame_fn fn, void *user);

/* From now on, rb_run_steps stops at each of count steps (counted from the
 * run's start, ascending; the caller keeps the array) and calls fn there,
 * once each, as the frames of rb_run_on_frames are called: a stop at a step
 * already run is called before the next step. What fn does there (reading
 * the state, drawing it: src/sandbox/shots.c) leaves the run as it was. */
void rb_run_on_steps(rb_run *run, const long *steps, uint32_t count, rb_run_frame_fn fn, void *user);

/* Steps `steps` steps in chunks; with progress, long runs report on stderr
 * under `label`. Fills stats. False on a backend failure (logged) or when a
 * frame function says stop. */
bool rb_run_steps(rb_run *run, long steps, const char *label, bool progress, rb_run_stats *stats);

/* Reads the state at the end of the run. */
rb_run_summary rb_run_summarize(rb_run *run);

#endif
