/* contact.h - the contact law, shared by the reference backend and mirrored
 * line for line in kernels/ (README.md, "The contact"). */
#ifndef RB_CONTACT_H
#define RB_CONTACT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "world_internal.h"

/* Normal force per unit mass of a contact with overlap > 0 and separation
 * speed vn (negative: closing), never a pull. A step's force stands for the
 * window [t - dt/2, t + dt/2]. On the first step of a contact (overlap less
 * than one step's approach, |vn| dt: a step ago the pair was apart) and on
 * the last (a step on it will be apart), only part of the window is in
 * contact: that step gets the exact impulse of the linearly changing
 * overlap over that part, s / u of the window (u = |vn| dt, s = overlap +
 * u / 2, the overlap at the window's deep end), instead of a whole window's.
 * This removes most of the scatter of restitution with where the touch
 * falls within a step. u > overlap >= 0 in that branch, so s / u is in
 * [1/2, 3/2). */
static inline float rb_contact_normal(float k, float c, float overlap, float vn, float dt) {
    float f = k * overlap - c * vn;
    const float u = fabsf(vn) * dt;
    if (overlap < u) {
        float s = overlap + 0.5f * u;
        f = s / u * (0.5f * k * s - c * vn);
    }
    return fmaxf(f, 0.0f);
}

/* The effective mass of a contact between particle i of a dynamic body and
 * particle j: m_i m_j / (m_i + m_j), or m_i alone when j's body is static or
 * kinematic (particle mass INFINITY: 1 / m_j = 0), as against a plane: the
 * spring and dashpot then give the material's restitution. Contacts between
 * two such bodies are never formed (reference.c, forces.cl). */
static inline float rb_pair_mass(float mi, float mj) { return isinf(mj) ? mi : mi * mj / (mi + mj); }

/* The mass the tangential damping is scaled by: the effective mass, but
 * m_i / 2 against a static or kinematic body, the rate a particle gets from
 * a particle of its own mass. The damping acts explicitly, and a particle
 * nested in a static body touches up to four of its particles where it
 * touches a plane once: at m_i, a cube resting in the pockets of a static
 * block rang in a two-step slip cycle at 3 mm/s and did not fall asleep
 * (README.md, "The contact"). The Coulomb cap is mu |f_n| as ever. */
static inline float rb_pair_tangential_mass(float mi, float mj, float meff) { return isinf(mj) ? 0.5f * mi : meff; }

/* True if particles of radii ri and rj whose centres are dist2 apart
 * (squared) overlap: 0 < dist2 < (ri + rj)^2. Written once for the force,
 * the wake test and the contact pairs, and as the kernels write it
 * (forces.cl), so every test agrees to the bit. */
static inline bool rb_particles_touch(float dist2, float ri, float rj) {
    const float d = ri + rj;
    return dist2 < d * d && dist2 > 0.0f;
}

/* Where a contact between particles of radii ri and rj, dist apart, acts:
 * at the fraction a of the way from i's centre to j's: ri - ov / 2 along
 * the normal (ov = ri + rj - dist, the overlap), midway through the
 * overlap. a = (dist + ri - rj) / (2 dist): exactly 1/2 for equal radii
 * (the midpoint of the centres; taken without the division, the same bits),
 * and j's fraction seen from j is 1 - a up to rounding, so the pair's
 * moments cancel. */
static inline float rb_contact_fraction(float dist, float ri, float rj) {
    return ri == rj ? 0.5f : (dist + (ri - rj)) / (2.0f * dist);
}

/* Force on particle i of a dynamic body (position pi, velocity vi, mass mi,
 * radius ri, its body's angular velocity wi) from particle j (mass INFINITY
 * if its body is static or kinematic; radius rj), with the rates c of their
 * materials' pair, added to f, and its moment about i's centre, added to t.
 * The overlap is ri + rj - |x_ij|. The force acts at the contact point
 * (rb_contact_fraction), so the pair's torques cancel and angular momentum
 * is kept; only the tangential part has a moment. Slip is measured there too
 * (the centres' velocities plus w x lever): friction then only ever takes
 * energy away, and a small sphere rolls on a large one about its own
 * contact point. Nothing if the particles do not overlap.
 *
 * The tangential damping acts explicitly, one step's force from the slip
 * at its start: it must not take more than the slip. The rate assumes the
 * surface gives way as a free point of the particle's mass; a body of one
 * or two particles turns far more easily (a sphere: 3.5 times, the 7/2 of
 * rolling), and its slip would overshoot and ring in a two-step cycle up to
 * the Coulomb cap: a ball of 8 kg in a pocket of a cube's face spun back
 * and forth at 0.28 rad/s for good (tests/test_sizes.c). So the damping is
 * scaled by the pair's slip scale, the smaller of the two bodies' 1 /
 * mobility (rb_shape_mobility, world_internal.h; 1 for bodies of many
 * particles, which are unchanged bit for bit). */
static inline void rb_contact_particles(rb_float4 pi, rb_float4 vi, rb_float4 wi, float mi, float ri, rb_float4 pj,
                                        rb_float4 vj, rb_float4 wj, float mj, float rj, float slip,
                                        const rb_contact_rates *c, const rb_step_params *p, float f[3], float t[3]) {
    float x[3] = {pj.x - pi.x, pj.y - pi.y, pj.z - pi.z};
    float dist2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    if (!rb_particles_touch(dist2, ri, rj)) return; /* apart, or coincident with no normal */
    float dist = sqrtf(dist2);
    float n[3] = {x[0] / dist, x[1] / dist, x[2] / dist};
    float meff = rb_pair_mass(mi, mj);
    /* The contact point is a x from i's centre and -(1 - a) x from j's:
     * v_j + wj x (-(1 - a) x) - (v_i + wi x (a x)) = v_j - v_i - (a wi + (1 - a) wj) x x */
    const float a = rb_contact_fraction(dist, ri, rj), b = 1.0f - a;
    float ws[3] = {a * wi.x + b * wj.x, a * wi.y + b * wj.y, a * wi.z + b * wj.z};
    float v[3] = {vj.x - vi.x - (ws[1] * x[2] - ws[2] * x[1]), vj.y - vi.y - (ws[2] * x[0] - ws[0] * x[2]),
                  vj.z - vi.z - (ws[0] * x[1] - ws[1] * x[0])};
    float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    /* Along n (towards j): spring pushes i away, dashpot resists approach; never pulls. */
    float fn = -meff * rb_contact_normal(c->stiffness, c->damping, (ri + rj) - dist, vn, p->dt);
    float vt[3] = {v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]};
    float eta = rb_pair_tangential_mass(mi, mj, meff) * c->tangential * slip;
    float ft_len = eta * sqrtf(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    float cap = c->friction * -fn;
    float scale = ft_len > cap ? cap / ft_len : 1.0f; /* Coulomb: |f_t| <= mu |f_n| */
    float ft[3] = {eta * scale * vt[0], eta * scale * vt[1], eta * scale * vt[2]};
    for (int k = 0; k < 3; k++) f[k] += fn * n[k] + ft[k];
    /* (a x) x ft */
    t[0] += a * (x[1] * ft[2] - x[2] * ft[1]);
    t[1] += a * (x[2] * ft[0] - x[0] * ft[2]);
    t[2] += a * (x[0] * ft[1] - x[1] * ft[0]);
}

/* Force on particle i (radius ri, its body's slip scale si) from a plane
 * (xyz normal out of the solid, w offset), with the rates c of its own
 * material, added to f, with its moment about i's centre (acting at the
 * point of the plane under the centre, where the slip is measured) added to
 * t. */
static inline void rb_contact_plane(rb_float4 pi, rb_float4 vi, rb_float4 wi, float mi, float ri, float si,
                                    rb_float4 plane, const rb_contact_rates *c, const rb_step_params *p, float f[3],
                                    float t[3]) {
    float n[3] = {plane.x, plane.y, plane.z};
    float height = n[0] * pi.x + n[1] * pi.y + n[2] * pi.z - plane.w;
    float overlap = ri - height;
    if (overlap <= 0.0f) return;
    /* the contact point's velocity: v_i + w x (-height n) */
    float vc[3] = {vi.x - height * (wi.y * n[2] - wi.z * n[1]), vi.y - height * (wi.z * n[0] - wi.x * n[2]),
                   vi.z - height * (wi.x * n[1] - wi.y * n[0])};
    float vn = n[0] * vc[0] + n[1] * vc[1] + n[2] * vc[2];
    float fn = mi * rb_contact_normal(c->stiffness, c->damping, overlap, vn, p->dt);
    /* The plane is still: the relative tangential velocity is -v_t of the contact point. */
    float vt[3] = {-(vc[0] - vn * n[0]), -(vc[1] - vn * n[1]), -(vc[2] - vn * n[2])};
    float eta = mi * c->tangential * si;
    float ft_len = eta * sqrtf(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    float cap = c->friction * fn;
    float scale = ft_len > cap ? cap / ft_len : 1.0f;
    float ft[3] = {eta * scale * vt[0], eta * scale * vt[1], eta * scale * vt[2]};
    for (int k = 0; k < 3; k++) f[k] += fn * n[k] + ft[k];
    /* (-height n) x ft */
    t[0] -= height * (n[1] * ft[2] - n[2] * ft[1]);
    t[1] -= height * (n[2] * ft[0] - n[0] * ft[2]);
    t[2] -= height * (n[0] * ft[1] - n[1] * ft[0]);
}

/* Cell coordinate of a position along one axis: floor(x / cell), saturated
 * (a NaN from a blown-up state lands at the low end instead of being
 * undefined behaviour; OpenCL's convert_int_sat does the same). */
static inline int rb_cell_coord(float x, float inv_cell) {
    float c = floorf(x * inv_cell);
    if (!(c > -2147483520.0f)) return INT32_MIN; /* also NaN */
    if (c >= 2147483520.0f) return INT32_MAX;
    return (int)c;
}

/* Coordinate c + d of a neighbouring cell. It wraps at the ends of the int
 * range (where a blown-up state's cells saturate) instead of overflowing,
 * as the OpenCL force pass does. */
static inline int rb_cell_step(int c, int d) { return (int)((unsigned)c + (unsigned)d); }

/* Hash of a cell into a table of mask + 1 (a power of two) buckets, for
 * the reference's grid. x is added unscaled, so the cells of a row along x
 * fill consecutive buckets, as in the OpenCL backend's hash
 * (kernels/common.cl), which lays rows out by the world's extent instead of
 * these large odd factors. Contacts are summed by cell, not by bucket, so
 * the two hashes give the same forces. */
static inline unsigned rb_cell_hash(int cx, int cy, int cz, unsigned mask) {
    return ((unsigned)cx + (unsigned)cy * 19349663u + (unsigned)cz * 83492791u) & mask;
}

#endif
