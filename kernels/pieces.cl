/* pieces.cl - the loads on breakable bodies' pieces, after the force pass
 * and before the integration (the step's start state, this step's particle
 * forces and moments): one work-item a body, as rb_piece_loads
 * (src/sim/pieces.c) computes them, operation for operation. A body without
 * pieces returns at once. Latches piece_load, the largest load over hold;
 * counts in *breaks each piece whose ratio passes 1 for the first time.
 * A held body (body_pos.w < 0: world.h, rb_body_hold): a dormant one
 * latches nothing; an anchored one is held still by the world, so the rest
 * must give each piece all of its contact force: its load is |F_P|. */
__kernel void rb_piece_loads(const uint bodies, __global const uint *body_first_particle,
                             __global const uint *body_first_piece, __global const uint *body_kind,
                             __global const float4 *body_quat, __global const float4 *body_omega,
                             __global const float4 *body_angmom, __global const float4 *body_vel,
                             __global const float4 *body_inv_inertia, __global const float *force,
                             __global const float *moment, __global const float4 *piece_info,
                             __global const float *piece_holds, __global const uint2 *piece_span,
                             __global const uint *particle_member, __global float *piece_load, __global uint *breaks,
                             __global const float4 *body_pos) {
    const uint b = get_global_id(0);
    if (b >= bodies) return;
    const uint pf = body_first_piece[b], pl = body_first_piece[b + 1];
    if (pf == pl || body_kind[b] != RB_BODY_DYNAMIC) return;
    const float hold = body_pos[b].w;
    if (rb_dormant(hold)) return;
    const bool anchored = rb_anchored(hold);
    const float4 q = body_quat[b];
    const float3 w = body_omega[b].xyz, L = body_angmom[b].xyz;
    const uint first = body_first_particle[b], last = body_first_particle[b + 1];
    /* the force pass stores each particle's moment about the body's centre
     * (forces.cl: its lever crossed with its force, plus its contacts'
     * moments), the term the reference forms here */
    float3 F = (float3)(0.0f, 0.0f, 0.0f), T = F;
    for (uint i = first; i < last; i++) {
        const float3 f = vload3(i, force), m = vload3(i, moment);
        F = (float3)(F.x + f.x, F.y + f.y, F.z + f.z);
        T = (float3)(T.x + m.x, T.y + m.y, T.z + m.z);
    }
    const float inv_mass = body_vel[b].w;
    const float3 gyro = rb_cross(w, L);
    const float3 alpha =
        rb_apply_inv_inertia(q, body_inv_inertia[b], (float3)(T.x - gyro.x, T.y - gyro.y, T.z - gyro.z));
    uint passed = 0;
    for (uint p = pf; p < pl; p++) {
        const float4 c = piece_info[p];
        const float3 r = rb_rotate(q, c.xyz), ar = rb_cross(alpha, r), wwr = rb_cross(w, rb_cross(w, r));
        float3 Fp = (float3)(0.0f, 0.0f, 0.0f);
        const uint2 span = piece_span[p];
        for (uint k = span.x; k < span.x + span.y; k++) {
            const float3 f = vload3(first + particle_member[k], force);
            Fp = (float3)(Fp.x + f.x, Fp.y + f.y, Fp.z + f.z);
        }
        const float3 load =
            anchored ? -Fp
                     : (float3)(c.w * ((F.x * inv_mass + ar.x) + wwr.x) - Fp.x,
                                c.w * ((F.y * inv_mass + ar.y) + wwr.y) - Fp.y,
                                c.w * ((F.z * inv_mass + ar.z) + wwr.z) - Fp.z);
        const float size = sqrt(load.x * load.x + load.y * load.y + load.z * load.z);
        const float holds = piece_holds[p];
        const float ratio = holds > 0.0f ? size / holds : size > 0.0f ? INFINITY : 0.0f;
        const float was = piece_load[p];
        if (ratio > was) {
            if (ratio > 1.0f && !(was > 1.0f)) passed++;
            piece_load[p] = ratio;
        }
    }
    if (passed) atomic_add(breaks, passed);
}
