/* pile.h - the benchmark pile, defined exactly so other engines can run the
 * same scene (README.md, "Benchmarks").
 *
 * N bodies (cubes of side 1.2: 3x3x3 particles of radius 0.2, or any shape)
 * with body b at layer k = b / 256, row (b mod 256) / 16, column b mod 16,
 * centre (-14.1 + 1.8 column, 1.0 + 1.8 k, -14.1 + 1.8 row) m, turned by
 * 0.4 rad about the normalised axis (cos 2.39996 b, 0.5, sin 2.39996 b), at
 * rest; a ground plane y = 0 and walls x = +-15, z = +-15; gravity 9.81. */
#ifndef RB_PILE_H
#define RB_PILE_H

#include <stdint.h>

#include "entities.h"

/* The pile's half-width: walls at x = +-15 m and z = +-15 m. */
#define RB_PILE_HALF_WIDTH 15.0f

/* Sets the pile's planes (ground and four walls) on a world description;
 * everything else (material, step, radius, backend) is left as it is. */
void rb_pile_planes(rb_world_desc *desc);

/* Where body b of the pile starts: centre (m) and orientation (x, y, z, w). */
void rb_pile_body_pose(uint32_t b, float position[3], float orientation[4]);

/* Spawns n bodies of entity `entity`'s shape in the pile's poses. Returns the
 * number added (less than n only if the world refused a body: logged). */
uint32_t rb_pile_build(rb_entities *entities, uint32_t entity, uint32_t n);

#endif
