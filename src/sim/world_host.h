/* world_host.h - the world (world.h's rb_world) as its host side keeps
 * it, shared by the files that keep it: world.c (shapes, bodies, loads,
 * materials and settings, the contact history, stepping, reading),
 * world_sync.c (the host copy and the backend kept in step),
 * world_joints.c (joints and kinematic paths) and world_pieces.c
 * (breakable bodies' pieces and breaks). Private to src/sim; its
 * functions are the world's, not the backends' (rb_backend_vtbl,
 * world_internal.h). */
#ifndef RB_WORLD_HOST_H
#define RB_WORLD_HOST_H

#include <math.h>
#include <stdlib.h>

#include "world_internal.h"

typedef struct world_shape {
    uint32_t particle_count;
    rb_float4 *offsets;
    float mass;
    float inertia[3];
    float radius;     /* m, its own or the description's */
    float slip_scale; /* 1 / rb_shape_mobility */
    float onset;      /* rb_shape_onset_support */
    float rank;       /* cell rank: its particle count if a lattice (rb_shape_cells), else 0 */
} world_shape;

/* A joint's host side (world.h, rb_world_add_joint): the device side is in
 * rb_world_data's joint arrays, at the same index. */
typedef struct world_joint {
    uint32_t id;
    rb_body_id a, b; /* b null: the world */
    bool taken;      /* broken and given out by rb_world_take_joint_breaks */
} world_joint;

/* A kinematic body's path (world.h, rb_world_set_path), steered from the
 * host before each step; x and q are the body's pose as the backend steps
 * it, followed here operation for operation so the host never reads it back. */
typedef struct world_path {
    rb_body_id body;
    rb_path_key *keys;
    uint32_t key_count;
    bool smooth, loop;
    double time;    /* s, the clock when set */
    uint64_t steps; /* steps since */
    rb_float4 x, q;
} world_path;

struct rb_world {
    rb_world_desc desc;
    rb_step_params params;
    rb_world_data d;
    rb_backend *backend;
    bool host_dirty;     /* host changed: the backend needs upload() */
    bool device_ahead;   /* the backend stepped: the host needs download() */
    bool loads_applied;  /* body_force/body_torque hold something to clear after the step */
    bool slots_ahead;    /* the backend stepped: its contact history is newer than the host's */
    bool slots_dirty;    /* the host renumbered the history (bodies went): the backend needs upload_slots() */
    uint32_t max_bodies; /* adds past it are refused (rb_world_set_max_bodies) */
    bool breaks_left;    /* rb_world_take_breaks had more broken bodies than room: look again without asking */

    world_shape *shapes;
    uint32_t shape_count;

    rb_material materials[RB_MAX_MATERIALS]; /* 0: desc.material; params.rates holds their pairs */
    uint32_t material_count;

    /* body ids: slot -> body index, generation (0 = never used) */
    uint32_t *slot_index, *slot_generation, slot_count, slot_capacity;
    uint32_t *free_slots, free_count;

    world_joint *joints; /* d.joint_count of them, d.joint_capacity room */
    uint32_t next_joint_id, joint_index_capacity;
    bool joint_breaks_left; /* rb_world_take_joint_breaks had more than room: look again without asking */
    world_path *paths;
    uint32_t path_count, path_capacity;
    uint32_t *path_bodies; /* scratch: the path bodies' indices, path_count of them */
};

/* *p grown to hold need elements of elem bytes (its capacity *cap doubled
 * from 16), keeping what it held; false, and *p as it was, when out of memory. */
static inline bool rb_world_grow(void **p, size_t elem, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return true;
    uint32_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* True if the n values are all finite. */
static inline bool rb_all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* Body id's index in the arrays, if the id is live. */
static inline bool rb_body_index(const rb_world *w, rb_body_id id, uint32_t *index) {
    if (id.generation == 0 || id.slot >= w->slot_count || w->slot_generation[id.slot] != id.generation) return false;
    *index = w->slot_index[id.slot];
    return true;
}

/* The host copy and the backend in step (world_sync.c). rb_host_current
 * reads the state back after steps, rb_host_slots_current the contact
 * history; rb_backend_current uploads what the host changed (the contact
 * slots and the joints' device side made ready first) and the history
 * where the host renumbered it. Each returns false on a failure: a
 * backend's, which it logs, or (rb_backend_current) no memory for the
 * joints' lists. */
bool rb_host_current(rb_world *w);
bool rb_host_slots_current(rb_world *w);
bool rb_backend_current(rb_world *w);
/* The history's slots a particle (world.h, rb_world_contact_slots) as the
 * world's particles want them, and the history laid out again where they
 * changed. */
uint32_t rb_wanted_slots(const rb_world *w);
bool rb_contact_slots_current(rb_world *w);

/* Joints and paths (world_joints.c). A body that goes takes its joints
 * (their other ends woken, the host marked changed) and its path with it.
 * rb_paths_step runs the steps one at a time, each path's body steered
 * first (its velocities written to the backend, or uploaded with what the
 * host changed), and leaves the device ahead of the host. */
void rb_joints_drop_body(rb_world *w, rb_body_id id);
void rb_paths_drop_body(rb_world *w, rb_body_id id);
bool rb_paths_step(rb_world *w, uint32_t steps);

#endif
