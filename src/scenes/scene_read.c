/* scene_read.c - reading scene files (see scene.h, docs/scene-format.md):
 * the file and its top level, the world, materials, planes and camera; the
 * bodies, generators, contacts and debris keys through the other parts of
 * the reader (scene_read_internal.h). */
#include "scene_read_internal.h"

#include "base/read_file.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decimal.h"

static bool read_material(rb_reader *r, const cJSON *o, rb_material *m, rb_color_spec *colors) {
    static const char *const keys[] = {"restitution",  "friction", "contact_time", "rolling_friction", "color",
                                       "inside_color", NULL};
    if (!cJSON_IsObject(o))
        return rb_read_fail(r, "expected an object with restitution, friction, contact_time, rolling_friction");
    if (!rb_read_check_keys(r, o, keys)) return false;
    return rb_read_float(r, o, "restitution", 0.0, 1.0, &m->restitution) &&
           rb_read_float(r, o, "friction", 0.0, 1e6, &m->friction) &&
           rb_read_float(r, o, "contact_time", 1e-9, 1e6, &m->contact_time) &&
           rb_read_float(r, o, "rolling_friction", 0.0, 1.0, &m->rolling_friction) && rb_read_colors(r, o, colors);
}

/* The world's checks (rb_world_desc_check) for the world with material m, at key path. */
static bool check_world(rb_reader *r, const rb_world_desc *w, const rb_material *m) {
    rb_world_desc d = *w;
    d.material = *m;
    char why[512];
    if (rb_world_desc_check(&d, why, sizeof why)) return true;
    return rb_read_fail(r, "%s", why);
}

static bool read_world(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"gravity", "dt", "sleep", "contact_slots", "max_bodies", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!rb_read_vector(r, o, "gravity", 3, s->world.gravity) || !rb_read_float(r, o, "dt", 1e-7, 1.0, &s->world.dt))
        return false;
    const float *g = s->world.gravity;
    const double gravity = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]);
    if (gravity > RB_SCENE_MAX_GRAVITY)
        return rb_read_fail_at(r, "gravity", "%g m/s^2 is out of range: its size is at most %g m/s^2 (about 100 g)",
                               gravity, RB_SCENE_MAX_GRAVITY);
    if (cJSON_GetObjectItemCaseSensitive(o, "contact_slots")) {
        size_t at = rb_read_enter(r, "contact_slots", 0);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "contact_slots");
        if (!cJSON_IsNumber(v) || (v->valuedouble != 4.0 && v->valuedouble != 8.0))
            return rb_read_fail(r, "expected 4 or 8 (contacts a particle remembers; leave it out to have them "
                                   "chosen from the bodies)");
        s->world.contact_slots = (uint32_t)v->valuedouble;
        rb_read_leave(r, at);
    }
    /* the world's cap on bodies at run time (src/scenes/stage.c); 0: the default */
    if (!rb_read_count(r, o, "max_bodies", RB_SCENE_MAX_BODIES, &s->world.max_bodies, false)) return false;
    const cJSON *sleep = cJSON_GetObjectItemCaseSensitive(o, "sleep");
    if (!sleep) return true;
    size_t len = rb_read_enter(r, "sleep", 0);
    bool ok = true;
    if (cJSON_IsBool(sleep)) {
        if (cJSON_IsFalse(sleep)) s->world.sleep_time = 0.0f;
    } else if (cJSON_IsObject(sleep)) {
        static const char *const sleep_keys[] = {"speed", "time", NULL};
        if (!rb_read_check_keys(r, sleep, sleep_keys)) return false;
        ok = rb_read_float(r, sleep, "speed", 0.0, 1e6, &s->world.sleep_speed) &&
             rb_read_float(r, sleep, "time", 0.0, 1e6, &s->world.sleep_time);
    } else {
        ok = rb_read_fail(r, "expected true, false or {\"speed\": m/s, \"time\": s}");
    }
    rb_read_leave(r, len);
    return ok;
}

static bool read_named_material(rb_reader *r, rb_scene *s, const cJSON *m) {
    size_t len = rb_read_enter(r, m->string, 0);
    rb_scene_material *slot = NULL;
    if (strcmp(m->string, "default") == 0)
        slot = &s->materials[0];
    else if (s->material_count >= RB_SCENE_MAX_MATERIALS)
        return rb_read_fail(r, "at most %u materials", RB_SCENE_MAX_MATERIALS);
    else if (strlen(m->string) >= RB_SCENE_NAME_SIZE || !m->string[0] || !rb_read_plain(m->string))
        return rb_read_fail(r, "a material needs a name of 1 to %d characters, none a control character",
                            RB_SCENE_NAME_SIZE - 1);
    else
        slot = &s->materials[s->material_count++];
    snprintf(slot->name, sizeof slot->name, "%s", m->string);
    slot->material = s->materials[0].material;     /* unset keys: the default's */
    memset(&slot->colors, 0, sizeof slot->colors); /* colours are a material's own: none, the bodies' defaults */
    if (!read_material(r, m, &slot->material, &slot->colors) || !check_world(r, &s->world, &slot->material))
        return false;
    rb_read_leave(r, len);
    return true;
}

static bool read_materials(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object of named materials");
    if (!rb_read_check_keys(r, o, NULL)) return false;
    /* "default" first, wherever it stands: the others start from it */
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(o, "default");
    if (def && !read_named_material(r, s, def)) return false;
    for (const cJSON *m = o->child; m; m = m->next)
        if (m != def && !read_named_material(r, s, m)) return false;
    s->world.material = s->materials[0].material;
    return true;
}

static bool read_planes(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected an array of planes");
    int n = cJSON_GetArraySize(o);
    if (n > RB_MAX_PLANES) return rb_read_fail(r, "at most %d planes (got %d)", RB_MAX_PLANES, n);
    s->world.plane_count = 0;
    for (int i = 0; i < n; i++) {
        size_t len = rb_read_enter(r, NULL, i);
        const cJSON *p = cJSON_GetArrayItem(o, i);
        static const char *const keys[] = {"normal", "offset", NULL};
        if (!cJSON_IsObject(p)) return rb_read_fail(r, "expected {\"normal\": [x, y, z], \"offset\": m}");
        if (!rb_read_check_keys(r, p, keys)) return false;
        rb_plane plane = {.normal = {0, 1, 0}};
        if (!rb_read_vector(r, p, "normal", 3, plane.normal) ||
            !rb_read_float(r, p, "offset", -1e9, 1e9, &plane.offset))
            return false;
        double n2 = 0.0;
        for (int k = 0; k < 3; k++) n2 += (double)plane.normal[k] * plane.normal[k];
        if (!(n2 > 0.0)) return rb_read_fail(r, "normal: a zero vector has no direction");
        for (int k = 0; k < 3; k++) plane.normal[k] = (float)(plane.normal[k] / sqrt(n2));
        s->world.planes[s->world.plane_count++] = plane;
        rb_read_leave(r, len);
    }
    return true;
}

static bool read_list(rb_reader *r, rb_scene *s, const cJSON *o, bool (*one)(rb_reader *, rb_scene *, const cJSON *)) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected an array");
    int i = 0;
    for (const cJSON *e = o->child; e; e = e->next, i++) {
        size_t len = rb_read_enter(r, NULL, i);
        if (!one(r, s, e)) return false;
        rb_read_leave(r, len);
    }
    return true;
}

/* One of the camera's bookmarks: an object with position, yaw and pitch, or
 * null for an empty slot (docs/scene-format.md, "camera"). */
static bool read_bookmark(rb_reader *r, const cJSON *o, rb_scene_bookmark *b) {
    static const char *const keys[] = {"position", "yaw", "pitch", NULL};
    if (cJSON_IsNull(o)) return true;
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected null or an object with position, yaw and pitch");
    if (!rb_read_check_keys(r, o, keys)) return false;
    for (int k = 0; k < 3; k++)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[k])) return rb_read_fail(r, "'%s' is missing", keys[k]);
    b->set = true;
    return rb_read_vector(r, o, "position", 3, b->position) && rb_read_float(r, o, "yaw", -1e6, 1e6, &b->yaw) &&
           rb_read_float(r, o, "pitch", -RB_SCENE_PITCH_LIMIT, RB_SCENE_PITCH_LIMIT, &b->pitch);
}

static bool read_camera(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"bookmarks", "start", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object with \"bookmarks\" or \"start\"");
    if (!rb_read_check_keys(r, o, keys)) return false;
    s->has_camera = true;
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(o, "start");
    if (start) { /* the camera the sandbox opens at: a bookmark's keys */
        size_t at = rb_read_enter(r, "start", 0);
        if (!read_bookmark(r, start, &s->start)) return false;
        rb_read_leave(r, at);
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "bookmarks");
    if (!list) return true;
    size_t len = rb_read_enter(r, "bookmarks", 0);
    const int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 0) return rb_read_fail(r, "expected an array of up to %d bookmarks", RB_SCENE_BOOKMARKS);
    if (n > RB_SCENE_BOOKMARKS) return rb_read_fail(r, "at most %d bookmarks (got %d)", RB_SCENE_BOOKMARKS, n);
    for (int i = 0; i < n; i++) {
        size_t at = rb_read_enter(r, NULL, i);
        if (!read_bookmark(r, cJSON_GetArrayItem(list, i), &s->bookmarks[i])) return false;
        rb_read_leave(r, at);
    }
    rb_read_leave(r, len);
    return true;
}

/* Line and column (from 1) of offset `at` in text. */
static void line_column(const char *text, const char *at, int *line, int *column) {
    *line = 1, *column = 1;
    for (const char *c = text; c < at && *c; c++)
        if (*c == '\n')
            (*line)++, *column = 1;
        else
            (*column)++;
}

/* What a scene's text holds before it is parsed, in one pass (the strings
 * walked over by their escapes): its JSON values, at most (each comma and
 * each opening bracket outside a string starts one), and its escaped NULs
 * (\u0000), which cJSON would keep as a NUL that cuts the string short. */
static size_t survey(const char *text, size_t *values, size_t *nuls) {
    bool in_string = false;
    *values = 1, *nuls = 0;
    const char *c = text;
    for (; *c; c++) {
        if (in_string) {
            if (*c == '"') {
                in_string = false;
            } else if (*c == '\\' && c[1]) {
                if (c[1] == 'u' && strncmp(c + 2, "0000", 4) == 0) (*nuls)++;
                c++;
            }
        } else if (*c == '"') {
            in_string = true;
        } else if (*c == ',' || *c == '[' || *c == '{') {
            (*values)++;
        }
    }
    return (size_t)(c - text);
}

/* text with each escaped NUL written \u0001 instead: a string that held one
 * then holds a control character, which the readers refuse at its key
 * (scene_read_base.c), where a NUL would have cut it short. */
static char *without_nuls(const char *text) {
    char *copy = strdup(text);
    if (!copy) return NULL;
    bool in_string = false;
    for (char *c = copy; *c; c++) {
        if (in_string) {
            if (*c == '"') {
                in_string = false;
            } else if (*c == '\\' && c[1]) {
                if (c[1] == 'u' && strncmp(c + 2, "0000", 4) == 0) c[5] = '1';
                c++;
            }
        } else if (*c == '"') {
            in_string = true;
        }
    }
    return copy;
}

rb_scene *rb_scene_parse(const char *text, const char *name, const rb_registry *registry, char *err, size_t err_size) {
    rb_reader r = {.file = name, .registry = registry, .err = err, .err_size = err_size};
    /* the parse's memory is a cJSON node a value (sizeof (cJSON) and the
     * allocator's own): bounded before it is spent */
    size_t values, nuls;
    const size_t bytes = survey(text, &values, &nuls);
    if (values > RB_SCENE_MAX_VALUES) {
        rb_read_fail(&r, "%zu JSON values is more than a scene may hold (at most %u, about %u MB to read)", values,
                     RB_SCENE_MAX_VALUES, (unsigned)(RB_SCENE_MAX_VALUES / 1000000u * 80u));
        return NULL;
    }
    if (values > RB_SCENE_FREE_VALUES && values > bytes / RB_SCENE_BYTES_PER_VALUE) {
        rb_read_fail(&r,
                     "%zu JSON values in %zu bytes: past the first %u, a scene holds at most one value per %u bytes "
                     "of its text (reading takes about 80 bytes a value)",
                     values, bytes, RB_SCENE_FREE_VALUES, RB_SCENE_BYTES_PER_VALUE);
        return NULL;
    }
    char *copy = nuls ? without_nuls(text) : NULL;
    if (nuls && !copy) {
        rb_read_fail(&r, "out of memory");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(copy ? copy : text, &end, true);
    if (!root) {
        int line, column;
        line_column(copy ? copy : text, end ? end : copy ? copy : text, &line, &column);
        free(copy);
        rb_read_fail(&r, "not JSON: a syntax error at line %d, column %d", line, column);
        return NULL;
    }
    free(copy);
    rb_scene *s = rb_scene_create(name);
    if (!s) {
        cJSON_Delete(root);
        snprintf(err, err_size, "%s: out of memory", name);
        return NULL;
    }
    static const char *const keys[] = {"rubble_scene", "world",    "materials", "planes",   "bodies",
                                       "generators",   "contacts", "camera",    "emitters", "fields",
                                       "debris",       "joints",   "assemblies", "shapes", "debris_state", NULL};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "rubble_scene");
    size_t len;
    if (!cJSON_IsObject(root)) {
        rb_read_fail(&r, "expected a JSON object with \"rubble_scene\": %d", RB_SCENE_VERSION);
    } else if (!v) {
        rb_read_fail(&r, "not a scene file: no \"rubble_scene\" version key");
    } else if (!cJSON_IsNumber(v)) {
        rb_read_fail_at(&r, "rubble_scene", "expected the version number %d", RB_SCENE_VERSION);
    } else if (v->valuedouble != RB_SCENE_VERSION) {
        char got[32];
        rb_read_fail_at(&r, "rubble_scene", "version %s is not one this program reads (it reads %d)",
                        rb_double_decimal(v->valuedouble, got), RB_SCENE_VERSION);
    } else {
        rb_read_check_keys(&r, root, keys);
        /* In this order, whatever the file's: materials need the world's
         * step, bodies the materials, the pile generator the planes, the
         * contacts every body's particles and every plane. */
        static const char *const order[] = {"world",  "materials", "planes",   "shapes", "assemblies",
                                            "bodies", "generators", "joints", "contacts", "camera"};
        for (size_t k = 0; k < sizeof order / sizeof *order && !r.failed; k++) {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, order[k]);
            if (!o) continue;
            len = rb_read_enter(&r, order[k], 0);
            switch (k) {
            case 0:
                read_world(&r, s, o);
                break;
            case 1:
                read_materials(&r, s, o);
                break;
            case 2:
                read_planes(&r, s, o);
                break;
            case 3:
                rb_read_shapes(&r, s, o);
                break;
            case 4:
                rb_read_assemblies(&r, s, o);
                break;
            case 5:
                read_list(&r, s, o, rb_read_body);
                break;
            case 6:
                read_list(&r, s, o, rb_read_generator);
                break;
            case 7:
                rb_read_joints(&r, s, o);
                break;
            case 8:
                rb_read_contacts(&r, s, o);
                break;
            default:
                read_camera(&r, s, o);
                break;
            }
            rb_read_leave(&r, len);
        }
        if (!r.failed) check_world(&r, &s->world, &s->world.material);
        if (!r.failed) rb_read_check_structures(&r, s);
        /* After the bodies: a body's lifetime makes the scene one with debris. */
        if (!r.failed) rb_read_debris(&r, s, root);
        /* After the effects: the state a saved layer had, of each of them */
        const cJSON *state = cJSON_GetObjectItemCaseSensitive(root, "debris_state");
        if (!r.failed && state) {
            len = rb_read_enter(&r, "debris_state", 0);
            rb_read_debris_state(&r, s, state);
            rb_read_leave(&r, len);
        }
    }
    cJSON_Delete(root);
    if (r.failed) {
        rb_scene_destroy(s);
        return NULL;
    }
    return s;
}

rb_scene *rb_scene_load(const char *path, const rb_registry *registry, char *err, size_t err_size) {
    /* a regular file of at most RB_SCENE_FILE_MAX_BYTES, without NUL bytes */
    char *text = rb_read_file(path, "a scene file", RB_SCENE_FILE_MAX_BYTES, NULL, err, err_size);
    if (!text) return NULL;
    rb_scene *s = rb_scene_parse(text, path, registry, err, err_size);
    free(text);
    return s;
}
