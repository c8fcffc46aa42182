/* cache_events.c - the events record `N` of a cache (cache_events.h). */
#include "cache_events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- out ---- */

static uint8_t *put32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
    return p + 4;
}

static uint8_t *put_float(uint8_t *p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    return put32(p, v);
}

static uint8_t *put_id(uint8_t *p, rb_body_id id) { return put32(put32(p, id.slot), id.generation); }

uint8_t *rb_cache_events_pack(const rb_event *events, uint32_t count, const rb_body_id *pieces, size_t *size) {
    size_t n = 4;
    for (uint32_t k = 0; k < count; k++) n += RB_CACHE_EVENT_BYTES + 8u * events[k].piece_count;
    uint8_t *out = malloc(n), *p = out;
    if (!out) return NULL;
    p = put32(p, count);
    for (uint32_t k = 0; k < count; k++) {
        const rb_event *e = &events[k];
        uint64_t t;
        memcpy(&t, &e->time, 8);
        *p++ = (uint8_t)e->kind;
        p = put32(put32(p, (uint32_t)t), (uint32_t)(t >> 32));
        p = put_id(put_id(p, e->body), e->other);
        p = put32(p, (uint32_t)e->plane);
        for (int i = 0; i < 3; i++) p = put_float(p, e->position[i]);
        p = put_float(put_float(p, e->impulse), e->speed);
        *p++ = (uint8_t)e->cause;
        p = put32(p, (uint32_t)e->emitter);
        p = put32(p, e->piece_count);
        for (uint32_t i = 0; i < e->piece_count; i++) p = put_id(p, pieces[e->piece_first + i]);
    }
    *size = n;
    return out;
}

/* ---- in ---- */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static uint32_t get32(reader *r) {
    const uint8_t *p = r->p + r->at;
    r->at += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float get_float(reader *r) {
    const uint32_t v = get32(r);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static rb_body_id get_id(reader *r) {
    const uint32_t slot = get32(r);
    return (rb_body_id){slot, get32(r)};
}

static bool left(const reader *r, uint64_t bytes) { return bytes <= (uint64_t)(r->n - r->at); }

const char *rb_cache_events_read(rb_cache *c, const uint8_t *p, size_t n, size_t *used) {
    reader r = {.p = p, .n = n};
    if (!left(&r, 4)) return "an events record cut short";
    const uint32_t count = get32(&r);
    if (count == 0 || !left(&r, (uint64_t)count * RB_CACHE_EVENT_BYTES)) return "an events record of a bad count";
    rb_event *grown = realloc(c->events, sizeof *grown * ((size_t)c->event_count + count));
    if (!grown) return "out of memory";
    c->events = grown;
    for (uint32_t k = 0; k < count; k++) {
        if (!left(&r, RB_CACHE_EVENT_BYTES)) return "an events record cut short";
        rb_event e = {.kind = (rb_event_kind)r.p[r.at++]};
        const uint32_t lo = get32(&r), hi = get32(&r);
        const uint64_t t = (uint64_t)hi << 32 | lo;
        memcpy(&e.time, &t, 8);
        e.body = get_id(&r), e.other = get_id(&r);
        e.plane = (int)(int32_t)get32(&r);
        for (int i = 0; i < 3; i++) e.position[i] = get_float(&r);
        e.impulse = get_float(&r), e.speed = get_float(&r);
        e.cause = (rb_event_cause)r.p[r.at++];
        e.emitter = (int)(int32_t)get32(&r);
        e.piece_count = get32(&r);
        if ((unsigned)e.kind > RB_EVENT_REMOVE || (unsigned)e.cause > RB_CAUSE_CAP || !isfinite(e.time) ||
            e.body.generation == 0 || !isfinite(e.position[0]) || !isfinite(e.position[1]) ||
            !isfinite(e.position[2]) || !isfinite(e.impulse) || !isfinite(e.speed) ||
            (e.kind != RB_EVENT_BREAK && e.piece_count))
            return "an event with a bad kind, cause, time, body or value";
        if (c->event_count && e.time < c->events[c->event_count - 1].time) return "events out of time order";
        if (!left(&r, (uint64_t)e.piece_count * 8u)) return "an event with a bad piece count";
        rb_body_id *more = realloc(c->event_pieces, sizeof *more * ((size_t)c->event_piece_count + e.piece_count + 1));
        if (!more) return "out of memory";
        c->event_pieces = more;
        e.piece_first = c->event_piece_count;
        for (uint32_t i = 0; i < e.piece_count; i++) c->event_pieces[c->event_piece_count++] = get_id(&r);
        c->events[c->event_count++] = e;
    }
    *used = r.at;
    return NULL;
}

void rb_cache_events_free(rb_cache *c) {
    free(c->events), free(c->event_pieces);
    c->events = NULL, c->event_pieces = NULL;
    c->event_count = c->event_piece_count = 0;
}

uint32_t rb_cache_event_marks(const rb_cache *c, double time, float *points, uint32_t max_segments) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->event_count; k++) {
        const rb_event *e = &c->events[k];
        const double off = fabs(e->time - time);
        if ((e->kind != RB_EVENT_IMPACT && e->kind != RB_EVENT_BREAK) || off >= RB_CACHE_MARK_SECONDS) continue;
        const float half = 0.2f * (float)(1.0 - off / RB_CACHE_MARK_SECONDS);
        for (int axis = 0; axis < 3; axis++, n++) {
            if (n >= max_segments) continue;
            float *p = &points[6 * n];
            for (int i = 0; i < 3; i++) p[i] = p[3 + i] = e->position[i];
            p[axis] -= half, p[3 + axis] += half;
        }
    }
    return n;
}
