/* panels.h - the sandbox's settings and inspection panels, drawn with Dear
 * ImGui (Debian's libimgui-dev 1.86, its SDL2 and OpenGL 3 backends) behind
 * this C interface: panels*.cpp are the project's only C++ files.
 *
 * The panels never see the sandbox. Each frame the sandbox fills an
 * rb_panel_view with what they show; a panel changes a setting through
 * settings.h (checked, applied, the refusal's reason shown in the panel),
 * and asks for what only the sandbox can do (load a scene, pick the shape
 * to throw, place an emitter...) as rb_panel_requests, which the sandbox
 * carries out after the frame (sandbox_panels.c).
 *
 * Panels: World, Material, Tools, Shapes, Inspector, Scene; each can be
 * hidden (the checkboxes of the first), all of them with F2. They stack in
 * columns down the right of the window, clear of the HUD (top left) and
 * its "F1 help" (top right). Plain C types only: C and C++ alike. */
#ifndef RB_PANELS_H
#define RB_PANELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>

#include "settings.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rb_panel_id {
    RB_PANEL_WORLD = 0,
    RB_PANEL_MATERIAL,
    RB_PANEL_TOOLS,
    RB_PANEL_SHAPES,
    RB_PANEL_INSPECTOR,
    RB_PANEL_SCENE,
    RB_PANEL_COUNT
} rb_panel_id;

/* A shape of the Shapes panel: every shape of the registry. */
typedef struct rb_panel_shape {
    const char *name;
    uint32_t particles;
    float extent[3];       /* m: the box around its particles */
    float particle_radius; /* m */
    float mass;            /* kg */
} rb_panel_shape;

/* The Inspector's body: the grabbed one, else the one under the cursor
 * (kept while the cursor is over a panel: the body last under it). */
typedef struct rb_panel_body {
    bool valid;
    bool grabbed;
    bool kept;         /* the cursor is over a panel: this was the body last under it... */
    bool kept_grabbed; /* ... or, after a grab let go over a panel, the body last grabbed */
    uint32_t slot, generation;
    const char *shape; /* its shape's name; a broken body's piece has its own */
    const char *kind;  /* "dynamic", "static", "kinematic" */
    float mass;        /* kg; INFINITY for static and kinematic bodies */
    float position[3], velocity[3], angular_velocity[3];
    bool asleep;
} rb_panel_body;

/* What the panels show this frame. */
typedef struct rb_panel_view {
    rb_settings *settings; /* what the panels change (settings.h) */
    double frame_dt;       /* s of the sandbox clock this frame: the panels' time */
    /* World */
    float gravity[3];
    float dt; /* s, the step */
    double time_scale;
    bool sleeping;
    const char *backend, *device;
    bool step_reloads; /* a new step loads the scene again (a debris layer keeps time in steps) */
    bool recording;    /* --record: the step cannot change */
    /* Material (material 0) */
    float restitution, friction, contact_time, rolling_friction;
    float step_needed; /* s: the largest step the material takes */
    /* Tools */
    float throw_speed, throw_speed_max, throw_spin;
    float blast_radius, blast_strength, blast_up;
    float grab_hz;
    /* Shapes */
    const rb_panel_shape *shapes;
    uint32_t shape_count;
    int selected_shape; /* the one thrown; -1 if none */
    /* Inspector */
    rb_panel_body body;
    /* Scene */
    const char *scene_name; /* the formation's, or the scene file's */
    const char *scene_file; /* "" for a formation */
    bool debris;            /* the world has a debris layer */
    uint32_t emitter_count, field_count;
    const bool *emitter_active, *field_active; /* each one's, emitter_count and field_count of them */
    int placing;                               /* what the next click in the scene places: an rb_panel_place, or 0 */
    /* --replay: the cache shown instead of a live world (replaying false in a live run) */
    bool replaying;
    uint32_t replay_frame, replay_last; /* the frame shown; the last frame's index */
    double replay_time, replay_speed;   /* its simulated time, s; 1 = as recorded */
    bool replay_playing;
    int replay_key_frame; /* the frame "simulate from here" starts at; -1: none */
    float keep_bottom;    /* window pixels along the bottom the panels leave free (the replay's timeline) */
} rb_panel_view;

/* What the next click in the scene places (the keys F, B, J, C do the same at the cursor). */
typedef enum rb_panel_place {
    RB_PLACE_NONE = 0,
    RB_PLACE_EMITTER,
    RB_PLACE_BLAST,
    RB_PLACE_WIND,
    RB_PLACE_VORTEX,
} rb_panel_place;

typedef enum rb_panel_request_kind {
    RB_REQ_STEP = 1,       /* value: a new step, s (checked already) */
    RB_REQ_SELECT_SHAPE,   /* index: the shape to throw */
    RB_REQ_LOAD,           /* path: a scene file */
    RB_REQ_SAVE,           /* path: where the world is saved as a scene ("": a dated name) */
    RB_REQ_RESET,          /* the scene as it was loaded (R) */
    RB_REQ_PLACE,          /* index: an rb_panel_place for the next click in the scene */
    RB_REQ_REMOVE_EMITTER, /* index */
    RB_REQ_REPLAY_SEEK,    /* index: the frame to show */
    RB_REQ_REPLAY_PLAY,    /* index: 1 play, 0 pause */
    RB_REQ_REPLAY_SPEED,   /* index: +1 faster, -1 slower */
    RB_REQ_SIMULATE_HERE,  /* a live world from the keyframe at or before the frame shown (Enter) */
} rb_panel_request_kind;

typedef struct rb_panel_request {
    rb_panel_request_kind kind;
    int index;
    float value;
    char path[1024];
} rb_panel_request;

/* Requests one frame can make. */
#define RB_PANEL_MAX_REQUESTS 8

typedef struct rb_panels rb_panels;

/* Starts Dear ImGui on the window and its current OpenGL context. NULL
 * with the reason in err (the sandbox runs on without panels). */
rb_panels *rb_panels_create(SDL_Window *window, char *err, size_t err_size);
void rb_panels_destroy(rb_panels *p);

/* Hands an event to the panels. True when they take it: a press or the
 * wheel over a panel, a key while a panel's text field is being typed in
 * (F2 excepted); the sandbox's own input must not see those (a click on a
 * slider throws nothing). Releases are never taken: the sandbox sees the
 * end of what it saw begin. Nothing is taken while the panels are hidden. */
bool rb_panels_event(rb_panels *p, const SDL_Event *e);

/* Builds this frame's panels (nothing while hidden): settings changed
 * through view->settings; what the sandbox must do into out (at most max);
 * returns how many. */
int rb_panels_frame(rb_panels *p, const rb_panel_view *view, rb_panel_request *out, int max);
/* Draws the frame built last over what the window shows (after the HUD). */
void rb_panels_draw(rb_panels *p);

void rb_panels_set_visible(rb_panels *p, bool visible);
bool rb_panels_visible(const rb_panels *p);
/* One panel shown or hidden (the checkboxes do the same). */
void rb_panels_show(rb_panels *p, rb_panel_id id, bool shown);
bool rb_panels_shown(const rb_panels *p, rb_panel_id id);

/* Panel id folded to its title or opened at the next frame (its title's
 * arrow does the same). */
void rb_panels_fold(rb_panels *p, rb_panel_id id, bool folded);

/* A line shown in panel id until the next: what became of a request, or a
 * refusal (refused: drawn as an error). */
void rb_panels_say(rb_panels *p, rb_panel_id id, const char *text, bool refused);
/* The line panel id shows now ("" if none), and whether it is a refusal. */
const char *rb_panels_message(const rb_panels *p, rb_panel_id id, bool *refused);

/* Where the last frame drew the control labelled `label` in panel id (its
 * text as shown, e.g. "friction"), or the panel itself for label NULL:
 * x, y, width, height in window pixels. False if it was not drawn. Tests
 * click there. */
bool rb_panels_rect(const rb_panels *p, rb_panel_id id, const char *label, float rect[4]);
/* True if the last frame drew a panel over window point (x, y). */
bool rb_panels_over(const rb_panels *p, float x, float y);

#ifdef __cplusplus
}
#endif

#endif
