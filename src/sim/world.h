/* world.h - the simulation's public API.
 *
 * A world owns bodies made of particles (rigid sets of spheres, all of one
 * radius within a shape; shapes may differ), the
 * planes they stand on, and a backend that steps them: the sequential C
 * reference or the OpenCL kernels. Shapes come in as plain data (particle
 * offsets, mass, principal inertia): the world knows nothing of plugins.
 *
 * Units: metres, kilograms, seconds, radians. y is up. */
#ifndef RB_WORLD_H
#define RB_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/transform.h"

#define RB_MAX_PLANES 8
/* Materials a world holds (rb_world_add_material), the description's included. */
#define RB_MAX_MATERIALS 16

typedef enum rb_backend_kind {
    RB_BACKEND_AUTO = 0,  /* OpenCL if a device exists, else the reference */
    RB_BACKEND_REFERENCE, /* sequential C, the oracle */
    RB_BACKEND_OPENCL,
} rb_backend_kind;

/* Contact material. Physical, not spring constants: see README.md, "The
 * contact". Each body has one (rb_body_desc.material); a contact between two
 * materials behaves as the material rb_material_mix() makes of them. */
typedef struct rb_material {
    float restitution;  /* e in [0.14, 1]: normal speed after / before one contact */
    float friction;     /* Coulomb mu: |f_t| <= mu |f_n| */
    float contact_time; /* t_c, s: how long one particle-particle contact lasts */
    /* Rolling resistance mu_r in [0, 1]: a contact resists the two bodies
     * rolling on each other with a torque up to mu_r R |f_n|, R the
     * particles' effective radius (README.md, "Rolling resistance"). 0, the
     * default, leaves rolling free, and costs nothing. */
    float rolling_friction;
} rb_material;

/* The material of a contact between materials a and b (README.md, "The
 * contact"): friction sqrt(mu_a mu_b), rolling friction likewise,
 * restitution max(e_a, e_b), contact time sqrt((t_a^2 + t_b^2) / 2) (their
 * springs in series). A material with itself is itself, bit for bit; a pair
 * of materials the step can resolve is one too. */
rb_material rb_material_mix(rb_material a, rb_material b);

/* A solid half-space: points x with dot(normal, x) < offset are inside. */
typedef struct rb_plane {
    float normal[3]; /* unit, pointing out of the solid */
    float offset;    /* m */
} rb_plane;

typedef struct rb_world_desc {
    float particle_radius; /* m; a shape's particles have it unless the shape gives its own (rb_shape_data) */
    float gravity[3];      /* m/s^2 */
    float dt;              /* s, the fixed step */
    rb_material material;  /* material 0, every body's unless it names another */
    /* Sleeping: a body slower than sleep_speed (m/s, and rad/s) with no load
     * left over (net acceleration under 1 m/s^2) for sleep_time seconds stops
     * moving until something wakes it: a moving body's touch, a change of its
     * load, or any edit through this API. It keeps resting stacks still, which
     * particle stacks without static friction are not (README, "Limits").
     * sleep_time 0 turns sleeping off. */
    float sleep_speed;
    float sleep_time;
    uint32_t plane_count;
    rb_plane planes[RB_MAX_PLANES];
    rb_backend_kind backend;
    int device_index; /* OpenCL device among all platforms' devices; -1 = first GPU, else first */
    /* Contacts a particle remembers: 4, 8, or RB_CONTACT_SLOTS_AUTO (0, the
     * default): chosen from the bodies (rb_world_contact_slots). */
    uint32_t contact_slots;
    /* Bodies the world holds at most (scene key world.max_bodies): an add
     * past it is refused. 0: no cap of the world's own; a stage gives its
     * world the default, what memory holds (src/scenes/stage.c). */
    uint32_t max_bodies;
} rb_world_desc;

/* The defaults every test passes with: radius 0.2, gravity -9.81 y, the
 * default material and step, sleeping after 0.5 s under 2 cm/s, a ground
 * plane y = 0, backend AUTO, contact slots AUTO. */
rb_world_desc rb_default_world_desc(void);
rb_material rb_default_material(void);

/* A shape as the world needs it: particle offsets in the body's principal
 * frame (centre of mass at the origin), the total mass, the principal
 * moments of inertia, and the radius of its particles. Each particle weighs
 * mass / particle_count. A contact between particles i and j of radii r_i
 * and r_j overlaps by r_i + r_j - distance; a plane contact by r_i - height
 * (README.md, "The contact"). */
typedef struct rb_shape_data {
    uint32_t particle_count;
    const float *offsets;  /* particle_count xyz triples, m */
    float mass;            /* kg */
    float inertia[3];      /* kg m^2, principal moments */
    float particle_radius; /* m; 0: rb_world_desc.particle_radius */
} rb_shape_data;

/* A body's handle. A zeroed id is null; a removed body's id goes stale and
 * is caught by the generation. */
typedef struct rb_body_id {
    uint32_t slot;
    uint32_t generation;
} rb_body_id;

/* True if a and b name the same body; a null id names none, not even another null one. */
static inline bool rb_body_same(rb_body_id a, rb_body_id b) {
    return a.generation != 0 && a.slot == b.slot && a.generation == b.generation;
}

/* How a body moves (README.md, "Physics"). A dynamic body is moved by
 * contacts, gravity and loads. A static body never moves; a kinematic body
 * moves at its velocity and angular velocity (world frame) for ever, changed
 * only by rb_world_set_velocity() or rb_world_restore_body(). Neither is
 * pushed by anything, gravity included: their mass and inertia are infinite,
 * so a contact with one has the dynamic partner's mass as its effective
 * mass, as a plane contact does. Two of them never exert forces on each
 * other, and they never sleep. A kinematic body's touch wakes a sleeping
 * body (a static one's does not: it is not moving). */
typedef enum rb_body_kind { RB_BODY_DYNAMIC = 0, RB_BODY_STATIC, RB_BODY_KINEMATIC } rb_body_kind;

/* How a dynamic body is held where it starts (docs/structures.md). A
 * dormant body ("asleep until touched") neither moves nor breaks, however
 * it is loaded, until an awake body moving faster than sleep_speed (or a
 * moving kinematic one) touches it, or an edit through this API (an
 * impulse, a force, a load, a velocity) reaches it; then it wakes as any
 * sleeper does, and sleeps again only as any body does. An anchored body
 * is held still by the world for good, as a static body is, but its
 * particles feel contacts as a dynamic body's do, so its pieces'
 * loads are measured (rb_world_set_pieces): each piece's is its contact
 * force, all of which the rest must give it. Edits leave it where it is.
 * The debris layer lets an anchored body's pieces fall once the bonds that
 * tie them to their anchors break (src/scenes/debris_break.c). Both count
 * as asleep (rb_body_state.asleep) and hold with sleeping off. */
typedef enum rb_body_hold { RB_HOLD_NONE = 0, RB_HOLD_DORMANT, RB_HOLD_ANCHORED } rb_body_hold;

/* Where a new body starts. Zero fields mean: a dynamic body at rest, unrotated. */
typedef struct rb_body_desc {
    uint32_t shape;            /* from rb_world_add_shape() */
    float position[3];         /* m, centre of mass */
    float orientation[4];      /* quaternion x, y, z, w; all zero = identity */
    float velocity[3];         /* m/s; must be zero for a static body */
    float angular_velocity[3]; /* rad/s, world frame; must be zero for a static body */
    rb_body_kind kind;
    uint32_t material; /* from rb_world_add_material(); 0: the world description's */
    rb_body_hold hold; /* a dynamic body's, at rest; RB_HOLD_NONE for the others */
} rb_body_desc;

/* A body's state as read back. Position, orientation, velocity, angular
 * momentum (a kinematic body: angular velocity), sleep_timer and support,
 * with the contact history (rb_world_read_contacts), are the whole of what a
 * step carries over: rb_world_restore_body() puts them back bit for bit. */
typedef struct rb_body_state {
    rb_body_id id;
    uint32_t shape;
    float position[3];
    float orientation[4]; /* x, y, z, w */
    float velocity[3];
    float angular_velocity[3]; /* world frame */
    float angular_momentum[3]; /* world frame, about the centre of mass; zero for static and kinematic bodies */
    float mass;                /* kg; INFINITY for static and kinematic bodies */
    float sleep_timer;         /* s the body has been slow (no load, under sleep_speed); asleep once >= sleep_time;
                                  -1 dormant, -2 anchored (rb_body_hold) */
    float support; /* how many contacts' worth its mass was shared among at the last step (README.md, "The contact") */
    bool asleep; /* held bodies too */
    rb_body_kind kind;
    uint32_t material;
    rb_body_hold hold;
} rb_body_state;

typedef struct rb_world rb_world;

/* Creates a world, or NULL with the reason in err (which may be NULL). An
 * OpenCL backend that cannot start falls back to the reference when the
 * backend asked for is AUTO, and fails when it is OPENCL. */
rb_world *rb_world_create(const rb_world_desc *desc, char *err, size_t err_size);
void rb_world_destroy(rb_world *world);

/* Checks a description: finite, positive, in range. Returns false with a
 * message naming the field. */
bool rb_world_desc_check(const rb_world_desc *desc, char *err, size_t err_size);

/* Registers a shape; returns its index, or -1 (bad data: logged). The data is copied. */
int rb_world_add_shape(rb_world *world, const rb_shape_data *shape);
uint32_t rb_world_shape_count(const rb_world *world);
/* The radius (m) of the shape's particles, its own or the description's
 * (what a renderer or a pick draws them at); 0 for an unknown shape. */
float rb_world_shape_radius(const rb_world *world, uint32_t shape);
/* A shape's particle offsets (xyz triples, m, its principal frame), up to
 * max particles into out (NULL: none), and its mass (kg) into *mass (may be
 * NULL); returns its particle count, 0 for an unknown shape. */
uint32_t rb_world_shape_particles(const rb_world *world, uint32_t shape, float *out, uint32_t max, float *mass);
/* A shape's principal moments of inertia (kg m^2) into inertia; false for an unknown shape. */
bool rb_world_shape_inertia(const rb_world *world, uint32_t shape, float inertia[3]);

/* Adds a body; returns a null id on bad input (unknown shape, kind or
 * material, non-finite values, a static body with a velocity: logged). */
rb_body_id rb_world_add_body(rb_world *world, const rb_body_desc *desc);
/* Removes a body; every other body keeps its state. False if the id is stale. */
bool rb_world_remove_body(rb_world *world, rb_body_id id);
void rb_world_clear(rb_world *world);
bool rb_world_body_valid(const rb_world *world, rb_body_id id);

/* An instant change of momentum: impulse (N s) at a world point (m). A static
 * or kinematic body's infinite mass takes it without moving (true). */
bool rb_world_apply_impulse(rb_world *world, rb_body_id id, const float impulse[3], const float point[3]);
/* A force (N) at a world point held during the next rb_world_step() call,
 * then cleared. Nothing for a static or kinematic body (true). */
bool rb_world_apply_force(rb_world *world, rb_body_id id, const float force[3], const float point[3]);
/* A force (N) at the centre of mass and a torque (N m), world frame, added
 * to the load held during the next rb_world_step() call, as
 * rb_world_apply_force's are. Unlike the edits here it does not restart the
 * body's sleep timer: a sleeping body wakes in the step if the load is
 * large enough (wake_accel), as for gravity's. So the same load held again
 * for each of several calls gives what one call over all their steps
 * gives (the debris layer's fields: src/scenes/debris.c). Nothing for a
 * static or kinematic body (true); false for a stale id or a non-finite
 * value. */
bool rb_world_add_load(rb_world *world, rb_body_id id, const float force[3], const float torque[3]);
/* Sets a body's linear and angular velocity (rad/s, world frame): a
 * kinematic body keeps them until set again. False for a static body. */
bool rb_world_set_velocity(rb_world *world, rb_body_id id, const float velocity[3], const float angular_velocity[3]);
/* Puts back a state read with rb_world_get_body(): position, orientation
 * (verbatim, not normalised), velocity, angular momentum and sleep_timer, bit
 * for bit; the angular velocity is derived from them as a step derives it
 * (zero while asleep). A world given the same shapes, materials and bodies
 * (kinds and materials included) in the same order and every body's state
 * then steps on exactly as the world it was read from did (the same
 * digests). The body keeps its shape, kind and material: id, shape, mass,
 * asleep, kind and material of state are not read. A kinematic body takes
 * its angular velocity from state->angular_velocity (it has no angular
 * momentum); a static body takes position and orientation only, and its
 * velocities must be zero. Static and kinematic bodies never sleep: their
 * timer stays 0. False, with nothing changed, for a stale id, a non-finite
 * value, a negative sleep_timer (but a held body's, -1 or -2: it is held
 * again) or an orientation that is not a unit quaternion (within 1e-3;
 * logged). */
bool rb_world_restore_body(rb_world *world, rb_body_id id, const rb_body_state *state);

/* Advances the world by steps fixed steps. False on a backend failure (logged). */
bool rb_world_step(rb_world *world, uint32_t steps);
/* Launches every kernel a step runs once, with nothing to do: bodies,
 * contact history, pieces' peak loads, joints and counters are untouched,
 * and no memory is taken (the OpenCL backend gives each kernel counts of
 * zero). PoCL compiles a kernel at its first launch; a run that times its
 * steps warms first. True if it warmed; false where there is nothing to
 * warm (the reference, no bodies) or a launch failed (logged), the world
 * unchanged either way. */
bool rb_world_warm(rb_world *world);

uint32_t rb_world_body_count(const rb_world *world);
uint32_t rb_world_particle_count(const rb_world *world);
/* The index-th body (0 <= index < body count; bodies keep their insertion order). */
bool rb_world_get_body(rb_world *world, uint32_t index, rb_body_state *out);
bool rb_world_get_body_by_id(rb_world *world, rb_body_id id, rb_body_state *out);
/* The CSR index: body b owns particles [first[b], first[b + 1]). */
const uint32_t *rb_world_body_first_particle(const rb_world *world);

/* Reads every particle's world position into out (xyz triples). */
bool rb_world_read_particles(rb_world *world, float *out);
/* Every body's transform, in body order: what a frame draws. After steps it
 * comes straight from the backend's own state (on OpenCL one 32-byte read a
 * body), without reading the rest of the state back. */
bool rb_world_read_transforms(rb_world *world, rb_transform *out);
/* The index-th body's id and every body's shape (world shape index), from the
 * host's arrays: only adding and removing bodies changes them, so reading
 * them never waits on the backend. */
rb_body_id rb_world_body_id(const rb_world *world, uint32_t index);
const uint32_t *rb_world_body_shapes(const rb_world *world);
/* The contact force on each particle (xyz triples, N) for the current state,
 * stages 1-3 of the step without integrating. For checking backends. */
bool rb_world_particle_forces(rb_world *world, float *out);

/* The overlapping particle pairs (i < j, of different bodies) that the
 * reference grid finds for the current state, as index pairs in pairs[2 * k];
 * returns how many there are (only the first max_pairs are written). For
 * tests and debugging; any backend. */
uint32_t rb_world_contact_pairs(rb_world *world, uint32_t *pairs, uint32_t max_pairs);

/* A hash of every body's state (bit patterns), for determinism checks. */
uint64_t rb_world_digest(rb_world *world);

const rb_world_desc *rb_world_get_desc(const rb_world *world);
/* Changes material 0 (the description's) and the step; every pair of
 * materials is calibrated again. False, with nothing changed and the reason
 * logged, if the material is out of range or the step cannot resolve it or
 * one of its pairs (the message names the step it needs). */
bool rb_world_set_material(rb_world *world, rb_material material, float dt);
/* Adds a material for bodies to name (rb_body_desc.material); returns its
 * index, or -1 (logged, as rb_world_set_material) when it is out of range,
 * the step cannot resolve it, or the world has RB_MAX_MATERIALS already.
 * Each pair of materials is calibrated on the step when it is added
 * (README.md, "The contact"). */
int rb_world_add_material(rb_world *world, rb_material material);
uint32_t rb_world_material_count(const rb_world *world);
/* The index-th material (0: the description's); false past the end. */
bool rb_world_get_material(const rb_world *world, uint32_t index, rb_material *out);
bool rb_world_set_gravity(rb_world *world, const float gravity[3]);
/* Changes sleeping (rb_world_desc.sleep_speed and sleep_time) from the next
 * step on; sleep_time 0 turns it off, and every sleeping body moves again.
 * False, with nothing changed and the reason logged, for values
 * rb_world_desc_check refuses. */
bool rb_world_set_sleeping(rb_world *world, float sleep_speed, float sleep_time);

const char *rb_world_backend_name(const rb_world *world); /* "reference", "opencl" */
const char *rb_world_device_name(const rb_world *world);
/* Prints every OpenCL device of every platform to out, each with the index
 * rb_world_desc.device_index (and --device) takes. Returns the number of
 * devices (0 with a note on how to get one). */
int rb_world_list_devices(FILE *out);

/* Stage timings of the last step call, ms summed over its steps. */
enum { RB_STAGE_PARTICLES, RB_STAGE_GRID, RB_STAGE_FORCES, RB_STAGE_INTEGRATE, RB_STAGE_COUNT };
extern const char *const rb_stage_names[RB_STAGE_COUNT];
void rb_world_stage_times(const rb_world *world, double ms[RB_STAGE_COUNT]);
/* Bytes of backend (device) memory held, all buffers counted. */
size_t rb_world_device_bytes(const rb_world *world);

/* ---- breakable bodies (src/scenes/fracture.h makes the pieces) ---- */

/* One piece of a breakable body. */
typedef struct rb_piece_desc {
    float centre[3]; /* its centre of mass in the body's shape frame, m */
    float mass;      /* kg, > 0 */
    float holds;     /* N: the force its bonds hold it to the rest with; 0: none (it comes off at once) */
} rb_piece_desc;

/* Makes a dynamic body breakable: piece_of[i] (< piece_count, 2 or more)
 * for each of its particles, in its shape's order. Each step then measures
 * each piece's load, on every backend in the step itself: the force the
 * rest of the body must give it to carry it along the body's rigid motion,
 * |m_P (F / M + alpha x r_P + w x (w x r_P)) - F_P|, F_P the contact forces
 * on its particles, F on all of them and alpha the body's angular
 * acceleration from their torques (gravity pulls every piece alike and
 * cancels; external loads are left out), over its hold. The largest ratio
 * since the pieces were set is kept (rb_world_piece_loads); a piece whose
 * ratio passes 1 makes the body broken (rb_world_take_breaks). False
 * (logged) for a stale id, a body that is not dynamic, a bad piece index or
 * a non-finite or negative value. */
bool rb_world_set_pieces(rb_world *world, rb_body_id id, uint32_t piece_count, const uint32_t *piece_of,
                         const rb_piece_desc *pieces);
/* A body's pieces' largest load over hold so far, up to max of them into
 * out; returns its piece count (0: not breakable or a stale id). */
uint32_t rb_world_piece_loads(rb_world *world, rb_body_id id, float *out, uint32_t max);
/* Which piece each of a body's particles belongs to, in its shape's order,
 * up to max of them into piece_of; returns its piece count (0: not
 * breakable or a stale id). Host data only: it costs no read of the backend. */
uint32_t rb_world_particle_pieces(const rb_world *world, rb_body_id id, uint32_t *piece_of, uint32_t max);
/* A breakable body's pieces as rb_world_set_pieces set them, up to max into
 * out, and (taken not NULL) whether rb_world_take_breaks gave the body out;
 * returns its piece count (0: not breakable or a stale id). Host data only.
 * With rb_world_particle_pieces and rb_world_piece_loads, what a saved
 * scene needs to set the pieces again (src/scenes/scene_write_shapes.c). */
uint32_t rb_world_get_pieces(const rb_world *world, rb_body_id id, rb_piece_desc *out, uint32_t max, bool *taken);
/* Sets a breakable body's pieces' largest loads so far (rb_world_piece_loads;
 * count of them, its piece count) and whether its break was taken, as a
 * saved scene had them: called after rb_world_set_pieces, which starts them
 * at 0, so the body goes on to break where the saved one would have. A
 * load past 1 not taken is found by the next rb_world_take_breaks. Every
 * backend steps from the host's loads (uploaded with the pieces). False
 * (logged) for a stale id, a body that is not breakable, a count that is
 * not its piece count or a load that is not a number >= 0. */
bool rb_world_restore_piece_loads(rb_world *world, rb_body_id id, const float *loads, uint32_t count, bool taken);
/* The bodies with a piece over its hold that have not been taken before:
 * their ids into out (up to max); returns how many there are. Without a new
 * break it costs one 4-byte read of the backend. */
uint32_t rb_world_take_breaks(rb_world *world, rb_body_id *out, uint32_t max);

/* How many contacts a particle remembers (its contact history's slots), a
 * world's choice (rb_world_desc.contact_slots): 4 or 8. A particle of a
 * body of several is shielded on its own body's side and rarely touches
 * more than 4 things at once; a lone sphere (a body of one particle) is open
 * on every side, and in a heap touches 5 or 6 (README.md, "Static
 * friction", "Memory"). */
#define RB_MAX_CONTACT_SLOTS 8u
#define RB_CONTACT_SLOTS_AUTO 0u /* rb_world_desc.contact_slots: chosen from the bodies */

/* The slots each of the world's particles keeps now: the description's
 * contact_slots, or with RB_CONTACT_SLOTS_AUTO, 8 while lone spheres are at
 * least half the particles of its dynamic bodies, else 4 (decided again
 * whenever bodies come, go or change kind; the history a particle keeps is
 * carried over, all of it when the slots grow, its first 4 when they
 * shrink). */
uint32_t rb_world_contact_slots(rb_world *world);

/* Contacts that found no free slot of their particle's contact history in
 * the steps so far (README.md, "Static friction"): each acted that step as
 * a new contact, without the static part of its friction. 0 in any world
 * whose particles never touch more than rb_world_contact_slots others at
 * once. */
uint64_t rb_world_contact_overflow(const rb_world *world);

/* Sleeping bodies that steps left out, a body a step, in the steps so far
 * (README.md, "Sleeping bodies rest"): a sleeping body that no awake body
 * came within reach of at the last step skips the force pass and the
 * integration, since nothing around it moved. Never where the world has
 * joints, paths or a kinematic body with a velocity: each step then runs
 * every body. */
uint64_t rb_world_rested(const rb_world *world);

/* Of the bodies rb_world_rested counts, those also left out of the grid,
 * a body a step: far from every running body, their particles are not
 * sorted into the cells the force pass searches (README.md, "Sleeping
 * bodies rest"). The OpenCL backend's CPU kernels only; 0 elsewhere. */
uint64_t rb_world_off_grid(const rb_world *world);

/* One contact's memory (README.md, "Static friction"): particle's contact
 * with partner (another particle's index, or RB_CONTACT_PLANE + k for plane
 * k), and the tangential displacement it has built up, m, world frame. */
#define RB_CONTACT_PLANE 0xFFFFFFF0u
typedef struct rb_contact_memory {
    uint32_t particle, partner;
    float displacement[3]; /* the tangential spring's, m */
    float rolling[3];      /* the rolling spring's angle, rad; kept only while the contact's materials resist rolling */
} rb_contact_memory;

/* The world's contact history, in particle order: writes up to max entries
 * to out and returns how many there are (0 on a backend failure). */
uint32_t rb_world_read_contacts(rb_world *world, rb_contact_memory *out, uint32_t max);

/* Replaces the world's contact history with count entries (a world built
 * again from a saved scene: the bodies in the same order). False, with the
 * entry named and nothing changed, for a particle out of range, a partner
 * that is neither another body's particle nor a plane of the world, a
 * non-finite displacement, or more entries for one particle than it keeps. */
bool rb_world_restore_contacts(rb_world *world, const rb_contact_memory *in, uint32_t count);

/* Whether a world of this many bodies and particles fits this machine: the
 * host's memory (world_memory.c, fitted to measured peak resident memory)
 * plus, unless desc asks for the reference backend, the OpenCL buffers
 * (which PoCL keeps in host memory too), against the memory available
 * (rb_memory_available), and the particle count against what one grid
 * table indexes. False with the estimate, the memory and where its figure
 * came from in err ("2000000 bodies of 54000000 particles need about
 * 26.2 GB (host ..., device ...), more than the 20.1 GB of memory
 * available (MemAvailable in /proc/meminfo)"), so a world that cannot be
 * built is refused at once rather than after minutes of failing to grow. */
bool rb_world_fits(const rb_world_desc *desc, uint64_t bodies, uint64_t particles, char *err, size_t err_size);

/* Bytes of memory a world may take: MemAvailable of /proc/meminfo, or the
 * environment's RUBBLE_MEMORY_LIMIT (bytes, or with k, M or G) where that
 * is lower. source (256 bytes) says which; -1 with the reason in source
 * for a RUBBLE_MEMORY_LIMIT that is not a size. */
double rb_memory_available(char *source, size_t source_size);

/* How many bodies of particles_per_body particles fit half the memory
 * available, by rb_world_fits' estimate (the other half for the arrays a
 * growing world doubles, and the rest of the machine). */
uint64_t rb_world_bodies_fitting(const rb_world_desc *desc, double particles_per_body);

/* The world's cap on bodies (rb_world_desc.max_bodies; UINT32_MAX for none),
 * and a new one: adds past it are refused, bodies there already stay. */
uint32_t rb_world_max_bodies(const rb_world *world);
void rb_world_set_max_bodies(rb_world *world, uint32_t max_bodies);
/* Finer than the stages, where the backend times its kernels (OpenCL
 * profiling events): sets *names to the kernels' names and fills ms (up to
 * capacity) with each kernel's time in ms summed over the last step call.
 * The OpenCL backend times one step in 8 and scales the times to the call
 * (and times nothing, all zero, under RUBBLE_OPENCL_PROFILE=0); the stage
 * times above come from the same events.
 * Returns the kernel count; 0 for a backend without kernels (the reference). */
uint32_t rb_world_kernel_times(const rb_world *world, const char *const **names, double *ms, uint32_t capacity);

/* ---- joints and keyframed paths (docs/joints.md) ---- */

/* A point-to-point joint: a stiff spring and damper between an anchor on
 * body a and one on body b (or a point of the world), sized by the step:
 * each of its modes rings at a period of 4 contact times of the pair's
 * material, critically damped (docs/joints.md). The force acts at the
 * anchors, with the contact forces, on both backends alike. */
typedef struct rb_joint_desc {
    rb_body_id a;         /* a body */
    rb_body_id b;         /* another body, or a null id: the world */
    float anchor_a[3];    /* m, in a's frame (its principal frame: the centre of mass at 0) */
    float anchor_b[3];    /* m, in b's frame; with the world: a world point */
    float breaking_force; /* N, > 0: past it the joint breaks for good; 0: it never breaks */
} rb_joint_desc;

/* A joint as read back. */
typedef struct rb_joint_state {
    uint32_t id;
    rb_joint_desc desc; /* breaking_force 0: unbreakable */
    bool broken;        /* it passed its breaking force: it acts no more */
    float peak_force;   /* N: the largest force it carried (unbroken) since it was added */
} rb_joint_state;

/* Adds a joint; returns its id (> 0, never reused in this world), or 0 on
 * bad input (a stale body, the same body at both ends, a non-finite anchor,
 * a negative or non-finite breaking force: logged). Both bodies wake. */
uint32_t rb_world_add_joint(rb_world *world, const rb_joint_desc *desc);
/* Removes a joint (broken or not); false for an unknown id. Its bodies wake.
 * Removing a body removes its joints. */
bool rb_world_remove_joint(rb_world *world, uint32_t id);
/* Joints the world holds, broken ones included, in the order they were added. */
uint32_t rb_world_joint_count(const rb_world *world);
/* The index-th joint (0 <= index < rb_world_joint_count); false past the end. */
bool rb_world_get_joint(rb_world *world, uint32_t index, rb_joint_state *out);
/* The joints that broke and were not given out before: their ids into out
 * (up to max); returns how many. Without a new break it costs one 4-byte
 * read of the backend, as rb_world_take_breaks. */
uint32_t rb_world_take_joint_breaks(rb_world *world, uint32_t *out, uint32_t max);

/* One key of a kinematic body's path: where its centre of mass is and how
 * it is turned at a time. */
typedef struct rb_path_key {
    float time;           /* s, on the path's clock; keys in increasing time */
    float position[3];    /* m */
    float orientation[4]; /* unit quaternion x, y, z, w */
} rb_path_key;

typedef struct rb_path_desc {
    const rb_path_key *keys;
    uint32_t key_count; /* at least 1 */
    /* false: straight lines and slerp between keys; true: a Catmull-Rom
     * spline through the positions (cubic Hermite, tangents from the
     * neighbouring keys) and squad through the orientations. */
    bool smooth;
    /* After the last key: false holds its pose; true starts again at the
     * first key (the clock runs modulo last - first key time). */
    bool loop;
    double time; /* s: the path's clock now (0: at the start; a saved scene keeps it) */
} rb_path_desc;

/* Makes a kinematic body follow a path: before each step the world sets its
 * velocity and angular velocity so that the step lands it on the path's
 * pose at the step's end (docs/joints.md, "Paths": within a few float
 * roundings of its position, on both backends alike). NULL desc removes the
 * path (the body keeps its last velocities). False (logged) for a stale id,
 * a body that is not kinematic, no keys, keys out of time order, or
 * non-finite values. The keys are copied. */
bool rb_world_set_path(rb_world *world, rb_body_id id, const rb_path_desc *desc);
/* A body's path: keys (the world's copy, valid until the path changes),
 * flags and its clock now into out; false if it has none. */
bool rb_world_get_path(const rb_world *world, rb_body_id id, rb_path_desc *out);
/* The pose a path gives at time t (s), in double precision: what
 * rb_world_set_path steers to. */
void rb_path_pose(const rb_path_desc *path, double t, double position[3], double orientation[4]);

#endif /* RB_WORLD_H */
