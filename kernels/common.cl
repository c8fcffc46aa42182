/* common.cl - helpers every kernel uses: quaternion rotation, cells, the contact law.
 *
 * Each function mirrors its twin in src/base/rb_math.h or src/sim/contact.h
 * operation for operation, and FP_CONTRACT is off, so a device with IEEE
 * single precision (PoCL) computes the same bits as the reference backend.
 * Units: metres, kilograms, seconds. Quaternions are x, y, z, w. */
#pragma OPENCL FP_CONTRACT OFF

/* Sizes for one step call (rb_step_params) are passed as kernel arguments,
 * not a struct, so no struct layout has to agree between host and device
 * compilers. A contact's rates are a row of the pair table (rb_contact_rates
 * as a float4: x stiffness, y damping, z tangential, w friction). */

/* Body kinds, as rb_body_kind (src/sim/world.h). */
#define RB_BODY_DYNAMIC 0u
#define RB_BODY_STATIC 1u
#define RB_BODY_KINEMATIC 2u

/* Cross product as rb_v3_cross writes it (no built-in: its rounding is the device's). */
static inline float3 rb_cross(const float3 a, const float3 b) {
    return (float3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/* q v q^-1, as rb_quat_rotate: v + 2 w (u x v) + 2 u x (u x v), u = q.xyz. */
static inline float3 rb_rotate(const float4 q, const float3 v) {
    const float3 u = q.xyz;
    float3 t = rb_cross(u, v);
    t = (float3)(t.x * 2.0f, t.y * 2.0f, t.z * 2.0f);
    const float3 c = rb_cross(u, t);
    return (float3)(v.x + q.w * t.x + c.x, v.y + q.w * t.y + c.y, v.z + q.w * t.z + c.z);
}

/* q^-1 v q */
static inline float3 rb_rotate_inv(const float4 q, const float3 v) { return rb_rotate((float4)(-q.xyz, q.w), v); }

/* a b (apply b, then a), as rb_quat_mul. */
static inline float4 rb_quat_mul(const float4 a, const float4 b) {
    return (float4)(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

/* A held body's sleep timer (world_internal.h, RB_TIMER_DORMANT and
 * RB_TIMER_ANCHORED): dormant (-1) until a mover touches it, anchored (-2)
 * for good. */
static inline bool rb_dormant(const float timer) { return timer < 0.0f && timer > -1.5f; }
static inline bool rb_anchored(const float timer) { return timer < -1.5f; }

/* True if a body sleeps: it has been slow for sleep_time seconds (body_pos.w
 * counts them; sleep_time 0 turns sleeping off), or it is held. */
static inline bool rb_asleep(const float slow_seconds, const float sleep_time) {
    return slow_seconds < 0.0f || (sleep_time > 0.0f && slow_seconds >= sleep_time);
}

/* Whether body b rests this step, as reference.c's resting: a sleeping
 * dynamic body whose force pass does not run (forces.cl), and which its
 * integration leaves as it is (integrate.cl). */
static inline bool rb_resting(const uint b, __global const uint *body_kind, __global const float4 *body_pos,
                              __global const uint *body_run, const float sleep_time, const uint rest_sleepers) {
    return rest_sleepers && body_kind[b] == RB_BODY_DYNAMIC && rb_asleep(body_pos[b].w, sleep_time) &&
           body_run[b] == 0u;
}

/* R diag(inv_inertia) R^T a: inverse world inertia applied to a vector, as
 * rb_apply_inv_inertia (angular velocity from momentum, acceleration from torque). */
static inline float3 rb_apply_inv_inertia(const float4 q, const float4 inv_inertia, const float3 a) {
    const float3 lb = rb_rotate_inv(q, a);
    return rb_rotate(q, (float3)(lb.x * inv_inertia.x, lb.y * inv_inertia.y, lb.z * inv_inertia.z));
}

/* Velocity of a point at rel from the centre of mass: V + omega x rel. */
static inline float3 rb_point_velocity(const float4 v, const float4 w, const float3 rel) {
    return (float3)(v.x + (w.y * rel.z - w.z * rel.y), v.y + (w.z * rel.x - w.x * rel.z),
                    v.z + (w.x * rel.y - w.y * rel.x));
}

/* floor(x) as an int, saturated, as rb_cell_coord gives it: truncate, then
 * step down where truncation went up (negative fractions); NaN and values
 * past the int range land at the ends. Written out because some devices'
 * floor() is a branchy library routine. (Floats this large are integers,
 * so comparing x is comparing floor(x).) The hash pass has it with selects
 * (grid.cl, rb_floor_int_select). */
static inline int rb_floor_int(const float x) {
    if (!(x > -2147483520.0f)) return INT_MIN;
    if (x >= 2147483520.0f) return INT_MAX;
    const int i = (int)x;
    return x < (float)i ? i - 1 : i;
}

/* Cell coordinates, floor(x / cell) per axis, as rb_cell_coord. */
static inline int3 rb_cell_of(const float3 p, const float inv_cell) {
    return (int3)(rb_floor_int(p.x * inv_cell), rb_floor_int(p.y * inv_cell), rb_floor_int(p.z * inv_cell));
}

/* Bucket of a cell in a table of mask + 1 (a power of two) buckets: its
 * index in a grid of rows along x, stride_z buckets from one row to the
 * next along z and stride_y from one layer to the next along y, wrapped.
 * Cells x and x + 1 of a row fill buckets h and h + 1 (the force pass reads
 * a row as one run), and the rows next to a row along z are the runs just
 * before and after it: neighbours in space are neighbours in memory. The
 * host sizes the strides to the world's extent (src/sim/opencl.c); any
 * strides give the same contacts, only more or fewer cells in a bucket.
 * (Coordinates as scalars, for the hash pass's vectorized loop.) */
static inline uint rb_cell_hash(const int x, const int y, const int z, const uint stride_z, const uint stride_y,
                                const uint mask) {
    return ((uint)x + (uint)z * stride_z + (uint)y * stride_y) & mask;
}

/* A cell's coordinates modulo 1024, packed in 30 bits. Distinct cells
 * among one particle's 27 neighbours always have distinct keys; two cells
 * with one key are at least 1022 cells apart, so a particle wrongly taken
 * for a neighbour by its key fails the distance test: comparing keys gives
 * exactly the reference's contacts, for one integer compare. */
static inline uint rb_cell_key(const int x, const int y, const int z) {
    return ((uint)x & 1023u) | (((uint)y & 1023u) << 10) | (((uint)z & 1023u) << 20);
}

/* Offset from particle i to particle j, and its squared length, as
 * rb_contact_particles forms them (the force pass tests overlap first). */
static inline float3 rb_separation(const float3 pi, const float3 pj) {
    return (float3)(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z);
}
static inline float rb_length2(const float3 x) { return x.x * x.x + x.y * x.y + x.z * x.z; }

/* True if particles of radii ri and rj whose centres are dist2 apart
 * (squared) overlap, as rb_particles_touch: 0 < dist2 < (ri + rj)^2. */
static inline bool rb_particles_touch(const float dist2, const float ri, const float rj) {
    const float d = ri + rj;
    return dist2 < d * d && dist2 > 0.0f;
}

/* The fraction of the way from i's centre to j's where their contact acts,
 * as rb_contact_fraction (src/sim/contact.h): exactly 1/2 for equal radii. */
static inline float rb_contact_fraction(const float dist, const float ri, const float rj) {
    return ri == rj ? 0.5f : (dist + (ri - rj)) / (2.0f * dist);
}

/* Normal force per unit mass of a contact with overlap > 0 and separation
 * speed vn (negative: closing), never a pull; as rb_contact_normal in
 * src/sim/contact.h, which says why the first step of a contact differs. */
static inline float rb_contact_normal(const float k, const float c, const float overlap, const float vn,
                                      const float dt) {
    float f = k * overlap - c * vn;
    const float u = fabs(vn) * dt;
    if (vn < 0.0f && overlap < u) {
        const float s = overlap + 0.5f * u;
        f = s / u * (0.5f * k * s - c * vn);
    }
    return fmax(f, 0.0f);
}

/* Effective mass of a contact of particle i of a dynamic body with particle
 * j, as rb_pair_mass: m_j INFINITY (a static or kinematic body) leaves m_i. */
static inline float rb_pair_mass(const float mi, const float mj) { return isinf(mj) ? mi : mi * mj / (mi + mj); }

/* The mass the tangential damping is scaled by, as rb_pair_tangential_mass
 * (src/sim/contact.h says why m_i / 2 against a static or kinematic body). */
static inline float rb_pair_tangential_mass(const float mi, const float mj, const float meff) {
    return isinf(mj) ? 0.5f * mi : meff;
}

/* One side of a contact: a particle and its body, as rb_contact_side
 * (src/sim/contact.h). */
typedef struct rb_side {
    float3 p, v, w; /* the particle's centre and velocity, its body's angular velocity */
    float m, r;     /* particle mass (INFINITY: static, kinematic), radius */
    uint body;      /* its body's index */
    float3 centre;  /* its body's centre of mass */
    float4 fa, fb;  /* its body's frame (integrate.cl, rb_l_body_frame): world inverse inertia, fa.w 1 / M */
    float4 q;       /* its body's orientation: the cells' axes */
    float rank;     /* its body's cell rank (body_contact.w): 0, a body of spheres */
} rb_side;

/* The inverse mass a body shows along n at lever l, as rb_point_inv_mass. */
static inline float rb_point_inv_mass(const rb_side *s, const float3 l, const float3 n) {
    const float3 c = rb_cross(l, n);
    const float4 a = s->fa, b = s->fb;
    const float diag = (a.x * c.x * c.x + a.y * c.y * c.y) + a.z * c.z * c.z;
    const float off = (b.x * c.x * c.y + b.y * c.x * c.z) + b.z * c.y * c.z;
    return a.w + (diag + 2.0f * off);
}

/* The mass a contact's spring and dashpot are sized by, as rb_contact_mass
 * (src/sim/contact.h says why): the effective mass at the contact point,
 * each side's inverse mass there multiplied by rb_contact_share. *share
 * gets 1 / (M_i w_i). */
static inline float rb_contact_mass(const rb_side *i, const rb_side *j, const float3 x, const float dist,
                                    const float3 n, float *share) {
    /* x = pj - pi: from the first body's particle, +x if that is i, -x if j */
    const bool i_first = i->body < j->body;
    const float3 pa = i_first ? i->p : j->p;
    const float s = i_first ? 1.0f : -1.0f;
    const float f = i_first ? rb_contact_fraction(dist, i->r, j->r) : rb_contact_fraction(dist, j->r, i->r);
    const float3 point = (float3)(pa.x + f * (s * x.x), pa.y + f * (s * x.y), pa.z + f * (s * x.z));
    const float3 li = (float3)(point.x - i->centre.x, point.y - i->centre.y, point.z - i->centre.z);
    const float3 lj = (float3)(point.x - j->centre.x, point.y - j->centre.y, point.z - j->centre.z);
    const float wi = rb_point_inv_mass(i, li, n), wj = rb_point_inv_mass(j, lj, n);
    *share = i->fa.w / wi;
    return 1.0f / (i->fb.w * wi + j->fb.w * wj);
}

/* True if a particle apart from a plane by gap closes at normal speed vn
 * fast enough to touch it at the next step, within RB_IMMINENT_MARGIN of the
 * largest radius, as rb_contact_imminent (src/sim/contact.h). */
#define RB_IMMINENT_MARGIN 0.4f
static inline bool rb_contact_imminent(const float gap, const float vn, const float dt) {
    return gap < -vn * dt; /* the margin: rb_contact_plane returns before, farther away */
}

/* The tangential force with memory, as rb_contact_tangential: the kept
 * displacement xo turned into the tangent plane plus the step's slip, a
 * spring kt on it plus damping eta, scaled to cap when it slips (the
 * displacement then what the spring alone holds). Returns the force; *xi
 * gets the displacement to keep. */
static inline float3 rb_contact_tangential(const float3 xo, const float3 n, const float3 vt, const float eta,
                                           const float kt, const float cap, const float dt, float3 *xi) {
    const float d = xo.x * n.x + xo.y * n.y + xo.z * n.z;
    float3 x = (float3)((xo.x - d * n.x) + vt.x * dt, (xo.y - d * n.y) + vt.y * dt, (xo.z - d * n.z) + vt.z * dt);
    float3 ft = (float3)(kt * x.x + eta * vt.x, kt * x.y + eta * vt.y, kt * x.z + eta * vt.z);
    const float len = sqrt(ft.x * ft.x + ft.y * ft.y + ft.z * ft.z);
    if (len > cap) {
        const float s = cap / len;
        ft = (float3)(ft.x * s, ft.y * s, ft.z * s);
        x = (float3)(ft.x / kt, ft.y / kt, ft.z / kt);
    }
    *xi = x;
    return ft;
}

/* The rolling moment on particle i (added to *t) and the angle to keep
 * (*roll), for relative angular velocity w = w_j - w_i at normal n, from the
 * kept angle ro: rolling friction mu_r, effective radius reff, effective mass
 * meff, the pair's rates c, the normal force's magnitude load; as
 * rb_contact_rolling (src/sim/contact.h). */
static inline void rb_contact_rolling(const float3 ro, const float3 n, const float3 w, const float mu_r,
                                      const float reff, const float meff, const float4 c, const float load,
                                      const float dt, float3 *t, float3 *roll) {
    const float kr = RB_ROLLING_SPRING * mu_r * mu_r * (reff * reff) * (meff * c.x);
    const float tau = c.z / (RB_TANGENTIAL_SPRING * c.x);
    const float d = w.x * n.x + w.y * n.y + w.z * n.z;
    const float3 wr = (float3)(w.x - d * n.x, w.y - d * n.y, w.z - d * n.z);
    const float3 m = rb_contact_tangential(ro, n, wr, kr * tau, kr, mu_r * reff * load, dt, roll);
    *t = (float3)((*t).x + m.x, (*t).y + m.y, (*t).z + m.z);
}

/* Force on particle i of a dynamic body from an overlapping particle j of
 * another body (rb_contact_particles, after its overlap test: x = pj - pi,
 * rb_particles_touch), with the rates c of their materials' pair, added to
 * *f, and its moment about i's centre, added to *t: spring and dashpot
 * along the normal that never pull, sized by rb_contact_mass (*share: the
 * contact's share of i's body); the history's
 * tangential spring and damping (xo in, *xi out), capped by Coulomb
 * friction and scaled by the pair's slip scale. The force acts at the
 * contact point (rb_contact_fraction), so only its tangential part has a
 * moment, and a pair's moments cancel; slip is measured there too. With
 * rolling > 0 (the pair's rolling friction) the contact also resists the
 * bodies' rolling on each other (rb_contact_rolling; ro in, *roll out). */
static inline void rb_contact_particles(const float3 x, const float dist2, const rb_side *i, const rb_side *j,
                                        const float slip, const float3 xo, float3 *xi, const float rolling,
                                        const float3 ro, float3 *roll, float3 *f, float3 *t, const float4 c,
                                        const float dt, float *share) {
    const float3 vi = i->v, wi = i->w, vj = j->v, wj = j->w;
    const float dist = sqrt(dist2);
    const float3 n = (float3)(x.x / dist, x.y / dist, x.z / dist);
    /* v_j + wj x (-(1 - a) x) - (v_i + wi x (a x)) = v_j - v_i - (a wi + (1 - a) wj) x x */
    const float a = rb_contact_fraction(dist, i->r, j->r), b = 1.0f - a;
    const float3 ws = (float3)(a * wi.x + b * wj.x, a * wi.y + b * wj.y, a * wi.z + b * wj.z);
    const float3 v = (float3)(vj.x - vi.x - (ws.y * x.z - ws.z * x.y), vj.y - vi.y - (ws.z * x.x - ws.x * x.z),
                              vj.z - vi.z - (ws.x * x.y - ws.y * x.x));
    const float vn = v.x * n.x + v.y * n.y + v.z * n.z;
    const float overlap = (i->r + j->r) - dist;
    const float meff = rb_contact_mass(i, j, x, dist, n, share);
    const float fn = -meff * rb_contact_normal(c.x, c.y, overlap, vn, dt);
    const float3 vt = (float3)(v.x - vn * n.x, v.y - vn * n.y, v.z - vn * n.z);
    const float mt = rb_pair_tangential_mass(i->m, j->m, rb_pair_mass(i->m, j->m)) * slip;
    const float3 ft = rb_contact_tangential(xo, n, vt, mt * c.z, mt * (RB_TANGENTIAL_SPRING * c.x), c.w * -fn, dt, xi);
    *f = (float3)((*f).x + (fn * n.x + ft.x), (*f).y + (fn * n.y + ft.y), (*f).z + (fn * n.z + ft.z));
    /* (a x) x ft */
    *t = (float3)((*t).x + a * (x.y * ft.z - x.z * ft.y), (*t).y + a * (x.z * ft.x - x.x * ft.z),
                  (*t).z + a * (x.x * ft.y - x.y * ft.x));
    if (rolling > 0.0f) {
        const float3 w = (float3)(wj.x - wi.x, wj.y - wi.y, wj.z - wi.z);
        const float reff = i->r * j->r / (i->r + j->r);
        rb_contact_rolling(ro, n, w, rolling, reff, meff, c, -fn, dt, t, roll);
    }
}

/* ---- cells: lattice bodies meet others as the cells their particles stand
 * for (src/sim/contact.h, "cells"; the faces, bit 2k for +axis k and 2k + 1
 * for -axis k, are particle_offset.w) ---- */

#define RB_FACE_POS(k) (1u << (2u * (uint)(k)))
#define RB_FACE_NEG(k) (2u << (2u * (uint)(k)))

/* True if particle j's body gives the cells of pair (i, j), as rb_cells_on_j. */
static inline bool rb_cells_on_j(const float rank_i, const uint body_i, const float rank_j, const uint body_j) {
    return rank_j > rank_i || (rank_j == rank_i && body_j < body_i);
}

/* The touch of a sphere (centre ps, radius rs) and a cell (centre pc, half
 * side h, its body's orientation q, its exposed faces), as rb_cell_touch:
 * its weight, 0 if apart or in other cells' region; *m the unit normal
 * from the cell toward the sphere, *dist the centre's distance from the
 * cell along it. */
static inline __attribute__((always_inline)) float rb_cell_touch(const float3 ps, const float rs, const float3 pc,
                                                                 const float h, const float4 q, const uint faces,
                                                                 float3 *m, float *dist) {
    const float3 yv = rb_rotate_inv(q, (float3)(ps.x - pc.x, ps.y - pc.y, ps.z - pc.z));
    const float yb[3] = {yv.x, yv.y, yv.z};
    const float b = RB_CELL_SEAM * h;
    /* The reference's tests of the three axes at once, in vectors: its
     * early returns and its branches on the faces become masks and
     * selects (the faces differ from slot to slot, and their branches
     * mispredicted). A seam's share is its numerator over 2 b, and where
     * the reference takes no share, 2 b over 2 b: 1, and weight * 1 is
     * weight, so the weight is the reference's product, bit for bit.
     * callgrind's branch simulation, pile 3000 of cube2: rb_touch_slots
     * mispredicted 5.8 times a particle with the reference's branches, 1.6
     * so, and counts 31 instructions a particle fewer (README,
     * "Instructions a particle (CPU)"). */
    const int3 pos_open = ((uint3)(faces) & (uint3)(RB_FACE_POS(0), RB_FACE_POS(1), RB_FACE_POS(2))) != (uint3)(0u);
    const int3 neg_open = ((uint3)(faces) & (uint3)(RB_FACE_NEG(0), RB_FACE_NEG(1), RB_FACE_NEG(2))) != (uint3)(0u);
    /* where a cell of the body lies that way: beyond the seam, or a share of it */
    const int3 apart = (~pos_open & (yv >= (float3)(h + b))) | (~neg_open & (yv < (float3)(-h - b)));
    const float two_b = 2.0f * b;
    const float3 share_pos = select((float3)(two_b), (float3)(h + b) - yv, ~pos_open & (yv > (float3)(h - b))) / two_b;
    const float3 share_neg =
        select((float3)(two_b), yv + (float3)(h) + (float3)(b), ~neg_open & (yv < (float3)(-h + b))) / two_b;
    const float weight = share_pos.x * share_neg.x * share_pos.y * share_neg.y * share_pos.z * share_neg.z;
    /* where the face is open: clamped to it */
    const float3 c =
        select(select(yv, (float3)(-h), neg_open & (yv < (float3)(-h))), (float3)(h), pos_open & (yv >= (float3)(h)));
    const float3 dv = yv - c;
    const float d[3] = {dv.x, dv.y, dv.z};
    const float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (any(apart) || !(d2 < rs * rs) || !(weight > 0.0f)) return 0.0f;
    float mb[3] = {0.0f, 0.0f, 0.0f};
    if (d2 > 0.0f) {
        const float len = sqrt(d2);
        for (int k = 0; k < 3; k++) mb[k] = d[k] / len;
        *dist = len;
    } else {
        const uint open = faces ? faces : 63u;
        float best = INFINITY;
        int axis = 0;
        float sign = 1.0f;
        for (int k = 0; k < 3; k++) {
            if ((open & RB_FACE_POS(k)) && h - yb[k] < best) best = h - yb[k], axis = k, sign = 1.0f;
            if ((open & RB_FACE_NEG(k)) && h + yb[k] < best) best = h + yb[k], axis = k, sign = -1.0f;
        }
        mb[axis] = sign;
        *dist = -best;
    }
    *m = rb_rotate(q, (float3)(mb[0], mb[1], mb[2]));
    return weight;
}

/* Force on particle i from particle j where one of their bodies is a
 * lattice, as rb_contact_cells after its touch (rb_cell_touch: weight > 0,
 * m, dist; on_j: j gives the cell): the arguments otherwise as
 * rb_contact_particles'. The contact acts midway through the overlap, on
 * the cell's normal, with springs and dashpots weight of a whole one's. */
static inline void rb_contact_cells(const float weight, const float3 m, const float dist, const bool on_j,
                                    const rb_side *i, const rb_side *j, const float slip, const float3 xo, float3 *xi,
                                    const float rolling, const float3 ro, float3 *roll, float3 *f, float3 *t,
                                    const float4 c, const float dt, float *share) {
    const rb_side *ss = on_j ? i : j; /* the sphere's side */
    const float overlap = ss->r - dist, reach = 0.5f * (ss->r + dist);
    /* the contact point, formed from the two sides' roles: the same bits for both particles */
    const float3 point = (float3)(ss->p.x - reach * m.x, ss->p.y - reach * m.y, ss->p.z - reach * m.z);
    const float s = on_j ? -1.0f : 1.0f; /* n: from i toward j */
    const float3 n = (float3)(s * m.x, s * m.y, s * m.z);
    const float3 li = (float3)(point.x - i->p.x, point.y - i->p.y, point.z - i->p.z);
    const float3 lj = (float3)(point.x - j->p.x, point.y - j->p.y, point.z - j->p.z);
    const float3 wi = i->w, wj = j->w;
    const float3 ui = (float3)(i->v.x + (wi.y * li.z - wi.z * li.y), i->v.y + (wi.z * li.x - wi.x * li.z),
                               i->v.z + (wi.x * li.y - wi.y * li.x));
    const float3 uj = (float3)(j->v.x + (wj.y * lj.z - wj.z * lj.y), j->v.y + (wj.z * lj.x - wj.x * lj.z),
                               j->v.z + (wj.x * lj.y - wj.y * lj.x));
    const float3 v = (float3)(uj.x - ui.x, uj.y - ui.y, uj.z - ui.z);
    const float vn = v.x * n.x + v.y * n.y + v.z * n.z;
    const float3 ci = (float3)(point.x - i->centre.x, point.y - i->centre.y, point.z - i->centre.z);
    const float3 cj = (float3)(point.x - j->centre.x, point.y - j->centre.y, point.z - j->centre.z);
    const float wpi = rb_point_inv_mass(i, ci, n), wpj = rb_point_inv_mass(j, cj, n);
    *share = weight * (i->fa.w / wpi);
    /* a contact of weight w: its springs and dashpots w of a whole one's */
    const float meff = weight / (i->fb.w * wpi + j->fb.w * wpj);
    const float fn = -meff * rb_contact_normal(c.x, c.y, overlap, vn, dt);
    const float3 vt = (float3)(v.x - vn * n.x, v.y - vn * n.y, v.z - vn * n.z);
    const float mt = weight * (rb_pair_tangential_mass(i->m, j->m, rb_pair_mass(i->m, j->m)) * slip);
    const float3 ft = rb_contact_tangential(xo, n, vt, mt * c.z, mt * (RB_TANGENTIAL_SPRING * c.x), c.w * -fn, dt, xi);
    const float3 F = (float3)(fn * n.x + ft.x, fn * n.y + ft.y, fn * n.z + ft.z);
    *f = (float3)((*f).x + F.x, (*f).y + F.y, (*f).z + F.z);
    /* li x F */
    *t = (float3)((*t).x + (li.y * F.z - li.z * F.y), (*t).y + (li.z * F.x - li.x * F.z),
                  (*t).z + (li.x * F.y - li.y * F.x));
    if (rolling > 0.0f) {
        const float3 w = (float3)(wj.x - wi.x, wj.y - wi.y, wj.z - wi.z);
        const float reff = i->r * j->r / (i->r + j->r);
        rb_contact_rolling(ro, n, w, rolling, reff, meff, c, -fn, dt, t, roll);
    }
}

/* Where a cell (half side h) reaches toward a plane whose normal is nb in
 * its body's frame, as rb_cell_support (src/sim/contact.h): how far below
 * its centre along the normal; *u gets the point (body frame, from the
 * centre). */
static inline float rb_cell_support(const float3 nb, const float h, float3 *u) {
    const float eps = RB_CELL_ROUNDING;
    const float a[3] = {nb.x, nb.y, nb.z};
    float s = 0.0f, ub[3];
    for (int k = 0; k < 3; k++) {
        if (fabs(a[k]) >= eps) {
            s += fabs(a[k]);
            ub[k] = a[k] > 0.0f ? -h : h;
        } else {
            s += a[k] * a[k] / (2.0f * eps) + 0.5f * eps;
            ub[k] = -h * (a[k] / eps);
        }
    }
    *u = (float3)(ub[0], ub[1], ub[2]);
    return h * (s - eps);
}

/* Force on particle i (its body's slip scale si) from a plane (xyz unit
 * normal out of the solid, w offset), an immovable partner, as
 * rb_contact_plane: the normal spring and dashpot sized by the effective
 * mass at the contact point (under the centre for a sphere; for a particle
 * of a lattice body, i->rank > 0, under its cell's reach, rb_cell_support),
 * the history's tangential force (xo in, *xi out), with the rates c of i's
 * own material, added to *f; its moment about i's centre, acting at that
 * point (where the slip is measured), added to *t; with rolling > 0 (its
 * material's rolling friction) it resists i's rolling on the plane
 * (rb_contact_rolling, R = r_i; ro in, *roll out). False if they do not
 * touch. */
static inline bool rb_contact_plane(const rb_side *i, const float si, const float4 plane, const float3 xo, float3 *xi,
                                    const float rolling, const float3 ro, float3 *roll, float3 *f, float3 *t,
                                    const float4 c, const float dt, const float max_radius, float *share) {
    const float3 pi = i->p, vi = i->v, wi = i->w;
    const float3 n = plane.xyz;
    const float height = n.x * pi.x + n.y * pi.y + n.z * pi.z - plane.w;
    /* the lever from the centre to the contact point: -height n, plus a cell's support point's part along the plane */
    float3 lever = (float3)(-height * n.x, -height * n.y, -height * n.z);
    float below = i->r;
    if (i->rank > 0.0f) {
        float3 ub;
        below = rb_cell_support(rb_rotate_inv(i->q, n), i->r, &ub);
        const float3 u = rb_rotate(i->q, ub);
        const float un = u.x * n.x + u.y * n.y + u.z * n.z;
        lever = (float3)(lever.x + (u.x - un * n.x), lever.y + (u.y - un * n.y), lever.z + (u.z - un * n.z));
    }
    const float overlap = below - height;
    *share = 0.0f;
    if (overlap <= -RB_IMMINENT_MARGIN * max_radius) return false; /* neither touching nor about to */
    /* the contact point's velocity: v_i + w x lever */
    const float3 vc = (float3)(vi.x + (wi.y * lever.z - wi.z * lever.y), vi.y + (wi.z * lever.x - wi.x * lever.z),
                               vi.z + (wi.x * lever.y - wi.y * lever.x));
    const float vn = n.x * vc.x + n.y * vc.y + n.z * vc.z;
    const bool touch = overlap > 0.0f;
    if (!touch && !rb_contact_imminent(-overlap, vn, dt)) return false;
    const float3 l = (float3)(pi.x + lever.x - i->centre.x, pi.y + lever.y - i->centre.y, pi.z + lever.z - i->centre.z);
    const float wp = rb_point_inv_mass(i, l, n);
    *share = i->fa.w / wp;
    if (!touch) return false;
    const float meff = 1.0f / (i->fb.w * wp);
    const float fn = meff * rb_contact_normal(c.x, c.y, overlap, vn, dt);
    const float3 vt = (float3)(-(vc.x - vn * n.x), -(vc.y - vn * n.y), -(vc.z - vn * n.z));
    const float mt = i->m * si;
    const float3 ft = rb_contact_tangential(xo, n, vt, mt * c.z, mt * (RB_TANGENTIAL_SPRING * c.x), c.w * fn, dt, xi);
    const float3 F = (float3)(fn * n.x + ft.x, fn * n.y + ft.y, fn * n.z + ft.z);
    *f = (float3)((*f).x + F.x, (*f).y + F.y, (*f).z + F.z);
    /* lever x F */
    *t = (float3)((*t).x + (lever.y * F.z - lever.z * F.y), (*t).y + (lever.z * F.x - lever.x * F.z),
                  (*t).z + (lever.x * F.y - lever.y * F.x));
    if (i->rank > 0.0f && fn > 0.0f) {
        /* the cell's face's dashpots against its tilting (rb_contact_plane, src/sim/contact.h) */
        const float d = meff * c.y * (i->r * i->r), wn = wi.x * n.x + wi.y * n.y + wi.z * n.z;
        *t = (float3)((*t).x - d * (wi.x - wn * n.x), (*t).y - d * (wi.y - wn * n.y), (*t).z - d * (wi.z - wn * n.z));
    }
    if (rolling > 0.0f) {
        const float3 w = (float3)(-wi.x, -wi.y, -wi.z);
        rb_contact_rolling(ro, n, w, rolling, i->r, meff, c, fn, dt, t, roll);
    }
    return true;
}
