/* The stage (src/scenes/stage.h): a scene installed whole or not at all,
 * the world kept where its settings allow and replaced where they do not,
 * a refused scene leaving the stage as it was, the debris policy of each
 * program, and one way of stepping with or without debris effects. */
#include "rb_test.h"
#include "scenes/scene.h"
#include "scenes/stage.h"

static rb_registry *g_reg;    /* the plugins: cube, cube2 */
static rb_registry *g_meshes; /* the same and the shipped meshes (ball, rocks...): scenes the stage's table cannot build */

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    g_meshes = rb_test_registry_with_meshes();
    return g_reg && g_meshes && rb_registry_find(g_reg, "ball") < 0 && rb_registry_find(g_meshes, "ball") >= 0 ? 0
                                                                                                              : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_meshes);
    rb_registry_destroy(g_reg);
    return 0;
}

static rb_scene *parse(const char *text, const rb_registry *reg) {
    char err[1024];
    rb_scene *s = rb_scene_parse(text, "stage test", reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    return s;
}

static const char *const grid_text = "{\"rubble_scene\": 1, \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", "
                                     "\"count\": [3, 2, 2], \"position\": [0, 2, 0]}]}";
static const char *const moon_text = "{\"rubble_scene\": 1, \"world\": {\"gravity\": [0, -1.62, 0]}, \"generators\": "
                                     "[{\"type\": \"grid\", \"shape\": \"cube2\", \"count\": [2, 2, 2], \"position\": "
                                     "[0, 2, 0]}]}";
/* the stage's table has no ball: its third body is refused */
static const char *const ball_text =
    "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]}, {\"shape\": \"cube\", "
    "\"position\": [3, 1, 0]}, {\"shape\": \"ball\", \"position\": [6, 1, 0]}]}";
/* cubes, and an emitter of balls, which the stage's table cannot spawn */
static const char *const emitter_text =
    "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]}], \"emitters\": [{\"region\": "
    "{\"point\": [0, 3, 0]}, \"rate\": 30, \"direction\": [0, 1, 0], \"speed\": 2, \"shapes\": [{\"shape\": "
    "\"ball\"}]}]}";
static const char *const fountain_text =
    "{\"rubble_scene\": 1, \"emitters\": [{\"region\": {\"disc\": {\"centre\": [0, 3, 0], \"radius\": 2}}, \"rate\": 30, "
    "\"direction\": [0, 1, 0], \"speed\": 2, \"seed\": 5, \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5}]}]}";

static rb_stage *stage_for(const rb_scene *scene) {
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    const rb_world_desc d = rb_scene_world_desc(scene, &base);
    char err[512];
    rb_stage *s = rb_stage_create(g_reg, &d, err, sizeof err);
    if (!s) fail_msg("%s", err);
    return s;
}

static rb_stage_how how_for(const rb_stage *stage, const rb_scene *scene, bool keep_world, bool debris_optional) {
    return (rb_stage_how){.world = rb_scene_world_desc(scene, rb_world_get_desc(rb_stage_world(stage))),
                          .keep_world = keep_world,
                          .debris_optional = debris_optional};
}

/* The empty world made for a scene takes it; a scene of other settings gets
 * a new world; a reset keeps the world it has. */
static void test_world_kept_or_replaced(void **state) {
    (void)state;
    rb_scene *grid = parse(grid_text, g_reg), *moon = parse(moon_text, g_reg);
    rb_stage *s = stage_for(grid);
    char err[1024];
    uint32_t added = 0;
    rb_stage_how how = how_for(s, grid, false, false);
    assert_true(rb_stage_install(s, grid, &how, &added, err, sizeof err));
    assert_int_equal(added, 12);
    assert_int_equal(rb_stage_world_number(s), 1); /* the empty world was the scene's */
    assert_ptr_equal(rb_stage_scene(s), grid);
    assert_int_equal(rb_world_body_count(rb_stage_world(s)), 12);

    how = how_for(s, moon, false, false);
    assert_true(rb_stage_install(s, moon, &how, &added, err, sizeof err));
    assert_int_equal(rb_stage_world_number(s), 2); /* other gravity: a world of its own */
    assert_near(rb_world_get_desc(rb_stage_world(s))->gravity[1], -1.62, 1e-6);
    assert_int_equal(rb_world_body_count(rb_stage_world(s)), 8);

    assert_true(rb_world_step(rb_stage_world(s), 50));
    rb_paint before[8], after;
    rb_body_id ids[8];
    for (uint32_t k = 0; k < 8; k++) {
        ids[k] = rb_world_body_id(rb_stage_world(s), k);
        rb_color_table_paint(rb_stage_colors(s), ids[k], &before[k]);
    }
    how = how_for(s, moon, true, false); /* R: the same scene again, in the same world */
    assert_true(rb_stage_install(s, rb_stage_scene(s), &how, &added, err, sizeof err));
    assert_int_equal(rb_stage_world_number(s), 2);
    assert_int_equal(rb_world_body_count(rb_stage_world(s)), 8);
    rb_body_state b;
    assert_true(rb_world_get_body(rb_stage_world(s), 0, &b));
    assert_near(b.velocity[1], 0.0, 0.0); /* as built, not as stepped */
    /* new bodies in the same slots, drawn in the same colours (the palette
     * took the generation too, and every R gave every body a new colour) */
    for (uint32_t k = 0; k < 8; k++) {
        const rb_body_id id = rb_world_body_id(rb_stage_world(s), k);
        assert_int_equal(id.slot, ids[k].slot);
        assert_int_not_equal(id.generation, ids[k].generation);
        rb_color_table_paint(rb_stage_colors(s), id, &after);
        assert_memory_equal(&after, &before[k], sizeof after);
    }
    rb_stage_destroy(s);
}

/* A scene the world refuses a body of leaves the stage as it was: the same
 * world and scene, whether the scene was to have a new world or the
 * emptied one (which is built again from its scene). */
static void test_refused_scene_changes_nothing(void **state) {
    (void)state;
    rb_scene *grid = parse(grid_text, g_reg);
    rb_stage *s = stage_for(grid);
    char err[1024];
    uint32_t added = 0;
    rb_stage_how how = how_for(s, grid, false, false);
    assert_true(rb_stage_install(s, grid, &how, &added, err, sizeof err));
    const uint64_t digest = rb_world_digest(rb_stage_world(s));
    for (int keep = 0; keep < 2; keep++) {
        rb_scene *balls = parse(ball_text, g_meshes);
        how = how_for(s, balls, keep, false);
        assert_false(rb_stage_install(s, balls, &how, &added, err, sizeof err));
        print_message("keep_world %d: refused: %s\n", keep, err);
        assert_int_equal(added, 2); /* the two cubes went in, the ball did not */
        assert_non_null(strstr(err, "ball"));
        assert_ptr_equal(rb_stage_scene(s), grid);
        assert_int_equal(rb_stage_world_number(s), 1);
        assert_int_equal(rb_world_body_count(rb_stage_world(s)), 12);
        assert_true(rb_world_digest(rb_stage_world(s)) == digest);
    }
    rb_stage_destroy(s);
}

/* Debris that cannot run here: the sandbox runs the scene without it, a
 * batch run refuses the scene (every body went in: added says so). */
static void test_debris_policy(void **state) {
    (void)state;
    char err[1024];
    uint32_t added = 0;
    rb_scene *scene = parse(emitter_text, g_meshes);
    rb_stage *s = stage_for(scene);
    rb_stage_how how = how_for(s, scene, false, false);
    assert_false(rb_stage_install(s, scene, &how, &added, err, sizeof err));
    assert_int_equal(added, 1);
    assert_non_null(strstr(err, "emitters[0]"));
    assert_null(rb_stage_scene(s));
    assert_int_equal(rb_world_body_count(rb_stage_world(s)), 0);

    scene = parse(emitter_text, g_meshes);
    how = how_for(s, scene, false, true);
    assert_true(rb_stage_install(s, scene, &how, &added, err, sizeof err));
    assert_int_equal(rb_world_body_count(rb_stage_world(s)), 1);
    assert_null(rb_stage_debris(s));
    /* the tools' layer, made when asked for, until the next install */
    assert_non_null(rb_stage_debris_layer(s, err, sizeof err));
    assert_ptr_equal(rb_stage_debris_layer(s, err, sizeof err), rb_stage_debris(s));
    how = how_for(s, scene, true, true);
    assert_true(rb_stage_install(s, rb_stage_scene(s), &how, &added, err, sizeof err));
    assert_null(rb_stage_debris(s));
    rb_stage_destroy(s);
}

/* One way of stepping: through the debris layer when there is one (its
 * ticks on step counts, so chunks of whole ticks or of any size give the
 * same run), the world's own step when there is none. */
static void test_steps_one_way(void **state) {
    (void)state;
    char err[1024];
    uint64_t digests[2];
    for (int k = 0; k < 2; k++) {
        rb_scene *scene = parse(fountain_text, g_reg);
        rb_stage *s = stage_for(scene);
        rb_stage_how how = how_for(s, scene, false, false);
        assert_true(rb_stage_install(s, scene, &how, NULL, err, sizeof err));
        assert_non_null(rb_stage_debris(s));
        const uint32_t tick = rb_debris_tick_steps(rb_stage_debris(s));
        for (uint32_t done = 0; done < 40 * tick;) {
            uint32_t n = k == 0 ? 7 : rb_stage_whole_ticks(s, 47);
            if (done + n > 40 * tick) n = 40 * tick - done;
            assert_true(rb_stage_step(s, n));
            if (k == 1) assert_int_equal(rb_stage_steps_to_tick(s), tick); /* each chunk ended on a tick */
            done += n;
        }
        print_message("%s: %llu spawned, %llu put off\n", k == 0 ? "chunks of 7" : "whole ticks",
                      (unsigned long long)rb_debris_spawned(rb_stage_debris(s)),
                      (unsigned long long)rb_debris_crowded(rb_stage_debris(s)));
        assert_true(rb_debris_spawned(rb_stage_debris(s)) >= 10);
        digests[k] = rb_world_digest(rb_stage_world(s));
        rb_stage_destroy(s);
    }
    assert_true(digests[0] == digests[1]);

    rb_scene *grid = parse(grid_text, g_reg);
    rb_stage *s = stage_for(grid);
    rb_stage_how how = how_for(s, grid, false, false);
    assert_true(rb_stage_install(s, grid, &how, NULL, err, sizeof err));
    assert_int_equal(rb_stage_steps_to_tick(s), UINT32_MAX);
    assert_int_equal(rb_stage_whole_ticks(s, 50), 50);
    rb_world_desc d = *rb_world_get_desc(rb_stage_world(s));
    rb_world *w = rb_world_create(&d, err, sizeof err);
    rb_entities *t = rb_entities_create(g_reg, w);
    assert_int_equal(rb_scene_build(grid, t, err, sizeof err), 12);
    assert_true(rb_stage_step(s, 300) && rb_world_step(w, 300));
    assert_true(rb_world_digest(rb_stage_world(s)) == rb_world_digest(w));
    double ms[RB_STAGE_COUNT];
    rb_stage_stage_times(s, ms);
    for (int k = 0; k < RB_STAGE_COUNT; k++) assert_true(ms[k] >= 0.0);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_stage_destroy(s);
}

/* Colours that stay (src/scenes/colors.h): a broken body's pieces keep its
 * colours, those it was given or its default ones; a material's colour is its bodies'; an emitter's its
 * bodies'; a reset paints the scene's bodies again. */
static void test_colors_stay_through_breaks(void **state) {
    (void)state;
    static const char *const text =
        "{\"rubble_scene\": 1, \"materials\": {\"clay\": {\"color\": \"#c06030\"}},"
        " \"bodies\": ["
        "  {\"shape\": \"cube\", \"position\": [0, 0.61, 0], \"color\": [0.2, 0.4, 0.8], \"inside_color\": \"#e0c040\","
        "   \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 8, \"seed\": 4, \"strength\": 1}},"
        "  {\"shape\": \"cube\", \"position\": [4, 0.61, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 8,"
        "   \"seed\": 5, \"strength\": 1}},"
        "  {\"shape\": \"cube\", \"position\": [8, 0.61, 0], \"material\": \"clay\"}],"
        " \"emitters\": [{\"region\": {\"point\": [-4, 3, 0]}, \"rate\": 20, \"speed\": 4, \"cone\": 30, \"seed\": 3,"
        "  \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5}], \"color\": \"#ff8000\"}]}";
    rb_scene *scene = parse(text, g_reg);
    rb_stage *s = stage_for(scene);
    rb_stage_how how = how_for(s, scene, false, false);
    char err[1024];
    assert_true(rb_stage_install(s, scene, &how, NULL, err, sizeof err));
    rb_world *w = rb_stage_world(s);
    const rb_color_table *colors = rb_stage_colors(s);
    /* what each is drawn with before anything breaks */
    rb_paint a, b, clay, emitted;
    rb_color_table_paint(colors, rb_world_body_id(w, 0), &a);
    rb_color_table_paint(colors, rb_world_body_id(w, 1), &b);
    rb_color_table_paint(colors, rb_world_body_id(w, 2), &clay);
    assert_true(a.color[0] == 0.2f && a.color[1] == 0.4f && a.color[2] == 0.8f);
    assert_true(a.inside[0] == 224.0f / 255.0f && a.inside[1] == 192.0f / 255.0f && a.inside[2] == 64.0f / 255.0f);
    rb_paint palette; /* body 1 was given none: the palette's by its id */
    rb_color_spec_paint(NULL, rb_world_body_id(w, 1), &palette);
    assert_memory_equal(&b, &palette, sizeof b);
    assert_true(clay.color[0] == 192.0f / 255.0f && clay.color[2] == 48.0f / 255.0f);
    const rb_color_spec orange = {.has_color = true, .color = {1.0f, 128.0f / 255.0f, 0.0f}};
    rb_color_spec_paint(&orange, rb_world_body_id(w, 0), &emitted);

    assert_true(rb_stage_step(s, 600)); /* about 1 s: both cubes break into their 8 pieces as they settle */
    const rb_debris *d = rb_stage_debris(s);
    print_message("%llu breaks made %llu bodies; %llu emitted\n", (unsigned long long)rb_debris_breaks(d),
                  (unsigned long long)rb_debris_pieces_made(d), (unsigned long long)rb_debris_spawned(d));
    assert_true(rb_debris_breaks(d) >= 2);
    uint32_t of_a = 0, of_b = 0, of_clay = 0, of_emitter = 0;
    for (uint32_t k = 0; k < rb_world_body_count(w); k++) {
        rb_paint p;
        rb_color_table_paint(colors, rb_world_body_id(w, k), &p);
        const bool is_a = !memcmp(&p, &a, sizeof p), is_b = !memcmp(&p, &b, sizeof p);
        const bool is_clay = !memcmp(&p, &clay, sizeof p), is_emitted = !memcmp(&p, &emitted, sizeof p);
        if (!(is_a || is_b || is_clay || is_emitted))
            fail_msg("body %u is drawn in %g %g %g, none of the scene's colours", k, p.color[0], p.color[1],
                     p.color[2]);
        of_a += is_a, of_b += is_b, of_clay += is_clay, of_emitter += is_emitted;
    }
    print_message("bodies in the first cube's colours %u, the second's %u, clay's %u, the emitter's %u\n", of_a, of_b,
                  of_clay, of_emitter);
    assert_true(of_a >= 3 && of_b >= 3 && of_clay == 1 && of_emitter >= 3);
    assert_int_equal(rb_world_body_count(w), of_a + of_b + of_clay + of_emitter);

    /* a reset: the scene's bodies painted again, whatever ids they have now */
    how = how_for(s, scene, true, false);
    assert_true(rb_stage_install(s, rb_stage_scene(s), &how, NULL, err, sizeof err));
    w = rb_stage_world(s);
    rb_paint again;
    rb_color_table_paint(colors, rb_world_body_id(w, 0), &again);
    assert_memory_equal(&again, &a, sizeof a);
    rb_color_table_paint(colors, rb_world_body_id(w, 2), &again);
    assert_memory_equal(&again, &clay, sizeof clay);
    rb_stage_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_kept_or_replaced),
        cmocka_unit_test(test_refused_scene_changes_nothing),
        cmocka_unit_test(test_debris_policy),
        cmocka_unit_test(test_steps_one_way),
        cmocka_unit_test(test_colors_stay_through_breaks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
