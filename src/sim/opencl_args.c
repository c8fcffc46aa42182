/* opencl_args.c - every kernel's arguments, for the OpenCL backend
 * (opencl.c): the buffers in the order each kernel in kernels/ takes them,
 * the step's parameters, and the small tables the kernels read (the planes,
 * the pair table). */
#include <string.h>

#include "contact.h"
#include "opencl.h"
#include "opencl_backend.h"

/* The kernels' entry points in kernels/, by K_*. */
const char *const rb_ocl_kernel_entry[K_COUNT] = {
    [K_HASH] = "rb_hash_particles",
    [K_COUNT_PARTICLES] = "rb_count_particles",
    [K_HASH_COUNT] = "rb_hash_count",
    [K_CHUNK_SUMS] = "rb_scan_chunk_sums",
    [K_CHUNK_OFFSETS] = "rb_scan_chunk_offsets",
    [K_CHUNKS] = "rb_scan_chunks",
    [K_BLOCK_SUMS] = "rb_scan_block_sums",
    [K_BLOCK_OFFSETS] = "rb_scan_block_offsets",
    [K_BLOCKS] = "rb_scan_blocks",
    [K_SCATTER] = "rb_scatter",
    [K_REORDER] = "rb_reorder",
    [K_REORDER_SLOTS] = "rb_reorder_slots",
    [K_FORCES] = "rb_forces",
    [K_SUM_BODIES] = "rb_sum_bodies",
    [K_INTEGRATE] = "rb_integrate",
    [K_STAMP_NEAR] = "rb_stamp_near",
    [K_MARK_FAR] = "rb_mark_far",
    [K_POSITIONS] = "rb_particle_positions",
    [K_PIECES] = "rb_piece_loads",
    [K_JOINTS] = "rb_joint_forces",
    [K_JOINT_LOADS] = "rb_joint_loads",
};

/* Sets one kernel argument; returns false (logged) with the kernel and index. */
static bool arg(ocl *o, int k, cl_uint index, size_t size, const void *value) {
    cl_int e = clSetKernelArg(o->kernels[k], index, size, value);
    if (e == CL_SUCCESS) return true;
    rb_log(RB_LOG_ERROR, "OpenCL: clSetKernelArg(%s, %u) failed: %s (%d)", rb_ocl_kernel_entry[k], index,
           rb_opencl_error_name(e), e);
    return false;
}

#define ARG_MEM(k, i, b) arg(o, k, i, sizeof(cl_mem), &o->buf.b.mem)
#define ARG_VAL(k, i, v) arg(o, k, i, sizeof(v), &(v))

bool rb_ocl_set_args(ocl *o, const rb_step_params *p, cl_uint commit) {
    const cl_uint n = o->particle_count, bodies = o->body_count, mask = o->table_size - 1u;
    const cl_uint table_size = o->table_size, chunk_size = o->chunk_size, chunk_count = o->chunk_count;
    const cl_uint block_count = o->block_count;
    const cl_uint plane_count = p->plane_count;
    const cl_float inv_cell = rb_grid_inv_cell(p->max_radius); /* as the reference computes it */
    const cl_float max_radius = p->max_radius, dt = p->dt;
    const cl_float sleep_speed = p->sleep_speed, sleep_time = p->sleep_time, wake_accel = p->wake_accel;
    const cl_uint rest = p->rest_sleepers; /* resting sleepers (world_internal.h) */
    const cl_float support_keep = p->support_keep;
    const cl_uint by_particle = o->gpu_kernels ? 0u : 1u;
    /* How far past its own radius the force pass looks for partners
     * (forces.cl): the world's bound (rb_cl_slot_reach), as of the upload. */
    const cl_float slot_reach = o->slot_reach;
    const cl_float4 gravity = {{p->gravity[0], p->gravity[1], p->gravity[2], 0.0f}};
    bool ok = true;

    /* rb_hash_particles and rb_count_particles on CPUs, rb_hash_count on GPUs (grid.cl) */
    const int kh = o->gpu_kernels ? K_HASH_COUNT : K_HASH, h0 = o->gpu_kernels ? 1 : 0; /* rb_hash_count: n first */
    ok = ok && (!o->gpu_kernels || ARG_VAL(kh, 0, n)) && ARG_MEM(kh, h0 + 0, particle_offset) &&
         ARG_MEM(kh, h0 + 1, particle_body) && ARG_MEM(kh, h0 + 2, body_pos) && ARG_MEM(kh, h0 + 3, body_quat) &&
         ARG_MEM(kh, h0 + 4, body_vel) && ARG_MEM(kh, h0 + 5, body_omega) && ARG_VAL(kh, h0 + 6, inv_cell) &&
         ARG_VAL(kh, h0 + 7, mask) && ARG_MEM(kh, h0 + 8, particle_hash) && ARG_MEM(kh, h0 + 9, particle_key) &&
         ARG_MEM(kh, h0 + 10, force) && ARG_MEM(kh, h0 + 11, moment) && /* scratch until the force pass */
         ARG_VAL(kh, h0 + 12, o->stride_z) && ARG_VAL(kh, h0 + 13, o->stride_y);
    if (o->gpu_kernels)
        ok = ok && ARG_MEM(kh, 15, counts) && ARG_MEM(kh, 16, sorted_index) && /* the ranks, until rb_reorder */
             ARG_MEM(kh, 17, wake);
    else
        ok = ok && ARG_VAL(K_COUNT_PARTICLES, 0, n) && ARG_MEM(K_COUNT_PARTICLES, 1, particle_hash) &&
             ARG_MEM(K_COUNT_PARTICLES, 2, counts) && ARG_MEM(K_COUNT_PARTICLES, 3, sorted_index);

    if (o->gpu_kernels) {
        ok = ok && ARG_MEM(K_BLOCK_SUMS, 0, counts) && ARG_MEM(K_BLOCK_SUMS, 1, scan_sums);
        ok = ok && ARG_MEM(K_BLOCK_OFFSETS, 0, scan_sums) && ARG_VAL(K_BLOCK_OFFSETS, 1, block_count) &&
             ARG_MEM(K_BLOCK_OFFSETS, 2, table) && ARG_VAL(K_BLOCK_OFFSETS, 3, table_size) &&
             arg(o, K_BLOCK_OFFSETS, 4, o->offsets_group * sizeof(cl_uint), NULL);
        ok = ok && ARG_MEM(K_BLOCKS, 0, counts) && ARG_MEM(K_BLOCKS, 1, scan_sums) && ARG_MEM(K_BLOCKS, 2, table);
    } else {
        ok = ok && ARG_MEM(K_CHUNK_SUMS, 0, counts) && ARG_VAL(K_CHUNK_SUMS, 1, chunk_size) &&
             ARG_VAL(K_CHUNK_SUMS, 2, chunk_count) && ARG_MEM(K_CHUNK_SUMS, 3, scan_sums);
        ok = ok && ARG_MEM(K_CHUNK_OFFSETS, 0, scan_sums) && ARG_VAL(K_CHUNK_OFFSETS, 1, chunk_count) &&
             ARG_MEM(K_CHUNK_OFFSETS, 2, table) && ARG_VAL(K_CHUNK_OFFSETS, 3, table_size);
        ok = ok && ARG_MEM(K_CHUNKS, 0, counts) && ARG_VAL(K_CHUNKS, 1, chunk_size) &&
             ARG_VAL(K_CHUNKS, 2, chunk_count) && ARG_MEM(K_CHUNKS, 3, scan_sums) && ARG_MEM(K_CHUNKS, 4, table);
    }

    ok = ok && ARG_VAL(K_SCATTER, 0, n) && ARG_MEM(K_SCATTER, 1, particle_hash) &&
         ARG_MEM(K_SCATTER, 2, sorted_index) && ARG_MEM(K_SCATTER, 3, table) && ARG_MEM(K_SCATTER, 4, members);

    const int kr = rb_ocl_reorder_kernel(o);
    ok = ok && ARG_VAL(kr, 0, n) && ARG_MEM(kr, 1, particle_body) && ARG_MEM(kr, 2, body_pos) &&
         ARG_MEM(kr, 3, force) && ARG_MEM(kr, 4, moment) && ARG_MEM(kr, 5, particle_hash) && ARG_MEM(kr, 6, table) &&
         ARG_MEM(kr, 7, members) && ARG_MEM(kr, 8, particle_key) && ARG_MEM(kr, 9, sorted_x) &&
         ARG_MEM(kr, 10, sorted_y) && ARG_MEM(kr, 11, sorted_z) && ARG_MEM(kr, 12, sorted_body) &&
         ARG_MEM(kr, 13, sorted_vel) && ARG_MEM(kr, 14, sorted_index);

    /* Resting bodies far from running ones (far.cl), on the CPU kernels:
     * a step's stamp is set at its launch (opencl.c, enqueue_far). */
    if (!o->gpu_kernels) {
        /* a quarter of the bodies asleep at the last look: fewer leave too few out to pay for the stamps */
        o->far_on = rest && commit && 4u * (uint64_t)o->sleepers_seen >= o->body_count && o->sleepers_seen ? 1u : 0u;
        const cl_float far_reach = p->max_radius + slot_reach, reach_body = o->reach_body;
        const cl_float inv_coarse = o->inv_coarse;
        const cl_uint coarse_mask = o->coarse_size - 1u;
        const int kc = K_COUNT_PARTICLES, ks = K_STAMP_NEAR, km = K_MARK_FAR;
        ok = ok && ARG_VAL(kc, 4, o->far_on) && ARG_MEM(kc, 5, particle_body) && ARG_MEM(kc, 6, body_far);
        ok = ok && ARG_VAL(ks, 0, bodies) && ARG_MEM(ks, 1, body_pos) && ARG_MEM(ks, 2, body_vel) &&
             ARG_MEM(ks, 3, body_omega) && ARG_MEM(ks, 4, body_kind) && ARG_MEM(ks, 5, body_run) &&
             ARG_MEM(ks, 6, body_reach) && ARG_VAL(ks, 7, sleep_time) && ARG_VAL(ks, 8, far_reach) &&
             ARG_VAL(ks, 9, reach_body) && ARG_VAL(ks, 10, dt) && ARG_VAL(ks, 11, inv_coarse) &&
             ARG_VAL(ks, 12, coarse_mask) && ARG_VAL(ks, 13, o->far_stamp) && ARG_MEM(ks, 14, coarse) &&
             ARG_MEM(ks, 15, far_all);
        ok = ok && ARG_VAL(km, 0, bodies) && ARG_MEM(km, 1, body_pos) && ARG_MEM(km, 2, body_kind) &&
             ARG_MEM(km, 3, body_run) && ARG_VAL(km, 4, sleep_time) && ARG_VAL(km, 5, inv_coarse) &&
             ARG_VAL(km, 6, coarse_mask) && ARG_VAL(km, 7, o->far_stamp) && ARG_MEM(km, 8, coarse) &&
             ARG_MEM(km, 9, far_all) && ARG_MEM(km, 10, body_far) && ARG_MEM(km, 11, far_count);
    }

    ok = ok && ARG_VAL(K_FORCES, 0, n) && ARG_MEM(K_FORCES, 1, sorted_index) && ARG_MEM(K_FORCES, 2, body_pos) &&
         ARG_MEM(K_FORCES, 3, body_omega) && ARG_MEM(K_FORCES, 4, body_inv_inertia) && ARG_MEM(K_FORCES, 5, table) &&
         ARG_VAL(K_FORCES, 6, mask) && ARG_MEM(K_FORCES, 7, sorted_x) && ARG_MEM(K_FORCES, 8, sorted_y) &&
         ARG_MEM(K_FORCES, 9, sorted_z) && ARG_MEM(K_FORCES, 10, sorted_body) && ARG_MEM(K_FORCES, 11, sorted_vel) &&
         ARG_MEM(K_FORCES, 12, planes) && ARG_VAL(K_FORCES, 13, plane_count) && ARG_VAL(K_FORCES, 14, inv_cell) &&
         ARG_MEM(K_FORCES, 15, body_material) && ARG_MEM(K_FORCES, 16, rates) && ARG_MEM(K_FORCES, 17, body_contact) &&
         ARG_VAL(K_FORCES, 18, max_radius) && ARG_VAL(K_FORCES, 19, dt) && ARG_VAL(K_FORCES, 20, sleep_speed) &&
         ARG_VAL(K_FORCES, 21, sleep_time) && ARG_MEM(K_FORCES, 22, force) && ARG_MEM(K_FORCES, 23, moment) &&
         ARG_MEM(K_FORCES, 24, wake) && ARG_VAL(K_FORCES, 25, o->stride_z) && ARG_VAL(K_FORCES, 26, o->stride_y) &&
         ARG_MEM(K_FORCES, 27, body_frame) && ARG_MEM(K_FORCES, 28, keys) && ARG_MEM(K_FORCES, 29, disp) &&
         ARG_MEM(K_FORCES, 30, support) && ARG_MEM(K_FORCES, 31, overflow) && ARG_VAL(K_FORCES, 32, commit) &&
         ARG_MEM(K_FORCES, 33, particle_body) && ARG_VAL(K_FORCES, 34, by_particle) && ARG_MEM(K_FORCES, 35, roll) &&
         ARG_MEM(K_FORCES, 36, rolling) && ARG_VAL(K_FORCES, 37, o->slots) && ARG_MEM(K_FORCES, 38, body_quat) &&
         ARG_MEM(K_FORCES, 39, particle_offset) && ARG_VAL(K_FORCES, 40, slot_reach) &&
         ARG_MEM(K_FORCES, 41, particle_hash) && ARG_MEM(K_FORCES, 42, particle_key) &&
         ARG_MEM(K_FORCES, 43, body_run) && ARG_MEM(K_FORCES, 44, body_near) && ARG_VAL(K_FORCES, 45, rest) &&
         ARG_MEM(K_FORCES, 46, sleepers);

    const int k_sums = K_SUM_BODIES, k_int = K_INTEGRATE;
    ok = ok && ARG_VAL(k_sums, 0, bodies) && ARG_MEM(k_sums, 1, body_first_particle) && ARG_MEM(k_sums, 2, force) &&
         ARG_MEM(k_sums, 3, moment) && ARG_MEM(k_sums, 4, body_pos) && ARG_MEM(k_sums, 5, body_vel) &&
         (o->joint_count ? ARG_MEM(k_sums, 6, load_force) && ARG_MEM(k_sums, 7, load_torque)
                         : ARG_MEM(k_sums, 6, body_force) && ARG_MEM(k_sums, 7, body_torque)) &&
         ARG_MEM(k_sums, 8, body_kind) && ARG_VAL(k_sums, 9, gravity) && ARG_VAL(k_sums, 10, sleep_time) &&
         ARG_MEM(k_sums, 11, support) && ARG_MEM(k_sums, 12, body_support) && ARG_VAL(k_sums, 13, support_keep) &&
         ARG_MEM(k_sums, 14, body_run) && ARG_MEM(k_sums, 15, body_near) && ARG_VAL(k_sums, 16, rest) &&
         ARG_MEM(k_sums, 17, rested) && ARG_MEM(k_sums, 18, body_load);
    ok = ok && ARG_VAL(k_int, 0, bodies) && ARG_MEM(k_int, 1, body_pos) && ARG_MEM(k_int, 2, body_quat) &&
         ARG_MEM(k_int, 3, body_vel) && ARG_MEM(k_int, 4, body_angmom) && ARG_MEM(k_int, 5, body_omega) &&
         ARG_MEM(k_int, 6, body_inv_inertia) && ARG_MEM(k_int, 7, body_kind) && ARG_MEM(k_int, 8, wake) &&
         ARG_MEM(k_int, 9, body_load) && ARG_VAL(k_int, 10, dt) && ARG_VAL(k_int, 11, sleep_speed) &&
         ARG_VAL(k_int, 12, sleep_time) && ARG_VAL(k_int, 13, wake_accel) && ARG_MEM(k_int, 14, transforms) &&
         ARG_MEM(k_int, 15, body_frame) && ARG_MEM(k_int, 16, body_contact) && ARG_MEM(k_int, 17, sleepers);

    if (o->piece_count)
        ok = ok && ARG_VAL(K_PIECES, 0, bodies) && ARG_MEM(K_PIECES, 1, body_first_particle) &&
             ARG_MEM(K_PIECES, 2, body_first_piece) && ARG_MEM(K_PIECES, 3, body_kind) &&
             ARG_MEM(K_PIECES, 4, body_quat) && ARG_MEM(K_PIECES, 5, body_omega) && ARG_MEM(K_PIECES, 6, body_angmom) &&
             ARG_MEM(K_PIECES, 7, body_vel) && ARG_MEM(K_PIECES, 8, body_inv_inertia) && ARG_MEM(K_PIECES, 9, force) &&
             ARG_MEM(K_PIECES, 10, moment) && ARG_MEM(K_PIECES, 11, piece_info) && ARG_MEM(K_PIECES, 12, piece_holds) &&
             ARG_MEM(K_PIECES, 13, piece_span) && ARG_MEM(K_PIECES, 14, particle_member) &&
             ARG_MEM(K_PIECES, 15, piece_load) && ARG_MEM(K_PIECES, 16, breaks) && ARG_MEM(K_PIECES, 17, body_pos);

    if (o->joint_count) {
        const cl_uint joints = o->joint_count;
        ok = ok && ARG_VAL(K_JOINTS, 0, joints) && ARG_MEM(K_JOINTS, 1, joint_body) &&
             ARG_MEM(K_JOINTS, 2, joint_anchor_a) && ARG_MEM(K_JOINTS, 3, joint_anchor_b) &&
             ARG_MEM(K_JOINTS, 4, joint_limit) && ARG_MEM(K_JOINTS, 5, joint_broken) &&
             ARG_MEM(K_JOINTS, 6, joint_peak) && ARG_MEM(K_JOINTS, 7, body_pos) && ARG_MEM(K_JOINTS, 8, body_quat) &&
             ARG_MEM(K_JOINTS, 9, body_vel) && ARG_MEM(K_JOINTS, 10, body_omega) &&
             ARG_MEM(K_JOINTS, 11, body_inv_inertia) && ARG_MEM(K_JOINTS, 12, joint_out) &&
             ARG_MEM(K_JOINTS, 13, joint_breaks);
        ok = ok && ARG_VAL(K_JOINT_LOADS, 0, bodies) && ARG_MEM(K_JOINT_LOADS, 1, body_first_joint) &&
             ARG_MEM(K_JOINT_LOADS, 2, joint_list) && ARG_MEM(K_JOINT_LOADS, 3, joint_out) &&
             ARG_MEM(K_JOINT_LOADS, 4, body_force) && ARG_MEM(K_JOINT_LOADS, 5, body_torque) &&
             ARG_MEM(K_JOINT_LOADS, 6, load_force) && ARG_MEM(K_JOINT_LOADS, 7, load_torque);
    }

    ok = ok && ARG_MEM(K_POSITIONS, 0, particle_offset) && ARG_MEM(K_POSITIONS, 1, particle_body) &&
         ARG_MEM(K_POSITIONS, 2, body_pos) && ARG_MEM(K_POSITIONS, 3, body_quat) && ARG_MEM(K_POSITIONS, 4, force);

    /* The planes as columns x, y, z, offset of RB_MAX_PLANES, zero past the
     * last (forces.cl tests all at once): written only when they change,
     * and then waited for, so the copy never reads a column being changed. */
    float columns[4 * RB_MAX_PLANES];
    for (uint32_t k = 0; k < RB_MAX_PLANES; k++) {
        const rb_float4 plane = k < p->plane_count ? p->planes[k] : (rb_float4){0.0f, 0.0f, 0.0f, 0.0f};
        columns[k] = plane.x, columns[RB_MAX_PLANES + k] = plane.y;
        columns[2 * RB_MAX_PLANES + k] = plane.z, columns[3 * RB_MAX_PLANES + k] = plane.w;
    }
    if (ok && (!o->planes_written || memcmp(columns, o->plane_columns, sizeof columns) != 0)) {
        ok = RB_CL_CHECK("clEnqueueWriteBuffer(planes)", clEnqueueWriteBuffer(o->queue, o->buf.planes.mem, CL_TRUE, 0,
                                                                              sizeof columns, columns, 0, NULL, NULL));
        memcpy(o->plane_columns, columns, sizeof columns);
        o->planes_written = ok;
    }
    /* The pair table's rows of the materials in use, for this call's
     * parameters (a small constant buffer). Not waited for: the queue runs
     * in order, and p is the world's own (rb_world.params), which lives as
     * long as the backend; a call that fails part-way may leave a copy
     * pending, and the next call writes it again before any kernel reads it. */
    ok = ok && RB_CL_CHECK("clEnqueueWriteBuffer(rates)",
                           clEnqueueWriteBuffer(o->queue, o->buf.rates.mem, CL_FALSE, 0,
                                                (size_t)p->material_count * RB_MAX_MATERIALS * sizeof *p->rates,
                                                p->rates, 0, NULL, NULL));
    ok = ok && RB_CL_CHECK("clEnqueueWriteBuffer(rolling)",
                           clEnqueueWriteBuffer(o->queue, o->buf.rolling.mem, CL_FALSE, 0,
                                                (size_t)p->material_count * RB_MAX_MATERIALS * sizeof *p->rolling,
                                                p->rolling, 0, NULL, NULL));
    return ok;
}
