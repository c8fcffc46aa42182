/* joints.c - joints' forces as every backend computes them (kernels/joints.cl
 * does the same operations in the same order, so both give the same bits),
 * and the poses of keyframed paths (world.h, rb_path_pose). docs/joints.md
 * has the design. */
#include <math.h>

#include "world_internal.h"

/* One end of a joint: its anchor's lever from the centre of mass (world
 * frame), its world point and velocity, and what moves it. */
typedef struct joint_end {
    float lever[3], point[3], vel[3];
    float inv_mass;
    rb_float4 quat, inv_inertia;
    bool moves; /* a body (not the world) */
} joint_end;

static joint_end end_of(const rb_world_data *d, uint32_t b, rb_float4 anchor) {
    joint_end e = {.inv_mass = 0.0f};
    if (b == RB_JOINT_WORLD) {
        e.point[0] = anchor.x, e.point[1] = anchor.y, e.point[2] = anchor.z;
        e.lever[0] = e.lever[1] = e.lever[2] = 0.0f;
        e.vel[0] = e.vel[1] = e.vel[2] = 0.0f;
        return e;
    }
    const rb_float4 x = d->body_pos[b], q = d->body_quat[b], v = d->body_vel[b], w = d->body_omega[b];
    rb_quat_rotate((const float[4]){q.x, q.y, q.z, q.w}, (const float[3]){anchor.x, anchor.y, anchor.z}, e.lever);
    const float *l = e.lever;
    e.point[0] = x.x + l[0], e.point[1] = x.y + l[1], e.point[2] = x.z + l[2];
    e.vel[0] = v.x + (w.y * l[2] - w.z * l[1]);
    e.vel[1] = v.y + (w.z * l[0] - w.x * l[2]);
    e.vel[2] = v.z + (w.x * l[1] - w.y * l[0]);
    e.inv_mass = v.w;
    e.quat = q;
    e.inv_inertia = d->body_inv_inertia[b];
    e.moves = true;
    return e;
}

/* column k of the inverse mass an end shows at its anchor: l x (I^-1 (l x e_k)), subtracted from 1/M e_k */
static void add_end_column(const joint_end *e, int k, float col[3]) {
    const float unit[3] = {k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f};
    float lxe[3], r[3];
    rb_v3_cross(e->lever, unit, lxe);
    const rb_float4 a = rb_apply_inv_inertia(e->quat, e->inv_inertia, (rb_float4){lxe[0], lxe[1], lxe[2], 0.0f});
    rb_v3_cross(e->lever, (const float[3]){a.x, a.y, a.z}, r);
    col[0] = col[0] - r[0], col[1] = col[1] - r[1], col[2] = col[2] - r[2];
}

uint32_t rb_joint_force(rb_world_data *d, uint32_t j, rb_float4 out[3]) {
    const rb_float4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
    out[0] = out[1] = out[2] = zero;
    if (d->joint_broken[j]) return 0;
    const rb_float4 aa = d->joint_anchor_a[j], ab = d->joint_anchor_b[j];
    const joint_end a = end_of(d, d->joint_body[2 * j], aa), b = end_of(d, d->joint_body[2 * j + 1], ab);
    /* K: the inverse mass matrix the anchors' separation shows, column by column */
    const float w = a.inv_mass + b.inv_mass;
    float K[3][3]; /* K[k]: column k */
    for (int k = 0; k < 3; k++) {
        K[k][0] = k == 0 ? w : 0.0f, K[k][1] = k == 1 ? w : 0.0f, K[k][2] = k == 2 ? w : 0.0f;
        if (a.moves) add_end_column(&a, k, K[k]);
        if (b.moves) add_end_column(&b, k, K[k]);
    }
    /* its inverse, the effective mass matrix, by cofactors (m_rc: row r, column c; K[c][r] is row r, column c) */
    const float k00 = K[0][0], k01 = K[1][0], k02 = K[2][0];
    const float k10 = K[0][1], k11 = K[1][1], k12 = K[2][1];
    const float k20 = K[0][2], k21 = K[1][2], k22 = K[2][2];
    const float c00 = k11 * k22 - k12 * k21, c01 = k12 * k20 - k10 * k22, c02 = k10 * k21 - k11 * k20;
    const float det = (k00 * c00 + k01 * c01) + k02 * c02;
    if (!(det > 0.0f) || !isfinite(det)) return 0; /* two ends nothing moves */
    const float m00 = c00 / det, m01 = (k02 * k21 - k01 * k22) / det, m02 = (k01 * k12 - k02 * k11) / det;
    const float m10 = c01 / det, m11 = (k00 * k22 - k02 * k20) / det, m12 = (k02 * k10 - k00 * k12) / det;
    const float m20 = c02 / det, m21 = (k01 * k20 - k00 * k21) / det, m22 = (k00 * k11 - k01 * k10) / det;
    /* F = -M (w_j^2 s + 2 zeta w_j u): s the anchors' separation, u its rate */
    const float spring = aa.w, damper = ab.w;
    float y[3];
    for (int k = 0; k < 3; k++) y[k] = spring * (a.point[k] - b.point[k]) + damper * (a.vel[k] - b.vel[k]);
    float F[3] = {-((m00 * y[0] + m01 * y[1]) + m02 * y[2]), -((m10 * y[0] + m11 * y[1]) + m12 * y[2]),
                  -((m20 * y[0] + m21 * y[1]) + m22 * y[2])};
    const float size = sqrtf(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
    if (size > d->joint_limit[j]) { /* broken for good: no force from this step on */
        d->joint_broken[j] = 1u;
        return 1;
    }
    if (size > d->joint_peak[j]) d->joint_peak[j] = size;
    const float Fb[3] = {-F[0], -F[1], -F[2]};
    float ta[3], tb[3];
    rb_v3_cross(a.lever, F, ta);
    rb_v3_cross(b.lever, Fb, tb);
    out[0] = (rb_float4){F[0], F[1], F[2], 0.0f};
    out[1] = (rb_float4){ta[0], ta[1], ta[2], 0.0f};
    out[2] = (rb_float4){tb[0], tb[1], tb[2], 0.0f};
    return 0;
}

void rb_joint_load(const rb_world_data *d, uint32_t b, const rb_float4 *joint_out, rb_float4 out[2]) {
    rb_float4 f = d->body_force[b], t = d->body_torque[b];
    for (uint32_t k = d->body_first_joint[b]; k < d->body_first_joint[b + 1]; k++) {
        const uint32_t j = d->joint_list[k] >> 1, end = d->joint_list[k] & 1u;
        const rb_float4 F = joint_out[3 * j], T = joint_out[3 * j + 1 + end];
        if (end)
            f.x = f.x - F.x, f.y = f.y - F.y, f.z = f.z - F.z;
        else
            f.x = f.x + F.x, f.y = f.y + F.y, f.z = f.z + F.z;
        t.x = t.x + T.x, t.y = t.y + T.y, t.z = t.z + T.z;
    }
    out[0] = f, out[1] = t;
}

/* ---- paths ---- */

static void quat_mul_d(const double a[4], const double b[4], double out[4]) {
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

static void quat_normalize_d(double q[4]) {
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] = n > 0.0 ? q[k] / n : (k == 3 ? 1.0 : 0.0);
}

static void key_quat(const rb_path_key *k, double q[4]) {
    for (int i = 0; i < 4; i++) q[i] = k->orientation[i];
    quat_normalize_d(q);
}

/* log and exp of unit quaternions, as rotation vectors halved */
static void quat_log(const double q[4], double out[3]) {
    const double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    const double angle = atan2(s, q[3]), f = s > 1e-12 ? angle / s : 1.0;
    out[0] = q[0] * f, out[1] = q[1] * f, out[2] = q[2] * f;
}

static void quat_exp(const double v[3], double out[4]) {
    const double a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), f = a > 1e-12 ? sin(a) / a : 1.0;
    out[0] = v[0] * f, out[1] = v[1] * f, out[2] = v[2] * f, out[3] = cos(a);
}

static void slerp(const double a[4], const double b_in[4], double h, double out[4]) {
    double b[4] = {b_in[0], b_in[1], b_in[2], b_in[3]};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0.0) dot = -dot, b[0] = -b[0], b[1] = -b[1], b[2] = -b[2], b[3] = -b[3]; /* the short way */
    double wa = 1.0 - h, wb = h;
    if (dot < 0.9999999) {
        const double theta = acos(dot), s = sin(theta);
        wa = sin((1.0 - h) * theta) / s, wb = sin(h * theta) / s;
    }
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k];
    quat_normalize_d(out);
}

/* squad's inner control quaternion at key i: q_i exp(-(log(q_i^-1 q_{i+1}) + log(q_i^-1 q_{i-1})) / 4),
 * the neighbours clamped at the ends */
static void squad_inner(const rb_path_key *keys, uint32_t n, uint32_t i, double out[4]) {
    double q[4], qp[4], qn[4], inv[4], rel[4], lp[3], ln[3];
    key_quat(&keys[i], q);
    key_quat(&keys[i > 0 ? i - 1 : 0], qp);
    key_quat(&keys[i + 1 < n ? i + 1 : n - 1], qn);
    inv[0] = -q[0], inv[1] = -q[1], inv[2] = -q[2], inv[3] = q[3];
    quat_mul_d(inv, qn, rel);
    if (rel[3] < 0.0) rel[0] = -rel[0], rel[1] = -rel[1], rel[2] = -rel[2], rel[3] = -rel[3];
    quat_log(rel, ln);
    quat_mul_d(inv, qp, rel);
    if (rel[3] < 0.0) rel[0] = -rel[0], rel[1] = -rel[1], rel[2] = -rel[2], rel[3] = -rel[3];
    quat_log(rel, lp);
    const double v[3] = {-(ln[0] + lp[0]) / 4.0, -(ln[1] + lp[1]) / 4.0, -(ln[2] + lp[2]) / 4.0};
    double e[4];
    quat_exp(v, e);
    quat_mul_d(q, e, out);
}

/* the Catmull-Rom tangent at key i (non-uniform times: the chord of its neighbours over their time; one-sided at the
 * ends) */
static double tangent(const rb_path_key *keys, uint32_t n, uint32_t i, int c) {
    const uint32_t lo = i > 0 ? i - 1 : 0, hi = i + 1 < n ? i + 1 : n - 1;
    const double span = (double)keys[hi].time - keys[lo].time;
    return span > 0.0 ? ((double)keys[hi].position[c] - keys[lo].position[c]) / span : 0.0;
}

void rb_path_pose(const rb_path_desc *path, double t, double pos[3], double q[4]) {
    const rb_path_key *keys = path->keys;
    const uint32_t n = path->key_count;
    const double first = keys[0].time, last = keys[n - 1].time;
    if (path->loop && last > first && t > last) t = first + fmod(t - first, last - first);
    uint32_t i = 0; /* the segment [keys[i], keys[i + 1]] holding t */
    while (i + 1 < n && t >= keys[i + 1].time) i++;
    if (t <= first || i + 1 >= n) { /* before the first key, or after the last: held */
        const rb_path_key *k = t <= first ? &keys[0] : &keys[n - 1];
        for (int c = 0; c < 3; c++) pos[c] = k->position[c];
        key_quat(k, q);
        return;
    }
    const double t0 = keys[i].time, t1 = keys[i + 1].time, span = t1 - t0, h = (t - t0) / span;
    double q0[4], q1[4];
    key_quat(&keys[i], q0);
    key_quat(&keys[i + 1], q1);
    if (!path->smooth) {
        for (int c = 0; c < 3; c++)
            pos[c] = keys[i].position[c] + h * ((double)keys[i + 1].position[c] - keys[i].position[c]);
        slerp(q0, q1, h, q);
        return;
    }
    /* cubic Hermite through the positions with Catmull-Rom tangents */
    const double h2 = h * h, h3 = h2 * h;
    const double b00 = 2.0 * h3 - 3.0 * h2 + 1.0, b10 = h3 - 2.0 * h2 + h, b01 = -2.0 * h3 + 3.0 * h2, b11 = h3 - h2;
    for (int c = 0; c < 3; c++)
        pos[c] = b00 * keys[i].position[c] + b10 * span * tangent(keys, n, i, c) + b01 * keys[i + 1].position[c] +
                 b11 * span * tangent(keys, n, i + 1, c);
    /* squad through the orientations */
    double s0[4], s1[4], qa[4], qb[4];
    squad_inner(keys, n, i, s0);
    squad_inner(keys, n, i + 1, s1);
    /* q1 on q0's side of the sphere, so slerp takes the short way as the inner ones do */
    slerp(q0, q1, h, qa);
    slerp(s0, s1, h, qb);
    slerp(qa, qb, 2.0 * h * (1.0 - h), q);
}
