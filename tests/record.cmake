# Record and export (tests/test_record.c): a run with births, deaths and a
# break recorded and read back bit for bit (the pieces' cut meshes and the
# bodies' colours too; a version 2 cache, tests/data/cache-v2.rbc, still reads), the cache cut at 50 seeded
# offsets, bad caches refused, the CSV export. Its files are in the build folder.
pkg_check_modules(RB_TEST_ZSTD REQUIRED IMPORTED_TARGET libzstd) # caches made by hand
rb_add_test(test_record SOURCES test_record.c LIBS rubble_app rubble_record PkgConfig::RB_TEST_ZSTD)
target_compile_definitions(test_record PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                               RB_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(test_record cube cube2)

# Resume from a keyframe (tests/test_resume.c): a recorded heap built again
# from its keyframe's scene reaches the next keyframe bit for bit on both
# backends; so does a keyframe after a break, its pieces saved as the scene's own shapes.
rb_add_test(test_resume SOURCES test_resume.c LIBS rubble_app rubble_record)
target_compile_definitions(test_resume PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_resume cube cube2)
