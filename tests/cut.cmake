# Broken bodies' pieces cut from their body's mesh (tests/test_cut.c): the
# cut's pieces closed, their volumes, the grouping and the cut agreeing, bad
# meshes, the cost (printed), and a break's children in a world, on the
# reference and again on the OpenCL backend.
rb_add_test(test_cut SOURCES test_cut.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base)
target_compile_definitions(test_cut PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                            RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_cut cube cube2 mesh)
add_test(NAME test_cut_opencl COMMAND test_cut WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_cut_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
