#version 330 core
#include "lighting.glsl"
#include "sphere_common.glsl"
uniform mat4 u_inv_view;
out vec4 o_color;
void main() {
    vec3 hit = rb_sphere_hit();
    vec3 n = mat3(u_inv_view) * ((hit - v_center) / v_radius);
    vec3 world = (u_inv_view * vec4(hit, 1.0)).xyz;
    vec3 c = rb_shade(rb_linear(v_color.rgb), world, normalize(n), 60.0);
    o_color = rb_output(rb_fog(c, world), 1.0);
}
