/* test_tools.c - the sandbox's tools, camera and script parser without a
 * window: picking by rays against particles, the blast, the grab spring,
 * camera rays, and script lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/rb_math.h"
#include "camera.h"
#include "scenes/entities.h"
#include "script.h"
#include "sim/world.h"
#include "tools.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A world (reference backend) with one shape: a row of three particles along x. */
static rb_world *make_world(uint32_t *shape) {
    rb_world_desc d = rb_default_world_desc();
    d.backend = RB_BACKEND_REFERENCE;
    char err[256];
    rb_world *w = rb_world_create(&d, err, sizeof err);
    if (!w) fail_msg("world: %s", err);
    float r = d.particle_radius;
    static float offsets[9];
    for (int i = 0; i < 3; i++) offsets[i * 3] = (float)(i - 1) * 2.0f * r;
    float m = 3.0f, inertia = 2.0f * m * (2.0f * r) * (2.0f * r) / 3.0f + 0.4f * m * r * r;
    rb_shape_data s = {
        .particle_count = 3, .offsets = offsets, .mass = m, .inertia = {0.4f * m * r * r, inertia, inertia}};
    int k = rb_world_add_shape(w, &s);
    assert_true(k >= 0);
    *shape = (uint32_t)k;
    return w;
}

static rb_body_id add(rb_world *w, uint32_t shape, float x, float y, float z) {
    rb_body_desc d = {.shape = shape, .position = {x, y, z}, .orientation = {0, 0, 0, 1}};
    rb_body_id id = rb_world_add_body(w, &d);
    assert_true(id.generation != 0);
    return id;
}

static rb_pick pick(rb_world *w, const float o[3], const float dir[3]) {
    float particles[64 * 3];
    assert_true(rb_world_particle_count(w) <= 64);
    assert_true(rb_world_read_particles(w, particles));
    float d[3] = {dir[0], dir[1], dir[2]};
    float n = sqrtf(rb_v3_dot(d, d));
    for (int k = 0; k < 3; k++) d[k] /= n;
    return rb_pick_ray(w, particles, o, d);
}

static void test_pick_takes_the_nearest_particle_then_the_ground(void **state) {
    (void)state;
    uint32_t shape;
    rb_world *w = make_world(&shape);
    rb_body_id near = add(w, shape, 0.0f, 1.0f, 0.0f), far = add(w, shape, 0.0f, 1.0f, -5.0f);
    const float eye[3] = {0.0f, 1.0f, 10.0f};
    rb_pick p = pick(w, eye, (float[3]){0.0f, 0.0f, -1.0f});
    assert_true(p.hit && p.body_hit);
    assert_int_equal(p.body.slot, near.slot);
    assert_true(fabsf(p.distance - (10.0f - 0.2f)) < 1e-3f); /* the front of the middle particle */
    /* Just beside the near body's end particle (x = 0.4 + 0.2): misses it. Aimed at the far one's. */
    rb_pick q = pick(w, (float[3]){0.55f, 1.0f, 10.0f}, (float[3]){0.0f, 0.0f, -1.0f});
    assert_true(q.body_hit);
    assert_int_equal(q.body.slot, near.slot);
    q = pick(w, (float[3]){0.65f, 1.0f, 10.0f}, (float[3]){0.0f, 0.0f, -1.0f});
    assert_false(q.body_hit);
    (void)far;
    /* Down at the ground away from the bodies: a plane hit at y = 0. */
    rb_pick g = pick(w, (float[3]){5.0f, 3.0f, 0.0f}, (float[3]){0.0f, -1.0f, 0.0f});
    assert_true(g.hit);
    assert_false(g.body_hit);
    assert_true(fabsf(g.point[1]) < 1e-5f && fabsf(g.distance - 3.0f) < 1e-5f);
    /* Up into the sky: nothing. */
    assert_false(pick(w, eye, (float[3]){0.0f, 1.0f, 0.0f}).hit);
    rb_world_destroy(w);
}

/* The explode tool's blast, through the debris layer as the sandbox sets it
 * off: an impulse away from the centre and a little upward, fading to
 * nothing at the radius, to dynamic bodies only. */
static void test_blast_pushes_within_its_radius(void **state) {
    (void)state;
    uint32_t shape;
    rb_world *w = make_world(&shape);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){0});
    rb_entities *entities = rb_entities_create(reg, w);
    char err[256];
    static const rb_debris_desc none = {0};
    rb_debris *d = rb_debris_create(&none, entities, err, sizeof err);
    assert_non_null(d);
    rb_body_id a = add(w, shape, 1.0f, 0.5f, 0.0f), b = add(w, shape, -3.0f, 0.5f, 0.0f),
               c = add(w, shape, 9.0f, 0.5f, 0.0f);
    const float centre[3] = {0.0f, 0.0f, 0.0f};
    /* 30 N s: 10 m/s to these 3 kg bodies at the centre */
    const rb_blast blast = {.radius = 4.0f, .strength = 30.0f, .up = 0.5f};
    assert_int_equal(rb_blast_reach(w, centre, blast.radius), 2);
    const rb_field f = rb_blast_field(&blast, centre);
    assert_true(rb_debris_add_field(d, &f));
    assert_true(rb_debris_step(d, 1)); /* the first tick gives the impulse, then a step */
    rb_body_state sa, sb, sc;
    rb_world_get_body_by_id(w, a, &sa), rb_world_get_body_by_id(w, b, &sb), rb_world_get_body_by_id(w, c, &sc);
    assert_true(sa.velocity[0] > 0.0f && sb.velocity[0] < 0.0f);
    assert_true(sa.velocity[0] > -sb.velocity[0]); /* nearer, harder */
    assert_true(sa.velocity[1] > 0.0f);
    /* exactly the blast there: 10 m/s fading to 0 at 4 m, so 7.2 m/s at 1.12 m, along
     * (1, 0.5, 0) / 1.12 with 0.5 added upward, plus a step of gravity */
    const float dist_a = sqrtf(1.0f + 0.25f), speed = 10.0f * (1.0f - dist_a / 4.0f);
    float dir[3] = {1.0f / dist_a, 0.5f / dist_a + 0.5f, 0.0f};
    const float len = sqrtf(rb_v3_dot(dir, dir));
    const float *g = rb_world_get_desc(w)->gravity, dt = rb_world_get_desc(w)->dt;
    for (int k = 0; k < 3; k++) assert_true(fabsf(sa.velocity[k] - (speed * dir[k] / len + g[k] * dt)) < 1e-3f);
    assert_true(sc.velocity[0] == 0.0f && sc.velocity[2] == 0.0f);
    /* static and kinematic bodies in the blast are not moved, and not counted */
    rb_body_desc fixed = {.shape = shape, .position = {0.0f, 0.5f, 1.0f}, .kind = RB_BODY_STATIC};
    rb_body_id st = rb_world_add_body(w, &fixed);
    fixed.kind = RB_BODY_KINEMATIC, fixed.position[2] = -1.0f, fixed.velocity[0] = 0.25f;
    rb_body_id kin = rb_world_add_body(w, &fixed);
    assert_true(st.generation && kin.generation);
    assert_int_equal(rb_blast_reach(w, centre, blast.radius), 2);
    assert_true(rb_debris_add_field(d, &f));
    assert_true(rb_debris_step(d, 20)); /* past the next tick (every 10 steps) */
    rb_body_state s_st, s_kin;
    rb_world_get_body_by_id(w, st, &s_st), rb_world_get_body_by_id(w, kin, &s_kin);
    assert_true(s_st.velocity[0] == 0.0f && s_st.velocity[1] == 0.0f && s_st.velocity[2] == 0.0f);
    assert_true(s_kin.velocity[0] == 0.25f && s_kin.velocity[1] == 0.0f);
    /* and the grab does not take hold of them */
    rb_grab gr;
    rb_pick p = {.hit = true, .body_hit = true, .body = st, .point = {0.0f, 0.5f, 1.0f}, .distance = 2.0f};
    assert_false(rb_grab_begin(&gr, w, &p));
    assert_false(gr.active);
    rb_debris_destroy(d);
    rb_entities_destroy(entities);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

static void test_grab_spring_brings_the_point_to_the_target(void **state) {
    (void)state;
    uint32_t shape;
    rb_world *w = make_world(&shape);
    rb_body_id id = add(w, shape, 0.0f, 0.2f, 0.0f);
    const float eye[3] = {0.0f, 0.2f, 5.0f}, dir[3] = {0.0f, 0.0f, -1.0f};
    rb_pick p = pick(w, eye, dir);
    assert_true(p.body_hit);
    rb_grab g;
    assert_true(rb_grab_begin(&g, w, &p));
    /* The cursor moves 1.5 m up: the target follows at the picked depth. */
    rb_grab_aim(&g, (float[3]){0.0f, 1.7f, 5.0f}, dir);
    assert_true(fabsf(g.target[1] - 1.7f) < 1e-4f && fabsf(g.target[2] - p.point[2]) < 1e-4f);
    for (int i = 0; i < 750; i++) { /* 3 s in chunks of 4 steps */
        rb_grab_apply(&g, w, 4);
        assert_true(rb_world_step(w, 4));
    }
    float d[3] = {g.target[0] - g.anchor[0], g.target[1] - g.anchor[1], g.target[2] - g.anchor[2]};
    fprintf(stderr, "anchor %.3f %.3f %.3f, target %.3f %.3f %.3f\n", g.anchor[0], g.anchor[1], g.anchor[2],
            g.target[0], g.target[1], g.target[2]);
    assert_true(sqrtf(rb_v3_dot(d, d)) < 0.05f);
    rb_body_state s;
    rb_world_get_body_by_id(w, id, &s);
    /* At rest there, hanging from the held point: the swing about it is damped out. */
    assert_true(sqrtf(rb_v3_dot(s.velocity, s.velocity)) < 0.05f);
    assert_true(sqrtf(rb_v3_dot(s.angular_velocity, s.angular_velocity)) < 0.1f);
    /* The wheel moves it farther; a removed body ends the grab. */
    float depth = g.depth;
    rb_grab_wheel(&g, 2.0f);
    assert_true(g.depth > depth);
    rb_world_remove_body(w, id);
    rb_grab_apply(&g, w, 4);
    assert_false(g.active);
    rb_world_destroy(w);
}

static void test_throw_speed_grows_with_the_hold(void **state) {
    (void)state;
    assert_true(rb_throw_speed(0.0) == 8.0f);
    assert_true(rb_throw_speed(0.5) > rb_throw_speed(0.2));
    assert_true(rb_throw_speed(1.5) == 40.0f && rb_throw_speed(10.0) == 40.0f);
    uint32_t shape;
    rb_world *w = make_world(&shape);
    const float eye[3] = {1.0f, 2.0f, 3.0f}, dir[3] = {0.0f, 0.6f, -0.8f};
    rb_body_desc d = rb_tool_throw_desc(eye, dir, 1.0f, 20.0f, 7);
    d.shape = shape;
    rb_body_id id = rb_world_add_body(w, &d);
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    for (int k = 0; k < 3; k++) {
        assert_true(fabsf(s.position[k] - (eye[k] + dir[k])) < 1e-5f);
        assert_true(fabsf(s.velocity[k] - 20.0f * dir[k]) < 1e-4f);
    }
    rb_world_destroy(w);
}

static void test_camera_rays_and_look(void **state) {
    (void)state;
    rb_camera c;
    const float eye[3] = {3.0f, 4.0f, 5.0f}, target[3] = {0.0f, 1.0f, 0.0f};
    rb_camera_init(&c, eye, target);
    float f[3], r[3], u[3], o[3], d[3];
    rb_camera_basis(&c, f, r, u);
    float to[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float n = sqrtf(rb_v3_dot(to, to));
    assert_true(rb_v3_dot(f, to) / n > 0.9999f);
    /* The middle of the window looks straight ahead; the right edge to the right. */
    rb_camera_ray(&c, 800, 600, 399.5f, 299.5f, o, d);
    assert_true(rb_v3_dot(d, f) > 0.9999f);
    rb_camera_ray(&c, 800, 600, 799.0f, 299.5f, o, d);
    assert_true(rb_v3_dot(d, r) > 0.3f);
    /* Looking never goes past straight up. */
    rb_camera_turn(&c, 0.0f, -100000.0f);
    assert_true(c.pitch < 1.5708f);
    rb_camera_wheel(&c, 100.0f);
    assert_true(c.speed == 200.0f);
}

static void test_script_lines(void **state) {
    (void)state;
    char err[256];
    rb_script *s = rb_script_parse("# c\n1.0 key W\n+0.5 click left 10 20\n0.2 wheel -1\n0.3 button up right\n"
                                   "0.4 button down middle 1 2\n0.5 move 3 4\n",
                                   "t", err, sizeof err);
    assert_non_null(s);
    assert_true(fabs(rb_script_length(s) - 1.5) < 1e-9); /* relative to the line above, whatever the order */
    assert_false(rb_script_done(s));
    rb_script_destroy(s);
    static const char *const bad[] = {"key W\n",
                                      "1 key\n",
                                      "1 move 3\n",
                                      "1 button sideways left\n",
                                      "1 click left 5\n",
                                      "1 wheel\n",
                                      "1 screenshot\n",
                                      "-1 key W\n",
                                      "1 fly\n",
                                      "1 move 1 2 junk\n",
                                      "1 wheel 2x\n",
                                      "1 quit now\n",
                                      "1 button down left 5 6 7\n",
                                      "1 click left 5 y\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rb_script *b = rb_script_parse(bad[i], "bad", err, sizeof err);
        if (b) fail_msg("accepted '%s'", bad[i]);
        assert_non_null(strstr(err, "bad:1:"));
    }
    /* relative times that add up past any double (found by fuzz/fuzz_script.c) */
    assert_null(rb_script_parse("+1e308 key W\n+1e308 key W\n", "bad", err, sizeof err));
    assert_non_null(strstr(err, "bad:2: the time is too large"));
}

/* The emitter, wind and vortex keys' effects as the sandbox adds them: the
 * fountain's disc above the point it was placed at, aiming up; the wind
 * level, along the view's horizontal part, whatever the pitch; the vortex
 * about the vertical through its point. */
static void test_emitter_wind_and_vortex_descs(void **state) {
    (void)state;
    const float point[3] = {2.0f, 0.0f, -1.0f};
    const rb_emitter e = rb_tool_emitter("cube", 0.9f, point, 5);
    assert_string_equal(e.choices[0].shape, "cube");
    assert_int_equal(e.choice_count, 1);
    assert_true(e.rate == 20.0f && e.lifetime == 5.0f && e.duration == 0.0f && e.seed == 5);
    /* clear of the point by its half-size bodies' radius and more */
    assert_true(e.region.centre[0] == 2.0f && e.region.centre[2] == -1.0f);
    assert_true(e.region.centre[1] > e.choices[0].scale * 0.9f + 0.5f);
    assert_true(e.direction[1] == 1.0f);
    const float down_left[3] = {-0.48f, -0.8f, -0.36f}; /* looking down toward -x, -z */
    const rb_field w = rb_tool_wind(down_left);
    assert_int_equal(w.kind, RB_FIELD_WIND);
    assert_true(w.velocity[1] == 0.0f && w.duration == 3.0f && w.radius == 0.0f);
    assert_true(fabsf(w.velocity[0] + 15.0f * 0.8f) < 1e-4f);
    assert_true(fabsf(w.velocity[2] + 15.0f * 0.6f) < 1e-4f);
    const rb_field v = rb_tool_vortex(point);
    assert_int_equal(v.kind, RB_FIELD_VORTEX);
    assert_true(v.radius > 0.0f && v.duration == 5.0f && v.axis[1] == 1.0f && v.centre[0] == 2.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_takes_the_nearest_particle_then_the_ground),
        cmocka_unit_test(test_blast_pushes_within_its_radius),
        cmocka_unit_test(test_emitter_wind_and_vortex_descs),
        cmocka_unit_test(test_grab_spring_brings_the_point_to_the_target),
        cmocka_unit_test(test_throw_speed_grows_with_the_hold),
        cmocka_unit_test(test_camera_rays_and_look),
        cmocka_unit_test(test_script_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
