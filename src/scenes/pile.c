/* pile.c - the benchmark pile (see pile.h for its exact definition). */
#include "pile.h"

#include <math.h>

void rb_pile_planes(rb_world_desc *desc) {
    /* A plane keeps out points with dot(normal, x) < offset; normals point into the box. */
    const rb_plane planes[5] = {
        {.normal = {0.0f, 1.0f, 0.0f}, .offset = 0.0f},
        {.normal = {1.0f, 0.0f, 0.0f}, .offset = -RB_PILE_HALF_WIDTH},
        {.normal = {-1.0f, 0.0f, 0.0f}, .offset = -RB_PILE_HALF_WIDTH},
        {.normal = {0.0f, 0.0f, 1.0f}, .offset = -RB_PILE_HALF_WIDTH},
        {.normal = {0.0f, 0.0f, -1.0f}, .offset = -RB_PILE_HALF_WIDTH},
    };
    desc->plane_count = 5;
    for (int i = 0; i < 5; i++) desc->planes[i] = planes[i];
}

void rb_pile_body_pose(uint32_t b, float position[3], float orientation[4]) {
    const uint32_t layer = b / 256, row = (b % 256) / 16, column = b % 16;
    position[0] = (float)(-14.1 + 1.8 * column);
    position[1] = (float)(1.0 + 1.8 * layer);
    position[2] = (float)(-14.1 + 1.8 * row);
    /* In double: 2.39996 b reaches thousands of radians, where float cos/sin would be coarse. */
    double axis[3] = {cos(2.39996 * b), 0.5, sin(2.39996 * b)};
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]), s = sin(0.2);
    for (int k = 0; k < 3; k++) orientation[k] = (float)(axis[k] / len * s);
    orientation[3] = (float)cos(0.2);
}

uint32_t rb_pile_build(rb_entities *entities, uint32_t entity, uint32_t n) {
    uint32_t added = 0;
    for (uint32_t b = 0; b < n; b++) {
        rb_body_desc d = {0};
        rb_pile_body_pose(b, d.position, d.orientation);
        if (rb_entities_spawn(entities, entity, &d).generation == 0) continue;
        added++;
    }
    return added;
}
