# Rolling resistance (tests/test_rolling.c): a ball slows at 5/7 mu_r g and
# stops, holds on a slope below tan = mu_r and rolls down one above it at
# 5/7 g (sin - mu_r cos), and two balls rolling on each other keep their
# angular momentum; on the reference and again on the OpenCL backend.
rb_add_test(test_rolling SOURCES test_rolling.c LIBS rubble_shapes rubble_sim rubble_base TIMEOUT 300)
add_test(NAME test_rolling_opencl COMMAND test_rolling WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_rolling_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 300)
target_compile_definitions(test_rolling PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
