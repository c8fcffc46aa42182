/* debris_whole.h - a breakable body written whole into a saved scene's
 * `debris_state` (docs/scene-format.md, "debris_state"; docs/debris.md,
 * "Saving"), for the breakables a pattern cannot make again from their
 * shape: a broken body's child that can break again, an anchored
 * breakable, a glued assembly and a glued part freed alone. Its pieces,
 * particles, per-piece meshes and a glued assembly's per-piece anchored
 * and inner, every value exact; read back checked, and made breakable again
 * as it was (rb_debris_add_breakable). Used by debris_save.c (the writer
 * and the restore) and debris_state_read.c (the reader). */
#ifndef RB_DEBRIS_WHOLE_H
#define RB_DEBRIS_WHOLE_H

#include <stdio.h>

#include "debris_internal.h"
#include "scene_read_internal.h"

/* Breakable b's whole object. False (nothing useful written) on a value
 * that is not finite. */
bool rb_debris_put_whole(FILE *f, const breakable *b);

/* Every key of o is in known (a NULL-ended list) and every one of known is
 * in o: a debris_state object holds only what rubble writes (also used by
 * debris_state_read.c). False with the key named through r. */
bool rb_debris_exact_keys(rb_reader *r, const cJSON *o, const char *const *known);

/* A whole object o (the current key path names it) into b (its id and desc
 * set by the caller), checked against itself and the layer's inner_count
 * patterns; b keeps what was read on a failure too, for the caller's layer
 * to free. False, failed. */
bool rb_debris_read_whole(rb_reader *r, const cJSON *o, breakable *b, uint32_t inner_count);

/* Body id made breakable as saved (a copy of saved's arrays) in layer d.
 * Its particles must be its world shape's. False with the reason in err. */
bool rb_debris_add_whole(rb_debris *d, rb_body_id id, const breakable *saved, char *err, size_t err_size);

#endif
