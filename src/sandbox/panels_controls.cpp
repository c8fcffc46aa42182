// panels_controls.cpp - the controls every panel draws with (see
// panels_internal.h): sliders that remember where they were drawn, message
// lines, dim notes, headings, requests to the sandbox.
#include "panels_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace rb_panel_ui {

const char *const kPanelNames[RB_PANEL_COUNT] = {"World", "Material", "Tools", "Shapes", "Inspector", "Scene"};

void say(rb_panels *p, int panel, const char *text, bool refused) {
    snprintf(p->message[panel], sizeof p->message[panel], "%s", text);
    p->refused[panel] = refused;
}

void remember(rb_panels *p, const char *label, float width) {
    if (p->item_count >= kMaxItems) return;
    Item &it = p->items[p->item_count++];
    it.panel = p->panel;
    snprintf(it.label, sizeof it.label, "%s", label);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    it.rect[0] = a.x, it.rect[1] = a.y, it.rect[2] = width > 0.0f ? width : b.x - a.x, it.rect[3] = b.y - a.y;
}

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

bool slider(rb_panels *p, const char *label, float *v, float lo, float hi, const char *format, bool log) {
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

void text_dim(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrappedV(fmt, args);
    ImGui::PopStyleColor();
    va_end(args);
}

void heading(const char *title) {
    ImGui::TextDisabled("%s", title);
    ImGui::Separator();
}

} // namespace rb_panel_ui
