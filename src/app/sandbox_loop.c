/* sandbox_loop.c - the sandbox loop: events, a fixed simulation step, drawing. */
#include "base/clock.h"
#include "sandbox.h"

#include "app.h"
#include "base/log.h"
#include "base/rb_math.h"
#include "hud.h"
#include "paths.h"
#include "render/render.h"
#include "scenes/formations.h"
#include "script.h"

#include <SDL.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Longest frame the clock accepts (s): a stall (a breakpoint, a dragged
 * window) does not turn into a burst of catch-up steps. */
#define RB_MAX_FRAME_DT 0.1
/* Wall time (s) the simulation may take per frame before it is slowed down
 * instead of falling further behind (the spiral of death). */
#define RB_SIM_BUDGET 0.030
/* Steps per rb_world_step() call: the grab spring is re-aimed between calls. */
#define RB_STEP_CHUNK 16
#define RB_GRAB_CHUNK 4
/* Explosion: radius (m) and the kick (m/s) at its centre. */
#define RB_EXPLODE_RADIUS 4.0f
#define RB_EXPLODE_SPEED 14.0f

struct rb_sandbox {
    rb_options opts;
    SDL_Window *window;
    SDL_GLContext gl;
    uint32_t window_id;
    rb_renderer *renderer;
    rb_registry *registry;
    rb_world *world;

    /* Shapes by registry index: the world's shape index and the renderer's mesh (-1: none). */
    int *shape_world, *shape_mesh;
    uint32_t shape_count;
    /* Registry index by world shape index. */
    int *world_shape_registry;
    uint32_t world_shape_count;
    int selected_shape;  /* registry index the throw tool uses */
    int formation_shape; /* registry index formations are built from */
    int formation;

    rb_camera camera;
    rb_tool tool;
    bool keys[SDL_NUM_SCANCODES];
    float mouse_x, mouse_y; /* pixels, window coordinates */
    bool looking;           /* right button held */
    bool throwing;          /* left button held with the throw tool */
    double throw_start;
    rb_grab grab;

    bool paused, step_once, particle_view, help, vsync, quit, hide_hud;
    char last_error[512]; /* the log's last error as last seen, and when it changed */
    double error_since;
    double fixed_dt;    /* s per frame, 0 = wall clock */
    double clock;       /* s, the sandbox clock */
    double last_wall;   /* s, wall clock at the previous frame */
    double accumulator; /* s of simulation owed */
    uint64_t frame, steps;
    uint32_t frame_steps;
    bool slowed;
    double fps, frame_ms, sim_ms, sim_rate;
    double step_cost; /* s of wall time per step, smoothed: sizes the chunks on a slow machine */

    rb_script *script;
    double script_start;

    /* Per-frame arrays, grown as needed. */
    rb_transform *transforms, *sorted;
    float *colors, *particles, *particle_colors;
    uint32_t *body_shape; /* world shape of each body, this frame */
    uint32_t body_cap, particle_cap;

    int width, height; /* drawable, pixels */
    char shader_error[2048];
    char message[640];
    double message_until;
    char pending_shot[512]; /* a screenshot asked for during this frame's events */
    rb_body_id last_thrown, last_deleted;
    int last_exploded;
    int screenshots;
    uint32_t throw_count;
};

static void notice(rb_sandbox *sb, const char *text) {
    snprintf(sb->message, sizeof sb->message, "%s", text);
    sb->message_until = sb->clock + 3.0;
}

/* ---- colours ---- */

void rb_sandbox_body_color(rb_body_id id, float rgba[4]) {
    /* Saturated but not garish, distinct from the grey ground and the blue sky. */
    static const float palette[][3] = {
        {0.90f, 0.30f, 0.22f}, {0.95f, 0.62f, 0.15f}, {0.95f, 0.85f, 0.30f}, {0.45f, 0.78f, 0.30f},
        {0.20f, 0.65f, 0.60f}, {0.30f, 0.50f, 0.90f}, {0.60f, 0.40f, 0.85f}, {0.90f, 0.45f, 0.65f},
    };
    uint32_t h = id.slot * 2654435761u ^ id.generation * 40503u;
    h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12;
    const float *c = palette[h % (sizeof palette / sizeof *palette)];
    float shade = 0.85f + 0.15f * (float)((h >> 8) & 0xff) / 255.0f;
    for (int k = 0; k < 3; k++) rgba[k] = c[k] * shade;
    rgba[3] = 1.0f;
}

/* ---- shapes ---- */

/* Registers registry shapes [shape_count, registry count) with the world and the renderer. */
static bool sync_shapes(rb_sandbox *sb) {
    uint32_t n = rb_registry_count(sb->registry);
    if (n == sb->shape_count) return true;
    int *sw = realloc(sb->shape_world, n * sizeof *sw);
    if (sw) sb->shape_world = sw;
    int *sm = realloc(sb->shape_mesh, n * sizeof *sm);
    if (sm) sb->shape_mesh = sm;
    if (!sw || !sm) return false;
    for (uint32_t i = sb->shape_count; i < n; i++) {
        const rb_shape *s = rb_registry_get(sb->registry, i);
        int ws = rb_scene_add_shape(sb->world, s);
        sb->shape_world[i] = ws;
        sb->shape_mesh[i] = -1;
        if (s->mesh.vertex_count > 0)
            sb->shape_mesh[i] = rb_renderer_add_mesh(sb->renderer, s->mesh.positions, s->mesh.normals,
                                                     s->mesh.vertex_count, s->mesh.indices, s->mesh.index_count);
        if (ws >= 0) {
            if ((uint32_t)ws >= sb->world_shape_count) {
                uint32_t cap = (uint32_t)ws + 1;
                int *inv = realloc(sb->world_shape_registry, cap * sizeof *inv);
                if (!inv) return false;
                for (uint32_t k = sb->world_shape_count; k < cap; k++) inv[k] = -1;
                sb->world_shape_registry = inv;
                sb->world_shape_count = cap;
            }
            sb->world_shape_registry[ws] = (int)i;
        }
    }
    sb->shape_count = n;
    return true;
}

static const rb_shape *shape_at(const rb_sandbox *sb, int index) {
    return index >= 0 && (uint32_t)index < sb->shape_count ? rb_registry_get(sb->registry, (uint32_t)index) : NULL;
}

static void cycle_shape(rb_sandbox *sb, int delta) {
    if (sb->shape_count == 0) return;
    int n = (int)sb->shape_count;
    sb->selected_shape = ((sb->selected_shape + delta) % n + n) % n;
    char text[128];
    snprintf(text, sizeof text, "throwing %s", shape_at(sb, sb->selected_shape)->name);
    notice(sb, text);
}

/* ---- scene ---- */

/* Frames the bodies: looks at their middle from the front right and above, far
 * enough back that a sphere around them all fits the view. */
static void place_camera_for_scene(rb_sandbox *sb) {
    uint32_t n = rb_world_body_count(sb->world);
    float lo[3] = {-4.0f, 0.0f, -4.0f}, hi[3] = {4.0f, 3.0f, 4.0f};
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s;
        if (!rb_world_get_body(sb->world, b, &s)) continue;
        for (int k = 0; k < 3; k++) {
            if (s.position[k] < lo[k]) lo[k] = s.position[k];
            if (s.position[k] > hi[k]) hi[k] = s.position[k];
        }
    }
    float target[3], radius = 0.0f;
    for (int k = 0; k < 3; k++) {
        target[k] = 0.5f * (lo[k] + hi[k]);
        radius += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    radius = sqrtf(radius);
    /* The stacks fall and spread: aim a little below their middle. */
    target[1] *= 0.9f;
    float dist = 1.1f * radius / sinf(0.5f * glm_rad(60.0f));
    float dir[3] = {0.42f, 0.38f, 1.0f};
    float len = sqrtf(rb_v3_dot(dir, dir));
    float eye[3];
    for (int k = 0; k < 3; k++) eye[k] = target[k] + dir[k] / len * dist;
    float speed = sb->camera.speed;
    rb_camera_init(&sb->camera, eye, target);
    if (speed > 0.0f) sb->camera.speed = speed;
}

void rb_sandbox_reset(rb_sandbox *sb, int formation) {
    if (formation < 1 || formation > RB_FORMATION_COUNT) formation = 1;
    sb->formation = formation;
    rb_grab_end(&sb->grab);
    rb_world_clear(sb->world);
    sb->accumulator = 0.0;
    const rb_shape *s = shape_at(sb, sb->formation_shape);
    if (!s || sb->shape_world[sb->formation_shape] < 0 || sb->opts.bodies <= 0) return;
    int added =
        rb_formation_build(sb->world, formation, sb->opts.bodies, (uint32_t)sb->shape_world[sb->formation_shape], s);
    if (added < sb->opts.bodies)
        rb_log(RB_LOG_WARN, "formation %d: only %d of %d bodies could be added", formation, added, sb->opts.bodies);
}

/* ---- window and GL ---- */

static bool open_window(rb_sandbox *sb, char *err, size_t err_size) {
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        snprintf(err, err_size, "SDL_Init: %s", SDL_GetError());
        return false;
    }
    int w = sb->opts.width > 0 ? sb->opts.width : 1280, h = sb->opts.height > 0 ? sb->opts.height : 720;
    /* 4x multisampling where the driver offers it; without, if it does not. */
    for (int attempt = 0; attempt < 2 && !sb->gl; attempt++) {
        SDL_GL_ResetAttributes();
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
        SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, attempt == 0 ? 1 : 0);
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, attempt == 0 ? 4 : 0);
        sb->window = SDL_CreateWindow("Rubble", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                                      SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
        if (!sb->window) continue;
        sb->gl = SDL_GL_CreateContext(sb->window);
        if (!sb->gl) {
            SDL_DestroyWindow(sb->window);
            sb->window = NULL;
        }
    }
    if (!sb->gl) {
        snprintf(err, err_size, "no OpenGL 3.3 core context: %s", SDL_GetError());
        return false;
    }
    SDL_GL_MakeCurrent(sb->window, sb->gl);
    if (SDL_GL_SetSwapInterval(sb->vsync ? 1 : 0) != 0 && sb->vsync)
        rb_log(RB_LOG_INFO, "vsync is not available: %s", SDL_GetError());
    sb->window_id = SDL_GetWindowID(sb->window);
    rb_render_pin_gl_driver();
    char gl[256];
    rb_render_describe_gl(gl, sizeof gl);
    rb_log(RB_LOG_INFO, "%s", gl);
    return true;
}

rb_sandbox *rb_sandbox_create(const rb_options *opts, char *err, size_t err_size) {
    rb_sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sb->opts = *opts;
    sb->vsync = opts->vsync;
    sb->formation = opts->formation >= 1 && opts->formation <= RB_FORMATION_COUNT ? opts->formation : 1;
    if (opts->script || opts->screenshot || opts->frames > 0) sb->fixed_dt = 1.0 / 60.0;
    if (!open_window(sb, err, err_size)) goto fail;

    char shader_dir[1024];
    /* --shaders first; else $RUBBLE_SHADER_DIR; else where the program finds its
     * other data (beside it, ../share/rubble, the install folder, the source tree). */
    const char *env = getenv("RUBBLE_SHADER_DIR");
    if (opts->shader_dir && *opts->shader_dir)
        snprintf(shader_dir, sizeof shader_dir, "%s", opts->shader_dir);
    else if (env && *env)
        snprintf(shader_dir, sizeof shader_dir, "%s", env);
    else if (!rb_find_data_dir("shaders", shader_dir, sizeof shader_dir) &&
             !rb_render_find_shader_dir(rb_exe_dir(), shader_dir, sizeof shader_dir)) {
        snprintf(err, err_size, "no shaders/ folder beside %s, in the source tree or the install folder", rb_exe_dir());
        goto fail;
    }
    sb->renderer = rb_renderer_create(shader_dir, err, err_size);
    if (!sb->renderer) goto fail;

    sb->registry = rb_app_registry(opts);
    if (!sb->registry) {
        snprintf(err, err_size, "cannot create the shape registry");
        goto fail;
    }
    rb_world_desc desc = rb_app_world_desc(opts);
    sb->world = rb_world_create(&desc, err, err_size);
    if (!sb->world) goto fail;
    if (!sync_shapes(sb)) {
        snprintf(err, err_size, "out of memory registering shapes");
        goto fail;
    }
    if (sb->shape_count == 0) rb_log(RB_LOG_WARN, "no shapes loaded: check the plugins folder");
    int want = opts->shape ? rb_registry_find(sb->registry, opts->shape) : -1;
    if (opts->shape && want < 0 && sb->shape_count > 0)
        rb_log(RB_LOG_WARN, "no shape named '%s'; using %s", opts->shape, shape_at(sb, 0)->name);
    sb->formation_shape = sb->selected_shape = want >= 0 ? want : 0;

    if (opts->script) {
        sb->script = rb_script_load(opts->script, err, err_size);
        if (!sb->script) goto fail;
    }
    rb_sandbox_reset(sb, sb->formation);
    place_camera_for_scene(sb);
    SDL_GL_GetDrawableSize(sb->window, &sb->width, &sb->height);
    int window_w, window_h; /* the cursor is in window coordinates, not drawable pixels (high DPI) */
    SDL_GetWindowSize(sb->window, &window_w, &window_h);
    sb->mouse_x = 0.5f * (float)window_w, sb->mouse_y = 0.5f * (float)window_h;
    sb->last_wall = rb_seconds();
    sb->fps = 60.0;
    sb->sim_rate = 1.0;
    return sb;
fail:
    rb_sandbox_destroy(sb);
    return NULL;
}

void rb_sandbox_destroy(rb_sandbox *sb) {
    if (!sb) return;
    rb_script_destroy(sb->script);
    rb_world_destroy(sb->world);
    rb_registry_destroy(sb->registry);
    if (sb->renderer) rb_renderer_destroy(sb->renderer);
    if (sb->gl) SDL_GL_DeleteContext(sb->gl);
    if (sb->window) SDL_DestroyWindow(sb->window);
    SDL_Quit();
    free(sb->shape_world), free(sb->shape_mesh), free(sb->world_shape_registry);
    free(sb->transforms), free(sb->colors), free(sb->particles), free(sb->particle_colors), free(sb->sorted),
        free(sb->body_shape);
    free(sb);
}

void rb_sandbox_set_fixed_dt(rb_sandbox *sb, double dt) { sb->fixed_dt = dt > 0.0 ? dt : 0.0; }

bool rb_sandbox_set_script(rb_sandbox *sb, const char *text, char *err, size_t err_size) {
    rb_script *s = rb_script_parse(text, "script", err, err_size);
    if (!s) return false;
    rb_script_destroy(sb->script);
    sb->script = s;
    sb->script_start = sb->clock;
    return true;
}

rb_world *rb_sandbox_world(rb_sandbox *sb) { return sb->world; }

int rb_sandbox_world_shape(const rb_sandbox *sb, const char *name) {
    int reg = rb_registry_find(sb->registry, name);
    return reg >= 0 && (uint32_t)reg < sb->shape_count ? sb->shape_world[reg] : -1;
}
rb_camera *rb_sandbox_camera(rb_sandbox *sb) { return &sb->camera; }

void rb_sandbox_get_stats(const rb_sandbox *sb, rb_sandbox_stats *o) {
    *o = (rb_sandbox_stats){
        .frame = sb->frame,
        .time = sb->clock,
        .steps = sb->steps,
        .bodies = rb_world_body_count(sb->world),
        .particles = rb_world_particle_count(sb->world),
        .tool = sb->tool,
        .shape = sb->selected_shape,
        .shape_count = (int)sb->shape_count,
        .formation = sb->formation,
        .paused = sb->paused,
        .particle_view = sb->particle_view,
        .help = sb->help,
        .quit = sb->quit,
        .grabbing = sb->grab.active,
        .grabbed = sb->grab.active ? sb->grab.body : (rb_body_id){0},
        .last_thrown = sb->last_thrown,
        .last_deleted = sb->last_deleted,
        .last_exploded = sb->last_exploded,
        .gl_errors = rb_renderer_gl_errors(),
        .shader_error = sb->shader_error[0] != '\0',
        .screenshots = sb->screenshots,
        .frame_steps = sb->frame_steps,
        .slowed = sb->slowed,
        .sim_rate = sb->sim_rate,
    };
    memcpy(o->grab_target, sb->grab.target, sizeof o->grab_target);
}

/* ---- per-frame buffers ---- */

static bool reserve(rb_sandbox *sb, uint32_t bodies, uint32_t particles) {
    if (bodies > sb->body_cap) {
        uint32_t cap = bodies + bodies / 2 + 64;
        rb_transform *t = realloc(sb->transforms, (size_t)cap * sizeof *t);
        if (t) sb->transforms = t;
        float *c = realloc(sb->colors, (size_t)cap * 4 * sizeof(float));
        if (c) sb->colors = c;
        rb_transform *s = realloc(sb->sorted, (size_t)cap * sizeof *s);
        if (s) sb->sorted = s;
        uint32_t *bs = realloc(sb->body_shape, (size_t)cap * sizeof(uint32_t));
        if (bs) sb->body_shape = bs;
        if (!t || !c || !s || !bs) return false;
        sb->body_cap = cap;
    }
    if (particles > sb->particle_cap) {
        uint32_t cap = particles + particles / 2 + 256;
        float *p = realloc(sb->particles, (size_t)cap * 3 * sizeof(float));
        if (p) sb->particles = p;
        float *c = realloc(sb->particle_colors, (size_t)cap * 4 * sizeof(float));
        if (c) sb->particle_colors = c;
        if (!p || !c) return false;
        sb->particle_cap = cap;
    }
    return true;
}

/* Reads every particle's position into sb->particles. */
static bool read_particles(rb_sandbox *sb) {
    uint32_t np = rb_world_particle_count(sb->world);
    if (!reserve(sb, rb_world_body_count(sb->world), np)) return false;
    return np == 0 || rb_world_read_particles(sb->world, sb->particles);
}

/* ---- tools ---- */

static void cursor_ray(const rb_sandbox *sb, float origin[3], float dir[3]) {
    /* Mouse events are in window units; on a high-DPI screen the drawable has more pixels. */
    int ww = 0, wh = 0;
    SDL_GetWindowSize(sb->window, &ww, &wh);
    float sx = ww > 0 ? (float)sb->width / (float)ww : 1.0f, sy = wh > 0 ? (float)sb->height / (float)wh : 1.0f;
    rb_camera_ray(&sb->camera, sb->width, sb->height, sb->mouse_x * sx, sb->mouse_y * sy, origin, dir);
}

static rb_pick pick_under_cursor(rb_sandbox *sb) {
    float o[3], d[3];
    cursor_ray(sb, o, d);
    if (!read_particles(sb)) return (rb_pick){0};
    return rb_pick_ray(sb->world, sb->particles, o, d);
}

static void do_throw(rb_sandbox *sb, double held) {
    const rb_shape *s = shape_at(sb, sb->selected_shape);
    if (!s) {
        rb_log(RB_LOG_WARN, "nothing to throw: no shape is loaded");
        return;
    }
    if (sb->shape_world[sb->selected_shape] < 0) {
        rb_log(RB_LOG_WARN, "cannot throw '%s': the world refused the shape", s->name);
        return;
    }
    float o[3], d[3];
    cursor_ray(sb, o, d);
    /* Start just clear of the eye, so the body does not fill the view. */
    float ahead = s->bounding_radius + 0.6f;
    rb_body_id id = rb_tool_throw(sb->world, (uint32_t)sb->shape_world[sb->selected_shape], o, d, ahead,
                                  rb_throw_speed(held), ++sb->throw_count);
    if (id.generation != 0) sb->last_thrown = id;
}

static void tool_press(rb_sandbox *sb) {
    bool alt = sb->keys[SDL_SCANCODE_LALT] || sb->keys[SDL_SCANCODE_RALT];
    rb_tool tool = alt ? RB_TOOL_GRAB : sb->tool;
    switch (tool) {
    case RB_TOOL_THROW:
        sb->throwing = true;
        sb->throw_start = sb->clock;
        break;
    case RB_TOOL_GRAB: {
        rb_pick p = pick_under_cursor(sb);
        if (p.body_hit) rb_grab_begin(&sb->grab, sb->world, &p);
        break;
    }
    case RB_TOOL_DELETE: {
        rb_pick p = pick_under_cursor(sb);
        if (p.body_hit && rb_world_remove_body(sb->world, p.body)) {
            sb->last_deleted = p.body;
            if (sb->grab.active && sb->grab.body.slot == p.body.slot) rb_grab_end(&sb->grab);
        }
        break;
    }
    case RB_TOOL_EXPLODE: {
        rb_pick p = pick_under_cursor(sb);
        if (p.hit) sb->last_exploded = rb_tool_explode(sb->world, p.point, RB_EXPLODE_RADIUS, RB_EXPLODE_SPEED);
        break;
    }
    default:
        break;
    }
}

static void tool_release(rb_sandbox *sb) {
    if (sb->throwing) {
        sb->throwing = false;
        do_throw(sb, sb->clock - sb->throw_start);
    }
    rb_grab_end(&sb->grab);
}

/* ---- keys ---- */

static void reload_shaders(rb_sandbox *sb) {
    char err[2048];
    if (rb_renderer_reload(sb->renderer, err, sizeof err)) {
        sb->shader_error[0] = '\0';
        notice(sb, "shaders reloaded");
        rb_log(RB_LOG_INFO, "shaders reloaded from %s", rb_renderer_shader_dir(sb->renderer));
    } else {
        snprintf(sb->shader_error, sizeof sb->shader_error, "%s", err);
        rb_log(RB_LOG_ERROR, "shader reload failed; the old shaders stay in use:\n%s", err);
    }
}

static void save_screenshot_key(rb_sandbox *sb) {
    char name[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(name, sizeof name, "rubble-%Y%m%d-%H%M%S.png", &tm);
    /* Taken once this frame is drawn, before it is presented. */
    snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", name);
}

static void key_down(rb_sandbox *sb, const SDL_KeyboardEvent *k) {
    if (k->keysym.scancode < SDL_NUM_SCANCODES) sb->keys[k->keysym.scancode] = true;
    if (k->repeat) return;
    bool shift = sb->keys[SDL_SCANCODE_LSHIFT] || sb->keys[SDL_SCANCODE_RSHIFT];
    SDL_Keycode key = k->keysym.sym;
    switch (key) {
    case SDLK_ESCAPE:
        sb->quit = true;
        break;
    case SDLK_F1:
        sb->help = !sb->help;
        break;
    case SDLK_h:
        sb->hide_hud = !sb->hide_hud;
        break;
    case SDLK_F5:
        reload_shaders(sb);
        break;
    case SDLK_F12:
        save_screenshot_key(sb);
        break;
    case SDLK_p:
        sb->particle_view = !sb->particle_view;
        break;
    case SDLK_SPACE:
        sb->paused = !sb->paused;
        break;
    case SDLK_n:
        if (sb->paused) sb->step_once = true;
        break;
    case SDLK_r:
        rb_sandbox_reset(sb, sb->formation);
        break;
    case SDLK_TAB:
        cycle_shape(sb, shift ? -1 : 1);
        break;
    case SDLK_LEFTBRACKET:
        cycle_shape(sb, -1);
        break;
    case SDLK_RIGHTBRACKET:
        cycle_shape(sb, 1);
        break;
    case SDLK_t:
        sb->tool = RB_TOOL_THROW;
        break;
    case SDLK_g:
        sb->tool = RB_TOOL_GRAB;
        break;
    case SDLK_x:
        sb->tool = RB_TOOL_DELETE;
        break;
    case SDLK_b:
        sb->tool = RB_TOOL_EXPLODE;
        break;
    case SDLK_v:
        sb->vsync = !sb->vsync;
        if (SDL_GL_SetSwapInterval(sb->vsync ? 1 : 0) != 0)
            notice(sb, "vsync cannot be changed here");
        else
            notice(sb, sb->vsync ? "vsync on" : "vsync off");
        break;
    case SDLK_l: {
        int added = rb_registry_rescan(sb->registry);
        sync_shapes(sb);
        char text[96];
        snprintf(text, sizeof text, "plugins rescanned: %d new shape%s", added, added == 1 ? "" : "s");
        notice(sb, text);
        break;
    }
    default:
        if (key >= SDLK_1 && key <= SDLK_5) rb_sandbox_reset(sb, (int)(key - SDLK_0));
        break;
    }
}

static void handle_event(rb_sandbox *sb, const SDL_Event *e) {
    switch (e->type) {
    case SDL_QUIT:
        sb->quit = true;
        break;
    case SDL_WINDOWEVENT:
        /* Keys released while another window had the focus never arrive: forget them all. */
        if (e->window.event == SDL_WINDOWEVENT_FOCUS_LOST) memset(sb->keys, 0, sizeof sb->keys);
        break;
    case SDL_KEYDOWN:
        key_down(sb, &e->key);
        break;
    case SDL_KEYUP:
        if (e->key.keysym.scancode < SDL_NUM_SCANCODES) sb->keys[e->key.keysym.scancode] = false;
        break;
    case SDL_MOUSEMOTION:
        if (sb->looking)
            rb_camera_turn(&sb->camera, (float)e->motion.xrel, (float)e->motion.yrel);
        else
            sb->mouse_x = (float)e->motion.x, sb->mouse_y = (float)e->motion.y;
        break;
    case SDL_MOUSEBUTTONDOWN:
        sb->mouse_x = (float)e->button.x, sb->mouse_y = (float)e->button.y;
        if (e->button.button == SDL_BUTTON_RIGHT) {
            sb->looking = true;
            /* Relative mode hides the cursor and keeps it in the window; a driver without it still turns. */
            SDL_SetRelativeMouseMode(SDL_TRUE);
        } else if (e->button.button == SDL_BUTTON_LEFT) {
            tool_press(sb);
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_RIGHT) {
            sb->looking = false;
            SDL_SetRelativeMouseMode(SDL_FALSE);
        } else if (e->button.button == SDL_BUTTON_LEFT) {
            tool_release(sb);
        }
        break;
    case SDL_MOUSEWHEEL: {
        float notches = e->wheel.preciseY != 0.0f ? e->wheel.preciseY : (float)e->wheel.y;
        if (e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED) notches = -notches;
        if (sb->grab.active)
            rb_grab_wheel(&sb->grab, notches);
        else
            rb_camera_wheel(&sb->camera, notches);
        break;
    }
    default:
        if (e->type != 0 && e->type == rb_script_screenshot_event() && e->user.data1)
            snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", (const char *)e->user.data1);
        break;
    }
}

/* ---- simulation ---- */

/* frame_dt: s of sandbox clock to simulate; real_dt: s of wall time the frame took (for the rate shown). */
static void simulate(rb_sandbox *sb, double frame_dt, double real_dt) {
    const double dt = rb_world_get_desc(sb->world)->dt;
    sb->frame_steps = 0;
    double t0 = rb_seconds();
    if (sb->paused) {
        sb->accumulator = 0.0;
        if (sb->step_once) {
            rb_grab_apply(&sb->grab, sb->world, 1);
            if (rb_world_step(sb->world, 1)) sb->frame_steps = 1;
            sb->step_once = false;
        }
    } else {
        sb->accumulator += frame_dt;
        /* Never more steps than the longest frame needs, even on a fixed clock. */
        const uint32_t max_steps = (uint32_t)ceil(RB_MAX_FRAME_DT / dt);
        bool out_of_time = false;
        while (sb->accumulator >= dt && sb->frame_steps < max_steps) {
            uint32_t chunk = sb->grab.active ? RB_GRAB_CHUNK : RB_STEP_CHUNK;
            uint32_t owed = (uint32_t)(sb->accumulator / dt);
            if (chunk > owed) chunk = owed;
            if (chunk > max_steps - sb->frame_steps) chunk = max_steps - sb->frame_steps;
            if (sb->fixed_dt == 0.0 && sb->step_cost > 0.0) {
                /* No more steps than fit in what is left of the budget (at least one, so it always moves). */
                double left = RB_SIM_BUDGET - (rb_seconds() - t0);
                uint32_t fit = left > 0.0 ? (uint32_t)(left / sb->step_cost) : 0;
                if (fit < 1) fit = 1;
                if (chunk > fit) chunk = fit;
            }
            double c0 = rb_seconds();
            rb_grab_apply(&sb->grab, sb->world, chunk);
            if (!rb_world_step(sb->world, chunk)) {
                sb->paused = true; /* a backend failure was logged; stop rather than repeat it each frame */
                break;
            }
            double cost = (rb_seconds() - c0) / chunk;
            sb->step_cost = sb->step_cost > 0.0 ? 0.7 * sb->step_cost + 0.3 * cost : cost;
            sb->accumulator -= chunk * dt;
            sb->frame_steps += chunk;
            /* On the wall clock, a simulation slower than real time gives up the
             * time it owes instead of owing more each frame (the spiral of death). */
            if (sb->fixed_dt == 0.0 && rb_seconds() - t0 > RB_SIM_BUDGET) {
                out_of_time = true;
                break;
            }
        }
        bool behind = sb->accumulator >= dt;
        if (behind) sb->accumulator = fmod(sb->accumulator, dt);
        double per = sb->fixed_dt > 0.0 ? frame_dt : real_dt;
        double rate = per > 0.0 ? sb->frame_steps * dt / per : 1.0;
        if (rate > 1.0) rate = 1.0;
        sb->sim_rate = 0.9 * sb->sim_rate + 0.1 * rate;
        /* Shown while the smoothed rate stays clearly below real time. */
        sb->slowed = (behind || out_of_time) ? true : sb->sim_rate < 0.95;
    }
    sb->steps += sb->frame_steps;
    double ms = (rb_seconds() - t0) * 1000.0;
    sb->sim_ms = 0.9 * sb->sim_ms + 0.1 * ms;
}

/* ---- drawing ---- */

static void scene_bounds(rb_sandbox *sb, rb_render_scene *scene) {
    uint32_t n = rb_world_body_count(sb->world);
    float c[3] = {0, 0, 0};
    for (uint32_t b = 0; b < n; b++)
        for (int k = 0; k < 3; k++) c[k] += sb->transforms[b].position[k];
    if (n)
        for (int k = 0; k < 3; k++) c[k] /= (float)n;
    float r2 = 0.0f;
    for (uint32_t b = 0; b < n; b++) {
        float d2 = 0.0f;
        for (int k = 0; k < 3; k++) d2 += (sb->transforms[b].position[k] - c[k]) * (sb->transforms[b].position[k] - c[k]);
        if (d2 > r2) r2 = d2;
    }
    /* Room for the bodies' own size; bounded so one body flung far away does not blur every shadow. */
    float r = sqrtf(r2) + 3.0f;
    if (r < 8.0f) r = 8.0f;
    if (r > 80.0f) r = 80.0f;
    memcpy(scene->focus, c, sizeof c);
    scene->focus_radius = r;
}

static void project(const float vp[16], const float p[3], int w, int h, float out[2]) {
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv((vec4 *)vp, in, o);
    if (o[3] <= 0.0f) o[3] = 1e-6f;
    out[0] = (o[0] / o[3] * 0.5f + 0.5f) * (float)w;
    out[1] = (0.5f - o[1] / o[3] * 0.5f) * (float)h;
}

static void draw(rb_sandbox *sb) {
    /* A new error shows for 10 s; an old one should not cover the scene for ever. */
    if (strcmp(sb->last_error, rb_log_last_error()) != 0) {
        snprintf(sb->last_error, sizeof sb->last_error, "%s", rb_log_last_error());
        sb->error_since = sb->clock;
    }
    SDL_GL_GetDrawableSize(sb->window, &sb->width, &sb->height);
    if (sb->width <= 0 || sb->height <= 0) return; /* minimized: nothing to draw into */
    rb_world *w = sb->world;
    uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    if (!reserve(sb, nb, np)) return;
    if (nb) rb_world_read_transforms(w, sb->transforms);

    rb_render_view view = {.width = sb->width, .height = sb->height};
    rb_camera_matrices(&sb->camera, sb->width, sb->height, view.view, view.proj);
    memcpy(view.eye, sb->camera.position, sizeof view.eye);
    rb_render_scene scene = {0};
    const rb_world_desc *desc = rb_world_get_desc(w);
    scene.plane_count = desc->plane_count < RB_RENDER_MAX_PLANES ? desc->plane_count : RB_RENDER_MAX_PLANES;
    for (uint32_t i = 0; i < scene.plane_count; i++) {
        memcpy(scene.planes[i], desc->planes[i].normal, 3 * sizeof(float));
        scene.planes[i][3] = desc->planes[i].offset;
    }
    scene_bounds(sb, &scene);
    rb_renderer_begin(sb->renderer, &view, &scene);

    /* Colours and, for bodies without a mesh (or in the particle view), particles. */
    bool need_particles = sb->particle_view;
    for (uint32_t b = 0; b < nb; b++) {
        rb_body_state s = {0};
        if (!rb_world_get_body(w, b, &s)) break; /* a backend failure, logged: draw what was read */
        rb_sandbox_body_color(s.id, &sb->colors[b * 4]);
        sb->body_shape[b] = s.shape;
        if (sb->grab.active && s.id.slot == sb->grab.body.slot && s.id.generation == sb->grab.body.generation)
            for (int k = 0; k < 3; k++) sb->colors[b * 4 + k] = 0.5f + 0.5f * sb->colors[b * 4 + k];
        int reg = s.shape < sb->world_shape_count ? sb->world_shape_registry[s.shape] : -1;
        if (reg < 0 || sb->shape_mesh[reg] < 0) need_particles = true;
    }
    if (need_particles && np && !rb_world_read_particles(w, sb->particles)) need_particles = false;
    const uint32_t *first = rb_world_body_first_particle(w);
    if (sb->particle_view) {
        for (uint32_t b = 0; b < nb; b++)
            for (uint32_t i = first[b]; i < first[b + 1]; i++)
                memcpy(&sb->particle_colors[i * 4], &sb->colors[b * 4], 4 * sizeof(float));
        rb_renderer_add_spheres(sb->renderer, sb->particles, sb->particle_colors, np, desc->particle_radius);
    } else {
        /* Instances grouped by shape (a counting sort by world shape), then one
         * instanced draw per mesh; bodies of a shape without a mesh as their particles. */
        uint32_t ns = sb->world_shape_count;
        uint32_t *start = calloc((size_t)ns + 1, sizeof *start), *fill = calloc((size_t)ns + 1, sizeof *fill);
        uint32_t *order = malloc(((size_t)nb + 1) * sizeof *order);
        if (start && fill && order) {
            for (uint32_t b = 0; b < nb; b++)
                if (sb->body_shape[b] < ns) start[sb->body_shape[b] + 1]++;
            for (uint32_t k = 0; k < ns; k++) start[k + 1] += start[k];
            for (uint32_t b = 0; b < nb; b++)
                if (sb->body_shape[b] < ns) order[start[sb->body_shape[b]] + fill[sb->body_shape[b]]++] = b;
            rb_transform *tr = sb->sorted;
            float *co = malloc(((size_t)nb + 1) * 4 * sizeof(float));
            if (!co) co = sb->colors;
            for (uint32_t ws = 0; ws < ns; ws++) {
                int reg = sb->world_shape_registry[ws];
                int mesh = reg >= 0 ? sb->shape_mesh[reg] : -1;
                uint32_t count = 0;
                for (uint32_t j = start[ws]; j < start[ws + 1]; j++) {
                    uint32_t b = order[j];
                    if (mesh >= 0) {
                        tr[count] = sb->transforms[b];
                        memcpy(&co[count * 4], &sb->colors[b * 4], 4 * sizeof(float));
                        count++;
                    } else if (need_particles) {
                        for (uint32_t i = first[b]; i < first[b + 1]; i++)
                            memcpy(&sb->particle_colors[i * 4], &sb->colors[b * 4], 4 * sizeof(float));
                        rb_renderer_add_spheres(sb->renderer, &sb->particles[first[b] * 3],
                                                &sb->particle_colors[first[b] * 4], first[b + 1] - first[b],
                                                desc->particle_radius);
                    }
                }
                if (mesh >= 0 && count) rb_renderer_add_instances(sb->renderer, mesh, tr, co, count);
            }
            if (co != sb->colors) free(co);
        }
        free(start), free(fill), free(order);
    }

    rb_hud_info hud = {
        .fps = sb->fps,
        .frame_ms = sb->frame_ms,
        .sim_ms = sb->sim_ms,
        .steps = sb->frame_steps,
        .sim_rate = sb->sim_rate,
        .slowed = sb->slowed,
        .bodies = nb,
        .particles = np,
        .backend = rb_world_backend_name(w),
        .device = rb_world_device_name(w),
        .shape = shape_at(sb, sb->selected_shape) ? shape_at(sb, sb->selected_shape)->name : "(none)",
        .shape_index = sb->selected_shape,
        .shape_count = (int)sb->shape_count,
        .tool = rb_tool_name(sb->tool),
        .formation = sb->formation,
        .formation_name = rb_formation_name(sb->formation),
        .paused = sb->paused,
        .particle_view = sb->particle_view,
        .vsync = sb->vsync,
        .camera_speed = sb->camera.speed,
        .throw_charge = sb->throwing ? (float)fmin(1.0, (sb->clock - sb->throw_start) / 1.5) : -1.0f,
        .grabbing = sb->grab.active,
        .error = sb->clock - sb->error_since < 10.0 ? rb_log_last_error() : "",
        .shader_error = sb->shader_error,
        .message = sb->clock < sb->message_until ? sb->message : "",
    };
    if (sb->grab.active) {
        float vp[16];
        glm_mat4_mul((vec4 *)view.proj, (vec4 *)view.view, (vec4 *)vp);
        project(vp, sb->grab.anchor, sb->width, sb->height, hud.grab_anchor);
        project(vp, sb->grab.target, sb->width, sb->height, hud.grab_target);
    }
    if (!sb->hide_hud || sb->help) rb_hud_draw(sb->renderer, sb->width, sb->height, &hud, sb->help);
    rb_renderer_end(sb->renderer);
}

/* ---- the frame ---- */

static bool save_capture(rb_sandbox *sb, const char *path);

static void fly(rb_sandbox *sb, double dt) {
    const bool *k = sb->keys;
    float right = (float)(k[SDL_SCANCODE_D] - k[SDL_SCANCODE_A]);
    float forward = (float)(k[SDL_SCANCODE_W] - k[SDL_SCANCODE_S]);
    float up = (float)(k[SDL_SCANCODE_E] - k[SDL_SCANCODE_Q] - (k[SDL_SCANCODE_LCTRL] || k[SDL_SCANCODE_RCTRL]));
    if (up < -1.0f) up = -1.0f;
    bool fast = k[SDL_SCANCODE_LSHIFT] || k[SDL_SCANCODE_RSHIFT];
    if (right != 0.0f || forward != 0.0f || up != 0.0f) rb_camera_fly(&sb->camera, right, up, forward, (float)dt, fast);
}

bool rb_sandbox_frame(rb_sandbox *sb) {
    double now = rb_seconds();
    double wall_dt = now - sb->last_wall;
    sb->last_wall = now;
    double dt = sb->fixed_dt > 0.0 ? sb->fixed_dt : fmin(wall_dt, RB_MAX_FRAME_DT);
    sb->clock += dt;

    if (sb->script) rb_script_pump(sb->script, sb->clock - sb->script_start, sb->window_id);
    SDL_Event e;
    while (SDL_PollEvent(&e)) handle_event(sb, &e);
    fly(sb, dt);
    if (sb->grab.active) {
        float o[3], d[3];
        cursor_ray(sb, o, d);
        rb_grab_aim(&sb->grab, o, d);
    }
    simulate(sb, dt, wall_dt);
    /* A minimized window is not drawn; without vsync the loop would spin a core for nothing. */
    if (SDL_GetWindowFlags(sb->window) & SDL_WINDOW_MINIMIZED) SDL_Delay(10);
    draw(sb);
    if (sb->pending_shot[0]) {
        if (save_capture(sb, sb->pending_shot)) {
            char text[600];
            snprintf(text, sizeof text, "saved %s", sb->pending_shot);
            notice(sb, text);
        }
        sb->pending_shot[0] = '\0';
    }
    SDL_GL_SwapWindow(sb->window);
    sb->frame++;

    if (sb->frame > 1 && wall_dt > 0.0) {
        sb->frame_ms = 0.9 * sb->frame_ms + 0.1 * wall_dt * 1000.0;
        sb->fps = sb->frame_ms > 0.0 ? 1000.0 / sb->frame_ms : 0.0;
    } else {
        sb->frame_ms = 1000.0 / 60.0;
    }
    return !sb->quit;
}

/* ---- screenshots ---- */

/* Reads the frame just drawn, before it is presented (after a swap the back
 * buffer is undefined, and an offscreen pbuffer has no front one). Rows top down. */
static bool capture(rb_sandbox *sb, int *width, int *height, uint8_t **rgba) {
    int w = sb->width, h = sb->height;
    if (w <= 0 || h <= 0) return false;
    uint8_t *img = malloc((size_t)w * (size_t)h * 4);
    if (!img) return false;
    if (!rb_renderer_read_pixels(sb->renderer, w, h, img)) {
        free(img);
        return false;
    }
    /* GL rows run bottom up; images top down. */
    size_t row = (size_t)w * 4;
    uint8_t *tmp = malloc(row);
    if (tmp) {
        for (int y = 0; y < h / 2; y++) {
            memcpy(tmp, img + (size_t)y * row, row);
            memcpy(img + (size_t)y * row, img + (size_t)(h - 1 - y) * row, row);
            memcpy(img + (size_t)(h - 1 - y) * row, tmp, row);
        }
        free(tmp);
    }
    *width = w, *height = h, *rgba = img;
    return true;
}

static bool save_capture(rb_sandbox *sb, const char *path) {
    int w, h;
    uint8_t *img;
    if (!capture(sb, &w, &h, &img)) {
        rb_log(RB_LOG_ERROR, "screenshot: cannot read the frame");
        return false;
    }
    /* Opaque RGB: blending may have left alpha below 1. */
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        img[i * 3] = img[i * 4], img[i * 3 + 1] = img[i * 4 + 1], img[i * 3 + 2] = img[i * 4 + 2];
    bool ok = stbi_write_png(path, w, h, 3, img, w * 3) != 0;
    free(img);
    if (!ok) {
        rb_log(RB_LOG_ERROR, "screenshot: cannot write %s", path);
        return false;
    }
    sb->screenshots++;
    rb_log(RB_LOG_INFO, "screenshot saved to %s (%dx%d)", path, w, h);
    return true;
}

bool rb_sandbox_read_pixels(rb_sandbox *sb, int *width, int *height, uint8_t **rgba) {
    /* Drawing again shows the same state: the simulation does not move. */
    draw(sb);
    return capture(sb, width, height, rgba);
}

bool rb_sandbox_screenshot(rb_sandbox *sb, const char *path) {
    draw(sb);
    return save_capture(sb, path);
}

int rb_sandbox_run(const rb_options *opts) {
    char err[4096];
    rb_sandbox *sb = rb_sandbox_create(opts, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "rubble: cannot start the sandbox: %s\n", err);
        return 1;
    }
    int code = 0, shots_before = 0;
    for (;;) {
        bool last = opts->frames > 0 && sb->frame + 1 >= (uint64_t)opts->frames;
        /* --screenshot: the last frame is saved as it is drawn. */
        if (last && opts->screenshot) {
            snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", opts->screenshot);
            shots_before = sb->screenshots;
        }
        if (!rb_sandbox_frame(sb) || last) break;
    }
    if (opts->screenshot) {
        bool saved = sb->frame >= (uint64_t)opts->frames && sb->screenshots > shots_before;
        /* Quit early (Esc, a script's quit): save what the window shows now. */
        if (!saved && !rb_sandbox_screenshot(sb, opts->screenshot)) code = 1;
    }
    rb_sandbox_destroy(sb);
    return code;
}
