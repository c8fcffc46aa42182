/* pieces.c - the loads on breakable bodies' pieces (world.h,
 * rb_world_set_pieces), as every backend computes them: kernels/pieces.cl
 * does the same operations in the same order, so both latch the same bits. */
#include <math.h>

#include "world_internal.h"

uint32_t rb_piece_loads(rb_world_data *d, uint32_t b, const rb_float4 *pos, const float *force, const float *moment) {
    const uint32_t pf = d->body_first_piece[b], pl = d->body_first_piece[b + 1];
    if (pf == pl || d->body_kind[b] != RB_BODY_DYNAMIC) return 0;
    /* held (world_internal.h): a dormant body latches nothing; an anchored
     * one is held still by the world, so the rest must give each piece all
     * of its contact force (kernels/pieces.cl) */
    if (rb_timer_dormant(d->body_pos[b].w)) return 0;
    const bool anchored = rb_timer_anchored(d->body_pos[b].w);
    const rb_float4 q4 = d->body_quat[b], w4 = d->body_omega[b], L4 = d->body_angmom[b];
    const float q[4] = {q4.x, q4.y, q4.z, q4.w}, w[3] = {w4.x, w4.y, w4.z};
    const uint32_t first = d->body_first_particle[b], last = d->body_first_particle[b + 1];
    /* the contact force and torque on the whole body, in particle order; a
     * particle's torque about the centre as the integration forms it (its
     * position less the centre, crossed with its force, plus its contacts'
     * moments), which is what the OpenCL force pass stores as its moment */
    const rb_float4 x = d->body_pos[b];
    float F[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f};
    for (uint32_t i = first; i < last; i++) {
        const float lever[3] = {pos[i].x - x.x, pos[i].y - x.y, pos[i].z - x.z};
        float t[3];
        rb_v3_cross(lever, &force[3 * i], t);
        for (int k = 0; k < 3; k++) F[k] += force[3 * i + k], T[k] += t[k] + moment[3 * i + k];
    }
    /* the body's accelerations: F / M, and alpha = I^-1 (T - w x L) */
    const float inv_mass = d->body_vel[b].w, L[3] = {L4.x, L4.y, L4.z};
    float gyro[3];
    rb_v3_cross(w, L, gyro);
    const rb_float4 alpha4 = rb_apply_inv_inertia(q4, d->body_inv_inertia[b],
                                                  (rb_float4){T[0] - gyro[0], T[1] - gyro[1], T[2] - gyro[2], 0.0f});
    const float alpha[3] = {alpha4.x, alpha4.y, alpha4.z};
    uint32_t passed = 0;
    for (uint32_t p = pf; p < pl; p++) {
        const rb_float4 c = d->piece_info[p];
        float r[3], ar[3], wr[3], wwr[3];
        rb_quat_rotate(q, (const float[3]){c.x, c.y, c.z}, r);
        rb_v3_cross(alpha, r, ar);
        rb_v3_cross(w, r, wr);
        rb_v3_cross(w, wr, wwr);
        float Fp[3] = {0.0f, 0.0f, 0.0f};
        const uint32_t m0 = d->piece_span[2 * p], mn = d->piece_span[2 * p + 1];
        for (uint32_t k = m0; k < m0 + mn; k++) {
            const uint32_t i = first + d->particle_member[k];
            for (int j = 0; j < 3; j++) Fp[j] += force[3 * i + j];
        }
        float load[3];
        for (int j = 0; j < 3; j++) load[j] = anchored ? -Fp[j] : c.w * ((F[j] * inv_mass + ar[j]) + wwr[j]) - Fp[j];
        const float size = sqrtf(load[0] * load[0] + load[1] * load[1] + load[2] * load[2]);
        const float holds = d->piece_holds[p];
        const float ratio = holds > 0.0f ? size / holds : size > 0.0f ? INFINITY : 0.0f;
        if (ratio > d->piece_load[p]) {
            if (ratio > 1.0f && !(d->piece_load[p] > 1.0f)) passed++;
            d->piece_load[p] = ratio;
        }
    }
    return passed;
}
