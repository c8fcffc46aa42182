#version 330 core
// A large square on a plane of the scene (the ground, or a wall).
layout(location = 0) in vec2 a_corner; // -1..1
uniform vec4 u_plane;   // unit normal, offset (m)
uniform vec3 u_center;  // m: the square is centred on this point's projection
uniform float u_extent; // m, half side
uniform mat4 u_view_proj;
out vec3 v_world;
void main() {
    vec3 n = u_plane.xyz;
    vec3 t = normalize(abs(n.y) < 0.9 ? cross(n, vec3(0.0, 1.0, 0.0)) : cross(n, vec3(1.0, 0.0, 0.0)));
    vec3 b = cross(n, t);
    vec3 c = u_center - n * (dot(n, u_center) - u_plane.w);
    vec3 world = c + (t * a_corner.x + b * a_corner.y) * u_extent;
    v_world = world;
    gl_Position = u_view_proj * vec4(world, 1.0);
}
