/* scene.c - scenes in memory: made and built into a world (see scene.h).
 * Reading scene files is scene_read*.c, writing them scene_save.c;
 * the formation and pile scenes are scene_generated.c. */
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"

/* ---- the scene in memory ---- */

rb_scene *rb_scene_create(const char *name) {
    rb_scene *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->world = rb_default_world_desc();
    snprintf(s->materials[0].name, sizeof s->materials[0].name, "default");
    s->materials[0].material = s->world.material;
    s->material_count = 1;
    return s;
}

void rb_scene_destroy(rb_scene *s) {
    if (!s) return;
    free(s->bodies);
    free(s->contacts);
    free(s->debris);
    rb_debris_destroy(s->debris_state);
    free(s->joints);
    for (uint32_t k = 0; k < s->path_count; k++) free(s->paths[k].keys);
    free(s->paths);
    for (uint32_t k = 0; k < s->shape_count; k++) free(s->shapes[k].particles), rb_mesh_free(&s->shapes[k].mesh);
    free(s->shapes);
    for (uint32_t k = 0; k < s->piece_state_count; k++)
        free(s->pieces[k].piece_of), free(s->pieces[k].pieces), free(s->pieces[k].peak);
    free(s->pieces);
    free(s);
}

/* Glues assembly a's parts (the scene's bodies that name it, the first of
 * the world's in order: ids by index, taken before any is removed). */
static bool glue(const rb_scene *s, uint32_t a, rb_debris *d, rb_world *w, char *why, size_t why_size) {
    uint32_t count = 0;
    for (uint32_t b = 0; b < s->body_count; b++) count += s->bodies[b].assembly == a + 1;
    rb_glue_part *parts = calloc(count ? count : 1, sizeof *parts);
    if (!parts) return snprintf(why, why_size, "out of memory"), false;
    count = 0;
    for (uint32_t b = 0; b < s->body_count && b < rb_world_body_count(w); b++) {
        const rb_scene_body *sb = &s->bodies[b];
        if (sb->assembly != a + 1) continue;
        parts[count++] = (rb_glue_part){rb_world_body_id(w, b), sb->anchored, sb->breakable, sb->fracture};
    }
    const rb_scene_assembly *as = &s->assemblies[a];
    const rb_glue_desc desc = {as->strength, as->asleep};
    const bool ok = rb_debris_glue(d, parts, count, &desc, why, why_size).generation != 0;
    free(parts);
    return ok;
}

/* A saved world's own shapes' meshes given to the debris layer (rb_debris_piece_mesh). */
static bool keep_meshes(const rb_scene *s, rb_debris *d, rb_world *w, char *err, size_t err_size) {
    for (uint32_t b = 0; b < s->body_count && b < rb_world_body_count(w); b++) {
        const rb_scene_body *sb = &s->bodies[b];
        const rb_mesh *mesh = sb->saved_shape ? &s->shapes[sb->saved_shape - 1].mesh : NULL;
        if (mesh && mesh->vertex_count && !rb_debris_set_piece_mesh(d, rb_world_body_shapes(w)[b], mesh)) {
            snprintf(err, err_size, "%s: shapes.%s: out of memory for its mesh", s->name, sb->shape);
            return false;
        }
    }
    return true;
}

rb_debris *rb_scene_debris(const rb_scene *s, rb_entities *t, char *err, size_t err_size) {
    if (err_size) err[0] = '\0';
    /* a saved world's own shapes' meshes are the debris layer's (rb_debris_piece_mesh): it is made for them */
    if (!s->debris && s->assembly_count == 0 && s->shape_count == 0) return NULL;
    static const rb_debris_desc none = {0};
    char why[256];
    rb_world *w = rb_entities_world(t);
    if (s->debris_state) { /* a saved layer, whole (the reader refused bodies' lifetimes and assemblies with it) */
        const uint32_t n = s->body_count < rb_world_body_count(w) ? s->body_count : rb_world_body_count(w);
        rb_body_id *ids = calloc(n ? n : 1, sizeof *ids);
        for (uint32_t b = 0; ids && b < n; b++) ids[b] = rb_world_body_id(w, b);
        rb_debris *d = ids ? rb_debris_restore(s->debris, s->debris_state, t, ids, n, why, sizeof why) : NULL;
        if (!d) snprintf(err, err_size, "%s: %s", s->name, ids ? why : "out of memory");
        free(ids);
        if (d && !keep_meshes(s, d, w, err, err_size)) rb_debris_destroy(d), d = NULL;
        return d;
    }
    rb_debris *d = rb_debris_create(s->debris ? s->debris : &none, t, why, sizeof why);
    if (!d) {
        snprintf(err, err_size, "%s: %s", s->name, why);
        return NULL;
    }
    if (!keep_meshes(s, d, w, err, err_size)) {
        rb_debris_destroy(d);
        return NULL;
    }
    for (uint32_t b = 0; b < s->body_count && b < rb_world_body_count(w); b++) {
        const rb_scene_body *sb = &s->bodies[b];
        if (sb->assembly) continue; /* its `breakable` is its own, once its assembly frees it */
        if (sb->lifetime > 0.0f) rb_debris_track(d, rb_world_body_id(w, b), sb->lifetime);
        if (sb->breakable && !rb_debris_make_breakable(d, rb_world_body_id(w, b), &sb->fracture, why, sizeof why)) {
            snprintf(err, err_size, "%s: bodies[%u]: %s", s->name, b, why);
            rb_debris_destroy(d);
            return NULL;
        }
    }
    /* last: gluing removes the parts' bodies, after the ones above found theirs by index */
    for (uint32_t a = 0; a < s->assembly_count; a++)
        if (!glue(s, a, d, w, why, sizeof why)) {
            snprintf(err, err_size, "%s: %s: %s", s->name, s->assemblies[a].origin, why);
            rb_debris_destroy(d);
            return NULL;
        }
    return d;
}

/* ---- what it holds ---- */

const char *rb_scene_shape_name(const rb_scene *s) {
    if (s->body_count == 0) return "none";
    for (uint32_t i = 1; i < s->body_count; i++)
        if (strcmp(s->bodies[i].shape, s->bodies[0].shape) != 0) return "mixed";
    return s->bodies[0].shape;
}

rb_world_desc rb_scene_world_desc(const rb_scene *s, const rb_world_desc *base) {
    rb_world_desc d = s->world;
    d.backend = base->backend;
    d.device_index = base->device_index;
    return d;
}

/* ---- building ---- */

/* Removes the bodies a build added (the last `added` of the world), last first. */
static void remove_added(rb_world *w, uint32_t added) {
    for (uint32_t k = 0; k < added; k++) rb_world_remove_body(w, rb_world_body_id(w, rb_world_body_count(w) - 1));
}

/* Warns of a dynamic body that starts with a particle more than a tenth
 * of its radius into a plane's solid: the contact throws it out at tens of
 * m/s (a rock set 0.12 m into the ground left at 110 m/s, one set into a
 * slope at 780 m/s), which the scene's author would rather hear of than
 * see. (Bodies set a hair into the ground, a cube at y = 0.6, rest.) */
static void warn_inside_planes(const rb_scene *s, uint32_t i, const rb_shape *shape, const rb_world_desc *w) {
    const rb_scene_body *b = &s->bodies[i];
    /* a saved state (rb_scene_save) is where the run had the body, touching what it touched */
    if (b->is_static || b->is_kinematic || b->exact) return;
    float q[4] = {b->desc.orientation[0], b->desc.orientation[1], b->desc.orientation[2], b->desc.orientation[3]};
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) q[3] = 1.0f;
    rb_quat_normalize(q);
    const float radius = shape->particle_radius * b->scale;
    for (uint32_t k = 0; k < w->plane_count; k++) {
        float deepest = 0.0f; /* the deepest particle surface below the plane, m */
        for (uint32_t j = 0; j < shape->particle_count; j++) {
            const float o[3] = {shape->particles[3 * j] * b->scale, shape->particles[3 * j + 1] * b->scale,
                                shape->particles[3 * j + 2] * b->scale};
            float r[3];
            rb_quat_rotate(q, o, r);
            const float *n = w->planes[k].normal;
            const float h = n[0] * (b->desc.position[0] + r[0]) + n[1] * (b->desc.position[1] + r[1]) +
                            n[2] * (b->desc.position[2] + r[2]) - w->planes[k].offset;
            deepest = fmaxf(deepest, radius - h);
        }
        if (deepest > 0.1f * radius)
            rb_log(RB_LOG_WARN, "%s: bodies[%u] (%s): starts %.2f m into plane %u: it will be thrown out", s->name, i,
                   b->shape, deepest, k);
    }
}

uint32_t rb_scene_build(const rb_scene *s, rb_entities *t, char *err, size_t err_size) {
    rb_world *w = rb_entities_world(t);
    if (s->contact_count > 0 && rb_world_particle_count(w) > 0) {
        snprintf(err, err_size, "%s: contacts: a saved contact history is restored into an empty world only", s->name);
        return 0;
    }
    uint32_t world_material[RB_SCENE_MAX_MATERIALS] = {0};
    for (uint32_t i = 1; i < s->material_count; i++) {
        int m = rb_world_add_material(w, s->materials[i].material);
        if (m < 0) {
            snprintf(err, err_size, "%s: materials.%s: the world refused it (the log says why)", s->name,
                     s->materials[i].name);
            return 0;
        }
        world_material[i] = (uint32_t)m;
    }
    /* a saved world's own shapes, registered as they were saved (their world shape index is the world's next) */
    int *saved = s->shape_count ? malloc(sizeof *saved * s->shape_count) : NULL;
    if (s->shape_count && !saved) return snprintf(err, err_size, "%s: out of memory", s->name), 0;
    for (uint32_t k = 0; k < s->shape_count; k++) {
        const rb_shape *sh = &s->shapes[k];
        const rb_shape_data data = {sh->particle_count, sh->particles, sh->mass,
                                    {sh->inertia[0], sh->inertia[1], sh->inertia[2]}, sh->particle_radius};
        if ((saved[k] = rb_world_add_shape(w, &data)) < 0) {
            free(saved);
            snprintf(err, err_size, "%s: shapes[%u] (%s): the world refused it (the log says why)", s->name, k,
                     sh->name);
            return 0;
        }
    }
    uint32_t added = 0;
    const uint32_t base = rb_world_body_count(w); /* the scene's bodies are the world's from here on */
    for (uint32_t i = 0; i < s->body_count; i++) {
        const rb_scene_body *b = &s->bodies[i];
        int row = b->saved_shape ? -1 : rb_entities_find(t, b->shape);
        if (row < 0 && !b->saved_shape) {
            snprintf(err, err_size, "%s: body %u: shape '%s' is not loaded", s->name, i, b->shape);
            free(saved);
            return added;
        }
        warn_inside_planes(s, i, b->saved_shape ? &s->shapes[b->saved_shape - 1] : rb_entities_get(t, (uint32_t)row)->shape,
                           rb_world_get_desc(w));
        rb_body_desc d = b->desc;
        d.kind = b->is_static ? RB_BODY_STATIC : b->is_kinematic ? RB_BODY_KINEMATIC : RB_BODY_DYNAMIC;
        d.material = world_material[b->material];
        /* a part of an assembly is held as its assembly is, when it is glued (rb_scene_debris) */
        if (!b->assembly) d.hold = b->anchored ? RB_HOLD_ANCHORED : b->asleep ? RB_HOLD_DORMANT : RB_HOLD_NONE;
        if (b->saved_shape) d.shape = (uint32_t)saved[b->saved_shape - 1];
        rb_body_id id = b->saved_shape ? rb_world_add_body(w, &d) : rb_entities_spawn_scaled(t, (uint32_t)row, b->scale, &d);
        if (id.generation == 0) {
            snprintf(err, err_size, "%s: body %u (%s): the world refused it (the log says why)", s->name, i, b->shape);
            free(saved);
            return added;
        }
        if (b->exact) {
            rb_body_state st;
            rb_world_get_body_by_id(w, id, &st);
            memcpy(st.position, d.position, sizeof st.position);
            memcpy(st.orientation, d.orientation, sizeof st.orientation);
            memcpy(st.velocity, d.velocity, sizeof st.velocity);
            if (d.kind == RB_BODY_DYNAMIC) {
                memcpy(st.angular_momentum, b->angular_momentum, sizeof st.angular_momentum);
                st.support = b->support;
            }
            st.sleep_timer = b->sleep_timer;
            if (!rb_world_restore_body(w, id, &st)) {
                rb_world_remove_body(w, id);
                snprintf(err, err_size, "%s: body %u (%s): its saved state was refused (the log says why)", s->name, i,
                         b->shape);
                free(saved);
                return added;
            }
        }
        if (b->path) {
            const rb_scene_path *p = &s->paths[b->path - 1];
            const rb_path_desc pd = {
                .keys = p->keys, .key_count = p->key_count, .smooth = p->smooth, .loop = p->loop, .time = p->time};
            if (!rb_world_set_path(w, id, &pd)) {
                rb_world_remove_body(w, id);
                snprintf(err, err_size, "%s: body %u (%s): its path was refused (the log says why)", s->name, i,
                         b->shape);
                free(saved);
                return added;
            }
        }
        if (b->pieces) {
            const rb_scene_pieces *p = &s->pieces[b->pieces - 1];
            if (!rb_world_set_pieces(w, id, p->piece_count, p->piece_of, p->pieces) ||
                !rb_world_restore_piece_loads(w, id, p->peak, p->piece_count, p->taken)) {
                rb_world_remove_body(w, id);
                snprintf(err, err_size, "%s: body %u (%s): its pieces were refused (the log says why)", s->name, i,
                         b->shape);
                free(saved);
                return added;
            }
        }
        added++;
    }
    free(saved);
    for (uint32_t k = 0; k < s->joint_count; k++) {
        const rb_scene_joint *j = &s->joints[k];
        rb_joint_desc jd = {.a = rb_world_body_id(w, base + j->a), .breaking_force = j->breaking_force};
        if (j->b != RB_SCENE_WORLD) jd.b = rb_world_body_id(w, base + j->b);
        memcpy(jd.anchor_a, j->anchor_a, sizeof jd.anchor_a);
        memcpy(jd.anchor_b, j->anchor_b, sizeof jd.anchor_b);
        if (!rb_world_add_joint(w, &jd)) {
            remove_added(w, added);
            snprintf(err, err_size, "%s: joints[%u]: the world refused it (the log says why)", s->name, k);
            return 0;
        }
    }
    /* The contact history last: it names the particles of every body. The
     * reader has checked each entry against the scene (scene_read_contacts.c); the
     * world checks what only it knows (a partner of the particle's own body,
     * more entries for a particle than it keeps) and logs the entry. */
    if (s->contact_count > 0 && !rb_world_restore_contacts(w, s->contacts, s->contact_count)) {
        remove_added(w, added);
        snprintf(err, err_size, "%s: contacts: the world refused the saved contact history (the log names the entry)",
                 s->name);
        return 0;
    }
    return added;
}
