/* cells.c - which shapes are lattices, and which faces of their particles'
 * cells are exposed (contact.h, "cells"). */
#include <math.h>
#include <stdlib.h>

#include "contact.h"
#include "world_internal.h"

/* A lattice point packed as a key: 21 bits an axis, offset to be positive. */
#define CELL_BIAS (1 << 20)
static uint64_t cell_key(const int c[3]) {
    return (uint64_t)(c[0] + CELL_BIAS) << 42 | (uint64_t)(c[1] + CELL_BIAS) << 21 | (uint64_t)(c[2] + CELL_BIAS);
}

static int compare_keys(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool has_key(const uint64_t *keys, uint32_t n, uint64_t key) {
    return bsearch(&key, keys, n, sizeof *keys, compare_keys) != NULL;
}

int rb_shape_cells(rb_float4 *offsets, uint32_t n, float radius) {
    if (n < 2 || !(radius > 0.0f)) return 0;
    const double spacing = 2.0 * (double)radius;
    int *coords = malloc((size_t)n * 3 * sizeof *coords);
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    int result = 0;
    if (!coords || !keys) {
        result = -1;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        const double o[3] = {offsets[i].x - offsets[0].x, offsets[i].y - offsets[0].y, offsets[i].z - offsets[0].z};
        for (int k = 0; k < 3; k++) {
            const double c = o[k] / spacing, whole = round(c);
            /* off the lattice by more than a thousandth of a step, or beyond the keys' range */
            if (!(fabs(c - whole) <= 1e-3) || fabs(whole) >= CELL_BIAS - 1) goto done;
            coords[3 * i + k] = (int)whole;
        }
        keys[i] = cell_key(&coords[3 * i]);
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    for (uint32_t i = 1; i < n; i++)
        if (keys[i] == keys[i - 1]) goto done; /* two particles in one cell */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t exposed = 0;
        for (int k = 0; k < 3; k++)
            for (int side = 0; side < 2; side++) {
                int c[3] = {coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]};
                c[k] += side ? -1 : 1;
                if (!has_key(keys, n, cell_key(c))) exposed |= side ? RB_FACE_NEG(k) : RB_FACE_POS(k);
            }
        offsets[i].w = (float)exposed;
    }
    result = 1;
done:
    free(coords);
    free(keys);
    return result;
}
