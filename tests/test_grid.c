/* The hashed grid finds exactly the pairs an all-pairs check finds: on
 * random clouds near the origin, far from it, sparse clouds whose cells
 * collide in the hash table, and clouds of particles of several radii. A
 * pair touches by the contact law (src/sim/contact.h, rb_pair_touch): as
 * spheres between bodies of spheres, as a sphere or a cell and a cell where
 * a body is a lattice (the clouds' dumbbells are: two particles 2r apart),
 * which reaches farther than r_i + r_j, so the grid's cell is
 * rb_grid_inv_cell's, not a particle's diameter. */
#include "rb_test.h"
#include "sim/contact.h"

typedef struct pair {
    uint32_t a, b;
} pair;

static int compare_pairs(const void *x, const void *y) {
    const pair *p = x, *q = y;
    return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : p->b > q->b);
}

/* Each particle's side of a contact as the contact law reads it (p, r,
 * body, q, rank, faces), from what the world tells of its bodies and
 * shapes: a shape is a lattice, and its particles' exposed faces are, as
 * src/sim/cells.c finds them (rb_shape_cells) from its offsets. */
static rb_contact_side *contact_sides(rb_world *w, const float *p, const float *radius) {
    const uint32_t np = rb_world_particle_count(w), *first = rb_world_body_first_particle(w);
    rb_contact_side *sides = calloc(np + 1, sizeof *sides);
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        const uint32_t n = first[b + 1] - first[b];
        float *offs = malloc(sizeof(float) * 3 * n);
        rb_float4 *o = malloc(sizeof(rb_float4) * n);
        assert_int_equal(rb_world_shape_particles(w, s.shape, offs, n, NULL), n);
        for (uint32_t k = 0; k < n; k++) o[k] = (rb_float4){offs[3 * k], offs[3 * k + 1], offs[3 * k + 2], 0.0f};
        const int lattice = rb_shape_cells(o, n, rb_world_shape_radius(w, s.shape));
        assert_true(lattice >= 0);
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t i = first[b] + k;
            sides[i] = (rb_contact_side){
                .p = {p[3 * i], p[3 * i + 1], p[3 * i + 2], 0.0f},
                .r = radius[i],
                .body = b,
                .q = {s.orientation[0], s.orientation[1], s.orientation[2], s.orientation[3]},
                .rank = lattice ? (float)n : 0.0f,
                .faces = lattice ? (uint32_t)o[k].w : 0u,
            };
        }
        free(offs), free(o);
    }
    return sides;
}

/* The grid's pairs against all pairs, with the test the grid uses
 * (rb_pair_touch). Returns how many pairs there are; *hash_collisions (may
 * be NULL) gets the distinct occupied cells among near particle indices
 * that share a bucket (table of 2 np rounded up to a power of two, cells of
 * rb_grid_inv_cell of the largest radius, as the grid sizes them). */
static uint32_t compare_with_all_pairs(rb_world *w, uint32_t *hash_collisions) {
    uint32_t np = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * (np + 1)), *radius = rb_test_particle_radii(w);
    assert_true(rb_world_read_particles(w, p));
    const uint32_t *first = rb_world_body_first_particle(w);
    uint32_t *owner = malloc(sizeof(uint32_t) * (np + 1));
    float largest = 0.0f;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++)
        for (uint32_t i = first[b]; i < first[b + 1]; i++) owner[i] = b, largest = fmaxf(largest, radius[i]);
    rb_contact_side *sides = contact_sides(w, p, radius);

    uint32_t cap = 16 * np + 16, n_brute = 0;
    pair *brute = malloc(sizeof(pair) * cap);
    for (uint32_t i = 0; i < np; i++)
        for (uint32_t j = i + 1; j < np; j++) {
            if (owner[i] == owner[j]) continue;
            if (rb_pair_touch(&sides[i], &sides[j])) {
                if (n_brute == cap) fail_msg("more than %u pairs: the cloud is too dense for this test", cap);
                brute[n_brute++] = (pair){i, j};
            }
        }
    uint32_t *raw = malloc(sizeof(uint32_t) * 2 * cap);
    uint32_t n_grid = rb_world_contact_pairs(w, raw, cap);
    assert_true(n_grid <= cap);
    pair *grid = malloc(sizeof(pair) * (n_grid + 1));
    for (uint32_t k = 0; k < n_grid; k++) grid[k] = (pair){raw[2 * k], raw[2 * k + 1]};
    qsort(grid, n_grid, sizeof *grid, compare_pairs);
    qsort(brute, n_brute, sizeof *brute, compare_pairs);
    if (n_grid != n_brute) fail_msg("grid found %u pairs, all-pairs %u", n_grid, n_brute);
    for (uint32_t k = 0; k < n_grid; k++)
        if (grid[k].a != brute[k].a || grid[k].b != brute[k].b)
            fail_msg("pair %u differs: grid (%u, %u), all-pairs (%u, %u)", k, grid[k].a, grid[k].b, brute[k].a,
                     brute[k].b);

    if (hash_collisions) {
        uint32_t table = 64;
        while (table < 2 * np) table *= 2;
        const float inv = rb_grid_inv_cell(largest);
        *hash_collisions = 0;
        for (uint32_t i = 0; i < np; i++)
            for (uint32_t j = i + 1; j < np && j < i + 200; j++) {
                int ci[3], cj[3];
                for (int k = 0; k < 3; k++)
                    ci[k] = rb_cell_coord(p[3 * i + k], inv), cj[k] = rb_cell_coord(p[3 * j + k], inv);
                bool same = ci[0] == cj[0] && ci[1] == cj[1] && ci[2] == cj[2];
                if (!same &&
                    rb_cell_hash(ci[0], ci[1], ci[2], table - 1) == rb_cell_hash(cj[0], cj[1], cj[2], table - 1))
                    (*hash_collisions)++;
            }
    }
    free(p), free(radius), free(owner), free(sides), free(brute), free(raw), free(grid);
    return n_grid;
}

/* A sphere shape of radius r (0: the world's). */
static uint32_t add_sphere(rb_world *w, float r) {
    const float origin[3] = {0, 0, 0};
    rb_shape_data one = {1, origin, 64.0f, {1.024f, 1.024f, 1.024f}, r};
    int s = rb_world_add_shape(w, &one);
    assert_true(s >= 0);
    return (uint32_t)s;
}

/* n bodies of the given shapes (in turn) uniformly in a cube of side
 * `side` around `centre`, randomly turned. */
static void add_cloud(rb_world *w, const uint32_t *shapes, uint32_t shape_count, uint32_t n, float side,
                      const float centre[3]) {
    for (uint32_t i = 0; i < n; i++) {
        rb_body_desc b = {.shape = shapes[i % shape_count]};
        for (int k = 0; k < 3; k++) b.position[k] = centre[k] + side * (rand() / (float)RAND_MAX - 0.5f);
        float axis[3] = {rand() / (float)RAND_MAX - 0.5f, rand() / (float)RAND_MAX - 0.5f, 0.3f};
        float len = rb_test_len(axis);
        for (int k = 0; k < 3; k++) axis[k] /= len;
        rb_quat_from_axis_angle(axis, 6.2831853f * rand() / (float)RAND_MAX, b.orientation);
        assert_true(rb_world_add_body(w, &b).generation != 0);
    }
}

static rb_world *reference_world(void) {
    rb_world_desc desc = rb_default_world_desc();
    desc.backend = RB_BACKEND_REFERENCE;
    desc.plane_count = 0;
    return rb_world_create(&desc, NULL, 0);
}

/* n bodies, a third of them two-particle "dumbbells" (one diameter apart),
 * so "same body never collides" is exercised too, in a cloud around
 * `centre`. Returns how many pairs matched. */
static uint32_t check_cloud(uint32_t n, float side, const float centre[3], unsigned seed, uint32_t *hash_collisions) {
    rb_world *w = reference_world();
    const float r = rb_world_get_desc(w)->particle_radius;
    const float dumbbell[6] = {-r, 0, 0, r, 0, 0};
    rb_shape_data two = {2, dumbbell, 128.0f, {2.048f, 7.168f, 7.168f}, 0.0f};
    const uint32_t shapes[3] = {(uint32_t)rb_world_add_shape(w, &two), add_sphere(w, 0.0f), add_sphere(w, 0.0f)};
    srand(seed);
    add_cloud(w, shapes, 3, n, side, centre);
    uint32_t pairs = compare_with_all_pairs(w, hash_collisions);
    rb_world_destroy(w);
    return pairs;
}

static void test_dense_cloud_at_origin(void **state) {
    uint32_t collisions;
    uint32_t pairs = check_cloud(1500, 6.0f, (const float[3]){0, 0, 0}, 1, &collisions);
    print_message("dense cloud: %u pairs\n", pairs);
    assert_true(pairs > 500); /* dense enough that the check means something */
}

static void test_cloud_far_from_origin(void **state) {
    uint32_t collisions;
    /* negative and positive coordinates in the thousands: floor() and the hash of negative cells */
    assert_true(check_cloud(800, 5.0f, (const float[3]){-3000.0f, 1234.5f, 2000.0f}, 2, &collisions) > 100);
    assert_true(check_cloud(800, 5.0f, (const float[3]){4096.0f, -777.0f, -4096.0f}, 3, &collisions) > 100);
}

static void test_sparse_cloud_with_hash_collisions(void **state) {
    uint32_t collisions;
    /* 3000 bodies over a 25 m cube: about 4000 occupied cells of 244,000 share
     * 8192 buckets, so distinct cells meet in one bucket all the time */
    uint32_t pairs = check_cloud(3000, 25.0f, (const float[3]){0, 0, 0}, 4, &collisions);
    print_message("sparse cloud: %u pairs, %u distinct cells sharing buckets among near indices\n", pairs, collisions);
    assert_true(collisions > 10);
    assert_true(pairs > 50);
}

/* Two of a cell's 27 neighbours in one bucket: in the backend's own table
 * (64 buckets for a few particles) cells (x - 1, y - 1, z) and (x + 1, y + 1,
 * z) hash alike (x + 19349663 y: 31 y mod 64, and 2 + 62 = 64). Two spheres
 * touching across that diagonal are one pair: a neighbour walk that does not
 * check each candidate's cell would meet the other sphere twice. */
static void test_neighbour_cells_sharing_a_bucket(void **state) {
    assert_int_equal(rb_cell_hash(1, 1, 0, 63), rb_cell_hash(-1, -1, 0, 63));
    rb_world *w = reference_world();
    const float r = rb_world_get_desc(w)->particle_radius, c = 1.0f / rb_grid_inv_cell(r); /* the grid's cell */
    const uint32_t sphere = add_sphere(w, 0.0f);
    /* cells (0, 0, 0) and (1, 1, 0), r sqrt 2 apart: touching */
    const float at[2][3] = {{c - 0.01f, c - 0.01f, r}, {c + r - 0.01f, c + r - 0.01f, r}};
    for (int b = 0; b < 2; b++) {
        rb_body_desc d = {.shape = sphere, .position = {at[b][0], at[b][1], at[b][2]}};
        assert_true(rb_world_add_body(w, &d).generation != 0);
    }
    assert_int_equal(compare_with_all_pairs(w, NULL), 1);
    rb_world_destroy(w);
}

/* The OpenCL force pass reads cells x - 1, x, x + 1 of a row as one run of
 * buckets: cell x + 1 must hash to the bucket after cell x's, the table's
 * last bucket followed by bucket 0, everywhere (negative cells and the ends
 * of the int range, where saturated cells sit, included). */
static void test_rows_fill_consecutive_buckets(void **state) {
    static const int coords[] = {INT32_MIN, -70000, -1025, -2, -1, 0, 1, 3, 1023, 1024, 99999, INT32_MAX};
    const unsigned mask = (1u << 17) - 1u;
    const size_t n = sizeof coords / sizeof *coords;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            for (size_t c = 0; c < n; c++) {
                const int x = coords[a], y = coords[b], z = coords[c];
                /* x + 1 as the force pass forms it: INT32_MAX steps to INT32_MIN */
                assert_int_equal(rb_cell_hash(rb_cell_step(x, 1), y, z, mask),
                                 (rb_cell_hash(x, y, z, mask) + 1u) & mask);
            }
}

/* Particles of three radii (0.05, 0.2, 0.35): pairs touch at r_i + r_j,
 * and the cells are sized by the largest radius among the bodies present. The
 * grid finds the all-pairs set in a dense cloud of pebbles and spheres;
 * again after bodies of larger particles arrive (the cells grow: pairs at
 * up to 0.7 m); again after they are removed (the cells shrink back to the
 * spheres'), and after a clear, with pebbles alone (0.16 m cells). */
static void test_mixed_radii(void **state) {
    rb_world *w = reference_world();
    const uint32_t small[2] = {add_sphere(w, 0.05f), add_sphere(w, 0.0f)}, big = add_sphere(w, 0.35f);
    const float origin[3] = {0, 0, 0};
    srand(5);
    add_cloud(w, small, 2, 2000, 5.0f, origin);
    const uint32_t before = compare_with_all_pairs(w, NULL);
    const uint32_t bodies = rb_world_body_count(w);
    add_cloud(w, &big, 1, 150, 5.0f, origin);
    const uint32_t with_big = compare_with_all_pairs(w, NULL);
    for (uint32_t b = rb_world_body_count(w); b-- > bodies;)
        assert_true(rb_world_remove_body(w, rb_world_body_id(w, b)));
    assert_int_equal(compare_with_all_pairs(w, NULL), before);
    rb_world_clear(w);
    add_cloud(w, small, 1, 3000, 3.0f, (const float[3]){-200.5f, 17.0f, 33.3f});
    const uint32_t pebbles = compare_with_all_pairs(w, NULL);
    print_message("mixed radii: %u pairs, %u with larger particles added, %u among pebbles alone\n", before, with_big,
                  pebbles);
    assert_true(before > 500 && with_big > before + 150 && pebbles > 300);
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_cloud_at_origin),
        cmocka_unit_test(test_cloud_far_from_origin),
        cmocka_unit_test(test_sparse_cloud_with_hash_collisions),
        cmocka_unit_test(test_rows_fill_consecutive_buckets),
        cmocka_unit_test(test_neighbour_cells_sharing_a_bucket),
        cmocka_unit_test(test_mixed_radii),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
