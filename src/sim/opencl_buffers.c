/* opencl_buffers.c - the memory of the OpenCL backend (opencl.c): its
 * buffers made, grown with the world (never a fixed cap), written and read;
 * the uploads of the breakable bodies' pieces and of the joints; far.cl's
 * coarse table; and the host scratch. Every failure is logged. */
#include <stddef.h>
#include <stdlib.h>

#include "opencl.h"
#include "opencl_backend.h"

/* Slots past the last particle in the sorted copies and the members: the
 * force pass and the reorder load eight at a time. */
#define RB_RUN_PAD 8u
/* Buckets per particle, at least. Particles of other cells that share a
 * bucket cost only vector lanes in the force pass (eight slots are tested at
 * once), so a small table wins: at 1, pile 3000's force pass took 5% less
 * time than at 2, with 6 bytes a particle less. */
#define RB_TABLE_FACTOR 1u

void rb_ocl_release_buffer(ocl_buffer *b) {
    if (b->mem) clReleaseMemObject(b->mem);
    b->mem = NULL;
    b->bytes = 0;
}

bool rb_ocl_make_buffer(ocl *o, ocl_buffer *b, size_t bytes, const char *what) {
    rb_ocl_release_buffer(b);
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
bool rb_ocl_make_counter(ocl *o, ocl_buffer *b, const char *what) {
    if (b->mem) return true;
    const cl_uint zero = 0;
    return rb_ocl_make_buffer(o, b, 4u, what) &&
           rb_cl_check(clEnqueueFillBuffer(o->queue, b->mem, &zero, sizeof zero, 0, 4u, 0, NULL, NULL),
                       "clEnqueueFillBuffer(counter)", NULL, 0);
}

/* A buffer of a list made at a capacity: (cap + extra) elements of each
 * bytes, named for the log by its field. */
typedef struct sized {
    size_t offset; /* the field's, in ocl_buffers */
    size_t each, extra;
    const char *name;
} sized;
#define RB_SIZED(field, each, extra)                                                                                   \
    { offsetof(ocl_buffers, field), (each), (extra), #field }

/* The list's buffers made for cap elements, each anew. */
static bool make_sized(ocl *o, const sized *list, size_t count, size_t cap) {
    bool ok = true;
    for (size_t k = 0; k < count && ok; k++)
        ok = rb_ocl_make_buffer(o, (ocl_buffer *)((char *)&o->buf + list[k].offset),
                                (cap + list[k].extra) * list[k].each, list[k].name);
    return ok;
}
#define RB_COUNT_OF(list) (sizeof(list) / sizeof *(list))

static uint32_t grown(uint32_t need, uint32_t cap) {
    uint32_t next = cap + cap / 2; /* geometric growth when the world grows while running */
    return need > next ? need : next;
}

bool rb_ocl_reserve_bodies(ocl *o, uint32_t n) {
    if (n <= o->body_capacity && o->buf.body_pos.mem) return true;
    const size_t cap = grown(n < 16 ? 16 : n, o->body_capacity);
    static const sized list[] = {RB_SIZED(body_pos, 16u, 0u),
                                 RB_SIZED(body_quat, 16u, 0u),
                                 RB_SIZED(body_vel, 16u, 0u),
                                 RB_SIZED(body_angmom, 16u, 0u),
                                 RB_SIZED(body_omega, 16u, 0u),
                                 RB_SIZED(body_inv_inertia, 16u, 0u),
                                 RB_SIZED(body_force, 16u, 0u),
                                 RB_SIZED(body_torque, 16u, 0u),
                                 RB_SIZED(body_first_particle, 4u, 1u),
                                 RB_SIZED(body_kind, 4u, 0u),
                                 RB_SIZED(body_material, 4u, 0u),
                                 RB_SIZED(body_contact, 16u, 0u),
                                 RB_SIZED(body_support, 4u, 0u),
                                 RB_SIZED(body_frame, 32u, 0u),
                                 RB_SIZED(body_load, 32u, 0u),
                                 RB_SIZED(wake, 4u, 0u),
                                 RB_SIZED(body_run, 4u, 0u),
                                 RB_SIZED(body_near, 4u, 0u),
                                 RB_SIZED(body_reach, 4u, 0u),
                                 RB_SIZED(body_far, 4u, 0u),
                                 RB_SIZED(transforms, 32u, 0u),
                                 RB_SIZED(body_first_piece, 4u, 1u)};
    const bool ok = make_sized(o, list, RB_COUNT_OF(list), cap);
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
    if (!rb_ocl_make_buffer(o, buf, bytes, what)) {
        *buf = old;
        return false;
    }
    bool ok = true;
    if (old.mem) {
        ok = RB_CL_CHECK("clEnqueueCopyBuffer(history)",
                         clEnqueueCopyBuffer(o->queue, old.mem, buf->mem, 0, 0, old.bytes, 0, NULL, NULL)) &&
             RB_CL_CHECK("clFinish", clFinish(o->queue));
        rb_ocl_release_buffer(&old);
    }
    return ok;
}

/* The history buffers at `slots` a particle, their contents to come from
 * the world (which uploads the whole history when its slots change). */
static bool lay_out_slots(ocl *o, uint32_t slots) {
    ocl_buffers *b = &o->buf;
    const size_t cap = o->particle_capacity;
    rb_ocl_release_buffer(&b->keys), rb_ocl_release_buffer(&b->disp);
    bool ok = rb_ocl_make_buffer(o, &b->keys, cap * slots * 4u, "keys") &&
              rb_ocl_make_buffer(o, &b->disp, cap * slots * 12u, "disp");
    if (ok && o->rolling) {
        rb_ocl_release_buffer(&b->roll);
        ok = rb_ocl_make_buffer(o, &b->roll, cap * slots * 12u, "roll");
    }
    o->slots = slots;
    return ok;
}

bool rb_ocl_reserve_particles(ocl *o, uint32_t n, uint32_t slots) {
    ocl_buffers *b = &o->buf;
    if (n > RB_MAX_PARTICLES) {
        rb_log(RB_LOG_ERROR, "OpenCL backend: %u particles; at most %u fit one grid table", n, RB_MAX_PARTICLES);
        return false;
    }
    if (n > o->particle_capacity || !b->particle_offset.mem) {
        /* whole work-groups: rb_hash_particles and rb_particle_positions run
         * on past the last particle, into the padding (grid.cl) */
        const size_t cap = rb_ocl_round_up(grown(n < 64 ? 64 : n, o->particle_capacity), RB_PARTICLE_GROUP);
        static const sized list[] = {RB_SIZED(particle_offset, 16u, 0u), RB_SIZED(particle_body, 4u, 0u),
                                     RB_SIZED(particle_hash, 4u, 0u),    RB_SIZED(particle_key, 4u, 0u),
                                     RB_SIZED(members, 4u, RB_RUN_PAD),  RB_SIZED(sorted_index, 4u, 0u),
                                     RB_SIZED(sorted_x, 4u, RB_RUN_PAD), RB_SIZED(sorted_y, 4u, RB_RUN_PAD),
                                     RB_SIZED(sorted_z, 4u, RB_RUN_PAD), RB_SIZED(sorted_body, 4u, RB_RUN_PAD),
                                     RB_SIZED(sorted_vel, 16u, 0u),      RB_SIZED(force, 12u, 0u),
                                     RB_SIZED(moment, 12u, 0u),          RB_SIZED(support, 4u, 0u),
                                     RB_SIZED(particle_member, 4u, 0u)};
        bool ok = make_sized(o, list, RB_COUNT_OF(list), cap) && grow_kept(o, &b->keys, cap * o->slots * 4u, "keys") &&
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
        if (!rb_ocl_make_buffer(o, &b->table, ((size_t)table + 1u) * 4u, "table") ||
            !rb_ocl_make_buffer(o, &b->counts, (size_t)table * 4u, "counts"))
            return false;
        o->counts_dirty = true; /* new: zeroed before the first hash pass (enqueue_grid) */
        o->table_capacity = table;
    }
    const uint32_t sums = o->gpu_kernels ? o->block_count : o->chunk_count;
    if (sums > o->scan_capacity || !b->scan_sums.mem) {
        if (!rb_ocl_make_buffer(o, &b->scan_sums, (size_t)sums * 4u, "scan_sums")) return o->scan_capacity = 0, false;
        o->scan_capacity = sums;
    }
    return true;
}

bool rb_ocl_reserve_staging(ocl *o, size_t bytes) {
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

bool rb_ocl_write_buffer(ocl *o, ocl_buffer *b, const void *src, size_t bytes, const char *what) {
    if (bytes == 0) return true;
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
    if (e == CL_SUCCESS) return true;
    rb_log(RB_LOG_ERROR, "OpenCL: clEnqueueWriteBuffer(%s) failed: %s (%d)", what, rb_opencl_error_name(e), e);
    return false;
}

bool rb_ocl_read_buffer(ocl *o, ocl_buffer *b, void *dst, size_t bytes, const char *what) {
    if (bytes == 0) return true;
    cl_int e = clEnqueueReadBuffer(o->queue, b->mem, CL_FALSE, 0, bytes, dst, 0, NULL, NULL);
    if (e == CL_SUCCESS) return true;
    rb_log(RB_LOG_ERROR, "OpenCL: clEnqueueReadBuffer(%s) failed: %s (%d)", what, rb_opencl_error_name(e), e);
    return false;
}

/* The breakable bodies' pieces (world_internal.h), with their loads as the
 * host has them (it reads them back before it changes anything). */
bool rb_ocl_upload_pieces(ocl *o, const rb_world_data *d) {
    ocl_buffers *B = &o->buf;
    const uint32_t nb = d->body_count, np = d->particle_count, n = d->piece_count;
    if (!rb_ocl_make_counter(o, &B->breaks, "breaks")) return false;
    if (n > o->piece_capacity || !B->piece_info.mem) {
        const size_t cap = grown(n < 16 ? 16 : n, o->piece_capacity);
        static const sized list[] = {RB_SIZED(piece_info, 16u, 0u), RB_SIZED(piece_holds, 4u, 0u),
                                     RB_SIZED(piece_span, 8u, 0u), RB_SIZED(piece_load, 4u, 0u)};
        const bool ok = make_sized(o, list, RB_COUNT_OF(list), cap);
        o->piece_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    o->piece_count = n;
    return rb_ocl_write_buffer(o, &B->body_first_piece, d->body_first_piece, ((size_t)nb + 1u) * 4u,
                               "body_first_piece") &&
           (n == 0 ||
            (rb_ocl_write_buffer(o, &B->particle_member, d->particle_member, (size_t)np * 4u, "particle_member") &&
             rb_ocl_write_buffer(o, &B->piece_info, d->piece_info, (size_t)n * 16u, "piece_info") &&
             rb_ocl_write_buffer(o, &B->piece_holds, d->piece_holds, (size_t)n * 4u, "piece_holds") &&
             rb_ocl_write_buffer(o, &B->piece_span, d->piece_span, (size_t)n * 8u, "piece_span") &&
             rb_ocl_write_buffer(o, &B->piece_load, d->piece_load, (size_t)n * 4u, "piece_load")));
}

/* The joints (world_internal.h), with their broken flags and peaks as the
 * host has them (it reads them back before it changes anything). Nothing
 * is made before the first joint. */
bool rb_ocl_upload_joints(ocl *o, const rb_world_data *d) {
    ocl_buffers *B = &o->buf;
    const uint32_t n = d->joint_count, nb = d->body_count;
    o->joint_count = 0;
    if (n == 0) return true;
    if (!rb_ocl_make_counter(o, &B->joint_breaks, "joint_breaks")) return false;
    if (n > o->joint_capacity || !B->joint_body.mem) {
        const size_t cap = grown(n < 16 ? 16 : n, o->joint_capacity);
        static const sized list[] = {RB_SIZED(joint_body, 8u, 0u),      RB_SIZED(joint_anchor_a, 16u, 0u),
                                     RB_SIZED(joint_anchor_b, 16u, 0u), RB_SIZED(joint_limit, 4u, 0u),
                                     RB_SIZED(joint_broken, 4u, 0u),    RB_SIZED(joint_peak, 4u, 0u),
                                     RB_SIZED(joint_out, 48u, 0u),      RB_SIZED(joint_list, 8u, 0u)};
        const bool ok = make_sized(o, list, RB_COUNT_OF(list), cap);
        o->joint_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    if (nb > o->joint_body_capacity || !B->load_force.mem) {
        const size_t cap = o->body_capacity;
        static const sized list[] = {RB_SIZED(body_first_joint, 4u, 1u), RB_SIZED(load_force, 16u, 0u),
                                     RB_SIZED(load_torque, 16u, 0u)};
        const bool ok = make_sized(o, list, RB_COUNT_OF(list), cap);
        o->joint_body_capacity = ok ? (uint32_t)cap : 0;
        if (!ok) return false;
    }
    const bool ok =
        rb_ocl_write_buffer(o, &B->joint_body, d->joint_body, (size_t)n * 8u, "joint_body") &&
        rb_ocl_write_buffer(o, &B->joint_anchor_a, d->joint_anchor_a, (size_t)n * 16u, "joint_anchor_a") &&
        rb_ocl_write_buffer(o, &B->joint_anchor_b, d->joint_anchor_b, (size_t)n * 16u, "joint_anchor_b") &&
        rb_ocl_write_buffer(o, &B->joint_limit, d->joint_limit, (size_t)n * 4u, "joint_limit") &&
        rb_ocl_write_buffer(o, &B->joint_broken, d->joint_broken, (size_t)n * 4u, "joint_broken") &&
        rb_ocl_write_buffer(o, &B->joint_peak, d->joint_peak, (size_t)n * 4u, "joint_peak") &&
        rb_ocl_write_buffer(o, &B->joint_list, d->joint_list, (size_t)n * 8u, "joint_list") &&
        rb_ocl_write_buffer(o, &B->body_first_joint, d->body_first_joint, ((size_t)nb + 1u) * 4u, "body_first_joint");
    o->joint_count = ok ? n : 0;
    return ok;
}

/* The coarse table of far.cl for nb bodies: 8 slots a body, at least 256,
 * a power of two; zeroed when made (no stamp is 0). */
bool rb_ocl_size_coarse(ocl *o, uint32_t nb) {
    uint32_t size = 256u;
    while (size < 8u * (uint64_t)nb && size < (1u << 30)) size *= 2u;
    if (size == o->coarse_size && o->buf.coarse.mem) return true;
    const cl_uint zero = 0;
    o->coarse_size = 0;
    if (!rb_ocl_make_buffer(o, &o->buf.coarse, (size_t)size * 4u, "coarse") ||
        !RB_CL_CHECK("clEnqueueFillBuffer(coarse)", clEnqueueFillBuffer(o->queue, o->buf.coarse.mem, &zero, sizeof zero,
                                                                        0, (size_t)size * 4u, 0, NULL, NULL)))
        return false;
    o->coarse_size = size;
    return true;
}
