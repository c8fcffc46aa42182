/* Breakable bodies in the step (src/scenes/debris.c with fracture.c and the
 * world's piece loads), on the backend RUBBLE_TEST_BACKEND names:
 * - the default bond strength (RB_FRACTURE_STRENGTH) breaks a 1.2 m cube of
 *   voronoi 8 landing on a corner from 5 m, and not from 0.5 m;
 * - momentum across the break: the pieces carry the parent's linear and
 *   angular momentum (1e-4 of it) at the tick it splits;
 * - a breakable scene gives the same digest twice (and, on the OpenCL run,
 *   the reference's).
 * RUBBLE_BREAK_SCAN=1 prints the strength each drop height breaks at. */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/entities.h"

typedef struct fixture {
    rb_registry *reg;
    rb_world *world;
    rb_entities *entities;
    rb_debris *debris;
    rb_body_id id;
} fixture;

/* A cube hanging by a corner: the body diagonal (1, 1, 1) turned to point down. */
static void corner_down(float q[4]) {
    /* rotation of a = (1, 1, 1)/sqrt 3 onto b = (0, -1, 0): axis a x b, angle acos(a . b) */
    const float a[3] = {0.57735027f, 0.57735027f, 0.57735027f};
    float axis[3] = {a[1] * 0.0f - a[2] * -1.0f, a[2] * 0.0f - a[0] * 0.0f, a[0] * -1.0f - a[1] * 0.0f};
    const float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    const float angle = acosf(-a[1]);
    for (int k = 0; k < 3; k++) q[k] = axis[k] / len * sinf(0.5f * angle);
    q[3] = cosf(0.5f * angle);
}

/* The cube, corner down, its lowest particle's surface `height` above the ground. */
static void open_drop(fixture *f, float height, float strength) {
    f->reg = rb_test_registry();
    f->world = rb_test_world(rb_default_world_desc());
    f->entities = rb_entities_create(f->reg, f->world);
    const int row = rb_entities_find(f->entities, "cube");
    assert_true(row >= 0);
    rb_body_desc b = {0};
    corner_down(b.orientation);
    const float corner = sqrtf(3.0f) * 0.4f + 0.2f; /* centre to the corner particle's far side */
    b.position[1] = height + corner;
    f->id = rb_entities_spawn(f->entities, (uint32_t)row, &b);
    rb_debris_desc dd = {0};
    char err[256];
    f->debris = rb_debris_create(&dd, f->entities, err, sizeof err);
    assert_non_null(f->debris);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 1, .strength = strength};
    if (!rb_debris_make_breakable(f->debris, f->id, &fd, err, sizeof err)) fail_msg("%s", err);
}

static void close_all(fixture *f) {
    rb_debris_destroy(f->debris);
    rb_entities_destroy(f->entities);
    rb_world_destroy(f->world);
    rb_registry_destroy(f->reg);
}

/* The bond strength at which the drop from `height` just breaks the cube:
 * the largest load over bonds of any piece (holds = strength x bonds). */
static float breaking_strength(float height) {
    fixture f = {0};
    const float huge = 1e9f;
    open_drop(&f, height, huge);
    const float fall = sqrtf(2.0f * height / 9.81f);
    assert_true(rb_debris_step(f.debris, (uint32_t)((fall + 0.5f) / 0.0016f)));
    assert_int_equal(rb_debris_breaks(f.debris), 0);
    float loads[8];
    const uint32_t n = rb_world_piece_loads(f.world, f.id, loads, 8);
    assert_true(n >= 2);
    float most = 0.0f;
    for (uint32_t k = 0; k < n; k++) most = fmaxf(most, loads[k] * huge);
    close_all(&f);
    return most;
}

static void test_default_strength_breaks_at_5_m_not_half_a_metre(void **state) {
    (void)state;
    const float low = breaking_strength(0.5f), high = breaking_strength(5.0f);
    print_message("breaking strength: %.0f N from 0.5 m, %.0f N from 5 m; default %.0f N\n", low, high,
                  RB_FRACTURE_STRENGTH);
    assert_true(low < RB_FRACTURE_STRENGTH);
    assert_true(high > RB_FRACTURE_STRENGTH);
    for (int k = 0; k < 2; k++) {
        fixture f = {0};
        open_drop(&f, k ? 5.0f : 0.5f, RB_FRACTURE_STRENGTH);
        assert_true(rb_debris_step(f.debris, 1500));
        print_message("from %.1f m: %llu breaks, %u bodies\n", k ? 5.0 : 0.5,
                      (unsigned long long)rb_debris_breaks(f.debris), rb_world_body_count(f.world));
        if (k)
            assert_true(rb_debris_breaks(f.debris) >= 1 && rb_world_body_count(f.world) >= 2);
        else
            assert_true(rb_debris_breaks(f.debris) == 0 && rb_world_body_count(f.world) == 1);
        close_all(&f);
    }
}

/* Linear and angular momentum (about the origin) of every body. */
static void momentum(rb_world *w, double p[3], double l[3]) {
    for (int k = 0; k < 3; k++) p[k] = l[k] = 0.0;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        const double mv[3] = {s.mass * s.velocity[0], s.mass * s.velocity[1], s.mass * s.velocity[2]};
        const double *x = (const double[3]){s.position[0], s.position[1], s.position[2]};
        p[0] += mv[0], p[1] += mv[1], p[2] += mv[2];
        l[0] += x[1] * mv[2] - x[2] * mv[1] + s.angular_momentum[0];
        l[1] += x[2] * mv[0] - x[0] * mv[2] + s.angular_momentum[1];
        l[2] += x[0] * mv[1] - x[1] * mv[0] + s.angular_momentum[2];
    }
}

/* A spinning cube hit by a heavy one, in space: the world's linear and
 * angular momentum just before the tick that splits it equal the pieces'
 * just after (the split runs between steps, so nothing else acts). To 1e-4
 * of the momentum's size (float sums of a few hundred terms). */
static void test_momentum_across_a_break(void **state) {
    (void)state;
    fixture f = {0};
    rb_world_desc d = rb_default_world_desc();
    d.gravity[1] = 0.0f;
    d.plane_count = 0;
    d.sleep_time = 0.0f;
    f.reg = rb_test_registry();
    f.world = rb_test_world(d);
    f.entities = rb_entities_create(f.reg, f.world);
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube");
    f.id = rb_entities_spawn(f.entities, cube,
                             &(rb_body_desc){.position = {0.0f, 0.0f, 0.0f},
                                             .velocity = {1.0f, 0.5f, 0.0f},
                                             .angular_velocity = {0.3f, 2.0f, -1.0f}});
    rb_entities_spawn(f.entities, cube,
                      &(rb_body_desc){.position = {0.3f, 0.2f, -4.0f}, .velocity = {0.0f, 0.0f, 40.0f}});
    rb_debris_desc dd = {0};
    char err[256];
    f.debris = rb_debris_create(&dd, f.entities, err, sizeof err);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 3, .strength = RB_FRACTURE_STRENGTH};
    assert_true(rb_debris_make_breakable(f.debris, f.id, &fd, err, sizeof err));
    bool split = false;
    for (int tick = 0; tick < 100 && !split; tick++) {
        assert_true(rb_debris_step(f.debris, 10)); /* up to the next tick, not through it */
        double p0[3], l0[3], p1[3], l1[3];
        momentum(f.world, p0, l0);
        assert_true(rb_debris_tick(f.debris));
        momentum(f.world, p1, l1);
        if (rb_debris_breaks(f.debris) == 0) continue;
        split = true;
        const double ps = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
        const double ls = sqrt(l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]);
        print_message("split at tick %d into %u bodies: p %.3f %.3f %.3f -> %.3f %.3f %.3f; L %.3f %.3f %.3f -> %.3f "
                      "%.3f %.3f\n",
                      tick, rb_world_body_count(f.world), p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], l0[0], l0[1], l0[2],
                      l1[0], l1[1], l1[2]);
        for (int k = 0; k < 3; k++) {
            assert_near(p1[k], p0[k], 1e-4 * ps);
            assert_near(l1[k], l0[k], 1e-4 * ls);
        }
    }
    assert_true(split);
    close_all(&f);
}

/* A breakable scene: the same digest twice, and on the OpenCL run the reference's. */
static uint64_t run_wall(rb_backend_kind backend) {
    fixture f = {0};
    rb_world_desc d = rb_default_world_desc();
    d.backend = backend;
    f.reg = rb_test_registry();
    char err[256];
    f.world = rb_world_create(&d, err, sizeof err);
    assert_non_null(f.world);
    f.entities = rb_entities_create(f.reg, f.world);
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube");
    rb_debris_desc dd = {0};
    f.debris = rb_debris_create(&dd, f.entities, err, sizeof err);
    for (int k = 0; k < 3; k++) {
        const rb_body_id id =
            rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {0.0f, 0.61f + 1.2f * k, 0.0f}});
        const rb_fracture_desc fd = {
            .kind = RB_FRACTURE_VORONOI, .pieces = 6, .seed = (uint64_t)k + 1u, .strength = RB_FRACTURE_STRENGTH};
        assert_true(rb_debris_make_breakable(f.debris, id, &fd, err, sizeof err));
    }
    rb_entities_spawn(f.entities, cube,
                      &(rb_body_desc){.position = {-6.0f, 1.5f, 0.0f}, .velocity = {25.0f, 0.0f, 0.0f}});
    assert_true(rb_debris_step(f.debris, 1200));
    assert_true(rb_debris_breaks(f.debris) > 0);
    const uint64_t digest = rb_world_digest(f.world);
    close_all(&f);
    return digest;
}

static void test_breaking_is_deterministic(void **state) {
    (void)state;
    const uint64_t a = run_wall(rb_test_backend()), b = run_wall(rb_test_backend());
    assert_true(a == b);
    if (rb_test_backend() == RB_BACKEND_OPENCL) assert_true(run_wall(RB_BACKEND_REFERENCE) == a);
}

/* Pieces from the shape's plugin: the cube's four columns; a world shape
 * with no plugin behind it is refused the pattern. */
static void test_plugin_pieces_break(void **state) {
    (void)state;
    fixture f = {0};
    open_drop(&f, 0.5f, RB_FRACTURE_STRENGTH);
    float loads[8];
    const rb_fracture_desc given = {
        .kind = RB_FRACTURE_GIVEN, .pieces = 0, .seed = 0, .strength = RB_FRACTURE_STRENGTH};
    char err[256];
    assert_true(rb_debris_make_breakable(f.debris, f.id, &given, err, sizeof err));
    assert_int_equal(rb_world_piece_loads(f.world, f.id, loads, 8), 4);
    const rb_shape_data lone = {1, (const float[3]){0, 0, 0}, 64.0f, {1.0f, 1.0f, 1.0f}, 0.2f};
    const int shape = rb_world_add_shape(f.world, &lone);
    const rb_body_id other =
        rb_world_add_body(f.world, &(rb_body_desc){.shape = (uint32_t)shape, .position = {5, 1, 0}});
    assert_false(rb_debris_make_breakable(f.debris, other, &given, err, sizeof err));
    assert_non_null(strstr(err, "gives no pieces"));
    close_all(&f);
}

/* An impact pattern in the step: a 6^3 lattice cube (2.4 m, 216
 * particles) breakable in voronoi 24 drawn about the hit lands on a corner
 * from 5 m. At the tick it breaks it comes apart into its pieces drawn
 * again about the corner it landed on: those whose centres are nearer that
 * corner than the cube's centre is hold fewer particles each than the
 * rest (under 0.65 of theirs). Returns the digest some steps after the break. */
static uint64_t drop_impact(rb_backend_kind backend, bool report) {
    fixture f = {0};
    rb_world_desc d = rb_default_world_desc();
    d.backend = backend;
    char err[256];
    f.reg = rb_test_registry();
    f.world = rb_world_create(&d, err, sizeof err);
    assert_non_null(f.world);
    f.entities = rb_entities_create(f.reg, f.world);
    const uint32_t shape = rb_test_add_lattice(f.world, 6, 0.2f, 64.0f);
    rb_body_desc b = {.shape = shape};
    corner_down(b.orientation);
    const float corner = sqrtf(3.0f) * 1.0f + 0.2f; /* centre to the corner particle's far side */
    b.position[1] = 5.0f + corner;
    f.id = rb_world_add_body(f.world, &b);
    rb_debris_desc dd = {0};
    f.debris = rb_debris_create(&dd, f.entities, err, sizeof err);
    assert_non_null(f.debris);
    const rb_fracture_desc fd = {
        .kind = RB_FRACTURE_VORONOI, .pieces = 24, .seed = 7, .strength = RB_FRACTURE_STRENGTH, .impact = true};
    if (!rb_debris_make_breakable(f.debris, f.id, &fd, err, sizeof err)) fail_msg("%s", err);
    int tick = 0;
    for (; tick < 200 && rb_debris_breaks(f.debris) == 0; tick++) {
        assert_true(rb_debris_step(f.debris, 10));
        assert_true(rb_debris_tick(f.debris));
    }
    assert_int_equal(rb_debris_breaks(f.debris), 1);
    assert_false(rb_world_body_valid(f.world, f.id));
    /* the corner it landed on: the ground below where it fell; the cube's
     * centre is about `corner` above it */
    const uint32_t bodies = rb_world_body_count(f.world);
    assert_true(bodies >= 12);
    double near = 0, far = 0, near_pieces = 0, far_pieces = 0, particles = 0;
    for (uint32_t k = 0; k < bodies; k++) {
        rb_body_state s;
        assert_true(rb_world_get_body(f.world, k, &s));
        const double count = rb_world_shape_particles(f.world, s.shape, NULL, 0, NULL);
        const double x = s.position[0], y = s.position[1], z = s.position[2];
        particles += count;
        if (sqrt(x * x + y * y + z * z) < corner)
            near += count, near_pieces++;
        else
            far += count, far_pieces++;
    }
    if (report)
        print_message("broke at tick %d into %u pieces: %.0f near the hit of %.1f particles each, %.0f far of %.1f\n",
                      tick, bodies, near_pieces, near / near_pieces, far_pieces, far / far_pieces);
    assert_int_equal((int)particles, 216);
    assert_true(near_pieces > 0 && far_pieces > 0);
    /* 0.41 here; plain voronoi 24 pieces (seed 7) are even, 8.9 to 9.3
     * particles each about any corner, so they would make about 1 */
    assert_true(near / near_pieces < 0.65 * (far / far_pieces));
    assert_true(rb_debris_step(f.debris, 100));
    const uint64_t digest = rb_world_digest(f.world);
    close_all(&f);
    return digest;
}

static void test_impact_pattern_breaks_small_near_the_hit(void **state) {
    (void)state;
    const uint64_t a = drop_impact(rb_test_backend(), true), b = drop_impact(rb_test_backend(), false);
    assert_true(a == b);
    if (rb_test_backend() == RB_BACKEND_OPENCL) assert_true(drop_impact(RB_BACKEND_REFERENCE, false) == a);
}

/* Many breaks at once, with the debris table and the breakables' table
 * growing while they split (20 breakable cubes landing on corners from 5 m
 * among 108 other debris bodies): every parent leaves the world as its
 * pieces come in, so bodies = before - breaks + pieces made. */
static void test_many_breaks(void **state) {
    (void)state;
    fixture f = {0};
    f.reg = rb_test_registry();
    f.world = rb_test_world(rb_default_world_desc());
    f.entities = rb_entities_create(f.reg, f.world);
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube"),
                   small = (uint32_t)rb_entities_find(f.entities, "cube2");
    rb_debris_desc dd = {0};
    char err[256];
    f.debris = rb_debris_create(&dd, f.entities, err, sizeof err);
    for (int k = 0; k < 108; k++) { /* debris around: with the cubes, the table's 128 full, so splits grow it */
        const rb_body_desc at = {.position = {-18.0f + 3.0f * (float)(k % 12), 0.41f, 12.0f + 3.0f * (float)(k / 12)}};
        const rb_body_id id = rb_entities_spawn(f.entities, small, &at);
        assert_true(rb_debris_track(f.debris, id, 100.0f));
    }
    for (int k = 0; k < 20; k++) {
        rb_body_desc b = {.position = {3.0f * (float)(k % 5) - 6.0f, 5.0f + 0.9f, 3.0f * (float)(k / 5) - 6.0f}};
        corner_down(b.orientation);
        const rb_body_id id = rb_entities_spawn(f.entities, cube, &b);
        assert_true(rb_debris_track(f.debris, id, 100.0f));
        const rb_fracture_desc fd = {
            .kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = (uint64_t)k + 1u, .strength = 300000.0f};
        assert_true(rb_debris_make_breakable(f.debris, id, &fd, err, sizeof err));
    }
    const uint32_t before = rb_world_body_count(f.world);
    assert_true(rb_debris_step(f.debris, 1500));
    print_message("%llu breaks made %llu bodies; %u bodies now, %u before\n",
                  (unsigned long long)rb_debris_breaks(f.debris), (unsigned long long)rb_debris_pieces_made(f.debris),
                  rb_world_body_count(f.world), before);
    assert_true(rb_debris_breaks(f.debris) >= 16);
    assert_int_equal(rb_world_body_count(f.world),
                     before - rb_debris_breaks(f.debris) + rb_debris_pieces_made(f.debris));
    assert_int_equal(rb_debris_alive(f.debris), rb_world_body_count(f.world)); /* every piece is debris */
    close_all(&f);
}

int main(void) {
    if (getenv("RUBBLE_BREAK_SCAN")) {
        for (float h = 0.25f; h <= 8.0f; h *= 2.0f) printf("%.2f m: %.0f N\n", h, breaking_strength(h));
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_strength_breaks_at_5_m_not_half_a_metre),
        cmocka_unit_test(test_momentum_across_a_break),
        cmocka_unit_test(test_breaking_is_deterministic),
        cmocka_unit_test(test_plugin_pieces_break),
        cmocka_unit_test(test_impact_pattern_breaks_small_near_the_hit),
        cmocka_unit_test(test_many_breaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
