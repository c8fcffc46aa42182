/* log.c - the one logger: a replaceable sink, stderr by default, and the last error for the HUD.
 *
 * A message said again and again (a loop that fails the same way each time)
 * is passed on RB_LOG_REPEATS times; the rest are counted, and the count is
 * said once another message comes, the sink is replaced, or the program
 * ends (rb_log_flush). */
#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rb_log_fn g_fn;
static void *g_user;
static const char *g_program = "rubble"; /* the default sink's prefix */
static char g_last_error[1024];
static bool g_last_warning;          /* g_last_error was a warning */
static const char *g_capture_needle; /* rb_log_capture's */
static char *g_capture_out;
static size_t g_capture_size;

static char g_repeat_text[1024]; /* the last message passed on */
static rb_log_level g_repeat_level;
static unsigned long g_seen; /* times it came in a row */
static bool g_flush_at_exit;

static void emit(rb_log_level level, const char *message) {
    if (g_fn) {
        g_fn(level, message, g_user);
        return;
    }
    static const char *const prefix[] = {"", "warning: ", "error: "};
    fprintf(stderr, "%s: %s%s\n", g_program, prefix[level], message);
}

void rb_log_set_program(const char *name) { g_program = name ? name : "rubble"; }

void rb_log_flush(void) {
    if (g_seen > RB_LOG_REPEATS) {
        char note[160];
        snprintf(note, sizeof note, "(the message above came %lu more times)", g_seen - RB_LOG_REPEATS);
        emit(g_repeat_level, note);
    }
    g_seen = 0;
    g_repeat_text[0] = '\0';
}

static void flush_at_exit(void) { rb_log_flush(); }

void rb_set_log_fn(rb_log_fn fn, void *user) {
    rb_log_flush(); /* a count belongs to the sink that saw the message */
    g_fn = fn;
    g_user = user;
}

void rb_log(rb_log_level level, const char *fmt, ...) {
    char message[1024];
    if (level > RB_LOG_ERROR) level = RB_LOG_ERROR; /* plugins pass any number */
    if (level < RB_LOG_INFO) level = RB_LOG_INFO;
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (level >= RB_LOG_WARN) memcpy(g_last_error, message, sizeof message), g_last_warning = level == RB_LOG_WARN;
    if (level == RB_LOG_ERROR && g_capture_needle && !g_capture_out[0] && strstr(message, g_capture_needle))
        snprintf(g_capture_out, g_capture_size, "%s", message);
    if (g_repeat_text[0] && level == g_repeat_level && strcmp(message, g_repeat_text) == 0) {
        if (++g_seen > RB_LOG_REPEATS) {
            if (!g_flush_at_exit) g_flush_at_exit = atexit(flush_at_exit) == 0;
            return;
        }
    } else {
        rb_log_flush();
        memcpy(g_repeat_text, message, sizeof message);
        g_repeat_level = level;
        g_seen = 1;
    }
    emit(level, message);
}

const char *rb_log_last_error(void) { return g_last_error; }
bool rb_log_last_was_warning(void) { return g_last_warning; }
void rb_log_clear_last_error(void) { g_last_error[0] = '\0'; }

void rb_log_capture(const char *needle, char *out, size_t out_size) {
    g_capture_needle = needle && out && out_size ? needle : NULL;
    g_capture_out = out, g_capture_size = out_size;
    if (g_capture_needle) out[0] = '\0';
}
