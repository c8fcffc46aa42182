/* debris_read.c - reading a scene's debris keys (`emitters`, `fields`,
 * `debris`) into an rb_debris_desc (debris.h, docs/scene-format.md), each
 * bad value named by file and key as the rest of the reader does
 * (scene_read_internal.h). Bodies' `lifetime` is read with the bodies
 * (scene_read.c); here it only decides whether the scene has debris. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_read_internal.h"

/* Times, speeds, strengths and drags beyond this are typing mistakes, and
 * keep every product of two of them finite in a float. */
#define BIG 1e9
#define DEGREES (3.14159265358979323846 / 180.0)

/* key: a finite number, > 0 if positive else >= 0, at most hi; absent:
 * refused if required, else *out keeps its default. */
static bool read_amount(rb_reader *r, const cJSON *o, const char *key, bool positive, double hi, bool required,
                        float *out) {
    if (!cJSON_GetObjectItemCaseSensitive(o, key)) return required ? rb_read_fail(r, "'%s' is missing", key) : true;
    double d = 0.0;
    if (!rb_read_number(r, o, key, -INFINITY, INFINITY, &d)) return false;
    /* > 0 as the float it is kept in: 1e-300 would be a rate of 0 */
    if (positive ? !((float)d > 0.0f) : !(d >= 0.0))
        return rb_read_fail_at(r, key, "expected a number %s, got %g", positive ? "> 0" : ">= 0", d);
    if (d > hi) return rb_read_fail_at(r, key, "%g is more than the limit of %g", d, hi);
    *out = (float)d;
    return true;
}

/* key: 3 numbers, not all zero, made a unit vector; absent: v keeps its default. */
static bool read_direction(rb_reader *r, const cJSON *o, const char *key, float v[3]) {
    if (!rb_read_vector(r, o, key, 3, v)) return false;
    double n2 = 0.0;
    for (int k = 0; k < 3; k++) n2 += (double)v[k] * v[k];
    if (!(n2 > 0.0)) return rb_read_fail_at(r, key, "a zero vector has no direction");
    for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / sqrt(n2));
    return true;
}

/* `start` and `duration`, s, as emitters and fields share them. */
static bool read_times(rb_reader *r, const cJSON *o, float *start, float *duration) {
    return read_amount(r, o, "start", false, BIG, false, start) &&
           read_amount(r, o, "duration", false, BIG, false, duration);
}

/* The array at key in the current object, of at most max entries; NULL
 * with *n = 0 when absent. False, failed, on anything else. */
static bool get_array(rb_reader *r, const cJSON *o, const char *key, uint32_t max, const char *what, const cJSON **out,
                      uint32_t *n) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = a, *n = 0;
    if (!a) return true;
    if (!cJSON_IsArray(a)) return rb_read_fail_at(r, key, "expected an array");
    const int got = cJSON_GetArraySize(a);
    if (got > (int)max) return rb_read_fail_at(r, key, "at most %u %s (got %d)", max, what, got);
    *n = (uint32_t)got;
    return true;
}

/* ---- emitters ---- */

static bool read_region(rb_reader *r, const cJSON *o, rb_region *g) {
    static const char *const keys[] = {"point", "box", "disc", NULL};
    const char *const shapes = "expected one of {\"point\": [x, y, z]}, {\"box\": {\"centre\": [x, y, z], \"half\": "
                               "[x, y, z]}} or {\"disc\": {\"centre\": [x, y, z], \"radius\": m}}";
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "%s", shapes);
    if (!rb_read_check_keys(r, o, keys)) return false;
    int kinds = 0;
    for (int k = 0; k < 3; k++) kinds += cJSON_GetObjectItemCaseSensitive(o, keys[k]) != NULL;
    if (kinds != 1) return rb_read_fail(r, "%s", shapes);
    if (cJSON_GetObjectItemCaseSensitive(o, "point")) {
        g->kind = RB_REGION_POINT;
        return rb_read_vector(r, o, "point", 3, g->centre);
    }
    const bool box = cJSON_GetObjectItemCaseSensitive(o, "box") != NULL;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, box ? "box" : "disc");
    static const char *const box_keys[] = {"centre", "half", NULL}, *const disc_keys[] = {"centre", "radius", NULL};
    size_t len = rb_read_enter(r, box ? "box" : "disc", 0);
    if (!cJSON_IsObject(b)) return rb_read_fail(r, "%s", shapes);
    if (!rb_read_check_keys(r, b, box ? box_keys : disc_keys) || !rb_read_vector(r, b, "centre", 3, g->centre))
        return false;
    if (box) {
        g->kind = RB_REGION_BOX;
        if (!cJSON_GetObjectItemCaseSensitive(b, "half")) return rb_read_fail(r, "'half' is missing");
        if (!rb_read_vector(r, b, "half", 3, g->half)) return false;
        if (!(g->half[0] >= 0.0f && g->half[1] >= 0.0f && g->half[2] >= 0.0f))
            return rb_read_fail_at(r, "half", "expected half extents >= 0");
    } else {
        g->kind = RB_REGION_DISC;
        if (!read_amount(r, b, "radius", false, BIG, true, &g->radius)) return false;
    }
    rb_read_leave(r, len);
    return true;
}

bool rb_read_emit_choice(rb_reader *r, const cJSON *o, rb_emit_choice *c) {
    static const char *const keys[] = {"shape", "scale", "weight", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected {\"shape\": name, \"scale\": s, \"weight\": w}");
    if (!rb_read_check_keys(r, o, keys) || !rb_read_string(r, o, "shape", c->shape, sizeof c->shape, true))
        return false;
    /* checked as a body's shape is: the scene is refused now, not when built */
    size_t len = rb_read_enter(r, "shape", 0);
    if (!rb_read_find_shape(r, c->shape)) return false;
    rb_read_leave(r, len);
    c->scale = 1.0f, c->weight = 1.0f;
    if (!rb_read_float(r, o, "scale", 0.01, 100.0, &c->scale)) return false;
    return read_amount(r, o, "weight", true, BIG, false, &c->weight);
}

static bool read_emitter(rb_reader *r, const cJSON *o, uint32_t index, double dt, rb_emitter *e) {
    static const char *const keys[] = {"region",       "rate",  "max_alive",    "shapes",   "direction", "speed",
                                       "speed_spread", "cone",  "spin",         "lifetime", "start",     "duration",
                                       "seed",         "color", "inside_color", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    memset(e, 0, sizeof *e);
    e->region.kind = RB_REGION_POINT;
    e->direction[1] = 1.0f;
    e->seed = index + 1u; /* emitters without a seed still differ from each other */
    const cJSON *region = cJSON_GetObjectItemCaseSensitive(o, "region");
    if (region) {
        size_t len = rb_read_enter(r, "region", 0);
        if (!read_region(r, region, &e->region)) return false;
        rb_read_leave(r, len);
    }
    if (!read_amount(r, o, "rate", true, 100000.0, true, &e->rate) ||
        !rb_read_count(r, o, "max_alive", UINT32_MAX, &e->max_alive, false))
        return false;
    const cJSON *shapes;
    if (!cJSON_GetObjectItemCaseSensitive(o, "shapes")) return rb_read_fail(r, "'shapes' is missing");
    if (!get_array(r, o, "shapes", RB_DEBRIS_MAX_CHOICES, "shapes", &shapes, &e->choice_count)) return false;
    if (e->choice_count == 0) return rb_read_fail_at(r, "shapes", "expected at least one shape");
    size_t len = rb_read_enter(r, "shapes", 0);
    uint32_t j = 0;
    for (const cJSON *c = shapes->child; c; c = c->next, j++) {
        size_t at = rb_read_enter(r, NULL, (int)j);
        if (!rb_read_emit_choice(r, c, &e->choices[j])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    float cone = 0.0f;
    if (!read_direction(r, o, "direction", e->direction) || !read_amount(r, o, "speed", false, BIG, false, &e->speed) ||
        !read_amount(r, o, "speed_spread", false, BIG, false, &e->speed_spread) ||
        !rb_read_float(r, o, "cone", 0.0, 180.0, &cone) || !read_amount(r, o, "spin", false, BIG, false, &e->spin) ||
        !read_amount(r, o, "lifetime", false, BIG, false, &e->lifetime) || !read_times(r, o, &e->start, &e->duration))
        return false;
    /* each shape it emits at the fastest it is sent and turned (debris_emit.c); each found above */
    for (j = 0; j < e->choice_count; j++) {
        const rb_shape *shape = rb_read_find_shape(r, e->choices[j].shape);
        if (!shape ||
            !rb_read_check_speed(r, e->speed_spread > 0.0f ? "speed_spread" : "speed",
                                 (double)e->speed + e->speed_spread, dt, shape, e->choices[j].scale, 1.0) ||
            !rb_read_check_spin(r, "spin", e->spin, dt, shape, e->choices[j].scale, 1.0))
            return false;
    }
    e->cone = (float)(cone * DEGREES);
    if (cJSON_GetObjectItemCaseSensitive(o, "seed")) {
        /* whole numbers a double holds exactly */
        double seed = 0.0;
        if (!rb_read_number(r, o, "seed", 0.0, 9007199254740992.0, &seed)) return false;
        if (seed != floor(seed)) return rb_read_fail_at(r, "seed", "expected a whole number >= 0, got %g", seed);
        e->seed = (uint64_t)seed;
    }
    return rb_read_colors(r, o, &e->colors);
}

/* ---- fields ---- */

static bool read_field(rb_reader *r, const cJSON *o, rb_field *f) {
    static const char *const radial[] = {"type",     "centre",  "radius",  "start", "duration",
                                         "strength", "impulse", "falloff", "up",    NULL};
    static const char *const wind[] = {"type", "centre", "radius", "start", "duration", "velocity", "drag", NULL};
    static const char *const vortex[] = {"type", "centre",   "radius", "start", "duration",
                                         "axis", "strength", "drag",   NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    char type[16];
    if (!rb_read_check_keys(r, o, NULL) || !rb_read_string(r, o, "type", type, sizeof type, true)) return false;
    memset(f, 0, sizeof *f);
    const char *const *keys;
    if (strcmp(type, "radial") == 0)
        f->kind = RB_FIELD_RADIAL, keys = radial;
    else if (strcmp(type, "wind") == 0)
        f->kind = RB_FIELD_WIND, keys = wind;
    else if (strcmp(type, "vortex") == 0)
        f->kind = RB_FIELD_VORTEX, keys = vortex;
    else
        return rb_read_fail_at(r, "type", "unknown field type '%s' (radial, wind, vortex)", type);
    if (!rb_read_check_keys(r, o, keys) || !rb_read_vector(r, o, "centre", 3, f->centre) ||
        !read_times(r, o, &f->start, &f->duration))
        return false;
    /* wind may blow everywhere (radius 0); the others have an extent */
    if (!read_amount(r, o, "radius", f->kind != RB_FIELD_WIND, BIG, f->kind != RB_FIELD_WIND, &f->radius)) return false;
    switch (f->kind) {
    case RB_FIELD_RADIAL:
        f->impulse = true, f->falloff = 1.0f;
        return read_amount(r, o, "strength", true, BIG, true, &f->strength) &&
               rb_read_bool(r, o, "impulse", &f->impulse) &&
               read_amount(r, o, "falloff", false, BIG, false, &f->falloff) &&
               read_amount(r, o, "up", false, BIG, false, &f->up);
    case RB_FIELD_WIND:
        f->drag = 0.6f;
        if (!cJSON_GetObjectItemCaseSensitive(o, "velocity")) return rb_read_fail(r, "'velocity' is missing");
        return rb_read_vector(r, o, "velocity", 3, f->velocity) &&
               read_amount(r, o, "drag", true, BIG, false, &f->drag);
    default:
        f->drag = 2.0f, f->axis[1] = 1.0f;
        return read_direction(r, o, "axis", f->axis) && read_amount(r, o, "strength", true, BIG, true, &f->strength) &&
               read_amount(r, o, "drag", true, BIG, false, &f->drag);
    }
}

/* ---- debris ---- */

static bool read_kill_region(rb_reader *r, const cJSON *o, rb_kill_region *k) {
    static const char *const keys[] = {"min", "max", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected {\"min\": [x, y, z], \"max\": [x, y, z]}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    for (int i = 0; i < 2; i++)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[i])) return rb_read_fail(r, "'%s' is missing", keys[i]);
    if (!rb_read_vector(r, o, "min", 3, k->min) || !rb_read_vector(r, o, "max", 3, k->max)) return false;
    for (int a = 0; a < 3; a++)
        if (!(k->min[a] < k->max[a]))
            return rb_read_fail(r, "min must be below max on every axis (%c: %g, %g)", "xyz"[a], k -> min[a],
                                k -> max[a]);
    return true;
}

/* debris.impact: the chips a heavy impact throws (debris.h, rb_impact_debris). */
static bool read_impact(rb_reader *r, const cJSON *o, double dt, rb_impact_debris *im) {
    static const char *const keys[] = {"shape", "scale", "threshold", "count", "speed", "lifetime", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    *im = (rb_impact_debris){.scale = 1.0f, .count = 3, .speed = 2.0f, .lifetime = 3.0f};
    if (!rb_read_check_keys(r, o, keys) || !rb_read_string(r, o, "shape", im->shape, sizeof im->shape, true))
        return false;
    size_t len = rb_read_enter(r, "shape", 0);
    const rb_shape *shape = rb_read_find_shape(r, im->shape);
    const bool known = shape != NULL;
    rb_read_leave(r, len);
    if (!known || !rb_read_float(r, o, "scale", 0.01, 100.0, &im->scale) ||
        !read_amount(r, o, "threshold", true, BIG, true, &im->threshold) ||
        !rb_read_count(r, o, "count", 64, &im->count, false) ||
        !read_amount(r, o, "speed", false, BIG, false, &im->speed) ||
        !read_amount(r, o, "lifetime", false, BIG, false, &im->lifetime))
        return false;
    if (im->count == 0) return rb_read_fail_at(r, "count", "expected 1 to 64 bodies a hit, got 0");
    return rb_read_check_speed(r, "speed", im->speed, dt, shape, im->scale, 1.0);
}

static bool read_settings(rb_reader *r, const cJSON *o, double dt, rb_debris_desc *d) {
    static const char *const keys[] = {"max_bodies", "remove_asleep", "kill_regions", "impact", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys) || !rb_read_count(r, o, "max_bodies", UINT32_MAX, &d->max_bodies, false) ||
        !read_amount(r, o, "remove_asleep", false, BIG, false, &d->remove_asleep))
        return false;
    const cJSON *kill;
    if (!get_array(r, o, "kill_regions", RB_DEBRIS_MAX_KILL_REGIONS, "kill regions", &kill, &d->kill_count))
        return false;
    size_t len = rb_read_enter(r, "kill_regions", 0);
    uint32_t i = 0;
    for (const cJSON *k = kill ? kill->child : NULL; k; k = k->next, i++) {
        size_t at = rb_read_enter(r, NULL, (int)i);
        if (!read_kill_region(r, k, &d->kill[i])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    const cJSON *impact = cJSON_GetObjectItemCaseSensitive(o, "impact");
    if (!impact) return true;
    len = rb_read_enter(r, "impact", 0);
    const bool ok = read_impact(r, impact, dt, &d->impact);
    rb_read_leave(r, len);
    return ok;
}

/* ---- breakable bodies ---- */

/* The keys each pattern takes beyond pattern, seed and strength; a key of
 * another pattern's is refused, not ignored, since it was meant to shape
 * the pieces. */
static bool read_pattern_keys(rb_reader *r, const cJSON *b, rb_fracture_desc *f, const char *pattern) {
    static const char *const own[] = {"normal", "axis", "centre", "wedges", "rings", "impact", "focus", NULL};
    static const char *const takes[] = {"slices", "radial", "radial", "radial", "radial", "voronoi", "voronoi"};
    for (int k = 0; own[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(b, own[k]) && strcmp(pattern, takes[k]) != 0)
            return rb_read_fail_at(r, own[k], "pattern '%s' takes no '%s' (pattern '%s' does)", pattern, own[k],
                                   takes[k]);
    if (f->kind == RB_FRACTURE_RADIAL && cJSON_GetObjectItemCaseSensitive(b, "pieces"))
        return rb_read_fail_at(r, "pieces", "pattern 'radial' takes no 'pieces': its pieces are wedges x rings");
    bool ok = rb_read_count(r, b, "pieces", 1e6, &f->pieces, false);
    if (ok && f->pieces == 0) ok = rb_read_fail_at(r, "pieces", "expected 1 or more pieces, got 0");
    if (ok && f->kind == RB_FRACTURE_SLICES) {
        if (!cJSON_GetObjectItemCaseSensitive(b, "normal"))
            return rb_read_fail(r, "pattern 'slices' needs a 'normal': [x, y, z], the planes' normal");
        ok = read_direction(r, b, "normal", f->normal);
    }
    if (ok && f->kind == RB_FRACTURE_RADIAL) {
        if (!cJSON_GetObjectItemCaseSensitive(b, "axis"))
            return rb_read_fail(r, "pattern 'radial' needs an 'axis': [x, y, z]");
        ok = read_direction(r, b, "axis", f->normal) && rb_read_vector(r, b, "centre", 3, f->centre) &&
             rb_read_count(r, b, "wedges", 1000, &f->wedges, false) &&
             rb_read_count(r, b, "rings", 1000, &f->rings, false);
        f->centre_given = cJSON_GetObjectItemCaseSensitive(b, "centre") != NULL;
        if (ok && f->wedges == 0) ok = rb_read_fail_at(r, "wedges", "expected 1 or more wedges, got 0");
        if (ok && f->rings == 0) ok = rb_read_fail_at(r, "rings", "expected 1 or more rings, got 0");
    }
    if (ok && f->kind == RB_FRACTURE_VORONOI) {
        ok = rb_read_bool(r, b, "impact", &f->impact) && read_amount(r, b, "focus", true, BIG, false, &f->focus);
        if (ok && cJSON_GetObjectItemCaseSensitive(b, "focus") && !f->impact)
            ok = rb_read_fail_at(r, "focus", "'focus' shapes an impact pattern: give \"impact\": true with it");
    }
    return ok;
}

bool rb_read_breakable(rb_reader *r, const cJSON *o, rb_scene_body *t) {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "breakable");
    t->breakable = false;
    if (!b || cJSON_IsFalse(b)) return true;
    t->fracture =
        (rb_fracture_desc){.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 1, .strength = RB_FRACTURE_STRENGTH};
    t->breakable = true;
    if (cJSON_IsTrue(b)) return true;
    if (!cJSON_IsObject(b)) return rb_read_fail_at(r, "breakable", "expected true, false or an object");
    size_t len = rb_read_enter(r, "breakable", 0);
    static const char *const keys[] = {"pattern", "pieces", "seed",  "strength", "normal", "axis",
                                       "centre",  "wedges", "rings", "impact",   "focus",  NULL};
    rb_read_check_keys(r, b, keys);
    char pattern[32] = "voronoi";
    bool ok = rb_read_string(r, b, "pattern", pattern, sizeof pattern, false);
    if (ok && strcmp(pattern, "voronoi") == 0)
        t->fracture.kind = RB_FRACTURE_VORONOI;
    else if (ok && strcmp(pattern, "layers") == 0)
        t->fracture.kind = RB_FRACTURE_LAYERS, t->fracture.pieces = 3;
    else if (ok && strcmp(pattern, "slices") == 0)
        t->fracture.kind = RB_FRACTURE_SLICES, t->fracture.pieces = 3;
    else if (ok && strcmp(pattern, "radial") == 0)
        t->fracture.kind = RB_FRACTURE_RADIAL, t->fracture.wedges = 6, t->fracture.rings = 2;
    else if (ok && strcmp(pattern, "particles") == 0)
        t->fracture.kind = RB_FRACTURE_PARTICLES;
    else if (ok && (strcmp(pattern, "plugin") == 0 || strcmp(pattern, "parts") == 0))
        t->fracture.kind = RB_FRACTURE_GIVEN; /* parts: a pre-fractured mesh's (rb_read_template) */
    else if (ok)
        ok = rb_read_fail_at(r, "pattern",
                             "unknown pattern '%s' (voronoi, layers, slices, radial, particles, plugin or parts)",
                             pattern);
    double seed = 1.0;
    ok = ok && read_pattern_keys(r, b, &t->fracture, pattern);
    ok = ok && rb_read_number(r, b, "seed", 0.0, 9007199254740992.0, &seed);
    if (ok && seed != floor(seed)) ok = rb_read_fail_at(r, "seed", "expected a whole number, got %g", seed);
    t->fracture.seed = (uint64_t)seed;
    ok = ok && read_amount(r, b, "strength", true, BIG, false, &t->fracture.strength);
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_debris(rb_reader *r, rb_scene *s, const cJSON *root) {
    const cJSON *emitters, *fields;
    uint32_t n_emitters, n_fields;
    if (!get_array(r, root, "emitters", RB_DEBRIS_MAX_EMITTERS, "emitters", &emitters, &n_emitters) ||
        !get_array(r, root, "fields", RB_DEBRIS_MAX_FIELDS, "fields", &fields, &n_fields))
        return false;
    const cJSON *settings = cJSON_GetObjectItemCaseSensitive(root, "debris");
    bool lifetimes = false;
    for (uint32_t i = 0; i < s->body_count && !lifetimes; i++)
        lifetimes = s->bodies[i].lifetime > 0.0f || s->bodies[i].breakable;
    /* a scene without effects keeps no desc, and runs without the debris clock */
    if (!emitters && !fields && !settings && !lifetimes) return true;
    rb_debris_desc *d = s->debris = calloc(1, sizeof *s->debris);
    if (!d) return rb_read_fail(r, "out of memory for the debris effects");
    size_t len = rb_read_enter(r, "emitters", 0);
    for (const cJSON *e = emitters ? emitters->child : NULL; e; e = e->next, d->emitter_count++) {
        size_t at = rb_read_enter(r, NULL, (int)d->emitter_count);
        if (!read_emitter(r, e, d->emitter_count, s->world.dt, &d->emitters[d->emitter_count])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    len = rb_read_enter(r, "fields", 0);
    for (const cJSON *f = fields ? fields->child : NULL; f; f = f->next, d->field_count++) {
        size_t at = rb_read_enter(r, NULL, (int)d->field_count);
        if (!read_field(r, f, &d->fields[d->field_count])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    if (!settings) return true;
    len = rb_read_enter(r, "debris", 0);
    if (!read_settings(r, settings, s->world.dt, d)) return false;
    rb_read_leave(r, len);
    return true;
}
