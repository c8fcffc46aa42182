# The build of 8 contact history slots a particle (-DRB_CONTACT_SLOTS=8):
# built beside this one and its slot-dependent tests run there
# (tests/slots8/run.cmake; about 15 s to build and 30 s to run on two
# cores). Only from a build of the default 4, which is what the rest tests.
if(RB_CONTACT_SLOTS STREQUAL "4")
  add_test(NAME test_slots8
           COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DBIN=${CMAKE_BINARY_DIR}/slots8 -P
                   ${CMAKE_CURRENT_SOURCE_DIR}/slots8/run.cmake)
  set_tests_properties(test_slots8 PROPERTIES ENVIRONMENT "${RB_TEST_ENV}" TIMEOUT 1200)
endif()
