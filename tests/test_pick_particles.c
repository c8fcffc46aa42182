/* Picking a body drawn as its particles (src/sandbox/pick.c): its bounds
 * are its particles' spheres, not their centres. A body of one particle of
 * radius 0.2 m has centres' bounds of a point; a ray 0.15 m off its centre
 * meets the sphere the frame draws and must pick it, at the distance where
 * it enters the sphere; a ray 0.25 m off misses it. Its box and bounding
 * radius as drawn are the sphere's. Reference backend, no window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "sandbox/pick.h"
#include "sandbox/view.h"
#include "scenes/entities.h"
#include "sim/world.h"

static const float R = 0.2f;

/* A world without planes (nothing else to hit) and a shape of one particle. */
static rb_world *one_particle_world(uint32_t *shape) {
    rb_world_desc d = rb_default_world_desc();
    d.backend = RB_BACKEND_REFERENCE;
    d.plane_count = 0;
    d.particle_radius = R;
    char err[256];
    rb_world *w = rb_world_create(&d, err, sizeof err);
    if (!w) fail_msg("world: %s", err);
    static const float at_centre[3] = {0.0f, 0.0f, 0.0f};
    const float m = 1.0f, inertia = 0.4f * m * R * R;
    const rb_shape_data s = {.particle_count = 1, .offsets = at_centre, .mass = m, .inertia = {inertia, inertia, inertia}};
    const int k = rb_world_add_shape(w, &s);
    assert_true(k >= 0);
    *shape = (uint32_t)k;
    return w;
}

static rb_body_id add(rb_world *w, uint32_t shape, float x, float y, float z) {
    const rb_body_desc d = {.shape = shape, .position = {x, y, z}, .orientation = {0, 0, 0, 1}};
    const rb_body_id id = rb_world_add_body(w, &d);
    assert_true(id.generation != 0);
    return id;
}

static void test_ray_through_the_sphere_off_the_centre_picks(void **state) {
    (void)state;
    uint32_t shape;
    rb_world *w = one_particle_world(&shape);
    /* another body first, far off the rays, so the one picked is not body 0 */
    const rb_body_id other = add(w, shape, 20.0f, 0.0f, 0.0f), ball = add(w, shape, 0.0f, 1.0f, 0.0f);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){0});
    rb_entities *entities = rb_entities_create(reg, w);
    rb_pick_meshes *pm = rb_pick_meshes_create();
    rb_view *view = rb_view_create();
    assert_true(rb_view_read(view, w));
    const float dir[3] = {0.0f, 0.0f, -1.0f};
    for (int particle_view = 0; particle_view < 2; particle_view++) {
        const rb_pick_scene scene = {.world = w, .entities = entities, .view = view, .particle_view = particle_view};
        /* 0.15 m off the centre along x, and along y: the sphere is entered
         * sqrt(R^2 - 0.15^2) before the centre's depth */
        const float offsets[2][2] = {{0.15f, 0.0f}, {0.0f, -0.15f}};
        for (int k = 0; k < 2; k++) {
            const float o[3] = {offsets[k][0], 1.0f + offsets[k][1], 10.0f};
            const rb_pick p = rb_pick_drawn(pm, &scene, o, dir);
            if (!p.body_hit) fail_msg("a ray 0.15 m off the particle's centre missed it (offset %d)", k);
            assert_int_equal(p.body.slot, ball.slot);
            assert_int_equal(p.body.generation, ball.generation);
            const float want = 10.0f - sqrtf(R * R - 0.15f * 0.15f);
            if (fabsf(p.distance - want) > 1e-4f) fail_msg("hit at %g m, expected %g m", p.distance, want);
        }
        /* 0.25 m off: outside the sphere, nothing behind it */
        assert_false(rb_pick_drawn(pm, &scene, (float[3]){0.25f, 1.0f, 10.0f}, dir).hit);
        /* its box and bounding radius as drawn (what F frames) are the sphere's */
        float lo[3], hi[3], radius;
        assert_true(rb_pick_body_bounds(pm, &scene, 1, lo, hi, &radius));
        for (int k = 0; k < 3; k++) {
            if (fabsf(lo[k] + R) > 1e-6f || fabsf(hi[k] - R) > 1e-6f)
                fail_msg("box as drawn on axis %d: %g to %g, expected -%g to %g", k, lo[k], hi[k], R, R);
        }
        if (fabsf(radius - R) > 1e-6f) fail_msg("bounding radius %g, expected the particle's %g", radius, R);
    }
    (void)other;
    rb_view_destroy(view);
    rb_pick_meshes_destroy(pm);
    rb_entities_destroy(entities);
    rb_registry_destroy(reg);
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ray_through_the_sphere_off_the_centre_picks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
