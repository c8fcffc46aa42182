/* sandbox_view.c - seeing what happens, the loop's part: the frame's read
 * (the world's bodies, or a replay's), the cursor's ray and the pick of
 * what is drawn (pick.h) for every tool, the body under the cursor
 * highlighted, the selection, the debug views (debug_views.h) and the
 * crosshair, the camera's framing, orbit, focus and bookmarks (saved with
 * the scene), and the drawing quality. */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/log.h"
#include "base/rb_math.h"
#include "framing.h"
#include "sandbox_internal.h"

bool rb_sandbox_read_bodies(rb_sandbox *sb) {
    return sb->replay ? rb_replay_read(sb->replay, sb->view) : rb_view_read(sb->view, rb_sandbox_live_world(sb));
}

static rb_pick_scene pick_scene(rb_sandbox *sb) {
    return (rb_pick_scene){.world = rb_sandbox_live_world(sb),
                           .entities = rb_sandbox_table(sb),
                           .view = sb->view,
                           .particle_view = sb->particle_view};
}

/* The pick through (x, y) against the transforms the view holds now. */
static rb_pick pick_read(rb_sandbox *sb, float x, float y) {
    float o[3], d[3];
    rb_sandbox_cursor_ray(sb, x, y, o, d);
    const rb_pick_scene scene = pick_scene(sb);
    return rb_pick_drawn(sb->look.pick_meshes, &scene, o, d);
}

rb_pick rb_sandbox_pick(rb_sandbox *sb, float x, float y) {
    /* Bodies may have moved or gone since the frame was drawn (a reset among this frame's actions). */
    if (!rb_view_read(sb->view, rb_sandbox_live_world(sb))) return (rb_pick){0};
    return pick_read(sb, x, y);
}

/* Body id's index and where the view last read it; false if it is gone. */
static bool find_body(rb_sandbox *sb, rb_body_id id, uint32_t *index, const rb_transform **t) {
    uint32_t n = 0;
    const rb_transform *all = rb_view_transforms(sb->view, &n);
    const rb_world *world = rb_sandbox_live_world(sb);
    if (id.generation == 0 || !rb_world_body_valid(world, id) || n != rb_world_body_count(world)) return false;
    for (uint32_t b = 0; b < n; b++)
        if (rb_body_same(rb_world_body_id(world, b), id)) {
            *index = b, *t = &all[b];
            return true;
        }
    return false;
}

/* Where a body is and how far it reaches (its drawn bounding sphere). */
static bool body_sphere(rb_sandbox *sb, rb_body_id id, float centre[3], float *radius) {
    uint32_t b;
    const rb_transform *t;
    float lo[3], hi[3];
    const rb_pick_scene scene = pick_scene(sb);
    if (!find_body(sb, id, &b, &t) || !rb_pick_body_bounds(sb->look.pick_meshes, &scene, b, lo, hi, radius)) return false;
    memcpy(centre, t->position, 3 * sizeof(float));
    return true;
}

/* ---- the frame ---- */

/* How far the exploded view pulls each piece out: this times its centre's
 * offset from the body's. */
#define RB_EXPLODED_SPREAD 0.5f

/* The exploded view's meshes (Shift+P): each breakable body's pieces'
 * meshes pulled apart, made and uploaded the first frame it is shown,
 * kept by body slot until the body or the world goes. */
static void exploded_swaps(rb_sandbox *sb, rb_view_style *style) {
    const rb_debris *d = rb_stage_debris(sb->stage);
    const uint64_t world = rb_stage_world_number(sb->stage);
    if (sb->look.swap_world != world) { /* a new world: its ids are not the old one's */
        if (sb->look.swaps) memset(sb->look.swaps, 0, sizeof *sb->look.swaps * sb->look.swap_cap);
        sb->look.swap_world = world;
    }
    if (!sb->look.exploded || !d) return;
    const uint32_t n = rb_debris_breakables(d, NULL, 0);
    rb_body_id *ids = malloc(sizeof *ids * (n ? n : 1));
    if (!ids) return;
    rb_debris_breakables(d, ids, n);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t have = sb->look.swap_cap;
        if (!rb_grow((void **)&sb->look.swaps, &sb->look.swap_cap, ids[k].slot + 1, sizeof *sb->look.swaps)) break;
        if (sb->look.swap_cap > have)
            memset(&sb->look.swaps[have], 0, sizeof *sb->look.swaps * (sb->look.swap_cap - have));
        rb_view_swap *s = &sb->look.swaps[ids[k].slot];
        if (s->generation == ids[k].generation) continue; /* made already (or tried: mesh -1) */
        *s = (rb_view_swap){ids[k].generation, -1};
        rb_mesh m;
        if (rb_debris_exploded_mesh(d, ids[k], RB_EXPLODED_SPREAD, &m)) {
            s->mesh = rb_renderer_add_mesh_marked(sb->renderer, m.positions, m.normals, m.inside, m.vertex_count,
                                                  m.indices, m.index_count);
            rb_mesh_free(&m);
        }
    }
    free(ids);
    style->swaps = sb->look.swaps;
    style->swap_count = sb->look.swap_cap;
}

void rb_sandbox_view_style(rb_sandbox *sb, rb_view_style *style) {
    /* the body a click would pick, before the click: not while the cursor
     * is away, turning the view, or holding a body (that one is lit) */
    const rb_input *in = &sb->input;
    sb->look.hover = (rb_body_id){0};
    if (in->pointed && !in->looking && !sb->hands.grab.active && !sb->replay) {
        const rb_pick p = pick_read(sb, in->mouse_x, in->mouse_y);
        if (p.body_hit) sb->look.hover = p.body;
    }
    style->hover = sb->look.hover;
    /* a replay draws the cache's bodies, not the world's: no world state to tint them by */
    style->asleep = sb->replay ? NULL : rb_debug_asleep(sb->look.debug, rb_sandbox_live_world(sb));
    /* Ctrl alone flies down: where the eye was before it went down, for Ctrl+1..3 */
    sb->look.ctrl_held = in->keys[SDL_SCANCODE_LCTRL] || in->keys[SDL_SCANCODE_RCTRL];
    if (!sb->look.ctrl_held) memcpy(sb->look.before_ctrl, sb->camera.position, sizeof sb->look.before_ctrl);
    if (!rb_world_body_valid(rb_sandbox_live_world(sb), sb->look.selected))
        sb->look.selected = (rb_body_id){0}; /* deleted, or a new scene */
    if (!sb->replay) exploded_swaps(sb, style);
}

void rb_sandbox_draw_views(rb_sandbox *sb, const rb_render_view *view) {
    float vp[16];
    glm_mat4_mul((vec4 *)view->proj, (vec4 *)view->view, (vec4 *)vp);
    const rb_pick_scene scene = pick_scene(sb);
    const rb_debug_frame f = {.pick = sb->look.pick_meshes,
                              .scene = &scene,
                              .debris = rb_stage_debris(sb->stage),
                              .view_proj = vp,
                              .width = sb->width,
                              .height = sb->height};
    rb_debug_views_draw(sb->look.debug, sb->renderer, &f);
    if (sb->replay) { /* the recorded impacts and breaks near the replay's time (docs/events.md) */
        static float marks[6 * 3 * 256];
        uint32_t n = rb_cache_event_marks(rb_replay_cache(sb->replay), rb_replay_time(sb->replay), marks, 3 * 256);
        static const float orange[4] = {1.0f, 0.55f, 0.1f, 1.0f};
        if (n > 3 * 256) n = 3 * 256;
        if (n) rb_renderer_lines(sb->renderer, marks, n, orange, true);
    }
    uint32_t b;
    const rb_transform *t;
    float lo[3], hi[3], radius;
    if (find_body(sb, sb->look.selected, &b, &t) && rb_pick_body_bounds(sb->look.pick_meshes, &scene, b, lo, hi, &radius)) {
        rb_debug_draw_selection(sb->renderer, t, lo, hi);
    }
    if (sb->input.pointed && !sb->hide_hud) {
        int ww = 0, wh = 0; /* the cursor is in window units; the drawable may have more pixels (high DPI) */
        SDL_GetWindowSize(sb->window, &ww, &wh);
        const float sx = ww > 0 ? (float)sb->width / (float)ww : 1.0f,
                    sy = wh > 0 ? (float)sb->height / (float)wh : 1.0f;
        const float size = sb->height >= 700 ? 22.0f : 15.0f;
        rb_debug_draw_crosshair(sb->renderer, sb->input.mouse_x * sx, sb->input.mouse_y * sy, size);
    }
}

/* ---- the camera ---- */

/* The bodies' box framed (framing.h) from the camera's heading. */
static void frame_all(rb_sandbox *sb) {
    float lo[3], hi[3], box_lo[3], box_hi[3];
    if (!rb_sandbox_read_bodies(sb) || !rb_view_bounds(sb->view, rb_sandbox_live_world(sb), lo, hi))
        lo[0] = 1.0f, hi[0] = 0.0f; /* nothing there (or unread): the default box */
    rb_framing_box(lo, hi, box_lo, box_hi);
    rb_log(RB_LOG_INFO, "camera: framing the box (%.2f, %.2f, %.2f) .. (%.2f, %.2f, %.2f) m", box_lo[0], box_lo[1], box_lo[2],
           box_hi[0], box_hi[1], box_hi[2]);
    const bool sized = sb->width > 0 && sb->height > 0;
    const float aspect = sized ? (float)sb->width / (float)sb->height : 16.0f / 9.0f;
    /* clear of the HUD's lines along the top (unless H hid them) */
    const float top = sized && !sb->hide_hud ? rb_hud_lines_height(sb->width) / (float)sb->height : 0.0f;
    rb_framing_fit(&sb->camera, box_lo, box_hi, aspect, RB_FRAMING_MARGIN, top);
}

void rb_sandbox_frame_camera(rb_sandbox *sb) {
    sb->camera.yaw = RB_FRAMING_YAW, sb->camera.pitch = RB_FRAMING_PITCH;
    frame_all(sb);
}

/* A cursor position in drawable pixels: mouse events are in window units,
 * and on a high-DPI screen the drawable has more pixels. */
void rb_sandbox_to_drawable(const rb_sandbox *sb, float *x, float *y) {
    int ww = 0, wh = 0;
    SDL_GetWindowSize(sb->window, &ww, &wh);
    if (ww > 0) *x *= (float)sb->width / (float)ww;
    if (wh > 0) *y *= (float)sb->height / (float)wh;
}

void rb_sandbox_cursor_ray(const rb_sandbox *sb, float x, float y, float origin[3], float dir[3]) {
    rb_sandbox_to_drawable(sb, &x, &y);
    rb_camera_ray(&sb->camera, sb->width, sb->height, x, y, origin, dir);
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

void rb_sandbox_next_quality(rb_sandbox *sb) {
    rb_render_quality q = rb_renderer_quality(sb->renderer);
    q = rb_quality_preset_get(rb_quality_next_preset(&q));
    rb_renderer_set_quality(sb->renderer, &q);
    sb->quality_automatic = false;
    char described[128];
    q = rb_renderer_quality(sb->renderer); /* less what the driver lacks */
    rb_quality_describe(&q, described, sizeof described);
    rb_sandbox_notice(sb, "quality: %s", described);
}

/* Orbit: about the selection (followed as it moves), else the point under
 * the cursor as the orbit began, else a point 10 m ahead. */
static void begin_orbit(rb_sandbox *sb, float x, float y) {
    float radius;
    sb->look.orbit_body = (rb_body_id){0};
    if (body_sphere(sb, sb->look.selected, sb->look.orbit_centre, &radius)) {
        sb->look.orbit_body = sb->look.selected;
        return;
    }
    const rb_pick p = rb_sandbox_pick(sb, x, y);
    float o[3], d[3];
    rb_sandbox_cursor_ray(sb, x, y, o, d);
    for (int k = 0; k < 3; k++) sb->look.orbit_centre[k] = p.hit ? p.point[k] : o[k] + 10.0f * d[k];
}

void rb_sandbox_orbit(rb_sandbox *sb, float dx, float dy) {
    float radius;
    if (sb->look.orbit_serial != sb->input.orbits) { /* the first motion of a new orbit */
        sb->look.orbit_serial = sb->input.orbits;
        begin_orbit(sb, sb->input.mouse_x, sb->input.mouse_y);
    }
    if (sb->look.orbit_body.generation != 0 && !body_sphere(sb, sb->look.orbit_body, sb->look.orbit_centre, &radius))
        sb->look.orbit_body = (rb_body_id){0}; /* gone: on about where it was */
    rb_camera_orbit(&sb->camera, sb->look.orbit_centre, dx, dy);
}

/* F: the selection, else the body under the cursor, else the whole scene
 * (from the heading the camera has, looking down at it if it looked up). */
static void focus(rb_sandbox *sb, float x, float y) {
    float centre[3], radius = 1.0f;
    if (!body_sphere(sb, sb->look.selected, centre, &radius)) {
        const rb_pick p = rb_sandbox_pick(sb, x, y);
        if (!p.body_hit || !body_sphere(sb, p.body, centre, &radius)) {
            if (sb->camera.pitch > -0.1f) sb->camera.pitch = RB_FRAMING_PITCH;
            frame_all(sb);
            rb_sandbox_notice(sb, "the whole scene (F with a body selected or under the cursor: that body)");
            return;
        }
    }
    rb_camera_focus(&sb->camera, centre, radius);
}

/* Ctrl+1..3 stores the camera in a bookmark, Shift+1..3 recalls it. Ctrl
 * alone flies down: a store takes (and puts the eye back at) where it was
 * before Ctrl went down, not where the frames since have sunk it. */
static void bookmark(rb_sandbox *sb, int arg) {
    const int slot = (arg < 0 ? -arg : arg) - 1;
    if (slot < 0 || slot >= RB_SCENE_BOOKMARKS) return;
    rb_scene_bookmark *b = &sb->bookmarks[slot];
    rb_camera *c = &sb->camera;
    char text[128];
    if (arg > 0) {
        if (sb->look.ctrl_held) memcpy(c->position, sb->look.before_ctrl, sizeof sb->look.before_ctrl);
        *b = (rb_scene_bookmark){.set = true, .yaw = c->yaw, .pitch = c->pitch};
        memcpy(b->position, c->position, sizeof b->position);
        snprintf(text, sizeof text, "camera bookmark %d stored (Shift+%d recalls it; Ctrl+S saves it with the scene)",
                 slot + 1, slot + 1);
    } else if (!b->set) {
        snprintf(text, sizeof text, "camera bookmark %d is empty: Ctrl+%d stores one", slot + 1, slot + 1);
    } else {
        memcpy(c->position, b->position, sizeof b->position);
        c->yaw = b->yaw, c->pitch = b->pitch;
        snprintf(text, sizeof text, "camera bookmark %d", slot + 1);
    }
    rb_sandbox_notice(sb, text);
}

/* ---- actions ---- */

void rb_sandbox_view_do(rb_sandbox *sb, const rb_action *a) {
    char text[160];
    switch (a->kind) {
    case RB_ACT_DEBUG_VIEW: {
        const rb_debug_view_kind k = (rb_debug_view_kind)a->arg;
        const bool on = rb_debug_views_toggle(sb->look.debug, k);
        snprintf(text, sizeof text, "%s view %s (%s)", rb_debug_view_name(k), on ? "on" : "off", rb_debug_view_key(k));
        rb_sandbox_notice(sb, text);
        break;
    }
    case RB_ACT_FOCUS:
        focus(sb, a->x, a->y);
        break;
    case RB_ACT_BOOKMARK:
        bookmark(sb, a->arg);
        break;
    case RB_ACT_ORBIT_MODE:
        rb_sandbox_notice(sb, a->arg ? "orbit mode: the right mouse turns the view about the selection or the "
                                       "point under the cursor (O: back to looking around)"
                                     : "orbit mode off: the right mouse looks around (Alt + right mouse orbits)");
        break;
    case RB_ACT_SELECT: {
        const rb_pick p = rb_sandbox_pick(sb, a->x, a->y);
        sb->look.selected = p.body_hit ? p.body : (rb_body_id){0};
        break;
    }
    default:
        break;
    }
}
