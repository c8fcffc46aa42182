/* Input scripts read within bounds (src/sandbox/script.c, README "Input
 * scripts"): a FIFO and a device refused by type without blocking, a file
 * over the cap refused with the cap named; a script of a hundred thousand
 * lines in reverse time order read within a couple of seconds and fed to
 * SDL in time order, every event of it, though SDL's queue holds 65535. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <SDL.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/read_file.h"
#include "sandbox/script.h"

static char g_dir[512];

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "script-bounds-%ld", (long)getpid());
    mkdir(g_dir, 0700);
    alarm(120); /* an open that blocks ends the test, not the suite */
    return SDL_Init(SDL_INIT_EVENTS) == 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    SDL_Quit();
    rmdir(g_dir);
    return 0;
}

static void load_refused(const char *path, const char *says) {
    char err[1024] = "";
    const double start = rb_seconds();
    rb_script *s = rb_script_load(path, err, sizeof err);
    if (s) {
        rb_script_destroy(s);
        fail_msg("%s was accepted", path);
    }
    if (!strstr(err, path) || !strstr(err, says)) fail_msg("says '%s', should name %s and say '%s'", err, path, says);
    assert_true(rb_seconds() - start < 1.0);
}

static void test_fifo_and_devices_refused(void **state) {
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/script.fifo", g_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    load_refused(path, "FIFO");
    unlink(path);
    load_refused("/dev/zero", "character device");
    load_refused(".", "folder");
}

static void test_oversized_refused_with_cap(void **state) {
    (void)state;
    char path[600], cap[64];
    snprintf(path, sizeof path, "%s/big.script", g_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)RB_SCRIPT_FILE_MAX_BYTES + 1), 0);
    close(fd);
    snprintf(cap, sizeof cap, "at most %zu MiB", RB_SCRIPT_FILE_MAX_BYTES >> 20);
    load_refused(path, cap);
    unlink(path);
}

/* Pumps s at time t until it is done, draining SDL's queue between calls
 * as a frame does; the x of each motion event in queue order into xs (at
 * most n). The number of motion events seen. */
static size_t pump_all(rb_script *s, double t, int *xs, size_t n) {
    size_t seen = 0;
    for (int calls = 0; !rb_script_done(s) && calls < 100000; calls++) {
        if (rb_script_pump(s, t, 1) < 0) fail_msg("SDL refused an event");
        SDL_Event e;
        while (SDL_PollEvent(&e))
            if (e.type == SDL_MOUSEMOTION && seen < n) xs[seen++] = e.motion.x;
    }
    return seen;
}

/* A hundred thousand move lines in reverse time order: read within a couple
 * of seconds, every one fed to SDL, in time order. */
static void test_reversed_script_in_order(void **state) {
    (void)state;
    const int n = 100000;
    char path[600];
    snprintf(path, sizeof path, "%s/reversed.script", g_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = n; i >= 1; i--) fprintf(f, "%.3f move %d 0\n", 0.001 * i, i);
    fclose(f);
    char err[1024];
    const double start = rb_seconds();
    rb_script *s = rb_script_load(path, err, sizeof err);
    const double took = rb_seconds() - start;
    if (!s) fail_msg("%s", err);
    if (took > 2.0) fail_msg("%.1f s to read %d lines", took, n);
    assert_float_equal(rb_script_length(s), 0.001 * n, 1e-9);
    int *xs = calloc((size_t)n, sizeof *xs);
    const size_t seen = pump_all(s, 1e9, xs, (size_t)n);
    if (seen != (size_t)n) fail_msg("%zu of %d events reached SDL", seen, n);
    for (int i = 0; i < n; i++)
        if (xs[i] != i + 1) fail_msg("event %d is at x %d, expected %d (time order)", i, xs[i], i + 1);
    free(xs);
    rb_script_destroy(s);
    unlink(path);
}

/* A screenshot is the last event of its frame: lines of the same time
 * after it (a key that changes the view) wait for the next frame, so the
 * shot shows the file's order (it is taken after the frame's events). */
static void test_screenshot_ends_its_frame(void **state) {
    (void)state;
    char err[1024];
    rb_script *s = rb_script_parse("0 move 1 0\n0.5 screenshot a.png\n0.5 key P\n0.5 move 2 0\n", "shot.script", err,
                                   sizeof err);
    if (!s) fail_msg("%s", err);
    const uint32_t shot = rb_script_screenshot_event();
    assert_true(shot != 0);
    int frames[2][3] = {{0}}; /* a frame's motion, screenshot and key events */
    for (int f = 0; f < 2; f++) {
        assert_true(rb_script_pump(s, 1.0, 1) >= 0);
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            if (e.type == SDL_MOUSEMOTION)
                frames[f][0]++;
            else if (e.type == shot)
                frames[f][1]++;
            else if (e.type == SDL_KEYDOWN)
                frames[f][2]++;
        }
    }
    fprintf(stderr, "frame 1: %d moves, %d shots, %d keys; frame 2: %d, %d, %d\n", frames[0][0], frames[0][1],
            frames[0][2], frames[1][0], frames[1][1], frames[1][2]);
    assert_true(frames[0][0] == 1 && frames[0][1] == 1 && frames[0][2] == 0);
    assert_true(frames[1][0] == 1 && frames[1][1] == 0 && frames[1][2] == 1);
    assert_true(rb_script_done(s));
    rb_script_destroy(s);
}

/* Lines of one time keep the file's order, however many fall due at once. */
static void test_ties_keep_file_order(void **state) {
    (void)state;
    const int n = 70000; /* more than SDL's queue holds */
    char *text = malloc((size_t)n * 24 + 1), *at = text;
    for (int i = 1; i <= n; i++) at += sprintf(at, "%s move %d 0\n", i % 2 ? "0.5" : "+0", i);
    char err[1024];
    rb_script *s = rb_script_parse(text, "ties", err, sizeof err);
    free(text);
    if (!s) fail_msg("%s", err);
    int *xs = calloc((size_t)n, sizeof *xs);
    const size_t seen = pump_all(s, 0.5, xs, (size_t)n);
    if (seen != (size_t)n) fail_msg("%zu of %d events reached SDL", seen, n);
    for (int i = 0; i < n; i++)
        if (xs[i] != i + 1) fail_msg("event %d is at x %d, expected %d (file order)", i, xs[i], i + 1);
    free(xs);
    rb_script_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_and_devices_refused),
        cmocka_unit_test(test_oversized_refused_with_cap),
        cmocka_unit_test(test_reversed_script_in_order),
        cmocka_unit_test(test_ties_keep_file_order),
        cmocka_unit_test(test_screenshot_ends_its_frame),
    };
    const char *only = getenv("RUBBLE_TEST_ONLY"); /* one test by name (a glob) */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, setup, teardown);
}
