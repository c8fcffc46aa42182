# A scene saved with its debris layer (tests/test_debris_save.c): N steps,
# saved, loaded and M more give N + M steps' digest on both backends; a
# damaged debris_state refused naming its key.
rb_add_test(test_debris_save SOURCES test_debris_save.c LIBS rubble_app cjson)
target_compile_definitions(test_debris_save PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                    RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_debris_save cube cube2)
add_test(NAME test_debris_save_opencl COMMAND test_debris_save WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_debris_save_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl"
                                                        TIMEOUT 600)

# rubble --headless --save and --save-every, and rubble-bench --save
# (tests/test_cli_save.c): the saved state runs on to one run's digest;
# files it must not write over.
rb_add_test(test_cli_save SOURCES test_cli_save.c LIBS rubble_scenes rubble_shapes rubble_base cjson)
target_compile_definitions(test_cli_save PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                                 RB_TEST_BENCH="$<TARGET_FILE:rubble-bench>" RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                 RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_cli_save rubble rubble-bench cube cube2)
