# The limits README states under "Limits" (a plank or a particle passed
# through, corner landings of big bodies), held at their measured figures;
# on the reference and again on the OpenCL backend.
rb_add_test(test_limits SOURCES test_limits.c LIBS rubble_shapes rubble_sim rubble_base)
target_compile_definitions(test_limits PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_limits cube cube2)
add_test(NAME test_limits_opencl COMMAND test_limits WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_limits_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
