/* world_sync.c - the world's host copy and its backend kept in step
 * (the world: world.c): the state read back after steps, what the host changed
 * uploaded before the next (the joints' device side and the contact
 * history's slots made ready first), so that callers never see which
 * backend runs. */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "world_host.h"

/* ---- the joints' device side ---- */

static bool joint_end_index(const rb_world *w, rb_body_id id, uint32_t *index) {
    if (id.generation == 0) return *index = RB_JOINT_WORLD, true;
    return rb_body_index(w, id, index);
}

/* The joints' device side before an upload: each end's body index (bodies
 * move when others go), the spring and damper from the pair's contact time,
 * and every body's list of joints. The spring rings at a period of 4
 * contact times, w_j = pi / (2 t_c), critically damped (2 zeta w_j, zeta 1):
 * a quarter of the contact's own rate, so a body on a few joints stays well
 * inside what the step resolves (docs/joints.md). */
static bool prepare_joints(rb_world *w) {
    rb_world_data *d = &w->d;
    if (d->joint_count == 0) return true;
    uint32_t cap = w->joint_index_capacity;
    if (!rb_world_grow((void **)&d->body_first_joint, sizeof(uint32_t), &cap, d->body_count + 1)) return false;
    w->joint_index_capacity = cap;
    memset(d->body_first_joint, 0, (d->body_count + 1) * sizeof(uint32_t));
    for (uint32_t j = 0; j < d->joint_count; j++) {
        uint32_t a, b;
        if (!joint_end_index(w, w->joints[j].a, &a) || !joint_end_index(w, w->joints[j].b, &b)) return false;
        d->joint_body[2 * j] = a, d->joint_body[2 * j + 1] = b;
        const rb_material ma = w->materials[d->body_material[a]];
        const rb_material mb = b == RB_JOINT_WORLD ? ma : w->materials[d->body_material[b]];
        const double tc = rb_material_mix(ma, mb).contact_time, rate = 3.14159265358979323846 / (2.0 * tc);
        const float wj = (float)rate;
        d->joint_anchor_a[j].w = wj * wj;
        d->joint_anchor_b[j].w = 2.0f * wj;
        d->body_first_joint[a + 1]++;
        if (b != RB_JOINT_WORLD) d->body_first_joint[b + 1]++;
    }
    for (uint32_t b = 0; b < d->body_count; b++) d->body_first_joint[b + 1] += d->body_first_joint[b];
    /* filled in joint order, so each body's list is in joint order: body b's
     * start serves as its cursor and ends at b + 1's start, then all move back */
    for (uint32_t j = 0; j < d->joint_count; j++)
        for (uint32_t end = 0; end < 2; end++) {
            const uint32_t b = d->joint_body[2 * j + end];
            if (b != RB_JOINT_WORLD) d->joint_list[d->body_first_joint[b]++] = 2 * j + end;
        }
    for (uint32_t b = d->body_count; b > 0; b--) d->body_first_joint[b] = d->body_first_joint[b - 1];
    d->body_first_joint[0] = 0;
    return true;
}

/* ---- host/backend synchronisation ---- */

bool rb_host_current(rb_world *w) {
    if (w->device_ahead) {
        if (!w->backend->vtbl->download(w->backend, &w->d)) {
            rb_log(RB_LOG_ERROR, "%s backend: reading the state back failed", w->backend->vtbl->name);
            return false;
        }
        w->device_ahead = false;
    }
    return true;
}

/* The contact history into the host copy, where the backend keeps its own. */
bool rb_host_slots_current(rb_world *w) {
    if (w->slots_ahead && w->backend->vtbl->download_slots) {
        if (!w->backend->vtbl->download_slots(w->backend, &w->d)) {
            rb_log(RB_LOG_ERROR, "%s backend: reading the contact history back failed", w->backend->vtbl->name);
            return false;
        }
    }
    w->slots_ahead = false;
    return true;
}

/* The slots the world's particles should keep (world.h,
 * rb_world_contact_slots): the description's, else 8 while lone spheres are
 * at least half the particles of the dynamic bodies. */
uint32_t rb_wanted_slots(const rb_world *w) {
    if (w->desc.contact_slots != RB_CONTACT_SLOTS_AUTO) return w->desc.contact_slots;
    const rb_world_data *d = &w->d;
    uint64_t lone = 0, dynamic = 0;
    for (uint32_t b = 0; b < d->body_count; b++) {
        if (d->body_kind[b] != RB_BODY_DYNAMIC) continue;
        const uint32_t n = d->body_first_particle[b + 1] - d->body_first_particle[b];
        dynamic += n;
        lone += n == 1;
    }
    return dynamic > 0 && 2 * lone >= dynamic ? 8u : 4u;
}

/* The history laid out again at `slots` a particle: each particle keeps its
 * first min(old, new) slots (a contact in a slot dropped acts as new at the
 * next step), the rest are free. */
static bool lay_out_slots(rb_world_data *d, uint32_t slots) {
    const size_t cap = d->particle_capacity, old = d->contact_slots, keep = old < slots ? old : slots;
    uint32_t *keys = malloc(cap * slots * sizeof *keys);
    float *disp = calloc(cap * slots * 3, sizeof *disp), *roll = calloc(cap * slots * 3, sizeof *roll);
    if (cap && (!keys || !disp || !roll)) {
        free(keys), free(disp), free(roll);
        rb_log(RB_LOG_ERROR, "world: out of memory for %u contact slots a particle", slots);
        return false;
    }
    for (size_t i = 0; i < d->particle_count; i++) {
        for (size_t k = 0; k < slots; k++)
            keys[i * slots + k] = k < keep ? d->particle_keys[i * old + k] : RB_SLOT_FREE;
        memcpy(&disp[3 * i * slots], &d->particle_disp[3 * i * old], keep * 3 * sizeof *disp);
        memcpy(&roll[3 * i * slots], &d->particle_roll[3 * i * old], keep * 3 * sizeof *roll);
    }
    free(d->particle_keys), free(d->particle_disp), free(d->particle_roll);
    d->particle_keys = keys, d->particle_disp = disp, d->particle_roll = roll;
    d->contact_slots = slots;
    return true;
}

/* The slots as rb_wanted_slots says, the history laid out again (from the
 * backend's copy) when they change. */
bool rb_contact_slots_current(rb_world *w) {
    const uint32_t slots = rb_wanted_slots(w);
    if (slots == w->d.contact_slots) return true;
    if (!rb_host_slots_current(w) || !lay_out_slots(&w->d, slots)) return false;
    w->host_dirty = w->slots_dirty = true;
    return true;
}

uint32_t rb_world_contact_slots(rb_world *w) {
    rb_contact_slots_current(w);
    return w->d.contact_slots;
}

/* Whether a sleeping body may skip a step when no awake body came near it
 * (rb_step_params.rest_sleepers): not where something moves bodies that the
 * force pass does not see move, a joint's pull, a path's steering or a
 * kinematic body's velocity; those worlds run every body every step. Only
 * the host sets those, so this is decided at each upload. */
static uint32_t sleepers_may_rest(const rb_world *w) {
    const rb_world_data *d = &w->d;
    if (d->joint_count || w->path_count) return 0;
    for (uint32_t b = 0; b < d->body_count; b++) {
        if (d->body_kind[b] != RB_BODY_KINEMATIC) continue;
        const rb_float4 v = d->body_vel[b], o = d->body_omega[b];
        if (v.x != 0.0f || v.y != 0.0f || v.z != 0.0f || o.x != 0.0f || o.y != 0.0f || o.z != 0.0f) return 0;
    }
    return 1;
}

bool rb_backend_current(rb_world *w) {
    if (w->host_dirty && !rb_contact_slots_current(w)) return false;
    if (w->host_dirty && !prepare_joints(w)) return false;
    if (w->host_dirty) {
        w->params.rest_sleepers = sleepers_may_rest(w);
        if (!w->backend->vtbl->upload(w->backend, &w->d, &w->params)) {
            rb_log(RB_LOG_ERROR, "%s backend: uploading the state failed", w->backend->vtbl->name);
            return false;
        }
        w->host_dirty = false;
    }
    if (w->slots_dirty && w->backend->vtbl->upload_slots) {
        if (!w->backend->vtbl->upload_slots(w->backend, &w->d)) {
            rb_log(RB_LOG_ERROR, "%s backend: uploading the contact history failed", w->backend->vtbl->name);
            return false;
        }
    }
    w->slots_dirty = false;
    return true;
}
