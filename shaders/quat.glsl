// quat.glsl - rotation by a unit quaternion stored x, y, z, w (Harada 29.2.8, eq. 21).
vec3 rb_rotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}
