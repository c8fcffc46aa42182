/* window.h - the sandbox's SDL window and its OpenGL 3.3 core context. */
#ifndef RB_WINDOW_H
#define RB_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include <SDL.h>

/* Initialises SDL's video, opens a resizable window of width x height (0:
 * 1280 x 720) with an OpenGL 3.3 core context of one sample a pixel (the
 * renderer multisamples on its own), current and with vsync as asked (where
 * it can be had).
 * NULL with the reason in err. */
SDL_Window *rb_window_open(int width, int height, bool vsync, SDL_GLContext *gl, char *err, size_t err_size);

#endif
