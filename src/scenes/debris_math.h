/* debris_math.h - the random numbers and small vector helpers the debris
 * rooms share (emitters, fields, impact chips): header only, so each room
 * does the same float operations in the same order as the others. */
#ifndef RB_DEBRIS_MATH_H
#define RB_DEBRIS_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rb_math.h"
#include "sim/world.h"

/* ---- random numbers: splitmix64 for seeds, xorshift64* for draws ---- */

static inline uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t next_u64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, 1), 24 bits: every value a float holds exactly. */
static inline float uniform(uint64_t *s) { return (float)(next_u64(s) >> 40) * (1.0f / 16777216.0f); }

/* ---- small vector helpers ---- */

/* Normalises v; false (v unchanged) if it is too short to have a direction. */
static inline bool normalise(float v[3]) {
    const float len = sqrtf(rb_v3_dot(v, v));
    if (!(len > 1e-20f)) return false;
    for (int k = 0; k < 3; k++) v[k] /= len;
    return true;
}

/* Two unit vectors that make a right-handed frame with unit n. */
static inline void basis(const float n[3], float u[3], float v[3]) {
    const float a[3] = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    rb_v3_cross(n, a, u);
    normalise(u);
    rb_v3_cross(n, u, v);
}

/* A uniformly random direction within `cone` radians of unit axis. */
static inline void in_cone(uint64_t *s, const float axis[3], float cone, float out[3]) {
    const float z = 1.0f - uniform(s) * (1.0f - cosf(cone)); /* cos of the angle off the axis */
    const float phi = 6.2831853f * uniform(s), r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    float u[3], v[3];
    basis(axis, u, v);
    for (int k = 0; k < 3; k++) out[k] = z * axis[k] + r * (cosf(phi) * u[k] + sinf(phi) * v[k]);
}

/* True if a body of bounding radius r at p is clear of every plane's solid:
 * one started in a slope is thrown out of it at hundreds of m/s. A point
 * (r 0) inside one is refused as an emitter's centre. */
static inline bool clear_of_planes(const rb_world_desc *w, const float p[3], float r) {
    for (uint32_t k = 0; k < w->plane_count; k++)
        if (rb_v3_dot(w->planes[k].normal, p) - w->planes[k].offset < r) return false;
    return true;
}

#endif
