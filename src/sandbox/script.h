/* script.h - timed input events read from a text file and fed through SDL's
 * event queue, so every control can be driven without a person (see
 * README.md, "Input scripts", for the format). */
#ifndef RB_SCRIPT_H
#define RB_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rb_script rb_script;

/* Parses a script; NULL with "file:line: what is wrong" in err. */
rb_script *rb_script_load(const char *path, char *err, size_t err_size);
rb_script *rb_script_parse(const char *text, const char *name, char *err, size_t err_size);
void rb_script_destroy(rb_script *s);

/* Pushes the events due at or before t (seconds since the script started)
 * onto SDL's queue, addressed to window_id, in time order: at most
 * RB_SCRIPT_PUMP_BATCH a call, the rest due left for the next call (the
 * next frame), so that SDL's queue of 65535 events never fills and drops
 * one. A screenshot ends a call too: the lines after it wait for the next
 * frame, so the shot shows only what came before it. Returns how many were
 * pushed, -1 if SDL refused one (logged; that event is kept and pushed
 * again at the next call). */
#define RB_SCRIPT_PUMP_BATCH 4096
int rb_script_pump(rb_script *s, double t, uint32_t window_id);
bool rb_script_done(const rb_script *s);
/* Seconds at which the last event falls due. */
double rb_script_length(const rb_script *s);

/* The SDL user event type of "screenshot FILE" lines; data1 points at the
 * file name, owned by the script. 0 until a script is loaded. */
uint32_t rb_script_screenshot_event(void);

#endif
