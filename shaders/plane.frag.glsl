#version 330 core
#include "lighting.glsl"
uniform vec4 u_plane;
uniform float u_alpha;
in vec3 v_world;
out vec4 o_color;

// Anti-aliased grid lines: 1 m lines, stronger every 5 m.
float rb_grid(vec2 p, float spacing, float width) {
    vec2 g = abs(fract(p / spacing - 0.5) - 0.5) * spacing / fwidth(p);
    return 1.0 - min(min(g.x, g.y) / width, 1.0);
}

void main() {
    vec3 n = u_plane.xyz;
    vec3 t = normalize(abs(n.y) < 0.9 ? cross(n, vec3(0.0, 1.0, 0.0)) : cross(n, vec3(1.0, 0.0, 0.0)));
    vec3 b = cross(n, t);
    vec2 p = vec2(dot(v_world, t), dot(v_world, b));
    float fine = rb_grid(p, 1.0, 1.0);
    float coarse = rb_grid(p, 5.0, 1.6);
    // The ground is warm grey; walls (drawn see-through) a pale glassy blue.
    vec3 albedo = rb_linear(u_alpha < 1.0 ? vec3(0.72, 0.80, 0.90) : vec3(0.62, 0.60, 0.56));
    albedo = mix(albedo, rb_linear(vec3(0.40, 0.40, 0.40)), max(fine * 0.55, coarse * 0.85));
    vec3 c = rb_shade(albedo, v_world, n, 8.0);
    o_color = rb_output(rb_fog(c, v_world), u_alpha);
}
