/* forces.cl - stage 3: the contact force on every particle, and its moment
 * about the body's centre.
 *
 * One work-item per sorted slot, in bucket order: neighbouring work-items
 * sit in one cell or in the next cell of its row along x (rb_cell_hash), so
 * they read the same neighbour runs and those stay in cache. The particle's
 * own position and velocity are its sorted copies (the reference computes
 * the same bits); its force goes to its index (sorted_index).
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
    __global const float4 *body_pos, *body_omega, *body_inv_inertia;
    __global const uint *body_material;
    __global const float2 *body_contact; /* x radius, y slip scale */
} rb_sorted;

/* The particle whose force is summed, and its sums. */
typedef struct rb_summing {
    float3 p, v, w; /* position, velocity, its body's angular velocity */
    float m;        /* its body's mass */
    float r;        /* its radius */
    float slip;     /* its body's slip scale */
    float reach2;   /* (r + the largest radius)^2: no particle farther touches it */
    uint b;         /* its body */
    __constant const float4 *row; /* the pair table's rows of its body's material */
    bool sleeping, wake;
    float3 f, t; /* force, and moment about the particle's centre */
} rb_summing;

/* Slot j's particle, within reach of a particle of another body, in the
 * row of cells whose first cell has key row_key (or in another cell that
 * shares a bucket with it: skipped). Reach was judged against the largest
 * radius; whether the two touch is judged here, with j's own radius, as
 * the reference judges it (rb_particles_touch) for the wake and the force. */
static inline __attribute__((always_inline)) void rb_visit_slot(rb_summing *q, const rb_sorted *in, const uint j,
                                                                const uint row_key, const float sleep_speed,
                                                                const float sleep_time, const float dt) {
    const float3 sep = rb_separation(q->p, (float3)(in->x[j], in->y[j], in->z[j]));
    const float dist2 = rb_length2(sep);
    const float4 vj = in->vel[j];
    const uint key = as_uint(vj.w), bj = in->body[j];
    /* in another row, or past x + 1 of this one (x is the key's low 10 bits) */
    if ((key >> 10) != (row_key >> 10) || ((key - row_key) & 1023u) > 2u) return;
    const float2 cj = in->body_contact[bj];
    const float rj = cj.x;
    if (!rb_particles_touch(dist2, q->r, rj)) return; /* apart, or coincident with no normal */
    const float mj = in->body_inv_inertia[bj].w;
    if (q->sleeping && !rb_asleep(in->body_pos[bj].w, sleep_time)) {
        const float speed2 = rb_length2(vj.xyz);
        if (speed2 > sleep_speed * sleep_speed || (isinf(mj) && speed2 > 0.0f)) q->wake = true;
    }
    rb_contact_particles(sep, dist2, q->v, q->w, q->m, q->r, vj.xyz, in->body_omega[bj].xyz, mj, rj,
                         fmin(q->slip, cj.y), &q->f, &q->t, q->row[in->body_material[bj]], dt);
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
        const float8 x = vload8(0, in->x + s) - q->p.x, y = vload8(0, in->y + s) - q->p.y,
                     z = vload8(0, in->z + s) - q->p.z;
        const float8 dist2 = x * x + y * y + z * z;
        const int8 near = (dist2 < reach2) & (as_int8(vload8(0, in->body + s)) != (int)q->b) &
                          ((int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int)(end - s));
        /* lane k's bit, OR-ed across the lanes as halves of halves */
        const ulong4 bit = as_ulong4(near & (int8)(1, 2, 4, 8, 16, 32, 64, 128));
        const ulong2 halves = bit.lo | bit.hi;
        const ulong quarter = halves.lo | halves.hi;
        uint bits = (uint)quarter | (uint)(quarter >> 32);
        while (bits != 0u)
            rb_visit_slot(q, in, s + rb_take_lowest(&bits), row_key, sleep_speed, sleep_time, dt);
    }
}

__kernel void rb_forces(const uint n, __global const uint *sorted_index, __global const float4 *body_pos,
                        __global const float4 *body_omega, __global const float4 *body_inv_inertia,
                        __global const uint *table, const uint mask, __global const float *sorted_x,
                        __global const float *sorted_y, __global const float *sorted_z,
                        __global const uint *sorted_body, __global const float4 *sorted_vel, __constant float4 *planes,
                        const uint plane_count, const float inv_cell, __global const uint *body_material,
                        __constant float4 *rates, __global const float2 *body_contact, const float max_radius,
                        const float dt, const float sleep_speed, const float sleep_time, __global float *force,
                        __global float *moment, __global uint *wake_body, const uint stride_z,
                        const uint stride_y) {
    const uint s = get_global_id(0);
    if (s >= n) return;
    const rb_sorted in = {sorted_x, sorted_y,   sorted_z,         sorted_body,   sorted_vel,
                          body_pos, body_omega, body_inv_inertia, body_material, body_contact};
    rb_summing q;
    q.b = sorted_body[s];
    q.m = body_inv_inertia[q.b].w;
    const uint i = sorted_index[s];
    if (isinf(q.m)) { /* a static or kinematic body's */
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, force);
        vstore3((float3)(0.0f, 0.0f, 0.0f), i, moment);
        return;
    }
    q.p = (float3)(sorted_x[s], sorted_y[s], sorted_z[s]);
    q.v = sorted_vel[s].xyz;
    const float2 own = body_contact[q.b];
    q.r = own.x;
    q.slip = own.y;
    const float reach = q.r + max_radius; /* >= r + r_j for every j: rounding keeps the order */
    q.reach2 = reach * reach;
    q.w = body_omega[q.b].xyz;
    const uint material = body_material[q.b];
    q.row = rates + material * RB_MAX_MATERIALS;
    const float4 x = body_pos[q.b];
    q.sleeping = rb_asleep(x.w, sleep_time);
    q.wake = false;
    q.f = (float3)(0.0f, 0.0f, 0.0f);
    q.t = q.f;
    const int3 c = rb_cell_of(q.p, inv_cell);
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
    for (uint k = 0; k < plane_count; k++)
        rb_contact_plane(q.p, q.v, q.w, q.m, q.r, q.slip, planes[k], &q.f, &q.t, q.row[material], dt);
    /* The particle's moment about the body's centre: lever x f plus the
     * contacts' moment about the particle's centre. The lever is (x + r) - x,
     * as the reference forms it from the particle's position. */
    const float3 lever = (float3)(q.p.x - x.x, q.p.y - x.y, q.p.z - x.z), lf = rb_cross(lever, q.f);
    vstore3(q.f, i, force); /* packed xyz: 12 bytes a particle, in index order */
    vstore3((float3)(lf.x + q.t.x, lf.y + q.t.y, lf.z + q.t.z), i, moment);
    if (q.wake) wake_body[q.b] = 1u;
}
