/* sandbox_internal.h - the sandbox's state and the interfaces of the pieces
 * of its loop, seen by the sandbox*.c files only.
 *
 * The pieces call one another as a tree, never round a circle (the test
 * test_calls holds it over the object files):
 *
 *   sandbox.c              create, destroy, the program's run
 *     sandbox_frame.c      one frame: events, actions, stepping, drawing, recording
 *       sandbox_actions.c  what each action does: keys, and the dispatch
 *         sandbox_tools.c  the tools on the world: throw, grab, delete, blast,
 *                          emitters, wind, vortices
 *         sandbox_replay.c --replay: its keys and timeline, Enter
 *       sandbox_panels.c   the settings panels: shown, filled, their requests
 *                          (what only the loop can do comes back as actions)
 *       sandbox_stats.c    the figures the tests and --stats-every read
 *   and under any of them, calling none:
 *       sandbox_scene.c    the scene on the stage: install, reset, load, save,
 *                          drops, rescans, the meshes of shapes and pieces
 *       sandbox_view.c     seeing: the read, the pick, hover, selection, debug
 *                          views, framing, orbit, focus, bookmarks, quality
 *
 * Lower pieces never call higher ones; all of them say what they did
 * through the notice (hud.h). The pieces below the loop (input, step clock,
 * view, capture, camera, tools, hud, script, replay, panels, the stage) keep
 * their own state and never see this struct. */
#ifndef RB_SANDBOX_INTERNAL_H
#define RB_SANDBOX_INTERNAL_H

#include <SDL.h>

#include "debug_views.h"
#include "frame_stats.h"
#include "hud.h"
#include "input.h"
#include "panels.h"
#include "pick.h"
#include "record/cache.h"
#include "render/render.h"
#include "replay.h"
#include "sandbox.h"
#include "scenes/entities.h"
#include "scenes/scene.h"
#include "scenes/stage.h"
#include "script.h"
#include "stats.h"
#include "step_clock.h"
#include "video.h"
#include "view.h"

/* The tools' state (sandbox_tools.c): the throw being held, the grab, the
 * blast and throw the Tools panel sets, and what each tool did last. */
typedef struct rb_sandbox_hands {
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
} rb_sandbox_hands;

/* --record (sandbox_frame.c): the cache, the world it records
 * (rb_stage_world_number: a scene loaded into a new world ends it), the
 * step it began at and the next frame it is due. */
typedef struct rb_sandbox_recording {
    rb_cache_writer *writer;
    uint64_t world;
    uint64_t start;
    uint64_t next;
} rb_sandbox_recording;

/* Seeing what happens (sandbox_view.c). */
typedef struct rb_sandbox_look {
    rb_pick_meshes *pick_meshes; /* what the tools pick against: the meshes as drawn */
    rb_debug_views *debug;       /* F3 F4 F6 F7 F8 */
    rb_body_id hover;            /* the body under the cursor, drawn lighter */
    rb_body_id selected;         /* the middle button's (or the grab's) pick: F focuses on it, orbits go about it */
    rb_body_id orbit_body;       /* the body an orbit follows, or none */
    float orbit_centre[3];       /* m */
    uint32_t orbit_serial;       /* the input's orbit (rb_input.orbits) the centre is for */
    bool ctrl_held;              /* at the last frame drawn */
    /* Shift+P: each breakable body drawn as its pieces' meshes pulled apart
     * (rb_debris_exploded_mesh), uploaded once a body, by body slot */
    bool exploded;
    rb_view_swap *swaps;
    uint32_t swap_cap;
    uint64_t swap_world; /* the stage's world the swaps are for (rb_stage_world_number) */
    float before_ctrl[3];        /* m: the eye at the last frame drawn without Ctrl */
    /* a scene file without camera.start was loaded: the loop frames its
     * bodies (rb_sandbox_frame_camera) once this frame's actions are done */
    bool frame_pending;
} rb_sandbox_look;

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
    rb_stage *stage;        /* the world, its entity table, the scene and its debris layer */
    uint32_t meshed;        /* entity rows [0, meshed) have been given their meshes */
    uint32_t shapes_meshed; /* world shapes [0, shapes_meshed) have been looked at for a mesh of their cells */
    rb_view *view;          /* the frame read */
    rb_input input;
    rb_step_clock steps_clock;
    rb_camera camera;
    rb_script *script;
    double script_start;
    rb_notice notice; /* what the HUD says last happened */

    int selected_shape;    /* entity row the throw tool throws; -1 if none */
    int formation_shape;   /* entity row formations are built from; -1 if none */
    int formation;         /* 1..5, or 0 when the scene came from a file */
    char scene_file[4096]; /* the file the scene came from; "" for a formation */
    char last_saved[512];  /* the last Ctrl+S, which Ctrl+O loads */
    char drop_dir[4096];   /* where dropped meshes are linked for the mesh plugin; "" until one is */
    bool paused, step_once, particle_view, help, quit, hide_hud;

    rb_sandbox_hands hands;   /* the tools' state (sandbox_tools.c) */
    struct rb_sandbox_ui *ui; /* the settings panels (sandbox_panels.c); NULL until first shown */

    double fixed_dt;  /* s per frame, 0 = wall clock */
    double clock;     /* s, the sandbox clock */
    double last_wall; /* s, wall clock at the previous frame */
    uint64_t frame, steps;
    uint64_t capped; /* the debris layer's spawns and breaks skipped at the world's cap, as last noticed */
    double fps, frame_ms, sim_ms;
    rb_stats stats; /* --stats-every */
    /* --frame-stats: every frame's times; whether the quality is still the
     * one chosen for the GL renderer (no quality flag given, no F9) */
    rb_frame_stats frame_stats;
    bool quality_automatic;
    rb_sandbox_recording rec; /* --record (sandbox_frame.c) */
    /* --replay: the cache shown instead of the world, until Enter makes it live (NULL then, and in a live run) */
    rb_replay *replay;
    rb_video *video; /* --video, or NULL */

    rb_scene_bookmark bookmarks[RB_SCENE_BOOKMARKS]; /* Ctrl+1..3; saved with the scene */
    rb_sandbox_look look;                            /* seeing what happens (sandbox_view.c) */

    char last_error[512]; /* the log's last error as last seen, and when it changed */
    char load_refusal[1024]; /* the last scene load's refusal, taken off the HUD by the next load that works */
    double error_since;
    char shader_error[2048];
    char pending_shot[512]; /* a screenshot asked for during this frame's events */
    bool pending_shot_new;  /* F12's made name: never written over (capture.h) */
    int screenshots;
    int shot_failures; /* screenshots that could not be saved (logged once each) */
};

/* The stage's world and entity table. */
static inline rb_world *rb_sandbox_live_world(const rb_sandbox *sb) { return rb_stage_world(sb->stage); }
static inline rb_entities *rb_sandbox_table(const rb_sandbox *sb) { return rb_stage_entities(sb->stage); }

/* A notice on the HUD (printf-style). */
static inline void __attribute__((format(printf, 2, 3))) rb_sandbox_notice(rb_sandbox *sb, const char *format, ...) {
    va_list args;
    va_start(args, format);
    rb_notice_vsay(&sb->notice, sb->clock, format, args);
    va_end(args);
}

/* sandbox_frame.c */
/* --record: a frame of the cache when one is due (frame 0 at the start);
 * a world the stage has replaced ends it. */
void rb_sandbox_record(rb_sandbox *sb);
/* Ends --record's cache (at exit, or when the world it records is replaced). */
void rb_sandbox_end_recording(rb_sandbox *sb);

/* sandbox_actions.c */
/* Carries out one action of the input (input.h), of a script or of the panels. */
void rb_sandbox_do(rb_sandbox *sb, const rb_action *a);

/* sandbox_tools.c */
/* A press of the tool at (x, y), window coordinates; a release throws. */
void rb_sandbox_tool_press(rb_sandbox *sb, rb_tool tool, float x, float y);
void rb_sandbox_tool_release(rb_sandbox *sb, float x, float y);
/* M (remove: Shift+M), J, C: an emitter, the wind, a vortex. */
void rb_sandbox_place_emitter(rb_sandbox *sb, float x, float y, bool remove);
void rb_sandbox_start_wind(rb_sandbox *sb);
void rb_sandbox_place_vortex(rb_sandbox *sb, float x, float y);

/* sandbox_replay.c */
/* What a replay does with an action: true if it took it (its keys, the
 * timeline, or a refusal of what would change the world). */
bool rb_sandbox_replay_do(rb_sandbox *sb, const rb_action *a);
/* A replay's frame instead of the simulation's: the clock moves on by dt,
 * or while the timeline is dragged follows the cursor. */
void rb_sandbox_replay_tick(rb_sandbox *sb, double dt);

/* sandbox_panels.c */
typedef struct rb_sandbox_ui rb_sandbox_ui;
/* An event for the panels first: true if they take it (the input must not see it). */
bool rb_sandbox_panels_event(rb_sandbox *sb, const SDL_Event *e);
/* Builds the panels of this frame (dt: s of clock) and carries out what
 * they ask of the settings and the scene; what the loop does (the wind, the
 * replay's speed, Enter) comes back as actions (at most max), their count
 * returned. */
int rb_sandbox_panels_frame(rb_sandbox *sb, double dt, rb_action *out, int max);
/* A click in the scene while the Scene panel waits to place something: *a
 * (a tool press) becomes the placing action instead. True if it did. */
bool rb_sandbox_panels_take_click(rb_sandbox *sb, rb_action *a);
/* Draws them over the frame drawn (after the HUD). */
void rb_sandbox_panels_draw(rb_sandbox *sb);
/* Ends them (before the GL context goes). */
void rb_sandbox_panels_end(rb_sandbox *sb);

/* sandbox_stats.c */
/* --frame-stats: the run's frame figures as one JSON line on stdout. */
void rb_sandbox_print_frame_stats(const rb_sandbox *sb);
/* --stats-every: one line of the period's figures on stdout. */
void rb_sandbox_report_stats(rb_sandbox *sb, double now);

/* sandbox_scene.c */
/* Makes scene the world (the stage takes it). On failure (logged, and in
 * err) the current world and scene stay as they were. */
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
/* L: new plugins and meshes are added, rebuilt plugins' shapes replaced. */
void rb_sandbox_rescan(rb_sandbox *sb);
/* Adds rows for shapes the registry gained (after a rescan) and gives every
 * new row its mesh in the renderer. */
void rb_sandbox_sync_shapes(rb_sandbox *sb);
/* Gives each world shape added since the last call that has no row (a
 * piece of a broken body) its mesh: the body's mesh cut along its pieces
 * where the stage's debris layer has one (rb_debris_piece_mesh), else its
 * particles' cells (rb_cell_mesh): the cost is in the new shapes only. */
void rb_sandbox_mesh_pieces(rb_sandbox *sb);

/* sandbox_view.c */
/* The frame's bodies into the view: the world's, or in a replay the
 * cache's frame at the replay clock. False on a failure (logged). */
bool rb_sandbox_read_bodies(rb_sandbox *sb);
/* A cursor position (window coordinates) in drawable pixels (high DPI). */
void rb_sandbox_to_drawable(const rb_sandbox *sb, float *x, float *y);
/* The ray through a cursor position in window coordinates. */
void rb_sandbox_cursor_ray(const rb_sandbox *sb, float x, float y, float origin[3], float dir[3]);
/* The pick through a cursor position (window coordinates) against the
 * bodies as drawn (pick.h), the transforms read now. */
rb_pick rb_sandbox_pick(rb_sandbox *sb, float x, float y);
/* Looks at the bodies from the front right and above (framing.h), the
 * whole of their particles' box in the view with a margin and headroom. */
void rb_sandbox_frame_camera(rb_sandbox *sb);
/* After the frame's read: the body under the cursor (sb->hover) and the
 * sleeping tint into the view's style. */
void rb_sandbox_view_style(rb_sandbox *sb, rb_view_style *style);
/* The debug views, the selection's box and the crosshair. */
void rb_sandbox_draw_views(rb_sandbox *sb, const rb_render_view *view);
/* Mouse motion while orbiting (dx, dy pixels); the first of an orbit picks its centre. */
void rb_sandbox_orbit(rb_sandbox *sb, float dx, float dy);
/* The debug view keys, F, the bookmarks, the orbit mode, the middle button. */
void rb_sandbox_view_do(rb_sandbox *sb, const rb_action *a);
/* The quality the options and the GL renderer ask for (render/quality.h), set and logged. */
void rb_sandbox_choose_quality(rb_sandbox *sb);
/* F9: low, medium, high, low... */
void rb_sandbox_next_quality(rb_sandbox *sb);

#endif
