/* input.c - SDL events to the sandbox's actions (see input.h). */
#include "input.h"

#include <string.h>

#include "debug_views.h"

void rb_input_init(rb_input *in, float mouse_x, float mouse_y) {
    memset(in, 0, sizeof *in);
    in->mouse_x = mouse_x, in->mouse_y = mouse_y;
    in->tool = RB_TOOL_THROW;
}

void rb_input_release(rb_input *in) {
    for (int i = 0; i < in->dropped_count; i++) SDL_free(in->dropped[i]);
    in->dropped_count = 0;
}

void rb_input_begin_frame(rb_input *in) {
    rb_input_release(in);
    in->action_count = 0;
    in->look_dx = in->look_dy = 0.0f;
}

/* Appends an action; NULL (and dropped) when the frame's list is full. */
static rb_action *act(rb_input *in, rb_action_kind kind, int arg) {
    if (in->action_count >= RB_INPUT_MAX_ACTIONS) return NULL;
    rb_action *a = &in->actions[in->action_count++];
    *a = (rb_action){.kind = kind, .arg = arg, .x = in->mouse_x, .y = in->mouse_y};
    return a;
}

static bool held(const rb_input *in, SDL_Scancode a, SDL_Scancode b) { return in->keys[a] || in->keys[b]; }

/* --replay's keys; false for a key that is not one of them. */
static bool replay_key(rb_input *in, SDL_Keycode key) {
    switch (key) {
    case SDLK_PERIOD:
    case SDLK_RIGHT:
        act(in, RB_ACT_REPLAY_STEP, 1);
        return true;
    case SDLK_COMMA:
    case SDLK_LEFT:
        act(in, RB_ACT_REPLAY_STEP, -1);
        return true;
    case SDLK_RIGHTBRACKET:
    case SDLK_LEFTBRACKET:
        act(in, RB_ACT_REPLAY_SPEED, key == SDLK_RIGHTBRACKET ? 1 : -1);
        return true;
    case SDLK_HOME:
    case SDLK_END:
        act(in, RB_ACT_REPLAY_SEEK, key == SDLK_END ? 1 : -1);
        return true;
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
        act(in, RB_ACT_SIMULATE_HERE, 0);
        return true;
    default:
        return false;
    }
}

static void key_down(rb_input *in, const SDL_KeyboardEvent *k) {
    if (k->keysym.scancode < SDL_NUM_SCANCODES) in->keys[k->keysym.scancode] = true;
    if (k->repeat) return;
    const bool shift = held(in, SDL_SCANCODE_LSHIFT, SDL_SCANCODE_RSHIFT);
    const bool ctrl = held(in, SDL_SCANCODE_LCTRL, SDL_SCANCODE_RCTRL);
    const SDL_Keycode key = k->keysym.sym;
    if (ctrl && (key == SDLK_s || key == SDLK_o)) {
        act(in, key == SDLK_s ? RB_ACT_SAVE_SCENE : RB_ACT_LOAD_SCENE, 0);
        return;
    }
    if ((ctrl || shift) && key >= SDLK_1 && key <= SDLK_3) { /* camera bookmarks; plain digits reset */
        act(in, RB_ACT_BOOKMARK, ctrl ? (int)(key - SDLK_0) : -(int)(key - SDLK_0));
        return;
    }
    if (in->replay && replay_key(in, key)) return;
    switch (key) {
    case SDLK_ESCAPE:
        act(in, RB_ACT_QUIT, 0);
        break;
    case SDLK_F1:
        act(in, RB_ACT_HELP, 0);
        break;
    case SDLK_F2:
        act(in, RB_ACT_PANELS, 0);
        break;
    case SDLK_h:
        act(in, RB_ACT_HIDE_HUD, 0);
        break;
    case SDLK_F5:
        act(in, RB_ACT_RELOAD_SHADERS, 0);
        break;
    case SDLK_F12:
        act(in, RB_ACT_SCREENSHOT, 0);
        break;
    case SDLK_p:
        act(in, shift ? RB_ACT_EXPLODED_VIEW : RB_ACT_PARTICLE_VIEW, 0);
        break;
    case SDLK_SPACE:
        act(in, RB_ACT_PAUSE, 0);
        break;
    case SDLK_n:
        act(in, RB_ACT_STEP_ONCE, 0);
        break;
    case SDLK_r:
        act(in, RB_ACT_RESET, 0);
        break;
    case SDLK_TAB:
        act(in, RB_ACT_CYCLE_SHAPE, shift ? -1 : 1);
        break;
    case SDLK_LEFTBRACKET:
        act(in, RB_ACT_CYCLE_SHAPE, -1);
        break;
    case SDLK_RIGHTBRACKET:
        act(in, RB_ACT_CYCLE_SHAPE, 1);
        break;
    case SDLK_t:
        in->tool = RB_TOOL_THROW;
        break;
    case SDLK_g:
        in->tool = RB_TOOL_GRAB;
        break;
    case SDLK_x:
        in->tool = RB_TOOL_DELETE;
        break;
    case SDLK_b:
        in->tool = RB_TOOL_EXPLODE;
        break;
    case SDLK_v:
        act(in, RB_ACT_VSYNC, 0);
        break;
    case SDLK_F9:
        act(in, RB_ACT_QUALITY, 0);
        break;
    case SDLK_m:
        act(in, RB_ACT_EMITTER, shift ? -1 : 1);
        break;
    case SDLK_f:
        act(in, RB_ACT_FOCUS, 0);
        break;
    case SDLK_o:
        in->orbit_mode = !in->orbit_mode;
        act(in, RB_ACT_ORBIT_MODE, in->orbit_mode);
        break;
    case SDLK_F3:
    case SDLK_F4:
    case SDLK_F6:
    case SDLK_F7:
    case SDLK_F8: {
        static const SDL_Keycode keys[RB_DEBUG_VIEW_COUNT] = {SDLK_F3, SDLK_F4, SDLK_F6, SDLK_F7, SDLK_F8};
        for (int v = 0; v < RB_DEBUG_VIEW_COUNT; v++)
            if (keys[v] == key) act(in, RB_ACT_DEBUG_VIEW, v);
        break;
    }
    case SDLK_j:
        act(in, RB_ACT_WIND, 0);
        break;
    case SDLK_c:
        act(in, RB_ACT_VORTEX, 0);
        break;
    case SDLK_l:
        act(in, RB_ACT_RESCAN, 0);
        break;
    default:
        if (key >= SDLK_1 && key <= SDLK_5) act(in, RB_ACT_RESET, (int)(key - SDLK_0));
        break;
    }
}

void rb_input_event(rb_input *in, const SDL_Event *e, uint32_t screenshot_event) {
    switch (e->type) {
    case SDL_QUIT:
        act(in, RB_ACT_QUIT, 0);
        break;
    case SDL_WINDOWEVENT:
        /* Keys released while another window had the focus never arrive: forget them all. */
        if (e->window.event == SDL_WINDOWEVENT_FOCUS_LOST) memset(in->keys, 0, sizeof in->keys);
        if (e->window.event == SDL_WINDOWEVENT_LEAVE) in->pointed = false;
        break;
    case SDL_KEYDOWN:
        key_down(in, &e->key);
        break;
    case SDL_KEYUP:
        if (e->key.keysym.scancode < SDL_NUM_SCANCODES) in->keys[e->key.keysym.scancode] = false;
        break;
    case SDL_MOUSEMOTION:
        if (in->looking)
            in->look_dx += (float)e->motion.xrel, in->look_dy += (float)e->motion.yrel;
        else
            in->mouse_x = (float)e->motion.x, in->mouse_y = (float)e->motion.y, in->pointed = true;
        break;
    case SDL_MOUSEBUTTONDOWN:
        in->mouse_x = (float)e->button.x, in->mouse_y = (float)e->button.y, in->pointed = true;
        if (e->button.button == SDL_BUTTON_RIGHT) {
            in->looking = true;
            in->orbiting = in->orbit_mode || held(in, SDL_SCANCODE_LALT, SDL_SCANCODE_RALT);
            in->orbits += in->orbiting;
            /* Relative mode hides the cursor and keeps it in the window; a driver without it still turns. */
            SDL_SetRelativeMouseMode(SDL_TRUE);
        } else if (e->button.button == SDL_BUTTON_LEFT) {
            bool alt = held(in, SDL_SCANCODE_LALT, SDL_SCANCODE_RALT);
            act(in, RB_ACT_TOOL_PRESS, alt ? RB_TOOL_GRAB : in->tool);
        } else if (e->button.button == SDL_BUTTON_MIDDLE) {
            act(in, RB_ACT_SELECT, 0);
        }
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button == SDL_BUTTON_RIGHT) {
            in->looking = in->orbiting = false;
            SDL_SetRelativeMouseMode(SDL_FALSE);
        } else if (e->button.button == SDL_BUTTON_LEFT) {
            act(in, RB_ACT_TOOL_RELEASE, 0);
        }
        break;
    case SDL_MOUSEWHEEL: {
        float notches = e->wheel.preciseY != 0.0f ? e->wheel.preciseY : (float)e->wheel.y;
        if (e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED) notches = -notches;
        rb_action *a = act(in, RB_ACT_WHEEL, 0);
        if (a) a->amount = notches;
        break;
    }
    case SDL_DROPTEXT:
        SDL_free(e->drop.file); /* dragged text: SDL hands it over, nothing uses it */
        break;
    case SDL_DROPFILE: {
        /* SDL hands the name over; it is freed at the next frame */
        if (!e->drop.file) break;
        rb_action *a =
            in->dropped_count < (int)(sizeof in->dropped / sizeof *in->dropped) ? act(in, RB_ACT_DROP_FILE, 0) : NULL;
        if (a) {
            in->dropped[in->dropped_count++] = e->drop.file;
            a->path = e->drop.file;
        } else {
            SDL_free(e->drop.file); /* more files than one frame takes: not opened */
        }
        break;
    }
    default:
        if (e->type != 0 && e->type == screenshot_event && e->user.data1) {
            rb_action *a = act(in, RB_ACT_SCREENSHOT, 0);
            if (a) a->path = (const char *)e->user.data1;
        }
        break;
    }
}

void rb_input_fly(const rb_input *in, float *right, float *up, float *forward, bool *fast) {
    const bool *k = in->keys;
    *right = (float)(k[SDL_SCANCODE_D] - k[SDL_SCANCODE_A]);
    *forward = (float)(k[SDL_SCANCODE_W] - k[SDL_SCANCODE_S]);
    *up = (float)(k[SDL_SCANCODE_E] - k[SDL_SCANCODE_Q] - (k[SDL_SCANCODE_LCTRL] || k[SDL_SCANCODE_RCTRL]));
    if (*up < -1.0f) *up = -1.0f;
    *fast = held(in, SDL_SCANCODE_LSHIFT, SDL_SCANCODE_RSHIFT);
}
