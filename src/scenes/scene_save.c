/* scene_save.c - a scene written out as a scene file (docs/scene-format.md)
 * that reloads bit for bit: the text (rb_scene_write_source, with a saved
 * world's own shapes and pieces from scene_write_shapes.c), and the file
 * saved whole or not at all (rb_scene_save_source, through base/replace.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "base/replace.h"
#include "scene.h"
#include "scene_write_internal.h"

/* ---- the text ---- */

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

/* ---- the file, whole or not at all ---- */

bool rb_scene_save(const char *path, rb_world *w, const rb_entities *t, char *err, size_t err_size) {
    const rb_scene_source source = {.world = w, .entities = t};
    return rb_scene_save_source(path, &source, err, err_size);
}

static bool write_source(FILE *f, void *source, char *why, size_t why_size) {
    return rb_scene_write_source(f, source, why, why_size);
}

/* Written beside the name and renamed (or with keep_existing linked) when
 * whole (base/replace.h). */
static bool save_whole(const char *path, const rb_scene_source *source, bool keep_existing, char *err,
                       size_t err_size) {
    char why[1024];
    if ((keep_existing ? rb_replace_write_new : rb_replace_write)(path, "w", write_source, (void *)source, why,
                                                                  sizeof why))
        return true;
    snprintf(err, err_size, "%s; not saved (the old file, if any, is untouched)", why);
    return false;
}

bool rb_scene_save_source(const char *path, const rb_scene_source *source, char *err, size_t err_size) {
    return save_whole(path, source, false, err, err_size);
}

bool rb_scene_save_new(const char *path, const rb_scene_source *source, char *err, size_t err_size) {
    return save_whole(path, source, true, err, err_size);
}
