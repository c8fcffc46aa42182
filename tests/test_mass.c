/* Mass properties and principal frames, checked against sums worked by hand. */
#include "rb_test.h"

static const float radius = 0.2f, particle_mass = 64.0f; /* 1000 kg/m^3 * (0.4 m)^3 */

/* The thesis's cube: 27 particles at spacing d = 0.4 m. By hand: each axis
 * has 18 particles at +-0.4 m in each of the other two coordinates, so
 * sum (y^2 + z^2) = 2 * 18 * 0.16 = 5.76 m^2, m * 5.76 = 368.64, plus
 * 27 * (2/5) m r^2 = 27.648: I = 396.288 kg m^2 about every axis. */
static void test_cube_by_hand(void **state) {
    float p[27 * 3];
    int k = 0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int l = -1; l <= 1; l++) p[k++] = 0.4f * i, p[k++] = 0.4f * j, p[k++] = 0.4f * l;
    float mass, com[3];
    double I[9];
    rb_mass_properties(p, 27, radius, particle_mass, &mass, com, I);
    assert_near(mass, 1728.0, 1e-3);
    for (int a = 0; a < 3; a++) {
        assert_near(com[a], 0.0, 1e-6);
        for (int b = 0; b < 3; b++) assert_near(I[3 * a + b], a == b ? 396.288 : 0.0, 1e-3);
    }
    /* The registry gives the same for the cube plugin (through dlopen). */
    rb_registry *reg = rb_test_registry();
    int c = rb_registry_find(reg, "cube");
    assert_true(c >= 0);
    const rb_shape *s = rb_registry_get(reg, (uint32_t)c);
    assert_int_equal(s->particle_count, 27);
    assert_near(s->mass, 1728.0, 1e-3);
    for (int a = 0; a < 3; a++) assert_near(s->inertia[a], 396.288, 1e-2);
    /* 2x2x2: 8 particles at +-0.2: sum (y^2 + z^2) = 8 * 0.08 = 0.64; I = 64 * 0.64 + 8 * 1.024 = 49.152 */
    c = rb_registry_find(reg, "cube2");
    assert_true(c >= 0);
    s = rb_registry_get(reg, (uint32_t)c);
    for (int a = 0; a < 3; a++) assert_near(s->inertia[a], 49.152, 1e-3);
    rb_registry_destroy(reg);
}

/* An L of four particles in the xy plane: (0,0) (1,0) (2,0) (0,1) in
 * diameters. Its normal (z) has the largest moment; in the plane the axes
 * lie at theta = atan2(2 Sxy, Sxx - Syy) / 2, worked here in doubles from
 * the definition, independent of the Jacobi code. */
static void test_l_shape_principal_axes(void **state) {
    static const float l_shape[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0};
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = radius});
    rb_shape_desc d = {.struct_size = sizeof d, .name = "ell", .particle_count = 4, .particles = l_shape};
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_mass"), RB_LOAD_OK);
    const rb_shape *s = rb_registry_get(reg, 0);

    const double dm = 0.4, cx = 0.75 * dm, cy = 0.25 * dm;
    double sxx = 0, syy = 0, sxy = 0;
    for (int i = 0; i < 4; i++) {
        double x = l_shape[3 * i] * dm - cx, y = l_shape[3 * i + 1] * dm - cy;
        sxx += x * x, syy += y * y, sxy += x * y;
    }
    const double sphere = 4 * 0.4 * particle_mass * radius * radius;
    double theta = 0.5 * atan2(2 * sxy, sxx - syy); /* direction of the largest spread */
    double spread_max = 0.5 * (sxx + syy) + sqrt(0.25 * (sxx - syy) * (sxx - syy) + sxy * sxy);
    double spread_min = sxx + syy - spread_max;
    /* moment about the axis of largest spread = m * (the other spread) */
    assert_near(s->inertia[0], particle_mass * spread_min + sphere, 1e-3);
    assert_near(s->inertia[1], particle_mass * spread_max + sphere, 1e-3);
    assert_near(s->inertia[2], particle_mass * (sxx + syy) + sphere, 1e-3);
    /* In the body frame: x along the largest spread, z the plane's normal. */
    for (int i = 0; i < 4; i++) {
        double x = l_shape[3 * i] * dm - cx, y = l_shape[3 * i + 1] * dm - cy;
        double along = x * cos(theta) + y * sin(theta), across = -x * sin(theta) + y * cos(theta);
        const float *b = &s->particles[3 * i];
        assert_near(fabs(b[0]), fabs(along), 1e-5);
        assert_near(fabs(b[1]), fabs(across), 1e-5);
        assert_near(b[2], 0.0, 1e-6);
    }
    /* and the tensor recomputed from the moved particles is diagonal */
    float mass, com[3];
    double I[9];
    rb_mass_properties(s->particles, 4, radius, particle_mass, &mass, com, I);
    assert_near(I[1], 0.0, 1e-4);
    assert_near(I[2], 0.0, 1e-4);
    assert_near(I[5], 0.0, 1e-4);
    for (int a = 0; a < 3; a++) assert_near(com[a], 0.0, 1e-6);
    rb_registry_destroy(reg);
}

/* Five particles in a row: about the rod's own axis only the spheres count,
 * 5 * (2/5) m r^2, which keeps the tensor invertible. */
static void test_collinear_rod(void **state) {
    static const float rod[15] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0};
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = radius});
    rb_shape_desc d = {.struct_size = sizeof d, .name = "rod", .particle_count = 5, .particles = rod};
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_mass"), RB_LOAD_OK);
    const rb_shape *s = rb_registry_get(reg, 0);
    const double sphere = 5 * 0.4 * particle_mass * radius * radius;
    const double along = particle_mass * 0.16 * (4 + 1 + 0 + 1 + 4); /* (+-2, +-1, 0) diameters */
    assert_near(s->inertia[0], sphere, 1e-4);
    assert_near(s->inertia[1], along + sphere, 1e-2);
    assert_near(s->inertia[2], along + sphere, 1e-2);
    assert_true(s->inertia[0] > 0.0f);
    /* the rod lies along the body's x axis (smallest moment) */
    for (int i = 0; i < 5; i++) assert_near(fabs(s->particles[3 * i]), fabs((i - 2) * 0.4), 1e-5);
    rb_registry_destroy(reg);
}

/* Jacobi on random symmetric matrices: R diag(values) R^T = A, R a rotation. */
static void test_eigen_random(void **state) {
    srand(7);
    for (int t = 0; t < 200; t++) {
        double a[9], values[3], r[9];
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) a[3 * i + j] = a[3 * j + i] = rand() / (double)RAND_MAX * 2.0 - 1.0;
        rb_sym3_eigen(a, values, r);
        assert_true(values[0] <= values[1] && values[1] <= values[2]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double back = 0, ortho = 0;
                for (int k = 0; k < 3; k++)
                    back += r[3 * i + k] * values[k] * r[3 * j + k], ortho += r[3 * k + i] * r[3 * k + j];
                assert_near(back, a[3 * i + j], 1e-9);
                assert_near(ortho, i == j ? 1.0 : 0.0, 1e-9);
            }
        double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
                     r[2] * (r[3] * r[7] - r[4] * r[6]);
        assert_near(det, 1.0, 1e-9);
    }
}

/* Mesh vertices and normals are bounded as particles are (1e6 diameters): a
 * larger one, scaled by the diameter and turned into the principal frame,
 * became an infinite vertex (found by fuzz/fuzz_registry.c). The bound itself
 * is taken, and comes out finite. */
static void test_mesh_too_large_is_refused(void **state) {
    static const float one[3] = {0, 0, 0};
    static const uint32_t tri[3] = {0, 1, 2};
    rb_registry *reg = rb_registry_create(NULL);
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, n[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    rb_shape_desc d = {.struct_size = sizeof d,
                       .name = "big",
                       .particle_count = 1,
                       .particles = one,
                       .vertex_count = 3,
                       .vertices = v,
                       .normals = n,
                       .index_count = 3,
                       .indices = tri,
                       .particle_diameter = 1e3f};
    v[3] = 3e38f;
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_mass"), RB_LOAD_NON_FINITE);
    v[3] = 1.0f, n[0] = 3e38f;
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_mass"), RB_LOAD_NON_FINITE);
    n[0] = 0.0f, v[3] = 1e6f, v[7] = -1e6f;
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_mass"), RB_LOAD_OK);
    const rb_shape *s = rb_registry_get(reg, 0);
    for (int i = 0; i < 9; i++) assert_true(isfinite(s->mesh.positions[i]) && isfinite(s->mesh.normals[i]));
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_by_hand),  cmocka_unit_test(test_l_shape_principal_axes),
        cmocka_unit_test(test_collinear_rod), cmocka_unit_test(test_mesh_too_large_is_refused),
        cmocka_unit_test(test_eigen_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
