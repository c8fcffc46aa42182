/* scene_write_internal.h - what the scene writer (scene_save.c) takes from its
 * parts, private to src/scenes: scene_write_shapes.c writes a saved
 * world's own shapes (`shapes`) and a breakable body's world piece state
 * (a body's `pieces`), docs/scene-format.md. */
#ifndef RB_SCENE_WRITE_INTERNAL_H
#define RB_SCENE_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scene.h"

/* The names the world shapes with no entity row were written under. */
typedef struct rb_saved_shapes {
    char (*names)[RB_SCENE_NAME_SIZE]; /* by world shape; "": not written */
    uint32_t size;
} rb_saved_shapes;

/* Writes `  "shapes": [...],` for the world shapes with no entity row that
 * the world's bodies have (nothing when there are none), in world shape
 * order, each with its particles, mass, inertia, radius and the mesh the
 * debris layer keeps for it (source->debris; none: no mesh), named
 * "piece N" (N its world shape index) unless a registry shape has that
 * name. Their names into out (free with rb_saved_shapes_free). False with
 * the reason in err. */
bool rb_scene_write_shapes(FILE *f, const rb_scene_source *source, rb_saved_shapes *out, char *err, size_t err_size);
/* The name world shape ws was written under, or NULL. */
const char *rb_saved_shape_name(const rb_saved_shapes *names, uint32_t world_shape);
void rb_saved_shapes_free(rb_saved_shapes *names);

/* Writes `, "pieces": {...}` for body id if the world holds pieces of it
 * (rb_world_set_pieces): each particle's piece, the pieces' centres, masses
 * and holds, their largest loads so far and whether its break was taken;
 * nothing for a body that is not breakable. False with the reason in err. */
bool rb_scene_write_pieces(FILE *f, rb_world *w, rb_body_id id, uint32_t world_shape, char *err, size_t err_size);

#endif
