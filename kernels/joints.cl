/* joints.cl - joints' forces (docs/joints.md), after the force pass and
 * before the integration, at the step's start state, only in a world with
 * joints. rb_joint_forces: one work-item a joint, as rb_joint_force
 * (src/sim/joints.c) computes it, operation for operation; it latches
 * joint_broken and joint_peak and counts new breaks in *breaks (an integer
 * atomic: the count alone, no float is summed by it). rb_joint_loads: one
 * work-item a body, its external load with its joints' forces and torques
 * added in its joint list's order, as rb_joint_load: the integration reads
 * that load in place of the external one. */

/* One end of a joint (src/sim/joints.c, end_of). */
typedef struct rb_joint_end {
    float3 lever, point, vel;
    float inv_mass;
    float4 quat, inv_inertia;
    bool moves;
} rb_joint_end;

static rb_joint_end rb_joint_end_of(const uint b, const float4 anchor, __global const float4 *body_pos,
                                    __global const float4 *body_quat, __global const float4 *body_vel,
                                    __global const float4 *body_omega, __global const float4 *body_inv_inertia) {
    rb_joint_end e;
    e.moves = b != RB_JOINT_WORLD;
    e.inv_mass = 0.0f;
    e.quat = (float4)(0.0f, 0.0f, 0.0f, 1.0f);
    e.inv_inertia = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    if (!e.moves) {
        e.point = anchor.xyz;
        e.lever = (float3)(0.0f, 0.0f, 0.0f);
        e.vel = e.lever;
        return e;
    }
    const float4 x = body_pos[b], q = body_quat[b], v = body_vel[b], w = body_omega[b];
    const float3 l = rb_rotate(q, anchor.xyz);
    e.lever = l;
    e.point = (float3)(x.x + l.x, x.y + l.y, x.z + l.z);
    e.vel = rb_point_velocity(v, w, l);
    e.inv_mass = v.w;
    e.quat = q;
    e.inv_inertia = body_inv_inertia[b];
    return e;
}

/* col less l x (I^-1 (l x e_k)) (joints.c, add_end_column) */
static float3 rb_joint_column(const rb_joint_end *e, const int k, const float3 col) {
    const float3 unit = (float3)(k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f);
    const float3 a = rb_apply_inv_inertia(e->quat, e->inv_inertia, rb_cross(e->lever, unit));
    const float3 r = rb_cross(e->lever, a);
    return (float3)(col.x - r.x, col.y - r.y, col.z - r.z);
}

__kernel void rb_joint_forces(const uint joints, __global const uint *joint_body, __global const float4 *anchor_a,
                              __global const float4 *anchor_b, __global const float *joint_limit,
                              __global uint *joint_broken, __global float *joint_peak, __global const float4 *body_pos,
                              __global const float4 *body_quat, __global const float4 *body_vel,
                              __global const float4 *body_omega, __global const float4 *body_inv_inertia,
                              __global float4 *joint_out, __global uint *breaks) {
    const uint j = get_global_id(0);
    if (j >= joints) return;
    const float4 zero = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    joint_out[3 * j] = zero, joint_out[3 * j + 1] = zero, joint_out[3 * j + 2] = zero;
    if (joint_broken[j]) return;
    const float4 aa = anchor_a[j], ab = anchor_b[j];
    const rb_joint_end a = rb_joint_end_of(joint_body[2 * j], aa, body_pos, body_quat, body_vel, body_omega,
                                           body_inv_inertia);
    const rb_joint_end b = rb_joint_end_of(joint_body[2 * j + 1], ab, body_pos, body_quat, body_vel, body_omega,
                                           body_inv_inertia);
    const float w = a.inv_mass + b.inv_mass;
    float3 K[3];
    for (int k = 0; k < 3; k++) {
        K[k] = (float3)(k == 0 ? w : 0.0f, k == 1 ? w : 0.0f, k == 2 ? w : 0.0f);
        if (a.moves) K[k] = rb_joint_column(&a, k, K[k]);
        if (b.moves) K[k] = rb_joint_column(&b, k, K[k]);
    }
    const float k00 = K[0].x, k01 = K[1].x, k02 = K[2].x;
    const float k10 = K[0].y, k11 = K[1].y, k12 = K[2].y;
    const float k20 = K[0].z, k21 = K[1].z, k22 = K[2].z;
    const float c00 = k11 * k22 - k12 * k21, c01 = k12 * k20 - k10 * k22, c02 = k10 * k21 - k11 * k20;
    const float det = (k00 * c00 + k01 * c01) + k02 * c02;
    if (!(det > 0.0f) || !isfinite(det)) return;
    const float m00 = c00 / det, m01 = (k02 * k21 - k01 * k22) / det, m02 = (k01 * k12 - k02 * k11) / det;
    const float m10 = c01 / det, m11 = (k00 * k22 - k02 * k20) / det, m12 = (k02 * k10 - k00 * k12) / det;
    const float m20 = c02 / det, m21 = (k01 * k20 - k00 * k21) / det, m22 = (k00 * k11 - k01 * k10) / det;
    const float spring = aa.w, damper = ab.w;
    const float3 y = (float3)(spring * (a.point.x - b.point.x) + damper * (a.vel.x - b.vel.x),
                              spring * (a.point.y - b.point.y) + damper * (a.vel.y - b.vel.y),
                              spring * (a.point.z - b.point.z) + damper * (a.vel.z - b.vel.z));
    const float3 F = (float3)(-((m00 * y.x + m01 * y.y) + m02 * y.z), -((m10 * y.x + m11 * y.y) + m12 * y.z),
                              -((m20 * y.x + m21 * y.y) + m22 * y.z));
    const float size = sqrt(F.x * F.x + F.y * F.y + F.z * F.z);
    if (size > joint_limit[j]) {
        joint_broken[j] = 1u;
        atomic_add(breaks, 1u);
        return;
    }
    if (size > joint_peak[j]) joint_peak[j] = size;
    const float3 Fb = (float3)(-F.x, -F.y, -F.z);
    joint_out[3 * j] = (float4)(F, 0.0f);
    joint_out[3 * j + 1] = (float4)(rb_cross(a.lever, F), 0.0f);
    joint_out[3 * j + 2] = (float4)(rb_cross(b.lever, Fb), 0.0f);
}

__kernel void rb_joint_loads(const uint bodies, __global const uint *body_first_joint, __global const uint *joint_list,
                             __global const float4 *joint_out, __global const float4 *body_force,
                             __global const float4 *body_torque, __global float4 *load_force,
                             __global float4 *load_torque) {
    const uint b = get_global_id(0);
    if (b >= bodies) return;
    float4 f = body_force[b], t = body_torque[b];
    for (uint k = body_first_joint[b]; k < body_first_joint[b + 1]; k++) {
        const uint j = joint_list[k] >> 1, end = joint_list[k] & 1u;
        const float4 F = joint_out[3 * j], T = joint_out[3 * j + 1 + end];
        if (end)
            f.x = f.x - F.x, f.y = f.y - F.y, f.z = f.z - F.z;
        else
            f.x = f.x + F.x, f.y = f.y + F.y, f.z = f.z + F.z;
        t.x = t.x + T.x, t.y = t.y + T.y, t.z = t.z + T.z;
    }
    load_force[b] = f;
    load_torque[b] = t;
}
