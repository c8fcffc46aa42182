/* stage.h - a live scene: the world, the entity table its bodies are made
 * through, the scene it was built from and that scene's debris layer, held
 * as one object. Both programs drive it: the sandbox (src/sandbox) and the
 * headless runner (src/app/run.c, and through it rubble-bench).
 *
 * A stage installs a scene whole or not at all: into a new world, swapped in
 * only once the scene is built in it, or into the world it has, emptied,
 * when that world's settings are the scene's. It steps one way whether or
 * not the scene has debris effects: through the debris layer when there is
 * one (its ticks fall on step counts, debris.h), else the world's own step;
 * and it gives the stage times of the steps it ran either way. It keeps
 * the bodies' colours (colors.h) for all who draw or record them. */
#ifndef RB_STAGE_H
#define RB_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "colors.h"
#include "debris.h"
#include "entities.h"
#include "scene.h"
#include "shapes/shapes.h"
#include "sim/world.h"

typedef struct rb_stage rb_stage;

/* An empty world made from desc, its entity table of the registry (which
 * must outlive the stage), no scene. NULL with the reason in err. */
rb_stage *rb_stage_create(const rb_registry *registry, const rb_world_desc *desc, char *err, size_t err_size);
void rb_stage_destroy(rb_stage *s);

/* How a scene goes onto the stage. */
typedef struct rb_stage_how {
    rb_world_desc world; /* the world it runs in (rb_scene_world_desc, with the caller's overrides) */
    /* The world there is, emptied, takes the scene when its settings are
     * `world` and it has no materials added: always if keep_world (a reset,
     * no new OpenCL program), else only while it holds no bodies. Otherwise
     * the scene gets a new world. */
    bool keep_world;
    /* Debris effects that cannot run in this world: logged, and the scene
     * runs without them (the sandbox); false: the install fails (a batch run
     * is not run as something else). */
    bool debris_optional;
} rb_stage_how;

/* Whether a scene can be built at all, said before anything is: no more
 * bodies than its world.max_bodies, and a world the memory available holds
 * (rb_world_fits). False with the scene's name and the problem in err.
 * rb_stage_install asks it of every new scene; the programs ask it first
 * to tell a scene too big (exit status 2) from a failure. */
bool rb_stage_fits(const rb_scene *scene, const rb_world_desc *desc, char *err, size_t err_size);

/* Puts scene on the stage; the stage takes it, whatever happens (it may be
 * the stage's own scene: a reset). False with the reason in err when the
 * world cannot be made, refuses a body or cannot run the scene's debris
 * effects: the stage then has the world and scene it had, the world emptied
 * and built again from its scene where the emptied world was to take the
 * new one. *added (if not NULL): the bodies the world took before it refused
 * one; the scene's body_count where it refused none. A new scene must pass
 * rb_stage_fits; a reset (the stage's own scene) is not asked again. The
 * world's cap on bodies is set from the scene (world.max_bodies, else what
 * memory holds: docs/scene-format.md). */
bool rb_stage_install(rb_stage *s, rb_scene *scene, const rb_stage_how *how, uint32_t *added, char *err,
                      size_t err_size);

rb_world *rb_stage_world(const rb_stage *s);
rb_entities *rb_stage_entities(const rb_stage *s);
/* The scene installed last (what a reset installs again), or NULL. */
rb_scene *rb_stage_scene(const rb_stage *s);
/* Counts the worlds the stage has made: it changes when an install swaps a
 * new world in (a cache recording the old one ends; meshes of its pieces go). */
uint64_t rb_stage_world_number(const rb_stage *s);

/* The bodies' colours (colors.h): the scene's bodies' set when it is
 * installed, a broken body's pieces' and emitted bodies' by the debris
 * layer. What the sandbox draws and a cache records. */
rb_color_table *rb_stage_colors(const rb_stage *s);

/* The scene's debris layer, or NULL when it has none. */
rb_debris *rb_stage_debris(const rb_stage *s);
/* What a scene file of the live world is written from (scene.h): the
 * world, the entity table, the colours, the debris layer, and the installed
 * scene's camera (its bookmarks and start camera, as its file had them: a
 * recording's keyframes keep them for the replay's first view). */
rb_scene_source rb_stage_source(const rb_stage *s);
/* The debris layer, made empty now where the scene has none (the sandbox's
 * tools add emitters and fields to it; the next install drops it again).
 * NULL with the reason in err if it cannot be made. */
rb_debris *rb_stage_debris_layer(rb_stage *s, char *err, size_t err_size);
/* Emitters and fields of the debris layer acting now (0 and 0 without one). */
void rb_stage_debris_active(const rb_stage *s, uint32_t *emitters, uint32_t *fields);

/* Advances the world `steps` steps, through the debris layer when there is
 * one. False on a backend failure (logged). */
bool rb_stage_step(rb_stage *s, uint32_t steps);
/* Steps from now to the next debris tick (UINT32_MAX without a debris
 * layer). A caller that holds a load of its own through a step call (the
 * sandbox's grab) steps no further at a time: a debris step splits its
 * steps at ticks into several world step calls. */
uint32_t rb_stage_steps_to_tick(const rb_stage *s);
/* The most steps, up to n, that end on a tick where n passes one (n itself
 * without debris or when no tick falls within n): a run's chunks are
 * whole ticks. */
uint32_t rb_stage_whole_ticks(const rb_stage *s, uint32_t n);
/* Stage and kernel times (world.h) of the last rb_stage_step, summed over
 * the world step calls it made. */
void rb_stage_stage_times(const rb_stage *s, double ms[RB_STAGE_COUNT]);
uint32_t rb_stage_kernel_times(const rb_stage *s, const char *const **names, double *ms, uint32_t capacity);

#endif
