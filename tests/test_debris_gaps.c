/* The debris layer's removals where a mutation run found the tests blind
 * (src/scenes/debris.c, debris_break.c; scripts/mutants names the bugs),
 * on the backend RUBBLE_TEST_BACKEND names:
 * - a kill region is a box with its own extent on each axis: a body whose
 *   centre is 5 cm inside any of its six faces goes at the next tick, one
 *   5 cm outside stays;
 * - sleep removal counts from the last time a body fell asleep: debris that
 *   sleeps, is woken and sleeps again goes remove_asleep after the second
 *   sleep, not at once;
 * - a broken debris body's pieces are debris with its lifetime, counted
 *   from its birth (docs/debris.md, "Breakable bodies"): they all go at the
 *   tick the parent would have gone, not a lifetime after the break.
 *
 * The debris clock ticks every 10 steps (16 ms at dt 1.6 ms), so a time
 * the debris layer acts on is met within one tick. */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/entities.h"
#include "scenes/fracture.h"

#define DT 0.0016
#define TICK (10 * DT)

typedef struct fixture {
    rb_registry *reg;
    rb_world *world;
    rb_entities *entities;
    rb_debris *debris;
    uint32_t cube; /* the cube plugin's row: 1.2 m, 27 particles of radius 0.2 */
} fixture;

static void open_world(fixture *f, rb_world_desc desc) {
    f->reg = rb_test_registry();
    f->world = rb_test_world(desc);
    f->entities = rb_entities_create(f->reg, f->world);
    assert_non_null(f->entities);
    const int row = rb_entities_find(f->entities, "cube");
    assert_true(row >= 0);
    f->cube = (uint32_t)row;
}

static void open_debris(fixture *f, const rb_debris_desc *dd) {
    char err[256];
    f->debris = rb_debris_create(dd, f->entities, err, sizeof err);
    if (!f->debris) fail_msg("rb_debris_create: %s", err);
}

static void close_all(fixture *f) {
    rb_debris_destroy(f->debris);
    rb_entities_destroy(f->entities);
    rb_world_destroy(f->world);
    rb_registry_destroy(f->reg);
}

/* No gravity, no planes, no sleep: a body stays where it is put. */
static rb_world_desc empty_space(void) {
    rb_world_desc d = rb_default_world_desc();
    d.gravity[1] = 0.0f;
    d.plane_count = 0;
    d.sleep_time = 0.0f;
    return d;
}

static rb_body_id spawn(fixture *f, const float p[3]) {
    rb_body_desc b = {.position = {p[0], p[1], p[2]}};
    const rb_body_id id = rb_entities_spawn(f->entities, f->cube, &b);
    assert_true(rb_world_body_valid(f->world, id));
    return id;
}

/* A box 7 x 11 x 15 m, different on every axis. For each face, a body 5 cm
 * inside it and one 5 cm outside, the two 4 m apart along the face (cubes
 * of 1.2 m never touch); the inside ones by the x faces are debris, the
 * rest scene bodies (the two ways a kill region removes). One tick: the six
 * inside are gone, the six outside stay. */
static void test_kill_region_faces(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    rb_debris_desc dd = {.kill_count = 1};
    dd.kill[0] = (rb_kill_region){{-3.0f, -5.0f, -7.0f}, {4.0f, 6.0f, 8.0f}};
    const float centre[3] = {0.5f, 0.5f, 0.5f};
    open_debris(&f, &dd);
    rb_body_id inside[6], outside[6];
    for (int axis = 0; axis < 3; axis++)
        for (int side = 0; side < 2; side++) {
            const float face = side ? dd.kill[0].max[axis] : dd.kill[0].min[axis];
            const float in = side ? -0.05f : 0.05f; /* toward the box's centre */
            const int along = (axis + 1) % 3;
            float p[3] = {centre[0], centre[1], centre[2]};
            p[axis] = face + in, p[along] = centre[along] + 2.0f;
            inside[2 * axis + side] = spawn(&f, p);
            p[axis] = face - in, p[along] = centre[along] - 2.0f;
            outside[2 * axis + side] = spawn(&f, p);
            if (axis == 0) assert_true(rb_debris_track(f.debris, inside[2 * axis + side], 0.0f));
        }
    assert_true(rb_debris_step(f.debris, 10)); /* the tick at step 0 */
    for (int k = 0; k < 6; k++) {
        const char *face[6] = {"x min", "x max", "y min", "y max", "z min", "z max"};
        if (rb_world_body_valid(f.world, inside[k])) fail_msg("the body 5 cm inside the %s face was kept", face[k]);
        if (!rb_world_body_valid(f.world, outside[k]))
            fail_msg("the body 5 cm outside the %s face was removed", face[k]);
    }
    assert_int_equal(rb_world_body_count(f.world), 6);
    assert_int_equal(rb_debris_removed(f.debris), 6);
    assert_int_equal(rb_debris_alive(f.debris), 0);
    close_all(&f);
}

/* Steps one tick (10 steps); true if the body is there and asleep after it. */
static bool tick_asleep(fixture *f, rb_body_id id) {
    assert_true(rb_debris_step(f->debris, 10));
    rb_body_state s;
    return rb_world_get_body_by_id(f->world, id, &s) && s.asleep;
}

/* A debris cube resting on the ground falls asleep (sleep_time 0.5 s of
 * rest), is woken 0.6 s later (under remove_asleep, 1 s) by a hop of 2 m/s
 * up, lands, falls asleep again, and goes 1 s after that second sleep:
 * the tick that first sees it asleep starts the count, the first tick at
 * least 1 s later removes it, and the step call after that one sees it
 * gone, so 1 s plus up to three ticks after this loop saw it asleep. */
static void test_remove_asleep_after_a_second_sleep(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    const rb_body_id junk = spawn(&f, (float[3]){0.0f, 0.61f, 0.0f});
    rb_debris_desc dd = {.remove_asleep = 1.0f};
    open_debris(&f, &dd);
    assert_true(rb_debris_track(f.debris, junk, 0.0f));
    double first = -1.0, second = -1.0, gone = -1.0;
    for (int k = 0; k < 200 && first < 0.0; k++)
        if (tick_asleep(&f, junk)) first = rb_debris_time(f.debris);
    assert_true(first > 0.0);
    while (rb_debris_time(f.debris) < first + 0.6 - 0.5 * TICK) {
        assert_true(tick_asleep(&f, junk)); /* asleep, and not removed: under 1 s of sleep */
    }
    assert_true(rb_world_set_velocity(f.world, junk, (float[3]){0.0f, 2.0f, 0.0f}, (float[3]){0.0f, 0.0f, 0.0f}));
    const double woken = rb_debris_time(f.debris);
    for (int k = 0; k < 300 && second < 0.0; k++) {
        const bool asleep = tick_asleep(&f, junk);
        assert_true(rb_world_body_valid(f.world, junk)); /* awake: never removed */
        if (asleep) second = rb_debris_time(f.debris);
    }
    assert_true(second > woken + 0.5); /* the hop, then sleep_time at rest */
    for (int k = 0; k < 200 && gone < 0.0; k++) {
        assert_true(rb_debris_step(f.debris, 10));
        if (!rb_world_body_valid(f.world, junk)) gone = rb_debris_time(f.debris);
    }
    print_message("asleep at %.3f s, woken at %.3f s, asleep again at %.3f s, removed by %.3f s\n", first, woken,
                  second, gone);
    assert_true(gone > 0.0);
    assert_true(gone - second >= 1.0);
    assert_true(gone - second <= 1.0 + 3.0 * TICK + 1e-9);
    assert_int_equal(rb_debris_removed(f.debris), 1);
    close_all(&f);
}

/* A breakable debris cube living 1 s (from t = 0) in space, still; at
 * 0.4 s it is set spinning at 6 rad/s, which its weak bonds (1 N each)
 * cannot hold: the next tick splits it. Its pieces are debris (the layer
 * counts every body) with its lifetime from its birth: all there at
 * 0.96 s, all gone by 1.04 s (the tick at 1.008 s is the first at or
 * past 1 s). */
static void test_pieces_live_their_parents_lifetime(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const rb_body_id id = spawn(&f, (float[3]){0.0f, 0.0f, 0.0f});
    rb_debris_desc dd = {0};
    open_debris(&f, &dd);
    char err[256];
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 1, .strength = 1.0f};
    if (!rb_debris_make_breakable(f.debris, id, &fd, err, sizeof err)) fail_msg("%s", err);
    assert_true(rb_debris_track(f.debris, id, 1.0f));
    assert_true(rb_debris_step(f.debris, 250)); /* 0.4 s */
    assert_int_equal(rb_debris_breaks(f.debris), 0); /* still: no load on its pieces */
    assert_true(rb_world_set_velocity(f.world, id, (float[3]){0.0f, 0.0f, 0.0f}, (float[3]){0.0f, 6.0f, 0.0f}));
    assert_true(rb_debris_step(f.debris, 20));
    assert_true(rb_debris_breaks(f.debris) >= 1);
    const uint32_t pieces = rb_world_body_count(f.world);
    assert_true(pieces >= 2);
    assert_int_equal(rb_debris_alive(f.debris), pieces); /* every piece is debris */
    assert_true(rb_debris_step(f.debris, 600 - 270)); /* 0.96 s */
    print_message("split into %u bodies at 0.43 s; %u at 0.96 s\n", pieces, rb_world_body_count(f.world));
    assert_true(rb_world_body_count(f.world) >= pieces); /* they may break again: none has gone */
    assert_int_equal(rb_debris_alive(f.debris), rb_world_body_count(f.world));
    assert_true(rb_debris_step(f.debris, 650 - 600)); /* 1.04 s */
    print_message("%u bodies at 1.04 s\n", rb_world_body_count(f.world));
    assert_int_equal(rb_world_body_count(f.world), 0);
    assert_int_equal(rb_debris_alive(f.debris), 0);
    close_all(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill_region_faces),
        cmocka_unit_test(test_remove_asleep_after_a_second_sleep),
        cmocka_unit_test(test_pieces_live_their_parents_lifetime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
