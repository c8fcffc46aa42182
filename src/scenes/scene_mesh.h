/* scene_mesh.h - a mesh (shapes.h, rb_mesh) and lists of floats as a scene
 * file holds them (docs/scene-format.md, "shapes"): written with exact
 * floats (base/decimal.h), so a mesh read back is the one written, bit for
 * bit; read with every value checked. Used by the saved shapes
 * (scene_write_shapes.c, scene_read_shapes.c) and by any writer of a mesh
 * into a scene file (the debris layer's per-piece meshes).
 *
 * A mesh is one JSON object:
 *   {"vertices": [x, y, z, ...], "normals": [x, y, z, ...],
 *    "indices": [i, j, k, ...], "inside": [0, 1, ...]}
 * vertices and normals are flat lists of xyz triples, as many normals as
 * vertices; indices three a triangle, each below the vertex count; inside
 * (left out when the mesh has no marks) one 0 or 1 a vertex (rb_mesh.inside).
 * A mesh with no vertices is written {} and read back empty. */
#ifndef RB_SCENE_MESH_H
#define RB_SCENE_MESH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scene_read_internal.h"
#include "shapes/shapes.h"

/* ---- writing ---- */

/* n floats as a JSON list, each the shortest decimal that reads back as it. */
void rb_scene_put_floats(FILE *f, const float *v, uint32_t n);
/* n whole numbers as a JSON list. */
void rb_scene_put_uints(FILE *f, const uint32_t *v, uint32_t n);
/* Mesh m as the object above. False (nothing useful written) if it has a
 * value that is not finite. */
bool rb_scene_put_mesh(FILE *f, const rb_mesh *m);

/* ---- reading (the scene reader's toolkit, scene_read_internal.h) ---- */

/* The list at key of obj: its length into *n, each element a finite number
 * (as a float too) into a new array *out (free it; NULL when n is 0). The
 * length must be a multiple of `group` (3 for xyz triples). Absent: refused
 * if required, else *out NULL and *n 0. Memory is bounded by the list's
 * length, which the file's size bounds. False, failed at the key. */
bool rb_read_floats(rb_reader *r, const cJSON *obj, const char *key, uint32_t group, bool required, float **out,
                    uint32_t *n);
/* The same for whole numbers from 0 to below `limit`. */
bool rb_read_uints(rb_reader *r, const cJSON *obj, const char *key, uint32_t limit, bool required, uint32_t **out,
                   uint32_t *n);
/* A mesh object o (the current key path names it) into out, checked:
 * finite vertices and normals, as many normals as vertices, whole
 * triangles of indices below the vertex count, inside marks 0 or 1 for
 * every vertex. False, failed, out empty. */
bool rb_read_mesh(rb_reader *r, const cJSON *o, rb_mesh *out);

#endif
