/* rb_test.h - what the tests share: cmocka, worlds on the backend under
 * test, shapes from the real plugins. */
#ifndef RB_TEST_H
#define RB_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "shapes/shapes.h"
#include "sim/world.h"

/* Asserts |a - b| <= tol, printing both. */
#define assert_near(a, b, tol)                                                                                         \
    do {                                                                                                               \
        double a_ = (a), b_ = (b), t_ = (tol);                                                                         \
        if (!(fabs(a_ - b_) <= t_)) fail_msg("%s = %.9g, expected %s = %.9g within %.3g", #a, a_, #b, b_, t_);         \
    } while (0)

/* The backend under test: RUBBLE_TEST_BACKEND=opencl|reference (default reference). */
static inline rb_backend_kind rb_test_backend(void) {
    const char *b = getenv("RUBBLE_TEST_BACKEND");
    return b && strcmp(b, "opencl") == 0 ? RB_BACKEND_OPENCL : RB_BACKEND_REFERENCE;
}

/* Its name, for the files a test writes: the two backends' runs of one test
 * run side by side (ctest -j) and must not write the same file. */
static inline const char *rb_test_backend_name(void) {
    return rb_test_backend() == RB_BACKEND_OPENCL ? "opencl" : "reference";
}

static inline rb_world *rb_test_world(rb_world_desc desc) {
    desc.backend = rb_test_backend();
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) fail_msg("cannot create a %s world: %s", desc.backend == RB_BACKEND_OPENCL ? "opencl" : "reference", err);
    return w;
}

/* The registry with the build's plugins (cube, cube2, ...). */
static inline rb_registry *rb_test_registry(void) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_registry_scan_dir(reg, RB_TEST_PLUGIN_DIR);
    return reg;
}

#ifdef RB_TEST_SOURCE_DIR
/* The same, with the shipped meshes (assets/meshes) for the mesh plugin:
 * rocks, pawns, bricks, the ball. */
static inline rb_registry *rb_test_registry_with_meshes(void) {
    const char *meshes[1] = {RB_TEST_SOURCE_DIR "/assets/meshes"};
    rb_registry *reg =
        rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f, .mesh_dirs = meshes, .mesh_dir_count = 1});
    rb_registry_scan_dir(reg, RB_TEST_PLUGIN_DIR);
    return reg;
}
#endif

/* Adds a registry shape to the world; returns its world index. */
static inline uint32_t rb_test_add_registry_shape(rb_world *w, const rb_shape *s) {
    rb_shape_data d = {
        s->particle_count, s->particles, s->mass, {s->inertia[0], s->inertia[1], s->inertia[2]}, s->particle_radius};
    int ws = rb_world_add_shape(w, &d);
    assert_true(ws >= 0);
    return (uint32_t)ws;
}

/* Adds the registry shape of that name to the world; returns its world index. */
static inline uint32_t rb_test_add_shape(rb_world *w, rb_registry *reg, const char *name) {
    int i = rb_registry_find(reg, name);
    if (i < 0) fail_msg("shape '%s' not loaded from %s", name, RB_TEST_PLUGIN_DIR);
    return rb_test_add_registry_shape(w, rb_registry_get(reg, (uint32_t)i));
}

/* A lattice cube of n^3 particles (spacing one diameter), built here so a
 * body of hundreds of particles needs no plugin. */
static inline uint32_t rb_test_add_lattice(rb_world *w, int n, float radius, float particle_mass) {
    float *p = malloc(sizeof(float) * 3 * n * n * n);
    int k = 0;
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int l = 0; l < n; l++) {
                p[k++] = 2.0f * radius * (i - 0.5f * (n - 1));
                p[k++] = 2.0f * radius * (j - 0.5f * (n - 1));
                p[k++] = 2.0f * radius * (l - 0.5f * (n - 1));
            }
    for (int i = 0; i < n * n * n; i++) sum += p[3 * i] * p[3 * i] + p[3 * i + 1] * p[3 * i + 1];
    float count = (float)(n * n * n);
    float inertia = (float)(particle_mass * sum) + count * 0.4f * particle_mass * radius * radius;
    rb_shape_data d = {(uint32_t)(n * n * n), p, particle_mass * count, {inertia, inertia, inertia}, radius};
    int s = rb_world_add_shape(w, &d);
    free(p);
    assert_true(s >= 0);
    return (uint32_t)s;
}

/* A box of nx x ny x nz particles of radius r one diameter apart, 64 kg a
 * particle (the registry's density), with its exact inertia: the point
 * masses plus each particle's own 2/5 m r^2. */
static inline uint32_t rb_test_add_box(rb_world *w, int nx, int ny, int nz, float r) {
    const float m = 64.0f;
    const int n = nx * ny * nz;
    float *p = malloc(sizeof(float) * 3 * (size_t)n), I[3] = {0, 0, 0};
    for (int i = 0, k = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int l = 0; l < nz; l++, k++) {
                float *q = &p[3 * k];
                q[0] = 2 * r * (i - 0.5f * (nx - 1)), q[1] = 2 * r * (j - 0.5f * (ny - 1));
                q[2] = 2 * r * (l - 0.5f * (nz - 1));
                I[0] += m * (q[1] * q[1] + q[2] * q[2]) + 0.4f * m * r * r;
                I[1] += m * (q[0] * q[0] + q[2] * q[2]) + 0.4f * m * r * r;
                I[2] += m * (q[0] * q[0] + q[1] * q[1]) + 0.4f * m * r * r;
            }
    rb_shape_data d = {(uint32_t)n, p, m * (float)n, {I[0], I[1], I[2]}, r};
    int s = rb_world_add_shape(w, &d);
    free(p);
    assert_true(s >= 0);
    return (uint32_t)s;
}

/* Steps a body falling onto the ground plane until it has touched and left
 * it again, each particle reaching `reach` below its centre: its radius for
 * a body of spheres; for a lattice body (src/sim/contact.h, "cells") its
 * cell's lowest point, r (|n_x| + |n_y| + |n_z|) for the up direction n in
 * the body's frame, the same for every particle while the body does not
 * turn. *depth the deepest any particle's surface went into the ground
 * (reach - its centre's height), m; *e the centre's speed up when the last
 * particle left the ground over its speed down when the first touched (for
 * a landing that does not turn it). */
static inline void rb_test_landing_reach(rb_world *w, rb_body_id id, float reach, float *depth, float *e) {
    const uint32_t np = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * np), impact = 0.0f, rebound = 0.0f;
    int phase = 0; /* 0: falling, 1: on the ground, 2: left it */
    *depth = 0.0f;
    for (int step = 0; step < 5000 && phase < 2; step++) {
        rb_body_state b;
        assert_true(rb_world_get_body_by_id(w, id, &b));
        assert_true(rb_world_read_particles(w, p));
        float low = INFINITY;
        for (uint32_t i = 0; i < np; i++) low = fminf(low, p[3 * i + 1]);
        const bool touching = low < reach;
        if (phase == 0 && touching) phase = 1, impact = -b.velocity[1];
        if (phase == 1) *depth = fmaxf(*depth, reach - low);
        if (phase == 1 && !touching) phase = 2, rebound = b.velocity[1];
        if (phase < 2) assert_true(rb_world_step(w, 1));
    }
    assert_int_equal(phase, 2);
    *e = rebound / impact;
    free(p);
}

/* rb_test_landing_reach for a body of spheres of radius r: each reaches r below its centre. */
static inline void rb_test_landing(rb_world *w, rb_body_id id, float r, float *depth, float *e) {
    rb_test_landing_reach(w, id, r, depth, e);
}

static inline rb_body_id rb_test_add_body(rb_world *w, uint32_t shape, float x, float y, float z) {
    rb_body_desc d = {.shape = shape, .position = {x, y, z}};
    rb_body_id id = rb_world_add_body(w, &d);
    assert_true(id.generation != 0);
    return id;
}

static inline float rb_test_len(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The least-squares slope of body id's speed along dir, m/s^2: sampled now
 * and after each of samples - 1 more runs of `every` steps. */
static inline double rb_test_acceleration(rb_world *w, rb_body_id id, const float dir[3], uint32_t every, int samples) {
    double st = 0, sv = 0, stt = 0, stv = 0;
    for (int k = 0; k < samples; k++) {
        if (k > 0) assert_true(rb_world_step(w, every));
        rb_body_state s;
        assert_true(rb_world_get_body_by_id(w, id, &s));
        const double t = (double)k * every * rb_world_get_desc(w)->dt, v = rb_v3_dot(s.velocity, dir);
        st += t, sv += v, stt += t * t, stv += t * v;
    }
    return (samples * stv - st * sv) / (samples * stt - st * st);
}

/* Every particle's radius (its body's shape's), in particle order; freed by the caller. */
static inline float *rb_test_particle_radii(const rb_world *w) {
    const uint32_t nb = rb_world_body_count(w), *first = rb_world_body_first_particle(w);
    const uint32_t *shapes = rb_world_body_shapes(w);
    float *radius = malloc(sizeof(float) * (rb_world_particle_count(w) + 1));
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t i = first[b]; i < first[b + 1]; i++) radius[i] = rb_world_shape_radius(w, shapes[b]);
    return radius;
}

/* The largest overlap (m) between particles of different bodies now: r_i + r_j - distance. */
static inline float rb_test_max_overlap(rb_world *w) {
    uint32_t np = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * (np ? np : 1)), *radius = rb_test_particle_radii(w);
    uint32_t cap = 8 * np + 16, *pairs = malloc(sizeof(uint32_t) * 2 * cap);
    assert_true(rb_world_read_particles(w, p));
    uint32_t n = rb_world_contact_pairs(w, pairs, cap);
    if (n > cap) n = cap;
    float worst = 0.0f;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
        const float *a = &p[3 * i], *b = &p[3 * j];
        float x[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        worst = fmaxf(worst, radius[i] + radius[j] - rb_test_len(x));
    }
    free(p), free(pairs), free(radius);
    return worst;
}

#endif
