/* debris_emit.c - emitters (debris.h, rb_emitter; docs/debris.md): checked,
 * added, changed and removed, and at a tick the bodies they owe, spawned
 * clear of their latest ones and of the planes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "debris_events.h"
#include "debris_internal.h"
#include "debris_math.h"

/* ---- an emitter checked, added, changed, removed ---- */

/* What it refuses: a region centred inside a plane's solid, where every
 * spawn would start buried, and a shape the table has not got. */
bool rb_debris_resolve_emitter(rb_entities *entities, const rb_emitter *em, const char *name,
                               int rows[RB_DEBRIS_MAX_CHOICES], char *err, size_t err_size) {
    const float *c = em->region.centre;
    if (!clear_of_planes(rb_world_get_desc(rb_entities_world(entities)), c, 0.0f)) {
        snprintf(err, err_size, "%s.region: its centre (%g, %g, %g) is inside a plane's solid", name, c[0], c[1], c[2]);
        return false;
    }
    for (uint32_t k = 0; k < em->choice_count; k++) {
        rows[k] = rb_entities_find(entities, em->choices[k].shape);
        if (rows[k] < 0) {
            snprintf(err, err_size, "%s.shapes[%u]: no shape '%s'", name, k, em->choices[k].shape);
            return false;
        }
    }
    return true;
}

/* What the scene reader checks in a file, checked for a caller's emitter
 * (rb_debris_add_emitter, rb_debris_set_emitter): its rate, shapes,
 * direction (into dir, made a unit vector) and region; rows get each
 * choice's entity row. */
static bool check_emitter(const rb_debris *d, const rb_emitter *e, float dir[3], int rows[RB_DEBRIS_MAX_CHOICES],
                          char *err, size_t err_size) {
    bool weighed = e->choice_count >= 1 && e->choice_count <= RB_DEBRIS_MAX_CHOICES;
    for (uint32_t c = 0; weighed && c < e->choice_count; c++) weighed = e->choices[c].weight > 0.0f;
    memcpy(dir, e->direction, 3 * sizeof *dir);
    if (!(e->rate > 0.0f) || !isfinite(e->rate)) {
        snprintf(err, err_size, "emitter.rate: %g bodies a second is not above 0", e->rate);
        return false;
    }
    if (!weighed) {
        snprintf(err, err_size, "emitter.shapes: 1 to %u shapes, each of weight above 0", RB_DEBRIS_MAX_CHOICES);
        return false;
    }
    if (!normalise(dir)) {
        snprintf(err, err_size, "emitter.direction: no direction");
        return false;
    }
    return rb_debris_resolve_emitter(d->entities, e, "emitter", rows, err, err_size);
}

bool rb_debris_add_emitter(rb_debris *d, const rb_emitter *e, char *err, size_t err_size) {
    const uint32_t k = d->desc.emitter_count;
    if (k == RB_DEBRIS_MAX_EMITTERS) {
        snprintf(err, err_size, "emitter: all %u emitters are in use", RB_DEBRIS_MAX_EMITTERS);
        return false;
    }
    float dir[3];
    int rows[RB_DEBRIS_MAX_CHOICES];
    if (!check_emitter(d, e, dir, rows, err, err_size)) return false;
    rb_emitter *slot = &d->desc.emitters[k];
    *slot = *e;
    memcpy(slot->direction, dir, sizeof dir);
    slot->start = rb_debris_start_now(d);
    memcpy(d->rows[k], rows, sizeof rows);
    d->rng[k] = splitmix64(e->seed) | 1u;
    /* a slot a removed emitter left: nothing of it carried over */
    d->owed[k] = 0.0;
    d->alive_of[k] = 0;
    memset(d->recent[k], 0, sizeof d->recent[k]);
    d->recent_next[k] = 0;
    d->desc.emitter_count++;
    return true;
}

bool rb_debris_set_emitter(rb_debris *d, uint32_t k, const rb_emitter *e, char *err, size_t err_size) {
    if (k >= d->desc.emitter_count) {
        snprintf(err, err_size, "emitter %u: there are %u emitters", k, d->desc.emitter_count);
        return false;
    }
    float dir[3];
    int rows[RB_DEBRIS_MAX_CHOICES];
    if (!check_emitter(d, e, dir, rows, err, err_size)) return false;
    rb_emitter *slot = &d->desc.emitters[k];
    const float start = slot->start;
    const uint64_t seed = slot->seed;
    *slot = *e;
    memcpy(slot->direction, dir, sizeof dir);
    /* its time, generator, bodies and what it owes go on: only its values change */
    slot->start = start, slot->seed = seed;
    memcpy(d->rows[k], rows, sizeof rows);
    return true;
}

bool rb_debris_remove_emitter(rb_debris *d, uint32_t k) {
    const uint32_t n = d->desc.emitter_count;
    if (k >= n) return false;
    /* its bodies live on as debris of no emitter; later emitters' bodies follow them down one */
    for (uint32_t b = 0; b < d->count; b++) {
        int *of = &d->bodies[b].emitter;
        if (*of == (int)k)
            *of = -1;
        else if (*of > (int)k)
            (*of)--;
    }
    const uint32_t after = n - k - 1u;
    memmove(&d->desc.emitters[k], &d->desc.emitters[k + 1], sizeof d->desc.emitters[0] * after);
    memmove(d->rows[k], d->rows[k + 1], sizeof d->rows[0] * after);
    memmove(&d->rng[k], &d->rng[k + 1], sizeof d->rng[0] * after);
    memmove(&d->owed[k], &d->owed[k + 1], sizeof d->owed[0] * after);
    memmove(&d->alive_of[k], &d->alive_of[k + 1], sizeof d->alive_of[0] * after);
    memmove(d->recent[k], d->recent[k + 1], sizeof d->recent[0] * after);
    memmove(&d->recent_next[k], &d->recent_next[k + 1], sizeof d->recent_next[0] * after);
    d->desc.emitter_count--;
    return true;
}

/* ---- at a tick: the spawns the emitters owe ---- */

/* A spawn point in the emitter's region. */
static void spawn_point(uint64_t *s, const rb_emitter *em, float p[3]) {
    const rb_region *r = &em->region;
    memcpy(p, r->centre, sizeof r->centre);
    if (r->kind == RB_REGION_BOX) {
        for (int k = 0; k < 3; k++) p[k] += (2.0f * uniform(s) - 1.0f) * r->half[k];
    } else if (r->kind == RB_REGION_DISC) {
        float u[3], v[3];
        basis(em->direction, u, v);
        const float rho = r->radius * sqrtf(uniform(s)), phi = 6.2831853f * uniform(s);
        for (int k = 0; k < 3; k++) p[k] += rho * (cosf(phi) * u[k] + sinf(phi) * v[k]);
    }
}

/* True if a body of bounding radius r at p would overlap one of the
 * emitter's latest spawns where it is now (straight-line flight: over a few
 * ticks gravity moves it less than the radii). */
static bool crowded(const rb_debris *d, uint32_t e, const float p[3], float r, double t) {
    for (uint32_t k = 0; k < RB_RECENT; k++) {
        const recent *o = &d->recent[e][k];
        if (o->radius <= 0.0f) continue;
        const float age = (float)(t - o->born);
        float gap[3];
        for (int c = 0; c < 3; c++) gap[c] = p[c] - (o->position[c] + o->velocity[c] * age);
        const float reach = r + o->radius;
        if (rb_v3_dot(gap, gap) < reach * reach) return true;
    }
    return false;
}

/* Spawns one body, or none if four tries found no point clear of the
 * emitter's latest bodies and of the planes (counted; the emitter owes it
 * still). */
static bool emit_one(rb_debris *d, uint32_t e) {
    const rb_emitter *em = &d->desc.emitters[e];
    uint64_t *s = &d->rng[e];
    float total = 0.0f;
    for (uint32_t c = 0; c < em->choice_count; c++) total += em->choices[c].weight;
    float pick = uniform(s) * total;
    uint32_t c = 0;
    while (c + 1u < em->choice_count && pick >= em->choices[c].weight) pick -= em->choices[c++].weight;
    rb_body_desc b = {0};
    const rb_entity *row = rb_entities_get(d->entities, (uint32_t)d->rows[e][c]);
    const float radius = em->choices[c].scale * row->shape->bounding_radius;
    const double t = rb_debris_now(d);
    bool clear = false;
    for (int tries = 0; tries < 4 && !clear; tries++) {
        spawn_point(s, em, b.position);
        clear =
            !crowded(d, e, b.position, radius, t) && clear_of_planes(rb_world_get_desc(d->world), b.position, radius);
    }
    if (!clear) {
        d->crowded++;
        return true;
    }
    float dir[3];
    in_cone(s, em->direction, em->cone, dir);
    const float speed = fmaxf(0.0f, em->speed + (2.0f * uniform(s) - 1.0f) * em->speed_spread);
    float axis[3];
    in_cone(s, em->direction, 3.14159265f, axis); /* any direction */
    const float spin = em->spin * uniform(s);
    /* a random orientation: a random axis and angle */
    float qa[3];
    in_cone(s, em->direction, 3.14159265f, qa);
    const float half = 3.14159265f * uniform(s);
    for (int k = 0; k < 3; k++) {
        b.velocity[k] = speed * dir[k];
        b.angular_velocity[k] = spin * axis[k];
        b.orientation[k] = sinf(half) * qa[k];
    }
    b.orientation[3] = cosf(half);
    const float scale = em->choices[c].scale;
    const rb_body_id id = scale == 1.0f ? rb_entities_spawn(d->entities, (uint32_t)d->rows[e][c], &b)
                                        : rb_entities_spawn_scaled(d->entities, (uint32_t)d->rows[e][c], scale, &b);
    if (id.generation == 0) return true; /* refused (logged): nothing spawned */
    d->spawned++;
    recent *r = &d->recent[e][d->recent_next[e]++ % RB_RECENT];
    *r = (recent){.born = t, .radius = radius};
    memcpy(r->position, b.position, sizeof r->position);
    memcpy(r->velocity, b.velocity, sizeof r->velocity);
    /* the emitter's colours, where it gives any (colors.h) */
    if (d->colors && (em->colors.has_color || em->colors.has_inside) && !rb_color_table_set(d->colors, id, &em->colors))
        rb_log(RB_LOG_WARN, "debris: out of memory for an emitted body's colours: it is drawn in its default ones");
    return rb_debris_add_tracked(d, id, em->lifetime, (int)e) &&
           rb_debris_note_body(d, RB_EVENT_SPAWN, id, b.position, RB_CAUSE_EMITTER, (int)e, (rb_body_id){0});
}

bool rb_debris_emit(rb_debris *d, double t, double tick_seconds) {
    for (uint32_t e = 0; e < d->desc.emitter_count; e++) {
        const rb_emitter *em = &d->desc.emitters[e];
        if (!rb_debris_acts_at(t, em->start, em->duration)) continue;
        d->owed[e] += em->rate * tick_seconds;
        while (d->owed[e] >= 1.0) {
            d->owed[e] -= 1.0;
            if (em->max_alive && d->alive_of[e] >= em->max_alive) {
                d->owed[e] = fmin(d->owed[e], 1.0); /* no burst when room comes */
                break;
            }
            if (!rb_debris_room(d, 1)) { /* the world's cap: skipped, not owed */
                d->capped_spawns++;
                continue;
            }
            const uint64_t before = d->crowded;
            if (!emit_one(d, e)) return false;
            if (d->crowded != before) { /* no room now: owed for the next tick */
                d->owed[e] += 1.0;
                break;
            }
        }
    }
    /* the cap on all bodies: the oldest debris first */
    const uint32_t cap = d->desc.max_bodies;
    if (cap && rb_world_body_count(d->world) > cap) {
        uint32_t over = rb_world_body_count(d->world) - cap;
        for (uint32_t k = 0; k < d->count && over > 0; k++, over--)
            d->bodies[k].lifetime = -1.0f, d->bodies[k].why = RB_CAUSE_CAP;
        return rb_debris_sweep(d);
    }
    return true;
}

bool rb_debris_emitter_active(const rb_debris *d, uint32_t k) {
    return k < d->desc.emitter_count &&
           rb_debris_acts_at(rb_debris_now(d), d->desc.emitters[k].start, d->desc.emitters[k].duration);
}
