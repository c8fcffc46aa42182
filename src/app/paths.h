/* paths.h - where the program finds its plugins and data, however it was
 * started: beside the executable (the build tree), in the install tree, or in
 * the source tree the build came from. Found once at start-up (rb_paths_find)
 * and handed down: nothing below the app searches for folders. */
#ifndef RB_PATHS_H
#define RB_PATHS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct rb_paths {
    char exe_dir[PATH_MAX]; /* the folder holding the running executable */
    char plugins[PATH_MAX]; /* the default shape plugins; "" if none was found */
    char meshes[PATH_MAX];  /* assets/meshes, the shipped meshes; "" if none */
    char shaders[PATH_MAX]; /* GLSL: --shaders, else $RUBBLE_SHADER_DIR, else found; "" if none */
} rb_paths;

/* Finds every folder. shader_dir is --shaders (NULL or "" if not given). */
void rb_paths_find(rb_paths *paths, const char *shader_dir);

/* Finds one data folder ("plugins", "shaders", "assets/meshes"):
 * <exe dir>/NAME, <exe dir>/../share/rubble/NAME (or lib/rubble/NAME for
 * plugins), the compiled-in install folder, then <source dir>/NAME. Writes the
 * first that exists to out; false if none does. */
bool rb_find_data_dir(const char *exe_dir, const char *name, char *out, size_t out_size);

/* Whether a file can be made at path: its folder ("." for a bare name) exists
 * and may be written, and nothing but a regular file is there. False with
 * the reason in err ("no folder /x", "cannot write in /proc: Permission
 * denied", "is not a regular file (a character device): ..."). */
bool rb_path_writable(const char *path, char *err, size_t err_size);

/* Whether two paths name one file: the same file there now, or the same
 * name in the same folder (a file not made yet). */
bool rb_path_same(const char *a, const char *b);

/* Whether dir is a folder that can be read. False with the reason in err. */
bool rb_path_is_folder(const char *dir, char *err, size_t err_size);

#endif
