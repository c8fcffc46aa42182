/* scene_read_base.c - the scene reader's toolkit (scene_read_internal.h):
 * the key path every message names, failures, and values read and checked
 * at a key. Every part of the reader uses it; it uses none of them. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/decimal.h"
#include "base/log.h"
#include "scene_read_internal.h"

/* ---- a key path for messages ---- */

size_t rb_read_enter(rb_reader *r, const char *key, int index) {
    size_t len = strlen(r->path);
    if (key)
        snprintf(r->path + len, sizeof r->path - len, "%s%s", len ? "." : "", key);
    else
        snprintf(r->path + len, sizeof r->path - len, "[%d]", index);
    return len;
}
void rb_read_leave(rb_reader *r, size_t len) { r->path[len] = '\0'; }

/* Control bytes of names from the file become '?' before they are printed. */
static void printable(char *text) {
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

static bool vfail(rb_reader *r, const char *fmt, va_list ap) {
    if (r->failed) return false;
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    if (r->path[0])
        snprintf(r->err, r->err_size, "%s: %s: %s", r->file, r->path, what);
    else
        snprintf(r->err, r->err_size, "%s: %s", r->file, what);
    printable(r->err);
    r->failed = true;
    return false;
}

bool rb_read_fail(rb_reader *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(r, fmt, ap);
    va_end(ap);
    return false;
}

bool rb_read_fail_at(rb_reader *r, const char *key, const char *fmt, ...) {
    size_t len = rb_read_enter(r, key, 0);
    va_list ap;
    va_start(ap, fmt);
    vfail(r, fmt, ap);
    va_end(ap);
    rb_read_leave(r, len);
    return false;
}

bool rb_read_check_keys(rb_reader *r, const cJSON *obj, const char *const *known) {
    for (const cJSON *c = obj->child; c; c = c->next)
        for (const cJSON *d = c->next; d; d = d->next)
            if (strcmp(c->string, d->string) == 0) return rb_read_fail_at(r, c->string, "the key is given twice");
    for (const cJSON *c = known ? obj->child : NULL; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++) ok = strcmp(c->string, *k) == 0;
        if (!ok) {
            size_t len = rb_read_enter(r, c->string, 0);
            char text[512];
            snprintf(text, sizeof text, "%s: %s: unknown key, ignored", r->file, r->path);
            printable(text);
            rb_log(RB_LOG_WARN, "%s", text);
            rb_read_leave(r, len);
        }
    }
    return true;
}

/* ---- values at a key ---- */

const char *rb_read_limit(double x, char text[32]) {
    if (x == floor(x) && fabs(x) < 1e17) /* a whole limit exactly: 9007199254740992, not 9.0072e+15 */
        snprintf(text, 32, "%.0f", x);
    else
        snprintf(text, 32, "%g", x);
    return text;
}

bool rb_read_number(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    if (!cJSON_IsNumber(v))
        ok = rb_read_fail(r, "expected a number");
    else if (!isfinite(v->valuedouble))
        ok = rb_read_fail(r, "%g is not a finite number", v->valuedouble);
    else if (v->valuedouble < lo || v->valuedouble > hi) { /* the number as typed, the limits readable */
        char got[32], low[32], high[32];
        ok = rb_read_fail(r, "%s is out of range [%s, %s]", rb_double_decimal(v->valuedouble, got),
                          rb_read_limit(lo, low), rb_read_limit(hi, high));
    }
    else
        *out = v->valuedouble;
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_float(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, float *out) {
    double d = *out;
    if (!rb_read_number(r, obj, key, lo, hi, &d)) return false;
    *out = (float)d;
    return true;
}

bool rb_read_count(rb_reader *r, const cJSON *obj, const char *key, double hi, uint32_t *out, bool required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return required ? rb_read_fail(r, "'%s' is missing", key) : true;
    double d = 0.0;
    if (!rb_read_number(r, obj, key, -INFINITY, INFINITY, &d)) return false;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    char got[32];
    if (d > hi)
        ok = rb_read_fail(r, "%s is more than the limit of %.0f", rb_double_decimal(d, got), hi);
    else if (d != floor(d) || d < 0.0)
        ok = rb_read_fail(r, "expected a whole number >= 0, got %s", rb_double_decimal(d, got));
    else
        *out = (uint32_t)d;
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_vector(rb_reader *r, const cJSON *obj, const char *key, int n, float *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    int got = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (got != n) {
        ok = got < 0
                 ? rb_read_fail(r, "expected %d numbers, got %s", n, cJSON_IsObject(v) ? "an object" : "a single value")
                 : rb_read_fail(r, "expected %d numbers, got %d", n, got);
    } else {
        for (int i = 0; i < n && ok; i++) {
            const cJSON *e = cJSON_GetArrayItem(v, i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !isfinite((float)e->valuedouble))
                ok = rb_read_fail(r, "element %d is not a finite number", i);
            else
                out[i] = (float)e->valuedouble;
        }
    }
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_bool(rb_reader *r, const cJSON *obj, const char *key, bool *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = cJSON_IsBool(v) ? (*out = cJSON_IsTrue(v), true) : rb_read_fail(r, "expected true or false");
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_string(rb_reader *r, const cJSON *obj, const char *key, char *out, size_t size, bool required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return required ? rb_read_fail(r, "'%s' is missing", key) : true;
    size_t len = rb_read_enter(r, key, 0);
    bool ok = true;
    if (!cJSON_IsString(v))
        ok = rb_read_fail(r, "expected a string");
    else if (strlen(v->valuestring) >= size)
        ok = rb_read_fail(r, "longer than %zu characters", size - 1);
    else
        snprintf(out, size, "%s", v->valuestring);
    rb_read_leave(r, len);
    return ok;
}

/* ---- colours ---- */

static int hex_digit(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

bool rb_read_color(rb_reader *r, const cJSON *obj, const char *key, bool *has, float rgb[3]) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    size_t len = rb_read_enter(r, key, 0);
    float c[3] = {0, 0, 0};
    bool ok = true;
    if (cJSON_IsString(v)) {
        const char *t = v->valuestring;
        ok = strlen(t) == 7 && t[0] == '#';
        for (int k = 0; ok && k < 3; k++) {
            const int hi = hex_digit(t[1 + 2 * k]), lo = hex_digit(t[2 + 2 * k]);
            ok = hi >= 0 && lo >= 0;
            c[k] = (float)(16 * hi + lo) / 255.0f;
        }
        if (!ok) rb_read_fail(r, "'%.32s' is not a colour: expected \"#rrggbb\", six hexadecimal digits", t);
    } else if (cJSON_IsArray(v)) {
        const int got = cJSON_GetArraySize(v);
        if (got != 3) ok = rb_read_fail(r, "expected 3 numbers (r, g, b, each 0 to 1), got %d", got);
        for (int k = 0; ok && k < 3; k++) {
            const cJSON *e = cJSON_GetArrayItem(v, k);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
                ok = rb_read_fail(r, "element %d is not a finite number", k);
            else if (!(e->valuedouble >= 0.0 && e->valuedouble <= 1.0))
                ok = rb_read_fail(r, "element %d is %g, out of range [0, 1]", k, e->valuedouble);
            else
                c[k] = (float)e->valuedouble;
        }
    } else {
        ok = rb_read_fail(r, "expected [r, g, b] (each 0 to 1) or \"#rrggbb\"");
    }
    if (ok) {
        memcpy(rgb, c, sizeof c);
        *has = true;
    }
    rb_read_leave(r, len);
    return ok;
}

bool rb_read_colors(rb_reader *r, const cJSON *obj, rb_color_spec *spec) {
    return rb_read_color(r, obj, "color", &spec->has_color, spec->color) &&
           rb_read_color(r, obj, "inside_color", &spec->has_inside, spec->inside);
}

/* ---- a shape by name ---- */

const rb_shape *rb_read_find_shape(rb_reader *r, const char *name) {
    int i = rb_registry_find(r->registry, name);
    if (i >= 0) return rb_registry_get(r->registry, (uint32_t)i);
    char list[512] = "";
    size_t n = 0;
    for (uint32_t k = 0; k < rb_registry_count(r->registry) && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", rb_registry_get(r->registry, k)->name);
    rb_read_fail(r, "unknown shape '%s' (the shapes are: %s)", name, n ? list : "none loaded");
    return NULL;
}
