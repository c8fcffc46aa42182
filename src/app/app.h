/* app.h - set-up shared by rubble (sandbox and --headless) and rubble-bench:
 * the shape registry and the world description the options ask for. */
#ifndef RB_APP_H
#define RB_APP_H

#include "options.h"
#include "paths.h"
#include "shapes/shapes.h"
#include "sim/world.h"

/* A registry with the shapes of the default plugin folder and each
 * --plugins folder; the mesh plugin searches the shipped meshes and each
 * --meshes folder. Problems are logged; the registry may hold no shape. */
rb_registry *rb_app_registry(const rb_options *o, const rb_paths *paths);

/* The world description the options ask for (backend, device, and what
 * rb_app_override_world sets). */
rb_world_desc rb_app_world_desc(const rb_options *o);

/* What the command line sets in any world, a scene's own included: the step
 * (--dt), sleeping off (--no-sleep: sleep_time 0, whatever the scene's
 * "sleep" says) and the friction of the world's material (--friction). Every
 * place a world description is made from a scene calls it. */
void rb_app_override_world(const rb_options *o, rb_world_desc *d);

#endif
