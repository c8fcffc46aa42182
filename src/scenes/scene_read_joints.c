/* scene_read_joints.c - reading the scene's `joints` (docs/scene-format.md,
 * docs/joints.md): joints between bodies by name (scene_read_paths.c), or
 * chains of new bodies from a world point to a body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rb_math.h"
#include "scene_read_internal.h"

static bool push_joint(rb_reader *r, rb_scene *s, const rb_scene_joint *j) {
    if (s->joint_count == s->joint_capacity) {
        const uint32_t cap = s->joint_capacity ? 2 * s->joint_capacity : 16;
        rb_scene_joint *grown = realloc(s->joints, cap * sizeof *grown);
        if (!grown) return rb_read_fail(r, "out of memory");
        s->joints = grown, s->joint_capacity = cap;
    }
    s->joints[s->joint_count++] = *j;
    return true;
}

/* A world point in body b's frame as it starts (its centre of mass, its orientation). */
static void into_body(const rb_scene_body *b, const float point[3], float out[3]) {
    float q[4] = {b->desc.orientation[0], b->desc.orientation[1], b->desc.orientation[2], b->desc.orientation[3]};
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) q[3] = 1.0f;
    rb_quat_normalize(q);
    const float rel[3] = {point[0] - b->desc.position[0], point[1] - b->desc.position[1],
                          point[2] - b->desc.position[2]};
    rb_quat_rotate_inv(q, rel, out);
}

/* A point of body b's frame in the world as it starts. */
static void into_world(const rb_scene_body *b, const float anchor[3], float out[3]) {
    float q[4] = {b->desc.orientation[0], b->desc.orientation[1], b->desc.orientation[2], b->desc.orientation[3]};
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) q[3] = 1.0f;
    rb_quat_normalize(q);
    rb_quat_rotate(q, anchor, out);
    for (int c = 0; c < 3; c++) out[c] += b->desc.position[c];
}

static bool body_named(rb_reader *r, const rb_scene *s, const cJSON *o, const char *key, uint32_t *index) {
    char name[RB_SCENE_NAME_SIZE] = "world";
    if (!rb_read_string(r, o, key, name, sizeof name, false)) return false;
    if (strcmp(name, "world") == 0) return *index = RB_SCENE_WORLD, true;
    const int64_t b = rb_scene_find_body(s, name);
    if (b < 0) return rb_read_fail_at(r, key, "no body is named '%s' (give a body \"name\": \"%s\")", name, name);
    if (s->bodies[b].assembly)
        return rb_read_fail_at(r, key, "'%s' is a part of an assembly, which becomes one body: a joint cannot hold it",
                               name);
    *index = (uint32_t)b;
    return true;
}

static bool read_breaking_force(rb_reader *r, const cJSON *o, float *out) {
    double f = 0.0;
    if (!rb_read_number(r, o, "breaking_force", -INFINITY, INFINITY, &f)) return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "breaking_force") && !(f > 0.0 && isfinite((float)f)))
        return rb_read_fail_at(r, "breaking_force",
                               "must be a force greater than 0 N (got %g); leave it out for a joint that never breaks",
                               f);
    *out = (float)f;
    return true;
}

/* A chain: `links` bodies of a shape in a straight row from the world point
 * `from` to body `to`'s anchor, each turned so its y axis runs along the
 * row, joined end to end at the points that split the row evenly. */
static bool read_chain(rb_reader *r, rb_scene *s, const cJSON *o, float breaking_force) {
    static const char *const keys[] = {"shape", "material", "scale", "color",  "inside_color",
                                       "links", "from",     "to",    "anchor", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"shape\": ..., \"links\": n, ...}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    rb_scene_body t;
    memset(&t, 0, sizeof t);
    t.scale = 1.0f;
    t.desc.orientation[3] = 1.0f;
    const rb_shape *shape = rb_read_template(r, s, o, &t);
    if (!shape) return false;
    uint32_t links = 0, to = 0;
    float from[3], anchor[3] = {0.0f, 0.0f, 0.0f}, end[3];
    if (!rb_read_count(r, o, "links", 10000, &links, true)) return false;
    if (links == 0) return rb_read_fail_at(r, "links", "a chain has at least 1 link");
    if (!cJSON_GetObjectItemCaseSensitive(o, "from"))
        return rb_read_fail(r, "'from' (the world point it hangs from) is missing");
    if (!cJSON_GetObjectItemCaseSensitive(o, "to")) return rb_read_fail(r, "'to' (the body at its end) is missing");
    if (!rb_read_vector(r, o, "from", 3, from) || !body_named(r, s, o, "to", &to) ||
        !rb_read_vector(r, o, "anchor", 3, anchor))
        return false;
    if (to == RB_SCENE_WORLD) return rb_read_fail_at(r, "to", "a chain ends at a body, not the world");
    into_world(&s->bodies[to], anchor, end);
    const float axis[3] = {end[0] - from[0], end[1] - from[1], end[2] - from[2]};
    const float length = sqrtf(rb_v3_dot(axis, axis)), pitch = length / (float)links;
    float h[3];
    rb_shape_half_extents(shape, h);
    if (!(2.0f * h[1] * t.scale < pitch))
        return rb_read_fail(r,
                            "%u links %g m long (the shape's y extent) do not fit in the %g m from 'from' to the "
                            "body's anchor: fewer or smaller links, or a longer chain",
                            links, 2.0 * h[1] * t.scale, length);
    /* the link's y axis onto the row: the turn from +y to dir */
    const float dir[3] = {axis[0] / length, axis[1] / length, axis[2] / length}, up[3] = {0.0f, 1.0f, 0.0f};
    float q[4], c[3];
    rb_v3_cross(up, dir, c);
    const float cos_angle = rb_v3_dot(up, dir);
    if (cos_angle < -0.999999f) {
        q[0] = 0.0f, q[1] = 0.0f, q[2] = 1.0f, q[3] = 0.0f; /* straight down: half a turn about z */
    } else {
        q[0] = c[0], q[1] = c[1], q[2] = c[2], q[3] = 1.0f + cos_angle;
        rb_quat_normalize(q);
    }
    if (!rb_read_reserve_bodies(s, links, shape->particle_count, r)) return false;
    const float half = 0.5f * pitch;
    for (uint32_t k = 0; k < links; k++) {
        rb_scene_body *b = &s->bodies[s->body_count++];
        *b = t;
        for (int i = 0; i < 3; i++) b->desc.position[i] = from[i] + dir[i] * pitch * ((float)k + 0.5f);
        memcpy(b->desc.orientation, q, sizeof q);
        /* +y of the link points along the row, toward the body: its top anchor is -y */
        rb_scene_joint j = {.a = s->body_count - 1, .anchor_a = {0.0f, -half, 0.0f}, .breaking_force = breaking_force};
        if (k == 0) {
            j.b = RB_SCENE_WORLD;
            memcpy(j.anchor_b, from, sizeof from);
        } else {
            j.b = s->body_count - 2;
            j.anchor_b[1] = half;
        }
        if (!push_joint(r, s, &j)) return false;
    }
    const rb_scene_joint last = {.a = s->body_count - 1,
                                 .b = to,
                                 .anchor_a = {0.0f, half, 0.0f},
                                 .anchor_b = {anchor[0], anchor[1], anchor[2]},
                                 .breaking_force = breaking_force};
    return push_joint(r, s, &last);
}

static bool read_joint(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"a", "b", "anchor_a", "anchor_b", "point", "breaking_force", "chain", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object {\"a\": body, \"b\": body or \"world\", ...}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    rb_scene_joint j = {0};
    if (!read_breaking_force(r, o, &j.breaking_force)) return false;
    const cJSON *chain = cJSON_GetObjectItemCaseSensitive(o, "chain");
    if (chain) {
        if (cJSON_GetObjectItemCaseSensitive(o, "a") || cJSON_GetObjectItemCaseSensitive(o, "b"))
            return rb_read_fail(r, "a chain entry names its ends in 'chain' ('from', 'to'), not 'a' and 'b'");
        size_t len = rb_read_enter(r, "chain", 0);
        const bool ok = read_chain(r, s, chain, j.breaking_force);
        rb_read_leave(r, len);
        return ok;
    }
    if (!cJSON_GetObjectItemCaseSensitive(o, "a")) return rb_read_fail(r, "'a' (a body's name) is missing");
    if (!body_named(r, s, o, "a", &j.a) || !body_named(r, s, o, "b", &j.b)) return false;
    if (j.a == RB_SCENE_WORLD) return rb_read_fail_at(r, "a", "'a' is a body; the world may be 'b'");
    if (j.a == j.b)
        return rb_read_fail_at(r, "b", "a joint joins two bodies: '%s' is at both ends", s->bodies[j.a].name);
    const bool point = cJSON_GetObjectItemCaseSensitive(o, "point") != NULL;
    const bool anchor_a = cJSON_GetObjectItemCaseSensitive(o, "anchor_a") != NULL;
    const bool anchor_b = cJSON_GetObjectItemCaseSensitive(o, "anchor_b") != NULL;
    if (point && (anchor_a || anchor_b))
        return rb_read_fail_at(r, "point", "give 'point' (one world point for both ends) or the anchors, not both");
    if (!point && !anchor_a) return rb_read_fail(r, "give 'point' (a world point) or 'anchor_a' (in a's frame)");
    const rb_scene_body *a = &s->bodies[j.a], *b = j.b == RB_SCENE_WORLD ? NULL : &s->bodies[j.b];
    if (point) {
        float p[3];
        if (!rb_read_vector(r, o, "point", 3, p)) return false;
        into_body(a, p, j.anchor_a);
        if (b)
            into_body(b, p, j.anchor_b);
        else
            memcpy(j.anchor_b, p, sizeof p);
    } else {
        if (!rb_read_vector(r, o, "anchor_a", 3, j.anchor_a)) return false;
        /* without anchor_b: b's point where a's anchor starts (the joint holds them as they are) */
        float at[3];
        into_world(a, j.anchor_a, at);
        if (b)
            into_body(b, at, j.anchor_b);
        else
            memcpy(j.anchor_b, at, sizeof at);
        if (!rb_read_vector(r, o, "anchor_b", 3, j.anchor_b)) return false;
    }
    return push_joint(r, s, &j);
}

bool rb_read_joints(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected a list of joints");
    const int n = cJSON_GetArraySize(o);
    for (int k = 0; k < n; k++) {
        size_t len = rb_read_enter(r, NULL, k);
        const bool ok = read_joint(r, s, cJSON_GetArrayItem(o, k));
        rb_read_leave(r, len);
        if (!ok) return false;
    }
    return true;
}
