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
/* Saves the frame just drawn as an opaque RGB PNG. Logs and returns false on failure. */
bool rb_capture_save_png(rb_renderer *r, int width, int height, const char *path);
/* Sends the frame just drawn to a video (a frame that cannot be read sends
 * the last one again). False once the video has failed. */
bool rb_capture_video(rb_renderer *r, int width, int height, rb_video *video);

#endif
