/* sandbox.c - the sandbox loop: create, one frame, drawing, destroy. Each
 * frame feeds the script's events, lets the input turn events into actions
 * and carries them out (sandbox_actions.c), steps the world as the step clock
 * says, draws through the view and the HUD, and presents. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/log.h"
#include "capture.h"
#include "hud.h"
#include "sandbox_internal.h"
#include "window.h"
#include "scenes/formations.h"

/* Steps per rb_world_step() call: the grab spring is re-aimed between calls. */
#define RB_STEP_CHUNK 16
#define RB_GRAB_CHUNK 4

static void record(rb_sandbox *sb);

/* ---- create and destroy ---- */

/* rb_sandbox_create with --replay's cache already read (taken, whatever happens). */
static rb_sandbox *create(const rb_options *opts, const rb_paths *paths, rb_replay *replay, char *err,
                          size_t err_size) {
    rb_scene *scene = NULL; /* --scene, until the sandbox takes it */
    rb_sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        rb_replay_destroy(replay);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sb->replay = replay;
    sb->opts = *opts;
    sb->paths = *paths;
    sb->vsync = opts->vsync;
    sb->blast = rb_blast_defaults();
    sb->throw_params = rb_throw_defaults();
    sb->grab_hz = RB_GRAB_HZ;
    if (sb->opts.blast_radius > 0.0f) /* --blast */
        sb->blast =
            (rb_blast){.radius = sb->opts.blast_radius, .strength = sb->opts.blast_impulse, .up = sb->opts.blast_up};
    sb->formation = opts->formation >= 1 && opts->formation <= RB_FORMATION_COUNT ? opts->formation : 1;
    if (opts->script || opts->screenshot || opts->frames > 0 || opts->video) sb->fixed_dt = 1.0 / 60.0;
    sb->window = rb_window_open(opts->width, opts->height, sb->vsync, &sb->gl, err, err_size);
    if (!sb->window) goto fail;
    sb->window_id = SDL_GetWindowID(sb->window);
    sb->finish_frames = SDL_GetCurrentVideoDriver() && !strcmp(SDL_GetCurrentVideoDriver(), "offscreen");
    if (!paths->shaders[0]) {
        snprintf(err, err_size, "no shaders/ folder beside %s, in the source tree or the install folder",
                 paths->exe_dir);
        goto fail;
    }
    sb->renderer = rb_renderer_create(paths->shaders, err, err_size);
    if (!sb->renderer) goto fail;
    rb_sandbox_choose_quality(sb);
    if (sb->replay) rb_replay_add_meshes(sb->replay, sb->renderer);
    sb->registry = rb_app_registry(opts, paths);
    if (!sb->registry) {
        snprintf(err, err_size, "cannot create the shape registry");
        goto fail;
    }
    rb_world_desc desc = rb_app_world_desc(opts);
    if (sb->replay && !rb_replay_world_desc(sb->replay, sb->registry, &desc, err, err_size))
        rb_log(RB_LOG_WARN, "%s (the replay draws the default ground)", err);
    if (opts->scene) {
        /* The scene the user named, or no sandbox: a typo is not run as something else. */
        scene = rb_scene_load(opts->scene, sb->registry, err, err_size);
        if (!scene) goto fail;
        desc = rb_scene_world_desc(scene, &desc);
        rb_app_override_world(opts, &desc);
    }
    sb->world = rb_world_create(&desc, err, err_size);
    if (!sb->world) goto fail;
    sb->entities = rb_entities_create(sb->registry, sb->world);
    sb->view = rb_view_create();
    sb->pick_meshes = rb_pick_meshes_create();
    sb->debug = rb_debug_views_create();
    if (!sb->entities || !sb->view || !sb->pick_meshes || !sb->debug) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }
    rb_sandbox_sync_shapes(sb);
    const uint32_t shapes = rb_entities_count(sb->entities);
    if (shapes == 0) rb_log(RB_LOG_WARN, "no shapes loaded: check the plugins folder");
    int want = opts->shape ? rb_entities_find(sb->entities, opts->shape) : -1;
    if (opts->shape && want < 0 && shapes > 0)
        rb_log(RB_LOG_WARN, "no shape named '%s'; using %s", opts->shape,
               rb_entities_get(sb->entities, 0)->shape->name);
    sb->formation_shape = sb->selected_shape = want >= 0 ? want : shapes > 0 ? 0 : -1;
    if (opts->script) {
        sb->script = rb_script_load(opts->script, err, err_size);
        if (!sb->script) goto fail;
    }
    rb_step_clock_init(&sb->steps_clock, desc.dt, sb->fixed_dt > 0.0);
    if (scene) { /* built into the world made for it; installing takes the scene */
        rb_scene *taken = scene;
        scene = NULL;
        if (!rb_sandbox_install_scene(sb, taken, opts->scene, err, err_size)) goto fail;
    } else if (!sb->replay) { /* a replay's world stays empty until Enter */
        rb_sandbox_reset(sb, sb->formation);
    }
    rb_sandbox_frame_camera(sb);
    SDL_GL_GetDrawableSize(sb->window, &sb->width, &sb->height);
    int window_w, window_h; /* the cursor is in window coordinates, not drawable pixels (high DPI) */
    SDL_GetWindowSize(sb->window, &window_w, &window_h);
    rb_input_init(&sb->input, 0.5f * (float)window_w, 0.5f * (float)window_h);
    sb->input.replay = sb->replay != NULL;
    sb->last_wall = rb_seconds();
    sb->fps = 60.0;
    if (opts->stats_every > 0.0) rb_stats_init(&sb->stats, opts->stats_every, sb->last_wall);
    if (opts->record) {
        sb->record = rb_cache_begin(opts->record, sb->world, sb->entities, opts->record_rate, err, err_size);
        if (!sb->record) goto fail;
        sb->record_world = sb->world, sb->record_start = sb->steps;
        record(sb); /* frame 0: the world before its first step */
    }
    if (opts->panels) rb_sandbox_show_panels(sb, true);
    /* --video last: nothing after it can fail with ffmpeg running. 60: the fixed clock's frames a second. */
    if (opts->video && !(sb->video = rb_video_start(opts->video, sb->width, sb->height, 60, err, err_size))) goto fail;
    return sb;
fail:
    rb_scene_destroy(scene);
    rb_sandbox_destroy(sb);
    return NULL;
}

rb_sandbox *rb_sandbox_create(const rb_options *opts, const rb_paths *paths, char *err, size_t err_size) {
    rb_replay *replay = NULL;
    if (opts->replay && !(replay = rb_replay_open(opts->replay, err, err_size))) return NULL;
    return create(opts, paths, replay, err, err_size);
}

/* Ends --record's cache (at exit, or when the world it records is replaced). */
static void end_recording(rb_sandbox *sb) {
    char err[1024];
    if (sb->record && !rb_cache_end(sb->record, err, sizeof err)) rb_log(RB_LOG_ERROR, "--record %s", err);
    sb->record = NULL;
}

/* Ends --video: ffmpeg finishes the file. False, said, if no video was saved. */
static bool end_video(rb_sandbox *sb) {
    char err[4096 + 512];
    const bool ok = rb_video_finish(sb->video, err, sizeof err);
    if (!ok) rb_log(RB_LOG_ERROR, "%s", err);
    sb->video = NULL;
    return ok;
}

void rb_sandbox_destroy(rb_sandbox *sb) {
    if (!sb) return;
    end_recording(sb);
    rb_replay_destroy(sb->replay);
    end_video(sb);
    rb_script_destroy(sb->script);
    rb_input_release(&sb->input);
    rb_sandbox_forget_drops(sb);
    rb_scene_destroy(sb->scene);
    rb_view_destroy(sb->view);
    rb_pick_meshes_destroy(sb->pick_meshes);
    rb_debug_views_destroy(sb->debug);
    rb_frame_stats_free(&sb->frame_stats);
    rb_debris_destroy(sb->debris);
    rb_entities_destroy(sb->entities);
    rb_world_destroy(sb->world);
    rb_registry_destroy(sb->registry);
    rb_sandbox_panels_end(sb);
    if (sb->renderer) rb_renderer_destroy(sb->renderer);
    if (sb->gl) SDL_GL_DeleteContext(sb->gl);
    if (sb->window) SDL_DestroyWindow(sb->window);
    SDL_Quit();
    free(sb);
}

void rb_sandbox_set_fixed_dt(rb_sandbox *sb, double dt) {
    sb->fixed_dt = dt > 0.0 ? dt : 0.0;
    rb_step_clock_set(&sb->steps_clock, rb_world_get_desc(sb->world)->dt, sb->fixed_dt > 0.0);
}

bool rb_sandbox_set_script(rb_sandbox *sb, const char *text, char *err, size_t err_size) {
    rb_script *s = rb_script_parse(text, "script", err, err_size);
    if (!s) return false;
    rb_script_destroy(sb->script);
    sb->script = s;
    sb->script_start = sb->clock;
    return true;
}

rb_world *rb_sandbox_world(rb_sandbox *sb) { return sb->world; }
rb_camera *rb_sandbox_camera(rb_sandbox *sb) { return &sb->camera; }
const rb_entities *rb_sandbox_entities(const rb_sandbox *sb) { return sb->entities; }

int rb_sandbox_world_shape(const rb_sandbox *sb, const char *name) {
    int row = rb_entities_find(sb->entities, name);
    return row >= 0 ? rb_entities_get(sb->entities, (uint32_t)row)->world_shape : -1;
}

/* ---- simulation ---- */

/* frame_dt: s of sandbox clock to simulate; real_dt: s of wall time the frame took (for the rate shown). */
/* --record: a frame of the cache at the drawn frame nearest each 1 / rate s
 * of simulated time since it began (a frame's steps are whole: at the fixed
 * clock of --script, --frames and --screenshot, 1/60 s a frame is 10 or 11
 * steps of 0.0016 s, and each frame is one of the default rate's). A scene loaded into a new world ends it: a cache
 * holds one world. */
static void record(rb_sandbox *sb) {
    if (!sb->record) return;
    if (sb->world != sb->record_world) {
        end_recording(sb);
        rb_sandbox_notice(sb, "recording ended: the scene has a new world");
        return;
    }
    const double dt = rb_decimal(rb_world_get_desc(sb->world)->dt);
    const uint64_t done = sb->steps - sb->record_start;
    const double step = 1.0 / (sb->opts.record_rate * dt); /* steps a frame */
    if ((double)done + 0.5 * step < (double)sb->record_next * step) return;
    if (!rb_cache_frame(sb->record, (double)done * dt)) {
        end_recording(sb);
        return;
    }
    while ((double)done + 0.5 * step >= (double)sb->record_next * step) sb->record_next++;
}

static void simulate(rb_sandbox *sb, double frame_dt, double real_dt) {
    rb_step_clock *c = &sb->steps_clock;
    rb_step_clock_set(c, rb_world_get_desc(sb->world)->dt, sb->fixed_dt > 0.0);
    double t0 = rb_seconds();
    if (sb->paused) {
        bool single = false;
        if (sb->step_once) {
            rb_grab_apply(&sb->grab, sb->world, 1);
            single = sb->debris ? rb_debris_step(sb->debris, 1) : rb_world_step(sb->world, 1);
            sb->step_once = false;
        }
        rb_step_clock_pause(c, single);
    } else {
        rb_step_clock_begin(c, frame_dt, t0);
        for (uint32_t n;;) {
            /* with debris, no chunk runs past a tick: the grab's force is held
             * through one world step call, and the debris step splits at ticks */
            uint32_t most = sb->grab.active ? RB_GRAB_CHUNK : RB_STEP_CHUNK;
            if (sb->debris && rb_debris_steps_to_tick(sb->debris) < most) most = rb_debris_steps_to_tick(sb->debris);
            if (!(n = rb_step_clock_next(c, most, rb_seconds()))) break;
            double c0 = rb_seconds();
            rb_grab_apply(&sb->grab, sb->world, n);
            if (!(sb->debris ? rb_debris_step(sb->debris, n) : rb_world_step(sb->world, n))) {
                sb->paused = true; /* a backend failure was logged; stop rather than repeat it each frame */
                break;
            }
            double c1 = rb_seconds();
            rb_step_clock_took(c, n, c1 - c0, c1);
        }
        rb_step_clock_end(c, real_dt);
    }
    sb->steps += c->frame_steps;
    sb->sim_ms = 0.9 * sb->sim_ms + 0.1 * (rb_seconds() - t0) * 1000.0;
    record(sb);
}

/* ---- drawing ---- */

bool rb_sandbox_read_bodies(rb_sandbox *sb) {
    return sb->replay ? rb_replay_read(sb->replay, sb->view) : rb_view_read(sb->view, sb->world);
}

static void project(const float vp[16], const float p[3], int w, int h, float out[2]) {
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv((vec4 *)vp, in, o);
    if (o[3] <= 0.0f) o[3] = 1e-6f;
    out[0] = (o[0] / o[3] * 0.5f + 0.5f) * (float)w;
    out[1] = (0.5f - o[1] / o[3] * 0.5f) * (float)h;
}

/* A scene file's name without its folders. */
static const char *scene_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The scene's name on the HUD: its file's, or where it has none (a
 * replay's keyframe made live) the scene's own. */
static const char *scene_label(const rb_sandbox *sb) {
    return scene_name(sb->scene_file[0] || !sb->scene ? sb->scene_file : sb->scene->name);
}

static void draw_hud(rb_sandbox *sb, const rb_render_view *view) {
    char quality[128];
    const rb_render_quality q = rb_renderer_quality(sb->renderer);
    rb_quality_describe(&q, quality, sizeof quality);
    const rb_entity *sel = sb->selected_shape >= 0 ? rb_entities_get(sb->entities, (uint32_t)sb->selected_shape) : NULL;
    rb_hud_info hud = {
        .fps = sb->fps,
        .frame_ms = sb->frame_ms,
        .sim_ms = sb->sim_ms,
        .steps = sb->steps_clock.frame_steps,
        .sim_rate = sb->steps_clock.sim_rate,
        .slowed = sb->steps_clock.slowed,
        .time_scale = sb->steps_clock.scale,
        .quality = quality,
        .bodies = rb_world_body_count(sb->world),
        .particles = rb_world_particle_count(sb->world),
        .backend = rb_world_backend_name(sb->world),
        .device = rb_world_device_name(sb->world),
        .shape = sel ? sel->shape->name : "(none)",
        .shape_index = sb->selected_shape,
        .shape_count = (int)rb_entities_count(sb->entities),
        .tool = rb_tool_name(sb->input.tool),
        .formation = sb->formation,
        .formation_name = sb->formation > 0 ? rb_formation_name(sb->formation) : scene_label(sb),
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
    hud.debris = sb->debris != NULL;
    rb_hud_replay replay;
    if (sb->replay) { /* its timeline takes clicks where it was last laid out */
        rb_replay_layout(sb->replay, sb->width, sb->height, rb_hud_scale(sb->width));
        rb_replay_hud(sb->replay, &replay);
        hud.replay = &replay;
    }
    char views[256];
    rb_debug_views_describe(sb->debug, views, sizeof views);
    hud.views = views;
    rb_sandbox_debris_active(sb, &hud.emitters, &hud.fields);
    if (sb->grab.active) {
        float vp[16];
        glm_mat4_mul((vec4 *)view->proj, (vec4 *)view->view, (vec4 *)vp);
        project(vp, sb->grab.anchor, sb->width, sb->height, hud.grab_anchor);
        project(vp, sb->grab.target, sb->width, sb->height, hud.grab_target);
    }
    if (!sb->hide_hud || sb->help) rb_hud_draw(sb->renderer, sb->width, sb->height, &hud, sb->help);
}

static void draw(rb_sandbox *sb) {
    /* A new error shows for 10 s; an old one should not cover the scene for ever. */
    if (strcmp(sb->last_error, rb_log_last_error()) != 0) {
        snprintf(sb->last_error, sizeof sb->last_error, "%s", rb_log_last_error());
        sb->error_since = sb->clock;
    }
    SDL_GL_GetDrawableSize(sb->window, &sb->width, &sb->height);
    if (sb->width <= 0 || sb->height <= 0) return; /* minimized: nothing to draw into */
    rb_sandbox_read_bodies(sb);                    /* a backend failure is logged: draw what was read */

    rb_render_view view = {.width = sb->width, .height = sb->height};
    rb_camera_matrices(&sb->camera, sb->width, sb->height, view.view, view.proj);
    memcpy(view.eye, sb->camera.position, sizeof view.eye);
    rb_render_scene scene = {0};
    const rb_world_desc *desc = rb_world_get_desc(sb->world);
    scene.plane_count = desc->plane_count < RB_RENDER_MAX_PLANES ? desc->plane_count : RB_RENDER_MAX_PLANES;
    for (uint32_t i = 0; i < scene.plane_count; i++) {
        memcpy(scene.planes[i], desc->planes[i].normal, 3 * sizeof(float));
        scene.planes[i][3] = desc->planes[i].offset;
    }
    rb_view_focus(sb->view, scene.focus, &scene.focus_radius);
    rb_sandbox_mesh_pieces(sb); /* the pieces of bodies broken since the last frame */
    rb_renderer_begin(sb->renderer, &view, &scene);
    rb_view_style style = {.particle_view = sb->particle_view,
                           .highlight = sb->grab.active ? sb->grab.body : (rb_body_id){0},
                           .debris = sb->debris};
    rb_sandbox_view_style(sb, &style); /* the body under the cursor, the sleeping */
    rb_view_submit(sb->view, sb->renderer, sb->world, sb->entities, &style);
    rb_sandbox_draw_views(sb, &view);
    draw_hud(sb, &view);
    rb_renderer_end(sb->renderer);
    rb_sandbox_panels_draw(sb);
}

static bool save_shot(rb_sandbox *sb, const char *path) {
    if (!rb_capture_save_png(sb->renderer, sb->width, sb->height, path)) return sb->shot_failures++, false;
    sb->screenshots++;
    return true;
}

/* ---- the frame ---- */

bool rb_sandbox_frame(rb_sandbox *sb) {
    double now = rb_seconds();
    const double cpu_start = rb_cpu_seconds();
    double wall_dt = now - sb->last_wall;
    sb->last_wall = now;
    double dt = sb->fixed_dt > 0.0 ? sb->fixed_dt : fmin(wall_dt, RB_MAX_FRAME_DT);
    sb->clock += dt;

    if (sb->script) rb_script_pump(sb->script, sb->clock - sb->script_start, sb->window_id);
    rb_input_begin_frame(&sb->input);
    SDL_Event e;
    while (SDL_PollEvent(&e)) /* a click on a panel is the panels' */
        if (!rb_sandbox_panels_event(sb, &e)) rb_input_event(&sb->input, &e, rb_script_screenshot_event());
    if (sb->input.look_dx != 0.0f || sb->input.look_dy != 0.0f) {
        if (sb->input.orbiting)
            rb_sandbox_orbit(sb, sb->input.look_dx, sb->input.look_dy);
        else
            rb_camera_turn(&sb->camera, sb->input.look_dx, sb->input.look_dy);
    }
    for (int i = 0; i < sb->input.action_count; i++) rb_sandbox_do(sb, &sb->input.actions[i]);
    float right, up, forward;
    bool fast;
    rb_input_fly(&sb->input, &right, &up, &forward, &fast);
    if (right != 0.0f || forward != 0.0f || up != 0.0f) rb_camera_fly(&sb->camera, right, up, forward, (float)dt, fast);
    if (sb->grab.active) {
        float o[3], d[3];
        rb_sandbox_cursor_ray(sb, sb->input.mouse_x, sb->input.mouse_y, o, d);
        rb_grab_aim(&sb->grab, o, d);
    }
    rb_sandbox_panels_frame(sb, dt);
    const double sim_start = rb_seconds();
    if (sb->replay)
        rb_sandbox_replay_tick(sb, dt); /* the replay clock moves, not the world */
    else
        simulate(sb, dt, wall_dt);
    const double sim_s = rb_seconds() - sim_start;
    /* A minimized window is not drawn; without vsync the loop would spin a core for nothing. */
    if (SDL_GetWindowFlags(sb->window) & SDL_WINDOW_MINIMIZED) SDL_Delay(10);
    double draw_start = rb_seconds();
    draw(sb);
    double draw_s = rb_seconds() - draw_start;
    if (sb->pending_shot[0]) {
        if (save_shot(sb, sb->pending_shot)) {
            char text[600];
            snprintf(text, sizeof text, "saved %s", sb->pending_shot);
            rb_sandbox_notice(sb, text);
        }
        sb->pending_shot[0] = '\0';
    }
    if (sb->video) rb_capture_video(sb->renderer, sb->width, sb->height, sb->video);
    draw_start = rb_seconds();
    /* Offscreen nothing presents the frame: it is finished as a window's swap would. */
    if (sb->finish_frames) rb_renderer_finish(sb->renderer);
    SDL_GL_SwapWindow(sb->window); /* a software renderer finishes drawing here */
    draw_s += rb_seconds() - draw_start;
    sb->frame++;
    /* The next frames' stepping gets what the rest of this one left of the frame target. */
    const double frame_s = rb_seconds() - now;
    rb_step_clock_drawn(&sb->steps_clock, frame_s - sim_s);
    if (sb->opts.frame_stats)
        rb_frame_stats_add(&sb->frame_stats, &(rb_frame_sample){.frame_ms = (float)(frame_s * 1e3),
                                                                .draw_ms = (float)(draw_s * 1e3),
                                                                .sim_ms = (float)(sim_s * 1e3),
                                                                .cpu_ms = (float)((rb_cpu_seconds() - cpu_start) * 1e3),
                                                                .steps = sb->steps_clock.frame_steps});

    if (sb->frame > 1 && wall_dt > 0.0) {
        sb->frame_ms = 0.9 * sb->frame_ms + 0.1 * wall_dt * 1000.0;
        sb->fps = sb->frame_ms > 0.0 ? 1000.0 / sb->frame_ms : 0.0;
    } else {
        sb->frame_ms = 1000.0 / 60.0;
    }
    if (sb->opts.stats_every > 0.0 && rb_stats_frame(&sb->stats, wall_dt, rb_seconds()))
        rb_sandbox_report_stats(sb, rb_seconds());
    return !sb->quit;
}

/* ---- screenshots ---- */

bool rb_sandbox_read_pixels(rb_sandbox *sb, int *width, int *height, uint8_t **rgba) {
    /* Drawing again shows the same state: the simulation does not move. */
    draw(sb);
    *width = sb->width, *height = sb->height;
    return rb_capture_read(sb->renderer, sb->width, sb->height, rgba);
}

bool rb_sandbox_screenshot(rb_sandbox *sb, const char *path) {
    draw(sb);
    return save_shot(sb, path);
}

int rb_sandbox_run(const rb_options *opts, const rb_paths *paths) {
    char err[4096];
    /* A script that cannot be used is a command-line problem: exit 2. */
    rb_script *script = opts->script ? rb_script_load(opts->script, err, sizeof err) : NULL;
    if (opts->script && !script) {
        fprintf(stderr, "rubble: %s\n", err);
        return 2;
    }
    rb_script_destroy(script);
    /* So is a video that cannot be made: no ffmpeg, or nowhere to write it. */
    if (opts->video && !rb_video_usable(opts->video, err, sizeof err)) {
        fprintf(stderr, "rubble: --video %s: %s\n", opts->video, err);
        return 2;
    }
    /* So is a cache to replay that cannot be read. */
    rb_replay *replay = NULL;
    if (opts->replay && !(replay = rb_replay_open(opts->replay, err, sizeof err))) {
        fprintf(stderr, "rubble: --replay %s\n", err);
        return 2;
    }
    rb_sandbox *sb = create(opts, paths, replay, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "rubble: cannot start the sandbox: %s\n", err);
        return 1;
    }
    /* A person at the window gets the panels; a scripted run keeps its look (--panels: them too). */
    if (rb_sandbox_panels_wanted(opts)) rb_sandbox_show_panels(sb, true);
    int code = 0, shots_before = 0, failures_before = 0;
    for (;;) {
        bool last = opts->frames > 0 && sb->frame + 1 >= (uint64_t)opts->frames;
        /* --screenshot: the last frame is saved as it is drawn. */
        if (last && opts->screenshot) {
            snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", opts->screenshot);
            shots_before = sb->screenshots, failures_before = sb->shot_failures;
        }
        if (!rb_sandbox_frame(sb) || last) break;
    }
    if (opts->screenshot) {
        bool tried =
            sb->frame >= (uint64_t)opts->frames && sb->screenshots + sb->shot_failures > shots_before + failures_before;
        /* Quit early (Esc, a script's quit): save what the window shows now. */
        if (!tried) rb_sandbox_screenshot(sb, opts->screenshot);
    }
    /* A scripted run whose screenshot (--screenshot or a script's) could not
     * be saved failed: the error was said when it happened. */
    if (sb->shot_failures > 0 && (opts->script || opts->screenshot)) code = 1;
    if (opts->frame_stats) rb_sandbox_print_frame_stats(sb);
    if (!end_video(sb)) code = 1; /* a video that could not be made fails the run */
    rb_sandbox_destroy(sb);
    return code;
}
