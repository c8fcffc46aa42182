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
 * window [t - dt/2, t + dt/2]. On the first step of a contact (closing, and
 * overlap less than one step's approach, |vn| dt: a step ago the pair was
 * apart), only part of the window is in contact: that step gets the exact
 * impulse of the linearly changing overlap over that part, s / u of the
 * window (u = |vn| dt, s = overlap + u / 2, the overlap at the window's
 * deep end), instead of a whole window's. This removes most of the scatter
 * of restitution with where the touch falls within a step. u > overlap >= 0
 * in that branch, so s / u is in [1/2, 3/2). (The last step of a contact
 * once had the same treatment; it fed energy into the rocking of stacks,
 * whose edge contacts part and touch again every few steps: a column of
 * six staggered cubes swayed 15 cm at 0.3 m/s for good with sleeping off.) */
static inline float rb_contact_normal(float k, float c, float overlap, float vn, float dt) {
    float f = k * overlap - c * vn;
    const float u = fabsf(vn) * dt;
    if (vn < 0.0f && overlap < u) {
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

/* ---- contact history (README.md, "Static friction") ----
 *
 * Each particle keeps 4 or 8 slots (rb_world_data.contact_slots): one per
 * contact it had at the last step, keyed by the partner's stable particle
 * index (or RB_SLOT_PLANE + the plane's index), holding the tangential
 * displacement accumulated since the contact began: the Cundall-Strack
 * spring. A contact not in the slots starts from zero; a contact that ends
 * frees its slot, so its history is dropped. A contact that finds no free
 * slot acts without memory (the viscous friction alone) and is counted
 * (rb_world_contact_overflow). Each particle of a pair keeps its own copy;
 * the two are negatives of each other to the bit, as the pair's forces are. */

/* A particle's history slots during its step: the keys it began with, the
 * keys it keeps, and which slots this step's contacts have taken. A contact
 * keeps its slot from step to step; a new one takes the lowest slot that
 * was free at the step's start and is not taken yet; a slot whose contact
 * ended is free again at the next step. Slots past count are never free
 * (the kernels hold 8 keys whatever the count: kernels/forces.cl). */
typedef struct rb_slots {
    uint32_t old[RB_MAX_CONTACT_SLOTS], kept[RB_MAX_CONTACT_SLOTS];
    uint32_t count; /* the world's slots a particle, 4 or 8 */
    uint32_t taken; /* bit k: slot k holds a contact of this step */
} rb_slots;

static inline void rb_slots_begin(rb_slots *s, const uint32_t *keys, uint32_t count) {
    for (uint32_t k = 0; k < RB_MAX_CONTACT_SLOTS; k++) s->old[k] = k < count ? keys[k] : RB_SLOT_FREE;
    for (uint32_t k = 0; k < RB_MAX_CONTACT_SLOTS; k++) s->kept[k] = RB_SLOT_FREE;
    s->count = count;
    s->taken = 0;
}

/* The slot key's contact had at the last step, or RB_MAX_CONTACT_SLOTS. */
static inline uint32_t rb_slot_match(const rb_slots *s, uint32_t key) {
    for (uint32_t k = 0; k < s->count; k++)
        if (s->old[k] == key) return k;
    return RB_MAX_CONTACT_SLOTS;
}

/* The slot a touching contact takes: its match (rb_slot_match), else the
 * lowest slot free at the start and not taken; RB_MAX_CONTACT_SLOTS if none
 * is left (an overflow). */
static inline uint32_t rb_slot_take(rb_slots *s, uint32_t key, uint32_t match) {
    uint32_t slot = match;
    for (uint32_t k = 0; k < s->count && slot == RB_MAX_CONTACT_SLOTS; k++)
        if (s->old[k] == RB_SLOT_FREE && !(s->taken >> k & 1u)) slot = k;
    if (slot < RB_MAX_CONTACT_SLOTS) s->taken |= 1u << slot, s->kept[slot] = key;
    return slot;
}

/* The tangential force of a contact with normal n, slip velocity vt
 * (partner relative to this particle, in the tangent plane), tangential
 * damping eta and spring kt (> 0), capped at cap = mu |f_n|: the
 * displacement kept from the last step (xi_old, zero for a new contact) is
 * turned into the tangent plane (its normal part removed) and the step's
 * slip added; the force is the spring on it plus the damping. When that
 * exceeds the cap, the contact slips: the force is scaled to the cap and
 * the displacement to what the spring alone holds there. ft gets the force
 * on this particle, xi the displacement to keep. */
static inline void rb_contact_tangential(const float xi_old[3], const float n[3], const float vt[3], float eta,
                                         float kt, float cap, float dt, float ft[3], float xi[3]) {
    const float d = xi_old[0] * n[0] + xi_old[1] * n[1] + xi_old[2] * n[2];
    for (int k = 0; k < 3; k++) {
        xi[k] = (xi_old[k] - d * n[k]) + vt[k] * dt;
        ft[k] = kt * xi[k] + eta * vt[k];
    }
    const float len = sqrtf(ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2]);
    if (len > cap) { /* Coulomb: |f_t| <= mu |f_n| */
        const float s = cap / len;
        for (int k = 0; k < 3; k++) ft[k] = ft[k] * s, xi[k] = ft[k] / kt;
    }
}

/* ---- rolling resistance (README.md, "Rolling resistance") ----
 *
 * A contact between materials that resist rolling (rb_material.
 * rolling_friction mu_r > 0) keeps, beside its tangential displacement, the
 * angle its two bodies have rolled on each other since it began: an
 * elastic-plastic rolling spring (Iwashita and Oda; Ai et al. 2011's type C,
 * the rolling models of DEM codes such as LIGGGHTS's epsd2). The relative
 * rolling is w_j - w_i without its part along n (turning about n, the
 * twist, is not resisted). Each step the kept angle is turned into the
 * current tangent plane and the step's rolling added; the moment on i is a
 * spring on it plus damping, k_r theta + eta_r w_roll, capped at
 * mu_r R |f_n| (R = r_i r_j / (r_i + r_j), the effective radius; r_i against
 * a plane), the angle scaled to what the spring alone holds there: the same
 * law as the tangential force's (rb_contact_tangential), on angles and
 * moments. k_r = RB_ROLLING_SPRING mu_r^2 R^2 k_n, with k_n the contact's
 * normal spring (m_eff stiffness); eta_r / k_r is the tangential damping's
 * time constant. The pair's moments are negatives of each other to the bit
 * (a pure couple: angular momentum is kept). A ball rolling on the ground
 * slows at 5/7 mu_r g; one on a slope stays put while tan(slope) <= mu_r. */

/* The rolling moment on particle i (added to t) and the angle to keep (roll),
 * for relative angular velocity w = w_j - w_i at normal n, from the kept
 * angle roll_old: rolling friction mu_r, effective radius reff, the normal
 * spring's effective mass meff and the pair's rates c, the normal force's
 * magnitude load. */
static inline void rb_contact_rolling(const float roll_old[3], const float n[3], const float w[3], float mu_r,
                                      float reff, float meff, const rb_contact_rates *c, float load, float dt,
                                      float t[3], float roll[3]) {
    const float kr = RB_ROLLING_SPRING * mu_r * mu_r * (reff * reff) * (meff * c->stiffness);
    const float tau = c->tangential / (RB_TANGENTIAL_SPRING * c->stiffness);
    const float d = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
    const float wr[3] = {w[0] - d * n[0], w[1] - d * n[1], w[2] - d * n[2]};
    float m[3];
    rb_contact_tangential(roll_old, n, wr, kr * tau, kr, mu_r * reff * load, dt, m, roll);
    for (int k = 0; k < 3; k++) t[k] += m[k];
}

/* ---- the effective mass at the contact point ---- */

/* A body's frame for its contacts' masses: its inverse inertia in the
 * world frame, R diag(d) R^T (R the rotation of q, d its inverse principal
 * moments), its inverse mass and its share (rb_contact_share): a.xyz the
 * diagonal, a.w 1 / M, b.xyz the xy, xz and yz terms, b.w the share. Formed
 * once a body and step (reference.c at the step's start; the kernels when
 * they integrate, src/sim/opencl.c on upload, the same operations), so that
 * a contact needs no rotation. Zero but the share for a static or kinematic
 * body. */
typedef struct rb_body_frame {
    rb_float4 a, b;
} rb_body_frame;

static inline rb_body_frame rb_body_frame_of(rb_float4 q, rb_float4 d, float inv_mass, float share) {
    const float x = q.x, y = q.y, z = q.z, w = q.w;
    const float r00 = 1.0f - 2.0f * (y * y + z * z), r01 = 2.0f * (x * y - z * w), r02 = 2.0f * (x * z + y * w);
    const float r10 = 2.0f * (x * y + z * w), r11 = 1.0f - 2.0f * (x * x + z * z), r12 = 2.0f * (y * z - x * w);
    const float r20 = 2.0f * (x * z - y * w), r21 = 2.0f * (y * z + x * w), r22 = 1.0f - 2.0f * (x * x + y * y);
    return (rb_body_frame){
        {(r00 * r00 * d.x + r01 * r01 * d.y) + r02 * r02 * d.z, (r10 * r10 * d.x + r11 * r11 * d.y) + r12 * r12 * d.z,
         (r20 * r20 * d.x + r21 * r21 * d.y) + r22 * r22 * d.z, inv_mass},
        {(r00 * r10 * d.x + r01 * r11 * d.y) + r02 * r12 * d.z, (r00 * r20 * d.x + r01 * r21 * d.y) + r02 * r22 * d.z,
         (r10 * r20 * d.x + r11 * r21 * d.y) + r12 * r22 * d.z, share}};
}

/* What a contact reads of one of its particles and of that particle's body. */
typedef struct rb_contact_side {
    rb_float4 p, v;      /* the particle's centre and velocity */
    rb_float4 w;         /* its body's angular velocity */
    float m, r;          /* particle mass (INFINITY: a static or kinematic body), radius */
    uint32_t body;       /* its body's index: orders the pair */
    rb_float4 centre;    /* its body's centre of mass */
    rb_body_frame frame; /* its body's (rb_body_frame_of) */
    rb_float4 q;         /* its body's orientation: the cells' axes (rb_contact_cells) */
    float rank;          /* its body's cell rank (rb_world_data.body_contact.w): 0, a body of spheres */
    uint32_t faces;      /* the particle's exposed cell faces (rb_world_data.particle_offset.w) */
} rb_contact_side;

/* 1/M + (l x n) . I^-1 (l x n): the inverse mass a body shows along unit
 * direction n at a point l from its centre (world frame), I^-1 its world
 * inverse inertia (its frame). 0 for a static or kinematic body. */
static inline float rb_point_inv_mass(const rb_contact_side *s, const float l[3], const float n[3]) {
    float c[3];
    rb_v3_cross(l, n, c);
    const rb_float4 a = s->frame.a, b = s->frame.b;
    const float diag = (a.x * c[0] * c[0] + a.y * c[1] * c[1]) + a.z * c[2] * c[2];
    const float off = (b.x * c[0] * c[1] + b.y * c[0] * c[2]) + b.z * c[1] * c[2];
    return a.w + (diag + 2.0f * off);
}

/* How many contacts' worth a body shares its mass among: its support at
 * the last step (rb_world_data.body_support), at least 1; its shape's
 * support on a face (onset) while that is unknown (0: no contact at the
 * last step, none imminent: a body just added, or landing on another body),
 * since all of its particles on a face may touch at once. Kept in its frame
 * (rb_body_frame.b.w). A lattice body (cell rank > 0) shares among at most
 * its onset: a cube in a stack, bearing on the faces above and below it,
 * still sizes its contacts as resting on one face. Its flat faces rock on
 * their edges where its particles' rows used to nest, and a support that
 * rose and fell with the contacts of both faces stiffened them while they
 * bore load: the towers of the sandbox's scene swayed 10-20 cm for good.
 * (Bodies of spheres keep the plain support: a ball in a heap touches a
 * dozen others, and a share capped at 1 would put it past the step's
 * stability.) */
static inline float rb_contact_share(float support, float onset, float rank) {
    if (!(support > 0.0f)) return onset;
    const float share = fmaxf(support, 1.0f);
    return rank > 0.0f ? fminf(share, onset) : share;
}

/* The mass a contact's spring and dashpot are sized by (k = m_eff w0^2,
 * c = m_eff 2 zeta w0), as impulse-based engines size a contact: the
 * effective mass at the contact point along the normal, 1 / (w_i + w_j),
 * w the point's inverse mass on each side (rb_point_inv_mass), x = pj - pi
 * dist apart along n = x / dist. A body that
 * bears on several contacts at once shares its mass among them: each side's
 * w is multiplied by its share (rb_contact_share), its support: the sum
 * over its contacts at the last step of 1 / (M w_k)
 * (rb_world_data.body_support).
 * A body landing flat then oscillates on its contacts as one contact of its
 * whole mass would, and one landing on a corner carries its mass on that
 * one contact: either way the material's period and restitution hold
 * (README.md, "Restitution and contacts"), where sizing by the particles'
 * masses let a big body sink in and bounce back at e = 0.9. Each contact's
 * k w share is then at most w0^2, which bounds the fastest mode: the step
 * stays stable. For one sphere on another, or on the ground, this is the
 * particles' pair mass, as before. *share gets this contact's share of i's
 * body, 1 / (M_i w_i), for its support at the next step. Both particles of
 * a pair compute the same bits: the contact point is formed from the
 * particle of the lower body index, and w is even in n. */
static inline float rb_contact_mass(const rb_contact_side *i, const rb_contact_side *j, const float x[3], float dist,
                                    const float n[3], float *share) {
    /* x = pj - pi: from the first body's particle, +x if that is i, -x if j (negation is exact) */
    const bool i_first = i->body < j->body;
    const rb_float4 pa = i_first ? i->p : j->p;
    const float s = i_first ? 1.0f : -1.0f,
                f = i_first ? rb_contact_fraction(dist, i->r, j->r) : rb_contact_fraction(dist, j->r, i->r);
    const float point[3] = {pa.x + f * (s * x[0]), pa.y + f * (s * x[1]), pa.z + f * (s * x[2])};
    const float li[3] = {point[0] - i->centre.x, point[1] - i->centre.y, point[2] - i->centre.z};
    const float lj[3] = {point[0] - j->centre.x, point[1] - j->centre.y, point[2] - j->centre.z};
    /* n or -n: the inverse masses are even in n */
    const float wi = rb_point_inv_mass(i, li, n), wj = rb_point_inv_mass(j, lj, n);
    *share = i->frame.a.w / wi;
    return 1.0f / (i->frame.b.w * wi + j->frame.b.w * wj);
}

/* True if a particle apart from a plane by gap (> 0) closes at normal speed
 * vn (negative: closing) fast enough to touch it at the next step, and is
 * within RB_IMMINENT_MARGIN of the largest radius of it. Such a contact
 * already counts towards its body's support (rb_contact_mass), so that its
 * first step is sized as the ones after: a body landing on a corner then
 * meets the ground with its whole mass behind that corner from the start.
 * (Between particles it is not looked for: counting contacts about to
 * close fed the rocking of stacks, whose edge contacts part and touch again
 * every few steps, as a support that followed every contact lost did
 * (reference.c, rb_support), and looking ahead costs the force pass. A body
 * landing on another's corner has its first step sized by its shape's
 * support on a face: rb_contact_share.) */
#define RB_IMMINENT_MARGIN 0.4f
static inline bool rb_contact_imminent(float gap, float vn, const rb_step_params *p) {
    return gap < -vn * p->dt; /* the margin: rb_contact_plane returns before, farther away */
}

/* ---- cells: bodies that meet as their shapes (README.md, "Flat faces") ----
 *
 * A particle of a lattice shape (spacing 2r along the body's own axes:
 * world.c, rb_shape_cells) stands for its cell, the cube of side 2r about
 * it, and the body for the union of its cells: flat faces, sharp edges.
 * Two particles of different bodies meet as a sphere and a cell when
 * either body is a lattice: the body of the higher cell rank (its particle
 * count; 0 for a body of spheres) gives the cells, the other the spheres;
 * equal ranks, the lower body index gives the cells (rb_cells_on_j). A
 * sphere touches the union of the cells where it touches the one whose
 * region it is in: a cell owns the points beyond its exposed faces (faces
 * no cell of its body covers: particle_offset.w, bit 2k for +axis k, 2k + 1
 * for -axis k) and within its slab along the others, [-r, r) on each axis,
 * so each point outside the body belongs to one cell of a flat face and a
 * sphere sliding across a face meets one flat plane whatever the lattices'
 * offsets: the pockets between particles are gone. The normal is from the
 * closest point of that cell to the sphere's centre: a face's normal over a
 * face, rounded by the sphere's radius over an edge or a corner. The
 * contact acts midway through the overlap on that normal, so the force on
 * the cells' body has its moment about their particle, and the pair's
 * moments still cancel about any point. The rest of the law (the spring
 * and dashpot, friction, memory, rolling) is the particles' own
 * (rb_contact_particles).
 *
 * Against a plane a lattice body's particle is its cell too, with its
 * edges rounded over RB_CELL_ROUNDING of a turn (rb_cell_support): a box
 * stands on its edges, not on its particles' centres, so it slides where a
 * box slides and tips where a box tips. */

#define RB_FACE_POS(k) (1u << (2u * (uint32_t)(k)))
#define RB_FACE_NEG(k) (2u << (2u * (uint32_t)(k)))

/* The grid's cell (reference.c, kernels/grid.cl): wide enough for every
 * pair that can touch: two spheres (r_i + r_j <= 2 max_radius) or a sphere
 * and a cell's corner (r_i + sqrt(3) r_j). */
#define RB_CELL_REACH 2.7320508f
static inline float rb_grid_inv_cell(float max_radius) { return 1.0f / (RB_CELL_REACH * max_radius); }

/* True if particle j's body gives the cells of pair (i, j) (one of them is a lattice). */
static inline bool rb_cells_on_j(float rank_i, uint32_t body_i, float rank_j, uint32_t body_j) {
    return rank_j > rank_i || (rank_j == rank_i && body_j < body_i);
}

/* The touch of a sphere (centre ps, radius rs) and a cell (centre pc, half
 * side h, its body's orientation q, its exposed faces): its weight, 0 if
 * apart or if the sphere's centre is in other cells' region. m gets the
 * unit normal from the cell toward the sphere (world frame), *dist the
 * centre's distance from the cell along it (negative: within the cell,
 * pushed out through its nearest exposed face, any face if none is
 * exposed). Where a face goes on into the next cell, the two share the
 * points within RB_CELL_SEAM h of their seam, their weights falling
 * linearly across it and summing to 1 (each cell's face runs on unclamped
 * there): a sphere resting on a seam meets the face as two contacts of
 * steady weights, where one owner or the other by a rounding would drop
 * its contact's memory at every change (a cube on a 20 degree ramp of a
 * body crept 4 mm in 10 s so). */
#define RB_CELL_SEAM 0.1f
static inline float rb_cell_touch(rb_float4 ps, float rs, rb_float4 pc, float h, rb_float4 q, uint32_t faces,
                                  float m[3], float *dist) {
    const float y[3] = {ps.x - pc.x, ps.y - pc.y, ps.z - pc.z}, qv[4] = {q.x, q.y, q.z, q.w};
    const float b = RB_CELL_SEAM * h;
    float yb[3], d[3], weight = 1.0f;
    rb_quat_rotate_inv(qv, y, yb);
    for (int k = 0; k < 3; k++) {
        float c = yb[k];
        if (!(faces & RB_FACE_POS(k))) { /* a cell of the body lies that way */
            if (yb[k] >= h + b) return 0.0f;
            if (yb[k] > h - b) weight *= (h + b - yb[k]) / (2.0f * b);
        } else if (yb[k] >= h) {
            c = h;
        }
        if (!(faces & RB_FACE_NEG(k))) {
            if (yb[k] < -h - b) return 0.0f;
            if (yb[k] < -h + b) weight *= (yb[k] + h + b) / (2.0f * b);
        } else if (yb[k] < -h) {
            c = -h;
        }
        d[k] = yb[k] - c;
    }
    const float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (!(d2 < rs * rs) || !(weight > 0.0f)) return 0.0f;
    float mb[3] = {0.0f, 0.0f, 0.0f};
    if (d2 > 0.0f) {
        const float len = sqrtf(d2);
        for (int k = 0; k < 3; k++) mb[k] = d[k] / len;
        *dist = len;
    } else {
        const uint32_t open = faces ? faces : 63u;
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
    rb_quat_rotate(qv, mb, m);
    return weight;
}

/* True if particles i and j of different bodies touch by the contact law:
 * as a sphere and a cell where either body is a lattice, else as spheres.
 * Reads of each side only p, r, body, q, rank and faces. */
static inline bool rb_pair_touch(const rb_contact_side *i, const rb_contact_side *j) {
    if (!(i->rank > 0.0f || j->rank > 0.0f)) {
        const float x = j->p.x - i->p.x, y = j->p.y - i->p.y, z = j->p.z - i->p.z;
        return rb_particles_touch(x * x + y * y + z * z, i->r, j->r);
    }
    const bool on_j = rb_cells_on_j(i->rank, i->body, j->rank, j->body);
    const rb_contact_side *cs = on_j ? j : i, *ss = on_j ? i : j;
    float m[3], dist;
    return rb_cell_touch(ss->p, ss->r, cs->p, cs->r, cs->q, cs->faces, m, &dist) > 0.0f;
}

/* Force on particle i from particle j where one of their bodies is a
 * lattice (rb_contact_particles calls it; the same arguments): they meet as
 * a sphere and a cell (above). */
static inline bool rb_contact_cells(const rb_contact_side *i, const rb_contact_side *j, float slip,
                                    const rb_contact_rates *c, float rolling, const rb_step_params *p,
                                    const float xi_old[3], float xi[3], const float roll_old[3], float roll[3],
                                    float f[3], float t[3], float *share) {
    const bool on_j = rb_cells_on_j(i->rank, i->body, j->rank, j->body);
    const rb_contact_side *cs = on_j ? j : i, *ss = on_j ? i : j; /* the cell's side and the sphere's */
    float m[3], dist;
    *share = 0.0f;
    const float weight = rb_cell_touch(ss->p, ss->r, cs->p, cs->r, cs->q, cs->faces, m, &dist);
    if (!(weight > 0.0f)) return false;
    const float overlap = ss->r - dist, reach = 0.5f * (ss->r + dist);
    /* the contact point, formed from the two sides' roles: the same bits for both particles */
    const float point[3] = {ss->p.x - reach * m[0], ss->p.y - reach * m[1], ss->p.z - reach * m[2]};
    const float s = on_j ? -1.0f : 1.0f; /* n: from i toward j */
    const float n[3] = {s * m[0], s * m[1], s * m[2]};
    const float li[3] = {point[0] - i->p.x, point[1] - i->p.y, point[2] - i->p.z};
    const float lj[3] = {point[0] - j->p.x, point[1] - j->p.y, point[2] - j->p.z};
    const rb_float4 wi = i->w, wj = j->w;
    const float ui[3] = {i->v.x + (wi.y * li[2] - wi.z * li[1]), i->v.y + (wi.z * li[0] - wi.x * li[2]),
                         i->v.z + (wi.x * li[1] - wi.y * li[0])};
    const float uj[3] = {j->v.x + (wj.y * lj[2] - wj.z * lj[1]), j->v.y + (wj.z * lj[0] - wj.x * lj[2]),
                         j->v.z + (wj.x * lj[1] - wj.y * lj[0])};
    const float v[3] = {uj[0] - ui[0], uj[1] - ui[1], uj[2] - ui[2]};
    const float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    const float ci[3] = {point[0] - i->centre.x, point[1] - i->centre.y, point[2] - i->centre.z};
    const float cj[3] = {point[0] - j->centre.x, point[1] - j->centre.y, point[2] - j->centre.z};
    const float wpi = rb_point_inv_mass(i, ci, n), wpj = rb_point_inv_mass(j, cj, n);
    *share = weight * (i->frame.a.w / wpi);
    /* a contact of weight w: its springs and dashpots w of a whole one's */
    const float meff = weight / (i->frame.b.w * wpi + j->frame.b.w * wpj);
    const float fn = -meff * rb_contact_normal(c->stiffness, c->damping, overlap, vn, p->dt);
    const float vt[3] = {v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]};
    const float mt = weight * (rb_pair_tangential_mass(i->m, j->m, rb_pair_mass(i->m, j->m)) * slip);
    float ft[3];
    rb_contact_tangential(xi_old, n, vt, mt * c->tangential, mt * (RB_TANGENTIAL_SPRING * c->stiffness),
                          c->friction * -fn, p->dt, ft, xi);
    const float F[3] = {fn * n[0] + ft[0], fn * n[1] + ft[1], fn * n[2] + ft[2]};
    for (int k = 0; k < 3; k++) f[k] += F[k];
    t[0] += li[1] * F[2] - li[2] * F[1];
    t[1] += li[2] * F[0] - li[0] * F[2];
    t[2] += li[0] * F[1] - li[1] * F[0];
    if (rolling > 0.0f) {
        const float w[3] = {wj.x - wi.x, wj.y - wi.y, wj.z - wi.z}, reff = i->r * j->r / (i->r + j->r);
        rb_contact_rolling(roll_old, n, w, rolling, reff, meff, c, -fn, p->dt, t, roll);
    }
    return true;
}

/* Where a cell (half side h) reaches toward a plane whose normal is nb in
 * its body's frame (unit, out of the solid): returns how far below its
 * centre along the normal, and u gets the point (body frame, from the
 * centre). The cube's own support, h sum |nb_k| at its corner -h sign(nb),
 * with each |x| rounded to a parabola within RB_CELL_ROUNDING of 0 (x^2 /
 * 2 eps + eps / 2) and the point's coordinate turning from -h to h
 * linearly there, so that a cell flat on the plane reaches h below its
 * centre at the centre of its face, and its point moves to its edges and
 * corners as it tilts past RB_CELL_ROUNDING (radians, about a third of a
 * degree).
 * The point is the support's gradient: the contact's moment does the work
 * its overlap takes, so rocking neither gains nor loses energy by it. */
#define RB_CELL_ROUNDING 0.005f
static inline float rb_cell_support(const float nb[3], float h, float u[3]) {
    const float eps = RB_CELL_ROUNDING;
    float s = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float a = nb[k];
        if (fabsf(a) >= eps) {
            s += fabsf(a);
            u[k] = a > 0.0f ? -h : h;
        } else {
            s += a * a / (2.0f * eps) + 0.5f * eps;
            u[k] = -h * (a / eps);
        }
    }
    return h * (s - eps);
}

/* Force on particle i of a dynamic body from particle j of another body
 * (mass INFINITY if static or kinematic), with the rates c of their
 * materials' pair, added to f, and its moment about i's centre, added to t;
 * false (nothing added) if the particles do not overlap. The overlap is
 * ri + rj - |x_ij|; the normal spring and dashpot never pull, and are sized
 * by rb_contact_mass. *share gets the contact's share of i's body
 * (rb_contact_mass), 0 if they do not touch. The force
 * acts at the contact point (rb_contact_fraction), so the pair's torques
 * cancel and angular momentum is kept; only the tangential part has a
 * moment. Slip is measured there too (the centres' velocities plus w x
 * lever): a small sphere rolls on a large one about its own contact point.
 *
 * The tangential force is the history's spring plus damping
 * (rb_contact_tangential; xi_old in, xi out). Both act explicitly, from the
 * state at the step's start, and must not overshoot: they are sized for the
 * surface giving way as a free point of the particle's mass (m_i / 2
 * against a static or kinematic body: rb_pair_tangential_mass), while a
 * body of one or two particles turns far more easily (a sphere: 3.5 times,
 * the 7/2 of rolling), and its slip would ring in a two-step cycle up to
 * the Coulomb cap: a ball of 8 kg in a pocket of a cube's face spun back and
 * forth at 0.28 rad/s for good (tests/test_sizes.c). So both are scaled by
 * the pair's slip scale, the smaller of the two bodies' 1 / mobility
 * (rb_shape_mobility, world_internal.h; 1 for bodies of many particles).
 *
 * With rolling (the pair's rolling friction) > 0 the contact also resists
 * the bodies' rolling on each other (rb_contact_rolling; roll_old in, roll
 * out); else roll is left as it is. */
static inline bool rb_contact_particles(const rb_contact_side *i, const rb_contact_side *j, float slip,
                                        const rb_contact_rates *c, float rolling, const rb_step_params *p,
                                        const float xi_old[3], float xi[3], const float roll_old[3], float roll[3],
                                        float f[3], float t[3], float *share) {
    if (i->rank > 0.0f || j->rank > 0.0f) return rb_contact_cells(i, j, slip, c, rolling, p, xi_old, xi, roll_old, roll, f, t, share);
    const rb_float4 pi = i->p, pj = j->p, vi = i->v, vj = j->v, wi = i->w, wj = j->w;
    float x[3] = {pj.x - pi.x, pj.y - pi.y, pj.z - pi.z};
    float dist2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    *share = 0.0f;
    if (!rb_particles_touch(dist2, i->r, j->r)) return false; /* apart, or coincident with no normal */
    float dist = sqrtf(dist2);
    float n[3] = {x[0] / dist, x[1] / dist, x[2] / dist};
    /* The contact point is a x from i's centre and -(1 - a) x from j's:
     * v_j + wj x (-(1 - a) x) - (v_i + wi x (a x)) = v_j - v_i - (a wi + (1 - a) wj) x x */
    const float a = rb_contact_fraction(dist, i->r, j->r), b = 1.0f - a;
    float ws[3] = {a * wi.x + b * wj.x, a * wi.y + b * wj.y, a * wi.z + b * wj.z};
    float v[3] = {vj.x - vi.x - (ws[1] * x[2] - ws[2] * x[1]), vj.y - vi.y - (ws[2] * x[0] - ws[0] * x[2]),
                  vj.z - vi.z - (ws[0] * x[1] - ws[1] * x[0])};
    float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    const float overlap = (i->r + j->r) - dist;
    const float meff = rb_contact_mass(i, j, x, dist, n, share);
    /* Along n (towards j): spring pushes i away, dashpot resists approach; never pulls. */
    float fn = -meff * rb_contact_normal(c->stiffness, c->damping, overlap, vn, p->dt);
    float vt[3] = {v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]};
    const float mt = rb_pair_tangential_mass(i->m, j->m, rb_pair_mass(i->m, j->m)) * slip;
    float ft[3];
    rb_contact_tangential(xi_old, n, vt, mt * c->tangential, mt * (RB_TANGENTIAL_SPRING * c->stiffness),
                          c->friction * -fn, p->dt, ft, xi);
    for (int k = 0; k < 3; k++) f[k] += fn * n[k] + ft[k];
    /* (a x) x ft */
    t[0] += a * (x[1] * ft[2] - x[2] * ft[1]);
    t[1] += a * (x[2] * ft[0] - x[0] * ft[2]);
    t[2] += a * (x[0] * ft[1] - x[1] * ft[0]);
    if (rolling > 0.0f) {
        const float w[3] = {wj.x - wi.x, wj.y - wi.y, wj.z - wi.z}, reff = i->r * j->r / (i->r + j->r);
        rb_contact_rolling(roll_old, n, w, rolling, reff, meff, c, -fn, p->dt, t, roll);
    }
    return true;
}

/* Force on particle i from a plane (xyz normal out of the solid, w offset),
 * with the rates c of its own material, added to f, with its moment about
 * i's centre (acting at the point of the plane under the centre, where the
 * slip is measured) added to t; false if they do not touch. The plane is an
 * immovable partner: the normal spring and dashpot are sized by the
 * effective mass at that point, as rb_contact_mass sizes them (*share gets
 * the contact's share of i's body, for a contact or an imminent one, else
 * 0); the tangential force is the history's (xi_old in, xi out), scaled by
 * i's body's slip scale si; with rolling > 0 (i's material's rolling
 * friction) it resists i's rolling on the plane (rb_contact_rolling, R = r_i;
 * roll_old in, roll out). */
static inline bool rb_contact_plane(const rb_contact_side *i, float si, rb_float4 plane, const rb_contact_rates *c,
                                    float rolling, const rb_step_params *p, const float xi_old[3], float xi[3],
                                    const float roll_old[3], float roll[3], float f[3], float t[3], float *share) {
    const rb_float4 pi = i->p, vi = i->v, wi = i->w;
    float n[3] = {plane.x, plane.y, plane.z};
    float height = n[0] * pi.x + n[1] * pi.y + n[2] * pi.z - plane.w;
    /* the lever from the centre to the contact point: -height n under a sphere's centre; under a
     * cell's reach, its support point's part along the plane added (rb_cell_support) */
    float lever[3] = {-height * n[0], -height * n[1], -height * n[2]}, below = i->r;
    if (i->rank > 0.0f) {
        const float q[4] = {i->q.x, i->q.y, i->q.z, i->q.w};
        float nb[3], ub[3], u[3];
        rb_quat_rotate_inv(q, n, nb);
        below = rb_cell_support(nb, i->r, ub);
        rb_quat_rotate(q, ub, u);
        const float un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
        for (int k = 0; k < 3; k++) lever[k] += u[k] - un * n[k];
    }
    float overlap = below - height;
    *share = 0.0f;
    if (overlap <= -RB_IMMINENT_MARGIN * p->max_radius) return false; /* neither touching nor about to */
    /* the contact point's velocity: v_i + w x lever */
    float vc[3] = {vi.x + (wi.y * lever[2] - wi.z * lever[1]), vi.y + (wi.z * lever[0] - wi.x * lever[2]),
                   vi.z + (wi.x * lever[1] - wi.y * lever[0])};
    float vn = n[0] * vc[0] + n[1] * vc[1] + n[2] * vc[2];
    const bool touch = overlap > 0.0f;
    if (!touch && !rb_contact_imminent(-overlap, vn, p)) return false;
    const float l[3] = {pi.x + lever[0] - i->centre.x, pi.y + lever[1] - i->centre.y, pi.z + lever[2] - i->centre.z};
    const float wp = rb_point_inv_mass(i, l, n);
    *share = i->frame.a.w / wp;
    if (!touch) return false;
    const float meff = 1.0f / (i->frame.b.w * wp);
    float fn = meff * rb_contact_normal(c->stiffness, c->damping, overlap, vn, p->dt);
    /* The plane is still: the relative tangential velocity is -v_t of the contact point. */
    float vt[3] = {-(vc[0] - vn * n[0]), -(vc[1] - vn * n[1]), -(vc[2] - vn * n[2])};
    const float mt = i->m * si;
    float ft[3];
    rb_contact_tangential(xi_old, n, vt, mt * c->tangential, mt * (RB_TANGENTIAL_SPRING * c->stiffness),
                          c->friction * fn, p->dt, ft, xi);
    const float F[3] = {fn * n[0] + ft[0], fn * n[1] + ft[1], fn * n[2] + ft[2]};
    for (int k = 0; k < 3; k++) f[k] += F[k];
    t[0] += lever[1] * F[2] - lever[2] * F[1];
    t[1] += lever[2] * F[0] - lever[0] * F[2];
    t[2] += lever[0] * F[1] - lever[1] * F[0];
    if (i->rank > 0.0f && fn > 0.0f) {
        /* A cell's face is not a point: tilting on the plane, its far edge
         * sinks and its near edge rises, and their dashpots resist it. The
         * one contact at the support point rolls through a tilt of
         * RB_CELL_ROUNDING like a rocker of radius r / RB_CELL_ROUNDING,
         * which nothing damps (a tower of six cubes rocked on its bottom
         * cube at 0.15 m/s for good), so the face's dashpots are added as a
         * moment against the cell's tilting, the tangential part of its
         * angular velocity: the dashpot's rate times the contact's mass
         * times r^2, what the face's four corners' dashpots, a quarter of
         * the contact each, give at lever r. Only while it presses. */
        const float d = meff * c->damping * (i->r * i->r), wn = wi.x * n[0] + wi.y * n[1] + wi.z * n[2];
        t[0] -= d * (wi.x - wn * n[0]);
        t[1] -= d * (wi.y - wn * n[1]);
        t[2] -= d * (wi.z - wn * n[2]);
    }
    if (rolling > 0.0f) {
        const float w[3] = {-wi.x, -wi.y, -wi.z};
        rb_contact_rolling(roll_old, n, w, rolling, i->r, meff, c, fn, p->dt, t, roll);
    }
    return true;
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
