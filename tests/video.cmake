# --video (tests/test_video.c): the rubble program run offscreen with its
# frames piped to ffmpeg, checked with ffprobe; no ffmpeg, an output that
# cannot be written and a failing ffmpeg each refused, leaving nothing.
# ffmpeg and ffprobe come from Debian's ffmpeg (scripts/deps).
if(NOT RB_BUILD_APP OR NOT TARGET rubble_sandbox)
  return()
endif()
rb_add_test(test_video SOURCES test_video.c LIBS PkgConfig::STB TIMEOUT 600)
target_compile_definitions(test_video PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                              RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_video rubble cube cube2)
set_tests_properties(test_video PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")
