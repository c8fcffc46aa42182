/* scene_read_paths.c - reading a body's `name` and a kinematic body's
 * `path` (docs/scene-format.md, docs/joints.md), and finding a body by its
 * name. Called by the bodies' reader and the joints' reader; calls only the
 * reader's toolkit (scene_read_base.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_read_internal.h"

int64_t rb_scene_find_body(const rb_scene *s, const char *name) {
    if (!name[0]) return -1;
    for (uint32_t b = 0; b < s->body_count; b++)
        if (strcmp(s->bodies[b].name, name) == 0) return b;
    return -1;
}

static bool read_key(rb_reader *r, const cJSON *o, rb_path_key *k, const rb_path_key *before) {
    static const char *const keys[] = {"t", "position", "orientation", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"t\": s, \"position\": [x, y, z]}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "t")) return rb_read_fail(r, "'t' (its time, s) is missing");
    if (!cJSON_GetObjectItemCaseSensitive(o, "position")) return rb_read_fail(r, "'position' is missing");
    double t = 0.0;
    if (!rb_read_number(r, o, "t", -INFINITY, INFINITY, &t)) return false;
    if (!isfinite((float)t)) return rb_read_fail_at(r, "t", "%g is not a finite time", t);
    k->time = (float)t;
    if (before && !(k->time > before->time))
        return rb_read_fail_at(r, "t", "time %g is not after the key before's (%g): keys go in time order", t,
                               before->time);
    /* the orientation: the key before's unless it gives one */
    const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    memcpy(k->orientation, before ? before->orientation : identity, sizeof k->orientation);
    if (!rb_read_vector(r, o, "position", 3, k->position) || !rb_read_vector(r, o, "orientation", 4, k->orientation))
        return false;
    const float *q = k->orientation;
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f)
        return rb_read_fail_at(r, "orientation", "a zero quaternion is no rotation (the identity is [0, 0, 0, 1])");
    rb_read_quat_rescale(k->orientation);
    return true;
}

static bool read_path(rb_reader *r, rb_scene *s, const cJSON *o, rb_scene_body *b) {
    static const char *const keys[] = {"keys", "interpolation", "loop", "time", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"keys\": [...]}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!b->is_kinematic)
        return rb_read_fail(r, "only a kinematic body follows a path: give the body \"kinematic\": true");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "keys");
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        return list ? rb_read_fail_at(r, "keys", "expected a list of at least one key")
                    : rb_read_fail(r, "'keys' is missing");
    rb_scene_path p = {.key_count = (uint32_t)cJSON_GetArraySize(list)};
    char how[16] = "linear";
    if (!rb_read_string(r, o, "interpolation", how, sizeof how, false)) return false;
    if (strcmp(how, "linear") != 0 && strcmp(how, "smooth") != 0)
        return rb_read_fail_at(r, "interpolation", "expected \"linear\" or \"smooth\" (got \"%s\")", how);
    p.smooth = strcmp(how, "smooth") == 0;
    if (!rb_read_bool(r, o, "loop", &p.loop) || !rb_read_number(r, o, "time", 0.0, 1e9, &p.time)) return false;
    p.keys = calloc(p.key_count, sizeof *p.keys);
    if (!p.keys) return rb_read_fail(r, "out of memory");
    size_t in = rb_read_enter(r, "keys", 0);
    for (uint32_t k = 0; k < p.key_count; k++) {
        size_t at = rb_read_enter(r, NULL, (int)k);
        const bool ok = read_key(r, cJSON_GetArrayItem(list, (int)k), &p.keys[k], k ? &p.keys[k - 1] : NULL);
        rb_read_leave(r, at);
        if (!ok) return free(p.keys), false;
    }
    rb_read_leave(r, in);
    if (s->path_count == s->path_capacity) {
        const uint32_t cap = s->path_capacity ? 2 * s->path_capacity : 8;
        rb_scene_path *grown = realloc(s->paths, cap * sizeof *grown);
        if (!grown) return free(p.keys), rb_read_fail(r, "out of memory");
        s->paths = grown, s->path_capacity = cap;
    }
    s->paths[s->path_count++] = p;
    b->path = s->path_count;
    /* where it starts: the path's pose at its clock (a position given says otherwise) */
    const rb_path_desc pd = {.keys = p.keys, .key_count = p.key_count, .smooth = p.smooth, .loop = p.loop};
    double pos[3], q[4];
    rb_path_pose(&pd, p.time, pos, q);
    for (int c = 0; c < 3; c++) b->desc.position[c] = (float)pos[c];
    for (int c = 0; c < 4; c++) b->desc.orientation[c] = (float)q[c];
    return true;
}

bool rb_read_name_and_path(rb_reader *r, rb_scene *s, const cJSON *o, rb_scene_body *b) {
    if (!rb_read_string(r, o, "name", b->name, sizeof b->name, false)) return false;
    if (strcmp(b->name, "world") == 0)
        return rb_read_fail_at(r, "name", "'world' names the world's end of a joint: give the body another name");
    if (rb_scene_find_body(s, b->name) >= 0)
        return rb_read_fail_at(r, "name", "another body is named '%s' already: names are unique in a scene", b->name);
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
    if (!path) return true;
    size_t len = rb_read_enter(r, "path", 0);
    const bool ok = read_path(r, s, path, b);
    rb_read_leave(r, len);
    return ok;
}
