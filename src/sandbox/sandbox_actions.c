/* sandbox_actions.c - what the sandbox does for each action of the input
 * (input.h): the keys' effects, and the tools (throw, grab, delete, explode;
 * emitters, wind, vortices) carried out on the world through tools.h, the
 * entity table and the debris layer (a blast, the wind and a vortex are its
 * fields). Part of the loop, with sandbox.c. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "hud.h"
#include "sandbox_internal.h"

void rb_sandbox_notice(rb_sandbox *sb, const char *text) {
    snprintf(sb->message, sizeof sb->message, "%s", text);
    sb->message_until = sb->clock + 3.0;
}

/* Gives row i its shape's mesh in the renderer, if it has one. */
static void mesh_row(rb_sandbox *sb, uint32_t i) {
    const rb_mesh *m = &rb_entities_get(sb->entities, i)->shape->mesh;
    if (m->vertex_count > 0)
        rb_entities_set_mesh(
            sb->entities, i,
            rb_renderer_add_mesh(sb->renderer, m->positions, m->normals, m->vertex_count, m->indices, m->index_count));
}

void rb_sandbox_sync_shapes(rb_sandbox *sb) {
    const uint32_t replaced = rb_entities_replaced(sb->entities);
    rb_entities_sync(sb->entities);
    if (rb_entities_replaced(sb->entities) != replaced) /* a replaced row has no mesh until given the new one */
        for (uint32_t i = 0; i < sb->meshed; i++)
            if (rb_entities_get(sb->entities, i)->mesh < 0) mesh_row(sb, i);
    for (; sb->meshed < rb_entities_count(sb->entities); sb->meshed++) mesh_row(sb, sb->meshed);
}

void rb_sandbox_mesh_pieces(rb_sandbox *sb) {
    const uint32_t n = rb_world_shape_count(sb->world);
    for (; sb->shapes_meshed < n; sb->shapes_meshed++) {
        const uint32_t ws = sb->shapes_meshed;
        if (rb_entities_of_world_shape(sb->entities, ws) >= 0) continue; /* a row's: its mesh is the row's */
        const uint32_t count = rb_world_shape_particles(sb->world, ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (count ? count : 1));
        rb_mesh m;
        if (p && count == rb_world_shape_particles(sb->world, ws, p, count, NULL) &&
            rb_cell_mesh(p, count, rb_world_shape_radius(sb->world, ws), &m)) {
            const int mesh =
                rb_renderer_add_mesh(sb->renderer, m.positions, m.normals, m.vertex_count, m.indices, m.index_count);
            if (mesh >= 0 && rb_entities_set_shape_mesh(sb->entities, ws, mesh))
                rb_pick_meshes_take(sb->pick_meshes, sb->world, ws, &m); /* picked as it is drawn */
            rb_mesh_free(&m);
        } /* else drawn as its particles */
        free(p);
    }
}

static const rb_shape *selected(const rb_sandbox *sb) {
    const rb_entity *e = sb->selected_shape >= 0 ? rb_entities_get(sb->entities, (uint32_t)sb->selected_shape) : NULL;
    return e ? e->shape : NULL;
}

static void cycle_shape(rb_sandbox *sb, int delta) {
    int n = (int)rb_entities_count(sb->entities);
    if (n == 0) return;
    sb->selected_shape = ((sb->selected_shape + delta) % n + n) % n;
    char text[128];
    snprintf(text, sizeof text, "throwing %s", selected(sb)->name);
    rb_sandbox_notice(sb, text);
}

void rb_sandbox_frame_camera(rb_sandbox *sb) {
    float lo[3] = {-4.0f, 0.0f, -4.0f}, hi[3] = {4.0f, 3.0f, 4.0f};
    uint32_t n = 0;
    const rb_transform *t = rb_sandbox_read_bodies(sb) ? rb_view_transforms(sb->view, &n) : NULL;
    for (uint32_t b = 0; b < n; b++)
        for (int k = 0; k < 3; k++) {
            if (t[b].position[k] < lo[k]) lo[k] = t[b].position[k];
            if (t[b].position[k] > hi[k]) hi[k] = t[b].position[k];
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

/* A cursor position in drawable pixels: mouse events are in window units,
 * and on a high-DPI screen the drawable has more pixels. */
static void to_drawable(const rb_sandbox *sb, float *x, float *y) {
    int ww = 0, wh = 0;
    SDL_GetWindowSize(sb->window, &ww, &wh);
    if (ww > 0) *x *= (float)sb->width / (float)ww;
    if (wh > 0) *y *= (float)sb->height / (float)wh;
}

void rb_sandbox_cursor_ray(const rb_sandbox *sb, float x, float y, float origin[3], float dir[3]) {
    to_drawable(sb, &x, &y);
    rb_camera_ray(&sb->camera, sb->width, sb->height, x, y, origin, dir);
}

/* What the cursor is on, as drawn (sandbox_view.c). */
static rb_pick pick_at(rb_sandbox *sb, float x, float y) { return rb_sandbox_pick(sb, x, y); }

static void do_throw(rb_sandbox *sb, double held, float x, float y) {
    const rb_entity *e = sb->selected_shape >= 0 ? rb_entities_get(sb->entities, (uint32_t)sb->selected_shape) : NULL;
    if (!e) {
        rb_log(RB_LOG_WARN, "nothing to throw: no shape is loaded");
        return;
    }
    if (e->world_shape < 0) {
        rb_log(RB_LOG_WARN, "cannot throw '%s': the world refused the shape", e->shape->name);
        return;
    }
    float o[3], d[3];
    rb_sandbox_cursor_ray(sb, x, y, o, d);
    /* Start just clear of the eye, so the body does not fill the view. */
    float ahead = e->shape->bounding_radius + 0.6f;
    rb_body_desc desc = rb_tool_throw_spun(o, d, ahead, rb_throw_speed_of(&sb->throw_params, held),
                                           sb->throw_params.spin, ++sb->throw_count);
    rb_body_id id = rb_entities_spawn(sb->entities, (uint32_t)sb->selected_shape, &desc);
    if (id.generation != 0) sb->last_thrown = id;
}

/* The debris layer the tools add emitters and fields to: the scene's, or
 * for a scene without debris effects an empty one made now (R and a new
 * scene drop it again). False if it cannot be made (logged: why `what`
 * failed). */
static bool debris_layer(rb_sandbox *sb, const char *what) {
    if (sb->debris) return true;
    static const rb_debris_desc none = {0};
    char err[256];
    sb->debris = rb_debris_create(&none, sb->entities, err, sizeof err);
    if (!sb->debris) rb_log(RB_LOG_ERROR, "cannot %s: %s", what, err);
    return sb->debris != NULL;
}

void rb_sandbox_debris_active(const rb_sandbox *sb, uint32_t *emitters, uint32_t *fields) {
    *emitters = *fields = 0;
    if (!sb->debris) return;
    const rb_debris_desc *dd = rb_debris_get_desc(sb->debris);
    for (uint32_t k = 0; k < dd->emitter_count; k++) *emitters += rb_debris_emitter_active(sb->debris, k);
    for (uint32_t k = 0; k < dd->field_count; k++) *fields += rb_debris_field_active(sb->debris, k);
}

/* The explode tool: a radial impulse field at point, given at the next
 * debris tick (the next frame's steps). */
static void blast(rb_sandbox *sb, const float point[3]) {
    if (!debris_layer(sb, "set off a blast")) return;
    const rb_field f = rb_blast_field(&sb->blast, point);
    if (!rb_debris_add_field(sb->debris, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for another blast yet");
        return;
    }
    sb->last_exploded = rb_blast_reach(sb->world, point, sb->blast.radius);
}

/* Removes the debris layer's last emitter (the newest placed, else the scene's last). */
static void remove_last_emitter(rb_sandbox *sb) {
    const uint32_t n = sb->debris ? rb_debris_get_desc(sb->debris)->emitter_count : 0;
    if (n == 0) {
        rb_sandbox_notice(sb, "no emitter to remove");
        return;
    }
    rb_debris_remove_emitter(sb->debris, n - 1u);
    char text[96];
    snprintf(text, sizeof text, "emitter removed (%u left); its bodies live on", n - 1u);
    rb_sandbox_notice(sb, text);
}

/* M: a fountain of the selected shape where the cursor meets the ground or
 * a body (rb_tool_emitter); M on the last one's spot again, or Shift+M,
 * removes the last one instead. A refusal (nothing under the cursor, a
 * spot inside a plane's solid, a full table) is said, and nothing changes. */
static void place_emitter(rb_sandbox *sb, float x, float y, bool remove) {
    if (remove) {
        remove_last_emitter(sb);
        return;
    }
    const rb_shape *shape = selected(sb);
    if (!shape) {
        rb_sandbox_notice(sb, "no emitter: no shape is loaded");
        return;
    }
    const rb_pick p = pick_at(sb, x, y);
    if (!p.hit) {
        rb_sandbox_notice(sb, "no emitter: nothing under the cursor");
        return;
    }
    const rb_emitter e = rb_tool_emitter(shape->name, shape->bounding_radius, p.point, ++sb->emitters_placed);
    const uint32_t n = sb->debris ? rb_debris_get_desc(sb->debris)->emitter_count : 0;
    if (n > 0) {
        const float *last = rb_debris_get_desc(sb->debris)->emitters[n - 1u].region.centre;
        const float gap[3] = {last[0] - e.region.centre[0], last[1] - e.region.centre[1], last[2] - e.region.centre[2]};
        if (rb_v3_dot(gap, gap) < 0.5f * 0.5f) {
            remove_last_emitter(sb);
            return;
        }
    }
    if (!debris_layer(sb, "place an emitter")) return;
    char err[256], text[320];
    if (!rb_debris_add_emitter(sb->debris, &e, err, sizeof err)) {
        snprintf(text, sizeof text, "no emitter: %s", err);
        rb_sandbox_notice(sb, text);
        return;
    }
    snprintf(text, sizeof text, "emitter: %s, %.0f a second, each living %.0f s (M on it or Shift+M removes it)",
             shape->name, e.rate, e.lifetime);
    rb_sandbox_notice(sb, text);
}

/* J: wind along the camera's horizontal view (rb_tool_wind). */
static void start_wind(rb_sandbox *sb) {
    float forward[3], right[3], up[3];
    rb_camera_basis(&sb->camera, forward, right, up);
    const rb_field f = rb_tool_wind(forward);
    if (!debris_layer(sb, "start the wind")) return;
    if (!rb_debris_add_field(sb->debris, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for the wind yet");
        return;
    }
    rb_sandbox_notice(sb, "wind along the view for 3 s");
}

/* C: a vortex where the cursor meets the ground or a body (rb_tool_vortex). */
static void place_vortex(rb_sandbox *sb, float x, float y) {
    const rb_pick p = pick_at(sb, x, y);
    if (!p.hit) {
        rb_sandbox_notice(sb, "no vortex: nothing under the cursor");
        return;
    }
    const rb_field f = rb_tool_vortex(p.point);
    if (!debris_layer(sb, "place a vortex")) return;
    if (!rb_debris_add_field(sb->debris, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for a vortex yet");
        return;
    }
    rb_sandbox_notice(sb, "vortex for 5 s");
}

static void tool_press(rb_sandbox *sb, rb_tool tool, float x, float y) {
    switch (tool) {
    case RB_TOOL_THROW:
        sb->throwing = true;
        sb->throw_start = sb->clock;
        break;
    case RB_TOOL_GRAB: {
        rb_pick p = pick_at(sb, x, y);
        if (p.body_hit && rb_grab_begin(&sb->grab, sb->world, &p)) sb->grab.hz = sb->grab_hz;
        sb->selected = p.body_hit ? p.body : (rb_body_id){0}; /* F focuses on it, orbits go about it */
        break;
    }
    case RB_TOOL_DELETE: {
        rb_pick p = pick_at(sb, x, y);
        if (p.body_hit && rb_world_remove_body(sb->world, p.body)) {
            sb->last_deleted = p.body;
            if (sb->grab.active && sb->grab.body.slot == p.body.slot) rb_grab_end(&sb->grab);
        }
        break;
    }
    case RB_TOOL_EXPLODE: {
        rb_pick p = pick_at(sb, x, y);
        if (p.hit) blast(sb, p.point);
        break;
    }
    default:
        break;
    }
}

static void reload_shaders(rb_sandbox *sb) {
    char err[2048];
    if (rb_renderer_reload(sb->renderer, err, sizeof err)) {
        sb->shader_error[0] = '\0';
        rb_sandbox_notice(sb, "shaders reloaded");
        rb_log(RB_LOG_INFO, "shaders reloaded from %s", rb_renderer_shader_dir(sb->renderer));
    } else {
        snprintf(sb->shader_error, sizeof sb->shader_error, "%s", err);
        rb_log(RB_LOG_ERROR, "shader reload failed; the old shaders stay in use:\n%s", err);
    }
}

void rb_sandbox_choose_quality(rb_sandbox *sb) {
    const rb_options *o = &sb->opts;
    const rb_render_quality q =
        rb_quality_choose(rb_renderer_gl_name(sb->renderer), o->msaa, o->shadows, o->render_scale);
    rb_renderer_set_quality(sb->renderer, &q); /* the options' values were checked: it is taken */
    sb->quality_automatic = o->msaa < 0 && o->shadows < 0 && !(o->render_scale > 0.0f);
    char text[128];
    rb_quality_describe(&q, text, sizeof text);
    rb_log(RB_LOG_INFO, "quality: %s, %s %s", text, sb->quality_automatic ? "chosen for" : "as asked, on",
           rb_renderer_gl_name(sb->renderer));
}

/* F9: low, medium, high, low... */
static void next_quality(rb_sandbox *sb) {
    rb_render_quality q = rb_renderer_quality(sb->renderer);
    q = rb_quality_preset_get(rb_quality_next_preset(&q));
    rb_renderer_set_quality(sb->renderer, &q);
    sb->quality_automatic = false;
    char text[160], described[128];
    q = rb_renderer_quality(sb->renderer); /* less what the driver lacks */
    rb_quality_describe(&q, described, sizeof described);
    snprintf(text, sizeof text, "quality: %s", described);
    rb_sandbox_notice(sb, text);
}

/* L: new plugins and meshes are added, rebuilt plugins' shapes replaced. */
static void rescan(rb_sandbox *sb) {
    const uint32_t replaced = rb_registry_replaced(sb->registry);
    const int added = rb_registry_rescan(sb->registry);
    const uint32_t renewed = rb_registry_replaced(sb->registry) - replaced;
    rb_sandbox_sync_shapes(sb);
    if (sb->selected_shape < 0 && rb_entities_count(sb->entities) > 0) sb->selected_shape = 0;
    char text[128];
    snprintf(text, sizeof text, "plugins and meshes rescanned: %d new shape%s, %u replaced", added,
             added == 1 ? "" : "s", renewed);
    rb_sandbox_notice(sb, text);
}

/* ---- --replay ---- */

/* Enter: the live simulation from the last keyframe at or before the frame
 * shown, its world as the recording had it there (rb_cache_key_scene), the
 * camera where it is, paused if the replay was. A keyframe without a scene
 * (after a break) is said, and the replay goes on. */
static void simulate_from_here(rb_sandbox *sb) {
    const rb_cache *c = rb_replay_cache(sb->replay);
    const int key = rb_replay_key(sb->replay);
    char err[1024], text[sizeof sb->message];
    rb_scene *scene = key >= 0 ? rb_cache_key_scene(c, (uint32_t)key, sb->registry, err, sizeof err) : NULL;
    if (!scene) {
        if (key < 0) snprintf(err, sizeof err, "%s: no keyframe", rb_replay_path(sb->replay));
        rb_log(RB_LOG_ERROR, "cannot simulate from here: %s (the replay goes on)", err);
        return;
    }
    if (!rb_sandbox_install_scene(sb, scene, NULL, err, sizeof err)) return; /* logged; the replay goes on */
    sb->formation = 0;                                                       /* R: the keyframe again */
    sb->paused = !rb_replay_playing(sb->replay);
    snprintf(text, sizeof text, "simulating from the keyframe at frame %u (%.3f s)%s", c->keys[key].frame,
             c->keys[key].time, sb->paused ? ", paused" : "");
    rb_replay_destroy(sb->replay);
    sb->replay = NULL;
    sb->input.replay = false;
    rb_sandbox_notice(sb, text);
}

/* What a replay does with an action: its keys and the timeline; what would
 * change the world is refused (Enter makes it live first). False for what
 * it does as a live run does (the camera, the view, F5, F12...). */
static bool replay_do(rb_sandbox *sb, const rb_action *a) {
    rb_replay *r = sb->replay;
    char text[96];
    switch (a->kind) {
    case RB_ACT_PAUSE:
        rb_replay_play(r, !rb_replay_playing(r));
        return true;
    case RB_ACT_STEP_ONCE: /* N: as . */
    case RB_ACT_REPLAY_STEP:
        rb_replay_step(r, a->kind == RB_ACT_STEP_ONCE ? 1 : a->arg);
        return true;
    case RB_ACT_REPLAY_SPEED:
        rb_replay_change_speed(r, a->arg);
        snprintf(text, sizeof text, "replay at %gx", rb_replay_speed(r));
        rb_sandbox_notice(sb, text);
        return true;
    case RB_ACT_REPLAY_SEEK:
        rb_replay_seek(r, a->arg < 0 ? 0 : UINT32_MAX);
        return true;
    case RB_ACT_SIMULATE_HERE:
        simulate_from_here(sb);
        return true;
    case RB_ACT_TOOL_PRESS: {
        float x = a->x, y = a->y;
        to_drawable(sb, &x, &y);
        rb_replay_layout(r, sb->width, sb->height, rb_hud_scale(sb->width)); /* the window as it is now */
        if (!rb_replay_press(r, x, y)) rb_sandbox_notice(sb, "replaying: the tools act on a live world (Enter)");
        return true;
    }
    case RB_ACT_TOOL_RELEASE:
        rb_replay_release(r);
        return true;
    case RB_ACT_RESET:
    case RB_ACT_SAVE_SCENE:
    case RB_ACT_LOAD_SCENE:
    case RB_ACT_DROP_FILE:
    case RB_ACT_EMITTER:
    case RB_ACT_WIND:
    case RB_ACT_VORTEX:
        rb_sandbox_notice(sb, "replaying: Enter simulates from here, and then the world can be changed");
        return true;
    default:
        return false;
    }
}

void rb_sandbox_replay_tick(rb_sandbox *sb, double dt) {
    if (rb_replay_scrubbing(sb->replay)) {
        float x = sb->input.mouse_x, y = sb->input.mouse_y;
        to_drawable(sb, &x, &y);
        rb_replay_drag(sb->replay, x);
    }
    rb_replay_advance(sb->replay, dt);
}

void rb_sandbox_do(rb_sandbox *sb, const rb_action *a) {
    if (sb->replay && replay_do(sb, a)) return;
    switch (a->kind) {
    case RB_ACT_QUIT:
        sb->quit = true;
        break;
    case RB_ACT_HELP:
        sb->help = !sb->help;
        break;
    case RB_ACT_HIDE_HUD:
        sb->hide_hud = !sb->hide_hud;
        break;
    case RB_ACT_PANELS:
        rb_sandbox_show_panels(sb, !rb_sandbox_panels_shown(sb));
        break;
    case RB_ACT_RELOAD_SHADERS:
        reload_shaders(sb);
        break;
    case RB_ACT_PARTICLE_VIEW:
        sb->particle_view = !sb->particle_view;
        break;
    case RB_ACT_PAUSE:
        sb->paused = !sb->paused;
        break;
    case RB_ACT_STEP_ONCE:
        sb->step_once = sb->paused;
        break;
    case RB_ACT_RESET:
        rb_sandbox_reset(sb, a->arg);
        break;
    case RB_ACT_SAVE_SCENE:
        rb_sandbox_save(sb);
        break;
    case RB_ACT_LOAD_SCENE:
        rb_sandbox_load_last(sb);
        break;
    case RB_ACT_DROP_FILE:
        rb_sandbox_drop(sb, a->path);
        break;
    case RB_ACT_CYCLE_SHAPE:
        cycle_shape(sb, a->arg);
        break;
    case RB_ACT_RESCAN:
        rescan(sb);
        break;
    case RB_ACT_SCREENSHOT:
        if (a->path) {
            snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", a->path);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            strftime(sb->pending_shot, sizeof sb->pending_shot, "rubble-%Y%m%d-%H%M%S.png", &tm);
        }
        break; /* taken once this frame is drawn, before it is presented */
    case RB_ACT_VSYNC:
        sb->vsync = !sb->vsync;
        if (SDL_GL_SetSwapInterval(sb->vsync ? 1 : 0) != 0)
            rb_sandbox_notice(sb, "vsync cannot be changed here");
        else
            rb_sandbox_notice(sb, sb->vsync ? "vsync on" : "vsync off");
        break;
    case RB_ACT_QUALITY:
        next_quality(sb);
        break;
    case RB_ACT_EMITTER:
        place_emitter(sb, a->x, a->y, a->arg < 0);
        break;
    case RB_ACT_WIND:
        start_wind(sb);
        break;
    case RB_ACT_VORTEX:
        place_vortex(sb, a->x, a->y);
        break;
    case RB_ACT_DEBUG_VIEW:
    case RB_ACT_FOCUS:
    case RB_ACT_BOOKMARK:
    case RB_ACT_ORBIT_MODE:
    case RB_ACT_SELECT:
        rb_sandbox_view_do(sb, a);
        break;
    case RB_ACT_TOOL_PRESS:
        if (rb_sandbox_place_pending(sb, a->x, a->y)) break; /* the Scene panel's "place" */
        tool_press(sb, (rb_tool)a->arg, a->x, a->y);
        break;
    case RB_ACT_TOOL_RELEASE:
        if (sb->throwing) {
            sb->throwing = false;
            do_throw(sb, sb->clock - sb->throw_start, a->x, a->y);
        }
        rb_grab_end(&sb->grab);
        break;
    case RB_ACT_WHEEL:
        if (sb->grab.active)
            rb_grab_wheel(&sb->grab, a->amount);
        else
            rb_camera_wheel(&sb->camera, a->amount);
        break;
    case RB_ACT_REPLAY_STEP: /* a replay's own: replay_do */
    case RB_ACT_REPLAY_SPEED:
    case RB_ACT_REPLAY_SEEK:
    case RB_ACT_SIMULATE_HERE:
        break;
    }
}
