# A scene file holds the world after breaks (tests/test_save_shapes.c): the
# pieces saved as shapes of the scene's own with their meshes, a breakable
# body's piece loads, both continuing bit for bit; damaged entries refused.
# On the reference and again on the OpenCL backend.
rb_add_test(test_save_shapes SOURCES test_save_shapes.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_save_shapes PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_save_shapes cube cube2)
add_test(NAME test_save_shapes_opencl COMMAND test_save_shapes WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_save_shapes_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
