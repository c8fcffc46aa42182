/* debris_events.c - the debris layer's events (debris_events.h,
 * docs/events.md): kept in time order as the rooms note them, and the
 * impacts found at each tick from the bodies' change of momentum. */
#include "debris_events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "debris_internal.h"

/* What a body's hits remember from tick to tick, by its id's slot. */
typedef struct hit_memory {
    uint32_t generation; /* the id's; another: a new body in the slot */
    bool seen;           /* its velocity at the last tick is known */
    bool open;           /* a hit is going on: it passed the threshold at the last tick */
    bool joined;         /* the hit is its partner's (one event a pair) */
    bool hit;            /* it passed at this tick */
    float velocity[3];   /* at the last tick, m/s */
    float sum[3];        /* the contact impulse over the open hit so far, N s */
    rb_event event;      /* the open hit as found at its first tick */
} hit_memory;

struct rb_event_log {
    float threshold;  /* N s */
    rb_event *events; /* in time order */
    uint32_t count, capacity, ready;
    rb_body_id *pieces;
    uint32_t piece_count, piece_capacity;
    hit_memory *memory;
    uint32_t memory_size;
    uint32_t *open; /* the slots with an open hit */
    uint32_t open_count, open_capacity;
    float *bound; /* by world shape: its bounding radius, m; 0: not measured */
    uint32_t bound_size;
};

static bool grow(void **p, size_t elem, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return true;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = realloc(*p, elem * n);
    if (!q) return false;
    *p = q, *cap = n;
    return true;
}

bool rb_debris_keep_events(rb_debris *d, float impulse) {
    if (!(impulse >= 0.0f) || !isfinite(impulse)) return false;
    if (!d->events && !(d->events = calloc(1, sizeof *d->events))) return false;
    d->events->threshold = impulse;
    return true;
}

void rb_debris_free_events(rb_debris *d) {
    rb_event_log *l = d->events;
    if (!l) return;
    free(l->events), free(l->pieces), free(l->memory), free(l->open), free(l->bound);
    free(l);
    d->events = NULL;
}

/* The time before which every event is known: the start of the earliest
 * open hit (what comes after it waits for it). */
static double known_until(const rb_event_log *l) {
    double t = INFINITY;
    for (uint32_t k = 0; k < l->open_count; k++) {
        const hit_memory *m = &l->memory[l->open[k]];
        if (!m->joined && m->event.time < t) t = m->event.time;
    }
    return t;
}

static void update_ready(rb_event_log *l) {
    const double until = known_until(l);
    l->ready = 0;
    while (l->ready < l->count && l->events[l->ready].time < until) l->ready++;
}

bool rb_debris_note(rb_debris *d, const rb_event *e) {
    rb_event_log *l = d->events;
    if (!l) return true;
    if (!grow((void **)&l->events, sizeof *l->events, &l->capacity, l->count + 1)) return false;
    uint32_t at = l->count; /* after every event at its time or before: the order they were noted in */
    while (at > 0 && l->events[at - 1].time > e->time) at--;
    if (at < l->count) memmove(&l->events[at + 1], &l->events[at], sizeof *l->events * (l->count - at));
    l->events[at] = *e;
    l->count++;
    update_ready(l);
    return true;
}

bool rb_debris_note_break(rb_debris *d, rb_body_id parent, const float position[3], const rb_body_id *pieces,
                          uint32_t count) {
    rb_event_log *l = d->events;
    if (!l) return true;
    if (!grow((void **)&l->pieces, sizeof *l->pieces, &l->piece_capacity, l->piece_count + count)) return false;
    memcpy(&l->pieces[l->piece_count], pieces, sizeof *pieces * count);
    rb_event e = {.kind = RB_EVENT_BREAK,
                  .time = rb_debris_now(d),
                  .body = parent,
                  .plane = -1,
                  .emitter = -1,
                  .piece_first = l->piece_count,
                  .piece_count = count};
    memcpy(e.position, position, sizeof e.position);
    l->piece_count += count;
    return rb_debris_note(d, &e);
}

uint32_t rb_debris_events(const rb_debris *d, const rb_event **events, const rb_body_id **pieces) {
    const rb_event_log *l = d->events;
    *events = l ? l->events : NULL;
    *pieces = l ? l->pieces : NULL;
    return l ? l->ready : 0;
}

void rb_debris_clear_events(rb_debris *d) {
    rb_event_log *l = d->events;
    if (!l || l->ready == 0) return;
    memmove(l->events, &l->events[l->ready], sizeof *l->events * (l->count - l->ready));
    l->count -= l->ready;
    /* the pieces the events left still name move down to the front */
    uint32_t first = l->piece_count;
    for (uint32_t k = 0; k < l->count; k++)
        if (l->events[k].kind == RB_EVENT_BREAK && l->events[k].piece_first < first) first = l->events[k].piece_first;
    if (first > 0) memmove(l->pieces, &l->pieces[first], sizeof *l->pieces * (l->piece_count - first));
    l->piece_count -= first;
    for (uint32_t k = 0; k < l->count; k++)
        if (l->events[k].kind == RB_EVENT_BREAK) l->events[k].piece_first -= first;
    update_ready(l);
}

/* ---- impacts ---- */

/* A world shape's bounding radius: its farthest particle's centre plus its radius. */
static float bound_of(rb_debris *d, uint32_t shape) {
    rb_event_log *l = d->events;
    if (shape >= l->bound_size) {
        uint32_t size = l->bound_size;
        if (!grow((void **)&l->bound, sizeof *l->bound, &size, shape + 1)) return 0.0f;
        memset(&l->bound[l->bound_size], 0, sizeof *l->bound * (size - l->bound_size));
        l->bound_size = size;
    }
    if (l->bound[shape] == 0.0f) {
        float mass;
        const uint32_t n = rb_world_shape_particles(d->world, shape, NULL, 0, &mass);
        float *p = malloc(sizeof *p * 3 * (n ? n : 1));
        float far = 0.0f;
        if (p && rb_world_shape_particles(d->world, shape, p, n, &mass) == n)
            for (uint32_t i = 0; i < n; i++)
                far =
                    fmaxf(far, sqrtf(p[3 * i] * p[3 * i] + p[3 * i + 1] * p[3 * i + 1] + p[3 * i + 2] * p[3 * i + 2]));
        free(p);
        l->bound[shape] = far + rb_world_shape_radius(d->world, shape);
    }
    return l->bound[shape];
}

static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static float len3(const float *a) { return sqrtf(dot3(a, a)); }

/* What body b (states[b]) hit at its hit's first tick: the nearest plane
 * or body by the gap between their bounding shapes, within its own
 * bounding radius; where, and how fast they met. */
static void find_partner(rb_debris *d, const rb_body_state *states, uint32_t n, uint32_t b, rb_event *e) {
    const rb_world_desc *wd = rb_world_get_desc(d->world);
    const rb_body_state *s = &states[b];
    const hit_memory *mine = &d->events->memory[s->id.slot];
    const float rb = bound_of(d, s->shape);
    float best = rb; /* a gap wider than the body is no contact */
    int plane = -1;
    uint32_t other = UINT32_MAX;
    for (uint32_t k = 0; k < wd->plane_count; k++) {
        const float gap = dot3(wd->planes[k].normal, s->position) - wd->planes[k].offset - rb;
        if (gap < best) best = gap, plane = (int)k;
    }
    for (uint32_t q = 0; q < n; q++) {
        if (q == b) continue;
        float dx[3] = {states[q].position[0] - s->position[0], states[q].position[1] - s->position[1],
                       states[q].position[2] - s->position[2]};
        const float gap = len3(dx) - rb - bound_of(d, states[q].shape);
        if (gap < best) best = gap, plane = -1, other = q;
    }
    e->plane = plane;
    memcpy(e->position, s->position, sizeof e->position);
    float rel[3] = {mine->velocity[0], mine->velocity[1], mine->velocity[2]};
    if (plane >= 0) {
        const rb_plane *p = &wd->planes[plane];
        const float h = dot3(p->normal, s->position) - p->offset;
        for (int k = 0; k < 3; k++) e->position[k] -= h * p->normal[k];
    } else if (other != UINT32_MAX) {
        const rb_body_state *o = &states[other];
        const float ro = bound_of(d, o->shape), f = rb / (rb + ro);
        for (int k = 0; k < 3; k++) e->position[k] += f * (o->position[k] - s->position[k]);
        const hit_memory *om = o->id.slot < d->events->memory_size ? &d->events->memory[o->id.slot] : NULL;
        const bool known = om && om->seen && om->generation == o->id.generation;
        for (int k = 0; k < 3; k++) rel[k] -= known ? om->velocity[k] : o->velocity[k];
        e->other = o->id;
    }
    e->speed = len3(rel);
}

static bool close_hit(rb_debris *d, hit_memory *m) {
    m->open = false;
    if (m->joined) return true;
    rb_event e = m->event;
    e.impulse = len3(m->sum);
    return rb_debris_note(d, &e);
}

bool rb_debris_watch_hits(rb_debris *d, double t, const rb_body_state *states, uint32_t n) {
    rb_event_log *l = d->events;
    if (!l) return true;
    const rb_world_desc *wd = rb_world_get_desc(d->world);
    const double tick = (double)d->tick_steps * d->dt;
    const float g = len3(wd->gravity);
    uint32_t slots = l->memory_size;
    for (uint32_t b = 0; b < n; b++)
        if (states[b].id.slot >= slots) slots = states[b].id.slot + 1;
    if (slots > l->memory_size) {
        hit_memory *m = realloc(l->memory, sizeof *m * slots);
        if (!m) return false;
        memset(&m[l->memory_size], 0, sizeof *m * (slots - l->memory_size));
        l->memory = m, l->memory_size = slots;
    }
    for (uint32_t k = 0; k < l->open_count; k++) l->memory[l->open[k]].hit = false;
    bool ok = true;
    /* each body's contact impulse over the tick: its change of momentum less gravity's */
    float(*impulse)[3] = malloc(sizeof *impulse * (n ? n : 1));
    if (!impulse) return false;
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_state *s = &states[b];
        hit_memory *m = &l->memory[s->id.slot];
        if (m->generation != s->id.generation) { /* a new body in the slot: the old one's hit is over */
            if (m->open) ok = close_hit(d, m) && ok;
            *m = (hit_memory){.generation = s->id.generation};
        }
        m->hit = false;
        if (s->kind != RB_BODY_DYNAMIC || !isfinite(s->mass)) continue;
        if (m->seen) {
            for (int k = 0; k < 3; k++)
                impulse[b][k] = s->mass * (s->velocity[k] - m->velocity[k] - (float)(wd->gravity[k] * tick));
            const float j = len3(impulse[b]);
            m->hit = j > l->threshold && j > 3.0f * s->mass * g * (float)tick;
        }
    }
    /* hits that went on through this tick add to their sum; new ones find what they hit */
    for (uint32_t b = 0; b < n; b++) {
        hit_memory *m = &l->memory[states[b].id.slot];
        if (!m->hit) continue;
        if (m->open) {
            for (int k = 0; k < 3; k++) m->sum[k] += impulse[b][k];
            continue;
        }
        m->open = true, m->joined = false;
        memcpy(m->sum, impulse[b], sizeof m->sum);
        m->event = (rb_event){.kind = RB_EVENT_IMPACT, .time = t, .body = states[b].id, .plane = -1, .emitter = -1};
        find_partner(d, states, n, b, &m->event);
        /* a pair that hit each other is one event, the first's */
        const rb_body_id o = m->event.other;
        if (o.generation && o.slot < l->memory_size) {
            const hit_memory *om = &l->memory[o.slot];
            if (om->open && om->generation == o.generation && om->event.time == t &&
                rb_body_same(om->event.other, states[b].id))
                m->joined = true;
        }
        if (!grow((void **)&l->open, sizeof *l->open, &l->open_capacity, l->open_count + 1)) ok = false;
        if (ok) l->open[l->open_count++] = states[b].id.slot;
    }
    /* hits that did not go on (or whose body went) are over */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < l->open_count; k++) {
        hit_memory *m = &l->memory[l->open[k]];
        if (m->open && m->hit)
            l->open[kept++] = l->open[k];
        else if (m->open)
            ok = close_hit(d, m) && ok;
    }
    l->open_count = kept;
    for (uint32_t b = 0; b < n; b++) {
        hit_memory *m = &l->memory[states[b].id.slot];
        memcpy(m->velocity, states[b].velocity, sizeof m->velocity);
        m->seen = true;
    }
    free(impulse);
    update_ready(l);
    return ok;
}

const char *rb_event_kind_name(rb_event_kind kind) {
    static const char *names[] = {"impact", "break", "spawn", "remove"};
    return (unsigned)kind < 4u ? names[kind] : "?";
}

const char *rb_event_cause_name(rb_event_cause cause) {
    static const char *names[] = {"", "emitter", "break", "chip", "lifetime", "kill region", "asleep", "body cap"};
    return (unsigned)cause < 8u ? names[cause] : "?";
}

bool rb_debris_note_body(rb_debris *d, int kind, rb_body_id id, const float pos[3], int cause, int emitter,
                         rb_body_id parent) {
    if (!d->events) return true;
    rb_event e = {.kind = (rb_event_kind)kind,
                  .time = rb_debris_now(d),
                  .body = id,
                  .other = parent,
                  .plane = -1,
                  .cause = (rb_event_cause)cause,
                  .emitter = emitter};
    if (pos) memcpy(e.position, pos, sizeof e.position);
    return rb_debris_note(d, &e);
}

bool rb_debris_flush_events(rb_debris *d) {
    rb_event_log *l = d->events;
    if (!l) return true;
    bool ok = true;
    for (uint32_t k = 0; k < l->open_count; k++)
        if (l->memory[l->open[k]].open) ok = close_hit(d, &l->memory[l->open[k]]) && ok;
    l->open_count = 0;
    update_ready(l);
    return ok;
}
