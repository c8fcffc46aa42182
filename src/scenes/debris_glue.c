/* debris_glue.c - glued assemblies and blasts (debris.h, rb_debris_glue;
 * docs/structures.md): bodies glued into one breakable body whose pieces
 * are its parts, and a radial impulse's load on the pieces of the
 * breakable bodies it reaches. The split itself is debris_break.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "debris_internal.h"
#include "debris_math.h"

/* Two parts are bonded where particles of theirs are within this many
 * particle diameters: touching, across the gap a generator leaves between
 * bodies (0.2% of their size) and a quarter radius more; never as far as a
 * lattice's diagonal neighbour (sqrt 2 diameters). */
#define RB_GLUE_REACH 1.125f

/* Point x of a part (its frame: position p, orientation q, at scale s) in
 * the assembly's frame (centre c, axes R: columns): R^T (p + q (s x) - c). */
static void into_assembly(const float p[3], const float q[4], float s, const float c[3], const float R[9],
                          const float x[3], bool normal, float out[3]) {
    const float sx[3] = {x[0] * s, x[1] * s, x[2] * s};
    float w[3];
    rb_quat_rotate(q, normal ? x : sx, w);
    if (!normal)
        for (int k = 0; k < 3; k++) w[k] += p[k] - c[k];
    for (int k = 0; k < 3; k++) out[k] = R[k] * w[0] + R[3 + k] * w[1] + R[6 + k] * w[2];
}

/* How far each face of a part's mesh is moved out, as a share of the
 * part's largest extent. Parts stand a gap apart (a generator's 0.2% of
 * the largest shape's size, so that they start out of contact), and parts
 * placed by their own turns meet where rounding leaves hairline cracks:
 * drawn as one body, both showed the faces behind as dark and light
 * speckles. Moved 0.15% a side (1.8 mm for a 1.2 m cube), neighbours of a
 * shape overlap by 0.1% of its size instead, flat ones too. */
#define RB_GLUE_MESH_GROW 0.0015f

/* Moves the faces of a mesh about its frame's origin (a part's centre of
 * mass) out by grow along each axis: a box's faces by exactly that, any
 * other shape's points by that along each axis they lie off the origin. */
static void grow_mesh(rb_mesh *m, float grow) {
    for (uint32_t i = 0; i < 3 * m->vertex_count; i++) {
        const float x = m->positions[i];
        m->positions[i] = x > 0.0f ? x + grow : x < 0.0f ? x - grow : x;
    }
}

/* The largest extent of a mesh's box. */
static float mesh_extent(const rb_mesh *m) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, most = 0.0f;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            lo[k] = fminf(lo[k], m->positions[3 * v + k]), hi[k] = fmaxf(hi[k], m->positions[3 * v + k]);
    for (int k = 0; k < 3 && m->vertex_count; k++) most = fmaxf(most, hi[k] - lo[k]);
    return most;
}

/* Part k's mesh in the assembly's frame, its faces moved out by
 * RB_GLUE_MESH_GROW: its registry shape's at its scale, or (a shape with
 * none) its particles' cells. */
static bool part_mesh(const rb_debris *d, const rb_body_state *s, const rb_split_child *whole, uint32_t count, float r,
                      rb_mesh *out) {
    memset(out, 0, sizeof *out);
    const rb_shape *shape = rb_entities_shape_of_world_shape(d->entities, s->shape);
    float scale = rb_entities_scale_of_world_shape(d->entities, s->shape);
    if (!shape || shape->mesh.vertex_count == 0) {
        float *offsets = malloc(sizeof *offsets * 3 * (count ? count : 1)); /* in its own frame, at its scale */
        const bool ok = offsets && rb_world_shape_particles(d->world, s->shape, offsets, count, NULL) == count &&
                        rb_cell_mesh(offsets, count, r, out);
        free(offsets);
        if (!ok) return false;
        scale = 1.0f;
    } else if (!rb_debris_append_mesh(out, &shape->mesh)) {
        return false;
    }
    grow_mesh(out, RB_GLUE_MESH_GROW * mesh_extent(out));
    for (uint32_t v = 0; v < out->vertex_count; v++) {
        float *p = &out->positions[3 * v], *n = &out->normals[3 * v];
        const float x[3] = {p[0], p[1], p[2]}, y[3] = {n[0], n[1], n[2]};
        into_assembly(s->position, s->orientation, scale, whole->centre, whole->axes, x, false, p);
        into_assembly(s->position, s->orientation, scale, whole->centre, whole->axes, y, true, n);
    }
    return true;
}

/* The parts' states and particles (world positions, in part order), checked. */
static bool gather_parts(rb_debris *d, const rb_glue_part *parts, uint32_t count, rb_body_state *states, float **points,
                         uint32_t **given, uint32_t *total, float *radius, char *err, size_t err_size) {
    uint64_t n = 0;
    for (uint32_t k = 0; k < count; k++) {
        rb_body_state *s = &states[k];
        if (!rb_world_get_body_by_id(d->world, parts[k].id, s) || s->kind != RB_BODY_DYNAMIC) {
            snprintf(err, err_size, "part %u: not a dynamic body in the world", k);
            return false;
        }
        for (uint32_t j = 0; j < k; j++)
            if (rb_body_same(parts[j].id, parts[k].id)) {
                snprintf(err, err_size, "part %u: the same body as part %u", k, j);
                return false;
            }
        if (rb_debris_find_breakable(d, parts[k].id)) {
            snprintf(err, err_size, "part %u: breakable already (give its pattern to the part instead)", k);
            return false;
        }
        const float r = rb_world_shape_radius(d->world, s->shape);
        if (k == 0) *radius = r;
        if (fabsf(r - *radius) > 1e-5f * *radius) {
            snprintf(err, err_size,
                     "part %u: particles of radius %g m, part 0's of %g m: an assembly's are of one size", k, r,
                     *radius);
            return false;
        }
        n += rb_world_shape_particles(d->world, s->shape, NULL, 0, NULL);
    }
    if (n == 0 || n > UINT32_MAX / 4u) {
        snprintf(err, err_size, "%llu particles: too many for one body", (unsigned long long)n);
        return false;
    }
    *points = malloc(sizeof **points * 3 * n);
    *given = malloc(sizeof **given * n);
    if (!*points || !*given) {
        snprintf(err, err_size, "out of memory for %llu particles", (unsigned long long)n);
        return false;
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < count; k++) {
        const rb_body_state *s = &states[k];
        const uint32_t m = rb_world_shape_particles(d->world, s->shape, &(*points)[3 * at], (uint32_t)n - at, NULL);
        for (uint32_t i = at; i < at + m; i++) {
            float *p = &(*points)[3 * i], w[3];
            rb_quat_rotate(s->orientation, p, w);
            for (int j = 0; j < 3; j++) p[j] = s->position[j] + w[j];
            (*given)[i] = k;
        }
        at += m;
    }
    *total = at;
    return true;
}

rb_body_id rb_debris_glue(rb_debris *d, const rb_glue_part *parts, uint32_t count, const rb_glue_desc *glue, char *err,
                          size_t err_size) {
    const rb_body_id none = {0, 0};
    if (count == 0 || count > RB_GLUE_MAX_PARTS) {
        snprintf(err, err_size, "%u parts: an assembly has 1 to %u", count, RB_GLUE_MAX_PARTS);
        return none;
    }
    if (!(glue->strength > 0.0f) || !isfinite(glue->strength)) {
        snprintf(err, err_size, "strength %g: a bond must hold a finite force > 0 N", glue->strength);
        return none;
    }
    rb_body_state *states = malloc(sizeof *states * count);
    float *points = NULL, r = 0.0f;
    uint32_t *given = NULL, n = 0;
    rb_split_child whole = {0};
    rb_pieces p = {0};
    rb_mesh *meshes = NULL, all = {0};
    uint8_t *anchored = NULL;
    int32_t *inner = NULL;
    rb_body_id id = none;
    if (!states || !gather_parts(d, parts, count, states, &points, &given, &n, &r, err, err_size)) goto done;
    double mass = 0.0, momentum[3] = {0.0, 0.0, 0.0};
    bool held = false;
    for (uint32_t k = 0; k < count; k++) {
        mass += states[k].mass, held = held || parts[k].anchored;
        for (int j = 0; j < 3; j++) momentum[j] += (double)states[k].mass * states[k].velocity[j];
    }
    const float m = (float)(mass / n);
    if (!rb_gather(points, n, r, m, &whole)) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    const rb_fracture_desc desc = {.kind = RB_FRACTURE_GIVEN, .strength = glue->strength, .bond_reach = RB_GLUE_REACH};
    if (count > 1 && !rb_pieces_make(whole.particles, n, r, m, &desc, given, &p, err, err_size)) goto done;
    /* each part's mesh, and all of them as the body's */
    meshes = calloc(count, sizeof *meshes);
    anchored = calloc(count, 1);
    inner = malloc(sizeof *inner * count);
    bool ok = meshes && anchored && inner;
    for (uint32_t k = 0; ok && k < count; k++) {
        const uint32_t m_k = rb_world_shape_particles(d->world, states[k].shape, NULL, 0, NULL);
        ok = part_mesh(d, &states[k], &whole, m_k, r, &meshes[k]) && rb_debris_append_mesh(&all, &meshes[k]);
        anchored[k] = parts[k].anchored;
        inner[k] = -1;
        if (ok && parts[k].breakable) {
            rb_fracture_desc *grown = realloc(d->inner, sizeof *grown * (d->inner_count + 1));
            ok = grown != NULL;
            if (ok)
                d->inner = grown, d->inner[d->inner_count] = parts[k].fracture, inner[k] = (int32_t)d->inner_count++;
        }
    }
    if (!ok) {
        snprintf(err, err_size, "out of memory for the parts' meshes");
        goto done;
    }
    const rb_shape_data data = {
        n, whole.particles, whole.mass, {whole.inertia[0], whole.inertia[1], whole.inertia[2]}, r};
    const int shape = rb_world_add_shape(d->world, &data);
    rb_body_desc bd = {.kind = RB_BODY_DYNAMIC, .material = states[0].material};
    bd.hold = held ? RB_HOLD_ANCHORED : glue->asleep ? RB_HOLD_DORMANT : RB_HOLD_NONE;
    memcpy(bd.position, whole.centre, sizeof bd.position);
    memcpy(bd.orientation, whole.orientation, sizeof bd.orientation);
    for (int j = 0; j < 3 && bd.hold == RB_HOLD_NONE; j++) bd.velocity[j] = (float)(momentum[j] / mass);
    if (shape >= 0) bd.shape = (uint32_t)shape;
    if (shape < 0 || (id = rb_world_add_body(d->world, &bd)).generation == 0) {
        snprintf(err, err_size, "the world refused the assembly's body (logged)");
        goto done;
    }
    rb_debris_keep_shape_mesh(d, (uint32_t)shape, &all);
    memset(&all, 0, sizeof all); /* taken over */
    if (p.piece_count >= 2) {
        float *offsets = malloc(sizeof *offsets * 3 * n);
        if (offsets) memcpy(offsets, whole.particles, sizeof *offsets * 3 * n);
        const bool made = offsets && rb_debris_add_breakable(d, id, &p, offsets, r, m, &desc, meshes, anchored, inner);
        meshes = NULL, anchored = NULL, inner = NULL; /* taken over, with the pieces */
        memset(&p, 0, sizeof p);
        if (!made) {
            rb_world_remove_body(d->world, id);
            snprintf(err, err_size, "the world refused the assembly's pieces (logged)");
            id = none;
            goto done;
        }
    }
    /* its colours: its first part's (now, or when the table comes) */
    if (d->colors) {
        if (!rb_color_table_inherit(d->colors, parts[0].id, id))
            rb_log(RB_LOG_WARN, "debris: out of memory for an assembly's colours: it is drawn in its default ones");
    } else {
        rb_body_id *grown = realloc(d->pending_colors, sizeof *grown * 2 * (d->pending_count + 1));
        if (grown) {
            d->pending_colors = grown;
            grown[2 * d->pending_count] = parts[0].id, grown[2 * d->pending_count + 1] = id;
            d->pending_count++;
        }
    }
    for (uint32_t k = 0; k < count; k++) rb_world_remove_body(d->world, parts[k].id);
done:
    if (meshes)
        for (uint32_t k = 0; k < count; k++) rb_mesh_free(&meshes[k]);
    free(meshes), free(anchored), free(inner);
    rb_mesh_free(&all);
    rb_pieces_free(&p);
    free(whole.particles), free(whole.parent);
    free(states), free(points), free(given);
    return id;
}

/* ---- blasts ---- */

int rb_debris_blast(rb_debris *d, const rb_field *f) {
    if (d->breakable_count == 0 || !(f->radius > 0.0f)) return 0;
    /* the push passes through a part in about a contact's time */
    const float t_c = rb_world_get_desc(d->world)->material.contact_time;
    /* the bodies first: a split below changes the table */
    rb_body_id *ids = malloc(sizeof *ids * d->breakable_count);
    const uint32_t count = d->breakable_count;
    if (!ids) return -1;
    for (uint32_t k = 0; k < count; k++) ids[k] = d->breakables[k].id;
    int split = 0;
    for (uint32_t k = 0; k < count && split >= 0; k++) {
        const breakable *b = rb_debris_find_breakable(d, ids[k]);
        rb_body_state s;
        if (!b || !rb_world_get_body_by_id(d->world, ids[k], &s) || s.hold != RB_HOLD_ANCHORED) continue;
        const rb_pieces *p = &b->pieces;
        float *extra = calloc(p->piece_count, sizeof *extra);
        if (!extra) {
            split = -1;
            break;
        }
        /* each piece takes the impulse the field gives a body at its centre,
         * all of which the rest must hold back: the body does not move */
        bool over = false;
        for (uint32_t j = 0; j < p->piece_count; j++) {
            float c[3], rel[3];
            rb_quat_rotate(s.orientation, &p->centre[3 * j], c);
            for (int a = 0; a < 3; a++) rel[a] = s.position[a] + c[a] - f->centre[a];
            const float dist = sqrtf(rb_v3_dot(rel, rel));
            if (dist >= f->radius) continue;
            const float force = f->strength * powf(1.0f - dist / f->radius, f->falloff) / t_c;
            extra[j] = p->holds[j] > 0.0f ? force / p->holds[j] : force > 0.0f ? INFINITY : 0.0f;
            over = over || extra[j] > 1.0f;
        }
        if (over) split = rb_debris_split(d, ids[k], extra) ? split + 1 : -1;
        free(extra);
    }
    free(ids);
    return split;
}
