/* The cells contact law's far touches on the OpenCL backend (kernels/forces.cl):
 * a sphere meets a lattice body's cell up to r_s + sqrt(3) (1 + RB_CELL_SEAM) h
 * from the cell's centre, farther than two spheres ever touch, and a cell
 * reaches up to sqrt(3) h below its centre toward a plane. Each case is set
 * up where the reference's contact law (src/sim/contact.h) finds a touch
 * that a force pass bounded as for spheres would miss; the forces of the
 * CPU and of the GPU kernel sets must be the reference's bit for bit. */
#include "rb_test.h"

static const float h = 0.3f;  /* the cube's particles' radius: half a cell's side */
static const float rs = 0.05f; /* the pebble's */

/* A cube of 2 x 2 x 2 particles (a lattice: every cell has three exposed
 * faces) and a pebble of one particle; returns their world shape indices. */
static void add_shapes(rb_world *w, uint32_t *cube, uint32_t *pebble) {
    float offsets[8 * 3];
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) offsets[3 * i + k] = (i >> k & 1) ? h : -h;
    const float side = 4.0f * h, mass = 8.0f, moment = mass * side * side / 6.0f;
    const rb_shape_data c = {8, offsets, mass, {moment, moment, moment}, h};
    const float one[3] = {0.0f, 0.0f, 0.0f};
    const float pm = 0.01f, pi = 0.4f * pm * rs * rs;
    const rb_shape_data p = {1, one, pm, {pi, pi, pi}, rs};
    const int a = rb_world_add_shape(w, &c), b = rb_world_add_shape(w, &p);
    assert_true(a >= 0 && b >= 0);
    *cube = (uint32_t)a, *pebble = (uint32_t)b;
}

static void add_body(rb_world *w, const rb_body_desc *d) {
    const rb_body_id id = rb_world_add_body(w, d);
    assert_true(id.slot != 0 || id.generation != 0);
}

/* q for a turn of angle about axis (normalized here). */
static void turn(const float axis[3], float angle, float q[4]) {
    const float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]), s = sinf(0.5f * angle);
    for (int k = 0; k < 3; k++) q[k] = axis[k] / len * s;
    q[3] = cosf(0.5f * angle);
}

/* A pebble at yb from the centre of the cube's cell (-h, -h, -h) (its body
 * frame; the cell's exposed faces are -x, -y, -z), the cube at centre,
 * turned by q. */
static void add_pair(rb_world *w, uint32_t cube, uint32_t pebble, const float centre[3], const float q[4],
                     const float yb[3]) {
    rb_body_desc c = {.shape = cube, .position = {centre[0], centre[1], centre[2]}};
    memcpy(c.orientation, q, sizeof c.orientation);
    add_body(w, &c);
    const float local[3] = {yb[0] - h, yb[1] - h, yb[2] - h};
    float world[3];
    rb_quat_rotate(q, local, world);
    rb_body_desc p = {.shape = pebble,
                      .position = {centre[0] + world[0], centre[1] + world[1], centre[2] + world[2]}};
    add_body(w, &p);
}

/* The scene: pebbles where the cell law reaches farthest, and a cube on its
 * corner over the ground. Particle indices of interest in probe[]. */
static rb_world *make_scene(rb_backend_kind backend, const char *kernels, uint32_t probe[3]) {
    rb_world_desc d = rb_default_world_desc();
    d.backend = backend;
    if (kernels) setenv("RUBBLE_OPENCL_KERNELS", kernels, 1);
    char err[512] = "";
    rb_world *w = rb_world_create(&d, err, sizeof err);
    unsetenv("RUBBLE_OPENCL_KERNELS");
    if (!w) fail_msg("world: %s", err);
    uint32_t cube, pebble;
    add_shapes(w, &cube, &pebble);
    const float axis[3] = {0.3f, 0.8f, 0.52f};
    float q[4];
    turn(axis, 0.7f, q);
    /* In the seams of two faces that go on (+x, +y) and off the exposed -z
     * face: sqrt(2 (1.095 h)^2 + (h + 0.95 rs)^2) = 0.580 from the cell's
     * centre, past sqrt(3) h + rs = 0.570 and past the farthest touch with
     * one axis in a seam (0.578: src/sim/cell_reach.c). */
    const float seam[3] = {1.095f * h, 1.095f * h, -h - 0.95f * rs};
    const float at_a[3] = {-4.0f, 5.0f, 0.0f};
    add_pair(w, cube, pebble, at_a, q, seam);
    probe[0] = 8; /* the pebble: the cube's 8 particles come first */
    /* Off the corner (-x, -y, -z), 0.95 rs from it: sqrt(3) (h + 0.55 rs) =
     * 0.567 from the cell's centre, past r_s + r_c = 0.35. */
    const float corner[3] = {-h - 0.55f * rs, -h - 0.55f * rs, -h - 0.55f * rs};
    const float at_b[3] = {4.0f, 5.0f, 0.0f};
    add_pair(w, cube, pebble, at_b, q, corner);
    probe[1] = 17;
    /* A cube on its corner over the ground (y = 0): its lowest cell's
     * centre 0.51 up, its corner sqrt(3) h = 0.52 below that, so it
     * touches, while its centre is farther than r + RB_IMMINENT_MARGIN
     * max_radius from the plane. */
    const float down[3] = {-1.0f, -1.0f, -1.0f}, to[3] = {0.0f, -1.0f, 0.0f};
    float across[3] = {down[1] * to[2] - down[2] * to[1], down[2] * to[0] - down[0] * to[2],
                       down[0] * to[1] - down[1] * to[0]};
    float qc[4];
    turn(across, acosf(1.0f / sqrtf(3.0f)), qc);
    float low[3];
    rb_quat_rotate(qc, (float[3]){-h, -h, -h}, low);
    assert_near(low[1], -sqrtf(3.0f) * h, 1e-5); /* the cell (-h, -h, -h) is the lowest */
    rb_body_desc c = {.shape = cube, .position = {0.0f, 0.51f - low[1], 4.0f}};
    memcpy(c.orientation, qc, sizeof c.orientation);
    add_body(w, &c);
    probe[2] = 18; /* its particle at (-h, -h, -h) */
    assert_int_equal(rb_world_particle_count(w), 26);
    return w;
}

static void test_far_touches_match_reference(void **state) {
    (void)state;
    uint32_t probe[3];
    rb_world *ref = make_scene(RB_BACKEND_REFERENCE, NULL, probe);
    const uint32_t n = rb_world_particle_count(ref);
    float *fr = calloc(3 * (size_t)n, sizeof *fr), *fo = calloc(3 * (size_t)n, sizeof *fo);
    assert_non_null(fr), assert_non_null(fo);
    assert_true(rb_world_particle_forces(ref, fr));
    /* the reference's law touches in each case: the pebbles are pushed, the
     * cube on its corner held up */
    for (int k = 0; k < 2; k++) {
        const float *f = &fr[3 * probe[k]];
        printf("    pebble %d: force %.6g %.6g %.6g\n", k, f[0], f[1], f[2]);
        assert_true(f[0] != 0.0f || f[1] != 0.0f || f[2] != 0.0f);
    }
    printf("    corner on the ground: force y %.6g\n", fr[3 * probe[2] + 1]);
    assert_true(fr[3 * probe[2] + 1] > 0.0f);
    const char *sets[2] = {"cpu", "gpu"};
    for (int s = 0; s < 2; s++) {
        rb_world *w = make_scene(RB_BACKEND_OPENCL, sets[s], probe);
        assert_int_equal(rb_world_particle_count(w), n);
        assert_true(rb_world_particle_forces(w, fo));
        for (uint32_t i = 0; i < n; i++)
            if (memcmp(&fo[3 * i], &fr[3 * i], 3 * sizeof *fo) != 0)
                fail_msg("%s kernels, particle %u: %.9g %.9g %.9g, reference %.9g %.9g %.9g", sets[s], i, fo[3 * i],
                         fo[3 * i + 1], fo[3 * i + 2], fr[3 * i], fr[3 * i + 1], fr[3 * i + 2]);
        rb_world_destroy(w);
    }
    free(fr), free(fo);
    rb_world_destroy(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_far_touches_match_reference)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
