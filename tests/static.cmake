# Static friction and big-body contacts (tests/test_static.c), with sleeping
# off: towers, formations 2-4 and a brick wall stand, a cube holds on a 20
# degree slope and slides on a 30 degree one, big lattice cubes land at the
# material's restitution, the sandbox's default scene comes to rest; on the
# reference and again on the OpenCL backend. Every scene run to its full
# length steps about 150 M particle-steps: about 30 s on the reference in a
# Release build on two cores (three to four times that under the
# sanitizers); the limit leaves room for that and for PoCL.
rb_add_test(test_static SOURCES test_static.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 600)
target_compile_definitions(test_static PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_static cube cube2)
add_test(NAME test_static_opencl COMMAND test_static WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_static_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
