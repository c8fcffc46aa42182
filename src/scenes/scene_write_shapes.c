/* scene_write_shapes.c - a saved world's own shapes and its breakable
 * bodies' piece state, as a scene file holds them (scene_write_internal.h,
 * docs/scene-format.md "shapes" and "pieces"): exact floats, so the world
 * built again from them continues bit for bit. Read back by
 * scene_read_shapes.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"
#include "scene_mesh.h"
#include "scene_write_internal.h"

const char *rb_saved_shape_name(const rb_saved_shapes *s, uint32_t ws) {
    return ws < s->size && s->names[ws][0] ? s->names[ws] : NULL;
}

void rb_saved_shapes_free(rb_saved_shapes *s) {
    free(s->names);
    memset(s, 0, sizeof *s);
}

/* "piece N", or "piece N.k" where a registry shape has that name. */
static void name_shape(const rb_entities *t, uint32_t ws, char name[RB_SCENE_NAME_SIZE]) {
    snprintf(name, RB_SCENE_NAME_SIZE, "piece %u", ws);
    for (uint32_t k = 1; rb_entities_find(t, name) >= 0; k++) snprintf(name, RB_SCENE_NAME_SIZE, "piece %u.%u", ws, k);
}

static bool all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* One entry of `shapes`: world shape ws under name. */
static bool write_shape(FILE *f, const rb_scene_source *src, uint32_t ws, const char *name, char *err,
                        size_t err_size) {
    rb_world *w = src->world;
    const uint32_t n = rb_world_shape_particles(w, ws, NULL, 0, NULL);
    float *p = malloc(sizeof *p * 3 * (n ? n : 1)), mass = 0.0f, inertia[3] = {0};
    if (!p) return snprintf(err, err_size, "out of memory for shape %u's particles", ws), false;
    rb_world_shape_particles(w, ws, p, n, &mass);
    rb_world_shape_inertia(w, ws, inertia);
    char text[32];
    fprintf(f, "    {\"name\": \"%s\", \"radius\": %s", name, rb_float_decimal(rb_world_shape_radius(w, ws), text));
    fprintf(f, ", \"mass\": %s, \"inertia\": ", rb_float_decimal(mass, text));
    rb_scene_put_floats(f, inertia, 3);
    fputs(",\n     \"particles\": ", f);
    rb_scene_put_floats(f, p, 3 * n);
    const bool finite = all_finite(p, 3 * (size_t)n);
    free(p);
    if (!finite) return snprintf(err, err_size, "shape %u has a particle that is not finite", ws), false;
    rb_mesh m;
    if (rb_debris_piece_mesh(src->debris, ws, &m)) {
        fputs(",\n     \"mesh\": ", f);
        const bool ok = rb_scene_put_mesh(f, &m);
        rb_mesh_free(&m);
        if (!ok) return snprintf(err, err_size, "shape %u's mesh has a value that is not finite", ws), false;
    }
    fputs("}", f);
    return true;
}

bool rb_scene_write_shapes(FILE *f, const rb_scene_source *src, rb_saved_shapes *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    rb_world *w = src->world;
    const uint32_t shapes = rb_world_shape_count(w), n = rb_world_body_count(w);
    const uint32_t *of = rb_world_body_shapes(w);
    bool any = false;
    for (uint32_t b = 0; b < n && !any; b++) any = rb_entities_of_world_shape(src->entities, of[b]) < 0;
    if (!any) return true;
    out->names = calloc(shapes, sizeof *out->names);
    if (!out->names) return snprintf(err, err_size, "out of memory for %u shapes' names", shapes), false;
    out->size = shapes;
    for (uint32_t b = 0; b < n; b++)
        if (of[b] < shapes && rb_entities_of_world_shape(src->entities, of[b]) < 0)
            out->names[of[b]][0] = 1; /* marked: named below */
    fputs("  \"shapes\": [", f);
    bool first = true;
    for (uint32_t ws = 0; ws < shapes; ws++) {
        if (!out->names[ws][0]) continue;
        name_shape(src->entities, ws, out->names[ws]);
        fputs(first ? "\n" : ",\n", f);
        first = false;
        if (!write_shape(f, src, ws, out->names[ws], err, err_size)) return rb_saved_shapes_free(out), false;
    }
    fputs("\n  ],\n", f);
    return true;
}

bool rb_scene_write_pieces(FILE *f, rb_world *w, rb_body_id id, uint32_t ws, char *err, size_t err_size) {
    const uint32_t pc = rb_world_get_pieces(w, id, NULL, 0, NULL);
    if (pc == 0) return true;
    const uint32_t n = rb_world_shape_particles(w, ws, NULL, 0, NULL);
    uint32_t *of = malloc(sizeof *of * (n ? n : 1));
    rb_piece_desc *pieces = malloc(sizeof *pieces * pc);
    float *peak = malloc(sizeof *peak * pc), *v = malloc(sizeof *v * 3 * pc);
    bool ok = of && pieces && peak && v;
    bool taken = false;
    if (ok) {
        rb_world_particle_pieces(w, id, of, n);
        rb_world_get_pieces(w, id, pieces, pc, &taken);
        ok = rb_world_piece_loads(w, id, peak, pc) == pc;
        if (!ok) snprintf(err, err_size, "cannot read a body's pieces' loads back from the backend (slot %u)", id.slot);
    } else {
        snprintf(err, err_size, "out of memory for %u pieces", pc);
    }
    if (ok) {
        fputs(", \"pieces\": {\"of\": ", f);
        rb_scene_put_uints(f, of, n);
        for (uint32_t k = 0; k < pc; k++) memcpy(&v[3 * k], pieces[k].centre, sizeof pieces[k].centre);
        fputs(", \"centres\": ", f);
        rb_scene_put_floats(f, v, 3 * pc);
        for (uint32_t k = 0; k < pc; k++) v[k] = pieces[k].mass;
        fputs(", \"masses\": ", f);
        rb_scene_put_floats(f, v, pc);
        for (uint32_t k = 0; k < pc; k++) v[k] = pieces[k].holds;
        fputs(", \"holds\": ", f);
        rb_scene_put_floats(f, v, pc);
        /* a piece that holds nothing, once loaded, is at +inf (world.h): "inf" (JSON has no infinity) */
        fputs(", \"peaks\": [", f);
        char text[32];
        for (uint32_t k = 0; k < pc; k++)
            fprintf(f, "%s%s", k ? ", " : "", isinf(peak[k]) ? "\"inf\"" : rb_float_decimal(peak[k], text));
        fprintf(f, "]%s}", taken ? ", \"taken\": true" : "");
    }
    free(of), free(pieces), free(peak), free(v);
    return ok;
}
