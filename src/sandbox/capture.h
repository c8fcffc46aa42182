/* capture.h - the frame just drawn, read back as an image: screenshots
 * (F12, --screenshot, a script's screenshot line), --video's frames and what
 * tests look at. */
#ifndef RB_CAPTURE_H
#define RB_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "render/render.h"
#include "video.h"

/* Reads the width x height frame just drawn, before it is presented (after a
 * swap the back buffer is undefined, and an offscreen pbuffer has no front
 * one), as RGBA rows from the top. *rgba is malloc'd; the caller frees it. */
bool rb_capture_read(rb_renderer *r, int width, int height, uint8_t **rgba);
/* Saves the frame just drawn as an opaque RGB PNG, whole or not at all
 * (base/replace.h: a failed write, a full disk included, leaves what was
 * at path as it was). Logs and returns false on failure. */
bool rb_capture_save_png(rb_renderer *r, int width, int height, const char *path);
/* The same; with keep_existing a file already at path is never replaced
 * (the save fails: F12's names, made unique, are never written over). */
bool rb_capture_save_png_named(rb_renderer *r, int width, int height, const char *path, bool keep_existing);
/* Sends the frame just drawn to a video (a frame that cannot be read sends
 * the last one again). False once the video has failed. */
bool rb_capture_video(rb_renderer *r, int width, int height, rb_video *video);

#endif
