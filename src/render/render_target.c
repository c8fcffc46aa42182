/* render_target.c - see render_target.h. */
#include "render_target.h"

#include <math.h>

#include "base/log.h"
#include "gl_check.h"

void rb_scene_target_free(rb_scene_target *t) {
    const GLuint fbos[2] = {t->scene_fbo, t->resolve_fbo};
    const GLuint buffers[3] = {t->scene_color, t->scene_depth, t->resolve_color};
    RB_GL(glDeleteFramebuffers(2, fbos)); /* names 0 are ignored */
    RB_GL(glDeleteRenderbuffers(3, buffers));
    t->scene_fbo = t->resolve_fbo = t->scene_color = t->scene_depth = t->resolve_color = 0;
    t->width = t->height = t->samples = 0;
}

/* A renderbuffer attached to the bound framebuffer. */
static GLuint attach_renderbuffer(GLenum attachment, GLenum format, int samples, int w, int h) {
    GLuint buffer;
    RB_GL(glGenRenderbuffers(1, &buffer));
    RB_GL(glBindRenderbuffer(GL_RENDERBUFFER, buffer));
    RB_GL(glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, format, w, h));
    RB_GL(glFramebufferRenderbuffer(GL_FRAMEBUFFER, attachment, GL_RENDERBUFFER, buffer));
    return buffer;
}

static bool framebuffer_complete(const char *what) {
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    RB_GL_CHECK("glCheckFramebufferStatus");
    if (status == GL_FRAMEBUFFER_COMPLETE) return true;
    rb_log(RB_LOG_ERROR, "render: the %s framebuffer is incomplete (status 0x%04x)", what, (unsigned)status);
    return false;
}

/* The scene's framebuffer, w x h with `samples` samples (0: one), and where
 * it is multisampled and scaled, a plain one of the same size to resolve it
 * into (a multisampled blit cannot change the size). False, logged, if the
 * driver cannot make them. */
static bool make_target(rb_scene_target *t, int w, int h, int samples, bool resolve) {
    rb_scene_target_free(t);
    RB_GL(glGenFramebuffers(1, &t->scene_fbo));
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, t->scene_fbo));
    t->scene_color = attach_renderbuffer(GL_COLOR_ATTACHMENT0, GL_RGBA8, samples, w, h);
    t->scene_depth = attach_renderbuffer(GL_DEPTH_ATTACHMENT, GL_DEPTH_COMPONENT24, samples, w, h);
    bool ok = framebuffer_complete("scene");
    GLint given = 0; /* a driver may give more samples than asked for (llvmpipe has 4 only) */
    RB_GL(glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_SAMPLES, &given));
    if (ok && given != samples && given != t->samples_said) {
        rb_log(RB_LOG_INFO, "render: %d samples asked for, the driver gives %d", samples, given);
        t->samples_said = given;
    }
    if (ok && resolve) {
        RB_GL(glGenFramebuffers(1, &t->resolve_fbo));
        RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, t->resolve_fbo));
        t->resolve_color = attach_renderbuffer(GL_COLOR_ATTACHMENT0, GL_RGBA8, 0, w, h);
        ok = framebuffer_complete("resolved scene");
    }
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    if (!ok) {
        rb_scene_target_free(t);
        return false;
    }
    t->width = w, t->height = h, t->samples = samples;
    return true;
}

/* Pixels of the scene along a side of `full` pixels at the render scale. */
static int scaled(int full, float scale) {
    int n = (int)lroundf((float)full * scale);
    return n < 1 ? 1 : n > full ? full : n;
}

bool rb_scene_target_bind(rb_scene_target *t, int view_w, int view_h, rb_render_quality *q, int *w, int *h) {
    const int samples = q->msaa > 1 ? q->msaa : 0;
    *w = scaled(view_w, q->scale), *h = scaled(view_h, q->scale);
    const bool smaller = *w != view_w || *h != view_h;
    if (samples == 0 && !smaller) {
        if (t->scene_fbo) rb_scene_target_free(t);
        RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
        return false;
    }
    const bool resolve = samples > 0 && smaller;
    if ((t->width != *w || t->height != *h || t->samples != samples || (t->resolve_fbo != 0) != resolve) &&
        !make_target(t, *w, *h, samples, resolve)) {
        /* Drawn as it can be: one sample, the window's size. */
        rb_log(RB_LOG_WARN, "render: multisampling and scaling turned off");
        q->msaa = 0, q->scale = 1.0f;
        *w = view_w, *h = view_h;
        RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
        return false;
    }
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, t->scene_fbo));
    return true;
}

void rb_scene_target_present(const rb_scene_target *t, int w, int h, int view_w, int view_h) {
    GLuint from = t->scene_fbo;
    if (t->resolve_fbo) {
        RB_GL(glBindFramebuffer(GL_READ_FRAMEBUFFER, t->scene_fbo));
        RB_GL(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->resolve_fbo));
        RB_GL(glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST));
        from = t->resolve_fbo;
    }
    const bool same = w == view_w && h == view_h;
    RB_GL(glBindFramebuffer(GL_READ_FRAMEBUFFER, from));
    RB_GL(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0));
    RB_GL(glBlitFramebuffer(0, 0, w, h, 0, 0, view_w, view_h, GL_COLOR_BUFFER_BIT, same ? GL_NEAREST : GL_LINEAR));
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
}
