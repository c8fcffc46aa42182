/* resample.c - see resample.h. */
#include "resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Times are compared with this slack (in frames), so that k / rate that
 * rounds a hair past a source frame's time still counts as at it. */
#define SLACK 1e-9

bool rb_anim_rate_ok(double rate) { return rate > 0.0 && isfinite(rate); }

/* The first frame of rate at or after t seconds. */
static double frame_at_or_after(double t, double rate) { return ceil(t * rate - SLACK); }

/* Where track (count frames of 7 floats from frame `first` at in_rate) is
 * at time t, clamped to its ends, in out. */
static void sample(const float *track, uint32_t first, uint32_t count, double in_rate, double t, float out[7]) {
    double x = t * in_rate - first; /* in source frames from the track's first */
    if (x < 0) x = 0;
    if (x > count - 1) x = count - 1;
    uint32_t i = (uint32_t)floor(x + SLACK);
    if (i >= count - 1) {
        memcpy(out, track + 7 * (size_t)(count - 1), 7 * sizeof *out);
        return;
    }
    double u = x - i;
    if (u < SLACK) u = 0;
    const float *a = track + 7 * (size_t)i, *b = a + 7;
    for (int k = 0; k < 3; k++) out[k] = (float)(a[k] + (b[k] - a[k]) * u);
    /* slerp the short way round: q and -q are the same turn */
    double qa[4], qb[4], la = 0, lb = 0, dot = 0;
    for (int k = 0; k < 4; k++) la += (double)a[3 + k] * a[3 + k], lb += (double)b[3 + k] * b[3 + k];
    la = sqrt(la), lb = sqrt(lb);
    for (int k = 0; k < 4; k++) qa[k] = a[3 + k] / la, qb[k] = b[3 + k] / lb, dot += qa[k] * qb[k];
    if (dot < 0)
        for (int k = 0; k < 4; k++) qb[k] = -qb[k];
    dot = fabs(dot);
    double wa = 1 - u, wb = u;
    if (dot < 1 - 1e-9) { /* else so close that the linear blend is the slerp */
        const double angle = acos(dot > 1 ? 1 : dot), s = sin(angle);
        wa = sin((1 - u) * angle) / s, wb = sin(u * angle) / s;
    }
    double q[4], len = 0;
    for (int k = 0; k < 4; k++) q[k] = wa * qa[k] + wb * qb[k], len += q[k] * q[k];
    len = sqrt(len);
    for (int k = 0; k < 4; k++) out[3 + k] = (float)(q[k] / len);
}

/* A track of frames k0 .. k0 + n - 1 at rate from a source track; NULL if out of memory. */
static float *resample_track(const float *track, uint32_t first, uint32_t count, double in_rate, double rate,
                             uint32_t k0, uint32_t n) {
    float *t = malloc(sizeof *t * 7 * (size_t)(n ? n : 1));
    for (uint32_t k = 0; t && k < n; k++) sample(track, first, count, in_rate, (k0 + k) / rate, t + 7 * (size_t)k);
    return t;
}

void rb_anim_resample_free(rb_anim *a) {
    for (uint32_t b = 0; b < a->body_count; b++) free((void *)a->bodies[b].track);
    free((void *)a->bodies);
    if (a->camera) free((void *)a->camera->track);
    free((void *)a->camera);
    *a = (rb_anim){0};
}

bool rb_anim_resample(const rb_anim *in, double rate, rb_anim *out) {
    *out = (rb_anim){.rate = rate, .shapes = in->shapes, .shape_count = in->shape_count};
    if (!rb_anim_rate_ok(rate) || !rb_anim_rate_ok(in->rate) || in->frame_count == 0) return false;
    const double end = (in->frame_count - 1) / in->rate; /* the last source frame's time */
    const double frames = floor(end * rate + SLACK) + 1;
    if (frames > 2147483648.0) return false;
    out->frame_count = (uint32_t)frames;
    rb_anim_body *bodies = calloc(in->body_count ? in->body_count : 1, sizeof *bodies);
    out->bodies = bodies;
    if (!bodies) return false;
    bool ok = true;
    for (uint32_t b = 0; b < in->body_count && ok; b++) {
        const rb_anim_body *s = &in->bodies[b];
        /* shown from the first frame at or after its first, hidden from the
         * first at or after the source frame after its last */
        const double shown = frame_at_or_after(s->first / in->rate, rate);
        double hidden = frame_at_or_after((s->first + s->count) / in->rate, rate);
        if (hidden > out->frame_count) hidden = out->frame_count;
        if (!(hidden > shown)) continue; /* it lived between two frames of the result */
        rb_anim_body *d = &bodies[out->body_count];
        *d = *s;
        d->first = (uint32_t)shown, d->count = (uint32_t)(hidden - shown);
        d->track = resample_track(s->track, s->first, s->count, in->rate, rate, d->first, d->count);
        ok = d->track != NULL;
        out->body_count += ok;
    }
    const rb_anim_camera *c = in->camera;
    const double seen = c ? frame_at_or_after(c->first / in->rate, rate) : 0;
    if (ok && c && seen < out->frame_count) { /* a camera from after the last frame is none */
        rb_anim_camera *cam = malloc(sizeof *cam);
        out->camera = cam;
        ok = cam != NULL;
        if (cam) {
            *cam = *c;
            cam->first = (uint32_t)seen, cam->count = out->frame_count - cam->first;
            cam->track = resample_track(c->track, c->first, c->count, in->rate, rate, cam->first, cam->count);
            ok = cam->track != NULL;
        }
    }
    if (!ok) rb_anim_resample_free(out);
    return ok;
}
