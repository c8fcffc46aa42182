/* fuzz_cache.c - caches (docs/cache-format.md) read as `rubble export` and
 * `rubble --replay` read them: rb_cache_open on a file holding the input; a
 * refused cache must say which file. A taken one must hold what cache.h
 * promises (a positive finite rate and step, every frame's bodies of a shape
 * given), then is exported as CSV, glTF and events into a folder of its own
 * (each written whole or refused with the file named, nothing left behind
 * on a refusal), each keyframe's scene is parsed as "simulate from here"
 * parses it, and the replay (src/sandbox/replay.c, without a renderer)
 * opens it and reads its first, middle and last frames.
 *
 * Each input is read twice: as it is, and with its CRCs made right again
 * (the header's and each whole chunk's two), so that a mutation inside a
 * chunk header or a zstd frame reaches the checks behind the CRCs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "record/cache.h"
#include "sandbox/replay.h"
#include "sandbox/view.h"
#include "shapes/shapes.h"

static char g_dir[64], g_path[96], g_csv[96], g_glb[96], g_events[96];
static rb_registry *g_registry;

static void silent(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }

static void remove_files(void) {
    unlink(g_path), unlink(g_csv), unlink(g_glb), unlink(g_events);
    rmdir(g_dir);
}

/* A cube of n x n x n particles, one diameter apart: the shape a keyframe's scene may name. */
static void add_shape(const char *name, int n) {
    float p[3 * 27];
    int k = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) p[k++] = (float)x, p[k++] = (float)y, p[k++] = (float)z;
    rb_shape_desc d = {.struct_size = sizeof d,
                       .name = name,
                       .description = name,
                       .particle_count = (uint32_t)(n * n * n),
                       .particles = p,
                       .particle_diameter = 0.0f};
    if (rb_registry_add_desc(g_registry, &d, "fuzz", "fuzz") != RB_LOAD_OK) abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/rubble-fuzz-cache-XXXXXX");
    if (!mkdtemp(g_dir)) abort();
    snprintf(g_path, sizeof g_path, "%s/in.rbc", g_dir);
    snprintf(g_csv, sizeof g_csv, "%s/out.csv", g_dir);
    snprintf(g_glb, sizeof g_glb, "%s/out.glb", g_dir);
    snprintf(g_events, sizeof g_events, "%s/out.jsonl", g_dir);
    atexit(remove_files);
    rb_set_log_fn(silent, NULL);
    g_registry = rb_registry_create(NULL);
    if (!g_registry) abort();
    add_shape("cube", 3);
    add_shape("cube2", 2);
    return 0;
}

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_cache: " __VA_ARGS__);                                                               \
            fprintf(stderr, " (%s)\n", #cond);                                                                         \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* A writer's promise: whole, or refused with a message naming one of its
 * files, and nothing under the file it names. */
static void check_written(bool ok, const char *err, const char *a, const char *b) {
    if (ok) {
        CHECK(access(a, F_OK) == 0 && (!b || access(b, F_OK) == 0), "export said yes but wrote no %s", a);
        return;
    }
    const char *named = !strncmp(err, a, strlen(a)) ? a : b && !strncmp(err, b, strlen(b)) ? b : NULL;
    CHECK(named, "an export refusal that does not name its file: '%s'", err);
    CHECK(access(named, F_OK) != 0, "a refused export left its file: '%s'", err);
}

static void check_cache(const rb_cache *c) {
    CHECK(c->rate > 0.0 && isfinite(c->rate) && c->dt > 0.0 && isfinite(c->dt), "rate %g, step %g", c->rate, c->dt);
    CHECK(c->version >= RB_CACHE_OLDEST_VERSION && c->version <= RB_CACHE_VERSION, "version %u", c->version);
    for (uint32_t f = 0; f < c->frame_count; f++)
        for (uint32_t b = 0; b < c->frames[f].body_count; b++)
            CHECK(rb_cache_find_shape(c, c->frames[f].bodies[b].world_shape) >= 0, "frame %u body %u of no shape", f,
                  b);
    for (uint32_t k = 0; k < c->key_count; k++) CHECK(c->keys[k].frame <= c->frame_count, "keyframe %u past", k);
}

static void replay(void) {
    char err[1024] = "";
    rb_replay *r = rb_replay_open(g_path, err, sizeof err);
    if (!r) {
        CHECK(strncmp(err, g_path, strlen(g_path)) == 0, "a replay refusal that does not name the file: '%s'", err);
        return;
    }
    const rb_cache *c = rb_replay_cache(r);
    rb_world_desc desc = rb_default_world_desc();
    rb_replay_world_desc(r, g_registry, &desc, err, sizeof err);
    rb_view *v = rb_view_create();
    if (!v) abort();
    const uint32_t frames[3] = {0, c->frame_count / 2, c->frame_count - 1};
    for (int i = 0; i < 3; i++) {
        rb_replay_seek(r, frames[i]);
        CHECK(rb_replay_frame(r) == frames[i], "seeking frame %u shows %u", frames[i], rb_replay_frame(r));
        rb_replay_read(r, v);
        rb_replay_advance(r, 0.25);
    }
    rb_view_destroy(v);
    rb_replay_destroy(r);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* The CRCs of a cache made right (docs/cache-format.md): version 5's
 * header's, then each whole chunk's stored bytes' and its header's. */
static void repair_crcs(uint8_t *p, size_t n) {
    if (n < 16) return;
    size_t at = 32;
    if (get32(p + 8) >= 5) {
        if (n < 36) return;
        put32(p + 32, crc32_of(p, 32));
        at = 36;
    }
    while (at <= n && n - at >= 20) {
        const uint32_t stored = get32(p + at + 4);
        if (n - at - 20 < stored) break;
        put32(p + at + 12, crc32_of(p + at + 20, stored));
        put32(p + at + 16, crc32_of(p + at, 16));
        at += 20 + (size_t)stored;
    }
}

static void one_input(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    one_input(data, size);
    uint8_t *repaired = malloc(size ? size : 1);
    if (!repaired) abort();
    memcpy(repaired, data, size);
    repair_crcs(repaired, size);
    if (memcmp(repaired, data, size) != 0) one_input(repaired, size);
    free(repaired);
    return 0;
}

static void one_input(const uint8_t *data, size_t size) {
    FILE *f = fopen(g_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    char err[1024] = "";
    rb_cache *c = rb_cache_open(g_path, err, sizeof err);
    if (!c) {
        CHECK(strncmp(err, g_path, strlen(g_path)) == 0, "a refusal that does not name the file: '%s'", err);
        return;
    }
    check_cache(c);
    unlink(g_csv), unlink(g_glb), unlink(g_events);
    if (c->frame_count > 0) {
        const bool ok = rb_cache_export(c, g_csv, g_glb, err, sizeof err);
        check_written(ok, err, g_csv, g_glb);
    }
    check_written(rb_cache_write_events(c, g_events, err, sizeof err), err, g_events, NULL);
    for (uint32_t k = 0; k < c->key_count && k < 4; k++) {
        rb_scene *s = rb_cache_key_scene(c, k, g_registry, err, sizeof err);
        if (!s) CHECK(strncmp(err, g_path, strlen(g_path)) == 0, "a keyframe refusal without the file: '%s'", err);
        rb_scene_destroy(s);
    }
    float marks[6 * 16];
    for (uint32_t i = 0; i < c->frame_count && i < 8; i++) {
        rb_cache_camera cam;
        rb_cache_camera_at(c, i, &cam);
        rb_cache_event_marks(c, c->frames[i].time, marks, 16);
    }
    rb_cache_close(c);
    replay();
}
