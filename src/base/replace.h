/* replace.h - writing a file whole or not at all: it is written beside its
 * name (NAME.tmp-PID) and renamed over the name once closed, so a reader of
 * the name sees the old file or the whole new one, and a failure leaves
 * nothing behind (scene saves, exports). */
#ifndef RB_REPLACE_H
#define RB_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct rb_replace {
    const char *path;
    char tmp[4096];
    FILE *f;
} rb_replace;

/* Opens the file beside path with fopen's mode; NULL with the reason
 * ("the path is too long", "cannot write: ...", without the path) in why. */
FILE *rb_replace_open(rb_replace *r, const char *path, const char *mode, char *why, size_t why_size);

/* Closes the file and, if ok and every write reached it, renames it over
 * the path; else removes it. False with the reason in why when the caller
 * passed ok but the write, close or rename failed (why is left as it is
 * when the caller passed false). */
bool rb_replace_close(rb_replace *r, bool ok, char *why, size_t why_size);

#endif
