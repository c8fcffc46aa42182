/* render.h - the OpenGL 3.3 core renderer.
 *
 * The renderer knows nothing of the simulation: each frame it is handed
 * arrays of body transforms (position + quaternion, Harada 29.2.8) per mesh,
 * and arrays of sphere centres for the particle view, and draws them lit by
 * one directional light with a shadow map, over a ground grid and the
 * scene's walls, under a sky. Text and panels for the HUD go on top, at the
 * window's full size whatever the render scale (quality.h).
 *
 * Needs a current OpenGL 3.3 core context (epoxy resolves the functions).
 * Units: metres; matrices are column-major 4x4 (cglm's mat4). */
#ifndef RB_RENDER_H
#define RB_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/transform.h"
#include "render/quality.h"

#define RB_RENDER_MAX_PLANES 8

typedef struct rb_renderer rb_renderer;

/* Where the camera is. */
typedef struct rb_render_view {
    float view[16];    /* world -> eye */
    float proj[16];    /* eye -> clip */
    float eye[3];      /* m, world */
    int width, height; /* framebuffer size, pixels */
} rb_render_view;

/* What the frame shows besides the bodies. */
typedef struct rb_render_scene {
    float light_dir[3];                    /* unit, from the scene toward the light; zero = a default sun */
    float focus[3];                        /* m: centre of the sphere the shadow map covers */
    float focus_radius;                    /* m: its radius; <= 0 = 20 */
    uint32_t plane_count;                  /* the scene's planes: a normal with y > 0.7 is ground, others are walls */
    float planes[RB_RENDER_MAX_PLANES][4]; /* unit normal xyz (out of the solid), offset (m) */
} rb_render_scene;

/* One drawn body: its transform, its colour and its inside colour (rgba,
 * 0..1, sRGB: the faces of its mesh marked inside, a break's cut faces), as
 * the instance buffer holds it. The mesh is drawn at the transform's scale
 * times its size (0, as the world leaves it, is 1). */
typedef struct rb_render_instance {
    rb_transform transform;
    float color[4];
    float inside[4];
} rb_render_instance;

/* Builds every shader from shader_dir and the GL objects. NULL with the reason in err. */
rb_renderer *rb_renderer_create(const char *shader_dir, char *err, size_t err_size);
void rb_renderer_destroy(rb_renderer *r);

/* How much each frame draws (quality.h); takes effect at the next frame. A
 * renderer starts at RB_QUALITY_HIGH. Multisampling beyond what the driver
 * has is lowered to what it has (logged). False, and nothing changes, for
 * settings quality.h does not allow. */
bool rb_renderer_set_quality(rb_renderer *r, const rb_render_quality *q);
/* The quality in use: as set, less what the driver could not give. */
rb_render_quality rb_renderer_quality(const rb_renderer *r);
/* The OpenGL renderer's name (GL_RENDERER), e.g. "llvmpipe (LLVM 15.0.6, 256 bits)". */
const char *rb_renderer_gl_name(const rb_renderer *r);

/* Rebuilds every shader from the files. On any failure the old shaders stay
 * in use and err holds "file:line:col: driver message" lines. */
bool rb_renderer_reload(rb_renderer *r, char *err, size_t err_size);
const char *rb_renderer_shader_dir(const rb_renderer *r);

/* Adds a triangle mesh (m, in the frame the transforms refer to); normals may
 * be NULL (then flat normals per triangle are computed). Returns its index or -1. */
int rb_renderer_add_mesh(rb_renderer *r, const float *positions, const float *normals, uint32_t vertex_count,
                         const uint32_t *indices, uint32_t index_count);
/* The same, with `inside` (per vertex, NULL: none) 1 on the faces a cut
 * made inside a broken body (src/scenes/cut.h): drawn in each instance's
 * inside colour, not its colour. */
int rb_renderer_add_mesh_marked(rb_renderer *r, const float *positions, const float *normals, const uint8_t *inside,
                                uint32_t vertex_count, const uint32_t *indices, uint32_t index_count);
uint32_t rb_renderer_mesh_count(const rb_renderer *r);

/* One frame: begin, add what to draw, add overlay, end (which draws it all). */
void rb_renderer_begin(rb_renderer *r, const rb_render_view *view, const rb_render_scene *scene);
/* Room for count more instances of mesh in this frame's instance buffer, to
 * be filled by the caller before the next call into the renderer: the frame's
 * one copy of each transform. NULL for an unknown mesh (or count 0). */
rb_render_instance *rb_renderer_instances(rb_renderer *r, int mesh, uint32_t count);
/* The same from arrays: count transforms and count rgba colours; each
 * inside colour the default one of its colour (rb_inside_color_of,
 * base/color.h). */
void rb_renderer_add_instances(rb_renderer *r, int mesh, const rb_transform *transforms, const float *colors,
                               uint32_t count);
/* count spheres: centres xyz (m), colours rgba each, all of radius (m). */
void rb_renderer_add_spheres(rb_renderer *r, const float *centers, const float *colors, uint32_t count, float radius);
/* count line segments in the world (debug views): points holds 2 * count
 * xyz triples (m), each pair a segment, all in one colour (rgba, 0..1; the
 * alpha blends). over: drawn over everything (no depth test), so what is
 * inside a body shows; else hidden by what is in front of it. One pixel
 * wide (core OpenGL promises no wider); no shadow. */
void rb_renderer_lines(rb_renderer *r, const float *points, uint32_t count, const float rgba[4], bool over);
/* Overlay, in pixels from the top left. */
void rb_renderer_text(rb_renderer *r, float x, float y, float scale, const float rgba[4], const char *text);
void rb_renderer_rect(rb_renderer *r, float x, float y, float w, float h, const float rgba[4]);
/* Size in pixels a text would take at scale. */
void rb_renderer_text_size(const char *text, float scale, float *w, float *h);
/* Draws the frame into the window's framebuffer (0), the scene through a
 * framebuffer of its own where it is multisampled or scaled. False if a GL
 * call failed (logged). */
bool rb_renderer_end(rb_renderer *r);

/* Waits until the frame is drawn. Where nothing presents the frame (an
 * offscreen context) nothing else makes a driver finish it: Mesa's llvmpipe
 * then drops a frame that the next frame's clear covers, and the time it
 * would take is never seen. */
void rb_renderer_finish(rb_renderer *r);

/* Reads the framebuffer (bottom row first, as GL stores it) as RGBA bytes. */
bool rb_renderer_read_pixels(rb_renderer *r, int width, int height, uint8_t *rgba);

/* Under AddressSanitizer only: keeps the loaded GL driver modules (Mesa's DRI
 * driver, LLVM) from being unloaded at exit, so LeakSanitizer can name their
 * leaks and tests/lsan.supp can suppress them (an unloaded module's frames are
 * "<unknown module>"). Does nothing in other builds. Call with a context current. */
void rb_render_pin_gl_driver(void);

/* "OpenGL <version> on <renderer>" of the current context. */
void rb_render_describe_gl(char *out, size_t out_size);

/* GL errors seen so far (every GL call is checked). */
unsigned rb_renderer_gl_errors(void);

#endif
