/* export_events.c - a cache's events as an events file (cache.h,
 * rb_cache_write_events; docs/events.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/replace.h"
#include "cache.h"
#include "events_file.h"

static bool write_events(FILE *f, void *cache, char *why, size_t why_size) {
    const rb_cache *c = cache;
    if (rb_events_write_all(f, c->events, c->event_count, c->event_pieces)) return true;
    snprintf(why, why_size, "cannot write: %s", strerror(errno));
    return false;
}

bool rb_cache_write_events(const rb_cache *c, const char *path, char *err, size_t err_size) {
    /* written beside the name and renamed when whole (base/replace.h) */
    return rb_replace_write(path, "w", write_events, (void *)c, err, err_size);
}
