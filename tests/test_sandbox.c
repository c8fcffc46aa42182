/* test_sandbox.c - the sandbox driven as a user drives it: scripted input
 * events go through SDL's queue into the same code the program runs, in an
 * offscreen OpenGL context (SDL_VIDEODRIVER=offscreen). The clock runs at a
 * fixed 1/60 s a frame, so every run is the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/color.h"
#include "base/log.h"
#include "record/cache.h"
#include "sandbox/debug_views.h"
#include "sandbox/framing.h"
#include "sandbox/hud.h"
#include "render/quality.h"
#include "sandbox/sandbox.h"
#include "rb_sandbox_test.h"
#include "sandbox/view.h"
#include "base/rb_math.h"

#include <cglm/cglm.h>
#include <cjson/cJSON.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define W 320
#define H 240

static const char *g_plugin_dirs[2] = {RB_TEST_PLUGIN_DIR, RB_TEST_MESHLESS_DIR};

/* A sandbox with an empty world (the reference backend: quick to start), 320x240. */
static rb_sandbox *make_sandbox_full(int bodies, const char *shader_dir, const char *extra_plugin_dir) {
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.bodies = bodies;
    o.width = W, o.height = H;
    o.vsync = false;
    o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0];
    o.plugin_dirs[1] = extra_plugin_dir ? extra_plugin_dir : g_plugin_dirs[1];
    o.plugin_dir_count = 2;
    o.shader_dir = shader_dir;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, o.shader_dir);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    return sb;
}

static rb_sandbox *make_sandbox_with_shaders(int bodies, const char *shader_dir) {
    return make_sandbox_full(bodies, shader_dir, NULL);
}
static rb_sandbox *make_sandbox(int bodies) { return make_sandbox_full(bodies, NULL, NULL); }

static void look(rb_sandbox *sb, const float eye[3], const float target[3]) {
    rb_camera *c = rb_sandbox_camera(sb);
    float speed = c->speed;
    rb_camera_init(c, eye, target);
    c->speed = speed;
}

/* A cube body (the 3x3x3 plugin shape: 1.2 m a side) at p, at rest. */
static rb_body_id add_cube(rb_sandbox *sb, float x, float y, float z) {
    int shape = rb_sandbox_world_shape(sb, "cube");
    assert_true(shape >= 0);
    rb_body_desc d = {.shape = (uint32_t)shape, .position = {x, y, z}, .orientation = {0, 0, 0, 1}};
    rb_body_id id = rb_world_add_body(rb_sandbox_world(sb), &d);
    assert_true(id.generation != 0);
    return id;
}

/* Where a world point lands in the window (pixels from the top left). */
static void project(rb_sandbox *sb, const float p[3], float *x, float *y) {
    float view[16], proj[16];
    rb_camera_matrices(rb_sandbox_camera(sb), W, H, view, proj);
    mat4 vp;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv(vp, in, o);
    *x = (o[0] / o[3] * 0.5f + 0.5f) * W;
    *y = (0.5f - o[1] / o[3] * 0.5f) * H;
}

static rb_body_state body(rb_sandbox *sb, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(rb_sandbox_world(sb), id, &s));
    return s;
}

/* Cosine between two colours: the hue and saturation match, whatever the lighting. */
static double colour_match(const uint8_t *px, const float rgb[3]) {
    double a = 0, b = 0, ab = 0;
    for (int k = 0; k < 3; k++) {
        double p = px[k] / 255.0, q = rgb[k];
        a += p * p, b += q * q, ab += p * q;
    }
    return ab / sqrt(a * b + 1e-12);
}

static bool is_grey(const uint8_t *p) { return abs(p[0] - p[1]) < 30 && abs(p[1] - p[2]) < 30 && p[0] > 40; }

static const uint8_t *pixel_at(const uint8_t *img, float x, float y) {
    int ix = (int)x, iy = (int)y;
    assert_true(ix >= 0 && ix < W && iy >= 0 && iy < H);
    return &img[(iy * W + ix) * 4];
}

/* A cube resting on the ground in front of the camera, the world paused. */
static rb_body_id known_scene(rb_sandbox *sb) {
    rb_body_id id = add_cube(sb, 0.0f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 2.5f, 6.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    assert_true(stats(sb).paused);
    return id;
}

static int pixel_diff(const uint8_t *a, const uint8_t *b);

/* F1's help: drawn at 2, 1.5 or 1 times the font's pixels, never less (at
 * 0.83 its pixel columns dropped out and "Rubble" read "Pubble"), all of
 * it where the window holds it and a last line saying how much did not
 * fit where it does not; and alone, the HUD's lines (which showed through
 * its backdrop) not drawn under it. */
static void test_help_is_readable_and_alone(void **state) {
    (void)state;
    const int sizes[][2] = {{1920, 1080}, {1280, 720}, {960, 540}, {640, 360}};
    for (int replay = 0; replay < 2; replay++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            const rb_hud_help_fit f = rb_hud_help_layout(sizes[k][0], sizes[k][1], replay);
            fprintf(stderr, "help of %s in %dx%d: scale %g, %d of %d lines\n", replay ? "a replay" : "a live run",
                    sizes[k][0], sizes[k][1], f.scale, f.shown, f.lines);
            assert_true(f.scale == 1.0f || f.scale == 1.5f || f.scale == 2.0f);
            assert_true(f.scale * (f.key_w + 16.0f + f.what_w) < (float)sizes[k][0]);
            if (sizes[k][1] >= 720) assert_int_equal(f.shown, f.lines);
            assert_true(f.shown >= 20 && f.shown <= f.lines);
        }
    assert_true(rb_hud_help_layout(1280, 720, false).scale == 1.5f);
    /* no row given up for "... more" where all the lines fit */
    for (int h = 400; h <= 1100; h++) {
        const rb_hud_help_fit f = rb_hud_help_layout(1280, h, false);
        const float room = (float)h - 20.0f * rb_hud_scale(1280) - 4.0f;
        if (f.scale * ((float)(f.lines + 2) * 11.0f + 10.0f) <= room && f.shown != f.lines)
            fail_msg("%d pixels tall: %d of %d lines shown at scale %g, where all fit", h, f.shown, f.lines, f.scale);
    }
    assert_true(rb_hud_help_layout(640, 360, false).shown < rb_hud_help_layout(640, 360, false).lines);

    /* and the HUD's lines are cut to the window with "...", the first
     * beside the "F1 help" hint (in a 321-pixel window "F9: next" ran
     * into the hint, and the device's line off the edge) */
    char cut[128];
    const char *text = "100 bodies  2700 particles   opencl on pthread-skylake-avx512-AMD EPYC (Portable)";
    assert_ptr_equal(rb_hud_fit("F9: next", 1.0f, 300.0f, cut, sizeof cut), "F9: next");
    const char *fitted = rb_hud_fit(text, 1.0f, 200.0f, cut, sizeof cut);
    float fw, fh;
    rb_renderer_text_size(fitted, 1.0f, &fw, &fh);
    fprintf(stderr, "fitted to 200 px: '%s' (%.0f px)\n", fitted, fw);
    assert_true(fw <= 200.0f && fw > 150.0f);
    const size_t kept = strlen(fitted) - 3;
    assert_string_equal(fitted + kept, "...");
    assert_memory_equal(fitted, text, kept);

    /* long messages break after a word, and the last line allowed ends with "..." */
    const char *said = "error: the quick brown fox jumps over the lazy dog and keeps running far away";
    const size_t taken = rb_hud_piece(said, "", 1.0f, 180.0f, false, cut, sizeof cut);
    fprintf(stderr, "a line of 180 px: '%s'\n", cut);
    assert_true(taken > 10 && said[taken - 1] == ' ');
    rb_renderer_text_size(cut, 1.0f, &fw, &fh);
    assert_true(fw <= 180.0f);
    const size_t rest = rb_hud_piece(said + taken, "  ", 1.0f, 180.0f, true, cut, sizeof cut);
    fprintf(stderr, "the last line: '%s'\n", cut);
    assert_true(taken + rest < strlen(said));
    assert_string_equal(cut + strlen(cut) - 3, "...");

    rb_sandbox *sb = make_sandbox(0);
    known_scene(sb);
    script(sb, "0 key F1\n");
    run_frames(sb, 2);
    int w, h;
    uint8_t *help, *bare;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &help));
    script(sb, "0 key F1\n0 key H\n"); /* no help, no HUD */
    run_frames(sb, 2);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &bare));
    rb_sandbox_destroy(sb);
    /* the HUD's first line, left of the "F1 help" hint and above the help's box */
    int differ = 0;
    for (int y = 0; y < 18; y++)
        for (int x = 0; x < W - 70; x++) differ += pixel_diff(&help[(y * W + x) * 4], &bare[(y * W + x) * 4]) > 8;
    fprintf(stderr, "%d pixels of the HUD's first line differ from the bare frame under the help\n", differ);
    assert_int_equal(differ, 0);
    free(help), free(bare);
}

static void test_known_scene_has_body_colour_and_ground(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id id = known_scene(sb);
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    float colour[4], x, y;
    rb_view_body_color(id, colour);
    /* The top face and the front face of the cube. */
    project(sb, (float[3]){0.0f, 1.2f, 0.0f}, &x, &y);
    const uint8_t *top = pixel_at(img, x, y + 3);
    project(sb, (float[3]){0.0f, 0.6f, 0.6f}, &x, &y);
    const uint8_t *front = pixel_at(img, x, y);
    fprintf(stderr, "body colour %.2f %.2f %.2f; top %d %d %d; front %d %d %d\n", colour[0], colour[1], colour[2],
            top[0], top[1], top[2], front[0], front[1], front[2]);
    assert_true(colour_match(top, colour) > 0.97);
    assert_true(colour_match(front, colour) > 0.97);
    /* The ground around it (away from its shadow, which falls toward +x, -z) is grey. */
    static const float ground[][3] = {
        {-2.5f, 0.0f, 2.0f}, {2.5f, 0.0f, 2.5f}, {-3.0f, 0.0f, -1.0f}, {0.0f, 0.0f, 3.0f}};
    for (size_t i = 0; i < sizeof ground / sizeof *ground; i++) {
        project(sb, ground[i], &x, &y);
        const uint8_t *g = pixel_at(img, x, y);
        if (!is_grey(g)) fprintf(stderr, "ground at %zu: %d %d %d\n", i, g[0], g[1], g[2]);
        assert_true(is_grey(g));
    }
    free(img);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

static void test_particle_view_differs_from_mesh_view(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id id = known_scene(sb);
    int w, h;
    uint8_t *mesh, *spheres;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &mesh));
    /* The cube went to its mesh's instances, not to the spheres. */
    assert_int_equal(stats(sb).drawn_instances, 1);
    assert_int_equal(stats(sb).drawn_particle_bodies, 0);
    script(sb, "0 key P\n");
    run_frames(sb, 1);
    assert_true(stats(sb).particle_view);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &spheres));
    assert_int_equal(stats(sb).drawn_instances, 0);
    assert_int_equal(stats(sb).drawn_particle_bodies, 1);
    int differ = 0;
    for (int i = 0; i < W * H; i++)
        if (abs(mesh[i * 4] - spheres[i * 4]) + abs(mesh[i * 4 + 1] - spheres[i * 4 + 1]) +
                abs(mesh[i * 4 + 2] - spheres[i * 4 + 2]) >
            60)
            differ++;
    fprintf(stderr, "%d of %d pixels differ\n", differ, W * H);
    assert_true(differ > 300);
    /* A particle's centre column still shows the body's colour. */
    float colour[4], x, y;
    rb_view_body_color(id, colour);
    project(sb, (float[3]){0.0f, 1.0f, 0.4f}, &x, &y);
    assert_true(colour_match(pixel_at(spheres, x, y), colour) > 0.97);
    free(mesh), free(spheres);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* A shape whose plugin gives no mesh is drawn as its particles in the mesh view. */
static void test_shape_without_mesh_is_drawn_as_particles(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    int shape = rb_sandbox_world_shape(sb, "meshless_slab");
    assert_true(shape >= 0);
    rb_body_desc d = {.shape = (uint32_t)shape, .position = {0.0f, 0.2f, 0.0f}, .orientation = {0, 0, 0, 1}};
    rb_body_id id = rb_world_add_body(rb_sandbox_world(sb), &d);
    assert_true(id.generation != 0);
    look(sb, (float[3]){0.0f, 2.5f, 4.0f}, (float[3]){0.0f, 0.2f, 0.0f});
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    assert_false(stats(sb).particle_view);
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    assert_int_equal(stats(sb).drawn_instances, 0);
    assert_int_equal(stats(sb).drawn_particle_bodies, 1);
    float colour[4], x, y;
    rb_view_body_color(id, colour);
    rb_body_state b = body(sb, id);
    /* The top of the middle particle, and of a corner one (particles 0.4 m apart). */
    project(sb, (float[3]){b.position[0], b.position[1] + 0.15f, b.position[2]}, &x, &y);
    assert_true(colour_match(pixel_at(img, x, y), colour) > 0.97);
    project(sb, (float[3]){b.position[0] + 0.4f, b.position[1] + 0.15f, b.position[2] + 0.4f}, &x, &y);
    assert_true(colour_match(pixel_at(img, x, y), colour) > 0.97);
    free(img);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

static void test_scripted_throw_moves_along_the_view(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    look(sb, (float[3]){0.0f, 3.0f, 10.0f}, (float[3]){0.0f, 2.0f, 0.0f});
    float f[3], r[3], u[3];
    rb_camera_basis(rb_sandbox_camera(sb), f, r, u);
    /* The cursor in the middle of the window: the throw goes along the view. Held 0.3 s. */
    script(sb, "0.05 move 160 120\n0.1 button down left\n0.4 button up left\n");
    while (stats(sb).time < 0.39) {
        run_frames(sb, 1);
        assert_int_equal(stats(sb).bodies, 0);
    }
    run_frames(sb, 1);
    rb_sandbox_stats s = stats(sb);
    assert_int_equal(s.bodies, 1);
    assert_true(s.last_thrown.generation != 0);
    rb_body_state b = body(sb, s.last_thrown);
    float speed = sqrtf(rb_v3_dot(b.velocity, b.velocity));
    float along = rb_v3_dot(b.velocity, f) / speed;
    fprintf(stderr, "thrown at %.2f m/s, cos to the view %.4f\n", speed, along);
    assert_true(along > 0.99f);
    /* held 0.3 s (18 frames of 1/60 s): 8 + 32 (0.3 / 1.5) = 14.4 m/s, not a tap's 8 nor
     * the full 40; a frame of gravity and the frame's rounding move it by under 0.4 */
    assert_true(fabsf(speed - rb_throw_speed(0.3)) < 0.4f);
    /* In front of the eye, and moving away from it. */
    float rel[3] = {b.position[0] - 0.0f, b.position[1] - 3.0f, b.position[2] - 10.0f};
    assert_true(rb_v3_dot(rel, f) > 0.5f);
    run_frames(sb, 10);
    rb_body_state later = body(sb, s.last_thrown);
    float moved[3] = {later.position[0] - b.position[0], later.position[1] - b.position[1],
                      later.position[2] - b.position[2]};
    assert_true(rb_v3_dot(moved, f) > 1.0f);
    rb_sandbox_destroy(sb);
}

static void test_scripted_grab_drags_toward_the_cursor(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id id = add_cube(sb, 0.0f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    float x, y, tx, ty;
    project(sb, (float[3]){0.0f, 0.9f, 0.6f}, &x, &y);   /* a point on the cube's front face */
    project(sb, (float[3]){2.5f, 2.0f, 0.6f}, &tx, &ty); /* up and to the right */
    char text[512];
    snprintf(text, sizeof text,
             "0.1 key G\n0.1 move %.0f %.0f\n0.2 button down left\n"
             "+0.1 move %.0f %.0f\n+0.1 move %.0f %.0f\n+0.1 move %.0f %.0f\n"
             "3.0 button up left\n",
             x, y, x + (tx - x) / 3, y + (ty - y) / 3, x + 2 * (tx - x) / 3, y + 2 * (ty - y) / 3, tx, ty);
    script(sb, text);
    while (stats(sb).time < 0.25) run_frames(sb, 1);
    rb_sandbox_stats s = stats(sb);
    assert_int_equal(s.tool, RB_TOOL_GRAB);
    assert_true(s.grabbing);
    assert_int_equal(s.grabbed.slot, id.slot);
    rb_body_state start = body(sb, id);
    while (stats(sb).time < 0.55) run_frames(sb, 1);
    s = stats(sb);
    float target[3];
    memcpy(target, s.grab_target, sizeof target);
    float d0[3] = {target[0] - start.position[0], target[1] - start.position[1], target[2] - start.position[2]};
    while (stats(sb).time < 2.5) run_frames(sb, 1);
    rb_body_state end = body(sb, id);
    float d1[3] = {target[0] - end.position[0], target[1] - end.position[1], target[2] - end.position[2]};
    fprintf(stderr, "target %.2f %.2f %.2f; body from %.2f %.2f %.2f to %.2f %.2f %.2f\n", target[0], target[1],
            target[2], start.position[0], start.position[1], start.position[2], end.position[0], end.position[1],
            end.position[2]);
    /* The body is pulled most of the way to the cursor's point (its anchor is on its face, not its centre). */
    assert_true(sqrtf(rb_v3_dot(d1, d1)) < 0.4f * sqrtf(rb_v3_dot(d0, d0)));
    assert_true(end.position[0] > start.position[0] + 1.5f);
    assert_true(end.position[1] > start.position[1] + 0.5f); /* it hangs below the anchor */
    assert_true(stats(sb).grabbing);
    while (stats(sb).time < 3.1) run_frames(sb, 1);
    assert_false(stats(sb).grabbing);
    rb_sandbox_destroy(sb);
}

static void test_scripted_delete_removes_the_body(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id keep = add_cube(sb, -3.0f, 0.6f, 0.0f);
    rb_body_id gone = add_cube(sb, 0.0f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, 0.6f, 0.6f}, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0.1 key X\n0.2 click left %.0f %.0f\n", x, y);
    script(sb, text);
    while (stats(sb).time < 0.3) run_frames(sb, 1);
    rb_sandbox_stats s = stats(sb);
    assert_int_equal(s.tool, RB_TOOL_DELETE);
    assert_int_equal(s.bodies, 1);
    assert_int_equal(s.last_deleted.slot, gone.slot);
    assert_false(rb_world_body_valid(rb_sandbox_world(sb), gone));
    assert_true(rb_world_body_valid(rb_sandbox_world(sb), keep));
    /* A click on empty ground deletes nothing. */
    script(sb, "0 click left 5 235\n");
    run_frames(sb, 2);
    assert_int_equal(stats(sb).bodies, 1);
    rb_sandbox_destroy(sb);
}

/* Pixels in the blast's orange (the dots of its extent). */
static int orange_pixels(const uint8_t *img) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &img[i * 4];
        if (p[0] > 230 && p[1] > 110 && p[1] < 170 && p[2] < 90) n++;
    }
    return n;
}

/* --blast sets the explode tool's field: a cube whose centre is d from the
 * blast's gets J (1 - d / R) of momentum, straight out from it (up 0). */
static void test_blast_settings(void **state) {
    (void)state;
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    char err[4096];
    char *argv[] = {"rubble", "--blast", "8,48000,0", NULL};
    assert_true(rb_options_parse(&o, RB_PROGRAM_RUBBLE, 3, argv, err, sizeof err));
    o.bodies = 0, o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dirs[1] = g_plugin_dirs[1], o.plugin_dir_count = 2;
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    rb_body_id a = add_cube(sb, 1.5f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 4.0f, 8.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, 0.0f, 0.0f}, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0.1 key B\n0.2 click left %.0f %.0f\n", x, y);
    script(sb, text);
    while (stats(sb).time < 0.22) run_frames(sb, 1);
    const rb_body_state s = body(sb, a);
    /* where the click met the ground: a little off (0, 0, 0) by the pixel's rounding */
    const float d = sqrtf(1.5f * 1.5f + 0.6f * 0.6f), expect = 48000.0f * (1.0f - d / 8.0f);
    const float got =
        s.mass * sqrtf(s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2]);
    fprintf(stderr, "blast of --blast 8,48000,0: momentum %.0f N s, expected %.0f\n", got, expect);
    assert_true(fabsf(got - expect) < 0.05f * expect);
    rb_sandbox_destroy(sb);
}

/* B is a blast: a radial impulse through the debris layer, made for a world
 * without debris effects. */
static void test_scripted_explosion_pushes_bodies_away(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id a = add_cube(sb, -1.5f, 0.6f, 0.0f), b = add_cube(sb, 1.5f, 0.6f, 0.0f);
    rb_body_id far = add_cube(sb, 12.0f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 4.0f, 8.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, 0.0f, 0.0f}, &x, &y); /* the ground between a and b */
    char text[256];
    snprintf(text, sizeof text, "0.1 key B\n0.2 click left %.0f %.0f\n", x, y);
    script(sb, text);
    while (stats(sb).time < 0.22) run_frames(sb, 1);
    assert_int_equal(stats(sb).tool, RB_TOOL_EXPLODE);
    assert_int_equal(stats(sb).last_exploded, 2);
    assert_true(body(sb, a).velocity[0] < -2.0f);
    assert_true(body(sb, b).velocity[0] > 2.0f);
    assert_true(body(sb, a).velocity[1] > 1.0f);
    assert_true(fabsf(body(sb, far).velocity[0]) < 0.01f);
    /* the blast's extent is drawn while it acts (a quarter second), in its orange */
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int ring = orange_pixels(img);
    free(img);
    while (stats(sb).time < 0.6) run_frames(sb, 1);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int after = orange_pixels(img);
    free(img);
    fprintf(stderr, "blast extent: %d orange pixels while it acts, %d after\n", ring, after);
    assert_true(ring > 100);
    assert_int_equal(after, 0);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* F over the ground places an emitter of the selected shape (the cube, at
 * half size) that spawns 20 bodies a second. Its bodies live 5 s, so none
 * goes before 3 s: the world's count is what it spawned. The debris clock
 * ticks every 10 steps (1/62.5 s), each tick owing 0.32 bodies, the
 * fraction carried: a second owes 20, less one at most for the tick's
 * phase; a spawn put off because the disc had no point clear of the last
 * bodies comes a tick later, so a count may lag by one more. M on the same
 * spot removes it; its bodies stay. */
static void test_scripted_emitter_spawns_at_its_rate(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    look(sb, (float[3]){0.0f, 5.0f, 14.0f}, (float[3]){0.0f, 1.0f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, 0.0f, 0.0f}, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0.1 move %.0f %.0f\n0.1 key M\n", x, y);
    script(sb, text);
    while (stats(sb).emitters == 0 && stats(sb).time < 0.3) run_frames(sb, 1);
    rb_sandbox_stats s = stats(sb);
    fprintf(stderr, "after M: \"%s\"\n", s.message);
    assert_int_equal(s.emitters, 1);
    assert_non_null(strstr(s.message, "emitter: cube"));
    /* the frame that placed it stepped after placing it: its time counts */
    const double t0 = s.time - 1.0 / 60.0;
    int counts[3];
    const double at[3] = {1.0, 2.0, 3.0};
    for (int k = 0; k < 3; k++) {
        while (stats(sb).time - t0 < at[k] - 1e-9) run_frames(sb, 1);
        counts[k] = (int)stats(sb).bodies;
    }
    fprintf(stderr, "emitted bodies after 1, 2, 3 s: %d %d %d (20 a second asked)\n", counts[0], counts[1], counts[2]);
    assert_in_range(counts[0], 18, 20);
    assert_in_range(counts[1], 38, 40);
    assert_in_range(counts[2], 58, 60);
    /* none started in the ground */
    for (uint32_t b = 0; b < stats(sb).bodies; b++) {
        rb_body_state st;
        assert_true(rb_world_get_body(rb_sandbox_world(sb), b, &st));
        assert_true(st.position[1] > 0.0f);
    }
    /* M on the same spot again: the emitter goes, its bodies stay */
    script(sb, "0 key M\n");
    run_frames(sb, 1);
    assert_int_equal(stats(sb).emitters, 0);
    assert_non_null(strstr(stats(sb).message, "emitter removed"));
    const uint32_t left = stats(sb).bodies;
    assert_true(left >= (uint32_t)counts[2]);
    run_frames(sb, 30);
    assert_int_equal(stats(sb).bodies, left);
    /* Shift+M with none left: said, nothing else */
    script(sb, "0 key down Left Shift\n0 key M\n0 key up Left Shift\n");
    run_frames(sb, 1);
    assert_non_null(strstr(stats(sb).message, "no emitter to remove"));
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* J blows along the camera's horizontal view for 3 s: a 0.8 m cube (512
 * kg) resting on the ground, the camera looking along -x, slides along -x
 * (40 N/(m/s)^2/m^2 on its 0.5 m^2 at 15 m/s: 4.5 kN against 2.5 kN of
 * friction) and not across it; a body of the debris layer made for it. */
static void test_scripted_wind_blows_along_the_view(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    const int shape = rb_sandbox_world_shape(sb, "cube2");
    assert_true(shape >= 0);
    const rb_body_id id = rb_world_add_body(
        rb_sandbox_world(sb),
        &(rb_body_desc){.shape = (uint32_t)shape, .position = {0, 0.4f, 0}, .orientation = {0, 0, 0, 1}});
    assert_true(id.generation != 0);
    look(sb, (float[3]){8.0f, 3.0f, 0.0f}, (float[3]){0.0f, 0.4f, 0.0f});
    run_frames(sb, 60); /* it settles */
    const rb_body_state rest = body(sb, id);
    assert_true(fabsf(rest.velocity[0]) < 0.05f);
    script(sb, "0 key J\n");
    run_frames(sb, 1);
    assert_int_equal(stats(sb).fields, 1);
    run_frames(sb, 60);
    const rb_body_state blown = body(sb, id);
    fprintf(stderr, "after 1 s of wind: moved %.2f m along x, %.3f across; v %.2f m/s\n",
            blown.position[0] - rest.position[0], blown.position[2] - rest.position[2], blown.velocity[0]);
    assert_true(blown.position[0] < rest.position[0] - 1.0f);
    assert_true(fabsf(blown.position[2] - rest.position[2]) < 0.1f);
    while (stats(sb).time < 1.0 + 1.0 / 60.0 + 3.05 + 0.1) run_frames(sb, 1);
    assert_int_equal(stats(sb).fields, 0); /* over after 3 s */
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* An emitter with nothing under the cursor, or where it would start under
 * the ground, is refused, said, and the sandbox runs on. The camera under
 * the ground looking at a static cube buried there: the pick meets the
 * cube, and the emitter's disc above it is still in the ground's solid. */
static void test_scripted_emitter_refused_below_the_ground(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    look(sb, (float[3]){0.0f, 2.0f, 8.0f}, (float[3]){0.0f, 6.0f, 0.0f}); /* up at the sky */
    script(sb, "0 move 160 20\n0 key M\n");
    run_frames(sb, 1);
    fprintf(stderr, "on the sky: \"%s\"\n", stats(sb).message);
    assert_non_null(strstr(stats(sb).message, "nothing under the cursor"));
    assert_int_equal(stats(sb).emitters, 0);
    const int shape = rb_sandbox_world_shape(sb, "cube");
    assert_true(shape >= 0);
    rb_body_desc d = {
        .shape = (uint32_t)shape, .kind = RB_BODY_STATIC, .position = {0, -4.0f, 0}, .orientation = {0, 0, 0, 1}};
    assert_true(rb_world_add_body(rb_sandbox_world(sb), &d).generation != 0);
    look(sb, (float[3]){0.0f, -3.0f, 6.0f}, (float[3]){0.0f, -4.0f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, -3.6f, 0.6f}, &x, &y); /* its front face, near the top */
    char text[128];
    snprintf(text, sizeof text, "0 move %.0f %.0f\n0 key M\n", x, y);
    script(sb, text);
    run_frames(sb, 1);
    fprintf(stderr, "under the ground: \"%s\"\n", stats(sb).message);
    assert_non_null(strstr(stats(sb).message, "inside a plane's solid"));
    assert_int_equal(stats(sb).emitters, 0);
    const uint64_t steps = stats(sb).steps;
    run_frames(sb, 30);
    assert_true(stats(sb).steps > steps);
    assert_int_equal(stats(sb).bodies, 1);
    assert_false(stats(sb).quit);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* Pixels within 50 of (x, y) in the colour body id is drawn in (its hue,
 * away from the grey ground; the sky's blue is near some hues, and kept out). */
static int body_pixels(const uint8_t *img, rb_body_id id, float x, float y) {
    float colour[4];
    rb_view_body_color(id, colour);
    int n = 0;
    for (int py = (int)y - 50; py < (int)y + 50; py++)
        for (int px = (int)x - 50; px < (int)x + 50; px++) {
            const uint8_t *p = pixel_at(img, (float)px, (float)py);
            if (!is_grey(p) && colour_match(p, colour) > 0.97) n++;
        }
    return n;
}

/* A scene file of one cube 1 cm above the ground, `extra` added to its body; its path into path. */
static void write_cube_scene(char path[64], const char *extra) {
    snprintf(path, 64, "/tmp/rubble-pieces-XXXXXX.json");
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.61, 0]%s}]}\n", extra);
    fclose(f);
}

/* Pixels that show a body: off the background (an empty world's frame from
 * the same eye) and not grey (the ground, in or out of a shadow). */
static int drawn_pixels(const uint8_t *img, const uint8_t *background) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &img[i * 4], *q = &background[i * 4];
        if (!is_grey(p) && abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 60) n++;
    }
    return n;
}

/* The pieces of a broken body are drawn as meshes of their particles'
 * cells: together they cover about what the whole cube did (drawn as
 * spheres, with gaps between, they would cover less); in the particle view
 * a breakable body's pieces are drawn in colours of their own. */
static void test_broken_pieces_are_drawn_as_meshes(void **state) {
    (void)state;
    char whole[64], breakable[64];
    write_cube_scene(whole, "");
    write_cube_scene(breakable, ", \"breakable\": {\"pattern\": \"layers\", \"pieces\": 3, \"strength\": 1}");
    rb_sandbox *sb = make_sandbox(0);
    const float eye[3] = {0.0f, 2.5f, 6.0f}, at[3] = {0.0f, 0.6f, 0.0f};
    script(sb, "0 key H\n"); /* no HUD */
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 1);
    int w, h;
    uint8_t *background, *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &background));
    char text[256];
    snprintf(text, sizeof text, "0 drop %s\n", whole);
    script(sb, text);
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 30);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int whole_pixels = drawn_pixels(img, background);
    free(img);

    /* the breakable cube before it lands, in the particle view: few of its
     * pixels are in the body's own colour (its first piece's) */
    snprintf(text, sizeof text, "0 drop %s\n0 key P\n", breakable);
    script(sb, text);
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 1);
    assert_true(stats(sb).particle_view);
    assert_int_equal(stats(sb).bodies, 1);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const rb_body_id id = rb_world_body_id(rb_sandbox_world(sb), 0);
    float colour[4];
    rb_view_body_color(id, colour);
    int own = 0, all = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &img[i * 4], *q = &background[i * 4];
        if (is_grey(p) || abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) <= 60) continue;
        all++;
        own += colour_match(p, colour) > 0.97;
    }
    free(img);
    fprintf(stderr, "particle view: %d of %d body pixels in the body's own colour\n", own, all);
    assert_true(all > 500);
    assert_true(own < all * 6 / 10);

    /* its landing breaks it */
    script(sb, "0 key P\n");
    for (int i = 0; i < 120 && stats(sb).bodies < 2; i++) run_frames(sb, 1);
    assert_true(stats(sb).bodies >= 2);
    run_frames(sb, 30);
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    assert_false(stats(sb).particle_view);
    rb_world *world = rb_sandbox_world(sb);
    const rb_entities *entities = rb_sandbox_entities(sb);
    const uint32_t bodies = rb_world_body_count(world);
    for (uint32_t b = 0; b < bodies; b++) {
        const uint32_t shape = rb_world_body_shapes(world)[b];
        assert_int_equal(rb_entities_of_world_shape(entities, shape), -1); /* a piece's, made at the break */
        assert_true(rb_entities_mesh_of_world_shape(entities, shape) >= 0);
    }
    assert_int_equal(stats(sb).drawn_instances, bodies);
    assert_int_equal(stats(sb).drawn_particle_bodies, 0);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int piece_pixels = drawn_pixels(img, background);
    free(img), free(background);
    fprintf(stderr, "body pixels: %d the whole cube, %d its %u pieces\n", whole_pixels, piece_pixels, bodies);
    assert_true(whole_pixels > 1500);
    assert_true(piece_pixels > whole_pixels * 9 / 10 && piece_pixels < whole_pixels * 12 / 10);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    remove(whole), remove(breakable);
}

/* Colours that stay (src/scenes/colors.h): two cubes break on landing, one
 * in colours of its own (blue, its cut faces yellow), one in its default
 * colour (its id's), and a blast turns their pieces over; the pieces are
 * drawn in the colour their cube was, their cut faces (src/scenes/cut.h) in
 * its inside colour: the given one, or the default paler stone of its
 * colour (base/color.h). */
static void test_broken_pieces_keep_their_colours(void **state) {
    (void)state;
    static const float blue[3] = {0.15f, 0.35f, 0.85f}, yellow[3] = {0.95f, 0.8f, 0.1f};
    char path[] = "/tmp/rubble-colours-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(
        f,
        "{\"rubble_scene\": 1, \"bodies\": [\n"
        " {\"shape\": \"cube\", \"position\": [-1.2, 2, 0], \"velocity\": [0, -4, 0], \"color\": [0.15, 0.35, "
        "0.85], \"inside_color\": [0.95, 0.8, 0.1],\n"
        "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 8, \"seed\": 3, \"strength\": 1}},\n"
        " {\"shape\": \"cube\", \"position\": [1.2, 2, 0], \"velocity\": [0, -4, 0],\n"
        "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 8, \"seed\": 4, \"strength\": 1}}],\n"
        " \"fields\": [{\"type\": \"radial\", \"centre\": [0, 0, 0], \"radius\": 3, \"strength\": 600, \"start\": 0.6, "
        "\"up\": 1}]}\n");
    fclose(f);
    rb_sandbox *sb = make_sandbox(0);
    const float eye[3] = {0.0f, 3.0f, 4.5f}, at[3] = {0.0f, 0.3f, 0.0f};
    script(sb, "0 key H\n"); /* no HUD */
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 1);
    int w, h;
    uint8_t *background, *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &background));
    char text[128];
    snprintf(text, sizeof text, "0 drop %s\n", path);
    script(sb, text);
    run_frames(sb, 1);
    look(sb, eye, at);
    assert_int_equal(stats(sb).bodies, 2);
    float other[4], other_inside[3]; /* the second cube's default colours, by its id */
    rb_view_body_color(rb_world_body_id(rb_sandbox_world(sb), 1), other);
    rb_inside_color_of(other, other_inside);
    for (int i = 0; i < 120 && stats(sb).bodies < 16; i++) run_frames(sb, 1);
    assert_int_equal(stats(sb).bodies, 16); /* each in its 8 pieces */
    run_frames(sb, 40);
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    assert_int_equal(stats(sb).drawn_instances, 16);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    /* every pixel of a body: in which colour */
    int all = 0, in_blue = 0, in_yellow = 0, in_other = 0, in_other_inside = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &img[i * 4], *q = &background[i * 4];
        if (abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) <= 60) continue;
        const double m[4] = {colour_match(p, blue), colour_match(p, yellow), colour_match(p, other),
                             colour_match(p, other_inside)};
        int best = 0;
        for (int k = 1; k < 4; k++)
            if (m[k] > m[best]) best = k;
        all++;
        if (m[best] < 0.98) continue; /* an edge, a shadow on the ground */
        in_blue += best == 0, in_yellow += best == 1, in_other += best == 2, in_other_inside += best == 3;
    }
    fprintf(stderr,
            "body pixels %d: the blue cube's colour %d, its inside colour %d; the other's colour %d (%.2f %.2f %.2f), "
            "its inside colour %d\n",
            all, in_blue, in_yellow, in_other, other[0], other[1], other[2], in_other_inside);
    assert_true(in_blue > 1000 && in_other > 1000);        /* the pieces in their cube's colour */
    assert_true(in_yellow > 300 && in_other_inside > 100); /* their cut faces in its inside colour */
    assert_true(in_blue + in_yellow + in_other + in_other_inside > all * 85 / 100);
    free(img), free(background);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    remove(path);
}

/* How many columns have a pixel that shows a body (as drawn_pixels). */
static int drawn_width(const uint8_t *img, const uint8_t *background) {
    int n = 0;
    for (int x = 0; x < W; x++) {
        bool drawn = false;
        for (int y = 0; y < H && !drawn; y++) {
            const uint8_t *p = &img[(y * W + x) * 4], *q = &background[(y * W + x) * 4];
            drawn = !is_grey(p) && abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 60;
        }
        n += drawn;
    }
    return n;
}

/* Shift+P draws a breakable body's pieces pulled apart where it stands
 * (the exploded view): its silhouette grows; Shift+P again puts them back. */
static void test_exploded_view_pulls_the_pieces_apart(void **state) {
    (void)state;
    char breakable[64];
    write_cube_scene(breakable, ", \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 8, \"seed\": 1}");
    rb_sandbox *sb = make_sandbox(0);
    const float eye[3] = {0.0f, 2.5f, 6.0f}, at[3] = {0.0f, 0.6f, 0.0f};
    script(sb, "0 key H\n"); /* no HUD */
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 1);
    int w, h;
    uint8_t *background, *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &background));
    char text[256];
    snprintf(text, sizeof text, "0 drop %s\n0 key Space\n", breakable);
    script(sb, text);
    run_frames(sb, 1);
    look(sb, eye, at);
    run_frames(sb, 2);
    assert_true(stats(sb).paused);
    assert_false(stats(sb).exploded_view);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int whole = drawn_pixels(img, background), whole_width = drawn_width(img, background);
    free(img);
    const char *shift_p = "0 key down Left Shift\n0 key P\n0 key up Left Shift\n";
    script(sb, shift_p);
    run_frames(sb, 2);
    assert_true(stats(sb).exploded_view);
    assert_false(stats(sb).particle_view);
    assert_int_equal(stats(sb).bodies, 1);
    assert_int_equal(stats(sb).drawn_instances, 1); /* one mesh, its pieces apart */
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int apart = drawn_pixels(img, background), apart_width = drawn_width(img, background);
    free(img);
    script(sb, shift_p);
    run_frames(sb, 2);
    assert_false(stats(sb).exploded_view);
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    const int again = drawn_pixels(img, background), again_width = drawn_width(img, background);
    free(img), free(background);
    fprintf(stderr, "exploded view: %d body pixels whole, %d pulled apart, %d put back; %d, %d, %d columns wide\n",
            whole, apart, again, whole_width, apart_width, again_width);
    assert_true(whole > 1500);
    /* the pieces of a 1.2 m cube are pulled out by half their centres'
     * offsets, 0.1 to 0.25 m: wider by 10% at least */
    assert_true(apart_width > whole_width * 11 / 10);
    assert_true(abs(again - whole) <= whole / 100 && again_width == whole_width);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    remove(breakable);
}

/* A body with a lifetime is drawn shrinking over its last half second, then not at all. */
static void test_debris_fades_out_at_the_end_of_its_lifetime(void **state) {
    (void)state;
    char path[] = "/tmp/rubble-fade-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"lifetime\": 1.5}]}\n",
          f);
    fclose(f);
    rb_sandbox *sb = make_sandbox(0);
    look(sb, (float[3]){0.0f, 2.5f, 6.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    char text[256];
    snprintf(text, sizeof text, "0 drop %s\n0 key H\n", path); /* no HUD: its dark panels are near some hues */
    script(sb, text);
    run_frames(sb, 1);
    assert_int_equal(stats(sb).bodies, 1);
    const double t0 = stats(sb).time; /* the scene's clock starts here */
    const rb_body_id id = rb_world_body_id(rb_sandbox_world(sb), 0);
    int counts[3], w, h;
    const double at[3] = {0.6, 1.25, 1.42}; /* full size; a fade of about 0.5; about 0.15 */
    for (int k = 0; k < 3; k++) {
        while (stats(sb).time - t0 < at[k]) run_frames(sb, 1);
        uint8_t *img;
        assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
        float x, y;
        project(sb, (float[3]){0.0f, 0.6f, 0.0f}, &x, &y);
        counts[k] = body_pixels(img, id, x, y);
        free(img);
        assert_int_equal(stats(sb).drawn_instances, 1);
    }
    fprintf(stderr, "body pixels: %d full size, %d half way through the fade, %d near its end\n", counts[0], counts[1],
            counts[2]);
    assert_true(counts[0] > 1000);
    /* drawn at half its size: about a quarter of the pixels */
    assert_true(counts[1] < counts[0] * 2 / 5 && counts[1] > counts[0] / 8);
    assert_true(counts[2] < counts[1] / 2);
    while (stats(sb).time - t0 < 1.6) run_frames(sb, 1);
    assert_int_equal(stats(sb).bodies, 0);
    assert_int_equal(stats(sb).drawn_instances, 0);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    remove(path);
}

static void test_keys_reach_every_control(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(12);
    rb_sandbox_stats s = stats(sb);
    assert_int_equal(s.bodies, 12);
    assert_true(s.shape_count >= 2);
    int shape0 = s.shape;
    script(sb, "0 key 3\n"               /* formation 3 */
               "0.1 key Tab\n"           /* next shape */
               "0.2 key Space\n"         /* pause */
               "0.3 key N\n"             /* one step */
               "0.4 key P\n0.4 key F1\n" /* particle view, help */
               "0.5 key B\n"             /* explode tool */
               "0.6 key L\n"             /* rescan plugins: nothing new */
               "0.7 wheel 2\n"           /* faster flying */
               "0.8 key down W\n1.3 key up W\n");
    float speed0 = rb_sandbox_camera(sb)->speed;
    float z0 = rb_sandbox_camera(sb)->position[2];
    while (stats(sb).time < 0.25) run_frames(sb, 1);
    s = stats(sb);
    assert_int_equal(s.formation, 3);
    assert_int_equal(s.shape, (shape0 + 1) % s.shape_count);
    assert_true(s.paused);
    uint64_t steps = s.steps;
    while (stats(sb).time < 0.45) run_frames(sb, 1);
    s = stats(sb);
    assert_int_equal(s.steps, steps + 1);
    assert_true(s.particle_view);
    assert_true(s.help);
    while (stats(sb).time < 1.5) run_frames(sb, 1);
    s = stats(sb);
    assert_int_equal(s.tool, RB_TOOL_EXPLODE);
    assert_int_equal(s.bodies, 12);
    assert_true(rb_sandbox_camera(sb)->speed > speed0 * 1.5f);
    /* W flew forward (the default camera looks toward -z). */
    assert_true(rb_sandbox_camera(sb)->position[2] < z0 - 1.0f);
    /* Mouse look: with the right button held, motion turns the camera (right and up). */
    float yaw = rb_sandbox_camera(sb)->yaw, pitch = rb_sandbox_camera(sb)->pitch;
    script(sb, "0 button down right\n0 look 100 -50\n0.05 button up right\n0.1 look 300 0\n");
    while (stats(sb).time < 1.7) run_frames(sb, 1);
    assert_true(rb_sandbox_camera(sb)->yaw < yaw - 0.2f);     /* turned right */
    assert_true(rb_sandbox_camera(sb)->pitch > pitch + 0.1f); /* looked up */
    float yaw_after = rb_sandbox_camera(sb)->yaw;
    run_frames(sb, 5); /* motion without the button does not turn */
    assert_true(fabsf(rb_sandbox_camera(sb)->yaw - yaw_after) < 1e-6f);
    /* R resets; F12 saves a screenshot in the current folder; Esc quits. */
    char dir[] = "/tmp/rubble-f12-XXXXXX", cwd[1024];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    script(sb, "0 key R\n0 key F12\n0.1 key Escape\n");
    run_frames(sb, 2);
    assert_int_equal(stats(sb).screenshots, 1);
    bool running = true;
    for (int i = 0; i < 10 && running; i++) running = rb_sandbox_frame(sb);
    assert_false(running);
    assert_true(stats(sb).quit);
    assert_int_equal(chdir(cwd), 0);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

static void copy_dir_files(const char *from, const char *to) {
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cp '%s'/*.glsl '%s'/", from, to);
    assert_int_equal(system(cmd), 0);
}

static void test_f5_with_a_broken_shader_keeps_running(void **state) {
    (void)state;
    char dir[] = "/tmp/rubble-broken-shaders-XXXXXX";
    assert_non_null(mkdtemp(dir));
    copy_dir_files(RB_TEST_SOURCE_SHADERS, dir);
    rb_sandbox *sb = make_sandbox_with_shaders(0, dir); /* --shaders DIR */
    rb_body_id id = known_scene(sb);

    char path[1100];
    snprintf(path, sizeof path, "%s/mesh.frag.glsl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#version 330 core\nout vec4 o_color;\nvoid main() { o_color = not_declared; }\n", f);
    fclose(f);
    script(sb, "0 key F5\n");
    run_frames(sb, 5);
    rb_sandbox_stats s = stats(sb);
    assert_true(s.shader_error);
    assert_false(s.quit);
    /* The old shaders still draw the body in its colour. */
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    float colour[4], x, y;
    rb_view_body_color(id, colour);
    project(sb, (float[3]){0.0f, 0.6f, 0.6f}, &x, &y);
    assert_true(colour_match(pixel_at(img, x, y), colour) > 0.97);
    free(img);
    /* Repaired and reloaded: the error goes away. */
    copy_dir_files(RB_TEST_SOURCE_SHADERS, dir);
    script(sb, "0 key F5\n");
    run_frames(sb, 2);
    assert_false(stats(sb).shader_error);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* --record: a frame of the cache a frame at the fixed 1/60 s clock, frame 0
 * before the first step, each the world's transforms to the bit, and the
 * camera the frames were drawn through. */
static void test_record_takes_a_frame_a_frame(void **state) {
    (void)state;
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.bodies = 20, o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dir_count = 1;
    o.frames = 30; /* the fixed clock, as --frames gives it */
    o.record = RB_TEST_BUILD_DIR "/sandbox-record.rbc";
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    run_frames(sb, 30);
    rb_world *w = rb_sandbox_world(sb);
    const uint32_t n = rb_world_body_count(w);
    rb_transform *last = malloc(sizeof *last * (n + 1));
    assert_true(rb_world_read_transforms(w, last));
    rb_sandbox_destroy(sb);
    rb_cache *c = rb_cache_open(o.record, err, sizeof err);
    if (!c) fail_msg("%s", err);
    assert_false(c->cut_short);
    assert_int_equal(c->frame_count, 31);
    assert_true(c->frames[0].time == 0.0);
    assert_true(fabs(c->frames[30].time - 0.5) < 0.01);
    assert_int_equal(c->frames[30].body_count, n);
    for (uint32_t b = 0; b < n; b++)
        assert_memory_equal(c->frames[30].bodies[b].position, last[b].position, sizeof(float) * 3);
    free(last);
    /* the view each frame was seen through (a `V` record from frame 0 on):
     * the sandbox's lens and window */
    rb_cache_camera cam;
    assert_true(c->camera_count >= 1 && c->cameras[0].frame == 0);
    assert_true(rb_cache_camera_at(c, 30, &cam));
    assert_float_equal(cam.yfov, 60.0 * 3.14159265358979 / 180.0, 1e-6);
    assert_float_equal(cam.aspect, (double)W / H, 1e-6);
    rb_cache_close(c);
}

/* On the wall clock, a simulation slower than real time gives up time instead of
 * falling further behind: each frame's stepping stays near its budget. */
static void test_slow_simulation_slows_down_instead_of_spiralling(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(400); /* 10,800 particles on the reference backend: far slower than real time */
    rb_sandbox_set_fixed_dt(sb, 0.0);
    double worst = 0.0;
    for (int i = 0; i < 8; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        run_frames(sb, 1);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        if (i > 0 && s > worst) worst = s;
    }
    rb_sandbox_stats st = stats(sb);
    fprintf(stderr, "worst frame %.0f ms, %u steps in the last, simulation at %.0f%% of real time\n", worst * 1e3,
            st.frame_steps, 100.0 * st.sim_rate);
    assert_true(st.slowed);
    assert_true(st.sim_rate < 0.95);
    assert_true(st.frame_steps >= 1);
    /* The frame time does not grow without bound (under sanitizers a step is slow; stay generous). */
    assert_true(worst < 2.0);
    rb_sandbox_destroy(sb);
}

/* A plugin dropped into a plugin folder while the sandbox runs: L loads it,
 * its shape joins the Tab cycle and can be thrown. */
static void test_l_loads_a_new_plugin(void **state) {
    (void)state;
    char dir[] = "/tmp/rubble-new-plugin-XXXXXX";
    assert_non_null(mkdtemp(dir));
    rb_sandbox *sb = make_sandbox_full(0, NULL, dir);
    int before = stats(sb).shape_count;
    assert_true(rb_sandbox_world_shape(sb, "meshless_slab") < 0);
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cp '%s/meshless.so' '%s/'", RB_TEST_MESHLESS_DIR, dir);
    assert_int_equal(system(cmd), 0);
    script(sb, "0 key L\n");
    run_frames(sb, 1);
    assert_int_equal(stats(sb).shape_count, before + 1);
    int ws = rb_sandbox_world_shape(sb, "meshless_slab");
    assert_true(ws >= 0);
    /* The new shape is the last in the cycle: [ from the first reaches it. */
    look(sb, (float[3]){0.0f, 3.0f, 10.0f}, (float[3]){0.0f, 2.0f, 0.0f});
    script(sb, "0 key [\n0 click left 160 120\n");
    run_frames(sb, 2);
    rb_sandbox_stats st = stats(sb);
    assert_int_equal(st.shape, before);
    assert_int_equal(st.bodies, 1);
    assert_int_equal(body(sb, st.last_thrown).shape, (uint32_t)ws);
    rb_sandbox_destroy(sb);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Writes json to the file name and drops it on the window (a script
 * line), two frames on. */
static void drop_written(rb_sandbox *sb, const char *name, const char *json) {
    FILE *f = fopen(name, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    char line[700];
    snprintf(line, sizeof line, "0 drop %s\n", name);
    script(sb, line);
    run_frames(sb, 2);
}

/* Ctrl+S saves the world; a broken scene dropped on the window is refused
 * and changes nothing; the saved file dropped on the window (or Ctrl+O)
 * loads exactly the world that was saved. */
static void test_save_drop_and_load_scenes(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(12);
    script(sb, "0 key Space\n"); /* paused: nothing moves between the save and the load */
    run_frames(sb, 30);
    rb_world *w = rb_sandbox_world(sb);
    const uint64_t digest = rb_world_digest(w);
    script(sb, "0 key down Left Ctrl\n0 key S\n0 key up Left Ctrl\n");
    run_frames(sb, 2);
    rb_sandbox_stats st = stats(sb);
    assert_true(strncmp(st.last_saved, "rubble-scene-", 13) == 0);
    char saved[600];
    snprintf(saved, sizeof saved, "%s", st.last_saved);

    /* a broken scene: refused, named, and the world is the one it was */
    const char *bad = "test-sandbox-bad-scene.json";
    drop_written(sb, bad, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1]}]}");
    char text[700];
    assert_ptr_equal(rb_sandbox_world(sb), w);
    assert_true(rb_world_digest(w) == digest);
    assert_non_null(
        strstr(rb_log_last_error(), "test-sandbox-bad-scene.json: bodies[0].position: expected 3 numbers, got 2"));
    assert_false(rb_log_last_was_warning());
    assert_string_equal(stats(sb).scene_file, "");

    /* the saved scene, dropped: the same world, bit for bit */
    snprintf(text, sizeof text, "0 drop %s\n", saved);
    script(sb, text);
    run_frames(sb, 2);
    assert_string_equal(stats(sb).scene_file, saved);
    assert_int_equal(stats(sb).bodies, 12);
    assert_true(rb_world_digest(rb_sandbox_world(sb)) == digest);
    /* and the refusal is off the HUD: "the current scene is kept" no longer is */
    assert_string_equal(rb_log_last_error(), "");
    /* after running on, Ctrl+O loads the last save again */
    script(sb, "0 key Space\n");
    run_frames(sb, 20);
    assert_true(rb_world_digest(rb_sandbox_world(sb)) != digest);
    script(sb, "0 key down Left Ctrl\n0 key O\n0 key up Left Ctrl\n0 key Space\n");
    run_frames(sb, 1);
    assert_true(rb_world_digest(rb_sandbox_world(sb)) == digest);
    /* a scene with a typo'd key loads, and says so as a warning (the HUD
     * shows it as one, not in an error's red) */
    const char *typo = "test-sandbox-typo-scene.json";
    drop_written(sb, typo,
                 "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"colour\": 1}]}");
    assert_string_equal(stats(sb).scene_file, typo);
    assert_non_null(strstr(rb_log_last_error(), "test-sandbox-typo-scene.json: bodies[0].colour: unknown key"));
    assert_true(rb_log_last_was_warning());
    remove(typo);
    assert_int_equal(stats(sb).gl_errors, 0);
    remove(bad), remove(saved);
    rb_sandbox_destroy(sb);
}

/* A mesh dropped on the window becomes a shape (voxelized by the mesh
 * plugin), the one to throw; a throw then adds a body of it. */
static void test_dropped_mesh_becomes_a_shape(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    const int shapes = stats(sb).shape_count;
    assert_true(rb_sandbox_world_shape(sb, "sphere966") < 0);
    script(sb, "0 drop " RB_TEST_DATA_DIR "/sphere966.off\n0.1 move 320 240\n0.2 click left\n");
    run_frames(sb, 20);
    rb_sandbox_stats st = stats(sb);
    assert_int_equal(st.shape_count, shapes + 1);
    assert_true(rb_sandbox_world_shape(sb, "sphere966") >= 0);
    assert_string_equal(rb_entities_get(rb_sandbox_entities(sb), (uint32_t)st.shape)->shape->name, "sphere966");
    rb_body_state b;
    assert_true(rb_world_get_body_by_id(rb_sandbox_world(sb), st.last_thrown, &b));
    assert_int_equal(b.shape, (uint32_t)rb_sandbox_world_shape(sb, "sphere966"));
    /* the same file again: no second shape, and the log says why */
    script(sb, "0 drop " RB_TEST_DATA_DIR "/sphere966.off\n");
    run_frames(sb, 2);
    assert_int_equal(stats(sb).shape_count, shapes + 1);
    assert_non_null(strstr(rb_log_last_error(), "sphere966.off: no new shape"));
    /* a broken mesh: refused, the file dropped named with the plugin's
     * reason (which named the session's link to it), and not read again */
    const char *broken = RB_TEST_BUILD_DIR "/tests/sandbox-broken.off";
    FILE *f = fopen(broken, "w");
    assert_non_null(f);
    fputs("OFF\n8 6 0\n0 0 0\n1 0\n", f); /* cut short */
    fclose(f);
    char text[600];
    snprintf(text, sizeof text, "0 drop %s\n", broken);
    script(sb, text);
    run_frames(sb, 2);
    fprintf(stderr, "said: %s\n", rb_log_last_error());
    assert_int_equal(stats(sb).shape_count, shapes + 1);
    assert_false(rb_log_last_was_warning());
    assert_true(strncmp(rb_log_last_error(), broken, strlen(broken)) == 0);
    assert_non_null(strstr(rb_log_last_error(), "(no shape added)"));
    assert_null(strstr(rb_log_last_error(), "rubble-drops"));
    /* its link left the session's folder, which every drop reads again */
    const char *tmp = getenv("TMPDIR");
    char link[600];
    snprintf(link, sizeof link, "%s/rubble-drops-%ld/sandbox-broken.off", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    struct stat st_link;
    assert_int_not_equal(lstat(link, &st_link), 0);
    snprintf(link, sizeof link, "%s/rubble-drops-%ld/sphere966.off", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    assert_int_equal(lstat(link, &st_link), 0); /* the good one's stays */
    remove(broken);
    rb_sandbox_destroy(sb);
}

/* ---- the drawing quality (render/quality.h) ---- */

/* A sandbox drawn at the quality asked for, as --msaa, --shadows and --render-scale give it. */
static rb_sandbox *make_sandbox_quality(int msaa, int shadows, float scale) {
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.bodies = 0, o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dir_count = 1;
    o.msaa = msaa, o.shadows = shadows, o.render_scale = scale;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    return sb;
}

/* The known scene (a cube on the ground, paused) at a quality, seen from
 * nearer so that the cube and its shadow fill the lower half of the frame,
 * below the HUD (whose figures change from run to run); its frame as RGBA
 * rows from the top, saved beside the tests as quality-NAME.png to look at. */
static const float g_quality_eye[3] = {0.0f, 3.2f, 4.6f}, g_quality_target[3] = {0.6f, 0.0f, -1.8f};

static uint8_t *known_frame(int msaa, int shadows, float scale, const char *name, rb_body_id *id) {
    rb_sandbox *sb = make_sandbox_quality(msaa, shadows, scale);
    *id = known_scene(sb);
    look(sb, g_quality_eye, g_quality_target);
    run_frames(sb, 1);
    rb_sandbox_stats st = stats(sb);
    assert_int_equal(st.quality.msaa, msaa);
    assert_int_equal(st.quality.shadow_size, shadows);
    assert_true(st.quality.scale == scale);
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    /* whatever the scale, the frame is the window's size */
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    char path[600];
    snprintf(path, sizeof path, RB_TEST_BUILD_DIR "/tests/quality-%s.png", name);
    assert_true(rb_sandbox_screenshot(sb, path));
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    return img;
}

static int luminance(const uint8_t *p) { return (p[0] * 3 + p[1] * 6 + p[2]) / 10; }
static int pixel_diff(const uint8_t *a, const uint8_t *b) {
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}
/* Pixels of the two frames' lower halves (below the HUD) differing by more than `by` (summed over r, g, b). */
static int count_differing(const uint8_t *a, const uint8_t *b, int by) {
    int n = 0;
    for (int i = W * H / 2; i < W * H; i++) n += pixel_diff(&a[i * 4], &b[i * 4]) > by;
    return n;
}

/* The same scene at each setting: every frame the window's size with the
 * body's colour where it projects; shadows off takes the shadow off the
 * ground beside the cube; 4x multisampling changes the cube's edge pixels
 * and nothing inside its faces; half the render scale blurs the scene but
 * not the HUD drawn over it. */
static void test_quality_settings_draw_as_they_should(void **state) {
    (void)state;
    rb_body_id id;
    uint8_t *high = known_frame(4, 2048, 1.0f, "msaa4-shadows2048", &id);
    uint8_t *one = known_frame(0, 2048, 1.0f, "msaa0-shadows2048", &id);
    uint8_t *unshadowed = known_frame(0, 0, 1.0f, "msaa0-shadows0", &id);
    uint8_t *small = known_frame(0, 512, 1.0f, "msaa0-shadows512", &id);
    uint8_t *half = known_frame(0, 2048, 0.5f, "msaa0-shadows2048-scale0.5", &id);
    uint8_t *half_msaa = known_frame(4, 1024, 0.75f, "msaa4-shadows1024-scale0.75", &id);

    /* the same camera as known_scene: where things land in every frame */
    rb_sandbox *sb = make_sandbox(0);
    look(sb, g_quality_eye, g_quality_target);
    float colour[4], x, y, sx, sy;
    rb_view_body_color(id, colour);
    project(sb, (float[3]){0.0f, 1.2f, 0.0f}, &x, &y); /* the middle of the top face */
    /* the ground at (1.0, 0, -0.6): in the cube's shadow (the sun is up and to the left, behind) */
    project(sb, (float[3]){1.0f, 0.0f, -0.6f}, &sx, &sy);
    rb_sandbox_destroy(sb);
    const uint8_t *frames[] = {high, one, unshadowed, small, half, half_msaa};
    for (size_t i = 0; i < sizeof frames / sizeof *frames; i++)
        assert_true(colour_match(pixel_at(frames[i], x, y + 3), colour) > 0.97);

    /* Shadows: the ground there is dark with a shadow map of any size, and plain ground without one. */
    const int lit = luminance(pixel_at(unshadowed, sx, sy)), shaded = luminance(pixel_at(one, sx, sy)),
              shaded_512 = luminance(pixel_at(small, sx, sy));
    fprintf(stderr, "ground at the shadow: %d without shadows, %d with 2048, %d with 512\n", lit, shaded, shaded_512);
    assert_true(is_grey(pixel_at(unshadowed, sx, sy)));
    assert_true(shaded < lit * 3 / 4);
    assert_true(shaded_512 < lit * 3 / 4);
    /* and nowhere below the HUD (whose figures change) is the frame without shadows darker */
    int darker = 0;
    for (int i = W * H / 2; i < W * H; i++) darker += luminance(&unshadowed[i * 4]) + 8 < luminance(&one[i * 4]);
    assert_int_equal(darker, 0);

    /* Multisampling: edge pixels change (blended with what is behind), face pixels do not. */
    const int edges = count_differing(high, one, 30);
    fprintf(stderr, "4x multisampling changed %d pixels\n", edges);
    assert_true(edges > 40 && edges < W * H / 20);
    assert_true(pixel_diff(pixel_at(high, x, y + 3), pixel_at(one, x, y + 3)) <= 6);

    /* Half the render scale: the scene is blurred... */
    const int blurred = count_differing(half, one, 30);
    fprintf(stderr, "half the render scale changed %d pixels\n", blurred);
    assert_true(blurred > edges);
    /* ...but the HUD is drawn after the upscale: the "F1 help" hint at the
     * top right is as sharp (its row alone: the line below it, cut with
     * "..." to the window, says "scale 1" in one and "scale 0.5" in the other) */
    int hud_diff = 0;
    for (int py = 0; py < 14; py++)
        for (int px = W - 60; px < W; px++)
            hud_diff = fmax(hud_diff, pixel_diff(&half[(py * W + px) * 4], &one[(py * W + px) * 4]));
    fprintf(stderr, "the HUD's hint differs by at most %d at half scale\n", hud_diff);
    assert_true(hud_diff <= 12);
    free(high), free(one), free(unshadowed), free(small), free(half), free(half_msaa);
}

/* The automatic choice follows the GL renderer (llvmpipe here: low; a GPU:
 * high); F9 goes to the next preset and says so; a script's screenshot is
 * the window's size at a render scale below 1. */
static void test_quality_is_chosen_and_f9_cycles(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_sandbox_stats st = stats(sb);
    fprintf(stderr, "GL renderer: %s\n", st.gl_renderer);
    const rb_quality_preset chosen = rb_quality_auto(st.gl_renderer);
    assert_int_equal(rb_quality_preset_of(&st.quality), chosen);
    if (rb_quality_software_renderer(st.gl_renderer)) {
        assert_int_equal(chosen, RB_QUALITY_LOW);
        assert_true(st.quality.scale < 1.0f); /* the one setting that always costs llvmpipe less */
    }
    for (int k = 1; k <= RB_QUALITY_PRESETS; k++) {
        script(sb, "0 key F9\n");
        run_frames(sb, 1);
        st = stats(sb);
        const rb_quality_preset want = (rb_quality_preset)((chosen + k) % RB_QUALITY_PRESETS);
        rb_render_quality q = rb_quality_preset_get(want);
        if (q.msaa > 0 && st.quality.msaa != q.msaa) q.msaa = st.quality.msaa; /* a driver with fewer samples */
        assert_memory_equal(&st.quality, &q, sizeof q);
        char said[64];
        snprintf(said, sizeof said, "quality: %s (", rb_quality_preset_name(want));
        assert_non_null(strstr(st.message, said));
    }
    rb_sandbox_destroy(sb);

    sb = make_sandbox_quality(4, 512, 0.5f);
    char path[] = RB_TEST_BUILD_DIR "/tests/quality-script-shot.png", text[700];
    remove(path);
    snprintf(text, sizeof text, "0 screenshot %s\n", path);
    script(sb, text);
    run_frames(sb, 2);
    int w = 0, h = 0, n = 0;
    assert_true(stbi_info(path, &w, &h, &n));
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    assert_int_equal(stats(sb).gl_errors, 0);
    /* a scripted screenshot is said in the log, not on the HUD: the next one does not show it */
    assert_null(strstr(stats(sb).message, "saved"));
    rb_sandbox_destroy(sb);
}

/* Runs rubble with args; stdout into out. Returns the exit status. */
static int run_rubble(const char *args, char *out, size_t out_size) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "SDL_VIDEODRIVER=offscreen '%s' %s 2>/dev/null", RB_TEST_RUBBLE, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, out_size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double figure(const cJSON *j, const char *name, const char *which) {
    const cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(j, name), which);
    if (!cJSON_IsNumber(f)) fail_msg("no %s.%s", name, which);
    return f->valuedouble;
}

/* --frame-stats as a user runs it: one JSON object on stdout at exit with
 * the frames' figures, the quality asked for and the GL renderer. */
static void test_frame_stats_json(void **state) {
    (void)state;
    static char out[8192];
    const char *common = "--frames 30 --frame-stats --width 320 --height 240 --bodies 20 --backend reference "
                         "--no-vsync";
    char args[512];
    snprintf(args, sizeof args, "%s --msaa 2 --shadows 1024 --render-scale 0.75", common);
    assert_int_equal(run_rubble(args, out, sizeof out), 0);
    int lines = 0;
    for (const char *c = out; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 1); /* the logs go to stderr */
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON: %s", out);
    assert_int_equal(cJSON_GetObjectItem(j, "frames")->valueint, 27);
    assert_int_equal(cJSON_GetObjectItem(j, "warmup_frames")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(j, "width")->valueint, 320);
    assert_int_equal(cJSON_GetObjectItem(j, "height")->valueint, 240);
    assert_int_equal(cJSON_GetObjectItem(j, "bodies")->valueint, 20);
    const double frame = figure(j, "frame_ms", "mean"), draw = figure(j, "draw_ms", "mean"),
                 sim = figure(j, "sim_ms", "mean");
    fprintf(stderr, "frame %.2f ms (p95 %.2f), draw %.2f, sim %.2f, cpu %.2f\n", frame, figure(j, "frame_ms", "p95"),
            draw, sim, figure(j, "cpu_ms", "mean"));
    assert_true(draw > 0.0 && sim > 0.0 && figure(j, "cpu_ms", "mean") > 0.0);
    assert_true(frame >= draw + sim); /* the frame holds both */
    assert_true(figure(j, "frame_ms", "p95") >= figure(j, "draw_ms", "p95"));
    assert_true(fabs(cJSON_GetObjectItem(j, "fps")->valuedouble * frame / 1000.0 - 1.0) < 1e-3);
    /* the fixed clock of --frames: 1/60 s a frame is 10 or 11 steps of 1.6 ms */
    assert_true(figure(j, "steps_per_frame", "mean") >= 10.0 && figure(j, "steps_per_frame", "mean") <= 11.0);
    assert_int_equal((int)figure(j, "steps_per_frame", "p95"), 11);
    const cJSON *q = cJSON_GetObjectItem(j, "quality");
    assert_string_equal(cJSON_GetObjectItem(q, "preset")->valuestring, "custom");
    assert_int_equal(cJSON_GetObjectItem(q, "msaa")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(q, "shadows")->valueint, 1024);
    assert_true(fabs(cJSON_GetObjectItem(q, "render_scale")->valuedouble - 0.75) < 1e-6);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(q, "automatic")));
    const char *gl = cJSON_GetObjectItem(j, "gl_renderer")->valuestring;
    assert_true(gl && *gl);
    const rb_quality_preset chosen = rb_quality_auto(gl);
    cJSON_Delete(j);

    /* no quality flag: the choice for the renderer, said to be automatic */
    assert_int_equal(run_rubble(common, out, sizeof out), 0);
    j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON: %s", out);
    q = cJSON_GetObjectItem(j, "quality");
    assert_string_equal(cJSON_GetObjectItem(q, "preset")->valuestring, rb_quality_preset_name(chosen));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(q, "automatic")));
    cJSON_Delete(j);
    /* without the flag, nothing on stdout */
    snprintf(args, sizeof args, "--frames 3 --width 320 --height 240 --bodies 20 --backend reference");
    assert_int_equal(run_rubble(args, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void test_bad_script_lines_are_named(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    char err[512];
    assert_false(rb_sandbox_set_script(sb, "0.1 key W\n0.2 jump\n", err, sizeof err));
    assert_non_null(strstr(err, ":2:"));
    assert_false(rb_sandbox_set_script(sb, "# comment\nsoon key W\n", err, sizeof err));
    assert_non_null(strstr(err, ":2:"));
    assert_false(rb_sandbox_set_script(sb, "1 key NoSuchKey\n", err, sizeof err));
    assert_non_null(strstr(err, "NoSuchKey"));
    assert_false(rb_sandbox_set_script(sb, "1 button down thumb\n", err, sizeof err));
    assert_true(rb_sandbox_set_script(sb, "\n# only comments\n  \n", err, sizeof err));
    rb_sandbox_destroy(sb);
}

/* ---- seeing what happens: picking as drawn, the views, the camera ---- */

static bool same_id(rb_body_id a, rb_body_id b) { return a.slot == b.slot && a.generation == b.generation; }

/* Pixels whose colour differs by more than 60 between two frames and that
 * pass want (the colour of what a view draws). */
static int changed(const uint8_t *before, const uint8_t *after, bool (*want)(const uint8_t *)) {
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = &before[i * 4], *q = &after[i * 4];
        if (abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 60 && want(q)) n++;
    }
    return n;
}
static bool any(const uint8_t *p) { return p != NULL; }
static bool yellowish(const uint8_t *p) { return p[0] > 180 && p[1] > 160 && p[2] < 120; }
static bool reddish(const uint8_t *p) { return p[0] > 180 && p[1] < 130 && p[2] < 120; }
static bool greenish(const uint8_t *p) { return p[1] > 150 && p[1] > p[0] + 30 && p[1] > p[2] + 10; }
static bool blueish(const uint8_t *p) { return p[2] > 170 && p[2] > p[0] + 60 && p[2] > p[1] + 20; }
static bool cyanish(const uint8_t *p) { return p[0] < 130 && p[1] > 170 && p[2] > 220; }
static int saturation(const uint8_t *p) {
    const int hi = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
    const int lo = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
    return hi - lo;
}

static uint8_t *frame_pixels(rb_sandbox *sb) {
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    return img;
}

/* Whether a pixel within 2 of (x, y) passes want. */
static bool near(const uint8_t *img, float x, float y, bool (*want)(const uint8_t *)) {
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            const int px = (int)x + dx, py = (int)y + dy;
            if (px >= 0 && px < W && py >= 0 && py < H && want(&img[(py * W + px) * 4])) return true;
        }
    return false;
}

/* The issue's case, in the sandbox: the cursor 4 px inside a drawn corner
 * of a cube is on the cube (highlighted before any click; the grab, then
 * the delete tool take it), where the particles' spheres miss it; 4 px
 * outside the corner it is on nothing. The eye is near, so 4 px is 5 cm. */
static void test_cursor_inside_a_drawn_corner_picks_the_body(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    const rb_body_id id = add_cube(sb, 0.0f, 0.6f, 0.0f);
    /* the corner on the outline, seen from the front and a little right and above */
    look(sb, (float[3]){0.4f, 1.7f, 2.1f}, (float[3]){0.0f, 0.6f, 0.0f});
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    float cx, cy, mx, my;
    project(sb, (float[3]){0.6f, 1.2f, 0.6f}, &cx, &cy); /* the top corner nearest the eye */
    project(sb, (float[3]){0.0f, 0.6f, 0.0f}, &mx, &my);
    const float len = sqrtf((mx - cx) * (mx - cx) + (my - cy) * (my - cy)), ux = (mx - cx) / len, uy = (my - cy) / len;
    const float in_x = cx + 4.0f * ux, in_y = cy + 4.0f * uy, out_x = cx - 4.0f * ux, out_y = cy - 4.0f * uy;
    /* the spheres' pick misses inside the corner: what the mesh pick mends */
    float particles[27 * 3], o[3], d[3];
    assert_true(rb_world_read_particles(rb_sandbox_world(sb), particles));
    rb_camera_ray(rb_sandbox_camera(sb), W, H, roundf(in_x), roundf(in_y), o, d);
    assert_false(rb_pick_ray(rb_sandbox_world(sb), particles, o, d).body_hit);

    char text[256];
    assert_int_equal(stats(sb).hover.generation, 0); /* no cursor over the window yet */
    snprintf(text, sizeof text, "0 move %.0f %.0f\n", out_x, out_y);
    script(sb, text);
    run_frames(sb, 1);
    assert_int_equal(stats(sb).hover.generation, 0);
    uint8_t *off = frame_pixels(sb);
    snprintf(text, sizeof text, "0 move %.0f %.0f\n", in_x, in_y);
    script(sb, text);
    run_frames(sb, 1);
    assert_true(same_id(stats(sb).hover, id));
    /* highlighted: the front face lighter, the same hue */
    uint8_t *on = frame_pixels(sb);
    float fx, fy, colour[4];
    project(sb, (float[3]){0.0f, 0.6f, 0.6f}, &fx, &fy);
    const uint8_t *a = pixel_at(off, fx, fy), *b = pixel_at(on, fx, fy);
    fprintf(stderr, "front face %d %d %d, under the cursor %d %d %d\n", a[0], a[1], a[2], b[0], b[1], b[2]);
    assert_true(b[0] + b[1] + b[2] > a[0] + a[1] + a[2] + 60);
    rb_view_body_color(id, colour);
    assert_true(colour_match(a, colour) > 0.97);
    free(off), free(on);

    /* the grab takes it there (and selects it); 4 px outside, the delete tool removes nothing */
    snprintf(text, sizeof text, "0 key G\n0 button down left %.0f %.0f\n", in_x, in_y);
    script(sb, text);
    run_frames(sb, 1);
    assert_true(stats(sb).grabbing && same_id(stats(sb).grabbed, id) && same_id(stats(sb).selected, id));
    snprintf(text, sizeof text, "0 button up left\n0 key X\n0 click left %.0f %.0f\n", out_x, out_y);
    script(sb, text);
    run_frames(sb, 1);
    assert_int_equal(stats(sb).bodies, 1);
    snprintf(text, sizeof text, "0 click left %.0f %.0f\n", in_x, in_y);
    script(sb, text);
    run_frames(sb, 1);
    assert_int_equal(stats(sb).bodies, 0);
    assert_true(same_id(stats(sb).last_deleted, id));
    assert_int_equal(stats(sb).selected.generation, 0); /* the selection went with it */
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* A body of a scaled shape is picked at the size it is drawn: a cube at
 * twice its size (2.4 m) under a cursor 4 px inside its drawn corner, and
 * not 4 px outside it (at its plain size neither would be on it). */
static void test_scaled_body_is_picked_at_its_drawn_size(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/rubble-scaled-XXXXXX.json");
    const int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1.2, 0], \"scale\": 2}]}\n", f);
    fclose(f);
    rb_sandbox *sb = make_sandbox(0);
    char text[256];
    snprintf(text, sizeof text, "0 drop %s\n0 key Space\n", path);
    script(sb, text);
    run_frames(sb, 2);
    assert_int_equal(stats(sb).bodies, 1);
    const rb_body_id id = rb_world_body_id(rb_sandbox_world(sb), 0);
    look(sb, (float[3]){0.8f, 3.4f, 4.2f}, (float[3]){0.0f, 1.2f, 0.0f});
    float cx, cy, mx, my;
    project(sb, (float[3]){1.2f, 2.4f, 1.2f}, &cx, &cy);
    project(sb, (float[3]){0.0f, 1.2f, 0.0f}, &mx, &my);
    const float len = sqrtf((mx - cx) * (mx - cx) + (my - cy) * (my - cy)), ux = (mx - cx) / len, uy = (my - cy) / len;
    for (int side = -1; side <= 1; side += 2) {
        snprintf(text, sizeof text, "0 move %.0f %.0f\n", cx + side * 4.0f * ux, cy + side * 4.0f * uy);
        script(sb, text);
        run_frames(sb, 1);
        fprintf(stderr, "4 px %s the scaled cube's corner: %s\n", side > 0 ? "inside" : "outside",
                stats(sb).hover.generation ? "on it" : "on nothing");
        assert_int_equal(same_id(stats(sb).hover, id), side > 0);
    }
    remove(path);
    rb_sandbox_destroy(sb);
}

/* The grid's cells of that size that hold a particle, counted the slow way. */
static uint32_t occupied_cells(rb_sandbox *sb, float size) {
    rb_world *w = rb_sandbox_world(sb);
    const uint32_t n = rb_world_particle_count(w);
    float *p = malloc(n * 3 * sizeof *p);
    assert_non_null(p);
    assert_true(rb_world_read_particles(w, p));
    uint32_t cells = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++) {
            seen = true;
            for (int k = 0; k < 3; k++) seen &= floorf(p[3 * i + k] / size) == floorf(p[3 * j + k] / size);
        }
        cells += !seen;
    }
    free(p);
    return cells;
}

/* A cube resting on the ground long enough to sleep, and one held in the
 * air (the world paused as it falls: awake), in front of the camera. */
static rb_body_id sleeping_scene(rb_sandbox *sb, rb_body_id *awake) {
    const rb_body_id id = add_cube(sb, 0.0f, 0.6f, 0.0f);
    look(sb, (float[3]){0.0f, 2.5f, 6.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    run_frames(sb, 60); /* asleep after 0.5 s at rest */
    *awake = add_cube(sb, 2.2f, 2.5f, 0.0f);
    script(sb, "0 key Space\n0 key H\n"); /* paused, no HUD */
    run_frames(sb, 2);
    assert_true(body(sb, id).asleep);
    assert_false(body(sb, *awake).asleep);
    return id;
}

/* Each debug view, on, changes the frame where it should and as it should:
 * the sleeping body greyed (the awake one and the ground not), contacts as
 * yellow crosses and red force lines, the axes red, green and blue along
 * the body's axes, the grid's cells in green; off again, the frame is as
 * it was. */
static void test_debug_views_draw_what_they_show(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    rb_body_id awake;
    const rb_body_id id = sleeping_scene(sb, &awake);
    uint8_t *off = frame_pixels(sb);
    float x, y;

    script(sb, "0 key F3\n");
    run_frames(sb, 1);
    assert_true(stats(sb).debug_views & (1u << RB_DEBUG_SLEEP));
    uint8_t *img = frame_pixels(sb);
    project(sb, (float[3]){0.0f, 0.6f, 0.6f}, &x, &y); /* the sleeping cube's front face */
    const uint8_t *a = pixel_at(off, x, y), *b = pixel_at(img, x, y);
    fprintf(stderr, "asleep: %d %d %d, tinted %d %d %d\n", a[0], a[1], a[2], b[0], b[1], b[2]);
    assert_true(saturation(b) < saturation(a) / 2);
    project(sb, (float[3]){2.2f, 2.5f, 0.6f}, &x, &y); /* the awake one's */
    a = pixel_at(off, x, y), b = pixel_at(img, x, y);
    assert_true(abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) < 6);
    project(sb, (float[3]){-2.5f, 0.0f, 2.0f}, &x, &y); /* the ground */
    a = pixel_at(off, x, y), b = pixel_at(img, x, y);
    assert_true(abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) < 6);
    free(img);

    script(sb, "0 key F3\n0 key F4\n");
    run_frames(sb, 1);
    img = frame_pixels(sb);
    const int yellow = changed(off, img, yellowish), red = changed(off, img, reddish);
    fprintf(stderr, "contacts: %u drawn, %d yellow and %d red pixels\n", stats(sb).contacts_drawn, yellow, red);
    assert_int_equal(stats(sb).contacts_drawn, 9); /* the cube's bottom layer on the ground */
    assert_true(yellow > 30 && red > 20);
    /* a contact's cross under a bottom corner particle (0.4, 0, 0.4): drawn over the cube */
    project(sb, (float[3]){0.4f, 0.0f, 0.4f}, &x, &y);
    assert_true(near(img, x, y, yellowish));
    free(img);

    script(sb, "0 key F4\n0 key F6\n");
    run_frames(sb, 1);
    img = frame_pixels(sb);
    /* each axis pokes out of the face it crosses: 0.6 m to the face, 0.15 of the 1.04 m reach beyond */
    bool (*const colours[3])(const uint8_t *) = {reddish, greenish, blueish};
    for (int k = 0; k < 3; k++) {
        float p[3] = {0.0f, 0.6f, 0.0f};
        p[k] += 0.68f;
        project(sb, p, &x, &y);
        fprintf(stderr, "axis %d at (%.0f, %.0f)\n", k, x, y);
        assert_true(near(img, x, y, colours[k]));
        assert_false(near(off, x, y, colours[k]));
    }
    free(img);

    script(sb, "0 key F6\n0 key F7\n");
    run_frames(sb, 1);
    img = frame_pixels(sb);
    const int green = changed(off, img, greenish);
    fprintf(stderr, "grid: %u cells, %d green pixels\n", stats(sb).cells_drawn, green);
    /* a box for each cell (0.4 m, the particles' diameter) that holds a particle, once */
    assert_int_equal(stats(sb).cells_drawn, occupied_cells(sb, 0.4f));
    assert_true(green > 200);
    free(img);

    script(sb, "0 key F7\n");
    run_frames(sb, 1);
    img = frame_pixels(sb);
    assert_int_equal(changed(off, img, any), 0);
    assert_int_equal(stats(sb).debug_views, 1u << RB_DEBUG_FIELDS);
    free(img), free(off);
    assert_int_equal(stats(sb).gl_errors, 0);
    (void)id;
    rb_sandbox_destroy(sb);
}

/* A vortex acts within its radius of its axis, at every height: its reach
 * is drawn as a cylinder (a dot where the top ring crosses x, which no
 * sphere of its radius has), and F8 hides it. */
static void test_vortex_drawn_as_a_cylinder(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    look(sb, (float[3]){0.0f, 9.0f, 26.0f}, (float[3]){0.0f, 3.0f, 0.0f});
    float x, y;
    project(sb, (float[3]){0.0f, 0.0f, 0.0f}, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0 key H\n0 move %.0f %.0f\n0 key C\n", x, y);
    script(sb, text);
    run_frames(sb, 2);
    assert_int_equal(stats(sb).fields, 1);
    uint8_t *img = frame_pixels(sb);
    /* the vortex stands where the cursor met the ground, about (0, 0, 0): 6 m across, rings to 6 m up */
    int cyan = 0;
    for (int i = 0; i < W * H; i++) cyan += cyanish(&img[i * 4]);
    project(sb, (float[3]){6.0f, 6.0f, 0.0f}, &x, &y);
    fprintf(stderr, "vortex: %d cyan pixels; the top ring at x = 6 m at (%.0f, %.0f)\n", cyan, x, y);
    assert_true(cyan > 100);
    assert_true(near(img, x, y, cyanish));
    free(img);
    script(sb, "0 key F8\n");
    run_frames(sb, 1);
    img = frame_pixels(sb);
    cyan = 0;
    for (int i = 0; i < W * H; i++) cyan += cyanish(&img[i * 4]);
    assert_int_equal(cyan, 0);
    assert_int_equal(stats(sb).fields, 1); /* hidden, still acting */
    free(img);
    rb_sandbox_destroy(sb);
}

/* The views read the world only: with every one of them on, a run steps
 * to the same state, bit for bit, as without. */
static void test_debug_views_leave_the_run_alone(void **state) {
    (void)state;
    uint64_t digest[2];
    for (int views = 0; views < 2; views++) {
        rb_sandbox *sb = make_sandbox(12);
        if (views) script(sb, "0 key F3\n0 key F4\n0 key F6\n0 key F7\n0.02 move 160 150\n");
        run_frames(sb, 90);
        if (views) {
            assert_int_equal(stats(sb).debug_views, 0x1fu);
            assert_true(stats(sb).contacts_drawn > 0 && stats(sb).cells_drawn > 0);
        }
        digest[views] = rb_world_digest(rb_sandbox_world(sb));
        rb_sandbox_destroy(sb);
    }
    assert_true(digest[0] == digest[1]);
}

static float eye_distance(rb_sandbox *sb, const float p[3]) {
    const float *e = rb_sandbox_camera(sb)->position, d[3] = {e[0] - p[0], e[1] - p[1], e[2] - p[2]};
    return sqrtf(rb_v3_dot(d, d));
}

/* Alt + right mouse orbits about the selection (the middle button's pick):
 * the eye keeps its distance to the body's centre while it turns, and the
 * centre comes to the middle of the window; without Alt the right mouse
 * turns the view where it stands; O makes the right mouse orbit; with
 * nothing selected an orbit goes about the point under the cursor. */
static void test_orbit_about_the_selection_or_the_point(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    const rb_body_id id = add_cube(sb, 2.0f, 0.6f, 0.0f);
    const float centre[3] = {2.0f, 0.6f, 0.0f};
    look(sb, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 0.6f, 0.0f}); /* the cube off the middle */
    script(sb, "0 key Space\n");
    run_frames(sb, 1);
    float x, y;
    project(sb, centre, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0 click middle %.0f %.0f\n", x, y);
    script(sb, text);
    run_frames(sb, 1);
    assert_true(same_id(stats(sb).selected, id));
    const float dist = eye_distance(sb, centre);
    const float yaw = rb_sandbox_camera(sb)->yaw;
    script(sb, "0 key down Left Alt\n0 button down right 40 40\n0 look 120 0\n0.02 look 0 -40\n0.04 button up right\n"
               "0.04 key up Left Alt\n");
    run_frames(sb, 4);
    project(sb, centre, &x, &y);
    fprintf(stderr, "orbit: distance %.4f (was %.4f), centre at (%.2f, %.2f)\n", eye_distance(sb, centre), dist, x, y);
    assert_true(fabsf(eye_distance(sb, centre) - dist) < 1e-3f);
    assert_true(fabsf(x - 0.5f * W) < 1.0f && fabsf(y - 0.5f * H) < 1.0f);
    assert_true(fabsf(rb_sandbox_camera(sb)->yaw - yaw) > 0.3f);
    /* the right mouse alone turns the view about the eye */
    float eye[3];
    memcpy(eye, rb_sandbox_camera(sb)->position, sizeof eye);
    script(sb, "0 button down right\n0 look 100 0\n0.02 button up right\n");
    run_frames(sb, 2);
    assert_memory_equal(rb_sandbox_camera(sb)->position, eye, sizeof eye);
    /* O: the right mouse orbits, about the selection again */
    script(sb, "0 key O\n0 button down right\n0 look -200 30\n0.02 button up right\n");
    run_frames(sb, 2);
    project(sb, centre, &x, &y);
    assert_true(fabsf(eye_distance(sb, centre) - dist) < 1e-3f);
    assert_true(fabsf(x - 0.5f * W) < 1.0f && fabsf(y - 0.5f * H) < 1.0f);
    assert_non_null(strstr(stats(sb).message, "orbit mode"));
    /* nothing selected (a middle click on the sky): about the point under the cursor, on the ground */
    look(sb, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 0.0f, -3.0f});
    script(sb, "0 click middle 160 5\n");
    run_frames(sb, 1);
    assert_int_equal(stats(sb).selected.generation, 0);
    float ground[3] = {-2.0f, 0.0f, 2.0f};
    project(sb, ground, &x, &y);
    snprintf(text, sizeof text, "0 button down right %.0f %.0f\n0 look 60 20\n0.02 button up right\n", x, y);
    script(sb, text);
    run_frames(sb, 2);
    project(sb, ground, &x, &y);
    fprintf(stderr, "orbit about the ground point: at (%.2f, %.2f)\n", x, y);
    assert_true(fabsf(x - 0.5f * W) < 2.0f && fabsf(y - 0.5f * H) < 2.0f); /* the pixel's rounding */
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

static void camera_equals(rb_sandbox *sb, const rb_camera *want);

/* Every corner of each cube (centred at centres[i], 1.2 m a side) inside
 * the view with the framing's margin to spare, below the HUD's lines, in
 * front of the eye. */
static void assert_cubes_framed(rb_sandbox *sb, const float centres[][3], int count) {
    float view[16], proj[16];
    rb_camera_matrices(rb_sandbox_camera(sb), W, H, view, proj);
    mat4 vp;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    const float top = rb_hud_lines_height(W) / (float)H; /* the HUD's share along the top, kept clear */
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 8; k++) {
            vec4 in = {centres[i][0] + ((k & 1) ? 0.6f : -0.6f), centres[i][1] + ((k & 2) ? 0.6f : -0.6f),
                       centres[i][2] + ((k & 4) ? 0.6f : -0.6f), 1.0f},
                 o;
            glm_mat4_mulv(vp, in, o);
            if (!(o[3] > 0.0f && fabsf(o[0] / o[3]) <= 1.0f - RB_FRAMING_MARGIN + 1e-4f &&
                  fabsf(o[1] / o[3] + top) <= (1.0f - top) * (1.0f - RB_FRAMING_MARGIN) + 1e-4f))
                fail_msg("cube %d's corner %d at (%.3f, %.3f) w %.3f: outside the framed view", i, k, o[0] / o[3],
                         o[1] / o[3], o[3]);
        }
}

/* F brings the selection to the middle of the view, near enough to fill
 * half its height; with nothing selected, the body under the cursor; with
 * nothing there, the whole scene framed. */
static void test_focus_on_the_selection(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(0);
    const rb_body_id id = add_cube(sb, 3.0f, 0.6f, -4.0f), other = add_cube(sb, -3.0f, 0.6f, 0.0f);
    const float centre[3] = {3.0f, 0.6f, -4.0f}, reach = 0.6f * sqrtf(3.0f); /* the cube mesh's corners */
    look(sb, (float[3]){0.0f, 6.0f, 20.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    script(sb, "0 key Space\n");
    run_frames(sb, 1);
    float x, y;
    project(sb, centre, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0 click middle %.0f %.0f\n0.02 move 5 5\n0.02 key F\n", x, y);
    script(sb, text);
    run_frames(sb, 3);
    assert_true(same_id(stats(sb).selected, id));
    project(sb, centre, &x, &y);
    const rb_camera *c = rb_sandbox_camera(sb);
    fprintf(stderr, "focus: distance %.3f, centre at (%.2f, %.2f)\n", eye_distance(sb, centre), x, y);
    assert_true(fabsf(x - 0.5f * W) < 0.5f && fabsf(y - 0.5f * H) < 0.5f);
    assert_true(fabsf(eye_distance(sb, centre) - reach / tanf(0.25f * c->fov_y)) < 1e-3f);
    /* nothing selected: the body under the cursor */
    script(sb, "0 click middle 160 5\n"); /* the sky: no selection */
    run_frames(sb, 1);
    look(sb, (float[3]){0.0f, 6.0f, 20.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    const float other_centre[3] = {-3.0f, 0.6f, 0.0f};
    project(sb, other_centre, &x, &y);
    snprintf(text, sizeof text, "0 move %.0f %.0f\n0 key F\n", x, y);
    script(sb, text);
    run_frames(sb, 1);
    project(sb, other_centre, &x, &y);
    assert_true(fabsf(x - 0.5f * W) < 0.5f && fabsf(y - 0.5f * H) < 0.5f);
    /* nothing selected and no body under the cursor: the whole scene
     * framed from the camera's heading, both cubes inside the view */
    const float yaw = c->yaw, pitch = c->pitch;
    script(sb, "0 move 160 2\n0 key F\n"); /* the sky above the cube */
    run_frames(sb, 1);
    assert_non_null(strstr(stats(sb).message, "the whole scene"));
    assert_true(c->yaw == yaw && c->pitch == pitch);
    assert_cubes_framed(sb, (const float[][3]){{3.0f, 0.6f, -4.0f}, {-3.0f, 0.6f, 0.0f}}, 2);
    /* looking up at the sky: framed looking down */
    look(sb, (float[3]){0.0f, 1.0f, 30.0f}, (float[3]){0.0f, 20.0f, 0.0f});
    script(sb, "0 move 160 120\n0 key F\n");
    run_frames(sb, 1);
    assert_true(c->pitch == RB_FRAMING_PITCH);
    assert_cubes_framed(sb, (const float[][3]){{3.0f, 0.6f, -4.0f}, {-3.0f, 0.6f, 0.0f}}, 2);
    (void)other;
    rb_sandbox_destroy(sb);
}

/* A sandbox on a scene file, 320x240. */
static rb_sandbox *make_scene_sandbox(const char *file) {
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dirs[1] = g_plugin_dirs[1];
    o.plugin_dir_count = 2;
    o.scene = file;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    return sb;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A scene file without a camera opens framed on its bodies (the framing's
 * heading, every cube inside the view); Ctrl+S saves the camera as its
 * camera.start, and loading that file (Ctrl+O) brings the camera back to
 * it to the bit; a file with camera.start opens there. */
static void test_scene_opens_framed_or_at_its_start(void **state) {
    (void)state;
    char dir[] = "/tmp/rubble-framing-XXXXXX", cwd[1024], file[600];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    snprintf(file, sizeof file, "%s/spread.json", dir);
    write_text(file, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [-14, 0.6, 3]},"
                     " {\"shape\": \"cube\", \"position\": [9, 0.6, -6]}, {\"shape\": \"cube\", "
                     "\"position\": [0, 9.6, 0], \"static\": true}]}\n");
    rb_sandbox *sb = make_scene_sandbox(file);
    const rb_camera *c = rb_sandbox_camera(sb);
    assert_true(c->yaw == RB_FRAMING_YAW && c->pitch == RB_FRAMING_PITCH);
    const float cubes[][3] = {{-14.0f, 0.6f, 3.0f}, {9.0f, 0.6f, -6.0f}, {0.0f, 9.6f, 0.0f}};
    assert_cubes_framed(sb, cubes, 3);
    run_frames(sb, 1);
    assert_cubes_framed(sb, cubes, 3);
    /* Ctrl+S: the camera as camera.start */
    look(sb, (float[3]){5.0f, 4.0f, 30.0f}, (float[3]){0.0f, 2.0f, 0.0f});
    const rb_camera saved = *c;
    script(sb, "0 key down Left Ctrl\n0 key S\n0 key up Left Ctrl\n");
    run_frames(sb, 1);
    char text[1 << 16];
    FILE *f = fopen(stats(sb).last_saved, "r");
    assert_non_null(f);
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\"camera\": {\"start\": {\"position\": ["));
    look(sb, (float[3]){-20.0f, 1.0f, 0.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    script(sb, "0 key down Left Ctrl\n0 key O\n0 key up Left Ctrl\n");
    run_frames(sb, 1);
    camera_equals(sb, &saved);
    rb_sandbox_destroy(sb);
    /* a file with camera.start opens there */
    write_text(file, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}],"
                     " \"camera\": {\"start\": {\"position\": [1.5, 2.25, 14], \"yaw\": -0.125, \"pitch\": -0.5}}}\n");
    sb = make_scene_sandbox(file);
    c = rb_sandbox_camera(sb);
    assert_true(c->position[0] == 1.5f && c->position[1] == 2.25f && c->position[2] == 14.0f);
    assert_true(c->yaw == -0.125f && c->pitch == -0.5f);
    run_frames(sb, 2);
    assert_true(c->position[0] == 1.5f && c->yaw == -0.125f);
    rb_sandbox_destroy(sb);
    remove(file);
    assert_int_equal(chdir(cwd), 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void camera_equals(rb_sandbox *sb, const rb_camera *want) {
    const rb_camera *c = rb_sandbox_camera(sb);
    assert_memory_equal(c->position, want->position, sizeof c->position);
    assert_true(c->yaw == want->yaw && c->pitch == want->pitch);
}

/* Ctrl+1..3 store the camera, Shift+1..3 bring it back exactly; plain 1..5
 * still reset formations, and resets keep the bookmarks; Ctrl+S saves them
 * with the scene, and loading that file brings them back. */
static void test_bookmarks_stored_recalled_saved_and_loaded(void **state) {
    (void)state;
    rb_sandbox *sb = make_sandbox(6);
    char dir[] = "/tmp/rubble-bookmarks-XXXXXX", cwd[1024];
    assert_non_null(mkdtemp(dir));
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    look(sb, (float[3]){1.0f, 2.0f, 9.0f}, (float[3]){0.0f, 1.0f, 0.0f});
    const rb_camera first = *rb_sandbox_camera(sb);
    script(sb, "0 key down Left Ctrl\n0 key 1\n0 key up Left Ctrl\n");
    run_frames(sb, 1);
    assert_non_null(strstr(stats(sb).message, "camera bookmark 1 stored"));
    look(sb, (float[3]){-7.0f, 5.0f, -3.0f}, (float[3]){0.5f, 0.0f, 0.25f});
    const rb_camera third = *rb_sandbox_camera(sb);
    script(sb, "0 key down Right Ctrl\n0 key 3\n0 key up Right Ctrl\n0.02 key down W\n0.3 key up W\n");
    run_frames(sb, 20); /* flown away */
    assert_true(rb_sandbox_camera(sb)->position[0] > third.position[0] + 1.0f);
    script(sb, "0 key down Left Shift\n0 key 1\n0 key up Left Shift\n");
    run_frames(sb, 1);
    camera_equals(sb, &first);
    /* an empty one: said, and the camera stays */
    script(sb, "0 key down Left Shift\n0 key 2\n0 key up Left Shift\n");
    run_frames(sb, 1);
    camera_equals(sb, &first);
    assert_non_null(strstr(stats(sb).message, "camera bookmark 2 is empty"));
    /* Ctrl held a while before the digit: Ctrl alone flies down, and the store undoes the sinking */
    look(sb, (float[3]){2.0f, 3.0f, 7.0f}, (float[3]){0.0f, 0.5f, 0.0f});
    run_frames(sb, 1);
    const rb_camera second = *rb_sandbox_camera(sb);
    script(sb, "0 key down Left Ctrl\n0.25 key 2\n0.25 key up Left Ctrl\n");
    run_frames(sb, 10);
    assert_true(rb_sandbox_camera(sb)->position[1] < second.position[1] - 0.5f);
    run_frames(sb, 10);
    camera_equals(sb, &second);
    look(sb, (float[3]){0.0f, 9.0f, 9.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    script(sb, "0 key down Left Shift\n0 key 2\n0 key up Left Shift\n");
    run_frames(sb, 1);
    camera_equals(sb, &second);
    /* a plain digit resets to a formation; R resets; the bookmarks stay */
    script(sb, "0 key 2\n0.02 key R\n0.04 key down Left Shift\n0.04 key 3\n0.04 key up Left Shift\n");
    run_frames(sb, 4);
    assert_int_equal(stats(sb).formation, 2);
    camera_equals(sb, &third);
    /* saved with the scene */
    script(sb, "0 key down Left Ctrl\n0 key S\n0 key up Left Ctrl\n");
    run_frames(sb, 1);
    char saved[600];
    snprintf(saved, sizeof saved, "%s", stats(sb).last_saved);
    FILE *f = fopen(saved, "r");
    assert_non_null(f);
    char text[1 << 16];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\"bookmarks\": ["));
    /* bookmark 1 stored over, then the file loaded: its bookmarks are the sandbox's again */
    look(sb, (float[3]){4.0f, 4.0f, 4.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    char lines[800];
    snprintf(lines, sizeof lines,
             "0 key down Left Ctrl\n0 key 1\n0 key up Left Ctrl\n0.02 drop %s\n0.04 key down Left Shift\n0.04 key 1\n"
             "0.04 key up Left Shift\n",
             saved);
    script(sb, lines);
    run_frames(sb, 4);
    assert_string_equal(stats(sb).scene_file, saved);
    camera_equals(sb, &first);
    remove(saved);
    assert_int_equal(chdir(cwd), 0);
    rmdir(dir);
    rb_sandbox_destroy(sb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_scene_has_body_colour_and_ground),
        cmocka_unit_test(test_help_is_readable_and_alone),
        cmocka_unit_test(test_quality_settings_draw_as_they_should),
        cmocka_unit_test(test_quality_is_chosen_and_f9_cycles),
        cmocka_unit_test(test_frame_stats_json),
        cmocka_unit_test(test_particle_view_differs_from_mesh_view),
        cmocka_unit_test(test_exploded_view_pulls_the_pieces_apart),
        cmocka_unit_test(test_shape_without_mesh_is_drawn_as_particles),
        cmocka_unit_test(test_scripted_throw_moves_along_the_view),
        cmocka_unit_test(test_scripted_grab_drags_toward_the_cursor),
        cmocka_unit_test(test_scripted_delete_removes_the_body),
        cmocka_unit_test(test_scripted_explosion_pushes_bodies_away),
        cmocka_unit_test(test_blast_settings),
        cmocka_unit_test(test_debris_fades_out_at_the_end_of_its_lifetime),
        cmocka_unit_test(test_scripted_emitter_spawns_at_its_rate),
        cmocka_unit_test(test_scripted_wind_blows_along_the_view),
        cmocka_unit_test(test_scripted_emitter_refused_below_the_ground),
        cmocka_unit_test(test_keys_reach_every_control),
        cmocka_unit_test(test_f5_with_a_broken_shader_keeps_running),
        cmocka_unit_test(test_slow_simulation_slows_down_instead_of_spiralling),
        cmocka_unit_test(test_record_takes_a_frame_a_frame),
        cmocka_unit_test(test_l_loads_a_new_plugin),
        cmocka_unit_test(test_bad_script_lines_are_named),
        cmocka_unit_test(test_save_drop_and_load_scenes),
        cmocka_unit_test(test_dropped_mesh_becomes_a_shape),
        cmocka_unit_test(test_broken_pieces_are_drawn_as_meshes),
        cmocka_unit_test(test_broken_pieces_keep_their_colours),
        cmocka_unit_test(test_cursor_inside_a_drawn_corner_picks_the_body),
        cmocka_unit_test(test_scaled_body_is_picked_at_its_drawn_size),
        cmocka_unit_test(test_debug_views_draw_what_they_show),
        cmocka_unit_test(test_vortex_drawn_as_a_cylinder),
        cmocka_unit_test(test_debug_views_leave_the_run_alone),
        cmocka_unit_test(test_orbit_about_the_selection_or_the_point),
        cmocka_unit_test(test_focus_on_the_selection),
        cmocka_unit_test(test_scene_opens_framed_or_at_its_start),
        cmocka_unit_test(test_bookmarks_stored_recalled_saved_and_loaded),
    };
    /* RB_TEST_SKIP="pattern" leaves out matching tests (cmocka globs), for runs by hand; RB_TEST_ONLY="pattern"
     * runs only the matching ones. */
    const char *skip = getenv("RB_TEST_SKIP");
    if (skip && *skip) cmocka_set_skip_filter(skip);
    const char *only = getenv("RB_TEST_ONLY");
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
