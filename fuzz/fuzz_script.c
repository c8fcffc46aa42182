/* fuzz_script.c - input scripts (src/app/script.c) read from a file as
 * --script reads them, NUL bytes and all, and every event of a script that
 * was taken pushed through SDL's event queue and taken off it again. A
 * refused script must say where (the file name first); a taken one must have
 * a finite, non-negative length. */
#include <SDL.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "sandbox/script.h"

static char g_path[64];

/* script.c asks src/app/paths.c whether a screenshot's folder can be written,
 * by making a file there; here nothing is made: a name under /proc is
 * refused, any other taken. */
bool rb_path_writable(const char *path, char *err, size_t err_size);
bool rb_path_writable(const char *path, char *err, size_t err_size) {
    if (strncmp(path, "/proc/", 6) != 0) return true;
    snprintf(err, err_size, "cannot write in /proc");
    return false;
}

static void silent(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }
static void remove_file(void) { unlink(g_path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_EVENTS) != 0) abort();
    SDL_EventState(SDL_DROPFILE, SDL_ENABLE); /* as in a window that takes dropped files */
    snprintf(g_path, sizeof g_path, "/tmp/rubble-fuzz-script-XXXXXX");
    int fd = mkstemp(g_path);
    if (fd < 0) abort();
    close(fd);
    atexit(remove_file);
    rb_set_log_fn(silent, NULL);
    return 0;
}

static void drain(void) {
    SDL_Event e;
    while (SDL_PollEvent(&e))
        if (e.type == SDL_DROPFILE) SDL_free(e.drop.file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fopen(g_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    char err[512] = "";
    rb_script *s = rb_script_load(g_path, err, sizeof err);
    if (!s) {
        if (strncmp(err, g_path, strlen(g_path)) != 0) {
            fprintf(stderr, "fuzz_script: a refusal that does not name the file: '%s'\n", err);
            abort();
        }
        return 0;
    }
    double length = rb_script_length(s);
    if (!isfinite(length) || length < 0.0) {
        fprintf(stderr, "fuzz_script: a script %g s long\n", length);
        abort();
    }
    /* SDL's queue holds 65535 events: push what it takes, drain, go on */
    for (int rounds = 0; !rb_script_done(s) && rounds < 1000; rounds++) {
        rb_script_pump(s, length, 1);
        drain();
    }
    drain();
    rb_script_destroy(s);
    return 0;
}
