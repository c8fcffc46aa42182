#include "shader.h"

#include "base/log.h"
#include "gl_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_SHADER_MAX_FILES 8

/* The files that make up one shader stage: index = GLSL source-string number. */
typedef struct rb_shader_files {
    char names[RB_SHADER_MAX_FILES][256];
    int count;
} rb_shader_files;

/* A growing string. */
typedef struct rb_text {
    char *data;
    size_t len, cap;
} rb_text;

static void text_append(rb_text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1) cap *= 2;
        char *p = realloc(t->data, cap);
        if (!p) abort(); /* out of memory while reading a few kB of shader text */
        t->data = p, t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_appendf(rb_text *t, const char *fmt, int a, int b) {
    char buf[64];
    int n = snprintf(buf, sizeof buf, fmt, a, b);
    text_append(t, buf, (size_t)n);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    rb_text t = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text_append(&t, buf, n);
    fclose(f);
    if (!t.data) text_append(&t, "", 0);
    return t.data;
}

/* Reads dir/name, splicing in #include files. Returns NULL with err set. */
static char *preprocess(const char *dir, const char *name, rb_shader_files *files, char *err, size_t err_size) {
    snprintf(files->names[0], sizeof files->names[0], "%s/%s", dir, name);
    files->count = 1;
    char *src = read_file(files->names[0]);
    if (!src) {
        snprintf(err, err_size, "%s: cannot read the shader file", files->names[0]);
        return NULL;
    }
    rb_text out = {0};
    int line_no = 1;
    for (char *line = src; *line; line_no++) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        char inc[200];
        if (sscanf(line, " #include \"%199[^\"]\"", inc) == 1) {
            if (files->count == RB_SHADER_MAX_FILES) {
                snprintf(err, err_size, "%s:%d: too many #include files", files->names[0], line_no);
                free(src), free(out.data);
                return NULL;
            }
            int k = files->count++;
            snprintf(files->names[k], sizeof files->names[k], "%s/%s", dir, inc);
            char *body = read_file(files->names[k]);
            if (!body) {
                snprintf(err, err_size, "%s:%d: cannot read the included file %s", files->names[0], line_no,
                         files->names[k]);
                free(src), free(out.data);
                return NULL;
            }
            /* #line N S: the next line is line N of source string S. */
            text_appendf(&out, "#line 1 %d\n", k, 0);
            text_append(&out, body, strlen(body));
            text_appendf(&out, "\n#line %d %d\n", line_no + 1, 0);
            free(body);
        } else {
            text_append(&out, line, len);
        }
        line += len;
    }
    free(src);
    if (!out.data) text_append(&out, "", 0);
    return out.data;
}

/* Rewrites a driver log ("S:L(C): error: ...", Mesa's form) so each line names
 * the file and line; lines in another form are kept as they are. */
static void map_log(const char *log, const rb_shader_files *files, const char *fallback, char *err, size_t err_size) {
    size_t used = strlen(err);
    for (const char *line = log; *line && used + 1 < err_size;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        int s, l, c, n = 0;
        const char *file = fallback;
        if (sscanf(line, "%d:%d(%d): %n", &s, &l, &c, &n) == 3 && n > 0) {
            if (s >= 0 && s < files->count) file = files->names[s];
            used += (size_t)snprintf(err + used, err_size - used, "%s:%d:%d: %.*s\n", file, l, c,
                                     (int)(len - (size_t)n), line + n);
        } else if (len > 0) {
            used += (size_t)snprintf(err + used, err_size - used, "%s: %.*s\n", file, (int)len, line);
        }
        if (used >= err_size) used = err_size - 1;
        line += len + (end ? 1 : 0);
    }
    /* No trailing newline: the message goes into the log and the HUD as it is. */
    if (used > 0 && err[used - 1] == '\n') err[used - 1] = '\0';
}

static GLuint compile(const char *dir, const char *name, GLenum stage, char *err, size_t err_size) {
    rb_shader_files files;
    char *src = preprocess(dir, name, &files, err, err_size);
    if (!src) return 0;
    GLuint shader = glCreateShader(stage);
    RB_GL_CHECK("glCreateShader");
    const char *srcs[1] = {src};
    RB_GL(glShaderSource(shader, 1, srcs, NULL));
    RB_GL(glCompileShader(shader));
    free(src);
    GLint ok = 0;
    RB_GL(glGetShaderiv(shader, GL_COMPILE_STATUS, &ok));
    if (!ok) {
        char log[4096] = "";
        RB_GL(glGetShaderInfoLog(shader, sizeof log, NULL, log));
        err[0] = '\0';
        map_log(log, &files, files.names[0], err, err_size);
        RB_GL(glDeleteShader(shader));
        return 0;
    }
    return shader;
}

GLuint rb_shader_program_load(const char *dir, const char *vert, const char *frag, char *err, size_t err_size) {
    GLuint vs = compile(dir, vert, GL_VERTEX_SHADER, err, err_size);
    if (!vs) return 0;
    GLuint fs = compile(dir, frag, GL_FRAGMENT_SHADER, err, err_size);
    if (!fs) {
        RB_GL(glDeleteShader(vs));
        return 0;
    }
    GLuint prog = glCreateProgram();
    RB_GL_CHECK("glCreateProgram");
    RB_GL(glAttachShader(prog, vs));
    RB_GL(glAttachShader(prog, fs));
    RB_GL(glLinkProgram(prog));
    RB_GL(glDeleteShader(vs));
    RB_GL(glDeleteShader(fs));
    GLint ok = 0;
    RB_GL(glGetProgramiv(prog, GL_LINK_STATUS, &ok));
    if (!ok) {
        char log[4096] = "";
        RB_GL(glGetProgramInfoLog(prog, sizeof log, NULL, log));
        char what[600];
        snprintf(what, sizeof what, "%s/%s + %s", dir, vert, frag);
        rb_shader_files none = {.count = 0};
        snprintf(err, err_size, "%s: link failed\n", what);
        map_log(log, &none, what, err, err_size);
        RB_GL(glDeleteProgram(prog));
        return 0;
    }
    return prog;
}
