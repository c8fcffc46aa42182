# Debris keys of scene files (tests/test_debris_read.c): read, and every bad value refused.
rb_add_test(test_debris_read SOURCES test_debris_read.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_debris_read PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_debris_read cube cube2)
