/* scene_read_generators.c - reading a scene's `generators` (wall, tower,
 * grid, ring, pile, formation): each expanded into bodies as it is read
 * (docs/scene-format.md). */
#include <math.h>
#include <string.h>

#include "base/rb_math.h"
#include "formations.h"
#include "pile.h"
#include "scene_read_internal.h"

static bool push(rb_scene *s, const rb_scene_body *t, const float position[3], const float orientation[4]) {
    rb_scene_body *b = &s->bodies[s->body_count++];
    *b = *t;
    memcpy(b->desc.position, position, sizeof b->desc.position);
    memcpy(b->desc.orientation, orientation, sizeof b->desc.orientation);
    return true;
}

bool rb_read_generator(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {"type",    "shape",        "material", "static",    "kinematic", "scale",
                                       "count",   "rows",         "columns",  "height",    "radius",    "position",
                                       "spacing", "gap",          "walls",    "formation", "lifetime",  "breakable",
                                       "color",   "inside_color", "asleep",   "anchored",  "assembly",  "glue",
                                       NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    char type[32];
    if (!rb_read_string(r, o, "type", type, sizeof type, true)) return false;
    rb_scene_body t;
    memset(&t, 0, sizeof t);
    t.scale = 1.0f;
    const rb_shape *shape = rb_read_template(r, s, o, &t);
    if (!shape) return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "glue") && (t.is_static || t.is_kinematic))
        return rb_read_fail_at(r, "glue", "only dynamic bodies are glued");
    if (!rb_read_glue(r, s, o, r->path, &t.assembly)) return false;
    float h[3], origin[3] = {0, 0, 0}, gap = 0.0f;
    rb_shape_half_extents(shape, h);
    for (int k = 0; k < 3; k++) h[k] *= t.scale;
    const float size = 2.0f * fmaxf(h[0], fmaxf(h[1], h[2]));
    gap = 0.002f * size;
    if (!rb_read_vector(r, o, "position", 3, origin) || !rb_read_float(r, o, "gap", 0.0, 1e6, &gap)) return false;
    const float identity[4] = {0, 0, 0, 1};
    const double limit = RB_SCENE_MAX_BODIES;
    if (strcmp(type, "wall") == 0) {
        /* rows along x, running bond: every other row shifted half a body and
         * one body shorter, so no body overhangs the row below */
        uint32_t rows = 0, columns = 0;
        if (!rb_read_count(r, o, "rows", limit, &rows, true) ||
            !rb_read_count(r, o, "columns", limit, &columns, true) ||
            !rb_read_reserve_bodies(s, (uint64_t)rows * columns, shape->particle_count, r))
            return false;
        for (uint32_t k = 0; k < rows; k++)
            for (uint32_t c = 0; c + (k % 2) < columns; c++) {
                float p[3] = {origin[0] + ((float)c - 0.5f * (float)(columns - 1)) * (2.0f * h[0] + gap) +
                                  (k % 2 ? 0.5f * (2.0f * h[0] + gap) : 0.0f),
                              origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap), origin[2]};
                push(s, &t, p, identity);
            }
    } else if (strcmp(type, "tower") == 0) {
        uint32_t height = 0;
        if (!rb_read_count(r, o, "height", limit, &height, true) ||
            !rb_read_reserve_bodies(s, height, shape->particle_count, r))
            return false;
        for (uint32_t k = 0; k < height; k++) {
            float p[3] = {origin[0], origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap), origin[2]};
            push(s, &t, p, identity);
        }
    } else if (strcmp(type, "grid") == 0) {
        /* count [nx, ny, nz] bodies, spacing apart, the bottom layer centred on position */
        float n[3] = {1, 1, 1}, spacing[3] = {size + gap, size + gap, size + gap};
        if (!cJSON_GetObjectItemCaseSensitive(o, "count")) return rb_read_fail(r, "'count' is missing");
        if (!rb_read_vector(r, o, "count", 3, n) || !rb_read_vector(r, o, "spacing", 3, spacing)) return false;
        uint64_t total = 1;
        for (int k = 0; k < 3; k++) {
            if (!(n[k] >= 0.0f && n[k] == floorf(n[k]) && n[k] <= limit) || !(spacing[k] > 0.0f)) {
                return rb_read_fail_at(r, !(spacing[k] > 0.0f) ? "spacing" : "count",
                                       "expected whole counts from 0 to %.0f and spacings > 0", limit);
            }
            total *= (uint64_t)n[k]; /* each at most 2e6: the product fits in 64 bits */
        }
        if (!rb_read_reserve_bodies(s, total, shape->particle_count, r)) return false;
        const uint32_t nx = (uint32_t)n[0], ny = (uint32_t)n[1], nz = (uint32_t)n[2];
        for (uint32_t y = 0; y < ny && total; y++)
            for (uint32_t z = 0; z < nz; z++)
                for (uint32_t x = 0; x < nx; x++) {
                    float p[3] = {origin[0] + ((float)x - 0.5f * (n[0] - 1.0f)) * spacing[0],
                                  origin[1] + h[1] + 0.5f * gap + (float)y * spacing[1],
                                  origin[2] + ((float)z - 0.5f * (n[2] - 1.0f)) * spacing[2]};
                    push(s, &t, p, identity);
                }
    } else if (strcmp(type, "ring") == 0) {
        /* count bodies on a circle of radius about position, each turned to face along the circle */
        uint32_t count = 0;
        float radius = 0.0f;
        if (!rb_read_count(r, o, "count", limit, &count, true) || !rb_read_float(r, o, "radius", 0.0, 1e6, &radius) ||
            !rb_read_reserve_bodies(s, count, shape->particle_count, r))
            return false;
        for (uint32_t i = 0; i < count; i++) {
            float a = 6.2831853f * (float)i / (float)(count ? count : 1), q[4];
            rb_quat_from_axis_angle((const float[3]){0, 1, 0}, -a, q);
            float p[3] = {origin[0] + radius * cosf(a), origin[1] + h[1] + 0.5f * gap, origin[2] + radius * sinf(a)};
            push(s, &t, p, q);
        }
    } else if (strcmp(type, "pile") == 0) {
        uint32_t count = 0;
        bool walls = true;
        if (!rb_read_count(r, o, "count", limit, &count, true) || !rb_read_bool(r, o, "walls", &walls) ||
            !rb_read_reserve_bodies(s, count, shape->particle_count, r))
            return false;
        for (uint32_t b = 0; b < count; b++) {
            float p[3], q[4];
            rb_pile_body_pose(b, p, q);
            for (int k = 0; k < 3; k++) p[k] += origin[k];
            push(s, &t, p, q);
        }
        if (walls) {
            rb_world_desc d = s->world;
            rb_pile_planes(&d);
            /* the four walls, after whatever planes the scene has */
            for (uint32_t i = 1; i < d.plane_count; i++) {
                if (s->world.plane_count >= RB_MAX_PLANES)
                    return rb_read_fail(r, "no room for the pile's walls: at most %d planes", RB_MAX_PLANES);
                s->world.planes[s->world.plane_count++] = d.planes[i];
            }
        }
    } else if (strcmp(type, "formation") == 0) {
        uint32_t count = 0, formation = 1;
        if (!rb_read_count(r, o, "formation", RB_FORMATION_COUNT, &formation, true) ||
            !rb_read_count(r, o, "count", limit, &count, true) ||
            !rb_read_reserve_bodies(s, count, shape->particle_count, r))
            return false;
        if (formation < 1) {
            return rb_read_fail_at(r, "formation", "formation takes 1 to %d", RB_FORMATION_COUNT);
        }
        for (uint32_t i = 0; i < count; i++) {
            float p[3];
            rb_formation_pose(shape, (int)formation, (int)count, (int)i, p);
            for (int k = 0; k < 3; k++) p[k] = p[k] * t.scale + origin[k];
            push(s, &t, p, identity);
        }
    } else {
        return rb_read_fail_at(r, "type", "unknown generator '%s' (wall, tower, grid, ring, pile, formation)", type);
    }
    return true;
}
