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
static void test_abi(void **state) { expect_refusal("abi.so", RB_LOAD_ABI_MISMATCH, "incompatible ABI"); }
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
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

/* Scanning the folder of bad plugins loads only the good shape and keeps going. */
static void test_scan_folder_goes_on(void **state) {
    rb_registry *reg = registry_with_cubes();
    uint32_t before = rb_registry_count(reg);
    int loaded = rb_registry_scan_dir(reg, RB_BAD_PLUGIN_DIR);
    assert_int_equal(loaded, 0);                          /* every plugin there has a problem */
    assert_int_equal(rb_registry_count(reg), before + 1); /* but mixed.so's good shape is in */
    /* a rescan finds nothing new; loading cube again adds no duplicate */
    assert_int_equal(rb_registry_rescan(reg), 0);
    assert_int_equal(rb_registry_count(reg), before + 1);
    rb_registry_destroy(reg);
    rb_set_log_fn(NULL, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cannot_open_missing),
        cmocka_unit_test(test_cannot_open_garbage),
        cmocka_unit_test(test_no_entry),
        cmocka_unit_test(test_entry_null),
        cmocka_unit_test(test_abi),
        cmocka_unit_test(test_no_shapes),
        cmocka_unit_test(test_no_particles),
        cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_too_many),
        cmocka_unit_test(test_mesh_index),
        cmocka_unit_test(test_mixed_keeps_good_shape),
        cmocka_unit_test(test_scan_folder_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
