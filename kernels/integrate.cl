/* integrate.cl - stages 4 and 5: per-body sums, integration, transforms.
 *
 * Torque T = external + sum m_i, m_i = r_i x f_i + the contacts' moments
 * about particle i's centre: particle i's moment about the centre, which
 * the force pass stores (forces.cl).
 *
 * One work-item a body. Its particles' forces and moments are summed in
 * RB_SUM_PARTS partial sums, part k over the k-th run of `chunk`
 * consecutive particles, chunk = max(RB_MIN_CHUNK, ceil(count /
 * RB_SUM_PARTS)), added in order: the order the reference sums in too
 * (src/sim/world_internal.h), so both give the same bits. Sleeping follows
 * the reference: a sleeping body is left untouched unless woken (forces.cl)
 * or loaded. A static body sums nothing and is left as it is; a kinematic
 * body sums nothing and moves on at its own velocity and angular velocity.
 *
 * CPUs once ran a work-group of RB_SUM_PARTS work-items a body, one a part,
 * the first adding them: for a body of 8 particles, seven of them summed
 * nothing, and the work-group cost more than the sums (scripts/profile,
 * pile 3000 of cube2: 214 instructions a particle against 134 now). */
#ifndef RB_SUM_PARTS
#define RB_SUM_PARTS 8
#endif
#ifndef RB_MIN_CHUNK
#define RB_MIN_CHUNK 32
#endif

/* sin and cos of x as rb_sincos (src/base/rb_math.h) computes them, operation
 * for operation, instead of the device's sin and cos, which differ from the
 * C library's in the last bit now and then. */
static void rb_sincos(float x, float *s, float *c) {
    if (!(fabs(x) <= 65536.0f)) x = 0.0f;
    const float k = floor(x * 0.636619772f + 0.5f);
    const float r = ((x - k * 1.5703125f) - k * 4.83751297e-4f) - k * 7.54978995e-8f;
    const float z = r * r;
    const float sr = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    const float cr = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z -
                     0.5f * z + 1.0f;
    const int q = (int)k & 3;
    *s = q == 0 ? sr : q == 1 ? cr : q == 2 ? -sr : -cr;
    *c = q == 0 ? cr : q == 1 ? -sr : q == 2 ? -cr : sr;
}

/* q turned by the rotation of w t (axis w, angle |w| t, exactly), normalised,
 * as the reference's rb_quat_turn. */
static float4 rb_quat_turn(const float4 q, const float3 w, const float t) {
    const float speed = sqrt(w.x * w.x + w.y * w.y + w.z * w.z), angle = speed * t;
    if (!(angle > 0.0f)) return q;
    float s, c;
    rb_sincos(0.5f * angle, &s, &c);
    const float4 dq = (float4)(w.x / speed * s, w.y / speed * s, w.z / speed * s, c);
    float4 qn = rb_quat_mul(dq, q);
    const float len = sqrt(qn.x * qn.x + qn.y * qn.y + qn.z * qn.z + qn.w * qn.w);
    if (len > 0.0f) qn = (float4)(qn.x / len, qn.y / len, qn.z / len, qn.w / len);
    return qn;
}

/* A body's support for the next step's contact masses, as the reference
 * keeps it (src/sim/reference.c, rb_support): the sum of its contacts'
 * shares, or what it was times keep if that is more; 0 once nothing
 * touches it. */
static inline float rb_support(const float sum, const float was, const float keep) {
    return sum > 0.0f ? fmax(sum, keep * was) : 0.0f;
}

/* What runs at body b's next step (as reference.c's integrate keeps it):
 * a body an awake one came near this step, one that rests or sleeps only
 * then; every body awake at this step's start (so one that falls asleep
 * now runs once more). The near flag is cleared for the next force pass.
 * A resting body is counted. */
static inline void rb_next_run(const uint b, const bool resting, const bool awake, __global uint *body_run,
                               __global uint *body_near, __global uint *rested) {
    const uint near = body_near[b];
    body_near[b] = 0u;
    body_run[b] = near != 0u || (awake && !resting);
    if (resting) atomic_inc(rested);
}

/* Counts body b if it sleeps at the step's end: the next force pass marks
 * sleeping bodies near only where some body sleeps (forces.cl). */
static inline void rb_count_sleeper(const uint b, __global const float4 *body_pos, const float sleep_time,
                                    __global uint *sleepers) {
    if (rb_asleep(body_pos[b].w, sleep_time)) atomic_inc(sleepers);
}

/* The integration of body b under force F and torque T (the sums). */
static void rb_integrate_body(const uint b, const float3 F, const float3 T, __global float4 *body_pos,
                              __global float4 *body_quat, __global float4 *body_vel, __global float4 *body_angmom,
                              __global float4 *body_omega, __global const float4 *body_inv_inertia,
                              __global const uint *body_kind, __global const uint *wake, const float dt,
                              const float sleep_speed, const float sleep_time, const float wake_accel,
                              __global float4 *transforms, __global float4 *body_frame) {
    const uint kind = body_kind[b];
    if (kind == RB_BODY_STATIC) return; /* never moves: its transform stays as uploaded */
    const float4 x = body_pos[b], q = body_quat[b];
    if (kind == RB_BODY_KINEMATIC) { /* its own velocities, whatever pushes it (as the reference) */
        const float4 v = body_vel[b];
        const float4 xn = (float4)(x.x + v.x * dt, x.y + v.y * dt, x.z + v.z * dt, x.w);
        const float4 qn = rb_quat_turn(q, body_omega[b].xyz, dt);
        body_pos[b] = xn;
        body_quat[b] = qn;
        transforms[2 * b] = (float4)(xn.xyz, 0.0f);
        transforms[2 * b + 1] = qn;
        return;
    }
    const float inv_mass = body_vel[b].w;

    /* Sleeping: a sleeping body stays as it is until a mover touches it or a
     * load (support gone, a push) accelerates it. */
    const float4 inv_inertia = body_inv_inertia[b];
    const float3 alpha = rb_apply_inv_inertia(q, inv_inertia, T);
    const float accel2 = (F.x * F.x + F.y * F.y + F.z * F.z) * inv_mass * inv_mass;
    const float alpha2 = alpha.x * alpha.x + alpha.y * alpha.y + alpha.z * alpha.z;
    const float wake2 = wake_accel * wake_accel;
    const bool loaded = accel2 > wake2 || alpha2 > wake2;
    float4 xn = x;
    if (x.w < 0.0f) { /* held: anchored for good, dormant until a mover touches it (only that) */
        if (rb_anchored(x.w) || wake[b] == 0u) return;
        xn.w = 0.0f;
    } else if (rb_asleep(x.w, sleep_time)) {
        if (wake[b] == 0u && !loaded) return; /* stays: v, L and omega are zero */
        xn.w = 0.0f;
    }

    /* Semi-implicit Euler: velocity first, then position with the new velocity. */
    float4 v = body_vel[b], L = body_angmom[b];
    v.x += F.x * inv_mass * dt, v.y += F.y * inv_mass * dt, v.z += F.z * inv_mass * dt;
    xn.x += v.x * dt, xn.y += v.y * dt, xn.z += v.z * dt;
    L.x += T.x * dt, L.y += T.y * dt, L.z += T.z * dt;

    /* Midpoint rotation, as the reference: omega from L at the orientation
     * half a step on, then the exact rotation of that omega dt (Fossum
     * 5.12-5.13), normalised. Second order: a free spinner keeps its energy. */
    const float3 w0 = rb_apply_inv_inertia(q, inv_inertia, L.xyz);
    const float3 w = rb_apply_inv_inertia(rb_quat_turn(q, w0, 0.5f * dt), inv_inertia, L.xyz);
    const float4 qn = rb_quat_turn(q, w, dt);
    float3 omega = rb_apply_inv_inertia(qn, inv_inertia, L.xyz);

    /* Count the time spent slow; a body slow for sleep_time falls asleep, still. */
    const float speed2 = sleep_speed * sleep_speed;
    const bool slow = v.x * v.x + v.y * v.y + v.z * v.z < speed2 &&
                      omega.x * omega.x + omega.y * omega.y + omega.z * omega.z < speed2 && !loaded;
    xn.w = sleep_time > 0.0f && slow ? xn.w + dt : 0.0f;
    if (sleep_time > 0.0f && xn.w >= sleep_time) {
        v.x = v.y = v.z = 0.0f;
        L = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
        omega = (float3)(0.0f, 0.0f, 0.0f);
    }
    body_pos[b] = xn;
    body_vel[b] = v;
    body_angmom[b] = L;
    body_quat[b] = qn;
    body_omega[b] = (float4)(omega, 0.0f);
    /* its frame for the next step's contact masses (common.cl, rb_body_frame_of) */
    float4 fa, fb;
    rb_body_frame_of(qn, inv_inertia, inv_mass, 0.0f, &fa, &fb); /* the share: rb_integrate's */
    body_frame[2u * b] = fa;
    body_frame[2u * b + 1u] = fb;
    /* Stage 5: what the renderer reads, 32 bytes a body. */
    transforms[2 * b] = (float4)(xn.xyz, 0.0f);
    transforms[2 * b + 1] = qn;
}

/* Part l of body b's sum of its particle forces and moments, in
 * the order every backend sums (src/sim/world_internal.h, RB_SUM_PARTS):
 * the l-th run of chunk consecutive particles, part 0 from the external load
 * and gravity, the others from zero. */
static void rb_partial_sum(const uint b, const uint l, const uint first, const uint last, const bool dynamic,
                           __global const float *force, __global const float *moment, __global const float4 *body_vel,
                           __global const float4 *body_force, __global const float4 *body_torque, const float4 gravity,
                           __global const float *support, float3 *F, float3 *T, float *share) {
    const uint chunk = max((uint)RB_MIN_CHUNK, (last - first + RB_SUM_PARTS - 1) / RB_SUM_PARTS);
    float3 f_sum = (float3)(0.0f, 0.0f, 0.0f), t_sum = f_sum;
    if (l == 0 && dynamic) {
        const float mass = 1.0f / body_vel[b].w;
        const float4 ef = body_force[b];
        f_sum = (float3)(ef.x + mass * gravity.x, ef.y + mass * gravity.y, ef.z + mass * gravity.z);
        t_sum = body_torque[b].xyz;
    }
    const uint lo = min(last, first + l * chunk), hi = min(last, lo + chunk);
    float n = 0.0f;
    for (uint i = lo; i < hi; i++) {
        n = n + support[i];
        const float3 f = vload3(i, force), m = vload3(i, moment); /* m: about the centre (forces.cl) */
        f_sum = (float3)(f_sum.x + f.x, f_sum.y + f.y, f_sum.z + f.z);
        t_sum = (float3)(t_sum.x + m.x, t_sum.y + m.y, t_sum.z + m.z);
    }
    *F = f_sum, *T = t_sum, *share = n;
}

/* Body b's step: its sums, its integration, its transforms; whether it
 * runs at the next step (rb_next_run), and whether it sleeps at the end. */
__kernel void rb_integrate(const uint body_count, __global const uint *body_first_particle, __global const float *force,
                           __global const float *moment, __global float4 *body_pos, __global float4 *body_quat,
                           __global float4 *body_vel, __global float4 *body_angmom, __global float4 *body_omega,
                           __global const float4 *body_inv_inertia, __global const float4 *body_force,
                           __global const float4 *body_torque, __global const uint *body_kind,
                           __global const uint *wake, const float4 gravity, const float dt, const float sleep_speed,
                           const float sleep_time, const float wake_accel, __global float4 *transforms,
                           __global const float *support, __global float *body_support, const float support_keep,
                           __global float4 *body_frame, __global const float4 *body_contact, __global uint *body_run,
                           __global uint *body_near, const uint rest_sleepers, __global uint *rested,
                           __global uint *sleepers) {
    const uint b = get_global_id(0);
    if (b >= body_count) return;
    const bool resting = rb_resting(b, body_kind, body_pos, body_run, sleep_time, rest_sleepers);
    rb_next_run(b, resting, !rb_asleep(body_pos[b].w, sleep_time), body_run, body_near, rested);
    if (resting) {
        atomic_inc(sleepers);
        return; /* as it was, its support too */
    }
    const bool dynamic = body_kind[b] == RB_BODY_DYNAMIC;
    const uint first = body_first_particle[b], last = dynamic ? body_first_particle[b + 1] : first;
    float3 F, T;
    float count;
    if (last - first <= RB_MIN_CHUNK) {
        /* Part 0 holds every particle; the other parts are empty, and each
         * adds +0, which turns a sum of -0 into +0 and leaves every other
         * value as it is: adding +0 once gives the bits of adding it
         * RB_SUM_PARTS - 1 times (no compiler folds x + 0: it is not x for
         * x = -0). */
        rb_partial_sum(b, 0u, first, last, dynamic, force, moment, body_vel, body_force, body_torque, gravity, support,
                       &F, &T, &count);
        F = (float3)(F.x + 0.0f, F.y + 0.0f, F.z + 0.0f);
        T = (float3)(T.x + 0.0f, T.y + 0.0f, T.z + 0.0f);
        count = count + 0.0f;
    } else {
        for (uint l = 0; l < RB_SUM_PARTS; l++) {
            float3 pf, pt; /* part l */
            float n;
            rb_partial_sum(b, l, first, last, dynamic, force, moment, body_vel, body_force, body_torque, gravity,
                           support, &pf, &pt, &n);
            count = l == 0 ? n : count + n;
            if (l == 0) {
                F = pf, T = pt;
            } else {
                F = (float3)(F.x + pf.x, F.y + pf.y, F.z + pf.z);
                T = (float3)(T.x + pt.x, T.y + pt.y, T.z + pt.z);
            }
        }
    }
    const float supported = rb_support(count, body_support[b], support_keep);
    body_support[b] = supported;
    rb_integrate_body(b, F, T, body_pos, body_quat, body_vel, body_angmom, body_omega, body_inv_inertia, body_kind,
                      wake, dt, sleep_speed, sleep_time, wake_accel, transforms, body_frame);
    rb_count_sleeper(b, body_pos, sleep_time, sleepers);
    /* every body's, asleep or not */
    body_frame[2u * b + 1u].w = rb_contact_share(supported, body_contact[b].z, body_contact[b].w);
}
