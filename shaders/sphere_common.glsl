// sphere_common.glsl - the ray test of a sphere impostor, in view space.
uniform mat4 u_proj;
uniform float u_ortho; // 1: orthographic (the light), rays along -z; 0: perspective, rays from the eye
in vec3 v_view_pos;
flat in vec3 v_center;
flat in float v_radius;
flat in vec4 v_color;

// The nearest hit point in view space; discards the fragment if the ray misses.
vec3 rb_sphere_hit() {
    vec3 o = u_ortho > 0.5 ? vec3(v_view_pos.xy, 0.0) : vec3(0.0);
    vec3 d = u_ortho > 0.5 ? vec3(0.0, 0.0, -1.0) : normalize(v_view_pos);
    vec3 oc = o - v_center;
    float b = dot(oc, d);
    float disc = b * b - (dot(oc, oc) - v_radius * v_radius);
    if (disc < 0.0) discard;
    vec3 hit = o + d * (-b - sqrt(disc));
    vec4 clip = u_proj * vec4(hit, 1.0);
    gl_FragDepth = clip.z / clip.w * 0.5 + 0.5;
    return hit;
}
