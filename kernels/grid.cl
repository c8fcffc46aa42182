/* grid.cl - stage 2: counting sort of particles by hashed cell.
 *
 * rb_hash_particles counts each bucket in `counts` (all zero between steps)
 * and gives each particle its rank among its bucket's particles (the order
 * the atomics handed out). A scan turns the counts into bucket starts in
 * `table` (exclusive prefix sum, table[table_size] = the particle count, so
 * bucket h spans [table[h], table[h + 1])) and sets the counts back to zero
 * for the next step. rb_scatter puts each particle at its bucket's start
 * plus its rank, and rb_reorder puts each bucket in particle-index order,
 * whatever order the atomics handed out, and writes the particle values
 * (stage 1) into the sorted copies the force pass reads, with each slot's
 * particle index.
 *
 * Two scans, the same result: the chunk scan, for CPUs (one work-item walks
 * a chunk of a few hundred counters: its cache lines are its own), and the
 * block scan, for GPUs (a work-group scans a block of neighbouring counters
 * in local memory, so neighbouring work-items read neighbouring words). The
 * host picks one per device (src/sim/opencl.c). */

/* Stage 1 and the count: every particle's offset from its body's centre
 * and velocity (kept in index order for rb_reorder, in the force and moment
 * buffers, which the force pass overwrites later in the step), its bucket,
 * and the count of each bucket. A body's first particle also clears the
 * body's wake flag for this step's force pass. */
__kernel void rb_hash_particles(const uint n, __global const float4 *particle_offset,
                                __global const uint *particle_body, __global const float4 *body_pos,
                                __global const float4 *body_quat, __global const float4 *body_vel,
                                __global const float4 *body_omega, const float inv_cell, const uint mask,
                                __global uint *particle_hash, volatile __global uint *counts, __global uint *rank,
                                __global uint *wake, __global float *particle_rel, __global float *particle_vel,
                                const uint stride_z, const uint stride_y) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    if (i == 0 || particle_body[i - 1] != b) wake[b] = 0u;
    const float4 x = body_pos[b];
    const float3 rel = rb_particle_rel(body_quat[b], particle_offset[i]);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    vstore3(rel, i, particle_rel);
    vstore3(rb_point_velocity(body_vel[b], body_omega[b], rel), i, particle_vel);
    const uint h = rb_cell_hash(rb_cell_of(p, inv_cell), stride_z, stride_y, mask);
    particle_hash[i] = h;
    rank[i] = atomic_inc(&counts[h]);
}

/* ---- the chunk scan ---- */

/* Pass 1: the sum of each chunk of chunk_size counters, summed sequentially
 * by one work-item. */
__kernel void rb_scan_chunk_sums(__global const uint *counts, const uint chunk_size, const uint chunk_count,
                                 __global uint *chunk_sums) {
    const uint c = get_global_id(0);
    if (c >= chunk_count) return;
    __global const uint *t = counts + c * chunk_size;
    uint sum = 0;
    for (uint k = 0; k < chunk_size; k++) sum += t[k];
    chunk_sums[c] = sum;
}

/* Pass 2 (one work-item): exclusive prefix sum of the chunk sums, and the
 * table's last entry, table[table_size] = the particle count. */
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

/* Pass 3: each chunk's starts from its offset; its counts back to zero. */
__kernel void rb_scan_chunks(__global uint *counts, const uint chunk_size, const uint chunk_count,
                             __global const uint *chunk_sums, __global uint *table) {
    const uint c = get_global_id(0);
    if (c >= chunk_count) return;
    __global uint *t = counts + c * chunk_size, *out = table + c * chunk_size;
    uint sum = chunk_sums[c];
    for (uint k = 0; k < chunk_size; k++) {
        out[k] = sum;
        sum += t[k];
        t[k] = 0u;
    }
}

/* ---- the block scan ----
 *
 * A block is RB_SCAN_GROUP x 4 counters: work-item l of the block's group
 * holds counters 4l .. 4l + 3, read as one uint4, so the group reads the
 * block in one coalesced sweep. */
#ifndef RB_SCAN_GROUP
#define RB_SCAN_GROUP 256
#endif

/* Exclusive prefix sum of x over the work-group (Hillis and Steele: log2 of
 * the group size rounds of adds in local memory), and the group's total in
 * *total. Every work-item of the group must call it. */
static uint rb_group_scan(const uint x, __local uint *tmp, uint *total) {
    const uint l = get_local_id(0), size = get_local_size(0);
    tmp[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < size; d *= 2) {
        const uint add = l >= d ? tmp[l - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[l] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint inclusive = tmp[l];
    *total = tmp[size - 1];
    barrier(CLK_LOCAL_MEM_FENCE); /* tmp may be used again at once */
    return inclusive - x;
}

/* Pass 1: each block's sum. */
__kernel __attribute__((reqd_work_group_size(RB_SCAN_GROUP, 1, 1))) void rb_scan_block_sums(__global const uint *counts,
                                                                                            __global uint *block_sums) {
    __local uint tmp[RB_SCAN_GROUP];
    const uint4 c = vload4(get_global_id(0), counts);
    uint total;
    rb_group_scan(c.x + c.y + c.z + c.w, tmp, &total);
    if (get_local_id(0) == 0) block_sums[get_group_id(0)] = total;
}

/* Pass 2 (one work-group, of any power-of-two size): exclusive prefix sum of
 * the block sums, a tile of 4 x the group size at a time, and
 * table[table_size] = the particle count. */
__kernel void rb_scan_block_offsets(__global uint *block_sums, const uint block_count, __global uint *table,
                                    const uint table_size, __local uint *tmp) {
    const uint l = get_local_id(0), tile = 4u * get_local_size(0);
    uint carry = 0;
    for (uint base = 0; base < block_count; base += tile) {
        const uint k = base + 4u * l;
        uint4 s = (uint4)(0u, 0u, 0u, 0u);
        if (k + 3u < block_count)
            s = vload4(0, block_sums + k);
        else if (k < block_count) { /* only where the block count is not a multiple of 4 */
            s.x = block_sums[k];
            if (k + 1u < block_count) s.y = block_sums[k + 1u];
            if (k + 2u < block_count) s.z = block_sums[k + 2u];
        }
        uint total;
        const uint start = carry + rb_group_scan(s.x + s.y + s.z + s.w, tmp, &total);
        const uint4 out = (uint4)(start, start + s.x, start + s.x + s.y, start + s.x + s.y + s.z);
        if (k + 3u < block_count)
            vstore4(out, 0, block_sums + k);
        else if (k < block_count) {
            block_sums[k] = out.x;
            if (k + 1u < block_count) block_sums[k + 1u] = out.y;
            if (k + 2u < block_count) block_sums[k + 2u] = out.z;
        }
        carry += total;
    }
    if (l == 0) table[table_size] = carry;
}

/* Pass 3: each block's starts from its offset; its counts back to zero. */
__kernel __attribute__((reqd_work_group_size(RB_SCAN_GROUP, 1, 1))) void
rb_scan_blocks(__global uint *counts, __global const uint *block_sums, __global uint *table) {
    __local uint tmp[RB_SCAN_GROUP];
    const uint g = get_global_id(0);
    const uint4 c = vload4(g, counts);
    vstore4((uint4)(0u, 0u, 0u, 0u), g, counts);
    uint total;
    const uint start = block_sums[get_group_id(0)] + rb_group_scan(c.x + c.y + c.z + c.w, tmp, &total);
    vstore4((uint4)(start, start + c.x, start + c.x + c.y, start + c.x + c.y + c.z), g, table);
}

/* A slot in its bucket for every particle: its bucket's start plus its rank. */
__kernel void rb_scatter(const uint n, __global const uint *particle_hash, __global const uint *rank,
                         __global const uint *table, __global uint *members) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    members[table[particle_hash[i]] + rank[i]] = i;
}

/* Stage 1 into sorted order: particle i goes to its bucket's start plus the
 * number of the bucket's particles with a smaller index (buckets hold a few
 * particles, so counting is cheaper than sorting). Positions and bodies are
 * stored one array a coordinate, for the force pass's vector loads;
 * sorted_vel.w carries the cell key (rb_cell_key). */
static inline void rb_reorder_particle(const uint i, __global const uint *particle_body,
                                       __global const float4 *body_pos, __global const float *particle_rel,
                                       __global const float *particle_vel, __global const uint *particle_hash,
                                       __global const uint *table, __global const uint *members, const float inv_cell,
                                       __global float *sorted_x, __global float *sorted_y, __global float *sorted_z,
                                       __global uint *sorted_body, __global float4 *sorted_vel,
                                       __global uint *sorted_index) {
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

/* One work-item a particle, in index order: the particle's values are read
 * in order and written to scattered slots. Faster on a CPU, where the
 * writes are cached. */
__kernel void rb_reorder(const uint n, __global const uint *particle_body, __global const float4 *body_pos,
                         __global const float *particle_rel, __global const float *particle_vel,
                         __global const uint *particle_hash, __global const uint *table, __global const uint *members,
                         const float inv_cell, __global float *sorted_x, __global float *sorted_y,
                         __global float *sorted_z, __global uint *sorted_body, __global float4 *sorted_vel,
                         __global uint *sorted_index) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    rb_reorder_particle(i, particle_body, body_pos, particle_rel, particle_vel, particle_hash, table, members, inv_cell,
                        sorted_x, sorted_y, sorted_z, sorted_body, sorted_vel, sorted_index);
}

/* The same, one work-item a slot of members: each writes within its own
 * bucket, so neighbouring work-items write neighbouring slots and a GPU
 * merges the writes; the reads of the particles' values are scattered. */
__kernel void rb_reorder_slots(const uint n, __global const uint *particle_body, __global const float4 *body_pos,
                               __global const float *particle_rel, __global const float *particle_vel,
                               __global const uint *particle_hash, __global const uint *table,
                               __global const uint *members, const float inv_cell, __global float *sorted_x,
                               __global float *sorted_y, __global float *sorted_z, __global uint *sorted_body,
                               __global float4 *sorted_vel, __global uint *sorted_index) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    rb_reorder_particle(members[s], particle_body, body_pos, particle_rel, particle_vel, particle_hash, table, members,
                        inv_cell, sorted_x, sorted_y, sorted_z, sorted_body, sorted_vel, sorted_index);
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
