/* resample.h - an animation (anim.h) sampled again at another frame rate,
 * so that each key of an export sits on a frame of the rate a DCC plays at
 * (`rubble export --fps`, docs/gltf-export.md, "Frame rate").
 *
 * Frame f of the source is at f / its rate seconds. Frame k of the result,
 * at k / rate, has each body's pose between the source frames either side
 * of it: its position linearly, its orientation by slerp. A body that lives
 * source frames a .. b lives, in the result, from the first frame at or
 * after a's time to the last before the time of b + 1 (the source frame it
 * has gone by), as a glTF body is hidden from there (gltf.h); a frame after
 * b's time and before that holds b's pose. A body whose life holds no frame
 * of the result is left out. The camera is sampled the same way. The result
 * has every frame up to the source's last frame's time. */
#ifndef RB_RESAMPLE_H
#define RB_RESAMPLE_H

#include <stdbool.h>

#include "anim.h"

/* Whether rate is a frame rate export takes: positive and finite. */
bool rb_anim_rate_ok(double rate);
/* in at rate frames a second in out: its shapes shared with in (which must
 * outlive out), its tracks new. False if out of memory, or for a rate that
 * is not rb_anim_rate_ok, or more than 2^31 frames. Free with rb_anim_resample_free. */
bool rb_anim_resample(const rb_anim *in, double rate, rb_anim *out);
void rb_anim_resample_free(rb_anim *out);

#endif
