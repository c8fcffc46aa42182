/* quality.h - how much the renderer draws a frame: multisampling, the shadow
 * map's size and the render scale, as presets and as the automatic choice
 * from the OpenGL renderer's name.
 *
 * A software rasterizer (Mesa's llvmpipe on a machine without a GPU) pays for
 * every pixel and every sample on the CPU cores the simulation also needs;
 * a GPU hardly notices the difference. So the sandbox starts low on a
 * software renderer and high on anything else. No GL here: the choice is
 * plain data, tested alone (tests/test_render.c). */
#ifndef RB_RENDER_QUALITY_H
#define RB_RENDER_QUALITY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rb_render_quality {
    int msaa;        /* samples a pixel: 0 (off), 2 or 4 */
    int shadow_size; /* the shadow map's side, texels: 0 (no shadows), 512, 1024 or 2048 */
    float scale;     /* the scene is drawn at this fraction of the window's size (0.5..1) and
                        scaled up to it; the overlay (HUD) is drawn at the window's size */
} rb_render_quality;

typedef enum rb_quality_preset {
    RB_QUALITY_LOW,
    RB_QUALITY_MEDIUM,
    RB_QUALITY_HIGH,
    RB_QUALITY_PRESETS,
    RB_QUALITY_CUSTOM = RB_QUALITY_PRESETS, /* settings that are no preset's */
} rb_quality_preset;

#define RB_RENDER_SCALE_MIN 0.5f

/* The settings of a preset (RB_QUALITY_LOW .. RB_QUALITY_HIGH). */
rb_render_quality rb_quality_preset_get(rb_quality_preset preset);
/* The preset these settings are, or RB_QUALITY_CUSTOM. */
rb_quality_preset rb_quality_preset_of(const rb_render_quality *q);
/* "low", "medium", "high", or "custom". */
const char *rb_quality_preset_name(rb_quality_preset preset);
/* The preset after q's, low again after high (custom settings go to low). */
rb_quality_preset rb_quality_next_preset(const rb_render_quality *q);

/* True for Mesa's software renderers (llvmpipe, softpipe, swrast) by the
 * GL_RENDERER string. */
bool rb_quality_software_renderer(const char *gl_renderer);
/* The starting preset for that renderer: low on software, high on a GPU. */
rb_quality_preset rb_quality_auto(const char *gl_renderer);

/* Strict values, as the command line takes them (inline: options.c checks
 * them in builds without the renderer, RB_BUILD_APP=OFF). */
static inline bool rb_quality_msaa_ok(int samples) { return samples == 0 || samples == 2 || samples == 4; }
static inline bool rb_quality_shadow_size_ok(int texels) {
    return texels == 0 || texels == 512 || texels == 1024 || texels == 2048;
}
static inline bool rb_quality_scale_ok(float scale) { return scale >= RB_RENDER_SCALE_MIN && scale <= 1.0f; }
/* Each field valid (the renderer refuses anything else). */
bool rb_quality_valid(const rb_render_quality *q);

/* The automatic choice for that renderer with each setting the user gave in
 * its place: msaa < 0, shadow_size < 0, scale <= 0 are not given. */
rb_render_quality rb_quality_choose(const char *gl_renderer, int msaa, int shadow_size, float scale);

/* "low (msaa off, shadows 512, scale 0.75)", as the HUD shows it. */
void rb_quality_describe(const rb_render_quality *q, char *out, size_t out_size);

#endif
