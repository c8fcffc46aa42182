/* registry_internal.h - the registry's state, shared by registry.c (the
 * shapes: checks, mass properties, keeping them) and registry_plugins.c
 * (the plugins: the host API lent to them, loading with dlopen, scanning
 * folders, reloading). Private to src/shapes. */
#ifndef RB_REGISTRY_INTERNAL_H
#define RB_REGISTRY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shapes.h"

typedef struct loaded_file {
    char *path;
    long long stamp; /* file_stamp: a rebuilt plugin has another */
    bool searches;   /* it asked for the mesh folders: a rescan runs it again to find new files there */
} loaded_file;

struct rb_registry {
    rb_registry_desc desc;
    char **mesh_dirs;
    rb_shape **shapes;
    int *file_of; /* each shape's plugin file (an index into files), -1: none */
    uint32_t count, capacity;
    rb_shape **retired; /* shapes replaced by a rebuilt plugin's */
    uint32_t retired_count, replaced;
    char **dirs; /* folders scanned, for rescan */
    uint32_t dir_count;
    loaded_file *files; /* plugins loaded, for rescan */
    uint32_t file_count;
    const char *loading_path; /* the plugin being loaded, for log lines and "plugin_dir" */
    bool reloading;           /* rb_registry_reload: shapes already registered are skipped quietly */
    bool replacing;           /* a changed plugin file: its own shapes are replaced, not refused */
    char loading_dir[4096];
};

/* A copy of s (malloc), or NULL when out of memory. */
char *rb_registry_strdup(const char *s);
/* A name a shape or plugin may have: 1 to 63 printable ASCII bytes, no
 * space, quote or backslash. */
bool rb_registry_good_name(const char *name);
/* A plugin's string for a message: at most max_chars bytes of it, quotes,
 * backslashes, control and non-ASCII bytes as \xNN, in out. */
const char *rb_registry_escaped(const char *s, size_t max_chars, char *out, size_t out_size);
/* The index in reg->files of a plugin file, or -1. */
int rb_registry_file_index(const rb_registry *reg, const char *path);

#endif
