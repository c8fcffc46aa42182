# rubble wedge (docs/wedge.md): a small wedge run here, through GNU parallel
# and a Slurm array task run by hand, against single headless runs; its
# refusals. The variants run on the default backend (OpenCL on PoCL here).
rb_add_test(test_wedge SOURCES test_wedge.c LIBS rubble_scenes rubble_shapes rubble_base cjson)
target_compile_definitions(test_wedge PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                              RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                              RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_wedge rubble cube cube2)
