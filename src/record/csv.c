/* csv.c - a cache as CSV (cache.h; the columns in docs/gltf-export.md, "CSV"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "base/replace.h"
#include "cache.h"

/* A frame's bodies by id, for finding a body in the frames either side. */
typedef struct by_id {
    uint64_t id;
    uint32_t index; /* into the frame's bodies */
} by_id;

static uint64_t id_of(rb_body_id id) { return (uint64_t)id.generation << 32 | id.slot; }

static int compare(const void *a, const void *b) {
    const uint64_t x = ((const by_id *)a)->id, y = ((const by_id *)b)->id;
    return x < y ? -1 : x > y;
}

/* Frame f's bodies sorted by id into out (room for its bodies). */
static void sort_frame(const rb_cached_frame *f, by_id *out) {
    for (uint32_t b = 0; b < f->body_count; b++) out[b] = (by_id){id_of(f->bodies[b].id), b};
    qsort(out, f->body_count, sizeof *out, compare);
}

/* Body id in a sorted frame, or NULL. */
static const rb_cached_body *find(const rb_cached_frame *f, const by_id *sorted, uint64_t id) {
    if (!f) return NULL;
    const by_id key = {id, 0}, *hit = bsearch(&key, sorted, f->body_count, sizeof *sorted, compare);
    return hit ? &f->bodies[hit->index] : NULL;
}

/* The velocity and angular velocity (world frame) that take pose a at time
 * ta to pose b at time tb; false for no time between them. */
static bool difference(const rb_cached_body *a, double ta, const rb_cached_body *b, double tb, double v[3],
                       double w[3]) {
    const double dt = tb - ta;
    if (!(dt > 0)) return false;
    for (int k = 0; k < 3; k++) v[k] = ((double)b->position[k] - a->position[k]) / dt;
    /* the turn d = qb * conj(qa) that takes a's orientation to b's, the short way */
    const float *p = a->orientation, *q = b->orientation;
    double d[4] = {
        q[3] * -p[0] + q[0] * p[3] + q[1] * -p[2] - q[2] * -p[1],
        q[3] * -p[1] - q[0] * -p[2] + q[1] * p[3] + q[2] * -p[0],
        q[3] * -p[2] + q[0] * -p[1] - q[1] * -p[0] + q[2] * p[3],
        q[3] * p[3] - q[0] * -p[0] - q[1] * -p[1] - q[2] * -p[2],
    };
    if (d[3] < 0)
        for (int k = 0; k < 4; k++) d[k] = -d[k];
    const double s = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double angle = 2.0 * atan2(s, d[3]);
    for (int k = 0; k < 3; k++) w[k] = s > 0 ? d[k] / s * angle / dt : 0.0;
    return true;
}

/* s as a CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
static bool put_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) return fputs(s, f) >= 0;
    bool ok = fputc('"', f) != EOF;
    for (; *s && ok; s++) ok = (*s != '"' || fputc('"', f) != EOF) && fputc(*s, f) != EOF;
    return ok && fputc('"', f) != EOF;
}

static void put_time(double t, char out[32]) { /* the shortest decimal that reads back as t */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, 32, "%.*g", digits, t);
        if (strtod(out, NULL) == t) break;
    }
}

static bool write_rows(const rb_cache *c, FILE *f) {
    uint32_t most = 1;
    for (uint32_t i = 0; i < c->frame_count; i++)
        if (c->frames[i].body_count > most) most = c->frames[i].body_count;
    /* sorted ids of the frames before, at and after the one written */
    by_id *sorted[3] = {malloc(sizeof(by_id) * most), malloc(sizeof(by_id) * most), malloc(sizeof(by_id) * most)};
    bool ok = sorted[0] && sorted[1] && sorted[2] && fputs(RB_CACHE_CSV_HEADER "\n", f) >= 0;
    if (ok && c->frame_count) sort_frame(&c->frames[0], sorted[1]);
    for (uint32_t i = 0; i < c->frame_count && ok; i++) {
        const rb_cached_frame *fr = &c->frames[i];
        const rb_cached_frame *before = i > 0 ? fr - 1 : NULL, *after = i + 1 < c->frame_count ? fr + 1 : NULL;
        if (after) sort_frame(after, sorted[2]);
        char time[32];
        put_time(fr->time, time);
        for (uint32_t b = 0; b < fr->body_count && ok; b++) {
            const rb_cached_body *body = &fr->bodies[b];
            const uint64_t id = id_of(body->id);
            char v[7][32];
            for (int k = 0; k < 3; k++) rb_float_decimal(body->position[k], v[k]);
            for (int k = 0; k < 4; k++) rb_float_decimal(body->orientation[k], v[3 + k]);
            ok = fprintf(f, "%u,%s,%llu,%u,%s,%s,%s,%s,%s,%s,%s,", i, time, (unsigned long long)id, body->world_shape,
                         v[0], v[1], v[2], v[3], v[4], v[5], v[6]) > 0;
            const int s = rb_cache_find_shape(c, body->world_shape);
            ok = ok && put_field(f, s >= 0 ? c->shapes[s].name : "") && fputc(',', f) != EOF;
            rb_body_id parent;
            if (ok && rb_cache_shape_parent(c, body->world_shape, &parent))
                ok = fprintf(f, "%llu", (unsigned long long)id_of(parent)) > 0;
            /* central differences where the body is in the frames either
             * side, else one-sided; blank for a body in one frame only */
            const rb_cached_body *a = find(before, sorted[0], id), *z = find(after, sorted[2], id);
            const double ta = a ? before->time : fr->time, tz = z ? after->time : fr->time;
            double vel[3], spin[3];
            if (ok && difference(a ? a : body, ta, z ? z : body, tz, vel, spin)) {
                char d[6][32];
                for (int k = 0; k < 3; k++)
                    rb_float_decimal((float)vel[k], d[k]), rb_float_decimal((float)spin[k], d[3 + k]);
                ok = fprintf(f, ",%s,%s,%s,%s,%s,%s\n", d[0], d[1], d[2], d[3], d[4], d[5]) > 0;
            } else if (ok) {
                ok = fputs(",,,,,,\n", f) >= 0;
            }
        }
        by_id *old = sorted[0];
        sorted[0] = sorted[1], sorted[1] = sorted[2], sorted[2] = old;
    }
    free(sorted[0]), free(sorted[1]), free(sorted[2]);
    return ok;
}

static bool write_csv(FILE *f, void *cache, char *why, size_t why_size) {
    errno = 0;
    if (write_rows(cache, f)) return true;
    snprintf(why, why_size, "cannot write: %s", errno ? strerror(errno) : "out of memory");
    return false;
}

bool rb_cache_write_csv(const rb_cache *c, const char *path, char *err, size_t err_size) {
    /* written beside the name and renamed when whole (base/replace.h) */
    return rb_replace_write(path, "w", write_csv, (void *)c, err, err_size);
}
