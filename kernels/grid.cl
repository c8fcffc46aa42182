/* grid.cl - stage 2: counting sort of particles by hashed cell.
 *
 * The table holds table_size + 1 counters. rb_hash_particles counts each
 * bucket, the three scan kernels turn counts into bucket ends (inclusive
 * prefix sum), rb_scatter hands out slots by decrementing the ends (so each
 * counter ends as its bucket's start and bucket h spans [table[h],
 * table[h + 1])), and rb_reorder puts each bucket in particle-index order,
 * whatever order the atomics handed out, and writes the particle values
 * (stage 1) into the sorted copies the force pass reads, with each slot's
 * particle index. */

/* Stage 1 and the count: every particle's offset from its body's centre
 * and velocity (kept in index order for rb_reorder, in the force and moment
 * buffers, which the force pass overwrites later in the step), its bucket,
 * and the count of each bucket. A body's first particle also clears the
 * body's wake flag for this step's force pass. */
__kernel void rb_hash_particles(const uint n, __global const float4 *particle_offset,
                                __global const uint *particle_body, __global const float4 *body_pos,
                                __global const float4 *body_quat, __global const float4 *body_vel,
                                __global const float4 *body_omega, const float inv_cell, const uint mask,
                                __global uint *particle_hash, volatile __global uint *table, __global uint *wake,
                                __global float *particle_rel, __global float *particle_vel) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    if (i == 0 || particle_body[i - 1] != b) wake[b] = 0u;
    const float4 x = body_pos[b];
    const float3 rel = rb_particle_rel(body_quat[b], particle_offset[i]);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    vstore3(rel, i, particle_rel);
    vstore3(rb_point_velocity(body_vel[b], body_omega[b], rel), i, particle_vel);
    const uint h = rb_cell_hash(rb_cell_of(p, inv_cell), mask);
    particle_hash[i] = h;
    atomic_inc(&table[h]);
}

/* Scan, pass 1: the sum of each chunk of chunk_size counters. Chunks are
 * summed sequentially by one work-item: cheap on a CPU, correct anywhere. */
__kernel void rb_scan_chunk_sums(__global const uint *table, const uint chunk_size, const uint chunk_count,
                                 __global uint *chunk_sums) {
    const uint c = get_global_id(0);
    if (c >= chunk_count) return;
    __global const uint *t = table + c * chunk_size;
    uint sum = 0;
    for (uint k = 0; k < chunk_size; k++) sum += t[k];
    chunk_sums[c] = sum;
}

/* Scan, pass 2 (one work-item): exclusive prefix sum of the chunk sums, and
 * the table's last entry, table[table_size] = the particle count. */
__kernel void rb_scan_chunk_offsets(__global uint *chunk_sums, const uint chunk_count, __global uint *table,
                                    const uint table_size) {
    if (get_global_id(0) != 0) return;
    uint sum = 0;
    for (uint c = 0; c < chunk_count; c++) {
        const uint s = chunk_sums[c];
        chunk_sums[c] = sum;
        sum += s;
    }
    table[table_size] = sum;
}

/* Scan, pass 3: inclusive prefix sum inside each chunk, from its offset. */
__kernel void rb_scan_chunks(__global uint *table, const uint chunk_size, const uint chunk_count,
                             __global const uint *chunk_sums) {
    const uint c = get_global_id(0);
    if (c >= chunk_count) return;
    __global uint *t = table + c * chunk_size;
    uint sum = chunk_sums[c];
    for (uint k = 0; k < chunk_size; k++) {
        sum += t[k];
        t[k] = sum;
    }
}

/* A slot in its bucket for every particle, in no particular order. */
__kernel void rb_scatter(const uint n, __global const uint *particle_hash, volatile __global uint *table,
                         __global uint *members) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint slot = atomic_dec(&table[particle_hash[i]]) - 1u;
    members[slot] = i;
}

/* Stage 1 into sorted order: particle i goes to its bucket's start plus the
 * number of the bucket's particles with a smaller index (buckets hold a few
 * particles, so counting is cheaper than sorting). Positions and bodies are
 * stored one array a coordinate, for the force pass's vector loads;
 * sorted_vel.w carries the cell key (rb_cell_key). (Run in slot order
 * instead, so that the writes stay together, it was slower on PoCL: the
 * particle reads scatter.) */
__kernel void rb_reorder(const uint n, __global const uint *particle_body, __global const float4 *body_pos,
                         __global const float *particle_rel, __global const float *particle_vel,
                         __global const uint *particle_hash, __global const uint *table, __global const uint *members,
                         const float inv_cell, __global float *sorted_x, __global float *sorted_y,
                         __global float *sorted_z, __global uint *sorted_body, __global float4 *sorted_vel,
                         __global uint *sorted_index) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint h = particle_hash[i], start = table[h], end = table[h + 1];
    uint slot = start;
    for (uint s = start; s < end; s++) slot += members[s] < i ? 1u : 0u;
    const uint b = particle_body[i];
    const float4 x = body_pos[b];
    const float3 rel = vload3(i, particle_rel);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    sorted_x[slot] = p.x;
    sorted_y[slot] = p.y;
    sorted_z[slot] = p.z;
    sorted_body[slot] = b;
    sorted_vel[slot] = (float4)(vload3(i, particle_vel), as_float(rb_cell_key(rb_cell_of(p, inv_cell))));
    sorted_index[slot] = i;
}

/* Particle world positions in index order, for read-back (not part of a step). */
__kernel void rb_particle_positions(const uint n, __global const float4 *particle_offset,
                                    __global const uint *particle_body, __global const float4 *body_pos,
                                    __global const float4 *body_quat, __global float *out) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    const float4 x = body_pos[b];
    const float3 rel = rb_particle_rel(body_quat[b], particle_offset[i]);
    vstore3((float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z), i, out);
}
