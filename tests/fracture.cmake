# Breakable bodies' pieces, bonds and splits (tests/test_fracture.c): host
# geometry and mechanics only, no world and no plugin.
rb_add_test(test_fracture SOURCES test_fracture.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base)
# rb_test.h's helpers name the plugin folder; this test loads none.
target_compile_definitions(test_fracture PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
