/* fracture_internal.h - what fracture.c (pieces, bonds, splits) and
 * fracture_patterns.c (the patterns that group particles into pieces)
 * share. */
#ifndef RB_FRACTURE_INTERNAL_H
#define RB_FRACTURE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "fracture.h"

static inline double rb_distance2(const float *a, const float *b) {
    const double x = (double)a[0] - b[0], y = (double)a[1] - b[1], z = (double)a[2] - b[2];
    return x * x + y * y + z * z;
}

/* The axis along which the particles spread furthest (the first of equals),
 * and where their centres start on it. */
static inline int rb_longest_axis(const float *p, uint32_t n, float *low, float *extent) {
    float lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
    for (uint32_t i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[3 * i + k]), hi[k] = fmaxf(hi[k], p[3 * i + k]);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    *low = lo[axis], *extent = hi[axis] - lo[axis];
    return axis;
}

/* ---- the patterns (fracture_patterns.c): each writes every particle's
 * piece (0 .. count - 1, some perhaps empty) in piece_of ---- */

/* `count` seeds in seeds, each particle (radius r) joining the nearest:
 * drawn from `seed` among the particles and moved until the pieces are of
 * even size, or, with weights (per particle, the density to draw with),
 * the particles drawn. False if out of memory. */
bool rb_pattern_voronoi(const float *p, uint32_t n, float r, uint32_t count, uint64_t seed, const double *weight,
                        uint32_t *piece_of, float *seeds);
/* The impact pattern's weights about hit (rb_pieces_make_at); NULL if out of memory. */
double *rb_pattern_impact_weights(const float *p, uint32_t n, const float hit[3], float focus);
/* `count` slabs of equal thickness across the particles' spread along
 * their longest axis, their seeds the slabs' middles on that axis. */
void rb_pattern_layers(const float *p, uint32_t n, uint32_t count, uint32_t *piece_of, float *seeds);
/* The same along `normal` (non-zero, finite), the seeds on a line through
 * the origin along it. */
void rb_pattern_slices(const float *p, uint32_t n, uint32_t count, const float normal[3], uint32_t *piece_of,
                       float *seeds);
/* desc's wedges and rings (rb_radial), made in out (free with
 * rb_pattern_radial_free); piece wedge x rings + ring. False if out of memory. */
bool rb_pattern_radial(const float *p, uint32_t n, const rb_fracture_desc *desc, uint32_t *piece_of,
                       rb_radial *out);
void rb_pattern_radial_free(rb_radial *rad);
/* Drops pieces no particle joined, and their seeds (if any) and radial
 * cells (if any), keeping the others' order; returns how many are left. */
uint32_t rb_pattern_drop_empty(uint32_t *piece_of, uint32_t n, uint32_t count, uint32_t *scratch, float *seeds,
                               uint32_t *cells);

#endif
