/* debris_table.c - which bodies the debris layer keeps: the table of debris
 * bodies (in order of birth, indexed by body slot) and the list of breakable
 * ones with their pieces. Every debris room uses it; it calls none of them. */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "debris_events.h"
#include "debris_internal.h"

/* ---- the table of debris bodies ---- */

static bool index_slots(rb_debris *d) {
    uint32_t top = 0;
    for (uint32_t k = 0; k < d->count; k++)
        if (d->bodies[k].id.slot + 1u > top) top = d->bodies[k].id.slot + 1u;
    if (top > d->where_size) {
        uint32_t *w = realloc(d->where, sizeof *w * top * 2u);
        if (!w) return false;
        d->where = w, d->where_size = top * 2u;
    }
    if (d->where_size) memset(d->where, 0, sizeof *d->where * d->where_size);
    for (uint32_t k = 0; k < d->count; k++) d->where[d->bodies[k].id.slot] = k + 1u;
    return true;
}

const tracked *rb_debris_find(const rb_debris *d, rb_body_id id) {
    if (id.slot >= d->where_size || d->where[id.slot] == 0) return NULL;
    const tracked *t = &d->bodies[d->where[id.slot] - 1u];
    return t->id.generation == id.generation ? t : NULL;
}

bool rb_debris_add_tracked(rb_debris *d, rb_body_id id, float lifetime, int emitter) {
    if (d->count == d->capacity) {
        const uint32_t cap = d->capacity ? 2u * d->capacity : 64u;
        tracked *b = realloc(d->bodies, sizeof *b * cap);
        if (!b) return false;
        d->bodies = b, d->capacity = cap;
    }
    d->bodies[d->count++] = (tracked){id, rb_debris_now(d), lifetime, emitter, -1.0, RB_CAUSE_NONE};
    if (emitter >= 0) d->alive_of[emitter]++;
    if (id.slot >= d->where_size) return index_slots(d);
    d->where[id.slot] = d->count;
    return true;
}

/* Removes the debris bodies marked (lifetime < 0) from the world and the
 * table, keeping the others in order of birth. */
bool rb_debris_room(rb_debris *d, uint32_t n) {
    const uint32_t cap = rb_world_max_bodies(d->world), bodies = rb_world_body_count(d->world);
    if (bodies <= cap && n <= cap - bodies) return true;
    if (!d->cap_said)
        rb_log(RB_LOG_WARN,
               "debris: the world holds its cap of %u bodies (world.max_bodies): spawns and breaks past it are "
               "skipped and counted",
               cap);
    d->cap_said = true;
    return false;
}

bool rb_debris_sweep(rb_debris *d) {
    uint32_t kept = 0;
    for (uint32_t k = 0; k < d->count; k++) {
        tracked *t = &d->bodies[k];
        if (t->lifetime >= 0.0f) {
            d->bodies[kept++] = *t;
            continue;
        }
        rb_body_state s;
        const bool told = d->events && t->why != RB_CAUSE_NONE && t->why != RB_CAUSE_BREAK &&
                          rb_world_get_body_by_id(d->world, t->id, &s);
        if (rb_world_remove_body(d->world, t->id)) {
            d->removed++;
            /* a broken body's going is its break's event */
            if (told && !rb_debris_note_body(d, RB_EVENT_REMOVE, t->id, s.position, t->why, -1, (rb_body_id){0}))
                return false;
        }
        rb_debris_forget_breakable(d, t->id);
        if (t->emitter >= 0) d->alive_of[t->emitter]--;
    }
    d->count = kept;
    return index_slots(d);
}

/* ---- the list of breakable bodies ---- */

static void free_breakable(breakable *b) {
    for (uint32_t k = 0; b->meshes && k < b->pieces.piece_count; k++) rb_mesh_free(&b->meshes[k]);
    free(b->meshes);
    rb_pieces_free(&b->pieces);
    free(b->offsets), free(b->anchored), free(b->inner);
}

/* Every entry's id is a live body's (its generation not 0), so
 * rb_body_same's test of the null id never decides. */
breakable *rb_debris_find_breakable(rb_debris *d, rb_body_id id) {
    for (uint32_t k = 0; k < d->breakable_count; k++)
        if (rb_body_same(d->breakables[k].id, id)) return &d->breakables[k];
    return NULL;
}

/* A body that went: its pieces with it. */
void rb_debris_forget_breakable(rb_debris *d, rb_body_id id) {
    breakable *b = rb_debris_find_breakable(d, id);
    if (!b) return;
    free_breakable(b);
    *b = d->breakables[--d->breakable_count];
}

void rb_debris_free_breakables(rb_debris *d) {
    for (uint32_t k = 0; k < d->breakable_count; k++) free_breakable(&d->breakables[k]);
    free(d->breakables);
    for (uint32_t k = 0; k < d->shape_mesh_size; k++) rb_mesh_free(&d->shape_meshes[k]);
    free(d->shape_meshes);
    free(d->shape_parents);
    free(d->inner), free(d->pending_colors);
}

bool rb_debris_keep_shape_parent(rb_debris *d, uint32_t shape, rb_body_id parent) {
    if (shape >= d->shape_parent_size) {
        uint32_t size = d->shape_parent_size ? d->shape_parent_size : 64;
        while (size <= shape && size <= UINT32_MAX / 2) size *= 2;
        if (size <= shape) return false;
        rb_body_id *grown = realloc(d->shape_parents, sizeof *grown * size);
        if (!grown) return false;
        memset(&grown[d->shape_parent_size], 0, sizeof *grown * (size - d->shape_parent_size));
        d->shape_parents = grown, d->shape_parent_size = size;
    }
    d->shape_parents[shape] = parent;
    return true;
}

bool rb_debris_piece_parent(const rb_debris *d, uint32_t world_shape, rb_body_id *parent) {
    *parent = (rb_body_id){0};
    if (!d || world_shape >= d->shape_parent_size || d->shape_parents[world_shape].generation == 0) return false;
    *parent = d->shape_parents[world_shape];
    return true;
}
