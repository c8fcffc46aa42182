/* opencl.c - the OpenCL backend: the whole step (README.md, "Physics") in the .cl files in kernels/.
 *
 * The device holds the state between upload() and download(); a step call
 * enqueues every step's kernels back to back and waits once at the end. Each
 * kernel is timed with profiling events. Buffers grow with the world
 * (opencl_buffers.c); the world compacts its arrays when a body goes and
 * uploads them again, so the device never sees holes. The device, the
 * kernel set and the program are opencl_build.c's, every kernel's arguments
 * opencl_args.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "opencl.h"
#include "opencl_backend.h"

/* Particles a work-group of the force pass on a CPU where the bodies
 * average at most RB_SMALL_BODY (8) particles (the 2x2x2 cube's). PoCL 3.1's
 * threads take a kernel's work-groups in chunks of ceil(remaining /
 * threads), at most 32 times the threads each, so a kernel of at most 64
 * work-groups a thread goes out in one chunk a thread: each core a fixed
 * half of the particles. That keeps each core's caches on its own half
 * from kernel to kernel, but a pile's halves (its lower bodies and its
 * upper ones) differ in work, and one core waits. Groups of 32 are dealt in
 * chunks of 64 and then in halving chunks, so the cores finish together.
 * Measured both ways (README, "Work-groups the cores share"): every scene
 * of 8-particle cubes ran faster in groups of 32 (pile 1000 7-11%, pile
 * 3000 4-6%, formation 1 about 5%), every scene of 27-particle cubes as
 * fast or slower (the piles even, formation 1 8% slower: light work, where
 * the caches count more). */
#define RB_CPU_FORCE_GROUP 32u
#define RB_SMALL_BODY 8u
/* Kernel times are taken on one step in RB_PROFILE_EVERY and scaled to the
 * call's steps: on an H100 a profiling event costs about as much as a short
 * kernel, and timing every kernel made a step of 1,000 cubes take twice as
 * long (0.145 against 0.068 ms). */
#define RB_PROFILE_EVERY 8u
/* Profiling events kept before they are read and released. */
#define RB_EVENT_BATCH 4096u

/* The timed kernels, as kernel_times names them: the two sets share names. */
static const char *const rb_opencl_kernel_names[RB_OPENCL_KERNEL_COUNT] = {
    "hash_particles", "scan_sums", "scan_offsets", "scan", "scatter", "reorder", "forces", "integrate"};
static const int kernel_timed[K_COUNT] = {
    [K_HASH] = 0,        [K_COUNT_PARTICLES] = 0, [K_HASH_COUNT] = 0,    [K_CHUNK_SUMS] = 1, [K_CHUNK_OFFSETS] = 2,
    [K_CHUNKS] = 3,      [K_BLOCK_SUMS] = 1,      [K_BLOCK_OFFSETS] = 2, [K_BLOCKS] = 3,     [K_SCATTER] = 4,
    [K_REORDER] = 5,     [K_REORDER_SLOTS] = 5,   [K_FORCES] = 6,        [K_SUM_BODIES] = 7, [K_INTEGRATE] = 7,
    [K_STAMP_NEAR] = 0,  [K_MARK_FAR] = 0,        [K_POSITIONS] = -1,    [K_PIECES] = -1,    [K_JOINTS] = -1,
    [K_JOINT_LOADS] = -1};

/* Which stage of world.h each timed kernel counts towards: "particles" is
 * rb_reorder (particle values, in sorted order); "grid" is the counting sort. */
static const int kernel_stage[RB_OPENCL_KERNEL_COUNT] = {RB_STAGE_GRID,   RB_STAGE_GRID,     RB_STAGE_GRID,
                                                         RB_STAGE_GRID,   RB_STAGE_GRID,     RB_STAGE_PARTICLES,
                                                         RB_STAGE_FORCES, RB_STAGE_INTEGRATE};

static const rb_backend_vtbl opencl_vtbl;

/* ---- kernel launches ---- */

/* Reads and releases the pending profiling events into kernel_ms. */
static bool harvest_events(ocl *o) {
    bool ok = true;
    for (uint32_t k = 0; k < o->event_count; k++) {
        cl_ulong t0 = 0, t1 = 0;
        cl_int e = clGetEventProfilingInfo(o->events[k], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (e == CL_SUCCESS) e = clGetEventProfilingInfo(o->events[k], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        if (e == CL_SUCCESS)
            o->kernel_ms[o->event_kernel[k]] += (double)(t1 - t0) * 1e-6;
        else
            ok = ok && RB_CL_CHECK("clGetEventProfilingInfo", e);
        clReleaseEvent(o->events[k]);
    }
    o->event_count = 0;
    return ok;
}

/* Keeps the event of kernel k for its time; every RB_EVENT_BATCH events the
 * queue is drained and the batch read, so memory stays bounded on long runs. */
static bool record_event(ocl *o, int k, cl_event ev) {
    o->events[o->event_count] = ev;
    o->event_kernel[o->event_count] = kernel_timed[k];
    if (++o->event_count < RB_EVENT_BATCH) return true;
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && harvest_events(o);
}

static bool launch(ocl *o, int k, size_t global, size_t local, bool timed) {
    if (global == 0) return true;
    timed = timed && o->profile;
    global = rb_ocl_round_up(global, local);
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(o->queue, o->kernels[k], 1, NULL, &global, &local, 0, NULL, timed ? &ev : NULL);
    if (e != CL_SUCCESS) {
        rb_log(RB_LOG_ERROR, "OpenCL: clEnqueueNDRangeKernel(%s, %zu x %zu) failed: %s (%d)", rb_ocl_kernel_entry[k],
               global, local, rb_opencl_error_name(e), e);
        return false;
    }
    return !timed || record_event(o, k, ev);
}

/* Sets kernel k's argument index to this step's stamp (far.cl). */
static bool arg_stamp(ocl *o, int k, cl_uint index) {
    return RB_CL_CHECK("clSetKernelArg(stamp)",
                       clSetKernelArg(o->kernels[k], index, sizeof o->far_stamp, &o->far_stamp));
}

/* The scan of the bucket counts into bucket starts (grid.cl). */
static bool enqueue_scan(ocl *o, bool timed) {
    if (o->gpu_kernels) {
        const size_t items = (size_t)o->block_count * RB_SCAN_GROUP;
        return launch(o, K_BLOCK_SUMS, items, RB_SCAN_GROUP, timed) &&
               launch(o, K_BLOCK_OFFSETS, o->offsets_group, o->offsets_group, timed) &&
               launch(o, K_BLOCKS, items, RB_SCAN_GROUP, timed);
    }
    const size_t *g = o->group;
    return launch(o, K_CHUNK_SUMS, o->chunk_count, g[K_CHUNK_SUMS], timed) && launch(o, K_CHUNK_OFFSETS, 1, 1, timed) &&
           launch(o, K_CHUNKS, o->chunk_count, g[K_CHUNKS], timed);
}

/* Zeroes the bucket counts: new ones, or those a hash pass whose scan never
 * ran (a failed launch) left. Every scan zeroes what it reads. */
static bool clear_counts(ocl *o) {
    const cl_uint zero = 0;
    if (!RB_CL_CHECK("clEnqueueFillBuffer(counts)", clEnqueueFillBuffer(o->queue, o->buf.counts.mem, &zero, sizeof zero,
                                                                        0, o->buf.counts.bytes, 0, NULL, NULL)))
        return false;
    o->counts_dirty = false;
    return true;
}

/* Clears every body's wake flag for this step's force pass. */
static bool clear_wake(ocl *o) {
    const cl_uint zero = 0;
    return o->body_count == 0 || RB_CL_CHECK("clEnqueueFillBuffer(wake)",
                                             clEnqueueFillBuffer(o->queue, o->buf.wake.mem, &zero, sizeof zero, 0,
                                                                 (size_t)o->body_count * sizeof zero, 0, NULL, NULL));
}

/* The hash pass and the scan: the counts are dirty from the one until the
 * other is enqueued. */
static bool enqueue_grid(ocl *o, bool timed) {
    if (o->counts_dirty && !clear_counts(o)) return false;
    o->counts_dirty = true;
    const size_t n = o->particle_count, *g = o->group;
    bool ok;
    if (o->gpu_kernels) /* rb_hash_count clears the wake flags itself */
        ok = launch(o, K_HASH_COUNT, n, g[K_HASH_COUNT], timed);
    else
        ok = clear_wake(o) && launch(o, K_HASH, n, g[K_HASH], timed) &&
             launch(o, K_COUNT_PARTICLES, n, g[K_COUNT_PARTICLES], timed);
    if (!ok || !enqueue_scan(o, timed)) return false;
    o->counts_dirty = false;
    return true;
}

/* On the CPU kernels, where this call leaves far bodies out (o->far_on):
 * the running bodies stamp the cells near them under this step's stamp,
 * which the count then reads (far.cl). Where fewer than a quarter of the
 * bodies slept at the last look (rb_ocl_set_args) nothing is launched. */
static bool enqueue_far(ocl *o, bool timed) {
    if (o->gpu_kernels || !o->far_on) return true;
    if (++o->far_stamp == 0u) o->far_stamp = 1u; /* 0: a cell never stamped */
    return arg_stamp(o, K_STAMP_NEAR, 13) && arg_stamp(o, K_MARK_FAR, 7) &&
           launch(o, K_STAMP_NEAR, o->body_count, o->group[K_STAMP_NEAR], timed) &&
           launch(o, K_MARK_FAR, o->body_count, o->group[K_MARK_FAR], timed);
}

/* Stages 1-3: particle values into sorted order, the grid, the forces. */
static bool enqueue_forces(ocl *o, bool timed) {
    const size_t n = o->particle_count, *g = o->group;
    const int kr = rb_ocl_reorder_kernel(o);
    return enqueue_far(o, timed) && enqueue_grid(o, timed) && launch(o, K_SCATTER, n, g[K_SCATTER], timed) &&
           launch(o, kr, n, g[kr], timed) && launch(o, K_FORCES, n, g[K_FORCES], timed);
}

/* Stages 4 and 5: the sums, the integration, the transforms; the bodies
 * asleep at the end counted anew for the next force pass. */
static bool enqueue_integrate(ocl *o, bool timed) {
    const cl_uint zero = 0u;
    if (!RB_CL_CHECK("clEnqueueFillBuffer(sleepers)", clEnqueueFillBuffer(o->queue, o->buf.sleepers.mem, &zero,
                                                                          sizeof zero, 0, sizeof zero, 0, NULL, NULL)))
        return false;
    const size_t n = o->body_count, *g = o->group;
    return launch(o, K_SUM_BODIES, n, g[K_SUM_BODIES], timed) &&
           launch(o, K_INTEGRATE, (n + RB_INTEGRATE_LANES - 1) / RB_INTEGRATE_LANES, g[K_INTEGRATE], timed);
}

/* ---- the backend interface ---- */

/* The cells a coordinate spans over the bodies' centres, with a margin for
 * the bodies' own size, or 0 if the spread is not finite. */
static uint32_t spread_cells(float lo, float hi, float inv_cell) {
    const float cells = (hi - lo) * inv_cell;
    return cells >= 0.0f && cells < 65536.0f ? (uint32_t)cells + 8u : 0u;
}

/* The hash's strides for the world as uploaded (kernels/common.cl,
 * rb_cell_hash): a row of cells along x as long as the bodies spread along
 * x, a layer of rows along z as deep as they spread along z. Both are odd,
 * so that where the world has more cells than the table has buckets, layers
 * and rows far apart wrap onto different buckets rather than onto each
 * other. Bodies that leave this box only share buckets more often. */
static void choose_strides(ocl *o, const rb_world_data *d, const rb_step_params *p) {
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t b = 0; b < d->body_count; b++) {
        const float c[2] = {d->body_pos[b].x, d->body_pos[b].z};
        for (int k = 0; k < 2; k++) lo[k] = fminf(lo[k], c[k]), hi[k] = fmaxf(hi[k], c[k]);
    }
    const float inv_cell = rb_grid_inv_cell(p->max_radius);
    uint32_t nx = spread_cells(lo[0], hi[0], inv_cell), nz = spread_cells(lo[1], hi[1], inv_cell);
    if (nx == 0 || nz == 0) nx = nz = 1024; /* no bodies, or a state gone bad */
    o->stride_z = nx | 1u;
    o->stride_y = (o->stride_z * nz) | 1u;
}

/* A counter of breaks (rb_ocl_make_counter) read, and zeroed where it
 * counted any: 0 if it was never made. */
static uint32_t take_count(ocl *o, ocl_buffer *b, const char *what) {
    cl_uint n = 0;
    if (!b->mem || !rb_ocl_read_buffer(o, b, &n, sizeof n, what) || !RB_CL_CHECK("clFinish", clFinish(o->queue)))
        return 0;
    if (n) {
        const cl_uint zero = 0;
        char call[64];
        snprintf(call, sizeof call, "clEnqueueFillBuffer(%s)", what);
        rb_cl_check(clEnqueueFillBuffer(o->queue, b->mem, &zero, sizeof zero, 0, 4u, 0, NULL, NULL), call, NULL, 0);
    }
    return n;
}

static uint32_t ocl_take_joint_break_count(rb_backend *base) {
    ocl *o = (ocl *)base;
    return take_count(o, &o->buf.joint_breaks, "joint_breaks");
}

/* A path's steering (world_joints.c): the listed bodies' velocities, 16 B each of
 * body_vel and body_omega, waited for (the host may change its arrays next). */
static bool ocl_write_velocities(rb_backend *base, const rb_world_data *d, const uint32_t *bodies, uint32_t count) {
    ocl *o = (ocl *)base;
    bool ok = true;
    for (uint32_t k = 0; k < count && ok; k++) {
        const size_t at = (size_t)bodies[k] * 16u;
        ok = RB_CL_CHECK("clEnqueueWriteBuffer(body_vel)",
                         clEnqueueWriteBuffer(o->queue, o->buf.body_vel.mem, CL_FALSE, at, 16u, &d->body_vel[bodies[k]],
                                              0, NULL, NULL)) &&
             RB_CL_CHECK("clEnqueueWriteBuffer(body_omega)",
                         clEnqueueWriteBuffer(o->queue, o->buf.body_omega.mem, CL_FALSE, at, 16u,
                                              &d->body_omega[bodies[k]], 0, NULL, NULL));
    }
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static uint32_t ocl_take_break_count(rb_backend *base) {
    ocl *o = (ocl *)base;
    return take_count(o, &o->buf.breaks, "breaks");
}

/* The force pass's work-group for small bodies: RB_CPU_FORCE_GROUP, or the
 * device's per-particle size where that is less. */
static size_t small_force_group(const ocl *o) {
    return o->force_group_most > RB_CPU_FORCE_GROUP ? RB_CPU_FORCE_GROUP : o->force_group_most;
}

/* The force pass's work-group for the world as uploaded: small_force_group
 * on the CPU kernels where its bodies average at most RB_SMALL_BODY
 * particles, else the device's per-particle size. */
static size_t force_group(const ocl *o) {
    const bool small = !o->gpu_kernels && (uint64_t)o->particle_count <= (uint64_t)RB_SMALL_BODY * o->body_count;
    return small ? small_force_group(o) : o->force_group_most;
}

/* Each body's reach, its farthest particle centre from its centre of mass,
 * written from reach (host scratch, a float a body), and the largest of a
 * dynamic body's; the coarse cells' side, the distance from a running body
 * to a resting one that it may come near, without their speeds (two
 * largest reaches and the force pass's: far.cl), so that a body stamps
 * 3 x 3 x 3 cells, seldom more. (Twice that side, 2 x 2 x 2 cells, left
 * out 42.8% of the body-steps of a settled pile 1000 instead of 60.8%, for
 * no time saved in the stamps.) */
static bool upload_reach(ocl *o, const rb_world_data *d, const rb_step_params *p, float *reach) {
    float largest = 0.0f;
    for (uint32_t b = 0; b < d->body_count; b++) {
        float r2 = 0.0f;
        for (uint32_t i = d->body_first_particle[b]; i < d->body_first_particle[b + 1]; i++) {
            const rb_float4 u = d->particle_offset[i];
            r2 = fmaxf(r2, u.x * u.x + u.y * u.y + u.z * u.z);
        }
        reach[b] = sqrtf(r2);
        if (d->body_kind[b] == RB_BODY_DYNAMIC) largest = fmaxf(largest, reach[b]);
    }
    o->reach_body = largest;
    o->inv_coarse = 1.0f / (2.0f * largest + p->max_radius + o->slot_reach);
    return rb_ocl_write_buffer(o, &o->buf.body_reach, reach, (size_t)d->body_count * 4u, "body_reach");
}

static bool ocl_upload(rb_backend *base, const rb_world_data *d, const rb_step_params *p) {
    ocl *o = (ocl *)base;
    const uint32_t nb = d->body_count, np = d->particle_count;
    if (!rb_ocl_reserve_bodies(o, nb) || !rb_ocl_reserve_particles(o, np, d->contact_slots) ||
        !rb_ocl_reserve_staging(o, (size_t)nb * 68u) || !rb_ocl_size_coarse(o, nb))
        return false;
    choose_strides(o, d, p);
    o->slot_reach = rb_cl_slot_reach(d, p->max_radius); /* the force pass's, and far.cl's cells (upload_reach) */
    /* The transforms as they are now, so a read before the first step sees
     * them; and the bodies asleep, for the first force pass (forces.cl). */
    cl_uint sleepers = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const float timer = d->body_pos[b].w;
        sleepers += rb_timer_asleep(timer, p->sleep_time);
        float *t = &o->staging[8 * b];
        t[0] = d->body_pos[b].x, t[1] = d->body_pos[b].y, t[2] = d->body_pos[b].z, t[3] = 0.0f;
        t[4] = d->body_quat[b].x, t[5] = d->body_quat[b].y, t[6] = d->body_quat[b].z, t[7] = d->body_quat[b].w;
    }
    /* and the bodies' frames for their contacts' masses, as the kernels form them after each step */
    rb_body_frame *frames = (rb_body_frame *)(o->staging + 8 * (size_t)nb);
    for (uint32_t b = 0; b < nb; b++)
        frames[b] = rb_body_frame_of(d->body_quat[b], d->body_inv_inertia[b], d->body_vel[b].w,
                                     rb_contact_share(d->body_support[b], d->body_contact[b].z, d->body_contact[b].w));
    const size_t b16 = (size_t)nb * 16u;
    ocl_buffers *B = &o->buf;
    bool ok = rb_ocl_write_buffer(o, &B->body_pos, d->body_pos, b16, "body_pos") &&
              rb_ocl_write_buffer(o, &B->body_quat, d->body_quat, b16, "body_quat") &&
              rb_ocl_write_buffer(o, &B->body_vel, d->body_vel, b16, "body_vel") &&
              rb_ocl_write_buffer(o, &B->body_angmom, d->body_angmom, b16, "body_angmom") &&
              rb_ocl_write_buffer(o, &B->body_omega, d->body_omega, b16, "body_omega") &&
              rb_ocl_write_buffer(o, &B->body_inv_inertia, d->body_inv_inertia, b16, "body_inv_inertia") &&
              rb_ocl_write_buffer(o, &B->body_force, d->body_force, b16, "body_force") &&
              rb_ocl_write_buffer(o, &B->body_torque, d->body_torque, b16, "body_torque") &&
              rb_ocl_write_buffer(o, &B->body_first_particle, d->body_first_particle, ((size_t)nb + 1u) * 4u,
                                  "body_first_particle") &&
              rb_ocl_write_buffer(o, &B->body_kind, d->body_kind, (size_t)nb * 4u, "body_kind") &&
              rb_ocl_write_buffer(o, &B->body_material, d->body_material, (size_t)nb * 4u, "body_material") &&
              rb_ocl_write_buffer(o, &B->body_contact, d->body_contact, b16, "body_contact") &&
              rb_ocl_write_buffer(o, &B->body_support, d->body_support, (size_t)nb * 4u, "body_support") &&
              rb_ocl_write_buffer(o, &B->transforms, o->staging, (size_t)nb * 32u, "transforms") &&
              rb_ocl_write_buffer(o, &B->body_frame, frames, (size_t)nb * 32u, "body_frame") &&
              rb_ocl_write_buffer(o, &B->particle_offset, d->particle_offset, (size_t)np * 16u, "particle_offset") &&
              rb_ocl_write_buffer(o, &B->particle_body, d->particle_body, (size_t)np * 4u, "particle_body") &&
              upload_reach(o, d, p, o->staging + 16 * (size_t)nb) && rb_ocl_upload_pieces(o, d) &&
              rb_ocl_upload_joints(o, d);
    /* The host changed the state: every body runs its next step, and none
     * was near another yet (forces.cl, resting). */
    const cl_uint one = 1u, zero = 0u;
    ok = ok &&
         RB_CL_CHECK("clEnqueueFillBuffer(body_run)", clEnqueueFillBuffer(o->queue, B->body_run.mem, &one, sizeof one,
                                                                          0, (size_t)nb * 4u, 0, NULL, NULL)) &&
         RB_CL_CHECK(
             "clEnqueueFillBuffer(body_near)",
             clEnqueueFillBuffer(o->queue, B->body_near.mem, &zero, sizeof zero, 0, (size_t)nb * 4u, 0, NULL, NULL)) &&
         rb_ocl_write_buffer(o, &B->sleepers, &sleepers, sizeof sleepers, "sleepers");
    o->sleepers_seen = sleepers;
    /* The padding to the last whole work-group belongs to body 0, so that
     * the kernels that run on into it read within the body arrays (grid.cl). */
    const cl_uint body0 = 0;
    const size_t padded = rb_ocl_round_up(np, RB_PARTICLE_GROUP);
    if (ok && padded > np)
        ok = RB_CL_CHECK("clEnqueueFillBuffer(particle_body)",
                         clEnqueueFillBuffer(o->queue, B->particle_body.mem, &body0, sizeof body0, (size_t)np * 4u,
                                             (padded - np) * 4u, 0, NULL, NULL));
    /* Particles past those uploaded before are new: no history. (When
     * bodies went, the world hands over the whole history: upload_slots.) */
    if (ok && np > o->particle_count) {
        const cl_uint free_key = RB_SLOT_FREE;
        const size_t slot_bytes = o->slots * sizeof(cl_uint);
        ok = RB_CL_CHECK("clEnqueueFillBuffer(keys)",
                         clEnqueueFillBuffer(o->queue, B->keys.mem, &free_key, sizeof free_key,
                                             (size_t)o->particle_count * slot_bytes,
                                             (size_t)(np - o->particle_count) * slot_bytes, 0, NULL, NULL));
    }
    /* The host may change its arrays as soon as we return: wait for the copies. */
    ok = RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
    o->body_count = ok ? nb : 0;
    o->particle_count = ok ? np : 0;
    o->group[K_FORCES] = force_group(o);
    return ok;
}

static bool same_counts(const ocl *o, const rb_world_data *d) {
    if (d->body_count == o->body_count && d->particle_count == o->particle_count) return true;
    rb_log(RB_LOG_ERROR, "OpenCL backend: the world has %u bodies, %u particles but %u, %u were uploaded",
           d->body_count, d->particle_count, o->body_count, o->particle_count);
    return false;
}

/* The rolling angles' buffer, made (and filled from the host's copy) the
 * first time a pair of the world's materials resists rolling: until then
 * contacts keep no rolling angle, and worlds that never roll spend 48 bytes
 * a particle less. Kept from then on. */
static bool ensure_roll(ocl *o, const rb_world_data *d, const rb_step_params *p) {
    if (o->rolling || !p->rolling_any) return true;
    ocl_buffer *roll = &o->buf.roll;
    rb_ocl_release_buffer(roll);
    if (!rb_ocl_make_buffer(o, roll, (size_t)o->particle_capacity * o->slots * 12u, "roll")) {
        rb_ocl_make_buffer(o, roll, 16u, "roll"); /* the kernels take a buffer either way */
        return false;
    }
    o->rolling = true;
    return o->particle_count == 0 ||
           (rb_ocl_write_buffer(o, roll, d->particle_roll, (size_t)o->particle_count * o->slots * 12u, "roll") &&
            RB_CL_CHECK("clFinish", clFinish(o->queue)));
}

static bool ocl_step(rb_backend *base, rb_world_data *d, const rb_step_params *p, uint32_t steps) {
    ocl *o = (ocl *)base;
    memset(o->kernel_ms, 0, sizeof o->kernel_ms);
    if (!same_counts(o, d)) return false;
    if (o->body_count == 0) return true;
    if (!ensure_roll(o, d, p) || !rb_ocl_set_args(o, p, 1)) return false;
    bool ok = true;
    uint32_t timed_steps = 0;
    for (uint32_t s = 0; s < steps && ok; s++) {
        const bool timed = s % RB_PROFILE_EVERY == 0;
        timed_steps += timed;
        ok = enqueue_forces(o, timed) &&
             (o->piece_count == 0 || launch(o, K_PIECES, o->body_count, o->group[K_PIECES], false)) &&
             (o->joint_count == 0 || (launch(o, K_JOINTS, o->joint_count, o->group[K_JOINTS], false) &&
                                      launch(o, K_JOINT_LOADS, o->body_count, o->group[K_JOINT_LOADS], false))) &&
             enqueue_integrate(o, timed);
    }
    /* whether some body sleeps now: the next call leaves far bodies out only then (enqueue_far) */
    if (ok && !o->gpu_kernels)
        ok = rb_ocl_read_buffer(o, &o->buf.sleepers, &o->sleepers_seen, sizeof o->sleepers_seen, "sleepers");
    ok = RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
    ok = harvest_events(o) && ok;
    if (timed_steps > 0)
        for (int k = 0; k < RB_OPENCL_KERNEL_COUNT; k++) o->kernel_ms[k] *= (double)steps / timed_steps;
    return ok;
}

static bool ocl_download(rb_backend *base, rb_world_data *d) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    const size_t b16 = (size_t)o->body_count * 16u;
    ocl_buffers *B = &o->buf;
    bool ok = rb_ocl_read_buffer(o, &B->body_pos, d->body_pos, b16, "body_pos") &&
              rb_ocl_read_buffer(o, &B->body_quat, d->body_quat, b16, "body_quat") &&
              rb_ocl_read_buffer(o, &B->body_vel, d->body_vel, b16, "body_vel") &&
              rb_ocl_read_buffer(o, &B->body_angmom, d->body_angmom, b16, "body_angmom") &&
              rb_ocl_read_buffer(o, &B->body_omega, d->body_omega, b16, "body_omega") &&
              rb_ocl_read_buffer(o, &B->body_support, d->body_support, (size_t)o->body_count * 4u, "body_support") &&
              (o->piece_count == 0 ||
               rb_ocl_read_buffer(o, &B->piece_load, d->piece_load, (size_t)o->piece_count * 4u, "piece_load")) &&
              (o->joint_count == 0 ||
               (rb_ocl_read_buffer(o, &B->joint_broken, d->joint_broken, (size_t)o->joint_count * 4u, "joint_broken") &&
                rb_ocl_read_buffer(o, &B->joint_peak, d->joint_peak, (size_t)o->joint_count * 4u, "joint_peak")));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static bool ocl_download_slots(rb_backend *base, rb_world_data *d) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    const size_t n = (size_t)o->particle_count * o->slots;
    bool ok = rb_ocl_read_buffer(o, &o->buf.keys, d->particle_keys, n * 4u, "keys") &&
              rb_ocl_read_buffer(o, &o->buf.disp, d->particle_disp, n * 12u, "disp") &&
              (!o->rolling || rb_ocl_read_buffer(o, &o->buf.roll, d->particle_roll, n * 12u, "roll"));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static bool ocl_upload_slots(rb_backend *base, const rb_world_data *d) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    const size_t n = (size_t)o->particle_count * o->slots;
    bool ok = rb_ocl_write_buffer(o, &o->buf.keys, d->particle_keys, n * 4u, "keys") &&
              rb_ocl_write_buffer(o, &o->buf.disp, d->particle_disp, n * 12u, "disp") &&
              (!o->rolling || rb_ocl_write_buffer(o, &o->buf.roll, d->particle_roll, n * 12u, "roll"));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

/* A count the device keeps in 32 bits (b), read only when asked (a read
 * after every step call cost a small pile a fifth of its step on a GPU):
 * *total grows by what it counted since *seen, which is right as long as
 * fewer than 2^32 come between two questions. */
static uint64_t read_count(ocl *o, ocl_buffer *b, cl_uint *seen, uint64_t *total, const char *what) {
    cl_uint now = *seen;
    if (rb_ocl_read_buffer(o, b, &now, sizeof now, what) && RB_CL_CHECK("clFinish", clFinish(o->queue))) {
        *total += (cl_uint)(now - *seen); /* the device's count wraps; differences do not */
        *seen = now;
    }
    return *total;
}

static uint64_t ocl_contact_overflow(rb_backend *base) {
    ocl *o = (ocl *)base;
    return read_count(o, &o->buf.overflow, &o->overflow_seen, &o->overflow, "overflow");
}

static uint64_t ocl_rested(rb_backend *base) {
    ocl *o = (ocl *)base;
    return read_count(o, &o->buf.rested, &o->rested_seen, &o->rested, "rested");
}

static uint64_t ocl_off_grid(rb_backend *base) {
    ocl *o = (ocl *)base;
    return read_count(o, &o->buf.far_count, &o->far_seen, &o->far, "far_count");
}

/* Reads n packed xyz triples of a buffer. */
static bool read_triples(ocl *o, ocl_buffer *b, uint32_t n, float *out) {
    bool ok = rb_ocl_read_buffer(o, b, out, (size_t)n * 12u, "force");
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static bool ocl_read_particles(rb_backend *base, const rb_world_data *d, const rb_step_params *p, float *out) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    if (o->particle_count == 0) return true;
    /* The force buffer is scratch between steps: positions go there. */
    return rb_ocl_set_args(o, p, 0) && launch(o, K_POSITIONS, o->particle_count, o->group[K_POSITIONS], false) &&
           read_triples(o, &o->buf.force, o->particle_count, out);
}

static bool ocl_particle_forces(rb_backend *base, const rb_world_data *d, const rb_step_params *p, float *out) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    if (o->particle_count == 0) return true;
    return ensure_roll(o, d, p) && rb_ocl_set_args(o, p, 0) && enqueue_forces(o, false) &&
           read_triples(o, &o->buf.force, o->particle_count, out);
}

static const char *ocl_device_name(const rb_backend *base) { return ((const ocl *)base)->device_name; }

static size_t ocl_device_bytes(const rb_backend *base) {
    const ocl_buffer *all = (const ocl_buffer *)&((const ocl *)base)->buf;
    size_t total = 0;
    for (size_t i = 0; i < RB_BUFFER_COUNT; i++) total += all[i].bytes;
    return total;
}

static uint32_t ocl_kernel_times(const rb_backend *base, const char *const **names, double *ms, uint32_t capacity) {
    const ocl *o = (const ocl *)base;
    *names = rb_opencl_kernel_names;
    for (uint32_t k = 0; k < RB_OPENCL_KERNEL_COUNT && k < capacity; k++) ms[k] = o->kernel_ms[k];
    return RB_OPENCL_KERNEL_COUNT;
}

static void ocl_stage_times(const rb_backend *base, double ms[RB_STAGE_COUNT]) {
    const ocl *o = (const ocl *)base;
    for (int s = 0; s < RB_STAGE_COUNT; s++) ms[s] = 0.0;
    for (int k = 0; k < RB_OPENCL_KERNEL_COUNT; k++) ms[kernel_stage[k]] += o->kernel_ms[k];
}

static void ocl_destroy(rb_backend *base) {
    ocl *o = (ocl *)base;
    if (!o) return;
    if (o->queue) clFinish(o->queue);
    harvest_events(o);
    ocl_buffer *all = (ocl_buffer *)&o->buf;
    for (size_t i = 0; i < RB_BUFFER_COUNT; i++) rb_ocl_release_buffer(&all[i]);
    for (int k = 0; k < K_COUNT; k++)
        if (o->kernels[k]) clReleaseKernel(o->kernels[k]);
    if (o->program) clReleaseProgram(o->program);
    if (o->queue) clReleaseCommandQueue(o->queue);
    if (o->context) clReleaseContext(o->context);
    free(o->events);
    free(o->event_kernel);
    free(o->staging);
    free(o);
}

static bool ocl_read_transforms(rb_backend *b, const rb_world_data *d, rb_transform *out) {
    return rb_opencl_read_transforms(b, out, d->body_count);
}

/* rb_world_warm: every kernel a step runs, launched once with nothing to
 * do, so that PoCL builds each now (it compiles a kernel at its first
 * launch for each work-group size) and not in the first steps. Each kernel
 * that takes a count (particles, bodies, chunks, blocks, joints) is given
 * zero, so its work-items return at once; the ones that take none write
 * only what a step makes anew before reading it (the hash pass its keys,
 * buckets and stage-1 values, the block scan its sums and starts, and zero
 * counts as zero). The force pass is launched at both of its work-group
 * sizes (force_group). No buffer is copied, so a world that fits without
 * the warm-up fits with it, and the next step's arguments are set anew
 * (ocl_step). */
/* Kernel k launched as one work-group of its size, not timed (ocl_warm). */
static bool launch_group(ocl *o, int k) { return launch(o, k, o->group[k], o->group[k], false); }

static bool ocl_warm(rb_backend *base, rb_world_data *d, const rb_step_params *p) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d) || o->body_count == 0 || !ensure_roll(o, d, p) || !rb_ocl_set_args(o, p, 1)) return false;
    if (o->counts_dirty && !clear_counts(o)) return false;
    static const struct {
        int kernel;
        cl_uint arg;
    } counts[] = {{K_HASH_COUNT, 0},    {K_COUNT_PARTICLES, 0}, {K_CHUNK_SUMS, 2}, {K_CHUNK_OFFSETS, 1}, {K_CHUNKS, 2},
                  {K_BLOCK_OFFSETS, 1}, {K_SCATTER, 0},         {K_REORDER, 0},    {K_REORDER_SLOTS, 0}, {K_FORCES, 0},
                  {K_SUM_BODIES, 0},    {K_INTEGRATE, 0},       {K_STAMP_NEAR, 0}, {K_MARK_FAR, 0},      {K_PIECES, 0},
                  {K_JOINTS, 0},        {K_JOINT_LOADS, 0}};
    const cl_uint zero = 0;
    bool ok = true;
    for (size_t i = 0; i < sizeof counts / sizeof *counts && ok; i++)
        ok = RB_CL_CHECK("clSetKernelArg(warm)",
                         clSetKernelArg(o->kernels[counts[i].kernel], counts[i].arg, sizeof zero, &zero));
    const int kr = rb_ocl_reorder_kernel(o);
    if (o->gpu_kernels)
        ok = ok && launch_group(o, K_HASH_COUNT) && launch(o, K_BLOCK_SUMS, RB_SCAN_GROUP, RB_SCAN_GROUP, false) &&
             launch(o, K_BLOCK_OFFSETS, o->offsets_group, o->offsets_group, false) &&
             launch(o, K_BLOCKS, RB_SCAN_GROUP, RB_SCAN_GROUP, false);
    else
        ok = ok && launch_group(o, K_STAMP_NEAR) && launch_group(o, K_MARK_FAR) && launch_group(o, K_HASH) &&
             launch_group(o, K_COUNT_PARTICLES) && launch_group(o, K_CHUNK_SUMS) &&
             launch(o, K_CHUNK_OFFSETS, 1, 1, false) && launch_group(o, K_CHUNKS);
    ok = ok && launch_group(o, K_SCATTER) && launch_group(o, kr) && launch_group(o, K_FORCES) &&
         launch_group(o, K_SUM_BODIES) && launch_group(o, K_INTEGRATE) &&
         (o->piece_count == 0 || launch_group(o, K_PIECES)) &&
         (o->joint_count == 0 || (launch_group(o, K_JOINTS) && launch_group(o, K_JOINT_LOADS)));
    /* the force pass's other work-group, which a world whose bodies get
     * smaller or larger on average as it runs takes up later */
    const size_t size = o->group[K_FORCES],
                 other = size != o->force_group_most ? o->force_group_most : small_force_group(o);
    if (ok && !o->gpu_kernels && other != size) ok = launch(o, K_FORCES, other, other, false);
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static const rb_backend_vtbl opencl_vtbl = {
    .name = "opencl",
    .destroy = ocl_destroy,
    .upload = ocl_upload,
    .step = ocl_step,
    .download = ocl_download,
    .read_particles = ocl_read_particles,
    .particle_forces = ocl_particle_forces,
    .device_name = ocl_device_name,
    .device_bytes = ocl_device_bytes,
    .stage_times = ocl_stage_times,
    .kernel_times = ocl_kernel_times,
    .read_transforms = ocl_read_transforms,
    .download_slots = ocl_download_slots,
    .upload_slots = ocl_upload_slots,
    .contact_overflow = ocl_contact_overflow,
    .rested = ocl_rested,
    .off_grid = ocl_off_grid,
    .take_break_count = ocl_take_break_count,
    .take_joint_break_count = ocl_take_joint_break_count,
    .write_velocities = ocl_write_velocities,
    .warm = ocl_warm,
};

/* ---- the extras of opencl.h ---- */

bool rb_backend_is_opencl(const rb_backend *backend) { return backend && backend->vtbl == &opencl_vtbl; }

bool rb_opencl_has_gl_sharing(const rb_backend *backend) {
    return rb_backend_is_opencl(backend) && ((const ocl *)backend)->gl_sharing;
}

bool rb_opencl_read_transforms(rb_backend *backend, rb_transform *out, uint32_t count) {
    if (!rb_backend_is_opencl(backend)) return false;
    ocl *o = (ocl *)backend;
    if (count != o->body_count) {
        rb_log(RB_LOG_ERROR, "OpenCL backend: transforms of %u bodies asked, %u uploaded", count, o->body_count);
        return false;
    }
    return RB_CL_CHECK("clEnqueueReadBuffer(transforms)",
                       clEnqueueReadBuffer(o->queue, o->buf.transforms.mem, CL_TRUE, 0, (size_t)count * sizeof *out,
                                           out, 0, NULL, NULL));
}

/* ---- creation ---- */

rb_backend *rb_opencl_create(int device_index, char *err, size_t err_size) {
    char scratch[8];
    if (!err) err = scratch, err_size = sizeof scratch;
    rb_cl_device dev;
    if (!rb_ocl_pick_device(device_index, &dev, err, err_size)) return NULL;
    ocl *o = calloc(1, sizeof *o);
    if (!o) return snprintf(err, err_size, "out of memory"), NULL;
    o->base.vtbl = &opencl_vtbl;
    o->device = dev.device;
    snprintf(o->device_name, sizeof o->device_name, "%s (%s)", dev.name, dev.platform_name);

    cl_int e;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev.platform, 0};
    o->context = clCreateContext(props, 1, &dev.device, NULL, NULL, &e);
    if (!rb_cl_check(e, "clCreateContext", err, err_size)) goto fail;
    /* Kernel times come from profiling events; RUBBLE_OPENCL_PROFILE=0 goes
     * without, to see what the events cost when kernels are short. */
    const char *profile = getenv("RUBBLE_OPENCL_PROFILE");
    o->profile = !(profile && strcmp(profile, "0") == 0);
    o->queue = clCreateCommandQueue(o->context, dev.device, o->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &e);
    if (!rb_cl_check(e, "clCreateCommandQueue", err, err_size)) goto fail;

    /* Where the device has cl_khr_gl_sharing a renderer could draw from the
     * transform buffer without a copy; that needs a context made with the GL
     * context's properties, which the renderer would hand in. Until then we
     * only say whether it is there; transforms are read back (32 B a body). */
    size_t ext_size = 0;
    clGetDeviceInfo(dev.device, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size);
    char *ext = malloc(ext_size + 1);
    if (ext && clGetDeviceInfo(dev.device, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
        ext[ext_size] = 0;
        o->gl_sharing = strstr(ext, "cl_khr_gl_sharing") != NULL;
    }
    free(ext);

    if (!rb_ocl_choose_kernels(o, dev.is_gpu, err, err_size) || !rb_ocl_build_program(o, err, err_size)) goto fail;
    const size_t name_len = strlen(o->device_name); /* the kernel set is part of what a benchmark ran on */
    snprintf(o->device_name + name_len, sizeof o->device_name - name_len, ", %s kernels",
             o->gpu_kernels ? "GPU" : "CPU");

    o->events = malloc(RB_EVENT_BATCH * sizeof *o->events);
    o->event_kernel = malloc(RB_EVENT_BATCH * sizeof *o->event_kernel);
    if (!o->events || !o->event_kernel || !rb_ocl_make_buffer(o, &o->buf.planes, RB_MAX_PLANES * 16u, "planes") ||
        !rb_ocl_make_buffer(o, &o->buf.rates, sizeof(rb_contact_rates) * RB_MAX_MATERIALS * RB_MAX_MATERIALS,
                            "rates") ||
        !rb_ocl_make_buffer(o, &o->buf.rolling, sizeof(float) * RB_MAX_MATERIALS * RB_MAX_MATERIALS, "rolling") ||
        !rb_ocl_make_buffer(o, &o->buf.roll, 16u, "roll") ||
        !rb_ocl_make_buffer(o, &o->buf.overflow, sizeof(cl_uint), "overflow") ||
        !rb_ocl_make_buffer(o, &o->buf.rested, sizeof(cl_uint), "rested") ||
        !rb_ocl_make_buffer(o, &o->buf.sleepers, sizeof(cl_uint), "sleepers") ||
        !rb_ocl_make_counter(o, &o->buf.far_all, "far_all") ||
        !rb_ocl_make_counter(o, &o->buf.far_count, "far_count") || !rb_ocl_reserve_bodies(o, 0) ||
        !rb_ocl_reserve_particles(o, 0, 4u) ||
        !RB_CL_CHECK("clEnqueueFillBuffer(rested)",
                     clEnqueueFillBuffer(o->queue, o->buf.rested.mem, &o->rested_seen, sizeof o->rested_seen, 0,
                                         sizeof o->rested_seen, 0, NULL, NULL)) ||
        !RB_CL_CHECK("clEnqueueFillBuffer(overflow)",
                     clEnqueueFillBuffer(o->queue, o->buf.overflow.mem, &o->overflow_seen, sizeof o->overflow_seen, 0,
                                         sizeof(cl_uint), 0, NULL, NULL))) {
        snprintf(err, err_size, "cannot allocate the first buffers (see the log)");
        goto fail;
    }
    rb_log(RB_LOG_INFO, "OpenCL backend on %s%s", o->device_name,
           o->gl_sharing ? " (cl_khr_gl_sharing available)" : " (no cl_khr_gl_sharing: transforms are read back)");
    return &o->base;
fail:
    ocl_destroy(&o->base);
    return NULL;
}
