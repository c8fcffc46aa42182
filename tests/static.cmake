# Static friction and big-body contacts (tests/test_static.c), with sleeping
# off: towers, formations 2-4 and a brick wall stand, a cube holds on a 20
# degree slope and slides on a 30 degree one, big lattice cubes land at the
# material's restitution, the sandbox's default scene comes to rest; on the
# reference and again on the OpenCL backend. Every scene run to its full
# length steps about 150 M particle-steps: about 90 s on the reference in a
# Release build on two cores, 60% of it formations 2-4, and about five times
# that under the sanitizers (444 s in CI). So the reference's run is two
# tests that CTest runs side by side, formations 2-4 alone
# (test_static_formations) and the rest, and the limits leave room for a
# machine twice as slow.
rb_add_test(test_static SOURCES test_static.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 1200)
target_compile_definitions(test_static PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_static cube cube2 mesh)
set_tests_properties(test_static PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_STATIC_SKIP=test_formations_stand")
add_test(NAME test_static_formations COMMAND test_static WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_static_formations PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_STATIC_ONLY=test_formations_stand"
                     TIMEOUT 1200)
add_test(NAME test_static_opencl COMMAND test_static WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_static_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 1200)
# The longest tests of the suite: CTest starts the costliest first, also in a
# fresh build that has no timings of its own yet.
set_tests_properties(test_static test_static_formations PROPERTIES COST 400)
set_tests_properties(test_static_opencl PROPERTIES COST 100)
