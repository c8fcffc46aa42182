/* test_record.c - a run recorded to a cache and read back: frames, births
 * and deaths as the world had them, bit for bit; a file cut at any byte
 * reads up to its last whole chunk; bad caches refused with their reason;
 * the CSV export. Files are written in the build folder. */
#include "rb_test.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "app/run.h"
#include "record/cache.h"

/* An emitter whose bodies live half a second (born and removed all through
 * the run) and a breakable cube, in colours of its own, hit hard by another
 * (its pieces are world shapes made mid-run, their meshes cut from its). */
static const char *scene_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"emitters\": [{\"region\": {\"point\": [6, 2, 0]}, \"rate\": 20, \"max_alive\": 50, \"direction\": [0, 1, 0],\n"
    "                \"speed\": 3, \"cone\": 20, \"lifetime\": 0.5, \"seed\": 3,\n"
    "                \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5}]}],\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"color\": [0.2, 0.4, 0.8], \"inside_color\": \"#e0c040\",\n"
    "    \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ],\n"
    " \"debris\": {\"remove_asleep\": 0}}\n";

#define RATE 60.0
#define SECONDS 3.0
#define CHECKED 3

static rb_registry *g_reg;
static char g_cache[512]; /* the whole run's cache */

/* A body's colours as the stage had them at the first frame it was in. */
typedef struct seen_paint {
    uint64_t id;
    rb_paint paint;
} seen_paint;

/* What the world had at each frame, as the run steps. */
typedef struct seen {
    rb_cache_writer *writer;
    const rb_stage *stage;
    rb_world *world;
    seen_paint *paints; /* each body's, once */
    uint32_t paint_count;
    rb_mesh *pieces; /* by world shape: the debris layer's mesh of a piece (vertex_count 0: none or not a piece) */
    uint32_t piece_size;
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
    for (uint32_t b = 0; b < n; b++) { /* a new body's colours */
        bool known = false;
        for (uint32_t i = 0; i < s->paint_count && !known; i++) known = s->paints[i].id == s->ids[f][b];
        if (known) continue;
        s->paints = realloc(s->paints, sizeof *s->paints * (s->paint_count + 1));
        s->paints[s->paint_count].id = s->ids[f][b];
        rb_color_table_paint(rb_stage_colors(s->stage), rb_world_body_id(s->world, b),
                             &s->paints[s->paint_count].paint);
        s->paint_count++;
    }
    const uint32_t shapes = rb_world_shape_count(s->world); /* the pieces' meshes, as the debris layer cut them */
    if (shapes > s->piece_size) {
        s->pieces = realloc(s->pieces, sizeof *s->pieces * shapes);
        memset(s->pieces + s->piece_size, 0, sizeof *s->pieces * (shapes - s->piece_size));
        for (uint32_t w = s->piece_size; w < shapes; w++)
            rb_debris_piece_mesh(rb_stage_debris(s->stage), w, &s->pieces[w]);
        s->piece_size = shapes;
    }
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
    g_seen.stage = rb_run_stage(run);
    g_seen.writer = rb_cache_begin_stage(g_cache, g_seen.stage, RATE, err, sizeof err);
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
    free(g_seen.paints);
    for (uint32_t w = 0; w < g_seen.piece_size; w++) rb_mesh_free(&g_seen.pieces[w]);
    free(g_seen.pieces);
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

/* The broken cube's pieces recorded with the meshes the debris layer cut
 * for them, their cut faces marked, to the bit; every body's colours as
 * the stage had them, the pieces' their cube's; the animation export makes
 * keeps both. */
static void test_pieces_cut_and_coloured(void **state) {
    (void)state;
    rb_cache *c = open_ok(g_cache);
    assert_int_equal(c->version, RB_CACHE_VERSION);
    uint32_t cut = 0, with_inside = 0;
    for (uint32_t i = 0; i < c->shape_count; i++) {
        const rb_cached_shape *s = &c->shapes[i];
        const rb_mesh *want = s->world_shape < g_seen.piece_size ? &g_seen.pieces[s->world_shape] : NULL;
        if (!want || want->vertex_count == 0) { /* a registry shape's: no cut face */
            assert_null(s->mesh.inside);
            continue;
        }
        cut++;
        assert_int_equal(s->mesh.vertex_count, want->vertex_count);
        assert_int_equal(s->mesh.index_count, want->index_count);
        assert_memory_equal(s->mesh.positions, want->positions, sizeof(float) * 3 * want->vertex_count);
        assert_memory_equal(s->mesh.normals, want->normals, sizeof(float) * 3 * want->vertex_count);
        assert_memory_equal(s->mesh.indices, want->indices, sizeof(uint32_t) * want->index_count);
        uint32_t marked = 0;
        for (uint32_t v = 0; v < want->vertex_count; v++) marked += want->inside[v];
        if (marked) {
            assert_non_null(s->mesh.inside);
            assert_memory_equal(s->mesh.inside, want->inside, want->vertex_count);
            with_inside++;
        }
    }
    printf("%u pieces recorded with their cut meshes, %u with cut faces; %u bodies' colours\n", cut, with_inside,
           c->color_count);
    assert_true(cut >= 2 && with_inside >= 2);
    /* every body's colours, once each; the cube's pieces in its */
    assert_int_equal(c->color_count, g_seen.paint_count);
    const rb_paint cube = {{0.2f, 0.4f, 0.8f}, {224.0f / 255.0f, 192.0f / 255.0f, 64.0f / 255.0f}};
    uint32_t in_cube = 0;
    for (uint32_t i = 0; i < g_seen.paint_count; i++) {
        const rb_body_id id = {(uint32_t)g_seen.paints[i].id, (uint32_t)(g_seen.paints[i].id >> 32)};
        rb_paint p;
        rb_cache_body_paint(c, id, &p);
        assert_memory_equal(&p, &g_seen.paints[i].paint, sizeof p);
        in_cube += !memcmp(&p, &cube, sizeof p);
    }
    assert_true(in_cube >= 3); /* the cube and its pieces */
    rb_anim anim;
    assert_true(rb_cache_to_anim(c, &anim));
    uint32_t anim_inside = 0;
    for (uint32_t s = 0; s < anim.shape_count; s++) anim_inside += anim.shapes[s].inside != NULL;
    assert_int_equal(anim_inside, with_inside);
    for (uint32_t b = 0; b < anim.body_count; b++) {
        const rb_body_id id = {(uint32_t)anim.bodies[b].id, (uint32_t)(anim.bodies[b].id >> 32)};
        rb_paint p;
        rb_cache_body_paint(c, id, &p);
        assert_memory_equal(anim.bodies[b].color, p.color, sizeof p.color);
        assert_memory_equal(anim.bodies[b].inside, p.inside, sizeof p.inside);
    }
    rb_cache_anim_free(&anim);
    rb_cache_close(c);
}

/* A version 2 cache (tests/data/cache-v2.rbc, recorded before caches kept
 * cut meshes and colours: two cubes, one broken into 4 pieces) still
 * reads: its meshes with no cut faces, its bodies in their default colours. */
static void test_version_2_reads(void **state) {
    (void)state;
    rb_cache *c = open_ok(RB_TEST_DATA_DIR "/cache-v2.rbc");
    assert_int_equal(c->version, 2);
    assert_false(c->cut_short);
    assert_int_equal(c->frame_count, 9);
    assert_int_equal(c->color_count, 0);
    assert_int_equal(c->shape_count, 5);
    uint32_t meshes = 0;
    for (uint32_t s = 0; s < c->shape_count; s++) {
        assert_null(c->shapes[s].mesh.inside);
        meshes += c->shapes[s].mesh.vertex_count > 0;
    }
    assert_int_equal(meshes, 1); /* the cube's; its pieces were recorded with none */
    const rb_cached_frame *last = &c->frames[c->frame_count - 1];
    assert_int_equal(last->body_count, 5);
    for (uint32_t b = 0; b < last->body_count; b++) {
        rb_paint p, palette;
        rb_cache_body_paint(c, last->bodies[b].id, &p);
        rb_color_spec_paint(NULL, last->bodies[b].id, &palette);
        assert_memory_equal(&p, &palette, sizeof p);
    }
    rb_anim anim;
    assert_true(rb_cache_to_anim(c, &anim));
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
    size_t cuts[54] = {1, 35, 36, 37};
    for (int i = 4; i < 54; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        cuts[i] = 1 + (size_t)(x % (n - 1));
    }
    uint32_t prev_frames = 0;
    for (int i = 0; i < 54; i++) {
        spit(path, whole, cuts[i]);
        rb_cache *c = rb_cache_open(path, err, sizeof err);
        if (cuts[i] < 36) {
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
    expect_refused(path,
                   "cache format version 7; this build reads versions 2 to 5 (a newer build's cache, or a damaged byte)");
    memcpy(bad, whole, n), bad[8] = 1; /* no scene in its keyframes */
    spit(path, bad, n);
    expect_refused(path,
                   "cache format version 1; this build reads versions 2 to 5 (an older build's cache, or a damaged byte)");
    memcpy(bad, whole, n), bad[36 + 20 + 5] ^= 0x10; /* a byte in the first chunk's data */
    spit(build_path(path, sizeof path, "crc.rbc"), bad, n);
    expect_refused(path, "damaged chunk at byte 36");
    /* every byte after the header is under a CRC: a bit flipped anywhere,
     * a chunk's sizes included, is damage (not a cut, not other numbers) */
    build_path(path, sizeof path, "flipped.rbc");
    uint64_t x = 12345;
    for (int i = 0; i < 40; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const size_t at = 36 + (size_t)(x % (n - 36));
        memcpy(bad, whole, n), bad[at] ^= (uint8_t)(1u << (x >> 60 & 7));
        spit(path, bad, n);
        expect_refused(path, "damaged chunk");
    }
    free(bad);
    free(whole);
}

/* ---- caches made by hand: one chunk of the records given ---- */

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static void le32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* Records as bytes, little-endian (docs/cache-format.md). */
typedef struct bytes {
    uint8_t p[1024];
    size_t n;
} bytes;

static void b_u8(bytes *b, uint8_t v) { b->p[b->n++] = v; }
static void b_u32(bytes *b, uint32_t v) { le32(b->p + b->n, v), b->n += 4; }
static void b_f32(bytes *b, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    b_u32(b, v);
}

/* A cache at path: a header (the run's own, version 5) and one chunk of the records. */
static void craft(const char *path, const bytes *records) {
    size_t n;
    uint8_t *whole = slurp(g_cache, &n);
    const size_t bound = ZSTD_compressBound(records->n);
    uint8_t *out = malloc(36 + 20 + bound);
    memcpy(out, whole, 36); /* version 5: 36 bytes */
    free(whole);
    const size_t packed = ZSTD_compress(out + 56, bound, records->p, records->n, 3);
    assert_false(ZSTD_isError(packed));
    uint8_t *h = out + 36;
    memcpy(h, "RBCK", 4);
    le32(h + 4, (uint32_t)packed);
    le32(h + 8, (uint32_t)records->n);
    le32(h + 12, crc32_of(out + 56, packed));
    le32(h + 16, crc32_of(h, 16));
    spit(path, out, 56 + packed);
    free(out);
}

/* The cache at path made a version 3 one: its header the 32 bytes of
 * versions 2 to 4 (no CRC of its own), the chunks as they were. */
static void as_version_3(const char *path) {
    size_t n;
    uint8_t *p = slurp(path, &n);
    le32(p + 8, 3), le32(p + 12, 32);
    memmove(p + 32, p + 36, n - 36);
    spit(path, p, n - 4);
    free(p);
}

/* A shape record: world shape 0, one particle, a mesh of one triangle whose
 * vertices are marked `mark`; `vertices` claimed. */
static void shape_record(bytes *b, uint32_t vertices, uint8_t mark) {
    b_u8(b, 'S');
    b_u32(b, 0);
    memset(b->p + b->n, 0, 64), memcpy(b->p + b->n, "cube", 4), b->n += 64;
    b_f32(b, 0.2f), b_f32(b, 1.0f);
    b_u32(b, 1), b_f32(b, 0), b_f32(b, 0), b_f32(b, 0);
    b_u32(b, vertices), b_u32(b, 3);
    for (int v = 0; v < 3; v++) b_f32(b, v == 0), b_f32(b, v == 1), b_f32(b, 0);
    for (int v = 0; v < 3; v++) b_f32(b, 0), b_f32(b, 0), b_f32(b, 1);
    for (uint32_t i = 0; i < 3; i++) b_u32(b, i);
    for (int v = 0; v < 3; v++) b_u8(b, mark);
}

/* A colours record of one body (slot 1, generation g), its colour's red channel r. */
static void colors_record(bytes *b, uint32_t count, uint32_t g, float r) {
    b_u8(b, 'C');
    b_u32(b, count);
    b_u32(b, 1), b_u32(b, g);
    b_f32(b, r), b_f32(b, 0.5f), b_f32(b, 0.5f);
    b_f32(b, 0.5f), b_f32(b, 0.5f), b_f32(b, 0.5f);
}

/* What version 3 added, damaged: refused with the reason, and a count the
 * bytes cannot hold is refused before anything is allocated for it. */
static void test_bad_colours_and_marks(void **state) {
    (void)state;
    char path[512];
    build_path(path, sizeof path, "crafted.rbc");
    bytes b = {.n = 0};
    shape_record(&b, 3, 1); /* sound: it reads, its cut faces marked */
    colors_record(&b, 1, 1, 0.25f);
    b_u8(&b, 'E'), b_u32(&b, 0);
    craft(path, &b);
    rb_cache *c = open_ok(path);
    assert_int_equal(c->shape_count, 1);
    assert_non_null(c->shapes[0].mesh.inside);
    assert_int_equal(c->shapes[0].mesh.inside[2], 1);
    rb_paint p;
    rb_cache_body_paint(c, (rb_body_id){1, 1}, &p);
    assert_true(p.color[0] == 0.25f && p.inside[2] == 0.5f);
    rb_cache_close(c);

    b.n = 0, shape_record(&b, 3, 2);
    craft(path, &b);
    expect_refused(path, "a shape with a cut-face mark other than 0 or 1");
    b.n = 0, shape_record(&b, 0x40000000u, 0); /* more vertices than bytes */
    craft(path, &b);
    expect_refused(path, "a shape with a bad mesh size");
    b.n = 0, colors_record(&b, 0x7FFFFFFFu, 1, 0.25f); /* 64 GiB of colours claimed in 33 bytes */
    craft(path, &b);
    expect_refused(path, "a colours record with a bad count");
    b.n = 0, colors_record(&b, 0, 1, 0.25f);
    craft(path, &b);
    expect_refused(path, "a colours record with a bad count");
    b.n = 0, colors_record(&b, 1, 1, 1.5f);
    craft(path, &b);
    expect_refused(path, "a body's colours out of range");
    b.n = 0, colors_record(&b, 1, 1, NAN);
    craft(path, &b);
    expect_refused(path, "a body's colours out of range");
    b.n = 0, colors_record(&b, 1, 0, 0.25f); /* generation 0 is no body's */
    craft(path, &b);
    expect_refused(path, "a body's colours out of range");
    b.n = 0, colors_record(&b, 1, 1, 0.25f), colors_record(&b, 1, 1, 0.75f);
    craft(path, &b);
    expect_refused(path, "a body's colours given twice");
}

/* An events record (version 4, docs/cache-format.md) claiming `count`
 * events and holding one: of kind, at time t, of body (1, g), with P pieces. */
static void events_record(bytes *b, uint32_t count, uint8_t kind, double t, uint32_t g, uint32_t pieces) {
    b_u8(b, 'N');
    b_u32(b, count);
    b_u8(b, kind);
    uint64_t bits;
    memcpy(&bits, &t, 8);
    b_u32(b, (uint32_t)bits), b_u32(b, (uint32_t)(bits >> 32));
    b_u32(b, 1), b_u32(b, g), b_u32(b, 0), b_u32(b, 0); /* the body; no other */
    b_u32(b, 0xFFFFFFFFu);                               /* plane -1 */
    b_f32(b, 1.0f), b_f32(b, 2.0f), b_f32(b, 3.0f);
    b_f32(b, 5.0f), b_f32(b, 0.5f); /* impulse, speed */
    b_u8(b, 0);
    b_u32(b, 0xFFFFFFFFu); /* emitter -1 */
    b_u32(b, pieces);
    for (uint32_t k = 0; k < pieces && k < 16; k++) b_u32(b, 2 + k), b_u32(b, 1); /* a count past 16: claimed only */
}

/* The events record: a sound one reads back; a count the bytes cannot
 * hold is refused before anything is allocated, and so are a kind past
 * the list, a time that is not a number, a body of generation 0, pieces on
 * an impact and events out of time order. */
static void test_bad_events(void **state) {
    (void)state;
    char path[512];
    build_path(path, sizeof path, "crafted-events.rbc");
    bytes b = {.n = 0};
    events_record(&b, 1, 1, 0.5, 1, 2); /* a break into two pieces */
    events_record(&b, 1, 0, 0.75, 1, 0);
    b_u8(&b, 'E'), b_u32(&b, 0);
    craft(path, &b);
    rb_cache *c = open_ok(path);
    assert_int_equal(c->event_count, 2);
    assert_int_equal(c->events[0].kind, RB_EVENT_BREAK);
    assert_int_equal(c->events[0].piece_count, 2);
    assert_int_equal(c->event_pieces[c->events[0].piece_first + 1].slot, 3);
    assert_true(c->events[1].time == 0.75 && c->events[1].plane == -1 && c->events[1].position[2] == 3.0f);
    rb_cache_close(c);

    b.n = 0, events_record(&b, 0x7FFFFFFFu, 0, 0.5, 1, 0); /* 120 GiB of events claimed in 63 bytes */
    craft(path, &b);
    expect_refused(path, "an events record of a bad count");
    b.n = 0, events_record(&b, 1, 9, 0.5, 1, 0);
    craft(path, &b);
    expect_refused(path, "an event with a bad kind, cause, time, body or value");
    b.n = 0, events_record(&b, 1, 0, NAN, 1, 0);
    craft(path, &b);
    expect_refused(path, "an event with a bad kind, cause, time, body or value");
    b.n = 0, events_record(&b, 1, 0, 0.5, 0, 0);
    craft(path, &b);
    expect_refused(path, "an event with a bad kind, cause, time, body or value");
    b.n = 0, events_record(&b, 1, 0, 0.5, 1, 1);
    craft(path, &b);
    expect_refused(path, "an event with a bad kind, cause, time, body or value");
    b.n = 0, events_record(&b, 1, 1, 0.5, 1, 0x10000000u); /* pieces past the record */
    craft(path, &b);
    expect_refused(path, "an event with a bad piece count");
    b.n = 0, events_record(&b, 1, 0, 0.75, 1, 0), events_record(&b, 1, 0, 0.5, 1, 0);
    craft(path, &b);
    expect_refused(path, "events out of time order");
}

/* A camera record (version 4) for frame `frame`, its field of view yfov. */
static void camera_record(bytes *b, uint32_t frame, uint8_t set, float yfov) {
    b_u8(b, 'V');
    b_u32(b, frame), b_u8(b, set);
    b_f32(b, 1), b_f32(b, 2), b_f32(b, 3);
    b_f32(b, 0), b_f32(b, 0), b_f32(b, 0), b_f32(b, 1);
    b_f32(b, yfov), b_f32(b, 1.5f), b_f32(b, 0.05f), b_f32(b, 100);
}

/* A parent record (version 4): world shape s broke from body (slot 7, generation g). */
static void parent_record(bytes *b, uint32_t s, uint32_t g) {
    b_u8(b, 'P');
    b_u32(b, s), b_u32(b, 7), b_u32(b, g);
}

/* What version 4 added: a frame's camera and a piece's parent, read back,
 * and damaged ones refused with the reason. */
static void test_cameras_and_parents(void **state) {
    (void)state;
    char path[512];
    build_path(path, sizeof path, "crafted4.rbc");
    bytes b = {.n = 0};
    shape_record(&b, 3, 0);
    parent_record(&b, 0, 3);
    camera_record(&b, 0, 1, 1.0f);
    b_u8(&b, 'E'), b_u32(&b, 0);
    craft(path, &b);
    rb_cache *c = open_ok(path);
    rb_body_id parent;
    assert_true(rb_cache_shape_parent(c, 0, &parent));
    assert_true(parent.slot == 7 && parent.generation == 3);
    assert_false(rb_cache_shape_parent(c, 1, &parent));
    assert_int_equal(c->camera_count, 1);
    rb_cache_camera cam;
    assert_true(rb_cache_camera_at(c, 0, &cam));
    assert_true(cam.position[2] == 3.0f && cam.yfov == 1.0f && cam.aspect == 1.5f);
    rb_cache_close(c);

    b.n = 0, camera_record(&b, 0, 1, 4.0f); /* wider than half a turn */
    craft(path, &b);
    expect_refused(path, "a camera with a bad lens");
    b.n = 0, camera_record(&b, 0, 1, NAN);
    craft(path, &b);
    expect_refused(path, "a camera with a bad lens");
    b.n = 0, camera_record(&b, 3, 1, 1.0f); /* not the frame that follows */
    craft(path, &b);
    expect_refused(path, "a camera out of order");
    b.n = 0, camera_record(&b, 0, 1, 1.0f), camera_record(&b, 0, 0, 0.0f);
    craft(path, &b);
    expect_refused(path, "a camera out of order");
    b.n = 0, parent_record(&b, 0, 3); /* before its shape */
    craft(path, &b);
    expect_refused(path, "a parent for a shape never given");
    b.n = 0, shape_record(&b, 3, 0), parent_record(&b, 0, 0);
    craft(path, &b);
    expect_refused(path, "a parent with generation 0");
    b.n = 0, shape_record(&b, 3, 0), parent_record(&b, 0, 3), parent_record(&b, 0, 4);
    craft(path, &b);
    expect_refused(path, "a shape's parent given twice");

    /* a version 3 cache still reads (no camera, no parents), and has no such records */
    b.n = 0, shape_record(&b, 3, 1), colors_record(&b, 1, 1, 0.25f);
    b_u8(&b, 'E'), b_u32(&b, 0);
    craft(path, &b);
    as_version_3(path);
    c = open_ok(path);
    assert_int_equal(c->version, 3);
    assert_int_equal(c->camera_count, 0);
    assert_false(rb_cache_shape_parent(c, 0, &parent));
    assert_non_null(c->shapes[0].mesh.inside);
    rb_cache_close(c);
    b.n = 0, camera_record(&b, 0, 1, 1.0f);
    craft(path, &b);
    as_version_3(path);
    expect_refused(path, "a record of unknown type");
}

/* A frame record: body (slot 1, generation 1) of world shape 0 at x, its
 * orientation a turn of angle about y, negated when flip. */
static void frame_record(bytes *b, uint32_t index, double time, float x, double angle, bool flip) {
    uint64_t t;
    memcpy(&t, &time, 8);
    b_u8(b, 'F');
    b_u32(b, index), b_u32(b, (uint32_t)t), b_u32(b, (uint32_t)(t >> 32));
    b_u32(b, 1);
    b_u32(b, 1), b_u32(b, 1), b_u32(b, 0);
    b_f32(b, x), b_f32(b, 0), b_f32(b, 0);
    const float sign = flip ? -1.0f : 1.0f;
    b_f32(b, 0), b_f32(b, sign * (float)sin(0.5 * angle)), b_f32(b, 0), b_f32(b, sign * (float)cos(0.5 * angle));
}

/* The CSV's velocities from three frames whose orientations alternate
 * between q and -q (the same turns): the turn the short way, 2 rad/s about
 * y, not the long way round. */
static void test_csv_short_way(void **state) {
    (void)state;
    char path[512], out[512], line[512];
    build_path(path, sizeof path, "flips.rbc");
    bytes b = {.n = 0};
    shape_record(&b, 3, 0);
    for (uint32_t f = 0; f < 3; f++) frame_record(&b, f, f * 0.1, 0.5f * f, 0.2 * f, f == 1);
    b_u8(&b, 'E'), b_u32(&b, 3);
    craft(path, &b);
    rb_cache *c = open_ok(path);
    char err[1024];
    assert_true(rb_cache_write_csv(c, build_path(out, sizeof out, "flips.csv"), err, sizeof err));
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        /* the last six fields: vx, vy, vz, wx, wy, wz */
        const char *p = line + strlen(line);
        for (int commas = 0; p > line && commas < 6; p--) commas += p[-1] == ',';
        double v[6];
        assert_int_equal(sscanf(p + 1, "%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), 6);
        assert_float_equal(v[0], 5.0, 1e-4);
        assert_float_equal(v[4], 2.0, 1e-3);
        assert_float_equal(v[3], 0.0, 1e-6);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 3);
    rb_cache_close(c);
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
    assert_string_equal(line, RB_CACHE_CSV_HEADER "\n");
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
        cmocka_unit_test(test_pieces_cut_and_coloured),
        cmocka_unit_test(test_version_2_reads),
        cmocka_unit_test(test_cameras_and_parents),
        cmocka_unit_test(test_csv_short_way),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_bad_caches),
        cmocka_unit_test(test_bad_colours_and_marks),
        cmocka_unit_test(test_bad_events),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
