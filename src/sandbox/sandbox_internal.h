/* sandbox_internal.h - the sandbox loop's state, shared by the two files of
 * the loop: sandbox.c (create, the frame, drawing, destroy) and
 * sandbox_actions.c (what each action does). The pieces the loop drives
 * (input, step_clock, view, capture, camera, tools, hud, script, the entity
 * table) each keep their own state and never see this struct. */
#ifndef RB_SANDBOX_INTERNAL_H
#define RB_SANDBOX_INTERNAL_H

#include <SDL.h>

#include "debug_views.h"
#include "frame_stats.h"
#include "input.h"
#include "panels.h"
#include "pick.h"
#include "record/cache.h"
#include "render/render.h"
#include "replay.h"
#include "sandbox.h"
#include "scenes/entities.h"
#include "scenes/scene.h"
#include "script.h"
#include "stats.h"
#include "step_clock.h"
#include "video.h"
#include "view.h"

struct rb_sandbox {
    rb_options opts;
    rb_paths paths;
    SDL_Window *window;
    SDL_GLContext gl;
    uint32_t window_id;
    int width, height; /* drawable, pixels */
    bool vsync;
    /* SDL_VIDEODRIVER=offscreen: no swap presents a frame, so each is finished
     * (rb_renderer_finish) to be drawn and timed as in a window */
    bool finish_frames;

    rb_renderer *renderer;
    rb_registry *registry;
    rb_world *world;
    rb_entities *entities;  /* one row per shape: registry, world, mesh */
    uint32_t meshed;        /* rows [0, meshed) have been given their meshes */
    uint32_t shapes_meshed; /* world shapes [0, shapes_meshed) have been looked at for a mesh of their cells */
    rb_view *view;          /* the frame read */
    rb_input input;
    rb_step_clock steps_clock;
    rb_camera camera;
    rb_script *script;
    double script_start;

    int selected_shape;    /* entity row the throw tool throws; -1 if none */
    int formation_shape;   /* entity row formations are built from; -1 if none */
    int formation;         /* 1..5, or 0 when the scene came from a file */
    rb_scene *scene;       /* what R resets to */
    rb_debris *debris;     /* the scene's debris effects (scenes/debris.h), or NULL; the first blast makes one */
    char scene_file[4096]; /* the file the scene came from; "" for a formation */
    char last_saved[512];  /* the last Ctrl+S, which Ctrl+O loads */
    char drop_dir[4096];   /* where dropped meshes are linked for the mesh plugin; "" until one is */
    bool paused, step_once, particle_view, help, quit, hide_hud;

    bool throwing; /* the left button is held with the throw tool */
    double throw_start;
    uint32_t throw_count;
    rb_grab grab;
    rb_blast blast; /* what the explode tool sets off */
    rb_body_id last_thrown, last_deleted;
    int last_exploded;
    uint64_t emitters_placed; /* M presses that placed one: each emitter's seed */
    rb_throw throw_params;    /* the throw tool's speeds and spin (the Tools panel) */
    float grab_hz;            /* the grab's spring (the Tools panel) */
    struct rb_sandbox_ui *ui; /* the settings panels (sandbox_panels.c); NULL until first shown */

    double fixed_dt;  /* s per frame, 0 = wall clock */
    double clock;     /* s, the sandbox clock */
    double last_wall; /* s, wall clock at the previous frame */
    uint64_t frame, steps;
    double fps, frame_ms, sim_ms;
    rb_stats stats; /* --stats-every */
    /* --frame-stats: every frame's times; whether the quality is still the
     * one chosen for the GL renderer (no quality flag given, no F9) */
    rb_frame_stats frame_stats;
    bool quality_automatic;
    /* --record: the cache, the world it records (a scene loaded into a new
     * world ends it), the step it began at and the next frame it is due */
    rb_cache_writer *record;
    const rb_world *record_world;
    uint64_t record_start;
    uint64_t record_next;
    /* --replay: the cache shown instead of the world, until Enter makes it live (NULL then, and in a live run) */
    rb_replay *replay;
    rb_video *video; /* --video, or NULL */

    /* seeing what happens (sandbox_view.c) */
    rb_pick_meshes *pick_meshes; /* what the tools pick against: the meshes as drawn */
    rb_debug_views *debug;       /* F3 F4 F6 F7 F8 */
    rb_body_id hover;            /* the body under the cursor, drawn lighter */
    rb_body_id selected;         /* the middle button's (or the grab's) pick: F focuses on it, orbits go about it */
    rb_body_id orbit_body;       /* the body an orbit follows, or none */
    float orbit_centre[3];       /* m */
    uint32_t orbit_serial;       /* the input's orbit (rb_input.orbits) the centre is for */
    rb_scene_bookmark bookmarks[RB_SCENE_BOOKMARKS]; /* Ctrl+1..3; saved with the scene */
    bool ctrl_held;                                  /* at the last frame drawn */
    float before_ctrl[3];                            /* m: the eye at the last frame drawn without Ctrl */

    char last_error[512]; /* the log's last error as last seen, and when it changed */
    double error_since;
    char shader_error[2048];
    char message[640];
    double message_until;
    char pending_shot[512]; /* a screenshot asked for during this frame's events */
    int screenshots;
    int shot_failures; /* screenshots that could not be saved (logged once each) */
};

/* sandbox.c */
/* The frame's bodies into the view: the world's, or in a replay the
 * cache's frame at the replay clock. False on a failure (logged). */
bool rb_sandbox_read_bodies(rb_sandbox *sb);

/* sandbox_actions.c */
void rb_sandbox_do(rb_sandbox *sb, const rb_action *a);
/* A replay's frame instead of the simulation's: the clock moves on by dt,
 * or while the timeline is dragged follows the cursor. */
void rb_sandbox_replay_tick(rb_sandbox *sb, double dt);
void rb_sandbox_notice(rb_sandbox *sb, const char *text);
/* Adds rows for shapes the registry gained (after a rescan) and gives every
 * new row its mesh in the renderer. */
void rb_sandbox_sync_shapes(rb_sandbox *sb);
/* Gives each world shape added since the last call that has no row (a
 * piece of a broken body) a mesh of its particles' cells (rb_cell_mesh):
 * the cost is in the new shapes only. */
void rb_sandbox_mesh_pieces(rb_sandbox *sb);
/* Emitters and fields of the debris layer acting now (0 and 0 without one). */
void rb_sandbox_debris_active(const rb_sandbox *sb, uint32_t *emitters, uint32_t *fields);
/* The ray through a cursor position in window coordinates. */
void rb_sandbox_cursor_ray(const rb_sandbox *sb, float x, float y, float origin[3], float dir[3]);
/* Looks at the bodies from the front right and above. */
void rb_sandbox_frame_camera(rb_sandbox *sb);

/* sandbox_panels.c */
typedef struct rb_sandbox_ui rb_sandbox_ui;
/* An event for the panels first: true if they take it (the input must not see it). */
bool rb_sandbox_panels_event(rb_sandbox *sb, const SDL_Event *e);
/* Builds the panels of this frame (dt: s of clock) and carries out what they ask for. */
void rb_sandbox_panels_frame(rb_sandbox *sb, double dt);
/* Draws them over the frame drawn (after the HUD). */
void rb_sandbox_panels_draw(rb_sandbox *sb);
/* Ends them (before the GL context goes). */
void rb_sandbox_panels_end(rb_sandbox *sb);
/* A click in the scene while the Scene panel waits to place something
 * places it there, instead of using the tool: true if it did. */
bool rb_sandbox_place_pending(rb_sandbox *sb, float x, float y);

/* sandbox_view.c */
/* The pick through a cursor position (window coordinates) against the
 * bodies as drawn (pick.h), the transforms read now. */
rb_pick rb_sandbox_pick(rb_sandbox *sb, float x, float y);
/* After the frame's read: the body under the cursor (sb->hover) and the
 * sleeping tint into the view's style. */
void rb_sandbox_view_style(rb_sandbox *sb, rb_view_style *style);
/* The debug views, the selection's box and the crosshair. */
void rb_sandbox_draw_views(rb_sandbox *sb, const rb_render_view *view);
/* Mouse motion while orbiting (dx, dy pixels); the first of an orbit picks its centre. */
void rb_sandbox_orbit(rb_sandbox *sb, float dx, float dy);
/* The debug view keys, F, the bookmarks, the orbit mode, the middle button. */
void rb_sandbox_view_do(rb_sandbox *sb, const rb_action *a);
/* A scene file's camera bookmarks, if it has them, become the sandbox's. */
void rb_sandbox_take_bookmarks(rb_sandbox *sb, const rb_scene *scene);
/* The quality the options and the GL renderer ask for (render/quality.h), set and logged. */
void rb_sandbox_choose_quality(rb_sandbox *sb);

/* sandbox_stats.c */
/* --frame-stats: the run's frame figures as one JSON line on stdout. */
void rb_sandbox_print_frame_stats(const rb_sandbox *sb);
/* --stats-every: one line of the period's figures on stdout. */
void rb_sandbox_report_stats(rb_sandbox *sb, double now);

/* sandbox_scene.c */
/* Makes scene the world (the sandbox takes it). On failure (logged, and in
 * err) the current world and scene stay as they were, and scene is freed. */
bool rb_sandbox_install_scene(rb_sandbox *sb, rb_scene *scene, const char *file, char *err, size_t err_size);
/* Loads a scene file; a failure is logged and shown, and nothing changes. */
bool rb_sandbox_load_file(rb_sandbox *sb, const char *path);
/* Ctrl+S: the world as a scene file in the working folder. */
void rb_sandbox_save(rb_sandbox *sb);
/* The world as a scene file at path (NULL: a dated name in the working
 * folder), which Ctrl+O loads next; false, logged, if it cannot be saved. */
bool rb_sandbox_save_as(rb_sandbox *sb, const char *path);
/* Ctrl+O: the last saved scene, else the --scene file. */
void rb_sandbox_load_last(rb_sandbox *sb);
/* A file dropped on the window: a scene file loads, a mesh becomes a shape. */
void rb_sandbox_drop(rb_sandbox *sb, const char *path);
/* Removes the folder of dropped meshes. */
void rb_sandbox_forget_drops(rb_sandbox *sb);

#endif
