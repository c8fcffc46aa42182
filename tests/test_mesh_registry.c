/* test_mesh_registry.c - a voxelized mesh through the shape registry: the
 * registry moves particles and render mesh into the principal frame, and for
 * a slanted box (its axes known: its edges) that frame lines up with them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "base/log.h"
#include "shapegen.h"
#include "shapes/shapes.h"

/* A 6 x 3 x 1.5 box turned 40 degrees about the axis (1, 2, 3) / sqrt(14):
 * Rodrigues' formula R = cI + s[k]x + (1 - c) k k^T. */
static void slanted_box(rb_gen_mesh *m, double rotation[9]) {
    const double k[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, a = 40.0 * 3.14159265358979 / 180.0;
    const double c = cos(a), s = sin(a), t[3] = {0.3, -0.2, 0.1};
    const double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) rotation[3 * i + j] = (i == j ? c : 0.0) + s * K[3 * i + j] + (1 - c) * k[i] * k[j];
    rb_gen_box(m, 6.0, 3.0, 1.5);
    rb_gen_transform(m, rotation, t);
}

static void test_principal_frame_of_slanted_box(void **state) {
    (void)state;
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s", RB_TEST_OUT);
    mkdir(dir, 0755);
    rb_gen_mesh m = {0};
    double R[9];
    slanted_box(&m, R);
    snprintf(path, sizeof path, "%s/slanted.off", dir);
    assert_true(rb_gen_write_off(&m, path));
    snprintf(path, sizeof path, "%s/slanted.off.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{ \"resolution\": 24 }\n", f);
    assert_int_equal(fclose(f), 0);
    /* Mesh units per diameter: the slanted box's longest bounding-box side over 24. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, longest = 0.0;
    for (uint32_t v = 0; v < m.vertex_count; v++)
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], m.v[3 * v + k]), hi[k] = fmax(hi[k], m.v[3 * v + k]);
    for (int k = 0; k < 3; k++) longest = fmax(longest, hi[k] - lo[k]);
    rb_gen_free(&m);

    const char *dirs[1] = {dir};
    rb_registry_desc desc = {.particle_radius = 0.2f, .density = 1000.0f, .mesh_dirs = dirs, .mesh_dir_count = 1};
    rb_registry *reg = rb_registry_create(&desc);
    assert_non_null(reg);
    assert_int_equal(rb_registry_load_plugin(reg, RB_MESH_PLUGIN), RB_LOAD_OK);
    int index = rb_registry_find(reg, "slanted");
    assert_true(index >= 0);
    const rb_shape *s = rb_registry_get(reg, (uint32_t)index);

    /* Moments ascending: long axis first, short axis last. */
    printf("slanted box: %u particles, I = (%.4g, %.4g, %.4g) kg m^2\n", s->particle_count, s->inertia[0],
           s->inertia[1], s->inertia[2]);
    assert_true(s->inertia[0] < s->inertia[1] && s->inertia[1] < s->inertia[2]);
    /* Particles: centre of mass at the origin. */
    double com[3] = {0, 0, 0};
    for (uint32_t i = 0; i < s->particle_count; i++)
        for (int k = 0; k < 3; k++) com[k] += s->particles[3 * i + k] / s->particle_count;
    for (int k = 0; k < 3; k++) assert_true(fabs(com[k]) < 1e-3);

    /* The render mesh in that frame: if its axes are the box's edges, its
     * extents are the box's sides (m), in order; a frame off by a degree
     * would widen the 1.5 side by 6 sin(1 deg) = 0.1, 7%. */
    assert_true(s->mesh.vertex_count > 0);
    double mlo[3] = {INFINITY, INFINITY, INFINITY}, mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < s->mesh.vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            mlo[k] = fmin(mlo[k], s->mesh.positions[3 * v + k]);
            mhi[k] = fmax(mhi[k], s->mesh.positions[3 * v + k]);
        }
    const double to_metres = 2.0 * 0.2 / (longest / 24.0), sides[3] = {6.0, 3.0, 1.5};
    for (int k = 0; k < 3; k++) {
        double got = mhi[k] - mlo[k], want = sides[k] * to_metres;
        printf("axis %d: mesh extent %.4f m, box side %.4f m (%+.2f%%)\n", k, got, want, 100 * (got - want) / want);
        assert_true(fabs(got - want) < 0.03 * want);
    }
    rb_registry_destroy(reg);
}

static char said[4096];

static void keep(rb_log_level level, const char *message, void *user) {
    (void)level, (void)user;
    size_t n = strlen(said);
    snprintf(said + n, sizeof said - n, "%s\n", message);
}

/* A side file that names its mesh's shape after one already loaded: the
 * registry's warning names the plugin, the mesh file and the shape. */
static void test_duplicate_names_the_mesh_file(void **state) {
    (void)state;
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/dup", RB_TEST_OUT);
    mkdir(RB_TEST_OUT, 0755);
    mkdir(dir, 0755);
    rb_gen_mesh m = {0};
    rb_gen_box(&m, 1.0, 1.0, 1.0);
    snprintf(path, sizeof path, "%s/other.off", dir);
    assert_true(rb_gen_write_off(&m, path));
    rb_gen_free(&m);
    FILE *f = fopen(strcat(path, ".json"), "w");
    assert_non_null(f);
    fputs("{ \"name\": \"other\", \"resolution\": 3 }\n", f);
    assert_int_equal(fclose(f), 0);
    const char *dirs[1] = {dir};
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.mesh_dirs = dirs, .mesh_dir_count = 1});
    assert_non_null(reg);
    assert_int_equal(rb_registry_load_plugin(reg, RB_MESH_PLUGIN), RB_LOAD_OK);
    said[0] = '\0';
    rb_set_log_fn(keep, NULL);
    /* the same folder through a second registry entry: every shape is a duplicate */
    assert_int_equal(rb_registry_load_plugin(reg, RB_MESH_PLUGIN), RB_LOAD_DUPLICATE_NAME);
    rb_set_log_fn(NULL, NULL);
    snprintf(path, sizeof path, "file %s/other.off: a shape named 'other' is already loaded (from plugin mesh)", dir);
    if (!strstr(said, path)) fail_msg("expected '%s' in:\n%s", path, said);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_principal_frame_of_slanted_box),
                                       cmocka_unit_test(test_duplicate_names_the_mesh_file)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
