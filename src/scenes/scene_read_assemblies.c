/* scene_read_assemblies.c - reading a scene's structures
 * (docs/scene-format.md, "Structures"): the top level's `assemblies`, a
 * generator's `glue`, and the checks that need every body read: an
 * assembly's parts, and that what is anchored touches something to be
 * anchored to. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rb_math.h"
#include "scene_read_internal.h"

/* One assembly's keys (strength, anchored, asleep) from o into a. */
static bool read_assembly_keys(rb_reader *r, const cJSON *o, rb_scene_assembly *a) {
    a->strength = RB_FRACTURE_STRENGTH;
    if (!rb_read_float(r, o, "strength", -INFINITY, INFINITY, &a->strength) ||
        !rb_read_bool(r, o, "anchored", &a->anchored) || !rb_read_bool(r, o, "asleep", &a->asleep))
        return false;
    if (!(a->strength > 0.0f) || !isfinite(a->strength))
        return rb_read_fail_at(r, "strength", "%g N: a bond must hold a finite force > 0", a->strength);
    if (a->anchored && a->asleep)
        return rb_read_fail(r, "an assembly is anchored or asleep, not both (an anchored one never moves)");
    return true;
}

/* Room for one more assembly. */
static rb_scene_assembly *new_assembly(rb_reader *r, rb_scene *s) {
    if (s->assembly_count == RB_SCENE_MAX_ASSEMBLIES)
        return rb_read_fail(r, "more than %u assemblies", RB_SCENE_MAX_ASSEMBLIES), NULL;
    rb_scene_assembly *a = &s->assemblies[s->assembly_count];
    memset(a, 0, sizeof *a);
    return a;
}

bool rb_read_assemblies(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"name", "strength", "anchored", "asleep", NULL};
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected a list of assemblies");
    int k = 0;
    for (const cJSON *e = o->child; e; e = e->next, k++) {
        const size_t len = rb_read_enter(r, NULL, k);
        rb_scene_assembly *a = new_assembly(r, s);
        if (!a || !cJSON_IsObject(e)) return a ? rb_read_fail(r, "expected an object") : false;
        if (!rb_read_check_keys(r, e, keys) || !rb_read_string(r, e, "name", a->name, sizeof a->name, true) ||
            !read_assembly_keys(r, e, a))
            return false;
        if (!a->name[0]) return rb_read_fail_at(r, "name", "an assembly's name is not empty");
        for (uint32_t j = 0; j < s->assembly_count; j++)
            if (strcmp(s->assemblies[j].name, a->name) == 0)
                return rb_read_fail_at(r, "name", "'%s' names %s already", a->name, s->assemblies[j].origin);
        snprintf(a->origin, sizeof a->origin, "assemblies[%d]", k);
        s->assembly_count++;
        rb_read_leave(r, len);
    }
    return true;
}

bool rb_read_glue(rb_reader *r, rb_scene *s, const cJSON *o, const char *origin, uint32_t *assembly) {
    static const char *const keys[] = {"strength", "anchored", "asleep", NULL};
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "glue");
    if (!g) return true;
    const size_t len = rb_read_enter(r, "glue", 0);
    rb_scene_assembly *a = new_assembly(r, s);
    if (!a) return false;
    if (!cJSON_IsObject(g)) return rb_read_fail(r, "expected an object (strength, anchored, asleep)");
    if (!rb_read_check_keys(r, g, keys) || !read_assembly_keys(r, g, a)) return false;
    if (*assembly) return rb_read_fail(r, "a generator glues its bodies, or names an assembly, not both");
    snprintf(a->origin, sizeof a->origin, "%s.glue", origin);
    *assembly = ++s->assembly_count;
    rb_read_leave(r, len);
    return true;
}

/* A body's particles' centres (world, m) and radius: shape's, scaled, placed. */
static uint32_t body_particles(const rb_shape *shape, const rb_scene_body *b, float *out, float *radius) {
    float q[4] = {b->desc.orientation[0], b->desc.orientation[1], b->desc.orientation[2], b->desc.orientation[3]};
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) q[3] = 1.0f;
    rb_quat_normalize(q);
    for (uint32_t i = 0; out && i < shape->particle_count; i++) {
        const float o[3] = {shape->particles[3 * i] * b->scale, shape->particles[3 * i + 1] * b->scale,
                            shape->particles[3 * i + 2] * b->scale};
        rb_quat_rotate(q, o, &out[3 * i]);
        for (int k = 0; k < 3; k++) out[3 * i + k] += b->desc.position[k];
    }
    *radius = shape->particle_radius * b->scale;
    return shape->particle_count;
}

/* Within a quarter radius of touching (the reach glue bonds with, debris_glue.c). */
#define RB_TOUCH_SLACK 1.25f

/* True if body b (its shape `shape`) touches a plane or a static body of s. */
static bool touches_ground(rb_reader *r, const rb_scene *s, const rb_shape *shape, const rb_scene_body *b) {
    float mine[3 * 4096], rb = 0.0f;
    if (shape->particle_count > 4096) return true; /* too big to check here: the world will hold it */
    const uint32_t n = body_particles(shape, b, mine, &rb);
    const rb_world_desc *w = &s->world;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < w->plane_count; k++) {
            const float *nrm = w->planes[k].normal;
            const float height = nrm[0] * mine[3 * i] + nrm[1] * mine[3 * i + 1] + nrm[2] * mine[3 * i + 2] -
                                 w->planes[k].offset;
            if (height <= RB_TOUCH_SLACK * rb) return true;
        }
    for (uint32_t j = 0; j < s->body_count; j++) {
        const rb_scene_body *o = &s->bodies[j];
        if (!o->is_static) continue;
        const rb_shape *other = rb_read_find_shape(r, o->shape);
        if (!other || other->particle_count > 4096) continue;
        float theirs[3 * 4096], ro = 0.0f;
        const uint32_t m = body_particles(other, o, theirs, &ro);
        const float reach = RB_TOUCH_SLACK * (rb + ro), reach2 = reach * reach;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < m; k++) {
                const float dx = mine[3 * i] - theirs[3 * k], dy = mine[3 * i + 1] - theirs[3 * k + 1],
                            dz = mine[3 * i + 2] - theirs[3 * k + 2];
                if (dx * dx + dy * dy + dz * dz <= reach2) return true;
            }
    }
    return false;
}

bool rb_read_check_structures(rb_reader *r, rb_scene *s) {
    /* an assembly's parts: one particle size, no lifetimes, not too many */
    for (uint32_t a = 0; a < s->assembly_count; a++) {
        rb_scene_assembly *as = &s->assemblies[a];
        const size_t len = rb_read_enter(r, as->origin, 0);
        uint32_t parts = 0, grounded = 0;
        float radius = 0.0f;
        const char *first = NULL;
        for (uint32_t i = 0; i < s->body_count; i++) {
            rb_scene_body *b = &s->bodies[i];
            if (b->assembly != a + 1) continue;
            const rb_shape *shape = rb_read_find_shape(r, b->shape);
            if (!shape) return false;
            const float rad = shape->particle_radius * b->scale;
            if (parts == 0) radius = rad, first = b->origin;
            if (fabsf(rad - radius) > 1e-5f * radius)
                return rb_read_fail(r, "%s's particles are %g m across, %s's %g m: an assembly's parts have "
                                       "particles of one size",
                                    b->origin, 2.0 * rad, first, 2.0 * radius);
            if (b->lifetime > 0.0f)
                return rb_read_fail(r, "%s has a lifetime: a part of an assembly has none of its own", b->origin);
            if (as->anchored && touches_ground(r, s, shape, b)) b->anchored = true, grounded++;
            parts++;
        }
        if (parts == 0)
            return rb_read_fail(r, "no body is a part of it (give bodies or a generator \"assembly\": \"%s\")",
                                as->name);
        if (parts > 100000u) return rb_read_fail(r, "%u parts: an assembly has at most 100000", parts);
        if (as->anchored && grounded == 0)
            return rb_read_fail(r, "anchored, but none of its parts touches a plane or a static body");
        rb_read_leave(r, len);
    }
    /* whatever is anchored on its own touches something to hold to */
    for (uint32_t i = 0; i < s->body_count; i++) {
        const rb_scene_body *b = &s->bodies[i];
        if (!b->anchored || (b->assembly && s->assemblies[b->assembly - 1].anchored)) continue;
        const size_t len = rb_read_enter(r, b->origin, 0);
        const rb_shape *shape = rb_read_find_shape(r, b->shape);
        if (!shape) return false;
        if (!touches_ground(r, s, shape, b))
            return rb_read_fail_at(r, "anchored", "it touches no plane and no static body, so nothing can hold it");
        rb_read_leave(r, len);
    }
    return true;
}
