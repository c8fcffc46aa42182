/* The debris keys of scene files (src/scenes/debris_read.c,
 * docs/scene-format.md): every key read into the rb_debris_desc, with
 * degrees made radians, directions normalised and the defaults filled in;
 * no desc for a scene without effects; and each bad value refused, named
 * by file and key path. */
#include "rb_test.h"
#include "scenes/scene.h"

static rb_registry *g_reg;
static char g_log[1 << 14];

static void keep_log(rb_log_level level, const char *message, void *user) {
    (void)level, (void)user;
    size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof g_log - n, "%s\n", message);
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    rb_set_log_fn(keep_log, NULL);
    return g_reg && rb_registry_find(g_reg, "cube") >= 0 && rb_registry_find(g_reg, "cube2") >= 0 ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    rb_set_log_fn(NULL, NULL);
    rb_registry_destroy(g_reg);
    return 0;
}

static rb_scene *parse(const char *text) {
    char err[1024];
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (!s) fail_msg("refused: %s", err);
    return s;
}

/* Refused, with the key path and says in the message. */
static void refused(const char *text, const char *path, const char *says) {
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (s) {
        rb_scene_destroy(s);
        fail_msg("accepted, but should say '%s': %s", says, text);
    }
    if (!strstr(err, path) || !strstr(err, says)) fail_msg("says '%s', should say '%s' and '%s'", err, path, says);
}

/* A scene of one emitter (the JSON object's inside after `"shapes": [...]`, or nothing). */
#define EMITTER(rest)                                                                                                  \
    "{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 10, \"shapes\": [{\"shape\": \"cube\"}]" rest "}]}"
#define FIELD(inside) "{\"rubble_scene\": 1, \"fields\": [" inside "]}"
#define DEBRIS(inside) "{\"rubble_scene\": 1, \"debris\": " inside "}"

static void test_every_key_is_read(void **state) {
    (void)state;
    rb_scene *s = parse(
        "{\"rubble_scene\": 1,\n"
        " \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"lifetime\": 2.5},\n"
        "            {\"shape\": \"cube\", \"position\": [3, 1, 0]}],\n"
        " \"generators\": [{\"type\": \"tower\", \"shape\": \"cube2\", \"height\": 2, \"lifetime\": 4}],\n"
        " \"emitters\": [\n"
        "  {\"region\": {\"box\": {\"centre\": [1, 10, 2], \"half\": [3, 0.5, 4]}}, \"rate\": 20, \"max_alive\": 50,\n"
        "   \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.5, \"weight\": 3}, {\"shape\": \"cube2\"}],\n"
        "   \"direction\": [0, 0, -2], \"speed\": 4, \"speed_spread\": 1.5, \"cone\": 30, \"spin\": 2,\n"
        "   \"lifetime\": 8, \"start\": 1, \"duration\": 5, \"seed\": 1234567890123},\n"
        "  {\"region\": {\"disc\": {\"centre\": [0, 5, 0], \"radius\": 2}}, \"rate\": 100000,\n"
        "   \"shapes\": [{\"shape\": \"cube2\"}]},\n"
        "  {\"region\": {\"point\": [7, 8, 9]}, \"rate\": 0.5, \"shapes\": [{\"shape\": \"cube\"}], \"cone\": 180}],\n"
        " \"fields\": [\n"
        "  {\"type\": \"radial\", \"centre\": [0, 1, 0], \"radius\": 6, \"start\": 2, \"strength\": 500,\n"
        "   \"impulse\": false, \"falloff\": 2, \"up\": 0.3, \"duration\": 0.5},\n"
        "  {\"type\": \"radial\", \"radius\": 1, \"strength\": 1},\n"
        "  {\"type\": \"wind\", \"velocity\": [5, 0, 1], \"drag\": 0.9, \"start\": 3},\n"
        "  {\"type\": \"wind\", \"velocity\": [0, 0, 1], \"radius\": 10, \"centre\": [1, 2, 3]},\n"
        "  {\"type\": \"vortex\", \"centre\": [0, 0, 4], \"radius\": 5, \"axis\": [3, 0, 4], \"strength\": 7,\n"
        "   \"drag\": 1},\n"
        "  {\"type\": \"vortex\", \"radius\": 2, \"strength\": 3}],\n"
        " \"debris\": {\"max_bodies\": 300, \"remove_asleep\": 4,\n"
        "            \"kill_regions\": [{\"min\": [-100, -10, -100], \"max\": [100, -5, 100]},\n"
        "                             {\"min\": [0, 0, 0], \"max\": [1, 1, 1]}]}}");
    assert_int_equal(s->body_count, 4);
    assert_true(s->bodies[0].lifetime == 2.5f && s->bodies[1].lifetime == 0.0f);
    assert_true(s->bodies[2].lifetime == 4.0f && s->bodies[3].lifetime == 4.0f); /* the generator's template */
    const rb_debris_desc *d = s->debris;
    assert_non_null(d);
    assert_int_equal(d->emitter_count, 3);

    const rb_emitter *e = &d->emitters[0];
    assert_int_equal(e->region.kind, RB_REGION_BOX);
    assert_true(e->region.centre[0] == 1.0f && e->region.centre[1] == 10.0f && e->region.centre[2] == 2.0f);
    assert_true(e->region.half[0] == 3.0f && e->region.half[1] == 0.5f && e->region.half[2] == 4.0f);
    assert_true(e->rate == 20.0f);
    assert_int_equal(e->max_alive, 50);
    assert_int_equal(e->choice_count, 2);
    assert_string_equal(e->choices[0].shape, "cube");
    assert_true(e->choices[0].scale == 0.5f && e->choices[0].weight == 3.0f);
    assert_string_equal(e->choices[1].shape, "cube2");
    assert_true(e->choices[1].scale == 1.0f && e->choices[1].weight == 1.0f);
    assert_true(e->direction[0] == 0.0f && e->direction[1] == 0.0f && e->direction[2] == -1.0f);
    assert_true(e->speed == 4.0f && e->speed_spread == 1.5f && e->spin == 2.0f);
    assert_near(e->cone, M_PI / 6.0, 1e-6);
    assert_true(e->lifetime == 8.0f && e->start == 1.0f && e->duration == 5.0f);
    assert_true(e->seed == 1234567890123ull);

    e = &d->emitters[1]; /* the defaults */
    assert_int_equal(e->region.kind, RB_REGION_DISC);
    assert_true(e->region.centre[1] == 5.0f && e->region.radius == 2.0f);
    assert_true(e->rate == 100000.0f);
    assert_int_equal(e->max_alive, 0);
    assert_true(e->direction[0] == 0.0f && e->direction[1] == 1.0f && e->direction[2] == 0.0f);
    assert_true(e->speed == 0.0f && e->speed_spread == 0.0f && e->cone == 0.0f && e->spin == 0.0f);
    assert_true(e->lifetime == 0.0f && e->start == 0.0f && e->duration == 0.0f);
    assert_true(e->seed == 2); /* its index + 1 */

    e = &d->emitters[2];
    assert_int_equal(e->region.kind, RB_REGION_POINT);
    assert_true(e->region.centre[0] == 7.0f && e->region.centre[1] == 8.0f && e->region.centre[2] == 9.0f);
    assert_true(e->rate == 0.5f);
    assert_near(e->cone, M_PI, 1e-6);
    assert_true(e->seed == 3);

    assert_int_equal(d->field_count, 6);
    const rb_field *f = &d->fields[0];
    assert_int_equal(f->kind, RB_FIELD_RADIAL);
    assert_true(f->centre[1] == 1.0f && f->radius == 6.0f && f->start == 2.0f && f->duration == 0.5f);
    assert_true(f->strength == 500.0f && !f->impulse && f->falloff == 2.0f && f->up == 0.3f);
    f = &d->fields[1];
    assert_true(f->kind == RB_FIELD_RADIAL && f->impulse && f->falloff == 1.0f && f->up == 0.0f);
    assert_true(f->centre[0] == 0.0f && f->centre[1] == 0.0f && f->centre[2] == 0.0f);
    assert_true(f->start == 0.0f && f->duration == 0.0f);
    f = &d->fields[2];
    assert_int_equal(f->kind, RB_FIELD_WIND);
    assert_true(f->velocity[0] == 5.0f && f->velocity[1] == 0.0f && f->velocity[2] == 1.0f);
    assert_true(f->drag == 0.9f && f->radius == 0.0f && f->start == 3.0f); /* radius 0: everywhere */
    f = &d->fields[3];
    assert_true(f->kind == RB_FIELD_WIND && f->drag == 0.6f && f->radius == 10.0f && f->centre[2] == 3.0f);
    f = &d->fields[4];
    assert_int_equal(f->kind, RB_FIELD_VORTEX);
    assert_true(f->centre[2] == 4.0f && f->radius == 5.0f && f->strength == 7.0f && f->drag == 1.0f);
    assert_near(f->axis[0], 0.6, 1e-7);
    assert_true(f->axis[1] == 0.0f);
    assert_near(f->axis[2], 0.8, 1e-7);
    f = &d->fields[5];
    assert_true(f->kind == RB_FIELD_VORTEX && f->drag == 2.0f && f->strength == 3.0f);
    assert_true(f->axis[0] == 0.0f && f->axis[1] == 1.0f && f->axis[2] == 0.0f);

    assert_int_equal(d->max_bodies, 300);
    assert_true(d->remove_asleep == 4.0f);
    assert_int_equal(d->kill_count, 2);
    assert_true(d->kill[0].min[0] == -100.0f && d->kill[0].min[1] == -10.0f && d->kill[0].max[1] == -5.0f);
    assert_true(d->kill[1].max[0] == 1.0f && d->kill[1].max[2] == 1.0f);
    rb_scene_destroy(s);
}

/* The desc is there exactly when the scene has effects. */
static void test_debris_only_when_asked_for(void **state) {
    (void)state;
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], "
                        "\"lifetime\": 0}]}");
    assert_null(s->debris);
    rb_scene_destroy(s);
    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"lifetime\": 1}]}");
    assert_non_null(s->debris);
    assert_int_equal(s->debris->emitter_count + s->debris->field_count + s->debris->kill_count, 0);
    assert_int_equal(s->debris->max_bodies, 0);
    rb_scene_destroy(s);
    const char *each[] = {"{\"rubble_scene\": 1, \"emitters\": []}", "{\"rubble_scene\": 1, \"fields\": []}",
                          "{\"rubble_scene\": 1, \"debris\": {}}"};
    for (int i = 0; i < 3; i++) {
        s = parse(each[i]);
        assert_non_null(s->debris);
        rb_scene_destroy(s);
    }
}

static void test_unknown_keys_are_warned_about(void **state) {
    (void)state;
    g_log[0] = '\0';
    /* a key of another field type is unknown to this one */
    rb_scene *s = parse("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\", "
                        "\"colour\": 1}], \"rat\": 2}], \"fields\": [{\"type\": \"wind\", \"velocity\": [1, 0, 0], "
                        "\"strength\": 3}], \"debris\": {\"kill\": []}}");
    assert_non_null(s->debris);
    assert_non_null(strstr(g_log, "t.json: emitters[0].rat: unknown key, ignored"));
    assert_non_null(strstr(g_log, "t.json: emitters[0].shapes[0].colour: unknown key, ignored"));
    assert_non_null(strstr(g_log, "t.json: fields[0].strength: unknown key, ignored"));
    assert_non_null(strstr(g_log, "t.json: debris.kill: unknown key, ignored"));
    rb_scene_destroy(s);
}

static void test_bad_rates(void **state) {
    (void)state;
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 10, \"shapes\": [{\"shape\": \"cube\"}]},"
            "{\"rate\": 10, \"shapes\": [{\"shape\": \"cube\"}]}, {\"rate\": 0, \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[2].rate:", "expected a number > 0");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": -3, \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0].rate:", "> 0");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1e-300, \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0].rate:", "> 0"); /* 0 as a float */
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1e999, \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0].rate:", "not a finite number");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 100001, \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0].rate:", "limit");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": \"fast\", \"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0].rate:", "expected a number");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"shapes\": [{\"shape\": \"cube\"}]}]}",
            "t.json: emitters[0]:", "'rate' is missing");
}

static void test_bad_shapes(void **state) {
    (void)state;
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}, {\"shape\": "
            "\"cub\"}]}]}",
            "t.json: emitters[0].shapes[1].shape:", "unknown shape 'cub'");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": []}]}",
            "t.json: emitters[0].shapes:", "at least one shape");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1}]}", "t.json: emitters[0]:", "'shapes' is missing");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [1,2,3,4,5,6,7,8,9]}]}",
            "t.json: emitters[0].shapes:", "at most 8");
    refused(EMITTER(", \"shapes\": [{\"shape\": \"cube\", \"scale\": 0}]"), "emitters[0]", "given twice");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\", \"scale\": 0}]}]}",
            "t.json: emitters[0].shapes[0].scale:", "out of range");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\", \"weight\": 0}]}]}",
            "t.json: emitters[0].shapes[0].weight:", "> 0");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [\"cube\"]}]}",
            "t.json: emitters[0].shapes[0]:", "expected {");
}

static void test_bad_emitter_values(void **state) {
    (void)state;
    refused(EMITTER(", \"direction\": [0, 0, 0]"), "t.json: emitters[0].direction:", "zero vector");
    refused(EMITTER(", \"direction\": [0, 1]"), "t.json: emitters[0].direction:", "expected 3 numbers");
    refused(EMITTER(", \"cone\": 181"), "t.json: emitters[0].cone:", "out of range");
    refused(EMITTER(", \"speed\": -1"), "t.json: emitters[0].speed:", ">= 0");
    refused(EMITTER(", \"speed_spread\": -1"), "t.json: emitters[0].speed_spread:", ">= 0");
    refused(EMITTER(", \"spin\": -1"), "t.json: emitters[0].spin:", ">= 0");
    refused(EMITTER(", \"lifetime\": -1"), "t.json: emitters[0].lifetime:", ">= 0");
    refused(EMITTER(", \"start\": -1"), "t.json: emitters[0].start:", ">= 0");
    refused(EMITTER(", \"duration\": -0.5"), "t.json: emitters[0].duration:", ">= 0");
    refused(EMITTER(", \"seed\": 1.5"), "t.json: emitters[0].seed:", "whole number");
    refused(EMITTER(", \"seed\": -1"), "t.json: emitters[0].seed:", "out of range");
    refused(EMITTER(", \"max_alive\": -1"), "t.json: emitters[0].max_alive:", "whole number");
    refused(EMITTER(", \"region\": {}"), "t.json: emitters[0].region:", "expected one of");
    refused(EMITTER(", \"region\": {\"point\": [0, 0, 0], \"box\": {\"half\": [1, 1, 1]}}"),
            "t.json: emitters[0].region:", "expected one of");
    refused(EMITTER(", \"region\": {\"box\": {\"centre\": [0, 0, 0]}}"),
            "t.json: emitters[0].region.box:", "'half' is missing");
    refused(EMITTER(", \"region\": {\"box\": {\"half\": [1, -1, 1]}}"), "t.json: emitters[0].region.box.half:", ">= 0");
    refused(EMITTER(", \"region\": {\"disc\": {\"centre\": [0, 0, 0], \"radius\": -2}}"),
            "t.json: emitters[0].region.disc.radius:", ">= 0");
    refused(EMITTER(", \"region\": {\"point\": [0, 1e39, 0]}"),
            "t.json: emitters[0].region.point:", "not a finite number");
    refused("{\"rubble_scene\": 1, \"emitters\": {}}", "t.json: emitters:", "expected an array");
}

static void test_too_many_entries(void **state) {
    (void)state;
    char text[1 << 14];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"rubble_scene\": 1, \"emitters\": [");
    for (uint32_t i = 0; i <= RB_DEBRIS_MAX_EMITTERS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}]}",
                              i ? ", " : "");
    snprintf(text + n, sizeof text - n, "]}");
    refused(text, "t.json: emitters:", "at most 32 emitters (got 33)");
    n = (size_t)snprintf(text, sizeof text, "{\"rubble_scene\": 1, \"fields\": [");
    for (uint32_t i = 0; i <= RB_DEBRIS_MAX_FIELDS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"type\": \"wind\", \"velocity\": [1, 0, 0]}",
                              i ? ", " : "");
    snprintf(text + n, sizeof text - n, "]}");
    refused(text, "t.json: fields:", "at most 32 fields");
    n = (size_t)snprintf(text, sizeof text, "{\"rubble_scene\": 1, \"debris\": {\"kill_regions\": [");
    for (uint32_t i = 0; i <= RB_DEBRIS_MAX_KILL_REGIONS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"min\": [0, 0, 0], \"max\": [1, 1, 1]}", i ? ", " : "");
    snprintf(text + n, sizeof text - n, "]}}");
    refused(text, "t.json: debris.kill_regions:", "at most 16");
}

static void test_bad_fields(void **state) {
    (void)state;
    refused(FIELD("{\"type\": \"explosion\", \"radius\": 1, \"strength\": 1}"),
            "t.json: fields[0].type:", "unknown field type 'explosion'");
    refused(FIELD("{\"radius\": 1, \"strength\": 1}"), "t.json: fields[0]:", "'type' is missing");
    refused(FIELD("{\"type\": \"wind\", \"velocity\": [1, 0, 0]}, {\"type\": \"radial\", \"radius\": 0, "
                  "\"strength\": 1}"),
            "t.json: fields[1].radius:", "> 0");
    refused(FIELD("{\"type\": \"vortex\", \"radius\": 0, \"strength\": 1}"), "t.json: fields[0].radius:", "> 0");
    refused(FIELD("{\"type\": \"vortex\", \"strength\": 1}"), "t.json: fields[0]:", "'radius' is missing");
    refused(FIELD("{\"type\": \"wind\", \"velocity\": [1, 0, 0], \"radius\": -1}"),
            "t.json: fields[0].radius:", ">= 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": 0}"), "t.json: fields[0].strength:", "> 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": -5}"), "t.json: fields[0].strength:", "> 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2}"), "t.json: fields[0]:", "'strength' is missing");
    refused(FIELD("{\"type\": \"vortex\", \"radius\": 2, \"strength\": 0}"), "t.json: fields[0].strength:", "> 0");
    refused(FIELD("{\"type\": \"vortex\", \"radius\": 2, \"strength\": 1, \"axis\": [0, 0, 0]}"),
            "t.json: fields[0].axis:", "zero vector");
    refused(FIELD("{\"type\": \"vortex\", \"radius\": 2, \"strength\": 1, \"drag\": 0}"),
            "t.json: fields[0].drag:", "> 0");
    refused(FIELD("{\"type\": \"wind\"}"), "t.json: fields[0]:", "'velocity' is missing");
    refused(FIELD("{\"type\": \"wind\", \"velocity\": [1, 0, 0], \"drag\": 0}"), "t.json: fields[0].drag:", "> 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": 1, \"impulse\": 1}"),
            "t.json: fields[0].impulse:", "true or false");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": 1, \"falloff\": -1}"),
            "t.json: fields[0].falloff:", ">= 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": 1, \"up\": -1}"),
            "t.json: fields[0].up:", ">= 0");
    refused(FIELD("{\"type\": \"radial\", \"radius\": 2, \"strength\": 1e999}"),
            "t.json: fields[0].strength:", "not a finite number");
    refused(FIELD("{\"type\": \"wind\", \"velocity\": [1, 0, 0], \"start\": -1}"), "t.json: fields[0].start:", ">= 0");
    refused(FIELD("3"), "t.json: fields[0]:", "expected an object");
}

static void test_bad_debris_settings(void **state) {
    (void)state;
    refused(DEBRIS("{\"kill_regions\": [{\"min\": [0, 0, 0], \"max\": [1, 1, 1]}, {\"min\": [0, 2, 0], \"max\": [1, "
                   "2, 1]}]}"),
            "t.json: debris.kill_regions[1]:", "min must be below max");
    refused(DEBRIS("{\"kill_regions\": [{\"min\": [0, 0, 5], \"max\": [1, 1, 1]}]}"),
            "t.json: debris.kill_regions[0]:", "min must be below max");
    refused(DEBRIS("{\"kill_regions\": [{\"min\": [0, 0, 0]}]}"),
            "t.json: debris.kill_regions[0]:", "'max' is missing");
    refused(DEBRIS("{\"max_bodies\": 2.5}"), "t.json: debris.max_bodies:", "whole number");
    refused(DEBRIS("{\"remove_asleep\": -1}"), "t.json: debris.remove_asleep:", ">= 0");
    refused(DEBRIS("[]"), "t.json: debris:", "expected an object");
}

static void test_bad_lifetimes(void **state) {
    (void)state;
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"lifetime\": -1}]}",
            "t.json: bodies[0].lifetime:", "out of range");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 2, "
            "\"lifetime\": -2}]}",
            "t.json: generators[0].lifetime:", "out of range");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"lifetime\": 1e999}]}",
            "t.json: bodies[0].lifetime:", "not a finite number");
}

/* A body's `breakable`: true for the defaults, or a pattern with its
 * settings; bad ones refused with the key. */
#define BREAKABLE(inside)                                                                                              \
    "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"breakable\": " inside "}]}"

static void test_breakable(void **state) {
    (void)state;
    rb_scene *s = parse(BREAKABLE("true"));
    assert_true(s->bodies[0].breakable);
    assert_int_equal(s->bodies[0].fracture.kind, RB_FRACTURE_VORONOI);
    assert_int_equal(s->bodies[0].fracture.pieces, 8);
    assert_near(s->bodies[0].fracture.strength, RB_FRACTURE_STRENGTH, 0.0);
    assert_non_null(s->debris); /* a breakable body makes a scene with debris */
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"layers\", \"pieces\": 4, \"seed\": 9, \"strength\": 5000}"));
    assert_int_equal(s->bodies[0].fracture.kind, RB_FRACTURE_LAYERS);
    assert_int_equal(s->bodies[0].fracture.pieces, 4);
    assert_int_equal(s->bodies[0].fracture.seed, 9);
    assert_near(s->bodies[0].fracture.strength, 5000.0, 0.0);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("false"));
    assert_false(s->bodies[0].breakable);
    assert_null(s->debris);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"plugin\"}")); /* the cube plugin gives its pieces */
    assert_int_equal(s->bodies[0].fracture.kind, RB_FRACTURE_GIVEN);
    rb_scene_destroy(s);
    g_log[0] = '\0';
    s = parse(BREAKABLE("{\"pieces\": 50}")); /* more pieces than particles: one a particle, said */
    assert_int_equal(s->bodies[0].fracture.pieces, 27);
    assert_non_null(strstr(g_log, "t.json: bodies[0].breakable.pieces: 50 pieces of a 27-particle shape"));
    rb_scene_destroy(s);
    refused(BREAKABLE("{\"pattern\": \"shatter\"}"), "t.json: bodies[0].breakable.pattern:", "unknown pattern");
    refused(BREAKABLE("{\"pieces\": 0}"), "t.json: bodies[0].breakable.pieces:", "1 or more");
    refused(BREAKABLE("{\"strength\": 0}"), "t.json: bodies[0].breakable.strength:", "> 0");
    refused(BREAKABLE("{\"strength\": -5}"), "t.json: bodies[0].breakable.strength:", "> 0");
    refused(BREAKABLE("{\"strength\": 1e999}"), "t.json: bodies[0].breakable.strength:", "not a finite number");
    refused(BREAKABLE("{\"seed\": 1.5}"), "t.json: bodies[0].breakable.seed:", "whole number");
    refused(BREAKABLE("3"), "t.json: bodies[0].breakable:", "expected true, false or an object");
}

/* The patterns an artist controls: slices at a normal, radial wedges and
 * rings about an axis, voronoi drawn about the hit; each key read, each bad
 * value refused with its key named. */
static void test_breakable_patterns(void **state) {
    (void)state;
    rb_scene *s = parse(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 2, 0], \"pieces\": 4}"));
    const rb_fracture_desc *f = &s->bodies[0].fracture;
    assert_int_equal(f->kind, RB_FRACTURE_SLICES);
    assert_int_equal(f->pieces, 4);
    assert_near(f->normal[1], 1.0, 1e-7); /* normalised */
    assert_near(f->normal[0], 0.0, 0.0);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [1, 1, 0]}"));
    assert_int_equal(s->bodies[0].fracture.pieces, 3);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 0, 1], \"wedges\": 5, \"rings\": 3, \"centre\": [0.1, "
                        "0.2, 0], \"seed\": 4}"));
    f = &s->bodies[0].fracture;
    assert_int_equal(f->kind, RB_FRACTURE_RADIAL);
    assert_int_equal(f->wedges, 5);
    assert_int_equal(f->rings, 3);
    assert_true(f->centre_given);
    assert_near(f->centre[1], 0.2, 1e-7);
    assert_near(f->normal[2], 1.0, 0.0);
    assert_int_equal(f->seed, 4);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0]}"));
    f = &s->bodies[0].fracture;
    assert_int_equal(f->wedges, 6);
    assert_int_equal(f->rings, 2);
    assert_false(f->centre_given);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"impact\": true, \"focus\": 0.5, \"pieces\": 12}"));
    f = &s->bodies[0].fracture;
    assert_int_equal(f->kind, RB_FRACTURE_VORONOI);
    assert_true(f->impact);
    assert_near(f->focus, 0.5, 0.0);
    assert_int_equal(f->pieces, 12);
    rb_scene_destroy(s);
    s = parse(BREAKABLE("{\"pattern\": \"voronoi\", \"impact\": true}"));
    assert_true(s->bodies[0].fracture.impact);
    assert_near(s->bodies[0].fracture.focus, 0.0, 0.0); /* a quarter of the body's reach from the hit */
    rb_scene_destroy(s);
    g_log[0] = '\0';
    s = parse(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [1, 0, 0], \"pieces\": 40}"));
    assert_int_equal(s->bodies[0].fracture.pieces, 27);
    assert_non_null(strstr(g_log, "t.json: bodies[0].breakable.pieces: 40 pieces of a 27-particle shape"));
    rb_scene_destroy(s);

    refused(BREAKABLE("{\"pattern\": \"slices\"}"), "t.json: bodies[0].breakable:", "needs a 'normal'");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 0, 0]}"),
            "t.json: bodies[0].breakable.normal:", "a zero vector");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 1]}"),
            "t.json: bodies[0].breakable.normal:", "expected 3 numbers");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 1e999, 0]}"),
            "t.json: bodies[0].breakable.normal:", "not a finite number");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 1, 0], \"pieces\": 0}"),
            "t.json: bodies[0].breakable.pieces:", "1 or more");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 1, 0], \"pieces\": -2}"),
            "t.json: bodies[0].breakable.pieces:", "whole number");
    refused(BREAKABLE("{\"pattern\": \"radial\"}"), "t.json: bodies[0].breakable:", "needs an 'axis'");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 0, 0]}"),
            "t.json: bodies[0].breakable.axis:", "a zero vector");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"wedges\": 0}"),
            "t.json: bodies[0].breakable.wedges:", "1 or more");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"rings\": 0}"),
            "t.json: bodies[0].breakable.rings:", "1 or more");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"rings\": 1.5}"),
            "t.json: bodies[0].breakable.rings:", "whole number");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"wedges\": 5000}"),
            "t.json: bodies[0].breakable.wedges:", "limit");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"centre\": \"middle\"}"),
            "t.json: bodies[0].breakable.centre:", "expected 3 numbers");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"pieces\": 4}"),
            "t.json: bodies[0].breakable.pieces:", "wedges x rings");
    refused(BREAKABLE("{\"impact\": true, \"focus\": 0}"), "t.json: bodies[0].breakable.focus:", "> 0");
    refused(BREAKABLE("{\"impact\": true, \"focus\": -1}"), "t.json: bodies[0].breakable.focus:", "> 0");
    refused(BREAKABLE("{\"impact\": 1}"), "t.json: bodies[0].breakable.impact:", "true or false");
    refused(BREAKABLE("{\"focus\": 1}"), "t.json: bodies[0].breakable.focus:", "\"impact\": true");
    refused(BREAKABLE("{\"pattern\": \"layers\", \"normal\": [0, 1, 0]}"),
            "t.json: bodies[0].breakable.normal:", "pattern 'layers' takes no 'normal'");
    refused(BREAKABLE("{\"pattern\": \"slices\", \"normal\": [0, 1, 0], \"axis\": [0, 1, 0]}"),
            "t.json: bodies[0].breakable.axis:", "pattern 'slices' takes no 'axis'");
    refused(BREAKABLE("{\"pattern\": \"radial\", \"axis\": [0, 1, 0], \"impact\": true}"),
            "t.json: bodies[0].breakable.impact:", "pattern 'radial' takes no 'impact'");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"static\": true, "
            "\"breakable\": true}]}",
            "t.json: bodies[0].breakable:", "only a dynamic body breaks");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_is_read),
        cmocka_unit_test(test_debris_only_when_asked_for),
        cmocka_unit_test(test_unknown_keys_are_warned_about),
        cmocka_unit_test(test_bad_rates),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_bad_emitter_values),
        cmocka_unit_test(test_too_many_entries),
        cmocka_unit_test(test_bad_fields),
        cmocka_unit_test(test_bad_debris_settings),
        cmocka_unit_test(test_bad_lifetimes),
        cmocka_unit_test(test_breakable),
        cmocka_unit_test(test_breakable_patterns),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
