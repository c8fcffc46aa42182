/* replace.h - writing a file whole or not at all: it is written beside its
 * name (NAME.tmp-PID), flushed to the disk and renamed over the name once
 * closed, so a reader of the name sees the old file or the whole new one,
 * and a failure leaves nothing behind and the old file as it was (scene
 * saves, screenshots, exports). The temporary file is in the temporary
 * files' table (temps.h) while it is open: SIGINT and SIGTERM remove it.
 *
 * Only a regular file is replaced: an existing name that is a device, a
 * pipe or a folder (after links) is refused, never renamed over. */
#ifndef RB_REPLACE_H
#define RB_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct rb_replace {
    const char *path;
    char tmp[4096];
    FILE *f;
    int slot; /* in the temporary files' table, -1 if none */
    /* Set before rb_replace_close: a file already at the name is kept and
     * the close fails ("... already exists") instead of replacing it. */
    bool keep_existing;
    int error; /* errno of the first write through rb_replace_put that failed, 0 if none */
} rb_replace;

/* True if path may be written by replacing: nothing there, or a regular
 * file. Else false with the reason in why, without the path. */
bool rb_replace_allowed(const char *path, char *why, size_t why_size);

/* Opens the file beside path with fopen's mode ("w" or "wb"); NULL with the
 * reason ("the path is too long", "cannot write: ...", "is not a regular
 * file ...", without the path) in why. */
FILE *rb_replace_open(rb_replace *r, const char *path, const char *mode, char *why, size_t why_size);

/* Closes the file and, if ok and every write reached the disk, renames it
 * over the path; else removes it. False with the reason in why when the
 * caller passed ok but the write, close or rename failed (why is left as
 * it is when the caller passed false). */
bool rb_replace_close(rb_replace *r, bool ok, char *why, size_t why_size);

/* Writes size bytes of data to the file of r (an rb_replace, opened),
 * keeping the errno of the first write that fails, so that
 * rb_replace_close names the reason ("No space left on device") where the
 * buffer's flush alone could not: stb_image_write's callback
 * (stbi_write_func), for writers that hand it their rb_replace. */
void rb_replace_put(void *r, void *data, int size);

/* A writer of a file's whole content to f: false with the reason in why. */
typedef bool (*rb_replace_fn)(FILE *f, void *user, char *why, size_t why_size);

/* Writes path whole or not at all with write (open, write, close as
 * above); false with "PATH: reason" in err. */
bool rb_replace_write(const char *path, const char *mode, rb_replace_fn write, void *user, char *err, size_t err_size);

/* The same, but a file already at path is kept: false ("... already
 * exists (not written over)") instead (saves named by the time). */
bool rb_replace_write_new(const char *path, const char *mode, rb_replace_fn write, void *user, char *err,
                          size_t err_size);

/* The first of STEM EXT, STEM-2 EXT, STEM-3 EXT... that names nothing yet,
 * in out; false if the name is too long or the first 999 are taken. */
bool rb_replace_unused_name(const char *stem, const char *ext, char *out, size_t size);

/* Several files written all or none (an export's CSV, glTF and events):
 * each is written whole to a part file beside its name (NAME.part-PID),
 * and only once every one is, all are renamed over their names. */
#define RB_REPLACE_GROUP_MAX 4
typedef struct rb_replace_group {
    int count;
    const char *path[RB_REPLACE_GROUP_MAX];
    char part[RB_REPLACE_GROUP_MAX][4096];
    int slot[RB_REPLACE_GROUP_MAX];
} rb_replace_group;

void rb_replace_group_init(rb_replace_group *g);
/* Adds path: checks that it may be replaced and makes its (empty) part
 * file, which proves its folder can be written. Returns the part file's
 * name to write the file to (with rb_replace_write), or NULL with
 * "PATH: reason" in err. */
const char *rb_replace_group_add(rb_replace_group *g, const char *path, char *err, size_t err_size);
/* Renames every part over its name. A rename that fails stops there: the
 * parts not renamed are removed; false with "PATH: reason" in err. */
bool rb_replace_group_commit(rb_replace_group *g, char *err, size_t err_size);
/* Removes every part (a file of the group could not be written). */
void rb_replace_group_abandon(rb_replace_group *g);

#endif
