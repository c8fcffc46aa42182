/* scene_read_generators.c - reading a scene's `generators` (wall, tower,
 * grid, ring, pile, formation, heap): each expanded into bodies as it is
 * read, standing on its `position` and turned about it by its
 * `orientation` (docs/scene-format.md). */
#include <math.h>
#include <string.h>

#include "base/rb_math.h"
#include "debris_math.h"
#include "formations.h"
#include "pile.h"
#include "scene_read_internal.h"

/* Where a generator stands and how it is turned: its `position` and
 * `orientation`. */
typedef struct placement {
    float origin[3];
    float q[4];  /* a unit quaternion */
    bool turned; /* q is not the identity */
} placement;

/* Adds a body of template t at p (m, the origin included) turned by q, the
 * whole turned by the placement about its origin. Unturned, p and q are
 * taken as they are, so an unturned generator places its bodies to the bit
 * as it always did. */
static void push(rb_scene *s, const rb_scene_body *t, const placement *at, const float p[3], const float q[4]) {
    rb_scene_body *b = &s->bodies[s->body_count++];
    *b = *t;
    if (!at->turned) {
        memcpy(b->desc.position, p, sizeof b->desc.position);
        memcpy(b->desc.orientation, q, sizeof b->desc.orientation);
        return;
    }
    const float rel[3] = {p[0] - at->origin[0], p[1] - at->origin[1], p[2] - at->origin[2]};
    float turned[3];
    rb_quat_rotate(at->q, rel, turned);
    for (int k = 0; k < 3; k++) b->desc.position[k] = at->origin[k] + turned[k];
    rb_quat_mul(at->q, q, b->desc.orientation);
    rb_quat_normalize(b->desc.orientation);
}

/* `orientation`: a unit quaternion [x, y, z, w]. Unlike a body's, which is
 * normalised whatever its length, a length off 1 by more than 0.1% is
 * refused: a generator's turns every body about its position, and a
 * quaternion typed with a wrong component is more likely than one meant to
 * be scaled. Within that it is normalised. */
static bool read_orientation(rb_reader *r, const cJSON *o, placement *at) {
    float *q = at->q;
    if (!rb_read_vector(r, o, "orientation", 4, q)) return false;
    const double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (!(fabs(n - 1.0) <= 1e-3))
        return rb_read_fail_at(r, "orientation",
                               "[%g, %g, %g, %g] has length %g: expected a unit quaternion [x, y, z, w] (the identity "
                               "is [0, 0, 0, 1])",
                               q[0], q[1], q[2], q[3], n);
    at->turned = !(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f);
    if (at->turned) rb_quat_normalize(q);
    return true;
}

/* The scaled half extents of a shape's box (its particles, radius included), m. */
static void half_extents(const rb_shape *shape, float scale, float h[3]) {
    rb_shape_half_extents(shape, h);
    for (int k = 0; k < 3; k++) h[k] *= scale;
}

/* A wall: rows along x in running bond, each row centred on the joints of
 * the row below. With a half body (`half`), every other row is a half, one
 * body fewer, and a half, so both ends are flush; without one, each row is
 * one body shorter than the row below (the ends racked back), so no body
 * ever rests on less than half its length. */
static bool wall(rb_reader *r, rb_scene *s, const cJSON *o, const rb_scene_body *t, const rb_shape *shape,
                 const float h[3], float gap, const placement *at) {
    const double limit = RB_SCENE_MAX_BODIES;
    const float *origin = at->origin, identity[4] = {0, 0, 0, 1};
    uint32_t rows = 0, columns = 0;
    if (!rb_read_count(r, o, "rows", limit, &rows, true) || !rb_read_count(r, o, "columns", limit, &columns, true))
        return false;
    rb_scene_body half = *t;
    const rb_shape *half_shape = NULL;
    float hh[3] = {0, 0, 0};
    if (!rb_read_string(r, o, "half", half.shape, sizeof half.shape, false)) return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "half")) {
        size_t len = rb_read_enter(r, "half", 0);
        half_shape = rb_read_find_shape(r, half.shape);
        if (!half_shape) return false;
        half_extents(half_shape, t->scale, hh);
        /* the rows above rest on it, and it sits in the half body's room at the row's end */
        const float tol = 1e-3f * h[1];
        if (fabsf(hh[1] - h[1]) > tol)
            return rb_read_fail(r, "'%s' is %g m tall, the wall's '%s' %g m: a half must be as tall as the body",
                                half.shape, 2.0 * hh[1], t->shape, 2.0 * h[1]);
        if (hh[0] > 0.5f * h[0] + tol)
            return rb_read_fail(r, "'%s' is %g m long, more than half the wall's '%s' (%g m)", half.shape, 2.0 * hh[0],
                                t->shape, 2.0 * h[0]);
        if (half.breakable && half.fracture.kind == RB_FRACTURE_GIVEN && !half_shape->pieces)
            return rb_read_fail(r, "pattern 'plugin': shape '%s' gives no pieces", half.shape);
        if (half.breakable && half.fracture.pieces > half_shape->particle_count)
            half.fracture.pieces = half_shape->particle_count; /* a piece a particle, as the body's were */
        rb_read_leave(r, len);
    } else if (rows > columns) {
        return rb_read_fail_at(r, "rows",
                               "%u rows of %u: a wall without 'half' is one body shorter each row up, so it has at "
                               "most 'columns' rows (give a half body, e.g. \"half\": \"brick_half\")",
                               rows, columns);
    }
    uint64_t bodies = 0, halves = 0;
    for (uint32_t k = 0; k < rows; k++) {
        if (half_shape)
            bodies += columns - (k % 2 && columns ? 1u : 0u), halves += k % 2 && columns ? 2u : 0u;
        else
            bodies += columns - k;
    }
    if (!rb_read_reserve_bodies(s, bodies, shape->particle_count, r) ||
        (halves && !rb_read_reserve_bodies(s, halves, half_shape->particle_count, r)))
        return false;
    const float pitch = 2.0f * h[0] + gap;
    for (uint32_t k = 0; k < rows; k++) {
        const float y = origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap);
        /* racked: shifted half a body a row; with halves: every other row */
        const uint32_t shift = half_shape ? k % 2 : k, n = columns - (half_shape ? k % 2 : k);
        for (uint32_t c = 0; c < n; c++) {
            float p[3] = {origin[0] + ((float)c - 0.5f * (float)(columns - 1)) * pitch + (float)shift * 0.5f * pitch, y,
                          origin[2]};
            push(s, t, at, p, identity);
        }
        if (half_shape && k % 2 && columns) {
            /* flush with the row below's ends */
            const float end = 0.5f * (float)(columns - 1) * pitch + h[0] - hh[0];
            push(s, &half, at, (const float[3]){origin[0] - end, y, origin[2]}, identity);
            push(s, &half, at, (const float[3]){origin[0] + end, y, origin[2]}, identity);
        }
    }
    return true;
}

/* A heap's choice of shape: the shape, its template (the generator's keys
 * at the choice's scale), its half extents and its weight. */
typedef struct heap_choice {
    rb_scene_body t;
    const rb_shape *shape;
    float h[3], weight;
} heap_choice;

/* The template of one heap choice: the generator's own keys, with the
 * choice's shape and scale in place of any it has. */
static bool choice_template(rb_reader *r, const rb_scene *s, const cJSON *o, const rb_emit_choice *c,
                            heap_choice *out) {
    cJSON *copy = cJSON_Duplicate(o, true);
    if (!copy) return rb_read_fail(r, "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "shapes");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "shape");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "scale");
    bool ok = cJSON_AddStringToObject(copy, "shape", c->shape) && cJSON_AddNumberToObject(copy, "scale", c->scale);
    memset(&out->t, 0, sizeof out->t);
    out->t.scale = 1.0f;
    out->shape = ok ? rb_read_template(r, s, copy, &out->t) : NULL;
    cJSON_Delete(copy);
    if (!ok) return rb_read_fail(r, "out of memory");
    if (!out->shape) return false;
    half_extents(out->shape, out->t.scale, out->h);
    out->weight = c->weight;
    return true;
}

/* A step through 0..n-1 that visits each once: i -> (a i + b) mod n with a
 * coprime to n, a and b drawn from rng. */
static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b) {
        const uint64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* A heap: `count` bodies of a weighted list of shapes in layers in a box of
 * `size` standing on position: each layer a grid of cells as wide as the
 * widest choice turned any way about the vertical, as tall as the tallest;
 * each body turned by a random angle about the vertical and moved at random
 * within its cell, standing on its layer's floor, so no two overlap and
 * each drops at most a layer's slack onto the one below. The top layer's
 * cells are taken in a scattered order. Every draw comes from `seed`. */
static bool heap(rb_reader *r, rb_scene *s, const cJSON *o, placement *at) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "shapes");
    const bool one = cJSON_GetObjectItemCaseSensitive(o, "shape") != NULL;
    if (list && one) return rb_read_fail(r, "give 'shape' or 'shapes', not both");
    if (list && cJSON_GetObjectItemCaseSensitive(o, "scale"))
        return rb_read_fail_at(r, "scale", "with 'shapes', each shape takes its own scale");
    if (!list && !one) return rb_read_fail(r, "'shapes' is missing");
    rb_emit_choice c[RB_DEBRIS_MAX_CHOICES];
    uint32_t n = 0;
    if (one) {
        memset(&c[0], 0, sizeof c[0]);
        c[0].scale = 1.0f, c[0].weight = 1.0f, n = 1;
        if (!rb_read_string(r, o, "shape", c[0].shape, sizeof c[0].shape, true) ||
            !rb_read_float(r, o, "scale", 0.01, 100.0, &c[0].scale))
            return false;
    } else {
        size_t len = rb_read_enter(r, "shapes", 0);
        if (!cJSON_IsArray(list))
            return rb_read_fail(r, "expected an array of {\"shape\": name, \"scale\": s, "
                                   "\"weight\": w}");
        const int got = cJSON_GetArraySize(list);
        if (got < 1) return rb_read_fail(r, "expected at least one shape");
        if (got > (int)RB_DEBRIS_MAX_CHOICES)
            return rb_read_fail(r, "at most %u shapes (got %d)", RB_DEBRIS_MAX_CHOICES, got);
        for (const cJSON *e = list->child; e; e = e->next, n++) {
            size_t in = rb_read_enter(r, NULL, (int)n);
            if (!rb_read_emit_choice(r, e, &c[n])) return false;
            rb_read_leave(r, in);
        }
        rb_read_leave(r, len);
    }
    heap_choice choice[RB_DEBRIS_MAX_CHOICES];
    float wide = 0.0f, tall = 0.0f, largest = 0.0f, weights = 0.0f;
    for (uint32_t k = 0; k < n; k++) {
        if (!choice_template(r, s, o, &c[k], &choice[k])) return false;
        const float *h = choice[k].h;
        wide = fmaxf(wide, 2.0f * sqrtf(h[0] * h[0] + h[2] * h[2]));
        tall = fmaxf(tall, 2.0f * h[1]);
        largest = fmaxf(largest, 2.0f * fmaxf(h[0], fmaxf(h[1], h[2])));
        weights += choice[k].weight;
    }
    float gap = 0.002f * largest, size[3] = {0, 0, 0}; /* 0.2% of the largest shape's size, as for the others */
    uint32_t count = 0, seed = 1;
    if (!rb_read_float(r, o, "gap", 0.0, 1e6, &gap) ||
        !rb_read_count(r, o, "count", RB_SCENE_MAX_BODIES, &count, true) ||
        !rb_read_count(r, o, "seed", 4294967295.0, &seed, false))
        return false;
    if (count == 0) return rb_read_fail_at(r, "count", "a heap of 0 bodies: expected a count >= 1");
    if (!cJSON_GetObjectItemCaseSensitive(o, "size")) return rb_read_fail(r, "'size' is missing");
    if (!rb_read_vector(r, o, "size", 3, size)) return false;
    if (!(size[0] > 0.0f && size[1] > 0.0f && size[2] > 0.0f))
        return rb_read_fail_at(r, "size", "expected 3 sizes > 0 (m: the box's x, y and z)");
    /* cells with a gap between neighbours; how many fit across each way */
    const double cell = (double)wide + gap, layer = (double)tall + gap;
    const double nx = floor((size[0] + gap) / cell), nz = floor((size[2] + gap) / cell),
                 ny = floor((size[1] + gap) / layer);
    if (!(nx * nz * ny >= count))
        return rb_read_fail_at(
            r, "size",
            "%u bodies do not fit in [%g, %g, %g]: it holds %.0f (%.0f x %.0f cells of %.3g m, %.0f "
            "layers of %.3g m: the widest shape turned about the vertical, the tallest, and the gap)",
            count, size[0], size[1], size[2], nx * nz * ny, nx, nz, cell, ny, layer);
    /* at least a cell and a layer: count <= nx nz ny, and count is at most 2e6 */
    /* no more cells a row than bodies: per_layer times a body's index stays in 64 bits */
    const uint64_t cx = (uint64_t)fmin(nx, count), cz = (uint64_t)fmin(nz, count), per_layer = cx * cz;
    uint64_t particles = 0;
    if (!rb_read_reserve_bodies(s, count, 0, r)) return false;
    uint64_t rng = splitmix64(seed) | 1u;
    uint64_t a = 1, b = 0;
    const float *origin = at->origin;
    for (uint32_t i = 0; i < count; i++) {
        const uint64_t cell_index = i % per_layer, level = i / per_layer;
        if (cell_index == 0) { /* a new layer: a new scattered order of its cells */
            a = 1 + next_u64(&rng) % (per_layer > 1 ? per_layer - 1 : 1);
            while (gcd(a, per_layer) != 1) a = a % per_layer + 1;
            b = next_u64(&rng) % per_layer;
        }
        const uint64_t here = (a * cell_index + b) % per_layer; /* a < per_layer <= 4e12 fits */
        /* the choice, by weight */
        float pick = uniform(&rng) * weights;
        uint32_t k = 0;
        while (k + 1 < n && pick >= choice[k].weight) pick -= choice[k].weight, k++;
        const heap_choice *ch = &choice[k];
        const float *h = ch->h;
        const float foot = 2.0f * sqrtf(h[0] * h[0] + h[2] * h[2]), slack = 0.5f * (wide - foot);
        const float yaw = 6.2831853f * uniform(&rng), dx = slack * (2.0f * uniform(&rng) - 1.0f),
                    dz = slack * (2.0f * uniform(&rng) - 1.0f);
        float q[4];
        rb_quat_from_axis_angle((const float[3]){0, 1, 0}, yaw, q);
        const float p[3] = {origin[0] + (float)(((double)(here % cx) - 0.5 * ((double)cx - 1.0)) * cell) + dx,
                            origin[1] + (float)((double)level * layer) + 0.5f * gap + h[1],
                            origin[2] + (float)(((double)(here / cx) - 0.5 * ((double)cz - 1.0)) * cell) + dz};
        push(s, &ch->t, at, p, q);
        particles += ch->shape->particle_count;
    }
    /* the particles the bodies hold, now that each one's shape is known */
    s->particle_count += particles;
    if (s->particle_count > RB_SCENE_MAX_PARTICLES)
        return rb_read_fail(r, "the scene would hold %llu particles; the limit is %u",
                            (unsigned long long)s->particle_count, RB_SCENE_MAX_PARTICLES);
    return true;
}

bool rb_read_generator(rb_reader *r, rb_scene *s, const cJSON *o) {
    static const char *const keys[] = {
        "type",   "shape",        "material",    "static",  "kinematic", "scale",    "count",     "rows",     "columns",
        "height", "radius",       "position",    "spacing", "gap",       "walls",    "formation", "lifetime", "breakable",
        "color",  "inside_color", "orientation", "half",    "shapes",    "size",     "seed",      "asleep",   "anchored",
        "assembly", "glue",       NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected an object");
    if (!rb_read_check_keys(r, o, keys)) return false;
    char type[32];
    if (!rb_read_string(r, o, "type", type, sizeof type, true)) return false;
    placement at = {{0, 0, 0}, {0, 0, 0, 1}, false};
    if (!rb_read_vector(r, o, "position", 3, at.origin) || !read_orientation(r, o, &at)) return false;
    if (strcmp(type, "heap") == 0) {
        /* its bodies come from a template a shape; a `glue` of its own glues them all */
        const uint32_t first = s->body_count;
        if (!heap(r, s, o, &at)) return false;
        if (!cJSON_GetObjectItemCaseSensitive(o, "glue")) return true;
        uint32_t assembly = s->bodies[first].assembly;
        if (s->bodies[first].is_static || s->bodies[first].is_kinematic)
            return rb_read_fail_at(r, "glue", "only dynamic bodies are glued");
        if (!rb_read_glue(r, s, o, r->path, &assembly)) return false;
        for (uint32_t k = first; k < s->body_count; k++) s->bodies[k].assembly = assembly;
        return true;
    }
    rb_scene_body t;
    memset(&t, 0, sizeof t);
    t.scale = 1.0f;
    const rb_shape *shape = rb_read_template(r, s, o, &t);
    if (!shape) return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "glue") && (t.is_static || t.is_kinematic))
        return rb_read_fail_at(r, "glue", "only dynamic bodies are glued");
    if (!rb_read_glue(r, s, o, r->path, &t.assembly)) return false;
    float h[3], gap = 0.0f;
    const float *origin = at.origin;
    half_extents(shape, t.scale, h);
    const float size = 2.0f * fmaxf(h[0], fmaxf(h[1], h[2]));
    gap = 0.002f * size;
    if (!rb_read_float(r, o, "gap", 0.0, 1e6, &gap)) return false;
    const float identity[4] = {0, 0, 0, 1};
    const double limit = RB_SCENE_MAX_BODIES;
    if (strcmp(type, "wall") == 0) {
        if (!wall(r, s, o, &t, shape, h, gap, &at)) return false;
    } else if (strcmp(type, "tower") == 0) {
        uint32_t height = 0;
        if (!rb_read_count(r, o, "height", limit, &height, true) ||
            !rb_read_reserve_bodies(s, height, shape->particle_count, r))
            return false;
        for (uint32_t k = 0; k < height; k++) {
            float p[3] = {origin[0], origin[1] + h[1] + 0.5f * gap + (float)k * (2.0f * h[1] + gap), origin[2]};
            push(s, &t, &at, p, identity);
        }
    } else if (strcmp(type, "grid") == 0) {
        /* count [nx, ny, nz] bodies, spacing apart, the bottom layer standing on position, centred on it */
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
                    push(s, &t, &at, p, identity);
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
            push(s, &t, &at, p, q);
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
            push(s, &t, &at, p, q);
        }
        if (walls) {
            rb_world_desc d = s->world;
            rb_pile_planes(&d);
            /* the four walls, after whatever planes the scene has, moved
             * and turned with the bodies: dot(n, x) < offset about the
             * origin is dot(R n, x) < offset + dot(R n, position) */
            for (uint32_t i = 1; i < d.plane_count; i++) {
                if (s->world.plane_count >= RB_MAX_PLANES)
                    return rb_read_fail(r, "no room for the pile's walls: at most %d planes", RB_MAX_PLANES);
                rb_plane wall = d.planes[i];
                rb_quat_rotate(at.q, d.planes[i].normal, wall.normal);
                wall.offset += rb_v3_dot(wall.normal, origin);
                s->world.planes[s->world.plane_count++] = wall;
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
            push(s, &t, &at, p, identity);
        }
    } else {
        return rb_read_fail_at(r, "type", "unknown generator '%s' (wall, tower, grid, ring, pile, formation, heap)",
                               type);
    }
    return true;
}
