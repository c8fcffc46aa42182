/* stats.h - the sandbox's figures over a period of wall time, for long
 * unattended runs (--stats-every S; scripts/soak reads the lines): frame
 * times, memory, the world's size and whether any body state is not finite.
 * No SDL and no world here: the sandbox fills in what it reads. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The frames of the current period. */
typedef struct rb_stats {
    double every;                /* s of wall time a period lasts */
    double start;                /* s, wall clock when the run started */
    double period_end;           /* s, wall clock when the current period ends */
    uint64_t frames;             /* frames in the period */
    double frame_sum, frame_max; /* s */
} rb_stats;

/* One line's figures. */
typedef struct rb_stats_line {
    double wall_s;                 /* since rb_stats_init */
    double sim_s;                  /* the sandbox clock */
    uint64_t frames;               /* in the period */
    double frame_ms, frame_max_ms; /* mean and longest frame of the period */
    uint32_t bodies, particles;
    uint64_t rss_bytes, device_bytes;
    uint32_t nonfinite; /* bodies with a position, orientation or velocity that is NaN or infinite */
} rb_stats_line;

void rb_stats_init(rb_stats *s, double every, double now);
/* Counts a frame of frame_s seconds ending at now. True when the period
 * has ended: then rb_stats_take gives its figures. */
bool rb_stats_frame(rb_stats *s, double frame_s, double now);
/* The period's frame figures into out (wall_s, frames, frame_ms,
 * frame_max_ms), and the next period started. */
void rb_stats_take(rb_stats *s, double now, rb_stats_line *out);
/* The process's resident set size (Linux: /proc/self/statm); 0 if unknown. */
uint64_t rb_stats_rss_bytes(void);
/* "stats wall_s=60.0 sim_s=... frames=... frame_ms=... frame_max_ms=...
 * bodies=... particles=... rss_kb=... device_kb=... nonfinite=0". */
int rb_stats_format(const rb_stats_line *l, char *buf, size_t size);

#endif
