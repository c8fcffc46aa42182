/* app.h - set-up shared by the headless run, the benchmark and the sandbox. */
#ifndef RB_APP_H
#define RB_APP_H

#include "options.h"
#include "shapes/shapes.h"
#include "sim/world.h"

/* A registry with the shapes of the default plugin folder and each
 * --plugins folder; the mesh plugin searches assets/meshes and each --meshes
 * folder. Problems are logged; the registry may hold no shape. */
rb_registry *rb_app_registry(const rb_options *o);

/* The world description the options ask for (backend, device, dt). */
rb_world_desc rb_app_world_desc(const rb_options *o);

/* Runs --headless: builds the formation, steps, prints the summary.
 * Returns the process exit code. */
int rb_headless_run(const rb_options *o);

#endif
