/* temps.c - see temps.h. */
#include "temps.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define TEMP_PATH 4096

/* A slot is used while its flag is set; the handler reads only flagged
 * slots, and a slot's path is written before its flag is set. */
static char g_paths[RB_TEMPS_MAX][TEMP_PATH];
static volatile sig_atomic_t g_used[RB_TEMPS_MAX];
static bool g_installed;

/* Async-signal-safe: unlink, signal and raise only. */
static void on_signal(int sig) {
    for (int i = 0; i < RB_TEMPS_MAX; i++)
        if (g_used[i]) unlink(g_paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void) {
    if (g_installed) return;
    g_installed = true;
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue; /* someone else's */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (int k = 0; k < 3; k++) sigaddset(&sa.sa_mask, signals[k]); /* one cleanup at a time */
        sigaction(signals[i], &sa, NULL);
    }
}

int rb_temps_add(const char *path) {
    if (strlen(path) >= TEMP_PATH) return -1;
    install();
    for (int i = 0; i < RB_TEMPS_MAX; i++) {
        if (g_used[i]) continue;
        memcpy(g_paths[i], path, strlen(path) + 1);
        g_used[i] = 1;
        return i;
    }
    return -1;
}

void rb_temps_remove(int slot) {
    if (slot >= 0 && slot < RB_TEMPS_MAX) g_used[slot] = 0;
}
