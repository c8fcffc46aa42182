/* same_path.h - whether two paths name one file, so that a command never
 * writes one of its outputs over its input or over another output. */
#ifndef RB_SAME_PATH_H
#define RB_SAME_PATH_H

#include <stdbool.h>

/* True if a and b name one file: the same string; the same file on disk
 * (device and inode) where both exist; else the same resolved folder
 * (links, "./" and ".." followed) and the same last name. */
bool rb_same_path(const char *a, const char *b);

/* A command's file, named by its option, for rb_paths_clash. */
typedef struct rb_named_path {
    const char *option; /* "--csv", "the cache"... */
    const char *path;   /* NULL: not given */
    bool output;        /* written by the command (else only read) */
} rb_named_path;

/* The first two files of list, one of them an output, that are one file
 * (rb_same_path): their indices in *a < *b. False if none. */
bool rb_paths_clash(const rb_named_path *list, int count, int *a, int *b);

#endif
