/* voxelize.c - particles from a triangle mesh: orientation repair, a fast
 * generalized winding number, and a voxel grid sampled at its centres. */
#include "voxelize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RB_VOX_DEFAULT_RESOLUTION 10u
#define RB_VOX_DEFAULT_MAX 65536u
/* More voxels than this is refused before any work: 16 M cells is 16 MB of
 * flags and seconds of winding numbers, far beyond any usable shape. */
#define RB_VOX_MAX_CELLS (1u << 24)
/* A cluster of radius r is summed as a dipole when the query is farther than
 * BETA * r from its centre. 2 is what Barill et al. use with second-order
 * terms; with the dipole alone 3 keeps the error far below the 1/2 threshold
 * (checked against the exact sum in tests). */
#define RB_WINDING_BETA 3.0
#define RB_WINDING_LEAF 8u
#define RB_PI 3.14159265358979323846
/* A particle's centre is in a part where the part's winding number there is
 * the largest; where two parts meet (a cut face through a centre) both are
 * 1/2, so the bounds sit well away from it: in no part under 0.4, inside a
 * second part too from 0.6 (disjoint closed parts sum to the union's 1, and
 * the hierarchy's error is 0.035 at most: README, "The inside test"). */
#define RB_PART_INSIDE 0.4
#define RB_PART_OVERLAP 0.6

const char *rb_vox_result_text(rb_vox_result r) {
    switch (r) {
    case RB_VOX_OK:
        return "ok";
    case RB_VOX_NO_TRIANGLES:
        return "has no triangles";
    case RB_VOX_BAD_INDEX:
        return "has a triangle index past its last vertex";
    case RB_VOX_NON_FINITE:
        return "has a non-finite (NaN or infinite) vertex coordinate";
    case RB_VOX_FLAT:
        return "is flat: it encloses no volume";
    case RB_VOX_NONE_INSIDE:
        return "is too small or thin: no voxel centre is inside it at this resolution";
    case RB_VOX_TOO_MANY:
        return "would need more particles than the limit at this resolution";
    case RB_VOX_NO_MEMORY:
        return "could not be voxelized: out of memory";
    case RB_VOX_BAD_PART:
        return "has a triangle whose part is past the last part";
    default:
        return "unknown voxelization result";
    }
}

/* ---- small vector helpers (double: the winding sum cancels a lot) ---- */

static void sub3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}
static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(double r[3], const double a[3], const double b[3]) {
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static double len3(const double a[3]) { return sqrt(dot3(a, a)); }
static void load3(double r[3], const float *p) {
    r[0] = p[0];
    r[1] = p[1];
    r[2] = p[2];
}

/* Solid angle of triangle abc seen from q (Van Oosterom and Strackee 1983),
 * positive when q is behind the triangle's counter-clockwise front. */
static double solid_angle(const double a0[3], const double b0[3], const double c0[3], const double q[3]) {
    double a[3], b[3], c[3], bc[3];
    sub3(a, a0, q);
    sub3(b, b0, q);
    sub3(c, c0, q);
    double la = len3(a), lb = len3(b), lc = len3(c);
    cross3(bc, b, c);
    double det = dot3(a, bc);
    double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la + dot3(c, a) * lb;
    return 2.0 * atan2(det, den);
}

double rb_winding_exact(const float *positions, const uint32_t *indices, uint32_t triangle_count,
                        const double point[3]) {
    double sum = 0.0;
    for (uint32_t t = 0; t < triangle_count; t++) {
        double a[3], b[3], c[3];
        load3(a, positions + 3 * (size_t)indices[3 * t]);
        load3(b, positions + 3 * (size_t)indices[3 * t + 1]);
        load3(c, positions + 3 * (size_t)indices[3 * t + 2]);
        sum += solid_angle(a, b, c, point);
    }
    return sum / (4.0 * RB_PI);
}

/* ---- the winding-number hierarchy ---- */

typedef struct rb_wtri {
    double v[3][3]; /* corners, mesh units */
    double centroid[3];
    double area[3]; /* vector area: half the cross product, outward for CCW */
} rb_wtri;

typedef struct rb_wnode {
    double centre[3]; /* area-weighted centroid of the node's triangles */
    double area[3];   /* sum of vector areas: the dipole moment */
    double radius;    /* farthest corner from centre */
    uint32_t first;   /* leaf: first triangle; inner: left child */
    uint32_t count;   /* leaf: triangles; inner: 0 */
    uint32_t right;   /* inner: right child */
} rb_wnode;

struct rb_winding {
    rb_wtri *tris; /* in hierarchy order */
    rb_wnode *nodes;
    uint32_t node_count;
    uint32_t tri_count;
};

/* Partitions order[lo..hi) so the element of rank k (by centroid[axis]) is
 * at k, smaller before and larger after (Hoare's quickselect). */
static void select_kth(uint32_t *order, const rb_wtri *tris, uint32_t lo, uint32_t hi, uint32_t k, int axis) {
    while (hi - lo > 1) {
        double pivot = tris[order[lo + (hi - lo) / 2]].centroid[axis];
        uint32_t i = lo, j = hi - 1;
        while (i <= j) {
            while (tris[order[i]].centroid[axis] < pivot) i++;
            while (tris[order[j]].centroid[axis] > pivot) j--;
            if (i <= j) {
                uint32_t t = order[i];
                order[i] = order[j];
                order[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j + 1;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* Builds the node for order[first..first+count) and its subtree; returns its index. */
static uint32_t build_node(rb_winding *w, uint32_t *order, uint32_t first, uint32_t count) {
    uint32_t id = w->node_count++;
    rb_wnode *n = &w->nodes[id];
    memset(n, 0, sizeof *n);
    double area_sum = 0.0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double wsum[3] = {0, 0, 0}, plain[3] = {0, 0, 0};
    for (uint32_t i = first; i < first + count; i++) {
        const rb_wtri *t = &w->tris[order[i]];
        double a = len3(t->area);
        area_sum += a;
        for (int k = 0; k < 3; k++) {
            n->area[k] += t->area[k];
            wsum[k] += a * t->centroid[k];
            plain[k] += t->centroid[k];
            if (t->centroid[k] < lo[k]) lo[k] = t->centroid[k];
            if (t->centroid[k] > hi[k]) hi[k] = t->centroid[k];
        }
    }
    /* Degenerate (zero-area) clusters fall back to the plain centroid. */
    for (int k = 0; k < 3; k++) n->centre[k] = area_sum > 0.0 ? wsum[k] / area_sum : plain[k] / count;
    double r2 = 0.0;
    for (uint32_t i = first; i < first + count; i++)
        for (int c = 0; c < 3; c++) {
            double d[3];
            sub3(d, w->tris[order[i]].v[c], n->centre);
            double dd = dot3(d, d);
            if (dd > r2) r2 = dd;
        }
    n->radius = sqrt(r2);
    if (count <= RB_WINDING_LEAF) {
        n->first = first;
        n->count = count;
        return id;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    uint32_t half = count / 2;
    select_kth(order, w->tris, first, first + count, first + half, axis);
    uint32_t left = build_node(w, order, first, half);
    uint32_t right = build_node(w, order, first + half, count - half);
    w->nodes[id].first = left;
    w->nodes[id].right = right;
    w->nodes[id].count = 0;
    return id;
}

rb_winding *rb_winding_create(const float *positions, const uint32_t *indices, uint32_t triangle_count) {
    if (triangle_count == 0) return NULL;
    rb_winding *w = calloc(1, sizeof *w);
    rb_wtri *tris = malloc(sizeof *tris * triangle_count);
    uint32_t *order = malloc(sizeof *order * triangle_count);
    /* A binary tree with leaves of >= 1 triangle has < 2n nodes. */
    rb_wnode *nodes = malloc(sizeof *nodes * 2 * (size_t)triangle_count);
    rb_wtri *sorted = malloc(sizeof *sorted * triangle_count);
    if (!w || !tris || !order || !nodes || !sorted) {
        free(w);
        free(tris);
        free(order);
        free(nodes);
        free(sorted);
        return NULL;
    }
    for (uint32_t t = 0; t < triangle_count; t++) {
        rb_wtri *tr = &tris[t];
        for (int c = 0; c < 3; c++) load3(tr->v[c], positions + 3 * (size_t)indices[3 * t + c]);
        double e1[3], e2[3];
        sub3(e1, tr->v[1], tr->v[0]);
        sub3(e2, tr->v[2], tr->v[0]);
        cross3(tr->area, e1, e2);
        for (int k = 0; k < 3; k++) {
            tr->area[k] *= 0.5;
            tr->centroid[k] = (tr->v[0][k] + tr->v[1][k] + tr->v[2][k]) / 3.0;
        }
        order[t] = t;
    }
    w->tris = tris;
    w->nodes = nodes;
    w->tri_count = triangle_count;
    build_node(w, order, 0, triangle_count);
    /* Store the triangles in leaf order so a leaf reads one contiguous run. */
    for (uint32_t i = 0; i < triangle_count; i++) sorted[i] = tris[order[i]];
    free(tris);
    free(order);
    w->tris = sorted;
    return w;
}

double rb_winding_at(const rb_winding *w, const double q[3]) {
    uint32_t stack[128];
    int top = 0;
    double sum = 0.0;
    stack[top++] = 0;
    while (top > 0) {
        const rb_wnode *n = &w->nodes[stack[--top]];
        double d[3];
        sub3(d, n->centre, q);
        double d2 = dot3(d, d);
        double far = RB_WINDING_BETA * n->radius;
        if (d2 > far * far) {
            /* Far: the cluster acts as one dipole, its solid angle A.d / |d|^3. */
            sum += dot3(n->area, d) / (d2 * sqrt(d2));
        } else if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; i++) {
                const rb_wtri *t = &w->tris[i];
                sum += solid_angle(t->v[0], t->v[1], t->v[2], q);
            }
        } else {
            stack[top++] = n->right;
            stack[top++] = n->first;
        }
    }
    return sum / (4.0 * RB_PI);
}

void rb_winding_destroy(rb_winding *w) {
    if (!w) return;
    free(w->tris);
    free(w->nodes);
    free(w);
}

/* ---- orientation repair ---- */

typedef struct rb_edge {
    uint32_t part; /* the triangle's part: edges join triangles of one part only */
    uint32_t a, b; /* welded vertex ids, a < b */
    uint32_t tri;
    uint32_t forward; /* 1 if the triangle walks a -> b */
} rb_edge;

static int compare_edge(const void *x, const void *y) {
    const rb_edge *p = x, *q = y;
    if (p->part != q->part) return p->part < q->part ? -1 : 1;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return p->tri < q->tri ? -1 : (p->tri > q->tri);
}

/* A vertex with its index, sorted by position (qsort has no context pointer). */
typedef struct rb_keyed_vertex {
    float p[3];
    uint32_t index;
} rb_keyed_vertex;

static int compare_position(const rb_keyed_vertex *a, const rb_keyed_vertex *b) {
    for (int k = 0; k < 3; k++)
        if (a->p[k] != b->p[k]) return a->p[k] < b->p[k] ? -1 : 1;
    return 0;
}

static int compare_keyed(const void *x, const void *y) {
    const rb_keyed_vertex *a = x, *b = y;
    int c = compare_position(a, b);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Maps every vertex to one id per distinct position, so triangles that share
 * a corner share an id even where a file repeats vertices (STL does). */
static uint32_t *weld(const float *positions, uint32_t vertex_count) {
    rb_keyed_vertex *sorted = malloc(sizeof *sorted * (vertex_count ? vertex_count : 1));
    uint32_t *id = malloc(sizeof *id * (vertex_count ? vertex_count : 1));
    if (!sorted || !id) {
        free(sorted);
        free(id);
        return NULL;
    }
    for (uint32_t i = 0; i < vertex_count; i++) {
        memcpy(sorted[i].p, positions + 3 * (size_t)i, sizeof sorted[i].p);
        sorted[i].index = i;
    }
    qsort(sorted, vertex_count, sizeof *sorted, compare_keyed);
    for (uint32_t i = 0; i < vertex_count; i++)
        id[sorted[i].index] =
            (i > 0 && compare_position(&sorted[i - 1], &sorted[i]) == 0) ? id[sorted[i - 1].index] : sorted[i].index;
    free(sorted);
    return id;
}

/* Signed volume of the cone from o to triangle abc, times 6. */
static double cone6(const float *pa, const float *pb, const float *pc, const double o[3]) {
    double a[3], b[3], c[3], bc[3];
    load3(a, pa);
    load3(b, pb);
    load3(c, pc);
    sub3(a, a, o);
    sub3(b, b, o);
    sub3(c, c, o);
    cross3(bc, b, c);
    return dot3(a, bc);
}

/* Writes into tri_out the triangles of idx, each connected patch turned so
 * neighbours agree across shared edges and the patch encloses positive
 * volume. Edges shared by more than two triangles are not crossed, nor
 * edges between two parts (part: per triangle, or NULL). Returns the
 * number of triangles flipped, or -1 without memory; counts the edges
 * only one triangle (of a part) has (the rims of holes) into edges[0], and
 * those more than two have (surfaces touching along them) into edges[1]. */
static long orient(const float *pos, uint32_t vertex_count, const uint32_t *idx, uint32_t tri_count,
                   const uint32_t *part, const double origin[3], uint32_t *tri_out, uint32_t edge_counts[2]) {
    uint32_t *vid = weld(pos, vertex_count);
    rb_edge *edges = malloc(sizeof *edges * 3 * (size_t)tri_count);
    uint32_t *nb = malloc(sizeof *nb * 3 * (size_t)tri_count); /* neighbour across edge e, or UINT32_MAX */
    uint8_t *same = malloc(3 * (size_t)tri_count);             /* both walk the edge the same way */
    uint8_t *flip = calloc(tri_count, 1);
    uint8_t *seen = calloc(tri_count, 1);
    uint32_t *queue = malloc(sizeof *queue * tri_count);
    long flipped = -1;
    if (!vid || !edges || !nb || !same || !flip || !seen || !queue) goto done;

    for (uint32_t t = 0; t < tri_count; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = vid[idx[3 * t + e]], v = vid[idx[3 * t + (e + 1) % 3]];
            rb_edge *ed = &edges[3 * t + e];
            ed->part = part ? part[t] : 0;
            ed->a = u < v ? u : v;
            ed->b = u < v ? v : u;
            ed->tri = 3 * t + (uint32_t)e; /* edge slot, so the neighbour lands in the right place */
            ed->forward = u < v;
            nb[3 * t + e] = UINT32_MAX;
        }
    qsort(edges, 3 * (size_t)tri_count, sizeof *edges, compare_edge);
    for (size_t i = 0; i < 3 * (size_t)tri_count;) {
        size_t j = i + 1;
        while (j < 3 * (size_t)tri_count && edges[j].part == edges[i].part && edges[j].a == edges[i].a &&
               edges[j].b == edges[i].b)
            j++;
        if (j - i == 1 && edges[i].a != edges[i].b) edge_counts[0]++;
        if (j - i > 2 && edges[i].a != edges[i].b) edge_counts[1]++;
        /* Only manifold edges (exactly two triangles, not degenerate) link patches. */
        if (j - i == 2 && edges[i].a != edges[i].b) {
            uint32_t s0 = edges[i].tri, s1 = edges[i + 1].tri;
            nb[s0] = s1 / 3;
            nb[s1] = s0 / 3;
            same[s0] = same[s1] = edges[i].forward == edges[i + 1].forward;
        }
        i = j;
    }

    flipped = 0;
    for (uint32_t start = 0; start < tri_count; start++) {
        if (seen[start]) continue;
        uint32_t head = 0, tail = 0;
        queue[tail++] = start;
        seen[start] = 1;
        double volume = 0.0;
        while (head < tail) {
            uint32_t t = queue[head++];
            const uint32_t *c = idx + 3 * (size_t)t;
            double v6 = cone6(pos + 3 * (size_t)c[0], pos + 3 * (size_t)c[1], pos + 3 * (size_t)c[2], origin);
            volume += flip[t] ? -v6 : v6;
            for (int e = 0; e < 3; e++) {
                uint32_t n = nb[3 * t + e];
                if (n == UINT32_MAX || seen[n]) continue;
                /* Two triangles agree when they walk their shared edge in opposite directions. */
                flip[n] = (uint8_t)(flip[t] ^ same[3 * t + e]);
                seen[n] = 1;
                queue[tail++] = n;
            }
        }
        /* A patch enclosing negative volume faces inward: turn it all. */
        if (volume < 0.0)
            for (uint32_t i = 0; i < tail; i++) flip[queue[i]] ^= 1;
        for (uint32_t i = 0; i < tail; i++) flipped += flip[queue[i]];
    }
    for (uint32_t t = 0; t < tri_count; t++) {
        const uint32_t *c = idx + 3 * (size_t)t;
        tri_out[3 * t] = c[0];
        tri_out[3 * t + 1] = flip[t] ? c[2] : c[1];
        tri_out[3 * t + 2] = flip[t] ? c[1] : c[2];
    }
done:
    free(vid);
    free(edges);
    free(nb);
    free(same);
    free(flip);
    free(seen);
    free(queue);
    return flipped;
}

long rb_vox_orient(const float *positions, uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count,
                   uint32_t *out, uint32_t *open_edges) {
    return rb_vox_orient_parts(positions, vertex_count, indices, triangle_count, NULL, out, open_edges);
}

long rb_vox_orient_parts(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                         uint32_t triangle_count, const uint32_t *triangle_parts, uint32_t *out, uint32_t *open_edges) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, centre[3];
    for (size_t i = 0; i < 3 * (size_t)triangle_count; i++)
        for (int k = 0; k < 3; k++) {
            double p = positions[3 * (size_t)indices[i] + k];
            lo[k] = p < lo[k] ? p : lo[k];
            hi[k] = p > hi[k] ? p : hi[k];
        }
    for (int k = 0; k < 3; k++) centre[k] = 0.5 * (lo[k] + hi[k]);
    uint32_t counts[2] = {0, 0};
    long flipped = orient(positions, vertex_count, indices, triangle_count, triangle_parts, centre, out, counts);
    if (open_edges) *open_edges = counts[0];
    return flipped;
}

/* ---- the voxelizer ---- */

/* One part's winding number, and the box of its corners (outside it the
 * part's winding is not summed: under 1/2 there, as it is for any closed
 * mesh outside its hull). */
typedef struct part_winding {
    rb_winding *w; /* NULL for a part of no triangles */
    double lo[3], hi[3];
} part_winding;

static void free_part_windings(part_winding *pw, uint32_t parts) {
    for (uint32_t p = 0; pw && p < parts; p++) rb_winding_destroy(pw[p].w);
    free(pw);
}

/* The winding of each part (tris: oriented, 3 indices a triangle; part:
 * per triangle), or NULL without memory. */
static part_winding *part_windings(const float *pos, const uint32_t *tris, uint32_t tri_count, const uint32_t *part,
                                   uint32_t parts) {
    part_winding *pw = calloc(parts, sizeof *pw);
    uint32_t *start = calloc((size_t)parts + 1, sizeof *start), *sorted = malloc(sizeof *sorted * 3 * tri_count);
    bool ok = pw && start && sorted;
    for (uint32_t t = 0; ok && t < tri_count; t++) start[part[t] + 1]++;
    for (uint32_t p = 0; ok && p < parts; p++) start[p + 1] += start[p];
    for (uint32_t p = 0; ok && p < parts; p++)
        for (int k = 0; k < 3; k++) pw[p].lo[k] = INFINITY, pw[p].hi[k] = -INFINITY;
    uint32_t *at = ok ? calloc(parts, sizeof *at) : NULL;
    ok = ok && at;
    for (uint32_t t = 0; ok && t < tri_count; t++) {
        const uint32_t p = part[t], slot = start[p] + at[p]++;
        memcpy(&sorted[3 * (size_t)slot], &tris[3 * (size_t)t], 3 * sizeof *sorted);
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                const double x = pos[3 * (size_t)tris[3 * (size_t)t + c] + k];
                pw[p].lo[k] = x < pw[p].lo[k] ? x : pw[p].lo[k];
                pw[p].hi[k] = x > pw[p].hi[k] ? x : pw[p].hi[k];
            }
    }
    for (uint32_t p = 0; ok && p < parts; p++) {
        const uint32_t n = start[p + 1] - start[p];
        if (n > 0) ok = (pw[p].w = rb_winding_create(pos, &sorted[3 * (size_t)start[p]], n)) != NULL;
    }
    free(at), free(start), free(sorted);
    if (!ok) free_part_windings(pw, pw ? parts : 0), pw = NULL;
    return pw;
}

/* Gives particle n, its centre at q (mesh units), the part whose winding
 * there is the largest (the lower part of equals), counting it in out's
 * part_particles, overlaps and orphans. */
static void assign_part(const part_winding *pw, uint32_t parts, const double q[3], uint32_t n, rb_voxels *out) {
    double best = -INFINITY, second = -INFINITY;
    uint32_t best_part = 0, second_part = 0;
    for (uint32_t p = 0; p < parts; p++) {
        if (!pw[p].w) continue;
        /* a point a hair outside the box may still be on the part's face: the box grown by a millionth */
        bool near = true;
        for (int k = 0; k < 3; k++) {
            const double slack = 1e-6 * (pw[p].hi[k] - pw[p].lo[k]) + 1e-12;
            near = near && q[k] >= pw[p].lo[k] - slack && q[k] <= pw[p].hi[k] + slack;
        }
        if (!near) continue;
        const double w = rb_winding_at(pw[p].w, q);
        if (w > best)
            second = best, second_part = best_part, best = w, best_part = p;
        else if (w > second)
            second = w, second_part = p;
    }
    out->parts[n] = best_part;
    out->part_particles[best_part]++;
    if (best < RB_PART_INSIDE && out->orphans++ == 0) out->orphan_particle = n;
    if (second >= RB_PART_OVERLAP && out->overlaps++ == 0) {
        out->overlap_particle = n;
        out->overlap_parts[0] = best_part < second_part ? best_part : second_part;
        out->overlap_parts[1] = best_part < second_part ? second_part : best_part;
    }
}

rb_vox_result rb_voxelize(const rb_vox_desc *d, rb_voxels *out) {
    memset(out, 0, sizeof *out);
    if (d->triangle_count == 0 || !d->indices || !d->positions) return RB_VOX_NO_TRIANGLES;
    uint32_t resolution = d->resolution ? d->resolution : RB_VOX_DEFAULT_RESOLUTION;
    uint32_t max_particles = d->max_particles ? d->max_particles : RB_VOX_DEFAULT_MAX;

    /* The bounding box of the vertices the triangles use. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < 3 * (size_t)d->triangle_count; i++) {
        if (d->indices[i] >= d->vertex_count) return RB_VOX_BAD_INDEX;
        const float *p = d->positions + 3 * (size_t)d->indices[i];
        for (int k = 0; k < 3; k++) {
            if (!isfinite(p[k])) return RB_VOX_NON_FINITE;
            if (p[k] < lo[k]) lo[k] = p[k];
            if (p[k] > hi[k]) hi[k] = p[k];
        }
    }
    const uint32_t *parts = d->part_count > 0 ? d->triangle_parts : NULL;
    for (uint32_t t = 0; parts && t < d->triangle_count; t++)
        if (parts[t] >= d->part_count) return RB_VOX_BAD_PART;
    double extent[3], longest = 0.0, shortest = INFINITY;
    for (int k = 0; k < 3; k++) {
        extent[k] = hi[k] - lo[k];
        out->centre[k] = 0.5 * (lo[k] + hi[k]);
        if (extent[k] > longest) longest = extent[k];
        if (extent[k] < shortest) shortest = extent[k];
    }
    if (!(longest > 0.0) || shortest <= 1e-6 * longest) return RB_VOX_FLAT;

    out->cell = longest / resolution;
    double cells = 1.0;
    for (int k = 0; k < 3; k++) {
        /* The small slack keeps an exact multiple (a 4 x 2 box at 8 across) from rounding up. */
        double n = ceil(extent[k] / out->cell - 1e-6);
        out->dims[k] = n < 1.0 ? 1u : (uint32_t)n;
        cells *= out->dims[k];
    }

    uint32_t *tris = malloc(sizeof *tris * 3 * (size_t)d->triangle_count);
    if (!tris) return RB_VOX_NO_MEMORY;
    uint32_t edge_counts[2] = {0, 0};
    long flipped =
        orient(d->positions, d->vertex_count, d->indices, d->triangle_count, parts, out->centre, tris, edge_counts);
    out->open_edges = edge_counts[0], out->crowded_edges = edge_counts[1];
    if (flipped < 0) {
        free(tris);
        return RB_VOX_NO_MEMORY;
    }
    out->flipped = (uint32_t)flipped;

    /* Enclosed volume (exact for a closed mesh, near it for a small hole). */
    double volume6 = 0.0;
    for (uint32_t t = 0; t < d->triangle_count; t++)
        volume6 += cone6(d->positions + 3 * (size_t)tris[3 * t], d->positions + 3 * (size_t)tris[3 * t + 1],
                         d->positions + 3 * (size_t)tris[3 * t + 2], out->centre);
    double volume = volume6 / 6.0;
    if (volume <= 1e-6 * extent[0] * extent[1] * extent[2]) {
        free(tris);
        return RB_VOX_FLAT;
    }
    /* Refuse early what is plainly too big, before a long sum is spent on it. */
    double estimate = volume / (out->cell * out->cell * out->cell);
    if (estimate > 1.5 * max_particles || cells > RB_VOX_MAX_CELLS) {
        out->estimate = estimate > cells ? cells : estimate;
        free(tris);
        return RB_VOX_TOO_MANY;
    }

    rb_winding *w = rb_winding_create(d->positions, tris, d->triangle_count);
    uint8_t *inside = calloc((size_t)cells, 1);
    if (!w || !inside) {
        rb_winding_destroy(w);
        free(inside);
        free(tris);
        return RB_VOX_NO_MEMORY;
    }
    const uint32_t nx = out->dims[0], ny = out->dims[1], nz = out->dims[2];
    double origin[3]; /* centre of voxel (0,0,0), mesh units */
    for (int k = 0; k < 3; k++) origin[k] = out->centre[k] - 0.5 * out->dims[k] * out->cell + 0.5 * out->cell;
    uint32_t solid = 0;
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t k = 0; k < nz; k++) {
                double q[3] = {origin[0] + i * out->cell, origin[1] + j * out->cell, origin[2] + k * out->cell};
                /* Jacobson et al.: >= 1/2 is inside, so a hole counts as closed by its minimal patch. */
                uint8_t in = rb_winding_at(w, q) >= 0.5;
                inside[((size_t)i * ny + j) * nz + k] = in;
                solid += in;
            }
    rb_winding_destroy(w);
    out->solid_count = solid;

    /* Surface-only keeps the voxels with a face neighbour outside (or off the grid). */
    uint32_t count = 0;
    uint8_t *keep = inside;
    if (d->surface_only) {
        keep = calloc((size_t)cells, 1);
        if (!keep) {
            free(inside);
            free(tris);
            return RB_VOX_NO_MEMORY;
        }
        for (uint32_t i = 0; i < nx; i++)
            for (uint32_t j = 0; j < ny; j++)
                for (uint32_t k = 0; k < nz; k++) {
                    size_t c = ((size_t)i * ny + j) * nz + k;
                    if (!inside[c]) continue;
                    bool edge = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
                    edge = edge || !inside[c - (size_t)ny * nz] || !inside[c + (size_t)ny * nz] || !inside[c - nz] ||
                           !inside[c + nz] || !inside[c - 1] || !inside[c + 1];
                    keep[c] = edge;
                }
    }
    for (size_t c = 0; c < (size_t)cells; c++) count += keep[c];

    rb_vox_result result = RB_VOX_OK;
    part_winding *pw = NULL;
    if (count == 0)
        result = RB_VOX_NONE_INSIDE;
    else if (count > max_particles) {
        out->estimate = count;
        result = RB_VOX_TOO_MANY;
    } else if (!(out->particles = malloc(sizeof *out->particles * 3 * (size_t)count))) {
        result = RB_VOX_NO_MEMORY;
    } else if (parts && (!(pw = part_windings(d->positions, tris, d->triangle_count, parts, d->part_count)) ||
                         !(out->parts = malloc(sizeof *out->parts * count)) ||
                         !(out->part_particles = calloc(d->part_count, sizeof *out->part_particles)))) {
        result = RB_VOX_NO_MEMORY;
    } else {
        /* Particle (i, j, k) sits at its voxel centre, in diameters from the grid centre. */
        uint32_t n = 0;
        for (uint32_t i = 0; i < nx; i++)
            for (uint32_t j = 0; j < ny; j++)
                for (uint32_t k = 0; k < nz; k++) {
                    if (!keep[((size_t)i * ny + j) * nz + k]) continue;
                    out->particles[3 * n] = (float)(i + 0.5 - 0.5 * nx);
                    out->particles[3 * n + 1] = (float)(j + 0.5 - 0.5 * ny);
                    out->particles[3 * n + 2] = (float)(k + 0.5 - 0.5 * nz);
                    if (parts) {
                        const double q[3] = {origin[0] + i * out->cell, origin[1] + j * out->cell,
                                             origin[2] + k * out->cell};
                        assign_part(pw, d->part_count, q, n, out);
                    }
                    n++;
                }
        out->count = count;
    }
    free_part_windings(pw, d->part_count);
    if (result != RB_VOX_OK) {
        free(out->particles), free(out->parts), free(out->part_particles);
        out->particles = NULL, out->parts = out->part_particles = NULL;
    }
    if (keep != inside) free(keep);
    free(inside);
    free(tris);
    return result;
}

void rb_voxels_free(rb_voxels *v) {
    free(v->particles);
    free(v->parts);
    free(v->part_particles);
    v->particles = NULL;
    v->parts = v->part_particles = NULL;
    v->count = 0;
}
