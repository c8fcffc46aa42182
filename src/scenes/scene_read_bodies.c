/* scene_read_bodies.c - reading a scene's `bodies`: each body's keys, and
 * what a body and a generator share (shape, material, colours, scale,
 * lifetime, breakable), within the scene's limits on bodies and particles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "scene_read_internal.h"

bool rb_read_reserve_bodies(rb_scene *s, uint64_t n, uint32_t particles, rb_reader *r) {
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

const rb_shape *rb_read_template(rb_reader *r, const rb_scene *s, const cJSON *o, rb_scene_body *t) {
    if (!rb_read_string(r, o, "shape", t->shape, sizeof t->shape, true)) return NULL;
    size_t len = rb_read_enter(r, "shape", 0);
    /* a saved world's own shape (the top level's `shapes`), else the registry's */
    const int saved = rb_read_saved_shape(s, t->shape);
    t->saved_shape = saved >= 0 ? (uint32_t)saved + 1 : 0;
    const rb_shape *shape = saved >= 0 ? &s->shapes[saved] : rb_read_find_shape(r, t->shape);
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
    /* the material's colours, under the body's own */
    t->colors = s->materials[t->material].colors;
    if (!rb_read_colors(r, o, &t->colors)) return NULL;
    if (!rb_read_bool(r, o, "static", &t->is_static) || !rb_read_bool(r, o, "kinematic", &t->is_kinematic)) return NULL;
    if (t->is_static && t->is_kinematic) return rb_read_fail(r, "a body is static or kinematic, not both"), NULL;
    if (!rb_read_float(r, o, "scale", -INFINITY, INFINITY, &t->scale)) return NULL;
    if (!(t->scale > 0.0f)) return rb_read_fail_at(r, "scale", "scale must be greater than 0 (got %g)", t->scale), NULL;
    if (!(t->scale >= 0.01f && t->scale <= 100.0f))
        return rb_read_fail_at(r, "scale", "scale %g is out of range [0.01, 100]", t->scale), NULL;
    if (t->saved_shape && t->scale != 1.0f)
        return rb_read_fail_at(r, "scale", "a saved shape ('%s') is at its own size: scale 1", t->shape), NULL;
    /* s; a body with one is debris (debris.h), removed when its time is up */
    if (!rb_read_float(r, o, "lifetime", 0.0, 1e9, &t->lifetime)) return NULL;
    if (!rb_read_breakable(r, o, t)) return NULL;
    /* pattern 'parts' asks for a pre-fractured mesh's parts, which the mesh
     * plugin refuses (said as it loads) when they overlap, miss particles or
     * are one: the body then stays whole, and the scene loads */
    const cJSON *pattern =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "breakable"), "pattern");
    const bool parts = cJSON_IsString(pattern) && strcmp(pattern->valuestring, "parts") == 0;
    if (t->breakable && t->fracture.kind == RB_FRACTURE_GIVEN && !shape->pieces && parts) {
        size_t in = rb_read_enter(r, "breakable", 0);
        rb_log(RB_LOG_WARN,
               "%s: %s: pattern 'parts': shape '%s' has no parts (its side file asks for none, or they were "
               "refused as it loaded: see the mesh plugin's message); the body does not break",
               r->file, r->path, t->shape);
        rb_read_leave(r, in);
        t->breakable = false;
    }
    if (t->breakable && t->fracture.kind == RB_FRACTURE_GIVEN && !shape->pieces)
        return rb_read_fail_at(r, "breakable", "pattern 'plugin': shape '%s' gives no pieces (its plugin's are none)",
                               t->shape),
               NULL;
    const bool counted = t->fracture.kind == RB_FRACTURE_VORONOI || t->fracture.kind == RB_FRACTURE_LAYERS ||
                         t->fracture.kind == RB_FRACTURE_SLICES;
    if (t->breakable && counted && t->fracture.pieces > shape->particle_count) {
        size_t in = rb_read_enter(r, "breakable", 0), at = rb_read_enter(r, "pieces", 0);
        rb_log(RB_LOG_WARN, "%s: %s: %u pieces of a %u-particle shape: %u, a piece a particle", r->file, r->path,
               t->fracture.pieces, shape->particle_count, shape->particle_count);
        rb_read_leave(r, at), rb_read_leave(r, in);
        t->fracture.pieces = shape->particle_count;
    }
    if (t->breakable && (t->is_static || t->is_kinematic))
        return rb_read_fail_at(r, "breakable", "only a dynamic body breaks (this one is static or kinematic)"), NULL;
    /* structures (docs/structures.md) */
    char assembly[RB_SCENE_NAME_SIZE] = "";
    if (!rb_read_bool(r, o, "asleep", &t->asleep) || !rb_read_bool(r, o, "anchored", &t->anchored) ||
        !rb_read_string(r, o, "assembly", assembly, sizeof assembly, false))
        return NULL;
    if (assembly[0]) {
        for (uint32_t j = 0; j < s->assembly_count && !t->assembly; j++)
            if (strcmp(s->assemblies[j].name, assembly) == 0) t->assembly = j + 1;
        if (!t->assembly)
            return rb_read_fail_at(r, "assembly", "no assembly '%s' (the top level's \"assemblies\" names them)",
                                   assembly),
                   NULL;
    }
    if ((t->asleep || t->anchored || t->assembly) && (t->is_static || t->is_kinematic))
        return rb_read_fail(r, "only a dynamic body starts asleep, is anchored or is a part of an assembly"), NULL;
    if (t->asleep && t->anchored) return rb_read_fail(r, "a body is asleep or anchored, not both"), NULL;
    if (t->assembly && t->asleep)
        return rb_read_fail_at(r, "asleep", "a part sleeps with its assembly: give \"asleep\" to the assembly"), NULL;
    snprintf(t->origin, sizeof t->origin, "%.31s", r->path);
    return shape;
}

static bool read_orientation(rb_reader *r, const cJSON *o, float q[4]) {
    if (!rb_read_vector(r, o, "orientation", 4, q)) return false;
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) {
        return rb_read_fail_at(r, "orientation", "a zero quaternion is no rotation (the identity is [0, 0, 0, 1])");
    }
    rb_read_quat_rescale(q);
    return true;
}

/* A saved state (a body with angular_momentum, sleep_timer or support, as
 * rubble writes it) may move this many times faster than a new body: the
 * world the simulation ran got there (a body placed inside the ground and
 * pushed out of it leaves at 1.3 times the bound), and a saved world loads
 * again as it was saved. Energy is gained only from about 800 times. */
#define RB_SAVED_SPEED_TIMES 100.0

/* The speeds a body may start at: its velocity's size and its angular
 * velocity's within what the step carries (rb_read_check_speed). */
static bool check_speeds(rb_reader *r, const rb_scene *s, const rb_shape *shape, const rb_scene_body *b) {
    const float *v = b->desc.velocity, *w = b->desc.angular_velocity;
    const double speed = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    const double spin = sqrt((double)w[0] * w[0] + (double)w[1] * w[1] + (double)w[2] * w[2]);
    const double times = b->exact ? RB_SAVED_SPEED_TIMES : 1.0;
    return rb_read_check_speed(r, "velocity", speed, s->world.dt, shape, b->scale, times) &&
           rb_read_check_spin(r, "angular_velocity", spin, s->world.dt, shape, b->scale, times);
}

bool rb_read_body(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"shape",
                                       "position",
                                       "orientation",
                                       "velocity",
                                       "angular_velocity",
                                       "angular_momentum",
                                       "sleep_timer",
                                       "support",
                                       "material",
                                       "static",
                                       "kinematic",
                                       "scale",
                                       "lifetime",
                                       "breakable",
                                       "color",
                                       "inside_color",
                                       "asleep",
                                       "anchored",
                                       "assembly",
                                       "name",
                                       "path",
                                       "pieces",
                                       NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    rb_scene_body b;
    memset(&b, 0, sizeof b);
    b.desc.orientation[3] = 1.0f;
    b.scale = 1.0f;
    const rb_shape *shape = rb_read_template(r, s, o, &b);
    if (!shape || !rb_read_name_and_path(r, s, o, &b)) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "position") && !b.path) return rb_read_fail(r, "'position' is missing");
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
        !rb_read_float(r, o, "sleep_timer", -2.0, 1e30, &b.sleep_timer) ||
        !rb_read_float(r, o, "support", 0.0, 1e30, &b.support))
        return false;
    if (b.sleep_timer < 0.0f && b.sleep_timer != -1.0f && b.sleep_timer != -2.0f)
        return rb_read_fail_at(r, "sleep_timer", "%g: a timer is >= 0 s, or -1 (dormant) or -2 (anchored)",
                               b.sleep_timer);
    b.exact = momentum || timer || support;
    if (!check_speeds(r, s, shape, &b)) return false;
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
    if ((b.asleep || b.anchored) && (rb_v3_dot(b.desc.velocity, b.desc.velocity) > 0.0f ||
                                     rb_v3_dot(b.desc.angular_velocity, b.desc.angular_velocity) > 0.0f))
        return rb_read_fail(r, "a body asleep or anchored starts at rest: give it no velocity");
    if ((b.is_static || b.is_kinematic) && momentum)
        return rb_read_fail(r, "a static or kinematic body has no angular_momentum (its inertia is infinite); give "
                               "angular_velocity");
    if ((b.is_static || b.is_kinematic) && support)
        return rb_read_fail_at(r, "support", "a static or kinematic body has no support (its mass is infinite)");
    if (!rb_read_body_pieces(r, s, o, shape, &b)) return false;
    if (!rb_read_reserve_bodies(s, 1, shape->particle_count, r)) return false;
    s->bodies[s->body_count++] = b;
    return true;
}
