# Debris effects at run time (tests/test_debris.c): emitters, lifetimes, fields.
rb_add_test(test_debris SOURCES test_debris.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 600)
target_compile_definitions(test_debris PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_debris cube cube2)
add_test(NAME test_debris_opencl COMMAND test_debris WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_debris_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)

# The removals a mutation run found untested (tests/test_debris_gaps.c): a
# kill region's six faces, sleep removal after a second sleep, and the
# lifetime a broken debris body's pieces keep; on both backends.
rb_add_test(test_debris_gaps SOURCES test_debris_gaps.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 600)
target_compile_definitions(test_debris_gaps PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_debris_gaps cube)
add_test(NAME test_debris_gaps_opencl COMMAND test_debris_gaps WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_debris_gaps_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
