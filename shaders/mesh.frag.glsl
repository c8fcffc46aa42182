#version 330 core
#include "lighting.glsl"
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;
out vec4 o_color;
void main() {
    vec3 n = normalize(v_normal);
    vec3 c = rb_shade(rb_linear(v_color.rgb), v_world, n, 40.0);
    o_color = rb_output(rb_fog(c, v_world), 1.0);
}
