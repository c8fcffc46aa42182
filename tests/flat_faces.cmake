# Bodies that behave like their shapes (tests/test_flat_faces.c): lattice
# bodies' flat faces bounce, slide and rest as flat faces, body on body and
# body on plane; on the reference and again on the OpenCL backend
# (scripts/flat-faces prints every figure of both).
#
# block10, the ramp of its last cases, is the cube plugin (plugins/cube/cube.c)
# built with 10 particles a side, into a folder of its own so that the
# plugin folder (the sandbox's shapes) does not get it.
set(RB_BLOCK_PLUGIN_DIR ${CMAKE_BINARY_DIR}/tests/blockplugins)
add_library(test_block10_plugin MODULE ${PROJECT_SOURCE_DIR}/plugins/cube/cube.c)
target_compile_definitions(test_block10_plugin PRIVATE CUBE_N=10 CUBE_NAME="block10")
target_include_directories(test_block10_plugin PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
set_target_properties(test_block10_plugin PROPERTIES PREFIX "" OUTPUT_NAME block10
                                                     LIBRARY_OUTPUT_DIRECTORY ${RB_BLOCK_PLUGIN_DIR}
                                                     C_VISIBILITY_PRESET hidden)

rb_add_test(test_flat_faces SOURCES test_flat_faces.c LIBS rubble_shapes rubble_sim rubble_base TIMEOUT 900)
target_compile_definitions(test_flat_faces PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                   RB_BLOCK_PLUGIN="$<TARGET_FILE:test_block10_plugin>"
                                                   RB_CUBE_PLUGIN="$<TARGET_FILE:cube>"
                                                   RB_CUBE2_PLUGIN="$<TARGET_FILE:cube2>")
add_dependencies(test_flat_faces cube cube2 test_block10_plugin)
add_test(NAME test_flat_faces_opencl COMMAND test_flat_faces WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_flat_faces_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl"
                                                       TIMEOUT 900)
