/* meshgen.c - writes the debris meshes of assets/meshes/ and their side files.
 *
 *   rb_meshgen OUT_DIR [BUNNY.off]
 *
 * Everything is made in code from fixed numbers (no randomness from the
 * clock), so running it again gives the same files. The bunny is the one
 * mesh not made here: given the scanned bunny00.off (the CGAL data set, in
 * Debian's libcgal-demo package), it writes a decimated copy (vertex
 * clustering, then the voxelizer's orientation repair) small enough for the
 * repo.
 * Units: each mesh's own numbers, its side file saying what they are
 * (plugins/README.md, "Side file"): the brick is in decimetres (2.15 x
 * 1.025 x 0.65, "units": "dm"; its half 1.075 long), the plank, torus, ball and pillar in
 * metres, the others sized by "size" (their longest side in metres). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapegen.h"
#include "voxelize.h"

#define PI 3.14159265358979323846

static const char *out_dir;

static void fail(const char *what, const char *path) {
    fprintf(stderr, "rb_meshgen: cannot %s %s\n", what, path);
    exit(1);
}

/* Writes the mesh with the writer for its extension, and the side file beside it. */
static void emit(const rb_gen_mesh *m, const char *file, const char *side_json) {
    char path[1024], side[1100];
    snprintf(path, sizeof path, "%s/%s", out_dir, file);
    bool ok = rb_gen_write(m, path);
    if (!ok) fail("write", path);
    snprintf(side, sizeof side, "%s.json", path);
    FILE *f = fopen(side, "w");
    if (!f || fprintf(f, "%s\n", side_json) < 0 || fclose(f) != 0) fail("write", side);
    printf("%s: %u vertices, %u triangles\n", path, m->vertex_count, m->triangle_count);
}

/* A lumpy rock: an icosphere pushed in and out by a few fixed waves, then
 * squashed, so no two axes are alike (a body that tumbles, not rolls). */
static void rock(rb_gen_mesh *m, unsigned seed, double sx, double sy, double sz) {
    rb_gen_icosphere(m, 2);
    double k[6][3], phase[6];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 4; j++) {
            seed = seed * 1103515245u + 12345u; /* a fixed LCG: same rock every run */
            double u = (seed >> 8 & 0xffff) / 65535.0;
            if (j < 3)
                k[i][j] = 4.0 * u - 2.0;
            else
                phase[i] = 2 * PI * u;
        }
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float *p = m->v + 3 * (size_t)v;
        double r = 1.0;
        for (int i = 0; i < 6; i++)
            r += 0.07 * sin(1.7 * (k[i][0] * p[0] + k[i][1] * p[1] + k[i][2] * p[2]) + phase[i]);
        for (int c = 0; c < 3; c++) p[c] = (float)(p[c] * r);
    }
    rb_gen_scale(m, sx, sy, sz);
}

/* A banana: a tube along a circular arc, thick in the middle, pointed at the ends. */
static void banana(rb_gen_mesh *m) {
    enum { N = 17 };
    double c[3 * N], r[N];
    for (int i = 0; i < N; i++) {
        double t = (double)i / (N - 1), a = (t - 0.5) * 1.4; /* 80 degrees of arc */
        c[3 * i] = 1.8 * sin(a);
        c[3 * i + 1] = 1.8 * (1.0 - cos(a));
        c[3 * i + 2] = 0.0;
        r[i] = 0.33 * pow(sin(PI * t), 0.6);
    }
    r[0] = r[N - 1] = 0.0;
    rb_gen_tube(m, c, r, N, 20);
}

/* A chess pawn: base, collar, neck and head as a lathe profile (radius, height). */
static void pawn(rb_gen_mesh *m) {
    static const double profile[] = {0,    0,    0.60, 0,    0.60, 0.12, 0.50, 0.20, 0.45, 0.30, 0.30,
                                     0.40, 0.22, 0.70, 0.38, 0.80, 0.38, 0.86, 0.20, 0.90, 0.28, 1.00,
                                     0.34, 1.12, 0.34, 1.24, 0.28, 1.36, 0.17, 1.44, 0,    1.48};
    rb_gen_lathe(m, profile, (int)(sizeof profile / sizeof profile[0] / 2), 24);
}

/* ---- the bunny: read an OFF file, cluster its vertices on a grid ---- */

static bool read_off(const char *path, rb_gen_mesh *m) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char word[16];
    unsigned nv, nf, ne;
    if (fscanf(f, "%15s %u %u %u", word, &nv, &nf, &ne) != 4 || strcmp(word, "OFF") != 0) {
        fclose(f);
        return false;
    }
    for (unsigned i = 0; i < nv; i++) {
        double x, y, z;
        if (fscanf(f, "%lf %lf %lf", &x, &y, &z) != 3) break;
        rb_gen_vertex(m, x, y, z);
    }
    for (unsigned i = 0; i < nf; i++) {
        unsigned n, a, b, c;
        if (fscanf(f, "%u %u %u", &n, &a, &b) != 3) break;
        for (unsigned j = 2; j < n && fscanf(f, "%u", &c) == 1; j++, b = c) rb_gen_triangle(m, a, b, c);
    }
    fclose(f);
    return m->vertex_count == nv && m->triangle_count >= nf;
}

static int compare_tri(const void *x, const void *y) {
    const uint32_t *p = x, *q = y;
    for (int i = 0; i < 3; i++)
        if (p[i] != q[i]) return p[i] < q[i] ? -1 : 1;
    return 0;
}

/* Vertex clustering (Rossignac and Borrel 1993): vertices in one grid cell
 * become their mean; triangles that collapse are dropped. The result is
 * coarser and may not be perfectly manifold: the voxelizer copes. */
static void decimate(const rb_gen_mesh *in, rb_gen_mesh *out, int cells) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < in->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], in->v[3 * v + k]);
            hi[k] = fmax(hi[k], in->v[3 * v + k]);
        }
    double h = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) / cells;
    size_t n = (size_t)(cells + 1) * (cells + 1) * (cells + 1);
    double *sum = calloc(4 * n, sizeof *sum);
    uint32_t *cell_of = malloc(sizeof *cell_of * in->vertex_count), *new_id = malloc(sizeof *new_id * n);
    if (!sum || !cell_of || !new_id) fail("allocate", "cluster grid");
    for (uint32_t v = 0; v < in->vertex_count; v++) {
        size_t c = 0;
        for (int k = 0; k < 3; k++) c = c * (cells + 1) + (size_t)((in->v[3 * v + k] - lo[k]) / h);
        cell_of[v] = (uint32_t)c;
        for (int k = 0; k < 3; k++) sum[4 * c + k] += in->v[3 * v + k];
        sum[4 * c + 3] += 1.0;
    }
    for (size_t c = 0; c < n; c++)
        new_id[c] = sum[4 * c + 3] > 0 ? rb_gen_vertex(out, sum[4 * c] / sum[4 * c + 3],
                                                       sum[4 * c + 1] / sum[4 * c + 3], sum[4 * c + 2] / sum[4 * c + 3])
                                       : UINT32_MAX;
    rb_gen_mesh tris = {0};
    for (uint32_t t = 0; t < in->triangle_count; t++) {
        uint32_t a = new_id[cell_of[in->t[3 * t]]], b = new_id[cell_of[in->t[3 * t + 1]]],
                 c = new_id[cell_of[in->t[3 * t + 2]]];
        if (a == b || b == c || c == a) continue;
        /* Rotate so the smallest index leads (same winding) so duplicates sort together. */
        while (a > b || a > c) {
            uint32_t s = a;
            a = b;
            b = c;
            c = s;
        }
        rb_gen_triangle(&tris, a, b, c);
    }
    qsort(tris.t, tris.triangle_count, 3 * sizeof(uint32_t), compare_tri);
    for (uint32_t t = 0; t < tris.triangle_count; t++)
        if (t == 0 || compare_tri(tris.t + 3 * t, tris.t + 3 * (t - 1)) != 0)
            rb_gen_triangle(out, tris.t[3 * t], tris.t[3 * t + 1], tris.t[3 * t + 2]);
    rb_gen_free(&tris);
    free(sum);
    free(cell_of);
    free(new_id);
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: %s OUT_DIR [BUNNY.off]\nWrites the debris meshes of assets/meshes into OUT_DIR.\n", argv[0]);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s OUT_DIR [BUNNY.off]\n", argv[0]);
        return 2;
    }
    out_dir = argv[1];
    rb_gen_mesh m = {0};

    rock(&m, 7u, 1.3, 1.0, 0.75);
    emit(&m, "rock_a.obj", "{ \"resolution\": 8, \"size\": 1.0, \"description\": \"a lumpy rock chunk, 1 m long\" }");
    rb_gen_free(&m);
    rock(&m, 31u, 1.0, 0.8, 0.55);
    emit(&m, "rock_b.obj",
         "{ \"resolution\": 7, \"size\": 0.8, \"description\": \"a flatter rock chunk, 0.8 m long\" }");
    rb_gen_free(&m);

    rb_gen_box(&m, 2.15, 1.025, 0.65);
    emit(&m, "brick.stl",
         "{ \"resolution\": 8, \"units\": \"dm\", \"description\": \"a house brick, 215 x 102.5 x 65 mm\" }");
    rb_gen_free(&m);
    /* the half brick a wall's every other row ends on (docs/scene-format.md,
     * `wall`'s `half`): half the brick's length, 4 particles across it as
     * the brick has 8, so both have the same lattice and any scale lays
     * them level */
    rb_gen_box(&m, 1.075, 1.025, 0.65);
    emit(&m, "brick_half.stl",
         "{ \"resolution\": 4, \"units\": \"dm\", \"description\": \"a half brick, 107.5 x 102.5 x 65 mm\" }");
    rb_gen_free(&m);
    rb_gen_box(&m, 8.0, 1.4, 0.4);
    emit(&m, "plank.ply", "{ \"resolution\": 20, \"description\": \"a plank 8 m long, one particle (0.4 m) thick\" }");
    rb_gen_free(&m);

    banana(&m);
    emit(&m, "banana.obj",
         "{ \"resolution\": 14, \"size\": 0.2, \"smooth\": true, \"description\": \"a banana, 20 cm (Fossum 2011, fig. "
         "8.1)\" }");
    rb_gen_free(&m);

    rb_gen_torus(&m, 1.0, 0.4, 48, 24);
    emit(&m, "torus.off",
         "{ \"resolution\": 14, \"surface\": true, \"description\": \"a torus 2.8 m across, surface particles only "
         "(Harada 29.2.9)\" }");
    rb_gen_free(&m);

    pawn(&m);
    emit(&m, "pawn.gltf",
         "{ \"resolution\": 8, \"size\": 0.16, \"smooth\": true, \"description\": \"a chess pawn, 16 cm tall\" }");
    rb_gen_free(&m);

    rb_gen_icosphere(&m, 3);
    emit(&m, "ball.off",
         "{ \"resolution\": 6, \"smooth\": true, \"description\": \"a ball 2 m across, for knocking walls down\" }");
    rb_gen_free(&m);

    /* A pillar in three chunks along two slanted cuts, each chunk its own
     * object: a pre-fractured mesh, its parts the shape's pieces. */
    {
        static const double ground[3] = {0.0, 0.0, 0.0}, cut1[3] = {0.83, 0.22, 0.12}, cut2[3] = {1.57, -0.3, 0.18},
                            top[3] = {2.4, 0.0, 0.0};
        const double *planes[4] = {ground, cut1, cut2, top};
        rb_gen_mesh chunks[3] = {{0}};
        static const char *const names[3] = {"base", "middle", "capital"};
        for (int c = 0; c < 3; c++) rb_gen_prism_chunk(&chunks[c], 0.4, planes[c], planes[c + 1]);
        char path[1024], side[1100];
        snprintf(path, sizeof path, "%s/pillar.obj", out_dir);
        if (!rb_gen_write_obj_parts(chunks, names, 3, path)) fail("write", path);
        snprintf(side, sizeof side, "%s.json", path);
        FILE *f = fopen(side, "w");
        if (!f ||
            fprintf(f, "{ \"resolution\": 12, \"pieces\": \"parts\", \"description\": \"a stone pillar, 0.8 x 0.8 x "
                       "2.4 m, pre-fractured in three chunks along two slanted cuts\" }\n") < 0 ||
            fclose(f) != 0)
            fail("write", side);
        printf("%s: 3 parts, %u triangles each\n", path, chunks[0].triangle_count);
        for (int c = 0; c < 3; c++) rb_gen_free(&chunks[c]);
    }

    if (argc > 2) {
        rb_gen_mesh full = {0};
        if (!read_off(argv[2], &full)) fail("read the OFF file", argv[2]);
        decimate(&full, &m, 30);
        rb_gen_free(&full);
        /* Clustering folds a few triangles over; turn them back so the asset loads without a note. */
        uint32_t *turned = malloc(sizeof *turned * 3 * (size_t)m.triangle_count);
        if (!turned || rb_vox_orient(m.v, m.vertex_count, m.t, m.triangle_count, turned, NULL) < 0)
            fail("orient", "the bunny");
        memcpy(m.t, turned, sizeof *turned * 3 * (size_t)m.triangle_count);
        free(turned);
        emit(&m, "bunny.off",
             "{ \"resolution\": 8, \"size\": 0.4, \"smooth\": true, \"description\": \"the Stanford bunny, 40 cm, "
             "scanned (decimated CGAL bunny00.off)\" }");
        rb_gen_free(&m);
    }
    return 0;
}
