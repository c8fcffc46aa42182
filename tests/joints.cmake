# Joints and keyframed paths (tests/test_joints.c): the chain's period, the
# breaking force, paths on their keys, the scene keys and their refusals,
# the wrecking-ball scene; each physical check on both backends.
rb_add_test(test_joints SOURCES test_joints.c LIBS rubble_scenes rubble_shapes rubble_sim rubble_base TIMEOUT 600)
target_compile_definitions(test_joints PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_joints cube cube2 mesh)
