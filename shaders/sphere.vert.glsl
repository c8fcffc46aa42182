#version 330 core
// A sphere impostor: a view-facing square around each particle; the fragment
// shader finds the sphere inside it by a ray test.
layout(location = 0) in vec2 a_corner; // -1..1
layout(location = 1) in vec4 i_sphere; // centre xyz (m, world), radius (m)
layout(location = 2) in vec4 i_color;  // sRGB, alpha
uniform mat4 u_view;
uniform mat4 u_proj;
out vec3 v_view_pos;
flat out vec3 v_center;
flat out float v_radius;
flat out vec4 v_color;
void main() {
    vec3 c = (u_view * vec4(i_sphere.xyz, 1.0)).xyz;
    float r = i_sphere.w;
    // Under perspective the silhouette is larger than r in the centre's plane; 1.6 r covers it
    // down to about 1.5 radii from the eye.
    vec3 p = c + vec3(a_corner * r * 1.6, 0.0);
    v_view_pos = p;
    v_center = c;
    v_radius = r;
    v_color = i_color;
    gl_Position = u_proj * vec4(p, 1.0);
}
