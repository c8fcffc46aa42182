/* shader.h - GLSL programs built from files, with errors that name the file and line.
 *
 * A shader file may say `#include "name.glsl"` on a line of its own (one
 * level deep); the included text gets its own source-string number through
 * #line, so the driver's log maps back to the right file and line. */
#ifndef RB_SHADER_H
#define RB_SHADER_H

#include <epoxy/gl.h>
#include <stddef.h>

/* Compiles and links dir/vert and dir/frag. Returns the program, or 0 with a
 * message in err: "dir/file:line:col: <driver log line>" for each problem. */
GLuint rb_shader_program_load(const char *dir, const char *vert, const char *frag, char *err, size_t err_size);

#endif
