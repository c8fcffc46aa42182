/* test_replay.c - `rubble --replay FILE`: a cache recorded here (cubes
 * tumbling, a shape recorded without a mesh), its replay clock alone, the
 * sandbox replaying it offscreen under scripts (pause, step, speed, scrub,
 * screenshots), the frame it hands the renderer, simulate from here, and
 * the program refusing what it cannot replay. Files are written in the
 * build folder. */
#include "rb_test.h"

#include <stb/stb_image.h>
#include <sys/wait.h>

#include <cglm/cglm.h>

#include "app/run.h"
#include "sandbox/framing.h"
#include "sandbox/hud.h"
#include "record/cache.h"
#include "sandbox/replay.h"
#include "sandbox/sandbox.h"
#include "rb_sandbox_test.h"
#include "sandbox/view.h"

#define W 320
#define H 240
#define RATE 60.0
#define SECONDS 1.5
#define KEY_FRAME 60 /* the second keyframe: one a second */

static const char *scene_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0]},\n"
    "   {\"shape\": \"cube\", \"position\": [-2.5, 1.5, 0], \"velocity\": [5, 2, 0], \"angular_velocity\": [0, 0, "
    "-4]},\n"
    "   {\"shape\": \"cube2\", \"position\": [2, 2.5, 0.5], \"velocity\": [-1, 0, 0]},\n"
    "   {\"shape\": \"meshless_slab\", \"position\": [0.5, 3.5, -1.5], \"angular_velocity\": [2, 0, 1]}\n"
    " ]}\n";

static const char *g_plugin_dirs[2] = {RB_TEST_PLUGIN_DIR, RB_TEST_MESHLESS_DIR};
static char g_cache[512]; /* the recorded run */
static rb_cache *g_c;     /* it, read back */

static char *build_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/replay-%s", RB_TEST_BUILD_DIR, name);
    return out;
}

static bool on_frame(void *writer, double time) { return rb_cache_frame(writer, time); }

/* Records the scene for SECONDS at RATE through the headless runner. */
static int setup(void **state) {
    (void)state;
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    for (int i = 0; i < 2; i++) rb_registry_scan_dir(reg, g_plugin_dirs[i]);
    char err[1024];
    rb_scene *scene = rb_scene_parse(scene_text, "replay test", reg, err, sizeof err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_run *run = scene ? rb_run_create(reg, scene, &base, NULL, err, sizeof err) : NULL; /* it takes the scene */
    build_path(g_cache, sizeof g_cache, "run.rbc");
    rb_cache_writer *w =
        run ? rb_cache_begin(g_cache, rb_run_world(run), rb_run_entities(run), RATE, err, sizeof err) : NULL;
    bool ok = w != NULL;
    if (ok) {
        rb_run_on_frames(run, RATE, on_frame, w);
        rb_run_stats stats;
        ok = rb_run_steps(run, (long)(SECONDS / 0.0016 + 0.5), "replay", false, &stats);
    }
    if (w) ok = rb_cache_end(w, err, sizeof err) && ok;
    rb_run_destroy(run);
    rb_registry_destroy(reg);
    g_c = ok ? rb_cache_open(g_cache, err, sizeof err) : NULL;
    if (!g_c) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    printf("recorded %u frames, %u keyframes, %u shapes\n", g_c->frame_count, g_c->key_count, g_c->shape_count);
    return g_c->frame_count == 91 && g_c->key_count == 2 && g_c->keys[1].frame == KEY_FRAME ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_cache_close(g_c);
    return 0;
}

/* ---- the clock alone ---- */

/* N drawn frames of the fixed 1/60 s clock at each speed show frame
 * floor(N x speed) of a 60 Hz cache: at 0.25x four drawn frames a frame,
 * never one early or late however long it plays. */
static void test_frame_at_follows_the_speed(void **state) {
    (void)state;
    static const double speeds[5] = {0.25, 0.5, 1.0, 2.0, 4.0};
    const uint32_t count = 5000;
    for (int s = 0; s < 5; s++) {
        double t = 0.0;
        for (uint32_t n = 1; n <= 4000; n++) {
            t += (1.0 / 60.0) * speeds[s];
            const double due = floor((double)n * speeds[s]);
            const uint32_t want = due >= count - 1 ? count - 1 : (uint32_t)due;
            if (rb_replay_frame_at(t, 60.0, count) != want)
                fail_msg("%gx, drawn frame %u: frame %u, expected %u", speeds[s], n, rb_replay_frame_at(t, 60.0, count),
                         want);
        }
    }
    /* a 30 Hz cache at 1x: each frame for two drawn frames */
    assert_int_equal(rb_replay_frame_at(1.0 / 60.0, 30.0, 100), 0);
    assert_int_equal(rb_replay_frame_at(2.0 / 60.0, 30.0, 100), 1);
    /* the ends */
    assert_int_equal(rb_replay_frame_at(-1.0, 60.0, 100), 0);
    assert_int_equal(rb_replay_frame_at(NAN, 60.0, 100), 0);
    assert_int_equal(rb_replay_frame_at(1e9, 60.0, 100), 99);
    assert_int_equal(rb_replay_frame_at(99.0 / 60.0, 60.0, 100), 99);
    assert_int_equal(rb_replay_frame_at(98.9 / 60.0, 60.0, 100), 98);
}

static rb_replay *open_replay(void) {
    char err[1024];
    rb_replay *r = rb_replay_open(g_cache, err, sizeof err);
    if (!r) fail_msg("%s", err);
    return r;
}

static void advance(rb_replay *r, int frames) {
    for (int i = 0; i < frames; i++) rb_replay_advance(r, 1.0 / 60.0);
}

/* Play, pause, step, speeds, the ends and the keyframe simulate-from-here takes. */
static void test_replay_clock(void **state) {
    (void)state;
    rb_replay *r = open_replay();
    const uint32_t last = g_c->frame_count - 1;
    assert_int_equal(rb_replay_frame(r), 0);
    assert_true(rb_replay_playing(r));
    assert_true(rb_replay_speed(r) == 1.0);
    advance(r, 10);
    assert_int_equal(rb_replay_frame(r), 10);
    /* pause holds */
    rb_replay_play(r, false);
    advance(r, 30);
    assert_int_equal(rb_replay_frame(r), 10);
    /* a step moves one, and pauses */
    rb_replay_step(r, 1);
    assert_int_equal(rb_replay_frame(r), 11);
    rb_replay_play(r, true);
    rb_replay_step(r, -1);
    assert_false(rb_replay_playing(r));
    assert_int_equal(rb_replay_frame(r), 10);
    assert_true(rb_replay_time(r) == 10.0 / RATE);
    rb_replay_step(r, -50);
    assert_int_equal(rb_replay_frame(r), 0);
    /* 0.25x: four drawn frames a frame */
    rb_replay_change_speed(r, -1);
    rb_replay_change_speed(r, -1);
    assert_true(rb_replay_speed(r) == 0.25);
    rb_replay_play(r, true);
    advance(r, 3);
    assert_int_equal(rb_replay_frame(r), 0);
    advance(r, 1);
    assert_int_equal(rb_replay_frame(r), 1);
    advance(r, 8);
    assert_int_equal(rb_replay_frame(r), 3);
    /* the speeds end at 0.25x and 4x */
    rb_replay_change_speed(r, -1);
    assert_true(rb_replay_speed(r) == 0.25);
    for (int i = 0; i < 6; i++) rb_replay_change_speed(r, 1);
    assert_true(rb_replay_speed(r) == 4.0);
    advance(r, 2);
    assert_int_equal(rb_replay_frame(r), 11);
    /* the end holds, paused; playing again starts from the first frame */
    advance(r, 100);
    assert_int_equal(rb_replay_frame(r), last);
    assert_false(rb_replay_playing(r));
    rb_replay_step(r, 5);
    assert_int_equal(rb_replay_frame(r), last);
    rb_replay_play(r, true);
    assert_int_equal(rb_replay_frame(r), 0);
    /* the keyframe at or before the frame shown */
    rb_replay_seek(r, KEY_FRAME - 1);
    assert_int_equal(rb_replay_key(r), 0);
    rb_replay_seek(r, KEY_FRAME);
    assert_int_equal(rb_replay_key(r), 1);
    rb_replay_seek(r, 1000000);
    assert_int_equal(rb_replay_frame(r), last);
    assert_int_equal(rb_replay_key(r), 1);
    rb_replay_destroy(r);
}

/* The timeline: x along the bar to a frame, clicks near it taken, the ends clamped, a drag scrubs. */
static void test_timeline_scrubs(void **state) {
    (void)state;
    const rb_replay_bar bar = rb_replay_bar_layout(W, H, rb_hud_scale(W));
    assert_true(bar.w > 0.8f * W && bar.y > 0.9f * H && bar.y + bar.h < H);
    assert_int_equal(rb_replay_bar_frame(&bar, bar.x, 91), 0);
    assert_int_equal(rb_replay_bar_frame(&bar, bar.x - 50.0f, 91), 0);
    assert_int_equal(rb_replay_bar_frame(&bar, bar.x + bar.w, 91), 90);
    assert_int_equal(rb_replay_bar_frame(&bar, bar.x + bar.w + 50.0f, 91), 90);
    assert_int_equal(rb_replay_bar_frame(&bar, bar.x + 0.5f * bar.w, 91), 45);
    for (uint32_t k = 0; k < 91; k++) /* each frame's place is its own */
        assert_int_equal(rb_replay_bar_frame(&bar, rb_replay_bar_x(&bar, k, 91), 91), k);
    assert_true(rb_replay_bar_hit(&bar, bar.x + 10.0f, bar.y + 0.5f * bar.h));
    assert_false(rb_replay_bar_hit(&bar, bar.x + 10.0f, bar.y - 20.0f));
    assert_false(rb_replay_bar_hit(&bar, bar.x + 10.0f, 0.5f * H));

    rb_replay *r = open_replay();
    rb_replay_layout(r, W, H, rb_hud_scale(W));
    assert_false(rb_replay_press(r, 0.5f * W, 0.5f * H)); /* not on the bar */
    assert_false(rb_replay_scrubbing(r));
    assert_int_equal(rb_replay_frame(r), 0);
    assert_true(rb_replay_press(r, bar.x + 0.25f * bar.w, bar.y + 1.0f));
    assert_true(rb_replay_scrubbing(r));
    assert_int_equal(rb_replay_frame(r), rb_replay_bar_frame(&bar, bar.x + 0.25f * bar.w, 91));
    const uint32_t held = rb_replay_frame(r);
    advance(r, 5); /* the clock waits while the bar is held */
    assert_int_equal(rb_replay_frame(r), held);
    rb_replay_drag(r, bar.x + 0.75f * bar.w);
    assert_int_equal(rb_replay_frame(r), rb_replay_bar_frame(&bar, bar.x + 0.75f * bar.w, 91));
    rb_replay_release(r);
    rb_replay_drag(r, bar.x); /* released: the cursor no longer scrubs */
    assert_int_equal(rb_replay_frame(r), rb_replay_bar_frame(&bar, bar.x + 0.75f * bar.w, 91));
    rb_replay_destroy(r);
}

/* The view a replay fills: the frame's transforms as the cache holds them,
 * and in the particle view each cached particle placed by its body's pose. */
static void test_view_takes_the_cached_frame(void **state) {
    (void)state;
    rb_replay *r = open_replay();
    rb_view *v = rb_view_create();
    const uint32_t k = 30;
    rb_replay_seek(r, k);
    assert_true(rb_replay_read(r, v));
    const rb_cached_frame *f = &g_c->frames[k];
    uint32_t n;
    const rb_transform *t = rb_view_transforms(v, &n);
    assert_int_equal(n, f->body_count);
    for (uint32_t b = 0; b < n; b++) {
        assert_memory_equal(t[b].position, f->bodies[b].position, sizeof t[b].position);
        assert_memory_equal(t[b].orientation, f->bodies[b].orientation, sizeof t[b].orientation);
    }
    const float *p = rb_view_particles(v, NULL);
    assert_non_null(p);
    uint32_t at = 0;
    for (uint32_t b = 0; b < n; b++) {
        const rb_cached_body *cb = &f->bodies[b];
        const rb_cached_shape *s = &g_c->shapes[rb_cache_find_shape(g_c, cb->world_shape)];
        for (uint32_t i = 0; i < s->particle_count; i++, at++) {
            float want[3];
            rb_quat_rotate(cb->orientation, &s->particles[3 * i], want);
            for (int c = 0; c < 3; c++) assert_near(p[3 * at + c], want[c] + cb->position[c], 1e-5);
        }
    }
    rb_view_destroy(v);
    rb_replay_destroy(r);
}

/* ---- the sandbox replaying ---- */

static rb_sandbox *make_replay(const char *cache, int plugin_dirs) {
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dirs[1] = g_plugin_dirs[1];
    o.plugin_dir_count = plugin_dirs;
    o.replay = cache;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    rb_camera *c = rb_sandbox_camera(sb);
    rb_camera_init(c, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 1.0f, 0.0f});
    return sb;
}

static uint32_t shown(rb_sandbox *sb) { return rb_replay_frame(rb_sandbox_replay(sb)); }

/* The transforms the last frame handed the renderer are the cache's frame k, bit for bit. */
static void assert_submits_frame(rb_sandbox *sb, uint32_t k) {
    uint32_t n;
    const rb_transform *t = rb_view_transforms(rb_sandbox_view(sb), &n);
    const rb_cached_frame *f = &g_c->frames[k];
    assert_int_equal(n, f->body_count);
    for (uint32_t b = 0; b < n; b++) {
        assert_memory_equal(t[b].position, f->bodies[b].position, sizeof t[b].position);
        assert_memory_equal(t[b].orientation, f->bodies[b].orientation, sizeof t[b].orientation);
    }
    assert_int_equal(stats(sb).drawn_instances, n); /* every shape has a mesh, the meshless one its cells' */
}

/* Play, pause, step, speed and the ends, driven by keys as a user drives them. */
static void test_keys_drive_the_replay(void **state) {
    (void)state;
    rb_sandbox *sb = make_replay(g_cache, 2);
    const uint32_t last = g_c->frame_count - 1;
    assert_int_equal(stats(sb).bodies, 0); /* the world is empty: the cache is shown */
    run_frames(sb, 3);
    assert_int_equal(shown(sb), 3); /* playing at 1x: a frame a drawn frame */
    assert_submits_frame(sb, 3);
    script(sb, "0 key Space\n");
    run_frames(sb, 5);
    assert_int_equal(shown(sb), 3); /* paused */
    script(sb, "0 key .\n+0.05 key Right\n+0.05 key ,\n");
    run_frames(sb, 1);
    assert_int_equal(shown(sb), 4);
    assert_submits_frame(sb, 4);
    run_frames(sb, 3);
    assert_int_equal(shown(sb), 5);
    run_frames(sb, 3);
    assert_int_equal(shown(sb), 4);
    script(sb, "0 key End\n");
    run_frames(sb, 1);
    assert_int_equal(shown(sb), last);
    assert_submits_frame(sb, last);
    script(sb, "0 key Left\n0 key Home\n0 key [\n0 key [\n0 key [\n0 key Space\n");
    run_frames(sb, 1); /* 0.25x from frame 0: a quarter frame on */
    assert_true(rb_replay_speed(rb_sandbox_replay(sb)) == 0.25);
    assert_int_equal(shown(sb), 0);
    run_frames(sb, 3);
    assert_int_equal(shown(sb), 1);
    run_frames(sb, 4);
    assert_int_equal(shown(sb), 2);
    assert_submits_frame(sb, 2);
    script(sb, "0 key ]\n0 key ]\n0 key ]\n0 key ]\n");
    run_frames(sb, 1);
    assert_true(rb_replay_speed(rb_sandbox_replay(sb)) == 4.0);
    assert_int_equal(shown(sb), 6);
    run_frames(sb, 2);
    assert_int_equal(shown(sb), 14);
    assert_non_null(strstr(stats(sb).message, "4x"));
    /* the particle view draws the cached particles; the tools and resets are refused */
    script(sb, "0 key P\n0 key R\n0 key Space\n");
    run_frames(sb, 1);
    assert_int_equal(stats(sb).drawn_particle_bodies, g_c->frames[14].body_count);
    assert_non_null(strstr(stats(sb).message, "Enter"));
    assert_int_equal(stats(sb).bodies, 0);
    /* the debug views read a live world's state: refused, said (they said "on" and drew nothing) */
    script(sb, "0 key F6\n");
    run_frames(sb, 1);
    assert_non_null(strstr(stats(sb).message, "the views F3 F4 F6 F7 F8 show a live world"));
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* The left button on the timeline goes to the frame under it; dragging scrubs. */
static void test_timeline_click_and_drag(void **state) {
    (void)state;
    rb_sandbox *sb = make_replay(g_cache, 2);
    const rb_replay_bar bar = rb_replay_bar_layout(W, H, rb_hud_scale(W));
    const float x1 = bar.x + 0.3f * bar.w, x2 = bar.x + 0.8f * bar.w, y = bar.y + 0.5f * bar.h;
    const uint32_t f1 = rb_replay_bar_frame(&bar, x1, 91), f2 = rb_replay_bar_frame(&bar, x2, 91);
    char text[512];
    snprintf(text, sizeof text,
             "0 key Space\n0 button down left %.0f %.0f\n+0.05 move %.0f %.0f\n+0.05 button up left\n"
             "+0.05 click left 160 100\n",
             x1, y, x2, y);
    script(sb, text);
    run_frames(sb, 1);
    assert_int_equal(shown(sb), f1);
    assert_submits_frame(sb, f1);
    run_frames(sb, 3);
    assert_int_equal(shown(sb), f2);
    run_frames(sb, 6); /* released, paused: it stays; a click off the bar does not move it */
    assert_int_equal(shown(sb), f2);
    assert_false(rb_replay_scrubbing(rb_sandbox_replay(sb)));
    assert_non_null(strstr(stats(sb).message, "live world"));
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

static uint8_t *load_png(const char *path, int *w, int *h) {
    int n;
    uint8_t *px = stbi_load(path, w, h, &n, 4);
    if (!px) fail_msg("%s: cannot read the PNG", path);
    return px;
}

/* Pixels that differ by more than a little between two frames. */
static int differing(const uint8_t *a, const uint8_t *b, int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < H; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < W; x++) {
            const uint8_t *p = &a[(y * W + x) * 4], *q = &b[(y * W + x) * 4];
            n += abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 30;
        }
    return n;
}

/* Where a world point lands in the window (pixels from the top left). */
static void project(rb_sandbox *sb, const float p[3], int *x, int *y) {
    float view[16], proj[16];
    rb_camera_matrices(rb_sandbox_camera(sb), W, H, view, proj);
    mat4 vp;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv(vp, in, o);
    *x = (int)((o[0] / o[3] * 0.5f + 0.5f) * W);
    *y = (int)((0.5f - o[1] / o[3] * 0.5f) * H);
}

/* A script's screenshots: the same frame twice is the same picture to the
 * byte; another frame differs around each body that moved, and nowhere far
 * from every body. */
static void test_screenshots_show_the_frame(void **state) {
    (void)state;
    rb_sandbox *sb = make_replay(g_cache, 2);
    char a[512], b[512], c[512], text[2048];
    build_path(a, sizeof a, "first.png"), build_path(b, sizeof b, "last.png"), build_path(c, sizeof c, "again.png");
    snprintf(text, sizeof text,
             "0 key Space\n0 key H\n0 screenshot %s\n+0.05 key End\n+0.05 screenshot %s\n+0.05 key Home\n"
             "+0.05 screenshot %s\n",
             a, b, c);
    script(sb, text);
    run_frames(sb, 15);
    assert_int_equal(stats(sb).screenshots, 3);
    int w, h;
    uint8_t *first = load_png(a, &w, &h), *end = load_png(b, &w, &h), *again = load_png(c, &w, &h);
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    assert_memory_equal(first, again, (size_t)W * H * 4);
    const rb_cached_frame *f0 = &g_c->frames[0];
    /* the cube thrown from the left (body 1) moved: its place in frame 0 changed */
    int x, y;
    project(sb, f0->bodies[1].position, &x, &y);
    fprintf(stderr, "body 1 at (%d, %d): %d pixels changed around it\n", x, y,
            differing(first, end, x - 5, y - 5, x + 5, y + 5));
    assert_true(differing(first, end, x - 5, y - 5, x + 5, y + 5) > 50);
    /* the top band of sky, above every body, did not */
    assert_int_equal(differing(first, end, 0, 0, W, H / 8), 0);
    assert_true(differing(first, end, 0, 0, W, H) > 500);
    free(first), free(end), free(again);
    remove(a), remove(b), remove(c);
    rb_sandbox_destroy(sb);
}

/* ---- the replay's first view ---- */

/* Records text (a scene) for half a second at RATE through the headless
 * runner, from its stage (what a --record does), into the build folder. */
static void record_scene(const char *text, const char *name, char *path, size_t size) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    for (int i = 0; i < 2; i++) rb_registry_scan_dir(reg, g_plugin_dirs[i]);
    char err[1024];
    rb_scene *scene = rb_scene_parse(text, name, reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_run *run = rb_run_create(reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    build_path(path, size, name);
    rb_cache_writer *w = rb_cache_begin_stage(path, rb_run_stage(run), RATE, err, sizeof err);
    if (!w) fail_msg("%s", err);
    rb_run_on_frames(run, RATE, on_frame, w);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, (long)(0.5 / 0.0016 + 0.5), "replay", false, &stats));
    if (!rb_cache_end(w, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    rb_registry_destroy(reg);
}

/* A recording of a scene with a start camera opens there, to the bit, its
 * bookmarks the sandbox's; one with only bookmarks at its first; one
 * without a camera framed on the recorded bodies: every particle of the
 * first frame inside the view, from the framing's heading. */
static void test_replay_opens_at_the_recorded_camera(void **state) {
    (void)state;
    char path[512], text[2048];
    const char *bodies = "\"bodies\": [{\"shape\": \"cube\", \"position\": [30, 0.6, -20]}, "
                         "{\"shape\": \"cube2\", \"position\": [36, 4.5, -22]}]";
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, %s, \"camera\": {\"start\": {\"position\": [12.5, 7.25, 3], \"yaw\": 0.75, "
             "\"pitch\": -0.3125}, \"bookmarks\": [null, {\"position\": [1, 2, 3], \"yaw\": 1, \"pitch\": 0}]}}",
             bodies);
    record_scene(text, "start.rbc", path, sizeof path);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.width = W, o.height = H, o.vsync = false, o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[0] = g_plugin_dirs[0], o.plugin_dirs[1] = g_plugin_dirs[1];
    o.plugin_dir_count = 2;
    o.replay = path;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    const rb_camera *c = rb_sandbox_camera(sb);
    assert_true(c->position[0] == 12.5f && c->position[1] == 7.25f && c->position[2] == 3.0f);
    assert_true(c->yaw == 0.75f && c->pitch == -0.3125f);
    script(sb, "0 key down Left Shift\n0 key 2\n0 key up Left Shift\n"); /* the recording's bookmark 2 */
    run_frames(sb, 1);
    assert_true(c->position[0] == 1.0f && c->position[1] == 2.0f && c->position[2] == 3.0f && c->yaw == 1.0f);
    rb_sandbox_destroy(sb);
    remove(path);

    /* bookmarks alone: the first set one */
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, %s, \"camera\": {\"bookmarks\": [null, {\"position\": [-4, 5, 6], \"yaw\": "
             "-0.5, \"pitch\": -0.25}]}}",
             bodies);
    record_scene(text, "marks.rbc", path, sizeof path);
    sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    c = rb_sandbox_camera(sb);
    assert_true(c->position[0] == -4.0f && c->position[1] == 5.0f && c->position[2] == 6.0f);
    assert_true(c->yaw == -0.5f && c->pitch == -0.25f);
    rb_sandbox_destroy(sb);
    remove(path);

    /* no camera: the recorded bodies framed, far from where the eye would be for the origin */
    snprintf(text, sizeof text, "{\"rubble_scene\": 1, %s}", bodies);
    record_scene(text, "framed.rbc", path, sizeof path);
    rb_cache *cache = rb_cache_open(path, err, sizeof err);
    assert_non_null(cache);
    sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    c = rb_sandbox_camera(sb);
    assert_true(c->yaw == RB_FRAMING_YAW && c->pitch == RB_FRAMING_PITCH);
    const rb_cached_frame *f = &cache->frames[0];
    float view[16], proj[16];
    rb_camera_matrices(c, W, H, view, proj);
    mat4 vp;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    const float top = rb_hud_lines_height(W) / (float)H; /* the HUD's share along the top, kept clear */
    for (uint32_t b = 0; b < f->body_count; b++) {
        const rb_cached_shape *shape = &cache->shapes[rb_cache_find_shape(cache, f->bodies[b].world_shape)];
        for (uint32_t i = 0; i < shape->particle_count; i++) {
            vec4 in = {0, 0, 0, 1.0f}, out;
            rb_quat_rotate(f->bodies[b].orientation, &shape->particles[3 * i], in);
            for (int k = 0; k < 3; k++) in[k] += f->bodies[b].position[k];
            glm_mat4_mulv(vp, in, out);
            assert_true(out[3] > 0.0f);
            assert_true(fabsf(out[0] / out[3]) <= 1.0f - RB_FRAMING_MARGIN + 1e-4f);
            assert_true(fabsf(out[1] / out[3] + top) <= (1.0f - top) * (1.0f - RB_FRAMING_MARGIN) + 1e-4f);
        }
    }
    rb_cache_close(cache);
    rb_sandbox_destroy(sb);
    remove(path);
}

/* ---- simulate from here ---- */

/* A body's whole state, field by field to the bit (a struct's padding is
 * not compared); its shape by name, as world shape numbers are each
 * world's own (the sandbox registers the shipped meshes too). */
static void assert_same_body(rb_sandbox *sb, const rb_body_state *a, const rb_body_state *b) {
    assert_int_equal(a->id.slot, b->id.slot);
    assert_int_equal(a->id.generation, b->id.generation);
    const int row = rb_entities_of_world_shape(rb_sandbox_entities(sb), a->shape);
    const int cached = rb_cache_find_shape(g_c, b->shape);
    assert_true(row >= 0 && cached >= 0);
    assert_string_equal(rb_entities_get(rb_sandbox_entities(sb), (uint32_t)row)->shape->name, g_c->shapes[cached].name);
    assert_memory_equal(a->position, b->position, sizeof a->position);
    assert_memory_equal(a->orientation, b->orientation, sizeof a->orientation);
    assert_memory_equal(a->velocity, b->velocity, sizeof a->velocity);
    assert_memory_equal(a->angular_velocity, b->angular_velocity, sizeof a->angular_velocity);
    assert_memory_equal(a->angular_momentum, b->angular_momentum, sizeof a->angular_momentum);
    assert_memory_equal(&a->mass, &b->mass, sizeof a->mass);
    assert_memory_equal(&a->sleep_timer, &b->sleep_timer, sizeof a->sleep_timer);
    assert_memory_equal(&a->support, &b->support, sizeof a->support);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->material, b->material);
    assert_int_equal(a->asleep, b->asleep);
}

/* Enter at frame 75: the live world is the keyframe at frame 60's, every
 * body's state to the bit, paused as the replay was; stepped on, it reaches
 * the recording's last frame to the bit. */
static void test_simulate_from_here_resumes_the_keyframe(void **state) {
    (void)state;
    rb_sandbox *sb = make_replay(g_cache, 2);
    const uint32_t last = g_c->frame_count - 1;
    script(sb, "0 key Space\n0 key End\n");
    run_frames(sb, 1);
    char text[2048] = "";
    for (uint32_t k = last; k > 75; k--) strcat(text, "0 key ,\n");
    strcat(text, "0 key Return\n");
    script(sb, text);
    run_frames(sb, 1);
    assert_null(rb_sandbox_replay(sb));
    rb_sandbox_stats st = stats(sb);
    assert_true(st.paused);
    assert_non_null(strstr(st.message, "keyframe at frame 60"));
    const rb_cached_key *key = &g_c->keys[1];
    assert_int_equal(key->frame, KEY_FRAME);
    rb_world *w = rb_sandbox_world(sb);
    assert_int_equal(rb_world_body_count(w), key->body_count);
    for (uint32_t b = 0; b < key->body_count; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        assert_same_body(sb, &s, &key->states[b]);
    }
    assert_int_equal(st.drawn_instances + st.drawn_particle_bodies, key->body_count); /* drawn from the world now */
    /* frame 90 was taken at step 938 (the first at or after 1.5 s), frame 60 at 625 */
    const uint64_t steps = st.steps;
    for (int i = 0; i < 938 - 625; i++) {
        script(sb, "0 key N\n");
        run_frames(sb, 1);
    }
    assert_int_equal(stats(sb).steps, steps + 938 - 625);
    const rb_cached_frame *f = &g_c->frames[last];
    rb_transform *t = malloc(sizeof *t * (f->body_count + 1));
    assert_int_equal(rb_world_body_count(w), f->body_count);
    assert_true(rb_world_read_transforms(w, t));
    for (uint32_t b = 0; b < f->body_count; b++) {
        assert_memory_equal(t[b].position, f->bodies[b].position, sizeof t[b].position);
        assert_memory_equal(t[b].orientation, f->bodies[b].orientation, sizeof t[b].orientation);
    }
    free(t);
    /* live now: the keys are the sandbox's again (] cycles the shape), and R goes back to the keyframe */
    script(sb, "0 key R\n");
    run_frames(sb, 1);
    for (uint32_t b = 0; b < key->body_count; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        assert_memory_equal(s.position, key->states[b].position, sizeof s.position);
    }
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* A keyframe whose scene cannot be built (here a shape the registry lacks:
 * the meshless plugin is not loaded) is said, and the replay goes on. */
static void test_simulate_from_here_refused_goes_on(void **state) {
    (void)state;
    rb_sandbox *sb = make_replay(g_cache, 1);
    script(sb, "0 key Return\n");
    run_frames(sb, 2);
    assert_non_null(rb_sandbox_replay(sb));
    assert_non_null(strstr(rb_log_last_error(), "cannot simulate from here"));
    assert_non_null(strstr(rb_log_last_error(), "meshless_slab"));
    assert_int_equal(stats(sb).bodies, 0);
    assert_int_equal(shown(sb), 2); /* still playing */
    assert_submits_frame(sb, 2);
    rb_sandbox_destroy(sb);
}

/* ---- the program ---- */

/* Runs rubble with args; its exit code, and its stderr in err. */
static int rubble(const char *args, char *err, size_t err_size) {
    char cmd[4096], err_path[600];
    build_path(err_path, sizeof err_path, "stderr.txt");
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s'", RB_TEST_RUBBLE, args, err_path);
    const int status = system(cmd);
    FILE *e = fopen(err_path, "r");
    size_t n = e ? fread(err, 1, err_size - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void copy_damaged(const char *from, const char *to, long at) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    long i = 0;
    for (int ch; (ch = fgetc(in)) != EOF; i++) fputc(i == at ? ch ^ 0x40 : ch, out);
    fclose(in), fclose(out);
}

/* A missing or damaged cache exits 2 naming the file; --replay goes with
 * neither --headless nor a scene, a formation or --record; a good one runs
 * and saves its screenshot. */
static void test_program_refuses_what_it_cannot_replay(void **state) {
    (void)state;
    static char err[1 << 14];
    char args[2048], damaged[512], missing[512], shot[512];
    build_path(missing, sizeof missing, "missing.rbc");
    remove(missing);
    snprintf(args, sizeof args, "--replay '%s'", missing);
    assert_int_equal(rubble(args, err, sizeof err), 2);
    assert_non_null(strstr(err, missing));
    assert_non_null(strstr(err, "No such file"));

    build_path(damaged, sizeof damaged, "damaged.rbc");
    copy_damaged(g_cache, damaged, (long)g_c->bytes_read / 2);
    snprintf(args, sizeof args, "--replay '%s'", damaged);
    assert_int_equal(rubble(args, err, sizeof err), 2);
    assert_non_null(strstr(err, damaged));
    assert_non_null(strstr(err, "damaged chunk"));

    static const char *const clashes[] = {"--headless", "--scene x.json", "--formation 2", "--record x.rbc"};
    for (size_t i = 0; i < sizeof clashes / sizeof *clashes; i++) {
        snprintf(args, sizeof args, "--replay '%s' %s", g_cache, clashes[i]);
        assert_int_equal(rubble(args, err, sizeof err), 2);
        assert_non_null(strstr(err, "--replay"));
        assert_non_null(strstr(err, "cannot go with"));
    }

    build_path(shot, sizeof shot, "cli.png");
    remove(shot);
    snprintf(args, sizeof args,
             "--replay '%s' --backend reference --plugins '%s' --plugins '%s' --width %d --height %d --no-vsync "
             "--frames 5 --screenshot '%s'",
             g_cache, g_plugin_dirs[0], g_plugin_dirs[1], W, H, shot);
    if (rubble(args, err, sizeof err) != 0) fail_msg("%s", err);
    int w, h;
    uint8_t *px = load_png(shot, &w, &h);
    assert_int_equal(w, W);
    free(px);
    remove(damaged), remove(shot);
}

/* A breakable cube struck hard (tests/test_resume.c's), recorded through
 * the stage as the sandbox records: its pieces' cut meshes are in the cache. */
static const char *break_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ]}\n";

/* Enter after a break: the keyframe at frame 60 holds the pieces (the
 * scene's own shapes with their meshes); the live world is its bodies to
 * the bit, the pieces drawn with their meshes, and stepped on to the next
 * keyframe (frame 120) it has that keyframe's states to the bit. */
static void test_simulate_from_here_after_a_break(void **state) {
    (void)state;
    char path[512], err[1024];
    build_path(path, sizeof path, "break.rbc");
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_registry_scan_dir(reg, g_plugin_dirs[0]);
    rb_scene *scene = rb_scene_parse(break_text, "break", reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_run *run = rb_run_create(reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    rb_cache_writer *w = rb_cache_begin_stage(path, rb_run_stage(run), RATE, err, sizeof err);
    if (!w) fail_msg("%s", err);
    rb_run_on_frames(run, RATE, on_frame, w);
    rb_run_stats rs;
    assert_true(rb_run_steps(run, (long)(2.05 / 0.0016 + 0.5), "break", false, &rs));
    if (!rb_cache_end(w, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    rb_registry_destroy(reg);
    rb_cache *c = rb_cache_open(path, err, sizeof err);
    if (!c) fail_msg("%s", err);
    assert_int_equal(c->key_count, 3);
    const rb_cached_key *key = &c->keys[1], *next = &c->keys[2];
    assert_true(key->resumable && next->resumable);
    assert_true(key->body_count > 2); /* broken */
    assert_non_null(strstr(key->text, "\"shapes\": ["));

    rb_sandbox *sb = make_replay(path, 1);
    script(sb, "0 key Space\n0 key End\n");
    run_frames(sb, 1);
    char text[4096] = "";
    for (uint32_t k = c->frame_count - 1; k > 75; k--) strcat(text, "0 key ,\n");
    strcat(text, "0 key Return\n");
    script(sb, text);
    run_frames(sb, 1);
    assert_null(rb_sandbox_replay(sb));
    assert_non_null(strstr(stats(sb).message, "keyframe at frame 60"));
    rb_world *live = rb_sandbox_world(sb);
    assert_int_equal(rb_world_body_count(live), key->body_count);
    uint32_t meshed = 0; /* bodies whose recorded shape has a mesh: all are drawn with one again */
    for (uint32_t b = 0; b < key->body_count; b++) {
        const int k = rb_cache_find_shape(c, key->states[b].shape);
        assert_true(k >= 0);
        meshed += c->shapes[k].mesh.vertex_count > 0;
    }
    assert_true(meshed > 2);
    run_frames(sb, 1); /* drawn once as live */
    assert_int_equal(stats(sb).drawn_instances, meshed);
    /* Ctrl+S in the resumed world (paused: it is the keyframe's) saves the
     * pieces with the meshes the recording cut for them: the live debris
     * layer has them, so the sandbox draws them as it drew them before */
    script(sb, "0 key down Left Ctrl\n0 key S\n0 key up Left Ctrl\n");
    run_frames(sb, 2);
    char saved[600];
    snprintf(saved, sizeof saved, "%s", stats(sb).last_saved);
    assert_true(strncmp(saved, "rubble-scene-", 13) == 0);
    reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_registry_scan_dir(reg, g_plugin_dirs[0]);
    rb_scene *again = rb_scene_load(saved, reg, err, sizeof err);
    if (!again) fail_msg("%s", err);
    assert_int_equal(again->body_count, key->body_count);
    uint32_t pieces = 0;
    for (uint32_t b = 0; b < again->body_count; b++) {
        if (!again->bodies[b].saved_shape) continue;
        const rb_mesh *m = &again->shapes[again->bodies[b].saved_shape - 1].mesh;
        const rb_mesh *want = &c->shapes[rb_cache_find_shape(c, key->states[b].shape)].mesh;
        assert_true(want->vertex_count > 0);
        assert_int_equal(m->vertex_count, want->vertex_count);
        assert_memory_equal(m->positions, want->positions, sizeof(float) * 3 * want->vertex_count);
        assert_memory_equal(m->indices, want->indices, sizeof(uint32_t) * want->index_count);
        pieces++;
    }
    assert_true(pieces >= 2);
    rb_scene_destroy(again);
    rb_registry_destroy(reg);
    remove(saved);
    const uint64_t steps = stats(sb).steps;
    const long want = lround((next->time - key->time) / c->dt);
    for (long i = 0; i < want; i++) {
        script(sb, "0 key N\n");
        run_frames(sb, 1);
    }
    assert_int_equal(stats(sb).steps, steps + (uint64_t)want);
    assert_int_equal(rb_world_body_count(live), next->body_count);
    for (uint32_t b = 0; b < next->body_count; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(live, b, &s));
        const rb_body_state *t = &next->states[b];
        assert_memory_equal(s.position, t->position, sizeof s.position);
        assert_memory_equal(s.orientation, t->orientation, sizeof s.orientation);
        assert_memory_equal(s.velocity, t->velocity, sizeof s.velocity);
        assert_memory_equal(s.angular_momentum, t->angular_momentum, sizeof s.angular_momentum);
        assert_memory_equal(&s.mass, &t->mass, sizeof s.mass);
        assert_memory_equal(&s.sleep_timer, &t->sleep_timer, sizeof s.sleep_timer);
    }
    printf("resumed after the break: %u bodies (%u drawn with their cut meshes), equal to the keyframe %ld steps on\n",
           key->body_count, meshed, want);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
    rb_cache_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_at_follows_the_speed),
        cmocka_unit_test(test_replay_clock),
        cmocka_unit_test(test_timeline_scrubs),
        cmocka_unit_test(test_view_takes_the_cached_frame),
        cmocka_unit_test(test_keys_drive_the_replay),
        cmocka_unit_test(test_timeline_click_and_drag),
        cmocka_unit_test(test_screenshots_show_the_frame),
        cmocka_unit_test(test_replay_opens_at_the_recorded_camera),
        cmocka_unit_test(test_simulate_from_here_resumes_the_keyframe),
        cmocka_unit_test(test_simulate_from_here_refused_goes_on),
        cmocka_unit_test(test_simulate_from_here_after_a_break),
        cmocka_unit_test(test_program_refuses_what_it_cannot_replay),
    };
    const char *skip = getenv("RB_TEST_SKIP");
    if (skip && *skip) cmocka_set_skip_filter(skip);
    return cmocka_run_group_tests(tests, setup, teardown);
}
