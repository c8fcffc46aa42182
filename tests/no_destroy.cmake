# No command destroys a file it did not mean to write (tests/test_no_destroy.c):
# the rubble program run as a user runs it, offscreen where it draws.
# Screenshots on a full disk (a file size limit), one file named twice, a
# pipe or a device as an output, saves in one second, SIGTERM and SIGINT
# mid-write, and an export's outputs all or none.
rb_add_test(test_no_destroy SOURCES test_no_destroy.c TIMEOUT 600)
target_compile_definitions(test_no_destroy PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                                   RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_no_destroy rubble cube cube2)
if(TARGET rubble_sandbox)
  target_compile_definitions(test_no_destroy PRIVATE RB_TEST_HAVE_SANDBOX=1)
  set_tests_properties(test_no_destroy PROPERTIES ENVIRONMENT "${RB_TEST_ENV};SDL_VIDEODRIVER=offscreen;SDL_AUDIODRIVER=dummy")
endif()
