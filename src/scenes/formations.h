/* formations.h - the starting scenes of the thesis (Fossum 6.2.1 and 6.4). */
#ifndef RB_FORMATIONS_H
#define RB_FORMATIONS_H

#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_FORMATION_COUNT 5

/* Registers a registry shape with the world; returns the world's shape index or -1. */
int rb_scene_add_shape(rb_world *world, const rb_shape *shape);

/* Half extents (m) of the box around a shape's particles, radius included. */
void rb_shape_half_extents(const rb_shape *shape, float half[3]);

/* One line describing formation k, for help screens. */
const char *rb_formation_name(int formation);

/* Adds formation k (1..5) of n bodies of a shape (world index world_shape,
 * registry shape for its size) to the world, on the ground plane y = 0:
 *  1: the thesis's staggered stacks: each column climbs while stepping
 *     between four positions around its centre (6.2.1); columns of at most 24.
 *  2-5: towers of aligned bodies, 5, 10, 20 and 40 high, as many as n makes,
 *     side by side (6.4, figure 6.12).
 * Returns the number of bodies added. */
int rb_formation_build(rb_world *world, int formation, int n, uint32_t world_shape, const rb_shape *shape);

#endif
