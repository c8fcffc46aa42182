#version 330 core
// Line segments of the debug views, in world space.
layout(location = 0) in vec3 a_position; // m, world
layout(location = 1) in vec4 a_color;    // sRGB, alpha
uniform mat4 u_view_proj;
out vec4 v_color;
void main() {
    v_color = a_color;
    gl_Position = u_view_proj * vec4(a_position, 1.0);
}
