/* window.c - the sandbox's SDL window and its OpenGL 3.3 core context. */
#include "window.h"

#include <stdio.h>

#include "base/log.h"
#include "render/render.h"

SDL_Window *rb_window_open(int width, int height, bool vsync, SDL_GLContext *gl_out, char *err, size_t err_size) {
    SDL_Window *window = NULL;
    SDL_GLContext gl = NULL;
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        snprintf(err, err_size, "SDL_Init: %s", SDL_GetError());
        return NULL;
    }
    int w = width > 0 ? width : 1280, h = height > 0 ? height : 720;
    /* One sample a pixel: the renderer multisamples in a framebuffer of its
     * own, as the quality setting asks (render/quality.h), and the window's
     * framebuffer must have one sample to take the resolved scene. */
    SDL_GL_ResetAttributes();
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, 0);
    SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, 0);
    window = SDL_CreateWindow("Rubble", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (window) gl = SDL_GL_CreateContext(window);
    if (window && !gl) {
        SDL_DestroyWindow(window);
        window = NULL;
    }
    if (!gl) {
        snprintf(err, err_size, "no OpenGL 3.3 core context: %s", SDL_GetError());
        return NULL;
    }
    SDL_GL_MakeCurrent(window, gl);
    if (SDL_GL_SetSwapInterval(vsync ? 1 : 0) != 0 && vsync)
        rb_log(RB_LOG_INFO, "vsync is not available: %s", SDL_GetError());
    rb_render_pin_gl_driver();
    char description[256];
    rb_render_describe_gl(description, sizeof description);
    rb_log(RB_LOG_INFO, "%s", description);
    *gl_out = gl;
    return window;
}
