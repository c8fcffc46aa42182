/* test_opencl.c - the OpenCL backend checked against the sequential reference.
 *
 * Shapes come from the build's plugins (cube, cube2) and from descriptors
 * made here (a 300-particle slab, a bent rod, a single particle, and shapes
 * of their own particle sizes: a pebble, a cube of small particles, a cube
 * of large ones), through the registry, so mass properties are the ones the
 * program uses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenes/formations.h"
#include "scenes/pile.h"
#include "shapes/shapes.h"
#include "sim/opencl.h"
#include "sim/world.h"

/* ---- scenes ---- */

enum {
    SHAPE_CUBE,
    SHAPE_CUBE2,
    SHAPE_SLAB,
    SHAPE_ROD,
    SHAPE_ONE,
    SHAPE_SLAB_REVERSED,
    SHAPE_PEBBLE,     /* one particle of radius 0.05 */
    SHAPE_SMALL_CUBE, /* 3 x 3 x 3 particles of radius 0.1 */
    SHAPE_BIG_CUBE,   /* 2 x 2 x 2 particles of radius 0.3: larger than the world's */
    SHAPE_COUNT
};

typedef struct fixture {
    rb_registry *reg;
    int shape[SHAPE_COUNT]; /* registry index of each */
} fixture;

static float slab_particles[300 * 3], slab_reversed[300 * 3];
static const float rod_particles[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 3, 1, 0, 3, 2, 0, 3, 2, 1};
static const float one_particle[] = {0, 0, 0};

static float cube3[27 * 3], cube2[8 * 3];

/* diameter: the shape's particle diameter, m (0: the registry's, 0.4) */
static int add_desc(rb_registry *reg, const char *name, const float *p, uint32_t n, float diameter) {
    rb_shape_desc d = {.struct_size = sizeof d,
                       .name = name,
                       .description = "test shape",
                       .particle_count = n,
                       .particles = p,
                       .particle_diameter = diameter};
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_opencl.c"), RB_LOAD_OK);
    return rb_registry_find(reg, name);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->reg = rb_registry_create(&(rb_registry_desc){0});
    assert_true(rb_registry_scan_dir(f->reg, "plugins") > 0); /* tests run in the build folder */
    f->shape[SHAPE_CUBE] = rb_registry_find(f->reg, "cube");
    f->shape[SHAPE_CUBE2] = rb_registry_find(f->reg, "cube2");
    assert_true(f->shape[SHAPE_CUBE] >= 0 && f->shape[SHAPE_CUBE2] >= 0);
    /* 10 x 6 x 5 particles: a body of a few hundred */
    uint32_t k = 0;
    for (int z = 0; z < 5; z++)
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 10; x++)
                slab_particles[k++] = (float)x, slab_particles[k++] = (float)y, slab_particles[k++] = (float)z;
    f->shape[SHAPE_SLAB] = add_desc(f->reg, "slab", slab_particles, 300, 0.0f);
    /* the same slab, particles listed backwards: its sums run in another order */
    for (uint32_t i = 0; i < 300; i++) memcpy(&slab_reversed[3 * i], &slab_particles[3 * (299 - i)], 3 * sizeof(float));
    f->shape[SHAPE_SLAB_REVERSED] = add_desc(f->reg, "slab_reversed", slab_reversed, 300, 0.0f);
    f->shape[SHAPE_ROD] = add_desc(f->reg, "rod", rod_particles, 7, 0.0f);
    f->shape[SHAPE_ONE] = add_desc(f->reg, "one", one_particle, 1, 0.0f);
    for (int i = 0; i < 27; i++)
        cube3[3 * i] = (float)(i % 3), cube3[3 * i + 1] = (float)(i / 3 % 3), cube3[3 * i + 2] = (float)(i / 9);
    for (int i = 0; i < 8; i++)
        cube2[3 * i] = (float)(i % 2), cube2[3 * i + 1] = (float)(i / 2 % 2), cube2[3 * i + 2] = (float)(i / 4);
    f->shape[SHAPE_PEBBLE] = add_desc(f->reg, "pebble", one_particle, 1, 0.1f);
    f->shape[SHAPE_SMALL_CUBE] = add_desc(f->reg, "small_cube", cube3, 27, 0.2f);
    f->shape[SHAPE_BIG_CUBE] = add_desc(f->reg, "big_cube", cube2, 8, 0.6f);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rb_registry_destroy(f->reg);
    free(f);
    return 0;
}

static rb_world *make_world(rb_backend_kind backend, const rb_world_desc *base) {
    rb_world_desc d = base ? *base : rb_default_world_desc();
    d.backend = backend;
    char err[512] = "";
    rb_world *w = rb_world_create(&d, err, sizeof err);
    if (!w) fprintf(stderr, "world: %s\n", err);
    assert_non_null(w);
    assert_string_equal(rb_world_backend_name(w), backend == RB_BACKEND_OPENCL ? "opencl" : "reference");
    return w;
}

/* Registers a registry shape with the world; returns its world index. */
static uint32_t add_registry_shape(rb_world *w, const rb_shape *s) {
    rb_shape_data d = {
        s->particle_count, s->particles, s->mass, {s->inertia[0], s->inertia[1], s->inertia[2]}, s->particle_radius};
    int ws = rb_world_add_shape(w, &d);
    assert_true(ws >= 0);
    return (uint32_t)ws;
}

/* Registers every fixture shape with the world, in fixture order. */
static void add_shapes(const fixture *f, rb_world *w, uint32_t out[SHAPE_COUNT]) {
    for (int s = 0; s < SHAPE_COUNT; s++) {
        out[s] = add_registry_shape(w, rb_registry_get(f->reg, (uint32_t)f->shape[s]));
    }
}

/* A small deterministic generator (xorshift), so both worlds get the same scene. */
static uint32_t rng_state;
static float frand(float lo, float hi) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 17, rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) / 16777216.0f;
}

static void random_body(rb_body_desc *d, uint32_t shape, float half, float top) {
    *d = (rb_body_desc){.shape = shape};
    d->position[0] = frand(-half, half), d->position[1] = frand(0.0f, top), d->position[2] = frand(-half, half);
    float q[4] = {frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(-1, 1)};
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) d->orientation[k] = q[k] / n;
    for (int k = 0; k < 3; k++) d->velocity[k] = frand(-3, 3), d->angular_velocity[k] = frand(-4, 4);
}

/* A box of planes around [-half, half] x [0, inf) x [-half, half], and a tilted one. */
static rb_world_desc boxed_desc(float half) {
    rb_world_desc d = rb_default_world_desc();
    d.plane_count = 6;
    d.planes[1] = (rb_plane){{1, 0, 0}, -half};
    d.planes[2] = (rb_plane){{-1, 0, 0}, -half};
    d.planes[3] = (rb_plane){{0, 0, 1}, -half};
    d.planes[4] = (rb_plane){{0, 0, -1}, -half};
    d.planes[5] = (rb_plane){{0.6f, 0.8f, 0.0f}, -0.5f * half};
    return d;
}

/* Materials besides the default, different in every rate (all resolved at
 * the default step); two resist rolling, so pairs of them do and pairs with
 * the others (rolling friction mixes as sqrt(a b)) do not. */
static const rb_material test_materials[] = {
    {.restitution = 0.9f, .friction = 0.2f, .contact_time = 0.008f, .rolling_friction = 0.1f},
    {.restitution = 0.3f, .friction = 0.9f, .contact_time = 0.012f, .rolling_friction = 0.3f},
    {.restitution = 0.6f, .friction = 0.0f, .contact_time = 0.0064f},
};
#define TEST_MATERIALS (sizeof test_materials / sizeof *test_materials)

/* What a random scene mixes in besides dynamic bodies of the world's
 * particle size and material 0. */
enum {
    MIX_KINDS = 1,     /* about one body in six static (at rest), one in six kinematic (moving and spinning) */
    MIX_MATERIALS = 2, /* each body one of four materials */
    MIX_SIZES = 4,     /* particles of radius 0.05, 0.1, 0.2 (the world's) and 0.3 */
};

/* Both worlds get n random bodies of the listed shapes, crowded in a box of
 * half-width half, with what mix asks for. */
static void random_scene(const fixture *f, rb_world *w[2], uint32_t seed, uint32_t n, float half, float top,
                         unsigned mix) {
    const bool kinds = mix & MIX_KINDS, materials = mix & MIX_MATERIALS;
    uint32_t shapes[2][SHAPE_COUNT];
    for (int k = 0; k < 2; k++) add_shapes(f, w[k], shapes[k]);
    for (int k = 0; k < 2 && materials; k++)
        for (uint32_t m = 0; m < TEST_MATERIALS; m++)
            assert_int_equal(rb_world_add_material(w[k], test_materials[m]), m + 1);
    rng_state = seed;
    for (uint32_t b = 0; b < n; b++) {
        rb_body_desc d;
        /* mostly cubes, some of everything else; the slab only now and then */
        uint32_t r = (uint32_t)frand(0, 20), s = r < 9    ? SHAPE_CUBE
                                                 : r < 15 ? SHAPE_CUBE2
                                                 : r < 17 ? SHAPE_ROD
                                                 : r < 19 ? SHAPE_ONE
                                                          : SHAPE_SLAB;
        /* with sizes: every size about as often, the slab now and then */
        if (mix & MIX_SIZES)
            s = r < 4    ? SHAPE_CUBE
                : r < 8  ? SHAPE_SMALL_CUBE
                : r < 13 ? SHAPE_PEBBLE
                : r < 16 ? SHAPE_BIG_CUBE
                : r < 18 ? SHAPE_ROD
                : r < 19 ? SHAPE_ONE
                         : SHAPE_SLAB;
        random_body(&d, 0, half, top);
        const uint32_t kind = kinds ? (uint32_t)frand(0, 6) : 0;
        if (kind == 1) {
            d.kind = RB_BODY_STATIC;
            memset(d.velocity, 0, sizeof d.velocity), memset(d.angular_velocity, 0, sizeof d.angular_velocity);
        } else if (kind == 2) {
            d.kind = RB_BODY_KINEMATIC;
        }
        d.material = materials ? (uint32_t)frand(0, TEST_MATERIALS + 1) : 0;
        for (int k = 0; k < 2; k++) {
            d.shape = shapes[k][s];
            assert_true(rb_world_add_body(w[k], &d).generation != 0);
        }
    }
}

/* ---- forces ---- */

/* Per-particle forces agree within 1e-5 of the particle's force magnitude,
 * component by component: a component near zero is judged against the
 * vector it belongs to (its own size says nothing), and a particle with no
 * contact must get exactly zero. Returns how many particles matched bit for bit. */
static uint32_t compare_forces(const float *a, const float *ref, uint32_t n, uint32_t *touching) {
    uint32_t exact = 0;
    *touching = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = &a[3 * i], *y = &ref[3 * i];
        double mag = sqrt((double)y[0] * y[0] + (double)y[1] * y[1] + (double)y[2] * y[2]);
        if (mag > 0.0) (*touching)++;
        for (int k = 0; k < 3; k++) {
            double err = fabs((double)x[k] - (double)y[k]);
            if (err > 1e-5 * mag) {
                fprintf(stderr, "particle %u component %d: opencl %.9g reference %.9g (|f| %.9g)\n", i, k, x[k], y[k],
                        mag);
                fail();
            }
        }
        exact += memcmp(x, y, 3 * sizeof(float)) == 0;
    }
    return exact;
}

static void check_forces(const fixture *f, uint32_t seed, uint32_t bodies, float half, unsigned mix) {
    rb_world_desc desc = boxed_desc(half);
    rb_world *w[2] = {make_world(RB_BACKEND_OPENCL, &desc), make_world(RB_BACKEND_REFERENCE, &desc)};
    random_scene(f, w, seed, bodies, half, 2.0f * half, mix);
    uint32_t n = rb_world_particle_count(w[0]);
    assert_int_equal(n, rb_world_particle_count(w[1]));
    float *fa = malloc(n * 3 * sizeof *fa), *fb = malloc(n * 3 * sizeof *fb);
    assert_true(rb_world_particle_forces(w[0], fa));
    assert_true(rb_world_particle_forces(w[1], fb));
    uint32_t touching, exact = compare_forces(fa, fb, n, &touching);
    printf("    seed %u%s%s%s: %u bodies, %u particles, %u touching, %u bit-equal\n", seed,
           mix & MIX_KINDS ? " (static and kinematic bodies among them)" : "",
           mix & MIX_MATERIALS ? " (four materials)" : "", mix & MIX_SIZES ? " (four particle sizes)" : "", bodies, n,
           touching, exact);
    assert_true(touching > n / 4); /* the scene really is crowded */
    assert_int_equal(exact, n);    /* the same contacts in the same order: the same bits */
    free(fa), free(fb);
    rb_world_destroy(w[0]), rb_world_destroy(w[1]);
}

static void test_forces_random(void **state) {
    const fixture *f = *state;
    check_forces(f, 1, 60, 3.0f, 0);
    check_forces(f, 2, 400, 6.0f, 0);
    check_forces(f, 3, 1500, 9.0f, 0); /* table collisions and many buckets */
}

/* Static and kinematic bodies among the dynamic ones: their particles get
 * no force, a dynamic particle against one of theirs has its own mass as the
 * contact's effective mass, and the forces are still the reference's bits. */
static void test_forces_kinds(void **state) {
    const fixture *f = *state;
    check_forces(f, 4, 60, 3.0f, MIX_KINDS);
    check_forces(f, 5, 400, 6.0f, MIX_KINDS);
}

/* Bodies of four materials: each contact takes its pair's row of the pair
 * table (a plane contact its particle's own), and the forces are still the
 * reference's bits; also with static and kinematic bodies among them. */
static void test_forces_materials(void **state) {
    const fixture *f = *state;
    check_forces(f, 6, 60, 3.0f, MIX_MATERIALS);
    check_forces(f, 7, 400, 6.0f, MIX_MATERIALS);
    check_forces(f, 8, 400, 6.0f, MIX_KINDS | MIX_MATERIALS);
}

/* Particles of four radii (0.05, 0.1, 0.2 and 0.3: the grid's cell is the
 * largest diameter, the force pass tests reach against the largest radius
 * and each candidate with its own): every contact overlaps by r_i + r_j -
 * distance and acts at its contact point, and the forces are the
 * reference's bits; also with static and kinematic bodies and four
 * materials among them. Pebbles crowd the smallest cells. */
static void test_forces_sizes(void **state) {
    const fixture *f = *state;
    check_forces(f, 9, 60, 2.5f, MIX_SIZES);
    check_forces(f, 10, 400, 5.0f, MIX_SIZES);
    check_forces(f, 11, 1500, 8.0f, MIX_SIZES); /* table collisions and many buckets */
    check_forces(f, 12, 400, 5.0f, MIX_SIZES | MIX_KINDS | MIX_MATERIALS);
}

/* Cells x - 1, x, x + 1 of a row fill consecutive buckets, and the force
 * pass reads them as one run, in two pieces where the run passes the
 * table's last bucket. With y and z in cell 0, cell x hashes to bucket
 * x mod table size: a chain of particles across x = 0 has its rows wrap.
 * Every particle touches a neighbour (zigzag, so no forces cancel); the
 * forces must be the reference's. */
static void test_forces_wrapping_rows(void **state) {
    const fixture *f = *state;
    rb_world_desc desc = rb_default_world_desc();
    desc.plane_count = 0;
    rb_world *w[2] = {make_world(RB_BACKEND_OPENCL, &desc), make_world(RB_BACKEND_REFERENCE, &desc)};
    for (int k = 0; k < 2; k++) {
        const uint32_t one = add_registry_shape(w[k], rb_registry_get(f->reg, (uint32_t)f->shape[SHAPE_ONE]));
        static const float x[6] = {-0.7f, -0.42f, -0.15f, 0.12f, 0.42f, 0.7f}; /* gaps under 2 r, all unequal */
        for (int b = 0; b < 6; b++) {
            rb_body_desc d = {.shape = (uint32_t)one,
                              .position = {x[b], b % 2 ? 0.3f : 0.15f, 0.2f},
                              .orientation = {0, 0, 0, 1},
                              .velocity = {0.1f * (float)b, 0.0f, 0.05f}};
            assert_true(rb_world_add_body(w[k], &d).generation != 0);
        }
    }
    float fa[18], fb[18];
    assert_true(rb_world_particle_forces(w[0], fa));
    assert_true(rb_world_particle_forces(w[1], fb));
    uint32_t touching, exact = compare_forces(fa, fb, 6, &touching);
    assert_int_equal(touching, 6);
    assert_int_equal(exact, 6);
    rb_world_destroy(w[0]), rb_world_destroy(w[1]);
}

/* ---- trajectories ---- */

typedef struct pose {
    float p[3], q[4];
} pose;

static void poses(rb_world *w, pose *out) {
    uint32_t n = rb_world_body_count(w);
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        memcpy(out[b].p, s.position, sizeof out[b].p);
        memcpy(out[b].q, s.orientation, sizeof out[b].q);
    }
}

/* Largest position difference (m) and rotation difference (rad) between two pose lists. */
static void pose_distance(const pose *a, const pose *b, uint32_t n, double *dp, double *dq) {
    *dp = *dq = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double d2 = 0.0, minus = 0.0, plus = 0.0;
        for (int k = 0; k < 3; k++) d2 += ((double)a[i].p[k] - b[i].p[k]) * ((double)a[i].p[k] - b[i].p[k]);
        /* 2 |qa - qb| (q and -q are one rotation) is the angle between them to
         * second order; acos of their dot product loses it in rounding near 1. */
        for (int k = 0; k < 4; k++) {
            minus += ((double)a[i].q[k] - b[i].q[k]) * ((double)a[i].q[k] - b[i].q[k]);
            plus += ((double)a[i].q[k] + b[i].q[k]) * ((double)a[i].q[k] + b[i].q[k]);
        }
        double angle = 2.0 * sqrt(fmin(minus, plus));
        *dp = fmax(*dp, sqrt(d2));
        *dq = fmax(*dq, angle);
    }
}

/* A few bodies dropped spinning onto the ground and onto each other.
 * Variant 1 has the 300-particle slab (reversed: its particles listed
 * backwards); nudge moves one body one ulp. */
static void small_scene(const fixture *f, rb_world *w, uint32_t variant, bool nudge, bool reversed) {
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    const uint32_t slab = reversed ? s[SHAPE_SLAB_REVERSED] : s[SHAPE_SLAB];
    const uint32_t shapes[5] = {s[SHAPE_CUBE], s[SHAPE_CUBE2], variant ? slab : s[SHAPE_ROD], s[SHAPE_CUBE],
                                s[SHAPE_ROD]};
    for (uint32_t b = 0; b < 5; b++) {
        rb_body_desc d = {.shape = shapes[b]};
        d.position[0] = 0.45f * (float)b - 0.9f, d.position[1] = 1.0f + 1.3f * (float)b;
        d.position[2] = 0.2f * (float)(b % 2);
        float axis[3] = {0.3f, 1.0f, 0.2f * (float)b}, n = sqrtf(1.09f + 0.04f * (float)(b * b));
        for (int k = 0; k < 3; k++) d.orientation[k] = axis[k] / n * sinf(0.3f * (float)b);
        d.orientation[3] = cosf(0.3f * (float)b);
        d.angular_velocity[0] = 1.5f, d.angular_velocity[2] = -0.7f * (float)b;
        d.velocity[0] = b == 4 ? 1.0f : 0.0f;
        /* One ulp on one coordinate: how far rounding alone carries the scene. */
        if (nudge && b == 0) d.position[0] = nextafterf(d.position[0], 1.0f);
        assert_true(rb_world_add_body(w, &d).generation != 0);
    }
}

/* The OpenCL trajectory is compared with the reference's over 1000 steps.
 * The contact forces are bit-equal (test_forces_random) and every body,
 * the slab's 300 particles too, is summed in the same partial sums on both
 * sides (src/sim/world_internal.h, RB_SUM_PARTS), so on PoCL the two must
 * stay bit-equal: the orientation turns by rb_sincos on both sides
 * (src/base/rb_math.h), not by the device's own sin and cos. A device whose
 * arithmetic differs falls under the tolerance below: a rounding difference
 * in a step, which contacts then amplify. How much they amplify is measured on the reference itself:
 * restarted one ulp away, and with the slab's particles listed backwards (the
 * same kind of difference: every sum over the slab in another order). The
 * tolerance is 10x the larger spread, and at least 1 mm / 1 mrad, far below
 * what shows on 0.4 m particles. */
static void check_trajectory(const fixture *f, uint32_t variant) {
    rb_world *cl = make_world(RB_BACKEND_OPENCL, NULL), *ref = make_world(RB_BACKEND_REFERENCE, NULL),
             *nudged = make_world(RB_BACKEND_REFERENCE, NULL), *reordered = make_world(RB_BACKEND_REFERENCE, NULL);
    small_scene(f, cl, variant, false, false);
    small_scene(f, ref, variant, false, false);
    small_scene(f, nudged, variant, true, false);
    small_scene(f, reordered, variant, false, true);
    pose a[5], b[5], c[5], e[5];
    double worst_p = 0, worst_q = 0, spread_p = 0, spread_q = 0;
    bool bit_equal = true;
    for (int chunk = 0; chunk < 10; chunk++) {
        assert_true(rb_world_step(cl, 100) && rb_world_step(ref, 100) && rb_world_step(nudged, 100) &&
                    rb_world_step(reordered, 100));
        poses(cl, a), poses(ref, b), poses(nudged, c), poses(reordered, e);
        double dp, dq;
        pose_distance(a, b, 5, &dp, &dq);
        worst_p = fmax(worst_p, dp), worst_q = fmax(worst_q, dq);
        bit_equal = bit_equal && memcmp(a, b, sizeof a) == 0;
        pose_distance(b, c, 5, &dp, &dq);
        spread_p = fmax(spread_p, dp), spread_q = fmax(spread_q, dq);
        pose_distance(b, e, 5, &dp, &dq);
        spread_p = fmax(spread_p, dp), spread_q = fmax(spread_q, dq);
    }
    double tol_p = fmax(1e-3, 10.0 * spread_p), tol_q = fmax(1e-3, 10.0 * spread_q);
    printf("    variant %u: opencl-reference %.3g m %.3g rad%s; reference rounding spread %.3g m %.3g rad\n", variant,
           worst_p, worst_q, bit_equal ? " (bit-equal)" : "", spread_p, spread_q);
    assert_true(worst_p <= tol_p);
    assert_true(worst_q <= tol_q);
    /* On PoCL bit for bit, the slab's 300 particles too: both backends sum
     * a body in the same order (src/sim/world_internal.h, RB_SUM_PARTS). */
    if (strstr(rb_world_device_name(cl), "Portable Computing Language")) assert_true(bit_equal);
    /* and the bodies did move: the highest fell more than 2 m from 6.2 m, to
     * the ground, or in variant 1 onto the slab's flat top (3.7 m) */
    printf("    body 4 ends at y %.3f\n", a[4].p[1]);
    assert_true(a[4].p[1] < 4.2f);
    rb_world_destroy(cl), rb_world_destroy(ref), rb_world_destroy(nudged), rb_world_destroy(reordered);
}

static void test_trajectory_small(void **state) {
    check_trajectory(*state, 0);
    check_trajectory(*state, 1); /* with the 300-particle slab: the work-group reduction */
}

/* ---- determinism ---- */

/* *mean_y (if given): the bodies' mean height at the end, m. */
static uint64_t pile_state(const fixture *f, rb_backend_kind backend, uint32_t bodies, uint32_t steps, bool *pocl,
                           double *mean_y);
static uint64_t shape_pile_state(const fixture *f, int shape, rb_backend_kind backend, uint32_t bodies, uint32_t steps,
                                 bool *pocl, double *mean_y);

static uint64_t pile_digest(const fixture *f, rb_backend_kind backend, uint32_t bodies, uint32_t steps, bool *pocl) {
    return pile_state(f, backend, bodies, steps, pocl, NULL);
}

static uint64_t pile_state(const fixture *f, rb_backend_kind backend, uint32_t bodies, uint32_t steps, bool *pocl,
                           double *mean_y) {
    return shape_pile_state(f, SHAPE_CUBE, backend, bodies, steps, pocl, mean_y);
}

/* The pile of `bodies` bodies of the fixture's shape `shape`. */
static uint64_t shape_pile_state(const fixture *f, int shape, rb_backend_kind backend, uint32_t bodies, uint32_t steps,
                                 bool *pocl, double *mean_y) {
    rb_world_desc d = rb_default_world_desc();
    rb_pile_planes(&d);
    rb_world *w = make_world(backend, &d);
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    rb_entities *e = rb_entities_create(f->reg, w);
    assert_int_equal(rb_pile_build(e, (uint32_t)f->shape[shape], bodies), bodies);
    rb_entities_destroy(e);
    assert_true(rb_world_step(w, steps));
    if (mean_y) {
        *mean_y = 0.0;
        for (uint32_t b = 0; b < bodies; b++) {
            rb_body_state st;
            assert_true(rb_world_get_body(w, b, &st));
            for (int k = 0; k < 3; k++) assert_true(isfinite(st.position[k]));
            *mean_y += st.position[1] / bodies;
        }
    }
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_determinism(void **state) {
    /* 600 cubes land on each other within 700 steps: many buckets filled by racing atomics */
    uint64_t a = pile_digest(*state, RB_BACKEND_OPENCL, 600, 700, NULL),
             b = pile_digest(*state, RB_BACKEND_OPENCL, 600, 700, NULL);
    printf("    digests %016llx %016llx\n", (unsigned long long)a, (unsigned long long)b);
    assert_true(a == b);
}

/* The two kernel sets (src/sim/opencl_build.c) give the same digest: the CPU
 * kernels (chunk scan, reorder in particle order, a work-group a body), the
 * GPU kernels (block scan, reorder in slot order, a work-item a body), and
 * the GPU kernels with the block scan's offsets pass cut to tiles of 4 or 8
 * block sums by a work-group of 1 or 2 (600 cubes: 16 blocks, so tiles of
 * 4 or 8 carry a sum from one tile to the next, over 4 tiles or 2; 40
 * cubes: 2 blocks and 20 cubes: 1, a tile only partly filled). The set asked for must be the one that ran
 * (the device name says which). PoCL runs a work-group's work-items one
 * after another between barriers, so a missing barrier in the block scan
 * shows only on a GPU: run this test there too (README, "On a GPU"). */
static uint64_t kernels_digest(const fixture *f, const char *kernels, uint32_t bodies, uint32_t steps) {
    setenv("RUBBLE_OPENCL_KERNELS", kernels, 1);
    rb_world *w = make_world(RB_BACKEND_OPENCL, NULL);
    unsetenv("RUBBLE_OPENCL_KERNELS");
    const bool gpu = strncmp(kernels, "gpu", 3) == 0;
    assert_non_null(strstr(rb_world_device_name(w), gpu ? ", GPU kernels" : ", CPU kernels"));
    rb_world_destroy(w);
    setenv("RUBBLE_OPENCL_KERNELS", kernels, 1);
    uint64_t h = pile_digest(f, RB_BACKEND_OPENCL, bodies, steps, NULL);
    unsetenv("RUBBLE_OPENCL_KERNELS");
    return h;
}

/* The small scene with its 300-particle slab (check_trajectory): the
 * integration's partial sums over a body of many particles. */
static uint64_t slab_digest(const fixture *f, const char *kernels) {
    setenv("RUBBLE_OPENCL_KERNELS", kernels, 1);
    rb_world *w = make_world(RB_BACKEND_OPENCL, NULL);
    unsetenv("RUBBLE_OPENCL_KERNELS");
    small_scene(f, w, 1, false, false);
    assert_true(rb_world_step(w, 600));
    const uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_kernel_sets_agree(void **state) {
    const uint64_t slab_cpu = slab_digest(*state, "cpu"), slab_gpu = slab_digest(*state, "gpu");
    printf("    slab: cpu %016llx, gpu %016llx\n", (unsigned long long)slab_cpu, (unsigned long long)slab_gpu);
    assert_true(slab_cpu == slab_gpu);
    const uint32_t piles[3][2] = {{600, 500}, {40, 400}, {20, 400}};
    for (int p = 0; p < 3; p++) {
        const uint64_t cpu = kernels_digest(*state, "cpu", piles[p][0], piles[p][1]);
        const char *gpu[3] = {"gpu", "gpu:1", "gpu:2"};
        for (int k = 0; k < 3; k++) {
            const uint64_t h = kernels_digest(*state, gpu[k], piles[p][0], piles[p][1]);
            printf("    pile %u: cpu %016llx, %s %016llx\n", piles[p][0], (unsigned long long)cpu, gpu[k],
                   (unsigned long long)h);
            assert_true(h == cpu);
        }
    }
    /* a pile that lands and falls asleep (test_pile_matches_reference): the
     * GPU set's hash pass clears the wake flags itself, the CPU set's host
     * before its hash pass (kernels/grid.cl, rb_hash_count) */
    const uint64_t asleep_cpu = kernels_digest(*state, "cpu", 300, 1200),
                   asleep_gpu = kernels_digest(*state, "gpu", 300, 1200);
    printf("    pile 300, 1200 steps: cpu %016llx, gpu %016llx\n", (unsigned long long)asleep_cpu,
           (unsigned long long)asleep_gpu);
    assert_true(asleep_gpu == asleep_cpu);
}

/* Cubes have 27 particles, summed in the reference's order, so a cube pile
 * landing, sliding and falling asleep stays bit-equal to the reference. The
 * orientation update's sine and cosine are rb_sincos on both sides: with
 * the device's own (PoCL's differ from glibc's for about 0.1% of
 * half-angles under 0.05 rad) this pile missed them at the default
 * parameters, but a change of the parameters by a rounding (the damping)
 * was seen to hit one, and a pile with pebbles hits one within 400 steps
 * (test_sizes_match_reference). Required on PoCL, where the contact law's
 * float operations are known to be IEEE's. */
/* Cubes (27 particles: summed in the reference's order) of four materials
 * dropped on a static 300-particle slab of another and swept off it by a
 * kinematic rod: the same digest as the
 * reference after 1200 steps, on PoCL (see test_pile_matches_reference). */
static uint64_t kinds_digest(const fixture *f, rb_backend_kind backend, bool *pocl) {
    rb_world *w = make_world(backend, NULL);
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    for (uint32_t m = 0; m < TEST_MATERIALS; m++) assert_int_equal(rb_world_add_material(w, test_materials[m]), m + 1);
    rb_body_desc slab = {.shape = s[SHAPE_SLAB], .position = {0.0f, 2.0f, 0.0f}, .kind = RB_BODY_STATIC, .material = 2};
    rb_body_desc rod = {
        .shape = s[SHAPE_ROD], .position = {-4.0f, 3.8f, 0.0f}, .velocity = {2.0f, 0, 0}, .kind = RB_BODY_KINEMATIC};
    assert_true(rb_world_add_body(w, &slab).generation != 0);
    assert_true(rb_world_add_body(w, &rod).generation != 0);
    for (uint32_t b = 0; b < 12; b++) {
        rb_body_desc d = {
            .shape = s[SHAPE_CUBE],
            .position = {-2.25f + 1.5f * (float)(b % 4), 4.5f + 1.5f * (float)(b / 4), -0.4f + 0.4f * (float)(b % 3)}};
        d.angular_velocity[0] = 0.5f * (float)(b % 3), d.angular_velocity[2] = -0.3f * (float)(b % 5);
        d.material = b % (TEST_MATERIALS + 1);
        assert_true(rb_world_add_body(w, &d).generation != 0);
    }
    assert_true(rb_world_step(w, 1200));
    float fastest = 0.0f; /* the rod knocked cubes about */
    for (uint32_t b = 2; b < 14; b++) {
        rb_body_state c;
        assert_true(rb_world_get_body(w, b, &c));
        fastest = fmaxf(fastest, sqrtf(c.velocity[0] * c.velocity[0] + c.velocity[1] * c.velocity[1]));
    }
    assert_true(fastest > 1.0f);
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_kinds_match_reference(void **state) {
    bool pocl;
    uint64_t a = kinds_digest(*state, RB_BACKEND_OPENCL, &pocl), b = kinds_digest(*state, RB_BACKEND_REFERENCE, NULL);
    printf("    opencl %016llx reference %016llx%s\n", (unsigned long long)a, (unsigned long long)b,
           pocl ? "" : " (not PoCL: not required to be equal)");
    if (pocl) assert_true(a == b);
}

/* Spinners fast enough that the orientation update's half-angles fall in
 * each quadrant of rb_sincos and past (src/base/rb_math.h: quadrant k mod 4
 * for half-angle x, k = floor(2 x / pi + 1/2); x = |w| dt / 2 for a
 * kinematic body's turn): 8 kinematic and 6 free bodies at 300 to 7,500
 * rad/s, far apart, 14 in all, so that the integration's last work-item
 * holds fewer than its eight bodies (kernels/integrate.cl, RB_INTEGRATE_LANES). After
 * an odd number of steps (41), on PoCL the same digest as the reference,
 * and each kinematic body's orientation is (axis sin(n x), cos(n x)), the n
 * turns about one axis composed, sign and all: a quadrant whose sine and
 * cosine both came out negated would turn the body the same way but leave
 * its quaternion negated after an odd count. */
#define SPINNERS 14
#define SPINNING 8 /* the first SPINNING are kinematic */
static uint64_t spinners_digest(const fixture *f, rb_backend_kind backend, bool *pocl, double *worst_turn) {
    rb_world_desc desc = rb_default_world_desc();
    desc.gravity[1] = 0.0f;
    desc.plane_count = 0;
    rb_world *w = make_world(backend, &desc);
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    const float rates[SPINNERS] = {300, 1200, 2000, 3500, 4500, 5500, 6800, 7500, 1500, 3000, 5000, 6500, 900, 4000};
    const float axis[3] = {0.48f, 0.6f, 0.64f}; /* a unit vector */
    for (uint32_t b = 0; b < SPINNERS; b++) {
        rb_body_desc d = {.shape = s[SHAPE_CUBE], .position = {4.0f * (float)b, 10.0f, 0.0f}};
        d.kind = b < SPINNING ? RB_BODY_KINEMATIC : RB_BODY_DYNAMIC;
        for (int k = 0; k < 3; k++) d.angular_velocity[k] = rates[b] * axis[k];
        assert_true(rb_world_add_body(w, &d).generation != 0);
    }
    const uint32_t steps = 41;
    assert_true(rb_world_step(w, steps));
    *worst_turn = 0.0;
    for (uint32_t b = 0; b < SPINNING; b++) {
        rb_body_state c;
        assert_true(rb_world_get_body(w, b, &c));
        const double nx = 0.5 * rates[b] * (double)desc.dt * (double)steps;
        const double want[4] = {axis[0] * sin(nx), axis[1] * sin(nx), axis[2] * sin(nx), cos(nx)};
        double d2 = 0.0;
        for (int k = 0; k < 4; k++) d2 += (c.orientation[k] - want[k]) * (c.orientation[k] - want[k]);
        *worst_turn = fmax(*worst_turn, 2.0 * sqrt(d2)); /* about the angle between them, 4 for -q */
    }
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_fast_spinners_match_reference(void **state) {
    bool pocl;
    double turn_a, turn_b;
    uint64_t a = spinners_digest(*state, RB_BACKEND_OPENCL, &pocl, &turn_a),
             b = spinners_digest(*state, RB_BACKEND_REFERENCE, NULL, &turn_b);
    printf("    opencl %016llx reference %016llx%s; kinematic turns off by at most %.3g and %.3g rad\n",
           (unsigned long long)a, (unsigned long long)b, pocl ? "" : " (not PoCL: not required to be equal)", turn_a,
           turn_b);
    /* The turns are exact; what is off is |w| and the axis rounded to
     * floats, relative to the double turn: about 6e-8 of the angle, 3e-5
     * rad at 7,500 rad/s for 41 steps (492 rad). */
    assert_true(turn_a < 1e-4 && turn_b < 1e-4);
    if (pocl) assert_true(a == b);
}
#undef SPINNERS
#undef SPINNING

static void test_pile_matches_reference(void **state) {
    bool pocl;
    double ya, yb;
    uint64_t a = pile_state(*state, RB_BACKEND_OPENCL, 300, 1200, &pocl, &ya),
             b = pile_state(*state, RB_BACKEND_REFERENCE, 300, 1200, NULL, &yb);
    printf("    opencl %016llx reference %016llx%s; mean height %.4f and %.4f m\n", (unsigned long long)a,
           (unsigned long long)b, pocl ? "" : " (not PoCL: not required to be equal)", ya, yb);
    /* on any device the pile lands the same (a body's sums may round
     * otherwise, and a pile is chaotic, but not its mean height); on PoCL bit
     * for bit */
    assert_true(fabs(ya - yb) < 0.02);
    if (pocl) assert_true(a == b);
}

/* A pile of 2x2x2 cubes: a world whose bodies average 8 particles, whose
 * force pass the CPU kernels run in work-groups of 32 particles, not 256
 * (src/sim/opencl.c, RB_SMALL_BODY), lands as the reference's, bit for bit
 * on PoCL. */
static void test_small_bodies_match_reference(void **state) {
    bool pocl;
    double ya, yb;
    uint64_t a = shape_pile_state(*state, SHAPE_CUBE2, RB_BACKEND_OPENCL, 300, 1200, &pocl, &ya),
             b = shape_pile_state(*state, SHAPE_CUBE2, RB_BACKEND_REFERENCE, 300, 1200, NULL, &yb);
    printf("    cube2: opencl %016llx reference %016llx%s; mean height %.4f and %.4f m\n", (unsigned long long)a,
           (unsigned long long)b, pocl ? "" : " (not PoCL: not required to be equal)", ya, yb);
    assert_true(fabs(ya - yb) < 0.02);
    if (pocl) assert_true(a == b);
}

/* Bodies of four particle sizes dropped in layers into a box with a tilted
 * floor: cubes (r 0.2), cubes of r 0.1 and of r 0.3 particles, and pebbles
 * (r 0.05), 1200 steps: they land, tumble, and pebbles bounce and roll
 * among the cubes, some spinning at over 100 rad/s. The same digest as the
 * reference's: every body has at most 32 particles, so its sums run in the
 * reference's order, and the orientation turns by rb_sincos's sine and
 * cosine on both sides (a device's own sin differs from the C library's in
 * the last bit now and then, and a fast-spinning pebble met one within 400
 * steps; see test_pile_matches_reference). touching (may be NULL) gets the
 * contacts between pebbles and bodies of other sizes, counted every 100
 * steps and summed. */
static uint64_t sizes_digest(const fixture *f, rb_backend_kind backend, bool *pocl, uint32_t *touching) {
    rb_world_desc desc = boxed_desc(3.6f);
    rb_world *w = make_world(backend, &desc);
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    const uint32_t kinds[4] = {s[SHAPE_CUBE], s[SHAPE_SMALL_CUBE], s[SHAPE_BIG_CUBE], s[SHAPE_PEBBLE]};
    uint32_t n = 0;
    for (int layer = 0; layer < 4; layer++)
        for (int cell = 0; cell < 16; cell++, n++) {
            const uint32_t kind = (uint32_t)(cell + layer) % 4;
            for (int k = 0; k < (kind == 3 ? 4 : 1); k++) { /* four pebbles to a cell */
                rb_body_desc d = {.shape = kinds[kind]};
                d.position[0] = -2.7f + 1.8f * (float)(cell % 4) + (kind == 3 ? 0.3f * (float)(k % 2) - 0.15f : 0.0f);
                d.position[1] = 1.0f + 1.8f * (float)layer;
                d.position[2] = -2.7f + 1.8f * (float)(cell / 4) + (kind == 3 ? 0.3f * (float)(k / 2) - 0.15f : 0.0f);
                const float angle = 0.4f + 0.7f * (float)n,
                            axis[3] = {cosf(2.39996f * (float)n), 0.5f, sinf(2.39996f * (float)n)};
                const float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
                for (int c = 0; c < 3; c++) d.orientation[c] = axis[c] / len * sinf(0.5f * angle);
                d.orientation[3] = cosf(0.5f * angle);
                d.angular_velocity[1] = 0.3f * (float)(n % 5);
                assert_true(rb_world_add_body(w, &d).generation != 0);
            }
        }
    const uint32_t np = rb_world_particle_count(w), cap = 8 * np, *first = rb_world_body_first_particle(w);
    uint32_t *pairs = malloc(sizeof(uint32_t) * 2 * cap), *pebble = malloc(sizeof(uint32_t) * np);
    for (uint32_t b = 0; b < rb_world_body_count(w); b++)
        for (uint32_t i = first[b]; i < first[b + 1]; i++) pebble[i] = rb_world_body_shapes(w)[b] == s[SHAPE_PEBBLE];
    if (touching) *touching = 0;
    for (int chunk = 0; chunk < 12; chunk++) {
        assert_true(rb_world_step(w, 100));
        if (!touching) continue;
        const uint32_t count = rb_world_contact_pairs(w, pairs, cap);
        for (uint32_t k = 0; k < count && k < cap; k++) *touching += pebble[pairs[2 * k]] != pebble[pairs[2 * k + 1]];
    }
    free(pairs), free(pebble);
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_sizes_match_reference(void **state) {
    uint32_t touching = 0;
    bool pocl;
    uint64_t a = sizes_digest(*state, RB_BACKEND_OPENCL, &pocl, NULL),
             b = sizes_digest(*state, RB_BACKEND_REFERENCE, NULL, &touching);
    printf("    opencl %016llx reference %016llx%s; %u pebble contacts with bodies of other sizes in 12 samples\n",
           (unsigned long long)a, (unsigned long long)b, pocl ? "" : " (not PoCL: not required to be equal)", touching);
    assert_true(touching >= 12); /* one a sample: the sizes really meet */
    if (pocl) assert_true(a == b);
}

/* Balls and pebbles that roll and resist it (rolling friction 0.2),
 * poured into a box: 300 steps without rolling friction (no rolling angles
 * kept, none on the device), then with it (the device makes their buffer
 * and takes the host's angles), then with a third of the balls removed
 * (the angles renumbered with the rest of the history): the same digest as
 * the reference on PoCL, 1500 steps in all. */
static uint64_t rolling_digest(const fixture *f, rb_backend_kind backend, bool *pocl, uint32_t *kept) {
    rb_world_desc desc = boxed_desc(2.0f);
    desc.sleep_time = 0.0f;
    rb_world *w = make_world(backend, &desc);
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    rng_state = 77;
    rb_body_id ids[240];
    for (uint32_t b = 0; b < 240; b++) {
        rb_body_desc d;
        random_body(&d, b % 4 == 3 ? s[SHAPE_PEBBLE] : s[SHAPE_ONE], 1.8f, 6.0f);
        ids[b] = rb_world_add_body(w, &d);
        assert_true(ids[b].generation != 0);
    }
    assert_true(rb_world_step(w, 300));
    rb_material m = rb_world_get_desc(w)->material;
    m.rolling_friction = 0.2f;
    assert_true(rb_world_set_material(w, m, rb_world_get_desc(w)->dt));
    assert_true(rb_world_step(w, 600));
    for (uint32_t b = 0; b < 240; b += 3) assert_true(rb_world_remove_body(w, ids[b]));
    assert_true(rb_world_step(w, 600));
    rb_contact_memory *c = malloc(sizeof *c * 4 * rb_world_particle_count(w));
    const uint32_t n = rb_world_read_contacts(w, c, 4 * rb_world_particle_count(w));
    *kept = 0;
    for (uint32_t k = 0; k < n; k++)
        *kept += c[k].rolling[0] != 0.0f || c[k].rolling[1] != 0.0f || c[k].rolling[2] != 0.0f;
    free(c);
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_rolling_matches_reference(void **state) {
    bool pocl;
    uint32_t ka, kb;
    uint64_t a = rolling_digest(*state, RB_BACKEND_OPENCL, &pocl, &ka),
             b = rolling_digest(*state, RB_BACKEND_REFERENCE, NULL, &kb);
    printf("    opencl %016llx reference %016llx%s; %u and %u contacts keep a rolling angle at the end\n",
           (unsigned long long)a, (unsigned long long)b, pocl ? "" : " (not PoCL: not required to be equal)", ka, kb);
    assert_true(kb > 20); /* the heap rests on rolling springs */
    if (pocl) assert_true(a == b && ka == kb);
}

/* The history's slots change with the bodies (rb_world_contact_slots) and
 * the device's follow: cubes in a box keep 4 a particle; balls poured onto
 * them, lone spheres at least half the particles, make it 8; a third of the
 * balls removed, 4 again; 1100 steps in all, sleeping off. The same digest
 * and the same count of contacts without a slot as the reference, on PoCL,
 * with the CPU and with the GPU kernels. A heap of balls in a box touches
 * more than 4 things at a time: with 8 slots hardly a contact goes without
 * one (rubble-bench repose: README, "Rolling resistance"). */
static uint64_t slots_digest(const fixture *f, rb_backend_kind backend, const char *kernels, uint32_t slots, bool *pocl,
                             uint64_t overflow[3]) {
    rb_world_desc desc = boxed_desc(1.6f);
    desc.sleep_time = 0.0f;
    desc.contact_slots = slots;
    if (kernels) setenv("RUBBLE_OPENCL_KERNELS", kernels, 1);
    rb_world *w = make_world(backend, &desc);
    unsetenv("RUBBLE_OPENCL_KERNELS");
    if (pocl) *pocl = strstr(rb_world_device_name(w), "Portable Computing Language") != NULL;
    uint32_t s[SHAPE_COUNT];
    add_shapes(f, w, s);
    rng_state = 91;
    for (uint32_t b = 0; b < 8; b++) {
        rb_body_desc d;
        random_body(&d, s[SHAPE_CUBE], 0.9f, 4.0f);
        d.position[1] += 0.8f;
        assert_true(rb_world_add_body(w, &d).generation != 0);
    }
    assert_true(rb_world_step(w, 300));
    assert_int_equal(rb_world_contact_slots(w), slots ? slots : 4);
    overflow[0] = rb_world_contact_overflow(w);
    rb_body_id balls[240];
    for (uint32_t b = 0; b < 240; b++) {
        rb_body_desc d;
        random_body(&d, s[SHAPE_ONE], 1.4f, 3.0f);
        d.position[1] += 3.0f;
        balls[b] = rb_world_add_body(w, &d);
        assert_true(balls[b].generation != 0);
    }
    assert_int_equal(rb_world_contact_slots(w), slots ? slots : 8); /* 240 of 456 */
    assert_true(rb_world_step(w, 500));
    overflow[1] = rb_world_contact_overflow(w) - overflow[0];
    for (uint32_t b = 0; b < 240; b += 3) assert_true(rb_world_remove_body(w, balls[b]));
    assert_int_equal(rb_world_contact_slots(w), slots ? slots : 4); /* 160 of 376 */
    assert_true(rb_world_step(w, 300));
    overflow[2] = rb_world_contact_overflow(w) - overflow[1] - overflow[0];
    uint64_t h = rb_world_digest(w);
    rb_world_destroy(w);
    return h;
}

static void test_slots_match_reference(void **state) {
    bool pocl;
    uint64_t oc[3], og[3], orf[3], four[3];
    const uint64_t c = slots_digest(*state, RB_BACKEND_OPENCL, "cpu", 0, &pocl, oc),
                   g = slots_digest(*state, RB_BACKEND_OPENCL, "gpu", 0, NULL, og),
                   r = slots_digest(*state, RB_BACKEND_REFERENCE, NULL, 0, NULL, orf);
    slots_digest(*state, RB_BACKEND_REFERENCE, NULL, 4, NULL, four);
    printf("    with 4 slots throughout: %llu contacts without a slot while the balls pour\n",
           (unsigned long long)four[1]);
    printf("    cpu kernels %016llx, gpu kernels %016llx, reference %016llx%s; contacts without a slot: %llu on "
           "4 slots (cubes), %llu on 8 (with balls), %llu on 4 (a third of the balls gone)\n",
           (unsigned long long)c, (unsigned long long)g, (unsigned long long)r,
           pocl ? "" : " (not PoCL: not required to be equal)", (unsigned long long)orf[0], (unsigned long long)orf[1],
           (unsigned long long)orf[2]);
    assert_true(c == g);
    if (pocl) assert_true(c == r && memcmp(oc, orf, sizeof oc) == 0);
    /* the balls touch more than 4 things at once, and 8 hold nearly all (10.9 times fewer without a slot) */
    assert_true(four[1] > 5 * orf[1]);
}

/* ---- growth and removal ---- */

static void test_grow_and_remove(void **state) {
    const fixture *f = *state;
    rb_world_desc desc = boxed_desc(4.0f);
    rb_world *w[2] = {make_world(RB_BACKEND_OPENCL, &desc), make_world(RB_BACKEND_REFERENCE, &desc)};
    uint32_t s[2][SHAPE_COUNT];
    add_shapes(f, w[0], s[0]), add_shapes(f, w[1], s[1]);
    assert_true(rb_world_step(w[0], 5)); /* an empty world steps */
    rb_body_id ids[2][200];
    rng_state = 99;
    for (uint32_t round = 0; round < 4; round++) {
        for (uint32_t b = 50 * round; b < 50 * (round + 1); b++) { /* buffers grow between steps */
            rb_body_desc d;
            random_body(&d, 0, 3.5f, 8.0f);
            uint32_t shape = b % 7 == 3 ? SHAPE_SLAB : b % 2 ? SHAPE_CUBE2 : SHAPE_CUBE;
            for (int k = 0; k < 2; k++) {
                d.shape = s[k][shape];
                ids[k][b] = rb_world_add_body(w[k], &d);
            }
        }
        for (int k = 0; k < 2; k++) assert_true(rb_world_step(w[k], 20));
    }
    /* The contacts' memory before the removals, and where each particle
     * will be after them: every third body's particles gone, the others
     * moved down past them. */
    const uint32_t n0 = rb_world_particle_count(w[0]), c0 = rb_world_read_contacts(w[0], NULL, 0);
    rb_contact_memory *before = malloc(sizeof *before * (c0 + 1));
    assert_int_equal(rb_world_read_contacts(w[0], before, c0), c0);
    uint32_t *moved = malloc(sizeof *moved * n0), gone = 0;
    const uint32_t *first = rb_world_body_first_particle(w[0]);
    for (uint32_t b = 0; b < 200; b++)
        for (uint32_t i = first[b]; i < first[b + 1]; i++) {
            moved[i] = b % 3 == 0 ? UINT32_MAX : i - gone;
            gone += b % 3 == 0 && i + 1 == first[b + 1] ? first[b + 1] - first[b] : 0;
        }
    for (uint32_t b = 0; b < 200; b += 3) /* every third body goes: the arrays compact */
        for (int k = 0; k < 2; k++) assert_true(rb_world_remove_body(w[k], ids[k][b]));
    uint32_t n = rb_world_particle_count(w[0]);
    assert_int_equal(n, rb_world_particle_count(w[1]));
    assert_int_equal(n, n0 - gone);
    /* ... renumbered: the memory of the contacts between bodies that stay,
     * in order, with their displacements' bits, on both backends */
    rb_contact_memory *after[2];
    uint32_t kept = 0;
    for (uint32_t c = 0; c < c0; c++) {
        const uint32_t partner = before[c].partner;
        if (moved[before[c].particle] == UINT32_MAX || (partner < n0 && moved[partner] == UINT32_MAX)) continue;
        before[kept] = before[c];
        before[kept].particle = moved[before[c].particle];
        before[kept].partner = partner < n0 ? moved[partner] : partner;
        kept++;
    }
    for (int k = 0; k < 2; k++) {
        after[k] = malloc(sizeof *after[k] * (kept + 1));
        assert_int_equal(rb_world_read_contacts(w[k], after[k], kept), kept);
        assert_memory_equal(after[k], before, sizeof *before * kept);
    }
    printf("    %u contacts remembered, %u of them between bodies that stay\n", c0, kept);
    assert_true(kept > 100 && kept < c0);
    free(before), free(moved), free(after[0]), free(after[1]);
    /* Same bodies in the same order on both sides: after 80 steps the
     * states are the same bits on PoCL (and were on an H100), where every
     * force and sum is formed as the reference forms it; on another device
     * they may differ by rounding, a few micrometres here. */
    float *pa = malloc(n * 3 * sizeof *pa), *pb = malloc(n * 3 * sizeof *pb);
    assert_true(rb_world_read_particles(w[0], pa));
    assert_true(rb_world_read_particles(w[1], pb));
    double worst = 0.0;
    for (uint32_t i = 0; i < 3 * n; i++) worst = fmax(worst, fabs((double)pa[i] - pb[i]));
    printf("    %u particles after growth and removal; largest position difference %.3g m\n", n, worst);
    if (strstr(rb_world_device_name(w[0]), "Portable Computing Language")) assert_true(worst == 0.0);
    assert_true(worst < 1e-3);
    /* and the memory the two backends kept since, the same bits on PoCL */
    const uint32_t ca = rb_world_read_contacts(w[0], NULL, 0), cb = rb_world_read_contacts(w[1], NULL, 0);
    rb_contact_memory *ma = malloc(sizeof *ma * (ca + 1)), *mb = malloc(sizeof *mb * (cb + 1));
    assert_int_equal(rb_world_read_contacts(w[0], ma, ca), ca);
    assert_int_equal(rb_world_read_contacts(w[1], mb, cb), cb);
    if (strstr(rb_world_device_name(w[0]), "Portable Computing Language")) {
        assert_int_equal(ca, cb);
        assert_memory_equal(ma, mb, sizeof *ma * ca);
    }
    assert_int_equal(rb_world_contact_overflow(w[0]), rb_world_contact_overflow(w[1]));
    free(ma), free(mb);
    assert_true(rb_world_step(w[0], 20));
    free(pa), free(pb);
    rb_world_destroy(w[0]), rb_world_destroy(w[1]);
}

/* Positions read back agree with the reference's for the same state, and
 * device memory stays within 128 bytes a particle on a cube pile. */
static void test_read_back_and_memory(void **state) {
    const fixture *f = *state;
    rb_world_desc d = rb_default_world_desc();
    rb_pile_planes(&d);
    rb_world *w[2] = {make_world(RB_BACKEND_OPENCL, &d), make_world(RB_BACKEND_REFERENCE, &d)};
    for (int k = 0; k < 2; k++) {
        rb_entities *e = rb_entities_create(f->reg, w[k]);
        assert_int_equal(rb_pile_build(e, (uint32_t)f->shape[SHAPE_CUBE], 1000), 1000);
        rb_entities_destroy(e);
    }
    uint32_t n = rb_world_particle_count(w[0]);
    float *pa = malloc(n * 3 * sizeof *pa), *pb = malloc(n * 3 * sizeof *pb);
    assert_true(rb_world_read_particles(w[0], pa));
    assert_true(rb_world_read_particles(w[1], pb));
    assert_memory_equal(pa, pb, n * 3 * sizeof *pa);
    assert_true(rb_world_step(w[0], 2));
    /* the step's kernel times: the force pass among them, and it took time; none for the reference */
    const char *const *names = NULL;
    double ms[16];
    uint32_t kernels = rb_world_kernel_times(w[0], &names, ms, 16);
    assert_true(kernels > 0 && kernels <= 16 && names);
    bool forces_timed = false;
    for (uint32_t k = 0; k < kernels; k++) forces_timed |= !strcmp(names[k], "forces") && ms[k] > 0.0;
    assert_true(forces_timed);
    assert_int_equal(rb_world_kernel_times(w[1], &names, ms, 16), 0);
    double per_particle = (double)rb_world_device_bytes(w[0]) / n;
    printf("    %u particles: %.1f device bytes a particle\n", n, per_particle);
    /* under 200 B (it was 108 before the contacts' memory, 64 B of it: a
     * pile of cubes keeps 4 slots of 16 B) */
    assert_int_equal(rb_world_contact_slots(w[0]), 4);
    const double history = 16.0 * 4;
    assert_true(per_particle <= 200.0);
    /* and no less than the buffers src/sim/opencl_buffers.c lists: 100 B of
     * particle arrays and the history's 16 a slot, a grid of at least one
     * bucket a particle (its start and its count, 8 B), and 280 B a body. A table far
     * smaller than the particle count gives the same forces (cells are told
     * apart by their keys) and shows only here, and in the time the force
     * pass takes. */
    const double bodies = rb_world_body_count(w[0]);
    assert_true(per_particle >= 100.0 + history + 8.0 + 280.0 * bodies / n);
    free(pa), free(pb);
    rb_world_destroy(w[0]), rb_world_destroy(w[1]);
}

static void test_devices(void **state) {
    FILE *out = tmpfile();
    assert_true(rb_opencl_list_devices(out) >= 1);
    fclose(out);
    rb_world_desc d = rb_default_world_desc();
    d.backend = RB_BACKEND_OPENCL;
    d.device_index = 999;
    char err[512] = "";
    assert_null(rb_world_create(&d, err, sizeof err));
    assert_non_null(strstr(err, "--list-devices"));
    assert_string_equal(rb_opencl_error_name(-5), "CL_OUT_OF_RESOURCES");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_forces_random),
        cmocka_unit_test(test_forces_wrapping_rows),
        cmocka_unit_test(test_read_back_and_memory),
        cmocka_unit_test(test_trajectory_small),
        cmocka_unit_test(test_grow_and_remove),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_kernel_sets_agree),
        cmocka_unit_test(test_pile_matches_reference),
        cmocka_unit_test(test_small_bodies_match_reference),
        cmocka_unit_test(test_forces_kinds),
        cmocka_unit_test(test_forces_materials),
        cmocka_unit_test(test_kinds_match_reference),
        cmocka_unit_test(test_fast_spinners_match_reference),
        cmocka_unit_test(test_forces_sizes),
        cmocka_unit_test(test_sizes_match_reference),
        cmocka_unit_test(test_rolling_matches_reference),
        cmocka_unit_test(test_slots_match_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
