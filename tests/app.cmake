# Tests of the house: the entity table, the layering rule
# (tests/data/check_layers.cmake) and call loops (tests/data/check_calls.cmake),
# scene files, the headless runner.

rb_add_test(test_entities SOURCES test_entities.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_entities PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_entities cube cube2)

# Includes run downward only (base <- shapes <- sim, render <- scenes <- record <- app <- sandbox),
# plugins see only plugins/rubble_plugin.h, and no header includes itself
# through others.
add_test(NAME test_layers COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P
                                  ${CMAKE_CURRENT_SOURCE_DIR}/data/check_layers.cmake)

# Scene files: reading, generators, refusals, saving, bit-identical reloads;
# on the reference and again on the OpenCL backend.
rb_add_test(test_scene SOURCES test_scene.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_scene PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                              RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                              RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_scene cube cube2 mesh)
add_test(NAME test_scene_opencl COMMAND test_scene WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_scene_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)

# Generators' documented ranges: a value just outside refused with the file
# and key, the bound accepted (parsing only: one backend is enough).
rb_add_test(test_generator_ranges SOURCES test_generator_ranges.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_generator_ranges PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_generator_ranges cube)

# The stage: one live scene (world, entity table, scene, debris), installed
# whole or not at all, stepped one way; on the reference and on OpenCL.
rb_add_test(test_stage SOURCES test_stage.c LIBS rubble_scenes rubble_shapes rubble_base)
target_compile_definitions(test_stage PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                              RB_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(test_stage cube cube2 mesh)
add_test(NAME test_stage_opencl COMMAND test_stage)
set_tests_properties(test_stage_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 300)

# No call loops: no source files of src/ whose object files need each
# other's symbols, directly or round a circle (tests/data/check_calls.cmake).
# It reads the objects of every library and program of src/, listed here
# when the build is configured; like every test it runs after the build.
function(rb_src_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    rb_src_targets(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()
set(rb_call_objects "")
get_property(rb_top_dirs DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY SUBDIRECTORIES)
foreach(dir ${rb_top_dirs})
  string(FIND "${dir}/" "${PROJECT_SOURCE_DIR}/src/" at)
  if(NOT at EQUAL 0)
    continue()
  endif()
  rb_src_targets(${dir} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      list(APPEND rb_call_objects "$<TARGET_OBJECTS:${t}>")
    endif()
  endforeach()
endforeach()
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/call_objects.txt CONTENT "$<JOIN:${rb_call_objects},\n>\n")
add_test(NAME test_calls COMMAND ${CMAKE_COMMAND} -DLIST=${CMAKE_CURRENT_BINARY_DIR}/call_objects.txt
                                 -DBUILD=${CMAKE_BINARY_DIR} -DNM=${CMAKE_NM} -P
                                 ${CMAKE_CURRENT_SOURCE_DIR}/data/check_calls.cmake)
