/* The sandbox's per-period figures (src/app/stats.h, --stats-every) on a
 * made-up wall clock: periods end on time, frame means and maxima cover one
 * period each, a late frame does not make the next lines come in a burst,
 * and the line carries every figure scripts/soak reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Frame times of binary fractions, so the made-up clock adds exactly: 64
 * frames of 1/64 s make the first 1 s period; 30 of 1/32 s and one of 1/16 s
 * the second. */
static void test_periods_and_means(void **state) {
    rb_stats s;
    rb_stats_init(&s, 1.0, 100.0);
    double now = 100.0;
    int lines = 0;
    rb_stats_line l[3];
    for (int f = 0; f < 64; f++) {
        now += 1.0 / 64.0;
        if (rb_stats_frame(&s, 1.0 / 64.0, now)) rb_stats_take(&s, now, &l[lines++]);
        assert_int_equal(lines, f == 63 ? 1 : 0); /* the line comes with the frame that ends the period */
    }
    assert_int_equal(l[0].frames, 64);
    assert_float_equal(l[0].frame_ms, 15.625, 1e-9);
    assert_float_equal(l[0].frame_max_ms, 15.625, 1e-9);
    assert_float_equal(l[0].wall_s, 1.0, 1e-9);
    for (int f = 0; f < 31; f++) {
        double dt = f == 5 ? 1.0 / 16.0 : 1.0 / 32.0;
        now += dt;
        if (rb_stats_frame(&s, dt, now)) rb_stats_take(&s, now, &l[lines++]);
    }
    assert_int_equal(lines, 2);
    /* the second period holds only its own frames */
    assert_int_equal(l[1].frames, 31);
    assert_float_equal(l[1].frame_ms, 1000.0 / 31.0, 1e-9);
    assert_float_equal(l[1].frame_max_ms, 62.5, 1e-9);
    assert_float_equal(l[1].wall_s, 2.0, 1e-9);
}

/* A frame that took 3.5 periods gives one line, and the next period ends on the schedule. */
static void test_a_late_frame_gives_one_line(void **state) {
    rb_stats s;
    rb_stats_init(&s, 1.0, 0.0);
    rb_stats_line l;
    assert_true(rb_stats_frame(&s, 3.5, 3.5));
    rb_stats_take(&s, 3.5, &l);
    assert_int_equal(l.frames, 1);
    assert_false(rb_stats_frame(&s, 0.1, 3.6));
    assert_false(rb_stats_frame(&s, 0.3, 3.9));
    assert_true(rb_stats_frame(&s, 0.1, 4.0));
    rb_stats_take(&s, 4.0, &l);
    assert_int_equal(l.frames, 3);
}

static void test_line_has_every_figure(void **state) {
    rb_stats_line l = {.wall_s = 60.04,
                       .sim_s = 31.5,
                       .frames = 1200,
                       .frame_ms = 50.0,
                       .frame_max_ms = 80.25,
                       .bodies = 321,
                       .particles = 8667,
                       .rss_bytes = 300u << 20,
                       .device_bytes = 5u << 20,
                       .nonfinite = 2};
    char buf[512];
    rb_stats_format(&l, buf, sizeof buf);
    assert_string_equal(buf, "stats wall_s=60.0 sim_s=31.5 frames=1200 frame_ms=50.00 frame_max_ms=80.25 bodies=321 "
                             "particles=8667 rss_kb=307200 device_kb=5120 nonfinite=2");
}

/* This process's resident memory: it grows by at least 3 of the 4 MB the
 * process allocates and touches (a virtual size would not need the touch,
 * and would grow by the 16 MB allocated untouched below too). */
static void test_rss_is_measured(void **state) {
    uint64_t before = rb_stats_rss_bytes();
    size_t n = 4u << 20;
    char *p = malloc(n), *untouched = malloc(4 * n);
    assert_non_null(p);
    assert_non_null(untouched);
    memset(p, 1, n);
    uint64_t after = rb_stats_rss_bytes();
    printf("rss %llu -> %llu bytes\n", (unsigned long long)before, (unsigned long long)after);
    assert_true(after >= before + (3u << 20));
    assert_true(after < before + (12u << 20)); /* the untouched 16 MB are not resident */
    free(p), free(untouched);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods_and_means),
        cmocka_unit_test(test_a_late_frame_gives_one_line),
        cmocka_unit_test(test_line_has_every_figure),
        cmocka_unit_test(test_rss_is_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
