# The same run on every backend (tests/test_same_run.c): five scenes of
# 2,000 steps or more (a pile, mixed shapes, mixed sizes, breaking bodies, an
# emitter with fields) give the same digest on the reference and on OpenCL.
rb_add_test(test_same_run SOURCES test_same_run.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 900)
target_compile_definitions(test_same_run PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                 RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_same_run cube cube2 mesh)
set_tests_properties(test_same_run PROPERTIES COST 200) # among the longest: started early (tests/static.cmake)
