/* test_panels.c - the settings panels (src/app/panels.h) in the sandbox, in
 * an offscreen window of the program's default size: they are drawn where
 * they say they are and F2 takes them away to the last pixel; scripted
 * mouse and keyboard events (--script's, through SDL's queue and Dear
 * ImGui's own input) move their sliders, type into their fields, pick the
 * shape to throw and place emitters and blasts, and change the world; a
 * click on a panel throws nothing; bad values typed in are refused with
 * the reason shown, and the simulation runs on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sandbox/sandbox.h"
#include "rb_sandbox_test.h"
#include "sandbox/settings.h"
#include "sandbox/step_clock.h"

#define W 1280
#define H 720

/* A sandbox of the program's window size with an empty world (reference
 * backend), panels shown or not (--panels). */
static void options_of(rb_options *o, bool panels, int bodies) {
    rb_options_defaults(o, RB_PROGRAM_RUBBLE);
    o->bodies = bodies;
    o->width = W, o->height = H;
    o->vsync = false;
    o->backend = RB_BACKEND_REFERENCE;
    o->plugin_dirs[0] = RB_TEST_PLUGIN_DIR;
    o->plugin_dir_count = 1;
    o->shader_dir = RB_TEST_SOURCE_SHADERS;
    o->panels = panels;
}

static rb_sandbox *make_with(const rb_options *opts) {
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o = *opts;
    char err[4096];
    rb_paths paths;
    rb_paths_find(&paths, o.shader_dir);
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    return sb;
}

static rb_sandbox *make_sandbox_of(bool panels, int bodies) {
    rb_options o;
    options_of(&o, panels, bodies);
    return make_with(&o);
}

static rb_sandbox *make_sandbox(bool panels) { return make_sandbox_of(panels, 0); }

/* Where the panels drew a control, from the last frame. */
static void rect_of(rb_sandbox *sb, rb_panel_id id, const char *label, float r[4]) {
    if (!rb_panels_rect(rb_sandbox_panels(sb), id, label, r))
        fail_msg("panel %d drew no '%s'", (int)id, label ? label : "(window)");
}

/* A point a fraction fx across a control and in its middle, as script text. */
static void point(const float r[4], float fx, char *out, size_t size) {
    snprintf(out, size, "%.0f %.0f", r[0] + fx * r[2], r[1] + 0.5f * r[3]);
}

static rb_material material(rb_sandbox *sb) {
    rb_material m;
    assert_true(rb_world_get_material(rb_sandbox_world(sb), 0, &m));
    return m;
}

static const char *message(rb_sandbox *sb, rb_panel_id id, bool *refused) {
    return rb_panels_message(rb_sandbox_panels(sb), id, refused);
}

/* A click a fraction fx across a control (the pointer moved there first),
 * and 6 frames; at (64 chars) gets the point, as script text. */
static void click_across(rb_sandbox *sb, const float r[4], float fx, char at[64]) {
    char text[256];
    point(r, fx, at, 64);
    snprintf(text, sizeof text, "0 move %s\n+0.05 click left %s\n", at, at);
    script(sb, text);
    run_frames(sb, 6);
}

/* Ctrl+click in the middle of the Material panel's slider `label`, type
 * `typed` and Return; the panel's message after, *refused whether it is a
 * refusal. */
static const char *type_into_material(rb_sandbox *sb, const char *label, const char *typed, bool *refused) {
    float r[4];
    rect_of(sb, RB_PANEL_MATERIAL, label, r);
    char at[64], text[512];
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text,
             "0 move %s\n+0.05 key down Left Ctrl\n+0.05 click left %s\n+0.05 key up Left Ctrl\n"
             "+0.05 text %s\n+0.05 key Return\n",
             at, at, typed);
    script(sb, text);
    run_frames(sb, 18);
    const char *m = message(sb, RB_PANEL_MATERIAL, refused);
    fprintf(stderr, "Material says: %s\n", m);
    return m;
}

/* A cube at rest on the ground in front of the camera. */
static rb_body_id add_cube(rb_sandbox *sb, float x, float z) {
    const int shape = rb_sandbox_world_shape(sb, "cube");
    assert_true(shape >= 0);
    rb_body_desc d = {.shape = (uint32_t)shape, .position = {x, 0.6f, z}, .orientation = {0, 0, 0, 1}};
    rb_body_id id = rb_world_add_body(rb_sandbox_world(sb), &d);
    assert_true(id.generation != 0);
    return id;
}

static void look(rb_sandbox *sb, const float eye[3], const float target[3]) {
    rb_camera *c = rb_sandbox_camera(sb);
    const float speed = c->speed;
    rb_camera_init(c, eye, target);
    c->speed = speed;
}

/* Where a world point lands in the window. */
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

/* Pixels of a and b inside r that differ by more than `by` in some channel. */
static int differing(const uint8_t *a, const uint8_t *b, const float r[4], int by) {
    int n = 0;
    for (int y = (int)r[1]; y < (int)(r[1] + r[3]) && y < H; y++)
        for (int x = (int)r[0]; x < (int)(r[0] + r[2]) && x < W; x++)
            for (int k = 0; k < 3; k++)
                if (abs(a[(y * W + x) * 4 + k] - b[(y * W + x) * 4 + k]) > by) {
                    n++;
                    break;
                }
    return n;
}

static uint8_t *pixels(rb_sandbox *sb) {
    int w, h;
    uint8_t *img;
    assert_true(rb_sandbox_read_pixels(sb, &w, &h, &img));
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    return img;
}

/* ---- drawing ---- */

/* Hidden, the panels draw nothing; F2 shows them where they say they are
 * (most of a panel's pixels change); F2 again takes them away: every
 * pixel where they were is as before they were ever shown. */
static void test_f2_shows_and_hides_the_panels(void **st) {
    rb_sandbox *sb = make_sandbox(false);
    add_cube(sb, 0.0f, 0.0f);
    look(sb, (float[3]){0.0f, 3.0f, 8.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    script(sb, "0 key Space\n");
    run_frames(sb, 2);
    assert_true(stats(sb).paused);
    assert_null(rb_sandbox_panels(sb)); /* not even started */
    uint8_t *before = pixels(sb);
    script(sb, "0 key F2\n");
    run_frames(sb, 3); /* the layout settles on the heights of the frame before */
    assert_true(rb_sandbox_panels_shown(sb));
    uint8_t *shown = pixels(sb);
    float world[4], material_r[4];
    rect_of(sb, RB_PANEL_WORLD, NULL, world);
    rect_of(sb, RB_PANEL_MATERIAL, NULL, material_r);
    fprintf(stderr, "World at %.0f %.0f, %.0f x %.0f\n", world[0], world[1], world[2], world[3]);
    /* clear of the HUD's lines (top left) and its "F1 help" (top right, above y 34) */
    assert_true(world[0] > 0.6f * W && world[1] >= 34.0f);
    assert_true(world[1] + world[3] <= material_r[1]); /* stacked, not overlapping */
    const int area = (int)(world[2] * world[3]), changed = differing(before, shown, world, 24);
    fprintf(stderr, "%d of %d pixels of the World panel changed\n", changed, area);
    assert_true(changed > area / 2);
    script(sb, "0 key F2\n");
    run_frames(sb, 1);
    assert_false(rb_sandbox_panels_shown(sb));
    uint8_t *hidden = pixels(sb);
    assert_int_equal(differing(before, hidden, world, 0), 0);
    assert_int_equal(differing(before, hidden, material_r, 0), 0);
    /* and the HUD's own lines are as they were, panels or not (their first line's figures aside) */
    const float hud[4] = {0.0f, 34.0f, 0.5f * W, 60.0f};
    assert_int_equal(differing(before, shown, hud, 0), 0);
    free(before), free(shown), free(hidden);
    assert_int_equal(stats(sb).gl_errors, 0);
    rb_sandbox_destroy(sb);
}

/* ---- sliders ---- */

/* A click on the friction slider sets it where it was clicked, and throws
 * nothing (the throw tool is on); the same click on the scene throws. */
static void test_click_on_a_slider_sets_it_and_throws_nothing(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    float r[4];
    rect_of(sb, RB_PANEL_MATERIAL, "friction", r);
    char at[64];
    click_across(sb, r, 0.75f, at);
    const float mu = material(sb).friction;
    fprintf(stderr, "friction %.3f after a click 3/4 along its slider (%s); clicked at %s in %.0f %.0f %.0f %.0f\n", mu,
            message(sb, RB_PANEL_MATERIAL, NULL), at, r[0], r[1], r[2], r[3]);
    assert_true(mu > 1.3f && mu < 1.7f); /* the slider runs 0 to 2 */
    assert_int_equal(stats(sb).bodies, 0);
    assert_int_equal(stats(sb).last_thrown.generation, 0);
    script(sb, "0 move 300 500\n+0.05 click left 300 500\n");
    run_frames(sb, 6);
    assert_int_equal(stats(sb).bodies, 1);
    rb_sandbox_destroy(sb);
}

/* The rolling friction slider (0 to 1, under friction): a click 3/4 along
 * it sets the material's rolling friction there; a typed 1.5 is refused
 * with the reason in the panel, and the material keeps the clicked value. */
static void test_rolling_friction_slider(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    float r[4], fr[4];
    rect_of(sb, RB_PANEL_MATERIAL, "rolling friction", r);
    rect_of(sb, RB_PANEL_MATERIAL, "friction", fr);
    assert_true(r[1] > fr[1]); /* below friction */
    assert_true(material(sb).rolling_friction == 0.0f);
    char at[64];
    click_across(sb, r, 0.75f, at);
    const float mu_r = material(sb).rolling_friction;
    fprintf(stderr, "rolling friction %.3f after a click 3/4 along its slider (%s)\n", mu_r,
            message(sb, RB_PANEL_MATERIAL, NULL));
    assert_true(mu_r > 0.65f && mu_r < 0.85f);
    assert_true(material(sb).friction == 0.5f);
    bool refused = false;
    const char *m = type_into_material(sb, "rolling friction", "1.5", &refused);
    assert_true(refused);
    assert_non_null(strstr(m, "rolling friction 1.5: must be a number from 0 to 1"));
    assert_true(material(sb).rolling_friction == mu_r);
    assert_int_equal(stats(sb).bodies, 0);
    rb_sandbox_destroy(sb);
}

/* Dragging the time scale's handle to the left end gives slow motion: the
 * sandbox takes a twentieth of the steps a second; nothing was thrown and
 * the camera did not turn. */
static void test_drag_time_scale_to_slow_motion(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    float r[4], yaw = rb_sandbox_camera(sb)->yaw;
    rect_of(sb, RB_PANEL_WORLD, "time scale", r);
    char from[64], to[64], text[512];
    point(r, 0.5f, from, sizeof from); /* the handle jumps there, and follows */
    snprintf(to, sizeof to, "%.0f %.0f", r[0] - 40.0f, r[1] + 0.5f * r[3]);
    snprintf(text, sizeof text,
             "0 move %s\n+0.05 button down left %s\n+0.05 move %s\n+0.05 move %s\n+0.05 button up left %s\n", from,
             from, to, to, to);
    script(sb, text);
    run_frames(sb, 14);
    rb_settings s;
    rb_sandbox_settings(sb, &s);
    fprintf(stderr, "time scale %.3f\n", s.clock->scale);
    assert_true(fabs(s.clock->scale - RB_TIME_SCALE_MIN) < 1e-6);
    const uint64_t steps = stats(sb).steps;
    run_frames(sb, 60); /* a second of clock: 625 steps at 1x */
    const uint64_t taken = stats(sb).steps - steps;
    fprintf(stderr, "%llu steps in a second (scale %.3f, step %g s)\n", (unsigned long long)taken, s.clock->scale,
            rb_world_get_desc(rb_sandbox_world(sb))->dt);
    assert_true(taken >= 30 && taken <= 33);
    assert_false(stats(sb).slowed);
    assert_int_equal(stats(sb).bodies, 0);
    assert_true(rb_sandbox_camera(sb)->yaw == yaw);
    rb_sandbox_destroy(sb);
}

/* ---- typed values ---- */

/* Ctrl+click on the friction slider types a value: -1 is refused with the
 * reason in the panel, the world keeps its friction and runs on. */
static void test_typed_bad_friction_is_refused(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    const float eye_y = rb_sandbox_camera(sb)->position[1];
    bool refused = false;
    const char *m = type_into_material(sb, "friction", "-1", &refused);
    assert_true(refused);
    assert_non_null(strstr(m, "friction -1: must be a number >= 0"));
    assert_true(material(sb).friction == 0.5f);
    assert_true(rb_sandbox_camera(sb)->position[1] == eye_y); /* Ctrl over a panel did not fly down */
    /* the reason is drawn in the panel, and the simulation runs on */
    float said[4];
    rect_of(sb, RB_PANEL_MATERIAL, "message", said);
    assert_true(said[3] > 0.0f);
    const uint64_t steps = stats(sb).steps;
    run_frames(sb, 6);
    assert_true(stats(sb).steps >= steps + 60);
    assert_int_equal(stats(sb).bodies, 0);
    rb_sandbox_destroy(sb);
}

/* A click in the middle of the World panel's step field, then `then`
 * (script lines timed from the click) and `frames` frames; the panel's
 * message after, *refused whether it is a refusal. */
static const char *into_step_field(rb_sandbox *sb, const char *then, int frames, bool *refused) {
    float r[4];
    rect_of(sb, RB_PANEL_WORLD, "step", r);
    char at[64], text[512];
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n%s", at, then);
    script(sb, text);
    run_frames(sb, frames);
    const char *m = message(sb, RB_PANEL_WORLD, refused);
    fprintf(stderr, "World says: %s\n", m);
    return m;
}

/* A step of 0 typed into the World panel is refused with the reason; a
 * step of 1 ms is taken live. Typing W into the field does not fly the
 * camera: the keys are the panel's. */
static void test_typed_step(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    const float eye[3] = {rb_sandbox_camera(sb)->position[0], rb_sandbox_camera(sb)->position[1],
                          rb_sandbox_camera(sb)->position[2]};
    bool refused = false;
    const char *m =
        into_step_field(sb,
                        "+0.05 key down W\n+0.3 key up W\n+0.05 key down Backspace\n+0.05 key up Backspace\n"
                        "+0.05 text 0\n+0.05 key Return\n",
                        40, &refused);
    assert_true(refused);
    assert_non_null(strstr(m, "step 0 s: must be above 0 s"));
    assert_true(rb_world_get_desc(rb_sandbox_world(sb))->dt == 0.0016f);
    const float *now = rb_sandbox_camera(sb)->position;
    assert_true(now[0] == eye[0] && now[1] == eye[1] && now[2] == eye[2]);
    const uint64_t steps = stats(sb).steps;
    run_frames(sb, 6);
    assert_true(stats(sb).steps >= steps + 60);
    into_step_field(sb, "+0.05 text 1\n+0.05 key Return\n", 12, &refused);
    assert_false(refused);
    assert_true(rb_world_get_desc(rb_sandbox_world(sb))->dt == 0.001f);
    rb_sandbox_destroy(sb);
}

/* Ctrl+A in a field selects its text, as in any text box, and what is
 * typed then replaces it. A modifier released within the frame of its
 * press (a key's release is handed over a frame late: panels.cpp) once
 * changed ImGui's modifiers within a frame, and its check of them aborted
 * the sandbox. */
static void test_ctrl_a_in_a_field(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    bool refused = true;
    /* End first: the click itself selects the field's text */
    into_step_field(sb,
                    "+0.1 key End\n+0.2 key down Left Ctrl\n+0.05 key A\n+0.15 key up Left Ctrl\n+0.05 text 2\n"
                    "+0.05 key Return\n",
                    50, &refused);
    assert_false(refused);
    assert_true(rb_world_get_desc(rb_sandbox_world(sb))->dt == 0.002f);
    rb_sandbox_destroy(sb);
}

/* ---- shapes, inspector, scene ---- */

/* The Shapes panel (folded at first: its arrow opens it) lists every shape;
 * a click on one makes it the one thrown. */
static void test_shapes_panel_picks_the_shape_to_throw(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    float r[4];
    rect_of(sb, RB_PANEL_SHAPES, NULL, r);
    char text[512];
    snprintf(text, sizeof text, "0 click left %.0f %.0f\n", r[0] + 10.0f, r[1] + 9.0f); /* its arrow */
    script(sb, text);
    run_frames(sb, 4);
    rect_of(sb, RB_PANEL_SHAPES, "cube2", r);
    char at[64];
    point(r, 0.3f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n", at);
    script(sb, text);
    run_frames(sb, 3);
    const rb_sandbox_stats s = stats(sb);
    const int row = rb_entities_find(rb_sandbox_entities(sb), "cube2");
    assert_true(row >= 0);
    assert_int_equal(s.shape, row);
    assert_int_equal(s.bodies, 0);
    rb_sandbox_destroy(sb);
}

/* The Inspector shows the body under the cursor, and none over the sky. */
static void test_inspector_shows_the_body_under_the_cursor(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    rb_body_id id = add_cube(sb, -2.0f, 0.0f);
    look(sb, (float[3]){-2.0f, 3.0f, 8.0f}, (float[3]){-2.0f, 0.6f, 0.0f});
    float x, y;
    project(sb, (float[3]){-2.0f, 0.6f, 0.6f}, &x, &y);
    char text[256];
    snprintf(text, sizeof text, "0 move %.0f %.0f\n", x, y);
    script(sb, text);
    run_frames(sb, 3);
    rb_panel_body b;
    assert_true(rb_sandbox_inspected(sb, &b));
    assert_int_equal(b.slot, id.slot);
    assert_string_equal(b.shape, "cube");
    assert_true(fabsf(b.mass - 1728.0f) < 1.0f);
    assert_false(b.grabbed);
    assert_false(b.kept);
    /* the cursor on a panel: the body stays, to be read, said to be the last under the cursor */
    float panel[4];
    rect_of(sb, RB_PANEL_INSPECTOR, NULL, panel);
    snprintf(text, sizeof text, "0 move %.0f %.0f\n", panel[0] + 0.5f * panel[2], panel[1] + 0.5f * panel[3]);
    script(sb, text);
    run_frames(sb, 3);
    assert_true(rb_sandbox_inspected(sb, &b));
    assert_int_equal(b.slot, id.slot);
    assert_true(b.kept);
    assert_false(b.kept_grabbed);
    /* grabbed, and let go with the cursor on the panel: the body last grabbed */
    snprintf(text, sizeof text,
             "0 move %.0f %.0f\n+0.05 key G\n+0.05 button down left\n+0.2 move %.0f %.0f\n+0.2 button up left\n", x, y,
             panel[0] + 0.5f * panel[2], panel[1] + 0.5f * panel[3]);
    script(sb, text);
    run_frames(sb, 40);
    assert_true(rb_sandbox_inspected(sb, &b));
    assert_int_equal(b.slot, id.slot);
    fprintf(stderr, "after the grab: kept %d, kept_grabbed %d, grabbed %d\n", b.kept, b.kept_grabbed, b.grabbed);
    assert_true(b.kept && b.kept_grabbed && !b.grabbed);
    script(sb, "0 move 200 60\n"); /* the sky */
    run_frames(sb, 2);
    assert_false(rb_sandbox_inspected(sb, &b));
    rb_sandbox_destroy(sb);
}

/* The Scene panel's "emitter" and "blast": the next click in the scene
 * places it there (as F and the B tool do at the cursor), then the tool is
 * the tool again. */
static void test_scene_panel_places_an_emitter_and_a_blast(void **st) {
    rb_sandbox *sb = make_sandbox_of(true, 4); /* a formation: a scene to load again at a new step */
    rb_panels_show(rb_sandbox_panels(sb), RB_PANEL_SHAPES, false);
    rb_panels_show(rb_sandbox_panels(sb), RB_PANEL_INSPECTOR, false);
    add_cube(sb, 8.0f, 0.0f);
    look(sb, (float[3]){8.0f, 3.0f, 8.0f}, (float[3]){8.0f, 0.6f, 0.0f});
    run_frames(sb, 3);
    float r[4];
    rect_of(sb, RB_PANEL_SCENE, NULL, r);
    char text[512], at[64];
    snprintf(text, sizeof text, "0 click left %.0f %.0f\n", r[0] + 10.0f, r[1] + 9.0f); /* unfold it */
    script(sb, text);
    run_frames(sb, 4);
    rect_of(sb, RB_PANEL_SCENE, "emitter", r);
    float gx, gy;
    project(sb, (float[3]){5.0f, 0.0f, 2.0f}, &gx, &gy); /* the ground */
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n+0.1 click left %.0f %.0f\n", at, gx, gy);
    script(sb, text);
    run_frames(sb, 12);
    rb_sandbox_stats s = stats(sb);
    assert_int_equal(s.emitters, 1);
    assert_true(s.last_thrown.generation == 0); /* the click placed, and threw nothing */
    float cx, cy;
    project(sb, (float[3]){8.0f, 0.6f, 0.6f}, &cx, &cy);
    run_frames(sb, 2);
    rect_of(sb, RB_PANEL_SCENE, "blast", r);
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n+0.1 click left %.0f %.0f\n", at, cx, cy);
    script(sb, text);
    run_frames(sb, 10);
    s = stats(sb);
    assert_true(s.last_exploded >= 1);
    /* the emitter is listed in the panel, its values editable through the same setters */
    rb_settings set;
    rb_sandbox_settings(sb, &set);
    rb_emitter_values v;
    assert_true(rb_settings_get_emitter(&set, 0, &v));
    v.rate = 5.0f;
    char why[512];
    assert_true(rb_settings_set_emitter(&set, 0, &v, why, sizeof why));
    assert_true(rb_panels_rect(rb_sandbox_panels(sb), RB_PANEL_SCENE, "emitter 1", r));
    /* with the debris layer a new step loads the scene again at it, and says so */
    assert_true(rb_sandbox_set_step(sb, 0.001f, why, sizeof why));
    fprintf(stderr, "%s\n", why);
    assert_non_null(strstr(why, "loaded again"));
    assert_true(rb_world_get_desc(rb_sandbox_world(sb))->dt == 0.001f);
    run_frames(sb, 2);
    rb_sandbox_destroy(sb);
}

/* A wheel over a panel is the panel's: the camera's flying speed stays. */
static void test_wheel_over_a_panel_is_the_panels(void **st) {
    rb_sandbox *sb = make_sandbox(true);
    run_frames(sb, 3);
    const float speed = rb_sandbox_camera(sb)->speed;
    float r[4];
    rect_of(sb, RB_PANEL_WORLD, NULL, r);
    char text[256], at[64];
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 move %s\n+0.05 wheel 3\n", at);
    script(sb, text);
    run_frames(sb, 6);
    assert_true(rb_sandbox_camera(sb)->speed == speed);
    script(sb, "0 move 300 400\n+0.05 wheel 3\n");
    run_frames(sb, 6);
    assert_true(rb_sandbox_camera(sb)->speed != speed);
    rb_sandbox_destroy(sb);
}

/* --replay: the Scene panel is the timeline; a click along its slider
 * shows that frame, the panels leave the HUD's bar along the bottom free,
 * and "simulate from frame K" makes the world live from that keyframe. */
static void test_replay_timeline(void **st) {
    char cache[600];
    snprintf(cache, sizeof cache, "%s/panels-replay.rbc", RB_TEST_BUILD_DIR);
    rb_options o;
    options_of(&o, false, 4);
    o.record = cache;
    rb_sandbox *sb = make_with(&o);
    run_frames(sb, 90); /* 1.5 s: keyframes at frames 0 and 60 */
    rb_sandbox_destroy(sb);
    options_of(&o, true, 4);
    o.replay = cache;
    sb = make_with(&o);
    rb_panels_show(rb_sandbox_panels(sb), RB_PANEL_SHAPES, false);
    script(sb, "0 key Space\n"); /* paused: the frame stays where it is put */
    run_frames(sb, 3);
    assert_false(rb_replay_playing(rb_sandbox_replay(sb)));
    float r[4];
    char text[512], at[64];
    rect_of(sb, RB_PANEL_SCENE, "frame", r); /* open from the start in a replay */
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n", at);
    script(sb, text);
    run_frames(sb, 4);
    const uint32_t last = rb_replay_cache(rb_sandbox_replay(sb))->frame_count - 1u,
                   now = rb_replay_frame(rb_sandbox_replay(sb));
    fprintf(stderr, "frame %u of 0..%u after a click half way along the timeline\n", now, last);
    assert_true(now + 3 >= last / 2 && now <= last / 2 + 3);
    /* every panel clear of the bar along the bottom (its backing starts 50 px up) */
    for (int k = 0; k < RB_PANEL_COUNT; k++)
        if (rb_panels_rect(rb_sandbox_panels(sb), (rb_panel_id)k, NULL, r)) assert_true(r[1] + r[3] <= H - 50.0f);
    rect_of(sb, RB_PANEL_SCENE, "simulate from here", r);
    point(r, 0.5f, at, sizeof at);
    snprintf(text, sizeof text, "0 click left %s\n", at);
    script(sb, text);
    run_frames(sb, 3);
    assert_null(rb_sandbox_replay(sb));
    assert_true(stats(sb).bodies >= 4);
    rb_sandbox_destroy(sb);
    remove(cache);
}

/* Each panel drawn inside a sw x sh window; with inside_only false also
 * clear of its middle (a 40 % x 40 % box about the centre). */
static void assert_panels_fit(rb_sandbox *sb, int sw, int sh, bool inside_only) {
    float r[4];
    int drawn = 0;
    for (int k = 0; k < RB_PANEL_COUNT; k++) {
        if (!rb_panels_rect(rb_sandbox_panels(sb), (rb_panel_id)k, NULL, r)) continue;
        drawn++;
        fprintf(stderr, "%dx%d: panel %d at (%.0f, %.0f), %.0f x %.0f\n", sw, sh, k, r[0], r[1], r[2], r[3]);
        assert_true(r[0] >= 0.0f && r[1] >= 0.0f && r[0] + r[2] <= (float)sw && r[1] + r[3] <= (float)sh);
        if (inside_only) continue;
        const float mx0 = 0.3f * sw, mx1 = 0.7f * sw, my0 = 0.3f * sh, my1 = 0.7f * sh;
        assert_false(r[0] < mx1 && r[0] + r[2] > mx0 && r[1] < my1 && r[1] + r[3] > my0);
    }
    assert_int_equal(drawn, RB_PANEL_COUNT);
    assert_false(rb_panels_over(rb_sandbox_panels(sb), 0.5f * sw, 0.5f * sh) && !inside_only);
}

/* At 960 x 540, live and replaying (whose Scene panel opens at 1280 x 720):
 * every panel starts folded, inside the window and clear of its middle;
 * every one opened, none goes past the left edge or out of the window. */
static void test_panels_fit_a_small_window(void **st) {
    char cache[600];
    snprintf(cache, sizeof cache, "%s/panels-small.rbc", RB_TEST_BUILD_DIR);
    rb_options o;
    options_of(&o, false, 4);
    o.record = cache;
    rb_sandbox *sb = make_with(&o);
    run_frames(sb, 10);
    rb_sandbox_destroy(sb);
    for (int replaying = 0; replaying < 2; replaying++) {
        options_of(&o, true, 4);
        o.width = 960, o.height = 540;
        o.replay = replaying ? cache : NULL;
        sb = make_with(&o);
        run_frames(sb, 3); /* the layout settles on the heights of the frame before */
        assert_panels_fit(sb, 960, 540, false);
        float r[4];
        for (int k = 0; k < RB_PANEL_COUNT; k++) rb_panels_fold(rb_sandbox_panels(sb), (rb_panel_id)k, false);
        run_frames(sb, 4);
        for (int k = 0; k < RB_PANEL_COUNT; k++) {
            rect_of(sb, (rb_panel_id)k, NULL, r);
            assert_true(r[3] > 60.0f); /* opened */
        }
        assert_panels_fit(sb, 960, 540, true);
        rb_sandbox_destroy(sb);
    }
    remove(cache);
}

/* The program shows the panels in a window a person drives, not in a
 * scripted run (its screenshots keep their look) unless --panels. */
static void test_panels_wanted(void **st) {
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    assert_true(rb_sandbox_panels_wanted(&o));
    o.script = "x.script";
    assert_false(rb_sandbox_panels_wanted(&o));
    o.script = NULL, o.frames = 10;
    assert_false(rb_sandbox_panels_wanted(&o));
    o.frames = 0, o.screenshot = "x.png";
    assert_false(rb_sandbox_panels_wanted(&o));
    o.panels = true;
    assert_true(rb_sandbox_panels_wanted(&o));
    char *argv[] = {"rubble", "--panels", "--frames", "3"};
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    char err[256];
    assert_true(rb_options_parse(&o, RB_PROGRAM_RUBBLE, 4, argv, err, sizeof err));
    assert_true(o.panels && rb_sandbox_panels_wanted(&o));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_panels_wanted),
        cmocka_unit_test(test_f2_shows_and_hides_the_panels),
        cmocka_unit_test(test_click_on_a_slider_sets_it_and_throws_nothing),
        cmocka_unit_test(test_drag_time_scale_to_slow_motion),
        cmocka_unit_test(test_typed_bad_friction_is_refused),
        cmocka_unit_test(test_rolling_friction_slider),
        cmocka_unit_test(test_typed_step),
        cmocka_unit_test(test_ctrl_a_in_a_field),
        cmocka_unit_test(test_shapes_panel_picks_the_shape_to_throw),
        cmocka_unit_test(test_inspector_shows_the_body_under_the_cursor),
        cmocka_unit_test(test_scene_panel_places_an_emitter_and_a_blast),
        cmocka_unit_test(test_wheel_over_a_panel_is_the_panels),
        cmocka_unit_test(test_replay_timeline),
        cmocka_unit_test(test_panels_fit_a_small_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
