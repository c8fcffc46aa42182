#version 330 core
// One instance per body: the mesh is moved by the body's position and quaternion.
#include "quat.glsl"
layout(location = 0) in vec3 a_position; // m, body frame
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 i_position; // m, world; w: the body's scale (0 is taken as 1)
layout(location = 3) in vec4 i_quat;     // x, y, z, w
layout(location = 4) in vec4 i_color;    // sRGB, alpha
layout(location = 5) in float a_inside;  // 1 on a face a break cut inside the body, else 0
layout(location = 6) in vec4 i_inside;   // sRGB, alpha: the colour of those faces
uniform mat4 u_view_proj;
out vec3 v_world;
out vec3 v_local; // m, body frame: for the edges of box meshes
out vec3 v_normal;
out vec4 v_color;
out vec4 v_inside_color;
out float v_inside;
void main() {
    float scale = i_position.w > 0.0 ? i_position.w : 1.0;
    vec3 world = i_position.xyz + rb_rotate(i_quat, a_position * scale);
    v_world = world;
    v_local = a_position;
    v_normal = rb_rotate(i_quat, a_normal);
    v_color = i_color;
    v_inside_color = i_inside;
    v_inside = a_inside;
    gl_Position = u_view_proj * vec4(world, 1.0);
}
