/* events_file.c - the events file's lines (events_file.h, docs/events.md). */
#include "events_file.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

unsigned long long rb_events_body_number(rb_body_id id) { return (unsigned long long)id.generation << 32 | id.slot; }

/* A line being built: appended to, grown as it goes. */
typedef struct line {
    char *text;
    uint32_t length, capacity;
    bool ok;
} line;

static void add(line *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[160];
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof small ||
        !rb_grow((void **)&l->text, &l->capacity, l->length + (uint32_t)n + 1, 1)) {
        l->ok = false;
        return;
    }
    memcpy(l->text + l->length, small, (size_t)n + 1);
    l->length += (uint32_t)n;
}

static void add_point(line *l, const char *key, const float p[3]) {
    add(l, ",\"%s\":[%.9g,%.9g,%.9g]", key, (double)p[0], (double)p[1], (double)p[2]);
}

bool rb_events_write(FILE *out, const rb_event *e, const rb_body_id *pieces) {
    line l = {.ok = true};
    add(&l, "{\"t\":%.9g,\"event\":\"%s\",\"body\":%llu", e->time, rb_event_kind_name(e->kind),
        rb_events_body_number(e->body));
    switch (e->kind) {
    case RB_EVENT_IMPACT:
        if (e->other.generation)
            add(&l, ",\"other\":%llu", rb_events_body_number(e->other));
        else if (e->plane >= 0)
            add(&l, ",\"plane\":%d", e->plane);
        else
            add(&l, ",\"other\":null");
        add_point(&l, "position", e->position);
        add(&l, ",\"impulse\":%.9g,\"speed\":%.9g", (double)e->impulse, (double)e->speed);
        break;
    case RB_EVENT_BREAK:
        add_point(&l, "position", e->position);
        add(&l, ",\"pieces\":[");
        for (uint32_t k = 0; k < e->piece_count; k++)
            add(&l, "%s%llu", k ? "," : "", rb_events_body_number(pieces[e->piece_first + k]));
        add(&l, "]");
        break;
    case RB_EVENT_SPAWN:
    case RB_EVENT_REMOVE:
        add(&l, ",\"cause\":\"%s\"", rb_event_cause_name(e->cause));
        if (e->kind == RB_EVENT_SPAWN && e->cause == RB_CAUSE_EMITTER) add(&l, ",\"emitter\":%d", e->emitter);
        if (e->other.generation) add(&l, ",\"parent\":%llu", rb_events_body_number(e->other));
        add_point(&l, "position", e->position);
        break;
    }
    add(&l, "}\n");
    const bool ok = l.ok && fwrite(l.text, 1, l.length, out) == l.length && fflush(out) == 0;
    free(l.text);
    return ok;
}

bool rb_events_write_all(FILE *out, const rb_event *events, uint32_t count, const rb_body_id *pieces) {
    for (uint32_t k = 0; k < count; k++)
        if (!rb_events_write(out, &events[k], pieces)) return false;
    return true;
}
