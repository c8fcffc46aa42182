/* debris_whole.c - a breakable body written whole and read back (debris_whole.h):
 *   {"offsets": [x, y, z, ...], "r": r, "m": m,
 *    "piece_of": [...], "mass": [...], "centre": [x, y, z, ...],
 *    "bonds": [a, b, ...], "strength": N, "radius": r, "bond_reach": x,
 *    "holds": [...], "seeds": [x, y, z, ...] or [],
 *    "meshes": [mesh, ...] or [], "anchored": [0 or 1, ...] or [],
 *    "inner": [-1 or a pattern's index, ...] or []}
 * The fields of fracture.h's rb_pieces and of debris_internal.h's
 * breakable, every float exact (base/decimal.h). A radial pattern's regions
 * (rb_pieces.radial) are not written: they only cut the meshes when the
 * pattern is set, and the meshes are written. */
#include "debris_whole.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "scene_mesh.h"

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static void put_key_float(FILE *f, const char *key, float x) {
    char text[32];
    fprintf(f, ", \"%s\": %s", key, rb_float_decimal(x, text));
}

bool rb_debris_put_whole(FILE *f, const breakable *b) {
    const rb_pieces *p = &b->pieces;
    const uint32_t n = p->particle_count, np = p->piece_count;
    const float scalars[] = {b->r, b->m, p->strength, p->radius, p->bond_reach};
    if (!finite_all(scalars, 5) || !finite_all(b->offsets, 3 * (size_t)n) || !finite_all(p->mass, np) ||
        !finite_all(p->centre, 3 * (size_t)np) || !finite_all(p->holds, np) ||
        (p->seeds && !finite_all(p->seeds, 3 * (size_t)np)))
        return false;
    fputs("{\"offsets\": ", f);
    rb_scene_put_floats(f, b->offsets, 3 * n);
    put_key_float(f, "r", b->r);
    put_key_float(f, "m", b->m);
    fputs(",\n     \"piece_of\": ", f);
    rb_scene_put_uints(f, p->piece_of, n);
    fputs(", \"mass\": ", f);
    rb_scene_put_floats(f, p->mass, np);
    fputs(", \"centre\": ", f);
    rb_scene_put_floats(f, p->centre, 3 * np);
    fputs(", \"bonds\": ", f);
    rb_scene_put_uints(f, p->bonds, 2 * p->bond_count);
    put_key_float(f, "strength", p->strength);
    put_key_float(f, "radius", p->radius);
    put_key_float(f, "bond_reach", p->bond_reach);
    fputs(", \"holds\": ", f);
    rb_scene_put_floats(f, p->holds, np);
    fputs(", \"seeds\": ", f);
    rb_scene_put_floats(f, p->seeds, p->seeds ? 3 * np : 0);
    fputs(",\n     \"meshes\": [", f);
    for (uint32_t k = 0; b->meshes && k < np; k++) {
        fputs(k ? ",\n      " : "\n      ", f);
        if (!rb_scene_put_mesh(f, &b->meshes[k])) return false;
    }
    fputs("], \"anchored\": [", f);
    for (uint32_t k = 0; b->anchored && k < np; k++) fprintf(f, "%s%u", k ? ", " : "", (unsigned)b->anchored[k]);
    fputs("], \"inner\": [", f);
    for (uint32_t k = 0; b->inner && k < np; k++) fprintf(f, "%s%d", k ? ", " : "", (int)b->inner[k]);
    fputs("]}", f);
    return true;
}

/* ---- read back ---- */

bool rb_debris_exact_keys(rb_reader *r, const cJSON *o, const char *const *known) {
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, NULL)) return false;
    for (const cJSON *c = o->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++) ok = strcmp(c->string, *k) == 0;
        if (!ok) return rb_read_fail_at(r, c->string, "unknown key (a debris_state holds only what rubble writes)");
    }
    for (const char *const *k = known; *k; k++)
        if (!cJSON_GetObjectItemCaseSensitive(o, *k)) return rb_read_fail(r, "'%s' is missing", *k);
    return true;
}

/* The per-piece meshes: none, or one a piece. */
static bool read_meshes(rb_reader *r, const cJSON *o, breakable *b) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "meshes");
    const uint32_t np = b->pieces.piece_count;
    if (!cJSON_IsArray(a)) return rb_read_fail_at(r, "meshes", "expected an array");
    const int count = cJSON_GetArraySize(a);
    if (count == 0) return true;
    if ((uint32_t)count != np)
        return rb_read_fail_at(r, "meshes", "expected none or one for each of its %u pieces, got %d", np, count);
    if (!(b->meshes = calloc(np, sizeof *b->meshes))) return rb_read_fail_at(r, "meshes", "out of memory");
    size_t len = rb_read_enter(r, "meshes", 0);
    int k = 0;
    for (const cJSON *e = a->child; e; e = e->next, k++) {
        size_t at = rb_read_enter(r, NULL, k);
        if (!rb_read_mesh(r, e, &b->meshes[k])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* A glued assembly's per piece: anchored (0 or 1) and inner (-1, or an
 * index into the layer's inner patterns), both or neither. */
static bool read_glue(rb_reader *r, const cJSON *o, breakable *b, uint32_t inner_count) {
    const uint32_t np = b->pieces.piece_count;
    uint32_t *anchored = NULL, count = 0;
    if (!rb_read_uints(r, o, "anchored", 2, true, &anchored, &count)) return false;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "inner");
    const int inners = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    bool ok = true;
    if (inners < 0)
        ok = rb_read_fail_at(r, "inner", "expected an array");
    else if (count != 0 && count != np)
        ok = rb_read_fail_at(r, "anchored", "expected none or one for each of its %u pieces, got %u", np, count);
    else if ((uint32_t)inners != count)
        ok = rb_read_fail_at(r, "inner", "expected as many entries as 'anchored' (%u), got %d", count, inners);
    if (ok && count) {
        b->anchored = malloc(np);
        b->inner = malloc(sizeof *b->inner * np);
        if (!b->anchored || !b->inner) ok = rb_read_fail(r, "out of memory");
    }
    uint32_t k = 0;
    for (const cJSON *e = ok && count ? a->child : NULL; e; e = e->next, k++) {
        const double x = cJSON_IsNumber(e) ? e->valuedouble : -2.0;
        if (!(x >= -1.0 && x < (double)inner_count && x == floor(x))) {
            ok = rb_read_fail_at(r, "inner", "element %u is not -1 or a pattern of the layer's %u inner ones", k,
                                 inner_count);
            break;
        }
        b->anchored[k] = (uint8_t)anchored[k];
        b->inner[k] = (int32_t)x;
    }
    free(anchored);
    return ok;
}

/* The bonds: pairs (a, b), a < b, each below the piece count, sorted, none twice. */
static bool check_bonds(rb_reader *r, const rb_pieces *p) {
    for (uint32_t k = 0; k < p->bond_count; k++) {
        const uint32_t *x = &p->bonds[2 * k];
        if (!(x[0] < x[1])) return rb_read_fail_at(r, "bonds", "bond %u (%u, %u): expected a < b", k, x[0], x[1]);
        if (k && !(x[-2] < x[0] || (x[-2] == x[0] && x[-1] < x[1])))
            return rb_read_fail_at(r, "bonds", "bond %u (%u, %u) is out of order or twice", k, x[0], x[1]);
    }
    return true;
}

bool rb_debris_read_whole(rb_reader *r, const cJSON *o, breakable *b, uint32_t inner_count) {
    static const char *const keys[] = {"offsets", "r",        "m",      "piece_of",   "mass",  "centre",
                                       "bonds",   "strength", "radius", "bond_reach", "holds", "seeds",
                                       "meshes",  "anchored", "inner",  NULL};
    rb_pieces *p = &b->pieces;
    uint32_t n3 = 0, np = 0, count = 0;
    if (!rb_debris_exact_keys(r, o, keys) || !rb_read_floats(r, o, "offsets", 3, true, &b->offsets, &n3) ||
        !rb_read_float(r, o, "r", 1e-30, 1e30, &b->r) || !rb_read_float(r, o, "m", 1e-30, 1e30, &b->m) ||
        !rb_read_float(r, o, "strength", 1e-30, 1e30, &p->strength) ||
        !rb_read_float(r, o, "radius", 1e-30, 1e30, &p->radius) ||
        !rb_read_float(r, o, "bond_reach", 0.0, 1e6, &p->bond_reach) ||
        !rb_read_floats(r, o, "mass", 1, true, &p->mass, &np))
        return false;
    p->particle_count = n3 / 3, p->piece_count = np;
    if (np < 2) return rb_read_fail_at(r, "mass", "%u pieces: a breakable body has 2 or more", np);
    if (p->particle_count < np)
        return rb_read_fail_at(r, "offsets", "%u particles for %u pieces", p->particle_count, np);
    for (uint32_t k = 0; k < np; k++)
        if (!(p->mass[k] > 0.0f)) return rb_read_fail_at(r, "mass", "piece %u's mass %g is not above 0", k, p->mass[k]);
    if (!rb_read_floats(r, o, "centre", 3, true, &p->centre, &count)) return false;
    if (count != 3 * np)
        return rb_read_fail_at(r, "centre", "expected %u numbers (xyz a piece), got %u", 3 * np, count);
    if (!rb_read_floats(r, o, "holds", 1, true, &p->holds, &count)) return false;
    if (count != np) return rb_read_fail_at(r, "holds", "expected one for each of its %u pieces, got %u", np, count);
    for (uint32_t k = 0; k < np; k++)
        if (!(p->holds[k] >= 0.0f)) return rb_read_fail_at(r, "holds", "piece %u's hold %g is below 0", k, p->holds[k]);
    if (!rb_read_floats(r, o, "seeds", 3, true, &p->seeds, &count)) return false;
    if (count != 0 && count != 3 * np)
        return rb_read_fail_at(r, "seeds", "expected none or %u numbers (xyz a piece), got %u", 3 * np, count);
    if (!rb_read_uints(r, o, "piece_of", np, true, &p->piece_of, &count)) return false;
    if (count != p->particle_count)
        return rb_read_fail_at(r, "piece_of", "expected one for each of its %u particles, got %u", p->particle_count,
                               count);
    /* every piece has a particle (rb_split gathers each piece's) */
    uint8_t *used = calloc(np, 1);
    if (!used) return rb_read_fail(r, "out of memory");
    for (uint32_t i = 0; i < p->particle_count; i++) used[p->piece_of[i]] = 1;
    uint32_t empty = 0;
    while (empty < np && used[empty]) empty++;
    free(used);
    if (empty < np) return rb_read_fail_at(r, "piece_of", "piece %u has no particle", empty);
    if (!rb_read_uints(r, o, "bonds", np, true, &p->bonds, &count)) return false;
    if (count % 2) return rb_read_fail_at(r, "bonds", "expected pairs of pieces, got %u numbers", count);
    p->bond_count = count / 2;
    return check_bonds(r, p) && read_meshes(r, o, b) && read_glue(r, o, b, inner_count);
}

/* ---- made breakable again ---- */

static void *copy_of(const void *v, size_t size) {
    void *c = v && size ? malloc(size) : NULL;
    if (c) memcpy(c, v, size);
    return c;
}

/* m copied exactly into out (its inside marks or none); false if out of memory (out empty). */
static bool copy_mesh(const rb_mesh *m, rb_mesh *out) {
    *out = (rb_mesh){0};
    if (m->vertex_count == 0) return true;
    out->positions = copy_of(m->positions, sizeof *m->positions * 3 * m->vertex_count);
    out->normals = copy_of(m->normals, sizeof *m->normals * 3 * m->vertex_count);
    out->indices = copy_of(m->indices, sizeof *m->indices * m->index_count);
    out->inside = copy_of(m->inside, m->vertex_count);
    out->vertex_count = m->vertex_count, out->index_count = m->index_count;
    if (out->positions && out->normals && (out->indices || !m->index_count) && (out->inside || !m->inside)) return true;
    rb_mesh_free(out);
    return false;
}

bool rb_debris_add_whole(rb_debris *d, rb_body_id id, const breakable *saved, char *err, size_t err_size) {
    const rb_pieces *sp = &saved->pieces;
    const uint32_t n = sp->particle_count, np = sp->piece_count;
    rb_body_state s;
    if (!rb_world_get_body_by_id(d->world, id, &s) || s.kind != RB_BODY_DYNAMIC) {
        snprintf(err, err_size, "its body is not a dynamic body");
        return false;
    }
    const uint32_t has = rb_world_shape_particles(d->world, s.shape, NULL, 0, NULL);
    if (has != n) {
        snprintf(err, err_size, "%u particles, but its body's shape has %u", n, has);
        return false;
    }
    rb_pieces p = *sp;
    p.radial = NULL;
    p.piece_of = copy_of(sp->piece_of, sizeof *p.piece_of * n);
    p.mass = copy_of(sp->mass, sizeof *p.mass * np);
    p.centre = copy_of(sp->centre, sizeof *p.centre * 3 * np);
    p.bonds = copy_of(sp->bonds, sizeof *p.bonds * 2 * sp->bond_count);
    p.holds = copy_of(sp->holds, sizeof *p.holds * np);
    p.seeds = copy_of(sp->seeds, sizeof *p.seeds * 3 * np);
    float *offsets = copy_of(saved->offsets, sizeof *offsets * 3 * n);
    uint8_t *anchored = copy_of(saved->anchored, np);
    int32_t *inner = copy_of(saved->inner, sizeof *inner * np);
    rb_mesh *meshes = saved->meshes ? calloc(np, sizeof *meshes) : NULL;
    bool ok = p.piece_of && p.mass && p.centre && (p.bonds || !sp->bond_count) && p.holds && (p.seeds || !sp->seeds) &&
              offsets && (anchored || !saved->anchored) && (inner || !saved->inner) && (meshes || !saved->meshes);
    for (uint32_t k = 0; ok && meshes && k < np; k++) ok = copy_mesh(&saved->meshes[k], &meshes[k]);
    if (!ok) {
        snprintf(err, err_size, "out of memory");
        for (uint32_t k = 0; meshes && k < np; k++) rb_mesh_free(&meshes[k]);
        free(meshes), free(offsets), free(anchored), free(inner);
        rb_pieces_free(&p);
        return false;
    }
    if (!rb_debris_add_breakable(d, id, &p, offsets, saved->r, saved->m, &saved->desc, meshes, anchored, inner)) {
        snprintf(err, err_size, "the world refused its pieces (logged)");
        return false;
    }
    return true;
}
