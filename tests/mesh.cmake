# Tests of the mesh plugin (plugins/mesh): the voxelizer, the plugin as a host
# loads it, the registry's principal frame of a voxelized mesh, and a plugin
# built out of tree from plugins/README.md.
if(TARGET mesh)
  rb_add_test(test_mesh_voxelize SOURCES test_mesh_voxelize.c LIBS rubble_voxelize rubble_mesh_load rubble_shapegen)
  target_compile_definitions(test_mesh_voxelize PRIVATE RB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")

  rb_add_test(test_mesh_plugin SOURCES test_mesh_plugin.c LIBS rubble_shapegen ${CMAKE_DL_LIBS})
  target_include_directories(test_mesh_plugin PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
  target_compile_definitions(test_mesh_plugin PRIVATE RB_MESH_PLUGIN="$<TARGET_FILE:mesh>"
                                                      RB_TEST_OUT="${CMAKE_BINARY_DIR}/test-mesh-plugin"
                                                      RB_ASSETS_DIR="${PROJECT_SOURCE_DIR}/assets/meshes")
  add_dependencies(test_mesh_plugin mesh)

  # Mesh files that declare more than they hold, refused before assimp reads them.
  rb_add_test(test_mesh_header SOURCES test_mesh_header.c LIBS rubble_mesh_load rubble_mesh_header TIMEOUT 120)
  target_compile_definitions(test_mesh_header PRIVATE RB_TEST_OUT="${CMAKE_BINARY_DIR}/test-mesh-header"
                                                      RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

  rb_add_test(test_mesh_registry SOURCES test_mesh_registry.c LIBS rubble_shapes rubble_shapegen)
  target_compile_definitions(test_mesh_registry PRIVATE RB_MESH_PLUGIN="$<TARGET_FILE:mesh>"
                                                        RB_TEST_OUT="${CMAKE_BINARY_DIR}/test-mesh-registry"
                                                        RB_ASSETS_DIR="${PROJECT_SOURCE_DIR}/assets/meshes")
  add_dependencies(test_mesh_registry mesh)
endif()

# The plugins/README.md example, built out of tree and simulated by rubble.
if(TARGET rubble)
  add_test(NAME test_mesh_example_plugin
           COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DHEADER=${PROJECT_SOURCE_DIR}/plugins/rubble_plugin.h
                   -DREADME=${PROJECT_SOURCE_DIR}/plugins/README.md
                   -DSOURCE=${PROJECT_SOURCE_DIR}/plugins/example/tetra.c -DWORK=${CMAKE_BINARY_DIR}/test-mesh-example
                   -DRUBBLE=$<TARGET_FILE:rubble> -P ${CMAKE_CURRENT_SOURCE_DIR}/mesh/run_example_plugin.cmake
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(test_mesh_example_plugin PROPERTIES ENVIRONMENT "${RB_TEST_ENV}" TIMEOUT 300)
endif()
