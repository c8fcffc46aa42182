# Input read within bounds (tests/test_input_bounds.c): scene files that are
# not regular files, too large, of too many keys or values refused at once
# with the limit named; values the simulation cannot carry refused at their
# key; a cube at the top speed allowed gains no energy on the ground (on the
# reference and again on the OpenCL backend).
rb_add_test(test_input_bounds SOURCES test_input_bounds.c LIBS rubble_scenes rubble_shapes rubble_base TIMEOUT 300)
target_compile_definitions(test_input_bounds PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_input_bounds cube cube2)
add_test(NAME test_input_bounds_opencl COMMAND test_input_bounds WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_input_bounds_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl"
                                                         TIMEOUT 300)

# Input scripts read within bounds (tests/test_script_bounds.c): FIFOs,
# devices and files over the cap refused at once; a long script in reverse
# order read quickly and fed to SDL whole, in order, past SDL's queue size.
if(RB_BUILD_APP AND TARGET rubble_sandbox)
  rb_add_test(test_script_bounds SOURCES test_script_bounds.c LIBS rubble_sandbox TIMEOUT 300)
  set_tests_properties(test_script_bounds PROPERTIES ENVIRONMENT "${RB_TEST_ENV};SDL_VIDEODRIVER=offscreen")
endif()
