# The sandbox (SDL2 window, OpenGL renderer, tools, HUD, scripts), included
# from src/app/CMakeLists.txt when RB_BUILD_APP is on. A library, so the tests
# in tests/sandbox.cmake drive the same code the program runs.
if(TARGET rubble_sandbox)
  return()
endif()
find_package(SDL2 REQUIRED CONFIG)
set(RB_SANDBOX_DIR ${CMAKE_CURRENT_LIST_DIR})
add_library(rubble_sandbox STATIC ${RB_SANDBOX_DIR}/sandbox_loop.c ${RB_SANDBOX_DIR}/camera.c ${RB_SANDBOX_DIR}/tools.c
                                  ${RB_SANDBOX_DIR}/hud.c ${RB_SANDBOX_DIR}/script.c)
target_include_directories(rubble_sandbox PUBLIC ${RB_SANDBOX_DIR})
target_link_libraries(rubble_sandbox PUBLIC rubble_app rubble_render SDL2::SDL2 PkgConfig::STB)
target_link_libraries(rubble PRIVATE rubble_sandbox)
target_compile_definitions(rubble PRIVATE RB_HAVE_SANDBOX=1)
