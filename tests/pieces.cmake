# Breakable bodies' piece loads (tests/test_pieces.c): slabs of a resting cube
# carry what statics says; breaks given out once; the same bits on both backends.
rb_add_test(test_pieces SOURCES test_pieces.c LIBS rubble_shapes rubble_sim rubble_base)
add_test(NAME test_pieces_opencl COMMAND test_pieces WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_pieces_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
target_compile_definitions(test_pieces PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")

# Piece loads of bodies spinning in space (tests/test_pieces_spin.c): slabs
# of a spinning cube carry m w^2 r, a precessing rod's ends their measured
# acceleration; on both backends.
rb_add_test(test_pieces_spin SOURCES test_pieces_spin.c LIBS rubble_shapes rubble_sim rubble_base)
target_compile_definitions(test_pieces_spin PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_test(NAME test_pieces_spin_opencl COMMAND test_pieces_spin WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_pieces_spin_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)
