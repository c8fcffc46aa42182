# Run by CTest as test_slots8 (tests/slots.cmake): configures and builds,
# beside the build under test, a Release build with 8 contact history slots
# a particle (-DRB_CONTACT_SLOTS=8, CMakeLists.txt), without the sandbox,
# and runs there the tests that the slot count touches: the OpenCL kernels
# against the reference to the bit, memory included (test_opencl), and
# rolling friction on both backends (test_rolling, test_rolling_opencl).
# SRC: the source tree; BIN: the folder to build in.
foreach(step
        "${CMAKE_COMMAND};-S;${SRC};-B;${BIN};-DCMAKE_BUILD_TYPE=Release;-DRB_CONTACT_SLOTS=8;-DRB_BUILD_APP=OFF"
        "${CMAKE_COMMAND};--build;${BIN};-j2;--target;test_opencl;test_rolling;cube;cube2"
        "${CMAKE_CTEST_COMMAND};--test-dir;${BIN};--output-on-failure;-R;^test_opencl$|^test_rolling")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${step}")
    message(FATAL_ERROR "the 8-slot build: '${shown}' failed (${rc})")
  endif()
endforeach()
