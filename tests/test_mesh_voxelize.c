/* test_mesh_voxelize.c - the voxelizer of the mesh plugin, called directly:
 * counts against volume, exact lattices, holes, flipped triangles, surface
 * shells, the fast winding number against the exact one, and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mesh_load.h"
#include "shapegen.h"
#include "voxelize.h"

#define PI 3.14159265358979323846

static rb_vox_result voxelize(const rb_gen_mesh *m, uint32_t resolution, bool surface, rb_voxels *out) {
    rb_vox_desc d = {.positions = m->v,
                     .vertex_count = m->vertex_count,
                     .indices = m->t,
                     .triangle_count = m->triangle_count,
                     .resolution = resolution,
                     .surface_only = surface};
    return rb_voxelize(&d, out);
}

/* The real sphere966.off of the CGAL data set (Debian's libcgal-demo), copied into tests/data. */
static void load_fixture(const char *name, rb_gen_mesh *m) {
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", RB_TEST_DATA, name);
    rb_mesh_data d;
    assert_true(rb_mesh_load(path, false, &d, err, sizeof err));
    for (uint32_t v = 0; v < d.vertex_count; v++)
        rb_gen_vertex(m, d.positions[3 * v], d.positions[3 * v + 1], d.positions[3 * v + 2]);
    for (uint32_t t = 0; t < d.triangle_count; t++)
        rb_gen_triangle(m, d.indices[3 * t], d.indices[3 * t + 1], d.indices[3 * t + 2]);
    rb_mesh_data_free(&d);
}

/* Count within 5% of the sphere's volume over the cell volume, in diameters:
 * (4/3) pi (N/2)^3 for N across. */
static void check_sphere(const rb_gen_mesh *m, uint32_t resolution) {
    rb_voxels v;
    assert_int_equal(voxelize(m, resolution, false, &v), RB_VOX_OK);
    double expected = 4.0 / 3.0 * PI * pow(resolution / 2.0, 3.0);
    printf("sphere at %u across: %u particles, volume / cell %.1f (%+.2f%%)\n", resolution, v.count, expected,
           100.0 * (v.count - expected) / expected);
    assert_true(fabs(v.count - expected) <= 0.05 * expected);
    rb_voxels_free(&v);
}

static void test_sphere_count_near_volume(void **state) {
    (void)state;
    rb_gen_mesh ico = {0}, real = {0};
    rb_gen_icosphere(&ico, 4);
    load_fixture("sphere966.off", &real);
    /* From 12 across up; below that the lattice itself strays more than 5%
     * from the volume (10 across: +5.4%, whatever the inside test). */
    for (uint32_t n = 12; n <= 32; n += 4) {
        check_sphere(&ico, n);
        check_sphere(&real, n);
    }
    rb_gen_free(&ico);
    rb_gen_free(&real);
}

/* A 4 x 2 x 1 box at 8 across: an 8 x 4 x 2 lattice, every voxel, in x-major
 * order, centred on the origin, spaced one diameter. */
static void test_box_exact_lattice(void **state) {
    (void)state;
    rb_gen_mesh box = {0};
    rb_gen_box(&box, 4.0, 2.0, 1.0);
    rb_voxels v;
    assert_int_equal(voxelize(&box, 8, false, &v), RB_VOX_OK);
    assert_int_equal(v.dims[0], 8);
    assert_int_equal(v.dims[1], 4);
    assert_int_equal(v.dims[2], 2);
    assert_int_equal(v.count, 64);
    assert_true(fabs(v.cell - 0.5) < 1e-12);
    uint32_t n = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 2; k++, n++) {
                assert_true(v.particles[3 * n] == (float)(i - 3.5));
                assert_true(v.particles[3 * n + 1] == (float)(j - 1.5));
                assert_true(v.particles[3 * n + 2] == (float)(k - 0.5));
            }
    rb_voxels_free(&v);
    /* The real cube.off (side 2) at 5 across: 125 particles. */
    rb_gen_mesh cube = {0};
    load_fixture("cube.off", &cube);
    assert_int_equal(voxelize(&cube, 5, false, &v), RB_VOX_OK);
    assert_int_equal(v.count, 125);
    rb_voxels_free(&v);
    rb_gen_free(&box);
    rb_gen_free(&cube);
}

/* Drops triangles [first, first + count) of m into out. */
static void without(const rb_gen_mesh *m, uint32_t first, uint32_t count, rb_gen_mesh *out) {
    for (uint32_t v = 0; v < m->vertex_count; v++) rb_gen_vertex(out, m->v[3 * v], m->v[3 * v + 1], m->v[3 * v + 2]);
    for (uint32_t t = 0; t < m->triangle_count; t++)
        if (t < first || t >= first + count) rb_gen_triangle(out, m->t[3 * t], m->t[3 * t + 1], m->t[3 * t + 2]);
}

static void check_hole(const rb_gen_mesh *closed, uint32_t first, uint32_t count, uint32_t resolution) {
    rb_gen_mesh holed = {0};
    without(closed, first, count, &holed);
    rb_voxels a, b;
    assert_int_equal(voxelize(closed, resolution, false, &a), RB_VOX_OK);
    assert_int_equal(voxelize(&holed, resolution, false, &b), RB_VOX_OK);
    printf("missing %u faces: %u particles, closed %u, %u open edges\n", count, b.count, a.count, b.open_edges);
    assert_true(b.open_edges > 0);
    assert_true(fabs((double)b.count - a.count) <= 0.1 * a.count);
    rb_voxels_free(&a);
    rb_voxels_free(&b);
    rb_gen_free(&holed);
}

static void test_missing_face_within_10_percent(void **state) {
    (void)state;
    rb_gen_mesh box = {0}, ico = {0}, real = {0};
    rb_gen_box(&box, 2.0, 1.5, 1.0);
    rb_gen_icosphere(&ico, 3);
    load_fixture("sphere966.off", &real);
    check_hole(&box, 0, 2, 10);    /* a whole side of the box */
    check_hole(&ico, 100, 1, 16);  /* one triangle */
    check_hole(&ico, 200, 40, 16); /* a patch of 40 */
    check_hole(&real, 500, 1, 16);
    rb_gen_free(&box);
    rb_gen_free(&ico);
    rb_gen_free(&real);
}

/* Triangles turned the wrong way, one by one or a whole inside-out copy,
 * give the same particles as the clean mesh. */
static void test_flipped_triangles_tolerated(void **state) {
    (void)state;
    rb_gen_mesh ico = {0}, bad = {0}, inverted = {0};
    rb_gen_icosphere(&ico, 3);
    for (uint32_t v = 0; v < ico.vertex_count; v++) {
        rb_gen_vertex(&bad, ico.v[3 * v], ico.v[3 * v + 1], ico.v[3 * v + 2]);
        rb_gen_vertex(&inverted, ico.v[3 * v], ico.v[3 * v + 1], ico.v[3 * v + 2]);
    }
    uint32_t turned = 0;
    for (uint32_t t = 0; t < ico.triangle_count; t++) {
        const uint32_t *c = ico.t + 3 * t;
        bool flip = t % 3 == 0;
        turned += flip;
        rb_gen_triangle(&bad, c[0], flip ? c[2] : c[1], flip ? c[1] : c[2]);
        rb_gen_triangle(&inverted, c[0], c[2], c[1]);
    }
    rb_voxels a, b, c;
    assert_int_equal(voxelize(&ico, 16, false, &a), RB_VOX_OK);
    assert_int_equal(voxelize(&bad, 16, false, &b), RB_VOX_OK);
    assert_int_equal(voxelize(&inverted, 16, false, &c), RB_VOX_OK);
    assert_int_equal(a.flipped, 0);
    assert_int_equal(b.flipped, turned);
    assert_int_equal(c.flipped, ico.triangle_count);
    assert_int_equal(b.count, a.count);
    assert_int_equal(c.count, a.count);
    assert_memory_equal(b.particles, a.particles, 3 * sizeof(float) * a.count);
    rb_voxels_free(&a);
    rb_voxels_free(&b);
    rb_voxels_free(&c);
    rb_gen_free(&ico);
    rb_gen_free(&bad);
    rb_gen_free(&inverted);
}

static bool has_particle(const rb_voxels *v, float x, float y, float z) {
    for (uint32_t i = 0; i < v->count; i++)
        if (v->particles[3 * i] == x && v->particles[3 * i + 1] == y && v->particles[3 * i + 2] == z) return true;
    return false;
}

/* Surface-only (Harada 29.2.9): exactly the solid particles that have a face
 * neighbour outside the solid. */
static void test_surface_is_the_solid_shell(void **state) {
    (void)state;
    rb_gen_mesh ico = {0};
    rb_gen_icosphere(&ico, 3);
    rb_voxels solid, shell;
    assert_int_equal(voxelize(&ico, 14, false, &solid), RB_VOX_OK);
    assert_int_equal(voxelize(&ico, 14, true, &shell), RB_VOX_OK);
    assert_int_equal(shell.solid_count, solid.count);
    assert_true(shell.count < solid.count);
    uint32_t expected = 0;
    for (uint32_t i = 0; i < solid.count; i++) {
        const float *p = solid.particles + 3 * i;
        bool outside = false;
        for (int axis = 0; axis < 3; axis++)
            for (int s = -1; s <= 1; s += 2) {
                float q[3] = {p[0], p[1], p[2]};
                q[axis] += (float)s;
                outside = outside || !has_particle(&solid, q[0], q[1], q[2]);
            }
        expected += outside;
        assert_int_equal(has_particle(&shell, p[0], p[1], p[2]), outside);
    }
    assert_int_equal(shell.count, expected);
    printf("sphere at 14 across: %u solid, %u on the surface\n", solid.count, shell.count);
    rb_voxels_free(&solid);
    rb_voxels_free(&shell);
    rb_gen_free(&ico);
}

/* The hierarchy's dipole sums stay within 0.05 of the exact sum everywhere. */
static void test_fast_winding_matches_exact(void **state) {
    (void)state;
    rb_gen_mesh torus = {0};
    rb_gen_torus(&torus, 1.0, 0.4, 64, 32);
    rb_winding *w = rb_winding_create(torus.v, torus.t, torus.triangle_count);
    assert_non_null(w);
    unsigned seed = 1;
    double worst = 0.0;
    for (int i = 0; i < 2000; i++) {
        double q[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            q[k] = ((seed >> 8 & 0xffff) / 65535.0 * 2.0 - 1.0) * (k == 2 ? 0.6 : 1.6);
        }
        double fast = rb_winding_at(w, q), exact = rb_winding_exact(torus.v, torus.t, torus.triangle_count, q);
        if (fabs(fast - exact) > worst) worst = fabs(fast - exact);
    }
    printf("torus, 2000 points: largest |fast - exact| winding number %.2e\n", worst);
    assert_true(worst < 0.05);
    /* In the tube, in the hole and far away: 1, 0 and 0 exactly, and near that fast. */
    const double points[3][3] = {{1.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {10.0, 3.0, -2.0}}, value[3] = {1.0, 0.0, 0.0};
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(rb_winding_exact(torus.v, torus.t, torus.triangle_count, points[i]) - value[i]) < 1e-9);
        assert_true(fabs(rb_winding_at(w, points[i]) - value[i]) < 0.05);
    }
    rb_winding_destroy(w);
    rb_gen_free(&torus);
}

static void test_bad_input(void **state) {
    (void)state;
    rb_voxels v;
    rb_gen_mesh m = {0};
    /* No triangles. */
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_NO_TRIANGLES);
    /* An index past the last vertex. */
    rb_gen_box(&m, 1, 1, 1);
    m.t[5] = 99;
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_BAD_INDEX);
    rb_gen_free(&m);
    /* NaN and infinity. */
    rb_gen_box(&m, 1, 1, 1);
    m.v[4] = NAN;
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_NON_FINITE);
    m.v[4] = INFINITY;
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_NON_FINITE);
    rb_gen_free(&m);
    /* Flat: a box of zero height, and two copies of one square facing apart
     * (extent in every axis, no volume). */
    rb_gen_box(&m, 2, 1, 0);
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_FLAT);
    rb_gen_free(&m);
    const double R[9] = {0.8, 0.0, -0.6, 0.0, 1.0, 0.0, 0.6, 0.0, 0.8}, t[3] = {0, 0, 0};
    uint32_t a = rb_gen_vertex(&m, 0, 0, 0), b = rb_gen_vertex(&m, 1, 0, 0), c = rb_gen_vertex(&m, 1, 1, 0),
             d = rb_gen_vertex(&m, 0, 1, 0);
    rb_gen_triangle(&m, a, b, c);
    rb_gen_triangle(&m, a, c, d);
    rb_gen_triangle(&m, a, c, b);
    rb_gen_triangle(&m, a, d, c);
    rb_gen_transform(&m, R, t); /* tilted, so the bounding box is not flat */
    assert_int_equal(voxelize(&m, 10, false, &v), RB_VOX_FLAT);
    rb_gen_free(&m);
    /* Too thin for any voxel centre at 4 across: a torus of tube radius 1/50. */
    rb_gen_torus(&m, 1.0, 0.02, 64, 8);
    assert_int_equal(voxelize(&m, 4, false, &v), RB_VOX_NONE_INSIDE);
    assert_int_equal(v.count, 0);
    assert_null(v.particles);
    /* ... but fine at 100 across. */
    assert_int_equal(voxelize(&m, 100, false, &v), RB_VOX_OK);
    rb_voxels_free(&v);
    rb_gen_free(&m);
    /* Past the particle limit: refused early (4 million) and exactly (a small limit). */
    rb_gen_icosphere(&m, 2);
    assert_int_equal(voxelize(&m, 200, false, &v), RB_VOX_TOO_MANY);
    assert_true(v.estimate > 65536.0);
    rb_vox_desc small = {.positions = m.v,
                         .vertex_count = m.vertex_count,
                         .indices = m.t,
                         .triangle_count = m.triangle_count,
                         .resolution = 10,
                         .max_particles = 300};
    assert_int_equal(rb_voxelize(&small, &v), RB_VOX_TOO_MANY);
    assert_true(v.estimate > 300.0 && v.estimate < 700.0);
    assert_null(v.particles);
    rb_gen_free(&m);
    for (int r = 0; r < RB_VOX_RESULT_COUNT; r++) assert_true(strlen(rb_vox_result_text((rb_vox_result)r)) > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_count_near_volume),
        cmocka_unit_test(test_box_exact_lattice),
        cmocka_unit_test(test_missing_face_within_10_percent),
        cmocka_unit_test(test_flipped_triangles_tolerated),
        cmocka_unit_test(test_surface_is_the_solid_shell),
        cmocka_unit_test(test_fast_winding_matches_exact),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
