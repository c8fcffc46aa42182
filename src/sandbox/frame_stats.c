/* frame_stats.c - --frame-stats: frame times kept and summed up (see frame_stats.h). */
#include "frame_stats.h"

#include <math.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

void rb_frame_stats_add(rb_frame_stats *s, const rb_frame_sample *sample) {
    if (s->count == s->capacity) {
        uint32_t cap = s->capacity ? 2 * s->capacity : 1024;
        rb_frame_sample *p = realloc(s->samples, (size_t)cap * sizeof *p);
        if (!p) return; /* the report then covers the frames it could keep */
        s->samples = p, s->capacity = cap;
    }
    s->samples[s->count++] = *sample;
}

void rb_frame_stats_free(rb_frame_stats *s) {
    free(s->samples);
    *s = (rb_frame_stats){0};
}

uint32_t rb_frame_stats_warmup(const rb_frame_stats *s) { return s->count / 10 < 10 ? s->count / 10 : 10; }

static double value(const rb_frame_sample *x, rb_frame_field field) {
    switch (field) {
    case RB_FRAME_MS:
        return x->frame_ms;
    case RB_DRAW_MS:
        return x->draw_ms;
    case RB_SIM_MS:
        return x->sim_ms;
    case RB_CPU_MS:
        return x->cpu_ms;
    default:
        return x->steps;
    }
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

rb_frame_figure rb_frame_stats_figure(const rb_frame_stats *s, rb_frame_field field) {
    const uint32_t skip = rb_frame_stats_warmup(s), n = s->count - skip;
    rb_frame_figure f = {0.0, 0.0};
    double *v = n ? malloc((size_t)n * sizeof *v) : NULL;
    if (!v) return f;
    for (uint32_t i = 0; i < n; i++) f.mean += v[i] = value(&s->samples[skip + i], field);
    f.mean /= n;
    qsort(v, n, sizeof *v, by_value);
    /* nearest rank: the smallest value with at least 95% of the frames at or below it */
    const uint32_t rank = (uint32_t)((95u * (uint64_t)n + 99u) / 100u);
    f.p95 = v[rank > 0 ? rank - 1 : 0];
    free(v);
    return f;
}

/* To the microsecond: more digits are noise. */
static double rounded(double ms) { return round(ms * 1e3) / 1e3; }

static void add_figure(cJSON *j, const char *name, rb_frame_figure f) {
    cJSON *o = cJSON_AddObjectToObject(j, name);
    cJSON_AddNumberToObject(o, "mean", rounded(f.mean));
    cJSON_AddNumberToObject(o, "p95", rounded(f.p95));
}

char *rb_frame_stats_json(const rb_frame_stats *s, const rb_frame_stats_setting *st) {
    cJSON *j = cJSON_CreateObject();
    if (!j) return NULL;
    const uint32_t warmup = rb_frame_stats_warmup(s);
    const rb_frame_figure frame = rb_frame_stats_figure(s, RB_FRAME_MS);
    cJSON_AddNumberToObject(j, "frames", s->count - warmup);
    cJSON_AddNumberToObject(j, "warmup_frames", warmup);
    cJSON_AddNumberToObject(j, "fps", frame.mean > 0.0 ? rounded(1000.0 / frame.mean) : 0.0);
    add_figure(j, "frame_ms", frame);
    add_figure(j, "draw_ms", rb_frame_stats_figure(s, RB_DRAW_MS));
    add_figure(j, "sim_ms", rb_frame_stats_figure(s, RB_SIM_MS));
    add_figure(j, "cpu_ms", rb_frame_stats_figure(s, RB_CPU_MS));
    add_figure(j, "steps_per_frame", rb_frame_stats_figure(s, RB_STEPS));
    cJSON *q = cJSON_AddObjectToObject(j, "quality");
    cJSON_AddStringToObject(q, "preset", st->quality ? st->quality : "");
    cJSON_AddNumberToObject(q, "msaa", st->msaa);
    cJSON_AddNumberToObject(q, "shadows", st->shadows);
    cJSON_AddNumberToObject(q, "render_scale", st->render_scale);
    cJSON_AddBoolToObject(q, "automatic", st->automatic);
    cJSON_AddStringToObject(j, "gl_renderer", st->gl_renderer ? st->gl_renderer : "");
    cJSON_AddNumberToObject(j, "width", st->width);
    cJSON_AddNumberToObject(j, "height", st->height);
    cJSON_AddNumberToObject(j, "bodies", st->bodies);
    cJSON_AddNumberToObject(j, "particles", st->particles);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}
