# Tests of the OpenCL backend: forces, trajectories and digests
# checked against the sequential reference on the first OpenCL device.
rb_add_test(test_opencl SOURCES test_opencl.c LIBS rubble_scenes rubble_shapes rubble_sim)
rb_test_sim_internals(test_opencl) # opencl.h: the backend's own functions
add_dependencies(test_opencl cube cube2) # the test loads the build's plugins

# The foundation's tests that take their backend from RUBBLE_TEST_BACKEND
# (tests/rb_test.h) run a second time on the OpenCL backend.
set(RB_OPENCL_TEST_ENV ${RB_TEST_ENV} "RUBBLE_TEST_BACKEND=opencl")
foreach(t test_physics test_world test_sizes)
  if(TARGET ${t})
    add_test(NAME ${t}_opencl COMMAND ${t} WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(${t}_opencl PROPERTIES ENVIRONMENT "${RB_OPENCL_TEST_ENV}" TIMEOUT 600)
  endif()
endforeach()

# The cells law's far touches (a sphere at a cell's corner or seam, a cell's
# corner on a plane): both kernel sets against the reference, bit for bit.
rb_add_test(test_cells_reach SOURCES test_cells_reach.c LIBS rubble_shapes rubble_sim)
target_compile_definitions(test_cells_reach PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}") # rb_test.h
