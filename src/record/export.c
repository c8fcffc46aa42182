/* export.c - a cache as CSV (csv.c) or glTF, and `rubble export` (see cache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/replace.h"
#include "base/same_path.h"
#include "cache.h"
#include "gltf.h"
#include "resample.h"

bool rb_cache_export(const rb_cache *c, const char *csv, const char *gltf, char *err, size_t err_size) {
    return rb_cache_export_all(c, csv, gltf, NULL, 0.0, err, err_size);
}

bool rb_cache_export_at(const rb_cache *c, const char *csv, const char *gltf, double fps, char *err,
                        size_t err_size) {
    return rb_cache_export_all(c, csv, gltf, NULL, fps, err, err_size);
}

static bool write_gltf(const rb_cache *c, const char *path, double fps, char *err, size_t err_size) {
    rb_anim anim, at;
    if (!rb_cache_to_anim(c, &anim)) {
        snprintf(err, err_size, "%s: %s", path, c->frame_count ? "out of memory" : "the cache has no frames");
        return false;
    }
    /* the cache's own rate: its frames as they are (resampling would give them back) */
    const bool same = fps == 0.0 || fps == c->rate;
    bool ok = same || rb_anim_resample(&anim, fps, &at);
    if (!ok) snprintf(err, err_size, "%s: out of memory, or too many frames at %g a second", path, fps);
    if (ok) ok = rb_gltf_write(path, same ? &anim : &at, err, err_size);
    if (!same) rb_anim_resample_free(&at); /* emptied by a failed resample */
    rb_cache_anim_free(&anim);
    return ok;
}

bool rb_cache_export_all(const rb_cache *c, const char *csv, const char *gltf, const char *events, double fps,
                         char *err, size_t err_size) {
    if (fps != 0.0 && !rb_anim_rate_ok(fps)) {
        snprintf(err, err_size, "%s: the frame rate %g is not a positive number", gltf ? gltf : csv, fps);
        return false;
    }
    /* all or none: each written whole beside its name, every folder proved
     * writable before the first is written, and none renamed into place
     * until all are (base/replace.h) */
    rb_replace_group g;
    rb_replace_group_init(&g);
    const char *to_csv = csv ? rb_replace_group_add(&g, csv, err, err_size) : NULL;
    const char *to_gltf = gltf && (!csv || to_csv) ? rb_replace_group_add(&g, gltf, err, err_size) : NULL;
    const char *to_events =
        events && (!csv || to_csv) && (!gltf || to_gltf) ? rb_replace_group_add(&g, events, err, err_size) : NULL;
    if ((csv && !to_csv) || (gltf && !to_gltf) || (events && !to_events)) {
        rb_replace_group_abandon(&g);
        return false;
    }
    char why[4096 + 256] = "";
    const char *failed = NULL;
    if (csv && !rb_cache_write_csv(c, to_csv, why, sizeof why)) failed = csv;
    if (!failed && gltf && !write_gltf(c, to_gltf, fps, why, sizeof why)) failed = gltf;
    if (!failed && events && !rb_cache_write_events(c, to_events, why, sizeof why)) failed = events;
    if (failed) {
        /* the writers named the part file: the message names the output */
        const char *part = failed == csv ? to_csv : failed == gltf ? to_gltf : to_events;
        const size_t n = strlen(part);
        const char *reason = !strncmp(why, part, n) && !strncmp(why + n, ": ", 2) ? why + n + 2 : why;
        snprintf(err, err_size, "%.3000s: %s (nothing written)", failed, reason);
        rb_replace_group_abandon(&g);
        return false;
    }
    return rb_replace_group_commit(&g, err, err_size);
}

static void usage(FILE *out) {
    fprintf(out, "usage: rubble export CACHE [--csv OUT.csv] [--gltf OUT.glb] [--fps F] [--events OUT.jsonl]\n"
                 "Writes a cache that rubble --record made (docs/cache-format.md) as CSV (a row a body a frame:\n"
                 RB_CACHE_CSV_HEADER ")\n"
                 "and/or as an animated binary glTF (docs/gltf-export.md), and its events as JSON lines\n"
                 "(docs/events.md). --fps F: the glTF's keys resampled onto frames of F a second (24, 25, 30,\n"
                 "60 or any positive rate; the default: the cache's own).\n");
}

int rb_export_main(int argc, char **argv) {
    const char *cache = NULL, *csv = NULL, *gltf = NULL, *events = NULL;
    double fps = 0.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--fps")) {
            char *end = NULL;
            errno = 0;
            fps = i + 1 < argc ? strtod(argv[i + 1], &end) : 0.0;
            if (i + 1 >= argc || end == argv[i + 1] || *end || errno || !rb_anim_rate_ok(fps)) {
                fprintf(stderr, "rubble export: --fps needs a positive, finite frame rate (24, 25, 30, 60...), not '%s'\n\n",
                        i + 1 < argc ? argv[i + 1] : "");
                usage(stderr);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--csv") || !strcmp(a, "--gltf") || !strcmp(a, "--events")) {
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
    /* no output is the cache or another output, by any name (links, ./):
     * refused before anything is read or written */
    const rb_named_path files[] = {{"the cache", cache, false}, {"--csv", csv, true}, {"--gltf", gltf, true},
                                   {"--events", events, true}};
    int x, y;
    if (rb_paths_clash(files, 4, &x, &y)) {
        fprintf(stderr, "rubble export: %s %s and %s %s are one file: give each output its own name\n",
                files[x].option, files[x].path, files[y].option, files[y].path);
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
    const bool ok = rb_cache_export_all(c, csv, gltf, events, fps, err, sizeof err);
    if (!ok) fprintf(stderr, "rubble export: %s\n", err);
    if (ok && events && c->event_count == 0) /* an empty file is the truth, but say why it is empty */
        fprintf(stderr,
                "rubble export: %s holds no events, so %s is empty (a window's recording keeps none: "
                "docs/events.md)\n",
                cache, events);
    rb_cache_close(c);
    return ok ? 0 : 2;
}
