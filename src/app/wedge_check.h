/* wedge_check.h - every variant of a wedge checked before anything runs,
 * built the way `rubble --headless` builds a scene (the scene reader,
 * rb_world_fits, the scene put on a stage of its own: run.h), on the
 * reference backend, which makes no OpenCL program. */
#ifndef RB_WEDGE_CHECK_H
#define RB_WEDGE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "shapes/shapes.h"
#include "wedge_file.h"

/* Checks every variant, its shapes from the registry. False with "WEDGE: variant 0003 (key = value):
 * the reader's message" in err for the first one refused. */
bool rb_wedge_check(const rb_wedge *w, const rb_registry *registry, char *err, size_t err_size);

#endif
