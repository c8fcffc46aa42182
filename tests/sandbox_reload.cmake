# Live reload (tests/test_live_reload.c): L finds a mesh copied into a
# --meshes folder and replaces the shape of a plugin rebuilt in its folder,
# in a running offscreen sandbox; the registry and entity table alone too.
# The plugin is tests/plugins/rebuilt.c built twice, into two folders.
if(NOT RB_BUILD_APP OR NOT TARGET rubble_sandbox)
  return()
endif()
foreach(version 1 2)
  add_library(test_rebuilt_v${version} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/rebuilt.c)
  target_compile_definitions(test_rebuilt_v${version} PRIVATE REBUILT_VERSION=${version})
  target_include_directories(test_rebuilt_v${version} PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
  set_target_properties(test_rebuilt_v${version} PROPERTIES PREFIX "" OUTPUT_NAME rebuilt
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/rebuilt-v${version} C_VISIBILITY_PRESET hidden)
endforeach()
rb_add_test(test_live_reload SOURCES test_live_reload.c LIBS rubble_sandbox TIMEOUT 300)
target_compile_definitions(test_live_reload PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                    RB_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data"
                                                    RB_TEST_REBUILT_V1="${CMAKE_BINARY_DIR}/tests/rebuilt-v1"
                                                    RB_TEST_REBUILT_V2="${CMAKE_BINARY_DIR}/tests/rebuilt-v2")
add_dependencies(test_live_reload test_rebuilt_v1 test_rebuilt_v2 cube cube2 mesh)
set_tests_properties(test_live_reload PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")
