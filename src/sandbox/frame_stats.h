/* frame_stats.h - --frame-stats: every frame's wall time, drawing time,
 * simulation time and steps, kept for the run and summed up at exit as one
 * JSON object (mean and 95th percentile of each), so the sandbox's speed can
 * be measured with --frames N. No SDL and no world here: the sandbox times
 * its frames and says what ran. */
#ifndef RB_FRAME_STATS_H
#define RB_FRAME_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* One frame, wall clock. */
typedef struct rb_frame_sample {
    float frame_ms; /* the whole frame */
    float draw_ms;  /* drawing and presenting it (the GL driver's work where it waits for it) */
    float sim_ms;   /* stepping the world */
    float cpu_ms;   /* CPU time of the whole process, every thread (rb_cpu_seconds) */
    uint32_t steps; /* simulation steps taken */
} rb_frame_sample;

/* 20 bytes a frame: an hour at 60 fps is 4.3 MB. */
typedef struct rb_frame_stats {
    rb_frame_sample *samples;
    uint32_t count, capacity;
} rb_frame_stats;

/* What ran, for the report. */
typedef struct rb_frame_stats_setting {
    const char *quality;        /* the preset's name ("low", ..., "custom") */
    int msaa, shadows;          /* samples (0 = off), shadow map side (0 = off) */
    float render_scale;         /* 0.5..1 */
    bool automatic;             /* chosen for the GL renderer: no quality flag given, no F9 */
    const char *gl_renderer;    /* GL_RENDERER */
    int width, height;          /* the window's drawable, pixels */
    uint32_t bodies, particles; /* at exit */
} rb_frame_stats_setting;

/* Mean and nearest-rank 95th percentile. */
typedef struct rb_frame_figure {
    double mean, p95;
} rb_frame_figure;

void rb_frame_stats_add(rb_frame_stats *s, const rb_frame_sample *sample);
void rb_frame_stats_free(rb_frame_stats *s);
/* Frames left out of the figures at the start: the first tenth, at most 10
 * (the OpenCL kernels' and the shaders' first builds land there). */
uint32_t rb_frame_stats_warmup(const rb_frame_stats *s);
/* The figure of one field over the frames after the warm-up (zeros if none). */
typedef enum { RB_FRAME_MS, RB_DRAW_MS, RB_SIM_MS, RB_CPU_MS, RB_STEPS } rb_frame_field;
rb_frame_figure rb_frame_stats_figure(const rb_frame_stats *s, rb_frame_field field);
/* The report as one line of JSON (malloc'd; NULL if out of memory):
 * {"frames", "warmup_frames", "fps", "frame_ms": {"mean", "p95"}, "draw_ms",
 * "sim_ms", "cpu_ms", "steps_per_frame", "quality": {"preset", "msaa", "shadows",
 * "render_scale", "automatic"}, "gl_renderer", "width", "height", "bodies",
 * "particles"}; fps is 1000 / the mean frame ms. */
char *rb_frame_stats_json(const rb_frame_stats *s, const rb_frame_stats_setting *setting);

#endif
