// panels.cpp - the settings and inspection panels, drawn with Dear ImGui
// (see panels.h). The project's one C++ file: plain C++ over ImGui's API,
// no sandbox state. What the panels show comes in an rb_panel_view; a
// setting goes out through settings.h, a request to the sandbox into the
// caller's array.
//
// Input: ImGui 1.86's SDL backend reads the mouse from SDL's own state
// (SDL_GetMouseState), which events pushed by a script (--script) never
// reach, and it sees a key pressed and released within one frame as never
// pressed. So the panels keep the mouse and the modifier keys from the
// events themselves, hold a press for one frame as the backend does for
// buttons, and hand a key's release to ImGui a frame after its press. A
// person and a script then drive the panels the same way.
#include "panels.h"

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace {

const char *const kPanelNames[RB_PANEL_COUNT] = {"World", "Material", "Tools", "Shapes", "Inspector", "Scene"};

const float kPanelWidth = 300.0f; // px: the labels' column and a slider
const float kGap = 6.0f;          // px between panels, and from the window's edges
const float kLabelWidth = 132.0f; // px of a panel's width for its controls' labels
const int kMaxItems = 192;        // controls whose places a frame keeps (rb_panels_rect)
const int kMaxDeferred = 16;      // key releases held for the next frame

struct Item {
    int panel;
    char label[48];
    float rect[4];
};

} // namespace

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
    SDL_Event deferred[kMaxDeferred];
    int deferred_count;
    // where the last frame drew things
    float panel_rect[RB_PANEL_COUNT][4];
    bool panel_drawn[RB_PANEL_COUNT];
    float panel_height[RB_PANEL_COUNT]; // the last frame's, to stack the next
    float toggles_rect[4];              // the checkboxes' window
    bool toggles_drawn;
    Item items[kMaxItems];
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

namespace {

// ---- small helpers ----

void say(rb_panels *p, int panel, const char *text, bool refused) {
    snprintf(p->message[panel], sizeof p->message[panel], "%s", text);
    p->refused[panel] = refused;
}

// Keeps where the last control was drawn, under the label the tests use;
// width > 0: only its frame, that wide (a slider's, without its label).
void remember(rb_panels *p, const char *label, float width = 0.0f) {
    if (p->item_count >= kMaxItems) return;
    Item &it = p->items[p->item_count++];
    it.panel = p->panel;
    snprintf(it.label, sizeof it.label, "%s", label);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    it.rect[0] = a.x, it.rect[1] = a.y, it.rect[2] = width > 0.0f ? width : b.x - a.x, it.rect[3] = b.y - a.y;
}

// A setter's answer: a refusal is shown until the next answer in the panel.
void answer(rb_panels *p, bool ok, const char *why) {
    if (ok)
        say(p, p->panel, "", false);
    else
        say(p, p->panel, why, true);
}

rb_panel_request *request(rb_panels *p, rb_panel_request_kind kind) {
    if (p->out_count >= p->out_max) return NULL;
    rb_panel_request *r = &p->out[p->out_count++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    return r;
}

// A slider whose value goes to a setter when it moves (Ctrl+click types a
// value, any value: the setter says what is wrong with it). True if moved.
bool slider(rb_panels *p, const char *label, float *v, float lo, float hi, const char *format, bool log = false) {
    char id[64];
    snprintf(id, sizeof id, "%s##%s", label, kPanelNames[p->panel]);
    const float width = ImGui::CalcItemWidth();
    const bool moved = ImGui::SliderFloat(id, v, lo, hi, format, log ? ImGuiSliderFlags_Logarithmic : 0);
    remember(p, label, width);
    return moved;
}

void message_line(rb_panels *p) {
    const char *m = p->message[p->panel];
    if (!m[0]) return;
    if (p->refused[p->panel])
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.38f, 1.0f));
    else
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.95f, 0.75f, 1.0f));
    ImGui::TextWrapped("%s", m);
    ImGui::PopStyleColor();
    remember(p, "message");
}

void text_dim(const char *fmt, ...) IM_FMTARGS(1);
void text_dim(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrappedV(fmt, args);
    ImGui::PopStyleColor();
    va_end(args);
}

// A group's title over a rule (ImGui 1.86 has no SeparatorText).
void heading(const char *title) {
    ImGui::TextDisabled("%s", title);
    ImGui::Separator();
}

// ---- the panels ----

// A replay simulates nothing: the settings of a live world wait for one.
bool replay_note(const rb_panel_view *v) {
    if (v->replaying) text_dim("replaying: nothing is simulated (Scene: simulate from here, or Enter)");
    return v->replaying;
}

void world_panel(rb_panels *p) {
    const rb_panel_view *v = p->view;
    char why[512];
    ImGui::BeginDisabled(replay_note(v));
    float g[3] = {v->gravity[0], v->gravity[1], v->gravity[2]};
    char id[32];
    snprintf(id, sizeof id, "gravity##World");
    if (ImGui::SliderFloat3(id, g, -30.0f, 30.0f, "%.2f"))
        answer(p, rb_settings_set_gravity(v->settings, g, why, sizeof why), why);
    remember(p, "gravity");
    // The step is typed and taken on Enter: each step is a new calibration (or a reload).
    if (!p->step_editing) p->step_ms = v->dt * 1000.0f;
    ImGui::BeginDisabled(v->recording);
    const float width = ImGui::CalcItemWidth();
    const bool entered =
        ImGui::InputFloat("step, ms##World", &p->step_ms, 0.0f, 0.0f, "%.4g", ImGuiInputTextFlags_EnterReturnsTrue);
    p->step_editing = ImGui::IsItemActive();
    remember(p, "step", width);
    ImGui::EndDisabled();
    if (entered) {
        const float dt = p->step_ms / 1000.0f;
        if (!rb_settings_check_step(v->settings, dt, why, sizeof why)) {
            answer(p, false, why);
        } else if (rb_panel_request *r = request(p, RB_REQ_STEP)) {
            r->value = dt;
        }
        p->step_editing = false;
    }
    if (v->recording)
        text_dim("--record is recording: the step stays");
    else if (v->step_reloads)
        text_dim("a new step loads the scene again (its debris keeps time in steps)");
    float scale = (float)v->time_scale;
    if (slider(p, "time scale", &scale, (float)RB_TIME_SCALE_MIN, (float)RB_TIME_SCALE_MAX, "%.2fx", true))
        answer(p, rb_settings_set_time_scale(v->settings, scale, why, sizeof why), why);
    bool sleeping = v->sleeping;
    if (ImGui::Checkbox("sleeping##World", &sleeping))
        answer(p, rb_settings_set_sleeping(v->settings, sleeping, why, sizeof why), why);
    remember(p, "sleeping");
    text_dim("%s on %.60s", v->backend, v->device);
    ImGui::EndDisabled();
    message_line(p);
}

void material_panel(rb_panels *p) {
    const rb_panel_view *v = p->view;
    char why[512];
    float e = v->restitution, mu = v->friction, mu_r = v->rolling_friction, tc_ms = v->contact_time * 1000.0f;
    ImGui::BeginDisabled(replay_note(v));
    if (slider(p, "restitution", &e, 0.14f, 1.0f, "%.3f"))
        answer(p, rb_settings_set_restitution(v->settings, e, why, sizeof why), why);
    if (slider(p, "friction", &mu, 0.0f, 2.0f, "%.3f"))
        answer(p, rb_settings_set_friction(v->settings, mu, why, sizeof why), why);
    if (slider(p, "rolling friction", &mu_r, 0.0f, 1.0f, "%.3f"))
        answer(p, rb_settings_set_rolling_friction(v->settings, mu_r, why, sizeof why), why);
    if (slider(p, "contact time, ms", &tc_ms, 1.0f, 50.0f, "%.2f", true))
        answer(p, rb_settings_set_contact_time(v->settings, tc_ms / 1000.0f, why, sizeof why), why);
    text_dim("takes a step of at most %.3g ms (the step is %.3g ms)", v->step_needed * 1000.0, v->dt * 1000.0);
    ImGui::EndDisabled();
    message_line(p);
}

void tools_panel(rb_panels *p) {
    const rb_panel_view *v = p->view;
    char why[512];
    float tap = v->throw_speed, full = v->throw_speed_max, spin = v->throw_spin;
    ImGui::BeginDisabled(replay_note(v));
    heading("throw (T)");
    bool throw_moved = slider(p, "tap, m/s", &tap, 1.0f, RB_THROW_SPEED_MAX, "%.1f");
    throw_moved |= slider(p, "held 1.5 s, m/s", &full, 1.0f, RB_THROW_SPEED_MAX, "%.1f");
    throw_moved |= slider(p, "spin, rad/s", &spin, 0.0f, 20.0f, "%.1f");
    if (throw_moved) answer(p, rb_settings_set_throw(v->settings, tap, full, spin, why, sizeof why), why);
    float r = v->blast_radius, j = v->blast_strength, up = v->blast_up;
    heading("explode (B)");
    bool blast_moved = slider(p, "radius, m", &r, 0.5f, 50.0f, "%.2f", true);
    blast_moved |= slider(p, "impulse, N s", &j, 100.0f, 1e7f, "%.0f", true);
    blast_moved |= slider(p, "upward", &up, 0.0f, 3.0f, "%.2f");
    if (blast_moved) answer(p, rb_settings_set_blast(v->settings, r, j, up, why, sizeof why), why);
    float hz = v->grab_hz;
    heading("grab (G)");
    if (slider(p, "stiffness, Hz", &hz, 0.5f, 8.0f, "%.2f"))
        answer(p, rb_settings_set_grab_hz(v->settings, hz, why, sizeof why), why);
    ImGui::EndDisabled();
    message_line(p);
}

void shapes_panel(rb_panels *p) {
    const rb_panel_view *v = p->view;
    if (v->shape_count == 0) {
        text_dim("no shapes loaded: check the plugins folder");
        return;
    }
    text_dim("click one to throw it (Tab cycles)");
    const float row = ImGui::GetTextLineHeightWithSpacing();
    const float height = row * (float)(v->shape_count < 12 ? v->shape_count + 1 : 12) + 4.0f;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("shapes", 3, flags, ImVec2(0.0f, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("particles");
    ImGui::TableSetupColumn("box, m");
    ImGui::TableHeadersRow();
    for (uint32_t i = 0; i < v->shape_count; i++) {
        const rb_panel_shape &s = v->shapes[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        char id[96];
        snprintf(id, sizeof id, "%s##shape%u", s.name, i);
        if (ImGui::Selectable(id, (int)i == v->selected_shape, ImGuiSelectableFlags_SpanAllColumns)) {
            if (rb_panel_request *r = request(p, RB_REQ_SELECT_SHAPE)) r->index = (int)i;
        }
        remember(p, s.name);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s: %u particles of radius %.3g m, %.4g kg", s.name, s.particles, s.particle_radius,
                              s.mass);
        ImGui::TableNextColumn();
        ImGui::Text("%u", s.particles);
        ImGui::TableNextColumn();
        ImGui::Text("%.2g x %.2g x %.2g", s.extent[0], s.extent[1], s.extent[2]);
    }
    ImGui::EndTable();
}

void inspector_panel(rb_panels *p) {
    const rb_panel_body &b = p->view->body;
    if (p->view->replaying) {
        text_dim("replaying: the Inspector looks at a live world (Scene: simulate from here)");
        return;
    }
    if (!b.valid) {
        text_dim("no body under the cursor (point at one, or grab one)");
        return;
    }
    ImGui::Text("body %u (%s), %s", b.slot, b.grabbed ? "grabbed" : "under the cursor", b.kind);
    remember(p, "body");
    ImGui::Text("shape  %s", b.shape);
    if (isfinite(b.mass))
        ImGui::Text("mass   %.4g kg", b.mass);
    else
        ImGui::Text("mass   infinite");
    const float speed =
        sqrtf(b.velocity[0] * b.velocity[0] + b.velocity[1] * b.velocity[1] + b.velocity[2] * b.velocity[2]);
    const float spin =
        sqrtf(b.angular_velocity[0] * b.angular_velocity[0] + b.angular_velocity[1] * b.angular_velocity[1] +
              b.angular_velocity[2] * b.angular_velocity[2]);
    ImGui::Text("at     %.2f %.2f %.2f m", b.position[0], b.position[1], b.position[2]);
    ImGui::Text("speed  %.3f m/s  (%.2f %.2f %.2f)", speed, b.velocity[0], b.velocity[1], b.velocity[2]);
    ImGui::Text("spin   %.3f rad/s", spin);
    ImGui::Text("asleep %s", b.asleep ? "yes" : "no");
    remember(p, "asleep");
}

void emitter_rows(rb_panels *p) {
    const rb_panel_view *v = p->view;
    char why[512];
    for (uint32_t k = 0; k < v->emitter_count; k++) {
        rb_emitter_values e;
        if (!rb_settings_get_emitter(v->settings, k, &e)) continue;
        char title[64];
        snprintf(title, sizeof title, "emitter %u%s##emitter%u", k + 1, v->emitter_active[k] ? " (emitting)" : "", k);
        ImGui::PushID((int)k);
        const bool open = ImGui::TreeNode(title);
        char label[32];
        snprintf(label, sizeof label, "emitter %u", k + 1);
        remember(p, label);
        if (open) {
            bool moved = slider(p, "rate, 1/s", &e.rate, 0.1f, 200.0f, "%.1f", true);
            moved |= slider(p, "speed, m/s", &e.speed, 0.0f, 50.0f, "%.1f");
            moved |= slider(p, "spread, m/s", &e.speed_spread, 0.0f, 20.0f, "%.1f");
            moved |= slider(p, "cone, degrees", &e.cone, 0.0f, 180.0f, "%.0f");
            moved |= slider(p, "spin, rad/s", &e.spin, 0.0f, 20.0f, "%.1f");
            moved |= slider(p, "lifetime, s", &e.lifetime, 0.0f, 60.0f, "%.1f");
            moved |= ImGui::DragFloat3("centre, m", e.centre, 0.05f, 0.0f, 0.0f, "%.2f");
            remember(p, "centre, m");
            if (moved) answer(p, rb_settings_set_emitter(v->settings, k, &e, why, sizeof why), why);
            if (ImGui::SmallButton("remove")) {
                if (rb_panel_request *r = request(p, RB_REQ_REMOVE_EMITTER)) r->index = (int)k;
            }
            ImGui::TreePop();
        }
        ImGui::PopID();
    }
}

void field_rows(rb_panels *p) {
    const rb_panel_view *v = p->view;
    static const char *const kinds[] = {"blast", "wind", "vortex"};
    char why[512];
    for (uint32_t k = 0; k < v->field_count; k++) {
        rb_field_values f;
        if (!rb_settings_get_field(v->settings, k, &f)) continue;
        const char *kind = f.kind >= 0 && f.kind < 3 ? kinds[f.kind] : "field";
        char title[64];
        snprintf(title, sizeof title, "%s %u%s##field%u", kind, k + 1, v->field_active[k] ? " (acting)" : "", k);
        ImGui::PushID(1000 + (int)k);
        const bool open = ImGui::TreeNode(title);
        char label[32];
        snprintf(label, sizeof label, "field %u", k + 1);
        remember(p, label);
        if (open) {
            bool moved = false;
            if (f.kind == 0) { // radial: a blast's impulse, or a push
                moved |= slider(p, "radius, m", &f.radius, 0.5f, 50.0f, "%.2f", true);
                moved |= slider(p, "strength", &f.strength, 100.0f, 1e7f, "%.0f", true);
                moved |= slider(p, "upward", &f.up, 0.0f, 3.0f, "%.2f");
            } else if (f.kind == 1) { // wind
                moved |= slider(p, "speed, m/s", &f.speed, 0.0f, 60.0f, "%.1f");
                moved |= slider(p, "drag", &f.drag, 0.0f, 100.0f, "%.1f");
            } else { // vortex
                moved |= slider(p, "radius, m", &f.radius, 0.5f, 50.0f, "%.2f", true);
                moved |= slider(p, "strength, m/s", &f.strength, 0.0f, 50.0f, "%.1f");
                moved |= slider(p, "drag, 1/s", &f.drag, 0.0f, 20.0f, "%.1f");
            }
            if (f.kind != 0) moved |= slider(p, "duration, s", &f.duration, 0.0f, 60.0f, "%.1f");
            if (f.kind != 1) { // wind blows everywhere
                moved |= ImGui::DragFloat3("centre, m", f.centre, 0.05f, 0.0f, 0.0f, "%.2f");
                remember(p, "centre, m");
            }
            if (moved) answer(p, rb_settings_set_field(v->settings, k, &f, why, sizeof why), why);
            ImGui::TreePop();
        }
        ImGui::PopID();
    }
}

void place_buttons(rb_panels *p) {
    static const char *const what[] = {"emitter", "blast", "wind", "vortex"};
    ImGui::TextUnformatted("place:");
    for (int k = 0; k < 4; k++) {
        ImGui::SameLine();
        const bool active = p->view->placing == k + 1;
        if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        char id[32];
        snprintf(id, sizeof id, "%s##place", what[k]);
        if (ImGui::SmallButton(id)) {
            if (rb_panel_request *r = request(p, RB_REQ_PLACE)) r->index = active ? RB_PLACE_NONE : k + 1;
        }
        if (active) ImGui::PopStyleColor();
        remember(p, what[k]);
    }
    if (p->view->placing == RB_PLACE_WIND)
        text_dim("wind blows along the view");
    else if (p->view->placing)
        text_dim("click in the scene to place it (the button again: no)");
}

// --replay's timeline: the frame shown (drag it), play and pause, the
// speed, and a live world from the keyframe at or before it.
void timeline(rb_panels *p) {
    const rb_panel_view *v = p->view;
    heading("replay");
    int frame = (int)v->replay_frame;
    const float width = ImGui::CalcItemWidth();
    if (ImGui::SliderInt("frame##timeline", &frame, 0, (int)v->replay_last, "%d")) {
        if (rb_panel_request *r = request(p, RB_REQ_REPLAY_SEEK)) r->index = frame;
    }
    remember(p, "frame", width);
    ImGui::Text("%.3f s   %gx", v->replay_time, v->replay_speed);
    if (ImGui::Button(v->replay_playing ? "pause" : "play")) {
        if (rb_panel_request *r = request(p, RB_REQ_REPLAY_PLAY)) r->index = !v->replay_playing;
    }
    remember(p, "play");
    ImGui::SameLine();
    if (ImGui::Button("slower")) {
        if (rb_panel_request *r = request(p, RB_REQ_REPLAY_SPEED)) r->index = -1;
    }
    ImGui::SameLine();
    if (ImGui::Button("faster")) {
        if (rb_panel_request *r = request(p, RB_REQ_REPLAY_SPEED)) r->index = 1;
    }
    ImGui::BeginDisabled(v->replay_key_frame < 0);
    char label[64];
    if (v->replay_key_frame >= 0)
        snprintf(label, sizeof label, "simulate from frame %d##here", v->replay_key_frame);
    else
        snprintf(label, sizeof label, "no keyframe to simulate from##here");
    if (ImGui::Button(label)) request(p, RB_REQ_SIMULATE_HERE);
    remember(p, "simulate from here");
    ImGui::EndDisabled();
}

void scene_panel(rb_panels *p) {
    const rb_panel_view *v = p->view;
    if (v->replaying) {
        timeline(p);
        message_line(p);
        return;
    }
    ImGui::Text("%s %s", v->scene_file[0] ? "scene" : "formation", v->scene_name);
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputTextWithHint("##path", "scene file (.json)", p->path, sizeof p->path);
    remember(p, "path");
    if (ImGui::Button("load")) {
        if (rb_panel_request *r = request(p, RB_REQ_LOAD)) snprintf(r->path, sizeof r->path, "%s", p->path);
    }
    remember(p, "load");
    ImGui::SameLine();
    if (ImGui::Button("save")) {
        if (rb_panel_request *r = request(p, RB_REQ_SAVE)) snprintf(r->path, sizeof r->path, "%s", p->path);
    }
    remember(p, "save");
    ImGui::SameLine();
    if (ImGui::Button("reset")) request(p, RB_REQ_RESET);
    remember(p, "reset");
    place_buttons(p);
    if (!v->debris) {
        text_dim("no emitters or fields yet");
    } else {
        emitter_rows(p);
        field_rows(p);
    }
    text_dim("a recording (--record) is replayed with --replay: its timeline is here then");
    message_line(p);
}

void (*const kPanelFns[RB_PANEL_COUNT])(rb_panels *) = {world_panel,  material_panel,  tools_panel,
                                                        shapes_panel, inspector_panel, scene_panel};

// ---- the frame ----

// The checkboxes that show and hide each panel, at the top of the column.
void toggles(rb_panels *p, float x, float y) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(kPanelWidth, 0.0f), ImGuiCond_Always);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoFocusOnAppearing;
    ImGui::Begin("Panels (F2 hides all)", NULL, flags);
    for (int k = 0; k < RB_PANEL_COUNT; k++) {
        if (k % 3) ImGui::SameLine(12.0f + (float)(k % 3) * 95.0f);
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
    ImGui::SetNextWindowSizeConstraints(ImVec2(kPanelWidth, 0.0f), ImVec2(kPanelWidth, max_h));
    // Shapes and Scene start folded, so the rest fit beside a 720-pixel-high
    // scene; a replay's Scene (its timeline) starts open
    if (k == RB_PANEL_SHAPES || (k == RB_PANEL_SCENE && !p->view->replaying))
        ImGui::SetNextWindowCollapsed(true, ImGuiCond_Once);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing;
    p->panel = k;
    if (ImGui::Begin(kPanelNames[k], &p->shown[k], flags)) {
        ImGui::PushItemWidth(kPanelWidth - kLabelWidth);
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
// start at the top as a last resort. Each panel is placed by its height in
// the frame before.
void layout_and_draw(rb_panels *p) {
    const ImGuiIO &io = ImGui::GetIO();
    const bool big = io.DisplaySize.x >= 900.0f;      // the HUD's scale 2 (hud.c): lines of 22 px, else 11
    const float top = big ? 40.0f : 24.0f;            // below "F1 help"
    const float clear = top + (big ? 154.0f : 77.0f); // below the HUD's lines
    const float hud_width = big ? 870.0f : 435.0f;
    const float bottom = io.DisplaySize.y - kGap - p->view->keep_bottom;
    const float right = io.DisplaySize.x - kGap - kPanelWidth;
    int column[RB_PANEL_COUNT];
    float used[RB_PANEL_COUNT + 1];
    float top0 = right >= hud_width ? top : clear, top_n = clear;
    const int fit = (int)((right + kGap) / (kPanelWidth + kGap)) + 1; // columns the width holds
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
        const float x = right - (float)col * (kPanelWidth + kGap), lowest = col == 0 ? top0 : top_n;
        draw_panel(p, k, x, y[col], bottom - lowest);
        y[col] += p->panel_height[k] + kGap;
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

// Key releases that came in the frame of their press, given now that ImGui has seen the press.
void release_deferred(rb_panels *p) {
    for (int i = 0; i < p->deferred_count; i++) ImGui_ImplSDL2_ProcessEvent(&p->deferred[i]);
    p->deferred_count = 0;
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
