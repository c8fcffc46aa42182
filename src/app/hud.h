/* hud.h - the heads-up display and the F1 help overlay (stb_easy_font text). */
#ifndef RB_HUD_H
#define RB_HUD_H

#include <stdbool.h>
#include <stdint.h>

#include "render/render.h"

/* What the HUD shows; the sandbox fills it each frame. */
typedef struct rb_hud_info {
    double fps;      /* frames per second, smoothed */
    double frame_ms; /* ms per frame, smoothed */
    double sim_ms;   /* ms spent stepping per frame, smoothed */
    uint32_t steps;  /* steps taken in the last frame */
    double sim_rate; /* simulated seconds per real second, smoothed: 1 = real time */
    bool slowed;     /* the simulation could not keep up and was slowed down */
    uint32_t bodies, particles;
    const char *backend, *device;
    const char *shape; /* the shape the throw tool throws */
    int shape_index, shape_count;
    const char *tool;
    int formation;              /* 1..5; 0 for a scene file */
    const char *formation_name; /* the formation's, or the scene file's name */
    bool debris;                /* the world has a debris layer (a scene's, or the tools') */
    uint32_t emitters, fields;  /* its emitters and fields acting now */
    bool paused, particle_view, vsync;
    float camera_speed; /* m/s */
    float throw_charge; /* 0..1 while the throw button is held, else < 0 */
    bool grabbing;
    float grab_anchor[2], grab_target[2]; /* pixels, when grabbing */
    const char *error;                    /* the last warning or error, "" if none */
    const char *shader_error;             /* the last failed shader reload, "" if none */
    const char *message;                  /* a short notice (screenshot saved...), "" if none */
    const char *quality;                  /* the drawing quality, "low (msaa off, shadows 512, scale 0.75)" */
} rb_hud_info;

void rb_hud_draw(rb_renderer *r, int width, int height, const rb_hud_info *info, bool help);

/* The help text: {keys, what they do} per line, ending with {NULL, NULL}. */
extern const char *const rb_hud_help_lines[][2];

#endif
