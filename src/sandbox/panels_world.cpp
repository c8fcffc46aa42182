// panels_world.cpp - the panels of the live world (see panels_internal.h):
// World, Material, Tools, Shapes and the Inspector.
#include "panels_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

namespace rb_panel_ui {
namespace {

// A replay simulates nothing: the settings of a live world wait for one.
bool replay_note(const rb_panel_view *v) {
    if (v->replaying) text_dim("replaying: nothing is simulated (Scene: simulate from here, or Enter)");
    return v->replaying;
}

} // namespace

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
    // the device's whole name, wrapped; an absurdly long one cut where it says so
    const int room = 120;
    text_dim("%s on %.*s%s", v->backend, room, v->device, strlen(v->device) > (size_t)room ? "..." : "");
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
    ImGui::Text("body %u (%s), %s", b.slot,
                b.grabbed ? "grabbed"
                : b.kept  ? (b.kept_grabbed ? "last grabbed" : "last under the cursor")
                          : "under the cursor",
                b.kind);
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

} // namespace rb_panel_ui
