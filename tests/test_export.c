/* test_export.c - `rubble export` for a DCC (docs/gltf-export.md): a run
 * recorded with a moving camera (as the sandbox records its view) and
 * exported at --fps 24: every key on a frame of 1/24 s, the frame range in
 * the scene's extras, the Khronos validator passes it, assimp reads its
 * camera and the camera's keys are the recorded path resampled; resampling
 * at the cache's own rate gives the recorded poses back, at twice it the
 * midpoints; the CSV's columns: a piece's shape name and the body it broke
 * from, and velocities by finite differences against the velocities the
 * keyframes hold. Files are written into the build folder (RB_TEST_OUT). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <cjson/cJSON.h>

#include "app/run.h"
#include "record/cache.h"
#include "record/resample.h"

#define RATE 60.0

static void out_path(char *path, size_t size, const char *name) {
    mkdir(RB_TEST_OUT, 0755);
    snprintf(path, size, "%s/%s", RB_TEST_OUT, name);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- recording ---- */

/* Two cubes of one colour that break on landing, a third that does not. */
static const char *const breaking_text =
    "{\"rubble_scene\": 1, \"bodies\": ["
    " {\"shape\": \"cube\", \"position\": [0, 0.61, 0], \"color\": \"#cc3333\", \"inside_color\": \"#e0c040\","
    "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6, \"seed\": 4, \"strength\": 1}},"
    " {\"shape\": \"cube\", \"position\": [4, 0.61, 0], \"color\": \"#cc3333\","
    "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6, \"seed\": 5, \"strength\": 1}},"
    " {\"shape\": \"cube2\", \"position\": [8, 1, 0], \"color\": [0.2, 0.3, 0.9]}]}";

/* A cube thrown high, spinning, with nothing to hit in 1.2 s. */
static const char *const thrown_text =
    "{\"rubble_scene\": 1, \"bodies\": ["
    " {\"shape\": \"cube\", \"position\": [0, 6, 0], \"velocity\": [1, 2, -0.5], \"angular_velocity\": [0.5, 3, 1]}]}";

/* The camera at frame f of a recording: it slides along x and turns. */
static void camera_at_frame(uint32_t f, rb_cache_camera *out) {
    const float eye[3] = {0.1f * f, 3.0f, 12.0f};
    rb_cache_camera_from_view(out, eye, 0.01f * f, -0.2f, 1.0f, 1.5f, 0.05f, 500.0f);
}

typedef struct recorder {
    rb_cache_writer *w;
    uint32_t frames;
    bool camera;
} recorder;

/* A frame of the run, seen through the moving camera as the sandbox sets its view. */
static bool record_frame(void *user, double time) {
    recorder *r = user;
    if (r->camera) {
        rb_cache_camera cam;
        camera_at_frame(r->frames, &cam);
        rb_cache_set_camera(r->w, &cam);
    }
    r->frames++;
    return rb_cache_frame(r->w, time);
}

/* text run `steps` steps on the reference backend, recorded at RATE into
 * name (with the moving camera if camera), read back. */
static rb_cache *record(const char *text, const char *name, long steps, bool camera) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_registry_scan_dir(reg, RB_TEST_PLUGIN_DIR);
    char err[1024], cache[512];
    rb_scene *scene = rb_scene_parse(text, name, reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_run *run = rb_run_create(reg, scene, &base, NULL, err, sizeof err); /* it takes the scene */
    if (!run) fail_msg("%s", err);
    out_path(cache, sizeof cache, name);
    recorder r = {.camera = camera};
    r.w = rb_cache_begin_stage(cache, rb_run_stage(run), RATE, err, sizeof err);
    if (!r.w) fail_msg("%s", err);
    rb_run_on_frames(run, RATE, record_frame, &r);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, steps, "export", false, &stats));
    assert_true(rb_cache_end(r.w, err, sizeof err));
    rb_run_destroy(run);
    rb_registry_destroy(reg);
    rb_cache *c = rb_cache_open(cache, err, sizeof err);
    if (!c) fail_msg("%s", err);
    return c;
}

/* ---- reading a .glb back ---- */

typedef struct glb {
    uint8_t *data;
    cJSON *json;
    const uint8_t *bin;
} glb;

static glb read_glb(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    glb g = {.data = malloc((size_t)n + 1)};
    assert_int_equal(fread(g.data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    uint32_t json_len;
    memcpy(&json_len, g.data + 12, 4);
    g.json = cJSON_ParseWithLength((const char *)g.data + 20, json_len);
    assert_non_null(g.json);
    g.bin = g.data + 20 + json_len + 8;
    return g;
}

static void free_glb(glb *g) {
    cJSON_Delete(g->json);
    free(g->data);
}

/* Accessor a's floats, and its count. */
static const float *floats_of(const glb *g, int a, int *count) {
    const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "accessors"), a);
    const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "bufferViews"),
                                           cJSON_GetObjectItem(acc, "bufferView")->valueint);
    *count = cJSON_GetObjectItem(acc, "count")->valueint;
    return (const float *)(g->bin + (size_t)cJSON_GetObjectItem(view, "byteOffset")->valuedouble);
}

/* The Khronos validator on path: no error. */
static void validate(const char *path) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' 2>&1", RB_NODE, RB_VALIDATE_JS, RB_VALIDATOR_MODULES, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[1024];
    bool counted = false;
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        if (strstr(line, ": errors 0 ")) counted = true;
    }
    const int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) fail_msg("cannot run node (%s)", RB_NODE);
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(counted);
}

/* ---- the tests ---- */

static rb_cache *g_breaking;

static int setup(void **state) {
    (void)state;
    g_breaking = record(breaking_text, "breaking-cam.rbc", 320, true);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rb_cache_close(g_breaking);
    return 0;
}

/* A key time t (s) is on a frame of fps: t * fps within 1e-4 of a whole
 * number (float rounding of k / fps is about 1e-7 of it at these times). */
static bool on_frame(double t, double fps) { return fabs(t * fps - round(t * fps)) < 1e-4; }

/* --fps 24: every key on a frame of 1/24 s, the range in the scene's
 * extras, valid, and the camera there: a perspective camera of the
 * recorded lens whose keys are the recorded path at those times. */
static void test_fps_24(void **state) {
    (void)state;
    const rb_cache *c = g_breaking;
    char path[512];
    out_path(path, sizeof path, "breaking-24.glb");
    remove(path);
    char *argv[] = {"export", c->path, "--gltf", path, "--fps", "24"};
    assert_int_equal(rb_export_main(6, argv), 0);
    validate(path);

    glb g = read_glb(path);
    const int frame_end = (int)floor((c->frame_count - 1) / RATE * 24.0 + 1e-9);
    const cJSON *extras = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "scenes"), 0), "extras");
    assert_non_null(extras);
    assert_int_equal(cJSON_GetObjectItem(extras, "fps")->valuedouble, 24);
    assert_int_equal(cJSON_GetObjectItem(extras, "frame_start")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(extras, "frame_end")->valueint, frame_end);
    const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "animations"), 0);
    const cJSON *samplers = cJSON_GetObjectItem(anim, "samplers");
    int keys = 0, off = 0;
    double last = 0;
    for (int s = 0; s < cJSON_GetArraySize(samplers); s++) {
        int n;
        const float *t = floats_of(&g, cJSON_GetObjectItem(cJSON_GetArrayItem(samplers, s), "input")->valueint, &n);
        for (int k = 0; k < n; k++, keys++) {
            off += !on_frame(t[k], 24.0);
            if (t[k] > last) last = t[k];
        }
    }
    printf("  %d keys at 24 fps, %d off a frame; the last at %g s, frame_end %d\n", keys, off, last, frame_end);
    assert_true(keys > 100);
    assert_int_equal(off, 0);
    assert_true(last * 24.0 < frame_end + 1e-4);

    /* the camera: its node keyed along the recorded path, resampled */
    const cJSON *cams = cJSON_GetObjectItem(g.json, "cameras");
    assert_int_equal(cJSON_GetArraySize(cams), 1);
    const cJSON *lens = cJSON_GetObjectItem(cJSON_GetArrayItem(cams, 0), "perspective");
    assert_float_equal(cJSON_GetObjectItem(lens, "yfov")->valuedouble, 1.0, 1e-6);
    assert_float_equal(cJSON_GetObjectItem(lens, "aspectRatio")->valuedouble, 1.5, 1e-6);
    const cJSON *nodes = cJSON_GetObjectItem(g.json, "nodes");
    int cam_node = -1;
    for (int n = 0; n < cJSON_GetArraySize(nodes); n++)
        if (cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, n), "camera")) cam_node = n;
    assert_true(cam_node >= 0);
    int checked = 0;
    const cJSON *channels = cJSON_GetObjectItem(anim, "channels");
    for (int ch = 0; ch < cJSON_GetArraySize(channels); ch++) {
        const cJSON *channel = cJSON_GetArrayItem(channels, ch), *target = cJSON_GetObjectItem(channel, "target");
        if (cJSON_GetObjectItem(target, "node")->valueint != cam_node) continue;
        const cJSON *sampler = cJSON_GetArrayItem(samplers, cJSON_GetObjectItem(channel, "sampler")->valueint);
        int n, m;
        const float *t = floats_of(&g, cJSON_GetObjectItem(sampler, "input")->valueint, &n);
        const float *v = floats_of(&g, cJSON_GetObjectItem(sampler, "output")->valueint, &m);
        assert_int_equal(n, frame_end + 1);
        const bool turn = !strcmp(cJSON_GetObjectItem(target, "path")->valuestring, "rotation");
        for (int k = 0; k < n; k++, checked++) {
            /* the camera is linear in the recorded frame: 2.5 of them a key */
            const double f = t[k] * RATE;
            rb_cache_camera want;
            const float eye[3] = {(float)(0.1 * f), 3.0f, 12.0f};
            rb_cache_camera_from_view(&want, eye, (float)(0.01 * f), -0.2f, 1.0f, 1.5f, 0.05f, 500.0f);
            const float *got = v + (turn ? 4 : 3) * k, *w = turn ? want.orientation : want.position;
            const double sign = turn && got[3] * w[3] < 0 ? -1.0 : 1.0;
            for (int i = 0; i < (turn ? 4 : 3); i++) assert_float_equal(got[i], sign * w[i], 1e-5);
        }
    }
    assert_int_equal(checked, 2 * (frame_end + 1));
    free_glb(&g);

    /* assimp reads the camera */
    const struct aiScene *scene = aiImportFile(path, 0);
    if (!scene) fail_msg("assimp cannot read %s: %s", path, aiGetErrorString());
    printf("  assimp: %u cameras, the first '%s'\n", scene->mNumCameras,
           scene->mNumCameras ? scene->mCameras[0]->mName.data : "");
    assert_int_equal(scene->mNumCameras, 1);
    assert_string_equal(scene->mCameras[0]->mName.data, "camera");
    assert_float_equal(scene->mCameras[0]->mClipPlaneNear, 0.05, 1e-6);
    aiReleaseImport(scene);
}

/* Rates export refuses, and a file it was not asked to write stays away. */
static void test_bad_fps(void **state) {
    (void)state;
    char path[512];
    out_path(path, sizeof path, "bad-fps.glb");
    remove(path);
    const char *bad[] = {"0", "-24", "abc", "inf", "nan", "24x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *argv[] = {"export", g_breaking->path, "--gltf", path, "--fps", (char *)bad[i]};
        assert_int_equal(rb_export_main(6, argv), 2);
        assert_false(exists(path));
    }
    char *argv[] = {"export", g_breaking->path, "--gltf", path, "--fps"};
    assert_int_equal(rb_export_main(5, argv), 2);
    assert_false(exists(path));
}

/* A cache with no events (recorded as the sandbox's window records: no
 * event record): --events writes the empty file JSON lines make of none,
 * and says why it is empty. */
static void test_events_none_said(void **state) {
    (void)state;
    assert_int_equal(g_breaking->event_count, 0);
    char path[512], said[512], text[1024] = "";
    out_path(path, sizeof path, "no-events.jsonl");
    out_path(said, sizeof said, "no-events-said.txt");
    remove(path);
    fflush(stderr);
    const int saved = dup(2), fd = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2), close(fd);
    char *argv[] = {"export", g_breaking->path, "--events", path};
    const int status = rb_export_main(4, argv);
    fflush(stderr);
    dup2(saved, 2), close(saved);
    FILE *f = fopen(said, "r");
    assert_non_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    fprintf(stderr, "export said: %s", text);
    assert_int_equal(status, 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_non_null(strstr(text, "holds no events"));
    remove(path), remove(said);
}

/* The same turn: q or -q. */
static void same_turn(const float *a, const float *b, double tol) {
    const double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0;
    for (int i = 0; i < 4; i++) assert_float_equal(a[i], sign * b[i], tol);
}

/* Resampled at the cache's own rate: the recorded poses, each body's life
 * the same frames. At twice it: the recorded poses on even frames, the
 * midpoints (linear, slerp) between; each body shown from the first frame
 * at or after its first, hidden from the first at or after the frame after
 * its last. */
static void test_resample(void **state) {
    (void)state;
    rb_anim anim, same, twice;
    assert_true(rb_cache_to_anim(g_breaking, &anim));
    assert_non_null(anim.camera);
    assert_true(rb_anim_resample(&anim, anim.rate, &same));
    assert_int_equal(same.frame_count, anim.frame_count);
    assert_int_equal(same.body_count, anim.body_count);
    for (uint32_t b = 0; b < anim.body_count; b++) {
        const rb_anim_body *a = &anim.bodies[b], *s = &same.bodies[b];
        assert_int_equal(s->first, a->first);
        assert_int_equal(s->count, a->count);
        for (uint32_t f = 0; f < a->count; f++) {
            const float *x = a->track + 7 * f, *y = s->track + 7 * f;
            for (int k = 0; k < 3; k++) assert_true(x[k] == y[k]);
            same_turn(y + 3, x + 3, 1e-6);
        }
    }
    assert_true(rb_anim_resample(&anim, 2 * anim.rate, &twice));
    assert_int_equal(twice.frame_count, 2 * anim.frame_count - 1);
    uint32_t mids = 0;
    for (uint32_t b = 0; b < anim.body_count; b++) {
        const rb_anim_body *a = &anim.bodies[b], *s = &twice.bodies[b];
        assert_int_equal(s->first, 2 * a->first);
        const uint32_t hidden = 2 * (a->first + a->count);
        assert_int_equal(s->first + s->count, hidden < twice.frame_count ? hidden : twice.frame_count);
        for (uint32_t f = 0; f + 1 < a->count; f++, mids++) {
            const float *p = a->track + 7 * f, *q = p + 7, *even = s->track + 14 * f, *mid = even + 7;
            for (int k = 0; k < 3; k++) assert_float_equal(even[k], p[k], 1e-6);
            for (int k = 0; k < 3; k++) assert_float_equal(mid[k], 0.5 * (p[k] + q[k]), 1e-5);
            /* the slerp midpoint of unit p and q (same side) is (p + q) normalised */
            double lp = 0, lq = 0, dot = 0, h[4], lh = 0;
            for (int k = 0; k < 4; k++) lp += p[3 + k] * p[3 + k], lq += q[3 + k] * q[3 + k];
            for (int k = 0; k < 4; k++) dot += p[3 + k] * q[3 + k];
            for (int k = 0; k < 4; k++)
                h[k] = p[3 + k] / sqrt(lp) + (dot < 0 ? -1 : 1) * q[3 + k] / sqrt(lq), lh += h[k] * h[k];
            const float want[4] = {(float)(h[0] / sqrt(lh)), (float)(h[1] / sqrt(lh)), (float)(h[2] / sqrt(lh)),
                                   (float)(h[3] / sqrt(lh))};
            same_turn(mid + 3, want, 1e-5);
        }
    }
    printf("  %u bodies, %u midpoints checked\n", anim.body_count, mids);
    assert_true(mids > 100);
    /* at 24 from 60: shown at the first frame at or after its first, hidden
     * at the first at or after the frame after its last */
    rb_anim at24;
    assert_true(rb_anim_resample(&anim, 24.0, &at24));
    uint32_t born_late = 0;
    for (uint32_t b = 0, o = 0; b < anim.body_count; b++) {
        const rb_anim_body *a = &anim.bodies[b];
        const double born = a->first / anim.rate, gone = (a->first + a->count) / anim.rate;
        if (ceil(born * 24 - 1e-9) >= ceil(gone * 24 - 1e-9)) continue; /* between two frames: left out */
        const rb_anim_body *s = &at24.bodies[o++];
        assert_true(s->id == a->id);
        assert_true(s->first / 24.0 >= born - 1e-9 && (s->first == 0 || (s->first - 1) / 24.0 < born));
        const uint32_t end = s->first + s->count;
        assert_true(end == at24.frame_count || (end / 24.0 >= gone - 1e-9 && (end - 1) / 24.0 < gone));
        born_late += a->first > 0;
    }
    assert_true(born_late >= 12); /* the pieces */
    rb_anim_resample_free(&at24);
    rb_anim_resample_free(&twice);
    rb_anim_resample_free(&same);
    rb_cache_anim_free(&anim);
}

/* One CSV row's fields (at most 24), split at commas (the test's names have none). */
static int split(char *line, char **field) {
    int n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; n < 24; p++) {
        field[n++] = p;
        p = strchr(p, ',');
        if (!p) break;
        *p = '\0';
    }
    return n;
}

/* The breaking run's CSV: each piece's shape is named `piece N` and its
 * parent is the cube it broke from (a body of the earlier frames, gone at
 * the piece's first frame, near where the piece is); a whole body has its
 * registry shape's name and no parent. */
static void test_csv_parents(void **state) {
    (void)state;
    const rb_cache *c = g_breaking;
    char path[512], line[1024], *field[24];
    out_path(path, sizeof path, "breaking.csv");
    char *argv[] = {"export", c->path, "--csv", path};
    assert_int_equal(rb_export_main(4, argv), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, RB_CACHE_CSV_HEADER "\n");
    uint32_t pieces = 0, whole = 0;
    uint64_t parents[2] = {0, 0};
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(split(line, field), 19);
        const uint32_t frame = (uint32_t)strtoul(field[0], NULL, 10);
        const char *name = field[11], *parent = field[12];
        if (strncmp(name, "piece ", 6) != 0) {
            assert_true(!strcmp(name, "cube") || !strcmp(name, "cube2"));
            assert_string_equal(parent, "");
            whole++;
            continue;
        }
        pieces++;
        assert_string_not_equal(parent, "");
        const uint64_t p = strtoull(parent, NULL, 10);
        bool before = false, now = false;
        for (uint32_t b = 0; b < c->frames[frame - 1].body_count; b++) {
            const rb_cached_body *body = &c->frames[frame - 1].bodies[b];
            if (((uint64_t)body->id.generation << 32 | body->id.slot) != p) continue;
            before = true;
            const double dx = body->position[0] - strtod(field[4], NULL),
                         dz = body->position[2] - strtod(field[6], NULL);
            assert_true(dx * dx + dz * dz < 1.0); /* within the cube's reach */
        }
        for (uint32_t b = 0; b < c->frames[frame].body_count; b++)
            now = now ||
                  ((uint64_t)c->frames[frame].bodies[b].id.generation << 32 | c->frames[frame].bodies[b].id.slot) == p;
        assert_false(now);
        /* a piece was born when its cube broke: in the frame before, its parent is */
        bool born_here = true;
        const uint64_t id = strtoull(field[2], NULL, 10);
        for (uint32_t b = 0; b < c->frames[frame - 1].body_count; b++)
            born_here = born_here && ((uint64_t)c->frames[frame - 1].bodies[b].id.generation << 32 |
                                      c->frames[frame - 1].bodies[b].id.slot) != id;
        if (born_here) assert_true(before);
        if (p != parents[0] && p != parents[1]) {
            assert_true(parents[1] == 0);
            parents[parents[0] ? 1 : 0] = p;
        }
    }
    fclose(f);
    printf("  %u piece rows, %u whole rows, parents %llu and %llu\n", pieces, whole, (unsigned long long)parents[0],
           (unsigned long long)parents[1]);
    assert_true(pieces > 0 && whole > 0);
    assert_true(parents[0] && parents[1]); /* both cubes broke */
}

/* A cube in free flight: the CSV's finite-difference velocities against the
 * velocities its keyframes recorded (at frame 0, one-sided: off by half a
 * frame of gravity; at 1 s, central). */
static void test_csv_velocity(void **state) {
    (void)state;
    rb_cache *c = record(thrown_text, "thrown.rbc", 750, false); /* 1.2 s */
    char path[512], line[1024], *field[24];
    out_path(path, sizeof path, "thrown.csv");
    char err[1024];
    assert_true(rb_cache_write_csv(c, path, err, sizeof err));
    assert_int_equal(c->key_count, 2);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    uint32_t checked = 0;
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(split(line, field), 19);
        const uint32_t frame = (uint32_t)strtoul(field[0], NULL, 10);
        for (uint32_t k = 0; k < c->key_count; k++) {
            if (c->keys[k].frame != frame) continue;
            const rb_body_state *s = &c->keys[k].states[0];
            const double tol = frame == 0 ? 0.5 * 9.81 * 0.02 + 0.01 : 0.02;
            printf("  frame %u: v %s %s %s (recorded %g %g %g), w %s %s %s (recorded %g %g %g)\n", frame, field[13],
                   field[14], field[15], s->velocity[0], s->velocity[1], s->velocity[2], field[16], field[17],
                   field[18], s->angular_velocity[0], s->angular_velocity[1], s->angular_velocity[2]);
            for (int i = 0; i < 3; i++) {
                assert_float_equal(strtod(field[13 + i], NULL), s->velocity[i], tol);
                assert_float_equal(strtod(field[16 + i], NULL), s->angular_velocity[i], 0.01);
            }
            checked++;
        }
    }
    fclose(f);
    assert_int_equal(checked, 2);
    rb_cache_close(c);
}

/* A headless run of a scene with a camera bookmark (the rubble program, as
 * a user runs it) records that view, fixed, with the sandbox's lens; one
 * with a start camera too records the start; one without a camera records
 * none. */
static void test_headless_bookmark(void **state) {
    (void)state;
    char scene[512], cache[512], cmd[2048];
    out_path(scene, sizeof scene, "bookmark.json");
    out_path(cache, sizeof cache, "bookmark.rbc");
    const char *cameras[] = {
        "",
        ", \"camera\": {\"bookmarks\": [null, {\"position\": [4, 5, 6], \"yaw\": 0.7, \"pitch\": -0.3}]}",
        ", \"camera\": {\"start\": {\"position\": [-1, 3, 9], \"yaw\": 0.2, \"pitch\": -0.1},"
        " \"bookmarks\": [null, {\"position\": [4, 5, 6], \"yaw\": 0.7, \"pitch\": -0.3}]}"};
    for (int with = 2; with >= 0; with--) {
        FILE *f = fopen(scene, "w");
        assert_non_null(f);
        fprintf(f, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 2, 0]}]%s}\n",
                cameras[with]);
        fclose(f);
        remove(cache);
        snprintf(cmd, sizeof cmd,
                 "'%s' --headless --backend reference --scene '%s' --steps 40 --record '%s' >/dev/null", RB_TEST_RUBBLE,
                 scene, cache);
        assert_int_equal(system(cmd), 0);
        char err[1024];
        rb_cache *c = rb_cache_open(cache, err, sizeof err);
        if (!c) fail_msg("%s", err);
        printf("  %s: %u camera records over %u frames\n",
               with == 2 ? "a start and a bookmark" : with ? "a bookmark" : "no camera", c->camera_count,
               c->frame_count);
        assert_int_equal(c->version, RB_CACHE_VERSION);
        rb_cache_camera cam, want;
        if (!with) {
            assert_int_equal(c->camera_count, 0);
            assert_false(rb_cache_camera_at(c, 0, &cam));
            rb_cache_close(c);
            continue;
        }
        assert_int_equal(c->camera_count, 1); /* fixed: written once */
        assert_true(rb_cache_camera_at(c, c->frame_count - 1, &cam));
        if (with == 1)
            rb_cache_camera_from_view(&want, (const float[3]){4, 5, 6}, 0.7f, -0.3f, 60.0f * 3.14159265f / 180.0f,
                                      0.0f, cam.znear, cam.zfar);
        else
            rb_cache_camera_from_view(&want, (const float[3]){-1, 3, 9}, 0.2f, -0.1f, 60.0f * 3.14159265f / 180.0f,
                                      0.0f, cam.znear, cam.zfar);
        assert_memory_equal(cam.position, want.position, sizeof cam.position);
        for (int k = 0; k < 4; k++) assert_float_equal(cam.orientation[k], want.orientation[k], 1e-6);
        assert_float_equal(cam.yfov, want.yfov, 1e-6);
        assert_true(cam.aspect == 0.0f && cam.znear > 0 && cam.zfar > cam.znear);
        rb_cache_close(c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fps_24),       cmocka_unit_test(test_bad_fps),
        cmocka_unit_test(test_events_none_said),
        cmocka_unit_test(test_resample),     cmocka_unit_test(test_csv_parents),
        cmocka_unit_test(test_csv_velocity), cmocka_unit_test(test_headless_bookmark),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
