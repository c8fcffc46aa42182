# glTF export (src/record/gltf.c, tests/test_gltf.c): a small animation, and
# a breaking scene's recording (its pieces' cut meshes, a material a colour),
# written as .glb, checked by the Khronos validator (npm's gltf-validator, run
# with node: tests/gltf/validate.js) and read back by assimp. The validator is
# installed into the build folder by the test gltf_validator_install, which
# runs first and fails, saying why, when npm or its registry is missing.
find_program(RB_NODE node)
find_program(RB_NPM npm)
set(RB_GLTF_VALIDATOR_VERSION 2.0.0-dev.3.10)
set(RB_GLTF_VALIDATOR_DIR ${CMAKE_BINARY_DIR}/tools/gltf-validator)

add_test(NAME gltf_validator_install
         COMMAND ${CMAKE_COMMAND} -DNPM=${RB_NPM} -DPREFIX=${RB_GLTF_VALIDATOR_DIR}
                 -DVERSION=${RB_GLTF_VALIDATOR_VERSION} -P ${CMAKE_CURRENT_SOURCE_DIR}/gltf/install_validator.cmake)
set_tests_properties(gltf_validator_install PROPERTIES FIXTURES_SETUP gltf_validator TIMEOUT 300)

find_package(assimp REQUIRED CONFIG)
rb_add_test(test_gltf SOURCES test_gltf.c LIBS rubble_app rubble_record assimp::assimp m)
add_dependencies(test_gltf cube cube2) # the breaking scene's shapes
if(NOT RB_NODE)
  set(RB_NODE node) # the test says that node is missing
endif()
target_compile_definitions(
  test_gltf PRIVATE RB_TEST_OUT="${CMAKE_BINARY_DIR}/test-gltf" RB_NODE="${RB_NODE}"
                    RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                    RB_VALIDATE_JS="${CMAKE_CURRENT_SOURCE_DIR}/gltf/validate.js"
                    RB_VALIDATOR_MODULES="${RB_GLTF_VALIDATOR_DIR}/node_modules")
set_tests_properties(test_gltf PROPERTIES FIXTURES_REQUIRED gltf_validator)

# Exports a DCC takes as they are (tests/test_export.c): --fps resampling
# (every key on a frame, the range in the scene's extras, the validator),
# the recorded camera (assimp reads it; a headless run's from its scene's
# bookmark, through the rubble program), the CSV's names, parents and
# velocities.
rb_add_test(test_export SOURCES test_export.c LIBS rubble_app rubble_record assimp::assimp cjson m)
add_dependencies(test_export rubble cube cube2)
target_compile_definitions(
  test_export PRIVATE RB_TEST_OUT="${CMAKE_BINARY_DIR}/test-export" RB_NODE="${RB_NODE}"
                      RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                      RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                      RB_VALIDATE_JS="${CMAKE_CURRENT_SOURCE_DIR}/gltf/validate.js"
                      RB_VALIDATOR_MODULES="${RB_GLTF_VALIDATOR_DIR}/node_modules")
set_tests_properties(test_export PROPERTIES FIXTURES_REQUIRED gltf_validator)
