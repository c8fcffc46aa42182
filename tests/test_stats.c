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

#include <cjson/cJSON.h>

#include "sandbox/frame_stats.h"
#include "sandbox/stats.h"

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

/* --frame-stats: 200 frames; the first 10 (warm-up) take 1 s each and are
 * left out; of the rest, frame k (1..190) takes k ms, draws k / 2, steps
 * k / 4 and takes 10 steps, 11 for every tenth. Mean 95.5 ms; the nearest-
 * rank 95th percentile of 190 frames is the 181st smallest: 181 ms. */
static void test_frame_figures(void **state) {
    rb_frame_stats s = {0};
    for (int k = 0; k < 10; k++)
        rb_frame_stats_add(&s, &(rb_frame_sample){.frame_ms = 1000.0f, .draw_ms = 900.0f, .steps = 50});
    for (int k = 190; k >= 1; k--) /* out of order: the percentile sorts */
        rb_frame_stats_add(&s, &(rb_frame_sample){.frame_ms = (float)k,
                                                  .draw_ms = 0.5f * (float)k,
                                                  .sim_ms = 0.25f * (float)k,
                                                  .cpu_ms = 2.0f * (float)k,
                                                  .steps = k % 10 == 0 ? 11u : 10u});
    assert_int_equal(rb_frame_stats_warmup(&s), 10);
    rb_frame_figure f = rb_frame_stats_figure(&s, RB_FRAME_MS);
    assert_float_equal(f.mean, 95.5, 1e-9);
    assert_float_equal(f.p95, 181.0, 1e-9);
    assert_float_equal(rb_frame_stats_figure(&s, RB_DRAW_MS).p95, 90.5, 1e-9);
    assert_float_equal(rb_frame_stats_figure(&s, RB_SIM_MS).mean, 95.5 / 4.0, 1e-6);
    assert_float_equal(rb_frame_stats_figure(&s, RB_STEPS).mean, 10.1, 1e-9);
    assert_float_equal(rb_frame_stats_figure(&s, RB_STEPS).p95, 11.0, 1e-9);

    const rb_frame_stats_setting setting = {.quality = "low",
                                            .msaa = 0,
                                            .shadows = 512,
                                            .render_scale = 0.5f,
                                            .automatic = true,
                                            .gl_renderer = "llvmpipe \"quoted\"",
                                            .width = 1280,
                                            .height = 720,
                                            .bodies = 300,
                                            .particles = 8100};
    char *text = rb_frame_stats_json(&s, &setting);
    assert_non_null(text);
    assert_null(strchr(text, '\n')); /* one line */
    cJSON *j = cJSON_Parse(text);
    if (!j) fail_msg("not JSON: %s", text);
    assert_int_equal(cJSON_GetObjectItem(j, "frames")->valueint, 190);
    assert_int_equal(cJSON_GetObjectItem(j, "warmup_frames")->valueint, 10);
    assert_float_equal(cJSON_GetObjectItem(j, "fps")->valuedouble, 10.471, 1e-9);
    assert_float_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "frame_ms"), "p95")->valuedouble, 181.0, 1e-9);
    assert_float_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "cpu_ms"), "mean")->valuedouble, 191.0, 1e-9);
    assert_float_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sim_ms"), "mean")->valuedouble, 23.875, 1e-9);
    const cJSON *q = cJSON_GetObjectItem(j, "quality");
    assert_string_equal(cJSON_GetObjectItem(q, "preset")->valuestring, "low");
    assert_int_equal(cJSON_GetObjectItem(q, "shadows")->valueint, 512);
    assert_float_equal(cJSON_GetObjectItem(q, "render_scale")->valuedouble, 0.5, 1e-9);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(q, "automatic")));
    assert_string_equal(cJSON_GetObjectItem(j, "gl_renderer")->valuestring, "llvmpipe \"quoted\"");
    assert_int_equal(cJSON_GetObjectItem(j, "particles")->valueint, 8100);
    cJSON_Delete(j);
    free(text);
    rb_frame_stats_free(&s);

    /* Too few frames for a warm-up, and none at all: no division by zero. */
    rb_frame_stats_add(&s, &(rb_frame_sample){.frame_ms = 20.0f});
    assert_int_equal(rb_frame_stats_warmup(&s), 0);
    assert_float_equal(rb_frame_stats_figure(&s, RB_FRAME_MS).p95, 20.0, 1e-9);
    rb_frame_stats_free(&s);
    f = rb_frame_stats_figure(&s, RB_FRAME_MS);
    assert_true(f.mean == 0.0 && f.p95 == 0.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods_and_means),     cmocka_unit_test(test_a_late_frame_gives_one_line),
        cmocka_unit_test(test_line_has_every_figure), cmocka_unit_test(test_rss_is_measured),
        cmocka_unit_test(test_frame_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
