/* rebound_sweep.c - restitution over many drop heights: a sphere (one
 * particle of the default radius, 64 kg) dropped on the ground from 0.3 to
 * 2.6 m in steps of 5 mm (461 heights), for each restitution asked, at the
 * default step or dt given. Prints, for each e, the lowest, highest and
 * mean rebound over impact speed, each measured as tests/test_physics.c
 * measures one drop (check_sphere_restitution): the speeds of the steps that
 * cross into contact and out of it. All the spheres fall in one world, a
 * metre apart (they never meet), on the reference backend. README, "Defaults"
 * (the step), quotes its figures.
 *
 *   rb_rebound_sweep [DT] [E...]    (default: the world's dt; e 0.3 0.5 0.7 0.9 1) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/world.h"

enum { HEIGHTS = 461, ROW = 22 };

static int sweep(float dt, float e) {
    rb_world_desc desc = rb_default_world_desc();
    desc.backend = RB_BACKEND_REFERENCE;
    desc.material.restitution = e;
    if (dt > 0.0f) desc.dt = dt;
    desc.max_bodies = HEIGHTS;
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) {
        fprintf(stderr, "rb_rebound_sweep: e = %g: %s\n", e, err);
        return 1;
    }
    const float r = desc.particle_radius, m = 64.0f, I = 0.4f * m * r * r, origin[3] = {0.0f, 0.0f, 0.0f};
    const rb_shape_data sphere = {1, origin, m, {I, I, I}, 0.0f};
    const int shape = rb_world_add_shape(w, &sphere);
    for (int h = 0; h < HEIGHTS && shape >= 0; h++) {
        const rb_body_desc b = {.shape = (uint32_t)shape,
                                .position = {(float)(h % ROW) - 0.5f * ROW, r + 0.3f + 0.005f * (float)h,
                                             (float)(h / ROW) - 0.5f * ROW},
                                .kind = RB_BODY_DYNAMIC};
        if (rb_world_add_body(w, &b).generation == 0) {
            fprintf(stderr, "rb_rebound_sweep: cannot add body %d\n", h);
            rb_world_destroy(w);
            return 1;
        }
    }
    int state[HEIGHTS] = {0}, left = HEIGHTS; /* 0: falling, 1: in contact, 2: left */
    float impact[HEIGHTS] = {0}, ratio[HEIGHTS] = {0};
    for (int step = 0; step < 20000 && left > 0; step++) {
        for (uint32_t h = 0; h < HEIGHTS; h++) {
            rb_body_state s;
            if (!rb_world_get_body(w, h, &s)) continue;
            const bool contact = s.position[1] < r;
            if (state[h] == 0 && contact) state[h] = 1, impact[h] = -s.velocity[1];
            if (state[h] == 1 && !contact) state[h] = 2, ratio[h] = s.velocity[1] / impact[h], left--;
        }
        if (!rb_world_step(w, 1)) break;
    }
    rb_world_destroy(w);
    if (left > 0) {
        fprintf(stderr, "rb_rebound_sweep: e = %g: %d spheres never left the ground\n", e, left);
        return 1;
    }
    double lo = INFINITY, hi = -INFINITY, mean = 0.0;
    for (int h = 0; h < HEIGHTS; h++) {
        lo = fmin(lo, ratio[h]), hi = fmax(hi, ratio[h]);
        mean += ratio[h] / HEIGHTS;
    }
    printf("e %.2f: rebound / impact %.4f to %.4f, mean %.4f (%d heights, 0.3 to 2.6 m)\n", e, lo, hi, mean, HEIGHTS);
    return 0;
}

int main(int argc, char **argv) {
    const float dt = argc > 1 ? strtof(argv[1], NULL) : 0.0f;
    static const float defaults[] = {0.3f, 0.5f, 0.7f, 0.9f, 1.0f};
    int failed = 0;
    if (argc > 2)
        for (int k = 2; k < argc; k++) failed |= sweep(dt, strtof(argv[k], NULL));
    else
        for (size_t k = 0; k < sizeof defaults / sizeof *defaults; k++) failed |= sweep(dt, defaults[k]);
    return failed;
}
