/* entities.h - the entity table: one record per shape, as each layer knows it.
 *
 * A shape has three numbers: its index in the shape registry (where its
 * particles, mass and mesh come from), its index in the world (what the
 * simulation steps) and its mesh in the renderer (what is drawn). The table
 * keeps the three together, one row per registry shape, in registry order,
 * and it is the one place that spawns a body of a shape: formations, the
 * benchmark pile, the headless runner and the sandbox's tools all spawn
 * through rb_entities_spawn().
 *
 * The table knows nothing of rendering: the sandbox, which owns the renderer,
 * gives each new row its mesh with rb_entities_set_mesh().
 *
 * World shapes made at run time from another's particles (the pieces of a
 * broken body: src/scenes/debris_break.c) have no row, as no registry shape is
 * theirs; the table keeps a mesh for each of them too
 * (rb_entities_set_shape_mesh), which the sandbox builds from the shape's
 * particles. */
#ifndef RB_ENTITIES_H
#define RB_ENTITIES_H

#include <stdbool.h>
#include <stdint.h>

#include "shapes/shapes.h"
#include "sim/world.h"

typedef struct rb_entity {
    const rb_shape *shape; /* the registry's entry: name, particles, mass, mesh */
    int world_shape;       /* the world's shape index; -1 if the world refused the shape */
    int mesh;              /* the renderer's mesh; -1 if none (drawn as its particles) */
} rb_entity;

typedef struct rb_entities rb_entities;

/* A table for one registry and one world (both must outlive it), with a row
 * for every shape the registry holds now. NULL if out of memory. */
rb_entities *rb_entities_create(const rb_registry *registry, rb_world *world);
void rb_entities_destroy(rb_entities *t);

/* Adds a row for every shape the registry gained since the last call (after
 * a plugin rescan) and registers it with the world; a row whose registry
 * shape was replaced (a rebuilt plugin: rb_registry_rescan) gets the new
 * shape as a new world shape and no mesh (set it again), while the bodies
 * already made keep the old world shape, its layout and its mesh. Returns
 * how many rows were added; the new rows are the last ones. */
uint32_t rb_entities_sync(rb_entities *t);
/* How many rows have had their shape replaced so far. */
uint32_t rb_entities_replaced(const rb_entities *t);
/* The registry shape a world shape was made from (a replaced row's old
 * shape for the bodies made before), or NULL for one with no row. */
const rb_shape *rb_entities_shape_of_world_shape(const rb_entities *t, uint32_t world_shape);

uint32_t rb_entities_count(const rb_entities *t);
/* The world the table spawns into. */
rb_world *rb_entities_world(const rb_entities *t);
/* Row `index` (= the shape's registry index), or NULL past the end. */
const rb_entity *rb_entities_get(const rb_entities *t, uint32_t index);
/* The row of the shape of that name, or -1. */
int rb_entities_find(const rb_entities *t, const char *name);
/* The row of a world shape index (what rb_world_body_shapes() holds; a
 * scaled variant's row too), or -1. */
int rb_entities_of_world_shape(const rb_entities *t, uint32_t world_shape);
/* Sets the renderer's mesh of row `index`. */
void rb_entities_set_mesh(rb_entities *t, uint32_t index, int mesh);
/* The renderer's mesh a world shape's bodies are drawn with: its row's, or,
 * for a world shape with no row, the one given it with
 * rb_entities_set_shape_mesh(); -1 if none (drawn as its particles). */
int rb_entities_mesh_of_world_shape(const rb_entities *t, uint32_t world_shape);
/* Gives a world shape with no row its mesh. False for one with a row (its
 * row's mesh is set with rb_entities_set_mesh) or out of memory. */
bool rb_entities_set_shape_mesh(rb_entities *t, uint32_t world_shape, int mesh);

/* Adds a body of row `index`'s shape: desc gives where it starts and how it
 * moves (its shape field is ignored). A null id if the row is unknown or the
 * world refused it (logged by the world) or the body. */
rb_body_id rb_entities_spawn(rb_entities *t, uint32_t index, const rb_body_desc *desc);

/* The same at `scale` times the shape's size (0.01 to 100): particles
 * further apart and larger, mass times scale^3, inertia times scale^5. Each
 * (row, scale) is registered with the world once, as its own world shape. */
rb_body_id rb_entities_spawn_scaled(rb_entities *t, uint32_t index, float scale, const rb_body_desc *desc);
/* The scale of a world shape's bodies: 1 for a row's own, the variant's for a scaled one. */
float rb_entities_scale_of_world_shape(const rb_entities *t, uint32_t world_shape);

#endif
