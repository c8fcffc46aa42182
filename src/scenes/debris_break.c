/* debris_break.c - breakable bodies in the debris layer (debris.h,
 * rb_debris_make_breakable; docs/debris.md, "Breakable bodies"): their
 * pieces given to the world, which measures the pieces' loads in the step,
 * and the split at the tick after a piece passes its hold. The list of
 * breakable bodies it keeps is the table's (debris_table.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "cut.h"
#include "debris_events.h"
#include "debris_internal.h"

/* Frees count meshes and the array. */
static void free_meshes(rb_mesh *meshes, uint32_t count) {
    for (uint32_t k = 0; meshes && k < count; k++) rb_mesh_free(&meshes[k]);
    free(meshes);
}

bool rb_debris_add_breakable(rb_debris *d, rb_body_id id, rb_pieces *p, float *offsets, float r, float m,
                             const rb_fracture_desc *desc, rb_mesh *meshes, uint8_t *anchored, int32_t *inner) {
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
        free_meshes(meshes, p->piece_count);
        rb_pieces_free(p);
        free(offsets), free(anchored), free(inner);
        return false;
    }
    d->breakables[d->breakable_count++] = (breakable){id, *p, offsets, r, m, *desc, meshes, anchored, inner};
    return true;
}

bool rb_debris_append_mesh(rb_mesh *a, const rb_mesh *b) {
    const uint32_t nv = a->vertex_count + b->vertex_count, ni = a->index_count + b->index_count;
    float *pos = realloc(a->positions, sizeof *pos * 3 * nv);
    if (pos) a->positions = pos;
    float *nor = pos ? realloc(a->normals, sizeof *nor * 3 * nv) : NULL;
    if (nor) a->normals = nor;
    uint32_t *idx = nor ? realloc(a->indices, sizeof *idx * ni) : NULL;
    if (idx) a->indices = idx;
    uint8_t *in = idx ? realloc(a->inside, nv) : NULL;
    if (in) a->inside = in;
    if (!in) return false;
    memcpy(&pos[3 * a->vertex_count], b->positions, sizeof *pos * 3 * b->vertex_count);
    memcpy(&nor[3 * a->vertex_count], b->normals, sizeof *nor * 3 * b->vertex_count);
    for (uint32_t i = 0; i < b->index_count; i++) idx[a->index_count + i] = a->vertex_count + b->indices[i];
    if (b->inside)
        memcpy(&in[a->vertex_count], b->inside, b->vertex_count);
    else
        memset(&in[a->vertex_count], 0, b->vertex_count);
    a->vertex_count = nv, a->index_count = ni;
    return true;
}

/* A copy of a registry shape's mesh at a body's scale (entities.h: a scaled
 * body's world shape is its shape's particles times the scale); false if
 * out of memory (out empty). */
static bool scaled_mesh(const rb_mesh *m, float scale, rb_mesh *out) {
    memset(out, 0, sizeof *out);
    if (!rb_debris_append_mesh(out, m)) return rb_mesh_free(out), false;
    for (uint32_t i = 0; scale != 1.0f && i < 3 * out->vertex_count; i++) out->positions[i] *= scale;
    return true;
}

/* The most particles a body whose pattern has no regions (particles, given
 * pieces of a shape without parts) may have for its pieces to be cut as
 * their particles' cells: each cell is a clip of its own, a few ms. */
#define RB_CUT_MAX_PARTICLE_CELLS 256u

/* Pieces with no regions of their own: each the union of its particles'
 * cells (the Voronoi cells of the body's particle centres) clipped to the
 * mesh, each cell cut on its own and a piece's cells put together (the
 * faces between two of them stay inside it, back to back). A piece one of
 * whose cells could not be cut is left empty. Returns how many were made. */
static uint32_t cut_particle_cells(const rb_mesh *body, const char *name, const rb_pieces *p, const float *offsets,
                                   rb_mesh *meshes) {
    const uint32_t n = p->particle_count;
    rb_mesh *cells = calloc(n, sizeof *cells);
    bool *failed = calloc(p->piece_count, sizeof *failed);
    uint32_t made = 0;
    if (cells && failed && rb_cut_cells(body, offsets, n, name, cells) > 0) {
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t k = p->piece_of[i];
            if (!failed[k]) failed[k] = cells[i].vertex_count == 0 || !rb_debris_append_mesh(&meshes[k], &cells[i]);
        }
        for (uint32_t k = 0; k < p->piece_count; k++) {
            if (failed[k]) rb_mesh_free(&meshes[k]);
            made += !failed[k];
        }
    }
    free_meshes(cells, cells ? n : 0);
    free(failed);
    return made;
}

/* The pieces' meshes of a body whose shape has a render mesh (its registry
 * shape's, of world shape `world_shape`, at its scale), its particles at
 * offsets: the mesh cut along the pieces' regions, or for a pattern with
 * none (particles, given) along its particles' cells, once, here. NULL
 * where the shape has no mesh, or a pattern with no regions more than
 * RB_CUT_MAX_PARTICLE_CELLS particles: the pieces are drawn as their
 * particles' cells. */
static rb_mesh *cut_mesh(const rb_mesh *mesh, const char *name, const rb_pieces *p, const float *offsets) {
    const bool regions = p->seeds || p->radial;
    if ((!regions && (!offsets || p->particle_count > RB_CUT_MAX_PARTICLE_CELLS)) || !mesh ||
        mesh->vertex_count == 0)
        return NULL;
    rb_mesh *meshes = calloc(p->piece_count, sizeof *meshes);
    if (meshes && (regions ? rb_cut_pieces(mesh, p, name, meshes) : cut_particle_cells(mesh, name, p, offsets, meshes)) == 0) {
        free(meshes);
        meshes = NULL;
    }
    return meshes;
}

/* cut_mesh for a body of world shape `world_shape`: its registry shape's
 * mesh, at its scale; NULL where it has none. */
static rb_mesh *cut_pieces(const rb_debris *d, uint32_t world_shape, const rb_pieces *p, const float *offsets) {
    const rb_shape *shape = rb_entities_shape_of_world_shape(d->entities, world_shape);
    if (!shape || shape->mesh.vertex_count == 0) return NULL;
    const float scale = rb_entities_scale_of_world_shape(d->entities, world_shape);
    rb_mesh body = {0};
    if (scale != 1.0f && !scaled_mesh(&shape->mesh, scale, &body)) return NULL;
    rb_mesh *meshes = cut_mesh(scale != 1.0f ? &body : &shape->mesh, shape->name, p, offsets);
    rb_mesh_free(&body);
    return meshes;
}

/* The pieces' meshes of a body in the pieces its shape's plugin gives
 * (pattern plugin or parts), where the shape has its parts' meshes (a
 * pre-fractured mesh, shapes.h): piece k's is the part of its particles'
 * plugin piece (rb_pieces_make numbers the pieces afresh), at the body's
 * scale. NULL if the shape has no parts, or (with a warning) a piece has
 * none: the pieces are drawn as their particles' cells. */
static rb_mesh *part_pieces(const rb_debris *d, uint32_t world_shape, const rb_pieces *p) {
    const rb_shape *shape = rb_entities_shape_of_world_shape(d->entities, world_shape);
    if (!shape || shape->part_count == 0 || !shape->pieces || shape->particle_count != p->particle_count) return NULL;
    const float scale = rb_entities_scale_of_world_shape(d->entities, world_shape);
    rb_mesh *meshes = calloc(p->piece_count, sizeof *meshes);
    bool ok = meshes != NULL;
    for (uint32_t i = 0; ok && i < p->particle_count; i++) {
        const uint32_t k = p->piece_of[i];
        if (meshes[k].vertex_count > 0) continue;
        uint32_t j = 0;
        while (j < shape->part_count && shape->part_piece[j] != shape->pieces[i]) j++;
        if (j == shape->part_count)
            rb_log(RB_LOG_WARN, "debris: shape '%s': piece %u has no part of the mesh; the pieces are drawn as cells",
                   shape->name, shape->pieces[i]);
        ok = j < shape->part_count && scaled_mesh(&shape->parts[j], scale, &meshes[k]);
    }
    if (!ok) free_meshes(meshes, meshes ? p->piece_count : 0), meshes = NULL;
    return meshes;
}

/* An anchored breakable body's anchors: its pieces with a particle within
 * a quarter radius of touching a plane (body state s, particles at offsets
 * of radius r), held until their bonds break; no part patterns. False if
 * out of memory. */
static bool anchor_pieces(const rb_debris *d, const rb_body_state *s, const rb_pieces *p, const float *offsets,
                          float r, uint8_t **anchored, int32_t **inner) {
    *anchored = calloc(p->piece_count, 1);
    *inner = malloc(sizeof **inner * p->piece_count);
    if (!*anchored || !*inner) {
        free(*anchored), free(*inner);
        return false;
    }
    const rb_world_desc *w = rb_world_get_desc(d->world);
    for (uint32_t k = 0; k < p->piece_count; k++) (*inner)[k] = -1;
    for (uint32_t i = 0; i < p->particle_count; i++) {
        float x[3];
        rb_quat_rotate(s->orientation, &offsets[3 * i], x);
        for (int a = 0; a < 3; a++) x[a] += s->position[a];
        for (uint32_t k = 0; k < w->plane_count; k++)
            if (rb_v3_dot(w->planes[k].normal, x) - w->planes[k].offset <= 1.25f * r) (*anchored)[p->piece_of[i]] = 1;
    }
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
    const uint32_t *given = NULL; /* the plugin's pieces, by the body's registry shape */
    const rb_shape *shape = rb_entities_shape_of_world_shape(d->entities, s.shape);
    if (desc->kind == RB_FRACTURE_GIVEN) {
        given = shape && shape->particle_count == n ? shape->pieces : NULL;
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
    rb_mesh *meshes = desc->kind == RB_FRACTURE_GIVEN ? part_pieces(d, s.shape, &p) : NULL;
    if (!meshes) meshes = cut_pieces(d, s.shape, &p, offsets);
    uint8_t *anchored = NULL;
    int32_t *inner = NULL;
    if (s.hold == RB_HOLD_ANCHORED && !anchor_pieces(d, &s, &p, offsets, r, &anchored, &inner)) {
        snprintf(err, err_size, "breakable: out of memory");
        return false;
    }
    if (!rb_debris_add_breakable(d, id, &p, offsets, r, m, desc, meshes, anchored, inner)) {
        snprintf(err, err_size, "breakable: the world refused the pieces (logged)");
        return false;
    }
    return true;
}

bool rb_debris_break_by(rb_debris *d, rb_body_id id, const rb_fracture_desc *desc, const rb_mesh *mesh, char *err,
                        size_t err_size) {
    rb_body_state s;
    if (desc->kind == RB_FRACTURE_GIVEN || !rb_world_get_body_by_id(d->world, id, &s) || s.kind != RB_BODY_DYNAMIC) {
        snprintf(err, err_size, "breakable: not a dynamic body, or a pattern a plugin gives");
        return false;
    }
    float mass = 0.0f;
    const uint32_t n = rb_world_shape_particles(d->world, s.shape, NULL, 0, &mass);
    float *offsets = malloc(sizeof *offsets * 3 * (n ? n : 1));
    rb_pieces p;
    if (!offsets || !n) {
        free(offsets);
        snprintf(err, err_size, "breakable: out of memory");
        return false;
    }
    rb_world_shape_particles(d->world, s.shape, offsets, n, NULL);
    const float r = rb_world_shape_radius(d->world, s.shape), m = mass / (float)n;
    if (!rb_pieces_make(offsets, n, r, m, desc, NULL, &p, err, err_size)) {
        free(offsets);
        return false;
    }
    if (p.piece_count < 2) {
        rb_pieces_free(&p);
        free(offsets);
        return true;
    }
    rb_mesh *meshes = cut_mesh(mesh, "a freed part", &p, offsets);
    if (!rb_debris_add_breakable(d, id, &p, offsets, r, m, desc, meshes, NULL, NULL)) {
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

/* Mesh m moved from a parent's shape frame into child c's: R^T (p - centre). */
static void to_child(rb_mesh *m, const rb_split_child *c) {
    const float *a = c->axes;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float *p = &m->positions[3 * v], *n = &m->normals[3 * v];
        const float x[3] = {p[0] - c->centre[0], p[1] - c->centre[1], p[2] - c->centre[2]}, y[3] = {n[0], n[1], n[2]};
        for (int k = 0; k < 3; k++) {
            p[k] = a[k] * x[0] + a[3 + k] * x[1] + a[6 + k] * x[2];
            n[k] = a[k] * y[0] + a[3 + k] * y[1] + a[6 + k] * y[2];
        }
    }
}

/* A copy of mesh b in child c's frame (empty if out of memory). */
static rb_mesh child_mesh(const rb_mesh *b, const rb_split_child *c) {
    rb_mesh m = {0};
    if (rb_debris_append_mesh(&m, b))
        to_child(&m, c);
    else
        rb_mesh_free(&m);
    return m;
}

/* Child c's meshes from its parent's pieces' (pieces, meshes: those the
 * parent was split along): per piece of sub (the child's pieces, as
 * rb_pieces_restrict numbers them; NULL: none), and all of them together,
 * the child's world shape's (kept by shape index). Only if every piece of
 * the child has one: a child is drawn all cut or all as cells. NULL per
 * piece if there are none. */
static rb_mesh *child_meshes(rb_debris *d, const rb_pieces *pieces, const rb_mesh *meshes, const rb_split_child *c,
                             const rb_pieces *sub, uint32_t shape) {
    if (!meshes) return NULL;
    const uint32_t np = pieces->piece_count;
    uint32_t *mine = malloc(sizeof *mine * np); /* parent piece -> the child's piece, + 1; 0: not the child's */
    if (!mine) return NULL;
    memset(mine, 0, sizeof *mine * np);
    bool whole = true;
    for (uint32_t i = 0; i < c->particle_count; i++) {
        const uint32_t k = pieces->piece_of[c->parent[i]];
        mine[k] = sub ? sub->piece_of[i] + 1 : 1;
        whole = whole && meshes[k].vertex_count > 0;
    }
    rb_mesh all = {0}, *per = sub && whole ? calloc(sub->piece_count, sizeof *per) : NULL;
    for (uint32_t k = 0; whole && k < np; k++) {
        if (!mine[k]) continue;
        rb_mesh m = child_mesh(&meshes[k], c);
        whole = m.vertex_count > 0 && rb_debris_append_mesh(&all, &m);
        if (per && whole)
            per[mine[k] - 1] = m;
        else
            rb_mesh_free(&m);
    }
    free(mine);
    if (whole)
        whole = rb_debris_keep_shape_mesh(d, shape, &all);
    else
        rb_mesh_free(&all);
    if (!whole && per) free_meshes(per, sub->piece_count), per = NULL;
    return per;
}

bool rb_debris_keep_shape_mesh(rb_debris *d, uint32_t shape, rb_mesh *m) {
    if (shape >= d->shape_mesh_size) {
        const uint32_t size = shape + 16u;
        rb_mesh *grown = realloc(d->shape_meshes, sizeof *grown * size);
        if (!grown) return rb_mesh_free(m), false;
        memset(&grown[d->shape_mesh_size], 0, sizeof *grown * (size - d->shape_mesh_size));
        d->shape_meshes = grown, d->shape_mesh_size = size;
    }
    rb_mesh_free(&d->shape_meshes[shape]);
    d->shape_meshes[shape] = *m;
    return true;
}

bool rb_debris_exploded_mesh(const rb_debris *d, rb_body_id id, float spread, rb_mesh *out) {
    memset(out, 0, sizeof *out);
    const breakable *b = NULL;
    for (uint32_t k = 0; d && k < d->breakable_count && !b; k++)
        if (rb_body_same(d->breakables[k].id, id)) b = &d->breakables[k];
    if (!b || !b->meshes || !(spread >= 0.0f)) return false;
    bool ok = true;
    for (uint32_t k = 0; ok && k < b->pieces.piece_count; k++) {
        const uint32_t from = out->vertex_count;
        ok = b->meshes[k].vertex_count > 0 && rb_debris_append_mesh(out, &b->meshes[k]);
        for (uint32_t v = from; ok && v < out->vertex_count; v++)
            for (int a = 0; a < 3; a++) out->positions[3 * v + a] += spread * b->pieces.centre[3 * k + a];
    }
    if (!ok) rb_mesh_free(out);
    return ok;
}

uint32_t rb_debris_breakables(const rb_debris *d, rb_body_id *ids, uint32_t capacity) {
    for (uint32_t k = 0; d && k < d->breakable_count && k < capacity; k++) ids[k] = d->breakables[k].id;
    return d ? d->breakable_count : 0;
}

bool rb_debris_piece_mesh(const rb_debris *d, uint32_t world_shape, rb_mesh *out) {
    memset(out, 0, sizeof *out);
    if (!d || world_shape >= d->shape_mesh_size || d->shape_meshes[world_shape].vertex_count == 0) return false;
    if (rb_debris_append_mesh(out, &d->shape_meshes[world_shape])) return true;
    rb_mesh_free(out);
    return false;
}

bool rb_debris_set_piece_mesh(rb_debris *d, uint32_t world_shape, const rb_mesh *m) {
    rb_mesh copy = {0};
    if (!rb_debris_append_mesh(&copy, m)) return rb_mesh_free(&copy), false;
    return rb_debris_keep_shape_mesh(d, world_shape, &copy);
}

/* How a glued assembly's child is held, from its pieces (parent pieces of
 * its particles): anchored while it keeps an anchored part and another
 * bonded to it (a part alone has lost the bonds that tied it to the rest,
 * and falls); *inner: the pattern of its part if it is one part (-1: none). */
static rb_body_hold child_hold(const breakable *b, const rb_pieces *pieces, const rb_split_child *ch, int32_t *inner) {
    *inner = -1;
    if (!b->anchored || pieces != &b->pieces) return RB_HOLD_NONE;
    const uint32_t first = pieces->piece_of[ch->parent[0]];
    bool several = false, anchored = false;
    for (uint32_t i = 0; i < ch->particle_count; i++) {
        const uint32_t k = pieces->piece_of[ch->parent[i]];
        several = several || k != first;
        anchored = anchored || b->anchored[k];
    }
    if (!several) *inner = b->inner[first];
    return several && anchored ? RB_HOLD_ANCHORED : RB_HOLD_NONE;
}

/* A glued child's per-piece anchored and inner (sub: its pieces, as
 * rb_pieces_restrict numbers them); false if out of memory (none made). */
static bool child_glue(const breakable *b, const rb_pieces *pieces, const rb_split_child *ch, const rb_pieces *sub,
                       uint8_t **anchored, int32_t **inner) {
    *anchored = malloc(sub->piece_count);
    *inner = malloc(sizeof **inner * sub->piece_count);
    if (!*anchored || !*inner) {
        free(*anchored), free(*inner);
        *anchored = NULL, *inner = NULL;
        return false;
    }
    for (uint32_t i = 0; i < ch->particle_count; i++) {
        const uint32_t k = pieces->piece_of[ch->parent[i]], j = sub->piece_of[i];
        (*anchored)[j] = b->anchored[k], (*inner)[j] = b->inner[k];
    }
    return true;
}

/* Splits a broken body into its groups of pieces (rb_debris_make_breakable),
 * its pieces over their hold in the world's loads or in extra (per piece,
 * load over hold; NULL: none) broken.
 * An impact pattern's body comes apart into every piece of its pattern
 * drawn again about the hit, and those pieces are cut from its mesh then. */
bool rb_debris_split(rb_debris *d, rb_body_id id, const float *extra) {
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
    rb_mesh *fresh = NULL; /* the impact pieces' meshes */
    const rb_mesh *meshes = b.meshes;
    uint32_t count = 0;
    char err[256];
    if (loads && rb_world_piece_loads(d->world, id, loads, np) == np) {
        for (uint32_t k = 0; extra && k < np; k++) loads[k] = fmaxf(loads[k], extra[k]);
        if (b.desc.impact) {
            float hit[3];
            hit_point(&b.pieces, loads, hit);
            if (rb_pieces_make_at(b.offsets, b.pieces.particle_count, b.r, b.m, &b.desc, hit, &again, err,
                                  sizeof err)) {
                pieces = &again;
                /* cut now, as a pattern is when it is set (a body whose shape has a mesh) */
                meshes = fresh = b.meshes ? cut_pieces(d, s.shape, &again, b.offsets) : NULL;
            } else
                rb_log(RB_LOG_ERROR, "debris: an impact pattern could not be drawn: %s", err);
        }
        broken = malloc(sizeof *broken * pieces->piece_count);
        for (uint32_t k = 0; broken && k < pieces->piece_count; k++) broken[k] = pieces == &again || loads[k] > 1.0f;
        if (broken) count = rb_split(pieces, b.offsets, b.r, b.m, broken, &s, &children, err, sizeof err);
        if (broken && count == 0) rb_log(RB_LOG_ERROR, "debris: a break could not be split: %s", err);
    }
    free(loads), free(broken);
    /* the world's cap: the pieces in place of the body, or the body stays whole */
    const bool room = count < 2 || rb_debris_room(d, count - 1);
    if (count < 2 || !room) { /* one group left: it holds together */
        if (!room) d->capped_breaks++;
        if (!room) rb_split_free(children, count);
        free_meshes(fresh, again.piece_count);
        rb_pieces_free(&again);
        return true;
    }
    /* the pieces are added before the body goes: room for one more meanwhile */
    const uint32_t cap = rb_world_max_bodies(d->world);
    if (cap < UINT32_MAX) rb_world_set_max_bodies(d->world, cap + 1);
    /* the parent's place in the debris table by index: add_tracked below may move the table */
    const tracked *parent = rb_debris_find(d, id);
    const uint32_t at = parent ? (uint32_t)(parent - d->bodies) : UINT32_MAX;
    const double born = parent ? parent->born : rb_debris_now(d);
    const float lifetime = parent ? parent->lifetime : 0.0f;
    const int emitter = parent ? parent->emitter : -1;
    rb_body_id *kids = malloc(sizeof *kids * count); /* the pieces made, for the break's event */
    uint32_t kid_count = 0;
    bool ok = kids != NULL;
    for (uint32_t c = 0; c < count && ok; c++) {
        const rb_split_child *ch = &children[c];
        const rb_shape_data data = {
            ch->particle_count, ch->particles, ch->mass, {ch->inertia[0], ch->inertia[1], ch->inertia[2]}, b.r};
        const int shape = rb_world_add_shape(d->world, &data);
        if (shape < 0) continue; /* logged */
        if (!rb_debris_keep_shape_parent(d, (uint32_t)shape, id))
            rb_log(RB_LOG_WARN, "debris: out of memory for a piece's parent: a cache records none for it");
        int32_t inner = -1;
        const rb_body_hold hold = child_hold(&b, pieces, ch, &inner);
        rb_body_desc bd = {.shape = (uint32_t)shape, .kind = RB_BODY_DYNAMIC, .material = s.material, .hold = hold};
        memcpy(bd.position, ch->position, sizeof bd.position);
        memcpy(bd.orientation, ch->orientation, sizeof bd.orientation);
        memcpy(bd.velocity, ch->velocity, sizeof bd.velocity);
        memcpy(bd.angular_velocity, ch->angular_velocity, sizeof bd.angular_velocity);
        const rb_body_id kid = rb_world_add_body(d->world, &bd);
        if (kid.generation == 0) continue;
        d->pieces_made++;
        /* a piece keeps the colours its body was drawn in (colors.h) */
        if (d->colors && !rb_color_table_inherit(d->colors, id, kid))
            rb_log(RB_LOG_WARN, "debris: out of memory for a piece's colours: it is drawn in its default ones");
        /* a piece is debris: the body cap and sleep removal count it, with its parent's lifetime */
        ok = rb_debris_add_tracked(d, kid, lifetime, emitter);
        if (ok) d->bodies[d->count - 1].born = born, kids[kid_count++] = kid;
        rb_pieces sub;
        if (ok && rb_pieces_restrict(pieces, ch, &sub, err, sizeof err)) {
            float *offsets = malloc(sizeof *offsets * 3 * ch->particle_count);
            rb_mesh *kid_meshes =
                child_meshes(d, pieces, meshes, ch, sub.piece_count >= 2 ? &sub : NULL, (uint32_t)shape);
            uint8_t *anchored = NULL;
            int32_t *inners = NULL;
            if (sub.piece_count >= 2 && offsets && (!b.anchored || pieces != &b.pieces ||
                                                    child_glue(&b, pieces, ch, &sub, &anchored, &inners))) {
                memcpy(offsets, ch->particles, sizeof *offsets * 3 * ch->particle_count);
                rb_debris_add_breakable(d, kid, &sub, offsets, b.r, b.m, &b.desc, kid_meshes, anchored, inners);
            } else {
                free_meshes(kid_meshes, sub.piece_count);
                rb_pieces_free(&sub);
                free(offsets);
                /* a glued part freed alone breaks by its own pattern from now on */
                const rb_mesh *own = (uint32_t)shape < d->shape_mesh_size && d->shape_meshes[shape].vertex_count
                                         ? &d->shape_meshes[shape]
                                         : NULL;
                if (inner >= 0 && !rb_debris_break_by(d, kid, &d->inner[inner], own, err, sizeof err))
                    rb_log(RB_LOG_WARN, "debris: a freed part stays whole: %s", err);
            }
        }
    }
    rb_split_free(children, count);
    free_meshes(fresh, again.piece_count);
    rb_pieces_free(&again);
    rb_world_set_max_bodies(d->world, cap);
    /* the break, then its pieces' spawns */
    ok = ok && rb_debris_note_break(d, id, s.position, kids, kid_count);
    for (uint32_t k = 0; ok && d->events && k < kid_count; k++) {
        rb_body_state ks;
        ok = rb_world_get_body_by_id(d->world, kids[k], &ks) &&
             rb_debris_note_body(d, RB_EVENT_SPAWN, kids[k], ks.position, RB_CAUSE_BREAK, -1, id);
    }
    free(kids);
    if (!ok) return false;
    d->breaks++;
    /* the parent goes: out of the world, the debris table and the breakables */
    if (at != UINT32_MAX) {
        d->bodies[at].lifetime = -1.0f; /* swept with its counts */
        d->bodies[at].why = RB_CAUSE_BREAK;
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
            if (!rb_debris_split(d, ids[k], NULL)) return false;
        if (n < 64) break;
    }
    return true;
}
