/* sandbox_panels.c - the sandbox's side of the settings panels (panels.h):
 * starting Dear ImGui when they are first shown, handing them the events,
 * filling what they show each frame, carrying out what they ask of the
 * settings and the scene (a new step, a scene loaded or saved, the shape to
 * throw, an emitter or a field placed at the next click), and drawing them
 * over the HUD. What only the loop does (the wind, a replay's speed, Enter,
 * what a placing click sets off) goes back to it as actions: this piece
 * never calls the loop. The panels themselves never see the sandbox. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sandbox_internal.h"
#include "scenes/formations.h"

struct rb_sandbox_ui {
    rb_panels *panels; /* NULL if Dear ImGui could not start */
    bool failed;       /* ... and it was said once */
    rb_settings settings;
    int placing; /* rb_panel_place: what the next click in the scene places */
    rb_panel_shape *shapes;
    uint32_t shape_capacity;
    bool emitter_active[RB_DEBRIS_MAX_EMITTERS], field_active[RB_DEBRIS_MAX_FIELDS];
    bool simulate_asked;    /* "simulate from here" was asked for: the next frame says if it was refused */
    rb_body_id inspected;   /* the body the Inspector shows */
    bool inspected_kept;    /* ... kept this frame, the cursor on a panel */
    bool inspected_grabbed; /* ... and it was last grabbed, not pointed at */
    char piece_name[64];
    rb_panel_body body; /* what the Inspector showed last */
    /* the material's largest step, kept for the material it was found for */
    float step_for, step_for_e, step_for_tc;
    char text[1200];
};

/* The panels are drawn, and take input, unless hidden or under the F1 help. */
static bool live(const rb_sandbox *sb) { return rb_sandbox_panels_shown(sb) && !sb->help; }

void rb_sandbox_settings(rb_sandbox *sb, rb_settings *out) {
    *out = (rb_settings){.world = rb_sandbox_live_world(sb),
                         .clock = &sb->steps_clock,
                         .throw_params = &sb->hands.throw_params,
                         .blast = &sb->hands.blast,
                         .grab_hz = &sb->hands.grab_hz,
                         .debris = rb_stage_debris(sb->stage)};
}

rb_panels *rb_sandbox_panels(rb_sandbox *sb) { return sb->ui ? sb->ui->panels : NULL; }

bool rb_sandbox_panels_wanted(const rb_options *o) {
    return o->panels || !(o->script || o->screenshot || o->frames > 0 || o->video);
}

bool rb_sandbox_inspected(const rb_sandbox *sb, rb_panel_body *out) {
    *out = sb->ui && live(sb) ? sb->ui->body : (rb_panel_body){0};
    return out->valid;
}

bool rb_sandbox_panels_shown(const rb_sandbox *sb) {
    return sb->ui && sb->ui->panels && rb_panels_visible(sb->ui->panels);
}

void rb_sandbox_show_panels(rb_sandbox *sb, bool shown) {
    if (!sb->ui && !(sb->ui = calloc(1, sizeof *sb->ui))) return;
    rb_sandbox_ui *ui = sb->ui;
    if (!ui->panels && shown && !ui->failed) {
        char err[256];
        SDL_GL_MakeCurrent(sb->window, sb->gl);
        ui->panels = rb_panels_create(sb->window, err, sizeof err);
        if (!ui->panels) {
            ui->failed = true;
            rb_log(RB_LOG_ERROR, "no settings panels: %s", err);
        }
    }
    if (ui->panels) rb_panels_set_visible(ui->panels, shown);
    if (!shown) ui->placing = RB_PLACE_NONE;
}

void rb_sandbox_panels_end(rb_sandbox *sb) {
    if (!sb->ui) return;
    if (sb->ui->panels) {
        SDL_GL_MakeCurrent(sb->window, sb->gl);
        rb_panels_destroy(sb->ui->panels);
    }
    free(sb->ui->shapes);
    free(sb->ui);
    sb->ui = NULL;
}

bool rb_sandbox_panels_event(rb_sandbox *sb, const SDL_Event *e) {
    if (!sb->ui || !sb->ui->panels) return false;
    if (!live(sb)) {
        /* releases still reach them (nothing stays held), and they take nothing */
        if (e->type == SDL_KEYUP || e->type == SDL_MOUSEBUTTONUP) rb_panels_event(sb->ui->panels, e);
        return false;
    }
    return rb_panels_event(sb->ui->panels, e);
}

/* ---- what the panels show ---- */

static void fill_shapes(rb_sandbox *sb, rb_panel_view *v) {
    rb_sandbox_ui *ui = sb->ui;
    const rb_entities *table = rb_sandbox_table(sb);
    const uint32_t n = rb_entities_count(table);
    if (n > ui->shape_capacity) {
        rb_panel_shape *s = realloc(ui->shapes, sizeof *s * n);
        if (!s) return;
        ui->shapes = s, ui->shape_capacity = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        const rb_shape *shape = rb_entities_get(table, i)->shape;
        float half[3];
        rb_shape_half_extents(shape, half);
        ui->shapes[i] = (rb_panel_shape){.name = shape->name,
                                         .particles = shape->particle_count,
                                         .extent = {2.0f * half[0], 2.0f * half[1], 2.0f * half[2]},
                                         .particle_radius = shape->particle_radius,
                                         .mass = shape->mass};
    }
    v->shapes = ui->shapes, v->shape_count = n, v->selected_shape = sb->selected_shape;
}

/* The grabbed body, else the one under the cursor: the body the last frame
 * drew lighter (sb->look.hover, picked as drawn: sandbox_view.c), so the
 * Inspector costs no pick of its own. Pointing at a panel keeps what it
 * shows, to be read. */
static rb_body_id inspected(rb_sandbox *sb) {
    rb_sandbox_ui *ui = sb->ui;
    ui->inspected_kept = !sb->hands.grab.active && rb_panels_over(ui->panels, sb->input.mouse_x, sb->input.mouse_y);
    if (sb->hands.grab.active)
        ui->inspected = sb->hands.grab.body, ui->inspected_grabbed = true;
    else if (!ui->inspected_kept)
        ui->inspected = sb->look.hover, ui->inspected_grabbed = false;
    return ui->inspected;
}

static void fill_body(rb_sandbox *sb, rb_panel_body *b) {
    static const char *const kinds[] = {"dynamic", "static", "kinematic"};
    rb_body_state s;
    const rb_body_id id = inspected(sb);
    const rb_entities *table = rb_sandbox_table(sb);
    if (id.generation == 0 || !rb_world_get_body_by_id(rb_sandbox_live_world(sb), id, &s)) return;
    const int row = rb_entities_of_world_shape(table, s.shape);
    snprintf(sb->ui->piece_name, sizeof sb->ui->piece_name, "a piece of a broken body (shape %u)", s.shape);
    *b = (rb_panel_body){.valid = true,
                         .grabbed = sb->hands.grab.active,
                         .kept = sb->ui->inspected_kept,
                         .kept_grabbed = sb->ui->inspected_grabbed,
                         .slot = id.slot,
                         .generation = id.generation,
                         .shape = row >= 0 ? rb_entities_get(table, (uint32_t)row)->shape->name : sb->ui->piece_name,
                         .kind = s.kind <= RB_BODY_KINEMATIC ? kinds[s.kind] : "?",
                         .mass = s.mass,
                         .asleep = s.asleep};
    memcpy(b->position, s.position, sizeof b->position);
    memcpy(b->velocity, s.velocity, sizeof b->velocity);
    memcpy(b->angular_velocity, s.angular_velocity, sizeof b->angular_velocity);
}

static void fill_scene(rb_sandbox *sb, rb_panel_view *v) {
    rb_sandbox_ui *ui = sb->ui;
    const char *slash = strrchr(sb->scene_file, '/');
    v->scene_file = sb->scene_file;
    v->scene_name = sb->formation > 0 ? rb_formation_name(sb->formation) : slash ? slash + 1 : sb->scene_file;
    const rb_debris *debris = rb_stage_debris(sb->stage);
    v->debris = debris != NULL;
    if (debris) {
        const rb_debris_desc *dd = rb_debris_get_desc(debris);
        v->emitter_count = dd->emitter_count, v->field_count = dd->field_count;
        for (uint32_t k = 0; k < dd->emitter_count; k++) ui->emitter_active[k] = rb_debris_emitter_active(debris, k);
        for (uint32_t k = 0; k < dd->field_count; k++) ui->field_active[k] = rb_debris_field_active(debris, k);
    }
    v->emitter_active = ui->emitter_active, v->field_active = ui->field_active;
    v->placing = ui->placing;
}

/* --replay: where its timeline is, and the strip along the bottom its bar
 * takes (with the bar's backing, hud.c), which the panels leave free. */
static void fill_replay(rb_sandbox *sb, rb_panel_view *v) {
    if (!sb->replay) return;
    rb_hud_replay h;
    rb_replay_hud(sb->replay, &h);
    v->replaying = true;
    v->replay_frame = h.frame, v->replay_last = h.last;
    v->replay_time = h.time, v->replay_speed = h.speed;
    v->replay_playing = h.playing, v->replay_key_frame = h.key_frame;
    const float scale = rb_hud_scale(sb->width);
    const rb_replay_bar bar = rb_replay_bar_layout(sb->width, sb->height, scale);
    int ww = 0, wh = 0;
    SDL_GetWindowSize(sb->window, &ww, &wh);
    const float to_window = sb->height > 0 && wh > 0 ? (float)wh / (float)sb->height : 1.0f;
    v->keep_bottom = ((float)sb->height - (bar.y - 11.0f * scale)) * to_window;
}

static void fill_view(rb_sandbox *sb, rb_panel_view *v, double dt) {
    rb_sandbox_ui *ui = sb->ui;
    const rb_world *world = rb_sandbox_live_world(sb);
    const rb_world_desc *d = rb_world_get_desc(world);
    rb_material m;
    rb_world_get_material(world, 0, &m);
    if (m.restitution != ui->step_for_e || m.contact_time != ui->step_for_tc) {
        ui->step_for = rb_settings_step_for(m.restitution, m.contact_time);
        ui->step_for_e = m.restitution, ui->step_for_tc = m.contact_time;
    }
    rb_sandbox_settings(sb, &ui->settings);
    *v = (rb_panel_view){.settings = &ui->settings,
                         .frame_dt = dt,
                         .gravity = {d->gravity[0], d->gravity[1], d->gravity[2]},
                         .dt = d->dt,
                         .time_scale = sb->steps_clock.scale,
                         .sleeping = d->sleep_time > 0.0f,
                         .backend = rb_world_backend_name(world),
                         .device = rb_world_device_name(world),
                         .step_reloads = rb_stage_debris(sb->stage) != NULL,
                         .recording = sb->rec.writer != NULL,
                         .restitution = m.restitution,
                         .friction = m.friction,
                         .contact_time = m.contact_time,
                         .rolling_friction = m.rolling_friction,
                         .step_needed = ui->step_for,
                         .throw_speed = sb->hands.throw_params.speed,
                         .throw_speed_max = sb->hands.throw_params.speed_max,
                         .throw_spin = sb->hands.throw_params.spin,
                         .blast_radius = sb->hands.blast.radius,
                         .blast_strength = sb->hands.blast.strength,
                         .blast_up = sb->hands.blast.up,
                         .grab_hz = sb->hands.grab_hz};
    fill_shapes(sb, v);
    if (rb_panels_shown(ui->panels, RB_PANEL_INSPECTOR) && !sb->replay) fill_body(sb, &v->body);
    ui->body = v->body;
    fill_scene(sb, v);
    fill_replay(sb, v);
}

/* ---- what the panels ask for ---- */

static void ms_text(float s, char buf[32]) { snprintf(buf, 32, "%.4g ms", s * 1000.0); }

bool rb_sandbox_set_step(rb_sandbox *sb, float dt, char *why, size_t why_size) {
    rb_settings s;
    rb_sandbox_settings(sb, &s);
    if (sb->replay) {
        snprintf(why, why_size, "replaying: simulate from here first, then the step can change");
        return false;
    }
    if (!rb_settings_check_step(&s, dt, why, why_size)) return false;
    if (sb->rec.writer) {
        snprintf(why, why_size, "the step stays while --record records: a cache holds one step");
        return false;
    }
    char a[32];
    ms_text(dt, a);
    const bool debris = rb_stage_debris(sb->stage) != NULL;
    if (debris && !rb_stage_scene(sb->stage)) {
        snprintf(why, why_size, "no scene to load again at a step of %s (its debris keeps time in steps)", a);
        return false;
    }
    if (!debris) {
        if (!rb_settings_set_step(&s, dt, why, why_size)) return false;
        snprintf(why, why_size, "step %s", a);
        return true;
    }
    /* The debris layer counts its ticks, lifetimes and emitters' rates in
     * steps of the step it was made for: the scene is loaded again at the
     * new one, as --dt would load it. */
    const float keep = sb->opts.dt;
    sb->opts.dt = dt;
    rb_sandbox_reset(sb, 0);
    sb->opts.dt = keep;
    if (rb_world_get_desc(rb_sandbox_live_world(sb))->dt != dt) {
        snprintf(why, why_size, "the scene could not be loaded again at a step of %s: %s", a, rb_log_last_error());
        return false;
    }
    snprintf(why, why_size, "step %s: the scene was loaded again at it (its debris keeps time in steps)", a);
    return true;
}

static void select_shape(rb_sandbox *sb, int row) {
    if (row < 0 || (uint32_t)row >= rb_entities_count(rb_sandbox_table(sb))) return;
    sb->selected_shape = row;
    rb_sandbox_notice(sb, "throwing %s", rb_entities_get(rb_sandbox_table(sb), (uint32_t)row)->shape->name);
}

/* The Scene panel's load, save and reset: what became of it, in the panel. */
static void scene_request(rb_sandbox *sb, const rb_panel_request *r) {
    rb_panels *p = sb->ui->panels;
    char *text = sb->ui->text;
    const size_t size = sizeof sb->ui->text;
    if (r->kind == RB_REQ_RESET) {
        rb_sandbox_reset(sb, 0);
        rb_panels_say(p, RB_PANEL_SCENE, "reset", false);
    } else if (r->kind == RB_REQ_LOAD && !r->path[0]) {
        rb_panels_say(p, RB_PANEL_SCENE, "load: type a scene file's path first", true);
    } else if (r->kind == RB_REQ_LOAD) {
        const bool ok = rb_sandbox_load_file(sb, r->path);
        snprintf(text, size, ok ? "loaded %s" : "%s", ok ? r->path : rb_log_last_error());
        rb_panels_say(p, RB_PANEL_SCENE, text, !ok);
    } else {
        const bool ok = rb_sandbox_save_as(sb, r->path[0] ? r->path : NULL);
        snprintf(text, size, ok ? "saved %s" : "%s", ok ? sb->last_saved : rb_log_last_error());
        rb_panels_say(p, RB_PANEL_SCENE, text, !ok);
    }
}

/* The loop's actions the panels ask for this frame (at most max). */
typedef struct asked {
    rb_action *out;
    int count, max;
} asked;

static void ask(asked *a, rb_action action) {
    if (a->count < a->max) a->out[a->count++] = action;
}

static void place_request(rb_sandbox *sb, int what, asked *out) {
    static const char *const names[] = {"", "an emitter", "a blast", "", "a vortex"};
    sb->ui->placing = RB_PLACE_NONE;
    if (what == RB_PLACE_WIND) { /* wind blows everywhere, along the view: nothing to place */
        ask(out, (rb_action){.kind = RB_ACT_WIND});
        return;
    }
    if (what <= RB_PLACE_NONE || what > RB_PLACE_VORTEX) return;
    sb->ui->placing = what;
    rb_sandbox_notice(sb, "click in the scene where %s goes", names[what]);
}

/* The replay's timeline; false for a request a replay does not take. */
static bool replay_request(rb_sandbox *sb, const rb_panel_request *r, asked *out) {
    rb_replay *replay = sb->replay;
    switch (r->kind) {
    case RB_REQ_REPLAY_SEEK:
        rb_replay_seek(replay, r->index > 0 ? (uint32_t)r->index : 0u);
        return true;
    case RB_REQ_REPLAY_PLAY:
        rb_replay_play(replay, r->index != 0);
        return true;
    case RB_REQ_REPLAY_SPEED:
        ask(out, (rb_action){.kind = RB_ACT_REPLAY_SPEED, .arg = r->index});
        return true;
    case RB_REQ_SIMULATE_HERE:
        ask(out, (rb_action){.kind = RB_ACT_SIMULATE_HERE}); /* Enter's */
        sb->ui->simulate_asked = true;
        return true;
    case RB_REQ_SELECT_SHAPE:
        return false; /* the shape to throw once live */
    default:
        rb_panels_say(sb->ui->panels, RB_PANEL_SCENE, "replaying: simulate from here first, then the world can change",
                      true);
        return true;
    }
}

static void carry_out(rb_sandbox *sb, const rb_panel_request *r, asked *out) {
    rb_panels *p = sb->ui->panels;
    char why[1024];
    if (sb->replay && replay_request(sb, r, out)) return;
    switch (r->kind) {
    case RB_REQ_STEP: {
        const bool ok = rb_sandbox_set_step(sb, r->value, why, sizeof why);
        rb_panels_say(p, RB_PANEL_WORLD, why, !ok);
        break;
    }
    case RB_REQ_SELECT_SHAPE:
        select_shape(sb, r->index);
        break;
    case RB_REQ_LOAD:
    case RB_REQ_SAVE:
    case RB_REQ_RESET:
        scene_request(sb, r);
        break;
    case RB_REQ_PLACE:
        place_request(sb, r->index, out);
        break;
    case RB_REQ_REMOVE_EMITTER: {
        rb_debris *d = rb_stage_debris(sb->stage);
        if (d && rb_debris_remove_emitter(d, (uint32_t)r->index)) {
            snprintf(why, sizeof why, "emitter %d removed; its bodies live on", r->index + 1);
            rb_panels_say(p, RB_PANEL_SCENE, why, false);
        }
        break;
    }
    case RB_REQ_REPLAY_SEEK:
    case RB_REQ_REPLAY_PLAY:
    case RB_REQ_REPLAY_SPEED:
    case RB_REQ_SIMULATE_HERE:
        break; /* a live run has no timeline */
    }
}

bool rb_sandbox_panels_take_click(rb_sandbox *sb, rb_action *a) {
    if (a->kind != RB_ACT_TOOL_PRESS || !sb->ui || sb->ui->placing == RB_PLACE_NONE) return false;
    const int what = sb->ui->placing;
    const float x = a->x, y = a->y;
    sb->ui->placing = RB_PLACE_NONE; /* one click, one placement: the tool has the next */
    if (what == RB_PLACE_EMITTER)
        *a = (rb_action){.kind = RB_ACT_EMITTER, .arg = 1, .x = x, .y = y};
    else if (what == RB_PLACE_VORTEX)
        *a = (rb_action){.kind = RB_ACT_VORTEX, .x = x, .y = y};
    else
        *a = (rb_action){.kind = RB_ACT_TOOL_PRESS, .arg = RB_TOOL_EXPLODE, .x = x, .y = y};
    return true;
}

/* ---- the frame ---- */

int rb_sandbox_panels_frame(rb_sandbox *sb, double dt, rb_action *out, int max) {
    sb->hands.grab.hz = sb->hands.grab_hz; /* the Tools panel's stiffness, for a grab already held too */
    if (!live(sb)) return 0;
    if (sb->ui->simulate_asked && sb->replay) /* the loop refused it (logged): the Scene panel says why */
        rb_panels_say(sb->ui->panels, RB_PANEL_SCENE, rb_log_last_error(), true);
    sb->ui->simulate_asked = false;
    rb_panel_view view;
    fill_view(sb, &view, dt);
    rb_panel_request requests[RB_PANEL_MAX_REQUESTS];
    const int n = rb_panels_frame(sb->ui->panels, &view, requests, RB_PANEL_MAX_REQUESTS);
    asked a = {.out = out, .max = max};
    for (int i = 0; i < n; i++) carry_out(sb, &requests[i], &a);
    return a.count;
}

void rb_sandbox_panels_draw(rb_sandbox *sb) {
    if (live(sb)) rb_panels_draw(sb->ui->panels);
}
