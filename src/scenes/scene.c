/* scene.c - scenes in memory: made, built into a world, and saved so they
 * reload bit for bit (see scene.h). Reading scene files is scene_read*.c;
 * the formation and pile scenes are scene_generated.c. */
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/decimal.h"
#include "base/log.h"
#include "base/rb_math.h"
#include "scene_write_internal.h"

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

/* ---- saving ---- */

static void put_float(FILE *f, float x) {
    char text[32];
    fputs(rb_float_decimal(x, text), f);
}

static void put_vector(FILE *f, const char *key, const float *v, int n) {
    fprintf(f, "\"%s\": [", key);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        put_float(f, v[i]);
    }
    fputs("]", f);
}

/* Whether x has a bit set (-0 too, so it reads back as it was). */
static bool nonzero(float x) { return x != 0.0f || signbit(x); }

/* rolling_friction is written where it is not zero, and where a material
 * left without it would read the default material's (scene_read.c gives
 * unset keys the default's): a world without rolling friction saves as it
 * did before rb_material had it. */
static void put_material(FILE *f, const char *name, const rb_material *m, const rb_material *def, bool last) {
    fprintf(f, "    \"%s\": {\"restitution\": ", name);
    put_float(f, m->restitution);
    fputs(", \"friction\": ", f);
    put_float(f, m->friction);
    fputs(", \"contact_time\": ", f);
    put_float(f, m->contact_time);
    if (nonzero(m->rolling_friction) || nonzero(def->rolling_friction)) {
        fputs(", \"rolling_friction\": ", f);
        put_float(f, m->rolling_friction);
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

/* The world's contact history (rb_world_read_contacts), the last key: one
 * [particle, partner, dx, dy, dz] a line, a plane partner as {"plane": k},
 * and a rolling angle that is not zero as a sixth element
 * {"rolling": [rx, ry, rz]} (docs/scene-format.md, "contacts"). */
static bool write_contacts(FILE *f, rb_world *w, char *err, size_t err_size) {
    const uint32_t n = rb_world_read_contacts(w, NULL, 0);
    rb_contact_memory *c = n ? malloc((size_t)n * sizeof *c) : NULL;
    if (n && !c) {
        snprintf(err, err_size, "out of memory for %u contacts", n);
        return false;
    }
    if (n && rb_world_read_contacts(w, c, n) != n) {
        free(c);
        snprintf(err, err_size, "cannot read the contact history back from the backend");
        return false;
    }
    fputs("  \"contacts\": [", f);
    for (uint32_t i = 0; i < n; i++) {
        bool finite = true;
        for (int k = 0; k < 3; k++) finite &= isfinite(c[i].displacement[k]) && isfinite(c[i].rolling[k]);
        if (!finite) {
            snprintf(err, err_size, "particle %u has a contact that is not finite (the simulation blew up)",
                     c[i].particle);
            free(c);
            return false;
        }
        fprintf(f, "%s\n    [%u, ", i ? "," : "", c[i].particle);
        if (c[i].partner >= RB_CONTACT_PLANE)
            fprintf(f, "{\"plane\": %u}", c[i].partner - RB_CONTACT_PLANE);
        else
            fprintf(f, "%u", c[i].partner);
        for (int k = 0; k < 3; k++) {
            fputs(", ", f);
            put_float(f, c[i].displacement[k]);
        }
        if (nonzero(c[i].rolling[0]) || nonzero(c[i].rolling[1]) || nonzero(c[i].rolling[2])) {
            fputs(", {", f);
            put_vector(f, "rolling", c[i].rolling, 3);
            fputs("}", f);
        }
        fputs("]", f);
    }
    fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
    free(c);
    return true;
}

/* One camera view: {"position": [...], "yaw": y, "pitch": p}. */
static void write_view(FILE *f, const rb_scene_bookmark *b) {
    fputs("{", f);
    put_vector(f, "position", b->position, 3);
    fputs(", \"yaw\": ", f);
    put_float(f, b->yaw);
    fputs(", \"pitch\": ", f);
    put_float(f, b->pitch);
    fputs("}", f);
}

/* The camera (docs/scene-format.md, "camera"): its start camera and its
 * bookmarks, each written when set (an empty bookmark slot as null), the
 * key not at all when neither is. */
static void write_camera(FILE *f, const rb_scene_bookmark *bookmarks, const rb_scene_bookmark *start) {
    bool any = false;
    for (int i = 0; bookmarks && i < RB_SCENE_BOOKMARKS; i++) any |= bookmarks[i].set;
    const bool has_start = start && start->set;
    if (!any && !has_start) return;
    fputs("  \"camera\": {", f);
    if (has_start) {
        fputs("\"start\": ", f);
        write_view(f, start);
        fputs(any ? ",\n             " : "},\n", f);
    }
    if (!any) return;
    fputs("\"bookmarks\": [", f);
    for (int i = 0; i < RB_SCENE_BOOKMARKS; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        if (bookmarks[i].set) write_view(f, &bookmarks[i]);
        else fputs("null", f);
    }
    fputs("\n  ]},\n", f);
}

/* The colours body id was given (colors.h), as `color` and `inside_color`: those a scene gave it, or its
 * broken parent's; none for a body in its defaults. */
static void put_colors(FILE *f, const rb_color_table *colors, rb_body_id id) {
    rb_color_spec spec;
    if (!rb_color_table_get(colors, id, &spec)) return;
    if (spec.has_color) {
        fputs(", ", f);
        put_vector(f, "color", spec.color, 3);
    }
    if (spec.has_inside) {
        fputs(", ", f);
        put_vector(f, "inside_color", spec.inside, 3);
    }
}

/* The body indices at each end of each joint the world holds (2 a joint,
 * UINT32_MAX for the world's end and for both ends of a broken joint, which
 * is not written); returns the joint count, UINT32_MAX when out of memory. */
static uint32_t joint_ends(rb_world *w, uint32_t **out) {
    const uint32_t joints = rb_world_joint_count(w), n = rb_world_body_count(w);
    *out = NULL;
    if (!joints) return 0;
    uint32_t *ends = malloc(2 * (size_t)joints * sizeof *ends);
    if (!ends) return UINT32_MAX;
    for (uint32_t k = 0; k < joints; k++) {
        rb_joint_state js;
        ends[2 * k] = ends[2 * k + 1] = UINT32_MAX;
        if (!rb_world_get_joint(w, k, &js) || js.broken) continue;
        for (uint32_t b = 0; b < n; b++) {
            const rb_body_id id = rb_world_body_id(w, b);
            if (rb_body_same(id, js.desc.a)) ends[2 * k] = b;
            if (rb_body_same(id, js.desc.b)) ends[2 * k + 1] = b;
        }
    }
    *out = ends;
    return joints;
}

/* A kinematic body's path (docs/scene-format.md, "path"), with its clock now. */
static void put_path(FILE *f, rb_world *w, rb_body_id id) {
    rb_path_desc p;
    if (!rb_world_get_path(w, id, &p)) return;
    fputs(", \"path\": {\"keys\": [", f);
    for (uint32_t k = 0; k < p.key_count; k++) {
        fputs(k ? ", {\"t\": " : "{\"t\": ", f);
        put_float(f, p.keys[k].time);
        fputs(", ", f);
        put_vector(f, "position", p.keys[k].position, 3);
        fputs(", ", f);
        put_vector(f, "orientation", p.keys[k].orientation, 4);
        fputs("}", f);
    }
    fprintf(f, "], \"interpolation\": \"%s\", \"loop\": %s, \"time\": %.17g}", p.smooth ? "smooth" : "linear",
            p.loop ? "true" : "false", p.time);
}

/* The joints that hold (a broken one acts no more and is left out), their
 * bodies by the names the bodies were written with. */
static void write_joints(FILE *f, rb_world *w, const uint32_t *ends) {
    const uint32_t joints = rb_world_joint_count(w);
    bool first = true;
    for (uint32_t k = 0; k < joints; k++) {
        rb_joint_state js;
        if (ends[2 * k] == UINT32_MAX || !rb_world_get_joint(w, k, &js)) continue;
        fprintf(f, "%s\n    {\"a\": \"b%u\", ", first ? "  \"joints\": [" : ",", ends[2 * k]);
        if (ends[2 * k + 1] != UINT32_MAX)
            fprintf(f, "\"b\": \"b%u\", ", ends[2 * k + 1]);
        else
            fputs("\"b\": \"world\", ", f);
        put_vector(f, "anchor_a", js.desc.anchor_a, 3);
        fputs(", ", f);
        put_vector(f, "anchor_b", js.desc.anchor_b, 3);
        if (js.desc.breaking_force > 0.0f) {
            fputs(", \"breaking_force\": ", f);
            put_float(f, js.desc.breaking_force);
        }
        fputs("}", f);
        first = false;
    }
    if (!first) fputs("\n  ],\n", f);
}

bool rb_scene_write_source(FILE *f, const rb_scene_source *source, char *err, size_t err_size) {
    rb_world *w = source->world;
    const rb_entities *t = source->entities;
    const rb_color_table *colors = source->colors;
    const rb_world_desc *d = rb_world_get_desc(w);
    fprintf(f, "{\n  \"rubble_scene\": %d,\n  \"world\": {", RB_SCENE_VERSION);
    put_vector(f, "gravity", d->gravity, 3);
    fputs(", \"dt\": ", f);
    put_float(f, d->dt);
    fputs(", \"sleep\": {\"speed\": ", f);
    put_float(f, d->sleep_speed);
    fputs(", \"time\": ", f);
    put_float(f, d->sleep_time);
    fputc('}', f);
    if (d->contact_slots) fprintf(f, ", \"contact_slots\": %u", d->contact_slots);
    if (d->max_bodies) fprintf(f, ", \"max_bodies\": %u", d->max_bodies);
    fputs("},\n  \"materials\": {\n", f);
    const uint32_t materials = rb_world_material_count(w);
    rb_material def;
    rb_world_get_material(w, 0, &def);
    for (uint32_t i = 0; i < materials; i++) {
        char name[32];
        snprintf(name, sizeof name, i ? "m%u" : "default", i);
        rb_material m;
        rb_world_get_material(w, i, &m);
        put_material(f, name, &m, i ? &def : &m, i + 1 == materials);
    }
    fputs("  },\n  \"planes\": [", f);
    for (uint32_t i = 0; i < d->plane_count; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        put_vector(f, "normal", d->planes[i].normal, 3);
        fputs(", \"offset\": ", f);
        put_float(f, d->planes[i].offset);
        fputs("}", f);
    }
    fputs(d->plane_count ? "\n  ],\n" : "],\n", f);
    /* the world's own shapes (pieces, assemblies) before the bodies that name them */
    rb_saved_shapes saved;
    if (!rb_scene_write_shapes(f, source, &saved, err, err_size)) return false;
    fputs("  \"bodies\": [", f);
    const uint32_t n = rb_world_body_count(w);
    uint32_t *ends = NULL;
    const uint32_t joints = joint_ends(w, &ends);
    if (joints == UINT32_MAX) {
        rb_saved_shapes_free(&saved);
        return snprintf(err, err_size, "out of memory for the joints"), false;
    }
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s;
        if (!rb_world_get_body(w, b, &s)) {
            snprintf(err, err_size, "cannot read body %u back from the backend", b);
            free(ends);
            rb_saved_shapes_free(&saved);
            return false;
        }
        bool finite = isfinite(s.sleep_timer) && isfinite(s.support);
        for (int k = 0; k < 3; k++)
            finite &= isfinite(s.position[k]) && isfinite(s.velocity[k]) && isfinite(s.angular_velocity[k]) &&
                      isfinite(s.angular_momentum[k]);
        for (int k = 0; k < 4; k++) finite &= isfinite(s.orientation[k]);
        if (!finite) {
            snprintf(err, err_size, "body %u has a state that is not finite (the simulation blew up)", b);
            free(ends);
            rb_saved_shapes_free(&saved);
            return false;
        }
        const int row = rb_entities_of_world_shape(t, s.shape);
        const char *shape = row >= 0 ? rb_entities_get(t, (uint32_t)row)->shape->name : rb_saved_shape_name(&saved, s.shape);
        fprintf(f, "%s\n    {\"shape\": \"%s\", ", b ? "," : "", shape);
        put_vector(f, "position", s.position, 3);
        fputs(", ", f);
        put_vector(f, "orientation", s.orientation, 4);
        /* A static body has no motion; a kinematic body's spin is its
         * angular velocity; a dynamic body's is its angular momentum. The
         * sleep timer makes the reader restore every field exactly. */
        if (s.kind != RB_BODY_STATIC) {
            fputs(", ", f);
            put_vector(f, "velocity", s.velocity, 3);
            fputs(", ", f);
            if (s.kind == RB_BODY_KINEMATIC) {
                put_vector(f, "angular_velocity", s.angular_velocity, 3);
            } else {
                put_vector(f, "angular_momentum", s.angular_momentum, 3);
                fputs(", \"support\": ", f);
                put_float(f, s.support);
            }
        }
        fputs(", \"sleep_timer\": ", f);
        put_float(f, s.sleep_timer);
        if (s.material) fprintf(f, ", \"material\": \"m%u\"", s.material);
        const float scale = rb_entities_scale_of_world_shape(t, s.shape);
        if (scale != 1.0f) {
            fputs(", \"scale\": ", f);
            put_float(f, scale);
        }
        if (s.kind == RB_BODY_STATIC) fputs(", \"static\": true", f);
        if (s.kind == RB_BODY_KINEMATIC) fputs(", \"kinematic\": true", f);
        put_colors(f, colors, s.id);
        for (uint32_t k = 0; k < 2 * joints; k++)
            if (ends[k] == b) {
                fprintf(f, ", \"name\": \"b%u\"", b);
                break;
            }
        put_path(f, w, s.id);
        if (s.kind == RB_BODY_DYNAMIC && !rb_scene_write_pieces(f, w, s.id, s.shape, err, err_size)) {
            free(ends);
            rb_saved_shapes_free(&saved);
            return false;
        }
        fputs("}", f);
    }
    rb_saved_shapes_free(&saved);
    fputs(n ? "\n  ],\n" : "],\n", f);
    write_joints(f, w, ends);
    free(ends);
    write_camera(f, source->bookmarks, source->start);
    /* the debris layer's effects and state (src/scenes/debris_save.c) */
    if (source->debris && !rb_debris_write_state(f, source->debris, err, err_size)) return false;
    return write_contacts(f, w, err, err_size);
}

bool rb_scene_write(FILE *f, rb_world *w, const rb_entities *t, const rb_color_table *colors, char *err,
                    size_t err_size) {
    const rb_scene_source source = {.world = w, .entities = t, .colors = colors};
    return rb_scene_write_source(f, &source, err, err_size);
}
