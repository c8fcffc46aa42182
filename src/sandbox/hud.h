/* hud.h - the heads-up display and the F1 help overlay (stb_easy_font text). */
#ifndef RB_HUD_H
#define RB_HUD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "render/render.h"

/* What the HUD shows of a replay (replay.h): a line and the timeline bar. */
typedef struct rb_hud_replay {
    const char *file;     /* the cache */
    uint32_t frame, last; /* the frame shown, the last frame's index */
    double time;          /* the frame's simulated time, s */
    double speed;         /* 1 = as recorded */
    uint32_t bodies;      /* live bodies in the frame */
    bool playing, cut_short;
    int key_frame;      /* the frame of the keyframe Enter simulates from; -1 if none */
    float bar[4];       /* the timeline: x, y, width, height, pixels */
    float head_x;       /* the frame shown along it */
    float from_x;       /* the keyframe Enter simulates from along it */
    const float *key_x; /* each keyframe along it */
    uint32_t key_count;
} rb_hud_replay;

/* What the HUD shows; the sandbox fills it each frame. */
typedef struct rb_hud_info {
    double fps;        /* frames per second, smoothed */
    double frame_ms;   /* ms per frame, smoothed */
    double sim_ms;     /* ms spent stepping per frame, smoothed */
    uint32_t steps;    /* steps taken in the last frame */
    double sim_rate;   /* simulated seconds per real second, smoothed: 1 = real time */
    bool slowed;       /* the simulation could not keep up and was slowed down */
    double time_scale; /* simulated per clock time asked for (the World panel): 1 real time */
    uint32_t bodies, particles;
    const char *backend, *device;
    const char *shape; /* the shape the throw tool throws */
    int shape_index, shape_count;
    const char *tool;
    int formation;              /* 1..5; 0 for a scene file */
    const char *formation_name; /* the formation's, or the scene file's name */
    bool debris;                /* the world has a debris layer (a scene's, or the tools') */
    uint32_t emitters, fields;  /* its emitters and fields acting now */
    bool paused, particle_view, exploded_view, vsync;
    float camera_speed; /* m/s */
    float throw_charge; /* 0..1 while the throw button is held, else < 0 */
    bool grabbing;
    float grab_anchor[2], grab_target[2]; /* pixels, when grabbing */
    const char *error;                    /* the last warning or error, "" if none */
    bool warning;                         /* error is a warning */
    const char *shader_error;             /* the last failed shader reload, "" if none */
    const char *message;                  /* a short notice (screenshot saved...), "" if none */
    const rb_hud_replay *replay;          /* --replay: the replay's line and timeline; NULL in a live run */
    const char *views;                    /* the debug views on (debug_views.h), "" if none */
    const char *quality;                  /* the drawing quality, "low (msaa off, shadows 512, scale 0.75)" */
} rb_hud_info;

void rb_hud_draw(rb_renderer *r, int width, int height, const rb_hud_info *info, bool help);

/* A short notice the HUD shows for RB_NOTICE_SECONDS ("saved x.png",
 * "vortex for 5 s"): every piece of the sandbox says what it did through
 * one, and the HUD reads it. */
#define RB_NOTICE_SECONDS 3.0
typedef struct rb_notice {
    char text[640];
    double until; /* s of the sandbox clock */
} rb_notice;
/* Says a notice (printf-style) at time now, replacing the one shown. */
void rb_notice_say(rb_notice *n, double now, const char *format, ...) __attribute__((format(printf, 3, 4)));
void rb_notice_vsay(rb_notice *n, double now, const char *format, va_list args);
/* The notice shown at time now, "" if none. */
const char *rb_notice_text(const rb_notice *n, double now);
/* Pixels per unit of the HUD's text in a window `width` pixels wide: 2, or 1 in a small one. */
float rb_hud_scale(int width);
/* text as drawn in at most max_w pixels at scale: itself where it fits,
 * else its longest start that fits with "..." after it, written into cut. */
const char *rb_hud_fit(const char *text, float scale, float max_w, char *cut, size_t cut_size);
/* One line of a long message p: lead, then as much of p as fits in max_w
 * pixels at scale, up to its next newline, broken after its last space
 * (in the line's second half) where it goes on; with last, the whole rest
 * cut with "..." instead. Written into buf; returns the characters of p
 * taken. */
size_t rb_hud_piece(const char *p, const char *lead, float scale, float max_w, bool last, char *buf, size_t size);
/* Pixels from the top of a window `width` wide that the HUD's usual lines
 * (times, quality, bodies, tool and scene, debris) take: what the camera's
 * framing keeps clear (framing.h). */
float rb_hud_lines_height(int width);

/* The help text: {keys, what they do} per line, ending with {NULL, NULL};
 * a replay's (its keys, and the camera's and the view's) apart. */
extern const char *const rb_hud_help_lines[][2];
extern const char *const rb_hud_replay_help_lines[][2];

/* How F1's help fits a window: its text's scale (2, 1.5 or 1: never less,
 * where the font's pixel columns would drop out), the widths of its two
 * columns at scale 1, its lines and how many of them fit (the rest said in
 * a last line). */
typedef struct rb_hud_help_fit {
    float scale, key_w, what_w;
    int lines, shown;
} rb_hud_help_fit;
rb_hud_help_fit rb_hud_help_layout(int width, int height, bool replay);

#endif
