/* opencl.c - the OpenCL backend: the whole step (README.md, "Physics") in the .cl files in kernels/.
 *
 * The device holds the state between upload() and download(); a step call
 * enqueues every step's kernels back to back and waits once at the end. Each
 * kernel is timed with profiling events. Buffers grow with the world (never
 * a fixed cap); the world compacts its arrays when a body goes and uploads
 * them again, so the device never sees holes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "opencl.h"
#include "opencl_backend.h"
#include "opencl_kernels.h"

/* Bodies a work-group of the integration's kernels on a CPU: few, so
 * that a world of a hundred bodies still spreads over the cores. */
#define RB_CPU_BODY_GROUP 32u
/* Bodies a work-item of rb_integrate, one a lane of float8: the kernel is
 * written for 8 and refuses to build for another (kernels/integrate.cl). */
#define RB_INTEGRATE_LANES 8u
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
/* Slots past the last particle in the sorted copies and the members: the
 * force pass and the reorder load eight at a time. */
#define RB_RUN_PAD 8u
/* Work-group size for the per-particle kernels (halved for a kernel that
 * allows less on the device). */
#define RB_PARTICLE_GROUP 256u
/* Buckets per particle, at least. Particles of other cells that share a
 * bucket cost only vector lanes in the force pass (eight slots are tested at
 * once), so a small table wins: at 1, pile 3000's force pass took 5% less
 * time than at 2, with 6 bytes a particle less. */
#define RB_TABLE_FACTOR 1u
/* Kernel times are taken on one step in RB_PROFILE_EVERY and scaled to the
 * call's steps: on an H100 a profiling event costs about as much as a short
 * kernel, and timing every kernel made a step of 1,000 cubes take twice as
 * long (0.145 against 0.068 ms). */
#define RB_PROFILE_EVERY 8u
/* Profiling events kept before they are read and released. */
#define RB_EVENT_BATCH 4096u

/* Work-items of a block-scan work-group; a block is 4 counters a work-item. */
#define RB_SCAN_GROUP 256u
#define RB_SCAN_BLOCK (4u * RB_SCAN_GROUP)

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

/* ---- buffers ---- */

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

static void release_buffer(ocl_buffer *b) {
    if (b->mem) clReleaseMemObject(b->mem);
    b->mem = NULL;
    b->bytes = 0;
}

static bool make_buffer(ocl *o, ocl_buffer *b, size_t bytes, const char *what) {
    release_buffer(b);
    cl_int e;
    b->mem = clCreateBuffer(o->context, CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &e);
    if (e != CL_SUCCESS) {
        rb_log(RB_LOG_ERROR, "OpenCL: clCreateBuffer(%s, %zu bytes) failed: %s (%d)", what, bytes,
               rb_opencl_error_name(e), e);
        b->mem = NULL;
        return false;
    }
    b->bytes = bytes ? bytes : 16;
    return true;
}

/* A 4-byte counter the kernels bump with atomic_add (breaks of pieces or
 * joints), made and zeroed the first time it is needed. */
static bool make_counter(ocl *o, ocl_buffer *b, const char *what) {
    if (b->mem) return true;
    const cl_uint zero = 0;
    return make_buffer(o, b, 4u, what) &&
           rb_cl_check(clEnqueueFillBuffer(o->queue, b->mem, &zero, sizeof zero, 0, 4u, 0, NULL, NULL),
                       "clEnqueueFillBuffer(counter)", NULL, 0);
}

static uint32_t grown(uint32_t need, uint32_t cap) {
    uint32_t next = cap + cap / 2; /* geometric growth when the world grows while running */
    return need > next ? need : next;
}

static bool reserve_bodies(ocl *o, uint32_t n) {
    if (n <= o->body_capacity && o->buf.body_pos.mem) return true;
    const size_t cap = grown(n < 16 ? 16 : n, o->body_capacity);
    ocl_buffers *b = &o->buf;
    bool ok =
        make_buffer(o, &b->body_pos, cap * 16u, "body_pos") && make_buffer(o, &b->body_quat, cap * 16u, "body_quat") &&
        make_buffer(o, &b->body_vel, cap * 16u, "body_vel") &&
        make_buffer(o, &b->body_angmom, cap * 16u, "body_angmom") &&
        make_buffer(o, &b->body_omega, cap * 16u, "body_omega") &&
        make_buffer(o, &b->body_inv_inertia, cap * 16u, "body_inv_inertia") &&
        make_buffer(o, &b->body_force, cap * 16u, "body_force") &&
        make_buffer(o, &b->body_torque, cap * 16u, "body_torque") &&
        make_buffer(o, &b->body_first_particle, (cap + 1u) * 4u, "body_first_particle") &&
        make_buffer(o, &b->body_kind, cap * 4u, "body_kind") &&
        make_buffer(o, &b->body_material, cap * 4u, "body_material") &&
        make_buffer(o, &b->body_contact, cap * 16u, "body_contact") &&
        make_buffer(o, &b->body_support, cap * 4u, "body_support") &&
        make_buffer(o, &b->body_frame, cap * 32u, "body_frame") &&
        make_buffer(o, &b->body_load, cap * 32u, "body_load") && make_buffer(o, &b->wake, cap * 4u, "wake") &&
        make_buffer(o, &b->body_run, cap * 4u, "body_run") && make_buffer(o, &b->body_near, cap * 4u, "body_near") &&
        make_buffer(o, &b->body_reach, cap * 4u, "body_reach") && make_buffer(o, &b->body_far, cap * 4u, "body_far") &&
        make_buffer(o, &b->transforms, cap * 32u, "transforms") &&
        make_buffer(o, &b->body_first_piece, (cap + 1u) * 4u, "body_first_piece");
    o->body_capacity = ok ? (uint32_t)cap : 0;
    return ok;
}

/* Most particles one device table can index: the table of RB_TABLE_FACTOR
 * buckets a particle must stay a 32-bit power of two. */
#define RB_MAX_PARTICLES (1u << 29)

/* A history buffer of cap particles holding the old one's: the history is
 * state, kept across growth (the world uploads it only when bodies went). */
static bool grow_kept(ocl *o, ocl_buffer *buf, size_t bytes, const char *what) {
    ocl_buffer old = *buf;
    *buf = (ocl_buffer){0};
    if (!make_buffer(o, buf, bytes, what)) {
        *buf = old;
        return false;
    }
    bool ok = true;
    if (old.mem) {
        ok = RB_CL_CHECK("clEnqueueCopyBuffer(history)",
                         clEnqueueCopyBuffer(o->queue, old.mem, buf->mem, 0, 0, old.bytes, 0, NULL, NULL)) &&
             RB_CL_CHECK("clFinish", clFinish(o->queue));
        release_buffer(&old);
    }
    return ok;
}

/* The history buffers at `slots` a particle, their contents to come from
 * the world (which uploads the whole history when its slots change). */
static bool lay_out_slots(ocl *o, uint32_t slots) {
    ocl_buffers *b = &o->buf;
    const size_t cap = o->particle_capacity;
    release_buffer(&b->keys), release_buffer(&b->disp);
    bool ok = make_buffer(o, &b->keys, cap * slots * 4u, "keys") && make_buffer(o, &b->disp, cap * slots * 12u, "disp");
    if (ok && o->rolling) {
        release_buffer(&b->roll);
        ok = make_buffer(o, &b->roll, cap * slots * 12u, "roll");
    }
    o->slots = slots;
    return ok;
}

static bool reserve_particles(ocl *o, uint32_t n, uint32_t slots) {
    ocl_buffers *b = &o->buf;
    if (n > RB_MAX_PARTICLES) {
        rb_log(RB_LOG_ERROR, "OpenCL backend: %u particles; at most %u fit one grid table", n, RB_MAX_PARTICLES);
        return false;
    }
    if (n > o->particle_capacity || !b->particle_offset.mem) {
        /* whole work-groups: rb_hash_particles and rb_particle_positions run
         * on past the last particle, into the padding (grid.cl) */
        const size_t cap = round_up(grown(n < 64 ? 64 : n, o->particle_capacity), RB_PARTICLE_GROUP);
        bool ok = make_buffer(o, &b->particle_offset, cap * 16u, "particle_offset") &&
                  make_buffer(o, &b->particle_body, cap * 4u, "particle_body") &&
                  make_buffer(o, &b->particle_hash, cap * 4u, "particle_hash") &&
                  make_buffer(o, &b->particle_key, cap * 4u, "particle_key") &&
                  make_buffer(o, &b->members, (cap + RB_RUN_PAD) * 4u, "members") &&
                  make_buffer(o, &b->sorted_index, cap * 4u, "sorted_index") &&
                  make_buffer(o, &b->sorted_x, (cap + RB_RUN_PAD) * 4u, "sorted_x") &&
                  make_buffer(o, &b->sorted_y, (cap + RB_RUN_PAD) * 4u, "sorted_y") &&
                  make_buffer(o, &b->sorted_z, (cap + RB_RUN_PAD) * 4u, "sorted_z") &&
                  make_buffer(o, &b->sorted_body, (cap + RB_RUN_PAD) * 4u, "sorted_body") &&
                  make_buffer(o, &b->sorted_vel, cap * 16u, "sorted_vel") &&
                  make_buffer(o, &b->force, cap * 12u, "force") && make_buffer(o, &b->moment, cap * 12u, "moment") &&
                  make_buffer(o, &b->support, cap * 4u, "support") &&
                  make_buffer(o, &b->particle_member, cap * 4u, "particle_member") &&
                  grow_kept(o, &b->keys, cap * o->slots * 4u, "keys") &&
                  grow_kept(o, &b->disp, cap * o->slots * 12u, "disp") &&
                  (!o->rolling || grow_kept(o, &b->roll, cap * o->slots * 12u, "roll"));
        o->particle_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    if (slots != o->slots && !lay_out_slots(o, slots)) return false;
    /* A power-of-two table of at least RB_TABLE_FACTOR buckets a particle,
     * and at least one block of the block scan; the chunk scan takes it in
     * chunks of a few hundred buckets (about 1024 chunks). */
    uint32_t table = RB_SCAN_BLOCK;
    while (table < RB_TABLE_FACTOR * n) table *= 2;
    const uint32_t chunk = table / 1024 < 16 ? 16 : table / 1024;
    o->table_size = table;
    o->chunk_size = chunk;
    o->chunk_count = table / chunk;
    o->block_count = table / RB_SCAN_BLOCK;
    if (table > o->table_capacity || !b->table.mem || !b->counts.mem) {
        o->table_capacity = 0;
        if (!make_buffer(o, &b->table, ((size_t)table + 1u) * 4u, "table") ||
            !make_buffer(o, &b->counts, (size_t)table * 4u, "counts"))
            return false;
        o->counts_dirty = true; /* new: zeroed before the first hash pass (enqueue_grid) */
        o->table_capacity = table;
    }
    const uint32_t sums = o->gpu_kernels ? o->block_count : o->chunk_count;
    if (sums > o->scan_capacity || !b->scan_sums.mem) {
        if (!make_buffer(o, &b->scan_sums, (size_t)sums * 4u, "scan_sums")) return o->scan_capacity = 0, false;
        o->scan_capacity = sums;
    }
    return true;
}

static bool reserve_staging(ocl *o, size_t bytes) {
    if (bytes <= o->staging_bytes) return true;
    float *s = realloc(o->staging, bytes);
    if (!s) {
        rb_log(RB_LOG_ERROR, "OpenCL backend: out of host memory (%zu bytes)", bytes);
        return false;
    }
    o->staging = s;
    o->staging_bytes = bytes;
    return true;
}

static bool write_buffer(ocl *o, ocl_buffer *b, const void *src, size_t bytes, const char *what) {
    if (bytes == 0) return true;
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
    if (e == CL_SUCCESS) return true;
    rb_log(RB_LOG_ERROR, "OpenCL: clEnqueueWriteBuffer(%s) failed: %s (%d)", what, rb_opencl_error_name(e), e);
    return false;
}

static bool read_buffer(ocl *o, ocl_buffer *b, void *dst, size_t bytes, const char *what) {
    if (bytes == 0) return true;
    cl_int e = clEnqueueReadBuffer(o->queue, b->mem, CL_FALSE, 0, bytes, dst, 0, NULL, NULL);
    if (e == CL_SUCCESS) return true;
    rb_log(RB_LOG_ERROR, "OpenCL: clEnqueueReadBuffer(%s) failed: %s (%d)", what, rb_opencl_error_name(e), e);
    return false;
}

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
    global = round_up(global, local);
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

/* The breakable bodies' pieces (world_internal.h), with their loads as the
 * host has them (it reads them back before it changes anything). */
static bool upload_pieces(ocl *o, const rb_world_data *d) {
    ocl_buffers *B = &o->buf;
    const uint32_t nb = d->body_count, np = d->particle_count, n = d->piece_count;
    if (!make_counter(o, &B->breaks, "breaks")) return false;
    if (n > o->piece_capacity || !B->piece_info.mem) {
        const size_t cap = grown(n < 16 ? 16 : n, o->piece_capacity);
        bool ok = make_buffer(o, &B->piece_info, cap * 16u, "piece_info") &&
                  make_buffer(o, &B->piece_holds, cap * 4u, "piece_holds") &&
                  make_buffer(o, &B->piece_span, cap * 8u, "piece_span") &&
                  make_buffer(o, &B->piece_load, cap * 4u, "piece_load");
        o->piece_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    o->piece_count = n;
    return write_buffer(o, &B->body_first_piece, d->body_first_piece, ((size_t)nb + 1u) * 4u, "body_first_piece") &&
           (n == 0 || (write_buffer(o, &B->particle_member, d->particle_member, (size_t)np * 4u, "particle_member") &&
                       write_buffer(o, &B->piece_info, d->piece_info, (size_t)n * 16u, "piece_info") &&
                       write_buffer(o, &B->piece_holds, d->piece_holds, (size_t)n * 4u, "piece_holds") &&
                       write_buffer(o, &B->piece_span, d->piece_span, (size_t)n * 8u, "piece_span") &&
                       write_buffer(o, &B->piece_load, d->piece_load, (size_t)n * 4u, "piece_load")));
}

/* The joints (world_internal.h), with their broken flags and peaks as the
 * host has them (it reads them back before it changes anything). Nothing
 * is made before the first joint. */
static bool upload_joints(ocl *o, const rb_world_data *d) {
    ocl_buffers *B = &o->buf;
    const uint32_t n = d->joint_count, nb = d->body_count;
    o->joint_count = 0;
    if (n == 0) return true;
    if (!make_counter(o, &B->joint_breaks, "joint_breaks")) return false;
    if (n > o->joint_capacity || !B->joint_body.mem) {
        const size_t cap = grown(n < 16 ? 16 : n, o->joint_capacity);
        bool ok = make_buffer(o, &B->joint_body, cap * 8u, "joint_body") &&
                  make_buffer(o, &B->joint_anchor_a, cap * 16u, "joint_anchor_a") &&
                  make_buffer(o, &B->joint_anchor_b, cap * 16u, "joint_anchor_b") &&
                  make_buffer(o, &B->joint_limit, cap * 4u, "joint_limit") &&
                  make_buffer(o, &B->joint_broken, cap * 4u, "joint_broken") &&
                  make_buffer(o, &B->joint_peak, cap * 4u, "joint_peak") &&
                  make_buffer(o, &B->joint_out, cap * 48u, "joint_out") &&
                  make_buffer(o, &B->joint_list, cap * 8u, "joint_list");
        o->joint_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    if (nb > o->joint_body_capacity || !B->load_force.mem) {
        const size_t cap = o->body_capacity;
        bool ok = make_buffer(o, &B->body_first_joint, (cap + 1u) * 4u, "body_first_joint") &&
                  make_buffer(o, &B->load_force, cap * 16u, "load_force") &&
                  make_buffer(o, &B->load_torque, cap * 16u, "load_torque");
        o->joint_body_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    const bool ok =
        write_buffer(o, &B->joint_body, d->joint_body, (size_t)n * 8u, "joint_body") &&
        write_buffer(o, &B->joint_anchor_a, d->joint_anchor_a, (size_t)n * 16u, "joint_anchor_a") &&
        write_buffer(o, &B->joint_anchor_b, d->joint_anchor_b, (size_t)n * 16u, "joint_anchor_b") &&
        write_buffer(o, &B->joint_limit, d->joint_limit, (size_t)n * 4u, "joint_limit") &&
        write_buffer(o, &B->joint_broken, d->joint_broken, (size_t)n * 4u, "joint_broken") &&
        write_buffer(o, &B->joint_peak, d->joint_peak, (size_t)n * 4u, "joint_peak") &&
        write_buffer(o, &B->joint_list, d->joint_list, (size_t)n * 8u, "joint_list") &&
        write_buffer(o, &B->body_first_joint, d->body_first_joint, ((size_t)nb + 1u) * 4u, "body_first_joint");
    o->joint_count = ok ? n : 0;
    return ok;
}

static uint32_t ocl_take_joint_break_count(rb_backend *base) {
    ocl *o = (ocl *)base;
    cl_uint n = 0;
    if (!o->buf.joint_breaks.mem || !read_buffer(o, &o->buf.joint_breaks, &n, sizeof n, "joint_breaks") ||
        !RB_CL_CHECK("clFinish", clFinish(o->queue)))
        return 0;
    if (n) {
        const cl_uint zero = 0;
        RB_CL_CHECK("clEnqueueFillBuffer(joint_breaks)",
                    clEnqueueFillBuffer(o->queue, o->buf.joint_breaks.mem, &zero, sizeof zero, 0, 4u, 0, NULL, NULL));
    }
    return n;
}

/* A path's steering (world.c): the listed bodies' velocities, 16 B each of
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
    cl_uint n = 0;
    if (!o->buf.breaks.mem || !read_buffer(o, &o->buf.breaks, &n, sizeof n, "breaks") ||
        !RB_CL_CHECK("clFinish", clFinish(o->queue)))
        return 0;
    if (n) {
        const cl_uint zero = 0;
        RB_CL_CHECK("clEnqueueFillBuffer(breaks)",
                    clEnqueueFillBuffer(o->queue, o->buf.breaks.mem, &zero, sizeof zero, 0, 4u, 0, NULL, NULL));
    }
    return n;
}

/* The coarse table of far.cl for nb bodies: 8 slots a body, at least 256,
 * a power of two; zeroed when made (no stamp is 0). */
static bool size_coarse(ocl *o, uint32_t nb) {
    uint32_t size = 256u;
    while (size < 8u * (uint64_t)nb && size < (1u << 30)) size *= 2u;
    if (size == o->coarse_size && o->buf.coarse.mem) return true;
    const cl_uint zero = 0;
    o->coarse_size = 0;
    if (!make_buffer(o, &o->buf.coarse, (size_t)size * 4u, "coarse") ||
        !RB_CL_CHECK("clEnqueueFillBuffer(coarse)", clEnqueueFillBuffer(o->queue, o->buf.coarse.mem, &zero, sizeof zero,
                                                                        0, (size_t)size * 4u, 0, NULL, NULL)))
        return false;
    o->coarse_size = size;
    return true;
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
    return write_buffer(o, &o->buf.body_reach, reach, (size_t)d->body_count * 4u, "body_reach");
}

static bool ocl_upload(rb_backend *base, const rb_world_data *d, const rb_step_params *p) {
    ocl *o = (ocl *)base;
    const uint32_t nb = d->body_count, np = d->particle_count;
    if (!reserve_bodies(o, nb) || !reserve_particles(o, np, d->contact_slots) ||
        !reserve_staging(o, (size_t)nb * 68u) || !size_coarse(o, nb))
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
    bool ok = write_buffer(o, &B->body_pos, d->body_pos, b16, "body_pos") &&
              write_buffer(o, &B->body_quat, d->body_quat, b16, "body_quat") &&
              write_buffer(o, &B->body_vel, d->body_vel, b16, "body_vel") &&
              write_buffer(o, &B->body_angmom, d->body_angmom, b16, "body_angmom") &&
              write_buffer(o, &B->body_omega, d->body_omega, b16, "body_omega") &&
              write_buffer(o, &B->body_inv_inertia, d->body_inv_inertia, b16, "body_inv_inertia") &&
              write_buffer(o, &B->body_force, d->body_force, b16, "body_force") &&
              write_buffer(o, &B->body_torque, d->body_torque, b16, "body_torque") &&
              write_buffer(o, &B->body_first_particle, d->body_first_particle, ((size_t)nb + 1u) * 4u,
                           "body_first_particle") &&
              write_buffer(o, &B->body_kind, d->body_kind, (size_t)nb * 4u, "body_kind") &&
              write_buffer(o, &B->body_material, d->body_material, (size_t)nb * 4u, "body_material") &&
              write_buffer(o, &B->body_contact, d->body_contact, b16, "body_contact") &&
              write_buffer(o, &B->body_support, d->body_support, (size_t)nb * 4u, "body_support") &&
              write_buffer(o, &B->transforms, o->staging, (size_t)nb * 32u, "transforms") &&
              write_buffer(o, &B->body_frame, frames, (size_t)nb * 32u, "body_frame") &&
              write_buffer(o, &B->particle_offset, d->particle_offset, (size_t)np * 16u, "particle_offset") &&
              write_buffer(o, &B->particle_body, d->particle_body, (size_t)np * 4u, "particle_body") &&
              upload_reach(o, d, p, o->staging + 16 * (size_t)nb) && upload_pieces(o, d) && upload_joints(o, d);
    /* The host changed the state: every body runs its next step, and none
     * was near another yet (forces.cl, resting). */
    const cl_uint one = 1u, zero = 0u;
    ok = ok &&
         RB_CL_CHECK("clEnqueueFillBuffer(body_run)", clEnqueueFillBuffer(o->queue, B->body_run.mem, &one, sizeof one,
                                                                          0, (size_t)nb * 4u, 0, NULL, NULL)) &&
         RB_CL_CHECK(
             "clEnqueueFillBuffer(body_near)",
             clEnqueueFillBuffer(o->queue, B->body_near.mem, &zero, sizeof zero, 0, (size_t)nb * 4u, 0, NULL, NULL)) &&
         write_buffer(o, &B->sleepers, &sleepers, sizeof sleepers, "sleepers");
    o->sleepers_seen = sleepers;
    /* The padding to the last whole work-group belongs to body 0, so that
     * the kernels that run on into it read within the body arrays (grid.cl). */
    const cl_uint body0 = 0;
    const size_t padded = round_up(np, RB_PARTICLE_GROUP);
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
    release_buffer(roll);
    if (!make_buffer(o, roll, (size_t)o->particle_capacity * o->slots * 12u, "roll")) {
        make_buffer(o, roll, 16u, "roll"); /* the kernels take a buffer either way */
        return false;
    }
    o->rolling = true;
    return o->particle_count == 0 ||
           (write_buffer(o, roll, d->particle_roll, (size_t)o->particle_count * o->slots * 12u, "roll") &&
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
        ok = read_buffer(o, &o->buf.sleepers, &o->sleepers_seen, sizeof o->sleepers_seen, "sleepers");
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
    bool ok = read_buffer(o, &B->body_pos, d->body_pos, b16, "body_pos") &&
              read_buffer(o, &B->body_quat, d->body_quat, b16, "body_quat") &&
              read_buffer(o, &B->body_vel, d->body_vel, b16, "body_vel") &&
              read_buffer(o, &B->body_angmom, d->body_angmom, b16, "body_angmom") &&
              read_buffer(o, &B->body_omega, d->body_omega, b16, "body_omega") &&
              read_buffer(o, &B->body_support, d->body_support, (size_t)o->body_count * 4u, "body_support") &&
              (o->piece_count == 0 ||
               read_buffer(o, &B->piece_load, d->piece_load, (size_t)o->piece_count * 4u, "piece_load")) &&
              (o->joint_count == 0 ||
               (read_buffer(o, &B->joint_broken, d->joint_broken, (size_t)o->joint_count * 4u, "joint_broken") &&
                read_buffer(o, &B->joint_peak, d->joint_peak, (size_t)o->joint_count * 4u, "joint_peak")));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static bool ocl_download_slots(rb_backend *base, rb_world_data *d) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    const size_t n = (size_t)o->particle_count * o->slots;
    bool ok = read_buffer(o, &o->buf.keys, d->particle_keys, n * 4u, "keys") &&
              read_buffer(o, &o->buf.disp, d->particle_disp, n * 12u, "disp") &&
              (!o->rolling || read_buffer(o, &o->buf.roll, d->particle_roll, n * 12u, "roll"));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

static bool ocl_upload_slots(rb_backend *base, const rb_world_data *d) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d)) return false;
    const size_t n = (size_t)o->particle_count * o->slots;
    bool ok = write_buffer(o, &o->buf.keys, d->particle_keys, n * 4u, "keys") &&
              write_buffer(o, &o->buf.disp, d->particle_disp, n * 12u, "disp") &&
              (!o->rolling || write_buffer(o, &o->buf.roll, d->particle_roll, n * 12u, "roll"));
    return RB_CL_CHECK("clFinish", clFinish(o->queue)) && ok;
}

/* A count the device keeps in 32 bits (b), read only when asked (a read
 * after every step call cost a small pile a fifth of its step on a GPU):
 * *total grows by what it counted since *seen, which is right as long as
 * fewer than 2^32 come between two questions. */
static uint64_t read_count(ocl *o, ocl_buffer *b, cl_uint *seen, uint64_t *total, const char *what) {
    cl_uint now = *seen;
    if (read_buffer(o, b, &now, sizeof now, what) && RB_CL_CHECK("clFinish", clFinish(o->queue))) {
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
    bool ok = read_buffer(o, b, out, (size_t)n * 12u, "force");
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
    for (size_t i = 0; i < RB_BUFFER_COUNT; i++) release_buffer(&all[i]);
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

/* rb_world_warm: one step with every buffer kept (rb_cl_snapshot) and put
 * back after, and the one flag a step changes (counts_dirty): PoCL compiles
 * a kernel at its first launch, and that launch leaves nothing behind. What
 * a step writes once and remembers it wrote (the roll buffer, the planes
 * and the pair table rb_ocl_set_args writes when they change) is written before
 * the copies are taken, so that they keep it. */
static bool ocl_warm(rb_backend *base, rb_world_data *d, const rb_step_params *p) {
    ocl *o = (ocl *)base;
    if (!same_counts(o, d) || o->body_count == 0 || !ensure_roll(o, d, p) || !rb_ocl_set_args(o, p, 1)) return false;
    ocl_buffer *all = (ocl_buffer *)&o->buf;
    cl_mem mems[RB_BUFFER_COUNT], copies[RB_BUFFER_COUNT];
    size_t bytes[RB_BUFFER_COUNT];
    for (size_t i = 0; i < RB_BUFFER_COUNT; i++) mems[i] = all[i].mem, bytes[i] = all[i].bytes;
    if (!rb_cl_snapshot(o->context, o->queue, mems, bytes, RB_BUFFER_COUNT, copies)) return false;
    const bool counts_dirty = o->counts_dirty;
    bool ok = ocl_step(base, d, p, 1);
    /* and a step with the force pass's other work-group (force_group), which
     * PoCL builds on its first launch: a world whose bodies get smaller or
     * larger on average as it runs does not wait for that build then */
    const size_t size = o->group[K_FORCES],
                 other = size != o->force_group_most ? o->force_group_most : small_force_group(o);
    if (ok && !o->gpu_kernels && other != size) {
        o->group[K_FORCES] = other;
        ok = ocl_step(base, d, p, 1);
        o->group[K_FORCES] = size;
    }
    ok = rb_cl_restore(o->queue, mems, bytes, RB_BUFFER_COUNT, copies) && ok;
    o->counts_dirty = counts_dirty;
    return ok;
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

/* Builds the program from the embedded sources; each file is announced with
 * #line so compiler messages name it. On failure the whole build log is
 * logged and err gets its start. */
static bool build_program(ocl *o, char *err, size_t err_size) {
    const unsigned files = rb_kernel_source_count;
    const char **texts = calloc(2u * files, sizeof *texts);
    char(*lines)[160] = calloc(files, sizeof *lines);
    if (!texts || !lines) {
        free(texts), free(lines);
        return snprintf(err, err_size, "out of memory"), false;
    }
    for (unsigned f = 0; f < files; f++) {
        snprintf(lines[f], sizeof lines[f], "\n#line 1 \"%s\"\n", rb_kernel_sources[f].name);
        texts[2 * f] = lines[f];
        texts[2 * f + 1] = rb_kernel_sources[f].text;
    }
    cl_int e;
    o->program = clCreateProgramWithSource(o->context, 2u * files, texts, NULL, &e);
    free(texts), free(lines);
    if (!rb_cl_check(e, "clCreateProgramWithSource", err, err_size)) return false;

    /* Exact division and square root where the device offers them, so the
     * contact law gives the reference's bits. The CPU kernel set is built
     * with RB_CPU_KERNELS, which fixes the force pass's order (forces.cl,
     * RB_ORDER); a GPU set that turns to the CPU kernels below, after the
     * build, reads the order from the kernel's argument as before. */
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    char options[768];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DRB_SUM_PARTS=%uu -DRB_MIN_CHUNK=%uu -DRB_MAX_MATERIALS=%uu -DRB_SCAN_GROUP=%uu "
             "-DRB_MAX_CONTACT_SLOTS=%uu -DRB_SLOT_FREE=%#xu -DRB_SLOT_PLANE=%#xu -DRB_MAX_PLANES=%uu "
             "-DRB_TANGENTIAL_SPRING=%.9gf -DRB_ROLLING_SPRING=%.9gf -DRB_JOINT_WORLD=%#xu -DRB_CELL_SEAM=%.9gf "
             "-DRB_CELL_ROUNDING=%.9gf -DRB_INTEGRATE_LANES=%uu%s%s",
             RB_SUM_PARTS, RB_SUM_MIN_CHUNK, (unsigned)RB_MAX_MATERIALS, RB_SCAN_GROUP, RB_MAX_CONTACT_SLOTS,
             RB_SLOT_FREE, RB_SLOT_PLANE, (unsigned)RB_MAX_PLANES, (double)RB_TANGENTIAL_SPRING,
             (double)RB_ROLLING_SPRING, RB_JOINT_WORLD, (double)RB_CELL_SEAM, (double)RB_CELL_ROUNDING,
             RB_INTEGRATE_LANES,
             (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             o->gpu_kernels ? "" : " -DRB_CPU_KERNELS");
    e = clBuildProgram(o->program, 1, &o->device, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t size = 0;
        clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        char *log = malloc(size + 1);
        if (log) {
            log[0] = 0;
            clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
            log[size] = 0;
        }
        rb_log(RB_LOG_ERROR, "OpenCL: building the kernels failed (%s); build log:\n%s", rb_opencl_error_name(e),
               log ? log : "(no memory for the log)");
        snprintf(err, err_size, "clBuildProgram failed: %s (%d); build log: %.300s", rb_opencl_error_name(e), e,
                 log ? log : "");
        free(log);
        return false;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (!rb_ocl_kernel_entry[k]) continue;
        o->kernels[k] = clCreateKernel(o->program, rb_ocl_kernel_entry[k], &e);
        if (e != CL_SUCCESS) {
            snprintf(err, err_size, "clCreateKernel(%s) failed: %s (%d)", rb_ocl_kernel_entry[k],
                     rb_opencl_error_name(e), e);
            return false;
        }
        /* A kernel may allow smaller groups than the device (registers): the
         * per-particle kernels take any size, so halve RB_PARTICLE_GROUP to fit. */
        size_t limit = 0;
        e = clGetKernelWorkGroupInfo(o->kernels[k], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL);
        if (e != CL_SUCCESS) {
            snprintf(err, err_size, "clGetKernelWorkGroupInfo(%s) failed: %s (%d)", rb_ocl_kernel_entry[k],
                     rb_opencl_error_name(e), e);
            return false;
        }
        o->group[k] = RB_PARTICLE_GROUP;
        while (o->group[k] > 1 && o->group[k] > limit) o->group[k] /= 2;
        const bool block_kernel = k == K_BLOCK_SUMS || k == K_BLOCK_OFFSETS || k == K_BLOCKS;
        if (block_kernel && o->gpu_kernels && limit < (k == K_BLOCK_OFFSETS ? o->offsets_group : RB_SCAN_GROUP)) {
            rb_log(RB_LOG_WARN, "OpenCL: %s allows work-groups of %zu on this device: the CPU kernels instead",
                   rb_ocl_kernel_entry[k], limit);
            o->gpu_kernels = false;
        }
        /* the integration's: RB_CPU_BODY_GROUP bodies a work-group, eight a work-item of rb_integrate */
        const size_t bodies = k == K_INTEGRATE ? RB_CPU_BODY_GROUP / RB_INTEGRATE_LANES : RB_CPU_BODY_GROUP;
        const bool body_kernel = k == K_SUM_BODIES || k == K_INTEGRATE;
        if (body_kernel && !o->gpu_kernels && o->group[k] > bodies) o->group[k] = bodies;
        if (k == K_FORCES) o->force_group_most = o->group[k];
    }
    return true;
}

/* The kernel set for the device: the GPU kernels on a GPU, the CPU kernels
 * elsewhere, unless RUBBLE_OPENCL_KERNELS says "cpu", "gpu" or "gpu:N" (the
 * GPU kernels with N work-items, a power of two up to RB_SCAN_GROUP, in the
 * block scan's offsets pass: the tests' way to make that pass loop over
 * several tiles with a small table). */
static bool choose_kernels(ocl *o, bool is_gpu, char *err, size_t err_size) {
    o->gpu_kernels = is_gpu;
    o->offsets_group = RB_SCAN_GROUP;
    const char *v = getenv("RUBBLE_OPENCL_KERNELS");
    if (!v || !*v) return true;
    unsigned group = RB_SCAN_GROUP;
    char tail;
    if (strcmp(v, "cpu") == 0)
        o->gpu_kernels = false;
    else if (strcmp(v, "gpu") == 0 || (sscanf(v, "gpu:%u%c", &group, &tail) == 1 && group >= 1 &&
                                       group <= RB_SCAN_GROUP && (group & (group - 1)) == 0))
        o->gpu_kernels = true, o->offsets_group = group;
    else
        return snprintf(err, err_size,
                        "RUBBLE_OPENCL_KERNELS=%s: expected cpu, gpu or gpu:N (N a power of two up to %u)", v,
                        RB_SCAN_GROUP),
               false;
    return true;
}

/* The device asked for: an index across all platforms, or (index < 0) the
 * first GPU, else the first device. */
static bool pick_device(int index, rb_cl_device *out, char *err, size_t err_size) {
    rb_cl_device *list;
    uint32_t n;
    if (!rb_cl_enumerate(&list, &n, err, err_size)) return false;
    int pick = index;
    if (index < 0) {
        pick = 0;
        for (uint32_t i = 0; i < n; i++)
            if (list[i].is_gpu) {
                pick = (int)i;
                break;
            }
    } else if ((uint32_t)index >= n) {
        snprintf(err, err_size, "no OpenCL device %d: there are %u (see --list-devices)", index, n);
        free(list);
        return false;
    }
    *out = list[pick];
    free(list);
    return true;
}

rb_backend *rb_opencl_create(int device_index, char *err, size_t err_size) {
    char scratch[8];
    if (!err) err = scratch, err_size = sizeof scratch;
    rb_cl_device dev;
    if (!pick_device(device_index, &dev, err, err_size)) return NULL;
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

    if (!choose_kernels(o, dev.is_gpu, err, err_size) || !build_program(o, err, err_size)) goto fail;
    const size_t name_len = strlen(o->device_name); /* the kernel set is part of what a benchmark ran on */
    snprintf(o->device_name + name_len, sizeof o->device_name - name_len, ", %s kernels",
             o->gpu_kernels ? "GPU" : "CPU");

    o->events = malloc(RB_EVENT_BATCH * sizeof *o->events);
    o->event_kernel = malloc(RB_EVENT_BATCH * sizeof *o->event_kernel);
    if (!o->events || !o->event_kernel || !make_buffer(o, &o->buf.planes, RB_MAX_PLANES * 16u, "planes") ||
        !make_buffer(o, &o->buf.rates, sizeof(rb_contact_rates) * RB_MAX_MATERIALS * RB_MAX_MATERIALS, "rates") ||
        !make_buffer(o, &o->buf.rolling, sizeof(float) * RB_MAX_MATERIALS * RB_MAX_MATERIALS, "rolling") ||
        !make_buffer(o, &o->buf.roll, 16u, "roll") || !make_buffer(o, &o->buf.overflow, sizeof(cl_uint), "overflow") ||
        !make_buffer(o, &o->buf.rested, sizeof(cl_uint), "rested") ||
        !make_buffer(o, &o->buf.sleepers, sizeof(cl_uint), "sleepers") ||
        !make_counter(o, &o->buf.far_all, "far_all") || !make_counter(o, &o->buf.far_count, "far_count") ||
        !reserve_bodies(o, 0) || !reserve_particles(o, 0, 4u) ||
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
