/* scene_read_base.c - the scene reader's toolkit (scene_read_internal.h):
 * the key path every message names, failures, and values read and checked
 * at a key. Every part of the reader uses it; it uses none of them. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

static int by_key(const void *a, const void *b) {
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The most unknown keys of one object warned about one by one; the rest are counted. */
#define UNKNOWN_KEYS_SAID 8

bool rb_read_check_keys(rb_reader *r, const cJSON *obj, const char *const *known) {
    /* a key given twice: the keys sorted, neighbours compared (n log n: an
     * object of a hundred thousand keys is checked in milliseconds) */
    const cJSON *few[32], **keys = few;
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n++;
    if (n > sizeof few / sizeof *few && !(keys = malloc(n * sizeof *keys)))
        return rb_read_fail(r, "out of memory for an object of %zu keys", n);
    n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) keys[n++] = c;
    qsort(keys, n, sizeof *keys, by_key);
    const char *twice = NULL;
    for (size_t i = 1; i < n && !twice; i++)
        if (strcmp(keys[i - 1]->string, keys[i]->string) == 0) twice = keys[i]->string;
    if (keys != few) free((void *)keys);
    if (twice) return rb_read_fail_at(r, twice, "the key is given twice");
    size_t unknown = 0;
    for (const cJSON *c = known ? obj->child : NULL; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++) ok = strcmp(c->string, *k) == 0;
        if (!ok && ++unknown <= UNKNOWN_KEYS_SAID) {
            size_t len = rb_read_enter(r, c->string, 0);
            char text[512];
            snprintf(text, sizeof text, "%s: %s: unknown key, ignored", r->file, r->path);
            printable(text);
            rb_log(RB_LOG_WARN, "%s", text);
            rb_read_leave(r, len);
        }
    }
    if (unknown > UNKNOWN_KEYS_SAID) {
        char text[512];
        snprintf(text, sizeof text, "%s: %s: %zu more unknown keys, ignored", r->file,
                 r->path[0] ? r->path : "top level", unknown - UNKNOWN_KEYS_SAID);
        printable(text);
        rb_log(RB_LOG_WARN, "%s", text);
    }
    return true;
}

/* ---- values at a key ---- */

bool rb_read_plain(const char *text) {
    for (const char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) return false;
    return true;
}

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
    } else
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

const char *rb_read_not_finite(const cJSON *e) {
    return cJSON_IsString(e)   ? "is a string, not a number"
           : cJSON_IsObject(e) ? "is an object, not a number"
           : cJSON_IsArray(e)  ? "is a list, not a number"
           : cJSON_IsBool(e)   ? "is true or false, not a number"
           : cJSON_IsNull(e)   ? "is null, not a number"
                               : "is not a finite number";
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
                ok = rb_read_fail(r, "element %d %s", i, rb_read_not_finite(e));
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
    else if (!rb_read_plain(v->valuestring))
        ok = rb_read_fail(r, "holds a control character (a NUL, a newline, another below U+0020, or U+007F)");
    else
        snprintf(out, size, "%s", v->valuestring);
    rb_read_leave(r, len);
    return ok;
}

/* A quaternion's components scaled by the largest's size when that is far
 * from 1: the world normalises in float (rb_quat_normalize), whose sum of
 * squares overflows to infinity from about 1e19 (the body would enter as
 * [0, 0, 0, 0]) and underflows to 0 under about 1e-19 (it would stay
 * unnormalised). Between 1e-10 and 1e10 it is left as it is, bit for bit. */
void rb_read_quat_rescale(float q[4]) {
    double big = 0.0;
    for (int k = 0; k < 4; k++) big = fmax(big, fabs((double)q[k]));
    if (big > 0.0 && (big > 1e10 || big < 1e-10))
        for (int k = 0; k < 4; k++) q[k] = (float)((double)q[k] / big);
}

/* ---- speeds the step carries ---- */

/* ", 100 times that for a saved state": what a bound a saved state gets says. */
static const char *times_said(double times, char *out, size_t size) {
    if (times == 1.0) return "";
    snprintf(out, size, "; a saved state, %g times that", times);
    return out;
}

bool rb_read_check_speed(rb_reader *r, const char *key, double speed, double dt, const rb_shape *shape, float scale,
                         double times) {
    const double radius = (double)shape->particle_radius * scale;
    if (!(speed * dt > times * radius)) return true;
    char said[64];
    return rb_read_fail_at(r, key,
                           "%g m/s is faster than the step can carry for shape '%s': at most %g m/s (a particle of "
                           "radius %g m moves at most its radius a step of %g s%s)",
                           speed, shape->name, times * radius / dt, radius, dt, times_said(times, said, sizeof said));
}

bool rb_read_check_spin(rb_reader *r, const char *key, double spin, double dt, const rb_shape *shape, float scale,
                        double times) {
    const double radius = (double)shape->particle_radius * scale, far = (double)shape->bounding_radius * scale;
    if (!(spin * far * dt > times * radius)) return true;
    char said[64];
    return rb_read_fail_at(r, key,
                           "%g rad/s turns faster than the step can carry for shape '%s': at most %g rad/s (its "
                           "farthest particle, %g m out, moves at most its radius %g m a step of %g s%s)",
                           spin, shape->name, times * radius / (far * dt), far, radius, dt,
                           times_said(times, said, sizeof said));
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
                ok = rb_read_fail(r, "element %d %s", k, rb_read_not_finite(e));
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
