/* debris.c - debris effects on the host (see debris.h and docs/debris.md):
 * made and freed, the tick (lifetimes, kill regions and sleep removal here;
 * fields, impacts, breaks and emitters in their rooms, debris_internal.h),
 * the step on the debris clock, and what is there. */
#include "debris.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "debris_events.h"
#include "debris_internal.h"
#include "debris_math.h"

/* ---- create, destroy ---- */

rb_debris *rb_debris_create(const rb_debris_desc *desc, rb_entities *entities, char *err, size_t err_size) {
    rb_world *world = rb_entities_world(entities);
    const rb_world_desc *wd = rb_world_get_desc(world);
    rb_debris *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, err_size, "debris: out of memory");
        return NULL;
    }
    d->desc = *desc;
    d->entities = entities;
    d->world = world;
    d->dt = wd->dt;
    d->tick_steps = (uint32_t)fmax(1.0, floor(1.0 / (RB_DEBRIS_TICK_HZ * d->dt) + 0.5));
    d->impact_row = -1;
    d->rng_impact = splitmix64(0x1a2b3c4du) | 1u;
    if (desc->impact.count > 0) {
        d->impact_row = rb_entities_find(entities, desc->impact.shape);
        if (d->impact_row < 0) {
            snprintf(err, err_size, "debris.impact.shape: no shape '%s'", desc->impact.shape);
            rb_debris_destroy(d);
            return NULL;
        }
    }
    for (uint32_t e = 0; e < desc->emitter_count; e++) {
        char name[32];
        snprintf(name, sizeof name, "emitters[%u]", e);
        if (!rb_debris_resolve_emitter(entities, &desc->emitters[e], name, d->rows[e], err, err_size)) {
            rb_debris_destroy(d);
            return NULL;
        }
        d->rng[e] = splitmix64(desc->emitters[e].seed) | 1u;
    }
    return d;
}

void rb_debris_destroy(rb_debris *d) {
    if (!d) return;
    rb_debris_free_breakables(d);
    rb_debris_free_events(d);
    free(d->memory);
    for (uint32_t k = 0; k < d->face_size; k++) free(d->faces[k].data);
    free(d->faces);
    free(d->bodies);
    free(d->where);
    free(d->held);
    free(d->states);
    free(d);
}

bool rb_debris_track(rb_debris *d, rb_body_id id, float lifetime) {
    return rb_world_body_valid(d->world, id) && !rb_debris_find(d, id) && rb_debris_add_tracked(d, id, lifetime, -1);
}

/* ---- a tick ---- */

/* Reads every body's state (one read-back on the OpenCL backend). */
static bool read_states(rb_debris *d, uint32_t *n) {
    *n = rb_world_body_count(d->world);
    if (*n > d->state_capacity) {
        rb_body_state *s = realloc(d->states, sizeof *s * *n);
        if (!s) return false;
        d->states = s, d->state_capacity = *n;
    }
    for (uint32_t b = 0; b < *n; b++)
        if (!rb_world_get_body(d->world, b, &d->states[b])) return false;
    return true;
}

static bool in_box(const rb_kill_region *k, const float p[3]) {
    return p[0] >= k->min[0] && p[0] <= k->max[0] && p[1] >= k->min[1] && p[1] <= k->max[1] && p[2] >= k->min[2] &&
           p[2] <= k->max[2];
}

/* Lifetimes, sleep and kill regions: marks the debris bodies whose time is
 * up; kill regions also take bodies that are not debris. */
static bool expire(rb_debris *d, double t, const rb_body_state *states, uint32_t n) {
    for (uint32_t k = 0; k < d->count; k++) {
        tracked *b = &d->bodies[k];
        if (b->lifetime > 0.0f && t - b->born >= b->lifetime) b->lifetime = -1.0f, b->why = RB_CAUSE_LIFETIME;
        /* removed by something else (the sandbox's delete tool): dropped, uncounted */
        if (!rb_world_body_valid(d->world, b->id)) b->lifetime = -1.0f, b->why = RB_CAUSE_NONE;
    }
    for (uint32_t b = 0; b < n && states; b++) {
        const rb_body_state *s = &states[b];
        const tracked *tc = rb_debris_find(d, s->id);
        tracked *mine = tc ? &d->bodies[tc - d->bodies] : NULL;
        if (mine && d->desc.remove_asleep > 0.0f) {
            if (!s->asleep)
                mine->asleep_since = -1.0;
            else if (mine->asleep_since < 0.0)
                mine->asleep_since = t;
            else if (t - mine->asleep_since >= d->desc.remove_asleep)
                mine->lifetime = -1.0f, mine->why = RB_CAUSE_ASLEEP;
        }
        if (s->kind != RB_BODY_DYNAMIC) continue;
        for (uint32_t r = 0; r < d->desc.kill_count; r++)
            if (in_box(&d->desc.kill[r], s->position)) {
                if (mine)
                    mine->lifetime = -1.0f, mine->why = RB_CAUSE_KILL;
                else if (rb_world_remove_body(d->world, s->id)) {
                    d->removed++, rb_debris_forget_breakable(d, s->id);
                    if (!rb_debris_note_body(d, RB_EVENT_REMOVE, s->id, s->position, RB_CAUSE_KILL, -1,
                                             (rb_body_id){0}))
                        return false;
                }
                break;
            }
    }
    return rb_debris_sweep(d);
}

static bool needs_states(const rb_debris *d, double t) {
    if (d->desc.kill_count || d->desc.remove_asleep > 0.0f || d->impact_row >= 0 || d->events) return true;
    for (uint32_t f = 0; f < d->desc.field_count; f++) {
        const rb_field *fd = &d->desc.fields[f];
        if (fd->kind == RB_FIELD_RADIAL && fd->impulse ? !d->fired[f] && t >= fd->start
                                                       : rb_debris_acts_at(t, fd->start, fd->duration))
            return true;
    }
    return false;
}

static bool tick(rb_debris *d) {
    const double t = rb_debris_time(d);
    uint32_t n = 0;
    const bool read = needs_states(d, t);
    if (read && !read_states(d, &n)) return false;
    d->held_count = 0;
    /* a blast due now loads the pieces of the breakable bodies it reaches
     * first: those it breaks are split before it pushes (debris_glue.c) */
    int blasted = 0;
    for (uint32_t f = 0; read && f < d->desc.field_count && blasted >= 0; f++) {
        const rb_field *fd = &d->desc.fields[f];
        if (fd->kind == RB_FIELD_RADIAL && fd->impulse && !d->fired[f] && t >= fd->start) {
            const int split = rb_debris_blast(d, fd);
            blasted = split < 0 ? -1 : blasted + split;
        }
    }
    if (blasted < 0 || (blasted > 0 && !read_states(d, &n))) return false;
    /* the fields push on the state as read, before bodies come and go */
    if (read && !rb_debris_push(d, t, d->states, n)) return false;
    if (read && d->impact_row >= 0 && !rb_debris_throw_chips(d, d->states, n)) return false;
    if (read && !rb_debris_watch_hits(d, t, d->states, n)) return false;
    if (!rb_debris_break_bodies(d)) return false;
    return expire(d, t, read ? d->states : NULL, n) && rb_debris_emit(d, t, d->tick_steps * d->dt);
}

bool rb_debris_tick(rb_debris *d) {
    if (d->steps % d->tick_steps != 0 || d->ticked_step == d->steps + 1u) return true;
    d->ticked_step = d->steps + 1u;
    return tick(d);
}

/* ---- the step ---- */

/* Adds the world's last step call's times to the rb_debris_step's. */
static void add_times(rb_debris *d) {
    double ms[RB_STAGE_COUNT], kms[RB_DEBRIS_KERNELS];
    rb_world_stage_times(d->world, ms);
    for (int k = 0; k < RB_STAGE_COUNT; k++) d->stage_ms[k] += ms[k];
    uint32_t n = rb_world_kernel_times(d->world, &d->kernel_names, kms, RB_DEBRIS_KERNELS);
    if (n > RB_DEBRIS_KERNELS) n = RB_DEBRIS_KERNELS;
    for (uint32_t k = 0; k < n; k++) d->kernel_ms[k] += kms[k];
    d->kernel_count = n;
}

void rb_debris_stage_times(const rb_debris *d, double ms[RB_STAGE_COUNT]) {
    memcpy(ms, d->stage_ms, sizeof d->stage_ms);
}

uint32_t rb_debris_kernel_times(const rb_debris *d, const char *const **names, double *ms, uint32_t capacity) {
    *names = d->kernel_names;
    for (uint32_t k = 0; k < d->kernel_count && k < capacity; k++) ms[k] = d->kernel_ms[k];
    return d->kernel_count;
}

/* True if an anchored body can break (debris_glue.c): its breaks are taken
 * at every step, not at the tick, for a blow on a body that does not give
 * way lasts a contact time, about half a tick, and would be over (the blow
 * thrown back) before the tick let the part go. */
static bool prompt_breaks(const rb_debris *d) {
    for (uint32_t k = 0; k < d->breakable_count; k++)
        if (d->breakables[k].anchored) return true;
    return false;
}

bool rb_debris_step(rb_debris *d, uint32_t steps) {
    memset(d->stage_ms, 0, sizeof d->stage_ms);
    memset(d->kernel_ms, 0, sizeof d->kernel_ms);
    d->kernel_count = 0;
    while (steps > 0) {
        if (!rb_debris_tick(d)) return false;
        /* the tick's forces, held through every call its steps are split into */
        for (uint32_t k = 0; k < d->held_count; k++)
            if (rb_world_body_valid(d->world, d->held[k].id))
                rb_world_add_load(d->world, d->held[k].id, d->held[k].force, d->held[k].torque);
        const bool prompt = prompt_breaks(d);
        uint32_t n = prompt ? 1u : d->tick_steps - (uint32_t)(d->steps % d->tick_steps);
        if (n > steps) n = steps;
        if (!rb_world_step(d->world, n)) return false;
        add_times(d);
        d->steps += n;
        steps -= n;
        if (prompt && d->steps % d->tick_steps != 0 && !rb_debris_break_bodies(d)) return false;
    }
    return true;
}

/* ---- what is there ---- */

double rb_debris_time(const rb_debris *d) { return rb_debris_now(d); }
uint32_t rb_debris_tick_steps(const rb_debris *d) { return d->tick_steps; }
uint32_t rb_debris_steps_to_tick(const rb_debris *d) { return d->tick_steps - (uint32_t)(d->steps % d->tick_steps); }
uint32_t rb_debris_alive(const rb_debris *d) { return d->count; }
uint64_t rb_debris_spawned(const rb_debris *d) { return d->spawned; }
uint64_t rb_debris_removed(const rb_debris *d) { return d->removed; }
uint64_t rb_debris_crowded(const rb_debris *d) { return d->crowded; }
uint64_t rb_debris_chips_short(const rb_debris *d) { return d->chips_short; }
uint64_t rb_debris_capped_spawns(const rb_debris *d) { return d->capped_spawns; }
uint64_t rb_debris_capped_breaks(const rb_debris *d) { return d->capped_breaks; }
uint64_t rb_debris_breaks(const rb_debris *d) { return d->breaks; }
uint64_t rb_debris_pieces_made(const rb_debris *d) { return d->pieces_made; }
uint64_t rb_debris_impacts(const rb_debris *d) { return d->impacts; }
const rb_debris_desc *rb_debris_get_desc(const rb_debris *d) { return &d->desc; }

float rb_debris_fade(const rb_debris *d, rb_body_id id) {
    const tracked *t = rb_debris_find(d, id);
    if (!t || t->lifetime <= 0.0f) return 1.0f;
    const double left = t->born + t->lifetime - rb_debris_time(d);
    return (float)fmin(1.0, fmax(0.0, left / RB_DEBRIS_FADE));
}

void rb_debris_set_colors(rb_debris *d, rb_color_table *colors) {
    d->colors = colors;
    /* the assemblies glued before it came take their first parts' colours */
    for (uint32_t k = 0; colors && k < d->pending_count; k++)
        if (!rb_color_table_inherit(colors, d->pending_colors[2 * k], d->pending_colors[2 * k + 1]))
            rb_log(RB_LOG_WARN, "debris: out of memory for an assembly's colours: it is drawn in its default ones");
    if (colors) d->pending_count = 0;
}
