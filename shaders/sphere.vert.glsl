#version 330 core
// A sphere impostor: a square facing along the ray to each particle, just big
// enough to hold its silhouette; the fragment shader finds the sphere inside
// it by a ray test.
layout(location = 0) in vec2 a_corner; // -1..1
layout(location = 1) in vec4 i_sphere; // centre xyz (m, world), radius (m)
layout(location = 2) in vec4 i_color;  // sRGB, alpha
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_ortho; // 1: orthographic (the light's view), 0: perspective
out vec3 v_view_pos;
flat out vec3 v_center;
flat out float v_radius;
flat out vec4 v_color;
void main() {
    vec3 c = (u_view * vec4(i_sphere.xyz, 1.0)).xyz;
    float r = i_sphere.w;
    vec3 dir = vec3(0.0, 0.0, -1.0);
    float size = r;
    if (u_ortho < 0.5) {
        // Seen from the eye at distance d, the silhouette is a circle of radius
        // r d / sqrt(d^2 - r^2) in the plane through the centre across the ray.
        float d = length(c);
        dir = c / max(d, 1e-6);
        size = d > 1.05 * r ? r * d / sqrt(d * d - r * r) : 4.0 * r;
    }
    vec3 u = normalize(abs(dir.y) < 0.99 ? cross(dir, vec3(0.0, 1.0, 0.0)) : cross(dir, vec3(1.0, 0.0, 0.0)));
    vec3 v = cross(u, dir);
    vec3 p = c + (u * a_corner.x + v * a_corner.y) * size * 1.02;
    v_view_pos = p;
    v_center = c;
    v_radius = r;
    v_color = i_color;
    gl_Position = u_proj * vec4(p, 1.0);
}
