/* forces.cl - stage 3: the contact force and moment on every particle.
 *
 * Work-items run in particle-index order: a body's particles are neighbours
 * in that order and share most of their 27 cells, so the table and the
 * sorted copies they read stay in cache. A particle's own position and
 * velocity are recomputed from its body (the same operations as rb_reorder,
 * so the same bits) instead of being stored a second time. Contacts are
 * summed in the reference's order: cells z, then y, then x from -1 to 1, each
 * cell's particles by index, then the planes.
 *
 * A neighbour cell whose nearest point is farther than 2r from the particle
 * (by a margin far above rounding) cannot hold a contact and is not visited:
 * about a quarter of the 27 on average. Skipping it changes no sum. */

/* Squared distances, in cell units, from a coordinate at fraction f of its
 * cell to the cells below, at and above it. */
static inline float3 rb_face_dist2(const float f) { return (float3)(f * f, 0.0f, (1.0f - f) * (1.0f - f)); }

__kernel void rb_forces(const uint n, __global const float4 *particle_offset, __global const uint *particle_body,
                        __global const float4 *body_pos, __global const float4 *body_quat,
                        __global const float4 *body_vel, __global const float4 *body_omega,
                        __global const float4 *body_inv_inertia, __global const uint *table, const uint mask,
                        __global const float4 *sorted_pos, __global const float4 *sorted_vel,
                        __constant float4 *planes, const uint plane_count, const float inv_cell, RB_CONTACT_ARGS,
                        __global float4 *force, __global float4 *moment) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    const float4 x = body_pos[b];
    const float3 rel = rb_particle_rel(body_quat[b], particle_offset[i]);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    const float3 v = rb_point_velocity(body_vel[b], body_omega[b], rel);
    const float m = body_inv_inertia[b].w, d = 2.0f * radius, d2 = d * d;
    const int3 c = rb_cell_of(p, inv_cell);
    /* 1.05: 5% of a cell (2 cm for r = 0.2 m), thousands of times any rounding here */
    const float3 wx = rb_face_dist2(p.x * inv_cell - (float)c.x), wy = rb_face_dist2(p.y * inv_cell - (float)c.y),
                 wz = rb_face_dist2(p.z * inv_cell - (float)c.z);
    const float reach = 1.05f;
    const float wxs[3] = {wx.x, wx.y, wx.z}, wys[3] = {wy.x, wy.y, wy.z}, wzs[3] = {wz.x, wz.y, wz.z};
    float3 f = (float3)(0.0f, 0.0f, 0.0f), t = f;
    for (int dz = -1; dz <= 1; dz++) {
        const float rz = wzs[dz + 1];
        const uint hz = (uint)(c.z + dz) * 83492791u;
        for (int dy = -1; dy <= 1; dy++) {
            const float ry = rz + wys[dy + 1];
            if (ry > reach) continue;
            const uint hy = (uint)(c.y + dy) * 19349663u;
            for (int dx = -1; dx <= 1; dx++) {
                if (ry + wxs[dx + 1] > reach) continue;
                const int3 nc = (int3)(c.x + dx, c.y + dy, c.z + dz);
                const uint h = ((uint)nc.x * 73856093u ^ hy ^ hz) & mask, key = rb_cell_key(nc);
                const uint end = table[h + 1];
                for (uint s = table[h]; s < end; s++) {
                    const float4 pj = sorted_pos[s];
                    const uint bj = as_uint(pj.w);
                    if (bj == b) continue; /* our own body */
                    const float4 vj = sorted_vel[s];
                    if (as_uint(vj.w) != key) continue; /* another cell in the bucket */
                    const float3 sep = rb_separation(p, pj.xyz);
                    const float dist2 = rb_length2(sep);
                    if (dist2 >= d2 || dist2 == 0.0f) continue; /* apart, or coincident with no normal */
                    rb_contact_particles(sep, dist2, v, m, vj.xyz, body_inv_inertia[bj].w, &f, &t, radius, stiffness,
                                         damping, tangential, friction);
                }
            }
        }
    }
    for (uint k = 0; k < plane_count; k++)
        rb_contact_plane(p, v, m, planes[k], &f, &t, radius, stiffness, damping, tangential, friction);
    force[i] = (float4)(f, 0.0f);
    moment[i] = (float4)(t, 0.0f);
}
