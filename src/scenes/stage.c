/* stage.c - a live scene: world, entity table, scene and debris layer as one
 * object (see stage.h). */
#include "stage.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"

struct rb_stage {
    const rb_registry *registry;
    rb_world *world;
    rb_entities *entities;
    rb_scene *scene;        /* what a reset installs again; NULL before the first install */
    rb_debris *debris;      /* the scene's debris effects, or a layer the tools made; NULL: none */
    rb_color_table *colors; /* the bodies' colours (colors.h), given to the debris layer */
    uint64_t world_number;
};

rb_stage *rb_stage_create(const rb_registry *registry, const rb_world_desc *desc, char *err, size_t err_size) {
    rb_stage *s = calloc(1, sizeof *s);
    char why[512];
    if (s) {
        s->registry = registry;
        s->world = rb_world_create(desc, why, sizeof why);
        if (s->world) s->entities = rb_entities_create(registry, s->world);
        s->colors = rb_color_table_create();
        s->world_number = 1;
    }
    if (!s || !s->world || !s->entities || !s->colors) {
        snprintf(err, err_size, "cannot create the world: %s", s && !s->world ? why : "out of memory");
        rb_stage_destroy(s);
        return NULL;
    }
    return s;
}

void rb_stage_destroy(rb_stage *s) {
    if (!s) return;
    rb_debris_destroy(s->debris);
    rb_entities_destroy(s->entities);
    rb_world_destroy(s->world);
    rb_scene_destroy(s->scene);
    rb_color_table_destroy(s->colors);
    free(s);
}

rb_world *rb_stage_world(const rb_stage *s) { return s->world; }
rb_entities *rb_stage_entities(const rb_stage *s) { return s->entities; }
rb_scene *rb_stage_scene(const rb_stage *s) { return s->scene; }
uint64_t rb_stage_world_number(const rb_stage *s) { return s->world_number; }
rb_debris *rb_stage_debris(const rb_stage *s) { return s->debris; }
rb_color_table *rb_stage_colors(const rb_stage *s) { return s->colors; }

rb_scene_source rb_stage_source(const rb_stage *s) {
    const rb_scene *scene = s->scene && s->scene->has_camera ? s->scene : NULL;
    return (rb_scene_source){.world = s->world,
                             .entities = s->entities,
                             .colors = s->colors,
                             .debris = s->debris,
                             .bookmarks = scene ? scene->bookmarks : NULL,
                             .start = scene ? &scene->start : NULL};
}

/* ---- installing a scene ---- */

static bool same_world(const rb_world_desc *a, const rb_world_desc *b) {
    if (a->particle_radius != b->particle_radius || a->dt != b->dt || a->sleep_speed != b->sleep_speed ||
        a->sleep_time != b->sleep_time || a->plane_count != b->plane_count ||
        a->material.restitution != b->material.restitution || a->material.friction != b->material.friction ||
        a->material.contact_time != b->material.contact_time ||
        a->material.rolling_friction != b->material.rolling_friction || a->contact_slots != b->contact_slots ||
        a->max_bodies != b->max_bodies)
        return false;
    for (int k = 0; k < 3; k++)
        if (a->gravity[k] != b->gravity[k]) return false;
    for (uint32_t i = 0; i < a->plane_count; i++) {
        for (int k = 0; k < 3; k++)
            if (a->planes[i].normal[k] != b->planes[i].normal[k]) return false;
        if (a->planes[i].offset != b->planes[i].offset) return false;
    }
    return true;
}

/* The scene's bodies' ids, the first of the world's (the scene was just
 * built into it), taken before its debris layer is made: gluing an
 * assembly removes its parts' bodies. NULL if out of memory. */
static rb_body_id *scene_ids(const rb_scene *scene, rb_world *world) {
    rb_body_id *ids = calloc(scene->body_count ? scene->body_count : 1, sizeof *ids);
    for (uint32_t b = 0; ids && b < scene->body_count && b < rb_world_body_count(world); b++)
        ids[b] = rb_world_body_id(world, b);
    return ids;
}

/* The colours of the scene's bodies (their ids: scene_ids) in the table,
 * emptied first; the debris layer keeps its pieces', its assemblies' (their
 * first parts') and its emitters' there. */
static void paint(rb_stage *s, const rb_scene *scene, const rb_body_id *ids, rb_debris *debris) {
    rb_color_table_clear(s->colors);
    bool ok = ids != NULL;
    for (uint32_t b = 0; ids && b < scene->body_count; b++)
        ok = (ids[b].generation == 0 || rb_color_table_set(s->colors, ids[b], &scene->bodies[b].colors)) && ok;
    if (!ok)
        rb_log(RB_LOG_WARN, "%s: out of memory for the bodies' colours: some are drawn in their defaults", scene->name);
    if (debris) rb_debris_set_colors(debris, s->colors);
}

/* The scene's debris effects for the world it was just built into. */
static bool make_debris(const rb_scene *scene, rb_entities *entities, bool optional, rb_debris **out, char *err,
                        size_t err_size) {
    *out = rb_scene_debris(scene, entities, err, err_size);
    if (*out || !err[0]) return true;
    if (!optional) return false;
    rb_log(RB_LOG_ERROR, "%s (the scene runs without its debris effects)", err);
    err[0] = '\0';
    return true;
}

/* The world's cap on bodies for a scene: its world.max_bodies, else as many
 * bodies of the scene's mean size as the memory available holds (at most
 * RB_SCENE_MAX_BODIES, at least the scene's own). */
static uint32_t body_cap(const rb_scene *scene, const rb_world_desc *desc) {
    if (desc->max_bodies) return desc->max_bodies;
    const double per_body = scene->body_count ? (double)scene->particle_count / scene->body_count : 27.0;
    uint64_t cap = rb_world_bodies_fitting(desc, per_body);
    if (cap > RB_SCENE_MAX_BODIES) cap = RB_SCENE_MAX_BODIES;
    return cap > scene->body_count ? (uint32_t)cap : scene->body_count;
}

bool rb_stage_fits(const rb_scene *scene, const rb_world_desc *desc, char *err, size_t err_size) {
    char why[768];
    if (desc->max_bodies && scene->body_count > desc->max_bodies) {
        snprintf(err, err_size, "%s: world.max_bodies: %u bodies are fewer than the scene's own %u", scene->name,
                 desc->max_bodies, scene->body_count);
        return false;
    }
    if (rb_world_fits(desc, scene->body_count, scene->particle_count, why, sizeof why)) return true;
    snprintf(err, err_size, "%s: %s", scene->name, why);
    return false;
}

bool rb_stage_install(rb_stage *s, rb_scene *scene, const rb_stage_how *how, uint32_t *added, char *err,
                      size_t err_size) {
    if (added) *added = scene->body_count;
    /* a reset installs a scene that was built before (and holds its memory now) */
    if (scene != s->scene && !rb_stage_fits(scene, &how->world, err, err_size)) {
        rb_scene_destroy(scene);
        return false;
    }
    rb_world *world = s->world;
    rb_entities *entities = s->entities;
    const bool reuse = (how->keep_world || rb_world_body_count(world) == 0) &&
                       same_world(&how->world, rb_world_get_desc(world)) && rb_world_material_count(world) == 1;
    if (added) *added = scene->body_count; /* until the world refuses a body */
    if (reuse) {
        rb_world_clear(world);
    } else {
        char why[512];
        world = rb_world_create(&how->world, why, sizeof why);
        entities = world ? rb_entities_create(s->registry, world) : NULL;
        if (!entities) {
            snprintf(err, err_size, "%s: cannot create the world: %s", scene->name, world ? "out of memory" : why);
            rb_world_destroy(world);
            if (scene != s->scene) rb_scene_destroy(scene);
            return false;
        }
        /* the renderer's meshes of the rows there were (entities.h) */
        for (uint32_t i = 0; i < rb_entities_count(entities) && i < rb_entities_count(s->entities); i++)
            rb_entities_set_mesh(entities, i, rb_entities_get(s->entities, i)->mesh);
    }
    err[0] = '\0';
    rb_world_set_max_bodies(world, body_cap(scene, &how->world));
    const uint32_t took = rb_scene_build(scene, entities, err, err_size);
    if (added) *added = took;
    rb_body_id *ids = scene_ids(scene, world);
    rb_debris *debris = NULL;
    if (took != scene->body_count || !make_debris(scene, entities, how->debris_optional, &debris, err, err_size)) {
        if (!reuse) {
            rb_entities_destroy(entities);
            rb_world_destroy(world);
        } else { /* the emptied world: back to the scene it had, if another */
            char again[512];
            rb_world_clear(world);
            rb_debris_destroy(s->debris);
            s->debris = NULL;
            rb_color_table_clear(s->colors);
            if (s->scene && scene != s->scene) {
                rb_world_set_max_bodies(world, body_cap(s->scene, rb_world_get_desc(world)));
                rb_scene_build(s->scene, s->entities, again, sizeof again);
                rb_body_id *old_ids = scene_ids(s->scene, world);
                make_debris(s->scene, s->entities, true, &s->debris, again, sizeof again);
                paint(s, s->scene, old_ids, s->debris);
                free(old_ids);
            }
        }
        if (scene != s->scene) rb_scene_destroy(scene);
        free(ids);
        return false;
    }
    rb_debris_destroy(s->debris); /* it knows the world it was made for */
    s->debris = debris;
    if (!reuse) {
        rb_entities_destroy(s->entities);
        rb_world_destroy(s->world);
        s->world = world, s->entities = entities;
        s->world_number++;
    }
    paint(s, scene, ids, s->debris);
    free(ids);
    if (scene != s->scene) {
        rb_scene_destroy(s->scene);
        s->scene = scene;
    }
    return true;
}

/* ---- debris ---- */

rb_debris *rb_stage_debris_layer(rb_stage *s, char *err, size_t err_size) {
    static const rb_debris_desc none = {0};
    if (!s->debris && (s->debris = rb_debris_create(&none, s->entities, err, err_size)) != NULL)
        rb_debris_set_colors(s->debris, s->colors);
    return s->debris;
}

void rb_stage_debris_active(const rb_stage *s, uint32_t *emitters, uint32_t *fields) {
    *emitters = *fields = 0;
    if (!s->debris) return;
    const rb_debris_desc *dd = rb_debris_get_desc(s->debris);
    for (uint32_t k = 0; k < dd->emitter_count; k++) *emitters += rb_debris_emitter_active(s->debris, k);
    for (uint32_t k = 0; k < dd->field_count; k++) *fields += rb_debris_field_active(s->debris, k);
}

/* ---- stepping ---- */

bool rb_stage_step(rb_stage *s, uint32_t steps) {
    return s->debris ? rb_debris_step(s->debris, steps) : rb_world_step(s->world, steps);
}

uint32_t rb_stage_steps_to_tick(const rb_stage *s) {
    return s->debris ? rb_debris_steps_to_tick(s->debris) : UINT32_MAX;
}

uint32_t rb_stage_whole_ticks(const rb_stage *s, uint32_t n) {
    if (!s->debris) return n;
    const uint32_t first = rb_debris_steps_to_tick(s->debris), tick = rb_debris_tick_steps(s->debris);
    return n > first ? first + (n - first) / tick * tick : n;
}

void rb_stage_stage_times(const rb_stage *s, double ms[RB_STAGE_COUNT]) {
    if (s->debris)
        rb_debris_stage_times(s->debris, ms);
    else
        rb_world_stage_times(s->world, ms);
}

uint32_t rb_stage_kernel_times(const rb_stage *s, const char *const **names, double *ms, uint32_t capacity) {
    return s->debris ? rb_debris_kernel_times(s->debris, names, ms, capacity)
                     : rb_world_kernel_times(s->world, names, ms, capacity);
}
