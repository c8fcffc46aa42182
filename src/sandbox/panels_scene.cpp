// panels_scene.cpp - the Scene panel (see panels_internal.h): the scene's
// file, its emitters and fields, placing new ones, and --replay's timeline.
#include "panels_internal.h"

#include <float.h>
#include <stdio.h>

namespace rb_panel_ui {
namespace {

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

} // namespace

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

} // namespace rb_panel_ui
