/* test_debris_save.c - a scene saved with its debris layer
 * (src/scenes/debris_save.c, debris_state_read.c): N steps, saved, loaded
 * and M more steps give the digest and the debris counts of N + M steps in
 * one run, on the backend RUBBLE_TEST_BACKEND names (the OpenCL run also
 * checks that the reference gives the same); a glued wall whose
 * breakables are saved whole (src/scenes/debris_whole.c) breaks on after
 * the reload as in one run; a damaged `debris_state` (and a damaged whole
 * breakable) is refused naming its key. Files are written in the build
 * folder. */
#include <cjson/cJSON.h>
#include <unistd.h>

#include "app/run.h"
#include "rb_test.h"

/* A fountain of two emitters (one with a lifetime, a cap and a weighted
 * choice of two shapes; one of cubes for ever), rain that runs out of room
 * (crowded spawns), a blast fired before the save and one after it, a wind
 * with time left at the save, a vortex, impact chips, a kill region and
 * sleep removal: every part of the layer's state has something in it. */
static const char *fountain_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [{\"shape\": \"cube\", \"position\": [3, 0.6, 0]}, {\"shape\": \"cube2\", \"position\": [-3, 0.5, 1]}],\n"
    " \"emitters\": [\n"
    "   {\"region\": {\"disc\": {\"centre\": [0, 1.5, 0], \"radius\": 0.5}}, \"rate\": 40, \"max_alive\": 30,\n"
    "    \"shapes\": [{\"shape\": \"cube\", \"weight\": 1}, {\"shape\": \"cube2\", \"scale\": 0.8, \"weight\": 3}],\n"
    "    \"direction\": [0.1, 1, 0], \"speed\": 6, \"speed_spread\": 1.5, \"cone\": 20, \"spin\": 3, \"lifetime\": 1.3,\n"
    "    \"seed\": 12345678901},\n"
    "   {\"region\": {\"box\": {\"centre\": [0, 4, 0], \"half\": [0.3, 0.1, 0.3]}}, \"rate\": 120,\n"
    "    \"shapes\": [{\"shape\": \"cube2\"}], \"speed\": 0.5, \"start\": 0.2, \"duration\": 1.1}\n"
    " ],\n"
    " \"fields\": [\n"
    "   {\"type\": \"radial\", \"centre\": [0, 0, 0], \"radius\": 4, \"strength\": 30, \"start\": 0.6, \"up\": 0.5},\n"
    "   {\"type\": \"radial\", \"centre\": [1, 0, 0], \"radius\": 5, \"strength\": 40, \"start\": 1.25},\n"
    "   {\"type\": \"wind\", \"centre\": [0, 0, 0], \"velocity\": [3, 0, 1], \"drag\": 0.8, \"start\": 0.3, \"duration\": 1.5},\n"
    "   {\"type\": \"vortex\", \"centre\": [0, 0, 0], \"radius\": 3, \"axis\": [0.2, 1, 0], \"strength\": 2}\n"
    " ],\n"
    " \"debris\": {\"max_bodies\": 120, \"remove_asleep\": 0.4,\n"
    "   \"kill_regions\": [{\"min\": [6, -5, -50], \"max\": [50, 50, 50]}],\n"
    "   \"impact\": {\"shape\": \"cube2\", \"scale\": 0.3, \"threshold\": 1.5, \"count\": 2, \"lifetime\": 0.5}}\n"
    "}\n";

static rb_registry *g_reg;

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

static char *build_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/debris-save-%s-%s", RB_TEST_BUILD_DIR, rb_test_backend_name(), name);
    return out;
}

static rb_run *run_of(rb_scene *scene, rb_backend_kind backend) {
    char err[1024];
    rb_world_desc base = rb_default_world_desc();
    base.backend = backend;
    rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    return run;
}

static void step(rb_run *run, long steps) {
    rb_run_stats stats;
    assert_true(rb_run_steps(run, steps, "debris-save", false, &stats));
}

/* What a run ended with: the world's digest and the layer's counts. */
typedef struct outcome {
    uint64_t digest, spawned, removed, crowded, impacts, chips_short, breaks, pieces;
    uint32_t alive, bodies;
} outcome;

static outcome outcome_of(rb_run *run) {
    const rb_debris *d = rb_run_debris(run);
    assert_non_null(d);
    return (outcome){rb_world_digest(rb_run_world(run)),
                     rb_debris_spawned(d),
                     rb_debris_removed(d),
                     rb_debris_crowded(d),
                     rb_debris_impacts(d),
                     rb_debris_chips_short(d),
                     rb_debris_breaks(d),
                     rb_debris_pieces_made(d),
                     rb_debris_alive(d),
                     rb_world_body_count(rb_run_world(run))};
}

static void assert_same(const outcome *a, const outcome *b) {
    print_message("digest %016llx / %016llx, bodies %u / %u, spawned %llu / %llu, removed %llu / %llu, crowded %llu / "
                  "%llu, impacts %llu / %llu\n",
                  (unsigned long long)a->digest, (unsigned long long)b->digest, a->bodies, b->bodies,
                  (unsigned long long)a->spawned, (unsigned long long)b->spawned, (unsigned long long)a->removed,
                  (unsigned long long)b->removed, (unsigned long long)a->crowded, (unsigned long long)b->crowded,
                  (unsigned long long)a->impacts, (unsigned long long)b->impacts);
    assert_true(a->digest == b->digest);
    assert_int_equal(a->bodies, b->bodies);
    assert_int_equal(a->alive, b->alive);
    assert_true(a->spawned == b->spawned && a->removed == b->removed && a->crowded == b->crowded);
    assert_true(a->impacts == b->impacts && a->chips_short == b->chips_short);
    assert_true(a->breaks == b->breaks && a->pieces == b->pieces);
}

/* N + M steps in one run. */
static outcome straight(const char *text, rb_backend_kind backend, long steps) {
    char err[1024];
    rb_scene *scene = rb_scene_parse(text, "fountain", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, backend);
    step(run, steps);
    const outcome o = outcome_of(run);
    rb_run_destroy(run);
    return o;
}

/* n steps, saved to path (and the file loaded and stepped m more). */
static outcome resumed(const char *text, rb_backend_kind backend, long n, long m, const char *path) {
    char err[1024];
    rb_scene *scene = rb_scene_parse(text, "fountain", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, backend);
    step(run, n);
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    assert_non_null(source.debris);
    if (!rb_scene_save_source(path, &source, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    rb_scene *saved = rb_scene_load(path, g_reg, err, sizeof err);
    if (!saved) fail_msg("%s", err);
    run = run_of(saved, backend);
    step(run, m);
    const outcome o = outcome_of(run);
    rb_run_destroy(run);
    return o;
}

/* Saved at 0.8 s (mid-tick: 503 steps; the first blast fired, the wind
 * blowing, the second blast to come, the capped emitter's bodies dying)
 * and run on to 2 s. */
static void test_saved_fountain_goes_on(void **state) {
    (void)state;
    const long n = 503, m = 1250 - 503;
    char path[512];
    build_path(path, sizeof path, "fountain.json");
    const outcome one = straight(fountain_text, rb_test_backend(), n + m);
    const outcome two = resumed(fountain_text, rb_test_backend(), n, m, path);
    /* the effects did something for the save to carry */
    assert_true(one.spawned > 50 && one.removed > 10 && one.crowded > 0);
    assert_same(&one, &two);
    if (rb_test_backend() == RB_BACKEND_OPENCL) {
        const outcome ref = resumed(fountain_text, RB_BACKEND_REFERENCE, n, m, path);
        assert_same(&one, &ref);
    }
    /* and saved again at a tick's step */
    const outcome three = resumed(fountain_text, rb_test_backend(), 600, n + m - 600, path);
    assert_same(&one, &three);
}

/* A breakable cube struck by another at 25 m/s (it arrives at about 0.1 s),
 * and a breakable cube in layers with a lifetime that nothing hits. */
static const char *strike_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 20000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]},\n"
    "   {\"shape\": \"cube\", \"position\": [5, 0.6, 0], \"breakable\": {\"pattern\": \"layers\", \"strength\": 100000},\n"
    "    \"lifetime\": 5}\n"
    " ]}\n";

/* Saved before the strike (43 steps: 0.069 s, mid-tick), both cubes break
 * after the reload as they do in one run; saved after the breaks, the
 * world built from the file is the world saved. */
static void test_breakable_saved_before_its_break(void **state) {
    (void)state;
    char path[512], err[1024];
    build_path(path, sizeof path, "strike.json");
    const outcome one = straight(strike_text, rb_test_backend(), 400);
    const outcome two = resumed(strike_text, rb_test_backend(), 43, 400 - 43, path);
    assert_same(&one, &two);
    assert_true(one.breaks >= 2 && one.bodies > 3); /* both broke after the save */
    rb_scene *scene = rb_scene_load(path, g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, rb_test_backend());
    uint32_t n = rb_debris_breakables(rb_run_debris(run), NULL, 0);
    assert_int_equal(n, 2); /* both breakable again after the reload */
    step(run, 400 - 43);
    assert_true(rb_debris_breaks(rb_run_debris(run)) >= 1);
    /* saved after the break: the pieces are the world's own shapes (docs/scene-format.md, "shapes"), and
     * the world built from the file is the world saved */
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    if (!rb_scene_save_source(path, &source, err, sizeof err)) fail_msg("%s", err);
    rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
    if (!again) fail_msg("%s", err);
    rb_run *run2 = run_of(again, rb_test_backend());
    assert_true(rb_world_digest(rb_run_world(run2)) == rb_world_digest(rb_run_world(run)));
    assert_int_equal(rb_debris_breaks(rb_run_debris(run2)), rb_debris_breaks(rb_run_debris(run)));
    rb_run_destroy(run2);
    rb_run_destroy(run);
}

/* Four cubes glued into one anchored wall (bonds of 300 kN), each part
 * breakable on its own (voronoi, 100 kN bonds: it breaks where it is hit
 * or lands once freed), struck by a cube at 8 m/s (at about 0.26 s: parts
 * are knocked off, three stay glued, anchored: a child of the split with
 * pieces of its own) and by a second one at 9 m/s lower down (at about
 * 0.6 s: it breaks that child again). None of these a pattern makes again
 * from a registry shape: all are saved whole (debris_whole.c). */
static const char *glued_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"assemblies\": [{\"name\": \"wall\", \"strength\": 3e5, \"anchored\": true}],\n"
    " \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [2, 2, 1], \"position\": [0, 0, 0],\n"
    "   \"assembly\": \"wall\", \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4, \"seed\": 7, \"strength\": 1e5}}],\n"
    " \"bodies\": [{\"shape\": \"cube2\", \"position\": [0.3, 1.2, -3], \"velocity\": [0, 0, 8]},\n"
    "            {\"shape\": \"cube2\", \"position\": [-0.3, 0.6, -6], \"velocity\": [0, 0, 9]}]}\n";

/* How many breakables the saved file at path holds whole (a "piece_of" each). */
static uint32_t whole_entries(const char *path);

/* Steps of glued_text until its first break, in steps of 8; the breaks
 * and pieces made then. */
static long first_break(rb_backend_kind backend, uint64_t *breaks) {
    char err[1024];
    rb_scene *scene = rb_scene_parse(glued_text, "glued", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, backend);
    long steps = 0;
    while (rb_debris_breaks(rb_run_debris(run)) == 0 && steps < 1200) step(run, 8), steps += 8;
    *breaks = rb_debris_breaks(rb_run_debris(run));
    rb_run_destroy(run);
    return steps;
}

/* The glued wall saved before it is hit and just after its first break:
 * after the reload it breaks as often, into as many pieces, bit for bit
 * as in one run, and breaks further (the part freed, saved whole as
 * breakable by its own pattern, crumbles where it lands). */
static void test_glued_saved_whole(void **state) {
    (void)state;
    const long total = 900;
    char path[512];
    build_path(path, sizeof path, "glued.json");
    uint64_t at_first = 0;
    const long first = first_break(rb_test_backend(), &at_first);
    print_message("glued wall: first break by step %ld (%llu breaks then)\n", first, (unsigned long long)at_first);
    assert_true(first > 100 && first < 600 && at_first >= 1);
    const outcome one = straight(glued_text, rb_test_backend(), total);
    print_message("glued wall: first break at step %ld; %llu breaks, %llu pieces in %ld steps\n", first,
                  (unsigned long long)one.breaks, (unsigned long long)one.pieces, total);
    assert_true(one.breaks > at_first); /* breaks after the second save, which it must carry */
    const outcome before = resumed(glued_text, rb_test_backend(), 100, total - 100, path);
    assert_same(&one, &before);
    const outcome after = resumed(glued_text, rb_test_backend(), first, total - first, path);
    assert_same(&one, &after);
    /* that file held the wall's glued rest and the part freed, whole */
    assert_true(whole_entries(path) >= 2);
}

/* ---- damaged files ---- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

static uint32_t whole_entries(const char *path) {
    char *text = read_text(path);
    uint32_t n = 0;
    for (const char *at = strstr(text, "\"piece_of\""); at; at = strstr(at + 1, "\"piece_of\"")) n++;
    free(text);
    return n;
}

/* The saved fountain with one change made by fn to its debris_state, read: refused with a message holding want. */
static void assert_refused(const char *text, void (*fn)(cJSON *state), const char *want) {
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    fn(cJSON_GetObjectItemCaseSensitive(root, "debris_state"));
    char *changed = cJSON_Print(root);
    cJSON_Delete(root);
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(changed, "damaged.json", g_reg, err, sizeof err);
    free(changed);
    if (s) fail_msg("a damaged debris_state was read (expected a refusal naming %s)", want);
    print_message("refused: %s\n", err);
    if (!strstr(err, want)) fail_msg("expected '%s' in: %s", want, err);
    assert_non_null(strstr(err, "damaged.json: "));
}

static void body_past_the_end(cJSON *st) {
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "bodies"), 0);
    cJSON_ReplaceItemInArray(first, 0, cJSON_CreateNumber(100000));
}
static void owed_nan(cJSON *st) {
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "emitters"), 0);
    cJSON_ReplaceItemInObject(e, "owed", cJSON_CreateNumber(NAN)); /* printed as null */
}
static void held_infinite(cJSON *st) {
    cJSON *held = cJSON_GetObjectItemCaseSensitive(st, "held");
    cJSON *first = cJSON_GetArrayItem(held, 0);
    assert_non_null(first);
    cJSON_ReplaceItemInArray(first, 2, cJSON_CreateNumber(1e39)); /* past a float's range */
}
static void unknown_key(cJSON *st) { cJSON_AddNumberToObject(st, "bogus", 1); }
static void rng_as_number(cJSON *st) {
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "emitters"), 1);
    cJSON_ReplaceItemInObject(e, "rng", cJSON_CreateNumber(12));
}
static void body_twice(cJSON *st) {
    cJSON *bodies = cJSON_GetObjectItemCaseSensitive(st, "bodies");
    cJSON_AddItemToArray(bodies, cJSON_Duplicate(cJSON_GetArrayItem(bodies, 0), true));
}
static void alive_wrong(cJSON *st) {
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "emitters"), 0);
    cJSON_ReplaceItemInObject(e, "alive", cJSON_CreateNumber(cJSON_GetObjectItemCaseSensitive(e, "alive")->valuedouble + 1));
}
static void steps_missing(cJSON *st) { cJSON_DeleteItemFromObject(st, "steps"); }

/* The first breakable saved whole (with a glued table, when glued is set). */
static cJSON *whole_of(cJSON *st, bool glued) {
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "breakables")) {
        cJSON *w = cJSON_GetArrayItem(e, 2);
        if (w && (!glued || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w, "inner")) > 0)) return w;
    }
    fail_msg("no breakable saved whole");
    return NULL;
}
static void bond_past_pieces(cJSON *st) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, false), "bonds"), 1, cJSON_CreateNumber(99));
}
static void bonds_reversed(cJSON *st) {
    cJSON *b = cJSON_GetObjectItemCaseSensitive(whole_of(st, false), "bonds");
    const double a = cJSON_GetArrayItem(b, 0)->valuedouble, c = cJSON_GetArrayItem(b, 1)->valuedouble;
    cJSON_ReplaceItemInArray(b, 0, cJSON_CreateNumber(c));
    cJSON_ReplaceItemInArray(b, 1, cJSON_CreateNumber(a));
}
static void piece_of_short(cJSON *st) {
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, false), "piece_of"), 0);
}
static void offset_nan(cJSON *st) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, false), "offsets"), 4,
                             cJSON_CreateNumber(NAN));
}
static void holds_missing(cJSON *st) { cJSON_DeleteItemFromObject(whole_of(st, false), "holds"); }
static void mesh_missing(cJSON *st) {
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, false), "meshes"), 0);
}
static void inner_past_table(cJSON *st) {
    const int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(st, "inner"));
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, true), "inner"), 0, cJSON_CreateNumber(n));
}
static void anchored_two(cJSON *st) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(whole_of(st, true), "anchored"), 0, cJSON_CreateNumber(2));
}

/* The glued wall saved after its first break, each of its breakables saved
 * whole: damaged, refused naming the key. */
static void test_damaged_whole_refused(void **state) {
    (void)state;
    char err[1024], path[512];
    build_path(path, sizeof path, "damaged-whole.json");
    uint64_t breaks = 0;
    const long first = first_break(RB_BACKEND_REFERENCE, &breaks);
    rb_scene *scene = rb_scene_parse(glued_text, "glued", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, RB_BACKEND_REFERENCE);
    step(run, first);
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    if (!rb_scene_save_source(path, &source, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    char *text = read_text(path);
    rb_scene *ok = rb_scene_parse(text, "damaged.json", g_reg, err, sizeof err);
    if (!ok) fail_msg("%s", err);
    rb_scene_destroy(ok);
    assert_refused(text, bond_past_pieces, "[2].bonds: element 1 is not a whole number from 0 to");
    assert_refused(text, bonds_reversed, "[2].bonds: bond 0");
    assert_refused(text, piece_of_short, "[2].piece_of: expected one for each of its");
    assert_refused(text, offset_nan, "[2].offsets: element 4 is null, not a number");
    assert_refused(text, holds_missing, "[2]: 'holds' is missing");
    assert_refused(text, mesh_missing, "[2].meshes: expected none or one for each of its");
    assert_refused(text, inner_past_table, "[2].inner: element 0 is not -1 or a pattern of the layer's");
    assert_refused(text, anchored_two, "[2].anchored: element 0 is not a whole number from 0 to 1");
    free(text);
}

static void test_damaged_state_refused(void **state) {
    (void)state;
    char err[1024], path[512];
    build_path(path, sizeof path, "damaged.json");
    rb_scene *scene = rb_scene_parse(fountain_text, "fountain", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, RB_BACKEND_REFERENCE);
    step(run, 503);
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    if (!rb_scene_save_source(path, &source, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    char *text = read_text(path);
    /* the file as saved reads */
    rb_scene *ok = rb_scene_parse(text, "damaged.json", g_reg, err, sizeof err);
    if (!ok) fail_msg("%s", err);
    rb_scene_destroy(ok);
    assert_refused(text, body_past_the_end, "debris_state.bodies[0][0]: body 100000 is past the scene's");
    assert_refused(text, owed_nan, "debris_state.emitters[0].owed: expected a number");
    assert_refused(text, held_infinite, "debris_state.held[0][2]");
    assert_refused(text, unknown_key, "debris_state.bogus: unknown key");
    assert_refused(text, rng_as_number, "debris_state.emitters[1].rng: expected a whole number");
    assert_refused(text, body_twice, "is in the table twice");
    assert_refused(text, alive_wrong, "debris_state.emitters[0].alive");
    assert_refused(text, steps_missing, "debris_state: 'steps' is missing");
    free(text);
}

/* A world with no debris layer is written as it was before the layer had a
 * state: no debris key at all. */
static void test_no_layer_no_keys(void **state) {
    (void)state;
    char err[1024], path[512];
    build_path(path, sizeof path, "plain.json");
    rb_scene *scene = rb_scene_parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]}]}",
                                     "plain", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, RB_BACKEND_REFERENCE);
    step(run, 20);
    assert_null(rb_run_debris(run));
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    if (!rb_scene_save_source(path, &source, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    char *text = read_text(path);
    assert_null(strstr(text, "debris"));
    assert_null(strstr(text, "emitters"));
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saved_fountain_goes_on),
        cmocka_unit_test(test_breakable_saved_before_its_break),
        cmocka_unit_test(test_glued_saved_whole),
        cmocka_unit_test(test_damaged_state_refused),
        cmocka_unit_test(test_damaged_whole_refused),
        cmocka_unit_test(test_no_layer_no_keys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
