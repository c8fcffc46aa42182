/* render_target.h - the framebuffer the scene is drawn into when it is
 * multisampled or drawn at a render scale below 1, then resolved and scaled
 * onto the window's framebuffer, under the overlay (render.c). None while
 * neither is asked for: the scene goes straight to the window's. */
#ifndef RB_RENDER_TARGET_H
#define RB_RENDER_TARGET_H

#include <epoxy/gl.h>
#include <stdbool.h>

#include "quality.h"

typedef struct rb_scene_target {
    GLuint scene_fbo, scene_color, scene_depth;
    GLuint resolve_fbo, resolve_color; /* multisampled and scaled: resolved here at the scene's size, then scaled */
    int width, height, samples;        /* as made; 0 while there is none */
    int samples_said;                  /* the driver's own sample count, logged once */
} rb_scene_target;

/* Binds what the scene of a view_w x view_h window is drawn into at
 * quality q and gives its size in *w, *h: the window's own framebuffer
 * when neither multisampling nor scaling is asked for (no copy at all),
 * else the target, made or remade at that size. Returns true for the
 * latter. Where the driver cannot make it, logs so, turns multisampling and
 * scaling off in q and binds the window's. */
bool rb_scene_target_bind(rb_scene_target *t, int view_w, int view_h, rb_render_quality *q, int *w, int *h);

/* The target (w x h, bound by rb_scene_target_bind) onto the window's
 * framebuffer (view_w x view_h): the samples resolved, then scaled up with
 * linear filtering. */
void rb_scene_target_present(const rb_scene_target *t, int w, int h, int view_w, int view_h);

/* Its framebuffers and renderbuffers deleted; none after. */
void rb_scene_target_free(rb_scene_target *t);

#endif
