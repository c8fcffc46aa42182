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
    fputs("{ \"resolution\": 24 }\n", f); /* its numbers metres: the file's size is the shape's */
    assert_int_equal(fclose(f), 0);
    /* Its particles: the slanted box's longest bounding-box side over 24, in metres. */
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
    assert_float_equal(s->particle_radius, 0.5 * longest / 24.0, 1e-6); /* its own, not the registry's 0.2 m */
    const double to_metres = 1.0, sides[3] = {6.0, 3.0, 1.5};
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

/* ---- a pre-fractured mesh's parts ---- */

/* Volume enclosed by triangles [first, first + count) of m (divergence theorem), m^3. */
static double volume_of(const float *positions, const uint32_t *indices, uint32_t first, uint32_t count) {
    double sum = 0.0;
    for (uint32_t t = first; t < first + count; t++) {
        const float *a = &positions[3 * indices[3 * t]], *b = &positions[3 * indices[3 * t + 1]],
                    *c = &positions[3 * indices[3 * t + 2]];
        sum += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
               (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
               (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return sum / 6.0;
}

/* The shipped pillar (assets/meshes/pillar.obj: three chunks, each its own
 * object) through the registry: three parts, part k the file's chunk k, its
 * 12 triangles and their corners (the shape's mesh, triangles 12 k on, in
 * the principal frame), its volume the chunk's in the file; the faces where
 * two chunks meet (2 triangles on each side of each cut) marked inside. */
static void test_parts_of_the_shipped_pillar(void **state) {
    (void)state;
    const char *dirs[1] = {RB_ASSETS_DIR};
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.mesh_dirs = dirs, .mesh_dir_count = 1});
    assert_int_equal(rb_registry_load_plugin(reg, RB_MESH_PLUGIN), RB_LOAD_OK);
    const int at = rb_registry_find(reg, "pillar");
    assert_true(at >= 0);
    const rb_shape *s = rb_registry_get(reg, (uint32_t)at);
    assert_non_null(s->pieces);
    assert_int_equal(s->part_count, 3);
    /* the chunks in the file, read back from it */
    rb_gen_mesh file = {0};
    FILE *f = fopen(RB_ASSETS_DIR "/pillar.obj", "r");
    assert_non_null(f);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        double x, y, z;
        unsigned a, b, c;
        if (sscanf(line, "v %lf %lf %lf", &x, &y, &z) == 3) rb_gen_vertex(&file, x, y, z);
        if (sscanf(line, "f %u %u %u", &a, &b, &c) == 3) rb_gen_triangle(&file, a - 1, b - 1, c - 1);
    }
    fclose(f);
    assert_int_equal(file.triangle_count, 36);
    double total = 0.0;
    for (uint32_t k = 0; k < 3; k++) {
        const rb_mesh *p = &s->parts[k];
        assert_int_equal(s->part_piece[k], k);
        assert_int_equal(p->index_count, 36); /* its 12 triangles */
        /* its corners: the shape mesh's triangles 12 k .. 12 k + 11, to the bit */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        float mlo[3] = {INFINITY, INFINITY, INFINITY}, mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < p->vertex_count; v++)
            for (int a = 0; a < 3; a++)
                lo[a] = fminf(lo[a], p->positions[3 * v + a]), hi[a] = fmaxf(hi[a], p->positions[3 * v + a]);
        for (uint32_t i = 36 * k; i < 36 * k + 36; i++)
            for (int a = 0; a < 3; a++) {
                const float x = s->mesh.positions[3 * s->mesh.indices[i] + a];
                mlo[a] = fminf(mlo[a], x), mhi[a] = fmaxf(mhi[a], x);
            }
        for (int a = 0; a < 3; a++) assert_true(lo[a] == mlo[a] && hi[a] == mhi[a]);
        const double v = volume_of(p->positions, p->indices, 0, 12), want = volume_of(file.v, file.t, 12 * k, 12);
        printf("part %u: %u triangles, %.5f m^3 (the file's chunk %.5f), box %.3f x %.3f x %.3f m\n", k,
               p->index_count / 3, v, want, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        assert_true(fabs(v - want) < 1e-5 * want + 1e-7);
        total += v;
        /* the cut faces: the middle chunk has two (4 triangles, 12 corners), the others one each */
        uint32_t inside = 0;
        for (uint32_t c = 0; c < p->vertex_count; c++) inside += p->inside[c];
        assert_int_equal(inside, k == 1 ? 12 : 6);
    }
    assert_true(fabs(total - 0.8 * 0.8 * 2.4) < 1e-4);
    rb_gen_free(&file);
    rb_registry_destroy(reg);
}

/* A plugin's triangle pieces that name a piece no particle has: the shape
 * loads, without parts, with a warning naming it; good ones give parts. */
static void test_bad_triangle_pieces_cost_the_parts(void **state) {
    (void)state;
    static const float particles[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
    static const uint32_t pieces[8] = {7, 7, 7, 7, 9, 9, 9, 9};
    rb_gen_mesh box = {0};
    rb_gen_box(&box, 2.0, 2.0, 2.0);
    uint32_t triangle_pieces[12];
    for (int t = 0; t < 12; t++) triangle_pieces[t] = t < 6 ? 7 : 9;
    rb_shape_desc d = {
        .struct_size = sizeof d,
        .name = "two_piece",
        .description = "a test shape",
        .particle_count = 8,
        .particles = particles,
        .vertex_count = box.vertex_count,
        .vertices = box.v,
        .index_count = 3 * box.triangle_count,
        .indices = box.t,
        .pieces = pieces,
        .triangle_pieces = triangle_pieces,
    };
    rb_registry *reg = rb_registry_create(NULL);
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", NULL), RB_LOAD_OK);
    const rb_shape *good = rb_registry_get(reg, 0);
    assert_int_equal(good->part_count, 2);
    assert_true(good->part_piece[0] == 7 && good->part_piece[1] == 9);
    assert_int_equal(good->parts[0].index_count + good->parts[1].index_count, 36);
    triangle_pieces[11] = 8; /* no particle's */
    d.name = "bad_piece";
    said[0] = '\0';
    rb_set_log_fn(keep, NULL);
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", NULL), RB_LOAD_OK);
    rb_set_log_fn(NULL, NULL);
    const rb_shape *bad = rb_registry_get(reg, 1);
    assert_string_equal(bad->name, "bad_piece");
    assert_int_equal(bad->part_count, 0);
    assert_null(bad->parts);
    assert_non_null(bad->pieces); /* the pieces stay: only their meshes go */
    if (!strstr(said, "shape 'bad_piece': a triangle's piece 8 is no particle's piece"))
        fail_msg("expected the warning in:\n%s", said);
    rb_gen_free(&box);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_principal_frame_of_slanted_box), cmocka_unit_test(test_duplicate_names_the_mesh_file),
        cmocka_unit_test(test_parts_of_the_shipped_pillar), cmocka_unit_test(test_bad_triangle_pieces_cost_the_parts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
