// panels.cpp - the settings and inspection panels, drawn with Dear ImGui
// (see panels.h): creating them, their input, each frame and its layout,
// the C interface. Plain C++ over ImGui's API, no sandbox state, as are the
// panels' contents (panels_world.cpp, panels_scene.cpp). What the panels
// show comes in an rb_panel_view; a setting goes out through settings.h, a
// request to the sandbox into the caller's array.
//
// Input: ImGui 1.86's SDL backend reads the mouse from SDL's own state
// (SDL_GetMouseState), which events pushed by a script (--script) never
// reach, and it sees a key pressed and released within one frame as never
// pressed. So the panels keep the mouse and the modifier keys from the
// events themselves, hold a press for one frame as the backend does for
// buttons, and hand a key's release to ImGui a frame after its press. A
// person and a script then drive the panels the same way.
#include "panels_internal.h"

#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

using namespace rb_panel_ui;

namespace {

const float kPanelWidth = 300.0f; // px: the labels' column and a slider
const float kGap = 6.0f;          // px between panels, and from the window's edges
const float kLabelWidth = 132.0f; // px of a panel's width for its controls' labels
// A window narrower or lower than this (960 x 540, say) is small: its
// column is narrower and every panel starts folded, so they leave the
// middle of the scene free until one is opened.
const float kCompactWidth = 1200.0f, kCompactHeight = 700.0f;
const float kCompactPanelWidth = 250.0f, kCompactLabelWidth = 110.0f;

void (*const kPanelFns[RB_PANEL_COUNT])(rb_panels *) = {world_panel,  material_panel,  tools_panel,
                                                        shapes_panel, inspector_panel, scene_panel};

// ---- the frame ----

// The checkboxes that show and hide each panel, at the top of the column.
void toggles(rb_panels *p, float x, float y) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(p->width, 0.0f), ImGuiCond_Always);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoFocusOnAppearing;
    ImGui::Begin("Panels (F2 hides all)", NULL, flags);
    const int per_row = p->compact ? 2 : 3;
    for (int k = 0; k < RB_PANEL_COUNT; k++) {
        if (k % per_row) ImGui::SameLine(12.0f + (float)(k % per_row) * (p->compact ? 115.0f : 95.0f));
        ImGui::Checkbox(kPanelNames[k], &p->shown[k]);
        p->panel = k;
        remember(p, "shown");
    }
    text_dim("Ctrl+click a slider to type a value");
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImGui::End();
    // over the scene like a panel: a click on it is the panels'
    p->toggles_rect[0] = pos.x, p->toggles_rect[1] = pos.y, p->toggles_rect[2] = size.x, p->toggles_rect[3] = size.y;
}

void draw_panel(rb_panels *p, int k, float x, float y, float max_h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSizeConstraints(ImVec2(p->width, 0.0f), ImVec2(p->width, max_h));
    // Shapes and Scene start folded, so the rest fit beside a 720-pixel-high
    // scene; a replay's Scene (its timeline) starts open. In a small window
    // every panel starts folded.
    if (p->compact || k == RB_PANEL_SHAPES || (k == RB_PANEL_SCENE && !p->view->replaying))
        ImGui::SetNextWindowCollapsed(true, ImGuiCond_Once);
    if (p->fold[k]) ImGui::SetNextWindowCollapsed(p->fold[k] > 0, ImGuiCond_Always);
    p->fold[k] = 0;
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing;
    p->panel = k;
    if (ImGui::Begin(kPanelNames[k], &p->shown[k], flags)) {
        ImGui::PushItemWidth(p->width - (p->compact ? kCompactLabelWidth : kLabelWidth));
        kPanelFns[k](p);
        ImGui::PopItemWidth();
    }
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImGui::End();
    p->panel_rect[k][0] = pos.x, p->panel_rect[k][1] = pos.y;
    p->panel_rect[k][2] = size.x, p->panel_rect[k][3] = size.y;
    p->panel_drawn[k] = true;
    p->panel_height[k] = size.y;
}

// Which column each shown panel goes in, the first column's top (under the
// toggles) and the others'; returns the number of columns.
int columns(const rb_panels *p, float top0, float top, float bottom, int column[RB_PANEL_COUNT],
            float used[RB_PANEL_COUNT + 1]) {
    int c = 0;
    used[0] = p->toggles_rect[3] + kGap;
    for (int k = 1; k <= RB_PANEL_COUNT; k++) used[k] = 0.0f;
    for (int k = 0; k < RB_PANEL_COUNT; k++) {
        if (!p->shown[k]) continue;
        const float h = (p->panel_height[k] > 0.0f ? p->panel_height[k] : 120.0f) + kGap;
        if (used[c] > 0.0f && (c == 0 ? top0 : top) + used[c] + h > bottom + kGap) c++;
        column[k] = c;
        used[c] += h;
    }
    return c + 1;
}

// Stacks the shown panels down the right of the window from just below the
// HUD's "F1 help" (top right); those that do not fit go to columns to the
// left, stacked up from the bottom and kept below the HUD's lines (top
// left: up to 7 lines, an error's included, about 870 px wide at most). In
// a window too narrow for the first column beside those lines it starts
// below them too; in one too small for all the columns below them, they
// start at the top as a last resort; columns that the window's width does
// not hold are kept inside it, over one another, and a panel that would
// reach past the bottom is moved up over the one above it. Each panel is
// placed by its height in the frame before.
void layout_and_draw(rb_panels *p) {
    const ImGuiIO &io = ImGui::GetIO();
    p->compact = io.DisplaySize.x < kCompactWidth || io.DisplaySize.y < kCompactHeight;
    p->width = p->compact ? kCompactPanelWidth : kPanelWidth;
    const float width = p->width;
    const bool big = io.DisplaySize.x >= 900.0f;      // the HUD's scale 2 (hud.c): lines of 22 px, else 11
    const float top = big ? 40.0f : 24.0f;            // below "F1 help"
    const float clear = top + (big ? 154.0f : 77.0f); // below the HUD's lines
    const float hud_width = big ? 870.0f : 435.0f;
    const float bottom = io.DisplaySize.y - kGap - p->view->keep_bottom;
    const float right = io.DisplaySize.x - kGap - width;
    int column[RB_PANEL_COUNT];
    float used[RB_PANEL_COUNT + 1];
    float top0 = right >= hud_width ? top : clear, top_n = clear;
    const int fit = (int)((right + kGap) / (width + kGap)) + 1; // columns the width holds
    if (columns(p, top0, top_n, bottom, column, used) > fit) top0 = top_n = top;
    const int n = columns(p, top0, top_n, bottom, column, used);
    toggles(p, right, top0);
    p->toggles_drawn = true;
    float y[RB_PANEL_COUNT + 1];
    y[0] = top0 + p->toggles_rect[3] + kGap;
    for (int k = 1; k < n; k++) y[k] = fmaxf(top_n, bottom + kGap - used[k]);
    for (int k = 0; k < RB_PANEL_COUNT; k++) {
        p->panel_drawn[k] = false;
        if (!p->shown[k]) continue;
        const int col = column[k];
        const float x = fmaxf(kGap, right - (float)col * (width + kGap)), lowest = col == 0 ? top0 : top_n;
        // never past the bottom: over the panel above rather than out of the window
        const float at = fmaxf(lowest, fminf(y[col], bottom - p->panel_height[k]));
        draw_panel(p, k, x, at, bottom - lowest);
        y[col] = at + p->panel_height[k] + kGap;
    }
}

// The mouse, the modifiers and the time as the events and the sandbox say
// (see the top of the file), over what the backend read from SDL.
void take_input(rb_panels *p, double frame_dt) {
    ImGuiIO &io = ImGui::GetIO();
    io.MousePos = p->mouse_in ? ImVec2(p->mouse_x, p->mouse_y) : ImVec2(-FLT_MAX, -FLT_MAX);
    for (int b = 0; b < 3; b++) {
        io.MouseDown[b] = p->down[b] || p->pressed[b];
        p->pressed[b] = false;
    }
    const bool *k = io.KeysDown;
    io.KeyCtrl = k[SDL_SCANCODE_LCTRL] || k[SDL_SCANCODE_RCTRL];
    io.KeyShift = k[SDL_SCANCODE_LSHIFT] || k[SDL_SCANCODE_RSHIFT];
    io.KeyAlt = k[SDL_SCANCODE_LALT] || k[SDL_SCANCODE_RALT];
    io.KeySuper = false;
    io.DeltaTime = frame_dt > 0.0 ? (float)frame_dt : 1.0f / 60.0f;
    memset(p->key_pressed, 0, sizeof p->key_pressed);
}

// Key releases that came in the frame of their press, given now that ImGui
// has seen the press. This runs within the frame, after ImGui took its
// modifiers: the backend would set them again from SDL's, and ImGui's
// check that they did not change within a frame (its text fields') aborts.
// They keep this frame's; take_input sets them from the keys next frame.
void release_deferred(rb_panels *p) {
    ImGuiIO &io = ImGui::GetIO();
    const bool ctrl = io.KeyCtrl, shift = io.KeyShift, alt = io.KeyAlt, super = io.KeySuper;
    for (int i = 0; i < p->deferred_count; i++) ImGui_ImplSDL2_ProcessEvent(&p->deferred[i]);
    p->deferred_count = 0;
    io.KeyCtrl = ctrl, io.KeyShift = shift, io.KeyAlt = alt, io.KeySuper = super;
}

int button_index(int sdl_button) {
    return sdl_button == SDL_BUTTON_LEFT     ? 0
           : sdl_button == SDL_BUTTON_RIGHT  ? 1
           : sdl_button == SDL_BUTTON_MIDDLE ? 2
                                             : -1;
}

// Feeds an event to ImGui and the panels' own view of the input.
void feed(rb_panels *p, const SDL_Event *e) {
    switch (e->type) {
    case SDL_MOUSEMOTION:
        p->mouse_x = (float)e->motion.x, p->mouse_y = (float)e->motion.y, p->mouse_in = true;
        return;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP: {
        p->mouse_x = (float)e->button.x, p->mouse_y = (float)e->button.y, p->mouse_in = true;
        const int b = button_index(e->button.button);
        if (b < 0) return;
        p->down[b] = e->type == SDL_MOUSEBUTTONDOWN;
        if (p->down[b]) p->pressed[b] = true;
        return;
    }
    case SDL_KEYDOWN:
        if (e->key.keysym.scancode < SDL_NUM_SCANCODES) p->key_pressed[e->key.keysym.scancode] = true;
        break;
    case SDL_KEYUP:
        if (e->key.keysym.scancode < SDL_NUM_SCANCODES && p->key_pressed[e->key.keysym.scancode] &&
            p->deferred_count < kMaxDeferred) {
            p->deferred[p->deferred_count++] = *e;
            return;
        }
        break;
    default:
        break;
    }
    ImGui_ImplSDL2_ProcessEvent(e);
}

bool over(const rb_panels *p, float x, float y);

// A key goes to the panels while one is being typed into (F2 still hides
// them), and while the cursor is over one (Ctrl for Ctrl+click does not fly
// the camera down); the function keys and Esc are the sandbox's then.
bool takes_key(const rb_panels *p, SDL_Keycode key) {
    if (key == SDLK_F2) return false;
    if (ImGui::GetIO().WantCaptureKeyboard) return true;
    const bool global = key == SDLK_ESCAPE || (key >= SDLK_F1 && key <= SDLK_F12);
    return !global && over(p, p->mouse_x, p->mouse_y);
}

bool inside(const float r[4], float x, float y) { return x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3]; }

bool over(const rb_panels *p, float x, float y) {
    if (!p->toggles_drawn) return false;
    if (inside(p->toggles_rect, x, y)) return true;
    for (int k = 0; k < RB_PANEL_COUNT; k++)
        if (p->panel_drawn[k] && inside(p->panel_rect[k], x, y)) return true;
    return false;
}

} // namespace

// ---- the C interface ----

extern "C" rb_panels *rb_panels_create(SDL_Window *window, char *err, size_t err_size) {
    rb_panels *p = new rb_panels(); // value-initialised: zeros
    p->window = window;
    for (int k = 0; k < RB_PANEL_COUNT; k++) p->shown[k] = true;
    IMGUI_CHECKVERSION();
    ImGuiContext *previous = ImGui::GetCurrentContext();
    p->ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(p->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = NULL; // nothing written to the working folder
    io.LogFilename = NULL;
    io.ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange; // the sandbox owns the cursor (mouse look hides it)
    ImGui::StyleColorsDark();
    ImGuiStyle &style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.88f;
    if (!ImGui_ImplSDL2_InitForOpenGL(window, SDL_GL_GetCurrentContext())) {
        snprintf(err, err_size, "Dear ImGui's SDL2 backend did not start");
        ImGui::DestroyContext(p->ctx);
        ImGui::SetCurrentContext(previous);
        delete p;
        return NULL;
    }
    if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
        snprintf(err, err_size, "Dear ImGui's OpenGL 3 backend did not start (no libGL.so.1 to load OpenGL from?)");
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext(p->ctx);
        ImGui::SetCurrentContext(previous);
        delete p;
        return NULL;
    }
    return p;
}

extern "C" void rb_panels_destroy(rb_panels *p) {
    if (!p) return;
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext(p->ctx);
    delete p;
}

extern "C" bool rb_panels_event(rb_panels *p, const SDL_Event *e) {
    ImGui::SetCurrentContext(p->ctx);
    const bool release = e->type == SDL_KEYUP || e->type == SDL_MOUSEBUTTONUP;
    if (!p->visible) {
        if (release) feed(p, e); // nothing held in the panels when they come back
        return false;
    }
    feed(p, e);
    const ImGuiIO &io = ImGui::GetIO();
    switch (e->type) {
    case SDL_MOUSEBUTTONDOWN:
        return over(p, (float)e->button.x, (float)e->button.y);
    case SDL_MOUSEWHEEL:
        return over(p, p->mouse_x, p->mouse_y);
    case SDL_KEYDOWN:
        return takes_key(p, e->key.keysym.sym);
    case SDL_TEXTINPUT:
        return io.WantTextInput;
    default:
        return false;
    }
}

extern "C" int rb_panels_frame(rb_panels *p, const rb_panel_view *view, rb_panel_request *out, int max) {
    p->built = false;
    if (!p->visible) return 0;
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    take_input(p, view->frame_dt);
    ImGui::NewFrame();
    release_deferred(p);
    p->view = view, p->out = out, p->out_count = 0, p->out_max = max;
    p->item_count = 0;
    layout_and_draw(p);
    ImGui::Render();
    p->view = NULL, p->out = NULL;
    p->built = true;
    return p->out_count;
}

extern "C" void rb_panels_draw(rb_panels *p) {
    if (!p->built || !p->visible) return;
    ImGui::SetCurrentContext(p->ctx);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

extern "C" void rb_panels_set_visible(rb_panels *p, bool visible) {
    if (visible && !p->visible) { /* nothing is where it was until a frame is drawn */
        memset(p->panel_drawn, 0, sizeof p->panel_drawn);
        p->toggles_drawn = false;
    }
    p->visible = visible;
    if (!visible) p->built = false;
}

extern "C" bool rb_panels_visible(const rb_panels *p) { return p->visible; }

extern "C" void rb_panels_show(rb_panels *p, rb_panel_id id, bool shown) {
    if (id >= 0 && id < RB_PANEL_COUNT) p->shown[id] = shown;
}

extern "C" bool rb_panels_shown(const rb_panels *p, rb_panel_id id) {
    return id >= 0 && id < RB_PANEL_COUNT && p->shown[id];
}

extern "C" void rb_panels_fold(rb_panels *p, rb_panel_id id, bool folded) {
    if (id >= 0 && id < RB_PANEL_COUNT) p->fold[id] = folded ? 1 : -1;
}

extern "C" void rb_panels_say(rb_panels *p, rb_panel_id id, const char *text, bool refused) {
    if (id >= 0 && id < RB_PANEL_COUNT) say(p, id, text ? text : "", refused);
}

extern "C" const char *rb_panels_message(const rb_panels *p, rb_panel_id id, bool *refused) {
    if (id < 0 || id >= RB_PANEL_COUNT) return "";
    if (refused) *refused = p->refused[id];
    return p->message[id];
}

extern "C" bool rb_panels_rect(const rb_panels *p, rb_panel_id id, const char *label, float rect[4]) {
    if (!p->visible || id < 0 || id >= RB_PANEL_COUNT) return false;
    if (!label) {
        if (!p->panel_drawn[id]) return false;
        memcpy(rect, p->panel_rect[id], 4 * sizeof *rect);
        return true;
    }
    for (int i = 0; i < p->item_count; i++)
        if (p->items[i].panel == (int)id && strcmp(p->items[i].label, label) == 0) {
            memcpy(rect, p->items[i].rect, 4 * sizeof *rect);
            return true;
        }
    return false;
}

extern "C" bool rb_panels_over(const rb_panels *p, float x, float y) { return p->visible && over(p, x, y); }
