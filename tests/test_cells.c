/* The surface of particles' voxel cells (shapes.h, rb_cell_mesh): what a
 * piece of a broken body is drawn with. */
#include "rb_test.h"

static const float r = 0.2f;

/* Faces of the mesh of n particles at cells (integer triples, a diameter
 * apart), turned by angle about z and moved by (1, 2, 3): every face a
 * square of side 2 r, wound counter-clockwise about its normal, and
 * (for a convex set) facing away from the centre. */
static uint32_t faces_of(const int (*cells)[3], uint32_t n, float angle, bool convex) {
    float p[3 * 32], centre[3] = {0, 0, 0};
    const float c = cosf(angle), s = sinf(angle);
    assert_true(n <= 32);
    for (uint32_t i = 0; i < n; i++) {
        const float x = 2 * r * (float)cells[i][0], y = 2 * r * (float)cells[i][1], z = 2 * r * (float)cells[i][2];
        p[3 * i] = c * x - s * y + 1.0f, p[3 * i + 1] = s * x + c * y + 2.0f, p[3 * i + 2] = z + 3.0f;
        for (int k = 0; k < 3; k++) centre[k] += p[3 * i + k] / (float)n;
    }
    rb_mesh m;
    assert_true(rb_cell_mesh(p, n, r, &m));
    const uint32_t faces = m.index_count / 6;
    assert_int_equal(m.index_count, 6 * faces);
    assert_int_equal(m.vertex_count, 4 * faces);
    for (uint32_t t = 0; t < m.index_count / 3; t++) {
        const float *a = &m.positions[3 * m.indices[3 * t]], *b = &m.positions[3 * m.indices[3 * t + 1]],
                    *d = &m.positions[3 * m.indices[3 * t + 2]], *normal = &m.normals[3 * m.indices[3 * t]];
        const float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        const float x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        /* half a face: (2 r)^2 / 2, along the normal */
        assert_near(x[0] * normal[0] + x[1] * normal[1] + x[2] * normal[2], 4 * r * r, 1e-5);
        if (convex) {
            float out = 0.0f;
            for (int k = 0; k < 3; k++) out += (a[k] - centre[k]) * normal[k];
            assert_true(out > 0.0f);
        }
    }
    rb_mesh_free(&m);
    return faces;
}

static void test_faces_between_cells_left_out(void **state) {
    (void)state;
    static const int one[][3] = {{0, 0, 0}}, pair[][3] = {{0, 0, 0}, {1, 0, 0}};
    static const int ell[][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}};
    static const int slab[][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (int turned = 0; turned < 2; turned++) {
        const float angle = turned ? 0.5f : 0.0f; /* a piece's principal frame is turned from its parent's lattice */
        assert_int_equal(faces_of(one, 1, angle, true), 6);
        assert_int_equal(faces_of(pair, 2, angle, true), 10);
        assert_int_equal(faces_of(ell, 3, angle, false), 14);
        assert_int_equal(faces_of(slab, 4, angle, true), 16);
    }
    /* a 3x3x3 cube: 9 faces a side; a particle given twice counts once */
    int cube[28][3];
    for (int i = 0; i < 27; i++) cube[i][0] = i / 9, cube[i][1] = i / 3 % 3, cube[i][2] = i % 3;
    cube[27][0] = cube[27][1] = cube[27][2] = 1;
    assert_int_equal(faces_of((const int(*)[3])cube, 28, 0.3f, true), 54);
}

static void test_no_particles_no_mesh(void **state) {
    (void)state;
    rb_mesh m;
    assert_false(rb_cell_mesh(NULL, 0, r, &m));
    assert_int_equal(m.vertex_count, 0);
    rb_mesh_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faces_between_cells_left_out),
        cmocka_unit_test(test_no_particles_no_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
