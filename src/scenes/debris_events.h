/* debris_events.h - what happened in a run, as events (docs/events.md):
 * impacts, breaks, spawns and removals, kept by the debris layer
 * (debris.h) at its ticks once asked to, in time order, for whoever
 * drains them (the headless runner's --events file). The layer calls
 * nothing above it: the caller takes the events after each step. */
#ifndef RB_DEBRIS_EVENTS_H
#define RB_DEBRIS_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "debris.h"

typedef enum rb_event_kind { RB_EVENT_IMPACT = 0, RB_EVENT_BREAK, RB_EVENT_SPAWN, RB_EVENT_REMOVE } rb_event_kind;

/* Why a body came or went. */
typedef enum rb_event_cause {
    RB_CAUSE_NONE = 0,
    RB_CAUSE_EMITTER,  /* spawn: emitter `emitter` made it */
    RB_CAUSE_BREAK,    /* spawn: a piece of a broken body (`other`) */
    RB_CAUSE_CHIP,     /* spawn: impact debris thrown by `other` */
    RB_CAUSE_LIFETIME, /* remove: its lifetime was over */
    RB_CAUSE_KILL,     /* remove: its centre entered a kill region */
    RB_CAUSE_ASLEEP,   /* remove: debris asleep for debris.remove_asleep */
    RB_CAUSE_CAP,      /* remove: the oldest debris over debris.max_bodies */
} rb_event_cause;

/* One event. Bodies are named by their ids (world.h). */
typedef struct rb_event {
    rb_event_kind kind;
    double time;       /* s of simulated time since the run began */
    rb_body_id body;   /* impact: the body hit; break: the body that broke; spawn, remove: the body */
    rb_body_id other;  /* impact: the other body (null: a plane, or none found); spawn: the parent (break, chip) */
    int plane;         /* impact: the plane hit (world desc's index), -1 if none */
    float position[3]; /* m: impact, where (between the two); break, the body's centre; spawn, remove: its centre */
    float impulse;     /* impact: N s, the contact impulse over the hit */
    float speed;       /* impact: m/s, the speed between the two before the hit */
    rb_event_cause cause;
    int emitter;          /* spawn by an emitter: its index; -1 otherwise */
    uint32_t piece_first; /* break: its pieces' ids at [piece_first, piece_first + piece_count) of the pieces */
    uint32_t piece_count;
} rb_event;

/* Starts keeping events (each tick then reads the bodies once), impacts
 * above impulse N s (>= 0) and above three times the weight's impulse over
 * a tick (docs/events.md, "Impacts"). False if out of memory. */
bool rb_debris_keep_events(rb_debris *d, float impulse);
/* The events ready since the last rb_debris_clear_events, in time order,
 * and the break events' pieces' ids. An impact is ready once it is over
 * (a tick after its last), and what came after it waits for it. */
uint32_t rb_debris_events(const rb_debris *d, const rb_event **events, const rb_body_id **pieces);
/* Drops the events rb_debris_events gave; the rest wait for the next. */
void rb_debris_clear_events(rb_debris *d);
/* Ends the impacts still going on (the run is over): every event is ready. */
bool rb_debris_flush_events(rb_debris *d);

/* The word a kind or a cause is written as ("impact", "emitter", ...). */
const char *rb_event_kind_name(rb_event_kind kind);
const char *rb_event_cause_name(rb_event_cause cause);

#endif
