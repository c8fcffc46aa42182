/* world_internal.h - the world's arrays and the backend interface.
 *
 * Bodies and particles are stored structure-of-arrays. Every array of float4
 * has the layout of cl_float4 (16 bytes), so backends copy them as they are.
 * No code assumes a number of particles per body: body b owns particles
 * [body_first_particle[b], body_first_particle[b + 1]). */
#ifndef RB_WORLD_INTERNAL_H
#define RB_WORLD_INTERNAL_H

#include <stdio.h>

#include "base/rb_math.h"
#include "world.h"

typedef struct rb_float4 {
    float x, y, z, w;
} rb_float4;

/* The layout of cl_float2 (8 bytes). */
typedef struct rb_float2 {
    float x, y;
} rb_float2;
_Static_assert(sizeof(rb_float2) == 8, "rb_float2 must have the layout of cl_float2");

/* A contact's rates per unit effective mass: k = m_eff * stiffness,
 * c = m_eff * damping, eta_t = m_eff * tangential (contact.h says which
 * m_eff), and the Coulomb friction. One row of the pair table: the layout of
 * cl_float4 (x stiffness, y damping, z tangential, w friction). */
typedef struct rb_contact_rates {
    float stiffness;  /* w0^2, 1/s^2: with damping, a contact lasting t_c with restitution e (params.c) */
    float damping;    /* 2 zeta w0, 1/s, calibrated on the stepped contact */
    float tangential; /* tangential damping rate, 1/s */
    float friction;   /* mu */
} rb_contact_rates;
_Static_assert(sizeof(rb_contact_rates) == 16, "rb_contact_rates must have the layout of cl_float4");

/* The order in which a body's particle forces and moments are summed, the
 * same on every backend so that their results are the same bits: RB_SUM_PARTS
 * partial sums, part k over the k-th run of chunk = max(RB_SUM_MIN_CHUNK,
 * ceil(count / RB_SUM_PARTS)) consecutive particles, part 0 starting from
 * the external load and gravity and the others from zero, then the parts
 * added in order (the OpenCL backend too: kernels/integrate.cl). */
#define RB_SUM_PARTS 8u

/* A held body's sleep timer (body_pos.w; world.h, rb_body_hold): a dormant
 * body's is -1 until a mover touches it, an anchored body's -2 for good.
 * Both count as asleep (a mover's touch is what wakes a dormant one; an
 * anchored one never moves), and neither follows its load. */
#define RB_TIMER_DORMANT (-1.0f)
#define RB_TIMER_ANCHORED (-2.0f)
static inline bool rb_timer_dormant(float timer) { return timer < 0.0f && timer > -1.5f; }
static inline bool rb_timer_anchored(float timer) { return timer < -1.5f; }
/* A body with this sleep timer sleeps: held, or slow for sleep_time (0:
 * sleeping is off). kernels/common.cl's rb_asleep, on the host. */
static inline bool rb_timer_asleep(float timer, float sleep_time) {
    return timer < 0.0f || (sleep_time > 0.0f && timer >= sleep_time);
}
#define RB_SUM_MIN_CHUNK 32u

/* The pair table's row of materials a and b (a, b < RB_MAX_MATERIALS). */
static inline uint32_t rb_pair_index(uint32_t a, uint32_t b) { return a * RB_MAX_MATERIALS + b; }

typedef struct rb_step_params {
    /* The largest particle radius among the world's bodies (the
     * description's when there are none): the grid's cell side is its
     * diameter, so every pair that can touch (r_i + r_j <= 2 max_radius) lies
     * in neighbouring cells. The world sets it as bodies come and go. */
    float max_radius;   /* m */
    float dt;           /* s */
    float gravity[3];   /* m/s^2 */
    float sleep_speed;  /* m/s and rad/s */
    float sleep_time;   /* s; 0: never sleep */
    float wake_accel;   /* m/s^2 and rad/s^2: a larger net load wakes a sleeping body */
    float support_keep; /* exp(-dt / 1 s): how much of a body's support a step keeps (reference.c, rb_support) */
    /* 1: a sleeping body that no awake body came within reach of at the last
     * step is left out of the force pass and the integration (its forces
     * cannot have changed: nothing around it moved). The world sets it
     * where nothing moves a body unseen by the force pass: no joints, no
     * paths, no kinematic body with a velocity (world_sync.c, sleepers_may_rest). */
    uint32_t rest_sleepers;
    uint32_t plane_count;
    rb_float4 planes[RB_MAX_PLANES]; /* xyz normal, w offset */
    /* Materials 0 .. material_count - 1 (0: the description's). A contact
     * between a particle of material a and one of material b takes
     * rates[rb_pair_index(a, b)], the rates of rb_material_mix(a, b) at this
     * step; a plane contact takes its particle's (a, a). */
    uint32_t material_count;
    rb_contact_rates rates[RB_MAX_MATERIALS * RB_MAX_MATERIALS];
    /* The pair table's rolling friction (rb_material.rolling_friction of
     * rb_material_mix(a, b)), and whether any pair of the materials in use
     * has some: only then do contacts keep a rolling angle (contact.h). */
    float rolling[RB_MAX_MATERIALS * RB_MAX_MATERIALS];
    bool rolling_any;
} rb_step_params;

/* Everything but the materials past the description's: material_count 1,
 * max_radius the description's radius. */
rb_step_params rb_step_params_from_desc(const rb_world_desc *desc);

/* The rates of one material (or pair material) at step dt: the contact law's
 * spring from e and t_c, the damping calibrated on the stepped contact. The
 * material must pass rb_material_check. */
rb_contact_rates rb_contact_rates_of(rb_material m, float dt);

/* Checks a material against the step: in range, and a dashpot the step can
 * resolve. False with the message rb_world_desc_check gives. */
bool rb_material_check(const rb_material *m, float dt, char *err, size_t err_size);

/* Fills p's pair table for count materials at p->dt: every material and
 * every pair checked first (false, with the material or pair named and
 * nothing changed, if one fails), then each distinct pair material
 * calibrated once. The pairs among the first `kept` materials are taken as
 * already in p (0: every pair calibrated). */
bool rb_step_params_set_materials(rb_step_params *p, const rb_material *materials, uint32_t count, uint32_t kept,
                                  char *err, size_t err_size);

/* A shape's slip mobility (rb_world_data.body_contact): how fast its surface
 * gives way to a tangential force (translation plus spin) against a free
 * point of its particle mass m, which is what the contact law's tangential
 * damping assumes: m (1 / M + max over surface points l and tangents t of
 * (l x t) . I^-1 (l x t)), M its mass and I its principal moments, the
 * surface points taken outward from the centre of mass and toward the 26
 * neighbours of a cube on each particle (radius the shape's); or 1 where
 * that is less. Bodies of many particles are under 1, a sphere of one
 * particle is 3.5 (1 + 1 / 0.4), two particles 1.9. See
 * rb_contact_particles. */
double rb_shape_mobility(const rb_shape_data *shape, float radius);

/* A shape's onset support (rb_world_data.body_contact.z): the support
 * (contact.h, rb_contact_mass) it would bear on resting flat on the most
 * populous face of its principal frame, each particle of that outermost
 * layer one contact: sum of 1 / (M w) over them, w the inverse mass at the
 * touching point along the face's normal. At least 1. A contact's first
 * step is sized with it, before the body's support is known. */
double rb_shape_onset_support(const rb_shape_data *shape, float radius);

/* Whether a shape's n particles (offsets xyz, body frame) sit on a lattice
 * of spacing 2 radius along the body's axes, one to a cell, more than one
 * (src/sim/cells.c): 1, with each particle's exposed cell faces
 * (contact.h, RB_FACE_POS and RB_FACE_NEG) written into its offset's w; 0
 * if not, -1 if out of memory, the offsets then as they were. A lattice
 * shape's bodies meet others as cells (contact.h). */
int rb_shape_cells(rb_float4 *offsets, uint32_t n, float radius);

/* Restitution of a unit-mass contact with spring rate k (1/s^2) and dashpot
 * rate c (1/s) whose force never pulls; theta (may be NULL) gets w_d t_end. */
double rb_clamped_restitution(double stiffness, double damping, double *theta);

/* Contact history (src/sim/contact.h, "contact history"): 4 or 8 slots a
 * particle (rb_world_data.contact_slots; world.h). The kernels keep a
 * particle's keys as one vector of RB_MAX_CONTACT_SLOTS (kernels/forces.cl). */
_Static_assert(RB_MAX_CONTACT_SLOTS == 8u, "the kernels hold a particle's keys as a uint8");
#define RB_SLOT_FREE 0xFFFFFFFFu
#define RB_SLOT_PLANE RB_CONTACT_PLANE /* + the plane's index (< RB_MAX_PLANES): world.h */
_Static_assert(RB_MAX_PLANES <= 15, "plane keys must stay below RB_SLOT_FREE");

/* The tangential spring's rate against the normal one's (k_t = 2/7 k_n: a
 * sphere's tangential and normal oscillations then share a period). */
#define RB_TANGENTIAL_SPRING 0.2857142857f

/* The rolling spring's rate: k_r = 2.25 mu_r^2 R^2 k_n, the choice of the
 * elastic-plastic rolling models of DEM codes (LIGGGHTS's epsd2): its
 * rocking period stays near the contact's own however large R, and it yields
 * after turning |f_n| / (2.25 mu_r R k_n), a small angle (contact.h). */
#define RB_ROLLING_SPRING 2.25f

typedef struct rb_world_data {
    uint32_t body_count, body_capacity;
    rb_float4 *body_pos;           /* 16 B: centre of mass, m; w = seconds spent slow (asleep when >= sleep_time) */
    rb_float4 *body_quat;          /* 16 B: orientation x, y, z, w */
    rb_float4 *body_vel;           /* 16 B: linear velocity; w = 1 / mass (0: static, kinematic) */
    rb_float4 *body_angmom;        /* 16 B: angular momentum, world (0: static, kinematic); w unused */
    rb_float4 *body_omega;         /* 16 B: angular velocity, world (derived from angmom and quat, cached;
                                    * a kinematic body's own, set) */
    rb_float4 *body_inv_inertia;   /* 16 B: body-frame inverse principal moments (0: static, kinematic);
                                    * w = particle mass (INFINITY: static, kinematic) */
    rb_float4 *body_force;         /* 16 B: external force for the next step call; w unused */
    rb_float4 *body_torque;        /* 16 B: external torque for the next step call */
    uint32_t *body_first_particle; /* body_count + 1 entries */
    uint32_t *body_shape;          /* 4 B */
    uint32_t *body_kind;           /* 4 B: rb_body_kind */
    uint32_t *body_material;       /* 4 B: material index (rb_step_params.rates) */
    uint32_t *body_slot;           /* 4 B: slot of the body's id */
    float *body_support;           /* 4 B: its contacts' shares of it at the last step (contact.h, rb_contact_mass) */
    /* 16 B: what a contact reads of the body besides its state. x: the
     * radius of its particles (its shape's), m. y: its slip scale, 1 / its
     * slip mobility (rb_shape_mobility; 1 for a static or kinematic body):
     * a contact's tangential force is scaled by the smaller of its two
     * (contact.h). z: its onset support (rb_shape_onset_support). w: its
     * cell rank: its particle count if its shape is a lattice
     * (rb_shape_cells), else 0 (contact.h, "cells"). */
    rb_float4 *body_contact;

    uint32_t particle_count, particle_capacity;
    rb_float4 *particle_offset; /* 16 B: rest offset in the body frame, m; w its exposed cell faces (rb_shape_cells), or 0 */
    uint32_t *particle_body;    /* 4 B */
    /* Each particle's contact history (contact.h), contact_slots slots (4 or
     * 8: rb_world_contact_slots), one after another:
     * particle_keys their partners (another particle's index, RB_SLOT_PLANE
     * + a plane's, or RB_SLOT_FREE), 4 B each; particle_disp their
     * tangential displacements, xyz, 12 B each; particle_roll their rolling
     * angles, xyz, 12 B each (written only while the contact's materials
     * resist rolling; forget_rolling_angles in world.c). The backend keeps
     * them current in its own copy; the world reads them back only to
     * renumber them when bodies go, or to lay them out again when the slots
     * change (download_slots), and hands them back after. */
    uint32_t contact_slots;
    uint32_t *particle_keys;
    float *particle_disp;
    float *particle_roll;

    /* Breakable bodies' pieces (world.h, rb_world_set_pieces). Body b owns
     * pieces [body_first_piece[b], body_first_piece[b + 1]): none unless it
     * was made breakable. A piece's particles are its members, local
     * indices (from its body's first particle) at [piece_span.x,
     * piece_span.x + piece_span.y) of particle_member, inside its body's
     * particle range. */
    uint32_t *body_first_piece; /* body_count + 1 entries */
    uint32_t piece_count, piece_capacity;
    rb_float4 *piece_info;     /* 16 B: centre of mass in the body frame, m; w its mass, kg */
    float *piece_holds;        /* 4 B: N */
    uint32_t *piece_span;      /* 8 B: first member, member count */
    float *piece_load;         /* 4 B: its largest load / holds since set; the backend keeps it (download()) */
    uint8_t *piece_taken;      /* 1 B, host only: its body was given out by rb_world_take_breaks */
    uint32_t *particle_member; /* 4 B */

    /* Joints (world.h, rb_world_add_joint), in the order they were added;
     * the world fills the index and rates before each upload
     * (rb_joints_prepare). joint_body: a and b's body indices (b
     * RB_JOINT_WORLD: the world). anchor_a: a's anchor in its frame, w the
     * spring's rate w_j^2 (1/s^2); anchor_b: b's anchor in its frame or the
     * world point, w the damper's rate 2 zeta w_j (1/s). joint_broken and
     * joint_peak are state the backend keeps (download()). Body b's joints
     * are joint_list[body_first_joint[b] .. body_first_joint[b + 1]), each
     * 2 j + end (0: a, 1: b), in joint order. */
    uint32_t joint_count, joint_capacity;
    uint32_t *joint_body;       /* 8 B */
    rb_float4 *joint_anchor_a;  /* 16 B */
    rb_float4 *joint_anchor_b;  /* 16 B */
    float *joint_limit;         /* 4 B: breaking force, N (INFINITY: never) */
    uint32_t *joint_broken;     /* 4 B: 1 once broken */
    float *joint_peak;          /* 4 B: the largest force carried, N */
    uint32_t *body_first_joint; /* body_count + 1 entries */
    uint32_t *joint_list;       /* 2 per joint */
} rb_world_data;

/* How far past its own radius a particle's partners can touch it, for the
 * force pass's reach (kernels/forces.cl; the reference's resting sleepers
 * take the same bound): max_radius where every body is of spheres; where
 * one is a lattice (contact.h, "cells"), the farthest a sphere and a cell
 * of the world's radii touch, less the particle's radius (cell_reach.c). */
float rb_cl_slot_reach(const rb_world_data *d, float max_radius);

/* joint_body's b for a joint to the world. */
#define RB_JOINT_WORLD 0xFFFFFFFFu

/* Joint j's force on body a and the torques on a and b about their
 * centres (out[0], out[1], out[2]; .w 0) at the step's start state, as
 * every backend computes them: the same operations in kernels/joints.cl.
 * Latches joint_broken and joint_peak; returns 1 if it broke now. */
uint32_t rb_joint_force(rb_world_data *d, uint32_t j, rb_float4 out[3]);
/* Body b's external load with its joints' forces and torques added in its
 * joint list's order (out: force, torque), as kernels/joints.cl sums them. */
void rb_joint_load(const rb_world_data *d, uint32_t b, const rb_float4 *joint_out, rb_float4 out[2]);

/* q turned by the rotation of w t (exactly: axis w, angle |w| t),
 * normalised, the half angle's sine and cosine rb_sincos's, as the kernels'
 * rb_l_quat_turn (kernels/integrate.cl, eight bodies at a time). */
static inline rb_float4 rb_quat_turn(rb_float4 q4, rb_float4 w, float t) {
    float speed = sqrtf(w.x * w.x + w.y * w.y + w.z * w.z), angle = speed * t;
    if (!(angle > 0.0f)) return q4;
    float s, c, q[4] = {q4.x, q4.y, q4.z, q4.w};
    rb_sincos(0.5f * angle, &s, &c);
    float dq[4] = {w.x / speed * s, w.y / speed * s, w.z / speed * s, c};
    rb_quat_mul(dq, q, q);
    rb_quat_normalize(q);
    return (rb_float4){q[0], q[1], q[2], q[3]};
}

/* The pieces' loads of body b (world.h, rb_world_set_pieces) at the step's
 * start state, this step's particle positions (pos, by particle) and
 * forces and contact moments about the particles' centres (xyz triples by
 * particle), as every backend computes them: the same operations in
 * kernels/pieces.cl. Latches d->piece_load; returns how many pieces passed
 * 1 this time. */
uint32_t rb_piece_loads(rb_world_data *d, uint32_t b, const rb_float4 *pos, const float *force, const float *moment);

/* R diag(inv_inertia) R^T a, R the rotation of q: the world-frame inverse
 * inertia applied to a (omega from L, angular acceleration from torque). */
static inline rb_float4 rb_apply_inv_inertia(rb_float4 q4, rb_float4 inv_inertia, rb_float4 a) {
    const float q[4] = {q4.x, q4.y, q4.z, q4.w};
    float body[3], world[3];
    rb_quat_rotate_inv(q, (const float[3]){a.x, a.y, a.z}, body);
    body[0] *= inv_inertia.x, body[1] *= inv_inertia.y, body[2] *= inv_inertia.z;
    rb_quat_rotate(q, body, world);
    return (rb_float4){world[0], world[1], world[2], 0.0f};
}

typedef struct rb_backend rb_backend;

/* A backend owns a copy of the state where it needs one (a device). The
 * world calls upload() after it changed the host arrays, and download()
 * before it reads them after steps. */
typedef struct rb_backend_vtbl {
    const char *name;
    void (*destroy)(rb_backend *b);
    bool (*upload)(rb_backend *b, const rb_world_data *d, const rb_step_params *p);
    bool (*step)(rb_backend *b, rb_world_data *d, const rb_step_params *p, uint32_t steps);
    bool (*download)(rb_backend *b, rb_world_data *d);
    /* particle world positions, xyz triples */
    bool (*read_particles)(rb_backend *b, const rb_world_data *d, const rb_step_params *p, float *out);
    /* contact forces per particle, xyz triples (stages 1-3) */
    bool (*particle_forces)(rb_backend *b, const rb_world_data *d, const rb_step_params *p, float *out);
    const char *(*device_name)(const rb_backend *b);
    size_t (*device_bytes)(const rb_backend *b);
    void (*stage_times)(const rb_backend *b, double ms[RB_STAGE_COUNT]);
    /* Optional (NULL: no kernels): see rb_world_kernel_times. */
    uint32_t (*kernel_times)(const rb_backend *b, const char *const **names, double *ms, uint32_t capacity);
    /* Optional (NULL: the host copy is used): body transforms straight from
     * the backend's own state after steps, 32 bytes a body (see
     * rb_world_read_transforms), without downloading the rest. */
    bool (*read_transforms)(rb_backend *b, const rb_world_data *d, rb_transform *out);
    /* Optional (NULL: the world asks a reference backend made for the call):
     * the overlapping pairs of the backend's grid, see rb_world_contact_pairs. */
    uint32_t (*contact_pairs)(rb_backend *b, const rb_world_data *d, const rb_step_params *p, uint32_t *pairs,
                              uint32_t max_pairs);
    /* Optional (NULL: the host's particle_keys, _disp and _roll are the backend's own, as
     * the reference's): the contact history read back into the host copy,
     * and written from it (after upload(), which may have made new buffers). */
    bool (*download_slots)(rb_backend *b, rb_world_data *d);
    bool (*upload_slots)(rb_backend *b, const rb_world_data *d);
    /* Contacts that found no free history slot (contact.h) in the steps so
     * far: they acted without memory. */
    uint64_t (*contact_overflow)(rb_backend *b);
    /* Sleeping bodies left out of a step (rb_step_params.rest_sleepers), a
     * body a step, in the steps so far. */
    uint64_t (*rested)(rb_backend *b);
    /* Optional (NULL: none): of those, the bodies also left out of the grid,
     * far from every running body (kernels/far.cl), a body a step. */
    uint64_t (*off_grid)(rb_backend *b);
    /* Pieces that passed their hold (rb_piece_loads) since the last call. */
    uint32_t (*take_break_count)(rb_backend *b);
    /* Joints that broke (rb_joint_force) since the last call. */
    uint32_t (*take_joint_break_count)(rb_backend *b);
    /* Bodies' velocities and angular velocities (body_vel, body_omega) of
     * the count bodies listed, from the host's arrays, for the next step
     * (a path's steering, between single steps). */
    bool (*write_velocities)(rb_backend *b, const rb_world_data *d, const uint32_t *bodies, uint32_t count);
    /* Optional (NULL: nothing to warm): runs every kernel a step runs once
     * and leaves the backend's state as it found it (rb_world_warm). False
     * if it could not, the state unchanged. */
    bool (*warm)(rb_backend *b, rb_world_data *d, const rb_step_params *p);
} rb_backend_vtbl;

struct rb_backend {
    const rb_backend_vtbl *vtbl;
};

/* The backends' constructors, one signature for world.c's table of them:
 * NULL with the reason in err when the backend cannot be made. The
 * reference ignores device_index. */
typedef rb_backend *(*rb_backend_create_fn)(int device_index, char *err, size_t err_size);
rb_backend *rb_reference_create(int device_index, char *err, size_t err_size);
rb_backend *rb_opencl_create(int device_index, char *err, size_t err_size);

/* The OpenCL backend's side of rb_world_list_devices (world.h). */
int rb_opencl_list_devices(FILE *out);

#endif /* RB_WORLD_INTERNAL_H */
