/* quality.c - the renderer's quality presets and the automatic choice (see quality.h). */
#include "quality.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* low: what llvmpipe on two cores affords for 300 bodies at 1280x720 at
 * 30 fps beside the simulation (README, "Drawing quality and frame times"); high: a GPU's. */
static const rb_render_quality g_presets[RB_QUALITY_PRESETS] = {
    [RB_QUALITY_LOW] = {.msaa = 0, .shadow_size = 0, .scale = 0.5f},
    [RB_QUALITY_MEDIUM] = {.msaa = 0, .shadow_size = 1024, .scale = 0.75f},
    [RB_QUALITY_HIGH] = {.msaa = 4, .shadow_size = 2048, .scale = 1.0f},
};

static const char *const g_names[RB_QUALITY_PRESETS + 1] = {"low", "medium", "high", "custom"};

rb_render_quality rb_quality_preset_get(rb_quality_preset preset) {
    return g_presets[preset >= 0 && preset < RB_QUALITY_PRESETS ? preset : RB_QUALITY_HIGH];
}

rb_quality_preset rb_quality_preset_of(const rb_render_quality *q) {
    for (int p = 0; p < RB_QUALITY_PRESETS; p++)
        if (q->msaa == g_presets[p].msaa && q->shadow_size == g_presets[p].shadow_size &&
            q->scale == g_presets[p].scale)
            return (rb_quality_preset)p;
    return RB_QUALITY_CUSTOM;
}

const char *rb_quality_preset_name(rb_quality_preset preset) {
    return g_names[preset >= 0 && preset < RB_QUALITY_PRESETS ? preset : RB_QUALITY_CUSTOM];
}

rb_quality_preset rb_quality_next_preset(const rb_render_quality *q) {
    rb_quality_preset p = rb_quality_preset_of(q);
    return p == RB_QUALITY_CUSTOM ? RB_QUALITY_LOW : (rb_quality_preset)((p + 1) % RB_QUALITY_PRESETS);
}

/* Case-insensitive strstr: drivers spell their names as they like. */
static bool contains(const char *text, const char *word) {
    size_t n = strlen(word);
    for (; *text; text++) {
        size_t i = 0;
        while (i < n && text[i] && tolower((unsigned char)text[i]) == word[i]) i++;
        if (i == n) return true;
    }
    return false;
}

bool rb_quality_software_renderer(const char *gl_renderer) {
    if (!gl_renderer) return false;
    return contains(gl_renderer, "llvmpipe") || contains(gl_renderer, "softpipe") || contains(gl_renderer, "swrast");
}

rb_quality_preset rb_quality_auto(const char *gl_renderer) {
    return rb_quality_software_renderer(gl_renderer) ? RB_QUALITY_LOW : RB_QUALITY_HIGH;
}

bool rb_quality_valid(const rb_render_quality *q) {
    return rb_quality_msaa_ok(q->msaa) && rb_quality_shadow_size_ok(q->shadow_size) && rb_quality_scale_ok(q->scale);
}

rb_render_quality rb_quality_choose(const char *gl_renderer, int msaa, int shadow_size, float scale) {
    rb_render_quality q = rb_quality_preset_get(rb_quality_auto(gl_renderer));
    if (msaa >= 0) q.msaa = msaa;
    if (shadow_size >= 0) q.shadow_size = shadow_size;
    if (scale > 0.0f) q.scale = scale;
    return q;
}

void rb_quality_describe(const rb_render_quality *q, char *out, size_t out_size) {
    char msaa[16], shadows[16];
    if (q->msaa > 1)
        snprintf(msaa, sizeof msaa, "%dx", q->msaa);
    else
        snprintf(msaa, sizeof msaa, "off");
    if (q->shadow_size > 0)
        snprintf(shadows, sizeof shadows, "%d", q->shadow_size);
    else
        snprintf(shadows, sizeof shadows, "off");
    snprintf(out, out_size, "%s (msaa %s, shadows %s, scale %.3g)", rb_quality_preset_name(rb_quality_preset_of(q)),
             msaa, shadows, (double)q->scale);
}
