/* replace.c - see replace.h. */
#include "replace.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

FILE *rb_replace_open(rb_replace *r, const char *path, const char *mode, char *why, size_t why_size) {
    r->path = path;
    r->f = NULL;
    if (snprintf(r->tmp, sizeof r->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof r->tmp) {
        snprintf(why, why_size, "the path is too long");
        return NULL;
    }
    r->f = fopen(r->tmp, mode);
    if (!r->f) snprintf(why, why_size, "cannot write: %s", strerror(errno));
    return r->f;
}

bool rb_replace_close(rb_replace *r, bool ok, char *why, size_t why_size) {
    if (!r->f) return false;
    const bool wrote = fflush(r->f) == 0 && !ferror(r->f);
    const int after_write = errno;
    const bool closed = fclose(r->f) == 0;
    r->f = NULL;
    if (ok && !(wrote && closed)) {
        snprintf(why, why_size, "cannot write: %s", strerror(wrote ? errno : after_write));
        ok = false;
    }
    if (ok && rename(r->tmp, r->path) != 0) {
        snprintf(why, why_size, "cannot replace it: %s", strerror(errno));
        ok = false;
    }
    if (!ok) remove(r->tmp);
    return ok;
}
