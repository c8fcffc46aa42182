/* replace.c - see replace.h. */
#include "replace.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temps.h"

bool rb_replace_allowed(const char *path, char *why, size_t why_size) {
    struct stat st;
    if (stat(path, &st) != 0) return true; /* nothing there (or a dangling link: the rename replaces the link) */
    if (S_ISREG(st.st_mode)) return true;
    snprintf(why, why_size, "is not a regular file (%s): only a file is written over",
             S_ISDIR(st.st_mode)    ? "a folder"
             : S_ISCHR(st.st_mode)  ? "a character device"
             : S_ISBLK(st.st_mode)  ? "a block device"
             : S_ISFIFO(st.st_mode) ? "a pipe"
                                    : "a socket or other special file");
    return false;
}

FILE *rb_replace_open(rb_replace *r, const char *path, const char *mode, char *why, size_t why_size) {
    r->path = path;
    r->f = NULL;
    r->slot = -1;
    r->keep_existing = false;
    r->error = 0;
    if (!rb_replace_allowed(path, why, why_size)) return NULL;
    if (snprintf(r->tmp, sizeof r->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof r->tmp) {
        snprintf(why, why_size, "the path is too long");
        return NULL;
    }
    char excl[8]; /* "x": never through a file or link already at the temporary name */
    snprintf(excl, sizeof excl, "%sx", mode);
    r->slot = rb_temps_add(r->tmp); /* before the file is made: a signal in between still removes it */
    r->f = fopen(r->tmp, excl);
    if (!r->f) {
        snprintf(why, why_size, "cannot write: %s", strerror(errno));
        rb_temps_remove(r->slot);
        return NULL;
    }
    return r->f;
}

void rb_replace_put(void *r, void *data, int size) {
    rb_replace *out = r;
    errno = 0;
    if (size > 0 && fwrite(data, 1, (size_t)size, out->f) != (size_t)size && !out->error)
        out->error = errno ? errno : EIO;
}

/* Puts the file that has been written in place of path; errno on failure. */
static bool put_in_place(const rb_replace *r) {
    if (!r->keep_existing) return rename(r->tmp, r->path) == 0;
    /* link fails on a name already there, where rename would replace it */
    if (link(r->tmp, r->path) == 0) return unlink(r->tmp), true;
    if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS) return false;
    /* a file system without links: the name checked, then renamed */
    struct stat st;
    if (lstat(r->path, &st) == 0) return errno = EEXIST, false;
    return rename(r->tmp, r->path) == 0;
}

bool rb_replace_close(rb_replace *r, bool ok, char *why, size_t why_size) {
    if (!r->f) return false;
    errno = 0;
    /* flushed, then on the disk: a full disk fails here, not after the rename */
    bool wrote = fflush(r->f) == 0 && !ferror(r->f) && fsync(fileno(r->f)) == 0;
    const int after_write = errno;
    const bool closed = fclose(r->f) == 0;
    r->f = NULL;
    if (ok && !(wrote && closed)) {
        const int e = !wrote ? (after_write ? after_write : r->error) : errno;
        snprintf(why, why_size, "cannot write: %s", e ? strerror(e) : "an error writing");
        ok = false;
    }
    if (ok && !put_in_place(r)) {
        snprintf(why, why_size, errno == EEXIST ? "already exists (not written over)" : "cannot replace it: %s",
                 strerror(errno));
        ok = false;
    }
    if (!ok) remove(r->tmp);
    rb_temps_remove(r->slot);
    r->slot = -1;
    return ok;
}

static bool write_whole(const char *path, const char *mode, bool keep_existing, rb_replace_fn write, void *user,
                        char *err, size_t err_size) {
    rb_replace out;
    char why[512] = "";
    bool ok = rb_replace_open(&out, path, mode, why, sizeof why) != NULL;
    if (ok) {
        out.keep_existing = keep_existing;
        errno = 0;
        ok = write(out.f, user, why, sizeof why);
        if (!ok && !why[0]) snprintf(why, sizeof why, "cannot write: %s", errno ? strerror(errno) : "out of memory");
        ok = rb_replace_close(&out, ok, why, sizeof why);
    }
    if (!ok) snprintf(err, err_size, "%.3000s: %s", path, why);
    return ok;
}

bool rb_replace_write(const char *path, const char *mode, rb_replace_fn write, void *user, char *err, size_t err_size) {
    return write_whole(path, mode, false, write, user, err, err_size);
}

bool rb_replace_write_new(const char *path, const char *mode, rb_replace_fn write, void *user, char *err,
                          size_t err_size) {
    return write_whole(path, mode, true, write, user, err, err_size);
}

bool rb_replace_unused_name(const char *stem, const char *ext, char *out, size_t size) {
    for (int k = 1; k < 1000; k++) {
        const int n = k == 1 ? snprintf(out, size, "%s%s", stem, ext) : snprintf(out, size, "%s-%d%s", stem, k, ext);
        if (n < 0 || (size_t)n >= size) return false;
        struct stat st;
        if (lstat(out, &st) != 0 && errno == ENOENT) return true;
    }
    return false;
}

void rb_replace_group_init(rb_replace_group *g) { memset(g, 0, sizeof *g); }

const char *rb_replace_group_add(rb_replace_group *g, const char *path, char *err, size_t err_size) {
    char why[256];
    if (g->count == RB_REPLACE_GROUP_MAX) {
        snprintf(err, err_size, "%.3000s: too many files in one write", path);
        return NULL;
    }
    if (!rb_replace_allowed(path, why, sizeof why)) {
        snprintf(err, err_size, "%.3000s: %s", path, why);
        return NULL;
    }
    char *part = g->part[g->count];
    if (snprintf(part, sizeof g->part[0], "%s.part-%ld", path, (long)getpid()) >= (int)sizeof g->part[0]) {
        snprintf(err, err_size, "%.3000s: the path is too long", path);
        return NULL;
    }
    g->slot[g->count] = rb_temps_add(part); /* before the file is made: a signal in between still removes it */
    const int fd = open(part, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        snprintf(err, err_size, "%.3000s: cannot write: %s", path, strerror(errno));
        rb_temps_remove(g->slot[g->count]);
        return NULL;
    }
    close(fd);
    g->path[g->count++] = path;
    return part;
}

static void drop(rb_replace_group *g, int from) {
    for (int i = from; i < g->count; i++) {
        remove(g->part[i]);
        rb_temps_remove(g->slot[i]);
    }
    g->count = 0;
}

bool rb_replace_group_commit(rb_replace_group *g, char *err, size_t err_size) {
    for (int i = 0; i < g->count; i++) {
        if (rename(g->part[i], g->path[i]) != 0) {
            snprintf(err, err_size, "%.3000s: cannot replace it: %s", g->path[i], strerror(errno));
            drop(g, i);
            return false;
        }
        rb_temps_remove(g->slot[i]);
    }
    g->count = 0;
    return true;
}

void rb_replace_group_abandon(rb_replace_group *g) { drop(g, 0); }
