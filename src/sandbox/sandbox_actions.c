/* sandbox_actions.c - what the sandbox does for each action (input.h):
 * the keys' effects on the loop's own state here, and the dispatch of the
 * rest to the piece that owns it: the tools (sandbox_tools.c), a replay's
 * keys (sandbox_replay.c), the scene (sandbox_scene.c), seeing
 * (sandbox_view.c), the panels (sandbox_panels.c). */
#include <stdio.h>
#include <time.h>

#include "base/log.h"
#include "base/replace.h"
#include "sandbox_internal.h"

static void cycle_shape(rb_sandbox *sb, int delta) {
    int n = (int)rb_entities_count(rb_sandbox_table(sb));
    if (n == 0) return;
    sb->selected_shape = ((sb->selected_shape + delta) % n + n) % n;
    rb_sandbox_notice(sb, "throwing %s", rb_entities_get(rb_sandbox_table(sb), (uint32_t)sb->selected_shape)->shape->name);
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

void rb_sandbox_do(rb_sandbox *sb, const rb_action *a) {
    if (sb->replay && rb_sandbox_replay_do(sb, a)) return;
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
    case RB_ACT_EXPLODED_VIEW:
        sb->look.exploded = !sb->look.exploded;
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
        rb_sandbox_rescan(sb);
        break;
    case RB_ACT_SCREENSHOT:
        sb->pending_shot_new = !a->path;
        if (a->path) {
            snprintf(sb->pending_shot, sizeof sb->pending_shot, "%s", a->path);
        } else { /* a name of its own: a second F12 in the same second gets -2 (base/replace.h) */
            time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            char stem[64];
            strftime(stem, sizeof stem, "rubble-%Y%m%d-%H%M%S", &tm);
            if (!rb_replace_unused_name(stem, ".png", sb->pending_shot, sizeof sb->pending_shot)) {
                sb->pending_shot[0] = '\0';
                sb->shot_failures++;
                rb_log(RB_LOG_ERROR, "screenshot not saved: %s.png and its numbered names are all taken", stem);
                rb_sandbox_notice(sb, "screenshot not saved: %s.png and its numbered names are taken", stem);
            }
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
        rb_sandbox_next_quality(sb);
        break;
    case RB_ACT_EMITTER:
        rb_sandbox_place_emitter(sb, a->x, a->y, a->arg < 0);
        break;
    case RB_ACT_WIND:
        rb_sandbox_start_wind(sb);
        break;
    case RB_ACT_VORTEX:
        rb_sandbox_place_vortex(sb, a->x, a->y);
        break;
    case RB_ACT_DEBUG_VIEW:
    case RB_ACT_FOCUS:
    case RB_ACT_BOOKMARK:
    case RB_ACT_ORBIT_MODE:
    case RB_ACT_SELECT:
        rb_sandbox_view_do(sb, a);
        break;
    case RB_ACT_TOOL_PRESS:
        rb_sandbox_tool_press(sb, (rb_tool)a->arg, a->x, a->y);
        break;
    case RB_ACT_TOOL_RELEASE:
        rb_sandbox_tool_release(sb, a->x, a->y);
        break;
    case RB_ACT_WHEEL:
        if (sb->hands.grab.active)
            rb_grab_wheel(&sb->hands.grab, a->amount);
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
