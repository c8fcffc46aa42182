/* Plugin loading: every refusal has its own reason and message, and the
 * shapes already loaded stay. The bad plugins are real libraries built from
 * tests/plugins/bad_plugin.c and opened with dlopen. */
#include "rb_test.h"

static char last_message[4096]; /* every message since the last reset, one a line */

static void capture(rb_log_level level, const char *message, void *user) {
    size_t used = strlen(last_message);
    snprintf(last_message + used, sizeof last_message - used, "%s\n", message);
}

static rb_registry *registry_with_cubes(void) {
    rb_set_log_fn(capture, NULL);
    rb_registry *reg = rb_test_registry();
    assert_true(rb_registry_find(reg, "cube") >= 0);
    assert_true(rb_registry_find(reg, "cube2") >= 0);
    return reg;
}

/* Loads a bad plugin and checks the reason, the message and that nothing was lost. */
static void expect_refusal(const char *file, rb_load_result expected, const char *words) {
    rb_registry *reg = registry_with_cubes();
    uint32_t before = rb_registry_count(reg);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", RB_BAD_PLUGIN_DIR, file);
    last_message[0] = '\0';
    rb_load_result r = rb_registry_load_plugin(reg, path);
    if (r != expected)
        fail_msg("%s: got '%s', expected '%s'", file, rb_load_result_name(r), rb_load_result_name(expected));
    if (!strstr(last_message, path) || !strstr(last_message, words))
        fail_msg("%s: message '%s' should name the file and say '%s'", file, last_message, words);
    assert_int_equal(rb_registry_count(reg), before);
    assert_true(rb_registry_find(reg, "cube") >= 0);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

static void test_cannot_open_missing(void **state) { expect_refusal("missing.so", RB_LOAD_CANNOT_OPEN, "cannot open"); }

static void test_cannot_open_garbage(void **state) {
    char path[1024];
    snprintf(path, sizeof path, "%s/garbage.so", RB_BAD_PLUGIN_DIR);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("this is not an ELF file\n", f);
    fclose(f);
    expect_refusal("garbage.so", RB_LOAD_CANNOT_OPEN, "cannot open");
    remove(path);
}

static void test_no_entry(void **state) { expect_refusal("no_entry.so", RB_LOAD_NO_ENTRY, "no entry point"); }
static void test_entry_null(void **state) {
    expect_refusal("entry_null.so", RB_LOAD_ENTRY_FAILED, "refusing to start");
}
/* abi.so's shape is good: only its abi_version (99) refuses it. */
static void test_abi(void **state) { expect_refusal("abi.so", RB_LOAD_ABI_MISMATCH, "built for version 99"); }

/* A plugin without a shape function is said to be that, not an ABI mismatch. */
static void test_null_shape_function(void **state) {
    expect_refusal("null_shape.so", RB_LOAD_NO_SHAPES, "no shape function (shape is NULL)");
    assert_null(strstr(last_message, "ABI"));
}

/* A name of non-ASCII bytes and a quote is refused with the name escaped. */
static void test_bad_name_is_escaped(void **state) {
    expect_refusal("bad_name.so", RB_LOAD_BAD_NAME, "shape name \"k\\xc3\\xbc\\x22bel\"");
}

/* A plugin's own name is held to the rule of a shape's: none, a quote and
 * a newline, or 300 characters are each refused with the file, the name
 * escaped, and none of its shapes loaded. */
static void test_bad_plugin_names(void **state) {
    expect_refusal("plugin_null.so", RB_LOAD_BAD_NAME, "has no name (name is NULL)");
    expect_refusal("plugin_quote.so", RB_LOAD_BAD_NAME, "plugin name \"bad\\x22name\\x0a\"");
    expect_refusal("plugin_long.so", RB_LOAD_BAD_NAME, "plugin name \"abcdefghijklmnopqrstuvwxyzabcd");
    expect_refusal("plugin_long.so", RB_LOAD_BAD_NAME, "1-63 printable ASCII characters");
}

/* A list that never ends: its shape loads once and one line says so, where
 * 4,095 duplicate warnings were printed before. */
static void test_endless_list_said_once(void **state) {
    rb_registry *reg = registry_with_cubes();
    const uint32_t before = rb_registry_count(reg);
    char path[1024];
    snprintf(path, sizeof path, "%s/endless.so", RB_BAD_PLUGIN_DIR);
    last_message[0] = '\0';
    assert_int_equal(rb_registry_load_plugin(reg, path), RB_LOAD_DUPLICATE_NAME);
    assert_int_equal(rb_registry_count(reg), before + 1);
    assert_true(rb_registry_find(reg, "endless") >= 0);
    int lines = 0;
    for (const char *c = last_message; *c; c++) lines += *c == '\n';
    if (lines != 1 || !strstr(last_message, "shape(1) is shape(0) again") || !strstr(last_message, path))
        fail_msg("expected one line naming the file and the repeat, got:\n%s", last_message);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* A plugin may hand out every shape in one static struct, refilled at each
 * call (the registry copies a shape before asking for the next): that is no
 * endless list, and both shapes load. */
static void test_reused_struct_is_not_endless(void **state) {
    (void)state;
    rb_registry *reg = registry_with_cubes();
    char path[1024];
    snprintf(path, sizeof path, "%s/reused.so", RB_BAD_PLUGIN_DIR);
    assert_int_equal(rb_registry_load_plugin(reg, path), RB_LOAD_OK);
    assert_true(rb_registry_find(reg, "reused_a") >= 0);
    assert_true(rb_registry_find(reg, "reused_b") >= 0);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* The same line said again and again reaches the sink RB_LOG_REPEATS times,
 * then one line with the count once another message comes. */
static void test_log_repeats_are_counted(void **state) {
    rb_set_log_fn(capture, NULL);
    last_message[0] = '\0';
    for (int i = 0; i < 1000; i++) rb_log(RB_LOG_ERROR, "world: cannot add a body");
    rb_log(RB_LOG_INFO, "something else");
    char expected[512] = "";
    for (int i = 0; i < RB_LOG_REPEATS; i++) strcat(expected, "world: cannot add a body\n");
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected),
             "(the message above came %d more times)\nsomething else\n", 1000 - RB_LOG_REPEATS);
    assert_string_equal(last_message, expected);
    rb_set_log_fn(NULL, NULL);
}
static void test_no_shapes(void **state) { expect_refusal("no_shapes.so", RB_LOAD_NO_SHAPES, "no shapes"); }
static void test_no_particles(void **state) { expect_refusal("no_particles.so", RB_LOAD_NO_PARTICLES, "no particles"); }
static void test_non_finite(void **state) { expect_refusal("non_finite.so", RB_LOAD_NON_FINITE, "NaN or infinite"); }
static void test_overlap(void **state) { expect_refusal("overlap.so", RB_LOAD_OVERLAP, "closer than one diameter"); }
static void test_too_many(void **state) { expect_refusal("too_many.so", RB_LOAD_TOO_MANY, "more than the limit"); }
static void test_mesh_index(void **state) { expect_refusal("mesh_index.so", RB_LOAD_BAD_MESH, "past the"); }

/* A plugin with one good and one bad shape: the good one is added. */
static void test_mixed_keeps_good_shape(void **state) {
    rb_registry *reg = registry_with_cubes();
    uint32_t before = rb_registry_count(reg);
    char path[1024];
    snprintf(path, sizeof path, "%s/mixed.so", RB_BAD_PLUGIN_DIR);
    assert_int_equal(rb_registry_load_plugin(reg, path), RB_LOAD_OVERLAP);
    assert_int_equal(rb_registry_count(reg), before + 1);
    assert_true(rb_registry_find(reg, "pair") >= 0);
    assert_true(rb_registry_find(reg, "squeezed") < 0);
    /* its description's control bytes are kept escaped, not printed raw */
    assert_string_equal(rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "pair"))->description,
                        "a \\x1b[31mred\\x1b[0m pair\\x0a");
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* Scanning the folder of bad plugins loads only the good shape and keeps going. */
static void test_scan_folder_goes_on(void **state) {
    rb_registry *reg = registry_with_cubes();
    uint32_t before = rb_registry_count(reg);
    int loaded = rb_registry_scan_dir(reg, RB_BAD_PLUGIN_DIR);
    /* every plugin there has a problem but reused.so (two shapes); mixed.so's
     * good shape and endless.so's first are in too */
    assert_int_equal(loaded, 1);
    assert_int_equal(rb_registry_count(reg), before + 4);
    /* a rescan finds nothing new; loading cube again adds no duplicate */
    assert_int_equal(rb_registry_rescan(reg), 0);
    assert_int_equal(rb_registry_count(reg), before + 4);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* A shape that names its particle diameter gets it: radius, spacing and
 * mass from the density at that size (1000 kg/m^3 of the cell, 1 kg for a
 * 0.1 m particle), inertia of a solid sphere of it; a shape that names 0
 * gets the registry's. A negative, huge or NaN diameter is refused with its
 * own reason, naming the file and the field, and the plugin's other shapes
 * load. */
static void test_sized_shapes(void **state) {
    rb_set_log_fn(capture, NULL);
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    char path[1024];
    snprintf(path, sizeof path, "%s/sized.so", RB_SIZED_PLUGIN_DIR);
    last_message[0] = '\0';
    assert_int_equal(rb_registry_load_plugin(reg, path), RB_LOAD_BAD_SIZE);
    assert_non_null(strstr(last_message, path));
    assert_non_null(strstr(last_message, "particle_diameter"));
    assert_string_equal(rb_load_result_name(RB_LOAD_BAD_SIZE), "bad particle size");
    assert_int_equal(rb_registry_count(reg), 2);
    assert_true(rb_registry_find(reg, "sized_negative") < 0 && rb_registry_find(reg, "sized_huge") < 0 &&
                rb_registry_find(reg, "sized_nan") < 0);
    const rb_shape *pebble = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "sized_pebble"));
    assert_true(pebble->particle_radius == 0.05f);
    assert_near(pebble->mass, 1.0, 1e-6);
    assert_near(pebble->inertia[0], 0.4 * 1.0 * 0.05 * 0.05, 1e-9);
    assert_near(pebble->bounding_radius, 0.05, 1e-7);
    float half[3];
    rb_shape_half_extents(pebble, half);
    assert_near(half[0], 0.05, 1e-7);
    const rb_shape *pair = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "sized_pair"));
    assert_true(pair->particle_radius == 0.2f);
    assert_near(pair->mass, 128.0, 1e-4);
    const float *q = pair->particles;
    assert_near(sqrtf((q[3] - q[0]) * (q[3] - q[0]) + (q[4] - q[1]) * (q[4] - q[1]) + (q[5] - q[2]) * (q[5] - q[2])),
                0.4, 1e-6);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* A plugin built against the version-1 header (tests/plugins/v1: its
 * rb_shape_desc has no particle_diameter) loads as it always did: its shape
 * has the registry's particle size (0.15 here), not whatever lies past its
 * struct (a float that would read as 7 m). */
static void test_old_abi_plugin_loads(void **state) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.15f});
    char path[1024];
    snprintf(path, sizeof path, "%s/old_abi.so", RB_SIZED_PLUGIN_DIR);
    assert_int_equal(rb_registry_load_plugin(reg, path), RB_LOAD_OK);
    const int i = rb_registry_find(reg, "old_tetra");
    assert_true(i >= 0);
    const rb_shape *s = rb_registry_get(reg, (uint32_t)i);
    assert_true(s->particle_radius == 0.15f);
    assert_near(s->mass, 4 * 1000.0 * 0.3 * 0.3 * 0.3, 1e-3);
    assert_null(s->pieces); /* its struct ends before rb_shape_desc.pieces */
    rb_registry_destroy(reg);
}

/* A plugin's pieces (rb_shape_desc.pieces) reach the registry in particle
 * order: the cube's four columns, 12, 6, 6 and 3 particles; a shape of a
 * plugin built before the field (or without pieces) has none. */
static void test_plugin_pieces(void **state) {
    (void)state;
    rb_registry *reg = registry_with_cubes();
    const rb_shape *cube = rb_registry_get(reg, (uint32_t)rb_registry_find(reg, "cube"));
    assert_non_null(cube->pieces);
    uint32_t count[4] = {0};
    for (uint32_t i = 0; i < cube->particle_count; i++) {
        assert_true(cube->pieces[i] < 4);
        count[cube->pieces[i]]++;
    }
    assert_int_equal(count[0], 12);
    assert_int_equal(count[1], 6);
    assert_int_equal(count[2], 6);
    assert_int_equal(count[3], 3);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cannot_open_missing),
        cmocka_unit_test(test_cannot_open_garbage),
        cmocka_unit_test(test_no_entry),
        cmocka_unit_test(test_entry_null),
        cmocka_unit_test(test_abi),
        cmocka_unit_test(test_plugin_pieces),
        cmocka_unit_test(test_null_shape_function),
        cmocka_unit_test(test_bad_name_is_escaped),
        cmocka_unit_test(test_bad_plugin_names),
        cmocka_unit_test(test_endless_list_said_once),
        cmocka_unit_test(test_reused_struct_is_not_endless),
        cmocka_unit_test(test_log_repeats_are_counted),
        cmocka_unit_test(test_no_shapes),
        cmocka_unit_test(test_no_particles),
        cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_too_many),
        cmocka_unit_test(test_mesh_index),
        cmocka_unit_test(test_mixed_keeps_good_shape),
        cmocka_unit_test(test_scan_folder_goes_on),
        cmocka_unit_test(test_sized_shapes),
        cmocka_unit_test(test_old_abi_plugin_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
