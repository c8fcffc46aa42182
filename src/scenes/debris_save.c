/* debris_save.c - the debris layer written with a saved scene, and taken
 * back when the scene is built again (docs/scene-format.md, "debris_state";
 * docs/debris.md, "Saving"): its effects as the scene keys `emitters`,
 * `fields` and `debris` a person would write, and its run-time state as
 * `debris_state`, so that the reloaded layer goes on bit for bit as the one
 * saved. Bodies are named by their index in the world's body order, the
 * order the scene writer writes them in (src/scenes/scene_save.c). The state is
 * read by debris_state_read.c into a layer of no world, which
 * rb_debris_restore hands over to a new one. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "debris_internal.h"
#include "debris_whole.h"

#define DEGREES (3.14159265358979323846 / 180.0)

static void put_float(FILE *f, float x) {
    char text[32];
    fputs(rb_float_decimal(x, text), f);
}

static void put_floats(FILE *f, const float *v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        put_float(f, v[i]);
    }
    fputc(']', f);
}

/* "key": value, with a leading ", " unless first */
static void put_key_float(FILE *f, const char *key, float x) {
    fprintf(f, ", \"%s\": ", key);
    put_float(f, x);
}

static void put_key_floats(FILE *f, const char *key, const float *v, int n) {
    fprintf(f, ", \"%s\": ", key);
    put_floats(f, v, n);
}

/* A double as the 17 digits that read back as the same double. */
static void put_double(FILE *f, double x) { fprintf(f, "%.17g", x); }

/* ---- the effects, as the scene keys a person writes ---- */

static void put_colors(FILE *f, const rb_color_spec *c) {
    if (c->has_color) put_key_floats(f, "color", c->color, 3);
    if (c->has_inside) put_key_floats(f, "inside_color", c->inside, 3);
}

static void write_emitter(FILE *f, const rb_emitter *e) {
    const rb_region *g = &e->region;
    fputs("{\"region\": ", f);
    if (g->kind == RB_REGION_POINT) {
        fputs("{\"point\": ", f);
        put_floats(f, g->centre, 3);
        fputs("}", f);
    } else {
        fprintf(f, "{\"%s\": {\"centre\": ", g->kind == RB_REGION_BOX ? "box" : "disc");
        put_floats(f, g->centre, 3);
        if (g->kind == RB_REGION_BOX)
            put_key_floats(f, "half", g->half, 3);
        else
            put_key_float(f, "radius", g->radius);
        fputs("}}", f);
    }
    put_key_float(f, "rate", e->rate);
    if (e->max_alive) fprintf(f, ", \"max_alive\": %" PRIu32, e->max_alive);
    fputs(", \"shapes\": [", f);
    for (uint32_t c = 0; c < e->choice_count; c++) {
        fprintf(f, "%s{\"shape\": \"%s\"", c ? ", " : "", e->choices[c].shape);
        put_key_float(f, "scale", e->choices[c].scale);
        put_key_float(f, "weight", e->choices[c].weight);
        fputs("}", f);
    }
    fputs("]", f);
    put_key_floats(f, "direction", e->direction, 3);
    put_key_float(f, "speed", e->speed);
    put_key_float(f, "speed_spread", e->speed_spread);
    /* in degrees, as a person gives it; the exact angle is in debris_state
     * (pi as a float is a hair over 180 degrees, which the reader refuses) */
    fprintf(f, ", \"cone\": %.9g", fmin((double)e->cone / DEGREES, 180.0));
    put_key_float(f, "spin", e->spin);
    put_key_float(f, "lifetime", e->lifetime);
    put_key_float(f, "start", e->start);
    put_key_float(f, "duration", e->duration);
    /* the reader takes seeds a double holds exactly; debris_state has every seed */
    if (e->seed <= (1ull << 53)) fprintf(f, ", \"seed\": %" PRIu64, e->seed);
    put_colors(f, &e->colors);
    fputs("}", f);
}

static void write_field(FILE *f, const rb_field *x) {
    static const char *const kinds[] = {"radial", "wind", "vortex"};
    fprintf(f, "{\"type\": \"%s\"", kinds[x->kind]);
    put_key_floats(f, "centre", x->centre, 3);
    put_key_float(f, "radius", x->radius);
    put_key_float(f, "start", x->start);
    put_key_float(f, "duration", x->duration);
    switch (x->kind) {
    case RB_FIELD_RADIAL:
        put_key_float(f, "strength", x->strength);
        fprintf(f, ", \"impulse\": %s", x->impulse ? "true" : "false");
        put_key_float(f, "falloff", x->falloff);
        put_key_float(f, "up", x->up);
        break;
    case RB_FIELD_WIND:
        put_key_floats(f, "velocity", x->velocity, 3);
        put_key_float(f, "drag", x->drag);
        break;
    default:
        put_key_floats(f, "axis", x->axis, 3);
        put_key_float(f, "strength", x->strength);
        put_key_float(f, "drag", x->drag);
        break;
    }
    fputs("}", f);
}

static void write_effects(FILE *f, const rb_debris_desc *d) {
    if (d->emitter_count) {
        fputs("  \"emitters\": [", f);
        for (uint32_t k = 0; k < d->emitter_count; k++) {
            fputs(k ? ",\n    " : "\n    ", f);
            write_emitter(f, &d->emitters[k]);
        }
        fputs("\n  ],\n", f);
    }
    if (d->field_count) {
        fputs("  \"fields\": [", f);
        for (uint32_t k = 0; k < d->field_count; k++) {
            fputs(k ? ",\n    " : "\n    ", f);
            write_field(f, &d->fields[k]);
        }
        fputs("\n  ],\n", f);
    }
    fprintf(f, "  \"debris\": {\"max_bodies\": %" PRIu32, d->max_bodies);
    put_key_float(f, "remove_asleep", d->remove_asleep);
    fputs(", \"kill_regions\": [", f);
    for (uint32_t k = 0; k < d->kill_count; k++) {
        fputs(k ? ", {\"min\": " : "{\"min\": ", f);
        put_floats(f, d->kill[k].min, 3);
        put_key_floats(f, "max", d->kill[k].max, 3);
        fputs("}", f);
    }
    fputs("]", f);
    const rb_impact_debris *im = &d->impact;
    if (im->count) {
        fprintf(f, ", \"impact\": {\"shape\": \"%s\"", im->shape);
        put_key_float(f, "scale", im->scale);
        put_key_float(f, "threshold", im->threshold);
        fprintf(f, ", \"count\": %" PRIu32, im->count);
        put_key_float(f, "speed", im->speed);
        put_key_float(f, "lifetime", im->lifetime);
        fputs("}", f);
    }
    fputs("},\n", f);
}

/* ---- the run-time state ---- */

/* Each body slot's index in the world's body order, plus 1 (0: no body),
 * for the slots below *size. NULL if out of memory. */
static uint32_t *index_by_slot(rb_world *w, uint32_t *size) {
    const uint32_t n = rb_world_body_count(w);
    uint32_t top = 1;
    for (uint32_t b = 0; b < n; b++)
        if (rb_world_body_id(w, b).slot + 1u > top) top = rb_world_body_id(w, b).slot + 1u;
    uint32_t *at = calloc(top, sizeof *at);
    if (!at) return NULL;
    for (uint32_t b = 0; b < n; b++) at[rb_world_body_id(w, b).slot] = b + 1u;
    *size = top;
    return at;
}

/* Body id's index in the world's body order; UINT32_MAX if it is gone. */
static uint32_t index_of(rb_world *w, const uint32_t *at, uint32_t size, rb_body_id id) {
    if (id.slot >= size || at[id.slot] == 0) return UINT32_MAX;
    const uint32_t b = at[id.slot] - 1u;
    return rb_body_same(rb_world_body_id(w, b), id) ? b : UINT32_MAX;
}

static bool finite_all(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static void write_emitter_state(FILE *f, const rb_debris *d, uint32_t k, const uint32_t *alive) {
    const rb_emitter *e = &d->desc.emitters[k];
    fputs(k ? ",\n    {" : "\n    {", f);
    fputs("\"direction\": ", f);
    put_floats(f, e->direction, 3);
    put_key_float(f, "cone", e->cone);
    fprintf(f, ", \"seed\": \"%" PRIu64 "\", \"rng\": \"%" PRIu64 "\", \"owed\": ", e->seed, d->rng[k]);
    put_double(f, d->owed[k]);
    fprintf(f, ", \"alive\": %" PRIu32 ", \"recent_next\": %" PRIu32 ", \"recent\": [", alive[k], d->recent_next[k]);
    const uint32_t used = d->recent_next[k] < RB_RECENT ? d->recent_next[k] : RB_RECENT;
    for (uint32_t j = 0; j < used; j++) {
        const recent *r = &d->recent[k][j];
        fputs(j ? ", [" : "[", f);
        for (int c = 0; c < 3; c++) put_float(f, r->position[c]), fputs(", ", f);
        for (int c = 0; c < 3; c++) put_float(f, r->velocity[c]), fputs(", ", f);
        put_double(f, r->born);
        fputs(", ", f);
        put_float(f, r->radius);
        fputs("]", f);
    }
    fputs("]}", f);
}

/* The debris bodies still in the world, oldest first: [body, born,
 * lifetime, emitter, asleep_since] (one the sandbox deleted since the last
 * tick is left out: that tick drops it uncounted). False on a value that
 * is not finite. */
static bool write_bodies(FILE *f, const rb_debris *d, const uint32_t *at, uint32_t size) {
    fputs(",\n   \"bodies\": [", f);
    bool first = true;
    for (uint32_t k = 0; k < d->count; k++) {
        const tracked *t = &d->bodies[k];
        const uint32_t b = index_of(d->world, at, size, t->id);
        if (b == UINT32_MAX) continue;
        if (!isfinite(t->born) || !isfinite(t->lifetime) || !isfinite(t->asleep_since)) return false;
        fprintf(f, "%s[%" PRIu32 ", ", first ? "\n    " : ",\n    ", b);
        put_double(f, t->born);
        fputs(", ", f);
        put_float(f, t->lifetime);
        fprintf(f, ", %d, ", t->emitter);
        put_double(f, t->asleep_since);
        fputs("]", f);
        first = false;
    }
    fputs(first ? "]" : "\n   ]", f);
    return true;
}

/* The loads held through the current tick: [body, fx, fy, fz, tx, ty, tz]. */
static bool write_held(FILE *f, const rb_debris *d, const uint32_t *at, uint32_t size) {
    fputs(",\n   \"held\": [", f);
    bool first = true;
    for (uint32_t k = 0; k < d->held_count; k++) {
        const held_force *h = &d->held[k];
        const uint32_t b = index_of(d->world, at, size, h->id);
        if (b == UINT32_MAX) continue; /* gone: its load is given no more */
        if (!finite_all(h->force, 3) || !finite_all(h->torque, 3)) return false;
        fprintf(f, "%s[%" PRIu32, first ? "" : ", ", b);
        for (int c = 0; c < 3; c++) fputs(", ", f), put_float(f, h->force[c]);
        for (int c = 0; c < 3; c++) fputs(", ", f), put_float(f, h->torque[c]);
        fputs("]", f);
        first = false;
    }
    fputs("]", f);
    return true;
}

/* What impact debris remembers of the bodies in the world: [body,
 * velocity xyz, impulse xyz, pushed xyz, pushing xyz, seen]. */
static bool write_memory(FILE *f, const rb_debris *d) {
    fputs(",\n   \"impact\": [", f);
    bool first = true;
    const uint32_t n = rb_world_body_count(d->world);
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_id id = rb_world_body_id(d->world, b);
        if (id.slot >= d->memory_size || d->memory[id.slot].generation != id.generation) continue;
        const impact_memory *m = &d->memory[id.slot];
        if (!finite_all(m->velocity, 3) || !finite_all(m->impulse, 3) || !finite_all(m->pushed, 3) ||
            !finite_all(m->pushing, 3))
            return false;
        fprintf(f, "%s[%" PRIu32, first ? "\n    " : ",\n    ", b);
        const float *parts[4] = {m->velocity, m->impulse, m->pushed, m->pushing};
        for (int p = 0; p < 4; p++)
            for (int c = 0; c < 3; c++) fputs(", ", f), put_float(f, parts[p][c]);
        fprintf(f, ", %" PRIu32 "]", m->seen);
        first = false;
    }
    fputs(first ? "]" : "\n   ]", f);
    return true;
}

/* A fracture pattern (fracture.h, rb_fracture_desc), every field exact. */
static void put_fracture(FILE *f, const rb_fracture_desc *x) {
    fprintf(f, "{\"kind\": %d, \"pieces\": %" PRIu32 ", \"seed\": \"%" PRIu64 "\"", (int)x->kind, x->pieces, x->seed);
    put_key_float(f, "strength", x->strength);
    put_key_floats(f, "normal", x->normal, 3);
    put_key_floats(f, "centre", x->centre, 3);
    fprintf(f, ", \"centre_given\": %s, \"wedges\": %" PRIu32 ", \"rings\": %" PRIu32 ", \"impact\": %s",
            x->centre_given ? "true" : "false", x->wedges, x->rings, x->impact ? "true" : "false");
    put_key_float(f, "focus", x->focus);
    put_key_float(f, "bond_reach", x->bond_reach);
    fputs("}", f);
}

/* The breakable bodies, in the list's order. [body, pattern] for one a
 * pattern makes again from its own shape (rb_debris_make_breakable, as
 * the scene made it): not anchored, of a shape of the registry. [body,
 * pattern, whole] for any other (a broken body's child that can break
 * again, an anchored breakable, a glued assembly, a glued part freed
 * alone): its pieces, particles and meshes (debris_whole.c). Then the
 * glued parts' own patterns (rb_debris.inner). The world's piece loads are
 * the scene writer's (the bodies' `pieces`). False on a value that is not
 * finite. */
static bool write_breakables(FILE *f, const rb_debris *d, const uint32_t *at, uint32_t size, char *err,
                             size_t err_size) {
    fputs(",\n   \"breakables\": [", f);
    bool first = true;
    for (uint32_t k = 0; k < d->breakable_count; k++) {
        const breakable *b = &d->breakables[k];
        const uint32_t body = index_of(d->world, at, size, b->id);
        rb_body_state s;
        if (body == UINT32_MAX || !rb_world_get_body_by_id(d->world, b->id, &s)) continue;
        fprintf(f, "%s[%" PRIu32 ", ", first ? "\n    " : ",\n    ", body);
        put_fracture(f, &b->desc);
        if (b->anchored || rb_entities_of_world_shape(d->entities, s.shape) < 0) {
            fputs(",\n     ", f);
            if (!rb_debris_put_whole(f, b))
                return snprintf(err, err_size, "breakable body %u has a piece, particle or mesh value that is not finite",
                                body), false;
        }
        fputs("]", f);
        first = false;
    }
    fputs(first ? "]" : "\n   ]", f);
    fputs(",\n   \"inner\": [", f);
    for (uint32_t k = 0; k < d->inner_count; k++) {
        fputs(k ? ", " : "", f);
        put_fracture(f, &d->inner[k]);
    }
    fputs("]", f);
    return true;
}

bool rb_debris_write_state(FILE *f, const rb_debris *d, char *err, size_t err_size) {
    for (uint32_t k = 0; k < d->desc.emitter_count; k++)
        if (!isfinite(d->owed[k])) return snprintf(err, err_size, "emitter %u owes a spawn count that is not finite", k), false;
    write_effects(f, &d->desc);
    uint32_t size = 0;
    uint32_t *at = index_by_slot(d->world, &size);
    if (!at) return snprintf(err, err_size, "out of memory for the debris state"), false;
    /* each emitter's bodies alive, as write_bodies writes them */
    uint32_t alive[RB_DEBRIS_MAX_EMITTERS] = {0};
    for (uint32_t k = 0; k < d->count; k++)
        if (d->bodies[k].emitter >= 0 && index_of(d->world, at, size, d->bodies[k].id) != UINT32_MAX)
            alive[d->bodies[k].emitter]++;
    fprintf(f,
            "  \"debris_state\": {\"steps\": \"%" PRIu64 "\", \"ticked_step\": \"%" PRIu64 "\", \"tick_steps\": %" PRIu32
            ",\n   \"spawned\": \"%" PRIu64 "\", \"removed\": \"%" PRIu64 "\", \"crowded\": \"%" PRIu64
            "\", \"breaks\": \"%" PRIu64 "\", \"pieces_made\": \"%" PRIu64 "\", \"impacts\": \"%" PRIu64
            "\", \"chips_short\": \"%" PRIu64 "\", \"rng_impact\": \"%" PRIu64 "\",\n   \"emitters\": [",
            d->steps, d->ticked_step, d->tick_steps, d->spawned, d->removed, d->crowded, d->breaks, d->pieces_made,
            d->impacts, d->chips_short, d->rng_impact);
    for (uint32_t k = 0; k < d->desc.emitter_count; k++) write_emitter_state(f, d, k, alive);
    fputs(d->desc.emitter_count ? "\n   ],\n   \"fields\": [" : "],\n   \"fields\": [", f);
    for (uint32_t k = 0; k < d->desc.field_count; k++) {
        fprintf(f, "%s{\"fired\": %s, \"axis\": ", k ? ", " : "", d->fired[k] ? "true" : "false");
        put_floats(f, d->desc.fields[k].axis, 3);
        fputs("}", f);
    }
    fputs("]", f);
    bool ok = write_bodies(f, d, at, size) && write_held(f, d, at, size) && write_memory(f, d);
    if (!ok) snprintf(err, err_size, "a debris body's time, load or impact memory is not finite");
    ok = ok && write_breakables(f, d, at, size, err, err_size);
    free(at);
    if (!ok) return false;
    fputs("},\n", f);
    return true;
}

/* ---- taken back ---- */

rb_debris *rb_debris_restore(const rb_debris_desc *desc, const rb_debris *saved, rb_entities *entities,
                             const rb_body_id *ids, uint32_t id_count, char *err, size_t err_size) {
    rb_debris *d = rb_debris_create(desc, entities, err, err_size);
    if (!d) return NULL;
    if (saved->tick_steps != d->tick_steps) {
        snprintf(err, err_size, "debris_state.tick_steps: %u, but the world's step makes a tick %u steps",
                 saved->tick_steps, d->tick_steps);
        rb_debris_destroy(d);
        return NULL;
    }
    /* every body index the reader checked against the scene's bodies; here
     * against the world's (a body the world did not take) */
    for (uint32_t k = 0; k < saved->count; k++)
        if (saved->bodies[k].id.slot >= id_count || ids[saved->bodies[k].id.slot].generation == 0) {
            snprintf(err, err_size, "debris_state.bodies[%u]: body %u is not in the world", k,
                     saved->bodies[k].id.slot);
            rb_debris_destroy(d);
            return NULL;
        }
    memcpy(d->rng, saved->rng, sizeof d->rng);
    memcpy(d->owed, saved->owed, sizeof d->owed);
    memcpy(d->recent, saved->recent, sizeof d->recent);
    memcpy(d->recent_next, saved->recent_next, sizeof d->recent_next);
    memcpy(d->fired, saved->fired, sizeof d->fired);
    d->crowded = saved->crowded;
    d->steps = saved->steps, d->ticked_step = saved->ticked_step;
    d->spawned = saved->spawned, d->removed = saved->removed;
    d->breaks = saved->breaks, d->pieces_made = saved->pieces_made;
    d->impacts = saved->impacts, d->chips_short = saved->chips_short, d->rng_impact = saved->rng_impact;
    bool ok = true;
    for (uint32_t k = 0; ok && k < saved->count; k++) {
        const tracked *t = &saved->bodies[k];
        ok = rb_debris_add_tracked(d, ids[t->id.slot], t->lifetime, t->emitter);
        if (ok) d->bodies[d->count - 1].born = t->born, d->bodies[d->count - 1].asleep_since = t->asleep_since;
    }
    if (ok && saved->held_count) {
        ok = (d->held = malloc(sizeof *d->held * saved->held_count)) != NULL;
        for (uint32_t k = 0; ok && k < saved->held_count; k++) {
            d->held[k] = saved->held[k];
            d->held[k].id = saved->held[k].id.slot < id_count ? ids[saved->held[k].id.slot] : (rb_body_id){0};
        }
        if (ok) d->held_count = d->held_capacity = saved->held_count;
    }
    /* impact memory: the reader's by body index (generation 1: there is
     * one), the layer's by slot */
    uint32_t top = 0;
    for (uint32_t b = 0; b < saved->memory_size && b < id_count; b++)
        if (saved->memory[b].generation && ids[b].slot + 1u > top) top = ids[b].slot + 1u;
    if (ok && top) {
        ok = (d->memory = calloc(top, sizeof *d->memory)) != NULL;
        if (ok) d->memory_size = top;
        for (uint32_t b = 0; ok && b < saved->memory_size && b < id_count; b++) {
            if (!saved->memory[b].generation || ids[b].generation == 0) continue;
            d->memory[ids[b].slot] = saved->memory[b];
            d->memory[ids[b].slot].generation = ids[b].generation;
        }
    }
    if (!ok) {
        snprintf(err, err_size, "debris_state: out of memory");
        rb_debris_destroy(d);
        return NULL;
    }
    /* the glued parts' own patterns, which the breakables' inner name */
    if (saved->inner_count) {
        if (!(d->inner = malloc(sizeof *d->inner * saved->inner_count))) {
            snprintf(err, err_size, "debris_state: out of memory");
            rb_debris_destroy(d);
            return NULL;
        }
        memcpy(d->inner, saved->inner, sizeof *d->inner * saved->inner_count);
        d->inner_count = saved->inner_count;
    }
    /* the breakable bodies made again, by their patterns as the scene made
     * them or as saved whole (the reader's have offsets); the world's piece
     * loads, which the scene's bodies' `pieces` gave it, kept across
     * (making them starts them at 0) */
    for (uint32_t k = 0; k < saved->breakable_count; k++) {
        const breakable *b = &saved->breakables[k];
        char why[256] = "out of memory";
        const bool there = b->id.slot < id_count && ids[b->id.slot].generation != 0;
        const uint32_t n = there ? rb_world_piece_loads(d->world, ids[b->id.slot], NULL, 0) : 0;
        float *loads = n ? malloc(sizeof *loads * n) : NULL;
        bool taken = false;
        if (loads) {
            rb_world_piece_loads(d->world, ids[b->id.slot], loads, n);
            rb_world_get_pieces(d->world, ids[b->id.slot], NULL, 0, &taken);
        }
        bool made = there && (!n || loads) &&
                    (b->offsets ? rb_debris_add_whole(d, ids[b->id.slot], b, why, sizeof why)
                                : rb_debris_make_breakable(d, ids[b->id.slot], &b->desc, why, sizeof why));
        if (made && loads) {
            made = rb_world_restore_piece_loads(d->world, ids[b->id.slot], loads, n, taken);
            if (!made) snprintf(why, sizeof why, "its saved piece loads do not fit its %u pieces", n);
        }
        free(loads);
        if (!made) {
            snprintf(err, err_size, "debris_state.breakables[%u]: %s", k,
                     there ? why : "its body is not in the world");
            rb_debris_destroy(d);
            return NULL;
        }
    }
    return d;
}
