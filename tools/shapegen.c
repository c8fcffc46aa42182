/* shapegen.c - closed triangle meshes made in code, and mesh file writers. */
#include "shapegen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_GEN_PI 3.14159265358979323846

void rb_gen_free(rb_gen_mesh *m) {
    free(m->v);
    free(m->t);
    memset(m, 0, sizeof *m);
}

/* Out of memory in a generator is a programmer's environment problem: stop. */
static void *grow(void *p, uint32_t *capacity, uint32_t needed, size_t item) {
    if (needed <= *capacity) return p;
    uint32_t cap = *capacity ? *capacity : 64;
    while (cap < needed) cap *= 2;
    void *q = realloc(p, item * cap);
    if (!q) {
        fprintf(stderr, "shapegen: out of memory\n");
        exit(1);
    }
    *capacity = cap;
    return q;
}

uint32_t rb_gen_vertex(rb_gen_mesh *m, double x, double y, double z) {
    m->v = grow(m->v, &m->vertex_capacity, m->vertex_count + 1, 3 * sizeof(float));
    float *p = m->v + 3 * (size_t)m->vertex_count;
    p[0] = (float)x;
    p[1] = (float)y;
    p[2] = (float)z;
    return m->vertex_count++;
}

void rb_gen_triangle(rb_gen_mesh *m, uint32_t a, uint32_t b, uint32_t c) {
    m->t = grow(m->t, &m->triangle_capacity, m->triangle_count + 1, 3 * sizeof(uint32_t));
    uint32_t *t = m->t + 3 * (size_t)m->triangle_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
}

void rb_gen_box(rb_gen_mesh *m, double sx, double sy, double sz) {
    uint32_t base = m->vertex_count;
    for (int i = 0; i < 8; i++)
        rb_gen_vertex(m, (i & 1 ? 0.5 : -0.5) * sx, (i & 2 ? 0.5 : -0.5) * sy, (i & 4 ? 0.5 : -0.5) * sz);
    /* Corner i has bit 0 = +x, bit 1 = +y, bit 2 = +z; each quad CCW from outside. */
    static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++) {
        rb_gen_triangle(m, base + quads[f][0], base + quads[f][1], base + quads[f][2]);
        rb_gen_triangle(m, base + quads[f][0], base + quads[f][2], base + quads[f][3]);
    }
}

/* Index of the midpoint of edge ab, pushed to the unit sphere; a small
 * table of edges already split keeps neighbours sharing it. */
typedef struct rb_gen_split {
    uint32_t a, b, mid;
} rb_gen_split;

static uint32_t midpoint(rb_gen_mesh *m, rb_gen_split *table, uint32_t *count, uint32_t a, uint32_t b) {
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    for (uint32_t i = 0; i < *count; i++)
        if (table[i].a == a && table[i].b == b) return table[i].mid;
    const float *p = m->v + 3 * (size_t)a, *q = m->v + 3 * (size_t)b;
    double x = p[0] + q[0], y = p[1] + q[1], z = p[2] + q[2], l = sqrt(x * x + y * y + z * z);
    uint32_t mid = rb_gen_vertex(m, x / l, y / l, z / l);
    table[(*count)++] = (rb_gen_split){a, b, mid};
    return mid;
}

void rb_gen_icosphere(rb_gen_mesh *m, int subdivisions) {
    const double g = (1.0 + sqrt(5.0)) / 2.0, l = sqrt(1.0 + g * g);
    /* The three golden rectangles (1 by g) in the coordinate planes. */
    const double corners[12][3] = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                                   {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
    static const uint32_t faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                          {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                          {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                          {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    rb_gen_mesh s = {0};
    for (int i = 0; i < 12; i++) rb_gen_vertex(&s, corners[i][0] / l, corners[i][1] / l, corners[i][2] / l);
    for (int f = 0; f < 20; f++) rb_gen_triangle(&s, faces[f][0], faces[f][1], faces[f][2]);
    for (int level = 0; level < subdivisions; level++) {
        rb_gen_mesh next = {0};
        for (uint32_t i = 0; i < s.vertex_count; i++) rb_gen_vertex(&next, s.v[3 * i], s.v[3 * i + 1], s.v[3 * i + 2]);
        rb_gen_split *table = malloc(sizeof *table * 3 * (size_t)s.triangle_count);
        uint32_t splits = 0;
        for (uint32_t t = 0; t < s.triangle_count; t++) {
            uint32_t a = s.t[3 * t], b = s.t[3 * t + 1], c = s.t[3 * t + 2];
            uint32_t ab = midpoint(&next, table, &splits, a, b), bc = midpoint(&next, table, &splits, b, c),
                     ca = midpoint(&next, table, &splits, c, a);
            rb_gen_triangle(&next, a, ab, ca);
            rb_gen_triangle(&next, b, bc, ab);
            rb_gen_triangle(&next, c, ca, bc);
            rb_gen_triangle(&next, ab, bc, ca);
        }
        free(table);
        rb_gen_free(&s);
        s = next;
    }
    uint32_t base = m->vertex_count;
    for (uint32_t i = 0; i < s.vertex_count; i++) rb_gen_vertex(m, s.v[3 * i], s.v[3 * i + 1], s.v[3 * i + 2]);
    for (uint32_t t = 0; t < s.triangle_count; t++)
        rb_gen_triangle(m, base + s.t[3 * t], base + s.t[3 * t + 1], base + s.t[3 * t + 2]);
    rb_gen_free(&s);
}

void rb_gen_torus(rb_gen_mesh *m, double big, double small, int ring_segments, int tube_segments) {
    uint32_t base = m->vertex_count;
    for (int i = 0; i < ring_segments; i++)
        for (int j = 0; j < tube_segments; j++) {
            double u = 2 * RB_GEN_PI * i / ring_segments, v = 2 * RB_GEN_PI * j / tube_segments;
            double r = big + small * cos(v);
            rb_gen_vertex(m, r * cos(u), r * sin(u), small * sin(v));
        }
    for (int i = 0; i < ring_segments; i++)
        for (int j = 0; j < tube_segments; j++) {
            uint32_t a = base + (uint32_t)(i * tube_segments + j);
            uint32_t b = base + (uint32_t)(((i + 1) % ring_segments) * tube_segments + j);
            uint32_t c = base + (uint32_t)(((i + 1) % ring_segments) * tube_segments + (j + 1) % tube_segments);
            uint32_t d = base + (uint32_t)(i * tube_segments + (j + 1) % tube_segments);
            rb_gen_triangle(m, a, b, c);
            rb_gen_triangle(m, a, c, d);
        }
}

/* Rings of vertices joined into quads, the first and last ring single
 * points (poles) closed by fans. ring(k, s) gives vertex s of ring k. */
static void stitch(rb_gen_mesh *m, uint32_t first, int rings, int segments) {
    /* Ring 0 is one vertex (first), rings 1..rings-2 have `segments`, the last is one vertex. */
    uint32_t top = first + 1 + (uint32_t)((rings - 2) * segments);
    for (int s = 0; s < segments; s++) {
        uint32_t a = first + 1 + (uint32_t)s, b = first + 1 + (uint32_t)((s + 1) % segments);
        rb_gen_triangle(m, first, b, a);
    }
    for (int k = 1; k < rings - 2; k++)
        for (int s = 0; s < segments; s++) {
            uint32_t a = first + 1 + (uint32_t)((k - 1) * segments + s);
            uint32_t b = first + 1 + (uint32_t)((k - 1) * segments + (s + 1) % segments);
            uint32_t c = b + (uint32_t)segments, d = a + (uint32_t)segments;
            rb_gen_triangle(m, a, b, c);
            rb_gen_triangle(m, a, c, d);
        }
    for (int s = 0; s < segments; s++) {
        uint32_t a = first + 1 + (uint32_t)((rings - 3) * segments + s);
        uint32_t b = first + 1 + (uint32_t)((rings - 3) * segments + (s + 1) % segments);
        rb_gen_triangle(m, a, b, top);
    }
}

void rb_gen_lathe(rb_gen_mesh *m, const double *profile, int profile_count, int segments) {
    uint32_t first = rb_gen_vertex(m, 0, 0, profile[1]);
    for (int k = 1; k < profile_count - 1; k++)
        for (int s = 0; s < segments; s++) {
            double a = 2 * RB_GEN_PI * s / segments, r = profile[2 * k];
            rb_gen_vertex(m, r * cos(a), r * sin(a), profile[2 * k + 1]);
        }
    rb_gen_vertex(m, 0, 0, profile[2 * (profile_count - 1) + 1]);
    stitch(m, first, profile_count, segments);
}

void rb_gen_tube(rb_gen_mesh *m, const double *c, const double *r, int count, int segments) {
    uint32_t first = rb_gen_vertex(m, c[0], c[1], c[2]);
    double side[3] = {0, 0, 1}; /* a fixed side vector: the centreline stays in the xy plane */
    for (int k = 1; k < count - 1; k++) {
        double t[3] = {c[3 * (k + 1)] - c[3 * (k - 1)], c[3 * (k + 1) + 1] - c[3 * (k - 1) + 1],
                       c[3 * (k + 1) + 2] - c[3 * (k - 1) + 2]};
        double lt = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int i = 0; i < 3; i++) t[i] /= lt;
        /* u = side x t and side span the ring around the tangent t. */
        double u[3] = {side[1] * t[2] - side[2] * t[1], side[2] * t[0] - side[0] * t[2],
                       side[0] * t[1] - side[1] * t[0]};
        for (int s = 0; s < segments; s++) {
            double a = 2 * RB_GEN_PI * s / segments, ca = cos(a) * r[k], sa = sin(a) * r[k];
            rb_gen_vertex(m, c[3 * k] + ca * u[0] + sa * side[0], c[3 * k + 1] + ca * u[1] + sa * side[1],
                          c[3 * k + 2] + ca * u[2] + sa * side[2]);
        }
    }
    rb_gen_vertex(m, c[3 * (count - 1)], c[3 * (count - 1) + 1], c[3 * (count - 1) + 2]);
    stitch(m, first, count, segments);
}

void rb_gen_transform(rb_gen_mesh *m, const double R[9], const double t[3]) {
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        float *p = m->v + 3 * (size_t)i;
        double x = p[0], y = p[1], z = p[2];
        for (int k = 0; k < 3; k++) p[k] = (float)(R[3 * k] * x + R[3 * k + 1] * y + R[3 * k + 2] * z + t[k]);
    }
}

void rb_gen_scale(rb_gen_mesh *m, double sx, double sy, double sz) {
    const double R[9] = {sx, 0, 0, 0, sy, 0, 0, 0, sz}, t[3] = {0, 0, 0};
    rb_gen_transform(m, R, t);
}

bool rb_gen_write_off(const rb_gen_mesh *m, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "OFF\n%u %u 0\n", m->vertex_count, m->triangle_count);
    for (uint32_t i = 0; i < m->vertex_count; i++)
        fprintf(f, "%.6g %.6g %.6g\n", m->v[3 * i], m->v[3 * i + 1], m->v[3 * i + 2]);
    for (uint32_t i = 0; i < m->triangle_count; i++)
        fprintf(f, "3 %u %u %u\n", m->t[3 * i], m->t[3 * i + 1], m->t[3 * i + 2]);
    return fclose(f) == 0;
}

bool rb_gen_write_obj(const rb_gen_mesh *m, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# made by rb_meshgen\n");
    for (uint32_t i = 0; i < m->vertex_count; i++)
        fprintf(f, "v %.6g %.6g %.6g\n", m->v[3 * i], m->v[3 * i + 1], m->v[3 * i + 2]);
    for (uint32_t i = 0; i < m->triangle_count; i++)
        fprintf(f, "f %u %u %u\n", m->t[3 * i] + 1, m->t[3 * i + 1] + 1, m->t[3 * i + 2] + 1);
    return fclose(f) == 0;
}

bool rb_gen_write_obj_parts(const rb_gen_mesh *parts, const char *const *names, uint32_t count, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "# made by rb_meshgen: %u parts, each its own object\n", count);
    uint32_t base = 1;
    for (uint32_t p = 0; p < count; p++) {
        const rb_gen_mesh *m = &parts[p];
        fprintf(f, "o %s\n", names[p]);
        for (uint32_t i = 0; i < m->vertex_count; i++)
            fprintf(f, "v %.6g %.6g %.6g\n", m->v[3 * i], m->v[3 * i + 1], m->v[3 * i + 2]);
        for (uint32_t i = 0; i < m->triangle_count; i++)
            fprintf(f, "f %u %u %u\n", m->t[3 * i] + base, m->t[3 * i + 1] + base, m->t[3 * i + 2] + base);
        base += m->vertex_count;
    }
    return fclose(f) == 0;
}

bool rb_gen_write_stl(const rb_gen_mesh *m, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "solid rb_meshgen\n");
    for (uint32_t i = 0; i < m->triangle_count; i++) {
        const float *p[3] = {m->v + 3 * (size_t)m->t[3 * i], m->v + 3 * (size_t)m->t[3 * i + 1],
                             m->v + 3 * (size_t)m->t[3 * i + 2]};
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++) e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (l > 0) n[0] /= l, n[1] /= l, n[2] /= l;
        fprintf(f, " facet normal %.6g %.6g %.6g\n  outer loop\n", n[0], n[1], n[2]);
        for (int c = 0; c < 3; c++) fprintf(f, "   vertex %.6g %.6g %.6g\n", p[c][0], p[c][1], p[c][2]);
        fprintf(f, "  endloop\n endfacet\n");
    }
    fprintf(f, "endsolid rb_meshgen\n");
    return fclose(f) == 0;
}

bool rb_gen_write_ply(const rb_gen_mesh *m, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "ply\nformat ascii 1.0\ncomment made by rb_meshgen\nelement vertex %u\n", m->vertex_count);
    fprintf(f, "property float x\nproperty float y\nproperty float z\nelement face %u\n", m->triangle_count);
    fprintf(f, "property list uchar int vertex_indices\nend_header\n");
    for (uint32_t i = 0; i < m->vertex_count; i++)
        fprintf(f, "%.6g %.6g %.6g\n", m->v[3 * i], m->v[3 * i + 1], m->v[3 * i + 2]);
    for (uint32_t i = 0; i < m->triangle_count; i++)
        fprintf(f, "3 %u %u %u\n", m->t[3 * i], m->t[3 * i + 1], m->t[3 * i + 2]);
    return fclose(f) == 0;
}

/* Base64 of n bytes, for the glTF data URI. */
static void put_base64(FILE *f, const unsigned char *p, size_t n) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(digits[w >> 18 & 63], f);
        fputc(digits[w >> 12 & 63], f);
        fputc(i + 1 < n ? digits[w >> 6 & 63] : '=', f);
        fputc(i + 2 < n ? digits[w & 63] : '=', f);
    }
}

bool rb_gen_write_gltf(const rb_gen_mesh *m, const char *path) {
    /* One buffer: float positions, then uint32 indices (both 4-byte aligned; x86 is little-endian as glTF wants). */
    size_t vbytes = 12 * (size_t)m->vertex_count, ibytes = 12 * (size_t)m->triangle_count;
    unsigned char *buf = malloc(vbytes + ibytes);
    FILE *f = buf ? fopen(path, "w") : NULL;
    if (!f) {
        free(buf);
        return false;
    }
    memcpy(buf, m->v, vbytes);
    memcpy(buf + vbytes, m->t, ibytes);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            if (m->v[3 * i + k] < lo[k]) lo[k] = m->v[3 * i + k];
            if (m->v[3 * i + k] > hi[k]) hi[k] = m->v[3 * i + k];
        }
    fprintf(
        f,
        "{\"asset\":{\"version\":\"2.0\",\"generator\":\"rb_meshgen\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],\n");
    fprintf(f,
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
            "\"min\":[%.6g,%.6g,%.6g],\"max\":[%.6g,%.6g,%.6g]},",
            m->vertex_count, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    fprintf(f, "{\"bufferView\":1,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}],\n", 3 * m->triangle_count);
    fprintf(f,
            "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu,\"target\":34962},"
            "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34963}],\n",
            vbytes, vbytes, ibytes);
    fprintf(f, "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,", vbytes + ibytes);
    put_base64(f, buf, vbytes + ibytes);
    fprintf(f, "\"}]}\n");
    free(buf);
    return fclose(f) == 0;
}

bool rb_gen_write(const rb_gen_mesh *m, const char *path) {
    const char *ext = strrchr(path, '.');
    ext = ext ? ext : "";
    return strcmp(ext, ".obj") == 0    ? rb_gen_write_obj(m, path)
           : strcmp(ext, ".stl") == 0  ? rb_gen_write_stl(m, path)
           : strcmp(ext, ".ply") == 0  ? rb_gen_write_ply(m, path)
           : strcmp(ext, ".gltf") == 0 ? rb_gen_write_gltf(m, path)
                                       : rb_gen_write_off(m, path);
}

void rb_gen_prism_chunk(rb_gen_mesh *m, double half, const double lo[3], const double hi[3]) {
    /* corners counter-clockwise seen from above: (-,-), (+,-), (+,+), (-,+); bottom 0-3, top 4-7 */
    static const int sx[4] = {-1, 1, 1, -1}, sz[4] = {-1, -1, 1, 1};
    const uint32_t first = m->vertex_count;
    double centre[3] = {0, 0, 0};
    for (int level = 0; level < 2; level++)
        for (int i = 0; i < 4; i++) {
            const double *c = level ? hi : lo, x = sx[i] * half, z = sz[i] * half, y = c[0] + c[1] * x + c[2] * z;
            rb_gen_vertex(m, x, y, z);
            centre[0] += x / 8, centre[1] += y / 8, centre[2] += z / 8;
        }
    static const int quads[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    for (int q = 0; q < 6; q++) {
        /* the diagonal from the quad's first corner: corner 0 for the bottom and the top */
        const int tri[2][3] = {{quads[q][0], quads[q][1], quads[q][2]}, {quads[q][0], quads[q][2], quads[q][3]}};
        for (int t = 0; t < 2; t++) {
            const float *a = m->v + 3 * (size_t)(first + tri[t][0]), *b = m->v + 3 * (size_t)(first + tri[t][1]),
                        *c = m->v + 3 * (size_t)(first + tri[t][2]);
            double e1[3], e2[3], n[3], out = 0.0;
            for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
            n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
            n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            for (int k = 0; k < 3; k++) out += n[k] * ((a[k] + b[k] + c[k]) / 3.0 - centre[k]);
            /* convex: a face turned outward has its normal away from the centre */
            if (out >= 0.0)
                rb_gen_triangle(m, first + tri[t][0], first + tri[t][1], first + tri[t][2]);
            else
                rb_gen_triangle(m, first + tri[t][0], first + tri[t][2], first + tri[t][1]);
        }
    }
}
