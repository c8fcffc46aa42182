/* Breakable bodies' piece loads (world.h, rb_world_set_pieces), on the
 * backend RUBBLE_TEST_BACKEND names; the OpenCL run also checks the
 * reference latches the same bits.
 *
 * The physics: a 3x3x3 cube (27 particles of 64 kg, r 0.2 m) resting on a
 * face, cut into three slabs. A piece's load is the net force the rest of
 * the body gives it. Slabs stacked up (across y): the top one is held up by
 * the middle with its weight m g; the middle one is pushed up by the bottom
 * with 2 m g and down by the top with m g, net m g; the bottom one takes
 * 3 m g from the ground and passes 2 m g on. Upright slabs (across x) each
 * stand on the ground; how the ground's push is shared among its 9 contacts
 * is the contact model's (each sized at its point: README, "The contact"),
 * so only Newton's third law is certain: the loads of the outer slabs are
 * equal and sum to the middle one's. At rest the contacts carry the weight
 * to within the resting oscillation, so 5% of m g. */
#include "rb_test.h"

static const float g = 9.81f, r = 0.2f;
#define SLAB_MASS (9.0f * 64.0f)

/* A settled cube with sleeping off, its id in *id. */
static rb_world *settled_cube(rb_body_id *id) {
    rb_world_desc d = rb_default_world_desc();
    d.sleep_time = 0.0f;
    rb_world *w = rb_test_world(d);
    const uint32_t shape = rb_test_add_box(w, 3, 3, 3, r);
    *id = rb_test_add_body(w, shape, 0.0f, 3.0f * r + 0.001f, 0.0f);
    assert_true(rb_world_step(w, 1500));
    return w;
}

/* Three slabs across axis `axis` (0 x, 1 y), holds 1 N each: the load in N. */
static void set_slabs(rb_world *w, rb_body_id id, int axis, float holds) {
    const uint32_t b = rb_world_body_count(w) - 1u;
    const uint32_t first = rb_world_body_first_particle(w)[b];
    uint32_t piece_of[27];
    rb_body_state s;
    assert_true(rb_world_get_body(w, b, &s));
    /* the box's particles are laid out z fastest (rb_test_add_box): index i has
     * coordinates i / 9, i / 3 % 3, i % 3 */
    (void)first;
    for (uint32_t i = 0; i < 27; i++) piece_of[i] = axis == 0 ? i / 9 : i / 3 % 3;
    rb_piece_desc pieces[3];
    for (int p = 0; p < 3; p++) {
        pieces[p] = (rb_piece_desc){{0.0f, 0.0f, 0.0f}, SLAB_MASS, holds};
        pieces[p].centre[axis] = 2.0f * r * (float)(p - 1);
    }
    assert_true(rb_world_set_pieces(w, id, 3, piece_of, pieces));
}

static void test_stacked_slabs_carry_each_other(void **state) {
    (void)state;
    rb_body_id id;
    rb_world *w = settled_cube(&id);
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    /* the box must sit unrotated for the slabs to be horizontal */
    assert_near(fabs(s.orientation[3]), 1.0, 1e-4);
    set_slabs(w, id, 1, 1.0f);
    assert_true(rb_world_step(w, 20));
    float load[3];
    assert_int_equal(rb_world_piece_loads(w, id, load, 3), 3);
    const float mg = SLAB_MASS * g;
    print_message("stacked slabs: %.1f %.1f %.1f N (m g = %.1f)\n", load[0], load[1], load[2], mg);
    assert_near(load[0], 2.0f * mg, 0.05f * mg); /* bottom */
    assert_near(load[1], mg, 0.05f * mg);
    assert_near(load[2], mg, 0.05f * mg); /* top */
    rb_world_destroy(w);
}

static void test_upright_slabs_balance(void **state) {
    (void)state;
    rb_body_id id;
    rb_world *w = settled_cube(&id);
    set_slabs(w, id, 0, 1.0f);
    assert_true(rb_world_step(w, 20));
    float load[3];
    assert_int_equal(rb_world_piece_loads(w, id, load, 3), 3);
    const float mg = SLAB_MASS * g;
    print_message("upright slabs: %.1f %.1f %.1f N (m g = %.1f)\n", load[0], load[1], load[2], mg);
    assert_near(load[0], load[2], 0.01f * mg);
    assert_near(load[1], load[0] + load[2], 0.01f * mg);
    assert_true(load[1] < 0.5f * mg); /* far from the stacked slabs' */
    rb_world_destroy(w);
}

/* A piece over its hold breaks the body: given out once, then not again;
 * one under stays whole. */
static void test_breaks_taken_once(void **state) {
    (void)state;
    rb_body_id id;
    rb_world *w = settled_cube(&id);
    const float mg = SLAB_MASS * g;
    set_slabs(w, id, 1, 3.0f * mg); /* holds more than any slab needs */
    assert_true(rb_world_step(w, 20));
    rb_body_id out[4];
    assert_int_equal(rb_world_take_breaks(w, out, 4), 0);
    set_slabs(w, id, 1, 1.5f * mg); /* the bottom slab needs 2 m g */
    assert_true(rb_world_step(w, 20));
    assert_int_equal(rb_world_take_breaks(w, out, 4), 1);
    assert_true(out[0].slot == id.slot && out[0].generation == id.generation);
    assert_true(rb_world_step(w, 20));
    assert_int_equal(rb_world_take_breaks(w, out, 4), 0);
    rb_world_destroy(w);
}

/* Pieces follow their body when an earlier body goes, and the loads are
 * the reference's bits on OpenCL. */
static void test_pieces_survive_removal_and_agree(void **state) {
    (void)state;
    float loads[2][3];
    for (int run = 0; run < 2; run++) {
        const bool reference = run == 1;
        if (reference && rb_test_backend() != RB_BACKEND_OPENCL) {
            memcpy(loads[1], loads[0], sizeof loads[0]);
            break;
        }
        rb_world_desc d = rb_default_world_desc();
        d.sleep_time = 0.0f;
        d.backend = reference ? RB_BACKEND_REFERENCE : rb_test_backend();
        char err[256];
        rb_world *w = rb_world_create(&d, err, sizeof err);
        assert_non_null(w);
        const uint32_t shape = rb_test_add_box(w, 3, 3, 3, r);
        const rb_body_id gone = rb_test_add_body(w, shape, -3.0f, 3.0f * r + 0.001f, 0.0f);
        const rb_body_id id = rb_test_add_body(w, shape, 3.0f, 3.0f * r + 0.001f, 0.0f);
        uint32_t piece_of[27];
        for (uint32_t i = 0; i < 27; i++) piece_of[i] = i / 3 % 3;
        rb_piece_desc pieces[3];
        for (int p = 0; p < 3; p++)
            pieces[p] = (rb_piece_desc){{0.0f, 2.0f * r * (float)(p - 1), 0.0f}, SLAB_MASS, 1.0f};
        assert_true(rb_world_set_pieces(w, gone, 3, piece_of, pieces));
        assert_true(rb_world_set_pieces(w, id, 3, piece_of, pieces));
        assert_true(rb_world_step(w, 1000));
        assert_true(rb_world_remove_body(w, gone));
        assert_true(rb_world_set_pieces(w, id, 3, piece_of, pieces)); /* latch anew */
        assert_true(rb_world_step(w, 20));
        assert_int_equal(rb_world_piece_loads(w, id, loads[run], 3), 3);
        rb_world_destroy(w);
    }
    const float mg = SLAB_MASS * g;
    print_message("after a removal: %.1f %.1f %.1f N\n", loads[0][0], loads[0][1], loads[0][2]);
    assert_near(loads[0][0], 2.0f * mg, 0.05f * mg);
    assert_near(loads[0][2], mg, 0.05f * mg);
    assert_memory_equal(loads[0], loads[1], sizeof loads[0]);
}

/* A body's particle-to-piece map reads back as it was set, after an earlier
 * body goes too; a body that is not breakable has none. */
static void test_particle_pieces_read_back(void **state) {
    (void)state;
    rb_world *w = rb_test_world(rb_default_world_desc());
    const uint32_t shape = rb_test_add_box(w, 3, 3, 3, r);
    const rb_body_id gone = rb_test_add_body(w, shape, -3.0f, 1.0f, 0.0f);
    const rb_body_id plain = rb_test_add_body(w, shape, 0.0f, 1.0f, 0.0f);
    const rb_body_id id = rb_test_add_body(w, shape, 3.0f, 1.0f, 0.0f);
    uint32_t piece_of[27], other[27], got[27];
    for (uint32_t i = 0; i < 27; i++) piece_of[i] = (i * 7u) % 4u, other[i] = i % 2u;
    rb_piece_desc pieces[4];
    for (int p = 0; p < 4; p++) pieces[p] = (rb_piece_desc){{0.0f, 0.0f, 0.0f}, 1.0f, 1.0f};
    assert_true(rb_world_set_pieces(w, gone, 2, other, pieces));
    assert_true(rb_world_set_pieces(w, id, 4, piece_of, pieces));
    memset(got, 0xff, sizeof got);
    assert_int_equal(rb_world_particle_pieces(w, id, got, 27), 4);
    assert_memory_equal(got, piece_of, sizeof got);
    assert_true(rb_world_remove_body(w, gone));
    memset(got, 0xff, sizeof got);
    assert_int_equal(rb_world_particle_pieces(w, id, got, 27), 4);
    assert_memory_equal(got, piece_of, sizeof got);
    /* max bounds what is written */
    memset(got, 0xff, sizeof got);
    assert_int_equal(rb_world_particle_pieces(w, id, got, 5), 4);
    assert_memory_equal(got, piece_of, 5 * sizeof *got);
    assert_int_equal(got[5], 0xffffffffu);
    assert_int_equal(rb_world_particle_pieces(w, plain, got, 27), 0);
    assert_int_equal(rb_world_particle_pieces(w, gone, got, 27), 0); /* stale */
    rb_world_destroy(w);
}

/* The latched loads and taken marks follow a body when an earlier one goes;
 * more broken bodies than the caller has room for are given at the next
 * call, none lost. */
static void test_breaks_past_room_and_removal(void **state) {
    (void)state;
    rb_world_desc d = rb_default_world_desc();
    d.sleep_time = 0.0f;
    rb_world *w = rb_test_world(d);
    const uint32_t shape = rb_test_add_box(w, 3, 3, 3, r);
    rb_body_id ids[5];
    uint32_t piece_of[27];
    for (uint32_t i = 0; i < 27; i++) piece_of[i] = i / 3 % 3;
    const float mg = SLAB_MASS * g;
    rb_piece_desc pieces[3];
    for (int p = 0; p < 3; p++)
        pieces[p] = (rb_piece_desc){{0.0f, 2.0f * r * (float)(p - 1), 0.0f}, SLAB_MASS, 1.5f * mg};
    for (int k = 0; k < 5; k++) {
        ids[k] = rb_test_add_body(w, shape, 3.0f * (float)k, 3.0f * r + 0.001f, 0.0f);
        assert_true(rb_world_set_pieces(w, ids[k], 3, piece_of, pieces));
    }
    assert_true(rb_world_step(w, 1000)); /* each bottom slab needs 2 m g: all five break */
    float before[3], after[3];
    assert_int_equal(rb_world_piece_loads(w, ids[4], before, 3), 3);
    rb_body_id out[2];
    assert_int_equal(rb_world_take_breaks(w, out, 2), 2);
    assert_true(rb_world_remove_body(w, ids[0])); /* given, and gone */
    assert_int_equal(rb_world_piece_loads(w, ids[4], after, 3), 3);
    assert_memory_equal(before, after, sizeof before); /* moved down with its body, latched as it was */
    assert_int_equal(rb_world_take_breaks(w, out, 2), 2);
    assert_int_equal(rb_world_take_breaks(w, out, 2), 1);
    assert_true(out[0].slot == ids[4].slot && out[0].generation == ids[4].generation);
    assert_int_equal(rb_world_take_breaks(w, out, 2), 0);
    rb_world_destroy(w);
}

/* Bad pieces are refused. */
static void test_bad_pieces_refused(void **state) {
    (void)state;
    rb_body_id id;
    rb_world *w = settled_cube(&id);
    uint32_t piece_of[27] = {0};
    piece_of[5] = 7;
    rb_piece_desc pieces[2] = {{{0, 0, 0}, 1.0f, 1.0f}, {{0, 0, 0}, 1.0f, 1.0f}};
    assert_false(rb_world_set_pieces(w, id, 2, piece_of, pieces)); /* piece 7 of 2 */
    piece_of[5] = 1;
    pieces[1].mass = NAN;
    assert_false(rb_world_set_pieces(w, id, 2, piece_of, pieces));
    pieces[1].mass = 1.0f;
    assert_false(rb_world_set_pieces(w, id, 1, piece_of, pieces)); /* one piece: nothing to break */
    assert_true(rb_world_set_pieces(w, id, 2, piece_of, pieces));
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacked_slabs_carry_each_other),
        cmocka_unit_test(test_upright_slabs_balance),
        cmocka_unit_test(test_breaks_taken_once),
        cmocka_unit_test(test_pieces_survive_removal_and_agree),
        cmocka_unit_test(test_particle_pieces_read_back),
        cmocka_unit_test(test_breaks_past_room_and_removal),
        cmocka_unit_test(test_bad_pieces_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
