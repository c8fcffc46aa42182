/* far.cl - resting bodies far from every running one, left out of the grid
 * (CPU kernel set).
 *
 * A resting body (common.cl, rb_resting) skips the force pass and the
 * integration, but its particles are still hashed, counted, scattered and
 * sorted so that running particles find them. Most need not be: only those
 * a running particle may reach this step, or mark (forces.cl: within its
 * reach plus twice a step's travel), are ever found. A body's particles lie
 * within its reach R_b (the farthest particle centre from its centre of
 * mass: the host's body_reach), so a resting body B is beyond every
 * running particle of body A, and of A's marking, where
 *     |c_A - c_B| > R_A + reach + 2 dt (|v_A| + |w_A| R_A) + R_B,
 * reach the largest particle radius plus the force pass's slot_reach.
 * Such a body is left out of the grid: the count gives its particles the
 * hash RB_FAR_HASH and no bucket, and the scatter and the reorder pass them
 * by. Every contact and every mark is as before, in the same
 * order, so the bits are the reference's, which keeps every particle in its
 * grid.
 *
 * Which bodies are near is found on a coarse grid of hashed cells
 * (`coarse`, side 1 / inv_coarse, set by the host near the largest
 * bound): each running dynamic body stamps the cells over the box of that
 * bound with its largest R_B (reach_body), and a resting body is near where
 * the cell of its centre bears this step's stamp. Cells that share a hash
 * only take in more. A stamp is the host's step count, so the table is
 * never cleared; a body whose box spans more than RB_FAR_SPAN cells a side
 * (or is not finite) stamps `everything` instead, and no body is left out
 * that step. */

#define RB_FAR_SPAN 8

/* The coarse table's slot of cell (x, y, z). */
static inline uint rb_coarse_slot(const int x, const int y, const int z, const uint mask) {
    return (((uint)x * 73856093u) ^ ((uint)y * 19349663u) ^ ((uint)z * 83492791u)) & mask;
}

/* A running dynamic body stamps the coarse cells any resting body near it
 * may have its centre in. The host launches it only where some body slept
 * at its last look (src/sim/opencl.c, enqueue_far); the count's `on` says
 * so. */
__kernel void rb_stamp_near(const uint bodies, __global const float4 *body_pos, __global const float4 *body_vel,
                            __global const float4 *body_omega, __global const uint *body_kind,
                            __global const uint *body_run, __global const float *body_reach, const float sleep_time,
                            const float reach, const float reach_body, const float dt, const float inv_coarse,
                            const uint mask, const uint stamp, __global uint *coarse, __global uint *everything) {
    const uint b = get_global_id(0);
    if (b >= bodies) return;
    if (body_kind[b] != RB_BODY_DYNAMIC || rb_resting(b, body_kind, body_pos, body_run, sleep_time, 1u)) return;
    const float4 c = body_pos[b];
    const float R = body_reach[b];
    const float speed = length(body_vel[b].xyz) + length(body_omega[b].xyz) * R;
    /* a thousandth and a millimetre more than the bound: roundings only take in more */
    const float e = (R + reach + 2.0f * dt * speed + reach_body) * 1.001f + 1e-3f;
    const int3 lo = (int3)(rb_floor_int((c.x - e) * inv_coarse), rb_floor_int((c.y - e) * inv_coarse),
                           rb_floor_int((c.z - e) * inv_coarse));
    const int3 hi = (int3)(rb_floor_int((c.x + e) * inv_coarse), rb_floor_int((c.y + e) * inv_coarse),
                           rb_floor_int((c.z + e) * inv_coarse));
    const bool finite = isfinite(c.x) && isfinite(c.y) && isfinite(c.z) && isfinite(e);
    if (!finite || hi.x - lo.x >= RB_FAR_SPAN || hi.y - lo.y >= RB_FAR_SPAN || hi.z - lo.z >= RB_FAR_SPAN) {
        *everything = stamp; /* every writer writes the same: no race */
        return;
    }
    for (int x = lo.x; x <= hi.x; x++)
        for (int y = lo.y; y <= hi.y; y++)
            for (int z = lo.z; z <= hi.z; z++) coarse[rb_coarse_slot(x, y, z, mask)] = stamp;
}

/* body_far[b]: body b rests and no running body stamped its centre's cell
 * this step (the next kernel, rb_count_particles in grid.cl, reads it for
 * each particle); far_count counts such bodies, one atomic a work-group.
 * Every work-item reaches both barriers. */
__kernel void rb_mark_far(const uint bodies, __global const float4 *body_pos, __global const uint *body_kind,
                          __global const uint *body_run, const float sleep_time, const float inv_coarse,
                          const uint mask, const uint stamp, __global const uint *coarse,
                          __global const uint *everything, __global uint *body_far, __global uint *far_count) {
    __local uint group_far;
    const uint b = get_global_id(0);
    if (get_local_id(0) == 0) group_far = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    bool far = b < bodies && *everything != stamp && rb_resting(b, body_kind, body_pos, body_run, sleep_time, 1u);
    if (far) {
        const float4 c = body_pos[b];
        far = coarse[rb_coarse_slot(rb_floor_int(c.x * inv_coarse), rb_floor_int(c.y * inv_coarse),
                                    rb_floor_int(c.z * inv_coarse), mask)] != stamp;
    }
    if (far) atomic_inc(&group_far);
    if (b < bodies) body_far[b] = far ? 1u : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && group_far) atomic_add(far_count, group_far);
}
