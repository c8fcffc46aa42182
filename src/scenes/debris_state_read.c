/* debris_state_read.c - a saved scene's `debris_state` key (written by
 * debris_save.c; docs/scene-format.md) read into a debris layer of no
 * world, its bodies indices into the scene's bodies, which rb_debris_restore
 * (debris_save.c) hands over to the layer the scene is built with. Every
 * value is checked and a bad one named by file and key; nothing is sized
 * by a number in the file but by what the file holds (its bodies, its
 * arrays' entries). The file is written by a program, not a person, so an
 * unknown key is refused, not ignored. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "debris_internal.h"
#include "debris_whole.h"
#include "scene_read_internal.h"

/* A u64 written as a decimal string (a JSON number, a double, holds 53 bits). */
static bool read_u64(rb_reader *r, const cJSON *o, const char *key, uint64_t *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    size_t n = s ? strlen(s) : 0;
    bool ok = n >= 1 && n <= 20;
    uint64_t x = 0;
    for (size_t i = 0; ok && i < n; i++) {
        ok = s[i] >= '0' && s[i] <= '9' && x <= (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10u;
        if (ok) x = x * 10u + (uint64_t)(s[i] - '0');
    }
    if (!ok) return rb_read_fail_at(r, key, "expected a whole number from 0 to 2^64 - 1 as a decimal string");
    *out = x;
    return true;
}

/* Entry k of array a: a finite number in [lo, hi] (whole if whole). */
static bool number_at(rb_reader *r, const cJSON *a, int k, double lo, double hi, bool whole, double *out) {
    const cJSON *v = cJSON_GetArrayItem(a, k);
    size_t len = rb_read_enter(r, NULL, k);
    char got[32], low[32], high[32]; /* the numbers as typed (base/decimal.h) */
    bool ok = cJSON_IsNumber(v) && isfinite(v->valuedouble);
    if (!ok)
        rb_read_fail(r, "expected a finite number");
    else if (v->valuedouble < lo || v->valuedouble > hi)
        ok = rb_read_fail(r, "%s is out of range [%s, %s]", rb_double_decimal(v->valuedouble, got),
                          rb_read_limit(lo, low), rb_read_limit(hi, high));
    else if (whole && v->valuedouble != floor(v->valuedouble))
        ok = rb_read_fail(r, "expected a whole number, got %s", rb_double_decimal(v->valuedouble, got));
    else
        *out = v->valuedouble;
    rb_read_leave(r, len);
    return ok;
}

/* n floats of array a from entry k on, each finite as a float. */
static bool floats_at(rb_reader *r, const cJSON *a, int k, int n, float *out) {
    for (int i = 0; i < n; i++) {
        double x = 0.0;
        if (!number_at(r, a, k + i, -3.4e38, 3.4e38, false, &x)) return false;
        out[i] = (float)x;
    }
    return true;
}

/* The array at key of o, every entry (when n > 0) an array of n entries. */
static const cJSON *array_at(rb_reader *r, const cJSON *o, const char *key, int n) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a)) return rb_read_fail_at(r, key, "expected an array"), NULL;
    size_t len = rb_read_enter(r, key, 0);
    int k = 0;
    for (const cJSON *e = a->child; n > 0 && e; e = e->next, k++)
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != n) {
            size_t at = rb_read_enter(r, NULL, k);
            rb_read_fail(r, "expected an array of %d entries", n);
            rb_read_leave(r, at);
            return NULL;
        }
    rb_read_leave(r, len);
    return a;
}

/* A body index of entry k of an array, below the scene's body count. */
static bool body_at(rb_reader *r, const rb_scene *s, const cJSON *a, uint32_t *out) {
    double b = 0.0;
    if (!number_at(r, a, 0, 0.0, 4294967295.0, true, &b)) return false;
    if (b >= s->body_count) {
        size_t len = rb_read_enter(r, NULL, 0);
        rb_read_fail(r, "body %.0f is past the scene's %u bodies", b, s->body_count);
        rb_read_leave(r, len);
        return false;
    }
    *out = (uint32_t)b;
    return true;
}

/* ---- emitters and fields ---- */

static bool read_emitter(rb_reader *r, const cJSON *o, rb_debris *d, uint32_t k, rb_emitter *e, uint32_t *alive) {
    static const char *const keys[] = {"direction", "cone",  "seed",        "rng",    "owed",
                                       "alive",     "recent_next", "recent", NULL};
    if (!rb_debris_exact_keys(r, o, keys) || !rb_read_vector(r, o, "direction", 3, e->direction) ||
        !rb_read_float(r, o, "cone", 0.0, 3.1415927410125732, &e->cone) || !read_u64(r, o, "seed", &e->seed) ||
        !read_u64(r, o, "rng", &d->rng[k]) || !rb_read_number(r, o, "owed", 0.0, 1e12, &d->owed[k]) ||
        !rb_read_count(r, o, "alive", 4294967295.0, alive, true) ||
        !rb_read_count(r, o, "recent_next", 4294967295.0, &d->recent_next[k], true))
        return false;
    /* xorshift stays at 0 for ever once there */
    if (d->rng[k] == 0) return rb_read_fail_at(r, "rng", "a generator's state is never 0");
    const float *v = e->direction;
    if (!(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 0.0f)) return rb_read_fail_at(r, "direction", "no direction");
    const cJSON *a = array_at(r, o, "recent", 8);
    if (!a) return false;
    const uint32_t used = d->recent_next[k] < RB_RECENT ? d->recent_next[k] : RB_RECENT;
    if ((uint32_t)cJSON_GetArraySize(a) != used)
        return rb_read_fail_at(r, "recent", "expected %u entries (recent_next %u), got %d", used, d->recent_next[k],
                               cJSON_GetArraySize(a));
    size_t len = rb_read_enter(r, "recent", 0);
    int j = 0;
    for (const cJSON *x = a->child; x; x = x->next, j++) {
        recent *p = &d->recent[k][j];
        size_t at = rb_read_enter(r, NULL, j);
        double born = 0.0;
        if (!floats_at(r, x, 0, 3, p->position) || !floats_at(r, x, 3, 3, p->velocity) ||
            !number_at(r, x, 6, -1e300, 1e300, false, &born) || !floats_at(r, x, 7, 1, &p->radius))
            return false;
        p->born = born;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

static bool read_emitters(rb_reader *r, const cJSON *o, rb_debris *d, rb_debris_desc *desc,
                          uint32_t alive[RB_DEBRIS_MAX_EMITTERS]) {
    const cJSON *a = array_at(r, o, "emitters", 0);
    if (!a) return false;
    if ((uint32_t)cJSON_GetArraySize(a) != desc->emitter_count)
        return rb_read_fail_at(r, "emitters", "expected one entry for each of the scene's %u emitters, got %d",
                               desc->emitter_count, cJSON_GetArraySize(a));
    size_t len = rb_read_enter(r, "emitters", 0);
    uint32_t k = 0;
    for (const cJSON *e = a->child; e; e = e->next, k++) {
        size_t at = rb_read_enter(r, NULL, (int)k);
        if (!read_emitter(r, e, d, k, &desc->emitters[k], &alive[k])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

static bool read_fields(rb_reader *r, const cJSON *o, rb_debris *d, rb_debris_desc *desc) {
    static const char *const keys[] = {"fired", "axis", NULL};
    const cJSON *a = array_at(r, o, "fields", 0);
    if (!a) return false;
    if ((uint32_t)cJSON_GetArraySize(a) != desc->field_count)
        return rb_read_fail_at(r, "fields", "expected one entry for each of the scene's %u fields, got %d",
                               desc->field_count, cJSON_GetArraySize(a));
    size_t len = rb_read_enter(r, "fields", 0);
    uint32_t k = 0;
    for (const cJSON *f = a->child; f; f = f->next, k++) {
        size_t at = rb_read_enter(r, NULL, (int)k);
        if (!rb_debris_exact_keys(r, f, keys) || !rb_read_bool(r, f, "fired", &d->fired[k]) ||
            !rb_read_vector(r, f, "axis", 3, desc->fields[k].axis))
            return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* ---- the tables ---- */

/* `bodies`: [body, born, lifetime, emitter, asleep_since], oldest first,
 * each body once; counts each emitter's into alive. */
static bool read_bodies(rb_reader *r, const rb_scene *s, const cJSON *o, rb_debris *d, uint8_t *seen,
                        uint32_t alive[RB_DEBRIS_MAX_EMITTERS]) {
    const cJSON *a = array_at(r, o, "bodies", 5);
    if (!a) return false;
    const int n = cJSON_GetArraySize(a);
    if (n > 0 && !(d->bodies = calloc((size_t)n, sizeof *d->bodies))) return rb_read_fail(r, "out of memory");
    d->capacity = (uint32_t)n;
    const int emitters = (int)s->debris->emitter_count;
    size_t len = rb_read_enter(r, "bodies", 0);
    for (const cJSON *e = a->child; e; e = e->next) {
        size_t at = rb_read_enter(r, NULL, (int)d->count);
        tracked *t = &d->bodies[d->count];
        uint32_t b = 0;
        double emitter = 0.0;
        if (!body_at(r, s, e, &b) || !number_at(r, e, 1, -1e300, 1e300, false, &t->born) ||
            !number_at(r, e, 4, -1e300, 1e300, false, &t->asleep_since) ||
            !number_at(r, e, 3, RB_IMPACT_EMITTER, emitters - 1, true, &emitter))
            return false;
        double lifetime = 0.0;
        if (!number_at(r, e, 2, 0.0, 3.4e38, false, &lifetime)) return false;
        if (seen[b] & 1) return rb_read_fail(r, "body %u is in the table twice", b);
        seen[b] |= 1;
        t->id = (rb_body_id){.slot = b};
        t->lifetime = (float)lifetime;
        t->emitter = (int)emitter;
        if (t->emitter >= 0) alive[t->emitter]++;
        d->count++;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* `held`: [body, force xyz, torque xyz]. */
static bool read_held(rb_reader *r, const rb_scene *s, const cJSON *o, rb_debris *d) {
    const cJSON *a = array_at(r, o, "held", 7);
    if (!a) return false;
    const int n = cJSON_GetArraySize(a);
    if (n > 0 && !(d->held = calloc((size_t)n, sizeof *d->held))) return rb_read_fail(r, "out of memory");
    d->held_capacity = (uint32_t)n;
    size_t len = rb_read_enter(r, "held", 0);
    for (const cJSON *e = a->child; e; e = e->next) {
        size_t at = rb_read_enter(r, NULL, (int)d->held_count);
        held_force *h = &d->held[d->held_count];
        uint32_t b = 0;
        if (!body_at(r, s, e, &b) || !floats_at(r, e, 1, 3, h->force) || !floats_at(r, e, 4, 3, h->torque))
            return false;
        h->id = (rb_body_id){.slot = b};
        d->held_count++;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* `impact`: [body, velocity, impulse, pushed, pushing (xyz each), seen],
 * kept by body index, generation 1 marking the bodies it has. */
static bool read_memory(rb_reader *r, const rb_scene *s, const cJSON *o, rb_debris *d) {
    const cJSON *a = array_at(r, o, "impact", 14);
    if (!a) return false;
    if (a->child && !(d->memory = calloc(s->body_count, sizeof *d->memory))) return rb_read_fail(r, "out of memory");
    if (a->child) d->memory_size = s->body_count;
    size_t len = rb_read_enter(r, "impact", 0);
    int k = 0;
    for (const cJSON *e = a->child; e; e = e->next, k++) {
        size_t at = rb_read_enter(r, NULL, k);
        uint32_t b = 0;
        double seen = 0.0;
        if (!body_at(r, s, e, &b)) return false;
        impact_memory *m = &d->memory[b];
        if (m->generation) return rb_read_fail(r, "body %u is remembered twice", b);
        if (!floats_at(r, e, 1, 3, m->velocity) || !floats_at(r, e, 4, 3, m->impulse) ||
            !floats_at(r, e, 7, 3, m->pushed) || !floats_at(r, e, 10, 3, m->pushing) ||
            !number_at(r, e, 13, 0.0, 2.0, true, &seen))
            return false;
        m->seen = (uint32_t)seen;
        m->generation = 1;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* A fracture pattern as debris_save.c writes it (every field of rb_fracture_desc). */
static bool read_fracture(rb_reader *r, const cJSON *o, rb_fracture_desc *x) {
    static const char *const keys[] = {"kind",   "pieces", "seed",   "strength", "normal",     "centre",
                                       "centre_given", "wedges", "rings", "impact",   "focus", "bond_reach", NULL};
    uint32_t kind = 0;
    if (!rb_debris_exact_keys(r, o, keys) || !rb_read_count(r, o, "kind", RB_FRACTURE_RADIAL, &kind, true) ||
        !rb_read_count(r, o, "pieces", 1e6, &x->pieces, true) || !read_u64(r, o, "seed", &x->seed) ||
        !rb_read_float(r, o, "strength", 1e-30, 1e30, &x->strength) ||
        !rb_read_vector(r, o, "normal", 3, x->normal) || !rb_read_vector(r, o, "centre", 3, x->centre) ||
        !rb_read_bool(r, o, "centre_given", &x->centre_given) || !rb_read_count(r, o, "wedges", 1000, &x->wedges, true) ||
        !rb_read_count(r, o, "rings", 1000, &x->rings, true) || !rb_read_bool(r, o, "impact", &x->impact) ||
        !rb_read_float(r, o, "focus", 0.0, 1e30, &x->focus) || !rb_read_float(r, o, "bond_reach", 0.0, 1e6, &x->bond_reach))
        return false;
    x->kind = (rb_fracture_kind)kind;
    return true;
}

/* `inner`: the glued parts' own patterns (rb_debris.inner). */
static bool read_inner(rb_reader *r, const cJSON *o, rb_debris *d) {
    const cJSON *a = array_at(r, o, "inner", 0);
    if (!a) return false;
    const int n = cJSON_GetArraySize(a);
    if (n > 0 && !(d->inner = calloc((size_t)n, sizeof *d->inner))) return rb_read_fail(r, "out of memory");
    size_t len = rb_read_enter(r, "inner", 0);
    for (const cJSON *e = a->child; e; e = e->next) {
        size_t at = rb_read_enter(r, NULL, (int)d->inner_count);
        if (!read_fracture(r, e, &d->inner[d->inner_count])) return false;
        d->inner_count++;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* `breakables`: [body, pattern] (made again by the pattern) or [body,
 * pattern, whole] (debris_whole.c), each body once; made breakable again
 * when the layer is (rb_debris_restore). */
static bool read_breakables(rb_reader *r, const rb_scene *s, const cJSON *o, rb_debris *d, uint8_t *seen) {
    const cJSON *a = array_at(r, o, "breakables", 0);
    if (!a) return false;
    const int n = cJSON_GetArraySize(a);
    if (n > 0 && !(d->breakables = calloc((size_t)n, sizeof *d->breakables))) return rb_read_fail(r, "out of memory");
    d->breakable_capacity = (uint32_t)n;
    size_t len = rb_read_enter(r, "breakables", 0);
    for (const cJSON *e = a->child; e; e = e->next) {
        size_t at = rb_read_enter(r, NULL, (int)d->breakable_count);
        const int entries = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0;
        if (entries != 2 && entries != 3) return rb_read_fail(r, "expected [body, pattern] or [body, pattern, whole]");
        /* counted now: what a whole entry read before a failure is freed with the layer */
        breakable *b = &d->breakables[d->breakable_count++];
        uint32_t body = 0;
        if (!body_at(r, s, e, &body)) return false;
        if (seen[body] & 2) return rb_read_fail(r, "body %u is breakable twice", body);
        seen[body] |= 2;
        b->id = (rb_body_id){.slot = body};
        size_t in = rb_read_enter(r, NULL, 1);
        if (!read_fracture(r, cJSON_GetArrayItem(e, 1), &b->desc)) return false;
        rb_read_leave(r, in);
        if (entries == 3) {
            in = rb_read_enter(r, NULL, 2);
            if (!rb_debris_read_whole(r, cJSON_GetArrayItem(e, 2), b, d->inner_count)) return false;
            rb_read_leave(r, in);
        }
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* ---- the key ---- */

static bool read_state(rb_reader *r, rb_scene *s, const cJSON *o, rb_debris *d) {
    static const char *const keys[] = {"steps",   "ticked_step", "tick_steps",  "spawned",    "removed",
                                       "crowded", "breaks",      "pieces_made", "impacts",    "chips_short",
                                       "rng_impact", "emitters", "fields",      "bodies",     "held",
                                       "impact",  "breakables", "inner", NULL};
    if (!rb_debris_exact_keys(r, o, keys) || !read_u64(r, o, "steps", &d->steps) ||
        !read_u64(r, o, "ticked_step", &d->ticked_step) ||
        !rb_read_count(r, o, "tick_steps", 1e6, &d->tick_steps, true) || !read_u64(r, o, "spawned", &d->spawned) ||
        !read_u64(r, o, "removed", &d->removed) || !read_u64(r, o, "crowded", &d->crowded) ||
        !read_u64(r, o, "breaks", &d->breaks) || !read_u64(r, o, "pieces_made", &d->pieces_made) ||
        !read_u64(r, o, "impacts", &d->impacts) || !read_u64(r, o, "chips_short", &d->chips_short) ||
        !read_u64(r, o, "rng_impact", &d->rng_impact))
        return false;
    if (d->tick_steps == 0) return rb_read_fail_at(r, "tick_steps", "expected 1 or more steps a tick");
    if (d->ticked_step > d->steps + 1u)
        return rb_read_fail_at(r, "ticked_step", "step %llu is after the next one (steps %llu)",
                               (unsigned long long)d->ticked_step, (unsigned long long)d->steps);
    if (d->rng_impact == 0) return rb_read_fail_at(r, "rng_impact", "a generator's state is never 0");
    uint32_t alive[RB_DEBRIS_MAX_EMITTERS] = {0}, counted[RB_DEBRIS_MAX_EMITTERS] = {0};
    uint8_t *seen = calloc(s->body_count ? s->body_count : 1, 1);
    if (!seen) return rb_read_fail(r, "out of memory");
    const bool ok = read_emitters(r, o, d, s->debris, alive) && read_fields(r, o, d, s->debris) &&
                    read_bodies(r, s, o, d, seen, counted) && read_held(r, s, o, d) && read_memory(r, s, o, d) &&
                    read_inner(r, o, d) && read_breakables(r, s, o, d, seen);
    free(seen);
    for (uint32_t k = 0; ok && k < s->debris->emitter_count; k++)
        if (alive[k] != counted[k]) {
            size_t len = rb_read_enter(r, "emitters", 0), at = rb_read_enter(r, NULL, (int)k);
            rb_read_fail_at(r, "alive", "%u, but the table has %u bodies of this emitter", alive[k], counted[k]);
            rb_read_leave(r, at), rb_read_leave(r, len);
            return false;
        }
    return ok;
}

bool rb_read_debris_state(rb_reader *r, rb_scene *s, const cJSON *o) {
    /* the state is the layer whole: nothing else may add to it */
    if (s->assembly_count)
        return rb_read_fail(r, "a saved layer comes whole: the scene's assemblies cannot be glued into it");
    for (uint32_t b = 0; b < s->body_count; b++)
        if (s->bodies[b].lifetime > 0.0f || s->bodies[b].breakable)
            return rb_read_fail(r, "a saved layer comes whole: %s cannot have a '%s' besides it", s->bodies[b].origin,
                                s->bodies[b].breakable ? "breakable" : "lifetime");
    /* a layer with only bodies' lifetimes has no effects keys */
    if (!s->debris && !(s->debris = calloc(1, sizeof *s->debris))) return rb_read_fail(r, "out of memory");
    rb_debris *d = s->debris_state = calloc(1, sizeof *d);
    if (!d) return rb_read_fail(r, "out of memory");
    return read_state(r, s, o, d);
}
