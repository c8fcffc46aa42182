# Breakable bodies in the step (tests/test_breaking.c): the default strength's
# drop heights, momentum across a break, the same digest on both backends.
rb_add_test(test_breaking SOURCES test_breaking.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 600)
target_compile_definitions(test_breaking PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_breaking cube cube2)
add_test(NAME test_breaking_opencl COMMAND test_breaking WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_breaking_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
