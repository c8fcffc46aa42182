/* cut.h - a breakable body's render mesh cut into its pieces' regions
 * (docs/debris.md, "Breakable bodies", "The pieces' meshes").
 *
 * A piece's region is the Voronoi cell of its seed (rb_pieces.seeds): the
 * points nearer that seed than any other, as the pattern groups the
 * particles; or, for a radial pattern, the prism of its wedge and ring
 * (rb_pieces.radial). Each cell (voro++) or prism clips a copy of the body's closed mesh
 * (CGAL's corefinement), so a piece's mesh is closed and its faces are the
 * body's surface where it had one and flat cut faces inside. The geometry
 * is in cut.cpp, the one C++ file of this layer, behind this interface. */
#ifndef RB_CUT_H
#define RB_CUT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "fracture.h"
#include "shapes/shapes.h"

/* Cuts `body` (a closed triangle mesh, m) into the Voronoi cells of `count`
 * seeds (xyz, m, the body's frame): out[k] is the part of the body in seed
 * k's cell, closed, each triangle its own three vertices, wound
 * counter-clockwise from outside; a vertex on the body's surface keeps the
 * body's normal where it has one there, any other the flat normal of its
 * triangle; `inside` (per vertex) is 1 on the faces the cut made. A piece
 * that could not be cut (its cell misses the mesh, or the clip fails) is
 * left empty (vertex_count 0) with a warning naming `name` and the
 * problem; a body that cannot be cut at all (not closed, not a manifold,
 * self-intersecting) leaves every piece empty, with one warning. Returns
 * the number of pieces made. Free each with rb_mesh_free. */
uint32_t rb_cut_cells(const rb_mesh *body, const float *seeds, uint32_t count, const char *name, rb_mesh *out);

/* The same for a radial pattern's pieces (fracture.h, rb_radial): piece k
 * is the part of the body in the prism of its wedge and ring, cell
 * rad->cell[k], whose sides are the wedge's planes and the ring's polygons. */
uint32_t rb_cut_radial(const rb_mesh *body, const rb_radial *rad, uint32_t count, const char *name, rb_mesh *out);

/* A body's pieces cut along their pattern's regions: its seeds' cells
 * (voronoi, layers, slices) or its wedges and rings (radial); out has
 * p->piece_count meshes. A pattern with no regions (particles, given) makes
 * none (returns 0, no warning). */
uint32_t rb_cut_pieces(const rb_mesh *body, const rb_pieces *p, const char *name, rb_mesh *out);

#ifdef __cplusplus
}
#endif

#endif
