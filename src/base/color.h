/* color.h - colours as Rubble draws them: sRGB, each channel 0..1, lit in a
 * linear space of gamma 2.2 (shaders/lighting.glsl, rb_linear and
 * rb_output), and the inside colour of a broken body's cut faces made from
 * its outside colour. Header only: the renderer, the scenes (the colour
 * table, src/scenes/colors.h) and the glTF export share it. */
#ifndef RB_COLOR_H
#define RB_COLOR_H

#include <math.h>

/* An sRGB channel in the renderer's linear space, and back. */
static inline float rb_srgb_to_linear(float c) { return powf(c, 2.2f); }
static inline float rb_linear_to_srgb(float c) { return powf(c, 1.0f / 2.2f); }

/* The default colour of the faces a break cut inside a body drawn in
 * colour c (sRGB): the fresh inside of the stone, paler and greyer. In
 * linear space, 70% of the way from c to 0.6 of its grey plus a warm stone
 * (0.30, 0.27, 0.23), back to sRGB; within 0..1 for any c within 0..1. */
static inline void rb_inside_color_of(const float c[3], float out[3]) {
    float lin[3];
    for (int k = 0; k < 3; k++) lin[k] = rb_srgb_to_linear(c[k] < 0.0f ? 0.0f : c[k] > 1.0f ? 1.0f : c[k]);
    const float grey = 0.2126f * lin[0] + 0.7152f * lin[1] + 0.0722f * lin[2];
    static const float stone[3] = {0.30f, 0.27f, 0.23f};
    for (int k = 0; k < 3; k++) {
        const float v = lin[k] + 0.7f * (grey * 0.6f + stone[k] - lin[k]);
        out[k] = rb_linear_to_srgb(v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v);
    }
}

#endif
