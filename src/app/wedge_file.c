/* wedge_file.c - reading a wedge file and making its variants' scenes (see
 * wedge_file.h, docs/wedge.md). */
#include "wedge_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/read_file.h"

char *rb_wedge_read_text(const char *path, char *err, size_t err_size) {
    size_t size;
    return rb_read_file(path, "a wedge's file", RB_WEDGE_MAX_FILE, &size, err, err_size);
}

/* "FILE: PATH: why" into err; returns false. */
__attribute__((format(printf, 5, 6))) static bool fail(const char *file, const char *path, char *err, size_t err_size,
                                                       const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(err, err_size, "%s: %s%s%s", file, path, *path ? ": " : "", why);
    return false;
}

static bool is_integer(const cJSON *v, double lo, double hi) {
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) &&
           v->valuedouble >= lo && v->valuedouble <= hi;
}

/* Unknown keys of an object refused by name. */
static bool known_keys(const char *file, const char *path, const cJSON *o, const char *const *keys, char *err,
                       size_t err_size) {
    for (const cJSON *c = o->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = keys; *k && !ok; k++) ok = !strcmp(c->string, *k);
        for (const cJSON *d = c->next; d && ok; d = d->next)
            if (!strcmp(c->string, d->string)) return fail(file, path, err, err_size, "%s is given twice", c->string);
        if (!ok) return fail(file, path, err, err_size, "unknown key '%s'", c->string);
    }
    return true;
}

/* splitmix64 (Steele, Lea and Flood 2014): a wedge's random values, the
 * same on every machine for a seed. */
static uint64_t next_random(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* [a, b] at key name of o: two finite numbers (b below a: a range that falls). */
static bool read_span(const char *file, const char *path, const cJSON *o, const char *name, double span[2], char *err,
                      size_t err_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (cJSON_GetArraySize(v) != 2 || !cJSON_IsArray(v) || !cJSON_IsNumber(v->child) ||
        !cJSON_IsNumber(v->child->next) || !isfinite(v->child->valuedouble) || !isfinite(v->child->next->valuedouble))
        return fail(file, path, err, err_size, "%s: expected [from, to], two finite numbers", name);
    span[0] = v->child->valuedouble, span[1] = v->child->next->valuedouble;
    return true;
}

/* The count of values an entry of vary makes, checked before any is made. */
static bool vary_count(const char *file, const char *path, const cJSON *e, uint32_t *count, char *err,
                       size_t err_size) {
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(e, "values");
    if (values) {
        if (!cJSON_IsArray(values) || cJSON_GetArraySize(values) < 1)
            return fail(file, path, err, err_size, "values: expected a list of at least one value");
        const int n = cJSON_GetArraySize(values);
        *count = n > RB_WEDGE_MAX_VARIANTS ? RB_WEDGE_MAX_VARIANTS + 1u : (uint32_t)n;
        return true;
    }
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "count");
    if (!is_integer(n, 1, 1e15))
        return fail(file, path, err, err_size, "count: expected a whole number of values, at least 1");
    *count = n->valuedouble > RB_WEDGE_MAX_VARIANTS ? RB_WEDGE_MAX_VARIANTS + 1u : (uint32_t)n->valuedouble;
    return true;
}

/* The values of an entry of vary, count of them. */
static cJSON *vary_values(const cJSON *e, uint32_t count, const double span[2]) {
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(e, "values");
    if (values) return cJSON_Duplicate(values, true);
    cJSON *out = cJSON_CreateArray();
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(e, "seed");
    uint64_t state = seed ? (uint64_t)seed->valuedouble : 0;
    const bool random = cJSON_GetObjectItemCaseSensitive(e, "random") != NULL;
    for (uint32_t j = 0; out && j < count; j++) {
        double x;
        if (random)
            x = span[0] + (span[1] - span[0]) * (double)(next_random(&state) >> 11) * 0x1.0p-53;
        else
            x = count == 1 ? span[0] : span[0] + (span[1] - span[0]) * j / (count - 1);
        cJSON_AddItemToArray(out, cJSON_CreateNumber(x));
    }
    return out;
}

static bool read_vary_key(rb_wedge *w, const char *path, const cJSON *e, uint32_t k, char *err, size_t err_size) {
    static const char *const keys[] = {"key", "values", "range", "random", "count", "seed", NULL};
    if (!cJSON_IsObject(e))
        return fail(w->file, path, err, err_size, "expected {\"key\": PATH, and values, range or random}");
    if (!known_keys(w->file, path, e, keys, err, err_size)) return false;
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(e, "key");
    if (!cJSON_IsString(key) || !key->valuestring[0] || strlen(key->valuestring) >= RB_WEDGE_KEY_SIZE)
        return fail(w->file, path, err, err_size, "key: expected a key path of 1 to %d characters",
                    RB_WEDGE_KEY_SIZE - 1);
    for (uint32_t j = 0; j < k; j++)
        if (!strcmp(w->keys[j].path, key->valuestring))
            return fail(w->file, path, err, err_size, "key: %s is varied twice", key->valuestring);
    snprintf(w->keys[k].path, sizeof w->keys[k].path, "%s", key->valuestring);
    const bool values = cJSON_GetObjectItemCaseSensitive(e, "values") != NULL;
    const bool range = cJSON_GetObjectItemCaseSensitive(e, "range") != NULL;
    const bool random = cJSON_GetObjectItemCaseSensitive(e, "random") != NULL;
    if (values + range + random != 1)
        return fail(w->file, path, err, err_size, "give one of values, range (with count) or random (with count)");
    if (values && (cJSON_GetObjectItemCaseSensitive(e, "count") || cJSON_GetObjectItemCaseSensitive(e, "seed")))
        return fail(w->file, path, err, err_size, "values takes no count or seed");
    if (range && cJSON_GetObjectItemCaseSensitive(e, "seed"))
        return fail(w->file, path, err, err_size, "range takes no seed");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(e, "seed");
    if (random && !is_integer(seed, 0, 9007199254740992.0))
        return fail(w->file, path, err, err_size, "seed: expected a whole number from 0 to 2^53");
    double span[2] = {0, 0};
    if (!values && !read_span(w->file, path, e, range ? "range" : "random", span, err, err_size)) return false;
    uint32_t count; /* at most the limit: read_vary checked the counts */
    if (!vary_count(w->file, path, e, &count, err, err_size)) return false;
    if (!(w->keys[k].values = vary_values(e, count, span))) return fail(w->file, path, err, err_size, "out of memory");
    return true;
}

/* The vary list: counts first (a wedge over the limit is refused before a value is made), then the values. */
static bool read_vary(rb_wedge *w, const cJSON *vary, char *err, size_t err_size) {
    if (!cJSON_IsArray(vary)) return fail(w->file, "vary", err, err_size, "expected a list of keys to vary");
    const int n = cJSON_GetArraySize(vary);
    if (n > RB_WEDGE_MAX_KEYS) return fail(w->file, "vary", err, err_size, "at most %d keys", RB_WEDGE_MAX_KEYS);
    uint64_t product = 1;
    char path[64];
    int k = 0;
    for (const cJSON *e = vary->child; e; e = e->next, k++) {
        snprintf(path, sizeof path, "vary[%d]", k);
        uint32_t count;
        if (!cJSON_IsObject(e)) return fail(w->file, path, err, err_size, "expected an object");
        if (!vary_count(w->file, path, e, &count, err, err_size)) return false;
        product *= count; /* each count is at most the limit + 1: no overflow in 16 of them before the check */
        if (product > RB_WEDGE_MAX_VARIANTS)
            return fail(w->file, "vary", err, err_size,
                        "more than %d variants (the cross product of the value lists); "
                        "a wedge makes at most %d",
                        RB_WEDGE_MAX_VARIANTS, RB_WEDGE_MAX_VARIANTS);
    }
    w->variant_count = (uint32_t)product;
    k = 0;
    for (const cJSON *e = vary->child; e; e = e->next, k++) {
        snprintf(path, sizeof path, "vary[%d]", k);
        if (!read_vary_key(w, path, e, (uint32_t)k, err, err_size)) return false;
        w->key_count = (uint32_t)k + 1;
    }
    return true;
}

static bool read_outputs(rb_wedge *w, const cJSON *o, char *err, size_t err_size) {
    if (!o) return true;
    if (!cJSON_IsArray(o)) return fail(w->file, "outputs", err, err_size, "expected a list of record, csv, gltf");
    int k = 0;
    for (const cJSON *e = o->child; e; e = e->next, k++) {
        const char *s = cJSON_IsString(e) ? e->valuestring : "";
        if (!strcmp(s, "record"))
            w->outputs.record = true;
        else if (!strcmp(s, "csv"))
            w->outputs.csv = true;
        else if (!strcmp(s, "gltf"))
            w->outputs.gltf = true;
        else {
            char path[64];
            snprintf(path, sizeof path, "outputs[%d]", k);
            return fail(w->file, path, err, err_size, "expected record, csv or gltf");
        }
    }
    return true;
}

static bool read_shots(rb_wedge *w, const cJSON *o, char *err, size_t err_size) {
    if (!o) return true;
    if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) > RB_WEDGE_MAX_SHOTS)
        return fail(w->file, "shots", err, err_size, "expected a list of at most %d times (s)", RB_WEDGE_MAX_SHOTS);
    for (const cJSON *e = o->child; e; e = e->next) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
            return fail(w->file, "shots", err, err_size, "expected times in simulated seconds, each >= 0");
        w->shots[w->shot_count++] = e->valuedouble;
    }
    return true;
}

/* The scene's path: relative to the wedge file's folder, made absolute. */
static bool scene_path(rb_wedge *w, const char *name, char *err, size_t err_size) {
    char joined[2 * PATH_MAX];
    const char *slash = strrchr(w->file, '/');
    if (name[0] == '/' || !slash)
        snprintf(joined, sizeof joined, "%s", name);
    else
        snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - w->file), w->file, name);
    if (!realpath(joined, w->scene)) return fail(w->file, "scene", err, err_size, "%s: %s", joined, strerror(errno));
    return true;
}

rb_wedge *rb_wedge_load(const char *path, char *err, size_t err_size) {
    rb_wedge *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    snprintf(w->file, sizeof w->file, "%s", path);
    w->steps = 1000;
    char *text = rb_wedge_read_text(path, err, err_size);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    if (text && !j) {
        const char *at = cJSON_GetErrorPtr();
        fail(path, "", err, err_size, "not JSON (at byte %td)", at && at >= text ? at - text : (ptrdiff_t)0);
    }
    free(text);
    static const char *const keys[] = {"scene", "steps", "vary", "outputs", "shots", NULL};
    bool ok = j != NULL;
    ok = ok &&
         (cJSON_IsObject(j) || fail(path, "", err, err_size, "expected an object {\"scene\": ..., \"vary\": [...]}"));
    ok = ok && known_keys(path, "", j, keys, err, err_size);
    const cJSON *scene = ok ? cJSON_GetObjectItemCaseSensitive(j, "scene") : NULL;
    ok = ok && ((cJSON_IsString(scene) && scene->valuestring[0]) ||
                fail(path, "scene", err, err_size, "expected the scene file's path (relative to the wedge file)"));
    ok = ok && scene_path(w, scene->valuestring, err, err_size);
    const cJSON *steps = ok ? cJSON_GetObjectItemCaseSensitive(j, "steps") : NULL;
    if (ok && steps) {
        ok = is_integer(steps, 0, 1e9) || fail(path, "steps", err, err_size, "expected a count from 0 to 10^9");
        if (ok) w->steps = (long)steps->valuedouble;
    }
    ok = ok && read_vary(w, cJSON_GetObjectItemCaseSensitive(j, "vary"), err, err_size) &&
         read_outputs(w, cJSON_GetObjectItemCaseSensitive(j, "outputs"), err, err_size) &&
         read_shots(w, cJSON_GetObjectItemCaseSensitive(j, "shots"), err, err_size);
    cJSON_Delete(j);
    char *scene_text = ok ? rb_wedge_read_text(w->scene, err, err_size) : NULL;
    if (scene_text && !(w->scene_tree = cJSON_Parse(scene_text))) fail(w->scene, "", err, err_size, "not JSON");
    if (w->scene_tree && !cJSON_IsObject(w->scene_tree)) {
        fail(w->scene, "", err, err_size, "expected a scene object (docs/scene-format.md)");
        cJSON_Delete(w->scene_tree);
        w->scene_tree = NULL;
    }
    free(scene_text);
    if (!w->scene_tree) {
        rb_wedge_destroy(w);
        return NULL;
    }
    return w;
}

void rb_wedge_destroy(rb_wedge *w) {
    if (!w) return;
    for (uint32_t k = 0; k < w->key_count; k++) cJSON_Delete(w->keys[k].values);
    cJSON_Delete(w->scene_tree);
    free(w);
}

void rb_wedge_variant_name(uint32_t i, char name[16]) { snprintf(name, 16, "%04u", i); }

const cJSON *rb_wedge_value(const rb_wedge *w, uint32_t i, uint32_t k) {
    uint32_t rest = i;
    for (uint32_t j = w->key_count; j-- > k + 1;) rest /= (uint32_t)cJSON_GetArraySize(w->keys[j].values);
    return cJSON_GetArrayItem(w->keys[k].values, (int)(rest % (uint32_t)cJSON_GetArraySize(w->keys[k].values)));
}

void rb_wedge_describe(const rb_wedge *w, uint32_t i, char *out, size_t size) {
    size_t n = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < w->key_count && n < size; k++) {
        char *v = cJSON_PrintUnformatted(rb_wedge_value(w, i, k));
        const int m = snprintf(out + n, size - n, "%s%s = %s", k ? ", " : "", w->keys[k].path, v ? v : "?");
        free(v);
        if (m < 0) break;
        n += (size_t)m;
    }
}

cJSON *rb_wedge_values(const rb_wedge *w, uint32_t i) {
    cJSON *o = cJSON_CreateObject();
    for (uint32_t k = 0; o && k < w->key_count; k++)
        cJSON_AddItemToObject(o, w->keys[k].path, cJSON_Duplicate(rb_wedge_value(w, i, k), true));
    return o;
}

/* Appends a line to a list of paths (cut at size). */
static void note_added(char *added, size_t size, const char *path, size_t len) {
    if (!added) return;
    const size_t n = strlen(added);
    if (n < size) snprintf(added + n, size - n, "%.*s\n", (int)len, path);
}

bool rb_wedge_set(cJSON *root, const char *path, const cJSON *value, char *added, size_t added_size, char *err,
                  size_t err_size) {
    cJSON *at = root;
    const char *p = path;
    while (*p) {
        if (*p == '[') { /* [N]: an element of an array */
            char *end;
            errno = 0;
            const long index = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || errno || index < 0 || !isdigit((unsigned char)p[1]))
                return fail(path, "", err, err_size, "'%.*s' is not an index [N]", (int)(strcspn(p, "]") + 1), p);
            if (!cJSON_IsArray(at))
                return fail(path, "", err, err_size, "%.*s is not a list in the scene", (int)(p - path), path);
            if (index >= cJSON_GetArraySize(at))
                return fail(path, "", err, err_size, "%.*s has %d elements in the scene; there is no [%ld]",
                            (int)(p - path), path, cJSON_GetArraySize(at), index);
            p = end + 1;
            if (!*p) return cJSON_ReplaceItemInArray(at, (int)index, cJSON_Duplicate(value, true));
            at = cJSON_GetArrayItem(at, (int)index);
            continue;
        }
        if (*p == '.' && p != path) p++;
        const size_t len = strcspn(p, ".[");
        if (len == 0 || len >= RB_WEDGE_KEY_SIZE) return fail(path, "", err, err_size, "not a key path (a.b[0].c)");
        char key[RB_WEDGE_KEY_SIZE];
        memcpy(key, p, len);
        key[len] = '\0';
        if (!cJSON_IsObject(at))
            return fail(path, "", err, err_size, "%.*s is not an object in the scene", (int)(p - path - 1), path);
        cJSON *next = cJSON_GetObjectItemCaseSensitive(at, key);
        p += len;
        if (!*p) {
            if (next) return cJSON_ReplaceItemInObjectCaseSensitive(at, key, cJSON_Duplicate(value, true));
            note_added(added, added_size, path, (size_t)(p - path));
            return cJSON_AddItemToObject(at, key, cJSON_Duplicate(value, true));
        }
        if (!next) {
            if (*p == '[') return fail(path, "", err, err_size, "%.*s is not in the scene", (int)(p - path), path);
            note_added(added, added_size, path, (size_t)(p - path));
            next = cJSON_AddObjectToObject(at, key);
        }
        at = next;
    }
    return fail(path, "", err, err_size, "not a key path (a.b[0].c)");
}

cJSON *rb_wedge_variant_scene(const rb_wedge *w, uint32_t i, char *added, size_t added_size, char *err,
                              size_t err_size) {
    cJSON *tree = cJSON_Duplicate(w->scene_tree, true);
    if (added && added_size) added[0] = '\0';
    for (uint32_t k = 0; tree && k < w->key_count; k++)
        if (!rb_wedge_set(tree, w->keys[k].path, rb_wedge_value(w, i, k), added, added_size, err, err_size)) {
            cJSON_Delete(tree);
            return NULL;
        }
    if (!tree) snprintf(err, err_size, "out of memory");
    return tree;
}
