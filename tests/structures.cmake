# Structures (tests/test_structures.c): dormant and anchored bodies, glued
# assemblies, the shipped anchored wall and glued building, bad structures;
# on the reference and on OpenCL.
rb_add_test(test_structures SOURCES test_structures.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 900)
target_compile_definitions(test_structures PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                   RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_structures cube cube2 mesh)
add_test(NAME test_structures_opencl COMMAND test_structures WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_structures_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl"
                                                       TIMEOUT 900)
