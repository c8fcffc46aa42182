# Tests of the app's house: the step clock alone, the entity table, and the
# layering rule (tests/check_layers.cmake).
rb_add_test(test_step_clock SOURCES test_step_clock.c LIBS rubble_app)
target_include_directories(test_step_clock PRIVATE ${PROJECT_SOURCE_DIR}/src/app)

rb_add_test(test_entities SOURCES test_entities.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_entities PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_entities cube cube2)

# Includes run downward only (base <- shapes <- sim, render <- scenes <- app),
# plugins see only plugins/rubble_plugin.h, and no header includes itself
# through others.
add_test(NAME test_layers COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P
                                  ${CMAKE_CURRENT_SOURCE_DIR}/check_layers.cmake)
