# A wedge's pictures and tables (tests/test_wedge_sheet.c): rubble --headless
# --shots drawn offscreen (SDL_VIDEODRIVER=offscreen) on both backends, and
# rubble wedge --collect on a folder the test builds from a real run's shots.
if(NOT RB_BUILD_APP OR NOT TARGET rubble_sandbox)
  return()
endif()
rb_add_test(test_wedge_sheet SOURCES test_wedge_sheet.c LIBS rubble_app PkgConfig::STB m TIMEOUT 600)
target_compile_definitions(test_wedge_sheet PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                                    RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                                    RB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_wedge_sheet rubble cube cube2)
set_tests_properties(test_wedge_sheet PROPERTIES ENVIRONMENT "${RB_TEST_ENV}") # no SDL_VIDEODRIVER: --shots sets it
