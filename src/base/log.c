/* log.c - the one logger: a replaceable sink, stderr by default, and the last error for the HUD. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static rb_log_fn g_fn;
static void *g_user;
static char g_last_error[1024];

void rb_set_log_fn(rb_log_fn fn, void *user) {
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
    if (level >= RB_LOG_WARN) memcpy(g_last_error, message, sizeof message);
    if (g_fn) {
        g_fn(level, message, g_user);
        return;
    }
    static const char *const prefix[] = {"", "warning: ", "error: "};
    fprintf(stderr, "rubble: %s%s\n", prefix[level], message);
}

const char *rb_log_last_error(void) { return g_last_error; }
void rb_log_clear_last_error(void) { g_last_error[0] = '\0'; }
