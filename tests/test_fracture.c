/* Breakable bodies' pieces, bonds and splits (src/scenes/fracture.c):
 * patterns on lattices whose neighbours are counted by hand, and splits
 * that must carry the parent's mass, momentum and angular momentum over to
 * the children and leave every particle where it was. */
#include "rb_test.h"

#include "scenes/fracture.h"

static const float radius = 0.2f, particle_mass = 64.0f; /* 1000 kg/m^3 * (0.4 m)^3 */

/* nx x ny x nz particles one diameter apart about the origin, x slowest;
 * freed by the caller. */
static float *lattice(int nx, int ny, int nz) {
    float *p = malloc(sizeof(float) * 3 * (size_t)(nx * ny * nz));
    int k = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int l = 0; l < nz; l++) {
                p[k++] = 2 * radius * (i - 0.5f * (nx - 1));
                p[k++] = 2 * radius * (j - 0.5f * (ny - 1));
                p[k++] = 2 * radius * (l - 0.5f * (nz - 1));
            }
    return p;
}

static rb_pieces make(const float *p, uint32_t n, rb_fracture_kind kind, uint32_t pieces, uint64_t seed,
                      const uint32_t *given) {
    rb_fracture_desc d = {.kind = kind, .pieces = pieces, .seed = seed, .strength = 1000.0f};
    rb_pieces out;
    char err[256] = "";
    if (!rb_pieces_make(p, n, radius, particle_mass, &d, given, &out, err, sizeof err)) fail_msg("%s", err);
    return out;
}

/* What every set of pieces must be: each particle in a piece, no piece
 * empty, masses and centres from the particles, bonds sorted, unique and
 * between touching particles only, and each piece holding strength times
 * its bonds. */
static void check_pieces(const rb_pieces *pc, const float *p, uint32_t n) {
    assert_int_equal(pc->particle_count, n);
    assert_true(pc->piece_count >= 1 && pc->piece_count <= n);
    uint32_t *count = calloc(pc->piece_count, sizeof *count);
    double *sum = calloc(3 * pc->piece_count, sizeof *sum);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(pc->piece_of[i] < pc->piece_count);
        count[pc->piece_of[i]]++;
        for (int k = 0; k < 3; k++) sum[3 * pc->piece_of[i] + k] += p[3 * i + k];
    }
    for (uint32_t k = 0; k < pc->piece_count; k++) {
        assert_true(count[k] > 0);
        assert_near(pc->mass[k], count[k] * particle_mass, 1e-3);
        for (int a = 0; a < 3; a++) assert_near(pc->centre[3 * k + a], sum[3 * k + a] / count[k], 1e-5);
    }
    uint32_t *degree = calloc(pc->piece_count, sizeof *degree);
    for (uint32_t b = 0; b < pc->bond_count; b++) {
        const uint32_t x = pc->bonds[2 * b], y = pc->bonds[2 * b + 1];
        assert_true(x < y && y < pc->piece_count);
        if (b > 0) {
            const uint32_t px = pc->bonds[2 * b - 2], py = pc->bonds[2 * b - 1];
            assert_true(px < x || (px == x && py < y));
        }
        /* some particle of x touches some particle of y */
        bool touching = false;
        for (uint32_t i = 0; i < n && !touching; i++)
            for (uint32_t j = 0; j < n && !touching; j++) {
                if (pc->piece_of[i] != x || pc->piece_of[j] != y) continue;
                float d[3] = {p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]};
                touching = rb_test_len(d) <= 2.02f * radius;
            }
        assert_true(touching);
        degree[x]++, degree[y]++;
    }
    for (uint32_t k = 0; k < pc->piece_count; k++) assert_near(pc->holds[k], pc->strength * degree[k], 1e-3);
    free(count), free(sum), free(degree);
}

static void test_voronoi(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces a = make(p, 27, RB_FRACTURE_VORONOI, 8, 42, NULL);
    check_pieces(&a, p, 27);
    /* 8 distinct seed particles, each its own nearest: 8 pieces */
    assert_int_equal(a.piece_count, 8);
    rb_pieces again = make(p, 27, RB_FRACTURE_VORONOI, 8, 42, NULL),
              other = make(p, 27, RB_FRACTURE_VORONOI, 8, 7, NULL);
    check_pieces(&other, p, 27);
    assert_memory_equal(a.piece_of, again.piece_of, 27 * sizeof *a.piece_of);
    assert_int_equal(a.bond_count, again.bond_count);
    assert_memory_equal(a.bonds, again.bonds, 2 * a.bond_count * sizeof *a.bonds);
    assert_memory_not_equal(a.piece_of, other.piece_of, 27 * sizeof *a.piece_of);
    rb_pieces_free(&a), rb_pieces_free(&again), rb_pieces_free(&other);
    free(p);
}

static void test_layers(void **state) {
    /* a bar of 5 along z, 1.6 m between the end centres: slabs of 0.533 m
     * take the particles 2, 1, 2 (the far end's centre belongs to the last) */
    float *p = lattice(1, 1, 5);
    rb_pieces pc = make(p, 5, RB_FRACTURE_LAYERS, 3, 0, NULL);
    check_pieces(&pc, p, 5);
    assert_int_equal(pc.piece_count, 3);
    const uint32_t expect[5] = {0, 0, 1, 2, 2};
    assert_memory_equal(pc.piece_of, expect, sizeof expect);
    assert_true(pc.centre[2] < pc.centre[5] && pc.centre[5] < pc.centre[8]);
    for (int k = 0; k < 3; k++) {
        assert_near(pc.centre[3 * k], 0.0, 1e-6);
        assert_near(pc.centre[3 * k + 1], 0.0, 1e-6);
    }
    const uint32_t chain[4] = {0, 1, 1, 2};
    assert_int_equal(pc.bond_count, 2);
    assert_memory_equal(pc.bonds, chain, sizeof chain);
    rb_pieces_free(&pc);
    /* 4 slabs of a 5 bar: 0.4 m each; none empty. 5 particles in 4 slabs
     * of a bar whose y is longest: the slabs go across y. */
    float *q = lattice(1, 5, 1);
    pc = make(q, 5, RB_FRACTURE_LAYERS, 4, 0, NULL);
    check_pieces(&pc, q, 5);
    for (int i = 1; i < 5; i++) assert_true(pc.piece_of[i] >= pc.piece_of[i - 1]);
    assert_true(pc.centre[1] < pc.centre[3 * (pc.piece_count - 1) + 1]);
    rb_pieces_free(&pc);
    free(p), free(q);
}

static void test_particles_and_given(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces pc = make(p, 27, RB_FRACTURE_PARTICLES, 0, 0, NULL);
    check_pieces(&pc, p, 27);
    assert_int_equal(pc.piece_count, 27);
    /* face neighbours of a 3x3x3 lattice: 3 axes x 2 gaps x 9 rows = 54 */
    assert_int_equal(pc.bond_count, 54);
    /* a corner has 3 neighbours, the centre 6 */
    assert_near(pc.holds[0], 3 * pc.strength, 1e-3);
    assert_near(pc.holds[13], 6 * pc.strength, 1e-3);
    rb_pieces_free(&pc);

    const uint32_t given[5] = {7, 7, 3, 9, 3}, expect[5] = {0, 0, 1, 2, 1};
    float *bar = lattice(1, 1, 5);
    pc = make(bar, 5, RB_FRACTURE_GIVEN, 0, 0, given);
    check_pieces(&pc, bar, 5);
    assert_int_equal(pc.piece_count, 3);
    assert_memory_equal(pc.piece_of, expect, sizeof expect);
    /* 0-1 touch (piece 0 - 0), 1-2 (0 - 1), 2-3 (1 - 2), 3-4 (2 - 1) */
    const uint32_t bonds[4] = {0, 1, 1, 2};
    assert_int_equal(pc.bond_count, 2);
    assert_memory_equal(pc.bonds, bonds, sizeof bonds);
    rb_pieces_free(&pc);
    free(p), free(bar);
}

static char last_warning[256];
static void keep_warning(rb_log_level level, const char *message, void *user) {
    if (level >= RB_LOG_WARN) snprintf(last_warning, sizeof last_warning, "%s", message);
}

static void test_bad_input(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces pc;
    char err[256];
    const float bad_strength[3] = {0.0f, -1.0f, NAN};
    for (int k = 0; k < 3; k++) {
        err[0] = '\0';
        rb_fracture_desc d = {.kind = RB_FRACTURE_VORONOI, .pieces = 4, .strength = bad_strength[k]};
        assert_false(rb_pieces_make(p, 27, radius, particle_mass, &d, NULL, &pc, err, sizeof err));
        assert_non_null(strstr(err, "strength"));
    }
    const float inf = INFINITY;
    rb_fracture_desc d = {.kind = RB_FRACTURE_LAYERS, .pieces = 4, .strength = inf};
    assert_false(rb_pieces_make(p, 27, radius, particle_mass, &d, NULL, &pc, err, sizeof err));
    for (int kind = RB_FRACTURE_VORONOI; kind <= RB_FRACTURE_LAYERS; kind++) {
        err[0] = '\0';
        d = (rb_fracture_desc){.kind = (rb_fracture_kind)kind, .pieces = 0, .strength = 10.0f};
        assert_false(rb_pieces_make(p, 27, radius, particle_mass, &d, NULL, &pc, err, sizeof err));
        assert_non_null(strstr(err, "0 pieces"));
    }
    err[0] = '\0';
    d = (rb_fracture_desc){.kind = RB_FRACTURE_PARTICLES, .strength = 10.0f};
    assert_false(rb_pieces_make(p, 0, radius, particle_mass, &d, NULL, &pc, err, sizeof err));
    assert_non_null(strstr(err, "no particles"));
    d.kind = RB_FRACTURE_GIVEN;
    assert_false(rb_pieces_make(p, 27, radius, particle_mass, &d, NULL, &pc, err, sizeof err));

    /* more pieces than particles: clamped, and said */
    last_warning[0] = '\0';
    rb_set_log_fn(keep_warning, NULL);
    d = (rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 100, .seed = 3, .strength = 10.0f};
    assert_true(rb_pieces_make(p, 27, radius, particle_mass, &d, NULL, &pc, err, sizeof err));
    rb_set_log_fn(NULL, NULL);
    assert_non_null(strstr(last_warning, "100 pieces"));
    assert_int_equal(pc.piece_count, 27);
    rb_pieces_free(&pc);
    free(p);
}

/* A reproducible random number in [-1, 1). */
static float uniform(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 23) - 1.0f;
}

/* out = R diag(moments) R^T w, R the rotation q */
static void world_inertia_times(const float q[4], const float moments[3], const float w[3], float out[3]) {
    float local[3];
    rb_quat_rotate_inv(q, w, local);
    for (int k = 0; k < 3; k++) local[k] *= moments[k];
    rb_quat_rotate(q, local, out);
}

static rb_body_state tumbling(uint32_t seed) {
    rb_body_state b = {.mass = 27 * particle_mass};
    uint32_t s = seed;
    for (int k = 0; k < 4; k++) b.orientation[k] = uniform(&s);
    rb_quat_normalize(b.orientation);
    for (int k = 0; k < 3; k++) {
        b.position[k] = 5.0f * uniform(&s);
        b.velocity[k] = 3.0f * uniform(&s);
        b.angular_velocity[k] = 2.0f * uniform(&s);
    }
    return b;
}

/* Every child particle is where its parent particle was:
 * X + R offset_i = x_c + R_c child_offset. */
static void check_in_place(const rb_body_state *b, const float *p, const rb_split_child *c, uint32_t count,
                           uint32_t n) {
    uint32_t seen = 0;
    for (uint32_t k = 0; k < count; k++) {
        for (uint32_t i = 0; i < c[k].particle_count; i++) {
            const uint32_t j = c[k].parent[i];
            assert_true(j < n);
            if (i > 0) assert_true(j > c[k].parent[i - 1]);
            float was[3], is[3];
            rb_quat_rotate(b->orientation, &p[3 * j], was);
            rb_quat_rotate(c[k].orientation, &c[k].particles[3 * i], is);
            for (int a = 0; a < 3; a++) assert_near(b->position[a] + was[a], c[k].position[a] + is[a], 1e-5);
        }
        seen += c[k].particle_count;
    }
    assert_int_equal(seen, n);
}

static void test_split_momentum(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces pc = make(p, 27, RB_FRACTURE_VORONOI, 8, 11, NULL);
    for (uint32_t trial = 1; trial <= 5; trial++) {
        const rb_body_state b = tumbling(trial);
        bool broken[27];
        for (uint32_t k = 0; k < pc.piece_count; k++) broken[k] = true;
        rb_split_child *c = NULL;
        char err[256] = "";
        const uint32_t count = rb_split(&pc, p, radius, particle_mass, broken, &b, &c, err, sizeof err);
        if (count == 0) fail_msg("%s", err);
        assert_int_equal(count, pc.piece_count);
        assert_non_null(c);
        check_in_place(&b, p, c, count, 27);

        /* the parent's inertia, world frame, from its particles */
        float M, com[3], Iw[3];
        double I[9];
        rb_mass_properties(p, 27, radius, particle_mass, &M, com, I);
        float local[3], w_local[3];
        rb_quat_rotate_inv(b.orientation, b.angular_velocity, w_local);
        for (int a = 0; a < 3; a++)
            local[a] = (float)(I[3 * a] * w_local[0] + I[3 * a + 1] * w_local[1] + I[3 * a + 2] * w_local[2]);
        rb_quat_rotate(b.orientation, local, Iw);

        double mass = 0, P[3] = {0, 0, 0}, L[3] = {0, 0, 0};
        for (uint32_t k = 0; k < count; k++) {
            mass += c[k].mass;
            float arm[3] = {c[k].position[0] - b.position[0], c[k].position[1] - b.position[1],
                            c[k].position[2] - b.position[2]};
            float mv[3] = {c[k].mass * c[k].velocity[0], c[k].mass * c[k].velocity[1], c[k].mass * c[k].velocity[2]};
            float orbit[3], spin[3];
            rb_v3_cross(arm, mv, orbit);
            world_inertia_times(c[k].orientation, c[k].inertia, c[k].angular_velocity, spin);
            for (int a = 0; a < 3; a++) P[a] += mv[a], L[a] += orbit[a] + spin[a];
            /* a principal frame: moments ascending, positive */
            assert_true(c[k].inertia[0] > 0 && c[k].inertia[0] <= c[k].inertia[1] &&
                        c[k].inertia[1] <= c[k].inertia[2]);
        }
        assert_near(mass, M, 1e-6 * M);
        const float Pn = M * rb_test_len(b.velocity), Ln = rb_test_len(Iw);
        for (int a = 0; a < 3; a++) {
            assert_near(P[a], M * b.velocity[a], 1e-4 * Pn);
            assert_near(L[a], Iw[a], 1e-4 * Ln);
        }
        rb_split_free(c, count);
    }
    rb_pieces_free(&pc);
    free(p);
}

static void test_split_one_component(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces pc = make(p, 27, RB_FRACTURE_VORONOI, 8, 5, NULL);
    const rb_body_state b = tumbling(9);
    bool broken[27] = {false};
    rb_split_child *c = (rb_split_child *)&c; /* anything but NULL: it must be cleared */
    char err[256];
    assert_int_equal(rb_split(&pc, p, radius, particle_mass, broken, &b, &c, err, sizeof err), 1);
    assert_null(c);
    rb_pieces_free(&pc);
    free(p);
}

/* A bar in 3 layers, its end broken off: the end alone and the other two
 * still bonded; the two keep one bond, found again from their own offsets. */
static void test_split_and_restrict(void **state) {
    float *p = lattice(1, 1, 5);
    rb_pieces pc = make(p, 5, RB_FRACTURE_LAYERS, 3, 0, NULL);
    const rb_body_state b = tumbling(4);
    bool broken[3] = {true, false, false};
    rb_split_child *c = NULL;
    char err[256] = "";
    const uint32_t count = rb_split(&pc, p, radius, particle_mass, broken, &b, &c, err, sizeof err);
    assert_int_equal(count, 2);
    check_in_place(&b, p, c, count, 5);
    assert_int_equal(c[0].particle_count, 2);
    assert_int_equal(c[1].particle_count, 3);
    const uint32_t rest[3] = {2, 3, 4};
    assert_memory_equal(c[1].parent, rest, sizeof rest);
    /* a bar of 3 along its principal axis of the least moment: 2 m (0.4)^2 + 3 (2/5) m r^2 */
    assert_near(c[1].inertia[0], 3 * 0.4 * particle_mass * radius * radius, 1e-3);
    assert_near(c[1].inertia[2], 2 * particle_mass * 0.16 + 3 * 0.4 * particle_mass * radius * radius, 1e-3);

    rb_pieces kept;
    assert_true(rb_pieces_restrict(&pc, &c[1], &kept, err, sizeof err));
    check_pieces(&kept, c[1].particles, 3);
    assert_int_equal(kept.piece_count, 2);
    const uint32_t piece_of[3] = {0, 1, 1}, bond[2] = {0, 1};
    assert_memory_equal(kept.piece_of, piece_of, sizeof piece_of);
    assert_int_equal(kept.bond_count, 1);
    assert_memory_equal(kept.bonds, bond, sizeof bond);
    assert_near(kept.strength, pc.strength, 0.0);
    assert_near(kept.holds[0], pc.strength, 1e-3);
    rb_pieces_free(&kept);
    assert_true(rb_pieces_restrict(&pc, &c[0], &kept, err, sizeof err));
    assert_int_equal(kept.piece_count, 1);
    assert_int_equal(kept.bond_count, 0);
    assert_near(kept.holds[0], 0.0, 0.0);
    rb_pieces_free(&kept);
    rb_split_free(c, count);
    rb_pieces_free(&pc);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voronoi),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_particles_and_given),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_split_momentum),
        cmocka_unit_test(test_split_one_component),
        cmocka_unit_test(test_split_and_restrict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
