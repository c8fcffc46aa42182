/* sandbox_replay.c - --replay's part of the loop: what a replay does with
 * an action (its keys and timeline; what would change the world is
 * refused), its clock each frame, and Enter: the live simulation from the
 * keyframe at or before the frame shown. */
#include <stdio.h>

#include "base/log.h"
#include "hud.h"
#include "sandbox_internal.h"

/* Enter: the live simulation from the last keyframe at or before the frame
 * shown, its world as the recording had it there (rb_cache_key_scene), the
 * camera where it is, paused if the replay was (after a break too: the
 * keyframe holds the pieces' shapes). A keyframe without a scene, or with a
 * shape the registry lacks, is said, and the replay goes on. */
static void simulate_from_here(rb_sandbox *sb) {
    const rb_cache *c = rb_replay_cache(sb->replay);
    const int key = rb_replay_key(sb->replay);
    char err[1024];
    rb_scene *scene = key >= 0 ? rb_cache_key_scene(c, (uint32_t)key, sb->registry, err, sizeof err) : NULL;
    if (!scene) {
        if (key < 0) snprintf(err, sizeof err, "%s: no keyframe", rb_replay_path(sb->replay));
        rb_log(RB_LOG_ERROR, "cannot simulate from here: %s (the replay goes on)", err);
        return;
    }
    if (!rb_sandbox_install_scene(sb, scene, NULL, err, sizeof err)) return; /* logged; the replay goes on */
    sb->formation = 0;                                                       /* R: the keyframe again */
    sb->paused = !rb_replay_playing(sb->replay);
    /* whether it is paused is the HUD's PAUSED line's to say: a notice stays
     * its few seconds, and "paused" in it went stale at the first Space */
    rb_sandbox_notice(sb, "simulating from the keyframe at frame %u (%.3f s)", c->keys[key].frame, c->keys[key].time);
    rb_replay_destroy(sb->replay);
    sb->replay = NULL;
    sb->input.replay = false;
}

/* What a replay does with an action: its keys and the timeline; what would
 * change the world is refused (Enter makes it live first). False for what
 * it does as a live run does (the camera, the view, F5, F12...). */
bool rb_sandbox_replay_do(rb_sandbox *sb, const rb_action *a) {
    rb_replay *r = sb->replay;
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
        rb_sandbox_notice(sb, "replay at %gx", rb_replay_speed(r));
        return true;
    case RB_ACT_REPLAY_SEEK:
        rb_replay_seek(r, a->arg < 0 ? 0 : UINT32_MAX);
        return true;
    case RB_ACT_SIMULATE_HERE:
        simulate_from_here(sb);
        return true;
    case RB_ACT_TOOL_PRESS: {
        float x = a->x, y = a->y;
        rb_sandbox_to_drawable(sb, &x, &y);
        rb_replay_layout(r, sb->width, sb->height, rb_hud_scale(sb->width)); /* the window as it is now */
        if (!rb_replay_press(r, x, y)) rb_sandbox_notice(sb, "replaying: the tools act on a live world (Enter)");
        return true;
    }
    case RB_ACT_TOOL_RELEASE:
        rb_replay_release(r);
        return true;
    case RB_ACT_DEBUG_VIEW: /* they read the world's sleep, contacts, grid and fields: a cache has none */
        rb_sandbox_notice(sb, "replaying: the views F3 F4 F6 F7 F8 show a live world (Enter simulates from here)");
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
        rb_sandbox_to_drawable(sb, &x, &y);
        rb_replay_drag(sb->replay, x);
    }
    rb_replay_advance(sb->replay, dt);
}

