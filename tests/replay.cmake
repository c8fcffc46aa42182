# --replay (tests/test_replay.c): a cache recorded in the test, its replay
# clock and timeline alone, the sandbox replaying it offscreen under
# scripts (SDL_VIDEODRIVER=offscreen), simulate from here, and the program
# refusing what it cannot replay. Its files are in the build folder.
if(NOT RB_BUILD_APP OR NOT TARGET rubble_sandbox)
  return()
endif()
rb_add_test(test_replay SOURCES test_replay.c LIBS rubble_sandbox TIMEOUT 600)
# the meshless plugin's folder: built by tests/sandbox.cmake
target_compile_definitions(test_replay PRIVATE RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                               RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_MESHLESS_DIR="${CMAKE_BINARY_DIR}/tests/meshless-plugin"
                                               RB_TEST_RUBBLE="$<TARGET_FILE:rubble>")
add_dependencies(test_replay cube cube2 test_meshless_plugin rubble)
set_tests_properties(test_replay PROPERTIES ENVIRONMENT "${RB_TEST_ENV};SDL_VIDEODRIVER=offscreen;SDL_AUDIODRIVER=dummy")
