/* test_events.c - the events file (docs/events.md) of runs through the
 * headless runner (src/app/run.c, rb_run_write_events), on the backend
 * under test: a breaking scene lists every break the debris layer made
 * and every piece it spawned; an emitter's spawns and lifetimes' removals
 * are all there; a dropped cube's impact with the ground comes at the
 * time and with the impulse physics gives; malformed --events options are
 * refused. Files are written in the build folder. */
#include <cjson/cJSON.h>

#include "rb_test.h"

#include "app/options.h"
#include "app/run.h"
#include "record/cache.h"
#include "record/events_file.h"

static rb_registry *g_reg;

/* A breakable cube struck hard (it breaks, and its pieces may break again
 * where they pass their holds), and an emitter whose bodies live 0.25 s. */
static const char *break_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ],\n"
    " \"emitters\": [{\"region\": {\"disc\": {\"centre\": [5, 1.5, 0], \"radius\": 0.5}}, \"rate\": 30,\n"
    "   \"direction\": [0, 1, 0], \"speed\": 3, \"lifetime\": 0.25, \"seed\": 5,\n"
    "   \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5, \"weight\": 1}]}]}\n";

/* One cube, its bottom 1 m over the ground, falling from rest; its
 * contacts last %g s (the default material's, or one lasting two ticks and
 * more, whose hit the events sum over the ticks it spans). */
static const char *drop_format = "{\"rubble_scene\": 1,\n"
                                 " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
                                 " \"materials\": {\"default\": {\"contact_time\": %g}},\n"
                                 " \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1.6, 0]}]}\n";

static bool write_lines(void *file, const rb_event *events, uint32_t count, const rb_body_id *pieces) {
    return rb_events_write_all(file, events, count, pieces);
}

/* Runs a scene `steps` steps with its events to path; the run, for its counters. */
static rb_run *run_with_events(const char *text, const char *path, long steps, float impulse) {
    char err[1024];
    rb_scene *scene = rb_scene_parse(text, "events.json", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    if (!rb_run_on_events(run, impulse, write_lines, f, err, sizeof err)) fail_msg("%s", err);
    rb_run_warm(run);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, steps, "events", false, &stats));
    assert_int_equal(fclose(f), 0);
    return run;
}

/* The file's lines, each parsed, checked whole and in time order. */
static uint32_t read_events(const char *path, cJSON **out, uint32_t max) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[65536];
    uint32_t n = 0;
    double last = -1.0;
    while (fgets(line, sizeof line, f)) {
        const size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') fail_msg("%s: line %u is not whole", path, n + 1);
        cJSON *j = cJSON_Parse(line);
        if (!j) fail_msg("%s: line %u is not JSON: %s", path, n + 1, line);
        const double t = cJSON_GetObjectItem(j, "t")->valuedouble;
        if (t < last) fail_msg("%s: line %u at t = %g comes after t = %g", path, n + 1, t, last);
        last = t;
        assert_true(n < max);
        out[n++] = j;
    }
    fclose(f);
    return n;
}

static const char *kind_of(const cJSON *j) { return cJSON_GetObjectItem(j, "event")->valuestring; }
static const char *cause_of(const cJSON *j) {
    const cJSON *c = cJSON_GetObjectItem(j, "cause");
    return c ? c->valuestring : "";
}

static void test_breaks_spawns_removals(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/events-break-%s.jsonl", RB_TEST_BUILD_DIR, rb_test_backend_name());
    rb_run *run = run_with_events(break_text, path, 625, 1.0f); /* 1 s */
    const rb_debris *d = rb_run_debris(run);
    assert_non_null(d);
    static cJSON *ev[20000];
    const uint32_t n = read_events(path, ev, 20000);
    uint64_t breaks = 0, pieces = 0, piece_spawns = 0, emitted = 0, spawns = 0, lifetimes = 0, removes = 0;
    for (uint32_t k = 0; k < n; k++) {
        const char *kind = kind_of(ev[k]);
        if (!strcmp(kind, "break")) {
            breaks++;
            const int count = cJSON_GetArraySize(cJSON_GetObjectItem(ev[k], "pieces"));
            assert_true(count >= 2);
            pieces += (uint64_t)count;
        } else if (!strcmp(kind, "spawn")) {
            spawns++;
            piece_spawns += !strcmp(cause_of(ev[k]), "break");
            emitted += !strcmp(cause_of(ev[k]), "emitter");
        } else if (!strcmp(kind, "remove")) {
            removes++;
            lifetimes += !strcmp(cause_of(ev[k]), "lifetime");
        }
    }
    printf("%u events: %llu breaks (%llu pieces), %llu spawns (%llu emitted), %llu removals\n", n,
           (unsigned long long)breaks, (unsigned long long)pieces, (unsigned long long)spawns,
           (unsigned long long)emitted, (unsigned long long)removes);
    assert_true(rb_debris_breaks(d) >= 1);
    assert_int_equal(breaks, rb_debris_breaks(d));
    assert_int_equal(pieces, rb_debris_pieces_made(d));
    assert_int_equal(piece_spawns, rb_debris_pieces_made(d));
    /* the layer counts an emitter's spawns and chips in spawned; a break's pieces apart */
    assert_true(emitted >= 5);
    assert_int_equal(spawns - piece_spawns, rb_debris_spawned(d));
    assert_int_equal(removes, rb_debris_removed(d));
    assert_true(lifetimes >= 3 && lifetimes == removes);
    for (uint32_t k = 0; k < n; k++) cJSON_Delete(ev[k]);
    /* keeping events changes nothing of the run: the same scene without them ends alike */
    const uint64_t with = rb_run_summarize(run).digest;
    rb_run_destroy(run);
    char err[1024];
    rb_scene *scene = rb_scene_parse(break_text, "events.json", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_run *plain = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
    if (!plain) fail_msg("%s", err);
    rb_run_stats stats;
    assert_true(rb_run_steps(plain, 625, "events", false, &stats));
    assert_true(rb_run_summarize(plain).digest == with);
    rb_run_destroy(plain);
}

/* The drop's first line: the impact with the ground, at the first tick
 * after the touch, of impulse m ((1 + e) v + |g| t_c) (the bounce, and the
 * weight borne through the contact) within 2%, at the speed it fell at. */
static void check_drop(double contact_time) {
    char path[512], text[1024];
    snprintf(path, sizeof path, "%s/events-drop-%s.jsonl", RB_TEST_BUILD_DIR, rb_test_backend_name());
    snprintf(text, sizeof text, drop_format, contact_time);
    const double h = 1.0, g = 9.81, dt = 0.0016, tick = 10 * dt;
    rb_run *run = run_with_events(text, path, 400, 1.0f); /* 0.64 s: the first bounce and more */
    rb_body_state s;
    assert_true(rb_world_get_body(rb_run_world(run), 0, &s));
    const double m = s.mass, e = rb_default_material().restitution, v = sqrt(2.0 * g * h);
    const double t_touch = sqrt(2.0 * h / g), expected = m * ((1.0 + e) * v + g * contact_time);
    static cJSON *ev[1000];
    const uint32_t n = read_events(path, ev, 1000);
    assert_true(n >= 1);
    const cJSON *first = ev[0];
    assert_string_equal(kind_of(first), "impact");
    assert_int_equal(cJSON_GetObjectItem(first, "plane")->valueint, 0);
    const double t = cJSON_GetObjectItem(first, "t")->valuedouble,
                 j = cJSON_GetObjectItem(first, "impulse")->valuedouble,
                 speed = cJSON_GetObjectItem(first, "speed")->valuedouble,
                 y = cJSON_GetArrayItem(cJSON_GetObjectItem(first, "position"), 1)->valuedouble;
    printf("t_c %.3f s: impact at t = %.4f s (touch %.4f s), impulse %.1f N s against m ((1 + e) v + g t_c) = %.1f "
           "N s, speed %.3f m/s against %.3f\n",
           contact_time, t, t_touch, j, expected, speed, v);
    assert_true(t >= t_touch && t <= t_touch + tick);
    assert_true(fabs(j - expected) < 0.02 * expected);
    /* the speed it met the ground at, read at the tick before: within a tick's fall */
    assert_true(fabs(speed - v) < g * tick + 1e-3);
    assert_true(fabs(y) < 1e-4); /* on the ground plane */
    /* the bounce is one impact: the next comes after the cube has flown up and down again */
    const double flight = 2.0 * e * v / g;
    for (uint32_t k = 1; k < n; k++)
        if (!strcmp(kind_of(ev[k]), "impact"))
            assert_true(cJSON_GetObjectItem(ev[k], "t")->valuedouble > t + 0.5 * flight);
    for (uint32_t k = 0; k < n; k++) cJSON_Delete(ev[k]);
    rb_run_destroy(run);

    /* a threshold over the impact's impulse lists none */
    rb_run *quiet = run_with_events(text, path, 400, (float)(2.0 * expected));
    assert_int_equal(read_events(path, ev, 1000), 0);
    rb_run_destroy(quiet);
}

static void test_drop_impact(void **state) {
    (void)state;
    check_drop(0.008);
    check_drop(0.04);
}

/* Where the recorded run's events go: the file and the cache, as rubble --headless --record --events. */
typedef struct both {
    FILE *file;
    rb_cache_writer *cache;
} both;

static bool write_both(void *user, const rb_event *events, uint32_t count, const rb_body_id *pieces) {
    both *b = user;
    return rb_events_write_all(b->file, events, count, pieces) && rb_cache_events(b->cache, events, count, pieces);
}

static bool on_frame(void *writer, double time) { return rb_cache_frame(writer, time); }

/* Records the breaking scene with its events in the cache; the cache reads
 * them back as the file has them, `rubble export --events`'s writer gives
 * the same lines, and the replay's markers stand at the breaks and the
 * impacts around their times only. A cache recorded without events reads
 * with none. */
static void test_cache_events(void **state) {
    (void)state;
    char err[1024], file[512], cache[512], exported[512];
    snprintf(file, sizeof file, "%s/events-cache-%s.jsonl", RB_TEST_BUILD_DIR, rb_test_backend_name());
    snprintf(cache, sizeof cache, "%s/events-cache-%s.rbc", RB_TEST_BUILD_DIR, rb_test_backend_name());
    snprintf(exported, sizeof exported, "%s/events-exported-%s.jsonl", RB_TEST_BUILD_DIR, rb_test_backend_name());
    for (int with = 1; with >= 0; with--) {
        rb_scene *scene = rb_scene_parse(break_text, "events.json", g_reg, err, sizeof err);
        if (!scene) fail_msg("%s", err);
        rb_world_desc base = rb_default_world_desc();
        base.backend = rb_test_backend();
        rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
        if (!run) fail_msg("%s", err);
        rb_cache_writer *w = rb_cache_begin_stage(cache, rb_run_stage(run), 60.0, err, sizeof err);
        if (!w) fail_msg("%s", err);
        both out = {.file = fopen(file, "w"), .cache = w};
        assert_non_null(out.file);
        if (with && !rb_run_on_events(run, 1.0f, write_both, &out, err, sizeof err)) fail_msg("%s", err);
        rb_run_on_frames(run, 60.0, on_frame, w);
        rb_run_stats stats;
        assert_true(rb_run_steps(run, 400, "events", false, &stats));
        if (!rb_cache_end(w, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(fclose(out.file), 0);
        rb_run_destroy(run);
        rb_cache *c = rb_cache_open(cache, err, sizeof err);
        if (!c) fail_msg("%s", err);
        assert_int_equal(c->version, RB_CACHE_VERSION);
        static cJSON *ev[20000];
        const uint32_t n = read_events(file, ev, 20000);
        assert_int_equal(c->event_count, n);
        if (!with) {
            assert_int_equal(n, 0);
            rb_cache_close(c);
            break;
        }
        assert_true(n > 10);
        /* the export writes the file's lines again, byte for byte */
        if (!rb_cache_write_events(c, exported, err, sizeof err)) fail_msg("%s", err);
        static cJSON *again[20000];
        assert_int_equal(read_events(exported, again, 20000), n);
        for (uint32_t k = 0; k < n; k++) {
            char *a = cJSON_PrintUnformatted(ev[k]), *b = cJSON_PrintUnformatted(again[k]);
            assert_string_equal(a, b);
            free(a), free(b), cJSON_Delete(again[k]);
        }
        /* markers: at a break's time, a cross at its position; long after every event, none */
        uint32_t brk = 0;
        while (brk < c->event_count && c->events[brk].kind != RB_EVENT_BREAK) brk++;
        assert_true(brk < c->event_count);
        static float marks[6 * 3 * 4096];
        const uint32_t m = rb_cache_event_marks(c, c->events[brk].time, marks, 3 * 4096);
        assert_true(m >= 3 && m % 3 == 0);
        bool at_break = false;
        for (uint32_t s = 0; s < m; s++)
            at_break |= fabsf(0.5f * (marks[6 * s] + marks[6 * s + 3]) - c->events[brk].position[0]) < 1e-6f &&
                        fabsf(marks[6 * s + 1] - c->events[brk].position[1]) < 1e-6f;
        assert_true(at_break);
        assert_int_equal(rb_cache_event_marks(c, c->events[c->event_count - 1].time + 0.51, marks, 3 * 4096), 0);
        for (uint32_t k = 0; k < n; k++) cJSON_Delete(ev[k]);
        rb_cache_close(c);
    }
}

/* Parses a command line; the error, or "" if it was taken. */
static const char *parse(const char *line, char *err, int size) {
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "rubble %s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 32; tok = strtok(NULL, " ")) argv[argc++] = tok;
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    err[0] = '\0';
    if (rb_options_parse(&o, RB_PROGRAM_RUBBLE, argc, argv, err, size)) return "";
    return err;
}

static void test_options(void **state) {
    (void)state;
    char err[512];
    assert_string_equal(parse("--headless --events a.jsonl --events-impulse 5", err, sizeof err), "");
    assert_non_null(strstr(parse("--events a.jsonl", err, sizeof err), "--headless"));
    assert_non_null(strstr(parse("--headless --events a.jsonl --record a.jsonl", err, sizeof err), "--record"));
    assert_non_null(strstr(parse("--headless --csv ./x.csv --events x.csv", err, sizeof err), "--csv"));
    assert_non_null(strstr(parse("--headless --events a.jsonl --events-impulse -1", err, sizeof err), "'-1'"));
    assert_non_null(strstr(parse("--headless --events a.jsonl --events-impulse abc", err, sizeof err), "'abc'"));
    assert_non_null(strstr(parse("--headless --events", err, sizeof err), "needs a value"));
    assert_non_null(strstr(parse("--headless --events=a.jsonl", err, sizeof err), "after a space"));
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    return g_reg ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breaks_spawns_removals),
        cmocka_unit_test(test_drop_impact),
        cmocka_unit_test(test_cache_events),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
