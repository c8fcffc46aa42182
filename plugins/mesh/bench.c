/* bench.c - times the mesh loader and the voxelizer on one file.
 *
 *   rb_mesh_bench FILE [RESOLUTION] [--surface] [--repeat N] [--check STRIDE]
 *
 * Prints the best of N runs of each stage in milliseconds. --check compares
 * the hierarchical winding number with the exact sum at every STRIDE-th voxel
 * centre and prints the largest difference and any inside/outside flips. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh_load.h"
#include "voxelize.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int check(const rb_mesh_data *m, const rb_voxels *v, int stride) {
    rb_winding *w = rb_winding_create(m->positions, m->indices, m->triangle_count);
    if (!w) return 1;
    double worst = 0.0;
    long tested = 0, flips = 0, n = 0;
    for (uint32_t i = 0; i < v->dims[0]; i++)
        for (uint32_t j = 0; j < v->dims[1]; j++)
            for (uint32_t k = 0; k < v->dims[2]; k++, n++) {
                if (n % stride) continue;
                double q[3] = {v->centre[0] + (i + 0.5 - 0.5 * v->dims[0]) * v->cell,
                               v->centre[1] + (j + 0.5 - 0.5 * v->dims[1]) * v->cell,
                               v->centre[2] + (k + 0.5 - 0.5 * v->dims[2]) * v->cell};
                double fast = rb_winding_at(w, q),
                       exact = rb_winding_exact(m->positions, m->indices, m->triangle_count, q);
                if (fabs(fast - exact) > worst) worst = fabs(fast - exact);
                flips += (fast >= 0.5) != (exact >= 0.5);
                tested++;
            }
    rb_winding_destroy(w);
    printf("check: %ld voxel centres, largest |fast - exact| = %.2e, inside/outside disagreements = %ld\n", tested,
           worst, flips);
    return flips != 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: %s FILE [RESOLUTION] [--surface] [--repeat N] [--check STRIDE]\n"
               "Times the mesh loader and the voxelizer on FILE: the best of N runs of each, in ms.\n",
               argv[0]);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s FILE [RESOLUTION] [--surface] [--repeat N] [--check STRIDE]\n", argv[0]);
        return 2;
    }
    rb_vox_desc desc = {.resolution = 32};
    int repeat = 5, stride = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--surface") == 0)
            desc.surface_only = true;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--check") == 0 && i + 1 < argc)
            stride = atoi(argv[++i]);
        else
            desc.resolution = (uint32_t)atoi(argv[i]);
    }
    if (repeat < 1) repeat = 1;
    double best_load = INFINITY, best_vox = INFINITY;
    rb_mesh_data mesh = {0};
    rb_voxels vox = {0};
    rb_vox_result r = RB_VOX_OK;
    for (int run = 0; run < repeat; run++) {
        char err[512];
        rb_mesh_data_free(&mesh);
        rb_voxels_free(&vox);
        double t0 = now_ms();
        if (!rb_mesh_load(argv[1], false, &mesh, err, sizeof err)) {
            fprintf(stderr, "%s %s\n", argv[1], err);
            return 1;
        }
        double t1 = now_ms();
        desc.positions = mesh.positions;
        desc.vertex_count = mesh.vertex_count;
        desc.indices = mesh.indices;
        desc.triangle_count = mesh.triangle_count;
        r = rb_voxelize(&desc, &vox);
        double t2 = now_ms();
        if (t1 - t0 < best_load) best_load = t1 - t0;
        if (t2 - t1 < best_vox) best_vox = t2 - t1;
    }
    printf("%s: %u triangles, %u across (%ux%ux%u voxels), %s: %s, %u particles (%u solid), %u open edges, "
           "%u flipped\n",
           argv[1], mesh.triangle_count, desc.resolution, vox.dims[0], vox.dims[1], vox.dims[2],
           desc.surface_only ? "surface" : "solid", rb_vox_result_text(r), vox.count, vox.solid_count, vox.open_edges,
           vox.flipped);
    printf("best of %d: load %.1f ms, voxelize %.1f ms, total %.1f ms\n", repeat, best_load, best_vox,
           best_load + best_vox);
    int status = r == RB_VOX_OK ? 0 : 1;
    if (stride > 0) status |= check(&mesh, &vox, stride);
    rb_voxels_free(&vox);
    rb_mesh_data_free(&mesh);
    return status;
}
