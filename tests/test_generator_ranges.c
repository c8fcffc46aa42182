/* Generators' ranges (src/scenes/scene_read_generators.c, the table in
 * docs/scene-format.md, "Generators"): for each bounded value, one just
 * outside its range is refused with the file, the key and the reason, and
 * the bound itself (or one just inside an open bound) is accepted and
 * makes the bodies it asks for. */
#include "rb_test.h"
#include "scenes/formations.h"
#include "scenes/scene.h"

static rb_registry *g_reg;

static void quiet(rb_log_level level, const char *message, void *user) {
    (void)level, (void)message, (void)user;
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    rb_set_log_fn(quiet, NULL);
    return g_reg && rb_registry_find(g_reg, "cube") >= 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_set_log_fn(NULL, NULL);
    rb_registry_destroy(g_reg);
    return 0;
}

/* A scene of one generator, its keys given (without braces). */
static void scene_of(char *text, size_t size, const char *keys) {
    snprintf(text, size, "{\"rubble_scene\": 1, \"generators\": [{\"shape\": \"cube\", %s}]}", keys);
}

/* Accepted, with `bodies` bodies. */
static void accepted(const char *keys, uint32_t bodies) {
    char text[512], err[1024] = "";
    scene_of(text, sizeof text, keys);
    rb_scene *s = rb_scene_parse(text, "gen.json", g_reg, err, sizeof err);
    if (!s) fail_msg("refused: %s (%s)", err, keys);
    if (s->body_count != bodies) fail_msg("%u bodies, expected %u (%s)", s->body_count, bodies, keys);
    rb_scene_destroy(s);
}

/* Refused, the message starting with the file and the key and saying `says`. */
static void refused(const char *keys, const char *key, const char *says) {
    char text[512], err[1024] = "", where[128];
    scene_of(text, sizeof text, keys);
    rb_scene *s = rb_scene_parse(text, "gen.json", g_reg, err, sizeof err);
    if (s) fail_msg("accepted, but should say '%s': %s", says, keys);
    snprintf(where, sizeof where, "gen.json: generators[0].%s: ", key);
    if (strncmp(err, where, strlen(where)) != 0) fail_msg("says '%s', should start '%s'", err, where);
    if (!strstr(err, says)) fail_msg("says '%s', should say '%s'", err, says);
}

/* formation: 1 to RB_FORMATION_COUNT (5). */
static void test_formation_range(void **state) {
    (void)state;
    refused("\"type\": \"formation\", \"formation\": 0, \"count\": 4", "formation", "formation takes 1 to 5");
    refused("\"type\": \"formation\", \"formation\": 6, \"count\": 4", "formation", "more than the limit of 5");
    accepted("\"type\": \"formation\", \"formation\": 1, \"count\": 4", 4);
    accepted("\"type\": \"formation\", \"formation\": 5, \"count\": 4", 4);
}

/* heap: count >= 1, size > 0 on each axis. */
static void test_heap_ranges(void **state) {
    (void)state;
    refused("\"type\": \"heap\", \"count\": 0, \"size\": [6, 6, 6]", "count", "a heap of 0 bodies");
    accepted("\"type\": \"heap\", \"count\": 1, \"size\": [6, 6, 6]", 1);
    for (int axis = 0; axis < 3; axis++) {
        char keys[128];
        float size[3] = {6.0f, 6.0f, 6.0f};
        size[axis] = 0.0f;
        snprintf(keys, sizeof keys, "\"type\": \"heap\", \"count\": 1, \"size\": [%g, %g, %g]", size[0], size[1],
                 size[2]);
        refused(keys, "size", "expected 3 sizes > 0");
    }
}

/* grid: whole counts from 0, spacings > 0 on each axis; ring: radius >= 0. */
static void test_grid_and_ring_ranges(void **state) {
    (void)state;
    refused("\"type\": \"grid\", \"count\": [2, 1, 2], \"spacing\": [2, 0, 2]", "spacing", "spacings > 0");
    refused("\"type\": \"grid\", \"count\": [2, 1, 2], \"spacing\": [-0.001, 2, 2]", "spacing", "spacings > 0");
    accepted("\"type\": \"grid\", \"count\": [2, 1, 2], \"spacing\": [2, 0.001, 2]", 4);
    refused("\"type\": \"grid\", \"count\": [2, -1, 2]", "count", "whole counts from 0");
    refused("\"type\": \"grid\", \"count\": [2, 1.5, 2]", "count", "whole counts from 0");
    accepted("\"type\": \"grid\", \"count\": [2, 0, 2]", 0);
    refused("\"type\": \"ring\", \"count\": 3, \"radius\": -0.001", "radius", "out of range [0, 1000000]");
    accepted("\"type\": \"ring\", \"count\": 3, \"radius\": 0", 3);
}

/* Every generator's scale: 0.01 to 100; its gap >= 0. */
static void test_scale_and_gap_ranges(void **state) {
    (void)state;
    refused("\"type\": \"tower\", \"height\": 2, \"scale\": 0.0099", "scale", "out of range [0.01, 100]");
    refused("\"type\": \"tower\", \"height\": 2, \"scale\": 100.01", "scale", "out of range [0.01, 100]");
    accepted("\"type\": \"tower\", \"height\": 2, \"scale\": 0.01", 2);
    accepted("\"type\": \"tower\", \"height\": 2, \"scale\": 100", 2);
    refused("\"type\": \"tower\", \"height\": 2, \"gap\": -0.001", "gap", "out of range [0, 1000000]");
    accepted("\"type\": \"tower\", \"height\": 2, \"gap\": 0", 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formation_range),
        cmocka_unit_test(test_heap_ranges),
        cmocka_unit_test(test_grid_and_ring_ranges),
        cmocka_unit_test(test_scale_and_gap_ranges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
