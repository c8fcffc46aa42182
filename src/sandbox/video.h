/* video.h - --video FILE: the sandbox's drawn frames encoded by ffmpeg
 * (H.264 in an MP4). ffmpeg runs as a child process, started without a
 * shell, reading raw RGBA frames on its stdin; it writes beside the name
 * (NAME.tmp-PID) and the file is renamed over the name only once ffmpeg has
 * exited 0 having taken every frame, so a failure at any point leaves
 * nothing under the name. No GL and no SDL here: capture.c reads the pixels
 * and hands them over. */
#ifndef RB_VIDEO_H
#define RB_VIDEO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rb_video rb_video;

/* Whether a video can be made at path: ffmpeg on PATH and a folder that can
 * be written. False with the reason, without the path, in why ("ffmpeg is
 * not installed ...", "no folder /x"). */
bool rb_video_usable(const char *path, char *why, size_t why_size);

/* Starts ffmpeg for frames of width x height at fps frames a second.
 * H.264's 4:2:0 colour needs even sizes: an odd width or height loses its
 * last column or bottom row. NULL with "PATH: what is wrong" in err. */
rb_video *rb_video_start(const char *path, int width, int height, int fps, char *err, size_t err_size);

/* Sends one frame: width x height RGBA rows from the bottom up, as
 * glReadPixels gives them, cropped or padded with black to the video's size
 * (a window resized while recording). rgba NULL sends the last frame again
 * (a frame that could not be read), so the video keeps its clock. False
 * once ffmpeg has stopped taking frames (logged once); later frames are
 * dropped. */
bool rb_video_frame(rb_video *v, const uint8_t *rgba, int width, int height);

/* Closes ffmpeg's input and waits for it; renames its file over the path
 * if it exited 0 having taken every frame, else removes it. Frees v (NULL:
 * nothing to do, true). False with "PATH: what is wrong" in err. */
bool rb_video_finish(rb_video *v, char *err, size_t err_size);

#endif
