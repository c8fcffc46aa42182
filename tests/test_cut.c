/* Broken bodies' pieces cut from the body's render mesh (src/scenes/cut.h,
 * the debris layer's rb_debris_piece_mesh):
 * - the cube plugin's mesh in voronoi 12 and in layers 3, the torus (not
 *   convex) in voronoi 12 and layers 5, a rock in voronoi 12, a 1,000-
 *   particle cube in slanted slices and in radial wedges and rings: every piece's mesh closed,
 *   cut faces not axis-aligned, volumes summing to the body's, each piece
 *   in its seed's Voronoi cell and near its particles' box, and each
 *   particle's centre inside its own piece's mesh (the grouping and the
 *   cut agree);
 * - bad input: a mesh with a hole, the shipped bunny (no closed manifold),
 *   a seed whose cell misses the mesh: a warning naming the shape, and
 *   those pieces left empty (drawn as cells);
 * - the cost: a 1,000-particle 1.2 m cube in 30 pieces, and the bunny,
 *   printed (ms, triangles), and how far the cube's pieces stray past
 *   their particles' convex hull grown by a radius;
 * - a scaled body's pieces cut at its size, and pulled apart (the exploded view);
 * - a cube that breaks in a world (RUBBLE_TEST_BACKEND names the backend):
 *   each child's world shape has a mesh, closed, in the child's frame (near
 *   its particles), the children's volumes summing to the cube's. */
#include <string.h>
#include <time.h>

#include "rb_test.h"
#include "solid_angle.h"
#include "base/log.h"
#include "scenes/cut.h"
#include "scenes/debris.h"
#include "scenes/entities.h"

/* ---- mesh checks ---- */

typedef struct keyed_vertex {
    float p[3];
    uint32_t index;
} keyed_vertex;

static int position_order(const void *a, const void *b) {
    const keyed_vertex *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->p[k] != y->p[k]) return x->p[k] < y->p[k] ? -1 : 1;
    return 0;
}

static int pair_order(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* True if every edge (vertices welded where their positions are equal) is
 * one of exactly two triangles, once each way (closed, wound alike); or,
 * `shells`, met as often one way as the other (closed pieces side by side,
 * as a child's mesh is its pieces' together, touching at their cuts). */
static bool closed_as(const rb_mesh *m, bool shells) {
    keyed_vertex *v = malloc(sizeof *v * m->vertex_count);
    uint32_t *id = malloc(sizeof *id * m->vertex_count);
    uint64_t *edges = malloc(sizeof *edges * m->index_count);
    assert_true(v && id && edges);
    for (uint32_t i = 0; i < m->vertex_count; i++) memcpy(v[i].p, &m->positions[3 * i], 12), v[i].index = i;
    qsort(v, m->vertex_count, sizeof *v, position_order);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        if (i > 0 && position_order(&v[i], &v[i - 1]) != 0) unique++;
        id[v[i].index] = unique;
    }
    for (uint32_t t = 0; t < m->index_count; t += 3)
        for (int k = 0; k < 3; k++)
            edges[t + k] = (uint64_t)id[m->indices[t + k]] << 32 | id[m->indices[t + (k + 1) % 3]];
    qsort(edges, m->index_count, sizeof *edges, pair_order);
    bool ok = m->index_count > 0;
    for (uint32_t e = 0; ok && e < m->index_count; e++) {
        const uint64_t back = edges[e] << 32 | edges[e] >> 32;
        if (shells) { /* as many each way: count both runs */
            uint32_t ahead = 0, behind = 0;
            for (uint32_t x = 0; x < m->index_count; x++) ahead += edges[x] == edges[e], behind += edges[x] == back;
            ok = ahead == behind;
            continue;
        }
        ok = (e == 0 || edges[e] != edges[e - 1]) && /* once each way */
             bsearch(&back, edges, m->index_count, sizeof *edges, pair_order) != NULL;
    }
    free(v), free(id), free(edges);
    return ok;
}

static bool closed(const rb_mesh *m) { return closed_as(m, false); }

/* Volume enclosed, m^3 (divergence theorem). */
static double volume(const rb_mesh *m) {
    double sum = 0.0;
    for (uint32_t t = 0; t < m->index_count; t += 3) {
        const float *a = &m->positions[3 * m->indices[t]], *b = &m->positions[3 * m->indices[t + 1]],
                    *c = &m->positions[3 * m->indices[t + 2]];
        sum += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
               (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
               (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return sum / 6.0;
}

/* Winding number of a closed mesh about point q: 1 inside, 0 outside, 1/2
 * on its surface (the solid angles of its triangles, Van Oosterom and
 * Strackee). */
static double winding(const rb_mesh *m, const float *q) {
    double sum = 0.0;
    for (uint32_t t = 0; t < m->index_count; t += 3) {
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++) {
            a[k] = (double)m->positions[3 * m->indices[t] + k] - q[k];
            b[k] = (double)m->positions[3 * m->indices[t + 1] + k] - q[k];
            c[k] = (double)m->positions[3 * m->indices[t + 2] + k] - q[k];
        }
        const double angle = rb_test_solid_angle(a, b, c);
        if (isnan(angle)) return 0.5; /* at a corner: on the surface */
        sum += angle;
    }
    return sum / (4.0 * M_PI);
}

/* Counts normals of faces marked inside, distinct to 1e-3 (appended to seen, n of them so far). */
static uint32_t inside_normals(const rb_mesh *m, float *seen, uint32_t n, uint32_t cap) {
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        if (!m->inside[v]) continue;
        const float *x = &m->normals[3 * v];
        bool found = false;
        for (uint32_t s = 0; s < n && !found; s++)
            found = fabsf(seen[3 * s] - x[0]) < 1e-3f && fabsf(seen[3 * s + 1] - x[1]) < 1e-3f &&
                    fabsf(seen[3 * s + 2] - x[2]) < 1e-3f;
        if (!found && n < cap) memcpy(&seen[3 * n++], x, 12);
    }
    return n;
}

/* Particle q's winding in its piece's mesh m, moved 0.1 mm towards the
 * piece's seed: a particle on the boundary between two cells (a lattice tie,
 * which the grouping gives to the lower seed) is then strictly inside. */
static double winding_towards(const rb_mesh *m, const float *q, const float *seed) {
    const float d[3] = {seed[0] - q[0], seed[1] - q[1], seed[2] - q[2]};
    const float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), step = len > 1e-4f ? 1e-4f / len : 0.0f;
    const float x[3] = {q[0] + step * d[0], q[1] + step * d[1], q[2] + step * d[2]};
    return winding(m, x);
}

/* The most of q's winding and that of the 26 points 0.1 mm about it: 1
 * if q is inside or on the surface (a particle on the cut between two
 * children, which rounding may leave a hair outside its own). */
static double winding_near(const rb_mesh *m, const float *q) {
    double most = 0.0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                const float x[3] = {q[0] + 1e-4f * dx, q[1] + 1e-4f * dy, q[2] + 1e-4f * dz};
                most = fmax(most, winding(m, x));
            }
    return most;
}

static double distance2(const float *a, const float *b) {
    const double x = (double)a[0] - b[0], y = (double)a[1] - b[1], z = (double)a[2] - b[2];
    return x * x + y * y + z * z;
}

/* ---- a piece's convex hull ---- */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The point of segment ab nearest x, in c. */
static void nearest_on_segment(const double x[3], const double a[3], const double b[3], double c[3]) {
    double ab[3], ax[3];
    for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ax[k] = x[k] - a[k];
    const double len2 = dot3(ab, ab);
    double t = len2 > 0.0 ? dot3(ax, ab) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    for (int k = 0; k < 3; k++) c[k] = a[k] + t * ab[k];
}

/* x projected on triangle abc's plane, in c, if it falls inside the
 * triangle (not degenerate); false otherwise (its edges are segments). */
static bool projects_into_triangle(const double x[3], const double a[3], const double b[3], const double t[3],
                                   double c[3]) {
    double u[3], v[3], w[3], nrm[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = t[k] - a[k], w[k] = x[k] - a[k];
    nrm[0] = u[1] * v[2] - u[2] * v[1], nrm[1] = u[2] * v[0] - u[0] * v[2], nrm[2] = u[0] * v[1] - u[1] * v[0];
    const double n2 = dot3(nrm, nrm);
    if (n2 <= 1e-12 * dot3(u, u) * dot3(v, v)) return false;
    const double h = dot3(w, nrm) / n2;
    for (int k = 0; k < 3; k++) c[k] = x[k] - h * nrm[k], w[k] = c[k] - a[k];
    /* barycentric coordinates of c */
    const double uu = dot3(u, u), uv = dot3(u, v), vv = dot3(v, v), wu = dot3(w, u), wv = dot3(w, v);
    const double det = uu * vv - uv * uv, s = (vv * wu - uv * wv) / det, r = (uu * wv - uv * wu) / det;
    return s >= 0.0 && r >= 0.0 && s + r <= 1.0;
}

/* How far x lies outside the convex hull of the n points q (xyz), m; 0
 * inside. The hull's surface is covered by the points' triangles (a
 * face's points cover it), edges and points, so for x outside it the
 * nearest of those is the hull's nearest point c; x is outside exactly
 * when every point lies on c's side of the plane through c across c -> x. */
static double outside_hull(const float *xf, const double *q, uint32_t n) {
    const double x[3] = {xf[0], xf[1], xf[2]};
    double best = INFINITY, at[3] = {0, 0, 0}, c[3];
    for (uint32_t i = 0; i < n; i++) {
        const double d = (x[0] - q[3 * i]) * (x[0] - q[3 * i]) + (x[1] - q[3 * i + 1]) * (x[1] - q[3 * i + 1]) +
                         (x[2] - q[3 * i + 2]) * (x[2] - q[3 * i + 2]);
        if (d < best) best = d, memcpy(at, &q[3 * i], sizeof at);
        for (uint32_t j = i + 1; j < n; j++) {
            nearest_on_segment(x, &q[3 * i], &q[3 * j], c);
            const double e = (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]);
            if (e < best) best = e, memcpy(at, c, sizeof at);
            for (uint32_t k = j + 1; k < n; k++) {
                if (!projects_into_triangle(x, &q[3 * i], &q[3 * j], &q[3 * k], c)) continue;
                const double f =
                    (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]);
                if (f < best) best = f, memcpy(at, c, sizeof at);
            }
        }
    }
    const double dist = sqrt(best);
    if (dist < 1e-9) return 0.0;
    double u[3];
    for (int k = 0; k < 3; k++) u[k] = (x[k] - at[k]) / dist;
    const double edge = dot3(u, at);
    for (uint32_t i = 0; i < n; i++)
        if (dot3(u, &q[3 * i]) > edge + 1e-9) return 0.0; /* a point beyond c's plane: x is inside */
    return dist;
}

/* The farthest a mesh's vertex lies outside the convex hull of piece k's
 * particles grown by r, m (0 if none does); -1 if the piece has more than
 * `most` particles on its surface (the cost is their number cubed).
 * A particle with its six lattice neighbours in the piece is the middle
 * of two of them, so never a corner of the hull: left out. */
static double outside_grown_hull(const rb_mesh *m, const float *particles, uint32_t n, const uint32_t *piece_of,
                                 uint32_t k, float r, uint32_t most) {
    uint32_t *own = malloc(sizeof *own * n), size = 0, count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (piece_of[i] == k) own[size++] = i;
    double *q = malloc(sizeof *q * 3 * (most + 1));
    for (uint32_t a = 0; a < size && count <= most; a++) {
        uint32_t neighbours = 0;
        for (uint32_t b = 0; b < size; b++)
            neighbours +=
                b != a && distance2(&particles[3 * own[a]], &particles[3 * own[b]]) <= (2.02 * r) * (2.02 * r);
        if (neighbours >= 6) continue;
        for (int x = 0; x < 3; x++) q[3 * count + x] = particles[3 * own[a] + x];
        count++;
    }
    free(own);
    double worst = 0.0;
    for (uint32_t v = 0; count <= most && v < m->vertex_count; v++)
        worst = fmax(worst, outside_hull(&m->positions[3 * v], q, count) - r);
    free(q);
    return count > most ? -1.0 : worst;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Cuts shape s into its pieces by desc and checks them all (above): closed,
 * volumes summing to the body's within 2%, more than 6 cut-face normals
 * (voronoi), each particle inside its piece, each piece inside its seed's
 * Voronoi cell, and each piece's mesh no further than `strays` radii
 * outside its particles' box grown by a radius (printed: a cell reaches
 * past other pieces' particles where its corner is thin, or where the
 * particles are only the surface's). Returns the triangles made. */
static const char *const kind_names[] = {"voronoi", "layers", "particles", "given", "slices", "radial"};

/* The farthest a voronoi piece's mesh lay outside its particles' convex
 * hull grown by a radius in the last check_pieces, in radii (pieces of
 * more than 128 particles on their surface not measured). */
static float hull_strays;

static uint32_t check_pieces(const rb_shape *s, const rb_fracture_desc *desc, float strays) {
    assert_non_null(s);
    assert_true(s->mesh.vertex_count > 0);
    const float r = s->particle_radius;
    rb_pieces p;
    char err[256];
    if (!rb_pieces_make(s->particles, s->particle_count, r, s->mass / s->particle_count, desc, NULL, &p, err,
                        sizeof err))
        fail_msg("%s", err);
    assert_true(p.seeds || p.radial);
    rb_mesh *m = calloc(p.piece_count, sizeof *m);
    const double t0 = now_ms();
    const uint32_t made = rb_cut_pieces(&s->mesh, &p, s->name, m);
    const double ms = now_ms() - t0;
    assert_int_equal(made, p.piece_count);
    const double whole = volume(&s->mesh);
    double sum = 0.0;
    uint32_t triangles = 0, normals = 0;
    float seen[3 * 256], worst = 0.0f;
    double hull_worst = 0.0;
    for (uint32_t k = 0; k < p.piece_count; k++) {
        assert_true(m[k].vertex_count > 0);
        assert_true(closed(&m[k]));
        const double v = volume(&m[k]);
        assert_true(v > 0.0);
        sum += v;
        triangles += m[k].index_count / 3;
        normals = inside_normals(&m[k], seen, normals, 256);
        /* its particles' box, grown by a radius, and by one more */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < s->particle_count; i++)
            if (p.piece_of[i] == k)
                for (int a = 0; a < 3; a++)
                    lo[a] = fminf(lo[a], s->particles[3 * i + a]), hi[a] = fmaxf(hi[a], s->particles[3 * i + a]);
        /* its region: every corner no further from its seed than from any other (0.1 mm for the rounding) */
        for (uint32_t i = 0; p.seeds && i < m[k].vertex_count; i++)
            for (uint32_t j = 0; j < p.piece_count; j++) {
                const float *x = &m[k].positions[3 * i];
                const double own = sqrt(distance2(x, &p.seeds[3 * k])), other = sqrt(distance2(x, &p.seeds[3 * j]));
                if (own > other + 1e-4)
                    fail_msg("%s piece %u: a corner %.4f m from its seed, %.4f m from piece %u's", s->name, k, own,
                             other, j);
            }
        float stray = 0.0f;
        for (uint32_t i = 0; i < m[k].vertex_count; i++)
            for (int a = 0; a < 3; a++) {
                const float x = m[k].positions[3 * i + a];
                stray = fmaxf(stray, fmaxf(lo[a] - r - x, x - hi[a] - r));
            }
        worst = fmaxf(worst, stray);
        if (desc->kind == RB_FRACTURE_VORONOI)
            hull_worst =
                fmax(hull_worst, outside_grown_hull(&m[k], s->particles, s->particle_count, p.piece_of, k, r, 128));
        if (stray > strays * r + 1e-5f)
            fail_msg("%s piece %u: %.3f m outside its particles' box grown by r = %.3f", s->name, k, stray, r);
    }
    /* each particle's centre in its own piece (radial: on its surface at
     * most, a particle on the axis being on every wedge's side) */
    for (uint32_t i = 0; i < s->particle_count; i++) {
        const uint32_t k = p.piece_of[i];
        const double w = p.seeds ? winding_towards(&m[k], &s->particles[3 * i], &p.seeds[3 * k])
                                 : winding_near(&m[k], &s->particles[3 * i]);
        if (w < 0.99) fail_msg("%s particle %u: winding %.3f in its piece %u", s->name, i, w, p.piece_of[i]);
    }
    print_message("%s (%u particles, %u triangles), %s %u: %u pieces closed, volume %.5f of %.5f m^3 (%+.4f%%), "
                  "%u cut-face normals, %u triangles, at most %.2f r outside (%.2f r outside the hull), %.1f ms\n",
                  s->name, s->particle_count, s->mesh.index_count / 3,
                  kind_names[desc->kind], desc->kind == RB_FRACTURE_RADIAL ? desc->wedges * desc->rings : desc->pieces,
                  p.piece_count, sum, whole, 100.0 * (sum - whole) / whole, normals, triangles, worst / r,
                  hull_worst / r, ms);
    hull_strays = (float)(hull_worst / r);
    assert_true(fabs(sum - whole) <= 0.02 * whole);
    if (desc->kind == RB_FRACTURE_VORONOI || desc->kind == RB_FRACTURE_RADIAL) assert_true(normals > 6);
    for (uint32_t k = 0; k < p.piece_count; k++) rb_mesh_free(&m[k]);
    free(m);
    rb_pieces_free(&p);
    return triangles;
}

static void test_cube_in_voronoi(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry();
    const rb_shape *cube = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "cube"));
    check_pieces(cube, &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 12, .seed = 1, .strength = RB_FRACTURE_STRENGTH}, 3.0f);
    check_pieces(cube, &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 12, .seed = 7, .strength = RB_FRACTURE_STRENGTH}, 3.0f);
    rb_registry_destroy(reg);
}

/* Layers: slabs, so their cut faces all share one normal (and its
 * opposite): only the checks but the count of normals. */
static void test_cube_in_layers(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry();
    const rb_shape *cube = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "cube"));
    rb_pieces p;
    char err[256];
    const rb_fracture_desc desc = {.kind = RB_FRACTURE_LAYERS, .pieces = 3, .seed = 0, .strength = RB_FRACTURE_STRENGTH};
    assert_true(rb_pieces_make(cube->particles, cube->particle_count, cube->particle_radius, 1.0f, &desc, NULL, &p, err,
                               sizeof err));
    assert_int_equal(p.piece_count, 3);
    rb_mesh m[3];
    assert_int_equal(rb_cut_cells(&cube->mesh, p.seeds, 3, cube->name, m), 3);
    double sum = 0.0;
    for (int k = 0; k < 3; k++) {
        assert_true(closed(&m[k]));
        sum += volume(&m[k]);
        /* the particles span 0.8 m in three slabs 0.8/3 m thick; the end slabs reach the faces, 0.2 m further */
        assert_near(volume(&m[k]), 1.44 * (0.8 / 3 + (k == 1 ? 0.0 : 0.2)), 1e-4);
        for (uint32_t i = 0; i < cube->particle_count; i++)
            if (p.piece_of[i] == (uint32_t)k) assert_true(winding(&m[k], &cube->particles[3 * i]) > 0.99);
        rb_mesh_free(&m[k]);
    }
    assert_near(sum, 1.2 * 1.2 * 1.2, 1e-4);
    rb_pieces_free(&p);
    rb_registry_destroy(reg);
}

/* Not convex: the torus, a ring (voro++'s cells are convex, the clip is
 * CGAL's), in 12 pieces and in 5 layers. Its particles are its surface's
 * only, so a cell reaches across the hollow further from them. */
static void test_torus_and_rock_cut(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry_with_meshes();
    const int torus = rb_registry_find(reg, "torus");
    assert_true(torus >= 0);
    const rb_shape *s = rb_registry_get(reg, (uint32_t)torus);
    check_pieces(s, &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 12, .seed = 1, .strength = RB_FRACTURE_STRENGTH}, 4.0f);
    check_pieces(s, &(rb_fracture_desc){.kind = RB_FRACTURE_LAYERS, .pieces = 5, .seed = 0, .strength = RB_FRACTURE_STRENGTH}, 4.0f);
    /* a rock: lumpy, solid */
    const int rock = rb_registry_find(reg, "rock_a");
    assert_true(rock >= 0);
    check_pieces(rb_registry_get(reg, (uint32_t)rock), &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 12, .seed = 1, .strength = RB_FRACTURE_STRENGTH}, 4.0f);
    rb_registry_destroy(reg);
}

/* ---- bad input ---- */

static char said[1024];
static void keep_warning(rb_log_level level, const char *message, void *user) {
    (void)user;
    if (level == RB_LOG_WARN) snprintf(said + strlen(said), sizeof said - strlen(said), "%s\n", message);
}

/* A cube of side 2 half, 12 triangles wound outwards; `holed`: one left out. */
static rb_mesh cube_mesh(float half, bool holed) {
    static const uint32_t faces[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                       2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    rb_mesh m = {.vertex_count = 8, .index_count = holed ? 33 : 36};
    m.positions = malloc(sizeof(float) * 24), m.normals = calloc(24, sizeof(float));
    m.indices = malloc(sizeof faces);
    for (int v = 0; v < 8; v++)
        for (int a = 0; a < 3; a++) m.positions[3 * v + a] = (v >> (2 - a) & 1) ? half : -half;
    memcpy(m.indices, faces, sizeof faces);
    if (volume(&m) < 0.0) /* wound inwards: turned */
        for (uint32_t t = 0; t < m.index_count; t += 3) {
            const uint32_t x = m.indices[t + 1];
            m.indices[t + 1] = m.indices[t + 2], m.indices[t + 2] = x;
        }
    return m;
}

static void test_bad_input_warns_and_leaves_pieces_empty(void **state) {
    (void)state;
    rb_mesh cube = cube_mesh(0.6f, false), holed = cube_mesh(0.6f, true);
    assert_true(closed(&cube) && volume(&cube) > 1.7 && !closed(&holed));
    const float seeds[6] = {-0.3f, 0.0f, 0.0f, 0.3f, 0.1f, 0.0f};
    rb_mesh m[2];
    rb_set_log_fn(keep_warning, NULL);
    said[0] = '\0';
    assert_int_equal(rb_cut_cells(&holed, seeds, 2, "holed_box", m), 0);
    assert_true(m[0].vertex_count == 0 && m[1].vertex_count == 0);
    assert_non_null(strstr(said, "holed_box"));
    assert_non_null(strstr(said, "not closed"));
    /* the second seed far off: its cell misses the mesh, the first's holds all of it */
    const float apart[6] = {0.0f, 0.0f, 0.0f, 50.0f, 0.0f, 0.0f};
    said[0] = '\0';
    assert_int_equal(rb_cut_cells(&cube, apart, 2, "far_box", m), 1);
    assert_true(m[0].vertex_count > 0 && m[1].vertex_count == 0);
    assert_near(volume(&m[0]), 1.728, 1e-4);
    assert_non_null(strstr(said, "far_box"));
    assert_non_null(strstr(said, "misses the mesh"));
    /* a shipped mesh that is no closed manifold: the bunny (edges wound both ways, three open) */
    rb_registry *reg = rb_test_registry_with_meshes();
    const rb_shape *bunny = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "bunny"));
    assert_non_null(bunny);
    rb_mesh b[2] = {{0}};
    said[0] = '\0';
    assert_int_equal(rb_cut_cells(&bunny->mesh, seeds, 2, bunny->name, b), 0);
    assert_true(b[0].vertex_count == 0 && b[1].vertex_count == 0);
    assert_non_null(strstr(said, "bunny"));
    assert_non_null(strstr(said, "not a manifold"));
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
    rb_mesh_free(&m[0]);
    rb_mesh_free(&cube), rb_mesh_free(&holed);
}

/* A 1.2 m cube of 10 x 10 x 10 particles (radius 6 cm), its mesh a box: free p and the mesh. */
static rb_shape lattice_cube(void) {
    const int n = 10;
    const float r = 0.06f;
    float *p = malloc(sizeof(float) * 3 * 1000);
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int l = 0; l < n; l++) {
                p[k++] = 2.0f * r * (i - 0.5f * (n - 1));
                p[k++] = 2.0f * r * (j - 0.5f * (n - 1));
                p[k++] = 2.0f * r * (l - 0.5f * (n - 1));
            }
    return (rb_shape){.name = "lattice_cube",
                      .particle_count = 1000,
                      .particles = p,
                      .mass = 1728.0f,
                      .particle_radius = r,
                      .mesh = cube_mesh(0.6f, false)};
}

/* Slices at a slant and radial (glass): the same checks. Slices' cut faces
 * share one normal; radial's are its wedges' planes and its rings' chords,
 * so more than 6. The slabs' Voronoi cells are exact, the ring's polygons
 * too: no face strays past a radius beyond its particles' box but where a
 * slab's or wedge's thin corner reaches past the last row of particles. */
static void test_lattice_cube_in_slices_and_radial(void **state) {
    (void)state;
    rb_shape s = lattice_cube();
    check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_SLICES, .pieces = 6, .normal = {1.0f, 0.4f, 0.2f}, .strength = 1.0f}, 4.5f);
    check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_RADIAL, .normal = {0.0f, 1.0f, 0.0f}, .wedges = 7, .rings = 3, .seed = 3, .strength = 1.0f}, 4.0f);
    check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_RADIAL, .normal = {0.3f, 1.0f, 0.1f}, .wedges = 2, .rings = 2, .seed = 9, .strength = 1.0f}, 4.0f);
    check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_RADIAL, .normal = {0.0f, 0.0f, 1.0f}, .wedges = 1, .rings = 3, .seed = 1, .strength = 1.0f}, 4.0f);
    rb_mesh_free(&s.mesh);
    free(s.particles);
}

/* ---- the cost ---- */

/* A 1.2 m cube of 10 x 10 x 10 particles (radius 6 cm) in voronoi 30,
 * the cost printed, and how far its pieces' meshes stray, for four seeds.
 * A cell's face runs between the lattice's rows wherever its seeds put it,
 * so where it meets the cube's face it can reach past its own particles:
 * up to 1.8 radii past their box grown by a radius, 2.0 past their convex
 * hull grown by one, with the seeds moved to even pieces (with seeds drawn
 * and not moved, 3.2 and 3.9: a thin cell's corner reached a row or two
 * past other pieces' particles). */
static void test_cost_of_a_thousand_particles_in_30_pieces(void **state) {
    (void)state;
    rb_shape s = lattice_cube();
    const uint32_t triangles = check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 30, .seed = 5, .strength = 1.0f}, 2.5f);
    assert_true(triangles > 30 * 12);
    assert_true(hull_strays <= 2.5f);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        check_pieces(&s, &(rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 30, .seed = seed, .strength = 1.0f}, 2.5f);
        assert_true(hull_strays <= 2.5f);
    }
    rb_mesh_free(&s.mesh);
    free(s.particles);
}

/* ---- in a world ---- */

/* A cube of voronoi 8 dropped corner first from 5 m breaks
 * (tests/test_breaking.c); at `scale` (a scaled body's world shape, its
 * particles and its mesh scale times the cube's). */
static void break_a_cube(float scale) {
    rb_registry *reg = rb_test_registry();
    rb_world *world = rb_test_world(rb_default_world_desc());
    rb_entities *entities = rb_entities_create(reg, world);
    const int row = rb_entities_find(entities, "cube");
    assert_true(row >= 0);
    const float a[3] = {0.57735027f, 0.57735027f, 0.57735027f}; /* the diagonal turned down */
    const float axis[3] = {a[2], 0.0f, -a[0]}, len = sqrtf(axis[0] * axis[0] + axis[2] * axis[2]);
    const float half = 0.5f * acosf(-a[1]);
    rb_body_desc b = {.orientation = {axis[0] / len * sinf(half), 0.0f, axis[2] / len * sinf(half), cosf(half)}};
    b.position[1] = 5.0f + scale * (sqrtf(3.0f) * 0.4f + 0.2f);
    const rb_body_id id = rb_entities_spawn_scaled(entities, (uint32_t)row, scale, &b);
    char err[256];
    rb_debris *d = rb_debris_create(&(rb_debris_desc){0}, entities, err, sizeof err);
    assert_non_null(d);
    const uint32_t shapes_before = rb_world_shape_count(world);
    rb_mesh none;
    assert_false(rb_debris_piece_mesh(d, 0, &none)); /* a registry shape's: no piece mesh */
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 1, .strength = RB_FRACTURE_STRENGTH};
    if (!rb_debris_make_breakable(d, id, &fd, err, sizeof err)) fail_msg("%s", err);
    assert_true(rb_debris_step(d, 1500));
    assert_true(rb_debris_breaks(d) >= 1);
    const uint32_t shapes = rb_world_shape_count(world);
    assert_true(shapes > shapes_before + 1);
    /* the first break's children: every particle of the cube in one of them */
    uint32_t particles = 0, children = 0;
    double sum = 0.0;
    for (uint32_t ws = shapes_before; ws < shapes && particles < 27; ws++) {
        rb_mesh m;
        assert_true(rb_debris_piece_mesh(d, ws, &m));
        assert_true(closed_as(&m, true));
        const uint32_t n = rb_world_shape_particles(world, ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * n);
        rb_world_shape_particles(world, ws, p, n, NULL);
        const float r = rb_world_shape_radius(world, ws);
        /* in the child's frame: near its particles (a cell of voronoi 8 in
         * the 3 x 3 x 3 cube reaches up to 3 radii past a particle, as in
         * test_cube_in_voronoi), and each of its particles inside or on its surface */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[3 * i + k]), hi[k] = fmaxf(hi[k], p[3 * i + k]);
        for (uint32_t v = 0; v < m.vertex_count; v++)
            for (int k = 0; k < 3; k++) {
                assert_true(m.positions[3 * v + k] > lo[k] - 3.0f * r - 1e-3f);
                assert_true(m.positions[3 * v + k] < hi[k] + 3.0f * r + 1e-3f);
            }
        for (uint32_t i = 0; i < n; i++) assert_true(winding_near(&m, &p[3 * i]) > 0.99);
        /* more than the cells' mesh has: its cut faces are not the lattice's */
        uint32_t cut = 0;
        for (uint32_t v = 0; v < m.vertex_count; v++) cut += m.inside[v];
        assert_true(cut > 0);
        sum += volume(&m);
        particles += n, children++;
        free(p);
        rb_mesh_free(&m);
    }
    const double whole = 1.728 * scale * scale * scale;
    print_message("%s, scale %g: the first break made %u children of %u particles, their meshes %.4f m^3 (the cube "
                  "%.4f)\n",
                  rb_test_backend() == RB_BACKEND_OPENCL ? "opencl" : "reference", scale, children, particles, sum,
                  whole);
    assert_int_equal(particles, 27);
    assert_near(sum, whole, 0.02 * whole);
    rb_debris_destroy(d);
    rb_entities_destroy(entities);
    rb_world_destroy(world);
    rb_registry_destroy(reg);
}

/* A scaled breakable body's pieces are cut at its size (its particles'),
 * and its exploded view (rb_debris_exploded_mesh) moves each piece out by
 * the spread times its centre: at spread 0 the pieces fill the half-size
 * cube, at 0.5 they reach further out, the volume the same. */
static void test_scaled_body_cut_at_its_size_and_pulled_apart(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry();
    rb_world *world = rb_test_world(rb_default_world_desc());
    rb_entities *entities = rb_entities_create(reg, world);
    const int row = rb_entities_find(entities, "cube");
    assert_true(row >= 0);
    rb_body_desc b = {.orientation = {0.0f, 0.0f, 0.0f, 1.0f}, .position = {0.0f, 3.0f, 0.0f}};
    const rb_body_id id = rb_entities_spawn_scaled(entities, (uint32_t)row, 0.5f, &b);
    char err[256];
    rb_debris *d = rb_debris_create(&(rb_debris_desc){0}, entities, err, sizeof err);
    assert_non_null(d);
    rb_mesh m;
    assert_false(rb_debris_exploded_mesh(d, id, 0.0f, &m)); /* not breakable yet */
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 6, .seed = 2, .strength = RB_FRACTURE_STRENGTH};
    if (!rb_debris_make_breakable(d, id, &fd, err, sizeof err)) fail_msg("%s", err);
    rb_body_id listed[4];
    assert_int_equal(rb_debris_breakables(d, listed, 4), 1);
    assert_true(rb_body_same(listed[0], id));
    float extent[2] = {0.0f, 0.0f};
    double vol[2];
    for (int k = 0; k < 2; k++) {
        assert_true(rb_debris_exploded_mesh(d, id, k ? 0.5f : 0.0f, &m));
        vol[k] = volume(&m);
        for (uint32_t v = 0; v < 3 * m.vertex_count; v++) extent[k] = fmaxf(extent[k], fabsf(m.positions[v]));
        rb_mesh_free(&m);
    }
    print_message("a half-size cube in 6 pieces: %.4f m^3 (0.216), reaching %.3f m, %.3f m pulled apart\n", vol[0],
                  extent[0], extent[1]);
    assert_near(vol[0], 0.216, 0.02 * 0.216); /* 0.6 m across: the mesh at the particles' size */
    assert_near(extent[0], 0.3, 1e-3);
    assert_near(vol[1], vol[0], 1e-6);
    assert_true(extent[1] > extent[0] + 0.02f);
    rb_debris_destroy(d);
    rb_entities_destroy(entities);
    rb_world_destroy(world);
    rb_registry_destroy(reg);
}

static void test_children_of_a_break_are_drawn_cut(void **state) {
    (void)state;
    break_a_cube(1.0f);
}

/* A body at twice its shape's size: its pieces cut from the mesh at that
 * size, so each child's mesh holds its particles (the whole 8 times the
 * cube's volume). */
static void test_a_scaled_body_is_cut_at_its_size(void **state) {
    (void)state;
    break_a_cube(2.0f);
}

/* ---- a pre-fractured mesh's parts ---- */

/* The shipped pillar (assets/meshes/pillar.obj, three chunks each its own
 * object; "pieces": "parts") at `scale`, breakable in its plugin's pieces
 * with weak bonds, dropped lying and tilted from 4 m: its first break's
 * children are drawn with the chunks' own meshes, moved into each child's
 * frame: 12 triangles a chunk, 36 in all, the chunks' volume (1.536 m^3
 * times the scale cubed), each child's particles inside its mesh, and the
 * faces of the cuts marked inside. */
static void break_the_pillar(float scale) {
    rb_registry *reg = rb_test_registry_with_meshes();
    rb_world *world = rb_test_world(rb_default_world_desc());
    rb_entities *entities = rb_entities_create(reg, world);
    const int row = rb_entities_find(entities, "pillar");
    assert_true(row >= 0);
    const rb_shape *shape = rb_entities_get(entities, (uint32_t)row)->shape;
    assert_int_equal(shape->part_count, 3);
    rb_body_desc b = {.orientation = {0.0f, 0.0f, 0.1305262f, 0.9914449f}, .position = {0.0f, 4.0f, 0.0f}};
    const rb_body_id id = rb_entities_spawn_scaled(entities, (uint32_t)row, scale, &b);
    char err[256];
    rb_debris *d = rb_debris_create(&(rb_debris_desc){0}, entities, err, sizeof err);
    assert_non_null(d);
    const uint32_t shapes_before = rb_world_shape_count(world);
    const rb_fracture_desc given = {.kind = RB_FRACTURE_GIVEN, .strength = 20000.0f};
    if (!rb_debris_make_breakable(d, id, &given, err, sizeof err)) fail_msg("%s", err);
    assert_true(rb_debris_step(d, 1500));
    assert_true(rb_debris_breaks(d) >= 1);
    const uint32_t shapes = rb_world_shape_count(world);
    uint32_t particles = 0, triangles = 0, children = 0;
    double sum = 0.0;
    for (uint32_t ws = shapes_before; ws < shapes && particles < shape->particle_count; ws++) {
        rb_mesh m;
        assert_true(rb_debris_piece_mesh(d, ws, &m));
        assert_true(m.index_count > 0 && m.index_count % 36 == 0); /* whole chunks of 12 triangles */
        assert_true(closed_as(&m, true));
        const uint32_t n = rb_world_shape_particles(world, ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * n);
        rb_world_shape_particles(world, ws, p, n, NULL);
        for (uint32_t i = 0; i < n; i++)
            if (winding_near(&m, &p[3 * i]) < 0.99) fail_msg("child %u: particle %u outside its mesh", children, i);
        uint32_t cut = 0;
        for (uint32_t v = 0; v < m.vertex_count; v++) cut += m.inside[v];
        assert_true(cut > 0);
        sum += volume(&m);
        triangles += m.index_count / 3, particles += n, children++;
        free(p);
        rb_mesh_free(&m);
    }
    const double whole = 0.8 * 0.8 * 2.4 * scale * scale * scale;
    print_message("%s, scale %g: the pillar's first break made %u children of %u particles, %u triangles, %.4f m^3 "
                  "(the pillar %.4f)\n",
                  rb_test_backend() == RB_BACKEND_OPENCL ? "opencl" : "reference", scale, children, particles,
                  triangles, sum, whole);
    assert_true(children >= 2);
    assert_int_equal(particles, shape->particle_count);
    assert_int_equal(triangles, 36);
    assert_near(sum, whole, 1e-4 * whole);
    rb_debris_destroy(d);
    rb_entities_destroy(entities);
    rb_world_destroy(world);
    rb_registry_destroy(reg);
}

static void test_a_pillar_breaks_into_its_parts(void **state) {
    (void)state;
    break_the_pillar(1.0f);
}

static void test_a_scaled_pillar_breaks_into_its_parts(void **state) {
    (void)state;
    break_the_pillar(0.5f);
}

/* A pattern with no regions of its own (particles: it crumbles; a
 * plugin's pieces without parts' meshes) is cut along its particles'
 * cells: the 27-particle cube's 27 pieces, each its particle's cell
 * clipped to the cube, fill the cube, each particle inside its own; its
 * plugin's four columns fill it too. */
static void test_a_crumble_is_cut_along_its_particles_cells(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry();
    rb_world *world = rb_test_world(rb_default_world_desc());
    rb_entities *entities = rb_entities_create(reg, world);
    const int row = rb_entities_find(entities, "cube");
    assert_true(row >= 0);
    rb_body_desc b = {.orientation = {0.0f, 0.0f, 0.0f, 1.0f}, .position = {0.0f, 3.0f, 0.0f}};
    const rb_body_id id = rb_entities_spawn(entities, (uint32_t)row, &b);
    char err[256];
    rb_debris *d = rb_debris_create(&(rb_debris_desc){0}, entities, err, sizeof err);
    assert_non_null(d);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_PARTICLES, .strength = RB_FRACTURE_STRENGTH};
    const double t0 = now_ms();
    if (!rb_debris_make_breakable(d, id, &fd, err, sizeof err)) fail_msg("%s", err);
    const double ms = now_ms() - t0;
    rb_mesh m;
    assert_true(rb_debris_exploded_mesh(d, id, 0.0f, &m));
    const rb_shape *cube = rb_entities_get(entities, (uint32_t)row)->shape;
    print_message("the cube crumbling: 27 pieces, %u triangles, %.4f m^3 (1.728), %.1f ms\n", m.index_count / 3,
                  volume(&m), ms);
    assert_near(volume(&m), 1.728, 0.02 * 1.728);
    for (uint32_t i = 0; i < cube->particle_count; i++) assert_true(winding_near(&m, &cube->particles[3 * i]) > 0.99);
    rb_mesh_free(&m);
    /* the cube plugin's own pieces (four columns, no parts' meshes): each column its particles' cells */
    const rb_body_id other = rb_entities_spawn(entities, (uint32_t)row, &b);
    const rb_fracture_desc given = {.kind = RB_FRACTURE_GIVEN, .strength = RB_FRACTURE_STRENGTH};
    if (!rb_debris_make_breakable(d, other, &given, err, sizeof err)) fail_msg("%s", err);
    assert_true(rb_debris_exploded_mesh(d, other, 0.0f, &m));
    assert_near(volume(&m), 1.728, 0.02 * 1.728);
    rb_mesh_free(&m);
    rb_debris_destroy(d);
    rb_entities_destroy(entities);
    rb_world_destroy(world);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_in_voronoi),
        cmocka_unit_test(test_cube_in_layers),
        cmocka_unit_test(test_torus_and_rock_cut),
        cmocka_unit_test(test_lattice_cube_in_slices_and_radial),
        cmocka_unit_test(test_bad_input_warns_and_leaves_pieces_empty),
        cmocka_unit_test(test_cost_of_a_thousand_particles_in_30_pieces),
        cmocka_unit_test(test_children_of_a_break_are_drawn_cut),
        cmocka_unit_test(test_scaled_body_cut_at_its_size_and_pulled_apart),
        cmocka_unit_test(test_a_crumble_is_cut_along_its_particles_cells),
        cmocka_unit_test(test_a_scaled_body_is_cut_at_its_size),
        cmocka_unit_test(test_a_pillar_breaks_into_its_parts),
        cmocka_unit_test(test_a_scaled_pillar_breaks_into_its_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
