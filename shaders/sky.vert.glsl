#version 330 core
// One triangle that covers the screen, from gl_VertexID alone, at the far plane.
uniform mat4 u_inv_view_proj;
out vec3 v_dir; // world direction of the view ray; linear across the screen, so interpolated exactly
void main() {
    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    vec4 a = u_inv_view_proj * vec4(p, -1.0, 1.0);
    vec4 b = u_inv_view_proj * vec4(p, 1.0, 1.0);
    v_dir = b.xyz / b.w - a.xyz / a.w;
    gl_Position = vec4(p, 1.0, 1.0);
}
