/* shots.c - a headless run's pictures at simulated times (see shots.h). */
#include "shots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <stb_image_write.h>

#include "app/options.h"
#include "base/decimal.h"
#include "base/replace.h"
#include "camera.h"
#include "capture.h"
#include "framing.h"
#include "render/render.h"
#include "scenes/stage.h"
#include "view.h"
#include "window.h"

struct rb_shots {
    rb_run *run;
    rb_shots_desc desc;
    long steps[RB_MAX_SHOTS]; /* the step each time falls on */
    int next;                 /* the next time due */
    SDL_Window *window;
    SDL_GLContext gl;
    rb_renderer *renderer;
    rb_view *view;
    rb_camera camera;
    uint32_t rows_meshed, shapes_meshed; /* entity rows and world shapes given a mesh so far */
    char err[4096 + 256];                /* why a shot failed; "" while none has */
};

/* Gives the renderer a mesh for each shape that has none yet: the entity
 * table's rows (their registry shape's mesh) and the world shapes without a
 * row (a broken body's pieces: the debris layer's cut mesh, else the
 * particles' cells), as the sandbox does (src/sandbox/sandbox_scene.c). */
static void mesh_shapes(rb_shots *s) {
    const rb_stage *stage = rb_run_stage(s->run);
    rb_entities *table = rb_stage_entities(stage);
    rb_world *w = rb_stage_world(stage);
    for (; s->rows_meshed < rb_entities_count(table); s->rows_meshed++) {
        const rb_mesh *m = &rb_entities_get(table, s->rows_meshed)->shape->mesh;
        if (m->vertex_count > 0)
            rb_entities_set_mesh(table, s->rows_meshed,
                                 rb_renderer_add_mesh(s->renderer, m->positions, m->normals, m->vertex_count,
                                                      m->indices, m->index_count));
    }
    for (; s->shapes_meshed < rb_world_shape_count(w); s->shapes_meshed++) {
        const uint32_t ws = s->shapes_meshed;
        if (rb_entities_of_world_shape(table, ws) >= 0) continue;
        const uint32_t count = rb_world_shape_particles(w, ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (count ? count : 1));
        rb_mesh m;
        if (rb_debris_piece_mesh(rb_stage_debris(stage), ws, &m) ||
            (p && count == rb_world_shape_particles(w, ws, p, count, NULL) &&
             rb_cell_mesh(p, count, rb_world_shape_radius(w, ws), &m))) {
            const int mesh = rb_renderer_add_mesh_marked(s->renderer, m.positions, m.normals, m.inside, m.vertex_count,
                                                         m.indices, m.index_count);
            if (mesh >= 0) rb_entities_set_shape_mesh(table, ws, mesh);
            rb_mesh_free(&m);
        } /* else drawn as its particles */
        free(p);
    }
}

/* The frame just drawn, as an opaque RGB PNG at path, whole or not at all. */
static bool write_png(rb_shots *s, const char *path) {
    const int w = s->desc.width, h = s->desc.height;
    uint8_t *img;
    if (!rb_capture_read(s->renderer, w, h, &img)) {
        snprintf(s->err, sizeof s->err, "--shots %s: the drawn frame cannot be read back", path);
        return false;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) /* opaque RGB: blending may leave alpha below 1 */
        img[i * 3] = img[i * 4], img[i * 3 + 1] = img[i * 4 + 1], img[i * 3 + 2] = img[i * 4 + 2];
    rb_replace out;
    char why[512] = "";
    FILE *f = rb_replace_open(&out, path, "wb", why, sizeof why);
    bool ok = f && stbi_write_png_to_func(rb_replace_put, &out, w, h, 3, img, w * 3) != 0;
    if (f && !ok) snprintf(why, sizeof why, "the PNG cannot be made");
    ok = f && rb_replace_close(&out, ok, why, sizeof why);
    free(img);
    if (!ok) snprintf(s->err, sizeof s->err, "--shots %s: %s", path, why);
    return ok;
}

/* Draws the run as it is now and writes the shot of time `time`. */
static bool take(void *user, double time) {
    rb_shots *s = user;
    const double asked = s->desc.times[s->next++];
    (void)time; /* the file is named for the time asked; the picture is of the step it falls on */
    char path[4096 + 64];
    if (!rb_options_shot_name(s->desc.prefix, asked, path, sizeof path)) {
        snprintf(s->err, sizeof s->err, "--shot-prefix %s: the name is too long", s->desc.prefix);
        return false;
    }
    const rb_stage *stage = rb_run_stage(s->run);
    rb_world *w = rb_stage_world(stage);
    mesh_shapes(s);
    if (!rb_view_read(s->view, w)) {
        snprintf(s->err, sizeof s->err, "--shots %s: the bodies cannot be read", path);
        return false;
    }
    rb_render_view view = {.width = s->desc.width, .height = s->desc.height};
    rb_camera_matrices(&s->camera, view.width, view.height, view.view, view.proj);
    memcpy(view.eye, s->camera.position, sizeof view.eye);
    rb_render_scene scene = {0};
    const rb_world_desc *desc = rb_world_get_desc(w);
    scene.plane_count = desc->plane_count < RB_RENDER_MAX_PLANES ? desc->plane_count : RB_RENDER_MAX_PLANES;
    for (uint32_t i = 0; i < scene.plane_count; i++) {
        memcpy(scene.planes[i], desc->planes[i].normal, 3 * sizeof(float));
        scene.planes[i][3] = desc->planes[i].offset;
    }
    rb_view_focus(s->view, scene.focus, &scene.focus_radius);
    rb_renderer_begin(s->renderer, &view, &scene);
    const rb_view_style style = {.debris = rb_stage_debris(stage), .colors = rb_stage_colors(stage)};
    rb_view_submit(s->view, s->renderer, w, rb_stage_entities(stage), &style);
    if (!rb_renderer_end(s->renderer)) {
        snprintf(s->err, sizeof s->err, "--shots %s: drawing failed (see the log)", path);
        return false;
    }
    rb_renderer_finish(s->renderer);
    return write_png(s, path);
}

/* The camera: the scene's start camera, else its first bookmark, else the
 * bodies as they are now framed from the sandbox's heading. */
static void place_camera(rb_shots *s) {
    rb_camera_init(&s->camera, (const float[3]){0.0f, 3.0f, 10.0f}, (const float[3]){0.0f, 1.0f, 0.0f});
    const rb_scene *scene = rb_run_get_scene(s->run);
    const rb_scene_bookmark *b = scene && scene->start.set ? &scene->start : NULL;
    for (int i = 0; scene && scene->has_camera && !b && i < RB_SCENE_BOOKMARKS; i++)
        if (scene->bookmarks[i].set) b = &scene->bookmarks[i];
    if (b) {
        rb_camera_place(&s->camera, b->position, b->yaw, b->pitch);
        return;
    }
    rb_world *w = rb_run_world(s->run);
    float lo[3], hi[3], box_lo[3], box_hi[3];
    if (!rb_view_read(s->view, w) || !rb_view_bounds(s->view, w, lo, hi)) lo[0] = 1.0f, hi[0] = 0.0f;
    rb_framing_box(lo, hi, box_lo, box_hi);
    s->camera.yaw = RB_FRAMING_YAW, s->camera.pitch = RB_FRAMING_PITCH;
    rb_framing_fit(&s->camera, box_lo, box_hi, (float)s->desc.width / (float)s->desc.height, RB_FRAMING_MARGIN, 0.0f);
}

rb_shots *rb_shots_open(const rb_shots_desc *d, float dt_s, char *err, size_t err_size) {
    const double dt = rb_decimal(dt_s);
    if (d->count < 1 || d->count > RB_MAX_SHOTS) {
        snprintf(err, err_size, "--shots takes 1 to %d times", RB_MAX_SHOTS);
        return NULL;
    }
    if (!d->shaders || !d->shaders[0]) {
        snprintf(err, err_size, "--shots: no shaders/ folder was found (--shaders DIR names one)");
        return NULL;
    }
    rb_shots *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "--shots: out of memory");
        return NULL;
    }
    s->desc = *d;
    for (int i = 0; i < d->count; i++) {
        if (!(d->times[i] >= 0.0) || d->times[i] / dt > (double)d->steps + 1e-6) {
            snprintf(err, err_size, "--shots: %g s is not within the run, 0 to %g s (%ld steps of %g s)", d->times[i],
                     (double)d->steps * dt, d->steps, dt);
            free(s);
            return NULL;
        }
        s->steps[i] = (long)ceil(d->times[i] / dt - 1e-6); /* the first step at or after it, as frames fall (run.h) */
        if (s->steps[i] < 0) s->steps[i] = 0;
    }
    setenv("SDL_VIDEODRIVER", "offscreen", 0); /* a headless run opens no window on a display */
    char why[1024];
    s->window = rb_window_open(d->width, d->height, false, &s->gl, why, sizeof why);
    int dw = 0, dh = 0;
    if (s->window) SDL_GL_GetDrawableSize(s->window, &dw, &dh);
    if (s->window && (dw != d->width || dh != d->height))
        snprintf(why, sizeof why, "the context is %dx%d pixels, not the %dx%d asked for", dw, dh, d->width, d->height);
    else if (s->window && !(s->renderer = rb_renderer_create(d->shaders, why, sizeof why)))
        ;
    else if (s->window && !(s->view = rb_view_create()))
        snprintf(why, sizeof why, "out of memory");
    if (!s->view) {
        snprintf(err, err_size, "--shots: cannot draw offscreen: %s", why);
        rb_shots_end(s);
        return NULL;
    }
    const rb_render_quality q = rb_quality_choose(rb_renderer_gl_name(s->renderer), -1, -1, 0.0f);
    rb_renderer_set_quality(s->renderer, &q);
    return s;
}

void rb_shots_attach(rb_shots *s, rb_run *run) {
    s->run = run;
    place_camera(s);
    rb_run_on_steps(run, s->steps, (uint32_t)s->desc.count, take, s);
}

bool rb_shots_ok(const rb_shots *s, char *err, size_t err_size) {
    if (!s || !s->err[0]) return true;
    snprintf(err, err_size, "%s", s->err);
    return false;
}

void rb_shots_end(rb_shots *s) {
    if (!s) return;
    rb_view_destroy(s->view);
    if (s->renderer) rb_renderer_destroy(s->renderer);
    if (s->gl) SDL_GL_DeleteContext(s->gl);
    if (s->window) SDL_DestroyWindow(s->window);
    SDL_Quit(); /* rb_window_open's SDL_Init, whether or not the window came */
    free(s);
}
