/* world_pieces.c - breakable bodies (world.h; docs/debris.md): each body's
 * pieces, what holds them, the loads the backend finds on them, and the
 * bodies whose pieces broke, handed out once. The removal of a body's
 * pieces with the body is world.c's (remove_pieces). */
#include <math.h>
#include <string.h>

#include "base/log.h"
#include "world_host.h"

/* Room for need pieces in the piece arrays (kept, grown as world.c grows its own). */
static bool reserve_pieces(rb_world *w, uint32_t need) {
    rb_world_data *d = &w->d;
    uint32_t cap = d->piece_capacity;
    if (need <= cap) return true;
    uint32_t c1 = cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap;
    if (!rb_world_grow((void **)&d->piece_info, sizeof(rb_float4), &c1, need)) return false;
    if (!rb_world_grow((void **)&d->piece_holds, sizeof(float), &c2, need)) return false;
    if (!rb_world_grow((void **)&d->piece_span, 2 * sizeof(uint32_t), &c3, need)) return false;
    if (!rb_world_grow((void **)&d->piece_load, sizeof(float), &c4, need)) return false;
    if (!rb_world_grow((void **)&d->piece_taken, 1, &c5, need)) return false;
    d->piece_capacity = c1;
    return true;
}

bool rb_world_set_pieces(rb_world *w, rb_body_id id, uint32_t piece_count, const uint32_t *piece_of,
                         const rb_piece_desc *pieces) {
    uint32_t b;
    if (!rb_body_index(w, id, &b) || !rb_host_current(w)) return false;
    rb_world_data *d = &w->d;
    const uint32_t first = d->body_first_particle[b], n = d->body_first_particle[b + 1] - first;
    if (d->body_kind[b] != RB_BODY_DYNAMIC || piece_count < 2 || piece_count > n) {
        rb_log(RB_LOG_ERROR, "world: pieces for a body that is not dynamic, or not 2 to %u of them", n);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        if (piece_of[i] >= piece_count) {
            rb_log(RB_LOG_ERROR, "world: particle %u's piece %u is not below the piece count %u", i, piece_of[i],
                   piece_count);
            return false;
        }
    for (uint32_t p = 0; p < piece_count; p++)
        if (!rb_all_finite(pieces[p].centre, 3) || !(pieces[p].mass > 0.0f) || !isfinite(pieces[p].mass) ||
            !(pieces[p].holds >= 0.0f) || !isfinite(pieces[p].holds)) {
            rb_log(RB_LOG_ERROR, "world: piece %u has a non-finite, zero or negative value", p);
            return false;
        }
    const uint32_t old = d->body_first_piece[b + 1] - d->body_first_piece[b];
    if (!reserve_pieces(w, d->piece_count - old + piece_count)) {
        rb_log(RB_LOG_ERROR, "world: out of memory for %u pieces", piece_count);
        return false;
    }
    /* room for the new pieces where the old were, later bodies' moved along */
    const uint32_t pf = d->body_first_piece[b], later = d->piece_count - pf - old;
    const uint32_t to = pf + piece_count, from = pf + old;
    if (later) {
        memmove(&d->piece_info[to], &d->piece_info[from], later * sizeof *d->piece_info);
        memmove(&d->piece_holds[to], &d->piece_holds[from], later * sizeof *d->piece_holds);
        memmove(&d->piece_span[2 * to], &d->piece_span[2 * from], later * 2 * sizeof *d->piece_span);
        memmove(&d->piece_load[to], &d->piece_load[from], later * sizeof *d->piece_load);
        memmove(&d->piece_taken[to], &d->piece_taken[from], later);
    }
    for (uint32_t k = b + 1; k <= d->body_count; k++)
        d->body_first_piece[k] = d->body_first_piece[k] - old + piece_count;
    d->piece_count = d->piece_count - old + piece_count;
    /* members grouped by piece (a counting sort), each piece's span in the body's range */
    uint32_t at = first;
    for (uint32_t p = 0; p < piece_count; p++) {
        const uint32_t start = at;
        for (uint32_t i = 0; i < n; i++)
            if (piece_of[i] == p) d->particle_member[at++] = i;
        const rb_piece_desc *pd = &pieces[p];
        d->piece_info[pf + p] = (rb_float4){pd->centre[0], pd->centre[1], pd->centre[2], pd->mass};
        d->piece_holds[pf + p] = pd->holds;
        d->piece_span[2 * (pf + p)] = start, d->piece_span[2 * (pf + p) + 1] = at - start;
        d->piece_load[pf + p] = 0.0f;
        d->piece_taken[pf + p] = 0;
    }
    w->host_dirty = true;
    return true;
}

uint32_t rb_world_piece_loads(rb_world *w, rb_body_id id, float *out, uint32_t max) {
    uint32_t b;
    if (!rb_body_index(w, id, &b) || !rb_host_current(w)) return 0;
    const uint32_t pf = w->d.body_first_piece[b], pc = w->d.body_first_piece[b + 1] - pf;
    for (uint32_t p = 0; p < pc && p < max; p++) out[p] = w->d.piece_load[pf + p];
    return pc;
}

uint32_t rb_world_get_pieces(const rb_world *w, rb_body_id id, rb_piece_desc *out, uint32_t max, bool *taken) {
    uint32_t b;
    if (taken) *taken = false;
    if (!rb_body_index(w, id, &b)) return 0;
    const rb_world_data *d = &w->d;
    const uint32_t pf = d->body_first_piece[b], pc = d->body_first_piece[b + 1] - pf;
    for (uint32_t p = 0; p < pc && p < max; p++) {
        const rb_float4 c = d->piece_info[pf + p];
        out[p] = (rb_piece_desc){{c.x, c.y, c.z}, c.w, d->piece_holds[pf + p]};
    }
    if (taken && pc) *taken = d->piece_taken[pf] != 0;
    return pc;
}

bool rb_world_restore_piece_loads(rb_world *w, rb_body_id id, const float *loads, uint32_t count, bool taken) {
    uint32_t b;
    if (!rb_body_index(w, id, &b) || !rb_host_current(w)) return false;
    rb_world_data *d = &w->d;
    const uint32_t pf = d->body_first_piece[b], pc = d->body_first_piece[b + 1] - pf;
    if (pc == 0 || count != pc) {
        rb_log(RB_LOG_ERROR, "world: %u piece loads for a body of %u pieces", count, pc);
        return false;
    }
    for (uint32_t p = 0; p < pc; p++)
        if (!(loads[p] >= 0.0f)) { /* +inf is a load on a piece that holds nothing */
            rb_log(RB_LOG_ERROR, "world: piece %u's load %g is not a number >= 0", p, loads[p]);
            return false;
        }
    for (uint32_t p = 0; p < pc; p++) {
        d->piece_load[pf + p] = loads[p];
        d->piece_taken[pf + p] = taken;
        /* a piece past its hold whose break was not taken yet: the next rb_world_take_breaks looks */
        if (!taken && loads[p] > 1.0f) w->breaks_left = true;
    }
    w->host_dirty = true;
    return true;
}

uint32_t rb_world_particle_pieces(const rb_world *w, rb_body_id id, uint32_t *piece_of, uint32_t max) {
    uint32_t b;
    if (!rb_body_index(w, id, &b)) return 0;
    const rb_world_data *d = &w->d;
    const uint32_t pf = d->body_first_piece[b], pc = d->body_first_piece[b + 1] - pf;
    /* each piece's members are local indices, listed at its span */
    for (uint32_t p = 0; p < pc; p++) {
        const uint32_t start = d->piece_span[2 * (pf + p)], members = d->piece_span[2 * (pf + p) + 1];
        for (uint32_t k = start; k < start + members; k++)
            if (d->particle_member[k] < max) piece_of[d->particle_member[k]] = p;
    }
    return pc;
}

uint32_t rb_world_take_breaks(rb_world *w, rb_body_id *out, uint32_t max) {
    if (!w->d.piece_count) return 0;
    if (!w->breaks_left && !w->backend->vtbl->take_break_count(w->backend)) return 0;
    if (!rb_host_current(w)) return 0;
    rb_world_data *d = &w->d;
    uint32_t found = 0;
    for (uint32_t b = 0; b < d->body_count; b++) {
        const uint32_t pf = d->body_first_piece[b], pl = d->body_first_piece[b + 1];
        bool broken = false;
        for (uint32_t p = pf; p < pl; p++) broken |= d->piece_load[p] > 1.0f && !d->piece_taken[p];
        if (!broken) continue;
        if (found == max) { /* the rest at the next call */
            w->breaks_left = true;
            return found;
        }
        for (uint32_t p = pf; p < pl; p++) d->piece_taken[p] = 1;
        out[found++] = rb_world_body_id(w, b);
    }
    w->breaks_left = false;
    return found;
}
