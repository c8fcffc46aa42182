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

# The headless runner's warm-up leaves no trace (tests/test_warm.c): bodies
# touching at the start, a breakable body and a joint, warmed or not, on the
# reference and OpenCL, end in the same state.
rb_add_test(test_warm SOURCES test_warm.c LIBS rubble_app)
target_compile_definitions(test_warm PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_warm cube cube2)

# The events file (tests/test_events.c): a breaking scene's breaks and
# pieces, an emitter's spawns and removals as the debris layer counted them,
# a dropped cube's impact at the time and impulse physics gives, bad
# options refused; on the reference and on OpenCL.
rb_add_test(test_events SOURCES test_events.c LIBS rubble_app rubble_record cjson)
target_compile_definitions(test_events PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_events cube cube2)
add_test(NAME test_events_opencl COMMAND test_events WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(test_events_opencl PROPERTIES ENVIRONMENT "${RB_TEST_ENV};RUBBLE_TEST_BACKEND=opencl" TIMEOUT 600)

# A cache reader's memory and time bounded by the cache's size
# (tests/test_cache_bounds.c): a chunk inflating far past its stored bytes
# (read, and exported by the rubble program), a FIFO, /dev/zero, a
# directory, a large sparse file, a header's bits flipped, bytes after the
# end mark; each read in a child process whose peak memory and time count.
rb_add_test(test_cache_bounds SOURCES test_cache_bounds.c LIBS rubble_record PkgConfig::RB_TEST_ZSTD)
add_dependencies(test_cache_bounds rubble cube cube2)
target_compile_definitions(test_cache_bounds PRIVATE RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                                     RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                     RB_TEST_RUBBLE="$<TARGET_FILE:rubble>")
