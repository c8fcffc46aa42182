/* paths.h - where the program finds its plugins and data, however it was
 * started: beside the executable (the build tree), in the install tree, or
 * in the source tree the build came from. */
#ifndef RB_PATHS_H
#define RB_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The folder holding the running executable. */
const char *rb_exe_dir(void);

/* Finds a data folder ("plugins", "shaders", "assets/meshes", "kernels"):
 * <exe dir>/NAME, <exe dir>/../share/rubble/NAME (or lib/rubble/NAME for
 * plugins), the compiled-in install folder, then <source dir>/NAME. Writes the
 * first that exists to out; false if none does. */
bool rb_find_data_dir(const char *name, char *out, size_t out_size);

#endif
