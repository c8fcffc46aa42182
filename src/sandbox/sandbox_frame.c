/* sandbox_frame.c - one frame of the sandbox: the script's events, the
 * panels' and the input's, the actions they make carried out
 * (sandbox_actions.c), the world stepped as the step clock says (through
 * the stage: its debris layer, if any, ticks on its own clock), --record's
 * frames, drawing through the view and the HUD, screenshots, and the
 * present. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/decimal.h"
#include "base/log.h"
#include "capture.h"
#include "hud.h"
#include "sandbox_internal.h"
#include "scenes/formations.h"

/* Steps per rb_stage_step() call: the grab spring is re-aimed between calls. */
#define RB_STEP_CHUNK 16
#define RB_GRAB_CHUNK 4

/* ---- simulation ---- */

void rb_sandbox_end_recording(rb_sandbox *sb) {
    char err[1024];
    if (sb->rec.writer && !rb_cache_end(sb->rec.writer, err, sizeof err)) rb_log(RB_LOG_ERROR, "--record %s", err);
    sb->rec.writer = NULL;
}

/* --record: a frame of the cache at the drawn frame nearest each 1 / rate s
 * of simulated time since it began (a frame's steps are whole: at the fixed
 * clock of --script, --frames and --screenshot, 1/60 s a frame is 10 or 11
 * steps of 0.0016 s, and each frame is one of the default rate's). A scene loaded into a new world ends it: a cache
 * holds one world. */
void rb_sandbox_record(rb_sandbox *sb) {
    if (!sb->rec.writer) return;
    if (rb_stage_world_number(sb->stage) != sb->rec.world) {
        rb_sandbox_end_recording(sb);
        rb_sandbox_notice(sb, "recording ended: the scene has a new world");
        return;
    }
    const double dt = rb_decimal(rb_world_get_desc(rb_sandbox_live_world(sb))->dt);
    const uint64_t done = sb->steps - sb->rec.start;
    const double step = 1.0 / (sb->opts.record_rate * dt); /* steps a frame */
    if ((double)done + 0.5 * step < (double)sb->rec.next * step) return;
    /* the view the frame was seen through (a `V` record, docs/cache-format.md) */
    const rb_camera *c = &sb->camera;
    rb_cache_camera view;
    rb_cache_camera_from_view(&view, c->position, c->yaw, c->pitch, c->fov_y,
                              sb->height > 0 ? (float)sb->width / (float)sb->height : 0.0f, c->near_m, c->far_m);
    rb_cache_set_camera(sb->rec.writer, &view);
    if (!rb_cache_frame(sb->rec.writer, (double)done * dt)) {
        rb_sandbox_end_recording(sb);
        return;
    }
    while ((double)done + 0.5 * step >= (double)sb->rec.next * step) sb->rec.next++;
}

/* frame_dt: s of sandbox clock to simulate; real_dt: s of wall time the frame took (for the rate shown). */
static void simulate(rb_sandbox *sb, double frame_dt, double real_dt) {
    rb_step_clock *c = &sb->steps_clock;
    rb_world *world = rb_sandbox_live_world(sb);
    rb_step_clock_set(c, rb_world_get_desc(world)->dt, sb->fixed_dt > 0.0);
    double t0 = rb_seconds();
    if (sb->paused) {
        bool single = false;
        if (sb->step_once) {
            rb_grab_apply(&sb->hands.grab, world, 1);
            single = rb_stage_step(sb->stage, 1);
            sb->step_once = false;
        }
        rb_step_clock_pause(c, single);
    } else {
        rb_step_clock_begin(c, frame_dt, t0);
        for (uint32_t n;;) {
            /* no chunk runs past a debris tick: the grab's force is held
             * through one world step call, and a debris step splits at ticks */
            uint32_t most = sb->hands.grab.active ? RB_GRAB_CHUNK : RB_STEP_CHUNK;
            if (rb_stage_steps_to_tick(sb->stage) < most) most = rb_stage_steps_to_tick(sb->stage);
            if (!(n = rb_step_clock_next(c, most, rb_seconds()))) break;
            double c0 = rb_seconds();
            rb_grab_apply(&sb->hands.grab, world, n);
            if (!rb_stage_step(sb->stage, n)) {
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
    /* the world's cap on bodies reached: said when a debris layer first skips something at it */
    const rb_debris *d = rb_stage_debris(sb->stage);
    const uint64_t capped = d ? rb_debris_capped_spawns(d) + rb_debris_capped_breaks(d) : 0;
    if (capped > sb->capped && sb->capped == 0)
        rb_sandbox_notice(sb, "the world holds its cap of %u bodies (world.max_bodies): spawns and breaks past it "
                              "are skipped",
                          rb_world_max_bodies(world));
    sb->capped = capped;
    rb_sandbox_record(sb);
}

/* ---- drawing ---- */

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
    const rb_scene *scene = rb_stage_scene(sb->stage);
    return scene_name(sb->scene_file[0] || !scene ? sb->scene_file : scene->name);
}

static void draw_hud(rb_sandbox *sb, const rb_render_view *view) {
    char quality[128];
    const rb_render_quality q = rb_renderer_quality(sb->renderer);
    rb_quality_describe(&q, quality, sizeof quality);
    const rb_world *world = rb_sandbox_live_world(sb);
    const rb_entities *table = rb_sandbox_table(sb);
    const rb_entity *sel = sb->selected_shape >= 0 ? rb_entities_get(table, (uint32_t)sb->selected_shape) : NULL;
    rb_hud_info hud = {
        .fps = sb->fps,
        .frame_ms = sb->frame_ms,
        .sim_ms = sb->sim_ms,
        .steps = sb->steps_clock.frame_steps,
        .sim_rate = sb->steps_clock.sim_rate,
        .slowed = sb->steps_clock.slowed,
        .time_scale = sb->steps_clock.scale,
        .quality = quality,
        .bodies = rb_world_body_count(world),
        .particles = rb_world_particle_count(world),
        .backend = rb_world_backend_name(world),
        .device = rb_world_device_name(world),
        .shape = sel ? sel->shape->name : "(none)",
        .shape_index = sb->selected_shape,
        .shape_count = (int)rb_entities_count(table),
        .tool = rb_tool_name(sb->input.tool),
        .formation = sb->formation,
        .formation_name = sb->formation > 0 ? rb_formation_name(sb->formation) : scene_label(sb),
        .paused = sb->paused,
        .particle_view = sb->particle_view,
        .exploded_view = sb->look.exploded && !sb->replay,
        .vsync = sb->vsync,
        .camera_speed = sb->camera.speed,
        .throw_charge = sb->hands.throwing ? (float)fmin(1.0, (sb->clock - sb->hands.throw_start) / 1.5) : -1.0f,
        .grabbing = sb->hands.grab.active,
        .error = sb->clock - sb->error_since < 10.0 ? rb_log_last_error() : "",
        .warning = rb_log_last_was_warning(),
        .shader_error = sb->shader_error,
        .message = rb_notice_text(&sb->notice, sb->clock),
        .debris = rb_stage_debris(sb->stage) != NULL,
    };
    rb_hud_replay replay;
    if (sb->replay) { /* its timeline takes clicks where it was last laid out */
        rb_replay_layout(sb->replay, sb->width, sb->height, rb_hud_scale(sb->width));
        rb_replay_hud(sb->replay, &replay);
        hud.replay = &replay;
    }
    char views[256];
    rb_debug_views_describe(sb->look.debug, views, sizeof views);
    hud.views = views;
    rb_stage_debris_active(sb->stage, &hud.emitters, &hud.fields);
    if (sb->hands.grab.active) {
        float vp[16];
        glm_mat4_mul((vec4 *)view->proj, (vec4 *)view->view, (vec4 *)vp);
        project(vp, sb->hands.grab.anchor, sb->width, sb->height, hud.grab_anchor);
        project(vp, sb->hands.grab.target, sb->width, sb->height, hud.grab_target);
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
    const rb_world_desc *desc = rb_world_get_desc(rb_sandbox_live_world(sb));
    scene.plane_count = desc->plane_count < RB_RENDER_MAX_PLANES ? desc->plane_count : RB_RENDER_MAX_PLANES;
    for (uint32_t i = 0; i < scene.plane_count; i++) {
        memcpy(scene.planes[i], desc->planes[i].normal, 3 * sizeof(float));
        scene.planes[i][3] = desc->planes[i].offset;
    }
    rb_view_focus(sb->view, scene.focus, &scene.focus_radius);
    rb_sandbox_mesh_pieces(sb); /* the pieces of bodies broken since the last frame */
    rb_renderer_begin(sb->renderer, &view, &scene);
    rb_view_style style = {.particle_view = sb->particle_view,
                           .highlight = sb->hands.grab.active ? sb->hands.grab.body : (rb_body_id){0},
                           .debris = rb_stage_debris(sb->stage),
                           .colors = rb_stage_colors(sb->stage)};
    rb_sandbox_view_style(sb, &style); /* the body under the cursor, the sleeping */
    rb_view_submit(sb->view, sb->renderer, rb_sandbox_live_world(sb), rb_sandbox_table(sb), &style);
    rb_sandbox_draw_views(sb, &view);
    draw_hud(sb, &view);
    rb_renderer_end(sb->renderer);
    rb_sandbox_panels_draw(sb);
}

static bool save_shot(rb_sandbox *sb, const char *path, bool keep_existing) {
    if (!rb_capture_save_png_named(sb->renderer, sb->width, sb->height, path, keep_existing))
        return sb->shot_failures++, false;
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
    for (int i = 0; i < sb->input.action_count; i++) {
        rb_action a = sb->input.actions[i];
        rb_sandbox_panels_take_click(sb, &a); /* the Scene panel's "place" takes the click */
        rb_sandbox_do(sb, &a);
    }
    float right, up, forward;
    bool fast;
    rb_input_fly(&sb->input, &right, &up, &forward, &fast);
    if (right != 0.0f || forward != 0.0f || up != 0.0f) rb_camera_fly(&sb->camera, right, up, forward, (float)dt, fast);
    if (sb->hands.grab.active) {
        float o[3], d[3];
        rb_sandbox_cursor_ray(sb, sb->input.mouse_x, sb->input.mouse_y, o, d);
        rb_grab_aim(&sb->hands.grab, o, d);
    }
    rb_action asked[RB_PANEL_MAX_REQUESTS];
    const int n_asked = rb_sandbox_panels_frame(sb, dt, asked, RB_PANEL_MAX_REQUESTS);
    for (int i = 0; i < n_asked; i++) rb_sandbox_do(sb, &asked[i]);
    if (sb->look.frame_pending) { /* a scene file without a start camera was loaded */
        sb->look.frame_pending = false;
        rb_sandbox_frame_camera(sb);
    }
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
        /* A person's F12 is said on the HUD too; a scripted run's (--script,
         * --screenshot, --frames) only in the log (rb_capture_save_png_named
         * says it), so its next screenshot does not show the notice of this one. */
        const bool scripted = sb->script || sb->opts.screenshot || sb->opts.frames > 0;
        if (save_shot(sb, sb->pending_shot, sb->pending_shot_new)) {
            if (!scripted) rb_sandbox_notice(sb, "saved %s", sb->pending_shot);
        } else if (!scripted) {
            rb_sandbox_notice(sb, "%.900s", rb_log_last_error());
        }
        sb->pending_shot[0] = '\0', sb->pending_shot_new = false;
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
    return save_shot(sb, path, false);
}

