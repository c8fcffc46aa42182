/* log.h - one logger for the whole program (Box2D's b2SetLogFcn, sokol's slog).
 *
 * Everything that goes wrong at run time is said through rb_log(); tests
 * install their own sink to see the messages. */
#ifndef RB_LOG_H
#define RB_LOG_H

#include <stdbool.h>
#include <stddef.h>

/* How bad a message is. Plugins have levels of their own with the same
 * values (rb_plugin_log_level, plugins/rubble_plugin.h); the shape registry,
 * which passes a plugin's lines on to rb_log, checks that they agree. */
typedef enum rb_log_level {
    RB_LOG_INFO = 0,
    RB_LOG_WARN = 1,
    RB_LOG_ERROR = 2,
} rb_log_level;

typedef void (*rb_log_fn)(rb_log_level level, const char *message, void *user);

/* A message repeated in a row is passed on this many times; after that
 * the repeats are only counted, and one line says how many came. */
#define RB_LOG_REPEATS 3

/* Replaces the sink (NULL restores the default: stderr), after saying any
 * count of repeats still owed to the old one. */
void rb_set_log_fn(rb_log_fn fn, void *user);
/* The name the default sink puts before each line ("rubble" unless set; a
 * string that outlives the logging, such as a literal). */
void rb_log_set_program(const char *name);
void rb_log(rb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Says the count of repeats not yet said ("(the message above came N more
 * times)"); also done at exit. */
void rb_log_flush(void);
/* The last warning or error said, "" if none. For the HUD. */
const char *rb_log_last_error(void);
/* Whether that message was a warning (else an error). */
bool rb_log_last_was_warning(void);
void rb_log_clear_last_error(void);
/* Until called again with needle NULL: the first error said whose text
 * holds needle is copied into out (emptied now), whatever comes after it.
 * For a caller that must know what one call of many said about one thing
 * (the mesh plugin on one file of a folder it reads whole). */
void rb_log_capture(const char *needle, char *out, size_t out_size);

#endif
