/* formations.h - the starting scenes of the thesis (Fossum 6.2.1 and 6.4). */
#ifndef RB_FORMATIONS_H
#define RB_FORMATIONS_H

#include "entities.h"

#define RB_FORMATION_COUNT 5

/* One line describing formation k, for help screens. */
const char *rb_formation_name(int formation);

/* Spawns formation k (1..5) of n bodies of entity `entity`'s shape, on the
 * ground plane y = 0, spaced by the shape's size:
 *  1: the thesis's staggered stacks: each column climbs while stepping
 *     between four positions around its centre (6.2.1); columns of at most 24.
 *  2-5: towers of aligned bodies, 5, 10, 20 and 40 high, as many as n makes,
 *     side by side (6.4, figure 6.12).
 * Returns the number of bodies added. */
int rb_formation_build(rb_entities *entities, uint32_t entity, int formation, int n);

/* Where body i of formation k of n bodies of a shape starts (centre, m); the
 * bodies start unrotated and at rest. False for a bad formation or index. */
bool rb_formation_pose(const rb_shape *shape, int formation, int n, int i, float position[3]);

#endif
