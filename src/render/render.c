/* dl_iterate_phdr (used only under AddressSanitizer) is a GNU extension. */
#define _GNU_SOURCE
#include "render.h"

#include "base/color.h"
#include "base/log.h"
#include "gl_check.h"
#include "render_target.h"
#include "shader.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

enum {
    PROG_MESH,
    PROG_MESH_DEPTH,
    PROG_SPHERE,
    PROG_SPHERE_DEPTH,
    PROG_PLANE,
    PROG_SKY,
    PROG_OVERLAY,
    PROG_LINES,
    PROG_COUNT
};

static const char *const g_program_files[PROG_COUNT][2] = {
    [PROG_MESH] = {"mesh.vert.glsl", "mesh.frag.glsl"},
    [PROG_MESH_DEPTH] = {"mesh.vert.glsl", "depth.frag.glsl"},
    [PROG_SPHERE] = {"sphere.vert.glsl", "sphere.frag.glsl"},
    [PROG_SPHERE_DEPTH] = {"sphere.vert.glsl", "sphere_depth.frag.glsl"},
    [PROG_PLANE] = {"plane.vert.glsl", "plane.frag.glsl"},
    [PROG_SKY] = {"sky.vert.glsl", "sky.frag.glsl"},
    [PROG_OVERLAY] = {"overlay.vert.glsl", "overlay.frag.glsl"},
    [PROG_LINES] = {"lines.vert.glsl", "lines.frag.glsl"},
};

/* Per-instance data of a mesh: position + scale, quaternion, colour, inside colour: 64 bytes. */
#define MESH_INSTANCE_FLOATS 16
_Static_assert(sizeof(rb_render_instance) == MESH_INSTANCE_FLOATS * sizeof(float), "instance layout");
/* Per-instance data of a sphere: centre + radius, colour: 32 bytes. */
#define SPHERE_INSTANCE_FLOATS 8

/* A growing float array, mirrored into a GL buffer each frame. */
typedef struct rb_stream {
    float *data;
    uint32_t count, capacity; /* floats */
    GLuint buffer;
    size_t gpu_bytes;
} rb_stream;

typedef struct rb_gpu_mesh {
    GLuint vao, vertex_buffer, index_buffer;
    uint32_t index_count;
    rb_stream instances;
    float box_center[3], box_half[3]; /* m; box_half zero unless every vertex is a corner of the bounding box */
} rb_gpu_mesh;

/* Line vertex: x, y, z in metres (world), colour as 4 bytes: 16 bytes. */
typedef struct rb_line_vertex {
    float x, y, z;
    uint8_t rgba[4];
} rb_line_vertex;
#define LINE_VERTEX_FLOATS 4
_Static_assert(sizeof(rb_line_vertex) == LINE_VERTEX_FLOATS * sizeof(float), "line vertex layout");

/* Overlay vertex: x, y in pixels, colour as 4 bytes: 12 bytes. */
typedef struct rb_overlay_vertex {
    float x, y;
    uint8_t rgba[4];
} rb_overlay_vertex;

struct rb_renderer {
    char shader_dir[512];
    char gl_name[256]; /* GL_RENDERER */
    GLuint programs[PROG_COUNT];

    rb_gpu_mesh *meshes;
    uint32_t mesh_count, mesh_capacity;

    GLuint quad_buffer; /* 4 corners -1..1, for spheres and planes */
    GLuint sphere_vao, plane_vao, empty_vao;
    rb_stream spheres;

    GLuint overlay_vao;
    rb_stream overlay; /* rb_overlay_vertex data viewed as floats */

    /* rb_line_vertex data viewed as floats: [0] hidden by what is in front, [1] over everything */
    GLuint line_vaos[2];
    rb_stream lines[2];

    GLuint shadow_fbo, shadow_texture;
    int shadow_texels; /* the shadow texture's side as allocated (1 while shadows are off) */

    /* The quality in use, and the framebuffer the scene is drawn into when it
     * is multisampled or scaled (then blitted to the window's framebuffer,
     * under the overlay); none while neither is asked for. */
    rb_render_quality quality;
    int max_samples;        /* GL_MAX_SAMPLES */
    rb_scene_target target; /* render_target.h */

    /* cglm reads the view's matrices as mat4 with aligned SSE loads: they
     * must not move off 16 bytes as fields come and go above. */
    _Alignas(16) rb_render_view view;
    rb_render_scene scene;
    mat4 light_view, light_proj, light_view_proj;
};

static void stream_reserve(rb_stream *s, uint32_t floats) {
    if (s->count + floats <= s->capacity) return;
    uint32_t cap = s->capacity ? s->capacity : 1024;
    while (cap < s->count + floats) cap *= 2;
    float *p = realloc(s->data, (size_t)cap * sizeof(float));
    if (!p) abort(); /* a frame's vertex data does not fit in memory: nothing sensible to do */
    s->data = p, s->capacity = cap;
}

/* Uploads the stream to its buffer, growing the buffer (orphaning) as needed. */
static void stream_upload(rb_stream *s) {
    size_t bytes = (size_t)s->count * sizeof(float);
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, s->buffer));
    if (bytes > s->gpu_bytes || s->gpu_bytes == 0) {
        size_t cap = s->gpu_bytes ? s->gpu_bytes : 4096;
        while (cap < bytes) cap *= 2;
        RB_GL(glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)cap, NULL, GL_STREAM_DRAW));
        s->gpu_bytes = cap;
    } else {
        /* Orphan the old storage so the driver need not wait for last frame's draws. */
        RB_GL(glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)s->gpu_bytes, NULL, GL_STREAM_DRAW));
    }
    if (bytes) RB_GL(glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, s->data));
}

static void stream_free(rb_stream *s) {
    free(s->data);
    if (s->buffer) RB_GL(glDeleteBuffers(1, &s->buffer));
    memset(s, 0, sizeof *s);
}

static void delete_programs(GLuint programs[PROG_COUNT]) {
    for (int i = 0; i < PROG_COUNT; i++)
        if (programs[i]) RB_GL(glDeleteProgram(programs[i]));
}

/* Builds all programs into out; on failure deletes what it built and returns false. */
static bool build_programs(const char *dir, GLuint out[PROG_COUNT], char *err, size_t err_size) {
    memset(out, 0, sizeof(GLuint) * PROG_COUNT);
    for (int i = 0; i < PROG_COUNT; i++) {
        out[i] = rb_shader_program_load(dir, g_program_files[i][0], g_program_files[i][1], err, err_size);
        if (!out[i]) {
            delete_programs(out);
            return false;
        }
        /* The shadow map is always on texture unit 0. */
        RB_GL(glUseProgram(out[i]));
        GLint loc = glGetUniformLocation(out[i], "u_shadow_map");
        RB_GL_CHECK("glGetUniformLocation(u_shadow_map)");
        if (loc >= 0) RB_GL(glUniform1i(loc, 0));
    }
    RB_GL(glUseProgram(0));
    return true;
}

bool rb_renderer_reload(rb_renderer *r, char *err, size_t err_size) {
    GLuint fresh[PROG_COUNT];
    if (!build_programs(r->shader_dir, fresh, err, err_size)) return false;
    delete_programs(r->programs);
    memcpy(r->programs, fresh, sizeof fresh);
    return true;
}

const char *rb_renderer_shader_dir(const rb_renderer *r) { return r->shader_dir; }

/* (Re)allocates the shadow texture at the quality's size. With shadows off it
 * stays a 1x1 texture, so the samplers that name it still see a complete one. */
static void size_shadow_map(rb_renderer *r) {
    const int side = r->quality.shadow_size > 0 ? r->quality.shadow_size : 1;
    if (side == r->shadow_texels) return;
    RB_GL(glBindTexture(GL_TEXTURE_2D, r->shadow_texture));
    RB_GL(
        glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, side, side, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL));
    r->shadow_texels = side;
}

static bool create_shadow_map(rb_renderer *r, char *err, size_t err_size) {
    RB_GL(glGenTextures(1, &r->shadow_texture));
    size_shadow_map(r);
    RB_GL(glBindTexture(GL_TEXTURE_2D, r->shadow_texture));
    /* Linear filtering with compare mode gives 2x2 hardware PCF per tap. */
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR));
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR));
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE));
    RB_GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL));
    RB_GL(glGenFramebuffers(1, &r->shadow_fbo));
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo));
    RB_GL(glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, r->shadow_texture, 0));
    RB_GL(glDrawBuffer(GL_NONE));
    RB_GL(glReadBuffer(GL_NONE));
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    RB_GL_CHECK("glCheckFramebufferStatus");
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(err, err_size, "the shadow map framebuffer is incomplete (status 0x%04x)", (unsigned)status);
        return false;
    }
    return true;
}

/* Lines: position (location 0) and colour (1) per vertex, one buffer for each kind. */
static void create_line_vaos(rb_renderer *r) {
    RB_GL(glGenVertexArrays(2, r->line_vaos));
    for (int k = 0; k < 2; k++) {
        rb_stream *s = &r->lines[k];
        RB_GL(glGenBuffers(1, &s->buffer));
        RB_GL(glBindVertexArray(r->line_vaos[k]));
        RB_GL(glBindBuffer(GL_ARRAY_BUFFER, s->buffer));
        RB_GL(glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STREAM_DRAW));
        s->gpu_bytes = 4096;
        RB_GL(glEnableVertexAttribArray(0));
        RB_GL(glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(rb_line_vertex), (void *)0));
        RB_GL(glEnableVertexAttribArray(1));
        RB_GL(glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(rb_line_vertex),
                                    (void *)offsetof(rb_line_vertex, rgba)));
    }
}

bool rb_renderer_set_quality(rb_renderer *r, const rb_render_quality *q) {
    if (!rb_quality_valid(q)) {
        rb_log(RB_LOG_WARN,
               "render: quality refused (msaa %d, shadows %d, scale %g): msaa takes 0, 2 or 4, shadows 0, 512, "
               "1024 or 2048, scale 0.5 to 1",
               q->msaa, q->shadow_size, (double)q->scale);
        return false;
    }
    r->quality = *q;
    if (r->quality.msaa > r->max_samples) { /* what the driver has, said once */
        rb_log(RB_LOG_INFO, "render: %dx multisampling asked for, the driver has %d samples at most", q->msaa,
               r->max_samples);
        r->quality.msaa = r->max_samples >= 2 ? 2 : 0; /* msaa is 2 or 4, and more than the driver has */
    }
    size_shadow_map(r);
    return true;
}

rb_render_quality rb_renderer_quality(const rb_renderer *r) { return r->quality; }

const char *rb_renderer_gl_name(const rb_renderer *r) { return r->gl_name; }

rb_renderer *rb_renderer_create(const char *shader_dir, char *err, size_t err_size) {
    rb_renderer *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    snprintf(r->shader_dir, sizeof r->shader_dir, "%s", shader_dir);
    rb_gl_check("(errors before the renderer started)", __FILE__, __LINE__);
    r->quality = rb_quality_preset_get(RB_QUALITY_HIGH); /* until the program chooses */
    const char *name = (const char *)glGetString(GL_RENDERER);
    RB_GL_CHECK("glGetString(GL_RENDERER)");
    snprintf(r->gl_name, sizeof r->gl_name, "%s", name ? name : "?");
    RB_GL(glGetIntegerv(GL_MAX_SAMPLES, &r->max_samples));
    if (!build_programs(r->shader_dir, r->programs, err, err_size)) {
        free(r);
        return NULL;
    }

    static const float quad[8] = {-1, -1, 1, -1, -1, 1, 1, 1}; /* a triangle strip */
    RB_GL(glGenBuffers(1, &r->quad_buffer));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, r->quad_buffer));
    RB_GL(glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW));

    /* Spheres: corner (location 0) per vertex; centre+radius and colour per instance. */
    RB_GL(glGenVertexArrays(1, &r->sphere_vao));
    RB_GL(glGenBuffers(1, &r->spheres.buffer));
    RB_GL(glBindVertexArray(r->sphere_vao));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, r->quad_buffer));
    RB_GL(glEnableVertexAttribArray(0));
    RB_GL(glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, r->spheres.buffer));
    RB_GL(glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STREAM_DRAW));
    r->spheres.gpu_bytes = 4096;
    const GLsizei sstride = SPHERE_INSTANCE_FLOATS * sizeof(float);
    for (GLuint a = 1; a <= 2; a++) {
        RB_GL(glEnableVertexAttribArray(a));
        RB_GL(glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, sstride, (void *)(uintptr_t)((a - 1) * 16)));
        RB_GL(glVertexAttribDivisor(a, 1));
    }

    RB_GL(glGenVertexArrays(1, &r->plane_vao));
    RB_GL(glBindVertexArray(r->plane_vao));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, r->quad_buffer));
    RB_GL(glEnableVertexAttribArray(0));
    RB_GL(glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0));

    /* The sky's full-screen triangle comes from gl_VertexID; core GL still wants a VAO bound. */
    RB_GL(glGenVertexArrays(1, &r->empty_vao));

    RB_GL(glGenVertexArrays(1, &r->overlay_vao));
    RB_GL(glGenBuffers(1, &r->overlay.buffer));
    RB_GL(glBindVertexArray(r->overlay_vao));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, r->overlay.buffer));
    RB_GL(glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STREAM_DRAW));
    r->overlay.gpu_bytes = 4096;
    RB_GL(glEnableVertexAttribArray(0));
    RB_GL(glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(rb_overlay_vertex), (void *)0));
    RB_GL(glEnableVertexAttribArray(1));
    RB_GL(glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(rb_overlay_vertex),
                                (void *)offsetof(rb_overlay_vertex, rgba)));
    create_line_vaos(r);
    RB_GL(glBindVertexArray(0));

    if (!create_shadow_map(r, err, err_size)) {
        rb_renderer_destroy(r);
        return NULL;
    }
    return r;
}

void rb_renderer_destroy(rb_renderer *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->mesh_count; i++) {
        rb_gpu_mesh *m = &r->meshes[i];
        RB_GL(glDeleteVertexArrays(1, &m->vao));
        RB_GL(glDeleteBuffers(1, &m->vertex_buffer));
        RB_GL(glDeleteBuffers(1, &m->index_buffer));
        stream_free(&m->instances);
    }
    free(r->meshes);
    stream_free(&r->spheres);
    stream_free(&r->overlay);
    stream_free(&r->lines[0]), stream_free(&r->lines[1]);
    if (r->line_vaos[0]) RB_GL(glDeleteVertexArrays(2, r->line_vaos));
    delete_programs(r->programs);
    GLuint vaos[4] = {r->sphere_vao, r->plane_vao, r->empty_vao, r->overlay_vao};
    RB_GL(glDeleteVertexArrays(4, vaos));
    RB_GL(glDeleteBuffers(1, &r->quad_buffer));
    if (r->shadow_fbo) RB_GL(glDeleteFramebuffers(1, &r->shadow_fbo));
    if (r->shadow_texture) RB_GL(glDeleteTextures(1, &r->shadow_texture));
    rb_scene_target_free(&r->target);
    free(r);
}

/* A box mesh (every vertex at a corner of its bounding box) gets its edges drawn;
 * center and half are its bounding box, half zero when the mesh is not a box. */
static void find_box(const float *p, uint32_t n, float center[3], float half[3]) {
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = p[k];
    for (uint32_t v = 1; v < n; v++)
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[v * 3 + k]), hi[k] = fmaxf(hi[k], p[v * 3 + k]);
    for (int k = 0; k < 3; k++) center[k] = 0.5f * (lo[k] + hi[k]), half[k] = 0.5f * (hi[k] - lo[k]);
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++)
            if (!(half[k] > 0.0f) || fabsf(fabsf(p[v * 3 + k] - center[k]) - half[k]) > 1e-3f * half[k]) {
                half[0] = half[1] = half[2] = 0.0f;
                return;
            }
}

int rb_renderer_add_mesh(rb_renderer *r, const float *positions, const float *normals, uint32_t vertex_count,
                         const uint32_t *indices, uint32_t index_count) {
    return rb_renderer_add_mesh_marked(r, positions, normals, NULL, vertex_count, indices, index_count);
}

/* A vertex: position, normal, and 1 on an inside (cut) face, else 0. */
#define MESH_VERTEX_FLOATS 7

int rb_renderer_add_mesh_marked(rb_renderer *r, const float *positions, const float *normals, const uint8_t *inside,
                                uint32_t vertex_count, const uint32_t *indices, uint32_t index_count) {
    if (!positions || !indices || vertex_count == 0 || index_count == 0 || index_count % 3) {
        rb_log(RB_LOG_WARN, "render: a mesh needs vertices and a whole number of triangles");
        return -1;
    }
    for (uint32_t i = 0; i < index_count; i++)
        if (indices[i] >= vertex_count) {
            rb_log(RB_LOG_WARN, "render: mesh index %u out of range (%u vertices)", indices[i], vertex_count);
            return -1;
        }
    if (r->mesh_count == r->mesh_capacity) {
        uint32_t cap = r->mesh_capacity ? 2 * r->mesh_capacity : 8;
        rb_gpu_mesh *p = realloc(r->meshes, cap * sizeof *p);
        if (!p) return -1;
        r->meshes = p, r->mesh_capacity = cap;
    }
    /* Flat shading needs a vertex per triangle corner when no normals come with the mesh. */
    uint32_t out_vertices = normals ? vertex_count : index_count;
    float *interleaved = malloc((size_t)out_vertices * MESH_VERTEX_FLOATS * sizeof(float));
    uint32_t *out_indices = malloc((size_t)index_count * sizeof(uint32_t));
    if (!interleaved || !out_indices) {
        free(interleaved), free(out_indices);
        return -1;
    }
    if (normals) {
        for (uint32_t v = 0; v < vertex_count; v++) {
            memcpy(&interleaved[v * MESH_VERTEX_FLOATS], &positions[v * 3], 3 * sizeof(float));
            memcpy(&interleaved[v * MESH_VERTEX_FLOATS + 3], &normals[v * 3], 3 * sizeof(float));
            interleaved[v * MESH_VERTEX_FLOATS + 6] = inside && inside[v] ? 1.0f : 0.0f;
        }
        memcpy(out_indices, indices, (size_t)index_count * sizeof(uint32_t));
    } else {
        for (uint32_t t = 0; t < index_count; t += 3) {
            vec3 p[3], e1, e2, n;
            for (int k = 0; k < 3; k++) glm_vec3_copy((float *)&positions[indices[t + k] * 3], p[k]);
            glm_vec3_sub(p[1], p[0], e1);
            glm_vec3_sub(p[2], p[0], e2);
            glm_vec3_crossn(e1, e2, n);
            for (int k = 0; k < 3; k++) {
                memcpy(&interleaved[(t + k) * MESH_VERTEX_FLOATS], p[k], 3 * sizeof(float));
                memcpy(&interleaved[(t + k) * MESH_VERTEX_FLOATS + 3], n, 3 * sizeof(float));
                interleaved[(t + k) * MESH_VERTEX_FLOATS + 6] = inside && inside[indices[t + k]] ? 1.0f : 0.0f;
                out_indices[t + k] = t + (uint32_t)k;
            }
        }
    }
    rb_gpu_mesh *m = &r->meshes[r->mesh_count];
    memset(m, 0, sizeof *m);
    m->index_count = index_count;
    find_box(positions, vertex_count, m->box_center, m->box_half);
    RB_GL(glGenVertexArrays(1, &m->vao));
    RB_GL(glGenBuffers(1, &m->vertex_buffer));
    RB_GL(glGenBuffers(1, &m->index_buffer));
    RB_GL(glGenBuffers(1, &m->instances.buffer));
    RB_GL(glBindVertexArray(m->vao));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, m->vertex_buffer));
    RB_GL(glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)out_vertices * MESH_VERTEX_FLOATS * sizeof(float)),
                       interleaved, GL_STATIC_DRAW));
    const GLsizei vertex_stride = MESH_VERTEX_FLOATS * sizeof(float);
    RB_GL(glEnableVertexAttribArray(0));
    RB_GL(glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, vertex_stride, (void *)0));
    RB_GL(glEnableVertexAttribArray(1));
    RB_GL(glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, vertex_stride, (void *)(3 * sizeof(float))));
    RB_GL(glEnableVertexAttribArray(5));
    RB_GL(glVertexAttribPointer(5, 1, GL_FLOAT, GL_FALSE, vertex_stride, (void *)(6 * sizeof(float))));
    RB_GL(glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->index_buffer));
    RB_GL(glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)index_count * sizeof(uint32_t)), out_indices,
                       GL_STATIC_DRAW));
    RB_GL(glBindBuffer(GL_ARRAY_BUFFER, m->instances.buffer));
    RB_GL(glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STREAM_DRAW));
    m->instances.gpu_bytes = 4096;
    const GLsizei stride = MESH_INSTANCE_FLOATS * sizeof(float);
    /* locations 2, 3, 4 and 6: position + scale, quaternion, colour, inside colour (5 is per vertex) */
    static const GLuint instance_locations[4] = {2, 3, 4, 6};
    for (GLuint k = 0; k < 4; k++) {
        const GLuint a = instance_locations[k];
        RB_GL(glEnableVertexAttribArray(a));
        RB_GL(glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, stride, (void *)(uintptr_t)(k * 16)));
        RB_GL(glVertexAttribDivisor(a, 1));
    }
    RB_GL(glBindVertexArray(0));
    free(interleaved);
    free(out_indices);
    return (int)r->mesh_count++;
}

uint32_t rb_renderer_mesh_count(const rb_renderer *r) { return r->mesh_count; }

void rb_renderer_begin(rb_renderer *r, const rb_render_view *view, const rb_render_scene *scene) {
    r->view = *view;
    r->scene = *scene;
    if (r->scene.plane_count > RB_RENDER_MAX_PLANES) r->scene.plane_count = RB_RENDER_MAX_PLANES;
    float *l = r->scene.light_dir;
    if (l[0] == 0.0f && l[1] == 0.0f && l[2] == 0.0f) {
        /* A late-afternoon sun from behind the default camera's left shoulder. */
        l[0] = -0.5f, l[1] = 0.68f, l[2] = 0.42f;
    }
    glm_vec3_normalize(l);
    if (!(r->scene.focus_radius > 0.0f)) r->scene.focus_radius = 20.0f;
    for (uint32_t i = 0; i < r->mesh_count; i++) r->meshes[i].instances.count = 0;
    r->spheres.count = 0;
    r->overlay.count = 0;
    r->lines[0].count = r->lines[1].count = 0;
}

rb_render_instance *rb_renderer_instances(rb_renderer *r, int mesh, uint32_t count) {
    if (mesh < 0 || (uint32_t)mesh >= r->mesh_count || count == 0) return NULL;
    rb_stream *s = &r->meshes[mesh].instances;
    stream_reserve(s, count * MESH_INSTANCE_FLOATS);
    rb_render_instance *out = (rb_render_instance *)&s->data[s->count];
    s->count += count * MESH_INSTANCE_FLOATS;
    return out;
}

void rb_renderer_add_instances(rb_renderer *r, int mesh, const rb_transform *transforms, const float *colors,
                               uint32_t count) {
    rb_render_instance *out = rb_renderer_instances(r, mesh, count);
    if (!out) return;
    for (uint32_t i = 0; i < count; i++) {
        out[i].transform = transforms[i];
        memcpy(out[i].color, &colors[i * 4], sizeof out[i].color);
        rb_inside_color_of(out[i].color, out[i].inside);
        out[i].inside[3] = out[i].color[3];
    }
}

void rb_renderer_add_spheres(rb_renderer *r, const float *centers, const float *colors, uint32_t count, float radius) {
    if (count == 0) return;
    rb_stream *s = &r->spheres;
    stream_reserve(s, count * SPHERE_INSTANCE_FLOATS);
    for (uint32_t i = 0; i < count; i++) {
        float *dst = &s->data[s->count + i * SPHERE_INSTANCE_FLOATS];
        memcpy(dst, &centers[i * 3], 3 * sizeof(float));
        dst[3] = radius;
        memcpy(dst + 4, &colors[i * 4], 4 * sizeof(float));
    }
    s->count += count * SPHERE_INSTANCE_FLOATS;
}

static void overlay_push(rb_renderer *r, float x, float y, const uint8_t rgba[4]) {
    /* 3 floats of room per 12-byte vertex. */
    stream_reserve(&r->overlay, 3);
    rb_overlay_vertex *v = (rb_overlay_vertex *)&r->overlay.data[r->overlay.count];
    v->x = x, v->y = y;
    memcpy(v->rgba, rgba, 4);
    r->overlay.count += 3;
}

static void overlay_quad(rb_renderer *r, const float xy[8], const uint8_t rgba[4]) {
    static const int tri[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) overlay_push(r, xy[tri[k] * 2], xy[tri[k] * 2 + 1], rgba);
}

static void to_bytes(const float rgba[4], uint8_t out[4]) {
    for (int i = 0; i < 4; i++) {
        float c = rgba[i] < 0.0f ? 0.0f : rgba[i] > 1.0f ? 1.0f : rgba[i];
        out[i] = (uint8_t)(c * 255.0f + 0.5f);
    }
}

void rb_renderer_rect(rb_renderer *r, float x, float y, float w, float h, const float rgba[4]) {
    uint8_t c[4];
    to_bytes(rgba, c);
    const float xy[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
    overlay_quad(r, xy, c);
}

void rb_renderer_lines(rb_renderer *r, const float *points, uint32_t count, const float rgba[4], bool over) {
    if (count == 0) return;
    rb_stream *s = &r->lines[over ? 1 : 0];
    stream_reserve(s, 2 * count * LINE_VERTEX_FLOATS);
    uint8_t c[4];
    to_bytes(rgba, c);
    rb_line_vertex *v = (rb_line_vertex *)&s->data[s->count];
    for (uint32_t i = 0; i < 2 * count; i++) {
        v[i].x = points[i * 3], v[i].y = points[i * 3 + 1], v[i].z = points[i * 3 + 2];
        memcpy(v[i].rgba, c, 4);
    }
    s->count += 2 * count * LINE_VERTEX_FLOATS;
}

void rb_renderer_text_size(const char *text, float scale, float *w, float *h) {
    /* stb_easy_font takes a non-const string but does not write to it. */
    *w = (float)stb_easy_font_width((char *)text) * scale;
    *h = (float)stb_easy_font_height((char *)text) * scale;
}

void rb_renderer_text(rb_renderer *r, float x, float y, float scale, const float rgba[4], const char *text) {
    /* stb_easy_font: about 270 bytes per character is its stated worst case. */
    size_t len = strlen(text);
    size_t bytes = len * 300 + 1024;
    char *quads = malloc(bytes);
    if (!quads) return;
    uint8_t c[4];
    to_bytes(rgba, c);
    /* Each quad: 4 vertices of x, y, z (floats) and 4 colour bytes: 16 bytes. */
    int n = stb_easy_font_print(0.0f, 0.0f, (char *)text, NULL, quads, (int)bytes);
    for (int q = 0; q < n; q++) {
        float xy[8];
        for (int k = 0; k < 4; k++) {
            const float *v = (const float *)(quads + (size_t)(q * 4 + k) * 16);
            xy[k * 2] = x + v[0] * scale;
            xy[k * 2 + 1] = y + v[1] * scale;
        }
        overlay_quad(r, xy, c);
    }
    free(quads);
}

static GLint uloc(GLuint prog, const char *name) {
    GLint loc = glGetUniformLocation(prog, name);
    RB_GL_CHECK(name);
    return loc;
}

static void set_mat4(GLuint prog, const char *name, const float *m) {
    GLint loc = uloc(prog, name);
    if (loc >= 0) RB_GL(glUniformMatrix4fv(loc, 1, GL_FALSE, m));
}
static void set_vec3(GLuint prog, const char *name, const float *v) {
    GLint loc = uloc(prog, name);
    if (loc >= 0) RB_GL(glUniform3fv(loc, 1, v));
}
static void set_vec4(GLuint prog, const char *name, const float *v) {
    GLint loc = uloc(prog, name);
    if (loc >= 0) RB_GL(glUniform4fv(loc, 1, v));
}
static void set_float(GLuint prog, const char *name, float v) {
    GLint loc = uloc(prog, name);
    if (loc >= 0) RB_GL(glUniform1f(loc, v));
}

/* Uniforms every lit program reads (missing ones are skipped). */
static void set_common(rb_renderer *r, GLuint prog, const float *view, const float *proj) {
    mat4 vp, inv_view;
    glm_mat4_mul((vec4 *)proj, (vec4 *)view, vp);
    glm_mat4_inv((vec4 *)view, inv_view);
    RB_GL(glUseProgram(prog));
    set_mat4(prog, "u_view", view);
    set_mat4(prog, "u_proj", proj);
    set_mat4(prog, "u_view_proj", (float *)vp);
    set_mat4(prog, "u_inv_view", (float *)inv_view);
    set_mat4(prog, "u_light_view_proj", (float *)r->light_view_proj);
    set_vec3(prog, "u_light_dir", r->scene.light_dir);
    set_vec3(prog, "u_eye", r->view.eye);
    /* 0 tells the shaders there is no shadow map this frame (shadows off): all is lit. */
    set_float(prog, "u_shadow_texel", r->quality.shadow_size > 0 ? 1.0f / (float)r->quality.shadow_size : 0.0f);
}

/* An orthographic light that covers the focus sphere. */
static void fit_light(rb_renderer *r) {
    float R = r->scene.focus_radius;
    vec3 center, eye, up = {0, 1, 0};
    glm_vec3_copy(r->scene.focus, center);
    glm_vec3_scale(r->scene.light_dir, 2.0f * R, eye);
    glm_vec3_add(center, eye, eye);
    if (fabsf(r->scene.light_dir[1]) > 0.99f) up[0] = 1, up[1] = 0;
    glm_lookat(eye, center, up, r->light_view);
    glm_ortho(-R, R, -R, R, 0.01f, 4.0f * R, r->light_proj);
    glm_mat4_mul(r->light_proj, r->light_view, r->light_view_proj);
}

static void draw_meshes(rb_renderer *r, GLuint prog) {
    GLint box_half = uloc(prog, "u_box_half"), box_center = uloc(prog, "u_box_center");
    for (uint32_t i = 0; i < r->mesh_count; i++) {
        rb_gpu_mesh *m = &r->meshes[i];
        GLsizei n = (GLsizei)(m->instances.count / MESH_INSTANCE_FLOATS);
        if (n == 0) continue;
        if (box_half >= 0) RB_GL(glUniform3fv(box_half, 1, m->box_half));
        if (box_center >= 0) RB_GL(glUniform3fv(box_center, 1, m->box_center));
        RB_GL(glBindVertexArray(m->vao));
        RB_GL(glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)m->index_count, GL_UNSIGNED_INT, (void *)0, n));
    }
}

static void draw_spheres(rb_renderer *r) {
    GLsizei n = (GLsizei)(r->spheres.count / SPHERE_INSTANCE_FLOATS);
    if (n == 0) return;
    RB_GL(glBindVertexArray(r->sphere_vao));
    RB_GL(glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, n));
}

static void shadow_pass(rb_renderer *r) {
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo));
    RB_GL(glViewport(0, 0, r->quality.shadow_size, r->quality.shadow_size));
    RB_GL(glClear(GL_DEPTH_BUFFER_BIT));
    RB_GL(glEnable(GL_DEPTH_TEST));
    /* Pushes depths back a little so lit faces do not shadow themselves (acne). */
    RB_GL(glEnable(GL_POLYGON_OFFSET_FILL));
    RB_GL(glPolygonOffset(1.5f, 2.0f));
    GLuint p = r->programs[PROG_MESH_DEPTH];
    set_common(r, p, (float *)r->light_view, (float *)r->light_proj);
    set_mat4(p, "u_view_proj", (float *)r->light_view_proj);
    draw_meshes(r, p);
    p = r->programs[PROG_SPHERE_DEPTH];
    set_common(r, p, (float *)r->light_view, (float *)r->light_proj);
    set_float(p, "u_ortho", 1.0f);
    draw_spheres(r);
    RB_GL(glDisable(GL_POLYGON_OFFSET_FILL));
    RB_GL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
}

static void draw_planes(rb_renderer *r, bool ground) {
    GLuint p = r->programs[PROG_PLANE];
    set_common(r, p, r->view.view, r->view.proj);
    RB_GL(glBindVertexArray(r->plane_vao));
    for (uint32_t i = 0; i < r->scene.plane_count; i++) {
        const float *pl = r->scene.planes[i];
        bool is_ground = pl[1] > 0.7f;
        if (is_ground != ground) continue;
        set_vec4(p, "u_plane", pl);
        /* The ground reaches to the horizon around the eye; walls span the scene. */
        set_vec3(p, "u_center", ground ? r->view.eye : r->scene.focus);
        set_float(p, "u_extent", ground ? 600.0f : 2.5f * r->scene.focus_radius);
        set_float(p, "u_alpha", ground ? 1.0f : 0.3f);
        RB_GL(glDrawArrays(GL_TRIANGLE_STRIP, 0, 4));
    }
}

/* The lines of one kind, blended (a colour's alpha fades them). */
static void draw_lines(rb_renderer *r, int kind) {
    rb_stream *s = &r->lines[kind];
    if (s->count == 0) return;
    stream_upload(s);
    GLuint p = r->programs[PROG_LINES];
    set_common(r, p, r->view.view, r->view.proj);
    RB_GL(glEnable(GL_BLEND));
    RB_GL(glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    RB_GL(glBindVertexArray(r->line_vaos[kind]));
    RB_GL(glDrawArrays(GL_LINES, 0, (GLsizei)(s->count / LINE_VERTEX_FLOATS)));
    RB_GL(glDisable(GL_BLEND));
}

static void draw_overlay(rb_renderer *r) {
    if (r->overlay.count == 0) return;
    stream_upload(&r->overlay);
    GLuint p = r->programs[PROG_OVERLAY];
    RB_GL(glUseProgram(p));
    GLint loc = uloc(p, "u_screen");
    if (loc >= 0) RB_GL(glUniform2f(loc, (float)r->view.width, (float)r->view.height));
    RB_GL(glDisable(GL_DEPTH_TEST));
    RB_GL(glEnable(GL_BLEND));
    RB_GL(glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    RB_GL(glBindVertexArray(r->overlay_vao));
    RB_GL(glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(r->overlay.count / 3)));
    RB_GL(glDisable(GL_BLEND));
}

bool rb_renderer_end(rb_renderer *r) {
    unsigned errors_before = rb_gl_error_count();
    for (uint32_t i = 0; i < r->mesh_count; i++)
        if (r->meshes[i].instances.count) stream_upload(&r->meshes[i].instances);
    if (r->spheres.count) stream_upload(&r->spheres);
    fit_light(r);

    RB_GL(glDisable(GL_CULL_FACE));
    if (r->quality.shadow_size > 0) shadow_pass(r);

    int scene_w, scene_h;
    const bool offscreen =
        rb_scene_target_bind(&r->target, r->view.width, r->view.height, &r->quality, &scene_w, &scene_h);
    RB_GL(glViewport(0, 0, scene_w, scene_h));
    RB_GL(glClearColor(0.6f, 0.7f, 0.8f, 1.0f));
    RB_GL(glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT));
    RB_GL(glActiveTexture(GL_TEXTURE0));
    RB_GL(glBindTexture(GL_TEXTURE_2D, r->shadow_texture));

    GLuint p;
    RB_GL(glEnable(GL_DEPTH_TEST));
    RB_GL(glDepthFunc(GL_LESS));
    /* Meshes from plugins are closed and wound counter-clockwise; back faces are never seen. */
    RB_GL(glEnable(GL_CULL_FACE));
    RB_GL(glCullFace(GL_BACK));
    p = r->programs[PROG_MESH];
    set_common(r, p, r->view.view, r->view.proj);
    draw_meshes(r, p);
    RB_GL(glDisable(GL_CULL_FACE));
    p = r->programs[PROG_SPHERE];
    set_common(r, p, r->view.view, r->view.proj);
    set_float(p, "u_ortho", 0.0f);
    draw_spheres(r);
    draw_planes(r, true);

    /* Sky last among the opaque things, at the far plane with depth test on:
     * only pixels nothing else covered pay for it. */
    RB_GL(glDepthFunc(GL_LEQUAL));
    RB_GL(glDepthMask(GL_FALSE));
    p = r->programs[PROG_SKY];
    set_common(r, p, r->view.view, r->view.proj);
    mat4 vp, inv_vp;
    glm_mat4_mul((vec4 *)r->view.proj, (vec4 *)r->view.view, vp);
    glm_mat4_inv(vp, inv_vp);
    set_mat4(p, "u_inv_view_proj", (float *)inv_vp);
    RB_GL(glBindVertexArray(r->empty_vao));
    RB_GL(glDrawArrays(GL_TRIANGLES, 0, 3));
    RB_GL(glDepthMask(GL_TRUE));
    RB_GL(glDepthFunc(GL_LESS));

    /* Walls: see-through, after everything opaque, not hiding what is behind. */
    RB_GL(glEnable(GL_BLEND));
    RB_GL(glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    RB_GL(glDepthMask(GL_FALSE));
    draw_planes(r, false);
    RB_GL(glDepthMask(GL_TRUE));
    RB_GL(glDisable(GL_BLEND));

    /* Lines last in the scene: the hidden kind against the depth of
     * everything, the other over it all, under the overlay. */
    draw_lines(r, 0);
    RB_GL(glDisable(GL_DEPTH_TEST));
    draw_lines(r, 1);

    /* The overlay after the scene is scaled up: the HUD's text stays sharp. */
    if (offscreen) rb_scene_target_present(&r->target, scene_w, scene_h, r->view.width, r->view.height);
    RB_GL(glViewport(0, 0, r->view.width, r->view.height));
    draw_overlay(r);
    RB_GL(glBindVertexArray(0));
    RB_GL(glUseProgram(0));
    return rb_gl_error_count() == errors_before;
}

bool rb_renderer_read_pixels(rb_renderer *r, int width, int height, uint8_t *rgba) {
    (void)r;
    unsigned before = rb_gl_error_count();
    RB_GL(glBindFramebuffer(GL_READ_FRAMEBUFFER, 0)); /* the window's: the scene scaled up, the overlay on it */
    RB_GL(glPixelStorei(GL_PACK_ALIGNMENT, 1));
    RB_GL(glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba));
    return rb_gl_error_count() == before;
}

void rb_renderer_finish(rb_renderer *r) {
    (void)r;
    RB_GL(glFinish());
}

unsigned rb_renderer_gl_errors(void) { return rb_gl_error_count(); }

#if defined(__SANITIZE_ADDRESS__)
static int pin_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    const char *name = info->dlpi_name;
    if (name && (strstr(name, "/dri/") || strstr(name, "libgallium") || strstr(name, "libLLVM")))
        /* RTLD_NOLOAD: only takes a reference to what is loaded; never closed. */
        (void)dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}
#endif

void rb_render_pin_gl_driver(void) {
#if defined(__SANITIZE_ADDRESS__)
    dl_iterate_phdr(pin_module, NULL);
#endif
}

void rb_render_describe_gl(char *out, size_t out_size) {
    const char *version = (const char *)glGetString(GL_VERSION);
    RB_GL_CHECK("glGetString(GL_VERSION)");
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    RB_GL_CHECK("glGetString(GL_RENDERER)");
    snprintf(out, out_size, "OpenGL %s on %s", version ? version : "?", renderer ? renderer : "?");
}
