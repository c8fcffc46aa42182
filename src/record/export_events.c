/* export_events.c - a cache's events as an events file (cache.h,
 * rb_cache_write_events; docs/events.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/replace.h"
#include "cache.h"
#include "events_file.h"

bool rb_cache_write_events(const rb_cache *c, const char *path, char *err, size_t err_size) {
    /* written beside the name and renamed when whole (base/replace.h) */
    rb_replace out;
    char why[256] = "";
    FILE *f = rb_replace_open(&out, path, "w", why, sizeof why);
    if (!f) {
        snprintf(err, err_size, "%.300s: %s", path, why);
        return false;
    }
    const bool ok = rb_events_write_all(f, c->events, c->event_count, c->event_pieces);
    if (!ok) snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
    if (!rb_replace_close(&out, ok, why, sizeof why)) {
        snprintf(err, err_size, "%.300s: %s", path, why);
        return false;
    }
    return true;
}
