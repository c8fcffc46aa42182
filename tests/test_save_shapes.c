/* test_save_shapes.c - a scene file holds the world after breaks
 * (docs/scene-format.md, "shapes" and "pieces"), on the backend
 * RUBBLE_TEST_BACKEND names:
 * - a breakable cube hit hard breaks; the world saved then (rb_scene_write_source)
 *   holds its pieces as shapes of its own, with the meshes the debris layer
 *   cut, and built again it is the same world, and steps on to the same
 *   digest and piece loads as the world never saved;
 * - a breakable body saved mid-load (its pieces loaded, not broken) goes
 *   on to the same largest loads, bit for bit;
 * - a stage installing the saved scene draws the pieces with the same meshes;
 * - a damaged `shapes` or `pieces` entry is refused, naming the file and key.
 * What this part guarantees is the world's: the worlds are stepped without
 * the debris layer after the save (the debris layer's own state, which a
 * further break needs, is saved by its own keys). */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/scene.h"
#include "scenes/stage.h"

static rb_registry *g_reg;

/* A breakable cube struck hard by another (tests/test_resume.c's). */
static const char *break_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ]}\n";

/* The same cube too strong to break, struck softer: loaded, whole. */
static const char *loaded_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6,\n"
    "    \"seed\": 3, \"strength\": 1e7}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [6, 0, 0]},\n"
    "   {\"shape\": \"cube2\", \"position\": [0.2, 3, 0.1], \"velocity\": [0, -4, 0]}\n"
    " ]}\n";

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

static rb_scene *parse(const char *text, const char *name) {
    char err[1024];
    rb_scene *s = rb_scene_parse(text, name, g_reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    return s;
}

static rb_stage *stage_of(const char *text) {
    rb_scene *scene = parse(text, "save shapes test");
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    const rb_stage_how how = {.world = rb_scene_world_desc(scene, &base)};
    char err[1024];
    rb_stage *s = rb_stage_create(g_reg, &how.world, err, sizeof err);
    if (!s) fail_msg("%s", err);
    if (!rb_stage_install(s, scene, &how, NULL, err, sizeof err)) fail_msg("%s", err);
    return s;
}

/* The live world as scene text (what Ctrl+S and a keyframe write). */
static char *write_text(const rb_stage *s) {
    char *text = NULL, err[1024] = "";
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    const rb_scene_source source = rb_stage_source(s);
    const bool ok = rb_scene_write_source(f, &source, err, sizeof err);
    fclose(f);
    if (!ok) fail_msg("not written: %s", err);
    return text;
}

/* A fresh world of the same settings, the scene built into it (no debris layer). */
static rb_world *build(const rb_scene *scene, rb_entities **t) {
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_world *w = rb_test_world(rb_scene_world_desc(scene, &base));
    *t = rb_entities_create(g_reg, w);
    char err[1024];
    assert_int_equal(rb_scene_build(scene, *t, err, sizeof err), scene->body_count);
    return w;
}

/* Every breakable body's largest loads, the same bits in both worlds (bodies in the same order). */
static uint32_t assert_same_loads(rb_world *a, rb_world *b) {
    assert_int_equal(rb_world_body_count(a), rb_world_body_count(b));
    uint32_t pieces = 0;
    for (uint32_t k = 0; k < rb_world_body_count(a); k++) {
        float la[64], lb[64];
        const uint32_t na = rb_world_piece_loads(a, rb_world_body_id(a, k), la, 64);
        const uint32_t nb = rb_world_piece_loads(b, rb_world_body_id(b, k), lb, 64);
        assert_int_equal(na, nb);
        assert_true(na <= 64);
        assert_memory_equal(la, lb, sizeof *la * na);
        pieces += na;
    }
    return pieces;
}

/* Broken, saved, built again: the same world; stepped on, the same digest and loads. */
static void test_broken_world_saved_continues(void **state) {
    (void)state;
    rb_stage *st = stage_of(break_text);
    rb_world *w = rb_stage_world(st);
    rb_debris *d = rb_stage_debris(st);
    assert_non_null(d);
    uint32_t steps = 0;
    while (rb_debris_breaks(d) == 0 && steps < 600) assert_true(rb_stage_step(st, 10)), steps += 10;
    assert_true(rb_debris_breaks(d) > 0);
    assert_true(rb_stage_step(st, 20)); /* the pieces fly apart, some of them still breakable and loaded */
    char *text = write_text(st);
    rb_scene *scene = parse(text, "saved after a break");
    assert_true(scene->shape_count >= 2); /* the pieces, as no registry shape names them */
    uint32_t meshed = 0, of_shapes = 0;
    for (uint32_t k = 0; k < scene->shape_count; k++) meshed += scene->shapes[k].mesh.vertex_count > 0;
    for (uint32_t b = 0; b < scene->body_count; b++) of_shapes += scene->bodies[b].saved_shape != 0;
    assert_int_equal(of_shapes, rb_world_body_count(w) - 1); /* all but the striker are pieces */
    /* each shape's mesh is the one the debris layer cut for it, bit for bit */
    for (uint32_t b = 0; b < scene->body_count; b++) {
        if (!scene->bodies[b].saved_shape) continue;
        const rb_shape *sh = &scene->shapes[scene->bodies[b].saved_shape - 1];
        rb_mesh want;
        const bool has = rb_debris_piece_mesh(d, rb_world_body_shapes(w)[b], &want);
        assert_int_equal(has, sh->mesh.vertex_count > 0);
        if (!has) continue;
        assert_int_equal(want.vertex_count, sh->mesh.vertex_count);
        assert_int_equal(want.index_count, sh->mesh.index_count);
        assert_memory_equal(want.positions, sh->mesh.positions, sizeof(float) * 3 * want.vertex_count);
        assert_memory_equal(want.normals, sh->mesh.normals, sizeof(float) * 3 * want.vertex_count);
        assert_memory_equal(want.indices, sh->mesh.indices, sizeof(uint32_t) * want.index_count);
        assert_memory_equal(want.inside, sh->mesh.inside, want.vertex_count);
        rb_mesh_free(&want);
    }
    rb_entities *t2;
    rb_world *w2 = build(scene, &t2);
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    const uint32_t pieces = assert_same_loads(w, w2);
    /* the world alone steps on (the debris layer would split the pieces again: its state is not this part's) */
    assert_true(rb_world_step(w, 400) && rb_world_step(w2, 400));
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    assert_same_loads(w, w2);
    printf("%s: %u bodies, %u saved shapes (%u with meshes), %u pieces in breakable pieces; %zu bytes; the same "
           "digest 400 steps on\n",
           rb_world_backend_name(w), rb_world_body_count(w), scene->shape_count, meshed, pieces, strlen(text));
    /* written again from the rebuilt world: the same shapes (names by world shape index differ, values not) */
    rb_entities_destroy(t2);
    rb_world_destroy(w2);
    rb_scene_destroy(scene);
    free(text);
    rb_stage_destroy(st);
}

/* Loaded but whole: the largest loads so far are saved, and the body goes
 * on to the same ones (restored at 0 they would end lower where the
 * hardest hit was before the save). */
static void test_loaded_body_saved_continues(void **state) {
    (void)state;
    rb_stage *st = stage_of(loaded_text);
    rb_world *w = rb_stage_world(st);
    assert_true(rb_stage_step(st, 300));
    float peak[64];
    const uint32_t n = rb_world_piece_loads(w, rb_world_body_id(w, 0), peak, 64);
    assert_int_equal(n, 6);
    float most = 0.0f;
    for (uint32_t k = 0; k < n; k++) most = fmaxf(most, peak[k]);
    assert_true(most > 0.0f && most < 1.0f); /* loaded, not broken */
    char *text = write_text(st);
    assert_non_null(strstr(text, "\"pieces\": {\"of\": ["));
    rb_scene *scene = parse(text, "saved loaded");
    assert_int_equal(scene->piece_state_count, 1);
    rb_entities *t2;
    rb_world *w2 = build(scene, &t2);
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    assert_same_loads(w, w2);
    assert_true(rb_world_step(w, 300) && rb_world_step(w2, 300));
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    assert_same_loads(w, w2);
    /* the original scene's text is unchanged for a world without pieces (test_scene compares) */
    rb_entities_destroy(t2);
    rb_world_destroy(w2);
    rb_scene_destroy(scene);
    free(text);
    rb_stage_destroy(st);
}

/* The saved scene on a stage: its pieces are drawn with the meshes they had
 * (the debris layer made for them gives them), and it saves again the same. */
static void test_stage_takes_saved_pieces(void **state) {
    (void)state;
    rb_stage *st = stage_of(break_text);
    rb_debris *d = rb_stage_debris(st);
    uint32_t steps = 0;
    while (rb_debris_breaks(d) == 0 && steps < 600) assert_true(rb_stage_step(st, 10)), steps += 10;
    assert_true(rb_debris_breaks(d) > 0);
    char *text = write_text(st);
    rb_stage *again = stage_of(text);
    rb_world *w = rb_stage_world(st), *w2 = rb_stage_world(again);
    assert_int_equal(rb_world_body_count(w2), rb_world_body_count(w));
    uint32_t meshes = 0;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_mesh a, c;
        const bool has = rb_debris_piece_mesh(d, rb_world_body_shapes(w)[b], &a);
        assert_int_equal(has, rb_debris_piece_mesh(rb_stage_debris(again), rb_world_body_shapes(w2)[b], &c));
        if (has) {
            assert_int_equal(a.vertex_count, c.vertex_count);
            assert_memory_equal(a.positions, c.positions, sizeof(float) * 3 * a.vertex_count);
            meshes++;
        }
        rb_mesh_free(&a), rb_mesh_free(&c);
    }
    assert_true(meshes > 0);
    /* saved again: the same text but for the shapes' names (their world shape numbers are this world's) */
    char *text2 = write_text(again);
    rb_scene *s1 = parse(text, "first"), *s2 = parse(text2, "second");
    assert_int_equal(s1->shape_count, s2->shape_count);
    for (uint32_t k = 0; k < s1->shape_count; k++) {
        assert_int_equal(s1->shapes[k].particle_count, s2->shapes[k].particle_count);
        assert_memory_equal(s1->shapes[k].particles, s2->shapes[k].particles,
                            sizeof(float) * 3 * s1->shapes[k].particle_count);
        assert_int_equal(s1->shapes[k].mesh.vertex_count, s2->shapes[k].mesh.vertex_count);
    }
    rb_scene_destroy(s1), rb_scene_destroy(s2);
    free(text), free(text2);
    rb_stage_destroy(again);
    rb_stage_destroy(st);
}

/* A scene with one saved shape of two particles, a body of it, and a
 * damage put in; the message names the key. */
static void expect_refused(const char *shape, const char *pieces, const char *key, const char *what) {
    char text[4096], err[1024] = "";
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1,\n"
             " \"shapes\": [{\"name\": \"piece 9\", \"radius\": 0.2, \"mass\": 2, \"inertia\": [0.1, 0.1, 0.1],\n"
             "   %s}],\n"
             " \"bodies\": [{\"shape\": \"piece 9\", \"position\": [0, 1, 0]%s}]}\n",
             shape, pieces);
    rb_scene *s = rb_scene_parse(text, "damaged.json", g_reg, err, sizeof err);
    if (s) fail_msg("accepted: %s", text);
    printf("%s\n", err);
    assert_non_null(strstr(err, "damaged.json: "));
    if (!strstr(err, key)) fail_msg("'%s' does not name %s", err, key);
    if (!strstr(err, what)) fail_msg("'%s' does not say %s", err, what);
}

static void test_damaged_shapes_refused(void **state) {
    (void)state;
    const char *good = "\"particles\": [-0.2, 0, 0, 0.2, 0, 0],\n"
                       "   \"mesh\": {\"vertices\": [0, 0, 0, 1, 0, 0, 0, 1, 0], \"normals\": [0, 0, 1, 0, 0, 1, 0, 0, "
                       "1], \"indices\": [0, 1, 2], \"inside\": [0, 1, 0]}";
    /* the good one loads, and builds */
    char text[4096], err[1024];
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, \"shapes\": [{\"name\": \"piece 9\", \"radius\": 0.2, \"mass\": 2, \"inertia\": "
             "[0.1, 0.1, 0.1], %s}], \"bodies\": [{\"shape\": \"piece 9\", \"position\": [0, 1, 0], \"pieces\": "
             "{\"of\": [0, 1], \"centres\": [-0.2, 0, 0, 0.2, 0, 0], \"masses\": [1, 1], \"holds\": [5, 5], "
             "\"peaks\": [0.5, \"inf\"]}}]}",
             good);
    rb_scene *s = rb_scene_parse(text, "good.json", g_reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(s->shape_count, 1);
    assert_int_equal(s->shapes[0].mesh.vertex_count, 3);
    assert_true(isinf(s->pieces[0].peak[1]));
    rb_entities *t;
    rb_world *w = build(s, &t);
    float peak[2];
    assert_int_equal(rb_world_piece_loads(w, rb_world_body_id(w, 0), peak, 2), 2);
    assert_true(peak[0] == 0.5f && isinf(peak[1]));
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_scene_destroy(s);

    const char *mesh = "\"mesh\": {\"vertices\": [0, 0, 0, 1, 0, 0, 0, 1, 0], \"normals\": [0, 0, 1, 0, 0, 1, 0, 0, 1]";
    char bad[1024];
    snprintf(bad, sizeof bad, "\"particles\": [0, 0, 0], %s, \"indices\": [0, 1, 3]}", mesh);
    expect_refused(bad, "", "shapes[0].mesh.indices", "element 2 is not a whole number from 0 to 2");
    snprintf(bad, sizeof bad, "\"particles\": [0, 0, 0], %s, \"indices\": [0, 1, 2], \"inside\": [0, 2, 0]}", mesh);
    expect_refused(bad, "", "shapes[0].mesh.inside", "element 1");
    snprintf(bad, sizeof bad, "\"particles\": [0, 0, 0], %s, \"indices\": [0, 1]}", mesh);
    expect_refused(bad, "", "shapes[0].mesh.indices", "not whole triangles");
    expect_refused("\"particles\": [0, 0, 1e39]", "", "shapes[0].particles", "element 2 is not a finite number");
    expect_refused("\"particles\": [0, 0]", "", "shapes[0].particles", "not whole groups of 3");
    expect_refused("\"particles\": []", "", "shapes[0].particles", "at least one particle");
    /* a list longer than the file says: more normals than vertices, an inside mark short */
    snprintf(bad, sizeof bad,
             "\"particles\": [0, 0, 0], \"mesh\": {\"vertices\": [0, 0, 0], \"normals\": [0, 0, 1, 0, 0, 1], "
             "\"indices\": []}");
    expect_refused(bad, "", "shapes[0].mesh.normals", "6 numbers for 1 vertices");
    expect_refused("\"particles\": [0, 0, 0], \"mass\": 0", "", "shapes[0]", "given twice");
    const char *two = "\"particles\": [-0.2, 0, 0, 0.2, 0, 0]";
    expect_refused(two,
                   ", \"pieces\": {\"of\": [0, 2], \"centres\": [0, 0, 0, 0, 0, 0], \"masses\": [1, 1], \"holds\": "
                   "[1, 1], \"peaks\": [0, 0]}",
                   "bodies[0].pieces.of", "element 1 is not a whole number from 0 to 1");
    expect_refused(two,
                   ", \"pieces\": {\"of\": [0, 1, 1], \"centres\": [0, 0, 0, 0, 0, 0], \"masses\": [1, 1], \"holds\": "
                   "[1, 1], \"peaks\": [0, 0]}",
                   "bodies[0].pieces.of", "3 pieces for the shape's 2 particles");
    expect_refused(two,
                   ", \"pieces\": {\"of\": [0, 1], \"centres\": [0, 0, 0, 0, 0, 0], \"masses\": [1, 1], \"holds\": "
                   "[1, 1], \"peaks\": [0, -1]}",
                   "bodies[0].pieces.peaks", "element 1 is not a number >= 0");
    expect_refused(two,
                   ", \"pieces\": {\"of\": [0, 1], \"centres\": [0, 0, 0, 0, 0, 0], \"masses\": [1, 0], \"holds\": "
                   "[1, 1], \"peaks\": [0, 0]}",
                   "bodies[0].pieces.masses", "piece 1's mass 0 is not greater than 0");
    expect_refused(two, ", \"scale\": 2", "bodies[0].scale", "at its own size");
    /* a saved shape may not take a registry shape's name */
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, \"shapes\": [{\"name\": \"cube\", \"radius\": 0.2, \"mass\": 2, \"inertia\": "
             "[0.1, 0.1, 0.1], \"particles\": [0, 0, 0]}]}");
    assert_null(rb_scene_parse(text, "clash.json", g_reg, err, sizeof err));
    assert_non_null(strstr(err, "clash.json: shapes[0].name: 'cube' is a registry shape's name"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broken_world_saved_continues),
        cmocka_unit_test(test_loaded_body_saved_continues),
        cmocka_unit_test(test_stage_takes_saved_pieces),
        cmocka_unit_test(test_damaged_shapes_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
