/* world_joints.c - joints between bodies and kinematic bodies' paths
 * (world.h; docs/joints.md): their host side, and the steps that steer the
 * paths' bodies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "world_host.h"

/* ---- joints (world.h; docs/joints.md) ---- */

static bool reserve_joints(rb_world *w, uint32_t need) {
    rb_world_data *d = &w->d;
    uint32_t cap = d->joint_capacity;
    if (need <= cap) return true;
    uint32_t c[8] = {cap, cap, cap, cap, cap, cap, cap, cap};
    if (!rb_world_grow((void **)&d->joint_body, 2 * sizeof(uint32_t), &c[0], need) ||
        !rb_world_grow((void **)&d->joint_anchor_a, sizeof(rb_float4), &c[1], need) ||
        !rb_world_grow((void **)&d->joint_anchor_b, sizeof(rb_float4), &c[2], need) ||
        !rb_world_grow((void **)&d->joint_limit, sizeof(float), &c[3], need) ||
        !rb_world_grow((void **)&d->joint_broken, sizeof(uint32_t), &c[4], need) ||
        !rb_world_grow((void **)&d->joint_peak, sizeof(float), &c[5], need) ||
        !rb_world_grow((void **)&d->joint_list, 2 * sizeof(uint32_t), &c[6], need) ||
        !rb_world_grow((void **)&w->joints, sizeof(world_joint), &c[7], need))
        return false;
    d->joint_capacity = c[0];
    return true;
}

/* A joint added or removed changes its bodies' loads: they wake. */
static void wake_joint_ends(rb_world *w, uint32_t j) {
    uint32_t b;
    if (rb_body_index(w, w->joints[j].a, &b)) w->d.body_pos[b].w = 0.0f;
    if (rb_body_index(w, w->joints[j].b, &b)) w->d.body_pos[b].w = 0.0f;
}

uint32_t rb_world_add_joint(rb_world *w, const rb_joint_desc *jd) {
    uint32_t a, b;
    if (!jd || !rb_body_index(w, jd->a, &a) || (jd->b.generation != 0 && !rb_body_index(w, jd->b, &b))) {
        rb_log(RB_LOG_ERROR, "world: add_joint with a stale body id");
        return 0;
    }
    if (rb_body_same(jd->a, jd->b)) {
        rb_log(RB_LOG_ERROR, "world: add_joint with the same body at both ends");
        return 0;
    }
    if (!rb_all_finite(jd->anchor_a, 3) || !rb_all_finite(jd->anchor_b, 3) || !isfinite(jd->breaking_force) ||
        jd->breaking_force < 0.0f) {
        rb_log(RB_LOG_ERROR, "world: add_joint with a non-finite anchor or a negative or non-finite breaking force");
        return 0;
    }
    rb_world_data *d = &w->d;
    if (!rb_host_current(w) || !reserve_joints(w, d->joint_count + 1)) {
        rb_log(RB_LOG_ERROR, "world: cannot add a joint (out of memory or backend failure)");
        return 0;
    }
    const uint32_t j = d->joint_count++;
    w->joints[j] = (world_joint){.id = ++w->next_joint_id, .a = jd->a, .b = jd->b};
    d->joint_anchor_a[j] = (rb_float4){jd->anchor_a[0], jd->anchor_a[1], jd->anchor_a[2], 0.0f};
    d->joint_anchor_b[j] = (rb_float4){jd->anchor_b[0], jd->anchor_b[1], jd->anchor_b[2], 0.0f};
    d->joint_limit[j] = jd->breaking_force > 0.0f ? jd->breaking_force : INFINITY;
    d->joint_broken[j] = 0;
    d->joint_peak[j] = 0.0f;
    wake_joint_ends(w, j);
    w->host_dirty = true;
    return w->joints[j].id;
}

/* Joint j out of the arrays, later joints moving down. */
static void drop_joint(rb_world *w, uint32_t j) {
    rb_world_data *d = &w->d;
    const uint32_t later = d->joint_count - j - 1;
    memmove(&w->joints[j], &w->joints[j + 1], later * sizeof *w->joints);
    memmove(&d->joint_anchor_a[j], &d->joint_anchor_a[j + 1], later * sizeof *d->joint_anchor_a);
    memmove(&d->joint_anchor_b[j], &d->joint_anchor_b[j + 1], later * sizeof *d->joint_anchor_b);
    memmove(&d->joint_limit[j], &d->joint_limit[j + 1], later * sizeof *d->joint_limit);
    memmove(&d->joint_broken[j], &d->joint_broken[j + 1], later * sizeof *d->joint_broken);
    memmove(&d->joint_peak[j], &d->joint_peak[j + 1], later * sizeof *d->joint_peak);
    d->joint_count--;
    w->host_dirty = true;
}

bool rb_world_remove_joint(rb_world *w, uint32_t id) {
    for (uint32_t j = 0; id && j < w->d.joint_count; j++) {
        if (w->joints[j].id != id) continue;
        if (!rb_host_current(w)) return false;
        wake_joint_ends(w, j);
        drop_joint(w, j);
        return true;
    }
    return false;
}

void rb_joints_drop_body(rb_world *w, rb_body_id id) {
    for (uint32_t j = w->d.joint_count; j-- > 0;)
        if (rb_body_same(w->joints[j].a, id) || rb_body_same(w->joints[j].b, id)) {
            wake_joint_ends(w, j);
            drop_joint(w, j);
        }
}

uint32_t rb_world_joint_count(const rb_world *w) { return w->d.joint_count; }

bool rb_world_get_joint(rb_world *w, uint32_t index, rb_joint_state *out) {
    if (index >= w->d.joint_count || !rb_host_current(w)) return false;
    const rb_world_data *d = &w->d;
    const rb_float4 aa = d->joint_anchor_a[index], ab = d->joint_anchor_b[index];
    *out = (rb_joint_state){.id = w->joints[index].id,
                            .desc = {.a = w->joints[index].a,
                                     .b = w->joints[index].b,
                                     .anchor_a = {aa.x, aa.y, aa.z},
                                     .anchor_b = {ab.x, ab.y, ab.z},
                                     .breaking_force = isinf(d->joint_limit[index]) ? 0.0f : d->joint_limit[index]},
                            .broken = d->joint_broken[index] != 0,
                            .peak_force = d->joint_peak[index]};
    return true;
}

uint32_t rb_world_take_joint_breaks(rb_world *w, uint32_t *out, uint32_t max) {
    if (!w->d.joint_count) return 0;
    if (!w->joint_breaks_left && !w->backend->vtbl->take_joint_break_count(w->backend)) return 0;
    if (!rb_host_current(w)) return 0;
    uint32_t found = 0;
    for (uint32_t j = 0; j < w->d.joint_count; j++) {
        if (!w->d.joint_broken[j] || w->joints[j].taken) continue;
        if (found == max) return w->joint_breaks_left = true, found;
        w->joints[j].taken = true;
        out[found++] = w->joints[j].id;
    }
    w->joint_breaks_left = false;
    return found;
}

/* ---- paths (world.h; docs/joints.md, "Paths") ---- */

static world_path *path_of(const rb_world *w, rb_body_id id) {
    for (uint32_t k = 0; k < w->path_count; k++)
        if (rb_body_same(w->paths[k].body, id)) return &w->paths[k];
    return NULL;
}

void rb_paths_drop_body(rb_world *w, rb_body_id id) {
    world_path *p = path_of(w, id);
    if (!p) return;
    free(p->keys);
    *p = w->paths[--w->path_count];
}

bool rb_world_set_path(rb_world *w, rb_body_id id, const rb_path_desc *pd) {
    uint32_t b;
    if (!rb_body_index(w, id, &b)) return false;
    if (!pd) return rb_paths_drop_body(w, id), true;
    if (w->d.body_kind[b] != RB_BODY_KINEMATIC) {
        rb_log(RB_LOG_ERROR, "world: set_path on a body that is not kinematic");
        return false;
    }
    if (!pd->keys || pd->key_count == 0 || !isfinite(pd->time)) {
        rb_log(RB_LOG_ERROR, "world: set_path without keys, or with a non-finite clock");
        return false;
    }
    for (uint32_t k = 0; k < pd->key_count; k++) {
        const rb_path_key *key = &pd->keys[k];
        const float *q = key->orientation;
        if (!isfinite(key->time) || !rb_all_finite(key->position, 3) || !rb_all_finite(q, 4) ||
            (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) ||
            (k > 0 && !(key->time > pd->keys[k - 1].time))) {
            rb_log(RB_LOG_ERROR,
                   "world: set_path key %u: a non-finite value, a zero orientation, or a time not "
                   "after the key before",
                   k);
            return false;
        }
    }
    rb_path_key *keys = malloc((size_t)pd->key_count * sizeof *keys);
    if (!keys) return false;
    memcpy(keys, pd->keys, (size_t)pd->key_count * sizeof *keys);
    world_path *p = path_of(w, id);
    if (!p) {
        uint32_t cap = w->path_capacity, cap2 = cap;
        if (!rb_world_grow((void **)&w->paths, sizeof *w->paths, &cap, w->path_count + 1) ||
            !rb_world_grow((void **)&w->path_bodies, sizeof *w->path_bodies, &cap2, w->path_count + 1)) {
            free(keys);
            return false;
        }
        w->path_capacity = cap;
        p = &w->paths[w->path_count++];
    } else {
        free(p->keys);
    }
    *p = (world_path){
        .body = id, .keys = keys, .key_count = pd->key_count, .smooth = pd->smooth, .loop = pd->loop, .time = pd->time};
    return true;
}

bool rb_world_get_path(const rb_world *w, rb_body_id id, rb_path_desc *out) {
    const world_path *p = path_of(w, id);
    if (!p) return false;
    *out = (rb_path_desc){.keys = p->keys,
                          .key_count = p->key_count,
                          .smooth = p->smooth,
                          .loop = p->loop,
                          .time = p->time + (double)p->steps * w->params.dt};
    return true;
}

/* The velocities that take body b from its pose (p->x, p->q) onto the
 * path's pose one step on, and that pose as the step will make it. */
static void steer(rb_world *w, world_path *p, uint32_t b) {
    const float dt = w->params.dt;
    const rb_path_desc pd = {.keys = p->keys, .key_count = p->key_count, .smooth = p->smooth, .loop = p->loop};
    double pos[3], q[4];
    rb_path_pose(&pd, p->time + (double)(p->steps + 1) * dt, pos, q);
    const rb_float4 v = {((float)pos[0] - p->x.x) / dt, ((float)pos[1] - p->x.y) / dt, ((float)pos[2] - p->x.z) / dt,
                         w->d.body_vel[b].w};
    /* the turn from q now to the path's: r = q_path q^-1, the short way */
    const double c[4] = {-(double)p->q.x, -(double)p->q.y, -(double)p->q.z, p->q.w};
    double r[4] = {
        q[3] * c[0] + q[0] * c[3] + q[1] * c[2] - q[2] * c[1], q[3] * c[1] - q[0] * c[2] + q[1] * c[3] + q[2] * c[0],
        q[3] * c[2] + q[0] * c[1] - q[1] * c[0] + q[2] * c[3], q[3] * c[3] - q[0] * c[0] - q[1] * c[1] - q[2] * c[2]};
    if (r[3] < 0.0) r[0] = -r[0], r[1] = -r[1], r[2] = -r[2], r[3] = -r[3];
    const double s = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), angle = 2.0 * atan2(s, r[3]);
    const double f = s > 0.0 ? angle / (s * dt) : 0.0;
    const rb_float4 omega = {(float)(r[0] * f), (float)(r[1] * f), (float)(r[2] * f), 0.0f};
    w->d.body_vel[b] = v;
    w->d.body_omega[b] = omega;
    /* as the step moves a kinematic body (reference.c, integrate.cl) */
    p->x = (rb_float4){p->x.x + v.x * dt, p->x.y + v.y * dt, p->x.z + v.z * dt, p->x.w};
    p->q = rb_quat_turn(p->q, omega, dt);
    p->steps++;
}

/* Steps one at a time, each path's body steered first: its velocities
 * written to the backend alone (or with the upload an edit needs). */
bool rb_paths_step(rb_world *w, uint32_t steps) {
    const rb_backend_vtbl *vt = w->backend->vtbl;
    for (uint32_t s = 0; s < steps; s++) {
        const bool host_is_truth = !w->device_ahead;
        for (uint32_t k = 0; k < w->path_count; k++) {
            world_path *p = &w->paths[k];
            uint32_t b;
            if (!rb_body_index(w, p->body, &b)) return false;
            if (host_is_truth) p->x = w->d.body_pos[b], p->q = w->d.body_quat[b];
            w->path_bodies[k] = b;
            steer(w, p, b);
        }
        const bool upload = w->host_dirty;
        if (!rb_backend_current(w) ||
            (!upload && !vt->write_velocities(w->backend, &w->d, w->path_bodies, w->path_count)))
            return false;
        if (!vt->step(w->backend, &w->d, &w->params, 1)) {
            rb_log(RB_LOG_ERROR, "%s backend: step failed", vt->name);
            return false;
        }
        w->device_ahead = w->slots_ahead = true;
    }
    return true;
}
