/* grid.cl - stage 2: counting sort of particles by hashed cell.
 *
 * rb_hash_particles finds each particle's bucket and cell key (and stage
 * 1's values); rb_count_particles counts each bucket in `counts` (all zero
 * between steps) and gives each particle its rank among its bucket's
 * particles (the order the atomics handed out). A scan turns the counts
 * into bucket starts in `table` (exclusive prefix sum, table[table_size] =
 * the particle count, so bucket h spans [table[h], table[h + 1])) and sets
 * the counts back to zero for the next step. rb_scatter puts each particle
 * at its bucket's start plus its rank, and rb_reorder puts each bucket in
 * particle-index order, whatever order the atomics handed out, and writes
 * the particle values (stage 1) into the sorted copies the force pass
 * reads, with each slot's particle index.
 *
 * Two scans, the same result: the chunk scan, for CPUs (one work-item walks
 * a chunk of a few hundred counters: its cache lines are its own), and the
 * block scan, for GPUs (a work-group scans a block of neighbouring counters
 * in local memory, so neighbouring work-items read neighbouring words). The
 * host picks one per device (src/sim/opencl_build.c). */

/* floor(x) as an int, saturated: rb_floor_int (common.cl) written with
 * selects instead of returns, so that a loop over work-items has one path
 * and PoCL's vectorizer packs it. (The conversion of a value past the int
 * range is never selected.) Kept apart: in common.cl's, the force pass
 * counted 9 instructions a particle more (scripts/profile). */
static inline int rb_floor_int_select(const float x) {
    const int t = (int)x;
    int c = x < (float)t ? t - 1 : t;
    c = x >= 2147483520.0f ? INT_MAX : c;
    return x > -2147483520.0f ? c : INT_MIN;
}

/* rb_rotate (common.cl) of particle i's offset by its body's orientation,
 * in scalars, operation for operation; the body's at b / 4 (b: its first
 * float in body_quat): t = 2 (u x v), rel = v + w t + u x t. */
static inline void rb_rel_scalars(__global const float *body_quat, const uint b, __global const float *particle_offset,
                                  const uint i, float *rx, float *ry, float *rz) {
    const float qx = body_quat[b], qy = body_quat[b + 1u], qz = body_quat[b + 2u], qw = body_quat[b + 3u];
    const float ox = particle_offset[4u * i], oy = particle_offset[4u * i + 1u], oz = particle_offset[4u * i + 2u];
    const float tx = (qy * oz - qz * oy) * 2.0f, ty = (qz * ox - qx * oz) * 2.0f, tz = (qx * oy - qy * ox) * 2.0f;
    *rx = ox + qw * tx + (qy * tz - qz * ty);
    *ry = oy + qw * ty + (qz * tx - qx * tz);
    *rz = oz + qw * tz + (qx * ty - qy * tx);
}

/* Stage 1 for particle i, of the body whose values start at float b of
 * the body arrays: its offset from the body's centre and its velocity
 * (kept in index order, in the force and moment buffers, for rb_reorder
 * and the force pass in particle order; the force pass overwrites them
 * later in the step) and its cell key; returns its bucket. In scalars, as
 * rb_rotate, rb_point_velocity and rb_cell_of (common.cl) compute them,
 * operation for operation, with no branch: PoCL's vectorizer packs
 * work-items only where a kernel has no vector values, no branches and no
 * atomics. */
static inline uint rb_stage1(const uint i, const uint b, __global const float *particle_offset,
                             __global const float *body_pos, __global const float *body_quat,
                             __global const float *body_vel, __global const float *body_omega, const float inv_cell,
                             const uint mask, __global uint *particle_key, __global float *particle_rel,
                             __global float *particle_vel, const uint stride_z, const uint stride_y) {
    float rx, ry, rz;
    rb_rel_scalars(body_quat, b, particle_offset, i, &rx, &ry, &rz);
    particle_rel[3u * i] = rx, particle_rel[3u * i + 1u] = ry, particle_rel[3u * i + 2u] = rz;
    /* rb_point_velocity: V + omega x rel */
    const float wx = body_omega[b], wy = body_omega[b + 1u], wz = body_omega[b + 2u];
    particle_vel[3u * i] = body_vel[b] + (wy * rz - wz * ry);
    particle_vel[3u * i + 1u] = body_vel[b + 1u] + (wz * rx - wx * rz);
    particle_vel[3u * i + 2u] = body_vel[b + 2u] + (wx * ry - wy * rx);
    const int cx = rb_floor_int_select((body_pos[b] + rx) * inv_cell),
              cy = rb_floor_int_select((body_pos[b + 1u] + ry) * inv_cell),
              cz = rb_floor_int_select((body_pos[b + 2u] + rz) * inv_cell);
    particle_key[i] = rb_cell_key(cx, cy, cz);
    return rb_cell_hash(cx, cy, cz, stride_z, stride_y, mask);
}

/* Stage 1 and the bucket, for CPUs: the count is the next kernel's
 * (rb_count_particles), and the host clears the wake flags (src/sim/opencl.c,
 * clear_wake), so that this loop over work-items vectorizes. */
__kernel void rb_hash_particles(__global const float *particle_offset, __global const uint *particle_body,
                                __global const float *body_pos, __global const float *body_quat,
                                __global const float *body_vel, __global const float *body_omega, const float inv_cell,
                                const uint mask, __global uint *particle_hash, __global uint *particle_key,
                                __global float *particle_rel, __global float *particle_vel, const uint stride_z,
                                const uint stride_y) {
    /* No test of i against n: the work-items past the last particle, to
     * the end of their work-group, compute the padding's values (the host
     * pads the particle arrays to whole work-groups, the padding's bodies
     * 0: src/sim/opencl.c), so the loop over work-items has no branch and
     * consecutive work-items access consecutive words: it vectorizes. */
    const uint i = get_global_id(0);
    particle_hash[i] = rb_stage1(i, 4u * particle_body[i], particle_offset, body_pos, body_quat, body_vel, body_omega,
                                 inv_cell, mask, particle_key, particle_rel, particle_vel, stride_z, stride_y);
}

/* The count of each bucket in `counts` (all zero between steps), and each
 * particle's rank among its bucket's particles (the order the atomics
 * handed out). Where `on` (this step leaves resting bodies far from
 * running ones out: far.cl), a particle of a body rb_mark_far found far
 * gets the hash RB_FAR_HASH instead, and no bucket. */
#define RB_FAR_HASH 0xffffffffu
__kernel void rb_count_particles(const uint n, __global uint *particle_hash, volatile __global uint *counts,
                                 __global uint *rank, const uint on, __global const uint *particle_body,
                                 __global const uint *body_far) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    if (on && body_far[particle_body[i]])
        particle_hash[i] = RB_FAR_HASH;
    else
        rank[i] = atomic_inc(&counts[particle_hash[i]]);
}

/* Both in one, for GPUs (a launch fewer); a body's first particle also
 * clears the body's wake flag for this step's force pass. */
__kernel void rb_hash_count(const uint n, __global const float *particle_offset, __global const uint *particle_body,
                            __global const float *body_pos, __global const float *body_quat,
                            __global const float *body_vel, __global const float *body_omega, const float inv_cell,
                            const uint mask, __global uint *particle_hash, __global uint *particle_key,
                            __global float *particle_rel, __global float *particle_vel, const uint stride_z,
                            const uint stride_y, volatile __global uint *counts, __global uint *rank,
                            __global uint *wake) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const uint b = particle_body[i];
    if (i == 0 || particle_body[i - 1] != b) wake[b] = 0u;
    const uint h = rb_stage1(i, 4u * b, particle_offset, body_pos, body_quat, body_vel, body_omega, inv_cell, mask,
                             particle_key, particle_rel, particle_vel, stride_z, stride_y);
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
    const uint h = particle_hash[i];
    if (h != RB_FAR_HASH) members[table[h] + rank[i]] = i;
}

/* Stage 1 into sorted order: particle i goes to its bucket's start plus the
 * number of the bucket's particles with a smaller index (buckets hold a few
 * particles, so counting is cheaper than sorting). Positions and bodies are
 * stored one array a coordinate, for the force pass's vector loads;
 * sorted_vel.w carries the cell key (rb_cell_key), as the hash pass
 * stored it. */
static inline void rb_reorder_particle(const uint i, __global const uint *particle_body,
                                       __global const float4 *body_pos, __global const float *particle_rel,
                                       __global const float *particle_vel, __global const uint *particle_hash,
                                       __global const uint *table, __global const uint *members,
                                       __global const uint *particle_key, __global float *sorted_x,
                                       __global float *sorted_y, __global float *sorted_z, __global uint *sorted_body,
                                       __global float4 *sorted_vel, __global uint *sorted_index) {
    const uint h = particle_hash[i], start = table[h], end = table[h + 1];
    /* eight members at a time (the members are padded by eight), the lanes
     * past the bucket's end masked: a bucket holds a few particles, and a
     * loop of one member a turn mispredicted its end about 0.7 times a
     * particle (callgrind's branch simulation, pile 3000 of cube2) */
    uint slot = start;
    for (uint s = start; s < end; s += 8u) {
        const int8 before = (vload8(0, members + s) < (uint8)(i)) & ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int)(end - s));
        const int4 quarter = before.lo + before.hi; /* each lane -1 or 0 */
        const int2 two = quarter.lo + quarter.hi;
        slot -= (uint)(two.x + two.y);
    }
    const uint b = particle_body[i];
    const float4 x = body_pos[b];
    const float3 rel = vload3(i, particle_rel);
    const float3 p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    sorted_x[slot] = p.x;
    sorted_y[slot] = p.y;
    sorted_z[slot] = p.z;
    sorted_body[slot] = b;
    sorted_vel[slot] = (float4)(vload3(i, particle_vel), as_float(particle_key[i]));
    sorted_index[slot] = i;
}

/* One work-item a particle, in index order: the particle's values are read
 * in order and written to scattered slots. Faster on a CPU, where the
 * writes are cached. */
__kernel void rb_reorder(const uint n, __global const uint *particle_body, __global const float4 *body_pos,
                         __global const float *particle_rel, __global const float *particle_vel,
                         __global const uint *particle_hash, __global const uint *table, __global const uint *members,
                         __global const uint *particle_key, __global float *sorted_x, __global float *sorted_y,
                         __global float *sorted_z, __global uint *sorted_body, __global float4 *sorted_vel,
                         __global uint *sorted_index) {
    const uint i = get_global_id(0);
    if (i >= n || particle_hash[i] == RB_FAR_HASH) return; /* left out of the grid (far.cl) */
    rb_reorder_particle(i, particle_body, body_pos, particle_rel, particle_vel, particle_hash, table, members,
                        particle_key, sorted_x, sorted_y, sorted_z, sorted_body, sorted_vel, sorted_index);
}

/* The same, one work-item a slot of members: each writes within its own
 * bucket, so neighbouring work-items write neighbouring slots and a GPU
 * merges the writes; the reads of the particles' values are scattered. */
__kernel void rb_reorder_slots(const uint n, __global const uint *particle_body, __global const float4 *body_pos,
                               __global const float *particle_rel, __global const float *particle_vel,
                               __global const uint *particle_hash, __global const uint *table,
                               __global const uint *members, __global const uint *particle_key,
                               __global float *sorted_x, __global float *sorted_y, __global float *sorted_z,
                               __global uint *sorted_body, __global float4 *sorted_vel, __global uint *sorted_index) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    rb_reorder_particle(members[s], particle_body, body_pos, particle_rel, particle_vel, particle_hash, table, members,
                        particle_key, sorted_x, sorted_y, sorted_z, sorted_body, sorted_vel, sorted_index);
}

/* Particle world positions in index order, for read-back (not part of a
 * step); in scalars, into the padding too, as rb_hash_particles. */
__kernel void rb_particle_positions(__global const float *particle_offset, __global const uint *particle_body,
                                    __global const float *body_pos, __global const float *body_quat,
                                    __global float *out) {
    const uint i = get_global_id(0);
    const uint b = 4u * particle_body[i];
    float rx, ry, rz;
    rb_rel_scalars(body_quat, b, particle_offset, i, &rx, &ry, &rz);
    out[3u * i] = body_pos[b] + rx;
    out[3u * i + 1u] = body_pos[b + 1u] + ry;
    out[3u * i + 2u] = body_pos[b + 2u] + rz;
}
