# The sandbox (SDL2 window, OpenGL renderer, input, tools, HUD, scripts),
# included from src/app/CMakeLists.txt when RB_BUILD_APP is on. A library, so
# the tests in tests/sandbox.cmake drive the same code the program runs.
find_package(SDL2 REQUIRED CONFIG)
set(RB_SANDBOX_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RB_SANDBOX_SOURCES sandbox.c sandbox_actions.c sandbox_scene.c sandbox_stats.c sandbox_panels.c settings.c window.c
                       input.c view.c capture.c camera.c tools.c hud.c script.c replay.c pick.c debug_views.c sandbox_view.c
                       panels.cpp)
list(TRANSFORM RB_SANDBOX_SOURCES PREPEND ${RB_SANDBOX_DIR}/)
add_library(rubble_sandbox STATIC ${RB_SANDBOX_SOURCES})
target_include_directories(rubble_sandbox PUBLIC ${RB_SANDBOX_DIR})
# Dear ImGui (Debian's libimgui-dev: libimgui.a holds its SDL2 and OpenGL 3
# backends) for the settings panels; panels.cpp is its one C++ user (C++ is
# enabled in the top CMakeLists.txt with the app).
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)
set_target_properties(rubble_sandbox PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_link_libraries(rubble_sandbox PUBLIC rubble_app rubble_render SDL2::SDL2 PkgConfig::STB PRIVATE PkgConfig::IMGUI ${CMAKE_DL_LIBS})
target_link_libraries(rubble PRIVATE rubble_sandbox)
target_compile_definitions(rubble PRIVATE RB_HAVE_SANDBOX=1)
