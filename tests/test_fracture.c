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

static double distance(const float *a, const float *b) {
    const double x = (double)a[0] - b[0], y = (double)a[1] - b[1], z = (double)a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
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

/* Even pieces: a 1.2 m cube at resolution 10 (1,000 particles of radius
 * 6 cm, as a scene's 1.2 m cube is voxelized) in voronoi 30 comes apart in
 * 30 pieces of 20 to 40 particles each (a mean of 33), for every seed
 * tried (28 to 38); the seeds drawn and not moved make pieces of 10 to 81
 * particles for seed 1, moved to their pieces' centres alone (Lloyd's) 24
 * to 41. */
static void test_voronoi_even(void **state) {
    float *p = lattice(10, 10, 10);
    const uint32_t n = 1000;
    const float r = 0.06f;
    for (uint32_t i = 0; i < 3 * n; i++) p[i] *= r / radius;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        const rb_fracture_desc d = {.kind = RB_FRACTURE_VORONOI, .pieces = 30, .seed = seed, .strength = 1000.0f};
        rb_pieces pc;
        char err[256] = "";
        if (!rb_pieces_make(p, n, r, 1.728f, &d, NULL, &pc, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(pc.piece_count, 30);
        uint32_t size[30] = {0}, least = n, most = 0;
        for (uint32_t i = 0; i < n; i++) size[pc.piece_of[i]]++;
        for (uint32_t k = 0; k < 30; k++)
            least = size[k] < least ? size[k] : least, most = size[k] > most ? size[k] : most;
        print_message("voronoi 30, seed %u: pieces of %u to %u particles\n", (unsigned)seed, least, most);
        assert_true(least >= 20 && most <= 40);
        /* each particle in the cell of its piece's seed (the cut's region) */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < 30; k++)
                assert_true(distance(&p[3 * i], &pc.seeds[3 * pc.piece_of[i]]) <=
                            distance(&p[3 * i], &pc.seeds[3 * k]));
        rb_pieces_free(&pc);
    }
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

static rb_pieces make_desc(const float *p, uint32_t n, const rb_fracture_desc *d) {
    rb_pieces out;
    char err[256] = "";
    if (!rb_pieces_make(p, n, radius, particle_mass, d, NULL, &out, err, sizeof err)) fail_msg("%s", err);
    return out;
}

static bool bonded(const rb_pieces *pc, uint32_t a, uint32_t b) {
    for (uint32_t k = 0; k < pc->bond_count; k++)
        if (pc->bonds[2 * k] == a && pc->bonds[2 * k + 1] == b) return true;
    return false;
}

/* Slices: on a 4 x 4 x 2 lattice at the normal (1, 1, 0) (any length) the
 * 7 slabs are the diagonals i + j; at a normal of no symmetry each
 * particle's slab is where its projection falls, slabs bonded to their
 * neighbours and to no other (the slabs are thicker than a touching pair
 * is apart along the normal). */
static void test_slices(void **state) {
    float *p = lattice(4, 4, 2);
    rb_fracture_desc d = {.kind = RB_FRACTURE_SLICES, .pieces = 7, .strength = 1000.0f, .normal = {2.0f, 2.0f, 0.0f}};
    rb_pieces pc = make_desc(p, 32, &d);
    check_pieces(&pc, p, 32);
    assert_int_equal(pc.piece_count, 7);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int l = 0; l < 2; l++) assert_int_equal(pc.piece_of[(i * 4 + j) * 2 + l], (uint32_t)(i + j));
    assert_int_equal(pc.bond_count, 6);
    for (uint32_t k = 0; k + 1 < 7; k++) assert_true(bonded(&pc, k, k + 1));
    rb_pieces_free(&pc);
    free(p);

    p = lattice(5, 4, 3);
    const uint32_t n = 60, count = 5;
    d = (rb_fracture_desc){.kind = RB_FRACTURE_SLICES, .pieces = count, .strength = 1000.0f, .normal = {1, 2, 3}};
    pc = make_desc(p, n, &d);
    check_pieces(&pc, p, n);
    const double len = sqrt(14.0), a[3] = {1 / len, 2 / len, 3 / len};
    double x[60], low = INFINITY, high = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = p[3 * i] * a[0] + p[3 * i + 1] * a[1] + p[3 * i + 2] * a[2];
        low = fmin(low, x[i]), high = fmax(high, x[i]);
    }
    const double thickness = (high - low) / count;
    assert_true(thickness > 2 * radius * a[2] * 1.01); /* touching pairs never skip a slab */
    bool used[5] = {false};
    uint32_t slab[60];
    for (uint32_t i = 0; i < n; i++) {
        const double s = fmin(floor((x[i] - low) / thickness), count - 1);
        slab[i] = (uint32_t)s;
        used[slab[i]] = true;
    }
    uint32_t rank[5], ranks = 0;
    for (uint32_t k = 0; k < count; k++) rank[k] = used[k] ? ranks++ : UINT32_MAX;
    assert_int_equal(pc.piece_count, ranks);
    for (uint32_t i = 0; i < n; i++) {
        /* a centre within rounding of a boundary may fall either side of it */
        const double at = (x[i] - low) / thickness, edge = fabs(at - floor(at + 0.5));
        if (edge < 1e-6) continue;
        assert_int_equal(pc.piece_of[i], rank[slab[i]]);
    }
    for (uint32_t b = 0; b < pc.bond_count; b++) assert_int_equal(pc.bonds[2 * b + 1], pc.bonds[2 * b] + 1);
    for (uint32_t k = 0; k + 1 < pc.piece_count; k++) assert_true(bonded(&pc, k, k + 1));
    rb_pieces_free(&pc);
    free(p);

    /* along an axis, slices are layers' slabs */
    p = lattice(1, 1, 5);
    d = (rb_fracture_desc){.kind = RB_FRACTURE_SLICES, .pieces = 3, .strength = 1000.0f, .normal = {0, 0, -0.5f}};
    pc = make_desc(p, 5, &d);
    const uint32_t expect[5] = {2, 2, 1, 0, 0}; /* from the far end of -z */
    assert_memory_equal(pc.piece_of, expect, sizeof expect);
    rb_pieces_free(&pc);
    free(p);
}

/* A particle's angle about the z axis through c, radians in [0, 2 pi), and distance from it. */
static double angle_about_z(const float *q, const double c[3], double *rho) {
    const double x = q[0] - c[0], y = q[1] - c[1];
    *rho = sqrt(x * x + y * y);
    const double t = atan2(y, x);
    return t < 0.0 ? t + 2.0 * M_PI : t;
}

/* Each piece of a radial pattern about z through c: all its particles in
 * one ring (bands of far / rings), and within an arc of at most 1.5 wedges
 * (a boundary moves by a quarter wedge at most); the pieces of a ring follow
 * each other around it without interleaving. Returns the pieces' count
 * over all rings. */
static uint32_t check_radial(const rb_pieces *pc, const float *p, uint32_t n, const double c[3], uint32_t wedges,
                             uint32_t rings) {
    double *t = malloc(n * sizeof *t), *rho = malloc(n * sizeof *rho), far = 0.0;
    for (uint32_t i = 0; i < n; i++) t[i] = angle_about_z(&p[3 * i], c, &rho[i]), far = fmax(far, rho[i]);
    uint32_t *ring_of = malloc(pc->piece_count * sizeof *ring_of);
    for (uint32_t k = 0; k < pc->piece_count; k++) ring_of[k] = UINT32_MAX;
    const double band = far / rings;
    for (uint32_t i = 0; i < n; i++) {
        const double at = rho[i] / band;
        if (fabs(at - floor(at + 0.5)) < 1e-6 && at > 0.5 && at < rings - 0.5) continue; /* on a boundary */
        const uint32_t ring = at >= rings ? rings - 1 : (uint32_t)at, k = pc->piece_of[i];
        if (ring_of[k] == UINT32_MAX) ring_of[k] = ring;
        assert_int_equal(ring_of[k], ring);
    }
    uint32_t pieces = 0;
    for (uint32_t ring = 0; ring < rings; ring++) {
        /* the ring's particles by angle; the piece changes once per piece around it */
        uint32_t m = 0, *at = malloc(n * sizeof *at);
        for (uint32_t i = 0; i < n; i++)
            if (ring_of[pc->piece_of[i]] == ring && rho[i] > 1e-6) at[m++] = i;
        for (uint32_t a = 1; a < m; a++)
            for (uint32_t b = a; b > 0 && t[at[b]] < t[at[b - 1]]; b--) {
                const uint32_t x = at[b];
                at[b] = at[b - 1], at[b - 1] = x;
            }
        uint32_t changes = 0, distinct = 0;
        for (uint32_t a = 0; a < m; a++) changes += pc->piece_of[at[a]] != pc->piece_of[at[(a + 1) % m]];
        for (uint32_t k = 0; k < pc->piece_count; k++) distinct += ring_of[k] == ring;
        if (distinct > 1) assert_int_equal(changes, distinct);
        /* each piece's arc: 2 pi less the widest gap between its angles */
        for (uint32_t k = 0; k < pc->piece_count; k++) {
            if (ring_of[k] != ring) continue;
            double first = -1.0, prev = 0.0, gap = 0.0;
            for (uint32_t a = 0; a < m; a++) {
                if (pc->piece_of[at[a]] != k) continue;
                if (first < 0.0)
                    first = t[at[a]];
                else
                    gap = fmax(gap, t[at[a]] - prev);
                prev = t[at[a]];
            }
            if (first < 0.0) continue;
            gap = fmax(gap, first + 2.0 * M_PI - prev);
            assert_true(2.0 * M_PI - gap <= 1.5 * 2.0 * M_PI / wedges + 1e-9);
        }
        pieces += distinct;
        free(at);
    }
    free(t), free(rho), free(ring_of);
    return pieces;
}

/* Radial: a 12 x 12 plate about z in 6 wedges and 3 rings is 18 pieces,
 * each within its sector and band; the same seed the same pieces, another
 * seed others; a centre given moves the rings there. */
static void test_radial(void **state) {
    float *p = lattice(12, 12, 1);
    const uint32_t n = 144;
    rb_fracture_desc d = {.kind = RB_FRACTURE_RADIAL, .seed = 5, .strength = 1000.0f, .normal = {0, 0, 3}};
    d.wedges = 6, d.rings = 3;
    rb_pieces pc = make_desc(p, n, &d), again = make_desc(p, n, &d);
    check_pieces(&pc, p, n);
    const double origin[3] = {0, 0, 0};
    assert_int_equal(pc.piece_count, 18);
    assert_int_equal(check_radial(&pc, p, n, origin, 6, 3), 18);
    assert_memory_equal(pc.piece_of, again.piece_of, n * sizeof *pc.piece_of);
    rb_pieces_free(&again);
    for (uint64_t seed = 6; seed < 12; seed++) { /* other turns and jitters, the same rules */
        d.seed = seed;
        again = make_desc(p, n, &d);
        check_pieces(&again, p, n);
        assert_true(again.piece_count <= 18);
        assert_int_equal(check_radial(&again, p, n, origin, 6, 3), again.piece_count);
        if (seed == 6) assert_memory_not_equal(pc.piece_of, again.piece_of, n * sizeof *pc.piece_of);
        rb_pieces_free(&again);
    }
    rb_pieces_free(&pc);

    /* rings only, about the corner particle: bands of distance from it */
    d = (rb_fracture_desc){.kind = RB_FRACTURE_RADIAL, .seed = 1, .strength = 1000.0f, .normal = {0, 0, 1}};
    d.wedges = 1, d.rings = 4, d.centre_given = true;
    memcpy(d.centre, p, sizeof d.centre);
    pc = make_desc(p, n, &d);
    const double corner[3] = {p[0], p[1], p[2]};
    assert_int_equal(pc.piece_count, 4);
    assert_int_equal(check_radial(&pc, p, n, corner, 1, 4), 4);
    assert_int_equal(pc.piece_of[0], 0);     /* the corner: the inner ring */
    assert_int_equal(pc.piece_of[n - 1], 3); /* the far corner: the outer */
    assert_true(bonded(&pc, 0, 1) && !bonded(&pc, 0, 2));
    rb_pieces_free(&pc);

    /* wedges only about a tilted axis through the middle of a cube */
    free(p);
    p = lattice(5, 5, 5);
    d = (rb_fracture_desc){.kind = RB_FRACTURE_RADIAL, .seed = 2, .strength = 1000.0f, .normal = {1, 1, 1}};
    d.wedges = 5, d.rings = 1;
    pc = make_desc(p, 125, &d);
    check_pieces(&pc, p, 125);
    assert_int_equal(pc.piece_count, 5);
    rb_pieces_free(&pc);
    free(p);
}

/* Impact voronoi: before the break it is plain voronoi; drawn about a hit
 * at a corner of a 10^3 lattice, the pieces near the hit are smaller than
 * those far from it; the same hit and seed, the same pieces. */
static void test_impact(void **state) {
    float *p = lattice(10, 10, 10);
    const uint32_t n = 1000;
    rb_fracture_desc d = {.kind = RB_FRACTURE_VORONOI, .pieces = 40, .seed = 3, .strength = 1000.0f, .impact = true};
    rb_fracture_desc plain = d;
    plain.impact = false;
    rb_pieces before = make_desc(p, n, &d), voronoi = make_desc(p, n, &plain);
    assert_memory_equal(before.piece_of, voronoi.piece_of, n * sizeof *before.piece_of);
    rb_pieces_free(&before), rb_pieces_free(&voronoi);

    const float hit[3] = {p[0], p[1], p[2]}; /* the corner particle */
    rb_pieces pc, again, uniform_pc = make_desc(p, n, &plain);
    char err[256] = "";
    assert_true(rb_pieces_make_at(p, n, radius, particle_mass, &d, hit, &pc, err, sizeof err));
    assert_true(rb_pieces_make_at(p, n, radius, particle_mass, &d, hit, &again, err, sizeof err));
    check_pieces(&pc, p, n);
    assert_memory_equal(pc.piece_of, again.piece_of, n * sizeof *pc.piece_of);
    rb_pieces_free(&again);
    /* pieces whose centres lie within half the diagonal of the hit, and the rest */
    const double reach = 0.5 * sqrt(3.0) * 9 * 2 * radius;
    for (int pattern = 0; pattern < 2; pattern++) {
        const rb_pieces *q = pattern ? &uniform_pc : &pc;
        double near = 0, far = 0, near_pieces = 0, far_pieces = 0;
        for (uint32_t k = 0; k < q->piece_count; k++) {
            const bool close = distance(&q->centre[3 * k], hit) < reach;
            const double particles = q->mass[k] / particle_mass;
            if (close)
                near += particles, near_pieces++;
            else
                far += particles, far_pieces++;
        }
        print_message("%s: %.0f pieces near the hit, %.1f particles each; %.0f far, %.1f each\n",
                      pattern ? "plain" : "impact", near_pieces, near / near_pieces, far_pieces, far / far_pieces);
        assert_true(near_pieces > 0 && far_pieces > 0);
        if (!pattern) assert_true(near / near_pieces < 0.5 * (far / far_pieces));
    }
    /* the focus: the piece holding the hit particle grows with it (7 particles
     * at the default of a quarter of the 6.2 m to the far corner; a focus of
     * 100 m draws the seeds all but evenly) */
    const float focus[3] = {0.4f, 0.0f, 100.0f};
    uint32_t at_hit[3] = {0, 0, 0};
    for (int f = 0; f < 3; f++) {
        rb_fracture_desc tight = d;
        tight.focus = focus[f];
        assert_true(rb_pieces_make_at(p, n, radius, particle_mass, &tight, hit, &again, err, sizeof err));
        check_pieces(&again, p, n);
        for (uint32_t i = 0; i < n; i++) at_hit[f] += again.piece_of[i] == again.piece_of[0];
        rb_pieces_free(&again);
    }
    print_message("the hit's piece: %u particles at a focus of 0.4 m, %u at the default, %u at 100 m\n", at_hit[0],
                  at_hit[1], at_hit[2]);
    assert_true(at_hit[0] < at_hit[1] && at_hit[1] < at_hit[2]);
    /* another hit, other pieces; a hit that is not finite is refused */
    const float other[3] = {p[3 * (n - 1)], p[3 * (n - 1) + 1], p[3 * (n - 1) + 2]};
    assert_true(rb_pieces_make_at(p, n, radius, particle_mass, &d, other, &again, err, sizeof err));
    assert_memory_not_equal(pc.piece_of, again.piece_of, n * sizeof *pc.piece_of);
    rb_pieces_free(&again);
    const float nowhere[3] = {NAN, 0, 0};
    assert_false(rb_pieces_make_at(p, n, radius, particle_mass, &d, nowhere, &again, err, sizeof err));
    assert_non_null(strstr(err, "hit"));
    d.focus = -1.0f;
    assert_false(rb_pieces_make_at(p, n, radius, particle_mass, &d, hit, &again, err, sizeof err));
    assert_non_null(strstr(err, "focus"));
    rb_pieces_free(&pc), rb_pieces_free(&uniform_pc);
    free(p);
}

/* The new patterns' settings refused: a zero or non-finite direction, no
 * wedges or rings, too many cells, 0 slices; more slices than particles
 * clamped and said. */
static void test_bad_patterns(void **state) {
    float *p = lattice(3, 3, 3);
    rb_pieces pc;
    char err[256];
    const rb_fracture_desc bad[] = {
        {.kind = RB_FRACTURE_SLICES, .pieces = 3, .strength = 10.0f},
        {.kind = RB_FRACTURE_SLICES, .pieces = 3, .strength = 10.0f, .normal = {NAN, 1, 0}},
        {.kind = RB_FRACTURE_SLICES, .pieces = 0, .strength = 10.0f, .normal = {0, 1, 0}},
        {.kind = RB_FRACTURE_RADIAL, .wedges = 3, .rings = 2, .strength = 10.0f},
        {.kind = RB_FRACTURE_RADIAL, .wedges = 0, .rings = 2, .strength = 10.0f, .normal = {0, 1, 0}},
        {.kind = RB_FRACTURE_RADIAL, .wedges = 3, .rings = 0, .strength = 10.0f, .normal = {0, 1, 0}},
        {.kind = RB_FRACTURE_RADIAL, .wedges = 2000, .rings = 1000, .strength = 10.0f, .normal = {0, 1, 0}},
        {.kind = RB_FRACTURE_RADIAL,
         .wedges = 3,
         .rings = 1,
         .strength = 10.0f,
         .normal = {0, 1, 0},
         .centre = {INFINITY, 0, 0},
         .centre_given = true},
        {.kind = RB_FRACTURE_VORONOI, .pieces = 4, .strength = 10.0f, .impact = true, .focus = NAN},
    };
    const char *says[] = {"normal", "normal", "0 pieces", "axis", "wedges", "rings", "cells", "centre", "focus"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        err[0] = '\0';
        assert_false(rb_pieces_make(p, 27, radius, particle_mass, &bad[k], NULL, &pc, err, sizeof err));
        if (!strstr(err, says[k])) fail_msg("case %zu: '%s' does not say '%s'", k, err, says[k]);
    }
    last_warning[0] = '\0';
    rb_set_log_fn(keep_warning, NULL);
    const rb_fracture_desc many = {.kind = RB_FRACTURE_SLICES, .pieces = 40, .strength = 10.0f, .normal = {1, 0, 0}};
    assert_true(rb_pieces_make(p, 27, radius, particle_mass, &many, NULL, &pc, err, sizeof err));
    rb_set_log_fn(NULL, NULL);
    assert_non_null(strstr(last_warning, "40 pieces"));
    assert_int_equal(pc.piece_count, 3); /* 27 thin slabs, 3 of them with particles */
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
        cmocka_unit_test(test_voronoi_even),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_particles_and_given),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_radial),
        cmocka_unit_test(test_impact),
        cmocka_unit_test(test_bad_patterns),
        cmocka_unit_test(test_split_momentum),
        cmocka_unit_test(test_split_one_component),
        cmocka_unit_test(test_split_and_restrict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
