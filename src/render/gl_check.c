#include "gl_check.h"

#include "base/log.h"

static unsigned g_error_count;

const char *rb_gl_error_name(GLenum error) {
    switch (error) {
    case GL_NO_ERROR:
        return "GL_NO_ERROR";
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    default:
        return "unknown GL error";
    }
}

bool rb_gl_check(const char *what, const char *file, int line) {
    bool ok = true;
    /* glGetError keeps a flag per error kind; a lost context keeps returning
     * errors, so the loop is bounded. */
    for (int i = 0; i < 8; i++) {
        GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        ok = false;
        g_error_count++;
        rb_log(RB_LOG_ERROR, "OpenGL %s (0x%04x) in %s at %s:%d", rb_gl_error_name(e), (unsigned)e, what, file, line);
    }
    return ok;
}

unsigned rb_gl_error_count(void) { return g_error_count; }
