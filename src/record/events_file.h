/* events_file.h - the events file (docs/events.md): one JSON object a
 * line, an event a line (scenes/debris_events.h), in time order. */
#ifndef RB_EVENTS_FILE_H
#define RB_EVENTS_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "scenes/debris_events.h"

/* A body id as the events file and the CSV export write it: generation << 32 | slot. */
unsigned long long rb_events_body_number(rb_body_id id);

/* Writes event e (a break's pieces from pieces) as one line, in one write,
 * flushed. False if the write failed (errno says why). */
bool rb_events_write(FILE *out, const rb_event *e, const rb_body_id *pieces);

/* Writes count events, a line each; false if a write failed. */
bool rb_events_write_all(FILE *out, const rb_event *events, uint32_t count, const rb_body_id *pieces);

#endif
