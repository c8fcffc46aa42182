#version 330 core
#include "lighting.glsl"
in vec3 v_dir;
out vec4 o_color;
void main() {
    // rb_sky is in sRGB already: no round trip through linear space.
    o_color = vec4(rb_sky(normalize(v_dir)), 1.0);
}
