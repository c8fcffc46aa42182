/* forces.cl - stage 3: the contact force on every particle, and its moment
 * about the body's centre.
 *
 * One work-item a particle, in one of two orders with the same results
 * (by_particle, set by the host for the kernel set it chose:
 * src/sim/opencl_args.c, src/sim/opencl_build.c):
 * - slot order, on a GPU: work-item s takes sorted slot s, in bucket order:
 *   neighbouring work-items sit in one cell or in the next cell of its row
 *   along x (rb_cell_hash), so they read the same neighbour runs, and the
 *   particle's own position and velocity are its sorted copies;
 * - particle order, on a CPU: work-item i takes particle i, whose own
 *   values (stage 1's, grid.cl), history slots, force and moment are then
 *   read and written in order, and a body's particles, neighbours in space,
 *   follow one another. Its history read in slot order was a cache miss a
 *   particle: a third of PoCL's force pass.
 * Its position is its body's centre plus its offset, summed as rb_reorder
 * sums it, so both orders compute the reference's bits. The host builds
 * the CPU kernel set with RB_CPU_KERNELS defined, so that particle order is
 * a constant the compiler folds (RB_ORDER below: 27 instructions a particle
 * fewer on pile 3000 of cube2, README "Instructions a particle (CPU)");
 * a build for the GPU kernel set reads the argument.
 *
 * The 27 neighbour cells are read as 9 rows of three: cells x - 1, x, x + 1
 * of a row fill consecutive buckets, so a row is one run of sorted slots
 * (two where the table wraps), tested for reach eight slots at a time
 * against one bound, the particle's radius plus slot_reach: the largest
 * radius in the world, or where a body is a lattice (src/sim/contact.h,
 * "cells") the farthest a sphere and a cell of the world's radii touch,
 * less the particle's radius (src/sim/cell_reach.c: 1.732 times the
 * largest radius where all are equal, at most 1.905 times). The same
 * vector test drops the particle's own body's slots, which that wider
 * bound takes in (its face neighbours, 2 r away): one compare of the
 * sorted body ids, no load more.
 * The few slots within reach are then taken one by one, and judged as the
 * contact law judges them: as spheres with their own radius (r_i + r_j,
 * read from their body), or as a sphere and a cell. (Two rows in one
 * 16-wide test ran slower on PoCL.) Particles of other cells that share
 * those buckets are skipped by their cell key. Contacts are summed in the
 * reference's order: rows z, then y, each row's cells x - 1, x, x + 1, each
 * cell's particles by index; then the planes. Each contact takes the row
 * of the pair table (rates) for its two bodies' materials; a plane contact
 * the particle's own material's. The same bits as the reference.
 *
 * Most of what a particle tests it does not touch: in pile 3000 one vector
 * of eight slots in twenty-five had a slot within reach, and a particle
 * about 0.4 contacts (measured with spheres' reach, before lattice bodies
 * met as cells; the cells' wider reach takes in more). So the path every
 * particle takes is kept short, and what only a contact needs is kept off
 * it:
 * - a vector with nothing within reach costs its four loads, its arithmetic
 *   and one test (rb_any8); the lanes past the run's end are masked only
 *   when something is within reach;
 * - the nine rows are unrolled, their hashes stepped by the strides;
 * - the eight planes' heights are one vector test (the host uploads the
 *   planes as columns: x, y, z, offset);
 * - the contacts themselves (the particle's own velocity, its body's values,
 *   its history, the contact law) run in functions kept out of line
 *   (rb_touch_slots, rb_touch_planes), which add to the particle's sums
 *   (rb_sums) and read the buffers (rb_sorted) through pointers. Inlined,
 *   PoCL hoisted their loads and set-up into every particle's path and
 *   spilled around them in every loop.
 * callgrind counted 870 instructions a particle for pile 3000 at t = 2 s
 * with spheres' contacts (1,330 inlined, 950 before contacts had memory;
 * README, "The cost of the contacts' memory"); with the cells' contacts,
 * 1,131 (scripts/profile; README, "Instructions a particle (CPU)").
 *
 * Each contact keeps its tangential displacement in the particle's history
 * slots (4 or 8, keyed by the partner's particle index or the
 * plane's key; src/sim/contact.h): each contact reads the keys as one
 * vector (the step's first: the keys kept are written at its end), and
 * reads its slot's displacement and writes it back in place. Only the
 * particle's own work-item reads or writes its slots.
 * With commit 0 (forces read for a test, not a step) nothing but the force
 * and moment is written.
 *
 * A particle of a sleeping body that touches (has a contact with) a
 * particle of an awake body moving faster than sleep_speed, or a moving
 * particle of a kinematic body, marks its body to wake (every writer writes
 * 1: no race). A particle of a static or kinematic body (mass INFINITY)
 * gets no force: nothing moves those bodies. */

#ifdef RB_CPU_KERNELS
#define RB_ORDER(by_particle) 1u
#else
#define RB_ORDER(by_particle) (by_particle)
#endif

/* A bound on how far below its centre a cell reaches toward a plane, in
 * half sides (rb_cell_support: (sum over the axes of |n_k|, each rounded
 * up by at most RB_CELL_ROUNDING / 2) - RB_CELL_ROUNDING, at most sqrt(3) +
 * RB_CELL_ROUNDING / 2): the planes' first test (below) takes a lattice
 * body's particle this deep, so that it never calls a plane far that
 * rb_contact_plane would not. */
#define RB_CELL_BELOW 1.75f

/* Whether cell key cell is one of the three cells of the row whose first
 * cell's key is row_key: the same y and z, x at most 2 past (x is the
 * key's low 10 bits). A slot of another cell that shares a bucket is not. */
static inline bool rb_in_row(const uint cell, const uint row_key) {
    return (cell >> 10) == (row_key >> 10) && ((cell - row_key) & 1023u) <= 2u;
}

/* ---- vectors of eight lanes ---- */

/* True if any lane is true (-1): the lanes OR-ed as halves of halves
 * (PoCL's any() tests them one by one). */
static inline bool rb_any8(const int8 lanes) {
    const ulong4 u = as_ulong4(lanes);
    const ulong2 h = u.lo | u.hi;
    return (h.lo | h.hi) != 0u;
}

/* Lane k's truth (-1 or 0) as bit k. */
static inline uint rb_lane_bits(const int8 lanes) {
    const ulong4 bit = as_ulong4(lanes & (int8)(1, 2, 4, 8, 16, 32, 64, 128));
    const ulong2 halves = bit.lo | bit.hi; /* OR-ed across the lanes as halves of halves */
    const ulong quarter = halves.lo | halves.hi;
    return (uint)quarter | (uint)(quarter >> 32);
}

/* Bit k set for each lane of the eight from slot that lies before a run's
 * end (none where slot == end). */
static inline uint rb_run_lanes(const uint slot, const uint end) { return 0xffu >> (8u - min(end - slot, 8u)); }

/* A particle's history keys, held as one vector of RB_MAX_CONTACT_SLOTS
 * (8) whatever the world's slots (4 or 8: the kernel's argument `slots`,
 * rb_world_data.contact_slots): a world of 4 reads and writes a particle's
 * 4 as half of one, and its other lanes hold RB_SLOT_FREE and are never
 * taken (rb_keep). */
typedef uint8 rb_keys;
#define RB_KEYS_FREE ((rb_keys)(RB_SLOT_FREE))

static inline rb_keys rb_keys_load(__global const uint *keys, const uint i, const uint slots) {
    return slots == 8u ? vload8(i, keys) : (rb_keys)(vload4(i, keys), (uint4)(RB_SLOT_FREE));
}

static inline void rb_keys_store(const rb_keys k, __global uint *keys, const uint i, const uint slots) {
    if (slots == 8u)
        vstore8(k, i, keys);
    else
        vstore4(k.lo, i, keys);
}

/* Bit k set where lane k of k holds key. */
static inline uint rb_key_bits(const rb_keys k, const uint key) { return rb_lane_bits(k == (rb_keys)(key)); }

/* The lowest set bit's index, and the mask without it. */
static inline uint rb_take_lowest(uint *bits) {
    const uint k = 31u - clz(*bits & (0u - *bits));
    *bits &= *bits - 1u;
    return k;
}

/* ---- contacts (off the common path) ---- */

/* What a particle's contacts add up to: held by its work-item, added to by
 * rb_touch_slots and rb_touch_planes through a pointer. */
typedef struct rb_sums {
    float3 f, t;   /* force, and moment about the particle's centre */
    rb_keys kept;  /* the keys of the slots it keeps */
    uint taken;    /* bit k: slot k holds a contact of this step */
    uint overflow; /* contacts that found no slot */
    float support; /* the shares of its body its contacts bear */
    uint wake;     /* a contact wakes its body */
} rb_sums;

#define RB_BY_PARTICLE 1u /* work-items in particle order: its velocity is stage 1's (own_vel[i]), else vel[s] */
#define RB_SLEEPING 2u    /* its body sleeps */
#define RB_COMMIT 4u      /* a step: the history is written */
#define RB_MARKING 8u     /* awake, in a step where some body sleeps: it marks the sleeping bodies near (resting) */

/* What a contact reads: the sorted particle copies (grid.cl, rb_reorder),
 * the particles' bodies, and the summed particle's own velocity. */
typedef struct rb_sorted {
    __global const float *x, *y, *z;
    __global const uint *body;
    __global const float4 *vel; /* w: the cell key */
    __global const uint *index; /* sorted_index: a slot's particle */
    __global const float4 *body_pos, *body_frame, *body_omega, *body_inv_inertia;
    __global const uint *body_material;
    __global const float4 *body_contact; /* x radius, y slip scale, z onset support, w cell rank */
    __global const float *own_vel;       /* stage 1's velocities, in index order (grid.cl) */
    __global const float4 *body_quat;    /* the cells' axes */
    __global const float4 *offset;       /* particle_offset: w, a particle's exposed cell faces */
} rb_sorted;

/* The particle whose force is summed, as a contact sees it. */
typedef struct rb_summing {
    float3 p;                  /* its position */
    float r;                   /* its radius */
    uint i, s, body;           /* its particle, its work-item's slot, its body */
    uint flags;                /* RB_BY_PARTICLE, RB_SLEEPING, RB_COMMIT, RB_MARKING */
    uint slots;                /* the world's slots a particle, 4 or 8 */
    __global const uint *keys; /* all particles' slot keys, as at the step's start (written at its end) */
    __global float *disp;      /* its slots' displacements, xyz */
    __global float *roll;      /* and rolling angles (only where its contacts resist rolling) */
    __private rb_sums *sums;
} rb_summing;

/* The side of a contact a body's particle gives (its position p and velocity v). */
static inline rb_side rb_side_of(const rb_sorted *in, const uint b, const float3 p, const float3 v) {
    const float4 inv_inertia = in->body_inv_inertia[b], contact = in->body_contact[b];
    rb_side s = {p,
                 v,
                 in->body_omega[b].xyz,
                 inv_inertia.w,
                 contact.x,
                 b,
                 in->body_pos[b].xyz,
                 in->body_frame[2u * b],
                 in->body_frame[2u * b + 1u],
                 in->body_quat[b],
                 contact.w};
    return s;
}

/* The summed particle's own side. */
static inline rb_side rb_own_side(const rb_summing *q, const rb_sorted *in) {
    const float3 v = (q->flags & RB_BY_PARTICLE) ? vload3(q->i, in->own_vel) : in->vel[q->s].xyz;
    return rb_side_of(in, q->body, q->p, v);
}

/* The pair table's row of the summed particle's material with material m:
 * rates, and rolling friction. */
static inline uint rb_pair_of(const rb_summing *q, const rb_sorted *in, const uint m) {
    return in->body_material[q->body] * RB_MAX_MATERIALS + m;
}

/* The slot key's contact had at the last step, or RB_MAX_CONTACT_SLOTS, as
 * rb_slot_match (src/sim/contact.h); *xo its displacement, zero if new, and
 * where the contact resists rolling, *ro its rolling angle (as recall,
 * reference.c). A key is in one slot at most. */
static inline uint rb_slot_match(const rb_summing *q, const rb_keys keys, const uint key, const bool rolling,
                                 float3 *xo, float3 *ro) {
    const uint bits = rb_key_bits(keys, key);
    const uint slot = bits ? 31u - clz(bits) : RB_MAX_CONTACT_SLOTS;
    *xo = slot < RB_MAX_CONTACT_SLOTS ? vload3(slot, q->disp) : (float3)(0.0f, 0.0f, 0.0f);
    *ro = rolling && slot < RB_MAX_CONTACT_SLOTS ? vload3(slot, q->roll) : (float3)(0.0f, 0.0f, 0.0f);
    return slot;
}

/* A contact found: its share added, its displacement (and rolling angle,
 * where it resists rolling) kept in the slot it takes (its match, else the
 * lowest slot free at the start and not taken), or counted, as rb_slot_take
 * and keep (src/sim/reference.c). */
static inline void rb_keep(const rb_summing *q, const rb_keys keys, const uint key, const uint match, const float3 xi,
                           const bool rolling, const float3 roll, const float share) {
    __private rb_sums *m = q->sums;
    m->support += share;
    const uint open = rb_key_bits(keys, RB_SLOT_FREE) & ~m->taken & ((1u << q->slots) - 1u);
    const uint slot = match < RB_MAX_CONTACT_SLOTS ? match
                      : open                       ? 31u - clz(open & (0u - open))
                                                   : RB_MAX_CONTACT_SLOTS;
    if (slot == RB_MAX_CONTACT_SLOTS) {
        m->overflow++;
        return;
    }
    m->taken |= 1u << slot;
    m->kept = select(m->kept, (rb_keys)(key), (rb_keys)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u) == (rb_keys)(slot));
    if (!(q->flags & RB_COMMIT)) return;
    vstore3(xi, slot, q->disp);
    if (rolling) vstore3(roll, slot, q->roll);
}

/* Slot j's particle, within reach of a particle of another body, in the
 * row of cells whose first cell has key row_key (or in another cell that
 * shares a bucket with it: skipped). Reach was judged against a bound for
 * every partner; whether the two touch is judged here, as the reference
 * judges it (rb_contact_particles, reference.c): as spheres with j's own
 * radius (rb_particles_touch), or where either body is a lattice as a
 * sphere and a cell (rb_cell_touch, the cell's orientation and faces read
 * only then). A touch is a contact, and may wake the summed particle's
 * sleeping body. */
static inline void rb_visit_slot(const rb_summing *q, const rb_sorted *in, __constant float4 *rates,
                                 __constant float *rolling, const uint j, const uint row_key, const float sleep_speed,
                                 const float sleep_time, const float dt) {
    const float3 pj = (float3)(in->x[j], in->y[j], in->z[j]);
    const float3 sep = rb_separation(q->p, pj);
    const float dist2 = rb_length2(sep);
    const uint bj = in->body[j];
    const float4 ci = in->body_contact[q->body], cj = in->body_contact[bj];
    const uint partner = in->index[j]; /* the history's key */
    const bool cells = ci.w > 0.0f || cj.w > 0.0f, on_j = rb_cells_on_j(ci.w, q->body, cj.w, bj);
    float weight = 0.0f, dist = 0.0f;
    float3 m = (float3)(0.0f, 0.0f, 0.0f);
    /* The touch first: most slots within reach do not touch, and the test
     * needs neither j's velocity nor its cell key (its sorted vel, a load
     * that misses the cache more often than not). */
    if (cells) {
        weight = on_j
                     ? rb_cell_touch(q->p, q->r, pj, cj.x, in->body_quat[bj], (uint)in->offset[partner].w, &m, &dist)
                     : rb_cell_touch(pj, cj.x, q->p, q->r, in->body_quat[q->body], (uint)in->offset[q->i].w, &m, &dist);
        if (!(weight > 0.0f)) return;
    } else if (!rb_particles_touch(dist2, q->r, cj.x)) {
        return; /* apart, or coincident with no normal */
    }
    const float4 vj = in->vel[j];
    const uint cell = as_uint(vj.w);
    if (!rb_in_row(cell, row_key)) return;
    const rb_side si = rb_own_side(q, in), sj = rb_side_of(in, bj, pj, vj.xyz);
    const uint pair = rb_pair_of(q, in, in->body_material[bj]);
    const float mu_r = rolling[pair], slip = fmin(ci.y, cj.y);
    float3 xo, xi, ro, roll;
    float share;
    const rb_keys keys = rb_keys_load(q->keys, q->i, q->slots); /* read only for a contact */
    const uint match = rb_slot_match(q, keys, partner, mu_r > 0.0f, &xo, &ro);
    if (cells)
        rb_contact_cells(weight, m, dist, on_j, &si, &sj, slip, xo, &xi, mu_r, ro, &roll, &q->sums->f, &q->sums->t,
                         rates[pair], dt, &share);
    else
        rb_contact_particles(sep, dist2, &si, &sj, slip, xo, &xi, mu_r, ro, &roll, &q->sums->f, &q->sums->t,
                             rates[pair], dt, &share);
    rb_keep(q, keys, partner, match, xi, mu_r > 0.0f, roll, share);
    if ((q->flags & RB_SLEEPING) && !rb_asleep(in->body_pos[bj].w, sleep_time)) {
        const float speed2 = rb_length2(vj.xyz);
        if (speed2 > sleep_speed * sleep_speed || (isinf(sj.m) && speed2 > 0.0f)) q->sums->wake = 1u;
    }
}

/* The summed particle (its values passed by value: see rb_touch_slots), its
 * history's keys and displacements, and its sums. */
static inline rb_summing rb_summing_of(__private rb_sums *sums, const float3 p, const float r, const uint i,
                                       const uint s, const uint body, const uint flags, const uint slots,
                                       __global const uint *keys, __global float *disp, __global float *roll) {
    const size_t first = (size_t)i * (slots * 3u);
    const rb_summing q = {p, r, i, s, body, flags, slots, keys, disp + first, roll + first, sums};
    return q;
}

/* The slots of one vector of a row that are within reach (bit k: slot
 * first + k), each visited in order. Out of line (see the top of this
 * file). The summed particle (rb_summing) and the buffers a contact reads
 * (rb_sorted) come as two pointers to the kernel's own, formed once a
 * particle, not as 27 arguments pushed at every call: on pile 3000 of
 * cube2, 66 instructions a particle fewer (README, "Instructions a
 * particle (CPU)"). */
static __attribute__((noinline)) void rb_touch_slots(const rb_summing *q, const rb_sorted *in, const uint first,
                                                     uint bits, const uint row_key, __constant float4 *rates,
                                                     __constant float *rolling, const float sleep_speed,
                                                     const float sleep_time, const float dt) {
    while (bits != 0u)
        rb_visit_slot(q, in, rates, rolling, first + rb_take_lowest(&bits), row_key, sleep_speed, sleep_time, dt);
}

/* The planes the particle is not far from (bit k: plane k, its columns in
 * column[k], column[8 + k], ...), in order. Out of line, as rb_touch_slots. */
static __attribute__((noinline)) void rb_touch_planes(const rb_summing *q, const rb_sorted *in, uint near,
                                                      __constant const float *column, __constant float4 *rates,
                                                      __constant float *rolling, const float max_radius,
                                                      const float dt) {
    const rb_side si = rb_own_side(q, in);
    const float slip = in->body_contact[q->body].y;
    const uint pair = rb_pair_of(q, in, in->body_material[q->body]);
    const float4 own_rates = rates[pair];
    const float mu_r = rolling[pair];
    const rb_keys held = rb_keys_load(q->keys, q->i, q->slots); /* the step's first keys */
    do {
        const uint k = rb_take_lowest(&near);
        const float4 plane = (float4)(column[k], column[RB_MAX_PLANES + k], column[2 * RB_MAX_PLANES + k],
                                      column[3 * RB_MAX_PLANES + k]);
        float3 xo, xi, ro, rl;
        float share;
        const uint match = rb_slot_match(q, held, RB_SLOT_PLANE + k, mu_r > 0.0f, &xo, &ro);
        if (rb_contact_plane(&si, slip, plane, xo, &xi, mu_r, ro, &rl, &q->sums->f, &q->sums->t, own_rates, dt,
                             max_radius, &share))
            rb_keep(q, held, RB_SLOT_PLANE + k, match, xi, mu_r > 0.0f, rl, share);
        else
            q->sums->support += share; /* an imminent contact's, or 0 */
    } while (near);
}

/* ---- the common path ---- */

/* The slots [slot, end) of one row (its first cell's key: key), eight a
 * vector (the sorted copies are padded by eight): rb_separation and
 * rb_length2 of each, the same operations; the lanes within reach, of
 * another body and before the run's end go to rb_touch_slots. A marking
 * particle (RB_MARKING) first marks the sleeping bodies of the lanes within
 * mark2, each of a cell of the row (its key), as reference.c's visit_force
 * marks the particles of the 27 cells. */
static inline __attribute__((always_inline)) void
rb_visit_run(const rb_summing *q, const rb_sorted *in, const float reach2, const float mark2, uint slot, const uint end,
             const uint key, __constant float4 *rates, __constant float *rolling, const float sleep_speed,
             const float sleep_time, const float dt, __global uint *body_near) {
    const float3 p = q->p;
    /* A do-while, its lanes past the run's end masked in the bits (only
     * where something is within reach): whether a row holds no vector, one
     * or two is a coin toss from particle to particle, and a loop that
     * tested for an empty run first mispredicted there. An empty run's
     * vector (the sorted copies are padded by eight) has no lane live.
     * callgrind's branch simulation, pile 3000 of cube2: the kernel's own
     * code mispredicted 3.6 times a particle, now 1.7, for 6 instructions
     * more. */
    do {
        const float8 x = vload8(0, in->x + slot) - p.x, y = vload8(0, in->y + slot) - p.y,
                     z = vload8(0, in->z + slot) - p.z;
        const float8 d2 = x * x + y * y + z * z;
        const int8 other = as_int8(vload8(0, in->body + slot)) != (int)q->body;
        if (q->flags & RB_MARKING) {
            uint wide = rb_lane_bits((d2 < mark2) & other) & rb_run_lanes(slot, end);
            while (wide != 0u) {
                const uint j = slot + rb_take_lowest(&wide), bj = in->body[j], cell = as_uint(in->vel[j].w);
                if (rb_in_row(cell, key) && rb_asleep(in->body_pos[bj].w, sleep_time)) body_near[bj] = 1u;
            }
        }
        const int8 near = (d2 < reach2) & other;
        if (rb_any8(near)) {
            const uint bits = rb_lane_bits(near) & rb_run_lanes(slot, end);
            if (bits) rb_touch_slots(q, in, slot, bits, key, rates, rolling, sleep_speed, sleep_time, dt);
        }
        slot += 8u;
    } while (slot < end);
}

/* rb_visit_run's arguments after its run's start and end (the kernel's). */
#define RB_RUN_ARGS key, rates, rolling, sleep_speed, sleep_time, dt, body_near

__kernel void
rb_forces(const uint n, __global const uint *sorted_index, __global const float4 *body_pos,
          __global const float4 *body_omega, __global const float4 *body_inv_inertia, __global const uint *table,
          const uint mask, __global const float *sorted_x, __global const float *sorted_y,
          __global const float *sorted_z, __global const uint *sorted_body, __global const float4 *sorted_vel,
          __constant float8 *planes, const uint plane_count, const float inv_cell, __global const uint *body_material,
          __constant float4 *rates, __global const float4 *body_contact, const float max_radius, const float dt,
          const float sleep_speed, const float sleep_time, __global float *force, __global float *moment,
          __global uint *wake_body, const uint stride_z, const uint stride_y, __global const float4 *body_frame,
          __global uint *keys, __global float *disp, __global float *support, __global uint *overflow,
          const uint commit, __global const uint *particle_body, const uint order, __global float *roll,
          __constant float *rolling, const uint slots, __global const float4 *body_quat,
          __global const float4 *particle_offset, const float slot_reach, __global const uint *particle_hash,
          __global const uint *particle_key, __global const uint *body_run, __global uint *body_near,
          const uint rest_sleepers, __global const uint *sleepers) {
    const uint by_particle = RB_ORDER(order);
    const uint s = get_global_id(0);
    if (s >= n) return;
    const uint i = by_particle ? s : sorted_index[s];
    const uint b = by_particle ? particle_body[i] : sorted_body[s];
    if (isinf(body_inv_inertia[b].w)) { /* a static or kinematic body's */
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, force);
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, moment);
        if (commit) {
            rb_keys_store(RB_KEYS_FREE, keys, i, slots);
            support[i] = 0.0f;
        }
        return;
    }
    const float4 x = body_pos[b];
    float3 p;
    if (by_particle) { /* stage 1's offset in the force buffer (grid.cl), summed as rb_reorder sums it */
        const float3 rel = vload3(i, force);
        p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
    } else {
        p = (float3)(sorted_x[s], sorted_y[s], sorted_z[s]);
    }
    const float4 contact = body_contact[b];
    const float r = contact.x;
    const float reach = r + slot_reach; /* beyond every partner's touch (the host's slot_reach) */
    const float reach2 = reach * reach;
    const bool sleeping = rb_asleep(x.w, sleep_time);
    const uint flags = (by_particle ? RB_BY_PARTICLE : 0u) | (sleeping ? RB_SLEEPING : 0u) | (commit ? RB_COMMIT : 0u) |
                       (!sleeping && commit && rest_sleepers && *sleepers ? RB_MARKING : 0u);
    if ((flags & RB_SLEEPING) && commit && rest_sleepers && body_run[b] == 0u) {
        /* its body rests: no awake body came near it at the last step
         * (reference.c, resting); its history and support stay */
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, force);
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, moment);
        return;
    }
    const rb_sorted in = {sorted_x,      sorted_y,     sorted_z,   sorted_body, sorted_vel,
                          sorted_index,  body_pos,     body_frame, body_omega,  body_inv_inertia,
                          body_material, body_contact, moment,     body_quat,   particle_offset};
    rb_sums sums = {(float3)(0.0f, 0.0f, 0.0f), (float3)(0.0f, 0.0f, 0.0f), RB_KEYS_FREE, 0u, 0u, 0.0f, 0u};
    const rb_summing q = rb_summing_of(&sums, p, r, i, s, b, flags, slots, keys, disp, roll);
    float mark2 = reach2;
    if (flags & RB_MARKING) {
        /* An awake particle marks the sleeping bodies it may reach by the
         * next step, closing at up to twice its own speed, so that they run
         * that step (reference.c, particle_force forms the same bound).
         * Where no body sleeps (the last integration counted none) there
         * is nothing to mark, and the wider bound would only cost. */
        const float3 v = by_particle ? vload3(i, moment) : sorted_vel[s].xyz;
        const float mark = reach + 2.0f * dt * sqrt(rb_length2(v));
        mark2 = mark * mark;
    }

    /* The 9 rows, z then y, each from its cell x - 1: rb_cell_hash and
     * rb_cell_key of each row's first cell, the hash stepped by the strides
     * from the particle's own cell's (the same sums, modulo 2^32 and the
     * mask, as rb_cell_hash forms), each key's fields stepped modulo 1024.
     * In particle order the particle's bucket and key are the hash pass's
     * (grid.cl); in slot order they are formed from its position as there. */
    uint hc, kc;
    if (by_particle) {
        hc = particle_hash[i], kc = particle_key[i];
    } else {
        const int3 c = rb_cell_of(p, inv_cell);
        hc = rb_cell_hash(c.x, c.y, c.z, stride_z, stride_y, mask), kc = rb_cell_key(c.x, c.y, c.z);
    }
    const uint buckets = mask + 1u, kx = (kc - 1u) & 1023u;
    uint hz = hc - 1u - stride_z - stride_y;
#pragma unroll
    for (uint dz = 0u; dz < 3u; dz++, hz += stride_z) {
        const uint kz = kx | ((((kc >> 20) + dz - 1u) & 1023u) << 20);
        uint hy = hz;
#pragma unroll
        for (uint dy = 0u; dy < 3u; dy++, hy += stride_y) {
            const uint h = hy & mask, key = kz | (((((kc >> 10) & 1023u) + dy - 1u) & 1023u) << 10);
            if (h + 3u <= buckets) {
                rb_visit_run(&q, &in, reach2, mark2, table[h], table[h + 3u], RB_RUN_ARGS);
            } else { /* the row passes the table's end: its tail, then its head from bucket 0 */
                rb_visit_run(&q, &in, reach2, mark2, table[h], table[buckets], RB_RUN_ARGS);
                rb_visit_run(&q, &in, reach2, mark2, 0u, table[h + 3u - buckets], RB_RUN_ARGS);
            }
        }
    }

    /* The planes (columns x, y, z, offset of eight; the unused ones zero and
     * masked): the heights of all eight as rb_contact_plane forms each, and
     * its first test (neither touching nor about to: overlap <= -margin
     * max_radius; a NaN height is not far, as there), with a lattice body's
     * particle taken RB_CELL_BELOW r deep, at least its cell's reach, so
     * that the test is exact for spheres and never drops a cell's contact;
     * those not far, in order, go to rb_touch_planes, which judges each as
     * rb_contact_plane does. */
    const float8 height = planes[0] * p.x + planes[1] * p.y + planes[2] * p.z - planes[3];
    const int8 far = ((contact.w > 0.0f ? RB_CELL_BELOW * r : r) - height) <= -RB_IMMINENT_MARGIN * max_radius;
    const uint near = rb_lane_bits(~far & ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int)plane_count));
    if (near) rb_touch_planes(&q, &in, near, (__constant const float *)planes, rates, rolling, max_radius, dt);

    /* The particle's moment about the body's centre: lever x f plus the
     * contacts' moment about the particle's centre. The lever is (x + r) - x,
     * as the reference forms it from the particle's position. */
    const float3 f = sums.f, t = sums.t;
    const float3 lever = (float3)(p.x - x.x, p.y - x.y, p.z - x.z), lf = rb_cross(lever, f);
    vstore3(f, i, force); /* packed xyz: 12 bytes a particle, in index order */
    vstore3((float3)(lf.x + t.x, lf.y + t.y, lf.z + t.z), i, moment);
    if (sums.wake) wake_body[b] = 1u;
    if (!commit) return;
    rb_keys_store(sums.kept, keys, i, slots);
    support[i] = sums.support;
    if (sums.overflow) atomic_add(overflow, sums.overflow);
}
