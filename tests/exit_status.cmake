# Exit statuses as README.md promises them, the sandbox (offscreen) and
# --headless alike; the world's cap on bodies (world.max_bodies) against
# emitters and breaks; messages that echo typed numbers; rubble-bench's nan
# (tests/test_exit_status.c). The sandbox's cases need the window.
if(NOT RB_BUILD_APP OR NOT TARGET rubble_sandbox)
  return()
endif()
rb_add_test(test_exit_status SOURCES test_exit_status.c LIBS rubble_scenes rubble_shapes rubble_base cjson)
target_compile_definitions(test_exit_status PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                                    RB_TEST_BENCH="$<TARGET_FILE:rubble-bench>"
                                                    RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                    RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_exit_status rubble rubble-bench cube cube2)
set_tests_properties(test_exit_status PROPERTIES ENVIRONMENT
                     "${RB_TEST_ENV};SDL_VIDEODRIVER=offscreen;SDL_AUDIODRIVER=dummy")
