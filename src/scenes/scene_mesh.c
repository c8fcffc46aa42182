/* scene_mesh.c - meshes and lists of numbers in a scene file (scene_mesh.h):
 * written with exact floats, read with every value checked. Calls only the
 * reader's toolkit (scene_read_base.c). */
#include "scene_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"

/* ---- writing ---- */

void rb_scene_put_floats(FILE *f, const float *v, uint32_t n) {
    char text[32];
    fputc('[', f);
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        fputs(rb_float_decimal(v[i], text), f);
    }
    fputc(']', f);
}

void rb_scene_put_uints(FILE *f, const uint32_t *v, uint32_t n) {
    fputc('[', f);
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%s%u", i ? ", " : "", v[i]);
    fputc(']', f);
}

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

bool rb_scene_put_mesh(FILE *f, const rb_mesh *m) {
    if (m->vertex_count == 0) {
        fputs("{}", f);
        return true;
    }
    const size_t n = 3 * (size_t)m->vertex_count;
    if (!finite_all(m->positions, n) || !finite_all(m->normals, n)) return false;
    fputs("{\"vertices\": ", f);
    rb_scene_put_floats(f, m->positions, 3 * m->vertex_count);
    fputs(", \"normals\": ", f);
    rb_scene_put_floats(f, m->normals, 3 * m->vertex_count);
    fputs(", \"indices\": ", f);
    rb_scene_put_uints(f, m->indices, m->index_count);
    if (m->inside) {
        fputs(", \"inside\": [", f);
        for (uint32_t v = 0; v < m->vertex_count; v++) fprintf(f, "%s%d", v ? ", " : "", m->inside[v] ? 1 : 0);
        fputc(']', f);
    }
    fputc('}', f);
    return true;
}

/* ---- reading ---- */

/* The list at key: its length (a multiple of group) or -1, failed. */
static int list_at(rb_reader *r, const cJSON *obj, const char *key, uint32_t group, bool required, const cJSON **list) {
    *list = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*list) return required ? (rb_read_fail(r, "'%s' is missing", key), -1) : 0;
    if (!cJSON_IsArray(*list)) return rb_read_fail_at(r, key, "expected a list of numbers"), -1;
    const int n = cJSON_GetArraySize(*list);
    if (group > 1 && n % (int)group != 0)
        return rb_read_fail_at(r, key, "%d numbers are not whole groups of %u", n, group), -1;
    return n;
}

bool rb_read_floats(rb_reader *r, const cJSON *obj, const char *key, uint32_t group, bool required, float **out,
                    uint32_t *n) {
    *out = NULL, *n = 0;
    const cJSON *list;
    const int count = list_at(r, obj, key, group, required, &list);
    if (count <= 0) return count == 0;
    float *v = malloc(sizeof *v * (size_t)count);
    if (!v) return rb_read_fail_at(r, key, "out of memory for %d numbers", count);
    uint32_t i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !isfinite((float)e->valuedouble)) {
            free(v);
            return rb_read_fail_at(r, key, "element %u %s", i, rb_read_not_finite(e));
        }
        v[i] = (float)e->valuedouble;
    }
    *out = v, *n = (uint32_t)count;
    return true;
}

bool rb_read_uints(rb_reader *r, const cJSON *obj, const char *key, uint32_t limit, bool required, uint32_t **out,
                   uint32_t *n) {
    *out = NULL, *n = 0;
    const cJSON *list;
    const int count = list_at(r, obj, key, 1, required, &list);
    if (count <= 0) return count == 0;
    uint32_t *v = malloc(sizeof *v * (size_t)count);
    if (!v) return rb_read_fail_at(r, key, "out of memory for %d numbers", count);
    uint32_t i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        const double x = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
        if (!(x >= 0.0 && x < (double)limit && x == floor(x))) {
            free(v);
            return rb_read_fail_at(r, key, "element %u is not a whole number from 0 to %u", i, limit ? limit - 1 : 0);
        }
        v[i] = (uint32_t)x;
    }
    *out = v, *n = (uint32_t)count;
    return true;
}

bool rb_read_mesh(rb_reader *r, const cJSON *o, rb_mesh *out) {
    static const char *const keys[] = {"vertices", "normals", "indices", "inside", NULL};
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"vertices\": [...], ...}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "vertices")) {
        if (o->child) return rb_read_fail(r, "'vertices' is missing (an empty mesh is {})");
        return true;
    }
    uint32_t nv = 0, nn = 0, ni = 0, nm = 0;
    uint32_t *inside = NULL;
    bool ok = rb_read_floats(r, o, "vertices", 3, true, &out->positions, &nv) &&
              rb_read_floats(r, o, "normals", 3, true, &out->normals, &nn);
    if (ok && nn != nv) ok = rb_read_fail_at(r, "normals", "%u numbers for %u vertices' %u", nn, nv / 3, nv);
    if (ok && nv == 0) ok = rb_read_fail_at(r, "vertices", "a mesh with no vertices is written {}");
    out->vertex_count = nv / 3;
    ok = ok && rb_read_uints(r, o, "indices", out->vertex_count, true, &out->indices, &ni);
    if (ok && ni % 3 != 0) ok = rb_read_fail_at(r, "indices", "%u indices are not whole triangles", ni);
    out->index_count = ni;
    ok = ok && rb_read_uints(r, o, "inside", 2, false, &inside, &nm);
    if (ok && inside && nm != out->vertex_count)
        ok = rb_read_fail_at(r, "inside", "%u marks for %u vertices", nm, out->vertex_count);
    if (ok && inside) {
        out->inside = malloc(out->vertex_count);
        if (!out->inside) ok = rb_read_fail_at(r, "inside", "out of memory");
        for (uint32_t v = 0; ok && v < out->vertex_count; v++) out->inside[v] = (uint8_t)inside[v];
    }
    free(inside);
    if (!ok) rb_mesh_free(out);
    return ok;
}
