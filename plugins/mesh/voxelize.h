/* voxelize.h - fills a triangle mesh with particles, one per voxel inside it
 * (Harada, GPU Gems 3, 29.1.3), solid or surface-only (29.2.9).
 *
 * "Inside" is decided by the generalized winding number (Jacobson et al.
 * 2013) at each voxel centre, after the triangles are oriented consistently,
 * so meshes with holes or flipped triangles still fill. The winding number is
 * summed over a bounding volume hierarchy, far clusters by their dipole term
 * (Barill et al. 2018), so a 75k-triangle mesh voxelizes in a fraction of a
 * second.
 *
 * Units: the mesh is in any unit ("mesh units"); particles come out in units
 * of the particle diameter (= the voxel edge), centred on the mesh's bounding
 * box centre. rb_voxels.centre and .cell map a mesh point v to the same frame:
 * (v - centre) / cell. Depends only on the C library. */
#ifndef RB_VOXELIZE_H
#define RB_VOXELIZE_H

#include <stdbool.h>
#include <stdint.h>

/* What to voxelize and how. Zero fields take the defaults. */
typedef struct rb_vox_desc {
    const float *positions; /* vertex_count xyz triples, mesh units */
    uint32_t vertex_count;
    const uint32_t *indices; /* 3 vertex indices per triangle */
    uint32_t triangle_count;
    uint32_t resolution;    /* voxels (particles) across the longest bounding box side; 0 = 10 */
    bool surface_only;      /* keep only inside voxels with an outside face neighbour (Harada 29.2.9) */
    uint32_t max_particles; /* refuse more than this; 0 = 65536 (RB_PLUGIN_MAX_PARTICLES) */
    /* Parts (a pre-fractured mesh: each part a closed mesh of its own, the
     * union the body): per triangle its part, 0 .. part_count - 1; NULL: one
     * part. With parts each part's triangles are oriented on their own (a
     * cut face two parts share turns with neither), the union is voxelized
     * as without, and each particle is given to the part whose winding
     * number at its centre is the largest (rb_voxels.parts). */
    const uint32_t *triangle_parts;
    uint32_t part_count;
} rb_vox_desc;

/* Why a mesh gave no particles. */
typedef enum rb_vox_result {
    RB_VOX_OK = 0,
    RB_VOX_NO_TRIANGLES, /* triangle_count == 0 */
    RB_VOX_BAD_INDEX,    /* an index >= vertex_count */
    RB_VOX_NON_FINITE,   /* a NaN or infinite vertex coordinate */
    RB_VOX_FLAT,         /* zero extent along some axis, or zero enclosed volume */
    RB_VOX_NONE_INSIDE,  /* no voxel centre is inside at this resolution */
    RB_VOX_TOO_MANY,     /* more particles than max_particles (or an absurd grid) */
    RB_VOX_NO_MEMORY,
    RB_VOX_BAD_PART, /* a triangle_parts value >= part_count */
    RB_VOX_RESULT_COUNT
} rb_vox_result;

/* A sentence fragment for log lines: "has no triangles". */
const char *rb_vox_result_text(rb_vox_result r);

typedef struct rb_voxels {
    uint32_t count;       /* particles */
    float *particles;     /* count xyz triples, diameter units, relative to centre */
    double centre[3];     /* mesh units: the bounding box centre, the particle frame's origin */
    double cell;          /* mesh units per diameter: the voxel edge */
    uint32_t dims[3];     /* voxels along x, y, z; dims of the longest side == resolution */
    uint32_t solid_count; /* inside voxels before any surface-only thinning */
    double estimate;      /* RB_VOX_TOO_MANY: the particle count that was refused (maybe estimated) */
    uint32_t flipped;     /* triangles whose orientation was reversed to agree with their neighbours */
    uint32_t open_edges;  /* edges of only one triangle: a closed mesh has none (with parts: within a part) */
    uint32_t crowded_edges; /* edges of more than two triangles (within a part): surfaces touching along them */
    /* With parts (rb_vox_desc.triangle_parts), after RB_VOX_OK: */
    uint32_t *parts;          /* per particle: the part that holds its centre (the largest winding number) */
    uint32_t *part_particles; /* per part: how many particles it holds (0: too small at this resolution) */
    uint32_t overlaps;        /* particles whose centre is inside a second part too (its winding >= 0.6 there) */
    uint32_t overlap_particle, overlap_parts[2]; /* the first of those, and the two parts */
    uint32_t orphans;         /* particles inside the union in no part (the winding under 0.4 in every part) */
    uint32_t orphan_particle; /* the first of those */
} rb_voxels;

/* Voxelizes d into out (zeroed first). On failure out holds no particles but
 * its grid fields say what was tried. Free with rb_voxels_free(). */
rb_vox_result rb_voxelize(const rb_vox_desc *d, rb_voxels *out);
void rb_voxels_free(rb_voxels *v);

/* The orientation repair rb_voxelize() does first, for tools: writes the
 * triangles (3 indices each) into out with each connected patch turned to
 * agree across its shared edges and to enclose positive volume. Returns the
 * number of triangles turned, or -1 without memory; open_edges (may be NULL)
 * gets the count of edges with only one triangle. Indices must be valid. */
long rb_vox_orient(const float *positions, uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count,
                   uint32_t *out, uint32_t *open_edges);
/* The same, each part's triangles on their own (triangle_parts: per
 * triangle its part; NULL: one part): an edge joins two triangles only
 * within a part. */
long rb_vox_orient_parts(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                         uint32_t triangle_count, const uint32_t *triangle_parts, uint32_t *out, uint32_t *open_edges);

/* The generalized winding number of a triangle soup, for tests and tools:
 * about 1 inside a closed outward-oriented mesh, 0 outside, 1/2 on a hole.
 * The triangles are used as given (no orientation repair). */
typedef struct rb_winding rb_winding;
rb_winding *rb_winding_create(const float *positions, const uint32_t *indices, uint32_t triangle_count);
double rb_winding_at(const rb_winding *w, const double point[3]);
/* The same sum without the hierarchy: every triangle exactly. Slow; the reference. */
double rb_winding_exact(const float *positions, const uint32_t *indices, uint32_t triangle_count,
                        const double point[3]);
void rb_winding_destroy(rb_winding *w);

#endif
