/* debris.c - debris effects on the host (see debris.h and docs/debris.md). */
#include "debris.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rb_math.h"

#include "debris_internal.h"

/* ---- random numbers: splitmix64 for seeds, xorshift64* for draws ---- */

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t next_u64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, 1), 24 bits: every value a float holds exactly. */
static float uniform(uint64_t *s) { return (float)(next_u64(s) >> 40) * (1.0f / 16777216.0f); }

/* ---- small vector helpers ---- */

/* Normalises v; false (v unchanged) if it is too short to have a direction. */
static bool normalise(float v[3]) {
    const float len = sqrtf(rb_v3_dot(v, v));
    if (!(len > 1e-20f)) return false;
    for (int k = 0; k < 3; k++) v[k] /= len;
    return true;
}

/* Two unit vectors that make a right-handed frame with unit n. */
static void basis(const float n[3], float u[3], float v[3]) {
    const float a[3] = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    rb_v3_cross(n, a, u);
    normalise(u);
    rb_v3_cross(n, u, v);
}

/* A uniformly random direction within `cone` radians of unit axis. */
static void in_cone(uint64_t *s, const float axis[3], float cone, float out[3]) {
    const float z = 1.0f - uniform(s) * (1.0f - cosf(cone)); /* cos of the angle off the axis */
    const float phi = 6.2831853f * uniform(s), r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    float u[3], v[3];
    basis(axis, u, v);
    for (int k = 0; k < 3; k++) out[k] = z * axis[k] + r * (cosf(phi) * u[k] + sinf(phi) * v[k]);
}

/* ---- the table of debris bodies ---- */

static bool index_slots(rb_debris *d) {
    uint32_t top = 0;
    for (uint32_t k = 0; k < d->count; k++)
        if (d->bodies[k].id.slot + 1u > top) top = d->bodies[k].id.slot + 1u;
    if (top > d->where_size) {
        uint32_t *w = realloc(d->where, sizeof *w * top * 2u);
        if (!w) return false;
        d->where = w, d->where_size = top * 2u;
    }
    if (d->where_size) memset(d->where, 0, sizeof *d->where * d->where_size);
    for (uint32_t k = 0; k < d->count; k++) d->where[d->bodies[k].id.slot] = k + 1u;
    return true;
}

const tracked *rb_debris_find(const rb_debris *d, rb_body_id id) {
    if (id.slot >= d->where_size || d->where[id.slot] == 0) return NULL;
    const tracked *t = &d->bodies[d->where[id.slot] - 1u];
    return t->id.generation == id.generation ? t : NULL;
}

bool rb_debris_add_tracked(rb_debris *d, rb_body_id id, float lifetime, int emitter) {
    if (d->count == d->capacity) {
        const uint32_t cap = d->capacity ? 2u * d->capacity : 64u;
        tracked *b = realloc(d->bodies, sizeof *b * cap);
        if (!b) return false;
        d->bodies = b, d->capacity = cap;
    }
    d->bodies[d->count++] = (tracked){id, rb_debris_time(d), lifetime, emitter, -1.0};
    if (emitter >= 0) d->alive_of[emitter]++;
    if (id.slot >= d->where_size) return index_slots(d);
    d->where[id.slot] = d->count;
    return true;
}

/* Removes the debris bodies marked (lifetime < 0) from the world and the
 * table, keeping the others in order of birth. */
bool rb_debris_sweep(rb_debris *d) {
    uint32_t kept = 0;
    for (uint32_t k = 0; k < d->count; k++) {
        tracked *t = &d->bodies[k];
        if (t->lifetime >= 0.0f) {
            d->bodies[kept++] = *t;
            continue;
        }
        if (rb_world_remove_body(d->world, t->id)) d->removed++;
        rb_debris_forget_breakable(d, t->id);
        if (t->emitter >= 0) d->alive_of[t->emitter]--;
    }
    d->count = kept;
    return index_slots(d);
}

/* ---- create, destroy ---- */

/* True if a body of bounding radius r at p is clear of every plane's solid:
 * one started in a slope is thrown out of it at hundreds of m/s. A point
 * (r 0) inside one is refused as an emitter's centre. */
static bool clear_of_planes(const rb_world_desc *w, const float p[3], float r) {
    for (uint32_t k = 0; k < w->plane_count; k++)
        if (rb_v3_dot(w->planes[k].normal, p) - w->planes[k].offset < r) return false;
    return true;
}

/* What rb_debris_create and rb_debris_add_emitter both refuse in an
 * emitter (called `name` in err): a region centred inside a plane's solid,
 * where every spawn would start buried, and a shape the table has not got.
 * Fills rows with each choice's entity row. */
static bool resolve_emitter(rb_entities *entities, const rb_emitter *em, const char *name,
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
        if (!resolve_emitter(entities, &desc->emitters[e], name, d->rows[e], err, err_size)) {
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
    free(d->last_v);
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

/* Now as a start time, rounded down: a start rounded up past the clock
 * would put off what is added to the next tick. */
static float start_now(const rb_debris *d) {
    const double t = rb_debris_time(d);
    float start = (float)t;
    if ((double)start > t) start = nextafterf(start, 0.0f);
    return start;
}

/* True if field k will act no more: its impulse given, its duration over. */
static bool field_done(const rb_debris *d, uint32_t k, double t) {
    const rb_field *f = &d->desc.fields[k];
    if (f->kind == RB_FIELD_RADIAL && f->impulse) return d->fired[k];
    return f->duration > 0.0f && t >= (double)f->start + f->duration;
}

bool rb_debris_add_field(rb_debris *d, const rb_field *f) {
    if (f->kind != RB_FIELD_WIND && !(f->radius > 0.0f)) return false;
    const double t = rb_debris_time(d);
    uint32_t k = d->desc.field_count;
    if (k == RB_DEBRIS_MAX_FIELDS) { /* the oldest done field's place, so the table stays bounded */
        for (uint32_t j = 0; j < RB_DEBRIS_MAX_FIELDS; j++)
            if (field_done(d, j, t) && (k == RB_DEBRIS_MAX_FIELDS || d->desc.fields[j].start < d->desc.fields[k].start))
                k = j;
        if (k == RB_DEBRIS_MAX_FIELDS) return false;
    }
    rb_field *slot = &d->desc.fields[k];
    *slot = *f;
    slot->start = start_now(d);
    d->fired[k] = false;
    if (k == d->desc.field_count) d->desc.field_count++;
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
    return resolve_emitter(d->entities, e, "emitter", rows, err, err_size);
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
    slot->start = start_now(d);
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

bool rb_debris_set_field(rb_debris *d, uint32_t k, const rb_field *f, char *err, size_t err_size) {
    if (k >= d->desc.field_count) {
        snprintf(err, err_size, "field %u: there are %u fields", k, d->desc.field_count);
        return false;
    }
    rb_field *slot = &d->desc.fields[k];
    if (f->kind != slot->kind) {
        snprintf(err, err_size, "field %u: its kind cannot change", k);
        return false;
    }
    const float *v[] = {f->centre, f->velocity, f->axis};
    bool finite = isfinite(f->radius) && isfinite(f->duration) && isfinite(f->strength) && isfinite(f->falloff) &&
                  isfinite(f->up) && isfinite(f->drag);
    for (int i = 0; i < 3; i++) finite = finite && isfinite(v[i][0]) && isfinite(v[i][1]) && isfinite(v[i][2]);
    if (!finite) {
        snprintf(err, err_size, "field %u: every value must be a finite number", k);
        return false;
    }
    if (f->kind != RB_FIELD_WIND && !(f->radius > 0.0f)) {
        snprintf(err, err_size, "field %u: radius %g m: a %s field needs a radius above 0", k, f->radius,
                 f->kind == RB_FIELD_RADIAL ? "radial" : "vortex");
        return false;
    }
    if (!(f->radius >= 0.0f && f->duration >= 0.0f && f->falloff >= 0.0f && f->up >= 0.0f && f->drag >= 0.0f)) {
        snprintf(err, err_size, "field %u: radius, duration, falloff, up and drag must be >= 0", k);
        return false;
    }
    float axis[3] = {f->axis[0], f->axis[1], f->axis[2]};
    if (f->kind == RB_FIELD_VORTEX && !normalise(axis)) {
        snprintf(err, err_size, "field %u: a vortex needs an axis", k);
        return false;
    }
    const float start = slot->start;
    *slot = *f;
    slot->start = start; /* it acts on from when it began; a blast given stays given */
    memcpy(slot->axis, axis, sizeof axis);
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

/* ---- a tick ---- */

/* Holds force at point on a body whose centre is at centre, for the tick. */
static bool hold(rb_debris *d, rb_body_id id, const float force[3], const float point[3], const float centre[3]) {
    if (d->held_count == d->held_capacity) {
        const uint32_t cap = d->held_capacity ? 2u * d->held_capacity : 64u;
        held_force *h = realloc(d->held, sizeof *h * cap);
        if (!h) return false;
        d->held = h, d->held_capacity = cap;
    }
    held_force *h = &d->held[d->held_count++];
    h->id = id;
    memcpy(h->force, force, sizeof h->force);
    const float lever[3] = {point[0] - centre[0], point[1] - centre[1], point[2] - centre[2]};
    rb_v3_cross(lever, force, h->torque);
    return true;
}

static bool active(double t, float start, float duration) {
    return t >= start && (duration <= 0.0f || t < (double)start + duration);
}

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
        if (b->lifetime > 0.0f && t - b->born >= b->lifetime) b->lifetime = -1.0f;
        /* removed by something else (the sandbox's delete tool): dropped, uncounted */
        if (!rb_world_body_valid(d->world, b->id)) b->lifetime = -1.0f;
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
                mine->lifetime = -1.0f;
        }
        if (s->kind != RB_BODY_DYNAMIC) continue;
        for (uint32_t r = 0; r < d->desc.kill_count; r++)
            if (in_box(&d->desc.kill[r], s->position)) {
                if (mine)
                    mine->lifetime = -1.0f;
                else if (rb_world_remove_body(d->world, s->id))
                    d->removed++, rb_debris_forget_breakable(d, s->id);
                break;
            }
    }
    return rb_debris_sweep(d);
}

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
    const double t = rb_debris_time(d);
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
    return rb_debris_add_tracked(d, id, em->lifetime, (int)e);
}

static bool emit(rb_debris *d, double t, double tick_seconds) {
    for (uint32_t e = 0; e < d->desc.emitter_count; e++) {
        const rb_emitter *em = &d->desc.emitters[e];
        if (!active(t, em->start, em->duration)) continue;
        d->owed[e] += em->rate * tick_seconds;
        while (d->owed[e] >= 1.0) {
            d->owed[e] -= 1.0;
            if (em->max_alive && d->alive_of[e] >= em->max_alive) {
                d->owed[e] = fmin(d->owed[e], 1.0); /* no burst when room comes */
                break;
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
        for (uint32_t k = 0; k < d->count && over > 0; k++, over--) d->bodies[k].lifetime = -1.0f;
        return rb_debris_sweep(d);
    }
    return true;
}

/* The faces of a world shape's particles that wind can blow on: the
 * outer faces of their cells (rb_cell_mesh), each its centre and outward
 * normal in the shape's frame and its area: 7 floats a face. Made once a
 * shape, when wind first blows on one of its bodies. */
static const float *faces_of(rb_debris *d, uint32_t shape, uint32_t *count) {
    if (shape >= d->face_size) {
        const uint32_t size = 2u * shape + 16u;
        face_set *f = realloc(d->faces, sizeof *f * size);
        if (!f) return NULL;
        memset(f + d->face_size, 0, sizeof *f * (size - d->face_size));
        d->faces = f, d->face_size = size;
    }
    face_set *set = &d->faces[shape];
    if (!set->made) {
        const uint32_t n = rb_world_shape_particles(d->world, shape, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (n ? n : 1));
        rb_mesh m = {0};
        bool ok = p && n && rb_world_shape_particles(d->world, shape, p, n, NULL) == n &&
                  rb_cell_mesh(p, n, rb_world_shape_radius(d->world, shape), &m);
        free(p);
        const uint32_t faces = ok ? m.vertex_count / 4u : 0u;
        set->data = ok ? malloc(sizeof *set->data * 7 * (faces ? faces : 1)) : NULL;
        if (!set->data) {
            rb_mesh_free(&m);
            return NULL;
        }
        for (uint32_t k = 0; k < faces; k++) {
            const float *v = &m.positions[12 * k];
            float *out = &set->data[7 * k], e1[3], e2[3], cr[3];
            for (int j = 0; j < 3; j++) {
                out[j] = 0.25f * (v[j] + v[3 + j] + v[6 + j] + v[9 + j]);
                out[3 + j] = m.normals[12 * k + j];
                e1[j] = v[3 + j] - v[j], e2[j] = v[9 + j] - v[j];
            }
            rb_v3_cross(e1, e2, cr);
            out[6] = sqrtf(rb_v3_dot(cr, cr));
        }
        rb_mesh_free(&m);
        set->count = faces;
        set->made = true;
    }
    *count = set->count;
    return set->data;
}

/* Wind on the faces of a body that meet it (debris.h, rb_field): on each
 * outer cell face whose outward normal n meets the wind relative to the
 * body, u, a pressure drag |u|^2 (-n . u/|u|) over its area, along u. The
 * sum, *out, acts at *at: a point on the line through the centre of
 * pressure, so that it turns the body as the faces' forces would (all but
 * the twist about the wind's own direction). False if out of memory. */
static bool wind_on(rb_debris *d, const rb_body_state *s, const rb_field *fd, float out[3], float at[3]) {
    uint32_t count = 0;
    const float *faces = faces_of(d, s->shape, &count);
    if (!faces) return false;
    float u[3];
    for (int k = 0; k < 3; k++) u[k] = fd->velocity[k] - s->velocity[k], out[k] = 0.0f, at[k] = s->position[k];
    const float speed = sqrtf(rb_v3_dot(u, u));
    if (!(speed > 0.0f)) return true;
    float torque[3] = {0.0f, 0.0f, 0.0f};
    for (uint32_t f = 0; f < count; f++) {
        const float *face = &faces[7 * f];
        float n[3], c[3];
        rb_quat_rotate(s->orientation, &face[3], n);
        const float facing = -rb_v3_dot(n, u) / speed;
        if (!(facing > 0.0f)) continue;
        rb_quat_rotate(s->orientation, face, c);
        const float push = fd->drag * face[6] * facing * speed, f3[3] = {push * u[0], push * u[1], push * u[2]};
        float t[3];
        rb_v3_cross(c, f3, t);
        for (int k = 0; k < 3; k++) out[k] += f3[k], torque[k] += t[k];
    }
    const float f2 = rb_v3_dot(out, out);
    if (f2 > 0.0f) { /* the point c + (F x T) / |F|^2 has (point - c) x F = T less its part along F */
        float ft[3];
        rb_v3_cross(out, torque, ft);
        for (int k = 0; k < 3; k++) at[k] += ft[k] / f2;
    }
    return true;
}

/* The fields' pushes on the bodies read at this tick. */
static bool push(rb_debris *d, double t, const rb_body_state *states, uint32_t n) {
    rb_world *w = d->world;
    for (uint32_t f = 0; f < d->desc.field_count; f++) {
        const rb_field *fd = &d->desc.fields[f];
        const bool once = fd->kind == RB_FIELD_RADIAL && fd->impulse;
        if (once ? (d->fired[f] || t < fd->start) : !active(t, fd->start, fd->duration)) continue;
        d->fired[f] = true;
        for (uint32_t b = 0; b < n; b++) {
            const rb_body_state *s = &states[b];
            if (s->kind != RB_BODY_DYNAMIC || !rb_world_body_valid(w, s->id)) continue;
            float rel[3], out[3] = {0.0f, 0.0f, 0.0f};
            for (int k = 0; k < 3; k++) rel[k] = s->position[k] - fd->centre[k];
            const float dist = sqrtf(rb_v3_dot(rel, rel));
            if (fd->radius > 0.0f && dist >= fd->radius && fd->kind != RB_FIELD_VORTEX) continue;
            if (fd->kind == RB_FIELD_RADIAL) {
                float dir[3] = {rel[0], rel[1], rel[2]};
                if (!normalise(dir)) dir[0] = 0.0f, dir[1] = 1.0f, dir[2] = 0.0f;
                dir[1] += fd->up;
                normalise(dir);
                const float amount = fd->strength * powf(1.0f - dist / fd->radius, fd->falloff);
                for (int k = 0; k < 3; k++) out[k] = amount * dir[k];
                if (once) {
                    if (!rb_world_apply_impulse(w, s->id, out, s->position)) return false;
                    continue;
                }
            } else if (fd->kind == RB_FIELD_WIND) {
                float at[3];
                if (!wind_on(d, s, fd, out, at)) return false;
                if (rb_v3_dot(out, out) > 0.0f && !hold(d, s->id, out, at, s->position)) return false;
                continue;
            } else { /* vortex: towards a solid swirl within the radius, strength at its edge */
                const float along = rb_v3_dot(rel, fd->axis);
                float radial[3];
                for (int k = 0; k < 3; k++) radial[k] = rel[k] - along * fd->axis[k];
                const float rho = sqrtf(rb_v3_dot(radial, radial));
                if (rho >= fd->radius || !(rho > 0.0f)) continue;
                float tangent[3];
                rb_v3_cross(fd->axis, radial, tangent);
                normalise(tangent);
                const float want = fd->strength * rho / fd->radius, have = rb_v3_dot(s->velocity, tangent);
                /* held for a tick: the part of the way the rate would go in a
                 * tick, exactly (1 - e^-drag t), so no drag overshoots */
                const float tick_s = (float)(d->tick_steps * d->dt);
                const float gain = (1.0f - expf(-fd->drag * tick_s)) / tick_s;
                for (int k = 0; k < 3; k++) out[k] = s->mass * gain * (want - have) * tangent[k];
            }
            if (!hold(d, s->id, out, s->position, s->position)) return false;
        }
    }
    return true;
}

/* Impact debris (rb_impact_debris): each body's change of velocity since
 * the last tick, from the states read now. */
/* A body's size for placing chips: its shape's bounding radius (a piece of
 * a broken body, which has no row, the radius of a ball of its particles). */
static float body_size(const rb_debris *d, uint32_t shape) {
    const int row = rb_entities_of_world_shape(d->entities, shape);
    if (row >= 0)
        return rb_entities_get(d->entities, (uint32_t)row)->shape->bounding_radius *
               rb_entities_scale_of_world_shape(d->entities, shape);
    return rb_world_shape_radius(d->world, shape) *
           (1.0f + cbrtf((float)rb_world_shape_particles(d->world, shape, NULL, 0, NULL)));
}

static bool throw_chips(rb_debris *d, const rb_body_state *states, uint32_t n) {
    const rb_impact_debris *im = &d->desc.impact;
    const float *g = rb_world_get_desc(d->world)->gravity;
    const float tick_s = (float)(d->tick_steps * d->dt);
    uint32_t top = 0;
    for (uint32_t b = 0; b < n; b++) top = states[b].id.slot + 1u > top ? states[b].id.slot + 1u : top;
    if (top > d->last_size) {
        float *v = realloc(d->last_v, sizeof *v * 7 * top);
        if (!v) return false;
        memset(v + 7 * d->last_size, 0, sizeof *v * 7 * (top - d->last_size));
        d->last_v = v, d->last_size = top;
    }
    const rb_shape *chip = rb_entities_get(d->entities, (uint32_t)d->impact_row)->shape;
    uint32_t thrown = 0, placed = 0;
    float chips[256][3]; /* where this tick's chips start */
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_state *s = &states[b];
        float *last = &d->last_v[7 * s->id.slot];
        uint32_t gen;
        memcpy(&gen, &last[6], sizeof gen);
        const bool known = gen == s->id.generation;
        /* the contacts' impulse per mass this tick (the change of velocity
         * less gravity's), and its change since the last tick: a body
         * resting under its weight takes the same impulse each tick (no
         * hit); a landing takes one suddenly */
        float dv[3];
        for (int k = 0; k < 3; k++) {
            const float j = s->velocity[k] - last[k] - (s->asleep ? 0.0f : g[k] * tick_s);
            dv[k] = j - last[3 + k];
            last[3 + k] = j;
        }
        memcpy(last, s->velocity, sizeof s->velocity);
        memcpy(&last[6], &s->id.generation, sizeof gen);
        const tracked *t = rb_debris_find(d, s->id);
        if (!known || s->kind != RB_BODY_DYNAMIC || (t && t->emitter == RB_IMPACT_EMITTER) || thrown >= 256u) continue;
        if (!(s->mass * sqrtf(rb_v3_dot(dv, dv)) > im->threshold) || !normalise(dv)) continue;
        float at[3];
        const float size = body_size(d, s->shape), clear = chip->bounding_radius * im->scale;
        d->impacts++;
        float u[3], v[3];
        basis(dv, u, v);
        for (uint32_t c = 0; c < im->count; c++, thrown++) {
            /* beside the body on the side it was hit on: outside its bounding
             * sphere across the hit, half its size back along it */
            const float phi = 6.2831853f * uniform(&d->rng_impact);
            rb_body_desc bd = {0};
            float dir[3];
            in_cone(&d->rng_impact, dv, 0.785398f, dir);
            for (int k = 0; k < 3; k++) {
                const float side = cosf(phi) * u[k] + sinf(phi) * v[k];
                at[k] = s->position[k] + (clear - 0.5f * size) * dv[k] + (size + clear) * side;
                bd.position[k] = at[k];
                bd.velocity[k] = s->velocity[k] + im->speed * dir[k];
            }
            /* never into a plane, a body or a chip thrown before: started
             * inside one, contacts throw it out at tens of m/s */
            if (!clear_of_planes(rb_world_get_desc(d->world), at, clear)) continue;
            bool free_here = true;
            for (uint32_t o = 0; o < n && free_here; o++) {
                float gap[3];
                for (int k = 0; k < 3; k++) gap[k] = at[k] - states[o].position[k];
                const float reach = clear + body_size(d, states[o].shape);
                free_here = rb_v3_dot(gap, gap) >= reach * reach;
            }
            for (uint32_t o = 0; o < placed && free_here; o++) {
                float gap[3];
                for (int k = 0; k < 3; k++) gap[k] = at[k] - chips[o][k];
                free_here = rb_v3_dot(gap, gap) >= 4.0f * clear * clear;
            }
            if (!free_here) continue;
            memcpy(chips[placed++], at, sizeof at);
            const rb_body_id id = rb_entities_spawn_scaled(d->entities, (uint32_t)d->impact_row, im->scale, &bd);
            if (id.generation == 0) continue;
            d->spawned++;
            if (!rb_debris_add_tracked(d, id, im->lifetime, RB_IMPACT_EMITTER)) return false;
        }
    }
    return true;
}

static bool needs_states(const rb_debris *d, double t) {
    if (d->desc.kill_count || d->desc.remove_asleep > 0.0f || d->impact_row >= 0) return true;
    for (uint32_t f = 0; f < d->desc.field_count; f++) {
        const rb_field *fd = &d->desc.fields[f];
        if (fd->kind == RB_FIELD_RADIAL && fd->impulse ? !d->fired[f] && t >= fd->start
                                                       : active(t, fd->start, fd->duration))
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
    /* the fields push on the state as read, before bodies come and go */
    if (read && !push(d, t, d->states, n)) return false;
    if (read && d->impact_row >= 0 && !throw_chips(d, d->states, n)) return false;
    if (!rb_debris_break_bodies(d)) return false;
    return expire(d, t, read ? d->states : NULL, n) && emit(d, t, d->tick_steps * d->dt);
}

bool rb_debris_tick(rb_debris *d) {
    if (d->steps % d->tick_steps != 0 || d->ticked_step == d->steps + 1u) return true;
    d->ticked_step = d->steps + 1u;
    return tick(d);
}

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
        uint32_t n = d->tick_steps - (uint32_t)(d->steps % d->tick_steps);
        if (n > steps) n = steps;
        if (!rb_world_step(d->world, n)) return false;
        add_times(d);
        d->steps += n;
        steps -= n;
    }
    return true;
}

/* ---- what is there ---- */

double rb_debris_time(const rb_debris *d) { return (double)d->steps * d->dt; }
uint32_t rb_debris_tick_steps(const rb_debris *d) { return d->tick_steps; }
uint32_t rb_debris_steps_to_tick(const rb_debris *d) { return d->tick_steps - (uint32_t)(d->steps % d->tick_steps); }
uint32_t rb_debris_alive(const rb_debris *d) { return d->count; }
uint64_t rb_debris_spawned(const rb_debris *d) { return d->spawned; }
uint64_t rb_debris_removed(const rb_debris *d) { return d->removed; }
uint64_t rb_debris_crowded(const rb_debris *d) { return d->crowded; }
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

bool rb_debris_emitter_active(const rb_debris *d, uint32_t k) {
    return k < d->desc.emitter_count &&
           active(rb_debris_time(d), d->desc.emitters[k].start, d->desc.emitters[k].duration);
}

bool rb_debris_field_active(const rb_debris *d, uint32_t k) {
    if (k >= d->desc.field_count) return false;
    const rb_field *f = &d->desc.fields[k];
    const double t = rb_debris_time(d);
    if (f->kind == RB_FIELD_RADIAL && f->impulse) return t >= f->start && t < (double)f->start + 0.25;
    return active(t, f->start, f->duration);
}
