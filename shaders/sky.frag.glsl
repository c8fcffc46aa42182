#version 330 core
#include "lighting.glsl"
uniform mat4 u_inv_view_proj;
in vec2 v_ndc;
out vec4 o_color;
void main() {
    vec4 a = u_inv_view_proj * vec4(v_ndc, -1.0, 1.0);
    vec4 b = u_inv_view_proj * vec4(v_ndc, 1.0, 1.0);
    vec3 dir = normalize(b.xyz / b.w - a.xyz / a.w);
    o_color = rb_output(rb_linear(rb_sky(dir)), 1.0);
}
