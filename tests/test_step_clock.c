/* The sandbox's fixed-step clock (src/app/step_clock.h) alone, on a made-up
 * wall clock: steps owed per frame, chunks, the longest frame, the budget
 * that keeps a slow simulation from spiralling and follows the drawing
 * time, and pausing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "sandbox/step_clock.h"

#define DT 0.0016

/* Runs one frame of frame_dt; each step costs `cost` seconds of the made-up
 * wall clock *now. Returns the steps taken; *max_chunk_seen the largest chunk. */
static uint32_t frame(rb_step_clock *c, double frame_dt, double cost, uint32_t chunk, double *now,
                      uint32_t *max_chunk_seen) {
    rb_step_clock_begin(c, frame_dt, *now);
    uint32_t taken = 0;
    for (uint32_t n; (n = rb_step_clock_next(c, chunk, *now)) > 0;) {
        assert_true(n <= chunk);
        if (max_chunk_seen && n > *max_chunk_seen) *max_chunk_seen = n;
        *now += n * cost;
        rb_step_clock_took(c, n, n * cost, *now);
        taken += n;
    }
    rb_step_clock_end(c, frame_dt);
    assert_int_equal(taken, c->frame_steps);
    return taken;
}

/* On a fixed clock a second of 1/60 s frames takes a second of steps, however
 * slow the steps are: 1 / 0.0016 = 625 steps, 10 or 11 a frame, never slowed. */
static void test_fixed_frames_take_what_they_owe(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, true);
    double now = 0.0;
    uint32_t total = 0, biggest = 0;
    for (int f = 0; f < 60; f++) {
        uint32_t n = frame(&c, 1.0 / 60.0, 0.010, 16, &now, &biggest);
        assert_true(n == 10 || n == 11);
        assert_true(c.accumulator < DT && c.accumulator > -1e-9);
        assert_false(c.slowed);
        total += n;
    }
    /* 625 steps, or one fewer where the last frame's float sum falls a hair short of it */
    assert_true(total == 625 || total == 624);
    assert_true(biggest <= 16);
}

/* A frame longer than RB_MAX_FRAME_DT takes no more than that frame's steps. */
static void test_longest_frame_is_capped(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, true);
    double now = 0.0;
    uint32_t n = frame(&c, 0.5, 0.0, 16, &now, NULL);
    assert_int_equal(n, (uint32_t)ceil(RB_MAX_FRAME_DT / DT));
    /* What could not be simulated is given up, not owed. */
    assert_true(c.accumulator < DT);
}

/* On the wall clock, steps of 5 ms (a machine 3x slower than real time)
 * fill the 30 ms budget and the rest is given up: the time owed does not
 * grow frame after frame (no spiral of death), and the clock says so. */
static void test_slow_steps_slow_down_instead_of_spiralling(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, false);
    double now = 0.0;
    for (int f = 0; f < 100; f++) {
        uint32_t n = frame(&c, 1.0 / 60.0, 0.005, 16, &now, NULL);
        assert_true(n >= 1);
        /* the first frame knows no cost yet; later ones fit the budget, overshooting by one chunk at most */
        if (f > 0) assert_true(n <= (uint32_t)(RB_SIM_BUDGET / 0.005) + 1);
        assert_true(c.accumulator < DT);
    }
    assert_true(c.slowed);
    assert_true(c.sim_rate < 0.95 && c.sim_rate > 0.1);
}

/* Cheap steps keep up with real time: 2 s of frames take 2 s of steps. */
static void test_fast_steps_keep_real_time(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, false);
    double now = 0.0;
    uint32_t total = 0;
    for (int f = 0; f < 120; f++) total += frame(&c, 1.0 / 60.0, 1e-5, 16, &now, NULL);
    assert_true(total >= 1249 && total <= 1250);
    assert_false(c.slowed);
    /* 10 or 11 steps a frame are 0.96 or 1 (capped) of real time; smoothed, over 0.95 */
    assert_true(c.sim_rate > 0.95);
}

/* The budget follows the drawing: steps of 1 ms get 30 ms of a frame that
 * owes many while drawing is quick, what a 30 fps frame leaves beside 25 ms
 * of drawing (a software renderer), never less than the floor beside 80 ms
 * of it, and the whole budget again once drawing is quick again. */
static void test_budget_gives_simulation_what_drawing_leaves(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, false);
    double now = 0.0;
    /* 1 ms a step, in chunks of up to 16 sized to what is left of the budget */
    const double cost = 0.001;
    assert_true(fabs(rb_step_clock_budget(&c) - RB_SIM_BUDGET) < 1e-12);
    /* ...so with 0.1 s of frames owed (a frame after a stall), the budget is what stops the steps */
    uint32_t quick = frame(&c, RB_MAX_FRAME_DT, cost, 16, &now, NULL);
    assert_true(quick >= 28 && quick <= 34);
    for (int f = 0; f < 30; f++) rb_step_clock_drawn(&c, 0.025);
    const double left = RB_FRAME_TARGET - 0.025; /* 8.3 ms */
    assert_true(fabs(rb_step_clock_budget(&c) - left) < 1e-4);
    uint32_t beside_drawing = frame(&c, RB_MAX_FRAME_DT, cost, 16, &now, NULL);
    assert_true(beside_drawing >= 8 && beside_drawing <= 10);
    assert_true(c.slowed);
    for (int f = 0; f < 30; f++) rb_step_clock_drawn(&c, 0.080);
    assert_true(fabs(rb_step_clock_budget(&c) - RB_SIM_BUDGET_MIN) < 1e-12);
    uint32_t at_floor = frame(&c, RB_MAX_FRAME_DT, cost, 16, &now, NULL);
    assert_true(at_floor >= 8 && at_floor <= 10);
    /* a stall counts as the longest frame, no longer: it does not hold the budget down for long */
    rb_step_clock_drawn(&c, 5.0);
    assert_true(c.drawn <= RB_MAX_FRAME_DT);
    for (int f = 0; f < 40; f++) rb_step_clock_drawn(&c, 0.001);
    assert_true(fabs(rb_step_clock_budget(&c) - RB_SIM_BUDGET) < 1e-12);
    const uint32_t again = frame(&c, RB_MAX_FRAME_DT, cost, 16, &now, NULL);
    assert_true(again >= 28 && again <= 34);
    /* a fixed clock (scripts, --frames) has no budget: drawing never takes its steps */
    rb_step_clock fixed;
    rb_step_clock_init(&fixed, DT, true);
    for (int f = 0; f < 30; f++) rb_step_clock_drawn(&fixed, 0.080);
    uint32_t n = frame(&fixed, 1.0 / 60.0, 0.005, 16, &now, NULL);
    assert_true(n == 10 || n == 11);
}

/* Paused: nothing is owed, and N counts the one step taken by hand. */
static void test_pause(void **state) {
    rb_step_clock c;
    rb_step_clock_init(&c, DT, true);
    double now = 0.0;
    rb_step_clock_begin(&c, 0.001, now); /* less than a step: owed */
    rb_step_clock_end(&c, 0.001);
    assert_true(c.accumulator > 0.0);
    rb_step_clock_pause(&c, false);
    assert_true(c.accumulator == 0.0);
    assert_int_equal(c.frame_steps, 0);
    rb_step_clock_pause(&c, true);
    assert_int_equal(c.frame_steps, 1);
}

/* The time scale: a second of clock owes scale seconds of steps, taken
 * whole (nothing given up), on the fixed clock and on a wall clock with
 * cheap steps; a step every other frame at 0.05 is not falling behind. */
static void test_time_scale(void **state) {
    static const double scales[] = {0.05, 0.25, 1.0, 2.0};
    for (int fixed = 0; fixed < 2; fixed++)
        for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
            rb_step_clock c;
            rb_step_clock_init(&c, DT, fixed);
            rb_step_clock_set_scale(&c, scales[k]);
            double now = 0.0;
            uint32_t total = 0;
            for (int f = 0; f < 120; f++) {
                total += frame(&c, 1.0 / 60.0, 1e-5, 16, &now, NULL);
                assert_false(c.slowed);
                assert_true(c.accumulator < DT);
            }
            const double expected = 2.0 * scales[k] / DT; /* steps in 2 s of clock */
            assert_true(fabs((double)total - expected) <= 1.0);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_frames_take_what_they_owe),
        cmocka_unit_test(test_longest_frame_is_capped),
        cmocka_unit_test(test_slow_steps_slow_down_instead_of_spiralling),
        cmocka_unit_test(test_fast_steps_keep_real_time),
        cmocka_unit_test(test_budget_gives_simulation_what_drawing_leaves),
        cmocka_unit_test(test_pause),
        cmocka_unit_test(test_time_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
