// panels_internal.h - what the files of the panels share (panels.cpp: the
// frame, its layout and input, the C interface; panels_controls.cpp: the
// controls every panel draws with; panels_world.cpp and panels_scene.cpp:
// the panels' contents). C++, seen by those files only.
#ifndef RB_PANELS_INTERNAL_H
#define RB_PANELS_INTERNAL_H

#include "panels.h"

#include <imgui.h>

namespace rb_panel_ui {

extern const char *const kPanelNames[RB_PANEL_COUNT]; // by rb_panel_id: the windows' titles

const int kMaxItems = 192;   // controls whose places a frame keeps (rb_panels_rect)
const int kMaxDeferred = 16; // key releases held for the next frame

struct Item {
    int panel;
    char label[48];
    float rect[4];
};

} // namespace rb_panel_ui

struct rb_panels {
    SDL_Window *window;
    ImGuiContext *ctx;
    bool visible;
    bool built; // the last rb_panels_frame drew something to draw
    bool shown[RB_PANEL_COUNT];
    char message[RB_PANEL_COUNT][512];
    bool refused[RB_PANEL_COUNT];
    // the mouse and keys as the events said
    float mouse_x, mouse_y;
    bool mouse_in;                       // a motion event has placed the cursor in the window
    bool down[3];                        // left, right, middle held
    bool pressed[3];                     // pressed since the last frame: held for that frame even if released already
    bool key_pressed[SDL_NUM_SCANCODES]; // pressed since the last frame
    SDL_Event deferred[rb_panel_ui::kMaxDeferred];
    int deferred_count;
    // where the last frame drew things
    float panel_rect[RB_PANEL_COUNT][4];
    bool panel_drawn[RB_PANEL_COUNT];
    float panel_height[RB_PANEL_COUNT]; // the last frame's, to stack the next
    float toggles_rect[4];              // the checkboxes' window
    int fold[RB_PANEL_COUNT];           // rb_panels_fold's request for the next frame: 1 fold, -1 open, 0 none
    float width;                        // px: this frame's column width (narrower in a small window)
    bool compact;                       // this frame's window is small (panels.cpp, layout_and_draw)
    bool toggles_drawn;
    rb_panel_ui::Item items[rb_panel_ui::kMaxItems];
    int item_count;
    // the frame being built
    const rb_panel_view *view;
    rb_panel_request *out;
    int out_count, out_max;
    int panel; // the panel being drawn
    char path[1024];
    float step_ms;
    bool step_editing;
};

namespace rb_panel_ui {

// ---- the controls (panels_controls.cpp) ----

// Sets a panel's message line (refused: shown as a refusal).
void say(rb_panels *p, int panel, const char *text, bool refused);
// Keeps where the last control was drawn, under the label the tests use;
// width > 0: only its frame, that wide (a slider's, without its label).
void remember(rb_panels *p, const char *label, float width = 0.0f);
// A setter's answer: a refusal is shown until the next answer in the panel.
void answer(rb_panels *p, bool ok, const char *why);
// A request to the sandbox, zeroed but for its kind; NULL when the caller's array is full.
rb_panel_request *request(rb_panels *p, rb_panel_request_kind kind);
// A slider whose value goes to a setter when it moves (Ctrl+click types a
// value, any value: the setter says what is wrong with it). True if moved.
bool slider(rb_panels *p, const char *label, float *v, float lo, float hi, const char *format, bool log = false);
// The panel's message, if it has one: green, or red for a refusal.
void message_line(rb_panels *p);
// Wrapped text in the dim colour: notes under the controls.
void text_dim(const char *fmt, ...) IM_FMTARGS(1);
// A group's title over a rule (ImGui 1.86 has no SeparatorText).
void heading(const char *title);

// ---- the panels' contents: each draws into the window begun for it ----

void world_panel(rb_panels *p);     // panels_world.cpp
void material_panel(rb_panels *p);  // panels_world.cpp
void tools_panel(rb_panels *p);     // panels_world.cpp
void shapes_panel(rb_panels *p);    // panels_world.cpp
void inspector_panel(rb_panels *p); // panels_world.cpp
void scene_panel(rb_panels *p);     // panels_scene.cpp

} // namespace rb_panel_ui

#endif
