/* sandbox.c - the sandbox's life: create (the window, the renderer, the
 * registry, the stage with its first scene, the recording and the video),
 * destroy, and the program's run, a frame at a time (sandbox_frame.c) until
 * the user quits or --frames are done. The pieces each frame drives are
 * listed in sandbox_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/log.h"
#include "sandbox_internal.h"
#include "window.h"
#include "scenes/formations.h"

/* ---- create and destroy ---- */

/* Whether the stage's scene came from a file with a start camera. */
static bool scene_started(const rb_sandbox *sb) {
    const rb_scene *scene = rb_stage_scene(sb->stage);
    return sb->scene_file[0] && scene && scene->start.set;
}

/* rb_sandbox_create with --replay's cache and --script's script already
 * read (taken, whatever happens: the script is read once). *asked (if not
 * NULL) is set where the command line asked for what cannot be had (exit
 * status 2: README, "Headless runs"): a --scene that cannot be read or is
 * too big for memory, a --shape that is not loaded, a step the material
 * cannot take. */
static rb_sandbox *create(const rb_options *opts, const rb_paths *paths, rb_replay *replay, rb_script *script,
                          bool *asked, char *err, size_t err_size) {
    bool scratch;
    if (!asked) asked = &scratch;
    *asked = false;
    rb_scene *scene = NULL; /* --scene, until the sandbox takes it */
    rb_sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        rb_replay_destroy(replay);
        rb_script_destroy(script);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    sb->replay = replay;
    sb->script = script;
    sb->opts = *opts;
    sb->paths = *paths;
    sb->vsync = opts->vsync;
    sb->hands.blast = rb_blast_defaults();
    sb->hands.throw_params = rb_throw_defaults();
    sb->hands.grab_hz = RB_GRAB_HZ;
    if (sb->opts.blast_radius > 0.0f) /* --blast */
        sb->hands.blast =
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
    *asked = true; /* until the world is made: each failure below is the command line's */
    if (opts->shape_given && rb_registry_find(sb->registry, opts->shape) < 0) {
        snprintf(err, err_size, "--shape %s: no shape of that name is loaded (rubble --list-shapes lists them)",
                 opts->shape);
        goto fail;
    }
    if (opts->scene) {
        /* The scene the user named, or no sandbox: a typo is not run as something else. */
        scene = rb_scene_load(opts->scene, sb->registry, err, err_size);
        if (!scene) goto fail;
        desc = rb_scene_world_desc(scene, &desc);
        rb_app_override_world(opts, &desc);
        /* more than memory holds is refused before anything is built (scenes/stage.h) */
        if (!rb_stage_fits(scene, &desc, err, err_size)) goto fail;
    }
    if (!rb_world_desc_check(&desc, err, err_size)) goto fail; /* --dt the material cannot take */
    *asked = false;
    /* the world made for the scene, which installing it then keeps */
    sb->stage = rb_stage_create(sb->registry, &desc, err, err_size);
    if (!sb->stage) goto fail;
    sb->view = rb_view_create();
    sb->look.pick_meshes = rb_pick_meshes_create();
    sb->look.debug = rb_debug_views_create();
    if (!sb->view || !sb->look.pick_meshes || !sb->look.debug) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }
    rb_sandbox_sync_shapes(sb);
    const rb_entities *table = rb_sandbox_table(sb);
    const uint32_t shapes = rb_entities_count(table);
    if (shapes == 0) rb_log(RB_LOG_WARN, "no shapes loaded: check the plugins folder");
    int want = opts->shape ? rb_entities_find(table, opts->shape) : -1;
    if (opts->shape && want < 0 && shapes > 0)
        rb_log(RB_LOG_WARN, "no shape named '%s'; using %s", opts->shape, rb_entities_get(table, 0)->shape->name);
    sb->formation_shape = sb->selected_shape = want >= 0 ? want : shapes > 0 ? 0 : -1;
    rb_step_clock_init(&sb->steps_clock, desc.dt, sb->fixed_dt > 0.0);
    SDL_GL_GetDrawableSize(sb->window, &sb->width, &sb->height); /* the framing's aspect */
    rb_camera_init(&sb->camera, (const float[3]){0.0f, 3.0f, 10.0f}, (const float[3]){0.0f, 1.0f, 0.0f});
    if (scene) { /* built into the world made for it; installing takes the scene */
        rb_scene *taken = scene;
        scene = NULL;
        if (!rb_sandbox_install_scene(sb, taken, opts->scene, err, err_size)) goto fail;
    } else if (!sb->replay) { /* a replay's world stays empty until Enter */
        rb_sandbox_reset(sb, sb->formation);
    }
    /* The camera: the scene's start camera (installing it placed it there),
     * a replay's recorded camera, else the bodies framed. */
    rb_scene_bookmark start;
    if (sb->replay && rb_replay_camera(sb->replay, sb->registry, sb->bookmarks, &start))
        rb_camera_place(&sb->camera, start.position, start.yaw, start.pitch);
    else if (sb->replay || sb->look.frame_pending || !scene_started(sb))
        rb_sandbox_frame_camera(sb);
    sb->look.frame_pending = false;
    int window_w, window_h; /* the cursor is in window coordinates, not drawable pixels (high DPI) */
    SDL_GetWindowSize(sb->window, &window_w, &window_h);
    rb_input_init(&sb->input, 0.5f * (float)window_w, 0.5f * (float)window_h);
    sb->input.replay = sb->replay != NULL;
    sb->last_wall = rb_seconds();
    sb->fps = 60.0;
    if (opts->stats_every > 0.0) rb_stats_init(&sb->stats, opts->stats_every, sb->last_wall);
    if (opts->record) {
        sb->rec.writer = rb_cache_begin_stage(opts->record, sb->stage, opts->record_rate, err, err_size);
        if (!sb->rec.writer) goto fail;
        sb->rec.world = rb_stage_world_number(sb->stage), sb->rec.start = sb->steps;
        rb_sandbox_record(sb); /* frame 0: the world before its first step */
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
    rb_script *script = NULL;
    if (opts->script && !(script = rb_script_load(opts->script, err, err_size))) {
        rb_replay_destroy(replay);
        return NULL;
    }
    return create(opts, paths, replay, script, NULL, err, err_size);
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
    rb_sandbox_end_recording(sb);
    rb_replay_destroy(sb->replay);
    end_video(sb);
    rb_script_destroy(sb->script);
    rb_input_release(&sb->input);
    rb_sandbox_forget_drops(sb);
    rb_view_destroy(sb->view);
    rb_pick_meshes_destroy(sb->look.pick_meshes);
    rb_debug_views_destroy(sb->look.debug);
    free(sb->look.swaps);
    rb_frame_stats_free(&sb->frame_stats);
    rb_stage_destroy(sb->stage);
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
    rb_step_clock_set(&sb->steps_clock, rb_world_get_desc(rb_sandbox_live_world(sb))->dt, sb->fixed_dt > 0.0);
}

bool rb_sandbox_set_script(rb_sandbox *sb, const char *text, char *err, size_t err_size) {
    rb_script *s = rb_script_parse(text, "script", err, err_size);
    if (!s) return false;
    rb_script_destroy(sb->script);
    sb->script = s;
    sb->script_start = sb->clock;
    return true;
}

rb_world *rb_sandbox_world(rb_sandbox *sb) { return rb_sandbox_live_world(sb); }
rb_camera *rb_sandbox_camera(rb_sandbox *sb) { return &sb->camera; }
const rb_entities *rb_sandbox_entities(const rb_sandbox *sb) { return rb_sandbox_table(sb); }

int rb_sandbox_world_shape(const rb_sandbox *sb, const char *name) {
    int row = rb_entities_find(rb_sandbox_table(sb), name);
    return row >= 0 ? rb_entities_get(rb_sandbox_table(sb), (uint32_t)row)->world_shape : -1;
}

/* ---- the program ---- */

int rb_sandbox_run(const rb_options *opts, const rb_paths *paths) {
    char err[4096];
    /* A script that cannot be used is a command-line problem: exit 2. */
    rb_script *script = opts->script ? rb_script_load(opts->script, err, sizeof err) : NULL;
    if (opts->script && !script) {
        fprintf(stderr, "rubble: %s\n", err);
        return 2;
    }
    /* So is a video that cannot be made: no ffmpeg, or nowhere to write it. */
    if (opts->video && !rb_video_usable(opts->video, err, sizeof err)) {
        fprintf(stderr, "rubble: --video %s: %s\n", opts->video, err);
        rb_script_destroy(script);
        return 2;
    }
    /* So is a cache to replay that cannot be read. */
    rb_replay *replay = NULL;
    if (opts->replay && !(replay = rb_replay_open(opts->replay, err, sizeof err))) {
        fprintf(stderr, "rubble: --replay %s\n", err);
        rb_script_destroy(script);
        return 2;
    }
    bool asked = false;
    rb_sandbox *sb = create(opts, paths, replay, script, &asked, err, sizeof err);
    if (!sb) {
        fprintf(stderr, "rubble: %s%s\n", asked ? "" : "cannot start the sandbox: ", err);
        return asked ? 2 : 1;
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
