/* mesh_load.h - a triangle mesh from a file, through assimp's C API. */
#ifndef RB_MESH_LOAD_H
#define RB_MESH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every triangle of a file's scene, node transforms applied, in file units. */
typedef struct rb_mesh_data {
    uint32_t vertex_count;
    float *positions; /* vertex_count xyz triples */
    float *normals;   /* vertex_count xyz triples, or NULL if the file has none */
    uint32_t triangle_count;
    uint32_t *indices; /* 3 per triangle */
    /* Parts (rb_mesh_load_parts only): each node of the file's scene that
     * holds triangles (an OBJ's `o` or `g` group, a glTF node's mesh, each
     * instance of a mesh its own part), in the order the scene lists them. */
    uint32_t part_count;
    uint32_t *triangle_parts; /* per triangle its part, 0 .. part_count - 1 */
    char (*part_names)[64];   /* per part its node's name ("" if none), for messages */
} rb_mesh_data;

/* Loads path into out (zeroed first). smooth_normals asks assimp for
 * smoothed vertex normals where the file has none. Returns false with a
 * reason in err ("not a mesh assimp can read: ...", "has no triangles").
 * A file with no triangles is an error; non-finite values are left for the
 * voxelizer to find. */
bool rb_mesh_load(const char *path, bool smooth_normals, rb_mesh_data *out, char *err, size_t err_size);
/* The same with the scene's parts kept apart (rb_mesh_data's part fields):
 * the node graph is walked and each node's transform applied to its
 * meshes here, instead of assimp's pre-transforming, which merges the
 * meshes that share a material (as every part of an OBJ does). A node with
 * a mirroring transform has its triangles turned back to face out. */
bool rb_mesh_load_parts(const char *path, bool smooth_normals, rb_mesh_data *out, char *err, size_t err_size);
void rb_mesh_data_free(rb_mesh_data *m);

/* True if the file name ends in an extension this loader reads (.obj, .stl,
 * .ply, .off, .gltf, .glb, .fbx, .dae, .3ds; any case). */
bool rb_mesh_is_mesh_file(const char *name);

#endif
