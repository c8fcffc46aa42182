/* scene_read_shapes.c - reading a saved world's own shapes (the top level's
 * `shapes`: a broken body's pieces, a glued assembly) and a breakable
 * body's world piece state (a body's `pieces`), docs/scene-format.md. Every
 * value is checked; lists are as long as the file makes them, so memory is
 * bounded by its size. Calls only the reader's toolkit (scene_read_base.c,
 * scene_mesh.c). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_mesh.h"
#include "scene_read_internal.h"

int rb_read_saved_shape(const rb_scene *s, const char *name) {
    for (uint32_t k = 0; k < s->shape_count; k++)
        if (strcmp(s->shapes[k].name, name) == 0) return (int)k;
    return -1;
}

static bool positive(rb_reader *r, const cJSON *o, const char *key, float *out) {
    if (!cJSON_GetObjectItemCaseSensitive(o, key)) return rb_read_fail(r, "'%s' is missing", key);
    if (!rb_read_float(r, o, key, -FLT_MAX, FLT_MAX, out)) return false;
    if (!(*out > 0.0f)) return rb_read_fail_at(r, key, "%g is not greater than 0", *out);
    return true;
}

static bool read_shape(rb_reader *r, rb_scene *s, const cJSON *o, rb_shape *sh) {
    static const char *const keys[] = {"name", "radius", "mass", "inertia", "particles", "mesh", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"name\": ..., \"particles\": [...]}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!rb_read_string(r, o, "name", sh->name, sizeof sh->name, true)) return false;
    if (!sh->name[0]) return rb_read_fail_at(r, "name", "a shape's name is not empty");
    if (rb_read_saved_shape(s, sh->name) >= 0)
        return rb_read_fail_at(r, "name", "another shape is named '%s' already", sh->name);
    if (rb_registry_find(r->registry, sh->name) >= 0)
        return rb_read_fail_at(r, "name", "'%s' is a registry shape's name: a saved shape needs its own", sh->name);
    if (!positive(r, o, "radius", &sh->particle_radius) || !positive(r, o, "mass", &sh->mass)) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "inertia")) return rb_read_fail(r, "'inertia' is missing");
    if (!rb_read_vector(r, o, "inertia", 3, sh->inertia)) return false;
    for (int k = 0; k < 3; k++)
        if (!(sh->inertia[k] > 0.0f))
            return rb_read_fail_at(r, "inertia", "principal moment %d (%g) is not greater than 0", k, sh->inertia[k]);
    uint32_t n = 0;
    if (!rb_read_floats(r, o, "particles", 3, true, &sh->particles, &n)) return false;
    sh->particle_count = n / 3;
    if (sh->particle_count == 0) return rb_read_fail_at(r, "particles", "a shape has at least one particle");
    if (sh->particle_count > RB_SCENE_MAX_PARTICLES)
        return rb_read_fail_at(r, "particles", "%u particles; the limit is %u", sh->particle_count,
                               RB_SCENE_MAX_PARTICLES);
    float far = 0.0f;
    for (uint32_t i = 0; i < sh->particle_count; i++) {
        const float *p = &sh->particles[3 * i];
        far = fmaxf(far, sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
    sh->bounding_radius = far + sh->particle_radius;
    const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
    if (!mesh) return true;
    size_t in = rb_read_enter(r, "mesh", 0);
    const bool ok = rb_read_mesh(r, mesh, &sh->mesh);
    rb_read_leave(r, in);
    return ok;
}

bool rb_read_shapes(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected a list of shapes");
    const int n = cJSON_GetArraySize(o);
    s->shapes = calloc(n ? (size_t)n : 1, sizeof *s->shapes);
    if (!s->shapes) return rb_read_fail(r, "out of memory for %d shapes", n);
    int k = 0;
    for (const cJSON *e = o->child; e; e = e->next, k++) {
        size_t at = rb_read_enter(r, NULL, k);
        /* counted once read, failed or not: rb_scene_destroy frees what it holds */
        const bool ok = read_shape(r, s, e, &s->shapes[s->shape_count]);
        s->shape_count++;
        if (!ok) return false;
        rb_read_leave(r, at);
    }
    return true;
}

/* The `peaks` list: a number >= 0 a piece, or "inf" (a piece that holds
 * nothing, loaded: world.h, rb_world_piece_loads). */
static bool read_peaks(rb_reader *r, const cJSON *o, uint32_t count, float *peak) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "peaks");
    size_t in = rb_read_enter(r, "peaks", 0);
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != (int)count)
        return rb_read_fail(r, "expected a list of %u loads, one a piece", count);
    uint32_t i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "inf") == 0)
            peak[i] = INFINITY;
        else if (cJSON_IsNumber(e) && e->valuedouble >= 0.0 && isfinite((float)e->valuedouble))
            peak[i] = (float)e->valuedouble;
        else
            return rb_read_fail(r, "element %u is not a number >= 0 or \"inf\"", i);
    }
    rb_read_leave(r, in);
    return true;
}

static bool read_pieces(rb_reader *r, const cJSON *o, const rb_shape *shape, rb_scene_pieces *p) {
    static const char *const keys[] = {"of", "centres", "masses", "holds", "peaks", "taken", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"of\": [...], \"centres\": [...], ...}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    /* the piece count: the masses' */
    const cJSON *masses = cJSON_GetObjectItemCaseSensitive(o, "masses");
    const int pc = cJSON_IsArray(masses) ? cJSON_GetArraySize(masses) : -1;
    if (pc < 2 || (uint32_t)pc > shape->particle_count)
        return rb_read_fail_at(r, "masses", "expected a list of 2 to %u masses, one a piece", shape->particle_count);
    p->piece_count = (uint32_t)pc;
    uint32_t n = 0;
    if (!rb_read_uints(r, o, "of", p->piece_count, true, &p->piece_of, &n)) return false;
    if (n != shape->particle_count)
        return rb_read_fail_at(r, "of", "%u pieces for the shape's %u particles", n, shape->particle_count);
    p->particle_count = n;
    float *centres = NULL, *mass = NULL, *holds = NULL;
    uint32_t nc = 0, nm = 0, nh = 0;
    bool ok = rb_read_floats(r, o, "centres", 3, true, &centres, &nc) &&
              rb_read_floats(r, o, "masses", 1, true, &mass, &nm) &&
              rb_read_floats(r, o, "holds", 1, true, &holds, &nh);
    if (ok && nc != 3 * p->piece_count)
        ok = rb_read_fail_at(r, "centres", "%u numbers for %u pieces' centres", nc, p->piece_count);
    if (ok && nh != p->piece_count) ok = rb_read_fail_at(r, "holds", "%u holds for %u pieces", nh, p->piece_count);
    p->pieces = ok ? calloc(p->piece_count, sizeof *p->pieces) : NULL;
    p->peak = ok ? calloc(p->piece_count, sizeof *p->peak) : NULL;
    if (ok && (!p->pieces || !p->peak)) ok = rb_read_fail(r, "out of memory");
    for (uint32_t k = 0; ok && k < p->piece_count; k++) {
        if (!(mass[k] > 0.0f)) ok = rb_read_fail_at(r, "masses", "piece %u's mass %g is not greater than 0", k, mass[k]);
        if (ok && !(holds[k] >= 0.0f)) ok = rb_read_fail_at(r, "holds", "piece %u's hold %g is below 0", k, holds[k]);
        if (ok) p->pieces[k] = (rb_piece_desc){{centres[3 * k], centres[3 * k + 1], centres[3 * k + 2]}, mass[k], holds[k]};
    }
    free(centres), free(mass), free(holds);
    return ok && read_peaks(r, o, p->piece_count, p->peak) && rb_read_bool(r, o, "taken", &p->taken);
}

bool rb_read_body_pieces(rb_reader *r, rb_scene *s, const cJSON *o, const rb_shape *shape, rb_scene_body *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "pieces");
    if (!v) return true;
    size_t in = rb_read_enter(r, "pieces", 0);
    if (b->is_static || b->is_kinematic) return rb_read_fail(r, "only a dynamic body has pieces");
    if (s->piece_state_count == s->piece_state_capacity) {
        const uint32_t cap = s->piece_state_capacity ? 2 * s->piece_state_capacity : 8;
        rb_scene_pieces *grown = realloc(s->pieces, cap * sizeof *grown);
        if (!grown) return rb_read_fail(r, "out of memory");
        s->pieces = grown, s->piece_state_capacity = cap;
    }
    /* counted before it is read: rb_scene_destroy frees what a failed one holds */
    rb_scene_pieces *p = &s->pieces[s->piece_state_count++];
    memset(p, 0, sizeof *p);
    if (!read_pieces(r, v, shape, p)) return false;
    b->pieces = s->piece_state_count;
    rb_read_leave(r, in);
    return true;
}
