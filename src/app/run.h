/* run.h - the headless runner: builds a scene in a new world, steps it in
 * chunks with progress, and collects what a run is judged by (speed, stage
 * and kernel times, the state at the end). `rubble --headless` and
 * `rubble-bench` both run scenes through it and only print differently. */
#ifndef RB_RUN_H
#define RB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenes/entities.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_RUN_MAX_KERNELS 16

/* What to build: a formation, or the benchmark pile (scenes/pile.h). */
typedef struct rb_run_scene {
    int formation; /* 1..5: the thesis's formations; 0: the benchmark pile */
    int bodies;
} rb_run_scene;

/* Time spent in rb_run_steps, summed over its steps. */
typedef struct rb_run_stats {
    long steps;
    double wall_s;
    double cpu_s; /* CPU time of the process meanwhile: cpu_s / wall_s is how many cores it had */
    double stage_ms[RB_STAGE_COUNT];
    const char *const *kernel_names; /* the backend's timed kernels; none for the reference */
    uint32_t kernel_count;
    double kernel_ms[RB_RUN_MAX_KERNELS];
} rb_run_stats;

/* The state at the end of a run. */
typedef struct rb_run_summary {
    uint32_t bodies, particles;
    float max_speed; /* m/s, the fastest body */
    float min_y;     /* m, the lowest point of any particle (its centre less the radius); 0 without bodies */
    bool nan;        /* any body state or particle position not finite */
    uint64_t digest; /* rb_world_digest */
    bool ok;         /* false if reading the state failed */
} rb_run_summary;

typedef enum rb_run_error {
    RB_RUN_OK = 0,
    RB_RUN_NO_SHAPE, /* no shape of that name: a usage error */
    RB_RUN_NO_WORLD, /* the world could not be created (err says why) */
} rb_run_error;

typedef struct rb_run rb_run;

/* A new world from desc with `scene` of the shape named `shape` from the
 * registry (which must outlive the run); the pile also gets the pile's walls.
 * NULL with *why and a message in err. A world that took fewer bodies than
 * asked is not an error: see rb_run_added. */
rb_run *rb_run_create(const rb_registry *registry, const char *shape, const rb_run_scene *scene,
                      const rb_world_desc *desc, rb_run_error *why, char *err, size_t err_size);
void rb_run_destroy(rb_run *run);

rb_world *rb_run_world(rb_run *run);
const rb_shape *rb_run_shape(const rb_run *run);
/* How many bodies the scene put in the world. */
int rb_run_added(const rb_run *run);

/* Steps `steps` steps in chunks; with progress, long runs report on stderr
 * under `label`. Fills stats. False on a backend failure (logged). */
bool rb_run_steps(rb_run *run, long steps, const char *label, bool progress, rb_run_stats *stats);

/* Reads the state at the end of the run. */
rb_run_summary rb_run_summarize(rb_run *run);

/* A float as the shortest decimal that reads back as it (0.001, not
 * 0.0010000000474974513), for JSON. */
double rb_decimal(float f);

#endif
