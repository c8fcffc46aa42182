/* wedge_collect.c - rubble wedge --collect DIR: a wedge's results read,
 * printed as a table and written as summary.csv, summary.json and the
 * contact sheet (wedge_sheet.c). See wedge_collect.h and docs/wedge-sheet.md. */
#include "wedge_collect.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/replace.h"
#include "wedge_table.h"

#define FAIL(...) (snprintf(err, err_size, __VA_ARGS__), false)

/* The file at path, NUL-terminated, if it holds at most max bytes: malloc'd,
 * its length in *len. NULL with the reason in why (*absent set when there
 * is no such file). */
static char *read_bounded(const char *path, size_t max, size_t *len, bool *absent, char *why, size_t why_size) {
    *absent = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *absent = errno == ENOENT;
        snprintf(why, why_size, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a file");
        fclose(f);
        return NULL;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(why, why_size, "%lld bytes; at most %zu are read", (long long)st.st_size, max);
        fclose(f);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 2);
    const size_t n = text ? fread(text, 1, (size_t)st.st_size + 1, f) : 0; /* one more: a file that grew */
    fclose(f);
    if (!text || n > (size_t)st.st_size) {
        snprintf(why, why_size, text ? "it grew while read" : "out of memory");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

/* A variant's name: a folder of the wedge's, never a path out of it. */
static bool name_ok(const char *s) {
    const size_t n = strlen(s);
    if (n == 0 || n > RB_WEDGE_MAX_NAME) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

/* A value as the table shows it: a string as it is, anything else as JSON. */
static char *print_value(const cJSON *v) {
    if (!v) return strdup("-");
    if (cJSON_IsString(v)) return strdup(v->valuestring);
    return cJSON_PrintUnformatted(v);
}

static void table_free(rb_wedge_table *t) {
    for (int i = 0; i < t->key_count; i++) free(t->keys[i]);
    free(t->keys);
    for (int r = 0; r < t->row_count; r++) {
        for (int k = 0; t->rows[r].values && k < t->key_count; k++) free(t->rows[r].values[k]);
        free(t->rows[r].values);
    }
    free(t->rows);
}

/* wedge.json's keys, shots and variants into t (rows as yet without their summaries). */
static bool read_wedge(rb_wedge_table *t, const cJSON *doc, const char *file, char *err, size_t err_size) {
    if (!cJSON_IsObject(doc)) return FAIL("%s: not a JSON object", file);
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(doc, "scene");
    if (cJSON_IsString(scene)) snprintf(t->scene, sizeof t->scene, "%s", scene->valuestring);
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(doc, "keys");
    const cJSON *shots = cJSON_GetObjectItemCaseSensitive(doc, "shots");
    const cJSON *variants = cJSON_GetObjectItemCaseSensitive(doc, "variants");
    if (!cJSON_IsArray(keys)) return FAIL("%s: keys: an array of the key paths varied is wanted", file);
    if (shots && !cJSON_IsArray(shots)) return FAIL("%s: shots: an array of simulated times is wanted", file);
    if (!cJSON_IsArray(variants)) return FAIL("%s: variants: an array of variants is wanted", file);
    const int nk = cJSON_GetArraySize(keys), ns = shots ? cJSON_GetArraySize(shots) : 0,
              nv = cJSON_GetArraySize(variants);
    if (nk > RB_WEDGE_MAX_KEYS) return FAIL("%s: keys: %d keys; a wedge varies at most %d", file, nk, RB_WEDGE_MAX_KEYS);
    if (ns > RB_WEDGE_MAX_SHOTS) return FAIL("%s: shots: %d times; at most %d", file, ns, RB_WEDGE_MAX_SHOTS);
    if (nv > RB_WEDGE_MAX_VARIANTS)
        return FAIL("%s: variants: %d variants; a wedge has at most %d", file, nv, RB_WEDGE_MAX_VARIANTS);
    t->keys = calloc((size_t)(nk ? nk : 1), sizeof *t->keys);
    t->rows = calloc((size_t)(nv ? nv : 1), sizeof *t->rows);
    if (!t->keys || !t->rows) return FAIL("%s: out of memory", file);
    for (const cJSON *k = keys ? keys->child : NULL; k; k = k->next) {
        if (!cJSON_IsString(k) || !k->valuestring[0] || strlen(k->valuestring) > 256)
            return FAIL("%s: keys[%d]: a key path (a string of 1 to 256 characters) is wanted", file, t->key_count);
        if (!(t->keys[t->key_count++] = strdup(k->valuestring))) return FAIL("%s: out of memory", file);
    }
    for (const cJSON *s = shots ? shots->child : NULL; s; s = s->next) {
        if (!cJSON_IsNumber(s) || !(s->valuedouble >= 0.0) || s->valuedouble > 1e9)
            return FAIL("%s: shots[%d]: a time in simulated seconds >= 0 is wanted", file, t->shot_count);
        t->shots[t->shot_count++] = s->valuedouble;
    }
    for (const cJSON *v = variants->child; v; v = v->next) {
        const int i = t->row_count;
        rb_wedge_row *row = &t->rows[t->row_count++];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name");
        const cJSON *values = cJSON_GetObjectItemCaseSensitive(v, "values");
        if (!cJSON_IsString(name) || !name_ok(name->valuestring))
            return FAIL("%s: variants[%d]: name: a folder name of 1 to %d letters, digits, '_' or '-' is wanted", file,
                        i, RB_WEDGE_MAX_NAME);
        if (values && !cJSON_IsObject(values)) return FAIL("%s: variants[%d]: values: an object is wanted", file, i);
        for (int j = 0; j < i; j++)
            if (!strcmp(t->rows[j].name, name->valuestring))
                return FAIL("%s: variants[%d]: the name '%s' is variant %d's too", file, i, name->valuestring, j);
        snprintf(row->name, sizeof row->name, "%s", name->valuestring);
        row->raw = values;
        if (!(row->values = calloc((size_t)(nk ? nk : 1), sizeof *row->values))) return FAIL("%s: out of memory", file);
        for (int k = 0; k < t->key_count; k++)
            if (!(row->values[k] = print_value(cJSON_GetObjectItemCaseSensitive(values, t->keys[k]))))
                return FAIL("%s: out of memory", file);
        row->status = "missing";
        row->bodies = row->breaks = row->max_speed = row->wall_s = NAN;
        row->nan = -1;
    }
    return true;
}

static double number_or_nan(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A variant's DIR/NAME/summary.json into its row: missing, failed (with
 * why: it cannot be read, is not JSON, names another variant, or says so)
 * or ok. */
static void read_summary(const rb_wedge_table *t, rb_wedge_row *row) {
    char path[4096 + 128], why[256];
    snprintf(path, sizeof path, "%s/%s/summary.json", t->dir, row->name);
    size_t len;
    bool absent;
    char *text = read_bounded(path, RB_WEDGE_MAX_SUMMARY, &len, &absent, why, sizeof why);
    if (!text) {
        row->status = absent ? "missing" : "failed";
        snprintf(row->error, sizeof row->error, "%s/summary.json: %s", row->name, absent ? "none" : why);
        return;
    }
    cJSON *s = cJSON_ParseWithLength(text, len);
    free(text);
    row->status = "failed";
    const cJSON *variant = cJSON_GetObjectItemCaseSensitive(s, "variant");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(s, "status");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(s, "error");
    const cJSON *nan = cJSON_GetObjectItemCaseSensitive(s, "nan");
    const cJSON *digest = cJSON_GetObjectItemCaseSensitive(s, "digest");
    if (!cJSON_IsObject(s)) {
        snprintf(row->error, sizeof row->error, "%s/summary.json: not a JSON object", row->name);
    } else if (cJSON_IsString(variant) && strcmp(variant->valuestring, row->name)) {
        snprintf(row->error, sizeof row->error, "%s/summary.json: it is variant '%.64s''s", row->name,
                 variant->valuestring);
    } else if (!cJSON_IsString(status) || (strcmp(status->valuestring, "ok") && strcmp(status->valuestring, "failed"))) {
        snprintf(row->error, sizeof row->error, "%s/summary.json: status: \"ok\" or \"failed\" is wanted", row->name);
    } else {
        row->status = strcmp(status->valuestring, "ok") ? "failed" : "ok";
        if (cJSON_IsString(error)) snprintf(row->error, sizeof row->error, "%s", error->valuestring);
        row->bodies = number_or_nan(s, "bodies"), row->breaks = number_or_nan(s, "breaks");
        row->max_speed = number_or_nan(s, "max_speed"), row->wall_s = number_or_nan(s, "wall_s");
        row->nan = cJSON_IsBool(nan) ? cJSON_IsTrue(nan) : -1;
        if (cJSON_IsString(digest) && strlen(digest->valuestring) < sizeof row->digest)
            snprintf(row->digest, sizeof row->digest, "%s", digest->valuestring);
    }
    cJSON_Delete(s);
}

/* A number for the table and the CSV: "" (CSV) or "-" (table) for none. */
static void number_text(double x, const char *none, char *out, size_t size) {
    if (isnan(x))
        snprintf(out, size, "%s", none);
    else
        snprintf(out, size, "%.10g", x);
}

static const char *nan_text(int nan) { return nan < 0 ? "" : nan ? "true" : "false"; }

/* The table: a row a variant, columns as wide as their widest cell (at most 32). */
static void print_table(const rb_wedge_table *t, FILE *out) {
    enum { FIXED = 7 };
    const char *heads[FIXED] = {"status", "bodies", "breaks", "max speed", "nan", "digest", "wall s"};
    int name_w = 7, key_w[RB_WEDGE_MAX_KEYS], fixed_w[FIXED];
    for (int k = 0; k < t->key_count; k++) key_w[k] = (int)strlen(t->keys[k]);
    for (int c = 0; c < FIXED; c++) fixed_w[c] = (int)strlen(heads[c]);
    fixed_w[0] = 7, fixed_w[5] = 16;
    for (int r = 0; r < t->row_count; r++) {
        if ((int)strlen(t->rows[r].name) > name_w) name_w = (int)strlen(t->rows[r].name);
        for (int k = 0; k < t->key_count; k++)
            if ((int)strlen(t->rows[r].values[k]) > key_w[k]) key_w[k] = (int)strlen(t->rows[r].values[k]);
    }
    for (int k = 0; k < t->key_count; k++)
        if (key_w[k] > 32) key_w[k] = 32;
    fprintf(out, "%-*s", name_w, "variant");
    for (int k = 0; k < t->key_count; k++) fprintf(out, "  %-*.*s", key_w[k], key_w[k], t->keys[k]);
    for (int c = 0; c < FIXED; c++) fprintf(out, "  %*s", fixed_w[c], heads[c]);
    fprintf(out, "\n");
    for (int r = 0; r < t->row_count; r++) {
        const rb_wedge_row *row = &t->rows[r];
        char cells[FIXED][64];
        snprintf(cells[0], sizeof cells[0], "%s", row->status);
        number_text(row->bodies, "-", cells[1], sizeof cells[1]);
        number_text(row->breaks, "-", cells[2], sizeof cells[2]);
        number_text(row->max_speed, "-", cells[3], sizeof cells[3]);
        snprintf(cells[4], sizeof cells[4], "%s", row->nan < 0 ? "-" : nan_text(row->nan));
        snprintf(cells[5], sizeof cells[5], "%s", row->digest[0] ? row->digest : "-");
        number_text(row->wall_s, "-", cells[6], sizeof cells[6]);
        fprintf(out, "%-*s", name_w, row->name);
        for (int k = 0; k < t->key_count; k++) fprintf(out, "  %-*.*s", key_w[k], key_w[k], row->values[k]);
        for (int c = 0; c < FIXED; c++) fprintf(out, "  %*s", fixed_w[c], cells[c]);
        if (strcmp(row->status, "ok") && row->error[0]) fprintf(out, "  (%s)", row->error);
        fprintf(out, "\n");
    }
}

/* A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void csv_field(FILE *f, const char *s, bool last) {
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static bool write_csv(const rb_wedge_table *t, const char *path, char *err, size_t err_size) {
    rb_replace out;
    char why[512] = "";
    FILE *f = rb_replace_open(&out, path, "w", why, sizeof why);
    if (!f) return FAIL("%s: %s", path, why);
    csv_field(f, "variant", false);
    for (int k = 0; k < t->key_count; k++) csv_field(f, t->keys[k], false);
    const char *heads[] = {"status", "bodies", "breaks", "max_speed", "nan", "digest", "wall_s"};
    for (size_t c = 0; c < sizeof heads / sizeof *heads; c++) csv_field(f, heads[c], false);
    csv_field(f, "error", true);
    for (int r = 0; r < t->row_count; r++) {
        const rb_wedge_row *row = &t->rows[r];
        char num[64];
        csv_field(f, row->name, false);
        for (int k = 0; k < t->key_count; k++) csv_field(f, row->values[k], false);
        csv_field(f, row->status, false);
        const double nums[] = {row->bodies, row->breaks, row->max_speed};
        for (int c = 0; c < 3; c++) number_text(nums[c], "", num, sizeof num), csv_field(f, num, false);
        csv_field(f, nan_text(row->nan), false);
        csv_field(f, row->digest, false);
        number_text(row->wall_s, "", num, sizeof num), csv_field(f, num, false);
        csv_field(f, strcmp(row->status, "ok") ? row->error : "", true);
    }
    return rb_replace_close(&out, true, why, sizeof why) || FAIL("%s: %s", path, why);
}

static void add_number(cJSON *o, const char *key, double x) {
    cJSON_AddItemToObject(o, key, isnan(x) ? cJSON_CreateNull() : cJSON_CreateNumber(x));
}

static bool write_json(const rb_wedge_table *t, const char *path, char *err, size_t err_size) {
    cJSON *rows = cJSON_CreateArray();
    for (int r = 0; rows && r < t->row_count; r++) {
        const rb_wedge_row *row = &t->rows[r];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, o);
        cJSON_AddStringToObject(o, "variant", row->name);
        cJSON_AddItemToObject(o, "values", row->raw ? cJSON_Duplicate(row->raw, true) : cJSON_CreateObject());
        cJSON_AddStringToObject(o, "status", row->status);
        if (strcmp(row->status, "ok")) cJSON_AddStringToObject(o, "error", row->error);
        add_number(o, "bodies", row->bodies);
        add_number(o, "breaks", row->breaks);
        add_number(o, "max_speed", row->max_speed);
        cJSON_AddItemToObject(o, "nan", row->nan < 0 ? cJSON_CreateNull() : cJSON_CreateBool(row->nan));
        cJSON_AddItemToObject(o, "digest", row->digest[0] ? cJSON_CreateString(row->digest) : cJSON_CreateNull());
        add_number(o, "wall_s", row->wall_s);
    }
    char *text = rows ? cJSON_Print(rows) : NULL;
    cJSON_Delete(rows);
    if (!text) return FAIL("%s: out of memory", path);
    rb_replace out;
    char why[512] = "";
    FILE *f = rb_replace_open(&out, path, "w", why, sizeof why);
    const bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    free(text);
    if (!f) return FAIL("%s: %s", path, why);
    return rb_replace_close(&out, ok, why, sizeof why) || FAIL("%s: %s", path, why);
}

int rb_wedge_collect(const char *dir, FILE *out, char *err, size_t err_size) {
    char file[4096 + 64], why[256];
    snprintf(file, sizeof file, "%s/wedge.json", dir);
    size_t len;
    bool absent;
    char *text = read_bounded(file, RB_WEDGE_MAX_JSON, &len, &absent, why, sizeof why);
    if (!text) {
        snprintf(err, err_size, "%s: %s%s", file, why,
                 absent ? " (a wedge's folder holds its wedge.json: docs/wedge-sheet.md)" : "");
        return -1;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    const char *at = doc ? NULL : cJSON_GetErrorPtr();
    const long near = at && at >= text && at <= text + len ? (long)(at - text) : 0;
    free(text);
    if (!doc) {
        snprintf(err, err_size, "%s: not JSON (near byte %ld)", file, near);
        return -1;
    }
    rb_wedge_table t = {.dir = dir};
    bool ok = read_wedge(&t, doc, file, err, err_size);
    int not_ok = 0;
    for (int r = 0; ok && r < t.row_count; r++) {
        read_summary(&t, &t.rows[r]);
        not_ok += strcmp(t.rows[r].status, "ok") != 0;
    }
    if (ok && out) print_table(&t, out);
    char path[4096 + 64];
    if (ok) snprintf(path, sizeof path, "%s/summary.csv", dir), ok = write_csv(&t, path, err, err_size);
    if (ok) snprintf(path, sizeof path, "%s/summary.json", dir), ok = write_json(&t, path, err, err_size);
    if (ok) snprintf(path, sizeof path, "%s/sheet.png", dir), ok = rb_wedge_sheet_write(&t, path, err, err_size);
    table_free(&t);
    cJSON_Delete(doc);
    return ok ? not_ok : -1;
}

int rb_wedge_collect_main(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "--collect")) {
        fprintf(stderr, "usage: rubble wedge --collect DIR (the table of a wedge's runs, summary.csv, summary.json "
                        "and the contact sheet, sheet.png, written in DIR)\n");
        return 2;
    }
    char err[4096 + 512];
    const int not_ok = rb_wedge_collect(argv[2], stdout, err, sizeof err);
    if (not_ok < 0) {
        fprintf(stderr, "rubble wedge: %s\n", err);
        return 1;
    }
    printf("%s/summary.csv, %s/summary.json and %s/sheet.png written%s", argv[2], argv[2], argv[2],
           not_ok ? "; " : "\n");
    if (not_ok) printf("%d variant%s did not run or failed\n", not_ok, not_ok == 1 ? "" : "s");
    return 0;
}
