/* opencl_backend.h - the OpenCL backend's state, shared by its source
 * files: opencl.c (launches, uploads, the backend interface),
 * opencl_buffers.c (device memory), opencl_build.c (the device and its
 * program) and opencl_args.c (every kernel's arguments). Private to src/sim. */
#ifndef RB_OPENCL_BACKEND_H
#define RB_OPENCL_BACKEND_H

#include "opencl_internal.h"
#include "world_internal.h"

/* Kernels. Each device runs one of two sets, with the same results: the
 * CPU kernels (the chunk scan, the reorder and the force pass in particle
 * order) or the GPU kernels (the block scan, the reorder and the force pass
 * in slot order). Both sum each body's particles with a work-item a body
 * and integrate eight bodies a work-item (integrate.cl).
 * See grid.cl and forces.cl. */
enum {
    K_HASH,
    K_COUNT_PARTICLES,
    K_HASH_COUNT,
    K_CHUNK_SUMS,
    K_CHUNK_OFFSETS,
    K_CHUNKS,
    K_BLOCK_SUMS,
    K_BLOCK_OFFSETS,
    K_BLOCKS,
    K_SCATTER,
    K_REORDER,
    K_REORDER_SLOTS,
    K_FORCES,
    K_SUM_BODIES,
    K_INTEGRATE,
    K_STAMP_NEAR, /* resting bodies far from running ones (far.cl), CPU kernels only */
    K_MARK_FAR,
    K_POSITIONS,   /* read-back only, not timed */
    K_PIECES,      /* breakable bodies' loads (pieces.cl), only with pieces; not timed */
    K_JOINTS,      /* joints' forces (joints.cl), only with joints; not timed */
    K_JOINT_LOADS, /* bodies' loads with their joints' (joints.cl), only with joints; not timed */
    K_COUNT
};

/* The kernels' entry points, by K_* (opencl_args.c). */
extern const char *const rb_ocl_kernel_entry[K_COUNT];

/* The timed kernels (kernel_times). */
#define RB_OPENCL_KERNEL_COUNT 8

typedef struct ocl_buffer {
    cl_mem mem;
    size_t bytes;
} ocl_buffer;

/* Device buffers. Body arrays: body_capacity entries; particle arrays:
 * particle_capacity entries; sizes in bytes per entry are stated. */
typedef struct ocl_buffers {
    ocl_buffer body_pos, body_quat, body_vel, body_angmom, body_omega; /* 16 B each, state */
    ocl_buffer body_inv_inertia, body_force, body_torque;              /* 16 B each, inputs */
    ocl_buffer body_first_particle;                                    /* 4 B, capacity + 1 */
    ocl_buffer body_kind;                                              /* 4 B: rb_body_kind */
    ocl_buffer body_material;                                          /* 4 B: material index */
    ocl_buffer body_contact;                                           /* 16 B: radius, slip scale, onset support */
    ocl_buffer body_support;                                           /* 4 B: its contacts' shares of it, state */
    ocl_buffer body_frame;      /* 32 B: world inverse inertia and inverse mass (contact.h, rb_body_frame) */
    ocl_buffer body_load;       /* 32 B: its force and support, its torque and whether it rests (integrate.cl) */
    ocl_buffer wake;            /* 4 B: touched by a mover this step */
    ocl_buffer body_run;        /* 4 B: its force pass runs this step, state (forces.cl, resting) */
    ocl_buffer body_near;       /* 4 B: an awake body came within reach this step, cleared by the integration */
    ocl_buffer body_reach;      /* 4 B: its farthest particle centre from its centre (far.cl) */
    ocl_buffer body_far;        /* 4 B: left out of this step's grid (far.cl) */
    ocl_buffer transforms;      /* 32 B: what the renderer reads */
    ocl_buffer particle_offset; /* 16 B */
    /* 4 B each; sorted_index also holds the ranks from the count to the scatter (grid.cl) */
    ocl_buffer particle_body, particle_hash, members, sorted_index; /* members padded as the sorted copies */
    ocl_buffer particle_key; /* 4 B: the cell key (grid.cl, rb_hash_particles), for rb_reorder */
    ocl_buffer sorted_x, sorted_y, sorted_z, sorted_body; /* 4 B each, bucket order, padded */
    ocl_buffer sorted_vel;                                /* 16 B, bucket order */
    ocl_buffer force, moment; /* 12 B each (xyz), index order; moment about the body's centre */
    ocl_buffer keys; /* 4 B x the world's slots (4 or 8), index order: contact history's partners, state (contact.h) */
    ocl_buffer disp; /* 12 B x its slots, index order: its displacements, state */
    /* 12 B x its slots, index order: its rolling angles, state; made
     * only once a pair of materials resists rolling (ensure_roll), 16 B before */
    ocl_buffer roll;
    ocl_buffer support;   /* 4 B, index order: the shares of its body a particle's contacts bear */
    ocl_buffer overflow;  /* 4 B: contacts that found no free slot, counted since the start */
    ocl_buffer rested;    /* 4 B: sleeping bodies left out of a step, counted since the start */
    ocl_buffer sleepers;  /* 4 B: bodies asleep at the last step's end, or as uploaded */
    ocl_buffer coarse;    /* 4 B x coarse_size: the stamps of the cells near running bodies (far.cl) */
    ocl_buffer far_all;   /* 4 B: a step's stamp where no body may be left out (far.cl) */
    ocl_buffer far_count; /* 4 B: bodies left out of the grid, counted since the start */
    ocl_buffer counts;    /* 4 B x table_size: bucket counts, zero between steps */
    ocl_buffer table;     /* 4 B x (table_size + 1): bucket starts */
    ocl_buffer scan_sums; /* 4 B x the scan's chunk or block count */
    ocl_buffer planes;    /* RB_MAX_PLANES x 16 B, as columns (rb_ocl_set_args, opencl_args.c) */
    ocl_buffer rates;     /* the pair table: RB_MAX_MATERIALS^2 x 16 B (rb_contact_rates) */
    ocl_buffer rolling;   /* and its rolling friction: RB_MAX_MATERIALS^2 x 4 B */
    /* breakable bodies (world_internal.h): body_first_piece 4 B a body + 1,
     * particle_member 4 B a particle, the rest by piece: info 16 B, holds
     * 4 B, span 8 B, load 4 B (state); breaks 4 B: pieces past their hold */
    ocl_buffer body_first_piece, particle_member, piece_info, piece_holds, piece_span, piece_load, breaks;
    /* joints (world_internal.h), made with the first joint: by joint body 8 B,
     * anchor_a and anchor_b 16 B, limit 4 B, broken 4 B and peak 4 B (state),
     * out 48 B (its force and torques this step), list 8 B; by body
     * first_joint 4 B + 1, load_force and load_torque 16 B (the external load
     * with the joints', what the integration reads); joint_breaks 4 B */
    ocl_buffer joint_body, joint_anchor_a, joint_anchor_b, joint_limit, joint_broken, joint_peak, joint_out, joint_list;
    ocl_buffer body_first_joint, load_force, load_torque, joint_breaks;
} ocl_buffers;

/* ocl_buffers holds nothing but ocl_buffer fields: it is walked as an array
 * to release and to count them all. */
#define RB_BUFFER_COUNT (sizeof(ocl_buffers) / sizeof(ocl_buffer))
_Static_assert(sizeof(ocl_buffers) % sizeof(ocl_buffer) == 0, "ocl_buffers must hold only ocl_buffer fields");

typedef struct ocl {
    rb_backend base;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernels[K_COUNT];
    size_t group[K_COUNT];   /* work-group size of each kernel (rb_integrate's in work-items of eight bodies) */
    size_t force_group_most; /* the force pass's largest (the device's per-particle size); its size for the
                                world as uploaded is in group[K_FORCES] (opencl.c, force_group) */
    char device_name[600];
    bool gl_sharing;
    bool gpu_kernels;     /* the GPU kernels, else the CPU kernels (see the kernel list) */
    float slot_reach;     /* the force pass's reach past a particle's radius (rb_cl_slot_reach), m */
    size_t offsets_group; /* work-group size of rb_scan_block_offsets */
    bool profile;         /* kernel times from profiling events (RUBBLE_OPENCL_PROFILE=0: none) */
    bool counts_dirty;    /* the counts are new, or a hash pass went without its scan: they need zeroing */

    ocl_buffers buf;
    uint32_t body_capacity, particle_capacity, table_capacity, scan_capacity;
    uint32_t body_count, particle_count;                       /* as uploaded */
    uint32_t piece_count, piece_capacity;                      /* breakable bodies' pieces, as uploaded */
    uint32_t joint_count, joint_capacity, joint_body_capacity; /* joints as uploaded; their buffers' room */
    uint32_t table_size, chunk_size, chunk_count, block_count;
    uint32_t stride_z, stride_y;            /* the hash's layout of rows (kernels/common.cl, rb_cell_hash) */
    float plane_columns[4 * RB_MAX_PLANES]; /* the planes as last written (rb_ocl_set_args) */
    bool planes_written;
    bool rolling;  /* the roll buffer holds the rolling angles (ensure_roll) */
    cl_uint slots; /* the history's slots a particle, as uploaded (rb_world_data.contact_slots) */

    cl_event *events; /* pending profiling events and their kernels */
    int *event_kernel;
    uint32_t event_count;
    double kernel_ms[RB_OPENCL_KERNEL_COUNT];

    float *staging; /* host scratch: transforms on upload */
    size_t staging_bytes;
    cl_uint overflow_seen; /* the device's overflow count when last read */
    uint64_t overflow;     /* contacts without a slot, all step calls */
    cl_uint rested_seen;   /* the device's count of resting bodies when last read */
    uint64_t rested;       /* resting bodies, all step calls */
    /* resting bodies far from running ones, left out of the grid (far.cl): */
    uint32_t coarse_size;  /* the coarse table's slots, a power of two */
    float inv_coarse;      /* 1 / its cells' side */
    float reach_body;      /* the largest body_reach of a dynamic body */
    cl_uint far_stamp;     /* the step's stamp: steps run, never 0 */
    cl_uint far_on;        /* this call leaves far bodies out (rb_ocl_set_args): the CPU kernels, resting
                              allowed, a committed step, and a quarter of the bodies asleep at the last look */
    cl_uint sleepers_seen; /* bodies asleep at the end of the last step call, or as uploaded */
    cl_uint far_seen;      /* the device's count when last read */
    uint64_t far;          /* bodies left out, all step calls */
} ocl;

/* Sizes the files of the backend share. */
/* Bodies a work-item of rb_integrate, one a lane of float8: the kernel is
 * written for 8 and refuses to build for another (kernels/integrate.cl). */
#define RB_INTEGRATE_LANES 8u
/* Work-group size for the per-particle kernels (halved for a kernel that
 * allows less on the device). */
#define RB_PARTICLE_GROUP 256u
/* Work-items of a block-scan work-group; a block is 4 counters a work-item. */
#define RB_SCAN_GROUP 256u
#define RB_SCAN_BLOCK (4u * RB_SCAN_GROUP)

/* n rounded up to a whole number of m. */
static inline size_t rb_ocl_round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* rb_cl_check, a failure logged with the call named. */
#define RB_CL_CHECK(call, expr) rb_cl_check((expr), call, NULL, 0)

/* The kernel of the set the device runs that has a twin in the other, with
 * the same arguments. */
static inline int rb_ocl_reorder_kernel(const ocl *o) { return o->gpu_kernels ? K_REORDER_SLOTS : K_REORDER; }

/* Sets every kernel's arguments for the current buffers and parameters
 * (opencl_args.c); commit: the force pass keeps the contact history (a
 * step), else it only computes forces. The planes are written to the device
 * when they changed, and the pair table's rows of the materials in use. */
bool rb_ocl_set_args(ocl *o, const rb_step_params *p, cl_uint commit);

/* Memory (opencl_buffers.c). Those that return bool return false on a
 * failure, which they log. */
/* The buffer released (nothing if none). */
void rb_ocl_release_buffer(ocl_buffer *b);
/* The buffer made anew at bytes (16 if 0), its contents undefined. */
bool rb_ocl_make_buffer(ocl *o, ocl_buffer *b, size_t bytes, const char *what);
/* A 4-byte counter made and zeroed if it is not there yet (kept as it is if it is). */
bool rb_ocl_make_counter(ocl *o, ocl_buffer *b, const char *what);
/* The bodies' buffers grown to hold n bodies, their contents undefined. */
bool rb_ocl_reserve_bodies(ocl *o, uint32_t n);
/* The particles' buffers grown to hold n particles (the contact history
 * kept across growth; laid out anew, for the world to upload, where the
 * slots a particle change), and the grid's table sized for n. */
bool rb_ocl_reserve_particles(ocl *o, uint32_t n, uint32_t slots);
/* The host scratch (o->staging) grown to bytes. */
bool rb_ocl_reserve_staging(ocl *o, size_t bytes);
/* A write or read of the buffer's first bytes queued, not waited for: src
 * must stay as it is, and dst is not filled, until the queue is finished. */
bool rb_ocl_write_buffer(ocl *o, ocl_buffer *b, const void *src, size_t bytes, const char *what);
bool rb_ocl_read_buffer(ocl *o, ocl_buffer *b, void *dst, size_t bytes, const char *what);
/* The breakable bodies' pieces, and the joints, written as the host has them
 * (their buffers made or grown first). */
bool rb_ocl_upload_pieces(ocl *o, const rb_world_data *d);
bool rb_ocl_upload_joints(ocl *o, const rb_world_data *d);
/* far.cl's coarse table sized for nb bodies, zeroed where it is made anew. */
bool rb_ocl_size_coarse(ocl *o, uint32_t nb);

/* The program (opencl_build.c): the device asked for (an index across all
 * platforms, or the first GPU where index < 0, else the first device), the
 * kernel set for it (o->gpu_kernels, RUBBLE_OPENCL_KERNELS), and the kernels
 * built with each one's work-group size (o->group; a GPU whose scan allows
 * too small a work-group turns to the CPU kernels there). Each returns false
 * with err filled. */
bool rb_ocl_pick_device(int index, rb_cl_device *out, char *err, size_t err_size);
bool rb_ocl_choose_kernels(ocl *o, bool is_gpu, char *err, size_t err_size);
bool rb_ocl_build_program(ocl *o, char *err, size_t err_size);

#endif
