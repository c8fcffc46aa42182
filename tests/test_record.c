/* test_record.c - a run recorded to a cache and read back: frames, births
 * and deaths as the world had them, bit for bit; a file cut at any byte
 * reads up to its last whole chunk; bad caches refused with their reason;
 * the CSV export. Files are written in the build folder. */
#include "rb_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "app/run.h"
#include "record/cache.h"

/* An emitter whose bodies live half a second (born and removed all through
 * the run) and a breakable cube hit hard by another (its pieces are world
 * shapes made mid-run). */
static const char *scene_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"emitters\": [{\"region\": {\"point\": [6, 2, 0]}, \"rate\": 20, \"max_alive\": 50, \"direction\": [0, 1, 0],\n"
    "                \"speed\": 3, \"cone\": 20, \"lifetime\": 0.5, \"seed\": 3,\n"
    "                \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5}]}],\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ],\n"
    " \"debris\": {\"remove_asleep\": 0}}\n";

#define RATE 60.0
#define SECONDS 3.0
#define CHECKED 3

static rb_registry *g_reg;
static char g_cache[512]; /* the whole run's cache */

/* What the world had at each frame, as the run steps. */
typedef struct seen {
    rb_cache_writer *writer;
    rb_world *world;
    uint32_t frames;
    uint32_t *counts;          /* bodies a frame */
    uint64_t **ids;            /* their ids a frame */
    rb_transform *xf[CHECKED]; /* the transforms at the checked frames */
} seen;

static const uint32_t checked[CHECKED] = {20, 95, 170};

static uint64_t key(rb_body_id id) { return (uint64_t)id.generation << 32 | id.slot; }

static bool on_frame(void *user, double time) {
    seen *s = user;
    const uint32_t n = rb_world_body_count(s->world), f = s->frames;
    s->counts = realloc(s->counts, sizeof *s->counts * (f + 1));
    s->ids = realloc(s->ids, sizeof *s->ids * (f + 1));
    s->counts[f] = n;
    s->ids[f] = malloc(sizeof(uint64_t) * (n + 1));
    for (uint32_t b = 0; b < n; b++) s->ids[f][b] = key(rb_world_body_id(s->world, b));
    for (int k = 0; k < CHECKED; k++)
        if (checked[k] == f) {
            s->xf[k] = malloc(sizeof(rb_transform) * (n + 1));
            assert_true(rb_world_read_transforms(s->world, s->xf[k]));
        }
    s->frames++;
    return rb_cache_frame(s->writer, time);
}

static seen g_seen;

static char *build_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/record-%s", RB_TEST_BUILD_DIR, name);
    return out;
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    char err[1024];
    rb_scene *scene = rb_scene_parse(scene_text, "record test", g_reg, err, sizeof err);
    if (!scene) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err) /* it takes the scene */;
    if (!run) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    build_path(g_cache, sizeof g_cache, "run.rbc");
    g_seen.world = rb_run_world(run);
    g_seen.writer = rb_cache_begin(g_cache, g_seen.world, rb_run_entities(run), RATE, err, sizeof err);
    if (!g_seen.writer) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    rb_run_on_frames(run, RATE, on_frame, &g_seen);
    rb_run_stats stats;
    const long steps = (long)(SECONDS / 0.0016 + 0.5);
    const bool ok = rb_run_steps(run, steps, "record", false, &stats) && rb_cache_end(g_seen.writer, err, sizeof err);
    if (!ok) fprintf(stderr, "%s\n", err);
    const rb_debris *d = rb_run_debris(run);
    printf("recorded %u frames; %llu spawned, %llu removed, %llu breaks\n", g_seen.frames,
           (unsigned long long)rb_debris_spawned(d), (unsigned long long)rb_debris_removed(d),
           (unsigned long long)rb_debris_breaks(d));
    const bool eventful = rb_debris_removed(d) > 0 && rb_debris_breaks(d) > 0;
    rb_run_destroy(run);
    return ok && eventful ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    for (uint32_t f = 0; f < g_seen.frames; f++) free(g_seen.ids[f]);
    free(g_seen.ids);
    free(g_seen.counts);
    for (int k = 0; k < CHECKED; k++) free(g_seen.xf[k]);
    rb_registry_destroy(g_reg);
    return 0;
}

static rb_cache *open_ok(const char *path) {
    char err[1024];
    rb_cache *c = rb_cache_open(path, err, sizeof err);
    if (!c) fail_msg("%s", err);
    return c;
}

/* Frame count, times, every frame's ids as the world had them, and the
 * checked frames' transforms to the bit. */
static void test_read_back(void **state) {
    (void)state;
    rb_cache *c = open_ok(g_cache);
    assert_false(c->cut_short);
    assert_int_equal(c->frame_count, (uint32_t)(SECONDS * RATE) + 1);
    assert_int_equal(c->frame_count, g_seen.frames);
    assert_true(c->rate == RATE);
    assert_true(fabs(c->frames[c->frame_count - 1].time - SECONDS) < 1e-9);
    uint32_t born = 0, died = 0;
    for (uint32_t f = 0; f < c->frame_count; f++) {
        assert_int_equal(c->frames[f].body_count, g_seen.counts[f]);
        for (uint32_t b = 0; b < c->frames[f].body_count; b++) {
            assert_true(key(c->frames[f].bodies[b].id) == g_seen.ids[f][b]);
            assert_true(rb_cache_find_shape(c, c->frames[f].bodies[b].world_shape) >= 0);
        }
        /* births: ids in this frame not in the one before; deaths: the other way */
        if (f == 0) continue;
        for (uint32_t b = 0; b < g_seen.counts[f]; b++) {
            bool before = false;
            for (uint32_t a = 0; a < g_seen.counts[f - 1] && !before; a++)
                before = g_seen.ids[f - 1][a] == g_seen.ids[f][b];
            born += !before;
        }
        for (uint32_t a = 0; a < g_seen.counts[f - 1]; a++) {
            bool after = false;
            for (uint32_t b = 0; b < g_seen.counts[f] && !after; b++) after = g_seen.ids[f - 1][a] == g_seen.ids[f][b];
            died += !after;
        }
    }
    printf("%u births and %u deaths after the first frame; %u shapes; %u keyframes\n", born, died, c->shape_count,
           c->key_count);
    assert_true(born > 10 && died > 5);
    for (int k = 0; k < CHECKED; k++) {
        const rb_cached_frame *fr = &c->frames[checked[k]];
        for (uint32_t b = 0; b < fr->body_count; b++) {
            assert_memory_equal(fr->bodies[b].position, g_seen.xf[k][b].position, sizeof(float) * 3);
            assert_memory_equal(fr->bodies[b].orientation, g_seen.xf[k][b].orientation, sizeof(float) * 4);
        }
    }
    /* a keyframe each second, 0 to 3, each the state of its frame */
    assert_int_equal(c->key_count, 4);
    for (uint32_t k = 0; k < c->key_count; k++) {
        const rb_cached_key *key_frame = &c->keys[k];
        const rb_cached_frame *fr = &c->frames[key_frame->frame];
        assert_true(key_frame->time == fr->time);
        assert_int_equal(key_frame->body_count, fr->body_count);
        for (uint32_t b = 0; b < fr->body_count; b++)
            assert_memory_equal(key_frame->states[b].position, fr->bodies[b].position, sizeof(float) * 3);
    }
    /* the pieces of the broken cube are there, and the anim has a track a body */
    bool piece = false;
    for (uint32_t s = 0; s < c->shape_count; s++) piece |= strncmp(c->shapes[s].name, "piece", 5) == 0;
    assert_true(piece);
    rb_anim anim;
    assert_true(rb_cache_to_anim(c, &anim));
    assert_int_equal(anim.frame_count, c->frame_count);
    assert_int_equal(anim.shape_count, c->shape_count);
    for (uint32_t s = 0; s < anim.shape_count; s++) {
        assert_true(anim.shapes[s].vertex_count > 0);
        assert_true(anim.shapes[s].index_count % 3 == 0);
    }
    for (uint32_t b = 0; b < anim.body_count; b++) {
        assert_true(anim.bodies[b].first + anim.bodies[b].count <= anim.frame_count);
        assert_true(anim.bodies[b].shape < anim.shape_count);
    }
    rb_cache_anim_free(&anim);
    rb_cache_close(c);
}

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n ? *n : 1);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

static void spit(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static bool same_frame(const rb_cached_frame *a, const rb_cached_frame *b) {
    return a->time == b->time && a->body_count == b->body_count &&
           !memcmp(a->bodies, b->bodies, sizeof *a->bodies * a->body_count);
}

/* The file cut at 50 seeded offsets (and at the header's edges): each
 * opens with a prefix of the whole file's frames, or inside the header is
 * refused with a message saying so. */
static void test_truncated(void **state) {
    (void)state;
    size_t n;
    uint8_t *whole = slurp(g_cache, &n);
    rb_cache *all = open_ok(g_cache);
    char path[512], err[1024];
    build_path(path, sizeof path, "cut.rbc");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t cuts[54] = {1, 31, 32, 33};
    for (int i = 4; i < 54; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        cuts[i] = 1 + (size_t)(x % (n - 1));
    }
    uint32_t prev_frames = 0;
    for (int i = 0; i < 54; i++) {
        spit(path, whole, cuts[i]);
        rb_cache *c = rb_cache_open(path, err, sizeof err);
        if (cuts[i] < 32) {
            assert_null(c);
            assert_non_null(strstr(err, "cut short inside its header"));
            assert_non_null(strstr(err, path));
            continue;
        }
        if (!c) fail_msg("cut at %zu of %zu: %s", cuts[i], n, err);
        assert_true(c->cut_short);
        assert_true(c->bytes_read <= cuts[i]);
        assert_true(c->frame_count <= all->frame_count); /* all of them when cut inside the end mark */
        for (uint32_t f = 0; f < c->frame_count; f++) assert_true(same_frame(&c->frames[f], &all->frames[f]));
        prev_frames += c->frame_count;
        rb_cache_close(c);
    }
    assert_true(prev_frames > 0);
    free(whole);
    rb_cache_close(all);
}

static void expect_refused(const char *path, const char *what) {
    char err[1024];
    rb_cache *c = rb_cache_open(path, err, sizeof err);
    if (c) fail_msg("%s opened; expected \"%s\"", path, what);
    if (!strstr(err, what) || strncmp(err, path, strlen(path)) != 0)
        fail_msg("refused with \"%s\"; expected \"%s: ...%s...\"", err, path, what);
}

static void test_bad_caches(void **state) {
    (void)state;
    char path[512];
    size_t n;
    uint8_t *whole = slurp(g_cache, &n);
    expect_refused(build_path(path, sizeof path, "missing.rbc"), "No such file");
    spit(build_path(path, sizeof path, "empty.rbc"), whole, 0);
    expect_refused(path, "empty");
    uint8_t *bad = malloc(n);
    memcpy(bad, whole, n), bad[3] = 'X';
    spit(build_path(path, sizeof path, "magic.rbc"), bad, n);
    expect_refused(path, "not a Rubble cache");
    memcpy(bad, whole, n), bad[8] = 7;
    spit(build_path(path, sizeof path, "version.rbc"), bad, n);
    expect_refused(path, "version 7");
    memcpy(bad, whole, n), bad[32 + 20 + 5] ^= 0x10; /* a byte in the first chunk's data */
    spit(build_path(path, sizeof path, "crc.rbc"), bad, n);
    expect_refused(path, "damaged chunk at byte 32");
    /* every byte after the header is under a CRC: a bit flipped anywhere,
     * a chunk's sizes included, is damage (not a cut, not other numbers) */
    build_path(path, sizeof path, "flipped.rbc");
    uint64_t x = 12345;
    for (int i = 0; i < 40; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const size_t at = 32 + (size_t)(x % (n - 32));
        memcpy(bad, whole, n), bad[at] ^= (uint8_t)(1u << (x >> 60 & 7));
        spit(path, bad, n);
        expect_refused(path, "damaged chunk");
    }
    free(bad);
    free(whole);
}

/* The export: a row a live body a frame, floats read back to the bit; a
 * bad cache or an unwritable output exits 2 and leaves nothing. */
static void test_csv(void **state) {
    (void)state;
    char out[512], err[1024];
    rb_cache *c = open_ok(g_cache);
    build_path(out, sizeof out, "run.csv");
    remove(out);
    char *argv[] = {"export", g_cache, "--csv", out};
    assert_int_equal(rb_export_main(4, argv), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "frame,time,body,shape,x,y,z,qx,qy,qz,qw\n");
    uint64_t rows = 0, expected = 0;
    for (uint32_t i = 0; i < c->frame_count; i++) expected += c->frames[i].body_count;
    uint32_t frame = 0, b = 0;
    while (fgets(line, sizeof line, f)) {
        while (frame < c->frame_count && b == c->frames[frame].body_count) frame++, b = 0;
        assert_true(frame < c->frame_count);
        const rb_cached_body *body = &c->frames[frame].bodies[b++];
        unsigned fr, shape;
        unsigned long long id;
        double time;
        char v[7][32];
        assert_int_equal(sscanf(line, "%u,%lf,%llu,%u,%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,],%31[^,\n]", &fr,
                                &time, &id, &shape, v[0], v[1], v[2], v[3], v[4], v[5], v[6]),
                         11);
        assert_int_equal(fr, frame);
        assert_true(time == c->frames[frame].time);
        assert_true(id == key(body->id));
        assert_int_equal(shape, body->world_shape);
        for (int k = 0; k < 3; k++) assert_true(strtof(v[k], NULL) == body->position[k]);
        for (int k = 0; k < 4; k++) assert_true(strtof(v[3 + k], NULL) == body->orientation[k]);
        rows++;
    }
    fclose(f);
    assert_true(rows == expected);
    /* an output in a folder that is not there: 2, nothing written */
    char bad_out[600];
    snprintf(bad_out, sizeof bad_out, "%s/no-such-folder/run.csv", RB_TEST_BUILD_DIR);
    char *argv2[] = {"export", g_cache, "--csv", bad_out};
    assert_int_equal(rb_export_main(4, argv2), 2);
    struct stat st;
    assert_int_not_equal(stat(bad_out, &st), 0);
    assert_false(rb_cache_write_csv(c, bad_out, err, sizeof err));
    assert_non_null(strstr(err, bad_out));
    /* an unwritable folder (unless root, who writes anywhere) */
    char ro[512], ro_out[600];
    build_path(ro, sizeof ro, "read-only");
    mkdir(ro, 0755);
    chmod(ro, 0555);
    snprintf(ro_out, sizeof ro_out, "%s/run.csv", ro);
    if (access(ro, W_OK) != 0) {
        char *argv3[] = {"export", g_cache, "--csv", ro_out};
        assert_int_equal(rb_export_main(4, argv3), 2);
        assert_int_not_equal(stat(ro_out, &st), 0);
    }
    /* a bad cache: 2, nothing under the output's name */
    char empty[512];
    build_path(empty, sizeof empty, "empty.rbc");
    spit(empty, (const uint8_t *)"", 0);
    remove(out);
    char *argv4[] = {"export", empty, "--csv", out};
    assert_int_equal(rb_export_main(4, argv4), 2);
    assert_int_not_equal(stat(out, &st), 0);
    rb_cache_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_bad_caches),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
