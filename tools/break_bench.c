/* break_bench.c - what a break costs the host: a wall of 1,000 particles
 * (20 x 10 x 5, r 0.2 m) in `voronoi 100` pieces, set 1 mm above the
 * ground with bonds so weak (1 N) that landing breaks every one; times the
 * tick that splits it (the host's work: reading the break, splitting the
 * pieces, adding the new shapes and bodies) and the step after it (which
 * uploads them to the backend).
 *
 *   rb_break_bench [reference|opencl] [PIECES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "scenes/debris.h"

int main(int argc, char **argv) {
    rb_world_desc desc = rb_default_world_desc();
    desc.backend = argc > 1 && strcmp(argv[1], "reference") == 0 ? RB_BACKEND_REFERENCE : RB_BACKEND_OPENCL;
    const uint32_t pieces = argc > 2 ? (uint32_t)atoi(argv[2]) : 100;
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) return fprintf(stderr, "rb_break_bench: %s\n", err), 1;
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_entities *e = rb_entities_create(reg, w);
    const int nx = 20, ny = 10, nz = 5, n = nx * ny * nz;
    const float r = 0.2f, m = 64.0f;
    float *p = malloc(sizeof *p * 3 * n), I[3] = {0, 0, 0};
    for (int i = 0, k = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int l = 0; l < nz; l++, k++) {
                float *q = &p[3 * k];
                q[0] = 2 * r * (i - 0.5f * (nx - 1)), q[1] = 2 * r * (j - 0.5f * (ny - 1)),
                q[2] = 2 * r * (l - 0.5f * (nz - 1));
                I[0] += m * (q[1] * q[1] + q[2] * q[2]) + 0.4f * m * r * r;
                I[1] += m * (q[0] * q[0] + q[2] * q[2]) + 0.4f * m * r * r;
                I[2] += m * (q[0] * q[0] + q[1] * q[1]) + 0.4f * m * r * r;
            }
    const int shape = rb_world_add_shape(w, &(rb_shape_data){(uint32_t)n, p, m * n, {I[0], I[1], I[2]}, r});
    free(p);
    const rb_body_id id =
        rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)shape, .position = {0, ny * r + 0.001f, 0}});
    rb_debris_desc dd = {0};
    rb_debris *d = rb_debris_create(&dd, e, err, sizeof err);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = pieces, .seed = 1, .strength = 1.0f};
    if (!d || !rb_debris_make_breakable(d, id, &fd, err, sizeof err))
        return fprintf(stderr, "rb_break_bench: %s\n", err), 1;
    for (int tick = 0; tick < 500; tick++) {
        if (!rb_debris_step(d, 10)) return 1;
        double t0 = rb_seconds();
        if (!rb_debris_tick(d)) return 1;
        const double tick_ms = (rb_seconds() - t0) * 1e3;
        if (rb_debris_breaks(d) == 0) continue;
        t0 = rb_seconds();
        if (!rb_debris_step(d, 1)) return 1;
        const double after_ms = (rb_seconds() - t0) * 1e3;
        printf("%s: a %d-particle wall in %u voronoi pieces split at t = %.3f s into %u bodies: the splitting tick "
               "took %.2f ms of host time, the step after it (uploading them) %.2f ms\n",
               rb_world_backend_name(w), n, pieces, rb_debris_time(d), rb_world_body_count(w), tick_ms, after_ms);
        return 0;
    }
    fprintf(stderr, "rb_break_bench: the wall never broke\n");
    return 1;
}
