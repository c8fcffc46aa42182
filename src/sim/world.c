/* world.c - bodies, ids and the host copy of the state; the backend steps it.
 *
 * The host arrays are the truth between steps. A backend with a device copy
 * gets upload() after the host changed them and download() before the host
 * reads them after steps, so callers never see which backend runs
 * (world_sync.c). Joints and kinematic paths are world_joints.c's,
 * breakable bodies' pieces world_pieces.c's; the world's state, shared by
 * the four, is world_host.h's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "world_host.h"

const char *const rb_stage_names[RB_STAGE_COUNT] = {"particles", "grid", "forces", "integrate"};

/* ---- growing arrays ---- */

static bool reserve_bodies(rb_world *w, uint32_t need) {
    rb_world_data *d = &w->d;
    if (need + 1 <= d->body_capacity) return true;
    uint32_t cap = d->body_capacity ? d->body_capacity : 16;
    while (cap < need + 1) cap *= 2;
    rb_float4 **f4[] = {&d->body_pos,   &d->body_quat,        &d->body_vel,   &d->body_angmom,
                        &d->body_omega, &d->body_inv_inertia, &d->body_force, &d->body_torque};
    for (size_t i = 0; i < sizeof f4 / sizeof *f4; i++) {
        void *q = realloc(*f4[i], cap * sizeof(rb_float4));
        if (!q) return false;
        *f4[i] = q;
    }
    uint32_t **u[] = {&d->body_first_particle, &d->body_shape, &d->body_kind,
                      &d->body_material,       &d->body_slot,  &d->body_first_piece};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        void *q = realloc(*u[i], cap * sizeof(uint32_t));
        if (!q) return false;
        *u[i] = q;
    }
    void *contact = realloc(d->body_contact, cap * sizeof(rb_float4));
    if (!contact) return false;
    d->body_contact = contact;
    float *support = realloc(d->body_support, cap * sizeof(float));
    if (!support) return false;
    d->body_support = support;
    d->body_capacity = cap;
    return true;
}

static bool reserve_particles(rb_world *w, uint32_t need) {
    rb_world_data *d = &w->d;
    uint32_t cap = d->particle_capacity;
    if (need <= cap) return true;
    uint32_t c1 = cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap, c6 = cap;
    if (!rb_world_grow((void **)&d->particle_offset, sizeof(rb_float4), &c1, need)) return false;
    if (!rb_world_grow((void **)&d->particle_body, sizeof(uint32_t), &c2, need)) return false;
    const size_t slots = d->contact_slots;
    if (!rb_world_grow((void **)&d->particle_keys, slots * sizeof(uint32_t), &c3, need)) return false;
    if (!rb_world_grow((void **)&d->particle_disp, slots * 3 * sizeof(float), &c4, need)) return false;
    if (!rb_world_grow((void **)&d->particle_roll, slots * 3 * sizeof(float), &c6, need)) return false;
    if (!rb_world_grow((void **)&d->particle_member, sizeof(uint32_t), &c5, need)) return false;
    d->particle_capacity = c1;
    return true;
}

/* ---- creation ---- */

/* Every backend the world can run, by kind: the only place world.c names one.
 * Everything else goes through the backend's vtbl. */
static const struct {
    rb_backend_kind kind;
    rb_backend_create_fn create;
} backends[] = {
    {RB_BACKEND_REFERENCE, rb_reference_create},
    {RB_BACKEND_OPENCL, rb_opencl_create},
};

static rb_backend *create_backend(rb_backend_kind kind, int device_index, char *err, size_t err_size) {
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (backends[i].kind == kind) return backends[i].create(device_index, err, err_size);
    snprintf(err, err_size, "no backend of kind %d", (int)kind);
    return NULL;
}

static rb_backend *make_backend(const rb_world_desc *desc, char *err, size_t err_size) {
    char why[512] = "";
    if (desc->backend == RB_BACKEND_REFERENCE)
        return create_backend(RB_BACKEND_REFERENCE, desc->device_index, err, err_size);
    rb_backend *b = create_backend(RB_BACKEND_OPENCL, desc->device_index, why, sizeof why);
    if (b) return b;
    if (desc->backend == RB_BACKEND_OPENCL) {
        snprintf(err, err_size, "OpenCL backend: %s", why);
        return NULL;
    }
    rb_log(RB_LOG_WARN, "OpenCL backend unavailable (%s); running the sequential reference instead", why);
    return create_backend(RB_BACKEND_REFERENCE, desc->device_index, err, err_size);
}

int rb_world_list_devices(FILE *out) { return rb_opencl_list_devices(out); }

rb_world *rb_world_create(const rb_world_desc *desc, char *err, size_t err_size) {
    char scratch[8];
    if (!err) err = scratch, err_size = sizeof scratch;
    rb_world_desc dd = desc ? *desc : rb_default_world_desc();
    if (!rb_world_desc_check(&dd, err, err_size)) return NULL;
    rb_world *w = calloc(1, sizeof *w);
    if (!w) return snprintf(err, err_size, "out of memory"), NULL;
    w->desc = dd;
    w->max_bodies = dd.max_bodies ? dd.max_bodies : UINT32_MAX;
    w->params = rb_step_params_from_desc(&dd);
    w->materials[0] = dd.material;
    w->material_count = 1;
    w->backend = make_backend(&dd, err, err_size);
    if (!w->backend || !reserve_bodies(w, 0)) {
        rb_world_destroy(w);
        return NULL;
    }
    w->d.body_first_particle[0] = 0;
    w->d.body_first_piece[0] = 0;
    w->d.contact_slots = rb_wanted_slots(w); /* the description's, or 4 for no bodies */
    w->host_dirty = true;
    return w;
}

void rb_world_destroy(rb_world *w) {
    if (!w) return;
    if (w->backend) w->backend->vtbl->destroy(w->backend);
    rb_world_data *d = &w->d;
    free(d->body_pos), free(d->body_quat), free(d->body_vel), free(d->body_angmom), free(d->body_omega);
    free(d->body_inv_inertia), free(d->body_force), free(d->body_torque);
    free(d->body_first_particle), free(d->body_shape), free(d->body_kind), free(d->body_material), free(d->body_slot);
    free(d->body_contact);
    free(d->particle_offset), free(d->particle_body), free(d->particle_keys), free(d->particle_disp);
    free(d->particle_roll);
    free(d->body_support);
    free(d->body_first_piece), free(d->piece_info), free(d->piece_holds), free(d->piece_span), free(d->piece_load);
    free(d->piece_taken), free(d->particle_member);
    for (uint32_t s = 0; s < w->shape_count; s++) free(w->shapes[s].offsets);
    free(w->shapes);
    free(w->slot_index), free(w->slot_generation), free(w->free_slots);
    free(d->joint_body), free(d->joint_anchor_a), free(d->joint_anchor_b), free(d->joint_limit), free(d->joint_broken);
    free(d->joint_peak), free(d->body_first_joint), free(d->joint_list), free(w->joints);
    for (uint32_t k = 0; k < w->path_count; k++) free(w->paths[k].keys);
    free(w->paths), free(w->path_bodies);
    free(w);
}

/* ---- shapes ---- */

static bool any_nonzero(const float v[3]) { return v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f; }

int rb_world_add_shape(rb_world *w, const rb_shape_data *s) {
    if (!s || s->particle_count == 0 || !s->offsets) {
        rb_log(RB_LOG_ERROR, "world: a shape needs at least one particle");
        return -1;
    }
    if (!rb_all_finite(s->offsets, 3 * (size_t)s->particle_count) || !(isfinite(s->mass) && s->mass > 0.0f) ||
        !rb_all_finite(s->inertia, 3) || !(s->inertia[0] > 0.0f && s->inertia[1] > 0.0f && s->inertia[2] > 0.0f)) {
        rb_log(RB_LOG_ERROR, "world: a shape needs finite offsets, a positive mass and positive principal moments");
        return -1;
    }
    if (!(isfinite(s->particle_radius) && s->particle_radius >= 0.0f)) {
        rb_log(RB_LOG_ERROR,
               "world: a shape's particle_radius must be a positive number of metres, or 0 for the "
               "world's (got %g)",
               s->particle_radius);
        return -1;
    }
    world_shape *shapes = realloc(w->shapes, (w->shape_count + 1) * sizeof *shapes);
    if (!shapes) return -1;
    w->shapes = shapes;
    world_shape *ws = &w->shapes[w->shape_count];
    ws->offsets = malloc(s->particle_count * sizeof *ws->offsets);
    if (!ws->offsets) return -1;
    for (uint32_t i = 0; i < s->particle_count; i++)
        ws->offsets[i] = (rb_float4){s->offsets[3 * i], s->offsets[3 * i + 1], s->offsets[3 * i + 2], 0.0f};
    ws->particle_count = s->particle_count;
    ws->mass = s->mass;
    ws->radius = s->particle_radius > 0.0f ? s->particle_radius : w->desc.particle_radius;
    ws->slip_scale = (float)(1.0 / rb_shape_mobility(s, ws->radius));
    ws->onset = (float)rb_shape_onset_support(s, ws->radius);
    memcpy(ws->inertia, s->inertia, sizeof ws->inertia);
    const int lattice = rb_shape_cells(ws->offsets, s->particle_count, ws->radius);
    if (lattice < 0) {
        free(ws->offsets);
        return -1;
    }
    ws->rank = lattice ? (float)s->particle_count : 0.0f;
    return (int)w->shape_count++;
}

uint32_t rb_world_shape_count(const rb_world *w) { return w->shape_count; }

bool rb_world_shape_inertia(const rb_world *w, uint32_t shape, float inertia[3]) {
    if (shape >= w->shape_count) return false;
    memcpy(inertia, w->shapes[shape].inertia, sizeof w->shapes[shape].inertia);
    return true;
}

float rb_world_shape_radius(const rb_world *w, uint32_t shape) {
    return shape < w->shape_count ? w->shapes[shape].radius : 0.0f;
}

uint32_t rb_world_shape_particles(const rb_world *w, uint32_t shape, float *out, uint32_t max, float *mass) {
    if (shape >= w->shape_count) return 0;
    const world_shape *s = &w->shapes[shape];
    for (uint32_t i = 0; out && i < s->particle_count && i < max; i++)
        out[3 * i] = s->offsets[i].x, out[3 * i + 1] = s->offsets[i].y, out[3 * i + 2] = s->offsets[i].z;
    if (mass) *mass = s->mass;
    return s->particle_count;
}

/* The grid's cell is the largest particle diameter among the bodies present
 * (rb_step_params.max_radius): taken again from every body when one goes
 * (a removal moves every later body anyway), the description's radius in an
 * empty world. A body with larger particles than any before grows it as it
 * is added (rb_world_add_body). */
static void refresh_max_radius(rb_world *w) {
    float r = w->d.body_count ? 0.0f : w->desc.particle_radius;
    for (uint32_t b = 0; b < w->d.body_count; b++) r = fmaxf(r, w->d.body_contact[b].x);
    w->params.max_radius = r;
}

/* ---- bodies ---- */

bool rb_world_body_valid(const rb_world *w, rb_body_id id) {
    uint32_t i;
    return rb_body_index(w, id, &i);
}

/* L = R I R^T omega */
static rb_float4 angmom_from_omega(rb_float4 q4, rb_float4 inv_inertia, const float omega[3]) {
    const float q[4] = {q4.x, q4.y, q4.z, q4.w};
    float wb[3], lb[3], L[3];
    rb_quat_rotate_inv(q, omega, wb);
    lb[0] = wb[0] / inv_inertia.x, lb[1] = wb[1] / inv_inertia.y, lb[2] = wb[2] / inv_inertia.z;
    rb_quat_rotate(q, lb, L);
    return (rb_float4){L[0], L[1], L[2], 0.0f};
}

/* A body's angular velocity (world frame): a dynamic body's through its
 * angular momentum, as the step derives it; a kinematic body's as given. */
static void set_angular_velocity(rb_world_data *d, uint32_t b, const float omega[3]) {
    if (d->body_kind[b] == RB_BODY_DYNAMIC) {
        d->body_angmom[b] = angmom_from_omega(d->body_quat[b], d->body_inv_inertia[b], omega);
        d->body_omega[b] = rb_apply_inv_inertia(d->body_quat[b], d->body_inv_inertia[b], d->body_angmom[b]);
    } else {
        d->body_angmom[b] = (rb_float4){0.0f, 0.0f, 0.0f, 0.0f};
        d->body_omega[b] = (rb_float4){omega[0], omega[1], omega[2], 0.0f};
    }
}

static uint32_t take_slot(rb_world *w) {
    if (w->free_count) return w->free_slots[--w->free_count];
    uint32_t slot = w->slot_count;
    if (slot == w->slot_capacity) {
        uint32_t c1 = w->slot_capacity, c2 = c1, c3 = c1;
        if (!rb_world_grow((void **)&w->slot_index, sizeof(uint32_t), &c1, slot + 1) ||
            !rb_world_grow((void **)&w->slot_generation, sizeof(uint32_t), &c2, slot + 1) ||
            !rb_world_grow((void **)&w->free_slots, sizeof(uint32_t), &c3, slot + 1))
            return UINT32_MAX;
        w->slot_capacity = c1;
    }
    w->slot_generation[slot] = 0;
    w->slot_count = slot + 1;
    return slot;
}

rb_body_id rb_world_add_body(rb_world *w, const rb_body_desc *bd) {
    const rb_body_id null_id = {0, 0};
    if (!bd || bd->shape >= w->shape_count) {
        rb_log(RB_LOG_ERROR, "world: add_body with unknown shape %u (%u shapes)", bd ? bd->shape : 0, w->shape_count);
        return null_id;
    }
    if (!rb_all_finite(bd->position, 3) || !rb_all_finite(bd->orientation, 4) || !rb_all_finite(bd->velocity, 3) ||
        !rb_all_finite(bd->angular_velocity, 3)) {
        rb_log(RB_LOG_ERROR, "world: add_body with a non-finite position, orientation or velocity");
        return null_id;
    }
    if ((unsigned)bd->kind > RB_BODY_KINEMATIC) {
        rb_log(RB_LOG_ERROR, "world: add_body with unknown kind %u", (unsigned)bd->kind);
        return null_id;
    }
    if (w->d.body_count >= w->max_bodies) {
        rb_log(RB_LOG_ERROR, "world: add_body past the world's cap of %u bodies (world.max_bodies)", w->max_bodies);
        return null_id;
    }
    if (bd->material >= w->material_count) {
        rb_log(RB_LOG_ERROR, "world: add_body with unknown material %u (%u materials)", bd->material,
               w->material_count);
        return null_id;
    }
    if (bd->hold != RB_HOLD_NONE && (bd->hold > RB_HOLD_ANCHORED || bd->kind != RB_BODY_DYNAMIC ||
                                     any_nonzero(bd->velocity) || any_nonzero(bd->angular_velocity))) {
        rb_log(RB_LOG_ERROR, "world: only a dynamic body at rest can start dormant or anchored");
        return null_id;
    }
    if (bd->kind == RB_BODY_STATIC && (any_nonzero(bd->velocity) || any_nonzero(bd->angular_velocity))) {
        rb_log(RB_LOG_ERROR, "world: a static body never moves: add it without a velocity (or make it kinematic)");
        return null_id;
    }
    const world_shape *s = &w->shapes[bd->shape];
    rb_world_data *d = &w->d;
    /* the history too: once the counts change, the backend's no longer matches
     * the host's, and a removal before the next step needs it home */
    if (!rb_host_current(w) || !rb_host_slots_current(w) || !reserve_bodies(w, d->body_count + 1) ||
        !reserve_particles(w, d->particle_count + s->particle_count)) {
        rb_log(RB_LOG_ERROR, "world: cannot add a body (out of memory or backend failure)");
        return null_id;
    }
    uint32_t slot = take_slot(w);
    if (slot == UINT32_MAX) return null_id;

    float q[4] = {bd->orientation[0], bd->orientation[1], bd->orientation[2], bd->orientation[3]};
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) q[3] = 1.0f;
    rb_quat_normalize(q);

    uint32_t b = d->body_count, first = d->particle_count;
    const bool dynamic = bd->kind == RB_BODY_DYNAMIC;
    /* static and kinematic: infinite mass and inertia (contact.h reads the particle mass) */
    rb_float4 inv_inertia = {1.0f / s->inertia[0], 1.0f / s->inertia[1], 1.0f / s->inertia[2],
                             s->mass / (float)s->particle_count};
    if (!dynamic) inv_inertia = (rb_float4){0.0f, 0.0f, 0.0f, INFINITY};
    const float timer = bd->hold == RB_HOLD_DORMANT    ? RB_TIMER_DORMANT
                        : bd->hold == RB_HOLD_ANCHORED ? RB_TIMER_ANCHORED
                                                       : 0.0f;
    d->body_pos[b] = (rb_float4){bd->position[0], bd->position[1], bd->position[2], timer};
    d->body_quat[b] = (rb_float4){q[0], q[1], q[2], q[3]};
    d->body_vel[b] = (rb_float4){bd->velocity[0], bd->velocity[1], bd->velocity[2], dynamic ? 1.0f / s->mass : 0.0f};
    d->body_inv_inertia[b] = inv_inertia;
    d->body_kind[b] = bd->kind;
    d->body_material[b] = bd->material;
    set_angular_velocity(d, b, bd->angular_velocity);
    d->body_force[b] = d->body_torque[b] = (rb_float4){0};
    d->body_shape[b] = bd->shape;
    d->body_slot[b] = slot;
    d->body_contact[b] = (rb_float4){s->radius, dynamic ? s->slip_scale : 1.0f, s->onset, s->rank};
    d->body_support[b] = 0.0f; /* no contacts yet: its first are sized by its particles (contact.h) */
    w->params.max_radius = b == 0 ? s->radius : fmaxf(w->params.max_radius, s->radius);
    d->body_first_particle[b] = first;
    d->body_first_particle[b + 1] = first + s->particle_count;
    d->body_first_piece[b + 1] = d->piece_count; /* none: not breakable */
    for (uint32_t i = 0; i < s->particle_count; i++) {
        d->particle_offset[first + i] = s->offsets[i];
        d->particle_body[first + i] = b;
        const size_t slots = d->contact_slots, at = (size_t)(first + i) * slots;
        for (size_t k = 0; k < slots; k++) d->particle_keys[at + k] = RB_SLOT_FREE;
        memset(&d->particle_disp[3 * at], 0, slots * 3 * sizeof(float));
        memset(&d->particle_roll[3 * at], 0, slots * 3 * sizeof(float));
    }
    d->body_count++;
    d->particle_count += s->particle_count;

    w->slot_index[slot] = b;
    w->slot_generation[slot]++;
    if (w->slot_generation[slot] == 0) w->slot_generation[slot] = 1; /* 0 means null */
    w->host_dirty = true;
    return (rb_body_id){slot, w->slot_generation[slot]};
}

/* Body b's pieces out of the piece arrays, before the body's own entries
 * go: later pieces move down, their members `particles` places earlier
 * (the body's particles go with it). */
static void remove_pieces(rb_world_data *d, uint32_t b, uint32_t particles) {
    const uint32_t pf = d->body_first_piece[b], pc = d->body_first_piece[b + 1] - pf, later = d->piece_count - pf - pc;
    if (pc && later) { /* (no piece arrays at all before the first breakable body) */
        memmove(&d->piece_info[pf], &d->piece_info[pf + pc], later * sizeof *d->piece_info);
        memmove(&d->piece_holds[pf], &d->piece_holds[pf + pc], later * sizeof *d->piece_holds);
        memmove(&d->piece_span[2 * pf], &d->piece_span[2 * (pf + pc)], later * 2 * sizeof *d->piece_span);
        memmove(&d->piece_load[pf], &d->piece_load[pf + pc], later * sizeof *d->piece_load);
        memmove(&d->piece_taken[pf], &d->piece_taken[pf + pc], later);
    }
    for (uint32_t k = pf; k < pf + later; k++) d->piece_span[2 * k] -= particles;
    for (uint32_t k = b + 1; k <= d->body_count; k++) d->body_first_piece[k] -= pc;
    memmove(&d->body_first_piece[b], &d->body_first_piece[b + 1], (d->body_count - b) * sizeof *d->body_first_piece);
    d->piece_count -= pc;
}

/* The contact history after particles [first, first + count) went: their
 * slots gone with them, every key of theirs freed, every later particle's
 * key renumbered. */
static void renumber_slots(rb_world_data *d, uint32_t first, uint32_t count) {
    const size_t slots = d->contact_slots, later = (size_t)(d->particle_count - first - count) * slots;
    const size_t to = (size_t)first * slots, from = (size_t)(first + count) * slots;
    uint32_t *keys = d->particle_keys;
    memmove(&keys[to], &keys[from], later * sizeof *keys);
    memmove(&d->particle_disp[3 * to], &d->particle_disp[3 * from], later * 3 * sizeof(float));
    memmove(&d->particle_roll[3 * to], &d->particle_roll[3 * from], later * 3 * sizeof(float));
    const size_t total = (size_t)(d->particle_count - count) * slots;
    for (size_t k = 0; k < total; k++) {
        if (keys[k] >= RB_SLOT_PLANE) continue; /* a plane's, or free */
        if (keys[k] >= first + count)
            keys[k] -= count;
        else if (keys[k] >= first)
            keys[k] = RB_SLOT_FREE;
    }
}

bool rb_world_remove_body(rb_world *w, rb_body_id id) {
    uint32_t b;
    if (!rb_body_index(w, id, &b) || !rb_host_current(w) || !rb_host_slots_current(w)) return false;
    rb_joints_drop_body(w, id); /* its joints and path go with it */
    rb_paths_drop_body(w, id);
    rb_world_data *d = &w->d;
    uint32_t first = d->body_first_particle[b], count = d->body_first_particle[b + 1] - first;
    uint32_t later_bodies = d->body_count - b - 1, later_particles = d->particle_count - first - count;
    /* Compact: every later body and particle moves down, keeping its order. */
    rb_float4 *f4[] = {d->body_pos,   d->body_quat,        d->body_vel,   d->body_angmom,
                       d->body_omega, d->body_inv_inertia, d->body_force, d->body_torque};
    for (size_t i = 0; i < sizeof f4 / sizeof *f4; i++)
        memmove(&f4[i][b], &f4[i][b + 1], later_bodies * sizeof(rb_float4));
    memmove(&d->body_shape[b], &d->body_shape[b + 1], later_bodies * sizeof(uint32_t));
    memmove(&d->body_kind[b], &d->body_kind[b + 1], later_bodies * sizeof(uint32_t));
    memmove(&d->body_material[b], &d->body_material[b + 1], later_bodies * sizeof(uint32_t));
    memmove(&d->body_slot[b], &d->body_slot[b + 1], later_bodies * sizeof(uint32_t));
    memmove(&d->body_contact[b], &d->body_contact[b + 1], later_bodies * sizeof(rb_float4));
    memmove(&d->body_support[b], &d->body_support[b + 1], later_bodies * sizeof(float));
    renumber_slots(d, first, count);
    for (uint32_t k = b; k < b + later_bodies; k++) d->body_first_particle[k] = d->body_first_particle[k + 1] - count;
    d->body_first_particle[b + later_bodies] = first + later_particles;
    memmove(&d->particle_offset[first], &d->particle_offset[first + count], later_particles * sizeof(rb_float4));
    memmove(&d->particle_body[first], &d->particle_body[first + count], later_particles * sizeof(uint32_t));
    memmove(&d->particle_member[first], &d->particle_member[first + count], later_particles * sizeof(uint32_t));
    remove_pieces(d, b, count);
    for (uint32_t i = first; i < first + later_particles; i++) d->particle_body[i]--;
    d->body_count--;
    d->particle_count -= count;
    for (uint32_t k = b; k < d->body_count; k++) w->slot_index[d->body_slot[k]] = k;
    refresh_max_radius(w);
    w->slot_generation[id.slot]++;
    if (w->slot_generation[id.slot] == 0) w->slot_generation[id.slot] = 1;
    w->free_slots[w->free_count++] = id.slot;
    w->host_dirty = w->slots_dirty = true;
    return true;
}

void rb_world_clear(rb_world *w) {
    /* every id goes stale, every slot is free; pushed last body first, so
     * that bodies added again in the same order take the same slots (a
     * reset's bodies keep their slots, and the colours drawn by them) */
    for (uint32_t b = w->d.body_count; b-- > 0;) {
        uint32_t slot = w->d.body_slot[b];
        if (++w->slot_generation[slot] == 0) w->slot_generation[slot] = 1;
        w->free_slots[w->free_count++] = slot;
    }
    w->d.body_count = w->d.particle_count = w->d.piece_count = w->d.joint_count = 0;
    for (uint32_t k = 0; k < w->path_count; k++) free(w->paths[k].keys);
    w->path_count = 0;
    w->joint_breaks_left = false;
    refresh_max_radius(w);
    w->device_ahead = w->loads_applied = w->slots_ahead = false; /* nothing left to read back */
    w->host_dirty = true;
}

/* ---- loads ---- */

static bool body_for_edit(rb_world *w, rb_body_id id, uint32_t *b, const float *v1, const float *v2) {
    if (!rb_body_index(w, id, b)) return false;
    if ((v1 && !rb_all_finite(v1, 3)) || (v2 && !rb_all_finite(v2, 3))) {
        rb_log(RB_LOG_ERROR, "world: non-finite impulse, force, point or velocity ignored");
        return false;
    }
    if (!rb_host_current(w)) return false;
    /* any edit wakes the body, a dormant one too; an anchored one stays held */
    if (!rb_timer_anchored(w->d.body_pos[*b].w)) w->d.body_pos[*b].w = 0.0f;
    w->host_dirty = true;
    return true;
}

/* An anchored body: held still, whatever an edit or a load asks. */
static bool anchored(const rb_world *w, uint32_t b) { return rb_timer_anchored(w->d.body_pos[b].w); }

bool rb_world_apply_impulse(rb_world *w, rb_body_id id, const float impulse[3], const float point[3]) {
    uint32_t b;
    if (!body_for_edit(w, id, &b, impulse, point)) return false;
    rb_world_data *d = &w->d;
    if (d->body_kind[b] != RB_BODY_DYNAMIC || anchored(w, b)) return true; /* taken without moving */
    float inv_mass = d->body_vel[b].w, r[3], t[3];
    d->body_vel[b].x += impulse[0] * inv_mass, d->body_vel[b].y += impulse[1] * inv_mass;
    d->body_vel[b].z += impulse[2] * inv_mass;
    r[0] = point[0] - d->body_pos[b].x, r[1] = point[1] - d->body_pos[b].y, r[2] = point[2] - d->body_pos[b].z;
    rb_v3_cross(r, impulse, t);
    d->body_angmom[b].x += t[0], d->body_angmom[b].y += t[1], d->body_angmom[b].z += t[2];
    d->body_omega[b] = rb_apply_inv_inertia(d->body_quat[b], d->body_inv_inertia[b], d->body_angmom[b]);
    return true;
}

bool rb_world_apply_force(rb_world *w, rb_body_id id, const float force[3], const float point[3]) {
    uint32_t b;
    if (!body_for_edit(w, id, &b, force, point)) return false;
    rb_world_data *d = &w->d;
    if (d->body_kind[b] != RB_BODY_DYNAMIC || anchored(w, b)) return true; /* nothing moves it */
    float r[3], t[3];
    r[0] = point[0] - d->body_pos[b].x, r[1] = point[1] - d->body_pos[b].y, r[2] = point[2] - d->body_pos[b].z;
    rb_v3_cross(r, force, t);
    d->body_force[b].x += force[0], d->body_force[b].y += force[1], d->body_force[b].z += force[2];
    d->body_torque[b].x += t[0], d->body_torque[b].y += t[1], d->body_torque[b].z += t[2];
    w->loads_applied = true;
    return true;
}

bool rb_world_add_load(rb_world *w, rb_body_id id, const float force[3], const float torque[3]) {
    uint32_t b;
    if (!rb_body_index(w, id, &b) || !rb_all_finite(force, 3) || !rb_all_finite(torque, 3) || !rb_host_current(w))
        return false;
    rb_world_data *d = &w->d;
    if (d->body_kind[b] != RB_BODY_DYNAMIC || anchored(w, b)) return true;
    if (rb_timer_dormant(d->body_pos[b].w)) d->body_pos[b].w = 0.0f; /* a field reached it: it wakes */
    d->body_force[b].x += force[0], d->body_force[b].y += force[1], d->body_force[b].z += force[2];
    d->body_torque[b].x += torque[0], d->body_torque[b].y += torque[1], d->body_torque[b].z += torque[2];
    w->loads_applied = w->host_dirty = true;
    return true;
}

bool rb_world_set_velocity(rb_world *w, rb_body_id id, const float velocity[3], const float angular_velocity[3]) {
    uint32_t b;
    if (rb_body_index(w, id, &b) && (w->d.body_kind[b] == RB_BODY_STATIC || anchored(w, b))) {
        rb_log(RB_LOG_ERROR, "world: set_velocity on a static or anchored body, which never moves");
        return false;
    }
    if (!body_for_edit(w, id, &b, velocity, angular_velocity)) return false;
    rb_world_data *d = &w->d;
    d->body_vel[b].x = velocity[0], d->body_vel[b].y = velocity[1], d->body_vel[b].z = velocity[2];
    set_angular_velocity(d, b, angular_velocity);
    return true;
}

bool rb_world_restore_body(rb_world *w, rb_body_id id, const rb_body_state *st) {
    uint32_t b;
    if (!st || !rb_body_index(w, id, &b)) return false;
    const rb_body_kind kind = (rb_body_kind)w->d.body_kind[b];
    const float *q = st->orientation;
    const float q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!rb_all_finite(st->position, 3) || !rb_all_finite(q, 4) || !rb_all_finite(st->velocity, 3) ||
        !rb_all_finite(st->angular_momentum, 3) || !rb_all_finite(st->angular_velocity, 3) ||
        !isfinite(st->sleep_timer) ||
        !(st->sleep_timer >= 0.0f || st->sleep_timer == RB_TIMER_DORMANT || st->sleep_timer == RB_TIMER_ANCHORED) ||
        !(fabsf(q2 - 1.0f) <= 1e-3f) || !(st->support >= 0.0f && isfinite(st->support))) {
        rb_log(RB_LOG_ERROR, "world: restore_body with a non-finite value, a negative sleep timer or support, or an "
                             "orientation that is not a unit quaternion: ignored");
        return false;
    }
    if (kind == RB_BODY_STATIC && (any_nonzero(st->velocity) || any_nonzero(st->angular_velocity))) {
        rb_log(RB_LOG_ERROR, "world: restore_body gave a static body a velocity: ignored");
        return false;
    }
    if (!rb_host_current(w)) return false;
    rb_world_data *d = &w->d;
    const float timer = kind == RB_BODY_DYNAMIC ? st->sleep_timer : 0.0f; /* the others never sleep */
    d->body_pos[b] = (rb_float4){st->position[0], st->position[1], st->position[2], timer};
    d->body_quat[b] = (rb_float4){q[0], q[1], q[2], q[3]};
    d->body_vel[b].x = st->velocity[0], d->body_vel[b].y = st->velocity[1], d->body_vel[b].z = st->velocity[2];
    d->body_support[b] = kind == RB_BODY_DYNAMIC ? st->support : 0.0f;
    if (kind == RB_BODY_DYNAMIC) {
        d->body_angmom[b] =
            (rb_float4){st->angular_momentum[0], st->angular_momentum[1], st->angular_momentum[2], 0.0f};
        /* as the step leaves it (reference.c, integrate.cl): zero while asleep, else from L at this orientation */
        const bool asleep = rb_timer_asleep(timer, w->params.sleep_time);
        d->body_omega[b] = asleep ? (rb_float4){0.0f, 0.0f, 0.0f, 0.0f}
                                  : rb_apply_inv_inertia(d->body_quat[b], d->body_inv_inertia[b], d->body_angmom[b]);
    } else {
        set_angular_velocity(d, b, st->angular_velocity);
    }
    w->host_dirty = true;
    return true;
}

/* ---- contact history ---- */

uint32_t rb_world_read_contacts(rb_world *w, rb_contact_memory *out, uint32_t max) {
    if (!rb_host_slots_current(w)) return 0;
    const rb_world_data *d = &w->d;
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->particle_count; i++)
        for (uint32_t k = 0; k < d->contact_slots; k++) {
            const size_t slot = (size_t)i * d->contact_slots + k;
            if (d->particle_keys[slot] == RB_SLOT_FREE) continue;
            const float *x = &d->particle_disp[3 * slot], *a = &d->particle_roll[3 * slot];
            if (n < max)
                out[n] = (rb_contact_memory){i, d->particle_keys[slot], {x[0], x[1], x[2]}, {a[0], a[1], a[2]}};
            n++;
        }
    return n;
}

bool rb_world_restore_contacts(rb_world *w, const rb_contact_memory *in, uint32_t count) {
    rb_world_data *d = &w->d;
    if (!rb_contact_slots_current(w)) return false;
    const uint32_t slots = d->contact_slots;
    for (uint32_t n = 0; n < count; n++) { /* everything checked before anything changes */
        const rb_contact_memory *m = &in[n];
        const bool plane = m->partner >= RB_CONTACT_PLANE && m->partner - RB_CONTACT_PLANE < w->params.plane_count;
        const char *bad =
            m->particle >= d->particle_count ? "a particle out of range"
            : !plane &&
                    (m->partner >= d->particle_count || d->particle_body[m->partner] == d->particle_body[m->particle])
                ? "a partner that is neither another body's particle nor a plane"
            : !rb_all_finite(m->displacement, 3)                  ? "a non-finite displacement"
            : !rb_all_finite(m->rolling, 3)                       ? "a non-finite rolling angle"
            : n >= slots && in[n - slots].particle == m->particle ? "more contacts for one particle than it keeps"
                                                                  : NULL;
        if (!bad && n > 0 && in[n - 1].particle > m->particle) bad = "entries out of particle order";
        if (bad) {
            rb_log(RB_LOG_ERROR, "world: restore_contacts: entry %u (particle %u, partner %u) has %s: nothing restored",
                   n, m->particle, m->partner, bad);
            return false;
        }
    }
    if (!rb_host_current(w) || !rb_host_slots_current(w)) return false;
    for (size_t k = 0; k < (size_t)d->particle_count * slots; k++) d->particle_keys[k] = RB_SLOT_FREE;
    uint32_t used = 0;
    for (uint32_t n = 0; n < count; n++) {
        const rb_contact_memory *m = &in[n];
        used = n > 0 && in[n - 1].particle == m->particle ? used + 1 : 0;
        const size_t slot = (size_t)m->particle * slots + used;
        d->particle_keys[slot] = m->partner;
        memcpy(&d->particle_disp[3 * slot], m->displacement, sizeof m->displacement);
        memcpy(&d->particle_roll[3 * slot], m->rolling, sizeof m->rolling);
    }
    w->slots_dirty = true;
    return true;
}

/* ---- stepping ---- */

bool rb_world_step(rb_world *w, uint32_t steps) {
    if (steps == 0) return true;
    if (w->path_count) {
        w->params.rest_sleepers = 0; /* paths steer kinematic bodies between steps (world_sync.c, sleepers_may_rest) */
        if (!rb_paths_step(w, steps)) return false;
    } else {
        if (!rb_backend_current(w)) return false;
        if (!w->backend->vtbl->step(w->backend, &w->d, &w->params, steps)) {
            rb_log(RB_LOG_ERROR, "%s backend: step failed", w->backend->vtbl->name);
            return false;
        }
    }
    w->device_ahead = w->slots_ahead = true;
    if (w->loads_applied) { /* external loads last one step call */
        if (!rb_host_current(w)) return false;
        memset(w->d.body_force, 0, w->d.body_count * sizeof(rb_float4));
        memset(w->d.body_torque, 0, w->d.body_count * sizeof(rb_float4));
        w->loads_applied = false;
        w->host_dirty = true;
    }
    return true;
}

bool rb_world_warm(rb_world *w) {
    if (!w->backend->vtbl->warm || w->d.body_count == 0) return false;
    if (!rb_backend_current(w)) return false;
    return w->backend->vtbl->warm(w->backend, &w->d, &w->params);
}

/* ---- reading ---- */

uint32_t rb_world_body_count(const rb_world *w) { return w->d.body_count; }
uint32_t rb_world_particle_count(const rb_world *w) { return w->d.particle_count; }
const uint32_t *rb_world_body_first_particle(const rb_world *w) { return w->d.body_first_particle; }

bool rb_world_get_body(rb_world *w, uint32_t b, rb_body_state *out) {
    if (b >= w->d.body_count || !rb_host_current(w)) return false;
    const rb_world_data *d = &w->d;
    *out = (rb_body_state){
        .id = rb_world_body_id(w, b),
        .shape = d->body_shape[b],
        .position = {d->body_pos[b].x, d->body_pos[b].y, d->body_pos[b].z},
        .orientation = {d->body_quat[b].x, d->body_quat[b].y, d->body_quat[b].z, d->body_quat[b].w},
        .velocity = {d->body_vel[b].x, d->body_vel[b].y, d->body_vel[b].z},
        .angular_velocity = {d->body_omega[b].x, d->body_omega[b].y, d->body_omega[b].z},
        .angular_momentum = {d->body_angmom[b].x, d->body_angmom[b].y, d->body_angmom[b].z},
        .mass = 1.0f / d->body_vel[b].w,
        .sleep_timer = d->body_pos[b].w,
        .support = d->body_support[b],
        .asleep = rb_timer_asleep(d->body_pos[b].w, w->params.sleep_time),
        .kind = (rb_body_kind)d->body_kind[b],
        .material = d->body_material[b],
        .hold = rb_timer_anchored(d->body_pos[b].w)  ? RB_HOLD_ANCHORED
                : rb_timer_dormant(d->body_pos[b].w) ? RB_HOLD_DORMANT
                                                     : RB_HOLD_NONE,
    };
    return true;
}

bool rb_world_get_body_by_id(rb_world *w, rb_body_id id, rb_body_state *out) {
    uint32_t b;
    return rb_body_index(w, id, &b) && rb_world_get_body(w, b, out);
}

rb_body_id rb_world_body_id(const rb_world *w, uint32_t b) {
    if (b >= w->d.body_count) return (rb_body_id){0, 0};
    uint32_t slot = w->d.body_slot[b];
    return (rb_body_id){slot, w->slot_generation[slot]};
}

const uint32_t *rb_world_body_shapes(const rb_world *w) { return w->d.body_shape; }

bool rb_world_read_transforms(rb_world *w, rb_transform *out) {
    /* after steps the backend's copy is the newer one: read only what is drawn */
    if (w->device_ahead && w->backend->vtbl->read_transforms)
        return w->backend->vtbl->read_transforms(w->backend, &w->d, out);
    if (!rb_host_current(w)) return false;
    const rb_world_data *d = &w->d;
    for (uint32_t b = 0; b < d->body_count; b++) {
        out[b] = (rb_transform){
            .position = {d->body_pos[b].x, d->body_pos[b].y, d->body_pos[b].z},
            .orientation = {d->body_quat[b].x, d->body_quat[b].y, d->body_quat[b].z, d->body_quat[b].w},
        };
    }
    return true;
}

bool rb_world_read_particles(rb_world *w, float *out) {
    return rb_host_current(w) && rb_backend_current(w) &&
           w->backend->vtbl->read_particles(w->backend, &w->d, &w->params, out);
}

bool rb_world_particle_forces(rb_world *w, float *out) {
    return rb_host_current(w) && rb_backend_current(w) &&
           w->backend->vtbl->particle_forces(w->backend, &w->d, &w->params, out);
}

uint32_t rb_world_contact_pairs(rb_world *w, uint32_t *pairs, uint32_t max_pairs) {
    if (!rb_host_current(w)) return 0;
    if (w->backend->vtbl->contact_pairs)
        return w->backend->vtbl->contact_pairs(w->backend, &w->d, &w->params, pairs, max_pairs);
    /* the backend has no grid of its own to ask: the reference's, made for the call */
    char err[64];
    rb_backend *ref = create_backend(RB_BACKEND_REFERENCE, -1, err, sizeof err);
    if (!ref) return 0;
    uint32_t n = ref->vtbl->contact_pairs(ref, &w->d, &w->params, pairs, max_pairs);
    ref->vtbl->destroy(ref);
    return n;
}

/* FNV-1a over the bit patterns of every body's state, in body order. */
uint64_t rb_world_digest(rb_world *w) {
    uint64_t h = 1469598103934665603ull;
    if (!rb_host_current(w)) return 0;
    const rb_world_data *d = &w->d;
    const rb_float4 *arrays[] = {d->body_pos, d->body_quat, d->body_vel, d->body_angmom};
    for (uint32_t b = 0; b < d->body_count; b++)
        for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++) {
            const unsigned char *bytes = (const unsigned char *)&arrays[a][b];
            for (size_t k = 0; k < 3 * sizeof(float) + (a == 1 ? sizeof(float) : 0); k++)
                h = (h ^ bytes[k]) * 1099511628211ull;
        }
    for (uint32_t j = 0; j < d->joint_count; j++) h = (h ^ d->joint_broken[j]) * 1099511628211ull; /* none: as before */
    return h;
}

const rb_world_desc *rb_world_get_desc(const rb_world *w) { return &w->desc; }

/* A contact of a pair of materials without rolling friction keeps no
 * rolling angle: its slot holds what an earlier contact, or the same one
 * when the pair last resisted rolling, left there. So the contacts of every
 * pair that starts to resist rolling (after: > 0, before: 0) start their
 * angle at zero, as a new contact does. A plane's contact is its
 * particle's material with itself (reference.c, kernels/forces.cl). */
static void forget_rolling_angles(rb_world *w, const rb_step_params *before, const rb_step_params *after) {
    rb_world_data *d = &w->d;
    for (uint32_t i = 0; i < d->particle_count; i++) {
        const uint32_t mi = d->body_material[d->particle_body[i]];
        for (uint32_t k = 0; k < d->contact_slots; k++) {
            const size_t slot = (size_t)i * d->contact_slots + k;
            const uint32_t key = d->particle_keys[slot];
            if (key == RB_SLOT_FREE) continue;
            const uint32_t mj = key < d->particle_count ? d->body_material[d->particle_body[key]] : mi;
            const uint32_t pair = rb_pair_index(mi, mj);
            if (before->rolling[pair] == 0.0f && after->rolling[pair] > 0.0f)
                memset(&d->particle_roll[3 * slot], 0, 3 * sizeof(float));
        }
    }
}

/* New settings: the step's parameters derived again, every pair of
 * materials calibrated at the new step (material 0 is the description's). */
static bool set_desc(rb_world *w, rb_world_desc nd) {
    char err[512];
    rb_material materials[RB_MAX_MATERIALS];
    memcpy(materials, w->materials, sizeof materials);
    materials[0] = nd.material;
    if (!rb_world_desc_check(&nd, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "world: %s (kept the old settings)", err);
        return false;
    }
    rb_step_params params = rb_step_params_from_desc(&nd);
    params.max_radius = w->params.max_radius; /* the bodies' (refresh_max_radius), not the description's */
    if (!rb_step_params_set_materials(&params, materials, w->material_count, 0, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "world: %s (kept the old settings)", err);
        return false;
    }
    if (!rb_host_current(w)) return false;
    if (params.rolling_any) {
        if (!rb_host_slots_current(w)) return false;
        forget_rolling_angles(w, &w->params, &params);
        w->slots_dirty = true;
    }
    w->desc = nd;
    w->params = params;
    w->materials[0] = nd.material;
    w->host_dirty = true;
    return true;
}

bool rb_world_set_material(rb_world *w, rb_material m, float dt) {
    rb_world_desc nd = w->desc;
    nd.material = m;
    nd.dt = dt;
    return set_desc(w, nd);
}

bool rb_world_set_gravity(rb_world *w, const float g[3]) {
    char err[256];
    rb_world_desc nd = w->desc;
    memcpy(nd.gravity, g, sizeof nd.gravity);
    if (!rb_world_desc_check(&nd, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "world: %s (kept the old settings)", err);
        return false;
    }
    if (!rb_host_current(w)) return false;
    w->desc = nd;
    memcpy(w->params.gravity, g, sizeof w->params.gravity); /* the materials' calibration does not depend on it */
    w->host_dirty = true;
    return true;
}

bool rb_world_set_sleeping(rb_world *w, float sleep_speed, float sleep_time) {
    char err[256];
    rb_world_desc nd = w->desc;
    nd.sleep_speed = sleep_speed, nd.sleep_time = sleep_time;
    if (!rb_world_desc_check(&nd, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "world: %s (kept the old settings)", err);
        return false;
    }
    if (!rb_host_current(w)) return false;
    w->desc = nd;
    /* the materials' calibration does not depend on it; a body's timer past
     * the new sleep_time puts it to sleep at the next step, as it would have */
    w->params.sleep_speed = sleep_speed, w->params.sleep_time = sleep_time;
    w->host_dirty = true;
    return true;
}

int rb_world_add_material(rb_world *w, rb_material m) {
    char err[512];
    if (w->material_count == RB_MAX_MATERIALS) {
        rb_log(RB_LOG_ERROR, "world: add_material: a world holds at most %d materials", RB_MAX_MATERIALS);
        return -1;
    }
    rb_material materials[RB_MAX_MATERIALS];
    memcpy(materials, w->materials, sizeof materials);
    materials[w->material_count] = m;
    /* the pairs already calibrated stay; only the new material's are calibrated */
    rb_step_params params = w->params;
    if (!rb_step_params_set_materials(&params, materials, w->material_count + 1, w->material_count, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "world: add_material: %s", err);
        return -1;
    }
    if (!rb_host_current(w)) return -1;
    w->params = params;
    w->materials[w->material_count] = m;
    w->host_dirty = true;
    return (int)w->material_count++;
}

uint32_t rb_world_material_count(const rb_world *w) { return w->material_count; }

bool rb_world_get_material(const rb_world *w, uint32_t index, rb_material *out) {
    if (index >= w->material_count) return false;
    *out = w->materials[index];
    return true;
}

const char *rb_world_backend_name(const rb_world *w) { return w->backend->vtbl->name; }
const char *rb_world_device_name(const rb_world *w) { return w->backend->vtbl->device_name(w->backend); }

void rb_world_stage_times(const rb_world *w, double ms[RB_STAGE_COUNT]) {
    w->backend->vtbl->stage_times(w->backend, ms);
}
size_t rb_world_device_bytes(const rb_world *w) { return w->backend->vtbl->device_bytes(w->backend); }

uint32_t rb_world_max_bodies(const rb_world *w) { return w->max_bodies; }
void rb_world_set_max_bodies(rb_world *w, uint32_t max_bodies) { w->max_bodies = max_bodies ? max_bodies : UINT32_MAX; }
uint64_t rb_world_contact_overflow(const rb_world *w) {
    return w->backend->vtbl->contact_overflow ? w->backend->vtbl->contact_overflow(w->backend) : 0;
}
uint64_t rb_world_rested(const rb_world *w) {
    return w->backend->vtbl->rested ? w->backend->vtbl->rested(w->backend) : 0;
}

uint64_t rb_world_off_grid(const rb_world *w) {
    return w->backend->vtbl->off_grid ? w->backend->vtbl->off_grid(w->backend) : 0;
}
uint32_t rb_world_kernel_times(const rb_world *w, const char *const **names, double *ms, uint32_t capacity) {
    *names = NULL;
    if (!w->backend->vtbl->kernel_times) return 0;
    return w->backend->vtbl->kernel_times(w->backend, names, ms, capacity);
}
