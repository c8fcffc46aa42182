/* Piece loads of spinning bodies (src/sim/pieces.c, kernels/pieces.cl;
 * docs/structures.md's piece load), on the backend RUBBLE_TEST_BACKEND
 * names. In space, no contacts: a piece's load is all the force that
 * carries it round, m_P times its acceleration.
 * - A 3x3x3 cube (27 particles of 64 kg, r 0.2 m) spinning at 5 rad/s
 *   about y, cut into slabs across x: each outer slab (576 kg, its centre
 *   0.4 m off the axis) needs m w^2 r = 5,760 N toward the axis, the middle
 *   one nothing; cut across y (along the axis), no slab needs anything.
 * - A rod of three particles along x spinning about a tilted axis, each
 *   particle a piece: it precesses (its angular acceleration is not 0), and
 *   an end particle's load is 64 kg times its acceleration as measured from
 *   its positions (a second difference over 5 steps: within 0.1% of the
 *   true acceleration at these rates; 1% allowed), the middle one's 0. */
#include "rb_test.h"

static const float r = 0.2f;

static rb_world *empty_space(void) {
    rb_world_desc d = rb_default_world_desc();
    d.gravity[1] = 0.0f;
    d.plane_count = 0;
    d.sleep_time = 0.0f;
    return rb_test_world(d);
}

static rb_body_id spinning(rb_world *w, uint32_t shape, const float omega[3]) {
    const rb_body_desc d = {.shape = shape, .orientation = {0, 0, 0, 1}, .angular_velocity = {omega[0], omega[1], omega[2]}};
    const rb_body_id id = rb_world_add_body(w, &d);
    assert_true(id.generation != 0);
    return id;
}

/* Three slabs of the cube across axis `axis`, holding 1 N each (a load over
 * its hold is then the load in N). The box's particles are laid out z
 * fastest (rb_test_add_box): index i has coordinates i / 9, i / 3 % 3, i % 3. */
static void set_slabs(rb_world *w, rb_body_id id, int axis) {
    uint32_t piece_of[27];
    for (uint32_t i = 0; i < 27; i++) piece_of[i] = axis == 0 ? i / 9 : i / 3 % 3;
    rb_piece_desc pieces[3];
    for (int p = 0; p < 3; p++) {
        pieces[p] = (rb_piece_desc){{0.0f, 0.0f, 0.0f}, 9.0f * 64.0f, 1.0f};
        pieces[p].centre[axis] = 2.0f * r * (float)(p - 1);
    }
    assert_true(rb_world_set_pieces(w, id, 3, piece_of, pieces));
}

static void test_spinning_cube_slabs(void **state) {
    (void)state;
    const float omega = 5.0f, want = 9.0f * 64.0f * omega * omega * 2.0f * r;
    for (int axis = 0; axis < 2; axis++) {
        rb_world *w = empty_space();
        const rb_body_id id = spinning(w, rb_test_add_box(w, 3, 3, 3, r), (float[3]){0.0f, omega, 0.0f});
        set_slabs(w, id, axis);
        assert_true(rb_world_step(w, 20));
        float load[3];
        assert_int_equal(rb_world_piece_loads(w, id, load, 3), 3);
        print_message("slabs across %c: %.2f %.2f %.2f N (m w^2 r = %.2f N)\n", "xy"[axis], load[0], load[1], load[2],
                      want);
        if (axis == 0) {
            assert_near(load[0], want, 0.002 * want);
            assert_near(load[2], want, 0.002 * want);
            assert_near(load[1], 0.0, 0.002 * want);
        } else {
            for (int p = 0; p < 3; p++) assert_near(load[p], 0.0, 0.002 * want);
        }
        rb_world_destroy(w);
    }
}

/* Particle k of body 0's position after the last step. */
static void particle(rb_world *w, uint32_t k, double out[3]) {
    float p[3 * 3];
    assert_int_equal(rb_world_particle_count(w), 3);
    assert_true(rb_world_read_particles(w, p));
    const uint32_t i = rb_world_body_first_particle(w)[0] + k;
    for (int c = 0; c < 3; c++) out[c] = p[3 * i + c];
}

static void test_precessing_rod_ends(void **state) {
    (void)state;
    rb_world *w = empty_space();
    const float dt = rb_world_get_desc(w)->dt;
    const rb_body_id id = spinning(w, rb_test_add_box(w, 3, 1, 1, r), (float[3]){4.0f, 6.0f, 0.0f});
    const uint32_t piece_of[3] = {0, 1, 2};
    const rb_piece_desc pieces[3] = {
        {{-2.0f * r, 0.0f, 0.0f}, 64.0f, 1.0f}, {{0.0f, 0.0f, 0.0f}, 64.0f, 1.0f}, {{2.0f * r, 0.0f, 0.0f}, 64.0f, 1.0f}};
    assert_true(rb_world_set_pieces(w, id, 3, piece_of, pieces));
    /* the end particle's acceleration at step 5, from steps 0, 5 and 10 */
    const int k = 5;
    double p0[3], p1[3], p2[3], a[3];
    particle(w, 2, p0);
    assert_true(rb_world_step(w, (uint32_t)k));
    particle(w, 2, p1);
    assert_true(rb_world_step(w, (uint32_t)k));
    particle(w, 2, p2);
    const double h = (double)k * dt;
    for (int c = 0; c < 3; c++) a[c] = (p2[c] - 2.0 * p1[c] + p0[c]) / (h * h);
    const double want = 64.0 * sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    float load[3];
    assert_int_equal(rb_world_piece_loads(w, id, load, 3), 3);
    print_message("rod ends: %.2f %.2f N, middle %.4f N; 64 kg x the end's acceleration %.2f N\n", load[0], load[2],
                  load[1], want);
    assert_true(want > 500.0); /* the spin is fast enough to measure */
    assert_near(load[2], want, 0.01 * want);
    assert_near(load[0], want, 0.01 * want); /* the other end, mirrored */
    assert_near(load[1], 0.0, 0.001 * want);
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spinning_cube_slabs),
        cmocka_unit_test(test_precessing_rod_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
