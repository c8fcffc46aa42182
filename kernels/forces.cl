/* forces.cl - stage 3: the contact force and moment on every particle.
 *
 * Work-items run in particle-index order: a body's particles are neighbours
 * in that order and share most of their 27 cells, so the table and the
 * sorted copies they read stay in cache. A particle's own position and
 * velocity are recomputed from its body (the same operations as rb_reorder,
 * so the same bits) instead of being stored a second time. Contacts are
 * summed in the reference's order: cells z, then y, then x from -1 to 1, each
 * cell's particles by index, then the planes. (Skipping the neighbour cells
 * out of reach, a quarter of them, cost PoCL more instructions than it saved.)
 *
 * A particle of a sleeping body that overlaps a particle of an awake body
 * moving faster than sleep_speed marks its body to wake (every writer
 * writes 1: no race). */

/* The contacts of particle (p, v, m, body b) with the particles of cell nc,
 * which hashes to bucket h, in index order. */
static inline __attribute__((always_inline)) void
rb_visit_cell(const float3 p, const float3 v, const float3 w, const float m, const uint b, const bool sleeping,
              const int3 nc, const uint h, __global const uint *table, __global const float4 *sorted_pos,
              __global const float4 *sorted_vel, __global const float4 *body_inv_inertia,
              __global const float4 *body_omega, __global const float4 *body_pos, const float sleep_speed,
              const float sleep_time, bool *wake, float3 *f, float3 *t, RB_CONTACT_ARGS) {
    const uint key = rb_cell_key(nc), end = table[h + 1];
    const float d = 2.0f * radius, d2 = d * d, touch2 = 4.0f * radius * radius; /* as the reference writes each */
    for (uint s = table[h]; s < end; s++) {
        const float4 pj = sorted_pos[s];
        const uint bj = as_uint(pj.w);
        if (bj == b) continue; /* our own body */
        const float3 sep = rb_separation(p, pj.xyz);
        const float dist2 = rb_length2(sep);
        /* Out of reach: neither a contact nor a touch that wakes. Tested
         * before the cell key, so the 16 bytes of sorted_vel are read only
         * for the few particles within reach (most are far). */
        if (dist2 >= d2 && dist2 >= touch2) continue;
        const float4 vj = sorted_vel[s];
        if (as_uint(vj.w) != key) continue; /* another cell in the bucket */
        if (sleeping && dist2 < touch2 && dist2 > 0.0f && !rb_asleep(body_pos[bj].w, sleep_time) &&
            rb_length2(vj.xyz) > sleep_speed * sleep_speed)
            *wake = true;
        if (dist2 >= d2 || dist2 == 0.0f) continue; /* apart, or coincident with no normal */
        rb_contact_particles(sep, dist2, v, w, m, vj.xyz, body_omega[bj].xyz, body_inv_inertia[bj].w, f, t, radius,
                             stiffness, damping, tangential, friction);
    }
}

__kernel void rb_forces(const uint n, __global const float4 *particle_offset, __global const uint *particle_body,
                        __global const float4 *body_pos, __global const float4 *body_quat,
                        __global const float4 *body_vel, __global const float4 *body_omega,
                        __global const float4 *body_inv_inertia, __global const uint *table, const uint mask,
                        __global const float4 *sorted_pos, __global const float4 *sorted_vel, __constant float4 *planes,
                        const uint plane_count, const float inv_cell, RB_CONTACT_ARGS, const float sleep_speed,
                        const float sleep_time, __global float *force, __global float *moment,
                        __global uint *wake_body) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    const float4 x = body_pos[b];
    const float3 rel = rb_particle_rel(body_quat[b], particle_offset[i]);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    const float4 w = body_omega[b];
    const float3 v = rb_point_velocity(body_vel[b], w, rel);
    const float m = body_inv_inertia[b].w;
    const bool sleeping = rb_asleep(x.w, sleep_time);
    bool wake = false;
    const int3 c = rb_cell_of(p, inv_cell);
    float3 f = (float3)(0.0f, 0.0f, 0.0f), t = f;
    for (int dz = -1; dz <= 1; dz++) {
        const uint hz = (uint)(c.z + dz) * 83492791u;
        for (int dy = -1; dy <= 1; dy++) {
            const uint hyz = (uint)(c.y + dy) * 19349663u ^ hz;
            /* x written out: as a loop it costs a third more instructions (PoCL 3.1) */
            rb_visit_cell(p, v, w.xyz, m, b, sleeping, (int3)(c.x - 1, c.y + dy, c.z + dz),
                          ((uint)(c.x - 1) * 73856093u ^ hyz) & mask, table, sorted_pos, sorted_vel, body_inv_inertia,
                          body_omega, body_pos, sleep_speed, sleep_time, &wake, &f, &t, radius, stiffness, damping,
                          tangential, friction);
            rb_visit_cell(p, v, w.xyz, m, b, sleeping, (int3)(c.x, c.y + dy, c.z + dz),
                          ((uint)c.x * 73856093u ^ hyz) & mask, table, sorted_pos, sorted_vel, body_inv_inertia,
                          body_omega, body_pos, sleep_speed, sleep_time, &wake, &f, &t, radius, stiffness, damping,
                          tangential, friction);
            rb_visit_cell(p, v, w.xyz, m, b, sleeping, (int3)(c.x + 1, c.y + dy, c.z + dz),
                          ((uint)(c.x + 1) * 73856093u ^ hyz) & mask, table, sorted_pos, sorted_vel, body_inv_inertia,
                          body_omega, body_pos, sleep_speed, sleep_time, &wake, &f, &t, radius, stiffness, damping,
                          tangential, friction);
        }
    }
    for (uint k = 0; k < plane_count; k++)
        rb_contact_plane(p, v, w.xyz, m, planes[k], &f, &t, radius, stiffness, damping, tangential, friction);
    vstore3(f, i, force); /* packed xyz: 12 bytes a particle */
    vstore3(t, i, moment);
    if (wake) wake_body[b] = 1u;
}
