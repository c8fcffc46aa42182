/* stats.c - the sandbox's figures per period of wall time (see stats.h). */
#include "stats.h"

#include <stdio.h>
#include <unistd.h>

void rb_stats_init(rb_stats *s, double every, double now) {
    *s = (rb_stats){.every = every, .start = now, .period_end = now + every};
}

bool rb_stats_frame(rb_stats *s, double frame_s, double now) {
    s->frames++;
    s->frame_sum += frame_s;
    if (frame_s > s->frame_max) s->frame_max = frame_s;
    return now >= s->period_end;
}

void rb_stats_take(rb_stats *s, double now, rb_stats_line *out) {
    out->wall_s = now - s->start;
    out->frames = s->frames;
    out->frame_ms = s->frames ? 1000.0 * s->frame_sum / (double)s->frames : 0.0;
    out->frame_max_ms = 1000.0 * s->frame_max;
    s->frames = 0;
    s->frame_sum = s->frame_max = 0.0;
    /* The next period ends a whole period after this one, however late this frame came. */
    while (s->period_end <= now) s->period_end += s->every;
}

uint64_t rb_stats_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size, resident;
    int got = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return got == 2 && page > 0 ? (uint64_t)resident * (uint64_t)page : 0;
}

int rb_stats_format(const rb_stats_line *l, char *buf, size_t size) {
    return snprintf(buf, size,
                    "stats wall_s=%.1f sim_s=%.1f frames=%llu frame_ms=%.2f frame_max_ms=%.2f bodies=%u particles=%u "
                    "rss_kb=%llu device_kb=%llu nonfinite=%u",
                    l->wall_s, l->sim_s, (unsigned long long)l->frames, l->frame_ms, l->frame_max_ms, l->bodies,
                    l->particles, (unsigned long long)(l->rss_bytes / 1024),
                    (unsigned long long)(l->device_bytes / 1024), l->nonfinite);
}
