# Tests of the foundation: shapes, plugins, world, reference physics, CLI.
set(RB_BAD_PLUGIN_DIR ${CMAKE_BINARY_DIR}/tests/badplugins)
set(RB_BAD_CASES no_entry entry_null abi no_shapes no_particles non_finite overlap too_many mesh_index mixed null_shape
                 endless bad_name reused plugin_null plugin_quote plugin_long)
set(case_number 1)
foreach(case ${RB_BAD_CASES})
  add_library(bad_${case} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/bad_plugin.c)
  target_compile_definitions(bad_${case} PRIVATE BAD_CASE=${case_number})
  target_include_directories(bad_${case} PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
  set_target_properties(bad_${case} PROPERTIES PREFIX "" OUTPUT_NAME ${case} LIBRARY_OUTPUT_DIRECTORY ${RB_BAD_PLUGIN_DIR}
                                               C_VISIBILITY_PRESET hidden)
  target_link_libraries(bad_${case} PRIVATE m)
  list(APPEND RB_BAD_PLUGIN_TARGETS bad_${case})
  math(EXPR case_number "${case_number} + 1")
endforeach()

# Plugins that name their particle size, and one built against the version-1
# header (tests/plugins/v1), whose rb_shape_desc has no particle_diameter.
set(RB_SIZED_PLUGIN_DIR ${CMAKE_BINARY_DIR}/tests/sizedplugins)
add_library(test_sized_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/sized.c)
target_include_directories(test_sized_plugin PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
add_library(test_old_abi_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/old_abi.c)
target_include_directories(test_old_abi_plugin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/v1)
foreach(t test_sized_plugin test_old_abi_plugin)
  string(REPLACE "test_" "" out ${t})
  string(REPLACE "_plugin" "" out ${out})
  set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME ${out} LIBRARY_OUTPUT_DIRECTORY ${RB_SIZED_PLUGIN_DIR}
                                        C_VISIBILITY_PRESET hidden)
  target_link_libraries(${t} PRIVATE m)
  list(APPEND RB_BAD_PLUGIN_TARGETS ${t})
endforeach()

set(RB_TEST_DEFS RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}" RB_BAD_PLUGIN_DIR="${RB_BAD_PLUGIN_DIR}"
                 RB_SIZED_PLUGIN_DIR="${RB_SIZED_PLUGIN_DIR}"
                 RB_TEST_RUBBLE="$<TARGET_FILE:rubble>" RB_TEST_BENCH="$<TARGET_FILE:rubble-bench>"
                 RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}" RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

rb_add_test(test_mass SOURCES test_mass.c LIBS rubble_shapes)
rb_add_test(test_cells SOURCES test_cells.c LIBS rubble_shapes)
rb_add_test(test_plugins SOURCES test_plugins.c LIBS rubble_shapes)
add_dependencies(test_plugins ${RB_BAD_PLUGIN_TARGETS} cube cube2)
set(RB_FOUNDATION_TESTS test_mass test_cells test_plugins)
foreach(t test_world test_grid test_physics test_sizes test_cli)
  rb_add_test(${t} SOURCES ${t}.c LIBS rubble_scenes rubble_shapes cjson)
  list(APPEND RB_FOUNDATION_TESTS ${t})
endforeach()
add_dependencies(test_cli rubble rubble-bench cube cube2)
foreach(t ${RB_FOUNDATION_TESTS})
  target_compile_definitions(${t} PRIVATE ${RB_TEST_DEFS})
  target_link_libraries(${t} PRIVATE rubble_base)
endforeach()
# These look inside the simulation on purpose (world_internal.h, contact.h):
# src/sim's private headers, which programs do not see.
rb_test_sim_internals(test_grid test_physics test_sizes)
