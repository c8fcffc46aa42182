/* sandbox_tools.c - the tools on the world, carried out through tools.h,
 * the entity table and the stage's debris layer: throw, grab, delete and
 * explode at the cursor; emitters (M), wind (J) and vortices (C), which
 * like a blast are the debris layer's fields. What each did is said in the
 * notice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "sandbox_internal.h"

static const rb_shape *selected(const rb_sandbox *sb) {
    const rb_entity *e = sb->selected_shape >= 0 ? rb_entities_get(rb_sandbox_table(sb), (uint32_t)sb->selected_shape) : NULL;
    return e ? e->shape : NULL;
}

static void do_throw(rb_sandbox *sb, double held, float x, float y) {
    const rb_entity *e = sb->selected_shape >= 0 ? rb_entities_get(rb_sandbox_table(sb), (uint32_t)sb->selected_shape) : NULL;
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
    rb_body_desc desc = rb_tool_throw_spun(o, d, ahead, rb_throw_speed_of(&sb->hands.throw_params, held),
                                           sb->hands.throw_params.spin, ++sb->hands.throw_count);
    rb_body_id id = rb_entities_spawn(rb_sandbox_table(sb), (uint32_t)sb->selected_shape, &desc);
    if (id.generation != 0) sb->hands.last_thrown = id;
}

/* The debris layer the tools add emitters and fields to: the scene's, or
 * for a scene without debris effects an empty one made now (R and a new
 * scene drop it again). NULL if it cannot be made (logged: why `what`
 * failed). */
static rb_debris *debris_layer(rb_sandbox *sb, const char *what) {
    char err[256];
    rb_debris *d = rb_stage_debris_layer(sb->stage, err, sizeof err);
    if (!d) rb_log(RB_LOG_ERROR, "cannot %s: %s", what, err);
    return d;
}

/* The explode tool: a radial impulse field at point, given at the next
 * debris tick (the next frame's steps). */
static void blast(rb_sandbox *sb, const float point[3]) {
    rb_debris *d = debris_layer(sb, "set off a blast");
    if (!d) return;
    const rb_field f = rb_blast_field(&sb->hands.blast, point);
    if (!rb_debris_add_field(d, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for another blast yet");
        return;
    }
    sb->hands.last_exploded = rb_blast_reach(rb_sandbox_live_world(sb), point, sb->hands.blast.radius);
}

/* Removes the debris layer's last emitter (the newest placed, else the scene's last). */
static void remove_last_emitter(rb_sandbox *sb) {
    rb_debris *d = rb_stage_debris(sb->stage);
    const uint32_t n = d ? rb_debris_get_desc(d)->emitter_count : 0;
    if (n == 0) {
        rb_sandbox_notice(sb, "no emitter to remove");
        return;
    }
    rb_debris_remove_emitter(d, n - 1u);
    rb_sandbox_notice(sb, "emitter removed (%u left); its bodies live on", n - 1u);
}

/* M: a fountain of the selected shape where the cursor meets the ground or
 * a body (rb_tool_emitter); M on the last one's spot again, or Shift+M,
 * removes the last one instead. A refusal (nothing under the cursor, a
 * spot inside a plane's solid, a full table) is said, and nothing changes. */
void rb_sandbox_place_emitter(rb_sandbox *sb, float x, float y, bool remove) {
    if (remove) {
        remove_last_emitter(sb);
        return;
    }
    const rb_shape *shape = selected(sb);
    if (!shape) {
        rb_sandbox_notice(sb, "no emitter: no shape is loaded");
        return;
    }
    const rb_pick p = rb_sandbox_pick(sb, x, y);
    if (!p.hit) {
        rb_sandbox_notice(sb, "no emitter: nothing under the cursor");
        return;
    }
    const rb_emitter e = rb_tool_emitter(shape->name, shape->bounding_radius, p.point, ++sb->hands.emitters_placed);
    const rb_debris *had = rb_stage_debris(sb->stage);
    const uint32_t n = had ? rb_debris_get_desc(had)->emitter_count : 0;
    if (n > 0) {
        const float *last = rb_debris_get_desc(had)->emitters[n - 1u].region.centre;
        const float gap[3] = {last[0] - e.region.centre[0], last[1] - e.region.centre[1], last[2] - e.region.centre[2]};
        if (rb_v3_dot(gap, gap) < 0.5f * 0.5f) {
            remove_last_emitter(sb);
            return;
        }
    }
    rb_debris *d = debris_layer(sb, "place an emitter");
    if (!d) return;
    char err[256];
    if (!rb_debris_add_emitter(d, &e, err, sizeof err)) {
        rb_sandbox_notice(sb, "no emitter: %s", err);
        return;
    }
    rb_sandbox_notice(sb, "emitter: %s, %.0f a second, each living %.0f s (M on it or Shift+M removes it)",
                      shape->name, e.rate, e.lifetime);
}

/* J: wind along the camera's horizontal view (rb_tool_wind). */
void rb_sandbox_start_wind(rb_sandbox *sb) {
    float forward[3], right[3], up[3];
    rb_camera_basis(&sb->camera, forward, right, up);
    const rb_field f = rb_tool_wind(forward);
    rb_debris *d = debris_layer(sb, "start the wind");
    if (!d) return;
    if (!rb_debris_add_field(d, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for the wind yet");
        return;
    }
    rb_sandbox_notice(sb, "wind along the view for 3 s");
}

/* C: a vortex where the cursor meets the ground or a body (rb_tool_vortex). */
void rb_sandbox_place_vortex(rb_sandbox *sb, float x, float y) {
    const rb_pick p = rb_sandbox_pick(sb, x, y);
    if (!p.hit) {
        rb_sandbox_notice(sb, "no vortex: nothing under the cursor");
        return;
    }
    const rb_field f = rb_tool_vortex(p.point);
    rb_debris *d = debris_layer(sb, "place a vortex");
    if (!d) return;
    if (!rb_debris_add_field(d, &f)) {
        rb_sandbox_notice(sb, "every field is still acting: no room for a vortex yet");
        return;
    }
    rb_sandbox_notice(sb, "vortex for 5 s");
}

void rb_sandbox_tool_press(rb_sandbox *sb, rb_tool tool, float x, float y) {
    switch (tool) {
    case RB_TOOL_THROW:
        sb->hands.throwing = true;
        sb->hands.throw_start = sb->clock;
        break;
    case RB_TOOL_GRAB: {
        rb_pick p = rb_sandbox_pick(sb, x, y);
        if (p.body_hit && rb_grab_begin(&sb->hands.grab, rb_sandbox_live_world(sb), &p)) sb->hands.grab.hz = sb->hands.grab_hz;
        sb->look.selected = p.body_hit ? p.body : (rb_body_id){0}; /* F focuses on it, orbits go about it */
        break;
    }
    case RB_TOOL_DELETE: {
        rb_pick p = rb_sandbox_pick(sb, x, y);
        if (p.body_hit && rb_world_remove_body(rb_sandbox_live_world(sb), p.body)) {
            sb->hands.last_deleted = p.body;
            if (sb->hands.grab.active && sb->hands.grab.body.slot == p.body.slot) rb_grab_end(&sb->hands.grab);
        }
        break;
    }
    case RB_TOOL_EXPLODE: {
        rb_pick p = rb_sandbox_pick(sb, x, y);
        if (p.hit) blast(sb, p.point);
        break;
    }
    default:
        break;
    }
}

void rb_sandbox_tool_release(rb_sandbox *sb, float x, float y) {
    if (sb->hands.throwing) {
        sb->hands.throwing = false;
        do_throw(sb, sb->clock - sb->hands.throw_start, x, y);
    }
    rb_grab_end(&sb->hands.grab);
}
