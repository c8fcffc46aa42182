/* gltf.c - see gltf.h. The JSON is built with cJSON, the binary data in one
 * growing buffer; every accessor has a buffer view of its own, and every
 * value is 4 bytes wide (floats, 32-bit indices), so no padding is needed
 * between them. */
#include "base/color.h"
#include "base/replace.h"
#include "gltf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glTF's numbers for component types, buffer targets and GLB chunks. */
enum {
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963,
    GLB_MAGIC = 0x46546C67, /* "glTF" */
    GLB_JSON = 0x4E4F534A,  /* "JSON" */
    GLB_BIN = 0x004E4942,   /* "BIN\0" */
};

typedef struct writer {
    cJSON *root, *views, *accessors;
    uint32_t *body_mesh; /* each body's glTF mesh: its shape in its colours */
    uint8_t *bin;
    size_t size, cap;
    bool oom;
    char why[256];
} writer;

static bool fail(writer *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof w->why, fmt, ap);
    va_end(ap);
    return false;
}

/* An object appended to array (NULL, and w->oom, when out of memory). */
static cJSON *add_object(writer *w, cJSON *array) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(array, o)) {
        cJSON_Delete(o);
        w->oom = true;
        return NULL;
    }
    return o;
}

static void add_number(writer *w, cJSON *o, const char *key, double v) {
    if (!cJSON_AddNumberToObject(o, key, v)) w->oom = true;
}

static void add_string(writer *w, cJSON *o, const char *key, const char *v) {
    if (!cJSON_AddStringToObject(o, key, v)) w->oom = true;
}

static void add_floats(writer *w, cJSON *o, const char *key, const float *v, int n) {
    cJSON *a = cJSON_AddArrayToObject(o, key);
    if (!a) w->oom = true;
    for (int i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber(v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            w->oom = true;
            return;
        }
    }
}

/* bytes appended to the binary chunk as a view of its own; the view's index,
 * or -1. target 0: animation data, which glTF says has no target. */
static int add_view(writer *w, const void *data, size_t bytes, int target) {
    /* GLB lengths are 32-bit: the whole file must stay under 4 GiB */
    if (bytes > UINT32_MAX / 2 || w->size > UINT32_MAX / 2 - bytes) {
        fail(w, "too large for a glTF binary (4 GiB at most)");
        return -1;
    }
    if (w->size + bytes > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->size + bytes) cap *= 2;
        uint8_t *grown = realloc(w->bin, cap);
        if (!grown) {
            w->oom = true;
            return -1;
        }
        w->bin = grown;
        w->cap = cap;
    }
    cJSON *v = add_object(w, w->views);
    if (!v) return -1;
    add_number(w, v, "buffer", 0);
    add_number(w, v, "byteOffset", (double)w->size);
    add_number(w, v, "byteLength", (double)bytes);
    if (target) add_number(w, v, "target", target);
    memcpy(w->bin + w->size, data, bytes);
    w->size += bytes;
    return cJSON_GetArraySize(w->views) - 1;
}

/* count elements of type ("SCALAR", "VEC3", ...; comps floats or one index
 * each) as an accessor; its index, or -1. with_bounds: min and max, which
 * glTF requires of POSITION and of animation inputs. */
static int add_accessor(writer *w, const void *data, uint32_t count, const char *type, int comps, int component_type,
                        int target, bool with_bounds) {
    const int view = add_view(w, data, (size_t)count * comps * 4, target);
    if (view < 0) return -1;
    cJSON *a = add_object(w, w->accessors);
    if (!a) return -1;
    add_number(w, a, "bufferView", view);
    add_number(w, a, "componentType", component_type);
    add_number(w, a, "count", count);
    add_string(w, a, "type", type);
    if (with_bounds) {
        const float *f = data;
        float lo[4], hi[4];
        for (int c = 0; c < comps; c++) lo[c] = hi[c] = f[c];
        for (uint32_t i = 1; i < count; i++)
            for (int c = 0; c < comps; c++) {
                lo[c] = fminf(lo[c], f[(size_t)i * comps + c]);
                hi[c] = fmaxf(hi[c], f[(size_t)i * comps + c]);
            }
        add_floats(w, a, "min", lo, comps);
        add_floats(w, a, "max", hi, comps);
    }
    return cJSON_GetArraySize(w->accessors) - 1;
}

/* ---- what is refused before anything is written ---- */

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static bool check_anim(writer *w, const rb_anim *a) {
    if (!(a->rate > 0) || !isfinite(a->rate)) return fail(w, "the frame rate %g is not a positive number", a->rate);
    if (a->frame_count == 0) return fail(w, "the animation has no frames");
    if (a->body_count == 0) return fail(w, "the animation has no bodies");
    /* frame times are floats in the file: the last two must still differ */
    const float last = (float)((a->frame_count - 1) / a->rate);
    if (a->frame_count > 1 && !(last > (float)((a->frame_count - 2) / a->rate)))
        return fail(w, "%u frames at %g a second: the frame times do not fit in floats", a->frame_count, a->rate);
    for (uint32_t s = 0; s < a->shape_count; s++) {
        const rb_anim_shape *sh = &a->shapes[s];
        const char *name = sh->name;
        const int len = (int)strnlen(name, sizeof sh->name);
        if (sh->vertex_count == 0 || !sh->positions || !sh->normals)
            return fail(w, "shape %u '%.*s' has no vertices", s, len, name);
        if (sh->index_count == 0 || sh->index_count % 3 || !sh->indices)
            return fail(w, "shape %u '%.*s' has %u indices, not whole triangles", s, len, name, sh->index_count);
        if (!finite_all(sh->positions, (size_t)sh->vertex_count * 3) ||
            !finite_all(sh->normals, (size_t)sh->vertex_count * 3))
            return fail(w, "shape %u '%.*s' has a vertex that is not finite", s, len, name);
        for (uint32_t v = 0; v < sh->vertex_count; v++) {
            const float *n = sh->normals + (size_t)v * 3;
            if (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] < 1e-12f)
                return fail(w, "shape %u '%.*s': vertex %u has no normal", s, len, name, v);
        }
        for (uint32_t i = 0; i < sh->index_count; i++)
            if (sh->indices[i] >= sh->vertex_count)
                return fail(w, "shape %u '%.*s': index %u is %u, past its %u vertices", s, len, name, i, sh->indices[i],
                            sh->vertex_count);
    }
    const rb_anim_camera *c = a->camera;
    if (c) {
        if (c->count == 0 || !c->track || c->first >= a->frame_count || c->count > a->frame_count - c->first)
            return fail(w, "the camera's frames are not within the animation's %u", a->frame_count);
        if (!(c->yfov > 0.0f && c->yfov < 3.14159265f) || !(c->znear > 0.0f) || !(c->zfar > c->znear) ||
            !isfinite(c->zfar) || !(c->aspect >= 0.0f) || !isfinite(c->aspect))
            return fail(w, "the camera's lens is not a perspective one (field of view, near, far, aspect)");
        for (uint32_t f = 0; f < c->count; f++) {
            const float *t = c->track + (size_t)f * 7;
            if (!finite_all(t, 7) || t[3] * t[3] + t[4] * t[4] + t[5] * t[5] + t[6] * t[6] < 1e-12f)
                return fail(w, "the camera: frame %u is not finite or has no orientation", c->first + f);
        }
    }
    for (uint32_t b = 0; b < a->body_count; b++) {
        const rb_anim_body *body = &a->bodies[b];
        if (body->shape >= a->shape_count) return fail(w, "body %u has shape %u of %u", b, body->shape, a->shape_count);
        for (int k = 0; k < 3; k++)
            if (!(body->color[k] >= 0.0f && body->color[k] <= 1.0f && body->inside[k] >= 0.0f &&
                  body->inside[k] <= 1.0f))
                return fail(w, "body %u: a colour channel out of range (sRGB, 0 to 1)", b);
        if (body->count == 0 || !body->track) return fail(w, "body %u has no frames", b);
        if (body->first >= a->frame_count || body->count > a->frame_count - body->first)
            return fail(w, "body %u lives frames %u to %llu, past the animation's %u", b, body->first,
                        (unsigned long long)body->first + body->count - 1, a->frame_count);
        for (uint32_t f = 0; f < body->count; f++) {
            const float *t = body->track + (size_t)f * 7;
            if (!finite_all(t, 7)) return fail(w, "body %u: frame %u is not finite", b, body->first + f);
            if (t[3] * t[3] + t[4] * t[4] + t[5] * t[5] + t[6] * t[6] < 1e-12f)
                return fail(w, "body %u: frame %u has no orientation (a zero quaternion)", b, body->first + f);
        }
    }
    return true;
}

/* ---- the parts of the file ---- */

/* ---- meshes and materials: a material a colour, a mesh a shape in a body's colours ---- */

/* An open-addressed map from three u32s to an index (materials by colour,
 * meshes by shape and materials): at most half full. */
typedef struct map {
    uint32_t (*keys)[3];
    uint32_t *values; /* UINT32_MAX: empty */
    uint32_t cap, count;
} map;

static void map_free(map *m) { free(m->keys), free(m->values); }

static uint32_t map_hash(const uint32_t k[3]) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 3; i++) h = (h ^ k[i]) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
    return (uint32_t)h;
}

/* The value of key, or UINT32_MAX; where it is or would go in *at. */
static uint32_t map_get(const map *m, const uint32_t key[3], uint32_t *at) {
    uint32_t h = map_hash(key) & (m->cap - 1);
    while (m->values[h] != UINT32_MAX && memcmp(m->keys[h], key, sizeof m->keys[h]) != 0) h = (h + 1) & (m->cap - 1);
    *at = h;
    return m->values[h];
}

/* Sets key to value (a key not there yet). False if out of memory. */
static bool map_put(map *m, const uint32_t key[3], uint32_t value) {
    if (2 * (uint64_t)(m->count + 1) > m->cap) {
        map grown = {.cap = m->cap ? 2 * m->cap : 64, .count = m->count};
        grown.keys = malloc(sizeof *grown.keys * grown.cap);
        grown.values = malloc(sizeof *grown.values * grown.cap);
        if (!grown.keys || !grown.values) {
            map_free(&grown);
            return false;
        }
        memset(grown.values, 0xFF, sizeof *grown.values * grown.cap);
        for (uint32_t i = 0, at; i < m->cap; i++)
            if (m->values[i] != UINT32_MAX) {
                map_get(&grown, m->keys[i], &at);
                memcpy(grown.keys[at], m->keys[i], sizeof grown.keys[at]);
                grown.values[at] = m->values[i];
            }
        map_free(m);
        *m = grown;
    }
    uint32_t at;
    map_get(m, key, &at);
    memcpy(m->keys[at], key, sizeof m->keys[at]);
    m->values[at] = value;
    m->count++;
    return true;
}

/* The material of colour rgb (sRGB) in its role (inside: a broken body's cut
 * faces), made at its first use: one a colour, whatever shapes and bodies
 * have it. Its index, or -1 when out of memory. */
static int material_of(writer *w, cJSON *materials, map *known, const float rgb[3], bool inside) {
    uint32_t key[3], at;
    memcpy(key, rgb, sizeof key);
    if (known->cap) {
        const uint32_t found = map_get(known, key, &at);
        if (found != UINT32_MAX) return (int)found;
    }
    const uint32_t index = (uint32_t)cJSON_GetArraySize(materials);
    cJSON *m = add_object(w, materials);
    cJSON *pbr = m ? cJSON_AddObjectToObject(m, "pbrMetallicRoughness") : NULL;
    if (!pbr || !map_put(known, key, index)) return w->oom = true, -1;
    char name[32];
    int hex[3];
    for (int k = 0; k < 3; k++) hex[k] = (int)lroundf(rgb[k] * 255.0f);
    snprintf(name, sizeof name, "%s #%02x%02x%02x", inside ? "inside" : "colour", hex[0], hex[1], hex[2]);
    /* glTF's base colour is linear; Rubble's colours are sRGB (base/color.h) */
    const float linear[4] = {rb_srgb_to_linear(rgb[0]), rb_srgb_to_linear(rgb[1]), rb_srgb_to_linear(rgb[2]), 1.0f};
    add_string(w, m, "name", name);
    add_floats(w, pbr, "baseColorFactor", linear, 4);
    add_number(w, pbr, "metallicFactor", 0.0);
    add_number(w, pbr, "roughnessFactor", inside ? 0.95 : 0.8);
    return w->oom ? -1 : (int)index;
}

/* A shape's accessors, written at its first use: positions, unit normals,
 * and its triangles split in two, those of its surface and those a break
 * cut inside (every corner marked inside); -1 where it has none. */
typedef struct shape_data {
    bool written;
    int pos, nrm, outer, inner;
} shape_data;

static bool write_shape_data(writer *w, const rb_anim_shape *sh, shape_data *d) {
    /* glTF requires unit normals; the shape's may be a little off */
    float *normals = malloc((size_t)sh->vertex_count * 3 * sizeof *normals);
    uint32_t *outer = malloc((size_t)sh->index_count * sizeof *outer),
             *inner = malloc((size_t)sh->index_count * sizeof *inner);
    if (!normals || !outer || !inner) {
        free(normals), free(outer), free(inner);
        return !(w->oom = true);
    }
    for (uint32_t v = 0; v < sh->vertex_count; v++) {
        const float *n = sh->normals + (size_t)v * 3;
        const double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        for (int c = 0; c < 3; c++) normals[(size_t)v * 3 + c] = (float)(n[c] / len);
    }
    uint32_t n_outer = 0, n_inner = 0;
    for (uint32_t t = 0; t < sh->index_count; t += 3) {
        const uint32_t *tri = sh->indices + t;
        const bool cut = sh->inside && sh->inside[tri[0]] && sh->inside[tri[1]] && sh->inside[tri[2]];
        uint32_t *to = cut ? inner + n_inner : outer + n_outer;
        memcpy(to, tri, 3 * sizeof *tri);
        if (cut)
            n_inner += 3;
        else
            n_outer += 3;
    }
    d->pos = add_accessor(w, sh->positions, sh->vertex_count, "VEC3", 3, GL_FLOAT, GL_ARRAY_BUFFER, true);
    d->nrm = add_accessor(w, normals, sh->vertex_count, "VEC3", 3, GL_FLOAT, GL_ARRAY_BUFFER, false);
    d->outer =
        n_outer ? add_accessor(w, outer, n_outer, "SCALAR", 1, GL_UNSIGNED_INT, GL_ELEMENT_ARRAY_BUFFER, false) : -1;
    d->inner =
        n_inner ? add_accessor(w, inner, n_inner, "SCALAR", 1, GL_UNSIGNED_INT, GL_ELEMENT_ARRAY_BUFFER, false) : -1;
    free(normals), free(outer), free(inner);
    d->written = true;
    return d->pos >= 0 && d->nrm >= 0 && (n_outer == 0 || d->outer >= 0) && (n_inner == 0 || d->inner >= 0);
}

static void add_primitive(writer *w, cJSON *prims, const shape_data *d, int indices, int material) {
    cJSON *prim = add_object(w, prims);
    cJSON *attrs = prim ? cJSON_AddObjectToObject(prim, "attributes") : NULL;
    if (!attrs) {
        w->oom = true;
        return;
    }
    add_number(w, attrs, "POSITION", d->pos);
    add_number(w, attrs, "NORMAL", d->nrm);
    add_number(w, prim, "indices", indices);
    add_number(w, prim, "material", material);
}

/* A mesh for each shape in each pair of colours bodies of it have (its
 * data written once, shared by them): a primitive of its surface in the
 * body's colour, and one of its cut faces in the inside colour. Shapes no
 * body has are left out. Fills w->body_mesh. */
static bool write_meshes(writer *w, const rb_anim *a) {
    cJSON *meshes = cJSON_AddArrayToObject(w->root, "meshes");
    cJSON *materials = cJSON_AddArrayToObject(w->root, "materials");
    shape_data *data = calloc(a->shape_count ? a->shape_count : 1, sizeof *data);
    w->body_mesh = malloc(sizeof *w->body_mesh * a->body_count);
    map outside = {0}, inside = {0}, made = {0};
    bool ok = meshes && materials && data && w->body_mesh;
    if (!ok) w->oom = true;
    for (uint32_t b = 0; ok && b < a->body_count; b++) {
        const rb_anim_body *body = &a->bodies[b];
        const rb_anim_shape *sh = &a->shapes[body->shape];
        shape_data *d = &data[body->shape];
        if (!d->written && !write_shape_data(w, sh, d)) {
            ok = false;
            break;
        }
        const int outer = d->outer >= 0 ? material_of(w, materials, &outside, body->color, false) : -2;
        const int inner = d->inner >= 0 ? material_of(w, materials, &inside, body->inside, true) : -2;
        if (outer == -1 || inner == -1) {
            ok = false;
            break;
        }
        const uint32_t key[3] = {body->shape, (uint32_t)outer, (uint32_t)inner};
        uint32_t at, mesh = made.cap ? map_get(&made, key, &at) : UINT32_MAX;
        if (mesh == UINT32_MAX) {
            mesh = (uint32_t)cJSON_GetArraySize(meshes);
            cJSON *m = add_object(w, meshes);
            cJSON *prims = m ? cJSON_AddArrayToObject(m, "primitives") : NULL;
            if (!prims || !map_put(&made, key, mesh)) {
                ok = !(w->oom = true);
                break;
            }
            char name[sizeof sh->name + 1];
            snprintf(name, sizeof name, "%.*s", (int)sizeof sh->name, sh->name);
            add_string(w, m, "name", name);
            if (d->outer >= 0) add_primitive(w, prims, d, d->outer, outer);
            if (d->inner >= 0) add_primitive(w, prims, d, d->inner, inner);
        }
        w->body_mesh[b] = mesh;
        ok = !w->oom;
    }
    map_free(&outside), map_free(&inside), map_free(&made);
    free(data);
    return ok && !w->oom;
}

static void add_channel(writer *w, cJSON *samplers, cJSON *channels, uint32_t node, const char *path, int input,
                        int output, const char *interpolation) {
    cJSON *s = add_object(w, samplers);
    cJSON *c = add_object(w, channels);
    cJSON *t = c ? cJSON_AddObjectToObject(c, "target") : NULL;
    if (!s || !t) {
        w->oom = true;
        return;
    }
    add_number(w, s, "input", input);
    add_number(w, s, "output", output);
    add_string(w, s, "interpolation", interpolation);
    add_number(w, c, "sampler", cJSON_GetArraySize(samplers) - 1);
    add_number(w, t, "node", node);
    add_string(w, t, "path", path);
}

/* A track's keys (count frames from first): times, moves and turns. */
static void fill_keys(const rb_anim *a, uint32_t first, uint32_t count, const float *track, float *times,
                      float *moves, float *turns) {
    for (uint32_t f = 0; f < count; f++) {
        const float *t = track + (size_t)f * 7;
        times[f] = (float)((first + f) / a->rate);
        memcpy(moves + (size_t)f * 3, t, 3 * sizeof *t);
        /* unit quaternions, each on the same side as the one before: q and
         * -q are the same turn, but an importer that interpolates without
         * taking the short way round would spin the body the long way */
        double q[4], len = 0, dot = 0;
        for (int c = 0; c < 4; c++) len += (double)t[3 + c] * t[3 + c];
        len = sqrt(len);
        for (int c = 0; c < 4; c++) q[c] = t[3 + c] / len;
        for (int c = 0; f > 0 && c < 4; c++) dot += q[c] * turns[(size_t)(f - 1) * 4 + c];
        for (int c = 0; c < 4; c++) turns[(size_t)f * 4 + c] = (float)(dot < 0 ? -q[c] : q[c]);
    }
}

/* A node's translation and rotation channels, LINEAR, from its keys. */
static bool add_moves(writer *w, cJSON *samplers, cJSON *channels, uint32_t node, uint32_t count, const float *times,
                      const float *moves, const float *turns) {
    const int input = add_accessor(w, times, count, "SCALAR", 1, GL_FLOAT, 0, true);
    const int move = add_accessor(w, moves, count, "VEC3", 3, GL_FLOAT, 0, false);
    const int turn = add_accessor(w, turns, count, "VEC4", 4, GL_FLOAT, 0, false);
    if (input < 0 || move < 0 || turn < 0) return false;
    add_channel(w, samplers, channels, node, "translation", input, move, "LINEAR");
    add_channel(w, samplers, channels, node, "rotation", input, turn, "LINEAR");
    return !w->oom;
}

/* Body b's node, and its channels in the animation; times, moves and turns
 * room for its frames. */
static bool write_body(writer *w, const rb_anim *a, uint32_t b, cJSON *nodes, cJSON *samplers, cJSON *channels,
                       float *times, float *moves, float *turns) {
    const rb_anim_body *body = &a->bodies[b];
    fill_keys(a, body->first, body->count, body->track, times, moves, turns);
    const uint32_t after = body->first + body->count; /* the first frame after its life */
    const bool born_late = body->first > 0, dies_early = after < a->frame_count;

    cJSON *node = add_object(w, nodes);
    if (!node) return false;
    char name[48];
    snprintf(name, sizeof name, "body %llu", (unsigned long long)body->id);
    add_string(w, node, "name", name);
    add_number(w, node, "mesh", w->body_mesh[b]);
    /* at rest (a viewer that does not play the animation): as at time 0 */
    const float zero[3] = {0, 0, 0};
    add_floats(w, node, "translation", moves, 3);
    add_floats(w, node, "rotation", turns, 4);
    if (born_late) add_floats(w, node, "scale", zero, 3);

    if (!add_moves(w, samplers, channels, b, body->count, times, moves, turns)) return false;

    /* Shown only while it lives: scale 0 until its first frame, 1 from it,
     * 0 again from the frame after its last. A body alive from the first
     * frame to the last has no scale channel. */
    if (born_late || dies_early) {
        float keys[3], scales[9];
        uint32_t n = 0;
        if (born_late) keys[n] = 0, memcpy(scales + n++ * 3, zero, sizeof zero);
        keys[n] = (float)(body->first / a->rate);
        for (int c = 0; c < 3; c++) scales[n * 3 + c] = 1.0f;
        n++;
        if (dies_early) keys[n] = (float)(after / a->rate), memcpy(scales + n++ * 3, zero, sizeof zero);
        const int in = add_accessor(w, keys, n, "SCALAR", 1, GL_FLOAT, 0, true);
        const int out = add_accessor(w, scales, n, "VEC3", 3, GL_FLOAT, 0, false);
        if (in < 0 || out < 0) return false;
        add_channel(w, samplers, channels, b, "scale", in, out, "STEP");
    }
    return !w->oom;
}

/* The camera (a.camera): a perspective camera, its node `camera` after the
 * bodies', keyed like a body from its first frame (held before it); times,
 * moves and turns room for its frames. */
static bool write_camera(writer *w, const rb_anim *a, cJSON *nodes, cJSON *roots, cJSON *samplers, cJSON *channels,
                         float *times, float *moves, float *turns) {
    const rb_anim_camera *c = a->camera;
    cJSON *cameras = cJSON_AddArrayToObject(w->root, "cameras");
    cJSON *cam = cameras ? add_object(w, cameras) : NULL;
    cJSON *lens = cam ? cJSON_AddObjectToObject(cam, "perspective") : NULL;
    cJSON *node = lens ? add_object(w, nodes) : NULL;
    cJSON *index = cJSON_CreateNumber(a->body_count);
    if (!node || !index || !cJSON_AddItemToArray(roots, index)) {
        cJSON_Delete(index); /* not in roots: the array did not take it */
        return !(w->oom = true);
    }
    add_string(w, cam, "name", "Rubble camera");
    add_string(w, cam, "type", "perspective");
    add_number(w, lens, "yfov", c->yfov);
    add_number(w, lens, "znear", c->znear);
    add_number(w, lens, "zfar", c->zfar);
    if (c->aspect > 0) add_number(w, lens, "aspectRatio", c->aspect);
    fill_keys(a, c->first, c->count, c->track, times, moves, turns);
    add_string(w, node, "name", "camera");
    add_number(w, node, "camera", 0);
    add_floats(w, node, "translation", moves, 3);
    add_floats(w, node, "rotation", turns, 4);
    return add_moves(w, samplers, channels, a->body_count, c->count, times, moves, turns);
}

/* The frames the animation spans, as scene extras (Blender imports them as
 * the scene's custom properties: docs/gltf-export.md, "Blender"). */
static void write_range(writer *w, const rb_anim *a, cJSON *scene) {
    cJSON *extras = cJSON_AddObjectToObject(scene, "extras");
    if (!extras) {
        w->oom = true;
        return;
    }
    add_number(w, extras, "frame_start", 0);
    add_number(w, extras, "frame_end", a->frame_count - 1);
    add_number(w, extras, "fps", a->rate);
}

static bool write_bodies(writer *w, const rb_anim *a) {
    cJSON *nodes = cJSON_AddArrayToObject(w->root, "nodes");
    cJSON *scenes = cJSON_AddArrayToObject(w->root, "scenes");
    cJSON *scene = scenes ? add_object(w, scenes) : NULL;
    cJSON *roots = scene ? cJSON_AddArrayToObject(scene, "nodes") : NULL;
    cJSON *anims = cJSON_AddArrayToObject(w->root, "animations");
    cJSON *anim = anims ? add_object(w, anims) : NULL;
    cJSON *samplers = anim ? cJSON_AddArrayToObject(anim, "samplers") : NULL;
    cJSON *channels = anim ? cJSON_AddArrayToObject(anim, "channels") : NULL;
    if (!nodes || !roots || !samplers || !channels) return !(w->oom = true);
    add_number(w, w->root, "scene", 0);
    add_string(w, scene, "name", "Rubble");
    add_string(w, anim, "name", "Rubble");

    write_range(w, a, scene);
    uint32_t longest = a->camera ? a->camera->count : 0;
    for (uint32_t b = 0; b < a->body_count; b++)
        if (a->bodies[b].count > longest) longest = a->bodies[b].count;
    float *times = malloc((size_t)longest * sizeof *times);
    float *moves = malloc((size_t)longest * 3 * sizeof *moves);
    float *turns = malloc((size_t)longest * 4 * sizeof *turns);
    bool ok = times && moves && turns;
    if (!ok) w->oom = true;
    for (uint32_t b = 0; ok && b < a->body_count; b++) {
        cJSON *n = cJSON_CreateNumber(b);
        if (!n || !cJSON_AddItemToArray(roots, n)) {
            cJSON_Delete(n);
            w->oom = true;
        }
        ok = !w->oom && write_body(w, a, b, nodes, samplers, channels, times, moves, turns);
    }
    if (ok && a->camera) ok = write_camera(w, a, nodes, roots, samplers, channels, times, moves, turns);
    free(times);
    free(moves);
    free(turns);
    return ok;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The GLB container: a 12-byte header, the JSON chunk padded with spaces to
 * 4 bytes, the binary chunk padded with zeros. */
static bool write_glb(writer *w, FILE *f, const char *json) {
    const size_t json_len = strlen(json), json_padded = (json_len + 3) & ~(size_t)3;
    const size_t bin_padded = (w->size + 3) & ~(size_t)3;
    const size_t total = 12 + 8 + json_padded + 8 + bin_padded;
    if (total > UINT32_MAX) return fail(w, "too large for a glTF binary (4 GiB at most)");
    uint8_t head[20], chunk[8];
    put_u32(head, GLB_MAGIC);
    put_u32(head + 4, 2);
    put_u32(head + 8, (uint32_t)total);
    put_u32(head + 12, (uint32_t)json_padded);
    put_u32(head + 16, GLB_JSON);
    put_u32(chunk, (uint32_t)bin_padded);
    put_u32(chunk + 4, GLB_BIN);
    static const char spaces[3] = {' ', ' ', ' '};
    static const uint8_t zeros[3] = {0, 0, 0};
    fwrite(head, 1, sizeof head, f);
    fwrite(json, 1, json_len, f);
    fwrite(spaces, 1, json_padded - json_len, f);
    fwrite(chunk, 1, sizeof chunk, f);
    fwrite(w->bin, 1, w->size, f);
    fwrite(zeros, 1, bin_padded - w->size, f);
    return true;
}

static bool build(writer *w, const rb_anim *a) {
    if (!check_anim(w, a)) return false;
    w->root = cJSON_CreateObject();
    cJSON *asset = w->root ? cJSON_AddObjectToObject(w->root, "asset") : NULL;
    if (!asset) return !(w->oom = true);
    add_string(w, asset, "version", "2.0");
    add_string(w, asset, "generator", "Rubble");
    w->views = cJSON_AddArrayToObject(w->root, "bufferViews");
    w->accessors = cJSON_AddArrayToObject(w->root, "accessors");
    cJSON *buffers = cJSON_AddArrayToObject(w->root, "buffers");
    if (!w->views || !w->accessors || !buffers) return !(w->oom = true);
    if (!write_meshes(w, a) || !write_bodies(w, a)) return false;
    /* the GLB's own buffer: no uri, its length the unpadded data's */
    cJSON *buffer = add_object(w, buffers);
    if (buffer) add_number(w, buffer, "byteLength", (double)w->size);
    return !w->oom;
}

bool rb_gltf_write(const char *path, const rb_anim *anim, char *err, size_t err_size) {
    writer w = {0};
    char *json = NULL;
    bool ok = build(&w, anim) && (json = cJSON_PrintUnformatted(w.root)) != NULL;
    if (!ok && (w.oom || !w.why[0])) fail(&w, "out of memory");

    rb_replace out; /* written beside the name and renamed when whole (base/replace.h) */
    FILE *f = ok ? rb_replace_open(&out, path, "wb", w.why, sizeof w.why) : NULL;
    ok = ok && f;
    if (f) ok = rb_replace_close(&out, write_glb(&w, f, json) && ok, w.why, sizeof w.why);
    if (!ok) snprintf(err, err_size, "%s: %s", path, w.why);
    free(json);
    cJSON_Delete(w.root);
    free(w.bin);
    free(w.body_mesh);
    return ok;
}
