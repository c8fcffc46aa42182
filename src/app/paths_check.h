/* paths_check.h - a command line's files checked against one another
 * before anything runs: no output is an input or another output. */
#ifndef RB_PATHS_CHECK_H
#define RB_PATHS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* False with a message naming both options in err when two of the files
 * rubble's options name are one file (base/same_path.h: by any name, links
 * and ./ followed) and one of them is written: --scene, --script and
 * --replay are read; --record, --csv, --gltf, --events, --save,
 * --screenshot and --video written. */
bool rb_options_check_paths(const rb_options *o, char *err, size_t err_size);

#endif
