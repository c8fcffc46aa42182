/* formations.c - the thesis's starting scenes (see formations.h). */
#include "formations.h"

#include <math.h>
#include <stdlib.h>

const char *rb_formation_name(int k) {
    static const char *const names[RB_FORMATION_COUNT] = {"staggered stacks (thesis 6.2.1)", "towers 5 high",
                                                          "towers 10 high", "towers 20 high", "towers 40 high"};
    return k >= 1 && k <= RB_FORMATION_COUNT ? names[k - 1] : "unknown";
}

/* Columns on a square grid centred on the origin, `per_column` bodies each. */
static int columns_grid(int n, int per_column) { return (int)ceil(sqrt(ceil((double)n / per_column))); }

bool rb_formation_pose(const rb_shape *s, int formation, int n, int i, float position[3]) {
    if (formation < 1 || formation > RB_FORMATION_COUNT || i < 0 || i >= n) return false;
    float h[3];
    rb_shape_half_extents(s, h);
    const float size = 2.0f * fmaxf(h[0], fmaxf(h[1], h[2]));
    if (formation == 1) {
        /* Each step up moves to the next of four corners, so consecutive
         * bodies never overlap and each one falls onto the one four below. */
        const int per_column = 24;
        const int grid = columns_grid(n, per_column);
        const float spacing = 3.0f * size, step_up = 0.55f * size, corner = 0.6f * size;
        static const float cx[4] = {1, -1, -1, 1}, cz[4] = {1, 1, -1, -1};
        int column = i / per_column, level = i % per_column;
        float x0 = (column % grid - 0.5f * (grid - 1)) * spacing, z0 = (column / grid - 0.5f * (grid - 1)) * spacing;
        position[0] = x0 + cx[level % 4] * corner;
        position[1] = h[1] * 1.05f + level * step_up;
        position[2] = z0 + cz[level % 4] * corner;
        return true;
    }
    static const int heights[4] = {5, 10, 20, 40};
    const int height = heights[formation - 2];
    const int grid = columns_grid(n, height);
    const float spacing = 3.0f * size;
    /* a hair of space between layers, so a tower settles instead of starting squeezed */
    const float layer = 2.0f * h[1] + 0.002f * size;
    int column = i / height, level = i % height;
    position[0] = (column % grid - 0.5f * (grid - 1)) * spacing;
    position[1] = h[1] + 0.001f * size + level * layer;
    position[2] = (column / grid - 0.5f * (grid - 1)) * spacing;
    return true;
}

int rb_formation_build(rb_entities *t, uint32_t entity, int formation, int n) {
    const rb_entity *e = rb_entities_get(t, entity);
    if (!e || formation < 1 || formation > RB_FORMATION_COUNT || n <= 0) return 0;
    int added = 0;
    for (int i = 0; i < n; i++) {
        rb_body_desc d = {.orientation = {0, 0, 0, 1}};
        rb_formation_pose(e->shape, formation, n, i, d.position);
        added += rb_entities_spawn(t, entity, &d).generation != 0;
    }
    return added;
}
