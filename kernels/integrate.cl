/* integrate.cl - stages 4 and 5: per-body sums, integration, transforms.
 *
 * Torque T = external + sum m_i, m_i = r_i x f_i + the contacts' moments
 * about particle i's centre: particle i's moment about the centre, which
 * the force pass stores (forces.cl).
 *
 * Two kernels:
 * - rb_sum_bodies, one work-item a body: its particles' forces and
 *   moments, summed in RB_SUM_PARTS partial sums, part k over the k-th run
 *   of `chunk` consecutive particles, chunk = max(RB_MIN_CHUNK, ceil(count /
 *   RB_SUM_PARTS)), added in order: the order the reference sums in too
 *   (src/sim/world_internal.h), so both give the same bits;
 * - rb_integrate, one work-item for eight bodies, one a lane of float8
 *   vectors (RB_INTEGRATE_LANES, below): the integration, every value formed
 *   for every body and the body's kind choosing, lane by lane (the only
 *   branches: eight resting bodies skip it all, and the last work-item's
 *   lanes past the last body are not stored). It also counts the bodies
 *   asleep at the step's end, for the next force pass (forces.cl marks
 *   sleeping bodies near only where some body sleeps).
 *   A CPU runs each vector operation on the eight bodies at once: PoCL's
 *   implicit vectorizer packs work-items only where a kernel has one path,
 *   no vector types, no calls and no atomics, and even the integration
 *   written so in scalars was not packed (its SLP pass made short vectors
 *   of each body's x, y, z first). scripts/profile, pile 3000 of cube2:
 *   the integration 136.1 instructions a particle in one kernel a body, 78.1
 *   now (README, "Instructions a particle (CPU)").
 * Sleeping follows the reference: a sleeping body is left untouched unless
 * woken (forces.cl) or loaded. A static body sums nothing and is left as it
 * is; a kinematic body sums nothing and moves on at its own velocity and
 * angular velocity.
 *
 * CPUs once ran a work-group of RB_SUM_PARTS work-items a body, one a part,
 * the first adding them: for a body of 8 particles, seven of them summed
 * nothing, and the work-group cost more than the sums (scripts/profile,
 * pile 3000 of cube2: 214 instructions a particle against 134 with one
 * work-item a body). */
#ifndef RB_SUM_PARTS
#define RB_SUM_PARTS 8
#endif
#ifndef RB_MIN_CHUNK
#define RB_MIN_CHUNK 32
#endif

/* ---- eight bodies at a time: what rb_integrate computes with ----
 * A work-item of rb_integrate takes RB_INTEGRATE_LANES (8: the host's,
 * src/sim/opencl_backend.h; src/sim/opencl.c launches a work-item for
 * eight bodies) bodies,
 * one a lane of float8 vectors: the vectors hold one value of each body
 * (the bodies' float4s are taken apart by lane on loading and put together
 * on storing), and every operation is its scalar's, lane by lane, so each
 * body gets the bits the reference gives it. Each helper is its C twin
 * operation for operation (src/base/rb_math.h, src/sim/world_internal.h,
 * src/sim/contact.h; common.cl has the scalar twins of some); masks are
 * int8 lanes of -1 (true) or 0. */
#if RB_INTEGRATE_LANES != 8
#error "rb_integrate packs eight bodies a work-item (float8): RB_INTEGRATE_LANES must be 8"
#endif
typedef float8 rb_lf;
typedef int8 rb_li;
typedef struct rb_l3 {
    rb_lf x, y, z;
} rb_l3;
typedef struct rb_l4 {
    rb_lf x, y, z, w;
} rb_l4;

/* X(k) for each lane k */
#define RB_EACH_LANE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

/* a[stride b + offset] for the lanes' bodies b = first + k, the last body's
 * for lanes past the last (n - 1), by lane */
static inline __attribute__((always_inline)) rb_l4 rb_l4_load(__global const float4 *a, const uint first,
                                                              const uint stride, const uint offset, const uint n) {
#define RB_LOAD_LANE(k) const float4 v##k = a[stride * min(first + k##u, n - 1u) + offset];
    RB_EACH_LANE(RB_LOAD_LANE)
#undef RB_LOAD_LANE
    const rb_l4 r = {(rb_lf)(v0.x, v1.x, v2.x, v3.x, v4.x, v5.x, v6.x, v7.x),
                     (rb_lf)(v0.y, v1.y, v2.y, v3.y, v4.y, v5.y, v6.y, v7.y),
                     (rb_lf)(v0.z, v1.z, v2.z, v3.z, v4.z, v5.z, v6.z, v7.z),
                     (rb_lf)(v0.w, v1.w, v2.w, v3.w, v4.w, v5.w, v6.w, v7.w)};
    return r;
}

/* a[stride b + offset] = lane k of v, for the lanes' bodies before n */
static inline __attribute__((always_inline)) void rb_l4_store(__global float4 *a, const uint first, const uint stride,
                                                              const uint offset, const uint n, const rb_l4 v) {
#define RB_STORE_LANE(k)                                                                                               \
    if (first + k##u < n) a[stride * (first + k##u) + offset] = (float4)(v.x.s##k, v.y.s##k, v.z.s##k, v.w.s##k);
    RB_EACH_LANE(RB_STORE_LANE)
#undef RB_STORE_LANE
}

/* a[b] for the lanes' bodies, as rb_l4_load */
static inline __attribute__((always_inline)) rb_li rb_li_load(__global const uint *a, const uint first, const uint n) {
#define RB_LOAD_LANE(k) const int u##k = (int)a[min(first + k##u, n - 1u)];
    RB_EACH_LANE(RB_LOAD_LANE)
#undef RB_LOAD_LANE
    return (rb_li)(u0, u1, u2, u3, u4, u5, u6, u7);
}

/* lane by lane: which ? a : b */
static inline __attribute__((always_inline)) rb_l4 rb_l4_pick(const rb_li which, const rb_l4 a, const rb_l4 b) {
    const rb_l4 v = {select(b.x, a.x, which), select(b.y, a.y, which), select(b.z, a.z, which),
                     select(b.w, a.w, which)};
    return v;
}

static inline __attribute__((always_inline)) rb_l3 rb_l3_cross(const rb_l3 a, const rb_l3 b) {
    const rb_l3 c = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return c;
}

/* rb_rotate */
static inline __attribute__((always_inline)) rb_l3 rb_l_rotate(const rb_l4 q, const rb_l3 v) {
    const rb_l3 u = {q.x, q.y, q.z};
    rb_l3 t = rb_l3_cross(u, v);
    t.x = t.x * 2.0f, t.y = t.y * 2.0f, t.z = t.z * 2.0f;
    const rb_l3 c = rb_l3_cross(u, t);
    const rb_l3 r = {v.x + q.w * t.x + c.x, v.y + q.w * t.y + c.y, v.z + q.w * t.z + c.z};
    return r;
}

/* rb_apply_inv_inertia: R diag(d) R^T a */
static inline __attribute__((always_inline)) rb_l3 rb_l_apply_inv_inertia(const rb_l4 q, const rb_l4 d, const rb_l3 a) {
    const rb_l4 conj = {-q.x, -q.y, -q.z, q.w};
    const rb_l3 lb = rb_l_rotate(conj, a);
    const rb_l3 scaled = {lb.x * d.x, lb.y * d.y, lb.z * d.z};
    return rb_l_rotate(q, scaled);
}

/* rb_quat_mul: a b (apply b, then a) */
static inline __attribute__((always_inline)) rb_l4 rb_l_quat_mul(const rb_l4 a, const rb_l4 b) {
    const rb_l4 r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                     a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}

/* sin and cos of x as rb_sincos (src/base/rb_math.h) computes them, operation
 * for operation, instead of the device's sin and cos, which differ from the
 * C library's in the last bit now and then. The quadrant is chosen with
 * selects: a negation is exact, so these are the reference's bits. */
static inline __attribute__((always_inline)) void rb_sincos(rb_lf x, rb_lf *s, rb_lf *c) {
    x = select((rb_lf)(0.0f), x, fabs(x) <= 65536.0f);
    const rb_lf k = floor(x * 0.636619772f + 0.5f);
    const rb_lf r = ((x - k * 1.5703125f) - k * 4.83751297e-4f) - k * 7.54978995e-8f;
    const rb_lf z = r * r;
    const rb_lf sr = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    const rb_lf cr =
        ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
    const rb_li q = convert_int8(k), odd = (q & 1) != 0, high = (q & 2) != 0;
    const rb_lf s1 = select(sr, cr, odd), c1 = select(cr, -sr, odd); /* quadrants 1 and 3 */
    *s = select(s1, -s1, high);                                      /* quadrants 2 and 3 */
    *c = select(c1, -c1, high);
}

/* q turned by the rotation of w t (axis w, angle |w| t, exactly), normalised,
 * as the reference's rb_quat_turn. */
static inline __attribute__((always_inline)) rb_l4 rb_l_quat_turn(const rb_l4 q, const rb_l3 w, const float t) {
    const rb_lf speed = sqrt(w.x * w.x + w.y * w.y + w.z * w.z), angle = speed * t;
    rb_lf s, c;
    rb_sincos(0.5f * angle, &s, &c);
    const rb_l4 dq = {w.x / speed * s, w.y / speed * s, w.z / speed * s, c};
    const rb_l4 qn = rb_l_quat_mul(dq, q);
    const rb_lf len = sqrt(qn.x * qn.x + qn.y * qn.y + qn.z * qn.z + qn.w * qn.w);
    const rb_l4 unit = {qn.x / len, qn.y / len, qn.z / len, qn.w / len};
    return rb_l4_pick(angle > 0.0f, rb_l4_pick(len > 0.0f, unit, qn), q);
}

/* rb_body_frame_of (src/sim/contact.h): the world inverse inertia R diag(d)
 * R^T, the diagonal in a.xyz with a.w = inv_mass, the xy, xz, yz terms in
 * b.xyz, b.w the share (common.cl's rb_side reads it). */
static inline __attribute__((always_inline)) void rb_l_body_frame(const rb_l4 q, const rb_l4 d, const rb_lf inv_mass,
                                                                  const rb_lf share, rb_l4 *a, rb_l4 *b) {
    const rb_lf x = q.x, y = q.y, z = q.z, w = q.w;
    const rb_lf r00 = 1.0f - 2.0f * (y * y + z * z), r01 = 2.0f * (x * y - z * w), r02 = 2.0f * (x * z + y * w);
    const rb_lf r10 = 2.0f * (x * y + z * w), r11 = 1.0f - 2.0f * (x * x + z * z), r12 = 2.0f * (y * z - x * w);
    const rb_lf r20 = 2.0f * (x * z - y * w), r21 = 2.0f * (y * z + x * w), r22 = 1.0f - 2.0f * (x * x + y * y);
    const rb_l4 fa = {(r00 * r00 * d.x + r01 * r01 * d.y) + r02 * r02 * d.z,
                      (r10 * r10 * d.x + r11 * r11 * d.y) + r12 * r12 * d.z,
                      (r20 * r20 * d.x + r21 * r21 * d.y) + r22 * r22 * d.z, inv_mass};
    const rb_l4 fb = {(r00 * r10 * d.x + r01 * r11 * d.y) + r02 * r12 * d.z,
                      (r00 * r20 * d.x + r01 * r21 * d.y) + r02 * r22 * d.z,
                      (r10 * r20 * d.x + r11 * r21 * d.y) + r12 * r22 * d.z, share};
    *a = fa, *b = fb;
}

/* rb_contact_share (src/sim/contact.h), by lane */
static inline __attribute__((always_inline)) rb_lf rb_l_contact_share(const rb_lf support, const rb_lf onset,
                                                                      const rb_lf rank) {
    const rb_lf share = fmax(support, 1.0f);
    return select(select(share, fmin(share, onset), rank > 0.0f), onset, ~(support > 0.0f));
}

/* the lanes that are true (-1) */
static inline __attribute__((always_inline)) uint rb_li_count(const rb_li m) {
    return (uint) - (m.s0 + m.s1 + m.s2 + m.s3 + m.s4 + m.s5 + m.s6 + m.s7);
}

/* the lanes whose bodies (first + k) lie before n */
static inline __attribute__((always_inline)) rb_li rb_li_before(const uint first, const uint n) {
    return (rb_li)(0, 1, 2, 3, 4, 5, 6, 7) < (rb_li)((int)min(n - first, RB_INTEGRATE_LANES));
}

/* rb_anchored (common.cl), by lane */
static inline __attribute__((always_inline)) rb_li rb_l_anchored(const rb_lf timer) { return timer < -1.5f; }

/* rb_asleep, by lane */
static inline __attribute__((always_inline)) rb_li rb_l_asleep(const rb_lf slow_seconds, const float sleep_time) {
    return (slow_seconds < 0.0f) | (sleep_time > 0.0f ? slow_seconds >= sleep_time : (rb_li)(0));
}

/* ---- stage 4: the sums ---- */

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

/* Body b's sums, for rb_integrate: body_load[2 b] the force and the body's
 * support (rb_support, also kept in body_support), body_load[2 b + 1] the
 * torque and whether the body rests (w: 1.0 where it does, and nothing of
 * it changes this step: then the force and torque are zero); whether it
 * runs at the next step (rb_next_run). */
__kernel void rb_sum_bodies(const uint body_count, __global const uint *body_first_particle,
                            __global const float *force, __global const float *moment, __global const float4 *body_pos,
                            __global const float4 *body_vel, __global const float4 *body_force,
                            __global const float4 *body_torque, __global const uint *body_kind, const float4 gravity,
                            const float sleep_time, __global const float *support, __global float *body_support,
                            const float support_keep, __global uint *body_run, __global uint *body_near,
                            const uint rest_sleepers, __global uint *rested, __global float4 *body_load) {
    const uint b = get_global_id(0);
    if (b >= body_count) return;
    const bool resting = rb_resting(b, body_kind, body_pos, body_run, sleep_time, rest_sleepers);
    rb_next_run(b, resting, !rb_asleep(body_pos[b].w, sleep_time), body_run, body_near, rested);
    if (resting) {
        body_load[2u * b] = (float4)(0.0f); /* nothing acts: it stays as it was, its support too */
        body_load[2u * b + 1u] = (float4)(0.0f, 0.0f, 0.0f, 1.0f);
        return;
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
    body_load[2u * b] = (float4)(F, supported);
    body_load[2u * b + 1u] = (float4)(T, 0.0f);
}

/* ---- stage 5: the integration ---- */

/* Bodies first .. first + 7 (those before body_count) under force F and
 * torque T (rb_sum_bodies' body_load), and what the renderer reads
 * (transforms, 32 bytes a body). Every value is formed for every body and
 * its kind's chosen by lane (selects), so that the eight lanes take one
 * path (see the top of this file):
 * - resting: nothing changes;
 * - static: never moves; only its frame's share is new;
 * - kinematic: its own velocities, whatever pushes it (as the reference);
 * - dynamic, held and dormant (not touched by a mover) or anchored, or
 *   asleep and neither touched nor loaded (support gone, a push): it stays,
 *   only its frame's share is new;
 * - dynamic otherwise: semi-implicit Euler, velocity first, then position
 *   with the new velocity; the midpoint rotation, as the reference: omega
 *   from L at the orientation half a step on, then the exact rotation of
 *   that omega dt (Fossum 5.12-5.13), normalised (second order: a free
 *   spinner keeps its energy); the time spent slow counted, and a body slow
 *   for sleep_time falls asleep, still. */
__kernel void rb_integrate(const uint body_count, __global float4 *body_pos, __global float4 *body_quat,
                           __global float4 *body_vel, __global float4 *body_angmom, __global float4 *body_omega,
                           __global const float4 *body_inv_inertia, __global const uint *body_kind,
                           __global const uint *wake, __global const float4 *body_load, const float dt,
                           const float sleep_speed, const float sleep_time, const float wake_accel,
                           __global float4 *transforms, __global float4 *body_frame,
                           __global const float4 *body_contact, __global uint *sleepers) {
    const uint first = get_global_id(0) * RB_INTEGRATE_LANES, n = body_count;
    if (first >= n) return;
    const rb_l4 load_t = rb_l4_load(body_load, first, 2u, 1u, n);
    const rb_li resting = load_t.w != 0.0f;
    if (all(resting)) { /* eight resting bodies (a settled pile's are most): nothing of them changes */
        atomic_add(sleepers, min(RB_INTEGRATE_LANES, n - first));
        return;
    }
    const rb_li kind = rb_li_load(body_kind, first, n), touched = rb_li_load(wake, first, n) != 0;
    const rb_l4 x = rb_l4_load(body_pos, first, 1u, 0u, n), q = rb_l4_load(body_quat, first, 1u, 0u, n);
    const rb_l4 v0 = rb_l4_load(body_vel, first, 1u, 0u, n), L0 = rb_l4_load(body_angmom, first, 1u, 0u, n);
    const rb_l4 omega0 = rb_l4_load(body_omega, first, 1u, 0u, n);
    const rb_l4 d = rb_l4_load(body_inv_inertia, first, 1u, 0u, n),
                contact = rb_l4_load(body_contact, first, 1u, 0u, n);
    const rb_l4 load_f = rb_l4_load(body_load, first, 2u, 0u, n);
    const rb_l4 frame_a = rb_l4_load(body_frame, first, 2u, 0u, n), frame_b = rb_l4_load(body_frame, first, 2u, 1u, n);
    const rb_l4 shown_x = rb_l4_load(transforms, first, 2u, 0u, n), shown_q = rb_l4_load(transforms, first, 2u, 1u, n);
    const rb_l3 F = {load_f.x, load_f.y, load_f.z}, T = {load_t.x, load_t.y, load_t.z};

    /* kinematic */
    const rb_l4 xk = {x.x + v0.x * dt, x.y + v0.y * dt, x.z + v0.z * dt, x.w};
    const rb_l3 omega_k = {omega0.x, omega0.y, omega0.z};
    const rb_l4 qk = rb_l_quat_turn(q, omega_k, dt);

    /* dynamic: whether it stays (sleeping), then its step */
    const rb_lf inv_mass = v0.w;
    const rb_l3 alpha = rb_l_apply_inv_inertia(q, d, T);
    const rb_lf accel2 = (F.x * F.x + F.y * F.y + F.z * F.z) * inv_mass * inv_mass;
    const rb_lf alpha2 = alpha.x * alpha.x + alpha.y * alpha.y + alpha.z * alpha.z;
    const float wake2 = wake_accel * wake_accel;
    const rb_li loaded = (accel2 > wake2) | (alpha2 > wake2);
    const rb_li held = x.w < 0.0f, asleep = rb_l_asleep(x.w, sleep_time);
    const rb_li stays = select(asleep & ~touched & ~loaded, rb_l_anchored(x.w) | ~touched, held);
    rb_l4 xn = x, v = v0, L = L0;
    xn.w = select(x.w, (rb_lf)(0.0f), held | asleep);
    v.x += F.x * inv_mass * dt, v.y += F.y * inv_mass * dt, v.z += F.z * inv_mass * dt;
    xn.x += v.x * dt, xn.y += v.y * dt, xn.z += v.z * dt;
    L.x += T.x * dt, L.y += T.y * dt, L.z += T.z * dt;
    const rb_l3 Lv = {L.x, L.y, L.z};
    const rb_l3 w0 = rb_l_apply_inv_inertia(q, d, Lv);
    const rb_l3 w = rb_l_apply_inv_inertia(rb_l_quat_turn(q, w0, 0.5f * dt), d, Lv);
    const rb_l4 qn = rb_l_quat_turn(q, w, dt);
    rb_l3 omega = rb_l_apply_inv_inertia(qn, d, Lv);
    const float speed2 = sleep_speed * sleep_speed;
    const rb_li slow = (v.x * v.x + v.y * v.y + v.z * v.z < speed2) &
                       (omega.x * omega.x + omega.y * omega.y + omega.z * omega.z < speed2) & ~loaded;
    xn.w = sleep_time > 0.0f ? select((rb_lf)(0.0f), xn.w + dt, slow) : (rb_lf)(0.0f);
    const rb_li falls = sleep_time > 0.0f ? xn.w >= sleep_time : (rb_li)(0);
    const rb_lf zero = (rb_lf)(0.0f);
    v.x = select(v.x, zero, falls), v.y = select(v.y, zero, falls), v.z = select(v.z, zero, falls);
    L.x = select(L.x, zero, falls), L.y = select(L.y, zero, falls), L.z = select(L.z, zero, falls);
    L.w = select(L.w, zero, falls);
    omega.x = select(omega.x, zero, falls), omega.y = select(omega.y, zero, falls);
    omega.z = select(omega.z, zero, falls);
    rb_l4 fa, fb;
    rb_l_body_frame(qn, d, inv_mass, rb_l_contact_share(load_f.w, contact.z, contact.w), &fa, &fb);

    /* what is stored */
    const rb_li steps = ~resting & (kind == (int)RB_BODY_DYNAMIC) & ~stays;
    const rb_li turns = ~resting & (kind == (int)RB_BODY_KINEMATIC), shows = steps | turns;
    const rb_l4 omega4 = {omega.x, omega.y, omega.z, zero};
    const rb_l4 pos = rb_l4_pick(steps, xn, rb_l4_pick(turns, xk, x));
    const rb_l4 quat = rb_l4_pick(steps, qn, rb_l4_pick(turns, qk, q));
    const rb_l4 shown = {pos.x, pos.y, pos.z, zero};
    rb_l4 share_b = frame_b; /* every body's share, asleep or not */
    share_b.w = select(fb.w, frame_b.w, resting);
    rb_l4_store(body_pos, first, 1u, 0u, n, pos);
    rb_l4_store(body_quat, first, 1u, 0u, n, quat);
    rb_l4_store(body_vel, first, 1u, 0u, n, rb_l4_pick(steps, v, v0));
    rb_l4_store(body_angmom, first, 1u, 0u, n, rb_l4_pick(steps, L, L0));
    rb_l4_store(body_omega, first, 1u, 0u, n, rb_l4_pick(steps, omega4, omega0));
    rb_l4_store(body_frame, first, 2u, 0u, n, rb_l4_pick(steps, fa, frame_a));
    rb_l4_store(body_frame, first, 2u, 1u, n, rb_l4_pick(steps, fb, share_b));
    rb_l4_store(transforms, first, 2u, 0u, n, rb_l4_pick(shows, shown, shown_x));
    rb_l4_store(transforms, first, 2u, 1u, n, rb_l4_pick(shows, quat, shown_q));
    /* the bodies asleep at the step's end, for the next force pass */
    const uint asleep_now = rb_li_count(rb_l_asleep(pos.w, sleep_time) & rb_li_before(first, n));
    if (asleep_now) atomic_add(sleepers, asleep_now);
}
