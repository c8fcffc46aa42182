/* forces.cl - stage 3: the contact force on every particle, and its moment
 * about the body's centre.
 *
 * One work-item per sorted slot, in bucket order: neighbouring work-items
 * sit in one cell or in the next cell of its row along x (rb_cell_hash), so
 * they read the same neighbour runs and those stay in cache. The particle's
 * own position and velocity are its sorted copies (the reference computes
 * the same bits); its force goes to its index (sorted_index).
 *
 * The 27 neighbour cells are read as 9 rows of three: cells x - 1, x, x + 1
 * of a row fill consecutive buckets, so a row is one run of sorted slots
 * (two where the table wraps). Particles of other cells that share those
 * buckets are skipped by their cell key. Contacts are summed in the
 * reference's order: rows z, then y, each row's cells x - 1, x, x + 1, each
 * cell's particles by index; then the planes. The same bits as the reference.
 *
 * A particle of a sleeping body that overlaps a particle of an awake body
 * moving faster than sleep_speed marks its body to wake (every writer
 * writes 1: no race). */

/* The contacts of particle (p, v, w, m, body b) with the particles in sorted
 * slots [s, end) that lie in the row of cells whose first cell has key
 * row_key. Eight slots are tested at a time, with vector loads of each
 * coordinate (the sorted copies are padded by eight); the few within reach
 * are then taken one by one in slot order. */
static inline __attribute__((always_inline)) void
rb_visit_run(const float3 p, const float3 v, const float3 w, const float m, const uint b, const bool sleeping, uint s,
             const uint end, const uint row_key, __global const float *sorted_x, __global const float *sorted_y,
             __global const float *sorted_z, __global const uint *sorted_body, __global const float4 *sorted_vel,
             __global const float4 *body_inv_inertia, __global const float4 *body_omega,
             __global const float4 *body_pos, const float sleep_speed, const float sleep_time, bool *wake, float3 *f,
             float3 *t, RB_CONTACT_ARGS) {
    const float d = 2.0f * radius, d2 = d * d, touch2 = 4.0f * radius * radius; /* as the reference writes each */
    for (; s < end; s += 8u) {
        /* rb_separation and rb_length2 of eight slots: the same operations */
        const float8 x = vload8(0, sorted_x + s) - p.x, y = vload8(0, sorted_y + s) - p.y,
                     z = vload8(0, sorted_z + s) - p.z;
        const float8 dist2v = x * x + y * y + z * z;
        /* Within reach (a contact, or a touch that wakes), of another body, in the run. */
        const int8 near = ((dist2v < d2) | (dist2v < touch2)) & (as_int8(vload8(0, sorted_body + s)) != (int)b) &
                          ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int)(end - s));
        const int8 bit = near & (int8)(1, 2, 4, 8, 16, 32, 64, 128);
        uint bits = (uint)(bit.s0 | bit.s1 | bit.s2 | bit.s3 | bit.s4 | bit.s5 | bit.s6 | bit.s7);
        while (bits != 0u) {
            const uint j = s + (31u - clz(bits & (0u - bits))); /* the lowest slot left */
            bits &= bits - 1u;
            const float3 sep = rb_separation(p, (float3)(sorted_x[j], sorted_y[j], sorted_z[j]));
            const float dist2 = rb_length2(sep);
            const float4 vj = sorted_vel[j];
            const uint key = as_uint(vj.w), bj = sorted_body[j];
            /* in another row, or past x + 1 of this one (x is the key's low 10 bits) */
            if ((key >> 10) != (row_key >> 10) || ((key - row_key) & 1023u) > 2u) continue;
            if (sleeping && dist2 < touch2 && dist2 > 0.0f && !rb_asleep(body_pos[bj].w, sleep_time) &&
                rb_length2(vj.xyz) > sleep_speed * sleep_speed)
                *wake = true;
            if (dist2 >= d2 || dist2 == 0.0f) continue; /* apart, or coincident with no normal */
            rb_contact_particles(sep, dist2, v, w, m, vj.xyz, body_omega[bj].xyz, body_inv_inertia[bj].w, f, t, radius,
                                 stiffness, damping, tangential, friction, dt);
        }
    }
}

__kernel void rb_forces(const uint n, __global const uint *sorted_index, __global const float4 *body_pos,
                        __global const float4 *body_omega, __global const float4 *body_inv_inertia,
                        __global const uint *table, const uint mask, __global const float *sorted_x,
                        __global const float *sorted_y, __global const float *sorted_z,
                        __global const uint *sorted_body, __global const float4 *sorted_vel, __constant float4 *planes,
                        const uint plane_count, const float inv_cell, RB_CONTACT_ARGS, const float sleep_speed,
                        const float sleep_time, __global float *force, __global float *moment,
                        __global uint *wake_body) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    const uint b = sorted_body[s];
    const float3 p = (float3)(sorted_x[s], sorted_y[s], sorted_z[s]), v = sorted_vel[s].xyz;
    const float3 w = body_omega[b].xyz;
    const float m = body_inv_inertia[b].w;
    const float4 x = body_pos[b];
    const bool sleeping = rb_asleep(x.w, sleep_time);
    bool wake = false;
    const int3 c = rb_cell_of(p, inv_cell);
    const uint buckets = mask + 1u;
    float3 f = (float3)(0.0f, 0.0f, 0.0f), t = f;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++) {
            const int3 first = (int3)(c.x - 1, c.y + dy, c.z + dz);
            const uint h = rb_cell_hash(first, mask), row_key = rb_cell_key(first);
            if (h + 3u <= buckets) {
                rb_visit_run(p, v, w, m, b, sleeping, table[h], table[h + 3u], row_key, sorted_x, sorted_y, sorted_z,
                             sorted_body, sorted_vel, body_inv_inertia, body_omega, body_pos, sleep_speed, sleep_time,
                             &wake, &f, &t, radius, stiffness, damping, tangential, friction, dt);
            } else { /* the row wraps past the table's end: its tail, then its head from bucket 0 */
                rb_visit_run(p, v, w, m, b, sleeping, table[h], table[buckets], row_key, sorted_x, sorted_y, sorted_z,
                             sorted_body, sorted_vel, body_inv_inertia, body_omega, body_pos, sleep_speed, sleep_time,
                             &wake, &f, &t, radius, stiffness, damping, tangential, friction, dt);
                rb_visit_run(p, v, w, m, b, sleeping, 0u, table[h + 3u - buckets], row_key, sorted_x, sorted_y,
                             sorted_z, sorted_body, sorted_vel, body_inv_inertia, body_omega, body_pos, sleep_speed,
                             sleep_time, &wake, &f, &t, radius, stiffness, damping, tangential, friction, dt);
            }
        }
    for (uint k = 0; k < plane_count; k++)
        rb_contact_plane(p, v, w, m, planes[k], &f, &t, radius, stiffness, damping, tangential, friction, dt);
    /* The particle's moment about the body's centre: lever x f plus the
     * contacts' moment about the particle's centre. The lever is (x + r) - x,
     * as the reference forms it from the particle's position. */
    const float3 lever = (float3)(p.x - x.x, p.y - x.y, p.z - x.z), lf = rb_cross(lever, f);
    const uint i = sorted_index[s];
    vstore3(f, i, force); /* packed xyz: 12 bytes a particle, in index order */
    vstore3((float3)(lf.x + t.x, lf.y + t.y, lf.z + t.z), i, moment);
    if (wake) wake_body[b] = 1u;
}
