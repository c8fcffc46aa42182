/* reference.c - the sequential C reference backend: the oracle the OpenCL
 * backend is checked against. Plain on purpose: one loop per stage of the
 * step (README.md, "Physics"), in a fixed order, so its sums are reproducible. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/rb_math.h"
#include "contact.h"
#include "world_internal.h"

typedef struct reference {
    rb_backend base;
    uint32_t capacity;      /* particles the arrays below hold */
    rb_float4 *pos, *vel;   /* stage 1: world position (w = mass), velocity (w = radius) */
    float *force;           /* stage 3: xyz per particle */
    float *moment;          /* stage 3: xyz per particle, contact moments about the particle's centre */
    int *cell;              /* 3 per particle: cell coordinates */
    uint32_t *hash;         /* bucket of each particle */
    uint32_t table_size;    /* power of two, about 2x the particles */
    uint32_t *bucket_start; /* table_size + 1 */
    uint32_t *sorted;       /* particle indices by bucket, index order within a bucket */
    uint32_t *cursor;       /* table_size: scatter positions while sorting */
    float *support;         /* stage 3: the shares of its body the particle's contacts bear (contact.h) */
    uint64_t overflow;      /* contacts that found no free history slot (contact.h) */
    uint32_t breaks;        /* pieces past their hold since take_break_count (rb_piece_loads) */
    uint32_t joint_breaks;  /* joints broken since take_joint_break_count (rb_joint_force) */
    rb_float4 *joint_out;   /* per joint: its force on a, torques on a and b (rb_joint_force) */
    rb_float4 *load;        /* per body, with joints: external load plus joints' (rb_joint_load), force and torque */
    uint32_t joint_capacity;
    uint8_t *wake;        /* per body: touched by a moving body this step */
    /* Resting sleepers (rb_step_params.rest_sleepers): per body, near: an
     * awake body's particle came within reach of one of its particles this
     * step; run: its force pass runs this step (near at the last step, or
     * it fell asleep then, or the host changed the state: fresh). */
    uint8_t *near, *run;
    bool fresh;          /* uploaded since the last step: every body runs */
    float slot_reach;    /* the reach past a particle's radius that counts as near (rb_cl_slot_reach) */
    uint64_t rested;     /* sleeping bodies left out of a step, counted */
    rb_body_frame *frame; /* per body: its frame for the contacts' masses (contact.h), formed at the step's start */
    uint32_t body_capacity;
    double stage_ms[RB_STAGE_COUNT];
} reference;

/* Grows one array; on failure the old block stays as it was. */
static bool grow(void **p, size_t bytes) {
    void *q = realloc(*p, bytes);
    if (!q) return false;
    *p = q;
    return true;
}

static bool reserve(reference *r, uint32_t n) {
    uint32_t table = 64;
    while (table < 2 * n) table *= 2;
    if (n <= r->capacity && table <= r->table_size) return true;
    uint32_t cap = n > r->capacity ? n + n / 2 + 16 : r->capacity;
    /* capacities change only once every array has its new size */
    if (!grow((void **)&r->pos, cap * sizeof *r->pos) || !grow((void **)&r->vel, cap * sizeof *r->vel) ||
        !grow((void **)&r->force, cap * 3 * sizeof *r->force) ||
        !grow((void **)&r->moment, cap * 3 * sizeof *r->moment) ||
        !grow((void **)&r->cell, cap * 3 * sizeof *r->cell) || !grow((void **)&r->hash, cap * sizeof *r->hash) ||
        !grow((void **)&r->sorted, cap * sizeof *r->sorted) || !grow((void **)&r->support, cap * sizeof *r->support) ||
        !grow((void **)&r->bucket_start, (table + 1) * sizeof *r->bucket_start) ||
        !grow((void **)&r->cursor, table * sizeof *r->cursor)) {
        rb_log(RB_LOG_ERROR, "reference backend: out of memory for %u particles", n);
        return false;
    }
    r->capacity = cap;
    r->table_size = table;
    return true;
}

static bool reserve_bodies(reference *r, uint32_t n) {
    if (n <= r->body_capacity) return true;
    if (!grow((void **)&r->wake, n) || !grow((void **)&r->near, n) || !grow((void **)&r->run, n) ||
        !grow((void **)&r->frame, n * sizeof *r->frame) ||
        !grow((void **)&r->load, 2 * n * sizeof *r->load))
        return false;
    r->body_capacity = n;
    return true;
}

/* Stage 1: world position and velocity of every particle, and every body's
 * frame for its contacts' masses. */
static void particle_values(reference *r, const rb_world_data *d) {
    for (uint32_t b = 0; b < d->body_count; b++)
        r->frame[b] = rb_body_frame_of(d->body_quat[b], d->body_inv_inertia[b], d->body_vel[b].w,
                                       rb_contact_share(d->body_support[b], d->body_contact[b].z, d->body_contact[b].w));
    for (uint32_t i = 0; i < d->particle_count; i++) {
        uint32_t b = d->particle_body[i];
        const rb_float4 x = d->body_pos[b], q = d->body_quat[b], v = d->body_vel[b], w = d->body_omega[b];
        const rb_float4 o = d->particle_offset[i];
        float rel[3];
        rb_quat_rotate((const float[4]){q.x, q.y, q.z, q.w}, (const float[3]){o.x, o.y, o.z}, rel);
        r->pos[i] = (rb_float4){x.x + rel[0], x.y + rel[1], x.z + rel[2], d->body_inv_inertia[b].w};
        r->vel[i] = (rb_float4){v.x + (w.y * rel[2] - w.z * rel[1]), v.y + (w.z * rel[0] - w.x * rel[2]),
                                v.z + (w.x * rel[1] - w.y * rel[0]), d->body_contact[b].x};
    }
}

/* Stage 2: counting sort of particles by hashed cell (side: the largest
 * particle diameter, so any two particles that touch are in neighbouring
 * cells). Scattering in index order keeps particles sorted by index within
 * each bucket. */
static void build_grid(reference *r, const rb_world_data *d, const rb_step_params *p) {
    const uint32_t n = d->particle_count, mask = r->table_size - 1;
    const float inv_cell = rb_grid_inv_cell(p->max_radius);
    memset(r->bucket_start, 0, (r->table_size + 1) * sizeof *r->bucket_start);
    for (uint32_t i = 0; i < n; i++) {
        int *c = &r->cell[3 * i];
        c[0] = rb_cell_coord(r->pos[i].x, inv_cell);
        c[1] = rb_cell_coord(r->pos[i].y, inv_cell);
        c[2] = rb_cell_coord(r->pos[i].z, inv_cell);
        r->hash[i] = rb_cell_hash(c[0], c[1], c[2], mask);
        r->bucket_start[r->hash[i] + 1]++;
    }
    for (uint32_t h = 0; h < r->table_size; h++) r->bucket_start[h + 1] += r->bucket_start[h];
    memcpy(r->cursor, r->bucket_start, r->table_size * sizeof *r->cursor);
    for (uint32_t i = 0; i < n; i++) r->sorted[r->cursor[r->hash[i]]++] = i;
}

/* Asleep, or held (world_internal.h, RB_TIMER_DORMANT and RB_TIMER_ANCHORED). */
static bool asleep(const rb_world_data *d, const rb_step_params *p, uint32_t body) {
    return rb_timer_asleep(d->body_pos[body].w, p->sleep_time);
}

/* Calls visit(ctx, j) for every particle j of another body in the 27 cells
 * around particle i: z, then y, then x from -1 to 1, each bucket in index
 * order. Particles of other cells that share a bucket are skipped. */
static inline void for_each_neighbour(const reference *r, const rb_world_data *d, uint32_t i,
                                      void (*visit)(void *ctx, uint32_t j), void *ctx) {
    const uint32_t mask = r->table_size - 1, body = d->particle_body[i];
    const int *c = &r->cell[3 * i];
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nx = rb_cell_step(c[0], dx), ny = rb_cell_step(c[1], dy), nz = rb_cell_step(c[2], dz);
                uint32_t h = rb_cell_hash(nx, ny, nz, mask);
                for (uint32_t s = r->bucket_start[h]; s < r->bucket_start[h + 1]; s++) {
                    uint32_t j = r->sorted[s];
                    const int *cj = &r->cell[3 * j];
                    if (cj[0] == nx && cj[1] == ny && cj[2] == nz && d->particle_body[j] != body) visit(ctx, j);
                }
            }
}

/* What a contact reads of particle i and of its body (contact.h). */
static rb_contact_side side_of(const reference *r, const rb_world_data *d, uint32_t i) {
    const uint32_t b = d->particle_body[i];
    return (rb_contact_side){.p = r->pos[i],
                             .v = r->vel[i],
                             .w = d->body_omega[b],
                             .m = r->pos[i].w,
                             .r = r->vel[i].w,
                             .body = b,
                             .centre = d->body_pos[b],
                             .frame = r->frame[b],
                             .q = d->body_quat[b],
                             .rank = d->body_contact[b].w,
                             .faces = (uint32_t)d->particle_offset[i].w};
}

static bool overlapping(const reference *r, const rb_world_data *d, uint32_t i, uint32_t j) {
    const rb_contact_side a = side_of(r, d, i), b = side_of(r, d, j);
    return rb_pair_touch(&a, &b);
}

/* A sleeping body the step leaves out (rb_step_params.rest_sleepers): no
 * awake body came within reach of it at the last step, so nothing around it
 * moved and its forces are what they were. Its particles' forces read 0
 * and keep their history; the integration leaves it as it is. */
static bool resting(const reference *r, const rb_world_data *d, const rb_step_params *p, uint32_t b) {
    return p->rest_sleepers && d->body_kind[b] == RB_BODY_DYNAMIC && asleep(d, p, b) && !r->run[b];
}

/* One particle's contacts as stage 3 finds them: its history slots
 * (contact.h, rb_slots) and displacements, and the shares of its body they
 * bear. */
typedef struct force_visit {
    reference *r;
    const rb_world_data *d;
    const rb_step_params *p;
    const rb_contact_rates *rates; /* the pair table's row of particle i's material */
    const float *rolling;          /* and the rolling friction's */
    uint32_t i;
    rb_contact_side side;
    bool sleeping;
    rb_slots slots;
    float *disp; /* the particle's displacements, a slot's xyz after another's */
    float *roll; /* and rolling angles, xyz */
    bool commit; /* a step: the history is written (else forces are only read) */
    float mark2; /* the bound within which an awake particle marks sleeping bodies near, squared */
    uint32_t overflow;
    float support, *f, *t;
} force_visit;

/* The displacement and, where the contact resists rolling (rolling), the
 * rolling angle a contact with key kept from the last step (zero if new);
 * *match gets its slot (rb_slot_match). */
static void recall(const force_visit *v, uint32_t key, bool rolling, uint32_t *match, float xi_old[3],
                   float roll_old[3]) {
    *match = rb_slot_match(&v->slots, key);
    for (int c = 0; c < 3; c++) {
        xi_old[c] = *match < RB_MAX_CONTACT_SLOTS ? v->disp[3 * *match + c] : 0.0f;
        roll_old[c] = rolling && *match < RB_MAX_CONTACT_SLOTS ? v->roll[3 * *match + c] : 0.0f;
    }
}

/* A contact found: its share of the body added to the particle's support,
 * its displacement (and rolling angle, if it resists rolling) kept in its
 * slot (rb_slot_take), or counted as an overflow. */
static void keep(force_visit *v, uint32_t key, uint32_t match, const float xi[3], bool rolling, const float roll[3],
                 float share) {
    v->support += share;
    const uint32_t slot = rb_slot_take(&v->slots, key, match);
    if (slot == RB_MAX_CONTACT_SLOTS) {
        v->overflow++;
        return;
    }
    if (!v->commit) return;
    memcpy(&v->disp[3 * slot], xi, 3 * sizeof *xi);
    if (rolling) memcpy(&v->roll[3 * slot], roll, 3 * sizeof *roll);
}

/* A sleeping body touched by a particle of an awake body moving faster than
 * sleep_speed, or by a moving particle of a kinematic body, is marked to
 * wake (a static body's particles do not move). */
static void visit_force(void *ctx, uint32_t j) {
    force_visit *v = ctx;
    reference *r = v->r;
    const uint32_t i = v->i;
    const uint32_t bj = v->d->particle_body[j];
    if (!v->sleeping && v->commit && v->p->rest_sleepers && asleep(v->d, v->p, bj)) { /* as forces.cl marks */
        const float dx = r->pos[j].x - r->pos[i].x, dy = r->pos[j].y - r->pos[i].y, dz = r->pos[j].z - r->pos[i].z;
        if (dx * dx + dy * dy + dz * dz < v->mark2) r->near[bj] = 1;
    }
    const rb_contact_side side_j = side_of(r, v->d, j);
    const float slip = fminf(v->d->body_contact[v->side.body].y, v->d->body_contact[bj].y);
    const float rolling = v->rolling[v->d->body_material[bj]];
    float xi_old[3], xi[3], roll_old[3], roll[3], share;
    uint32_t match;
    recall(v, j, rolling > 0.0f, &match, xi_old, roll_old);
    if (!rb_contact_particles(&v->side, &side_j, slip, &v->rates[v->d->body_material[bj]], rolling, v->p, xi_old, xi,
                              roll_old, roll, v->f, v->t, &share))
        return;
    keep(v, j, match, xi, rolling > 0.0f, roll, share);
    if (v->sleeping && !asleep(v->d, v->p, bj)) {
        rb_float4 vj = r->vel[j];
        float speed2 = vj.x * vj.x + vj.y * vj.y + vj.z * vj.z;
        if (speed2 > v->p->sleep_speed * v->p->sleep_speed || (isinf(r->pos[j].w) && speed2 > 0.0f))
            r->wake[v->d->particle_body[i]] = 1;
    }
}

/* Stage 3 for one particle: its neighbours, then the planes in order, each
 * contact with the rates of its pair of materials (a plane's: the
 * particle's own material with itself). A static or kinematic body's
 * particle (mass INFINITY) gets none: nothing moves those bodies, and they
 * exert no forces on each other or on planes. With commit, the particle's
 * history and contact count are written (a step); without, only the force
 * (rb_world_particle_forces). */
static void particle_force(reference *r, const rb_world_data *d, const rb_step_params *p, uint32_t i, bool commit) {
    float *f = &r->force[3 * i], *t = &r->moment[3 * i];
    f[0] = f[1] = f[2] = 0.0f;
    t[0] = t[1] = t[2] = 0.0f;
    const uint32_t b = d->particle_body[i], material = d->body_material[b];
    if (commit && resting(r, d, p, b)) return; /* its history and support stay as they are */
    force_visit v = {.r = r,
                     .d = d,
                     .p = p,
                     .rates = &p->rates[rb_pair_index(material, 0)],
                     .rolling = &p->rolling[rb_pair_index(material, 0)],
                     .i = i,
                     .side = side_of(r, d, i),
                     .sleeping = asleep(d, p, b),
                     .f = f,
                     .t = t};
    const uint32_t slots = d->contact_slots;
    uint32_t *keys = &d->particle_keys[(size_t)i * slots];
    v.disp = &d->particle_disp[(size_t)i * slots * 3];
    v.roll = &d->particle_roll[(size_t)i * slots * 3];
    v.commit = commit;
    if (!v.sleeping && commit && p->rest_sleepers) {
        /* An awake particle marks the sleeping bodies it may reach by the
         * next step, closing at up to twice its own speed: within the
         * kernel's bound (its radius and the world's reach) and twice a
         * step's travel. */
        const rb_float4 vi = r->vel[i];
        const float speed = sqrtf(vi.x * vi.x + vi.y * vi.y + vi.z * vi.z);
        const float mark = (r->vel[i].w + r->slot_reach) + 2.0f * p->dt * speed;
        v.mark2 = mark * mark;
    }
    rb_slots_begin(&v.slots, keys, slots);
    if (!isinf(r->pos[i].w)) {
        for_each_neighbour(r, d, i, visit_force, &v);
        const float rolling = v.rolling[material];
        for (uint32_t k = 0; k < p->plane_count; k++) {
            float xi_old[3], xi[3], roll_old[3], roll[3], share;
            uint32_t match;
            recall(&v, RB_SLOT_PLANE + k, rolling > 0.0f, &match, xi_old, roll_old);
            if (rb_contact_plane(&v.side, d->body_contact[b].y, p->planes[k], &v.rates[material], rolling, p, xi_old,
                                 xi, roll_old, roll, f, t, &share))
                keep(&v, RB_SLOT_PLANE + k, match, xi, rolling > 0.0f, roll, share);
            else
                v.support += share; /* an imminent contact's, or 0 */
        }
    }
    if (!commit) return;
    memcpy(keys, v.slots.kept, slots * sizeof *keys);
    r->support[i] = v.support;
    r->overflow += v.overflow;
}

static void forces(reference *r, const rb_world_data *d, const rb_step_params *p, bool commit) {
    if (d->body_count) memset(r->wake, 0, d->body_count);
    if (commit && d->body_count) memset(r->near, 0, d->body_count);
    for (uint32_t i = 0; i < d->particle_count; i++) particle_force(r, d, p, i, commit);
}

/* A body's support for the next step's contact masses (contact.h,
 * rb_contact_mass): the sum of its contacts' shares this step, or what it
 * was times keep (rb_step_params.support_keep) if that is more: it rises at
 * once when contacts come, and falls slowly when they go, over about a
 * second; 0 once nothing touches the body. A support that followed every
 * contact lost would stiffen the others at once: a cube resting on a 20
 * degree slope lifted its uphill row and set it down again, stiffer and
 * softer by turns, and rocked at 4 mm/s for good. */
static float rb_support(float sum, float was, float keep) { return sum > 0.0f ? fmaxf(sum, keep * was) : 0.0f; }

/* Stage 4: a static body stays, a kinematic one moves on at its own
 * velocities. For each dynamic body: sum its particle forces and torques
 * (r_i x f_i plus the contact moments about the particle centres), add
 * gravity and the external load, and integrate with semi-implicit Euler; the
 * orientation turns by the exact rotation of omega dt (Fossum 5.12-5.13),
 * omega taken at the midpoint. */
static void integrate(reference *r, rb_world_data *d, const rb_step_params *p) {
    const float dt = p->dt;
    for (uint32_t b = 0; b < d->body_count; b++) {
        if (resting(r, d, p, b)) { /* left out: as it was, its support too */
            r->run[b] = r->near[b];
            r->rested++;
            continue;
        }
        r->run[b] = r->near[b] || !asleep(d, p, b); /* one that falls asleep below runs once more */
        if (d->body_kind[b] != RB_BODY_DYNAMIC) d->body_support[b] = 0.0f; /* its particles have no contacts */
        if (d->body_kind[b] == RB_BODY_STATIC) continue;                   /* never moves */
        if (d->body_kind[b] == RB_BODY_KINEMATIC) {
            /* its own velocity and angular velocity (world frame), whatever pushes it */
            const rb_float4 v = d->body_vel[b];
            d->body_pos[b].x += v.x * dt, d->body_pos[b].y += v.y * dt, d->body_pos[b].z += v.z * dt;
            d->body_quat[b] = rb_quat_turn(d->body_quat[b], d->body_omega[b], dt);
            continue;
        }
        rb_float4 x = d->body_pos[b], v = d->body_vel[b], L = d->body_angmom[b];
        float inv_mass = v.w, mass = 1.0f / inv_mass;
        /* The sums in the order every backend forms them (world_internal.h,
         * RB_SUM_PARTS): partial sums over runs of particles, added in order. */
        const uint32_t first = d->body_first_particle[b], last = d->body_first_particle[b + 1];
        uint32_t chunk = (last - first + RB_SUM_PARTS - 1) / RB_SUM_PARTS;
        if (chunk < RB_SUM_MIN_CHUNK) chunk = RB_SUM_MIN_CHUNK;
        float F[3] = {0.0f, 0.0f, 0.0f}, T[3] = {0.0f, 0.0f, 0.0f}, support = 0.0f;
        for (uint32_t part = 0; part < RB_SUM_PARTS; part++) {
            float pf[3] = {0.0f, 0.0f, 0.0f}, pt[3] = {0.0f, 0.0f, 0.0f}, ps = 0.0f;
            if (part == 0) {
                /* the external load, with the joints' where there are joints (joints.c) */
                const rb_float4 ef = d->joint_count ? r->load[2 * b] : d->body_force[b];
                const rb_float4 et = d->joint_count ? r->load[2 * b + 1] : d->body_torque[b];
                pf[0] = ef.x + mass * p->gravity[0];
                pf[1] = ef.y + mass * p->gravity[1];
                pf[2] = ef.z + mass * p->gravity[2];
                pt[0] = et.x, pt[1] = et.y, pt[2] = et.z;
            }
            const uint32_t lo = first + part * chunk < last ? first + part * chunk : last;
            const uint32_t hi = lo + chunk < last ? lo + chunk : last;
            for (uint32_t i = lo; i < hi; i++) {
                const float *f = &r->force[3 * i];
                float rel[3] = {r->pos[i].x - x.x, r->pos[i].y - x.y, r->pos[i].z - x.z}, t[3];
                rb_v3_cross(rel, f, t);
                for (int k = 0; k < 3; k++) pf[k] += f[k], pt[k] += t[k] + r->moment[3 * i + k];
                ps += r->support[i];
            }
            support = part == 0 ? ps : support + ps;
            for (int k = 0; k < 3; k++)
                F[k] = part == 0 ? pf[k] : F[k] + pf[k], T[k] = part == 0 ? pt[k] : T[k] + pt[k];
        }
        d->body_support[b] = rb_support(support, d->body_support[b], p->support_keep);
        rb_float4 q4 = d->body_quat[b];
        /* sleeping: still until touched by a mover or loaded (support gone, a push) */
        rb_float4 alpha = rb_apply_inv_inertia(q4, d->body_inv_inertia[b], (rb_float4){T[0], T[1], T[2], 0.0f});
        float accel2 = (F[0] * F[0] + F[1] * F[1] + F[2] * F[2]) * inv_mass * inv_mass;
        float alpha2 = alpha.x * alpha.x + alpha.y * alpha.y + alpha.z * alpha.z;
        float wake2 = p->wake_accel * p->wake_accel;
        bool loaded = accel2 > wake2 || alpha2 > wake2;
        if (x.w < 0.0f) { /* held: anchored for good, dormant until a mover touches it (only that) */
            if (rb_timer_anchored(x.w) || !r->wake[b]) continue;
            x.w = 0.0f;
        } else if (asleep(d, p, b)) {
            if (!r->wake[b] && !loaded) continue; /* stays as it is: v, L and omega are zero */
            x.w = 0.0f;
        }

        v.x += F[0] * inv_mass * dt, v.y += F[1] * inv_mass * dt, v.z += F[2] * inv_mass * dt;
        x.x += v.x * dt, x.y += v.y * dt, x.z += v.z * dt;
        L.x += T[0] * dt, L.y += T[1] * dt, L.z += T[2] * dt;

        /* Midpoint rotation: omega from L at the orientation half a step on,
         * then the exact rotation of that omega dt. Second order, so a freely
         * spinning body keeps its energy (Fossum 8.2's "better integration"). */
        rb_float4 w = rb_apply_inv_inertia(q4, d->body_inv_inertia[b], L);
        w = rb_apply_inv_inertia(rb_quat_turn(q4, w, 0.5f * dt), d->body_inv_inertia[b], L);
        q4 = rb_quat_turn(q4, w, dt);
        rb_float4 omega = rb_apply_inv_inertia(q4, d->body_inv_inertia[b], L);
        float speed2 = p->sleep_speed * p->sleep_speed;
        bool slow = v.x * v.x + v.y * v.y + v.z * v.z < speed2 &&
                    omega.x * omega.x + omega.y * omega.y + omega.z * omega.z < speed2 && !loaded;
        x.w = p->sleep_time > 0.0f && slow ? x.w + dt : 0.0f;
        if (p->sleep_time > 0.0f && x.w >= p->sleep_time) { /* falls asleep */
            v.x = v.y = v.z = 0.0f;
            L = omega = (rb_float4){0.0f, 0.0f, 0.0f, 0.0f};
        }
        d->body_pos[b] = x;
        d->body_vel[b] = v;
        d->body_angmom[b] = L;
        d->body_quat[b] = q4;
        d->body_omega[b] = omega;
    }
}

/* The joints' forces at the step's start state, then each body's load with
 * its joints' added (joints.c; kernels/joints.cl in the same order). */
static bool joint_loads(reference *r, rb_world_data *d) {
    if (d->joint_count > r->joint_capacity) {
        if (!grow((void **)&r->joint_out, (size_t)d->joint_count * 3 * sizeof *r->joint_out)) return false;
        r->joint_capacity = d->joint_count;
    }
    for (uint32_t j = 0; j < d->joint_count; j++) r->joint_breaks += rb_joint_force(d, j, &r->joint_out[3 * j]);
    for (uint32_t b = 0; b < d->body_count; b++) rb_joint_load(d, b, r->joint_out, &r->load[2 * b]);
    return true;
}

static bool ref_step(rb_backend *base, rb_world_data *d, const rb_step_params *p, uint32_t steps) {
    reference *r = (reference *)base;
    if (!reserve(r, d->particle_count) || !reserve_bodies(r, d->body_count)) return false;
    memset(r->stage_ms, 0, sizeof r->stage_ms);
    for (uint32_t s = 0; s < steps; s++) {
        if (r->fresh && d->body_count) memset(r->run, 1, d->body_count);
        r->fresh = false;
        double t0 = 1e3 * rb_seconds();
        particle_values(r, d);
        double t1 = 1e3 * rb_seconds();
        build_grid(r, d, p);
        double t2 = 1e3 * rb_seconds();
        forces(r, d, p, true);
        if (d->piece_count)
            for (uint32_t b = 0; b < d->body_count; b++) r->breaks += rb_piece_loads(d, b, r->pos, r->force, r->moment);
        if (d->joint_count && !joint_loads(r, d)) return false;
        double t3 = 1e3 * rb_seconds();
        integrate(r, d, p);
        double t4 = 1e3 * rb_seconds();
        r->stage_ms[RB_STAGE_PARTICLES] += t1 - t0;
        r->stage_ms[RB_STAGE_GRID] += t2 - t1;
        r->stage_ms[RB_STAGE_FORCES] += t3 - t2;
        r->stage_ms[RB_STAGE_INTEGRATE] += t4 - t3;
    }
    return true;
}

static bool ref_read_particles(rb_backend *base, const rb_world_data *d, const rb_step_params *p, float *out) {
    reference *r = (reference *)base;
    if (!reserve(r, d->particle_count) || !reserve_bodies(r, d->body_count)) return false;
    particle_values(r, d);
    for (uint32_t i = 0; i < d->particle_count; i++)
        out[3 * i] = r->pos[i].x, out[3 * i + 1] = r->pos[i].y, out[3 * i + 2] = r->pos[i].z;
    return true;
}

static bool ref_particle_forces(rb_backend *base, const rb_world_data *d, const rb_step_params *p, float *out) {
    reference *r = (reference *)base;
    if (!reserve(r, d->particle_count) || !reserve_bodies(r, d->body_count)) return false;
    particle_values(r, d);
    build_grid(r, d, p);
    forces(r, d, p, false);
    memcpy(out, r->force, d->particle_count * 3 * sizeof *out);
    return true;
}

/* The host arrays are the reference's own state: nothing to copy. */
/* The host changed the state: every body runs its next step. The reach
 * that counts as near changes only with the bodies (as the OpenCL
 * backend's, formed at its upload). */
static bool ref_upload(rb_backend *b, const rb_world_data *d, const rb_step_params *p) {
    reference *r = (reference *)b;
    r->fresh = true;
    r->slot_reach = rb_cl_slot_reach(d, p->max_radius);
    return true;
}
static bool ref_download(rb_backend *b, rb_world_data *d) { return true; }
static uint32_t ref_take_joint_break_count(rb_backend *b) {
    reference *r = (reference *)b;
    const uint32_t n = r->joint_breaks;
    r->joint_breaks = 0;
    return n;
}

/* The host arrays are the reference's own: nothing to write. */
static bool ref_write_velocities(rb_backend *b, const rb_world_data *d, const uint32_t *bodies, uint32_t count) {
    return true;
}

static const char *ref_device_name(const rb_backend *b) { return "CPU (sequential C)"; }
static uint64_t ref_contact_overflow(rb_backend *b) { return ((reference *)b)->overflow; }
static uint64_t ref_rested(rb_backend *b) { return ((reference *)b)->rested; }
static uint32_t ref_take_break_count(rb_backend *b) {
    reference *r = (reference *)b;
    const uint32_t n = r->breaks;
    r->breaks = 0;
    return n;
}

static size_t ref_device_bytes(const rb_backend *base) {
    const reference *r = (const reference *)base;
    return (size_t)r->capacity * (2 * sizeof(rb_float4) + 6 * sizeof(float) + 3 * sizeof(int) + 3 * sizeof(uint32_t)) +
           (size_t)(r->table_size + 1) * sizeof(uint32_t);
}

static void ref_stage_times(const rb_backend *base, double ms[RB_STAGE_COUNT]) {
    memcpy(ms, ((const reference *)base)->stage_ms, sizeof(double) * RB_STAGE_COUNT);
}

static void ref_destroy(rb_backend *base) {
    reference *r = (reference *)base;
    free(r->pos), free(r->vel), free(r->force), free(r->moment), free(r->cell), free(r->hash), free(r->sorted);
    free(r->bucket_start), free(r->cursor), free(r->wake), free(r->near), free(r->run), free(r->support);
    free(r->frame);
    free(r->joint_out), free(r->load);
    free(r);
}

typedef struct pair_visit {
    const reference *r;
    const rb_world_data *d;
    const rb_step_params *p;
    uint32_t i, count, max_pairs;
    uint32_t *pairs;
} pair_visit;

static void visit_pair(void *ctx, uint32_t j) {
    pair_visit *v = ctx;
    if (j <= v->i || !overlapping(v->r, v->d, v->i, j)) return;
    if (v->count < v->max_pairs) v->pairs[2 * v->count] = v->i, v->pairs[2 * v->count + 1] = j;
    v->count++;
}

static uint32_t ref_contact_pairs(rb_backend *base, const rb_world_data *d, const rb_step_params *p, uint32_t *pairs,
                                  uint32_t max_pairs) {
    reference *r = (reference *)base;
    if (!reserve(r, d->particle_count) || !reserve_bodies(r, d->body_count)) return 0;
    particle_values(r, d);
    build_grid(r, d, p);
    pair_visit v = {r, d, p, 0, 0, max_pairs, pairs};
    for (v.i = 0; v.i < d->particle_count; v.i++) for_each_neighbour(r, d, v.i, visit_pair, &v);
    return v.count;
}

static const rb_backend_vtbl reference_vtbl = {
    .name = "reference",
    .destroy = ref_destroy,
    .upload = ref_upload,
    .step = ref_step,
    .download = ref_download,
    .read_particles = ref_read_particles,
    .particle_forces = ref_particle_forces,
    .device_name = ref_device_name,
    .device_bytes = ref_device_bytes,
    .stage_times = ref_stage_times,
    .contact_pairs = ref_contact_pairs,
    .contact_overflow = ref_contact_overflow,
    .rested = ref_rested,
    .take_break_count = ref_take_break_count,
    .take_joint_break_count = ref_take_joint_break_count,
    .write_velocities = ref_write_velocities,
};

rb_backend *rb_reference_create(int device_index, char *err, size_t err_size) {
    reference *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    r->base.vtbl = &reference_vtbl;
    r->fresh = true;
    return &r->base;
}
