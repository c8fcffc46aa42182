/* export.c - a cache as CSV or glTF, and `rubble export` (see cache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/replace.h"
#include "base/decimal.h"
#include "cache.h"
#include "gltf.h"

bool rb_cache_write_csv(const rb_cache *c, const char *path, char *err, size_t err_size) {
    /* written beside the name and renamed when whole (base/replace.h) */
    rb_replace out;
    char why[256] = "";
    FILE *f = rb_replace_open(&out, path, "w", why, sizeof why);
    if (!f) {
        snprintf(err, err_size, "%.300s: %s", path, why);
        return false;
    }
    bool ok = fputs("frame,time,body,shape,x,y,z,qx,qy,qz,qw\n", f) >= 0;
    for (uint32_t i = 0; i < c->frame_count && ok; i++) {
        const rb_cached_frame *fr = &c->frames[i];
        char time[32]; /* the shortest decimal that reads back as the frame's time */
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(time, sizeof time, "%.*g", digits, fr->time);
            if (strtod(time, NULL) == fr->time) break;
        }
        for (uint32_t b = 0; b < fr->body_count && ok; b++) {
            const rb_cached_body *body = &fr->bodies[b];
            char v[7][32];
            for (int k = 0; k < 3; k++) rb_float_decimal(body->position[k], v[k]);
            for (int k = 0; k < 4; k++) rb_float_decimal(body->orientation[k], v[3 + k]);
            ok = fprintf(f, "%u,%s,%llu,%u,%s,%s,%s,%s,%s,%s,%s\n", i, time,
                         (unsigned long long)((uint64_t)body->id.generation << 32 | body->id.slot), body->world_shape,
                         v[0], v[1], v[2], v[3], v[4], v[5], v[6]) > 0;
        }
    }
    if (!ok) snprintf(why, sizeof why, "cannot write: %s", strerror(errno));
    ok = rb_replace_close(&out, ok, why, sizeof why);
    if (!ok) snprintf(err, err_size, "%.300s: %s", path, why);
    return ok;
}

bool rb_cache_export(const rb_cache *c, const char *csv, const char *gltf, char *err, size_t err_size) {
    if (csv && !rb_cache_write_csv(c, csv, err, err_size)) return false;
    if (!gltf) return true;
    rb_anim anim;
    if (!rb_cache_to_anim(c, &anim)) {
        snprintf(err, err_size, "%s: %s", gltf, c->frame_count ? "out of memory" : "the cache has no frames");
        return false;
    }
    const bool ok = rb_gltf_write(gltf, &anim, err, err_size);
    rb_cache_anim_free(&anim);
    return ok;
}

static void usage(FILE *out) {
    fprintf(out, "usage: rubble export CACHE [--csv OUT.csv] [--gltf OUT.glb] [--events OUT.jsonl]\n"
                 "Writes a cache that rubble --record made (docs/cache-format.md) as CSV (a row a body a frame:\n"
                 "frame,time,body,shape,x,y,z,qx,qy,qz,qw) and/or as an animated binary glTF, and its events\n"
                 "as JSON lines (docs/events.md).\n");
}

int rb_export_main(int argc, char **argv) {
    const char *cache = NULL, *csv = NULL, *gltf = NULL, *events = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--csv") || !strcmp(a, "--gltf") || !strcmp(a, "--events")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "rubble export: option %s needs a value\n\n", a);
                usage(stderr);
                return 2;
            }
            *(a[2] == 'c' ? &csv : a[2] == 'g' ? &gltf : &events) = argv[++i];
        } else if (a[0] != '-' && !cache) {
            cache = a;
        } else {
            fprintf(stderr, "rubble export: unknown option or extra argument '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!cache || (!csv && !gltf && !events)) {
        fprintf(stderr, "rubble export: %s\n\n",
                !cache ? "no cache given" : "nothing to write: give --csv, --gltf or --events");
        usage(stderr);
        return 2;
    }
    if (events && ((csv && !strcmp(events, csv)) || (gltf && !strcmp(events, gltf)) || !strcmp(events, cache))) {
        fprintf(stderr, "rubble export: --events %s is also another file of the command: give it its own\n", events);
        return 2;
    }
    char err[4096 + 256];
    rb_cache *c = rb_cache_open(cache, err, sizeof err);
    if (!c) {
        fprintf(stderr, "rubble export: %s\n", err);
        return 2;
    }
    if (c->cut_short)
        fprintf(stderr, "rubble export: %s was cut short (its writer did not finish); exporting its %u whole frames\n",
                cache, c->frame_count);
    const bool ok = (!(csv || gltf) || rb_cache_export(c, csv, gltf, err, sizeof err)) &&
                    (!events || rb_cache_write_events(c, events, err, sizeof err));
    if (!ok) fprintf(stderr, "rubble export: %s\n", err);
    rb_cache_close(c);
    return ok ? 0 : 2;
}
