/* rb_sandbox_test.h - what the tests that drive a sandbox window share
 * (test_sandbox.c, test_replay.c, test_panels.c): a script fed in, frames
 * run, the figures read. Include after cmocka.h. */
#ifndef RB_SANDBOX_TEST_H
#define RB_SANDBOX_TEST_H

#include "sandbox/sandbox.h"

/* Feeds a script (src/app/script.c's format); a bad one fails the test. */
static inline void script(rb_sandbox *sb, const char *text) {
    char err[512];
    if (!rb_sandbox_set_script(sb, text, err, sizeof err)) fail_msg("script: %s", err);
}

/* Runs n frames, each of which must go on. */
static inline void run_frames(rb_sandbox *sb, int n) {
    for (int i = 0; i < n; i++) assert_true(rb_sandbox_frame(sb));
}

static inline rb_sandbox_stats stats(rb_sandbox *sb) {
    rb_sandbox_stats s;
    rb_sandbox_get_stats(sb, &s);
    return s;
}

#endif
