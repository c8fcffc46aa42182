/* shapegen.h - small closed triangle meshes made in code, and writers for
 * the formats the mesh plugin reads. Used by tools/meshgen.c (the assets in
 * assets/meshes/) and by the mesh tests (their fixtures). Not part of the
 * program: nothing here runs when Rubble does. */
#ifndef RB_SHAPEGEN_H
#define RB_SHAPEGEN_H

#include <stdbool.h>
#include <stdint.h>

/* A growing indexed triangle mesh; triangles counter-clockwise seen from outside. */
typedef struct rb_gen_mesh {
    float *v; /* vertex_count xyz triples */
    uint32_t vertex_count, vertex_capacity;
    uint32_t *t; /* 3 indices per triangle */
    uint32_t triangle_count, triangle_capacity;
} rb_gen_mesh;

void rb_gen_free(rb_gen_mesh *m);
uint32_t rb_gen_vertex(rb_gen_mesh *m, double x, double y, double z);
void rb_gen_triangle(rb_gen_mesh *m, uint32_t a, uint32_t b, uint32_t c);

/* An axis-aligned box centred on the origin, sides sx, sy, sz (12 triangles). */
void rb_gen_box(rb_gen_mesh *m, double sx, double sy, double sz);
/* A unit-radius icosphere: 20 * 4^subdivisions triangles. */
void rb_gen_icosphere(rb_gen_mesh *m, int subdivisions);
/* A torus around z: ring radius big, tube radius small. */
void rb_gen_torus(rb_gen_mesh *m, double big, double small, int ring_segments, int tube_segments);
/* A solid of revolution around z from a profile of (radius, z) pairs, bottom
 * to top; the first and last radius must be 0 (the poles). */
void rb_gen_lathe(rb_gen_mesh *m, const double *profile, int profile_count, int segments);
/* A tube along the centreline points c (xyz triples) with radii r, closed at
 * both ends by the end points (where r should be 0). */
void rb_gen_tube(rb_gen_mesh *m, const double *c, const double *r, int count, int segments);

/* A chunk of a square prism between two planes: x and z in [-half, half],
 * y from the plane lo to the plane hi, each y = c[0] + c[1] x + c[2] z (they
 * must not meet over the square): 8 corners, 12 triangles, each quad split
 * along the diagonal from the corner (-half, -half), so a chunk's top and
 * the next chunk's bottom on the same plane are the same triangles, turned. */
void rb_gen_prism_chunk(rb_gen_mesh *m, double half, const double lo[3], const double hi[3]);

/* x' = R x + t for the row-major 3x3 R. */
void rb_gen_transform(rb_gen_mesh *m, const double rotation[9], const double translation[3]);
void rb_gen_scale(rb_gen_mesh *m, double sx, double sy, double sz);

/* Writers; false if the file cannot be written. glTF embeds its buffer. */
bool rb_gen_write_off(const rb_gen_mesh *m, const char *path);
bool rb_gen_write_obj(const rb_gen_mesh *m, const char *path);
bool rb_gen_write_stl(const rb_gen_mesh *m, const char *path);
bool rb_gen_write_ply(const rb_gen_mesh *m, const char *path);
bool rb_gen_write_gltf(const rb_gen_mesh *m, const char *path);
/* An OBJ of several parts, each its own object (`o NAME`): a pre-fractured
 * mesh's pieces (plugins/README.md, "pieces"). */
bool rb_gen_write_obj_parts(const rb_gen_mesh *parts, const char *const *names, uint32_t count, const char *path);
/* The writer for path's extension (.obj .stl .ply .gltf; anything else OFF). */
bool rb_gen_write(const rb_gen_mesh *m, const char *path);

#endif
