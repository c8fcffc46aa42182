# Tests of the sandbox: the renderer alone, the sandbox driven by
# scripted input, and the rubble program run as a user would. All of them
# under SDL_VIDEODRIVER=offscreen (Mesa llvmpipe through EGL: no X server).
if(NOT RB_BUILD_APP OR NOT TARGET rubble_render)
  return()
endif()
find_package(SDL2 REQUIRED CONFIG)
set(RB_SANDBOX_TEST_ENV ${RB_TEST_ENV} "SDL_VIDEODRIVER=offscreen" "SDL_AUDIODRIVER=dummy")

rb_add_test(test_render SOURCES test_render.c LIBS rubble_render SDL2::SDL2 PkgConfig::STB TIMEOUT 300)
target_compile_definitions(test_render PRIVATE RB_TEST_SOURCE_SHADERS="${PROJECT_SOURCE_DIR}/shaders")
set_tests_properties(test_render PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")

# The sandbox library (src/sandbox/CMakeLists.txt): the same code the program runs.
if(NOT TARGET rubble_sandbox)
  return()
endif()
# The sandbox's pieces without a window: the step clock, the per-period
# figures (--stats-every, read by scripts/soak) and the run's frame figures
# (--frame-stats).
rb_add_test(test_step_clock SOURCES test_step_clock.c LIBS rubble_sandbox)
rb_add_test(test_stats SOURCES test_stats.c LIBS rubble_sandbox)
# The tools, camera and script parser alone (no window).
rb_add_test(test_tools SOURCES test_tools.c LIBS rubble_sandbox TIMEOUT 300)
set_tests_properties(test_tools PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")
# Picking a body drawn as its particles by its particles' spheres (no window).
rb_add_test(test_pick_particles SOURCES test_pick_particles.c LIBS rubble_sandbox)

# The camera's framing of a box (src/sandbox/framing.c), pure maths.
rb_add_test(test_framing SOURCES test_framing.c LIBS rubble_sandbox)

# A plugin whose shape has no mesh, in a folder of its own (given with --plugins).
set(RB_MESHLESS_DIR ${CMAKE_BINARY_DIR}/tests/meshless-plugin)
add_library(test_meshless_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/meshless.c)
target_include_directories(test_meshless_plugin PRIVATE ${PROJECT_SOURCE_DIR}/plugins)
set_target_properties(test_meshless_plugin PROPERTIES PREFIX "" OUTPUT_NAME meshless LIBRARY_OUTPUT_DIRECTORY ${RB_MESHLESS_DIR}
                                                      C_VISIBILITY_PRESET hidden)

rb_add_test(test_sandbox SOURCES test_sandbox.c LIBS rubble_sandbox TIMEOUT 600)
target_compile_definitions(test_sandbox PRIVATE RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                                RB_TEST_SOURCE_SHADERS="${PROJECT_SOURCE_DIR}/shaders"
                                                RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                                RB_TEST_MESHLESS_DIR="${RB_MESHLESS_DIR}"
                                                RB_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data"
                                                RB_TEST_RUBBLE="$<TARGET_FILE:rubble>")
# mesh: a dropped mesh becomes a shape; rubble: --frame-stats as a user runs it
add_dependencies(test_sandbox cube cube2 test_meshless_plugin mesh rubble)
set_tests_properties(test_sandbox PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")

# The program as a user runs it: a script throws, grabs, deletes and explodes,
# then --screenshot saves the last frame; the checker looks at the PNG.
add_test(NAME test_sandbox_cli
         COMMAND ${CMAKE_COMMAND} -DRUBBLE=$<TARGET_FILE:rubble> -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/data/sandbox_tour.script
                 -DOUT=${CMAKE_BINARY_DIR}/test-sandbox-cli -P ${CMAKE_CURRENT_SOURCE_DIR}/data/sandbox_cli.cmake)
set_tests_properties(test_sandbox_cli PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}" TIMEOUT 300)

# --stats-every: the per-period line scripts/soak reads.
add_test(NAME test_stats_cli COMMAND ${CMAKE_COMMAND} -DRUBBLE=$<TARGET_FILE:rubble> -DOUT=${CMAKE_BINARY_DIR}/test-stats-cli
                                     -P ${CMAKE_CURRENT_SOURCE_DIR}/data/stats_cli.cmake)
set_tests_properties(test_stats_cli PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}" TIMEOUT 300)

# The settings the panels change (src/sandbox/settings.h), on worlds of their own: no window.
rb_add_test(test_settings SOURCES test_settings.c LIBS rubble_sandbox TIMEOUT 300)
target_compile_definitions(test_settings PRIVATE RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_settings cube cube2)
set_tests_properties(test_settings PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")

# The settings panels in the sandbox: drawn, hidden with F2, driven by scripted input through Dear ImGui.
rb_add_test(test_panels SOURCES test_panels.c LIBS rubble_sandbox TIMEOUT 600)
target_compile_definitions(test_panels PRIVATE RB_TEST_SOURCE_SHADERS="${PROJECT_SOURCE_DIR}/shaders"
                                               RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}"
                                               RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_panels cube cube2)
set_tests_properties(test_panels PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")
