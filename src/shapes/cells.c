/* cells.c - the surface of particles' voxel cells (see shapes.h, rb_cell_mesh). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

typedef struct cell {
    int32_t k[3]; /* lattice coordinates */
} cell;

static int cell_cmp(const void *pa, const void *pb) {
    const cell *a = pa, *b = pb;
    for (int m = 0; m < 3; m++)
        if (a->k[m] != b->k[m]) return a->k[m] < b->k[m] ? -1 : 1;
    return 0;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void normalise3(double a[3]) {
    const double l = sqrt(dot3(a, a));
    for (int k = 0; k < 3; k++) a[k] /= l;
}

/* The lattice the particles sit on: its step and three orthonormal axes,
 * right-handed, from the first two pairs of touching particles (centres a
 * diameter apart, within 10%) at right angles. A line of particles has its
 * second axis made up, a single particle all three. Touching pairs are
 * looked for from the first 256 particles only: in a piece, particles touch
 * their neighbours, so the search ends early but in a straight line. */
static void find_lattice(const float *p, uint32_t n, float radius, double axes[3][3], double *step) {
    bool have_a = false, have_b = false;
    *step = 2.0 * radius;
    for (uint32_t i = 0; i < n && i < 256 && !have_b; i++)
        for (uint32_t j = i + 1; j < n && !have_b; j++) {
            double v[3] = {p[3 * j] - p[3 * i], p[3 * j + 1] - p[3 * i + 1], p[3 * j + 2] - p[3 * i + 2]};
            const double len = sqrt(dot3(v, v));
            if (!(fabs(len - 2.0 * radius) < 0.2 * radius)) continue;
            for (int k = 0; k < 3; k++) v[k] /= len;
            if (!have_a) {
                memcpy(axes[0], v, sizeof v);
                *step = len;
                have_a = true;
            } else if (fabs(dot3(v, axes[0])) < 0.1) {
                memcpy(axes[1], v, sizeof v);
                have_b = true;
            }
        }
    if (!have_a) {
        const double x[3] = {1, 0, 0};
        memcpy(axes[0], x, sizeof x);
    }
    if (!have_b) { /* the frame's axis least along the first */
        int e = 0;
        for (int k = 1; k < 3; k++)
            if (fabs(axes[0][k]) < fabs(axes[0][e])) e = k;
        for (int k = 0; k < 3; k++) axes[1][k] = 0.0;
        axes[1][e] = 1.0;
    }
    /* exactly at right angles to the first, then the third from the two */
    const double d = dot3(axes[1], axes[0]);
    for (int k = 0; k < 3; k++) axes[1][k] -= d * axes[0][k];
    normalise3(axes[1]);
    axes[2][0] = axes[0][1] * axes[1][2] - axes[0][2] * axes[1][1];
    axes[2][1] = axes[0][2] * axes[1][0] - axes[0][0] * axes[1][2];
    axes[2][2] = axes[0][0] * axes[1][1] - axes[0][1] * axes[1][0];
}

/* Whether the sorted cells hold c's neighbour one step along axis m, in direction sign. */
static bool occupied(const cell *cells, uint32_t count, const cell *c, int m, int sign) {
    cell q = *c;
    q.k[m] += sign;
    return bsearch(&q, cells, count, sizeof q, cell_cmp) != NULL;
}

void rb_mesh_free(rb_mesh *m) {
    free(m->positions), free(m->normals), free(m->indices), free(m->inside);
    memset(m, 0, sizeof *m);
}

bool rb_cell_mesh(const float *p, uint32_t n, float radius, rb_mesh *out) {
    memset(out, 0, sizeof *out);
    if (n == 0) return false;
    double axes[3][3], step;
    find_lattice(p, n, radius, axes, &step);
    cell *cells = malloc(sizeof *cells * n);
    if (!cells) return false;
    /* each particle's cell, from the first particle's; two in one cell count once */
    for (uint32_t i = 0; i < n; i++) {
        const double q[3] = {p[3 * i] - p[0], p[3 * i + 1] - p[1], p[3 * i + 2] - p[2]};
        for (int m = 0; m < 3; m++) cells[i].k[m] = (int32_t)lround(dot3(q, axes[m]) / step);
    }
    qsort(cells, n, sizeof *cells, cell_cmp);
    uint32_t count = 1;
    for (uint32_t i = 1; i < n; i++)
        if (cell_cmp(&cells[i], &cells[count - 1]) != 0) cells[count++] = cells[i];
    uint32_t faces = 0;
    for (uint32_t i = 0; i < count; i++)
        for (int m = 0; m < 3; m++)
            for (int sign = -1; sign <= 1; sign += 2) faces += !occupied(cells, count, &cells[i], m, sign);
    out->positions = malloc(sizeof *out->positions * 12 * faces);
    out->normals = malloc(sizeof *out->normals * 12 * faces);
    out->indices = malloc(sizeof *out->indices * 6 * faces);
    if (!out->positions || !out->normals || !out->indices) {
        free(cells);
        rb_mesh_free(out);
        return false;
    }
    const double h = 0.5 * step;
    for (uint32_t i = 0; i < count; i++)
        for (int m = 0; m < 3; m++)
            for (int sign = -1; sign <= 1; sign += 2) {
                if (occupied(cells, count, &cells[i], m, sign)) continue;
                /* u x v = the outward normal: the corners below go counter-clockwise seen from outside */
                const double *u = axes[(m + (sign > 0 ? 1 : 2)) % 3], *v = axes[(m + (sign > 0 ? 2 : 1)) % 3];
                const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
                const uint32_t first = out->vertex_count;
                for (int c = 0; c < 4; c++, out->vertex_count++)
                    for (int k = 0; k < 3; k++) {
                        double x = p[k] + h * (sign * axes[m][k] + corner[c][0] * u[k] + corner[c][1] * v[k]);
                        for (int a = 0; a < 3; a++) x += step * cells[i].k[a] * axes[a][k];
                        out->positions[3 * out->vertex_count + k] = (float)x;
                        out->normals[3 * out->vertex_count + k] = (float)(sign * axes[m][k]);
                    }
                const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
                for (int t = 0; t < 6; t++) out->indices[out->index_count++] = first + tri[t];
            }
    free(cells);
    return true;
}
