/* debris_break.c - breakable bodies in the debris layer (debris.h,
 * rb_debris_make_breakable; docs/debris.md, "Breakable bodies"): their
 * pieces given to the world, which measures the pieces' loads in the step,
 * and the split at the tick after a piece passes its hold. The list of
 * breakable bodies it keeps is the table's (debris_table.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "debris_internal.h"

/* Makes body id breakable with pieces p of its particles at offsets (both
 * taken over: freed here on failure), made by pattern desc. */
static bool add_breakable(rb_debris *d, rb_body_id id, rb_pieces *p, float *offsets, float r, float m,
                          const rb_fracture_desc *desc) {
    rb_piece_desc *descs = malloc(sizeof *descs * p->piece_count);
    bool ok = descs != NULL;
    for (uint32_t k = 0; ok && k < p->piece_count; k++)
        descs[k] =
            (rb_piece_desc){{p->centre[3 * k], p->centre[3 * k + 1], p->centre[3 * k + 2]}, p->mass[k], p->holds[k]};
    ok = ok && rb_world_set_pieces(d->world, id, p->piece_count, p->piece_of, descs);
    free(descs);
    if (ok && d->breakable_count == d->breakable_capacity) {
        const uint32_t cap = d->breakable_capacity ? 2u * d->breakable_capacity : 16u;
        breakable *b = realloc(d->breakables, sizeof *b * cap);
        if (b) d->breakables = b, d->breakable_capacity = cap;
        ok = b != NULL;
    }
    if (!ok) {
        rb_pieces_free(p);
        free(offsets);
        return false;
    }
    d->breakables[d->breakable_count++] = (breakable){id, *p, offsets, r, m, *desc};
    return true;
}

bool rb_debris_make_breakable(rb_debris *d, rb_body_id id, const rb_fracture_desc *desc, char *err, size_t err_size) {
    rb_body_state s;
    if (!rb_world_get_body_by_id(d->world, id, &s) || s.kind != RB_BODY_DYNAMIC) {
        snprintf(err, err_size, "breakable: not a dynamic body");
        return false;
    }
    float mass = 0.0f;
    const uint32_t n = rb_world_shape_particles(d->world, s.shape, NULL, 0, &mass);
    float *offsets = malloc(sizeof *offsets * 3 * (n ? n : 1));
    if (!offsets) {
        snprintf(err, err_size, "breakable: out of memory");
        return false;
    }
    rb_world_shape_particles(d->world, s.shape, offsets, n, NULL);
    const float r = rb_world_shape_radius(d->world, s.shape), m = mass / (float)n;
    const uint32_t *given = NULL; /* the plugin's pieces, by the shape's row */
    if (desc->kind == RB_FRACTURE_GIVEN) {
        const int row = rb_entities_of_world_shape(d->entities, s.shape);
        given = row >= 0 ? rb_entities_get(d->entities, (uint32_t)row)->shape->pieces : NULL;
        if (!given) {
            snprintf(err, err_size, "breakable: pattern 'plugin', but the body's shape gives no pieces");
            free(offsets);
            return false;
        }
    }
    rb_pieces p;
    if (!rb_pieces_make(offsets, n, r, m, desc, given, &p, err, err_size)) {
        free(offsets);
        return false;
    }
    if (p.piece_count < 2) { /* one piece: nothing to break */
        rb_pieces_free(&p);
        free(offsets);
        return true;
    }
    if (!add_breakable(d, id, &p, offsets, r, m, desc)) {
        snprintf(err, err_size, "breakable: the world refused the pieces (logged)");
        return false;
    }
    return true;
}

/* Where an impact pattern's body was hit, in its shape frame: the centre
 * of its piece with the largest load over hold (the first of equals), the
 * one that broke it. The loads are those the world latched in the step. */
static void hit_point(const rb_pieces *p, const float *loads, float hit[3]) {
    uint32_t most = 0;
    for (uint32_t k = 1; k < p->piece_count; k++)
        if (loads[k] > loads[most]) most = k;
    memcpy(hit, &p->centre[3 * most], sizeof *hit * 3);
}

/* Splits a broken body into its groups of pieces (rb_debris_make_breakable).
 * An impact pattern's body comes apart into every piece of its pattern
 * drawn again about the hit. */
static bool split(rb_debris *d, rb_body_id id) {
    const breakable *found = rb_debris_find_breakable(d, id);
    rb_body_state s;
    if (!found || !rb_world_get_body_by_id(d->world, id, &s)) return true;
    /* a copy: add_breakable below may move the table (the arrays it points to stay) */
    const breakable b = *found;
    const uint32_t np = b.pieces.piece_count;
    float *loads = malloc(sizeof *loads * np);
    bool *broken = NULL;
    rb_split_child *children = NULL;
    rb_pieces again = {0};
    const rb_pieces *pieces = &b.pieces;
    uint32_t count = 0;
    char err[256];
    if (loads && rb_world_piece_loads(d->world, id, loads, np) == np) {
        if (b.desc.impact) {
            float hit[3];
            hit_point(&b.pieces, loads, hit);
            if (rb_pieces_make_at(b.offsets, b.pieces.particle_count, b.r, b.m, &b.desc, hit, &again, err, sizeof err))
                pieces = &again;
            else
                rb_log(RB_LOG_ERROR, "debris: an impact pattern could not be drawn: %s", err);
        }
        broken = malloc(sizeof *broken * pieces->piece_count);
        for (uint32_t k = 0; broken && k < pieces->piece_count; k++) broken[k] = pieces == &again || loads[k] > 1.0f;
        if (broken) count = rb_split(pieces, b.offsets, b.r, b.m, broken, &s, &children, err, sizeof err);
        if (broken && count == 0) rb_log(RB_LOG_ERROR, "debris: a break could not be split: %s", err);
    }
    free(loads), free(broken);
    if (count < 2) { /* one group left: it holds together */
        rb_pieces_free(&again);
        return true;
    }
    /* the parent's place in the debris table by index: add_tracked below may move the table */
    const tracked *parent = rb_debris_find(d, id);
    const uint32_t at = parent ? (uint32_t)(parent - d->bodies) : UINT32_MAX;
    const double born = parent ? parent->born : rb_debris_now(d);
    const float lifetime = parent ? parent->lifetime : 0.0f;
    const int emitter = parent ? parent->emitter : -1;
    bool ok = true;
    for (uint32_t c = 0; c < count && ok; c++) {
        const rb_split_child *ch = &children[c];
        const rb_shape_data data = {
            ch->particle_count, ch->particles, ch->mass, {ch->inertia[0], ch->inertia[1], ch->inertia[2]}, b.r};
        const int shape = rb_world_add_shape(d->world, &data);
        if (shape < 0) continue; /* logged */
        rb_body_desc bd = {.shape = (uint32_t)shape, .kind = RB_BODY_DYNAMIC, .material = s.material};
        memcpy(bd.position, ch->position, sizeof bd.position);
        memcpy(bd.orientation, ch->orientation, sizeof bd.orientation);
        memcpy(bd.velocity, ch->velocity, sizeof bd.velocity);
        memcpy(bd.angular_velocity, ch->angular_velocity, sizeof bd.angular_velocity);
        const rb_body_id kid = rb_world_add_body(d->world, &bd);
        if (kid.generation == 0) continue;
        d->pieces_made++;
        /* a piece is debris: the body cap and sleep removal count it, with its parent's lifetime */
        ok = rb_debris_add_tracked(d, kid, lifetime, emitter);
        if (ok) d->bodies[d->count - 1].born = born;
        rb_pieces sub;
        if (ok && rb_pieces_restrict(pieces, ch, &sub, err, sizeof err)) {
            float *offsets = malloc(sizeof *offsets * 3 * ch->particle_count);
            if (sub.piece_count >= 2 && offsets) {
                memcpy(offsets, ch->particles, sizeof *offsets * 3 * ch->particle_count);
                add_breakable(d, kid, &sub, offsets, b.r, b.m, &b.desc);
            } else {
                rb_pieces_free(&sub);
                free(offsets);
            }
        }
    }
    rb_split_free(children, count);
    rb_pieces_free(&again);
    if (!ok) return false;
    d->breaks++;
    /* the parent goes: out of the world, the debris table and the breakables */
    if (at != UINT32_MAX) {
        d->bodies[at].lifetime = -1.0f; /* swept with its counts */
        d->removed--;                   /* a break is not a removal */
        return rb_debris_sweep(d);
    }
    rb_world_remove_body(d->world, id);
    rb_debris_forget_breakable(d, id);
    return true;
}

/* The bodies the world found broken since the last tick, split. */
bool rb_debris_break_bodies(rb_debris *d) {
    if (d->breakable_count == 0) return true;
    rb_body_id ids[64];
    for (uint32_t n; (n = rb_world_take_breaks(d->world, ids, 64)) > 0;) {
        for (uint32_t k = 0; k < n; k++)
            if (!split(d, ids[k])) return false;
        if (n < 64) break;
    }
    return true;
}
