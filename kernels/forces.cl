/* forces.cl - stage 3: the contact force on every particle, and its moment
 * about the body's centre.
 *
 * One work-item a particle, in one of two orders with the same results
 * (by_particle, set by the host with the kernel set, src/sim/opencl.c):
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
 * sums it, so both orders compute the reference's bits.
 *
 * The 27 neighbour cells are read as 9 rows of three: cells x - 1, x, x + 1
 * of a row fill consecutive buckets, so a row is one run of sorted slots
 * (two where the table wraps), tested for reach eight slots at a time
 * against one bound, the particle's radius plus the largest in the world;
 * the few slots within reach are then taken one by one, and judged with
 * their own radius (r_i + r_j, read from their body). (Two rows in one
 * 16-wide test ran slower on PoCL.) Particles of other cells that share
 * those buckets are skipped by their cell key. Contacts are summed in the
 * reference's order: rows z, then y, each row's cells x - 1, x, x + 1, each
 * cell's particles by index; then the planes. Each contact takes the row
 * of the pair table (rates) for its two bodies' materials; a plane contact
 * the particle's own material's. The same bits as the reference.
 *
 * Each contact keeps its tangential displacement in the particle's history
 * slots (RB_CONTACT_SLOTS, keyed by the partner's particle index or the
 * plane's key; src/sim/contact.h): the keys are read once, as a uint4; a
 * contact reads its slot's displacement and writes it back in place; the
 * keys kept are written at the end. Only the particle's own work-item reads
 * or writes its slots. With commit 0 (forces read for a test, not a step)
 * nothing but the force and moment is written.
 *
 * A particle of a sleeping body that overlaps a particle of an awake body
 * moving faster than sleep_speed, or a moving particle of a kinematic body,
 * marks its body to wake (every writer writes 1: no race). A particle of a
 * static or kinematic body (mass INFINITY) gets no force: nothing moves
 * those bodies. */

/* The sorted particle copies (grid.cl, rb_reorder) and the body values a
 * contact reads. */
typedef struct rb_sorted {
    __global const float *x, *y, *z;
    __global const uint *body;
    __global const float4 *vel; /* w: the cell key */
    __global const uint *index; /* sorted_index: a slot's particle */
    __global const float4 *body_pos, *body_frame, *body_omega, *body_inv_inertia;
    __global const uint *body_material;
    __global const float *body_support;
    __global const float4 *body_contact; /* x radius, y slip scale, z onset support */
} rb_sorted;

/* The side of a contact a body's slot gives (its particle: p, v, m, r). */
static inline rb_side rb_side_of(const rb_sorted *in, const uint b, const float3 p, const float3 v) {
    const float4 inv_inertia = in->body_inv_inertia[b];
    rb_side s = {p,
                 v,
                 in->body_omega[b].xyz,
                 inv_inertia.w,
                 in->body_contact[b].x,
                 b,
                 in->body_pos[b].xyz,
                 in->body_frame[2u * b],
                 in->body_frame[2u * b + 1u]};
    return s;
}

/* The particle whose force is summed, its history and its sums. */
typedef struct rb_summing {
    rb_side side;                 /* its particle and body (side.p, side.v, side.w, side.m, side.r, side.body) */
    float slip;                   /* its body's slip scale */
    float reach2;                 /* (r + the largest radius)^2: no particle farther touches it */
    __constant const float4 *row; /* the pair table's rows of its body's material */
    bool sleeping, wake;
    float3 f, t;          /* force, and moment about the particle's centre */
    uint4 keys, kept;     /* its slots' keys at the step's start, and those it keeps */
    uint taken;           /* bit k: slot k holds a contact of this step */
    __global float *disp; /* its RB_CONTACT_SLOTS displacements, xyz */
    bool commit;          /* a step: the history is written */
    uint overflow;
    float support; /* the shares of its body its contacts bear */
} rb_summing;

/* The slot key's contact had at the last step, or 4, as rb_slot_match
 * (src/sim/contact.h); *xo its displacement, zero if new. */
static inline uint rb_slot_match(const rb_summing *q, const uint key, float3 *xo) {
    const uint4 k = q->keys;
    const uint slot = k.x == key ? 0u : k.y == key ? 1u : k.z == key ? 2u : k.w == key ? 3u : 4u;
    *xo = slot < 4u ? vload3(slot, q->disp) : (float3)(0.0f, 0.0f, 0.0f);
    return slot;
}

/* A contact found: its share added, its displacement kept in the slot it
 * takes (its match, else the lowest slot free at the start and not taken),
 * or counted, as rb_slot_take and keep (src/sim/reference.c). */
static inline void rb_keep(rb_summing *q, const uint key, const uint match, const float3 xi, const float share) {
    q->support += share;
    const uint4 k = q->keys;
    const uint open = ((k.x == RB_SLOT_FREE ? 1u : 0u) | (k.y == RB_SLOT_FREE ? 2u : 0u) |
                       (k.z == RB_SLOT_FREE ? 4u : 0u) | (k.w == RB_SLOT_FREE ? 8u : 0u)) &
                      ~q->taken;
    const uint slot = match < 4u ? match : open ? 31u - clz(open & (0u - open)) : 4u;
    if (slot == 4u) {
        q->overflow++;
        return;
    }
    q->taken |= 1u << slot;
    if (slot == 0u) q->kept.x = key;
    if (slot == 1u) q->kept.y = key;
    if (slot == 2u) q->kept.z = key;
    if (slot == 3u) q->kept.w = key;
    if (q->commit) vstore3(xi, slot, q->disp);
}

/* Slot j's particle, within reach of a particle of another body, in the
 * row of cells whose first cell has key row_key (or in another cell that
 * shares a bucket with it: skipped). Reach was judged against the largest
 * radius; whether the two touch is judged here, with j's own radius, as
 * the reference judges it (rb_particles_touch) for the wake and the force. */
static inline __attribute__((always_inline)) void rb_visit_slot(rb_summing *q, const rb_sorted *in, const uint j,
                                                                const uint row_key, const float sleep_speed,
                                                                const float sleep_time, const float dt) {
    const float3 sep = rb_separation(q->side.p, (float3)(in->x[j], in->y[j], in->z[j]));
    const float dist2 = rb_length2(sep);
    const float4 vj = in->vel[j];
    const uint cell = as_uint(vj.w), bj = in->body[j];
    /* in another row, or past x + 1 of this one (x is the key's low 10 bits) */
    if ((cell >> 10) != (row_key >> 10) || ((cell - row_key) & 1023u) > 2u) return;
    const float4 cj = in->body_contact[bj];
    const float rj = cj.x;
    if (!rb_particles_touch(dist2, q->side.r, rj)) return; /* apart, or coincident with no normal */
    const rb_side sj = rb_side_of(in, bj, (float3)(in->x[j], in->y[j], in->z[j]), vj.xyz);
    if (q->sleeping && !rb_asleep(in->body_pos[bj].w, sleep_time)) {
        const float speed2 = rb_length2(vj.xyz);
        if (speed2 > sleep_speed * sleep_speed || (isinf(sj.m) && speed2 > 0.0f)) q->wake = true;
    }
    const uint partner = in->index[j]; /* its particle index: the history's key */
    float3 xo, xi;
    float share;
    const uint match = rb_slot_match(q, partner, &xo);
    rb_contact_particles(sep, dist2, &q->side, &sj, fmin(q->slip, cj.y), xo, &xi, &q->f, &q->t,
                         q->row[in->body_material[bj]], dt, &share);
    rb_keep(q, partner, match, xi, share);
}

/* The lowest set bit's index, and the mask without it. */
static inline uint rb_take_lowest(uint *bits) {
    const uint k = 31u - clz(*bits & (0u - *bits));
    *bits &= *bits - 1u;
    return k;
}

/* The contacts with the particles in sorted slots [s, end) of one row, eight
 * slots a vector (the sorted copies are padded by eight). */
static inline __attribute__((always_inline)) void rb_visit_run(rb_summing *q, const rb_sorted *in, uint s,
                                                               const uint end, const uint row_key,
                                                               const float sleep_speed, const float sleep_time,
                                                               const float dt) {
    const float reach2 = q->reach2;
    for (; s < end; s += 8u) {
        /* rb_separation and rb_length2 of eight slots: the same operations */
        const float8 x = vload8(0, in->x + s) - q->side.p.x, y = vload8(0, in->y + s) - q->side.p.y,
                     z = vload8(0, in->z + s) - q->side.p.z;
        const float8 dist2 = x * x + y * y + z * z;
        const int8 near = (dist2 < reach2) & (as_int8(vload8(0, in->body + s)) != (int)q->side.body) &
                          ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int)(end - s));
        /* lane k's bit, OR-ed across the lanes as halves of halves */
        const ulong4 bit = as_ulong4(near & (int8)(1, 2, 4, 8, 16, 32, 64, 128));
        const ulong2 halves = bit.lo | bit.hi;
        const ulong quarter = halves.lo | halves.hi;
        uint bits = (uint)quarter | (uint)(quarter >> 32);
        while (bits != 0u) rb_visit_slot(q, in, s + rb_take_lowest(&bits), row_key, sleep_speed, sleep_time, dt);
    }
}

__kernel void rb_forces(const uint n, __global const uint *sorted_index, __global const float4 *body_pos,
                        __global const float4 *body_omega, __global const float4 *body_inv_inertia,
                        __global const uint *table, const uint mask, __global const float *sorted_x,
                        __global const float *sorted_y, __global const float *sorted_z,
                        __global const uint *sorted_body, __global const float4 *sorted_vel, __constant float4 *planes,
                        const uint plane_count, const float inv_cell, __global const uint *body_material,
                        __constant float4 *rates, __global const float4 *body_contact, const float max_radius,
                        const float dt, const float sleep_speed, const float sleep_time, __global float *force,
                        __global float *moment, __global uint *wake_body, const uint stride_z, const uint stride_y,
                        __global const float4 *body_frame, __global const float *body_support, __global uint4 *keys,
                        __global float *disp, __global float *support, __global uint *overflow, const uint commit,
                        __global const uint *particle_body, const uint by_particle) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    const rb_sorted in = {sorted_x,   sorted_y,   sorted_z,         sorted_body,   sorted_vel,   sorted_index, body_pos,
                          body_frame, body_omega, body_inv_inertia, body_material, body_support, body_contact};
    rb_summing q;
    const uint i = by_particle ? s : sorted_index[s];
    const uint b = by_particle ? particle_body[i] : sorted_body[s];
    if (isinf(body_inv_inertia[b].w)) { /* a static or kinematic body's */
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, force);
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, moment);
        if (commit) {
            keys[i] = (uint4)(RB_SLOT_FREE, RB_SLOT_FREE, RB_SLOT_FREE, RB_SLOT_FREE);
            support[i] = 0.0f;
        }
        return;
    }
    float3 p, v;
    if (by_particle) { /* stage 1's values in the force and moment buffers (grid.cl), as rb_reorder sums them */
        const float4 x = body_pos[b];
        const float3 rel = vload3(i, force);
        p = (float3)(x.x + rel.x, x.y + rel.y, x.z + rel.z);
        v = vload3(i, moment);
    } else {
        p = (float3)(sorted_x[s], sorted_y[s], sorted_z[s]);
        v = sorted_vel[s].xyz;
    }
    q.side = rb_side_of(&in, b, p, v);
    q.slip = body_contact[b].y;
    const float reach = q.side.r + max_radius; /* >= r + r_j for every j: rounding keeps the order */
    q.reach2 = reach * reach;
    const uint material = body_material[b];
    q.row = rates + material * RB_MAX_MATERIALS;
    const float4 x = body_pos[b];
    q.sleeping = rb_asleep(x.w, sleep_time);
    q.wake = false;
    q.f = (float3)(0.0f, 0.0f, 0.0f);
    q.t = q.f;
    q.keys = keys[i];
    q.kept = (uint4)(RB_SLOT_FREE, RB_SLOT_FREE, RB_SLOT_FREE, RB_SLOT_FREE);
    q.taken = q.overflow = 0u;
    q.disp = disp + (size_t)i * (RB_CONTACT_SLOTS * 3u);
    q.commit = commit != 0u;
    q.support = 0.0f;
    const int3 c = rb_cell_of(p, inv_cell);
    const uint buckets = mask + 1u;

    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++) {
            /* per component: as int3 arithmetic it cost PoCL 13% */
            const int3 first = (int3)(rb_cell_step(c.x, -1), rb_cell_step(c.y, dy), rb_cell_step(c.z, dz));
            const uint h = rb_cell_hash(first, stride_z, stride_y, mask), key = rb_cell_key(first);
            if (h + 3u <= buckets) {
                rb_visit_run(&q, &in, table[h], table[h + 3u], key, sleep_speed, sleep_time, dt);
            } else { /* the row passes the table's end: its tail, then its head from bucket 0 */
                rb_visit_run(&q, &in, table[h], table[buckets], key, sleep_speed, sleep_time, dt);
                rb_visit_run(&q, &in, 0u, table[h + 3u - buckets], key, sleep_speed, sleep_time, dt);
            }
        }
    for (uint k = 0; k < plane_count; k++) {
        float3 xo, xi;
        float share;
        const uint match = rb_slot_match(&q, RB_SLOT_PLANE + k, &xo);
        if (rb_contact_plane(&q.side, q.slip, planes[k], xo, &xi, &q.f, &q.t, q.row[material], dt, max_radius, &share))
            rb_keep(&q, RB_SLOT_PLANE + k, match, xi, share);
        else
            q.support += share; /* an imminent contact's, or 0 */
    }
    /* The particle's moment about the body's centre: lever x f plus the
     * contacts' moment about the particle's centre. The lever is (x + r) - x,
     * as the reference forms it from the particle's position. */
    const float3 lever = (float3)(p.x - x.x, p.y - x.y, p.z - x.z), lf = rb_cross(lever, q.f);
    vstore3(q.f, i, force); /* packed xyz: 12 bytes a particle, in index order */
    vstore3((float3)(lf.x + q.t.x, lf.y + q.t.y, lf.z + q.t.z), i, moment);
    if (q.wake) wake_body[b] = 1u;
    if (!commit) return;
    keys[i] = q.kept;
    support[i] = q.support;
    if (q.overflow) atomic_add(overflow, q.overflow);
}
