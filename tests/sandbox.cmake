# Tests of the sandbox (issue 4): the renderer alone, the sandbox driven by
# scripted input, and the rubble program run as a user would. All of them
# under SDL_VIDEODRIVER=offscreen (Mesa llvmpipe through EGL: no X server).
if(NOT RB_BUILD_APP OR NOT TARGET rubble_render)
  return()
endif()
find_package(SDL2 REQUIRED CONFIG)
set(RB_SANDBOX_TEST_ENV ${RB_TEST_ENV} "SDL_VIDEODRIVER=offscreen" "SDL_AUDIODRIVER=dummy")

rb_add_test(test_render SOURCES test_render.c LIBS rubble_render SDL2::SDL2 TIMEOUT 300)
set_tests_properties(test_render PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")

# The sandbox library is wired into `rubble` by src/app/sandbox.cmake; including it
# here again is a no-op once src/app/CMakeLists.txt has done it.
include(${PROJECT_SOURCE_DIR}/src/app/sandbox.cmake)

set(RB_SANDBOX_TEST_SOURCES test_sandbox.c)
if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/app/app.c)
  # rb_app_registry() and rb_app_world_desc() still live in main.c (NOTES-sandbox.md
  # asks to move them to app.c): compile main.c in with its main() renamed.
  list(APPEND RB_SANDBOX_TEST_SOURCES ${PROJECT_SOURCE_DIR}/src/app/main.c)
  set(RB_MAIN_DEFS "main=rb_unused_cli_main")
  if(EXISTS ${PROJECT_SOURCE_DIR}/src/sim/opencl.c)
    list(APPEND RB_MAIN_DEFS RB_HAVE_OPENCL_BACKEND=1)
  endif()
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/app/main.c PROPERTIES COMPILE_DEFINITIONS "${RB_MAIN_DEFS}")
endif()
rb_add_test(test_sandbox SOURCES ${RB_SANDBOX_TEST_SOURCES} LIBS rubble_sandbox TIMEOUT 600)
target_compile_definitions(test_sandbox PRIVATE RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                                RB_TEST_SOURCE_SHADERS="${PROJECT_SOURCE_DIR}/shaders"
                                                RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_sandbox cube cube2)
set_tests_properties(test_sandbox PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}")

# The program as a user runs it: a script throws, grabs, deletes and explodes,
# then --screenshot saves the last frame; the checker looks at the PNG.
add_test(NAME test_sandbox_cli
         COMMAND ${CMAKE_COMMAND} -DRUBBLE=$<TARGET_FILE:rubble> -DSCRIPT=${CMAKE_CURRENT_SOURCE_DIR}/data/sandbox_tour.script
                 -DOUT=${CMAKE_BINARY_DIR}/test-sandbox-cli -P ${CMAKE_CURRENT_SOURCE_DIR}/data/sandbox_cli.cmake)
set_tests_properties(test_sandbox_cli PROPERTIES ENVIRONMENT "${RB_SANDBOX_TEST_ENV}" TIMEOUT 300)
