/* replay.h - `rubble --replay FILE`: the sandbox shows a recorded cache
 * (record/cache.h) instead of a live world.
 *
 * The replay owns the cache and what showing it needs: the replay clock
 * (play, pause, a frame at a time, 0.25x to 4x, scrubbing), which frame the
 * clock shows, the timeline bar along the bottom of the window and its
 * hit-testing, and the cached shapes' meshes in the renderer. Each frame
 * the sandbox hands the view (view.h) the cache's frame at the replay clock
 * where a live run reads the world; the rest of the frame (camera, HUD,
 * particle view, screenshots, scripts) is the live run's. The replay never
 * sees the sandbox: the sandbox drives it (sandbox_actions.c). */
#ifndef RB_REPLAY_H
#define RB_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hud.h"
#include "record/cache.h"
#include "render/render.h"
#include "scenes/scene.h"
#include "view.h"

/* The speeds [ and ] step through: 0.25x, 0.5x, 1x, 2x, 4x. */
#define RB_REPLAY_SPEEDS 5

typedef struct rb_replay rb_replay;

/* Opens a cache to replay, at frame 0, playing at 1x. NULL with
 * "path: what is wrong" in err: rb_cache_open's reason, or a cache with no
 * frame at all. */
rb_replay *rb_replay_open(const char *path, char *err, size_t err_size);
/* Frees the replay and its cache (the meshes it gave the renderer stay
 * there, unused). NULL is fine. */
void rb_replay_destroy(rb_replay *r);
const rb_cache *rb_replay_cache(const rb_replay *r);
const char *rb_replay_path(const rb_replay *r);

/* Gives every cached shape its mesh in the renderer: the recorded mesh (a
 * broken body's piece's with its cut faces marked), or
 * for a shape recorded without one its particles' cells (rb_cell_mesh). A
 * shape the renderer does not take is drawn as its particles. */
void rb_replay_add_meshes(rb_replay *r, rb_renderer *renderer);

/* ---- the clock ----
 *
 * The replay clock runs in seconds of the recording. Frame k is due at
 * k / rate: when the writer aimed to take it (its recorded time is the
 * step at or after that), so at 1x each frame of a 60 Hz cache is shown
 * for one 60 Hz drawn frame, none twice and none left out. */

/* The frame a replay clock at `time` shows: the last frame due at or
 * before it, within the first and last frame. A millionth of a frame of
 * slack absorbs the rounding of a clock that adds 1/240 s at a time. */
uint32_t rb_replay_frame_at(double time, double rate, uint32_t frame_count);

/* Moves the clock on by dt seconds of the sandbox clock times the speed,
 * while playing and not scrubbing; it stops (paused) at the last frame. */
void rb_replay_advance(rb_replay *r, double dt);
/* Play or pause. Playing from the last frame starts again from the first. */
void rb_replay_play(rb_replay *r, bool play);
bool rb_replay_playing(const rb_replay *r);
/* Pauses and moves `frames` frames on (back when negative), within the
 * first and last frame. */
void rb_replay_step(rb_replay *r, int frames);
/* The clock to frame k (within the first and last frame), playing or not. */
void rb_replay_seek(rb_replay *r, uint32_t frame);
/* One speed faster (delta > 0) or slower, within 0.25x .. 4x. */
void rb_replay_change_speed(rb_replay *r, int delta);
double rb_replay_speed(const rb_replay *r);
/* The replay clock, s of the recording. */
double rb_replay_time(const rb_replay *r);
/* The frame shown: rb_replay_frame_at of the clock. */
uint32_t rb_replay_frame(const rb_replay *r);
/* The keyframe (index into the cache's keys) simulate-from-here resumes
 * from: the last at or before the frame shown; -1 if there is none. */
int rb_replay_key(const rb_replay *r);
/* The recording's world settings (gravity, step, planes...) over desc, from
 * its first keyframe's scene: the sandbox's world while it replays (its
 * planes are drawn). False with the reason in err (desc as it was) where
 * that keyframe cannot be read. */
bool rb_replay_world_desc(const rb_replay *r, const rb_registry *registry, rb_world_desc *desc, char *err,
                          size_t err_size);

/* The recording's camera, from its first keyframe's scene (the scene file
 * it was recorded from keeps its `camera` key there): its bookmarks into
 * bookmarks (RB_SCENE_BOOKMARKS, the empty ones unset), and into *start
 * its start camera, else its first bookmark. False (nothing written) when
 * that scene has no camera or cannot be read: the sandbox frames the
 * recorded bodies instead. */
bool rb_replay_camera(const rb_replay *r, const rb_registry *registry, rb_scene_bookmark *bookmarks,
                      rb_scene_bookmark *start);

/* ---- the timeline ---- */

/* The bar along the bottom of the window, in drawable pixels from the top left. */
typedef struct rb_replay_bar {
    float x, y, w, h;
} rb_replay_bar;

/* The bar of a width x height window whose HUD is drawn at `scale` (hud.h). */
rb_replay_bar rb_replay_bar_layout(int width, int height, float scale);
/* Whether (x, y) is on the bar, or near enough to it to take a click. */
bool rb_replay_bar_hit(const rb_replay_bar *bar, float x, float y);
/* The frame at x along the bar (the nearest; the ends beyond it). */
uint32_t rb_replay_bar_frame(const rb_replay_bar *bar, float x, uint32_t frame_count);
/* Where frame k is along the bar. */
float rb_replay_bar_x(const rb_replay_bar *bar, uint32_t frame, uint32_t frame_count);

/* Lays the bar out for this frame's window; clicks are tested against it. */
void rb_replay_layout(rb_replay *r, int width, int height, float scale);
/* The left button pressed at (x, y), drawable pixels: on the bar it starts
 * scrubbing (true), the clock going to the frame under it; else false. */
bool rb_replay_press(rb_replay *r, float x, float y);
/* While scrubbing: the clock to the frame under x. */
void rb_replay_drag(rb_replay *r, float x);
/* The left button let go: scrubbing ends. */
void rb_replay_release(rb_replay *r);
bool rb_replay_scrubbing(const rb_replay *r);

/* ---- the frame ---- */

/* Hands the view the bodies of the frame shown (rb_view_read_table): each
 * one's id, transform, shape and colours as the cache holds them. False if out of
 * memory. */
bool rb_replay_read(const rb_replay *r, rb_view *v);
/* What the HUD shows of the replay (valid until the replay changes). */
void rb_replay_hud(const rb_replay *r, rb_hud_replay *out);

#endif
