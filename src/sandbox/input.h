/* input.h - SDL events turned into the sandbox's actions.
 *
 * The input keeps what the keyboard and mouse are doing (held keys, the
 * cursor, mouse look) and turns each frame's events into a list of actions,
 * in the order they happened: "quit", "use the tool here", "next shape"...
 * It changes nothing else: the loop (sandbox.c) reads the list and carries
 * the actions out. Key bindings live here and nowhere else (the F1 help in
 * hud.c lists them). */
#ifndef RB_INPUT_H
#define RB_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "tools.h"

typedef enum rb_action_kind {
    RB_ACT_QUIT,
    RB_ACT_HELP,           /* F1 */
    RB_ACT_HIDE_HUD,       /* H */
    RB_ACT_RELOAD_SHADERS, /* F5 */
    RB_ACT_SCREENSHOT,     /* F12 (path NULL: a dated name) or a script's screenshot line (path) */
    RB_ACT_PARTICLE_VIEW,  /* P */
    RB_ACT_EXPLODED_VIEW,  /* Shift+P: breakable bodies' pieces pulled apart */
    RB_ACT_PAUSE,          /* Space */
    RB_ACT_STEP_ONCE,      /* N, while paused */
    RB_ACT_RESET,          /* R (arg 0: the current formation), 1-5 (arg: that formation) */
    RB_ACT_CYCLE_SHAPE,    /* Tab, Shift+Tab, [ ]: arg +1 or -1 */
    RB_ACT_VSYNC,          /* V */
    RB_ACT_QUALITY,        /* F9: the next quality preset (render/quality.h) */
    RB_ACT_RESCAN,         /* L */
    RB_ACT_TOOL_PRESS,     /* left button down: arg the tool to use (Alt: grab) */
    RB_ACT_TOOL_RELEASE,   /* left button up */
    RB_ACT_WHEEL,          /* wheel: amount in notches (positive: away from the user) */
    RB_ACT_SAVE_SCENE,     /* Ctrl+S */
    RB_ACT_LOAD_SCENE,     /* Ctrl+O */
    RB_ACT_DROP_FILE,      /* a file dropped on the window (path) */
    RB_ACT_EMITTER,        /* M: an emitter at the cursor (arg 1; again on it, or Shift+M: arg -1, the last removed) */
    RB_ACT_WIND,           /* J: wind along the view */
    RB_ACT_VORTEX,         /* C: a vortex at the cursor */
    RB_ACT_PANELS,         /* F2: the settings panels shown or hidden */
    /* --replay only (rb_input.replay) */
    RB_ACT_REPLAY_STEP,   /* . or Right: arg +1, a frame on; , or Left: arg -1, a frame back */
    RB_ACT_REPLAY_SPEED,  /* ]: arg +1, faster; [: arg -1, slower */
    RB_ACT_REPLAY_SEEK,   /* Home: arg -1, the first frame; End: arg +1, the last */
    RB_ACT_SIMULATE_HERE, /* Enter: a live simulation from the keyframe at or before the frame shown */
    /* seeing what happens (sandbox_view.c) */
    RB_ACT_DEBUG_VIEW, /* F3 F4 F6 F7 F8: arg the view (rb_debug_view_kind) on / off */
    RB_ACT_FOCUS,      /* F: the camera to the selection (or what is under the cursor) */
    RB_ACT_BOOKMARK,   /* Ctrl+1..3: arg 1..3, store the camera; Shift+1..3: arg -1..-3, recall it */
    RB_ACT_ORBIT_MODE, /* O: orbit mode on / off (arg 1 / 0) */
    RB_ACT_SELECT,     /* middle button: select the body under the cursor (nothing there: none) */
} rb_action_kind;

typedef struct rb_action {
    rb_action_kind kind;
    int arg;
    float amount;
    float x, y;       /* the cursor when it happened, window coordinates */
    const char *path; /* RB_ACT_SCREENSHOT, RB_ACT_DROP_FILE: valid this frame */
} rb_action;

/* Actions one frame can hold; later ones in the same frame are dropped. */
#define RB_INPUT_MAX_ACTIONS 256

typedef struct rb_input {
    bool keys[SDL_NUM_SCANCODES];
    float mouse_x, mouse_y; /* pixels, window coordinates */
    bool looking;           /* right button held: mouse motion turns the camera */
    bool orbiting;          /* ... about a centre (Alt held as it went down, or orbit mode) */
    uint32_t orbits;        /* orbits begun: a new one picks its centre (at mouse_x, mouse_y) */
    bool orbit_mode;        /* O: the right button orbits */
    bool pointed;           /* the cursor is over the window (it has moved there and not left) */
    rb_tool tool;           /* the tool the left button uses, chosen with T G X B (Alt: grab, per press) */
    bool replay;            /* the sandbox replays a cache: [ ] set its speed, and its own keys act */
    /* This frame */
    rb_action actions[RB_INPUT_MAX_ACTIONS];
    int action_count;
    float look_dx, look_dy; /* mouse look, pixels of motion */
    char *dropped[8];       /* dropped files' names (SDL's, freed at the next frame) */
    int dropped_count;
} rb_input;

void rb_input_init(rb_input *in, float mouse_x, float mouse_y);
/* Starts a frame: forgets the last frame's actions, look and dropped files. */
void rb_input_begin_frame(rb_input *in);
/* Turns one event into actions. screenshot_event: the SDL user event type of
 * a script's screenshot lines (0 if none). */
void rb_input_event(rb_input *in, const SDL_Event *e, uint32_t screenshot_event);
/* The fly keys as amounts in -1..1 (W A S D, Q E, Ctrl) and Shift. */
/* Frees what the input holds (dropped files' names). */
void rb_input_release(rb_input *in);
void rb_input_fly(const rb_input *in, float *right, float *up, float *forward, bool *fast);

#endif
