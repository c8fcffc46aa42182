/* gl_check.h - every OpenGL call is checked and a failure names the call.
 *
 * Wrap a call in RB_GL(...) (statements) or follow a call that returns a value
 * with RB_GL_CHECK("glName"). A failure is logged with the call's text, the
 * error name and the source line, and counted, so tests can assert none
 * happened. */
#ifndef RB_GL_CHECK_H
#define RB_GL_CHECK_H

#include <epoxy/gl.h>
#include <stdbool.h>

/* Drains glGetError(); logs each error against what. Returns true if there was none. */
bool rb_gl_check(const char *what, const char *file, int line);
/* GL errors seen since the program started. */
unsigned rb_gl_error_count(void);
const char *rb_gl_error_name(GLenum error);

#define RB_GL(call)                                                                                                    \
    do {                                                                                                               \
        call;                                                                                                          \
        rb_gl_check(#call, __FILE__, __LINE__);                                                                        \
    } while (0)
#define RB_GL_CHECK(what) rb_gl_check(what, __FILE__, __LINE__)

#endif
