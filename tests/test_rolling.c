/* Rolling resistance (README.md, "Rolling resistance"; src/sim/contact.h,
 * rb_contact_rolling): a material's rolling_friction mu_r makes a contact
 * resist its two bodies rolling on each other with a moment up to
 * mu_r R |f_n|, through a spring on the angle they rolled since it began.
 *
 * A solid sphere (I = 2/5 m r^2) rolling without slipping under a constant
 * resisting moment M = mu_r r m g slows at a = M r / (I + m r^2) =
 * 5/7 mu_r g, and on a slope at theta it stays put while tan(theta) <= mu_r
 * (gravity's moment about the contact point, m g r sin, against the most
 * the contact holds, mu_r r m g cos) and otherwise rolls down at
 * 5/7 g (sin - mu_r cos). Those are the tests, with sleeping off throughout
 * (what stays put must stay on its contacts), plus: the pair's moments are
 * equal and opposite (angular momentum kept), and a material without
 * rolling friction rolls as before. Runs on the backend named by
 * RUBBLE_TEST_BACKEND (reference by default, or opencl). The world's
 * defaults otherwise: r = 0.2 m, dt 1.6 ms, t_c 8 ms, e 0.5, g 9.81; the
 * spheres are 64 kg. */
#include "rb_test.h"

static const float g = 9.81f, r = 0.2f;

static rb_world *rolling_world(float mu_r, const float normal[3]) {
    rb_world_desc d = rb_default_world_desc();
    d.sleep_time = 0.0f;
    d.material.rolling_friction = mu_r;
    d.planes[0] = (rb_plane){{normal[0], normal[1], normal[2]}, 0.0f};
    d.plane_count = 1;
    return rb_test_world(d);
}

static uint32_t add_sphere(rb_world *w) {
    const float m = 64.0f, I = 0.4f * m * r * r, origin[3] = {0, 0, 0};
    const int s = rb_world_add_shape(w, &(rb_shape_data){1, origin, m, {I, I, I}, 0.0f});
    assert_true(s >= 0);
    return (uint32_t)s;
}

static rb_body_state state_of(rb_world *w, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    return s;
}

static uint32_t steps_of(const rb_world *w, float seconds) {
    return (uint32_t)lroundf(seconds / rb_world_get_desc(w)->dt);
}

/* The least-squares slope of a body's speed along dir, sampled every 0.05 s
 * from now for `seconds`. */
static double fitted_acceleration(rb_world *w, rb_body_id id, const float dir[3], float seconds) {
    return rb_test_acceleration(w, id, dir, steps_of(w, 0.05f), (int)lroundf(seconds / 0.05f) + 1);
}

/* A ball rolling at 2 m/s on the ground (mu 0.5, mu_r 0.1) slows at
 * 5/7 mu_r g = 0.701 m/s^2, fitted over 0.2 .. 2 s (it stops at 2.9 s), within
 * 5%: the moment is mu_r r |f_n| once the spring yields, which takes
 * |f_n| / (2.25 mu_r r k_n) = 0.7 mrad, 3 steps' rolling at 2 m/s; the lever
 * and |f_n| differ from r and m g by the static overlap, 1e-4 of r, and the
 * spring's damping adds nothing while the contact rolls at the cap. Then it
 * stops and stays: over the next 2 s, under 1 mm. Without rolling friction
 * the same ball keeps its speed (2 m/s within 0.02, as
 * test_rolling_sphere in tests/test_physics.c). */
static void test_ball_rolls_to_a_stop(void **state) {
    const float up[3] = {0, 1, 0}, along[3] = {1, 0, 0}, v0 = 2.0f;
    const float mu_r[2] = {0.1f, 0.0f};
    for (int k = 0; k < 2; k++) {
        rb_world *w = rolling_world(mu_r[k], up);
        rb_body_desc b = {
            .shape = add_sphere(w), .position = {0, r, 0}, .velocity = {v0, 0, 0}, .angular_velocity = {0, 0, -v0 / r}};
        const rb_body_id id = rb_world_add_body(w, &b);
        assert_true(rb_world_step(w, steps_of(w, 0.2f)));
        const double a = -fitted_acceleration(w, id, along, 1.8f), expect = 5.0 / 7.0 * mu_r[k] * g;
        print_message("a ball rolling at %.0f m/s, mu_r %.1f: slows at %.4f m/s^2 (5/7 mu_r g = %.4f)\n", v0, mu_r[k],
                      a, expect);
        if (mu_r[k] > 0.0f) {
            assert_near(a, expect, 0.05 * expect);
            assert_true(rb_world_step(w, steps_of(w, 1.5f))); /* past the stop at 2.9 s */
            const rb_body_state stopped = state_of(w, id);
            assert_true(rb_world_step(w, steps_of(w, 2.0f)));
            const rb_body_state later = state_of(w, id);
            const float moved = fabsf(later.position[0] - stopped.position[0]);
            print_message("  stopped at x = %.4f m; moved %.6f m over the next 2 s\n", stopped.position[0], moved);
            assert_true(moved < 1e-3f);
        } else {
            assert_near(a, 0.0, 0.01);
        }
        rb_world_destroy(w);
    }
}

/* A slope through the origin rising at theta towards +x; a ball at rest 1 mm
 * above it. Returns the ball; downhill is (-cos, -sin, 0). */
static rb_world *slope_with_ball(float theta, float mu_r, rb_body_id *id) {
    const float n[3] = {-sinf(theta), cosf(theta), 0.0f};
    rb_world *w = rolling_world(mu_r, n);
    const float h = r + 0.001f;
    rb_body_desc b = {.shape = add_sphere(w), .position = {n[0] * h, n[1] * h, 0.0f}};
    *id = rb_world_add_body(w, &b);
    return w;
}

/* mu_r 0.1 on a slope of tan 0.05 (2.9 degrees): the ball stays put, under
 * 1 mm over 10 s after 0.5 s of settling (the rolling spring's turn under
 * the slope's pull is tan / (2.25 mu_r^2 ...) of a mrad: micrometres); on
 * tan 0.2 (11.3 degrees) it rolls down at 5/7 g (sin - mu_r cos) =
 * 0.687 m/s^2, fitted over 0.5 .. 2.5 s, within 5% (as on the flat; mu 0.5
 * holds the contact point: rolling needs 2/7 tan = 0.06). */
static void test_ball_on_slope(void **state) {
    const float mu_r = 0.1f, tans[2] = {0.05f, 0.2f};
    for (int k = 0; k < 2; k++) {
        const float theta = atanf(tans[k]), down[3] = {-cosf(theta), -sinf(theta), 0.0f};
        rb_body_id id;
        rb_world *w = slope_with_ball(theta, mu_r, &id);
        assert_true(rb_world_step(w, steps_of(w, 0.5f)));
        if (k == 0) {
            const rb_body_state start = state_of(w, id);
            float worst = 0.0f;
            for (int n = 0; n < 50; n++) {
                assert_true(rb_world_step(w, steps_of(w, 0.2f)));
                const rb_body_state s = state_of(w, id);
                const float d[3] = {s.position[0] - start.position[0], s.position[1] - start.position[1],
                                    s.position[2] - start.position[2]};
                worst = fmaxf(worst, rb_test_len(d));
            }
            print_message("a ball on a slope of tan %.2f, mu_r %.1f: moved at most %.6f m over 10 s\n", tans[k], mu_r,
                          worst);
            assert_true(worst < 1e-3f);
        } else {
            const double a = fitted_acceleration(w, id, down, 2.0f),
                         expect = 5.0 / 7.0 * g * (sin(theta) - mu_r * cos(theta));
            print_message("a ball on a slope of tan %.2f, mu_r %.1f: rolls down at %.4f m/s^2 (5/7 g (sin - mu_r cos) "
                          "= %.4f)\n",
                          tans[k], mu_r, a, expect);
            assert_near(a, expect, 0.05 * expect);
        }
        rb_world_destroy(w);
    }
}

static void angular_momentum(rb_world *w, double L[3]) {
    L[0] = L[1] = L[2] = 0.0;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        const float *x = s.position;
        const double p[3] = {s.mass * s.velocity[0], s.mass * s.velocity[1], s.mass * s.velocity[2]};
        L[0] += x[1] * p[2] - x[2] * p[1] + s.angular_momentum[0];
        L[1] += x[2] * p[0] - x[0] * p[2] + s.angular_momentum[1];
        L[2] += x[0] * p[1] - x[1] * p[0] + s.angular_momentum[2];
    }
}

/* Two balls without gravity meet head on at 1 m/s, spinning at 30 rad/s
 * about y in opposite senses, so that their surfaces move together at the
 * contact (no slip: friction has nothing to do) while they roll on each
 * other at 60 rad/s. The rolling moments, equal and opposite to the bit,
 * brake both spins by the same amount and keep the angular momentum: the
 * total, zero, stays under 1e-5 of one ball's (30.7 N m s), float rounding.
 * How much: the contact yields within its first steps (at 60 rad/s it turns
 * past its yield angle, under 0.04 rad, in a step or two), so the moment is
 * mu_r R |f_n| over the bounce, an angular impulse of mu_r R J, J the normal
 * impulse m_eff (1 + e) v = 48 N s, R = r / 2: 1.44 N m s, 1.41 rad/s off
 * each spin; within 25% (the first steps, and e's scatter). With no rolling
 * friction the spins do not change (within 1e-3 rad/s). */
static void test_rolling_pair_keeps_angular_momentum(void **state) {
    const float mu_r[2] = {0.3f, 0.0f};
    for (int k = 0; k < 2; k++) {
        rb_world_desc d = rb_default_world_desc();
        d.sleep_time = 0.0f;
        d.gravity[1] = 0.0f;
        d.plane_count = 0;
        d.material.rolling_friction = mu_r[k];
        rb_world *w = rb_test_world(d);
        const uint32_t ball = add_sphere(w);
        rb_body_desc a = {
            .shape = ball, .position = {-r - 0.005f, 1, 0}, .velocity = {0.5f, 0, 0}, .angular_velocity = {0, 30, 0}};
        rb_body_desc b = {
            .shape = ball, .position = {r + 0.005f, 1, 0}, .velocity = {-0.5f, 0, 0}, .angular_velocity = {0, -30, 0}};
        const rb_body_id ia = rb_world_add_body(w, &a), ib = rb_world_add_body(w, &b);
        assert_true(rb_world_step(w, steps_of(w, 0.1f))); /* they touch for t_c = 8 ms and part */
        double L[3];
        angular_momentum(w, L);
        const rb_body_state a1 = state_of(w, ia), b1 = state_of(w, ib);
        const double left = rb_test_len((float[3]){(float)L[0], (float)L[1], (float)L[2]});
        const double one = 0.4 * 64.0 * r * r * 30.0, impulse = mu_r[k] * 0.5 * r * 32.0 * 1.5 * 1.0;
        print_message("two balls rolling on each other at 60 rad/s, mu_r %.1f: spins %.4f and %.4f rad/s after (30 "
                      "before; mu_r R J / I = %.3f rad/s expected off each); angular momentum left %.3g of %.1f\n",
                      mu_r[k], a1.angular_velocity[1], -b1.angular_velocity[1], impulse / (0.4 * 64.0 * r * r), left,
                      one);
        assert_true(left <= 1e-5 * one);
        const double drop = 30.0 - a1.angular_velocity[1], expect = impulse / (0.4 * 64.0 * r * r);
        if (mu_r[k] > 0.0f)
            assert_near(drop, expect, 0.25 * expect);
        else
            assert_near(drop, 0.0, 1e-3);
        assert_near(a1.angular_velocity[1], -b1.angular_velocity[1], 1e-4);
        rb_world_destroy(w);
    }
}

/* The rolling angles are history, kept as the displacements are: when a
 * body before it goes, a ball resting on a slope (tan 0.05, mu_r 0.1: held
 * by its rolling spring, a turn of about 0.7 mrad) keeps its contact's
 * rolling angle and displacement, renumbered with it, bit for bit; and the
 * angle is not zero (the test would prove nothing). */
static void test_rolling_angle_survives_removal(void **state) {
    const float theta = atanf(0.05f);
    rb_body_id first;
    rb_world *w = slope_with_ball(theta, 0.1f, &first);
    rb_body_desc b = {.shape = 0, .position = {0.0f, 0.0f, 1.0f}};
    const float n[3] = {-sinf(theta), cosf(theta), 0.0f}, h = r + 0.001f;
    for (int k = 0; k < 3; k++) b.position[k] += n[k] * h;
    const rb_body_id second = rb_world_add_body(w, &b);
    assert_int_not_equal(second.generation, 0);
    assert_true(rb_world_step(w, steps_of(w, 1.0f)));
    rb_contact_memory before[8], after[8];
    assert_int_equal(rb_world_read_contacts(w, before, 8), 2); /* one ground contact each */
    assert_true(rb_world_remove_body(w, first));
    assert_int_equal(rb_world_read_contacts(w, after, 8), 1);
    print_message("the second ball's contact: rolling angle (%.3g, %.3g, %.3g) rad before, (%.3g, %.3g, %.3g) after "
                  "the first ball went\n",
                  before[1].rolling[0], before[1].rolling[1], before[1].rolling[2], after[0].rolling[0],
                  after[0].rolling[1], after[0].rolling[2]);
    assert_true(rb_test_len(before[1].rolling) > 1e-4f);
    assert_int_equal(after[0].particle, 0);
    assert_int_equal(after[0].partner, before[1].partner);
    assert_memory_equal(after[0].displacement, before[1].displacement, sizeof after[0].displacement);
    assert_memory_equal(after[0].rolling, before[1].rolling, sizeof after[0].rolling);
    rb_world_destroy(w);
}

/* Rolling friction switched off and on again (rb_world_set_material): a
 * contact without rolling friction keeps no angle, so when its pair resists
 * rolling again it starts from zero, as a new contact would, not from what
 * its slot held when rolling friction went off. The ball holds on a slope of
 * tan 0.05 with mu_r 0.1 (its contact's angle about 0.0009 rad); with
 * mu_r 0 it rolls away for 0.2 s on the same contact, which keeps the old
 * angle untouched; with 0.1 again the angle is zero. */
static void test_rolling_angle_restarts_when_switched_on(void **state) {
    const float theta = atanf(0.05f);
    rb_body_id id;
    rb_world *w = slope_with_ball(theta, 0.1f, &id);
    assert_true(rb_world_step(w, steps_of(w, 1.0f)));
    rb_contact_memory held, rolled, again;
    assert_int_equal(rb_world_read_contacts(w, &held, 1), 1);
    rb_material m;
    assert_true(rb_world_get_material(w, 0, &m));
    const float dt = rb_world_get_desc(w)->dt;
    m.rolling_friction = 0.0f;
    assert_true(rb_world_set_material(w, m, dt));
    assert_true(rb_world_step(w, steps_of(w, 0.2f)));
    assert_int_equal(rb_world_read_contacts(w, &rolled, 1), 1);
    assert_true(rb_test_len(state_of(w, id).angular_velocity) > 0.1f); /* rolling away */
    m.rolling_friction = 0.1f;
    assert_true(rb_world_set_material(w, m, dt));
    assert_int_equal(rb_world_read_contacts(w, &again, 1), 1);
    print_message("the ball's contact: angle %.3g rad held, %.3g after rolling without rolling friction, %.3g when it "
                  "is back\n",
                  rb_test_len(held.rolling), rb_test_len(rolled.rolling), rb_test_len(again.rolling));
    assert_true(rb_test_len(held.rolling) > 5e-4f);
    assert_true(rolled.partner == held.partner);                            /* the same contact */
    assert_memory_equal(rolled.rolling, held.rolling, sizeof held.rolling); /* its old angle, kept in its slot */
    assert_true(again.partner == held.partner);
    assert_true(again.rolling[0] == 0.0f && again.rolling[1] == 0.0f && again.rolling[2] == 0.0f);
    assert_true(rb_world_step(w, steps_of(w, 1.0f))); /* and it holds again */
    assert_true(rb_test_len(state_of(w, id).angular_velocity) < 1e-3f);
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_rolls_to_a_stop),
        cmocka_unit_test(test_ball_on_slope),
        cmocka_unit_test(test_rolling_pair_keeps_angular_momentum),
        cmocka_unit_test(test_rolling_angle_survives_removal),
        cmocka_unit_test(test_rolling_angle_restarts_when_switched_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
