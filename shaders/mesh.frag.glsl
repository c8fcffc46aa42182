#version 330 core
#include "lighting.glsl"
uniform vec3 u_box_half;   // m: half extents when the mesh is a box, zero otherwise
uniform vec3 u_box_center; // m, body frame
in vec3 v_world;
in vec3 v_local;
in vec3 v_normal;
in vec4 v_color;
in vec4 v_inside_color;
in float v_inside;
out vec4 o_color;

// 1 along the edges of a box mesh, 0 elsewhere: side by side, boxes of one colour
// still read as separate bodies.
float rb_box_edge() {
    if (u_box_half.x <= 0.0) return 0.0;
    vec3 a = abs(v_local - u_box_center) / u_box_half; // 1 on the face's own axis
    float hi = max(a.x, max(a.y, a.z)), lo = min(a.x, min(a.y, a.z));
    float mid = a.x + a.y + a.z - hi - lo; // nearness to the face's nearest edge
    float w = fwidth(mid);
    return smoothstep(0.94 - w, 0.985 + w, mid);
}

void main() {
    vec3 n = normalize(v_normal);
    vec3 albedo = rb_linear(v_color.rgb) * (1.0 - 0.45 * rb_box_edge());
    // a cut face: the fresh inside of a broken body, in its inside colour
    // (by default paler and greyer than its outside: src/base/color.h)
    albedo = mix(albedo, rb_linear(v_inside_color.rgb), v_inside);
    vec3 c = rb_shade(albedo, v_world, n, 40.0);
    o_color = rb_output(rb_fog(c, v_world), 1.0);
}
