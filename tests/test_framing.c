/* test_framing.c - the camera's framing of a box (src/sandbox/framing.c):
 * each corner of a flat wide box, a tall one and a small one projects
 * inside the view with the margin to spare, from the sandbox's heading and
 * from others, at several window shapes, below a share of the view kept
 * free along its top (the HUD's), and the box is not framed from
 * further than it needs (a corner on the margin's edge); the box the
 * sandbox frames keeps room above for a scene that grows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "sandbox/camera.h"
#include "sandbox/framing.h"

/* Corner i's place in normalized device coordinates (x, y in -1..1 when
 * inside the view) through the camera's own matrices; w > 0: in front. */
static void project_corner(const rb_camera *c, int width, int height, const float lo[3], const float hi[3], int i,
                           float *x, float *y, float *w) {
    float view[16], proj[16], p[4] = {0}, e[4] = {0};
    rb_camera_matrices(c, width, height, view, proj);
    const float q[4] = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2], 1.0f};
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) e[r] += view[k * 4 + r] * q[k];
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) p[r] += proj[k * 4 + r] * e[k];
    *w = p[3], *x = p[0] / p[3], *y = p[1] / p[3];
}

/* Frames lo..hi in a width x height view from yaw, pitch, `top` of the
 * height kept free along the top: every corner in front, inside 1 - margin
 * across and inside the view below the top share with the margin (its
 * middle at -top in device coordinates), and the furthest out on that edge. */
static void check_framed(const float lo[3], const float hi[3], float yaw, float pitch, int width, int height,
                         float margin, float top) {
    rb_camera c;
    rb_camera_init(&c, (const float[3]){0.0f, 0.0f, 50.0f}, (const float[3]){0.0f, 0.0f, 0.0f});
    c.yaw = yaw, c.pitch = pitch;
    rb_framing_fit(&c, lo, hi, (float)width / (float)height, margin, top);
    const float half_x = 1.0f - margin, mid_y = -top, half_y = (1.0f - top) * (1.0f - margin);
    float widest = 0.0f;
    for (int i = 0; i < 8; i++) {
        float x, y, w;
        project_corner(&c, width, height, lo, hi, i, &x, &y, &w);
        assert_true(w > 0.0f);
        assert_true(fabsf(x) <= half_x + 1e-4f);
        assert_true(fabsf(y - mid_y) <= half_y + 1e-4f);
        assert_true(y <= 1.0f - 2.0f * top); /* below the top share */
        widest = fmaxf(widest, fmaxf(fabsf(x) / half_x, fabsf(y - mid_y) / half_y));
    }
    fprintf(stderr, "box %.1fx%.1fx%.1f, %dx%d, yaw %.2f pitch %.2f, top %.2f: the furthest corner at %.4f\n",
            hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], width, height, yaw, pitch, top, widest);
    assert_true(widest > 1.0f - 1e-3f); /* no further than it needs */
}

static const int g_views[][2] = {{960, 540}, {1280, 720}, {1920, 1080}, {800, 600}, {540, 960}};
static const float g_headings[][2] = {{RB_FRAMING_YAW, RB_FRAMING_PITCH}, {0.0f, -0.2f}, {-2.5f, -0.9f}, {1.2f, 0.3f}};

static void check_all(const float lo[3], const float hi[3]) {
    for (size_t v = 0; v < sizeof g_views / sizeof g_views[0]; v++)
        for (size_t h = 0; h < sizeof g_headings / sizeof g_headings[0]; h++)
            for (int t = 0; t < 3; t++)
                check_framed(lo, hi, g_headings[h][0], g_headings[h][1], g_views[v][0], g_views[v][1],
                             RB_FRAMING_MARGIN, 0.1f * (float)t);
}

static void test_flat_wide_scene(void **state) {
    (void)state;
    check_all((const float[3]){-30.0f, 0.0f, -6.0f}, (const float[3]){10.0f, 1.0f, 4.0f});
}

static void test_tall_scene(void **state) {
    (void)state;
    check_all((const float[3]){-1.0f, 0.0f, -1.0f}, (const float[3]){1.5f, 24.0f, 1.0f});
}

static void test_small_box_and_margins(void **state) {
    (void)state;
    const float lo[3] = {2.0f, 1.0f, 3.0f}, hi[3] = {6.0f, 4.0f, 5.0f};
    check_all(lo, hi);
    check_framed(lo, hi, RB_FRAMING_YAW, RB_FRAMING_PITCH, 960, 540, 0.0f, 0.0f);
    check_framed(lo, hi, RB_FRAMING_YAW, RB_FRAMING_PITCH, 960, 540, 0.4f, 0.25f);
    /* a tiny box: never nearer than 1.5 m, and still inside */
    rb_camera c;
    rb_camera_init(&c, (const float[3]){0.0f, 0.0f, 5.0f}, (const float[3]){0.0f, 0.0f, 0.0f});
    const float tlo[3] = {-0.01f, -0.01f, -0.01f}, thi[3] = {0.01f, 0.01f, 0.01f};
    rb_framing_fit(&c, tlo, thi, 16.0f / 9.0f, RB_FRAMING_MARGIN, 0.0f);
    const float d = sqrtf(c.position[0] * c.position[0] + c.position[1] * c.position[1] + c.position[2] * c.position[2]);
    assert_true(fabsf(d - 1.5f) < 1e-4f);
}

/* The sandbox's box: grown to a least size, room above a quarter of its
 * height, a twentieth of its size around; nothing there: the ground's 8 x 3 x 8 m. */
static void test_framing_box(void **state) {
    (void)state;
    float lo[3], hi[3];
    rb_framing_box((const float[3]){-10.0f, 0.0f, -1.5f}, (const float[3]){10.0f, 8.0f, 2.5f}, lo, hi);
    assert_true(fabsf(hi[1] - 10.0f) < 1e-5f && lo[1] == 0.0f);                /* 8 m high: 2 m above */
    assert_true(fabsf(lo[0] + 11.0f) < 1e-5f && fabsf(hi[0] - 11.0f) < 1e-5f); /* 20 m wide: 1 m each side */
    assert_true(fabsf(lo[2] + 1.7f) < 1e-5f && fabsf(hi[2] - 2.7f) < 1e-5f);   /* 4 m deep: 0.2 m */
    rb_framing_box((const float[3]){1.0f, 0.5f, 1.0f}, (const float[3]){1.2f, 0.6f, 1.2f}, lo, hi);
    assert_true(lo[1] == 0.5f && fabsf(hi[1] - 3.0f) < 1e-5f); /* 2 m from its floor, and a quarter above */
    assert_true(fabsf((lo[0] + hi[0]) * 0.5f - 1.1f) < 1e-5f && fabsf(hi[0] - lo[0] - 2.2f) < 1e-4f);
    rb_framing_box((const float[3]){1.0f, 1.0f, 1.0f}, (const float[3]){0.0f, 0.0f, 0.0f}, lo, hi); /* empty */
    assert_true(lo[0] == -4.0f && hi[0] == 4.0f && lo[1] == 0.0f && hi[1] == 3.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_wide_scene),
        cmocka_unit_test(test_tall_scene),
        cmocka_unit_test(test_small_box_and_margins),
        cmocka_unit_test(test_framing_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
