/* entities.c - the entity table (see entities.h). */
#include "entities.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

struct rb_entities {
    const rb_registry *registry;
    rb_world *world;
    rb_entity *rows;
    uint32_t count, capacity;
    int *by_world_shape;         /* world shape index -> row, -1 where no row */
    float *scale_of_world_shape; /* world shape index -> scale (1 for a row's own) */
    uint32_t world_shapes;
    /* world shape index -> mesh, for world shapes with no row and for those
     * whose row's shape was replaced (their bodies keep the old look); -1 where none */
    int *shape_mesh;
    uint32_t shape_meshes;
    const rb_shape **made_of; /* world shape index -> the registry shape it was made from (NULL: none) */
    uint32_t made_of_size;
    uint32_t replaced; /* rows whose shape a rebuilt plugin replaced */
    /* Scaled variants: (row, scale) -> world shape */
    struct variant {
        uint32_t row;
        float scale;
        int world_shape;
    } * variants;
    uint32_t variant_count;
};

rb_entities *rb_entities_create(const rb_registry *registry, rb_world *world) {
    rb_entities *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->registry = registry;
    t->world = world;
    rb_entities_sync(t);
    return t;
}

void rb_entities_destroy(rb_entities *t) {
    if (!t) return;
    free(t->rows);
    free(t->by_world_shape);
    free(t->scale_of_world_shape);
    free(t->variants);
    free(t->shape_mesh);
    free(t->made_of);
    free(t);
}

/* Grows shape_mesh to hold index ws (new entries -1: none). */
static bool grow_shape_mesh(rb_entities *t, uint32_t ws) {
    if (ws < t->shape_meshes) return true;
    const uint32_t n = ws + ws / 2 + 16; /* pieces come a few at a time */
    int *m = realloc(t->shape_mesh, n * sizeof *m);
    if (!m) return false;
    for (uint32_t k = t->shape_meshes; k < n; k++) m[k] = -1;
    t->shape_mesh = m, t->shape_meshes = n;
    return true;
}

static bool note_made_of(rb_entities *t, uint32_t ws, const rb_shape *s) {
    if (ws >= t->made_of_size) {
        const uint32_t n = ws + ws / 2 + 16;
        const rb_shape **m = realloc(t->made_of, n * sizeof *m);
        if (!m) return false;
        for (uint32_t k = t->made_of_size; k < n; k++) m[k] = NULL;
        t->made_of = m, t->made_of_size = n;
    }
    t->made_of[ws] = s;
    return true;
}

/* Maps world shape ws to row r at scale, growing the maps. */
static bool map_world_shape(rb_entities *t, uint32_t ws, int row, float scale) {
    if (!note_made_of(t, ws, t->rows[row].shape)) return false;
    if (ws >= t->world_shapes) {
        uint32_t n = ws + 1;
        int *m = realloc(t->by_world_shape, n * sizeof *m);
        if (m) t->by_world_shape = m;
        float *s = realloc(t->scale_of_world_shape, n * sizeof *s);
        if (s) t->scale_of_world_shape = s;
        if (!m || !s) return false;
        for (uint32_t k = t->world_shapes; k < n; k++) m[k] = -1, s[k] = 1.0f;
        t->world_shapes = n;
    }
    t->by_world_shape[ws] = row;
    t->scale_of_world_shape[ws] = scale;
    return true;
}

/* The world shape of a registry shape (at scale 1); -1 if the world refuses it. */
static int add_world_shape(rb_entities *t, const rb_shape *s) {
    rb_shape_data data = {
        .particle_count = s->particle_count,
        .offsets = s->particles,
        .mass = s->mass,
        .inertia = {s->inertia[0], s->inertia[1], s->inertia[2]},
        .particle_radius = s->particle_radius,
    };
    return rb_world_add_shape(t->world, &data);
}

/* Row i's registry shape was replaced (a rebuilt plugin): new bodies get the
 * new shape as a new world shape; the old world shapes (the row's own and
 * its scaled variants) keep their row, for names, and the row's mesh, so
 * the bodies made of them keep their layout and their look. */
static void replace_row(rb_entities *t, uint32_t i) {
    rb_entity *e = &t->rows[i];
    const int old_mesh = e->mesh;
    for (uint32_t v = 0; v < t->variant_count; v++)
        if (t->variants[v].row == i) {
            if (t->variants[v].world_shape >= 0 && grow_shape_mesh(t, (uint32_t)t->variants[v].world_shape))
                t->shape_mesh[t->variants[v].world_shape] = old_mesh;
            t->variants[v] = t->variants[--t->variant_count], v--; /* new spawns make new variants */
        }
    if (e->world_shape >= 0 && grow_shape_mesh(t, (uint32_t)e->world_shape)) t->shape_mesh[e->world_shape] = old_mesh;
    e->shape = rb_registry_get(t->registry, i);
    e->mesh = -1;
    e->world_shape = add_world_shape(t, e->shape);
    if (e->world_shape >= 0 && !map_world_shape(t, (uint32_t)e->world_shape, (int)i, 1.0f)) e->world_shape = -1;
    t->replaced++;
}

uint32_t rb_entities_replaced(const rb_entities *t) { return t->replaced; }

const rb_shape *rb_entities_shape_of_world_shape(const rb_entities *t, uint32_t world_shape) {
    return world_shape < t->made_of_size ? t->made_of[world_shape] : NULL;
}

uint32_t rb_entities_sync(rb_entities *t) {
    for (uint32_t i = 0; i < t->count; i++)
        if (t->rows[i].shape != rb_registry_get(t->registry, i)) replace_row(t, i);
    uint32_t n = rb_registry_count(t->registry), added = 0;
    if (n > t->capacity) {
        rb_entity *rows = realloc(t->rows, n * sizeof *rows);
        if (!rows) {
            rb_log(RB_LOG_ERROR, "entities: out of memory for %u shapes", n);
            return 0;
        }
        t->rows = rows, t->capacity = n;
    }
    for (; t->count < n; t->count++, added++) {
        const rb_shape *s = rb_registry_get(t->registry, t->count);
        const int ws = add_world_shape(t, s);
        t->rows[t->count] = (rb_entity){.shape = s, .world_shape = ws, .mesh = -1};
        if (ws >= 0 && !map_world_shape(t, (uint32_t)ws, (int)t->count, 1.0f)) t->rows[t->count].world_shape = -1;
    }
    return added;
}

uint32_t rb_entities_count(const rb_entities *t) { return t->count; }
rb_world *rb_entities_world(const rb_entities *t) { return t->world; }

const rb_entity *rb_entities_get(const rb_entities *t, uint32_t index) {
    return index < t->count ? &t->rows[index] : NULL;
}

int rb_entities_find(const rb_entities *t, const char *name) {
    for (uint32_t i = 0; i < t->count; i++)
        if (strcmp(t->rows[i].shape->name, name) == 0) return (int)i;
    return -1;
}

int rb_entities_of_world_shape(const rb_entities *t, uint32_t world_shape) {
    return world_shape < t->world_shapes ? t->by_world_shape[world_shape] : -1;
}

float rb_entities_scale_of_world_shape(const rb_entities *t, uint32_t world_shape) {
    return world_shape < t->world_shapes ? t->scale_of_world_shape[world_shape] : 1.0f;
}

/* The world shape of row `index` at scale, registered on first use; -1 if the world refuses it. */
static int scaled_world_shape(rb_entities *t, uint32_t index, float scale) {
    for (uint32_t v = 0; v < t->variant_count; v++)
        if (t->variants[v].row == index && t->variants[v].scale == scale) return t->variants[v].world_shape;
    const rb_shape *s = t->rows[index].shape;
    float *offsets = malloc(3 * (size_t)s->particle_count * sizeof *offsets);
    struct variant *grown = realloc(t->variants, (t->variant_count + 1) * sizeof *grown);
    if (grown) t->variants = grown;
    if (!offsets || !grown) {
        free(offsets);
        rb_log(RB_LOG_ERROR, "entities: out of memory for '%s' at scale %g", s->name, scale);
        return -1;
    }
    for (uint32_t i = 0; i < 3 * s->particle_count; i++) offsets[i] = s->particles[i] * scale;
    const float s3 = scale * scale * scale, s5 = s3 * scale * scale;
    rb_shape_data data = {
        .particle_count = s->particle_count,
        .offsets = offsets,
        .mass = s->mass * s3,
        .inertia = {s->inertia[0] * s5, s->inertia[1] * s5, s->inertia[2] * s5},
        .particle_radius = s->particle_radius * scale,
    };
    int ws = rb_world_add_shape(t->world, &data);
    free(offsets);
    if (ws >= 0 && !map_world_shape(t, (uint32_t)ws, (int)index, scale)) ws = -1;
    t->variants[t->variant_count++] = (struct variant){.row = index, .scale = scale, .world_shape = ws};
    return ws;
}

rb_body_id rb_entities_spawn_scaled(rb_entities *t, uint32_t index, float scale, const rb_body_desc *desc) {
    if (scale == 1.0f) return rb_entities_spawn(t, index, desc);
    if (index >= t->count || !(scale >= 0.01f && scale <= 100.0f)) return (rb_body_id){0, 0};
    int ws = scaled_world_shape(t, index, scale);
    if (ws < 0) return (rb_body_id){0, 0};
    rb_body_desc d = *desc;
    d.shape = (uint32_t)ws;
    return rb_world_add_body(t->world, &d);
}

void rb_entities_set_mesh(rb_entities *t, uint32_t index, int mesh) {
    if (index < t->count) t->rows[index].mesh = mesh;
}

int rb_entities_mesh_of_world_shape(const rb_entities *t, uint32_t world_shape) {
    const int own = world_shape < t->shape_meshes ? t->shape_mesh[world_shape] : -1;
    const int row = rb_entities_of_world_shape(t, world_shape);
    const bool replaced = row >= 0 && rb_entities_shape_of_world_shape(t, world_shape) != t->rows[row].shape;
    return row >= 0 && !replaced ? t->rows[row].mesh : own;
}

bool rb_entities_set_shape_mesh(rb_entities *t, uint32_t world_shape, int mesh) {
    if (rb_entities_of_world_shape(t, world_shape) >= 0) return false;
    if (!grow_shape_mesh(t, world_shape)) return false;
    t->shape_mesh[world_shape] = mesh;
    return true;
}

rb_body_id rb_entities_spawn(rb_entities *t, uint32_t index, const rb_body_desc *desc) {
    const rb_entity *e = rb_entities_get(t, index);
    if (!e || e->world_shape < 0) return (rb_body_id){0, 0};
    rb_body_desc d = *desc;
    d.shape = (uint32_t)e->world_shape;
    return rb_world_add_body(t->world, &d);
}
