/* test_tools.c - the sandbox's tools, camera and script parser without a
 * window: picking by rays against particles and against drawn meshes, the
 * blast, the grab spring, camera rays, orbit and focus, and script lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/rb_math.h"
#include "sandbox/camera.h"
#include "sandbox/pick.h"
#include "scenes/entities.h"
#include "sandbox/script.h"
#include "sim/world.h"
#include "sandbox/tools.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- picking what is drawn (pick.h) ---- */

/* A 3 x 3 x 3 cube of particles of radius 0.2 (1.2 m a side, as the cube
 * plugin's), in a world of its own; the world shape into *shape. */
static rb_world *cube_world(uint32_t *shape) {
    rb_world_desc d = rb_default_world_desc();
    d.backend = RB_BACKEND_REFERENCE;
    char err[256];
    rb_world *w = rb_world_create(&d, err, sizeof err);
    if (!w) fail_msg("world: %s", err);
    static float offsets[27 * 3];
    for (int i = 0; i < 27; i++)
        for (int k = 0; k < 3; k++) offsets[i * 3 + k] = 0.4f * (float)((i / (k == 0 ? 1 : k == 1 ? 3 : 9)) % 3 - 1);
    const float m = 1728.0f, inertia = m * 1.44f / 6.0f;
    rb_shape_data s = {.particle_count = 27, .offsets = offsets, .mass = m, .inertia = {inertia, inertia, inertia}};
    int k = rb_world_add_shape(w, &s);
    assert_true(k >= 0);
    *shape = (uint32_t)k;
    return w;
}

/* The cube's drawn mesh, as the cube plugin draws it: 8 corners at +-0.6, 12 triangles. */
static rb_mesh cube_mesh(void) {
    rb_mesh m = {.vertex_count = 8, .index_count = 36};
    m.positions = malloc(8 * 3 * sizeof(float));
    m.indices = malloc(36 * sizeof(uint32_t));
    assert_non_null(m.positions);
    assert_non_null(m.indices);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) m.positions[i * 3 + k] = (i >> k) & 1 ? 0.6f : -0.6f;
    static const uint32_t faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                         {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    for (int f = 0; f < 6; f++) {
        const uint32_t q[6] = {faces[f][0], faces[f][1], faces[f][2], faces[f][0], faces[f][2], faces[f][3]};
        memcpy(&m.indices[f * 6], q, sizeof q);
    }
    return m;
}

/* Where a world point lands in a w x h view of camera c (pixels from the top left). */
static void to_pixel(const rb_camera *c, int w, int h, const float p[3], float *x, float *y) {
    float view[16], proj[16];
    rb_camera_matrices(c, w, h, view, proj);
    mat4 vp;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv(vp, in, o);
    *x = (o[0] / o[3] * 0.5f + 0.5f) * (float)w;
    *y = (0.5f - o[1] / o[3] * 0.5f) * (float)h;
}

/* The case: a click 4 px inside a drawn corner of a cube hits the
 * cube, where the spheres' pick misses it (the corner particle's sphere
 * leaves the mesh's corner empty); 4 px outside the corner misses it. The
 * cube is turned (so its frame is the body's, not the world's) and seen
 * from the front, above and to the right, as a user sees a resting cube,
 * in the default window (at 320 x 240, 4 px is 0.16 m there, and the
 * spheres reach it). */
static void test_pick_hits_the_drawn_corner(void **state) {
    (void)state;
    enum { WIDTH = 1280, HEIGHT = 720 }; /* the default window */
    uint32_t shape;
    rb_world *w = cube_world(&shape);
    float q[4];
    rb_quat_from_axis_angle((float[3]){0.0f, 1.0f, 0.0f}, 0.3f, q);
    rb_body_desc bd = {.shape = shape, .position = {0.0f, 0.6f, 0.0f}, .orientation = {q[0], q[1], q[2], q[3]}};
    const rb_body_id id = rb_world_add_body(w, &bd);
    assert_true(id.generation != 0);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){0});
    rb_entities *entities = rb_entities_create(reg, w);
    assert_non_null(entities);
    /* the shape has no entity row: it is drawn with the mesh given it (a renderer's mesh 0), as a piece's is */
    assert_true(rb_entities_set_shape_mesh(entities, shape, 0));
    rb_pick_meshes *pm = rb_pick_meshes_create();
    rb_mesh m = cube_mesh();
    assert_true(rb_pick_meshes_take(pm, w, shape, &m));
    assert_null(m.positions); /* taken */
    rb_view *view = rb_view_create();
    assert_true(rb_view_read(view, w));
    const rb_pick_scene scene = {.world = w, .entities = entities, .view = view};
    rb_camera cam;
    rb_camera_init(&cam, (float[3]){2.0f, 2.6f, 6.0f}, (float[3]){0.0f, 0.6f, 0.0f});
    /* the top corner nearest the eye, to the right: (+0.6, +0.6, +0.6) in the body frame */
    float corner[3], local[3] = {0.6f, 0.6f, 0.6f}, cx, cy, mx, my;
    rb_quat_rotate(q, local, corner);
    for (int k = 0; k < 3; k++) corner[k] += bd.position[k];
    to_pixel(&cam, WIDTH, HEIGHT, corner, &cx, &cy);
    to_pixel(&cam, WIDTH, HEIGHT, bd.position, &mx, &my);
    /* 4 px from the corner toward the cube's middle on screen, and 4 px away from it */
    const float len = sqrtf((mx - cx) * (mx - cx) + (my - cy) * (my - cy)), ux = (mx - cx) / len, uy = (my - cy) / len;
    float particles[27 * 3], o[3], d[3];
    assert_true(rb_world_read_particles(w, particles));
    for (int side = -1; side <= 1; side += 2) {
        const float px = cx + side * 4.0f * ux, py = cy + side * 4.0f * uy;
        rb_camera_ray(&cam, WIDTH, HEIGHT, px - 0.5f, py - 0.5f, o, d); /* pixel (x, y)'s ray passes its centre */
        const rb_pick mesh = rb_pick_drawn(pm, &scene, o, d), spheres = rb_pick_ray(w, particles, o, d);
        fprintf(stderr, "%s the corner (%.1f, %.1f): mesh %s, spheres %s\n", side > 0 ? "4 px inside" : "4 px outside",
                px, py, mesh.body_hit ? "hit" : "missed", spheres.body_hit ? "hit" : "missed");
        assert_int_equal(mesh.body_hit, side > 0);
        assert_false(spheres.body_hit); /* the spheres miss both: the bug the mesh pick mends */
        if (side > 0) {
            assert_int_equal(mesh.body.slot, id.slot);
            /* the point is on the cube's surface, near the corner */
            float rel[3] = {mesh.point[0] - corner[0], mesh.point[1] - corner[1], mesh.point[2] - corner[2]};
            assert_true(sqrtf(rb_v3_dot(rel, rel)) < 0.3f);
        } else {
            assert_true(mesh.hit); /* the ground behind it */
        }
    }
    /* the middle: both hit, the mesh's front face before the particles' spheres (their fronts sit on it) */
    rb_camera_ray(&cam, WIDTH, HEIGHT, mx - 0.5f, my - 0.5f, o, d);
    const rb_pick mid = rb_pick_drawn(pm, &scene, o, d), mid_spheres = rb_pick_ray(w, particles, o, d);
    assert_true(mid.body_hit && mid_spheres.body_hit);
    assert_true(mid.distance <= mid_spheres.distance + 1e-4f);
    /* the particle view draws the particles: then they are what is picked */
    const rb_pick_scene as_particles = {.world = w, .entities = entities, .view = view, .particle_view = true};
    rb_camera_ray(&cam, WIDTH, HEIGHT, cx + 4.0f * ux - 0.5f, cy + 4.0f * uy - 0.5f, o, d);
    assert_false(rb_pick_drawn(pm, &as_particles, o, d).body_hit);
    /* the box and reach the debug views and the selection draw */
    float lo[3], hi[3], radius;
    assert_true(rb_pick_body_bounds(pm, &scene, 0, lo, hi, &radius));
    for (int k = 0; k < 3; k++) assert_true(fabsf(lo[k] + 0.6f) < 1e-6f && fabsf(hi[k] - 0.6f) < 1e-6f);
    assert_true(fabsf(radius - 0.6f * sqrtf(3.0f)) < 1e-5f);
    assert_false(rb_pick_body_bounds(pm, &scene, 1, lo, hi, &radius));
    rb_view_destroy(view);
    rb_pick_meshes_destroy(pm);
    rb_entities_destroy(entities);
    rb_registry_destroy(reg);
    rb_world_destroy(w);
}

/* A body drawn as its particles (no mesh) is picked by its spheres, read
 * from the view when the ray meets its bounding sphere; a body behind
 * another is not picked through it. */
static void test_pick_without_a_mesh_takes_the_particles(void **state) {
    (void)state;
    uint32_t shape;
    rb_world *w = make_world(&shape); /* a row of three particles along x */
    const rb_body_id near = add(w, shape, 0.0f, 1.0f, 0.0f), far = add(w, shape, 0.0f, 1.0f, -5.0f);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){0});
    rb_entities *entities = rb_entities_create(reg, w);
    rb_pick_meshes *pm = rb_pick_meshes_create();
    rb_view *view = rb_view_create();
    assert_true(rb_view_read(view, w));
    const rb_pick_scene scene = {.world = w, .entities = entities, .view = view};
    const float dir[3] = {0.0f, 0.0f, -1.0f};
    rb_pick p = rb_pick_drawn(pm, &scene, (float[3]){0.0f, 1.0f, 10.0f}, dir);
    assert_true(p.body_hit);
    assert_int_equal(p.body.slot, near.slot);
    assert_true(fabsf(p.distance - 9.8f) < 1e-4f);
    /* beside the near one's end particle (x = 0.4 + 0.2) but in the far one's: missed, as the spheres are */
    assert_false(rb_pick_drawn(pm, &scene, (float[3]){0.65f, 1.0f, 10.0f}, dir).body_hit);
    p = rb_pick_drawn(pm, &scene, (float[3]){0.55f, 1.0f, 10.0f}, dir);
    assert_true(p.body_hit); /* a miss leaves a zeroed id, whose slot 0 is the near one's */
    assert_int_equal(p.body.slot, near.slot);
    assert_int_equal(p.body.generation, near.generation);
    /* the near body gone: the far one behind it */
    assert_true(rb_world_remove_body(w, near));
    p = rb_pick_drawn(pm, &scene, (float[3]){0.0f, 1.0f, 10.0f}, dir); /* the view reads the bodies again */
    assert_int_equal(p.body.slot, far.slot);
    rb_view_destroy(view);
    rb_pick_meshes_destroy(pm);
    rb_entities_destroy(entities);
    rb_registry_destroy(reg);
    rb_world_destroy(w);
}

static void test_ray_triangle(void **state) {
    (void)state;
    const float a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
    float t;
    assert_true(rb_ray_triangle((float[3]){0.2f, 0.2f, 3.0f}, (float[3]){0, 0, -1}, a, b, c, &t));
    assert_true(fabsf(t - 3.0f) < 1e-6f);
    assert_true(rb_ray_triangle((float[3]){0.2f, 0.2f, -3.0f}, (float[3]){0, 0, 1}, a, b, c, &t));  /* from behind */
    assert_false(rb_ray_triangle((float[3]){0.6f, 0.6f, 3.0f}, (float[3]){0, 0, -1}, a, b, c, &t)); /* past the slope */
    assert_false(rb_ray_triangle((float[3]){0.2f, 0.2f, 3.0f}, (float[3]){0, 0, 1}, a, b, c, &t));  /* behind the eye */
    assert_false(rb_ray_triangle((float[3]){0.2f, 0.2f, 3.0f}, (float[3]){1, 0, 0}, a, b, c, &t));  /* along it */
}

/* ---- the camera: orbit and focus ---- */

static float distance(const float a[3], const float b[3]) {
    const float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrtf(rb_v3_dot(d, d));
}

/* An orbit keeps the eye's distance to the centre while it turns the view
 * about it, and keeps the centre in the middle of the view, whatever the
 * camera looked at before; its pitch stops short of straight up or down. */
static void test_orbit_keeps_distance_and_centre(void **state) {
    (void)state;
    rb_camera c;
    rb_camera_init(&c, (float[3]){3.0f, 4.0f, 9.0f}, (float[3]){5.0f, 0.0f, -3.0f}); /* not at the centre */
    const float centre[3] = {1.0f, 0.5f, -1.0f}, dist = distance(c.position, centre);
    /* it turns about the centre from where the eye is: a pixel's orbit moves the eye a little, not
     * onto the line of the old view through the centre */
    float eye[3];
    memcpy(eye, c.position, sizeof eye);
    rb_camera_orbit(&c, centre, 1.0f, 0.0f);
    assert_true(distance(c.position, eye) < 0.01f * dist);
    const float moves[][2] = {{120.0f, 0.0f}, {0.0f, -60.0f}, {-300.0f, 45.0f}, {80.0f, 5000.0f}, {10.0f, -9000.0f}};
    float yaw = c.yaw;
    for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
        rb_camera_orbit(&c, centre, moves[i][0], moves[i][1]);
        float x, y;
        to_pixel(&c, 800, 600, centre, &x, &y);
        fprintf(stderr, "orbit %zu: distance %.5f (was %.5f), centre at (%.2f, %.2f), pitch %.3f\n", i,
                distance(c.position, centre), dist, x, y, c.pitch);
        assert_true(fabsf(distance(c.position, centre) - dist) < 1e-4f * dist);
        assert_true(fabsf(x - 400.0f) < 0.05f && fabsf(y - 300.0f) < 0.05f);
        assert_true(fabsf(c.pitch) <= 1.55f + 1e-6f);
    }
    assert_true(fabsf(c.yaw - yaw) > 0.1f); /* it turned */
    /* 120 px to the right turn the eye 0.42 rad about the vertical through the centre, at its height */
    rb_camera_init(&c, (float[3]){0.0f, 0.5f, 10.0f}, centre);
    const float h0 = c.position[1];
    rb_camera_orbit(&c, centre, 120.0f, 0.0f);
    assert_true(fabsf(c.position[1] - h0) < 1e-4f);
    const float before[2] = {0.0f - centre[0], 10.0f - centre[2]},
                after[2] = {c.position[0] - centre[0], c.position[2] - centre[2]};
    const float turned =
        atan2f(before[0] * after[1] - before[1] * after[0], before[0] * after[0] + before[1] * after[1]);
    assert_true(fabsf(fabsf(turned) - 120.0f * 0.0035f) < 1e-3f);
}

/* Focus puts the centre in the middle of the view at the distance where a
 * sphere of the radius fills half its height, never nearer than 1.5 m. */
static void test_focus_frames_the_centre(void **state) {
    (void)state;
    rb_camera c;
    rb_camera_init(&c, (float[3]){0.0f, 3.0f, 20.0f}, (float[3]){0.0f, 0.0f, 0.0f});
    const float yaw = c.yaw, pitch = c.pitch, centre[3] = {4.0f, 1.0f, -2.0f};
    rb_camera_focus(&c, centre, 2.0f);
    float x, y;
    to_pixel(&c, 800, 600, centre, &x, &y);
    assert_true(fabsf(x - 400.0f) < 0.05f && fabsf(y - 300.0f) < 0.05f);
    assert_true(c.yaw == yaw && c.pitch == pitch); /* the heading is kept */
    assert_true(fabsf(distance(c.position, centre) - 2.0f / tanf(0.25f * c.fov_y)) < 1e-4f);
    /* the sphere's top edge: a quarter of the height above the middle */
    float f[3], r[3], u[3], top[3];
    rb_camera_basis(&c, f, r, u);
    float cu[3];
    rb_v3_cross(r, f, cu);
    for (int k = 0; k < 3; k++) top[k] = centre[k] + cu[k] * 2.0f;
    to_pixel(&c, 800, 600, top, &x, &y);
    fprintf(stderr, "a 2 m sphere's top at y %.1f of 600\n", y);
    assert_true(fabsf(y - 150.0f) < 15.0f);
    rb_camera_focus(&c, centre, 0.01f);
    assert_true(fabsf(distance(c.position, centre) - 1.5f) < 1e-5f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_takes_the_nearest_particle_then_the_ground),
        cmocka_unit_test(test_pick_hits_the_drawn_corner),
        cmocka_unit_test(test_pick_without_a_mesh_takes_the_particles),
        cmocka_unit_test(test_ray_triangle),
        cmocka_unit_test(test_orbit_keeps_distance_and_centre),
        cmocka_unit_test(test_focus_frames_the_centre),
        cmocka_unit_test(test_blast_pushes_within_its_radius),
        cmocka_unit_test(test_emitter_wind_and_vortex_descs),
        cmocka_unit_test(test_grab_spring_brings_the_point_to_the_target),
        cmocka_unit_test(test_throw_speed_grows_with_the_hold),
        cmocka_unit_test(test_camera_rays_and_look),
        cmocka_unit_test(test_script_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
