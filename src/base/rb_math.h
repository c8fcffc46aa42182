/* rb_math.h - the few vector and quaternion helpers the host side needs.
 * Quaternions are stored x, y, z, w. */
#ifndef RB_MATH_H
#define RB_MATH_H

#include <math.h>

static inline void rb_v3_cross(const float a[3], const float b[3], float out[3]) {
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

static inline float rb_v3_dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* out = q v q^-1 */
static inline void rb_quat_rotate(const float q[4], const float v[3], float out[3]) {
    /* v + 2 w (u x v) + 2 u x (u x v), u = q.xyz */
    float t[3], u[3] = {q[0], q[1], q[2]};
    rb_v3_cross(u, v, t);
    t[0] *= 2.0f, t[1] *= 2.0f, t[2] *= 2.0f;
    float c[3];
    rb_v3_cross(u, t, c);
    out[0] = v[0] + q[3] * t[0] + c[0];
    out[1] = v[1] + q[3] * t[1] + c[1];
    out[2] = v[2] + q[3] * t[2] + c[2];
}

/* out = q^-1 v q */
static inline void rb_quat_rotate_inv(const float q[4], const float v[3], float out[3]) {
    float qc[4] = {-q[0], -q[1], -q[2], q[3]};
    rb_quat_rotate(qc, v, out);
}

/* out = a b (apply b, then a) */
static inline void rb_quat_mul(const float a[4], const float b[4], float out[4]) {
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

static inline void rb_quat_normalize(float q[4]) {
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0f) q[0] /= n, q[1] /= n, q[2] /= n, q[3] /= n;
}

/* sin and cos of x (rad), in plain float arithmetic written out, so the
 * OpenCL kernels' twin (kernels/integrate.cl) gives the same bits on any
 * device with IEEE single precision: the C library's sinf and a device's
 * sin differ in the last bit now and then (PoCL's for about 0.1% of small
 * angles), and a spinning body's orientation then parted from the
 * reference's by an ulp that contacts amplify. Reduced by quarter turns
 * (pi/2 in three parts, Cody and Waite), then Cephes' single-precision
 * polynomials on [-pi/4, pi/4]: within an ulp of sin and cos there, and
 * within 8e-8 of them (an ulp of 1 is 1.2e-7) to |x| = 1e4 (tests/test_world.c). Past 2^16 rad, and for NaN, it gives
 * sin 0, cos 1 (no turn): no step resolves such a spin. */
static inline void rb_sincos(float x, float *s, float *c) {
    if (!(fabsf(x) <= 65536.0f)) x = 0.0f;
    const float k = floorf(x * 0.636619772f + 0.5f); /* the nearest quarter turn */
    const float r = ((x - k * 1.5703125f) - k * 4.83751297e-4f) - k * 7.54978995e-8f;
    const float z = r * r;
    const float sr = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    const float cr =
        ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
    const int q = (int)k & 3;
    *s = q == 0 ? sr : q == 1 ? cr : q == 2 ? -sr : -cr;
    *c = q == 0 ? cr : q == 1 ? -sr : q == 2 ? -cr : sr;
}

/* Rotation by angle (rad) about a unit axis. */
static inline void rb_quat_from_axis_angle(const float axis[3], float angle, float out[4]) {
    float s = sinf(0.5f * angle);
    out[0] = axis[0] * s, out[1] = axis[1] * s, out[2] = axis[2] * s, out[3] = cosf(0.5f * angle);
}

#endif
