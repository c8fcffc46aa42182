/* bench.h - rubble-bench's scenes that are more than a timed run (bench.c
 * times the rest through the headless runner). */
#ifndef RB_BENCH_H
#define RB_BENCH_H

#include <stdbool.h>

#include "options.h"
#include "sim/world.h"

/* `repose N` (repose.c): scene->bodies spheres poured onto a rough disc on
 * backend, settled for o->settle s; prints the heap's angle of repose as
 * text or (o->json) one JSON object. False if the run failed or the heap
 * could not be measured. */
bool rb_bench_repose(const rb_options *o, const rb_run_scene *scene, rb_backend_kind backend);

#endif
