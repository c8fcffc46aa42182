# Tests of the OpenCL backend (issue 3): forces, trajectories and digests
# checked against the sequential reference on the first OpenCL device.
rb_add_test(test_opencl SOURCES test_opencl.c LIBS rubble_scenes rubble_shapes rubble_sim)
add_dependencies(test_opencl cube cube2) # the test loads the build's plugins
