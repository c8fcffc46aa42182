/* parts.c - a pre-fractured shape's parts: its render mesh split by the
 * plugin's triangle pieces (rb_shape_desc.triangle_pieces), each part's
 * faces that lie on another part's marked as the artist's cuts (shapes.h,
 * rb_shape_split_parts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

static int u32_order(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct values of v (n of them), sorted, into out; returns how many. */
static uint32_t distinct(const uint32_t *v, uint32_t n, uint32_t *out) {
    memcpy(out, v, sizeof *out * n);
    qsort(out, n, sizeof *out, u32_order);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (k == 0 || out[i] != out[k - 1]) out[k++] = out[i];
    return k;
}

/* Triangle t of m: its corners. */
static void corners(const rb_mesh *m, uint32_t t, const float *c[3]) {
    for (int k = 0; k < 3; k++) c[k] = &m->positions[3 * (size_t)m->indices[3 * t + k]];
}

/* A triangle's unit normal (zero for a degenerate one) and centroid. */
static void plane_of(const float *c[3], double n[3], double centroid[3]) {
    const double e1[3] = {c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]};
    const double e2[3] = {c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) {
        n[k] = len > 0.0 ? n[k] / len : 0.0;
        centroid[k] = ((double)c[0][k] + c[1][k] + c[2][k]) / 3.0;
    }
}

/* True if p (on the triangle's plane, within tol) lies in triangle c, its
 * edges grown by tol. */
static bool holds(const float *c[3], const double n[3], const double p[3], double tol) {
    for (int e = 0; e < 3; e++) {
        const float *a = c[e], *b = c[(e + 1) % 3];
        const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
        /* (ab x ap) . n: positive on the inner side of edge ab */
        const double x[3] = {ab[1] * ap[2] - ab[2] * ap[1], ab[2] * ap[0] - ab[0] * ap[2],
                             ab[0] * ap[1] - ab[1] * ap[0]};
        const double len = sqrt(ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2]);
        if (x[0] * n[0] + x[1] * n[1] + x[2] * n[2] < -tol * len) return false;
    }
    return true;
}

/* Marks in `cut` (per triangle of m) the triangles lying on a triangle of
 * another part that faces the other way: where two parts meet, the faces the
 * artist's cut made. A grid of cells over the mesh's box, each triangle
 * listed in the cells its box meets, keeps it near linear. */
static bool mark_cuts(const rb_mesh *m, const uint32_t *part, uint8_t *cut) {
    const uint32_t tris = m->index_count / 3;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], m->positions[3 * v + k]), hi[k] = fmax(hi[k], m->positions[3 * v + k]);
    double extent = 0.0;
    for (int k = 0; k < 3; k++) extent = fmax(extent, hi[k] - lo[k]);
    const double tol = 1e-5 * extent; /* the parts' shared faces agree to float rounding of the file's numbers */
    uint32_t side = (uint32_t)cbrt((double)tris);
    side = side < 1 ? 1 : side > 48 ? 48 : side;
    const double cell = extent / side + 1e-30;
    const size_t cells = (size_t)side * side * side;
    /* two passes over the triangles' cells: count, then list */
    uint32_t *start = calloc(cells + 1, sizeof *start), *list = NULL;
    if (!start) return false;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t *fill = pass ? calloc(cells, sizeof *fill) : NULL;
        if (pass && !fill) return free(start), free(list), false;
        for (uint32_t t = 0; t < tris; t++) {
            const float *c[3];
            corners(m, t, c);
            uint32_t a[3], b[3];
            for (int k = 0; k < 3; k++) {
                const double l = fmin(fmin(c[0][k], c[1][k]), c[2][k]) - tol - lo[k];
                const double h = fmax(fmax(c[0][k], c[1][k]), c[2][k]) + tol - lo[k];
                a[k] = l <= 0.0 ? 0 : (uint32_t)fmin(l / cell, side - 1);
                b[k] = h <= 0.0 ? 0 : (uint32_t)fmin(h / cell, side - 1);
            }
            for (uint32_t x = a[0]; x <= b[0]; x++)
                for (uint32_t y = a[1]; y <= b[1]; y++)
                    for (uint32_t z = a[2]; z <= b[2]; z++) {
                        const size_t i = ((size_t)x * side + y) * side + z;
                        if (pass)
                            list[start[i] + fill[i]++] = t;
                        else
                            start[i + 1]++;
                    }
        }
        if (!pass) {
            for (size_t i = 0; i < cells; i++) start[i + 1] += start[i];
            if (!(list = malloc(sizeof *list * (start[cells] ? start[cells] : 1)))) return free(start), false;
        }
        free(fill);
    }
    for (uint32_t t = 0; t < tris; t++) {
        const float *c[3];
        double n[3], p[3];
        corners(m, t, c);
        plane_of(c, n, p);
        uint32_t at[3];
        for (int k = 0; k < 3; k++) {
            const double x = (p[k] - lo[k]) / cell;
            at[k] = x <= 0.0 ? 0 : (uint32_t)fmin(x, side - 1);
        }
        const size_t i = ((size_t)at[0] * side + at[1]) * side + at[2];
        for (uint32_t j = start[i]; j < start[i + 1] && !cut[t]; j++) {
            const uint32_t u = list[j];
            if (part[u] == part[t]) continue;
            const float *d[3];
            double nu[3], pu[3];
            corners(m, u, d);
            plane_of(d, nu, pu);
            const double facing = n[0] * nu[0] + n[1] * nu[1] + n[2] * nu[2];
            const double off = (p[0] - pu[0]) * nu[0] + (p[1] - pu[1]) * nu[1] + (p[2] - pu[2]) * nu[2];
            if (facing < -0.999 && fabs(off) <= tol && holds(d, nu, p, tol)) cut[t] = 1;
        }
    }
    free(start), free(list);
    return true;
}

/* Part k of s's mesh: the triangles whose piece is `value`, their vertices
 * gathered (map: scratch, a vertex's index in the part, + 1), each vertex
 * inside if every triangle of the part that uses it is a cut. */
static bool gather(const rb_mesh *m, const uint32_t *triangle_pieces, const uint8_t *cut, uint32_t value, uint32_t *map,
                   rb_mesh *out) {
    const uint32_t tris = m->index_count / 3;
    uint32_t nt = 0, nv = 0;
    memset(map, 0, sizeof *map * m->vertex_count);
    for (uint32_t t = 0; t < tris; t++) {
        if (triangle_pieces[t] != value) continue;
        nt++;
        for (int c = 0; c < 3; c++)
            if (!map[m->indices[3 * t + c]]) map[m->indices[3 * t + c]] = ++nv;
    }
    out->vertex_count = nv, out->index_count = 3 * nt;
    out->positions = malloc(sizeof(float) * 3 * nv), out->normals = malloc(sizeof(float) * 3 * nv);
    out->indices = malloc(sizeof(uint32_t) * 3 * nt), out->inside = malloc(nv);
    if (!out->positions || !out->normals || !out->indices || !out->inside) return false;
    memset(out->inside, 1, nv);
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (map[v]) {
            memcpy(&out->positions[3 * (map[v] - 1)], &m->positions[3 * v], sizeof(float) * 3);
            memcpy(&out->normals[3 * (map[v] - 1)], &m->normals[3 * v], sizeof(float) * 3);
        }
    uint32_t i = 0;
    for (uint32_t t = 0; t < tris; t++) {
        if (triangle_pieces[t] != value) continue;
        for (int c = 0; c < 3; c++) {
            const uint32_t v = map[m->indices[3 * t + c]] - 1;
            out->indices[i++] = v;
            if (!cut[t]) out->inside[v] = 0;
        }
    }
    return true;
}

static void free_parts(rb_shape *s) {
    for (uint32_t k = 0; s->parts && k < s->part_count; k++) rb_mesh_free(&s->parts[k]);
    free(s->parts), free(s->part_piece);
    s->parts = NULL, s->part_piece = NULL, s->part_count = 0;
}

bool rb_shape_split_parts(rb_shape *s, const uint32_t *triangle_pieces, char *why, size_t why_size) {
    free_parts(s);
    const rb_mesh *m = &s->mesh;
    const uint32_t n = s->particle_count, tris = m->index_count / 3;
    if (!s->pieces || m->vertex_count == 0 || tris == 0) {
        snprintf(why, why_size, "triangle pieces need the shape's pieces and a mesh");
        return false;
    }
    uint32_t *values = malloc(sizeof *values * (n > tris ? n : tris)), *drawn = malloc(sizeof *drawn * tris);
    uint32_t *map = malloc(sizeof *map * m->vertex_count);
    uint8_t *cut = calloc(tris, 1);
    bool ok = values && drawn && map && cut;
    if (!ok) snprintf(why, why_size, "out of memory for the parts' meshes");
    const uint32_t pieces = ok ? distinct(s->pieces, n, values) : 0;
    const uint32_t parts = ok ? distinct(triangle_pieces, tris, drawn) : 0;
    for (uint32_t k = 0; ok && k < parts; k++)
        if (!bsearch(&drawn[k], values, pieces, sizeof *values, u32_order)) {
            snprintf(why, why_size, "a triangle's piece %u is no particle's piece", drawn[k]);
            ok = false;
        }
    if (ok && !mark_cuts(m, triangle_pieces, cut)) ok = false, snprintf(why, why_size, "out of memory for the cuts");
    if (ok) {
        s->parts = calloc(parts, sizeof *s->parts);
        s->part_piece = malloc(sizeof *s->part_piece * parts);
        ok = s->parts && s->part_piece;
        if (ok) s->part_count = parts;
        for (uint32_t k = 0; ok && k < parts; k++) {
            s->part_piece[k] = drawn[k];
            ok = gather(m, triangle_pieces, cut, drawn[k], map, &s->parts[k]);
        }
        if (!ok) snprintf(why, why_size, "out of memory for the parts' meshes");
    }
    free(values), free(drawn), free(map), free(cut);
    if (!ok) free_parts(s);
    return ok;
}

void rb_shape_free_parts(rb_shape *s) { free_parts(s); }
