/* scene_read.c - reading scene files: keys checked and named in every
 * message, generators expanded into bodies (see scene.h, docs/scene-format.md). */
#include "scene_read_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "formations.h"
#include "pile.h"

/* ---- reading: a key path for messages ---- */

size_t rb_read_enter(rb_reader *r, const char *key, int index) {
    size_t len = strlen(r->path);
    if (key)
        snprintf(r->path + len, sizeof r->path - len, "%s%s", len ? "." : "", key);
    else
        snprintf(r->path + len, sizeof r->path - len, "[%d]", index);
    return len;
}
void rb_read_leave(rb_reader *r, size_t len) { r->path[len] = '\0'; }

/* Control bytes of names from the file become '?' before they are printed. */
static void printable(char *text) {
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

static bool vfail(rb_reader *r, const char *fmt, va_list ap) {
    if (r->failed) return false;
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    if (r->path[0])
        snprintf(r->err, r->err_size, "%s: %s: %s", r->file, r->path, what);
    else
        snprintf(r->err, r->err_size, "%s: %s", r->file, what);
    printable(r->err);
    r->failed = true;
    return false;
}

bool rb_read_fail(rb_reader *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(r, fmt, ap);
    va_end(ap);
    return false;
}

bool rb_read_fail_at(rb_reader *r, const char *key, const char *fmt, ...) {
    size_t len = rb_read_enter(r, key, 0);
    va_list ap;
    va_start(ap, fmt);
    vfail(r, fmt, ap);
    va_end(ap);
    rb_read_leave(r, len);
    return false;
}

bool rb_read_check_keys(rb_reader *r, const cJSON *obj, const char *const *known) {
    for (const cJSON *c = obj->child; c; c = c->next)
        for (const cJSON *d = c->next; d; d = d->next)
            if (strcmp(c->string, d->string) == 0) return rb_read_fail_at(r, c->string, "the key is given twice");
    for (const cJSON *c = known ? obj->child : NULL; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++) ok = strcmp(c->string, *k) == 0;
        if (!ok) {
            size_t len = rb_read_enter(r, c->string, 0);
            char text[512];
            snprintf(text, sizeof text, "%s: %s: unknown key, ignored", r->file, r->path);
            printable(text);
            rb_log(RB_LOG_WARN, "%s", text);
            rb_read_leave(r, len);
        }
    }
    return true;
}

bool rb_read_number(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    if (!cJSON_IsNumber(v))
        ok = rb_read_fail(r, "expected a number");
    else if (!isfinite(v->valuedouble))
        ok = rb_read_fail(r, "%g is not a finite number", v->valuedouble);
    else if (v->valuedouble < lo || v->valuedouble > hi)
        ok = rb_read_fail(r, "%g is out of range [%g, %g]", v->valuedouble, lo, hi);
    else
        *out = v->valuedouble;
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_float(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, float *out) {
    double d = *out;
    if (!rb_read_number(r, obj, key, lo, hi, &d)) return false;
    *out = (float)d;
    return true;
}

bool rb_read_count(rb_reader *r, const cJSON *obj, const char *key, double hi, uint32_t *out, bool required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return required ? rb_read_fail(r, "'%s' is missing", key) : true;
    double d = 0.0;
    if (!rb_read_number(r, obj, key, -INFINITY, INFINITY, &d)) return false;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    if (d > hi)
        ok = rb_read_fail(r, "%g is more than the limit of %.0f", d, hi);
    else if (d != floor(d) || d < 0.0)
        ok = rb_read_fail(r, "expected a whole number >= 0, got %g", d);
    else
        *out = (uint32_t)d;
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_vector(rb_reader *r, const cJSON *obj, const char *key, int n, float *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    int got = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (got != n) {
        ok = got < 0
                 ? rb_read_fail(r, "expected %d numbers, got %s", n, cJSON_IsObject(v) ? "an object" : "a single value")
                 : rb_read_fail(r, "expected %d numbers, got %d", n, got);
    } else {
        for (int i = 0; i < n && ok; i++) {
            const cJSON *e = cJSON_GetArrayItem(v, i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !isfinite((float)e->valuedouble))
                ok = rb_read_fail(r, "element %d is not a finite number", i);
            else
                out[i] = (float)e->valuedouble;
        }
    }
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_bool(rb_reader *r, const cJSON *obj, const char *key, bool *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = cJSON_IsBool(v) ? (*out = cJSON_IsTrue(v), true) : rb_read_fail(r, "expected true or false");
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_string(rb_reader *r, const cJSON *obj, const char *key, char *out, size_t size, bool required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return required ? rb_read_fail(r, "'%s' is missing", key) : true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    if (!cJSON_IsString(v))
        ok = rb_read_fail(r, "expected a string");
    else if (strlen(v->valuestring) >= size)
        ok = rb_read_fail(r, "longer than %zu characters", size - 1);
    else
        snprintf(out, size, "%s", v->valuestring);
    rb_read_leave(r, len);
    return ok;
}

/* Room for n more bodies of `particles` particles each, within the limits. */
static bool reserve_bodies(rb_scene *s, uint64_t n, uint32_t particles, rb_reader *r) {
    uint64_t need = (uint64_t)s->body_count + n;
    if (need > RB_SCENE_MAX_BODIES)
        return r ? rb_read_fail(r, "the scene would hold %llu bodies; the limit is %u", (unsigned long long)need,
                                RB_SCENE_MAX_BODIES)
                 : false;
    const uint64_t total = s->particle_count + n * particles;
    if (total > RB_SCENE_MAX_PARTICLES)
        return r ? rb_read_fail(r, "the scene would hold %llu particles; the limit is %u", (unsigned long long)total,
                                RB_SCENE_MAX_PARTICLES)
                 : false;
    s->particle_count = total;
    if (need <= s->body_capacity) return true;
    uint32_t cap = s->body_capacity ? s->body_capacity : 64;
    while (cap < need) cap *= 2;
    rb_scene_body *b = realloc(s->bodies, (size_t)cap * sizeof *b);
    if (!b) return r ? rb_read_fail(r, "out of memory for %llu bodies", (unsigned long long)need) : false;
    s->bodies = b, s->body_capacity = cap;
    return true;
}

/* ---- reading: bodies ---- */

const rb_shape *rb_read_find_shape(rb_reader *r, const char *name) {
    int i = rb_registry_find(r->registry, name);
    if (i >= 0) return rb_registry_get(r->registry, (uint32_t)i);
    char list[512] = "";
    size_t n = 0;
    for (uint32_t k = 0; k < rb_registry_count(r->registry) && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", rb_registry_get(r->registry, k)->name);
    rb_read_fail(r, "unknown shape '%s' (the shapes are: %s)", name, n ? list : "none loaded");
    return NULL;
}

/* What a body and a generator share: shape, material, static, kinematic, scale, lifetime. */
static const rb_shape *read_template(rb_reader *r, const rb_scene *s, const cJSON *o, rb_scene_body *t) {
    if (!rb_read_string(r, o, "shape", t->shape, sizeof t->shape, true)) return NULL;
    size_t len = rb_read_enter(r, "shape", 0);
    const rb_shape *shape = rb_read_find_shape(r, t->shape);
    rb_read_leave(r, len);
    if (!shape) return NULL;
    char material[RB_SCENE_NAME_SIZE] = "default";
    if (!rb_read_string(r, o, "material", material, sizeof material, false)) return NULL;
    t->material = UINT32_MAX;
    for (uint32_t i = 0; i < s->material_count; i++)
        if (strcmp(s->materials[i].name, material) == 0) t->material = i;
    if (t->material == UINT32_MAX) {
        char names[512] = "";
        size_t n = 0;
        for (uint32_t i = 0; i < s->material_count && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", s->materials[i].name);
        return rb_read_fail_at(r, "material", "unknown material '%s' (the materials are: %s)", material, names), NULL;
    }
    if (!rb_read_bool(r, o, "static", &t->is_static) || !rb_read_bool(r, o, "kinematic", &t->is_kinematic)) return NULL;
    if (t->is_static && t->is_kinematic) return rb_read_fail(r, "a body is static or kinematic, not both"), NULL;
    if (!rb_read_float(r, o, "scale", -INFINITY, INFINITY, &t->scale)) return NULL;
    if (!(t->scale > 0.0f)) return rb_read_fail_at(r, "scale", "scale must be greater than 0 (got %g)", t->scale), NULL;
    if (!(t->scale >= 0.01f && t->scale <= 100.0f))
        return rb_read_fail_at(r, "scale", "scale %g is out of range [0.01, 100]", t->scale), NULL;
    /* s; a body with one is debris (debris.h), removed when its time is up */
    if (!rb_read_float(r, o, "lifetime", 0.0, 1e9, &t->lifetime)) return NULL;
    if (!rb_read_breakable(r, o, t)) return NULL;
    if (t->breakable && t->fracture.kind == RB_FRACTURE_GIVEN && !shape->pieces)
        return rb_read_fail_at(r, "breakable", "pattern 'plugin': shape '%s' gives no pieces (its plugin's are none)",
                               t->shape),
               NULL;
    const bool counted = t->fracture.kind == RB_FRACTURE_VORONOI || t->fracture.kind == RB_FRACTURE_LAYERS;
    if (t->breakable && counted && t->fracture.pieces > shape->particle_count) {
        size_t in = rb_read_enter(r, "breakable", 0), at = rb_read_enter(r, "pieces", 0);
        rb_log(RB_LOG_WARN, "%s: %s: %u pieces of a %u-particle shape: %u, a piece a particle", r->file, r->path,
               t->fracture.pieces, shape->particle_count, shape->particle_count);
        rb_read_leave(r, at), rb_read_leave(r, in);
        t->fracture.pieces = shape->particle_count;
    }
    if (t->breakable && (t->is_static || t->is_kinematic))
        return rb_read_fail_at(r, "breakable", "only a dynamic body breaks (this one is static or kinematic)"), NULL;
    return shape;
}

static bool read_orientation(rb_reader *r, const cJSON *o, float q[4]) {
    if (!rb_read_vector(r, o, "orientation", 4, q)) return false;
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) {
        return rb_read_fail_at(r, "orientation", "a zero quaternion is no rotation (the identity is [0, 0, 0, 1])");
    }
    return true;
}

static bool read_body(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {
        "shape",       "position",  "orientation", "velocity", "angular_velocity", "angular_momentum",
        "sleep_timer", "support",   "material",    "static",   "kinematic",        "scale",
        "lifetime",    "breakable", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    rb_scene_body b;
    memset(&b, 0, sizeof b);
    b.desc.orientation[3] = 1.0f;
    b.scale = 1.0f;
    const rb_shape *shape = read_template(r, s, o, &b);
    if (!shape) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "position")) return rb_read_fail(r, "'position' is missing");
    if (!rb_read_vector(r, o, "position", 3, b.desc.position) || !read_orientation(r, o, b.desc.orientation) ||
        !rb_read_vector(r, o, "velocity", 3, b.desc.velocity) ||
        !rb_read_vector(r, o, "angular_velocity", 3, b.desc.angular_velocity))
        return false;
    const bool momentum = cJSON_GetObjectItemCaseSensitive(o, "angular_momentum") != NULL;
    const bool timer = cJSON_GetObjectItemCaseSensitive(o, "sleep_timer") != NULL;
    const bool support = cJSON_GetObjectItemCaseSensitive(o, "support") != NULL;
    if (momentum && cJSON_GetObjectItemCaseSensitive(o, "angular_velocity"))
        return rb_read_fail(r, "give angular_velocity or angular_momentum, not both");
    if (!rb_read_vector(r, o, "angular_momentum", 3, b.angular_momentum) ||
        !rb_read_float(r, o, "sleep_timer", 0.0, 1e30, &b.sleep_timer) ||
        !rb_read_float(r, o, "support", 0.0, 1e30, &b.support))
        return false;
    b.exact = momentum || timer || support;
    if (b.exact) {
        const float *q = b.desc.orientation;
        double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
        if (fabs(n2 - 1.0) > 1e-5) {
            return rb_read_fail_at(
                r, "orientation",
                "a saved state (with angular_momentum, sleep_timer or support) needs a unit quaternion "
                "(length %g)",
                sqrt(n2));
        }
    }
    if (b.is_static) {
        const float *v = b.desc.velocity, *w = b.desc.angular_velocity;
        if (v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f || w[0] != 0.0f || w[1] != 0.0f || w[2] != 0.0f)
            return rb_read_fail(
                r, "a static body never moves: give it no velocity or angular_velocity (or make it kinematic)");
    }
    if ((b.is_static || b.is_kinematic) && momentum)
        return rb_read_fail(r, "a static or kinematic body has no angular_momentum (its inertia is infinite); give "
                               "angular_velocity");
    if ((b.is_static || b.is_kinematic) && support)
        return rb_read_fail_at(r, "support", "a static or kinematic body has no support (its mass is infinite)");
    if (!reserve_bodies(s, 1, shape->particle_count, r)) return false;
    s->bodies[s->body_count++] = b;
    return true;
}

/* ---- reading: generators ---- */

static bool push(rb_scene *s, const rb_scene_body *t, const float position[3], const float orientation[4]) {
    rb_scene_body *b = &s->bodies[s->body_count++];
    *b = *t;
    memcpy(b->desc.position, position, sizeof b->desc.position);
    memcpy(b->desc.orientation, orientation, sizeof b->desc.orientation);
    return true;
}

static bool read_generator(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"type",  "shape",     "material", "static",    "kinematic", "scale",   "count",
                                       "rows",  "columns",   "height",   "radius",    "position",  "spacing", "gap",
                                       "walls", "formation", "lifetime", "breakable", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    char type[32];
    if (!rb_read_string(r, o, "type", type, sizeof type, true)) return false;
    rb_scene_body t;
    memset(&t, 0, sizeof t);
    t.scale = 1.0f;
    const rb_shape *shape = read_template(r, s, o, &t);
    if (!shape) return false;
    float h[3], origin[3] = {0, 0, 0}, gap = 0.0f;
    rb_shape_half_extents(shape, h);
    for (int k = 0; k < 3; k++) h[k] *= t.scale;
    const float size = 2.0f * fmaxf(h[0], fmaxf(h[1], h[2]));
    gap = 0.002f * size;
    if (!rb_read_vector(r, o, "position", 3, origin) || !rb_read_float(r, o, "gap", 0.0, 1e6, &gap)) return false;
    const float identity[4] = {0, 0, 0, 1};
    const double limit = RB_SCENE_MAX_BODIES;
    if (strcmp(type, "wall") == 0) {
        /* rows along x, running bond: every other row shifted half a body and
         * one body shorter, so no body overhangs the row below */
        uint32_t rows = 0, columns = 0;
        if (!rb_read_count(r, o, "rows", limit, &rows, true) ||
            !rb_read_count(r, o, "columns", limit, &columns, true) ||
            !reserve_bodies(s, (uint64_t)rows * columns, shape->particle_count, r))
            return false;
        for (uint32_t k = 0; k < rows; k++)
            for (uint32_t c = 0; c + (k % 2) < columns; c++) {
                float p[3] = {origin[0] + ((float)c - 0.5f * (float)(columns - 1)) * (2.0f * h[0] + gap) +
                                  (k % 2 ? 0.5f * (2.0f * h[0] + gap) : 0.0f),
                              origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap), origin[2]};
                push(s, &t, p, identity);
            }
    } else if (strcmp(type, "tower") == 0) {
        uint32_t height = 0;
        if (!rb_read_count(r, o, "height", limit, &height, true) ||
            !reserve_bodies(s, height, shape->particle_count, r))
            return false;
        for (uint32_t k = 0; k < height; k++) {
            float p[3] = {origin[0], origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap), origin[2]};
            push(s, &t, p, identity);
        }
    } else if (strcmp(type, "grid") == 0) {
        /* count [nx, ny, nz] bodies, spacing apart, the bottom layer centred on position */
        float n[3] = {1, 1, 1}, spacing[3] = {size + gap, size + gap, size + gap};
        if (!cJSON_GetObjectItemCaseSensitive(o, "count")) return rb_read_fail(r, "'count' is missing");
        if (!rb_read_vector(r, o, "count", 3, n) || !rb_read_vector(r, o, "spacing", 3, spacing)) return false;
        uint64_t total = 1;
        for (int k = 0; k < 3; k++) {
            if (!(n[k] >= 0.0f && n[k] == floorf(n[k]) && n[k] <= limit) || !(spacing[k] > 0.0f)) {
                return rb_read_fail_at(r, !(spacing[k] > 0.0f) ? "spacing" : "count",
                                       "expected whole counts from 0 to %.0f and spacings > 0", limit);
            }
            total *= (uint64_t)n[k]; /* each at most 2e6: the product fits in 64 bits */
        }
        if (!reserve_bodies(s, total, shape->particle_count, r)) return false;
        const uint32_t nx = (uint32_t)n[0], ny = (uint32_t)n[1], nz = (uint32_t)n[2];
        for (uint32_t y = 0; y < ny && total; y++)
            for (uint32_t z = 0; z < nz; z++)
                for (uint32_t x = 0; x < nx; x++) {
                    float p[3] = {origin[0] + ((float)x - 0.5f * (n[0] - 1.0f)) * spacing[0],
                                  origin[1] + h[1] + 0.5f * gap + (float)y * spacing[1],
                                  origin[2] + ((float)z - 0.5f * (n[2] - 1.0f)) * spacing[2]};
                    push(s, &t, p, identity);
                }
    } else if (strcmp(type, "ring") == 0) {
        /* count bodies on a circle of radius about position, each turned to face along the circle */
        uint32_t count = 0;
        float radius = 0.0f;
        if (!rb_read_count(r, o, "count", limit, &count, true) || !rb_read_float(r, o, "radius", 0.0, 1e6, &radius) ||
            !reserve_bodies(s, count, shape->particle_count, r))
            return false;
        for (uint32_t i = 0; i < count; i++) {
            float a = 6.2831853f * (float)i / (float)(count ? count : 1), q[4];
            rb_quat_from_axis_angle((const float[3]){0, 1, 0}, -a, q);
            float p[3] = {origin[0] + radius * cosf(a), origin[1] + h[1] + 0.5f * gap, origin[2] + radius * sinf(a)};
            push(s, &t, p, q);
        }
    } else if (strcmp(type, "pile") == 0) {
        uint32_t count = 0;
        bool walls = true;
        if (!rb_read_count(r, o, "count", limit, &count, true) || !rb_read_bool(r, o, "walls", &walls) ||
            !reserve_bodies(s, count, shape->particle_count, r))
            return false;
        for (uint32_t b = 0; b < count; b++) {
            float p[3], q[4];
            rb_pile_body_pose(b, p, q);
            for (int k = 0; k < 3; k++) p[k] += origin[k];
            push(s, &t, p, q);
        }
        if (walls) {
            rb_world_desc d = s->world;
            rb_pile_planes(&d);
            /* the four walls, after whatever planes the scene has */
            for (uint32_t i = 1; i < d.plane_count; i++) {
                if (s->world.plane_count >= RB_MAX_PLANES)
                    return rb_read_fail(r, "no room for the pile's walls: at most %d planes", RB_MAX_PLANES);
                s->world.planes[s->world.plane_count++] = d.planes[i];
            }
        }
    } else if (strcmp(type, "formation") == 0) {
        uint32_t count = 0, formation = 1;
        if (!rb_read_count(r, o, "formation", RB_FORMATION_COUNT, &formation, true) ||
            !rb_read_count(r, o, "count", limit, &count, true) || !reserve_bodies(s, count, shape->particle_count, r))
            return false;
        if (formation < 1) {
            return rb_read_fail_at(r, "formation", "formation takes 1 to %d", RB_FORMATION_COUNT);
        }
        for (uint32_t i = 0; i < count; i++) {
            float p[3];
            rb_formation_pose(shape, (int)formation, (int)count, (int)i, p);
            for (int k = 0; k < 3; k++) p[k] = p[k] * t.scale + origin[k];
            push(s, &t, p, identity);
        }
    } else {
        return rb_read_fail_at(r, "type", "unknown generator '%s' (wall, tower, grid, ring, pile, formation)", type);
    }
    return true;
}

/* ---- reading: world, materials, planes ---- */

static bool read_material(rb_reader *r, const cJSON *o, rb_material *m) {
    static const char *const keys[] = {"restitution", "friction", "contact_time", "rolling_friction", NULL};
    if (!cJSON_IsObject(o))
        return rb_read_fail(r, "expected an object with restitution, friction, contact_time, rolling_friction");
    if (!rb_read_check_keys(r, o, keys)) return false;
    return rb_read_float(r, o, "restitution", 0.0, 1.0, &m->restitution) &&
           rb_read_float(r, o, "friction", 0.0, 1e6, &m->friction) &&
           rb_read_float(r, o, "contact_time", 1e-9, 1e6, &m->contact_time) &&
           rb_read_float(r, o, "rolling_friction", 0.0, 1.0, &m->rolling_friction);
}

/* The world's checks (rb_world_desc_check) for the world with material m, at key path. */
static bool check_world(rb_reader *r, const rb_world_desc *w, const rb_material *m) {
    rb_world_desc d = *w;
    d.material = *m;
    char why[512];
    if (rb_world_desc_check(&d, why, sizeof why)) return true;
    return rb_read_fail(r, "%s", why);
}

static bool read_world(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"gravity", "dt", "sleep", "contact_slots", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!rb_read_vector(r, o, "gravity", 3, s->world.gravity) || !rb_read_float(r, o, "dt", 1e-7, 1.0, &s->world.dt))
        return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "contact_slots")) {
        size_t at = rb_read_enter(r, "contact_slots", 0);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "contact_slots");
        if (!cJSON_IsNumber(v) || (v->valuedouble != 4.0 && v->valuedouble != 8.0))
            return rb_read_fail(r, "expected 4 or 8 (contacts a particle remembers; leave it out to have them "
                                   "chosen from the bodies)");
        s->world.contact_slots = (uint32_t)v->valuedouble;
        rb_read_leave(r, at);
    }
    const cJSON *sleep = cJSON_GetObjectItemCaseSensitive(o, "sleep");
    if (!sleep) return true;
    size_t len = rb_read_enter(r, "sleep", 0);
    bool ok = true;
    if (cJSON_IsBool(sleep)) {
        if (cJSON_IsFalse(sleep)) s->world.sleep_time = 0.0f;
    } else if (cJSON_IsObject(sleep)) {
        static const char *const sleep_keys[] = {"speed", "time", NULL};
        if (!rb_read_check_keys(r, sleep, sleep_keys)) return false;
        ok = rb_read_float(r, sleep, "speed", 0.0, 1e6, &s->world.sleep_speed) &&
             rb_read_float(r, sleep, "time", 0.0, 1e6, &s->world.sleep_time);
    } else {
        ok = rb_read_fail(r, "expected true, false or {\"speed\": m/s, \"time\": s}");
    }
    rb_read_leave(r, len);
    return ok;
}

static bool read_named_material(rb_reader *r, rb_scene *s, const cJSON *m) {
    size_t len = rb_read_enter(r, m->string, 0);
    rb_scene_material *slot = NULL;
    if (strcmp(m->string, "default") == 0)
        slot = &s->materials[0];
    else if (s->material_count >= RB_SCENE_MAX_MATERIALS)
        return rb_read_fail(r, "at most %u materials", RB_SCENE_MAX_MATERIALS);
    else if (strlen(m->string) >= RB_SCENE_NAME_SIZE || !m->string[0])
        return rb_read_fail(r, "a material needs a name of 1 to %d characters", RB_SCENE_NAME_SIZE - 1);
    else
        slot = &s->materials[s->material_count++];
    snprintf(slot->name, sizeof slot->name, "%s", m->string);
    slot->material = s->materials[0].material; /* unset keys: the default's */
    if (!read_material(r, m, &slot->material) || !check_world(r, &s->world, &slot->material)) return false;
    rb_read_leave(r, len);
    return true;
}

static bool read_materials(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object of named materials");
    if (!rb_read_check_keys(r, o, NULL)) return false;
    /* "default" first, wherever it stands: the others start from it */
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(o, "default");
    if (def && !read_named_material(r, s, def)) return false;
    for (const cJSON *m = o->child; m; m = m->next)
        if (m != def && !read_named_material(r, s, m)) return false;
    s->world.material = s->materials[0].material;
    return true;
}

static bool read_planes(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected an array of planes");
    int n = cJSON_GetArraySize(o);
    if (n > RB_MAX_PLANES) return rb_read_fail(r, "at most %d planes (got %d)", RB_MAX_PLANES, n);
    s->world.plane_count = 0;
    for (int i = 0; i < n; i++) {
        size_t len = rb_read_enter(r, NULL, i);
        const cJSON *p = cJSON_GetArrayItem(o, i);
        static const char *const keys[] = {"normal", "offset", NULL};
        if (!cJSON_IsObject(p)) return rb_read_fail(r, "expected {\"normal\": [x, y, z], \"offset\": m}");
        if (!rb_read_check_keys(r, p, keys)) return false;
        rb_plane plane = {.normal = {0, 1, 0}};
        if (!rb_read_vector(r, p, "normal", 3, plane.normal) ||
            !rb_read_float(r, p, "offset", -1e9, 1e9, &plane.offset))
            return false;
        double n2 = 0.0;
        for (int k = 0; k < 3; k++) n2 += (double)plane.normal[k] * plane.normal[k];
        if (!(n2 > 0.0)) return rb_read_fail(r, "normal: a zero vector has no direction");
        for (int k = 0; k < 3; k++) plane.normal[k] = (float)(plane.normal[k] / sqrt(n2));
        s->world.planes[s->world.plane_count++] = plane;
        rb_read_leave(r, len);
    }
    return true;
}

static bool read_list(rb_reader *r, rb_scene *s, const cJSON *o, bool (*one)(rb_reader *, rb_scene *, const cJSON *)) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected an array");
    int i = 0;
    for (const cJSON *e = o->child; e; e = e->next, i++) {
        size_t len = rb_read_enter(r, NULL, i);
        if (!one(r, s, e)) return false;
        rb_read_leave(r, len);
    }
    return true;
}

/* One of the camera's bookmarks: an object with position, yaw and pitch, or
 * null for an empty slot (docs/scene-format.md, "camera"). */
static bool read_bookmark(rb_reader *r, const cJSON *o, rb_scene_bookmark *b) {
    static const char *const keys[] = {"position", "yaw", "pitch", NULL};
    if (cJSON_IsNull(o)) return true;
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected null or an object with position, yaw and pitch");
    if (!rb_read_check_keys(r, o, keys)) return false;
    for (int k = 0; k < 3; k++)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[k])) return rb_read_fail(r, "'%s' is missing", keys[k]);
    b->set = true;
    return rb_read_vector(r, o, "position", 3, b->position) && rb_read_float(r, o, "yaw", -1e6, 1e6, &b->yaw) &&
           rb_read_float(r, o, "pitch", -RB_SCENE_PITCH_LIMIT, RB_SCENE_PITCH_LIMIT, &b->pitch);
}

static bool read_camera(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"bookmarks", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object with \"bookmarks\"");
    if (!rb_read_check_keys(r, o, keys)) return false;
    s->has_camera = true;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "bookmarks");
    if (!list) return true;
    size_t len = rb_read_enter(r, "bookmarks", 0);
    const int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 0) return rb_read_fail(r, "expected an array of up to %d bookmarks", RB_SCENE_BOOKMARKS);
    if (n > RB_SCENE_BOOKMARKS) return rb_read_fail(r, "at most %d bookmarks (got %d)", RB_SCENE_BOOKMARKS, n);
    for (int i = 0; i < n; i++) {
        size_t at = rb_read_enter(r, NULL, i);
        if (!read_bookmark(r, cJSON_GetArrayItem(list, i), &s->bookmarks[i])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* Line and column (from 1) of offset `at` in text. */
static void line_column(const char *text, const char *at, int *line, int *column) {
    *line = 1, *column = 1;
    for (const char *c = text; c < at && *c; c++)
        if (*c == '\n')
            (*line)++, *column = 1;
        else
            (*column)++;
}

rb_scene *rb_scene_parse(const char *text, const char *name, const rb_registry *registry, char *err, size_t err_size) {
    rb_reader r = {.file = name, .registry = registry, .err = err, .err_size = err_size};
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (!root) {
        int line, column;
        line_column(text, end ? end : text, &line, &column);
        rb_read_fail(&r, "not JSON: a syntax error at line %d, column %d", line, column);
        return NULL;
    }
    rb_scene *s = rb_scene_create(name);
    if (!s) {
        cJSON_Delete(root);
        snprintf(err, err_size, "%s: out of memory", name);
        return NULL;
    }
    static const char *const keys[] = {"rubble_scene", "world",  "materials", "planes", "bodies", "generators",
                                       "contacts",     "camera", "emitters",  "fields", "debris", NULL};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "rubble_scene");
    size_t len;
    if (!cJSON_IsObject(root)) {
        rb_read_fail(&r, "expected a JSON object with \"rubble_scene\": %d", RB_SCENE_VERSION);
    } else if (!v) {
        rb_read_fail(&r, "not a scene file: no \"rubble_scene\" version key");
    } else if (!cJSON_IsNumber(v)) {
        rb_read_fail_at(&r, "rubble_scene", "expected the version number %d", RB_SCENE_VERSION);
    } else if (v->valuedouble != RB_SCENE_VERSION) {
        rb_read_fail_at(&r, "rubble_scene", "version %g is not one this program reads (it reads %d)", v->valuedouble,
                        RB_SCENE_VERSION);
    } else {
        rb_read_check_keys(&r, root, keys);
        /* In this order, whatever the file's: materials need the world's
         * step, bodies the materials, the pile generator the planes, the
         * contacts every body's particles and every plane. */
        static const char *const order[] = {"world",      "materials", "planes", "bodies",
                                            "generators", "contacts",  "camera"};
        for (size_t k = 0; k < sizeof order / sizeof *order && !r.failed; k++) {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, order[k]);
            if (!o) continue;
            len = rb_read_enter(&r, order[k], 0);
            switch (k) {
            case 0:
                read_world(&r, s, o);
                break;
            case 1:
                read_materials(&r, s, o);
                break;
            case 2:
                read_planes(&r, s, o);
                break;
            case 3:
                read_list(&r, s, o, read_body);
                break;
            case 4:
                read_list(&r, s, o, read_generator);
                break;
            case 5:
                rb_read_contacts(&r, s, o);
                break;
            default:
                read_camera(&r, s, o);
                break;
            }
            rb_read_leave(&r, len);
        }
        if (!r.failed) check_world(&r, &s->world, &s->world.material);
        /* After the bodies: a body's lifetime makes the scene one with debris. */
        if (!r.failed) rb_read_debris(&r, s, root);
    }
    cJSON_Delete(root);
    if (r.failed) {
        rb_scene_destroy(s);
        return NULL;
    }
    return s;
}

rb_scene *rb_scene_load(const char *path, const rb_registry *registry, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s: not a file", path);
        fclose(f);
        return NULL;
    }
    /* Scene files are text of at most a few hundred MB (a saved pile of a million bodies). */
    const long max_bytes = 1L << 30;
    char *text = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n <= max_bytes && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
    } else {
        snprintf(err, err_size, "%s: cannot read%s", path, n > max_bytes ? ": larger than 1 GiB" : "");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    if (strlen(text) != (size_t)n) {
        snprintf(err, err_size, "%s: not a text file (a NUL byte at offset %zu)", path, strlen(text));
        free(text);
        return NULL;
    }
    rb_scene *s = rb_scene_parse(text, path, registry, err, err_size);
    free(text);
    return s;
}
