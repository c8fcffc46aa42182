/* cache_events.h - a cache's events record `N` (docs/cache-format.md,
 * docs/events.md): what rb_cache_events writes and the reader takes back
 * into rb_cache.events. Used by cache.c only. */
#ifndef RB_CACHE_EVENTS_H
#define RB_CACHE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"

/* The smallest bytes an event takes in the record (a break with no pieces). */
#define RB_CACHE_EVENT_BYTES 58u

/* The record's fields after its type byte, for count events: a new buffer
 * of *size bytes (free it), or NULL when out of memory. */
uint8_t *rb_cache_events_pack(const rb_event *events, uint32_t count, const rb_body_id *pieces, size_t *size);
/* Reads a record's fields from p (n bytes left in its chunk), adding its
 * events to c->events: NULL, with *used its bytes, or what is wrong. Memory
 * is bounded by n (a count is checked against it before anything is
 * allocated). */
const char *rb_cache_events_read(rb_cache *c, const uint8_t *p, size_t n, size_t *used);
void rb_cache_events_free(rb_cache *c);

#endif
