// cut.cpp - a closed mesh cut into the Voronoi cells of seeds (cut.h): the
// one C++ file of the scenes layer, so CGAL (a minute or more to compile, 8
// with the sanitizers on two busy cores) is built once. voro++ gives each seed's cell, a convex polyhedron; CGAL's
// corefinement clips a copy of the body's mesh to it (the body need not be
// convex: a clip by each face's plane in turn would be the same, one
// corefinement a plane instead of one a cell).
#include "cut.h"

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/clip.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/convex_hull_3.h>
#include <voro++/voro++.hh>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

extern "C" {
#include "base/log.h"
}

namespace {

typedef CGAL::Exact_predicates_inexact_constructions_kernel Kernel;
typedef Kernel::Point_3 Point;
typedef CGAL::Surface_mesh<Point> Mesh;
namespace PMP = CGAL::Polygon_mesh_processing;
typedef std::array<float, 3> Key;

// The body as a CGAL mesh: vertices welded where their positions are equal
// (a flat-shaded mesh gives each face its own), triangles of two equal
// corners dropped. False, with the reason, if it is no closed manifold.
bool to_cgal(const rb_mesh *body, Mesh &mesh, const char **why) {
    std::map<Key, Mesh::Vertex_index> welded;
    std::vector<Mesh::Vertex_index> of(body->vertex_count);
    for (uint32_t i = 0; i < body->vertex_count; i++) {
        const float *p = &body->positions[3 * i];
        const Key key = {p[0], p[1], p[2]};
        auto at = welded.find(key);
        if (at == welded.end()) at = welded.emplace(key, mesh.add_vertex(Point(p[0], p[1], p[2]))).first;
        of[i] = at->second;
    }
    for (uint32_t t = 0; t + 2 < body->index_count; t += 3) {
        const Mesh::Vertex_index a = of[body->indices[t]], b = of[body->indices[t + 1]], c = of[body->indices[t + 2]];
        if (a == b || b == c || a == c) continue;
        if (mesh.add_face(a, b, c) == Mesh::null_face()) {
            *why = "the mesh is not a manifold (an edge of more than two triangles, or one wound both ways)";
            return false;
        }
    }
    if (mesh.number_of_faces() == 0) {
        *why = "the mesh has no triangles";
        return false;
    }
    if (!CGAL::is_closed(mesh)) {
        *why = "the mesh is not closed (it has holes)";
        return false;
    }
    if (PMP::does_self_intersect(mesh)) {
        *why = "the mesh intersects itself";
        return false;
    }
    if (!PMP::is_outward_oriented(mesh)) PMP::reverse_face_orientations(mesh);
    return true;
}

// The body's normals by position: a vertex the cut keeps takes the one of
// its position's normals nearest its face's.
typedef std::multimap<Key, std::array<float, 3>> Normals;

// A triangle's plane, the cut's cells' faces: n . x = d, n of unit length.
struct Plane {
    double n[3], d;
};

// The planes of a closed triangle mesh's faces (a clipper's), outward.
std::vector<Plane> face_planes(const Mesh &m) {
    std::vector<Plane> planes;
    for (Mesh::Face_index f : m.faces()) {
        Point p[3];
        int k = 0;
        for (Mesh::Vertex_index w : CGAL::vertices_around_face(m.halfedge(f), m)) p[k++] = m.point(w);
        const Kernel::Vector_3 n = CGAL::cross_product(p[1] - p[0], p[2] - p[0]);
        const double len = std::sqrt(n.squared_length());
        if (!(len > 0.0)) continue;
        Plane pl = {{n.x() / len, n.y() / len, n.z() / len}, 0.0};
        pl.d = pl.n[0] * p[0].x() + pl.n[1] * p[0].y() + pl.n[2] * p[0].z();
        planes.push_back(pl);
    }
    return planes;
}

// Seed k's Voronoi cell as a closed triangle mesh, the convex hull of the
// cell's corners, and its faces' planes. voro++ may split a corner where
// four cells or more meet (on a lattice, often) into corners a rounding
// apart: snapped to a grid of `grid` m first, they are one, and the hull
// has no sliver faces.
bool cell_mesh(voro::voronoicell &cell, const double seed[3], double grid, Mesh &out, std::vector<Plane> &planes) {
    std::vector<double> v;
    cell.vertices(seed[0], seed[1], seed[2], v);
    std::vector<Point> corners;
    for (size_t i = 0; i + 2 < v.size(); i += 3)
        corners.push_back(Point(std::nearbyint(v[i] / grid) * grid, std::nearbyint(v[i + 1] / grid) * grid,
                                std::nearbyint(v[i + 2] / grid) * grid));
    if (corners.size() < 4) return false;
    CGAL::convex_hull_3(corners.begin(), corners.end(), out);
    if (out.number_of_faces() < 4 || !CGAL::is_closed(out)) return false;
    planes = face_planes(out);
    return true;
}

// Welds the triangles (float corners, three a triangle) where corners are
// equal, and marks in `keep` the triangles left once each pair of the same
// three corners wound opposite ways (a sliver of no volume the rounding
// flattened) is left out. True if what is kept is closed: each edge met
// once each way.
bool closed_in_floats(const std::vector<Key> &corners, std::vector<bool> &keep) {
    std::map<Key, uint32_t> id;
    for (const Key &k : corners) id.emplace(k, (uint32_t)id.size());
    const size_t triangles = corners.size() / 3;
    keep.assign(triangles, true);
    std::map<std::array<uint32_t, 3>, size_t> seen; // corners sorted -> a triangle of them
    for (size_t t = 0; t < triangles; t++) {
        std::array<uint32_t, 3> c = {id[corners[3 * t]], id[corners[3 * t + 1]], id[corners[3 * t + 2]]};
        std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end()); // the turn kept: c[0] least
        const bool even = c[1] < c[2];
        if (!even) std::swap(c[1], c[2]);
        auto at = seen.find(c);
        if (at == seen.end()) {
            seen.emplace(c, even ? t : t | ((size_t)1 << 63));
            continue;
        }
        const size_t other = at->second & ~((size_t)1 << 63);
        const bool other_even = !(at->second >> 63);
        if (other_even == even || !keep[other]) return false; // the same triangle twice, or thrice
        keep[other] = keep[t] = false;
    }
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (size_t t = 0; t < triangles; t++)
        for (int j = 0; keep[t] && j < 3; j++)
            edges.emplace_back(id[corners[3 * t + j]], id[corners[3 * t + (j + 1) % 3]]);
    std::sort(edges.begin(), edges.end());
    for (size_t e = 0; e < edges.size(); e++) {
        if (e > 0 && edges[e] == edges[e - 1]) return false;
        if (!std::binary_search(edges.begin(), edges.end(), std::make_pair(edges[e].second, edges[e].first)))
            return false;
    }
    return !edges.empty();
}

// Why a piece's rb_mesh was not made.
enum Made { MADE, NO_MEMORY, OPEN_IN_FLOATS };

// A clipped piece as an rb_mesh: each triangle its own vertices; a face
// lying in one of the cell's planes (within `tolerance`, m, facing the
// same way) is a cut face, flat and inside; another keeps the body's
// normals at the body's own vertices. A triangle whose corners round to
// the same floats (the clip meets a corner voro++ split a rounding apart)
// is left out, and what is left must be closed still.
Made to_rb(const Mesh &piece, const std::vector<Plane> &planes, double tolerance, const Normals &normals,
           rb_mesh *out) {
    std::vector<Key> corners;
    std::vector<std::array<float, 3>> face_normals;
    std::vector<uint8_t> cut_faces;
    for (Mesh::Face_index f : piece.faces()) {
        Point p[3];
        int k = 0;
        for (Mesh::Vertex_index w : CGAL::vertices_around_face(piece.halfedge(f), piece)) p[k++] = piece.point(w);
        Key q[3];
        for (int j = 0; j < 3; j++) q[j] = Key{(float)p[j].x(), (float)p[j].y(), (float)p[j].z()};
        if (q[0] == q[1] || q[1] == q[2] || q[0] == q[2]) continue;
        const Kernel::Vector_3 c = CGAL::cross_product(p[1] - p[0], p[2] - p[0]);
        const double len = std::sqrt(c.squared_length());
        const double fn[3] = {len > 0.0 ? c.x() / len : 0.0, len > 0.0 ? c.y() / len : 0.0,
                              len > 0.0 ? c.z() / len : 0.0};
        bool cut = false;
        for (const Plane &pl : planes) {
            if (fn[0] * pl.n[0] + fn[1] * pl.n[1] + fn[2] * pl.n[2] < 0.999) continue;
            bool on = true;
            for (int j = 0; j < 3 && on; j++)
                on = std::fabs(pl.n[0] * p[j].x() + pl.n[1] * p[j].y() + pl.n[2] * p[j].z() - pl.d) <= tolerance;
            if (on) {
                cut = true;
                break;
            }
        }
        for (int j = 0; j < 3; j++) corners.push_back(q[j]);
        face_normals.push_back({(float)fn[0], (float)fn[1], (float)fn[2]});
        cut_faces.push_back(cut ? 1 : 0);
    }
    std::vector<bool> keep;
    if (!closed_in_floats(corners, keep)) return OPEN_IN_FLOATS;
    size_t kept = 0; // the triangles kept moved to the front
    for (size_t t = 0; t < keep.size(); t++) {
        if (!keep[t]) continue;
        for (int j = 0; j < 3; j++) corners[3 * kept + j] = corners[3 * t + j];
        face_normals[kept] = face_normals[t], cut_faces[kept] = cut_faces[t];
        kept++;
    }
    corners.resize(3 * kept);
    const uint32_t n = (uint32_t)corners.size();
    out->positions = (float *)malloc(sizeof(float) * 3 * n);
    out->normals = (float *)malloc(sizeof(float) * 3 * n);
    out->indices = (uint32_t *)malloc(sizeof(uint32_t) * n);
    out->inside = (uint8_t *)malloc(n);
    if (!out->positions || !out->normals || !out->indices || !out->inside) return NO_MEMORY;
    out->vertex_count = out->index_count = n;
    for (uint32_t at = 0; at < n; at++) {
        const std::array<float, 3> &fn = face_normals[at / 3];
        const bool cut = cut_faces[at / 3] != 0;
        float nv[3] = {fn[0], fn[1], fn[2]};
        if (!cut) { // the body's normal at its own vertex, the one most like the face's
            double best = 0.5;
            auto range = normals.equal_range(corners[at]);
            for (auto it = range.first; it != range.second; ++it) {
                const std::array<float, 3> &m = it->second;
                const double dot = (double)m[0] * fn[0] + (double)m[1] * fn[1] + (double)m[2] * fn[2];
                if (dot > best) best = dot, std::memcpy(nv, m.data(), sizeof nv);
            }
        }
        std::memcpy(&out->positions[3 * at], corners[at].data(), 3 * sizeof(float));
        std::memcpy(&out->normals[3 * at], nv, sizeof nv);
        out->indices[at] = at;
        out->inside[at] = cut ? 1 : 0;
    }
    return MADE;
}

// Clips a copy of the body's mesh to a closed clipper (its faces' planes
// in `planes`) into out, piece `id`: true if made, else a warning naming
// the shape, the piece and the problem, and out left empty.
bool clip_piece(const Mesh &mesh, Mesh &clipper, const std::vector<Plane> &planes, double tolerance,
                const Normals &normals, const char *name, long id, rb_mesh *out) {
    Mesh piece = mesh;
    bool clipped = false;
    try {
        clipped = PMP::clip(piece, clipper, CGAL::parameters::clip_volume(true));
    } catch (const std::exception &e) {
        rb_log(RB_LOG_WARN, "cut: %s: piece %ld: the clip failed (%s); drawn as its cells", name, id, e.what());
        return false;
    }
    if (!clipped || piece.number_of_faces() == 0 || !CGAL::is_closed(piece)) {
        rb_log(RB_LOG_WARN, "cut: %s: piece %ld: %s; drawn as its cells", name, id,
               !clipped                       ? "the clip failed"
               : piece.number_of_faces() == 0 ? "its region misses the mesh"
                                              : "the clip left it open");
        return false;
    }
    const Made result = to_rb(piece, planes, tolerance, normals, out);
    if (result != MADE) {
        rb_mesh_free(out);
        rb_log(RB_LOG_WARN, "cut: %s: piece %ld: %s; drawn as its cells", name, id,
               result == NO_MEMORY ? "out of memory" : "it is not closed once rounded to floats");
        return false;
    }
    return true;
}

// The body ready to cut: its closed CGAL mesh and its normals by
// position. False, with a warning naming the shape, if it cannot be cut.
bool prepare(const rb_mesh *body, const char *name, Mesh &mesh, Normals &normals) {
    if (!body || body->vertex_count == 0 || body->index_count < 3) {
        rb_log(RB_LOG_WARN, "cut: %s: no mesh to cut; its pieces are drawn as their cells", name);
        return false;
    }
    const char *why = "";
    if (!to_cgal(body, mesh, &why)) {
        rb_log(RB_LOG_WARN, "cut: %s: %s; its pieces are drawn as their cells", name, why);
        return false;
    }
    if (body->normals)
        for (uint32_t i = 0; i < body->vertex_count; i++) {
            const float *p = &body->positions[3 * i], *n = &body->normals[3 * i];
            normals.emplace(Key{p[0], p[1], p[2]}, std::array<float, 3>{n[0], n[1], n[2]});
        }
    return true;
}

// Piece `cell` of a radial pattern's region (fracture.h, rb_radial) as a
// closed mesh: its wedge's polygon between its ring's inner and outer
// polygonal radii (the inner ring from the axis, the outer out to `far`),
// drawn out along the axis from `low` to `high`. Wound outward.
bool radial_prism(const rb_radial *rad, uint32_t cell, double far, double low, double high, Mesh &out) {
    const uint32_t w = cell / rad->rings, j = cell % rad->rings;
    const bool full = rad->wedges == 1, core = j == 0 || !(rad->band > 0.0);
    const double r_in = core ? 0.0 : j * rad->band;
    const double r_out = j + 1 == rad->rings || !(rad->band > 0.0) ? far : (j + 1) * rad->band;
    const uint32_t spans = rb_radial_spans(rad, w), corners = full ? spans : spans + 1;
    const double width = (rad->bound[w + 1] - rad->bound[w]) / spans;
    auto at = [&](double r, double angle, double h) {
        const double cu = r * std::cos(angle), cv = r * std::sin(angle);
        return Point(rad->centre[0] + cu * rad->u[0] + cv * rad->v[0] + h * rad->axis[0],
                     rad->centre[1] + cu * rad->u[1] + cv * rad->v[1] + h * rad->axis[1],
                     rad->centre[2] + cu * rad->u[2] + cv * rad->v[2] + h * rad->axis[2]);
    };
    // outer corners and inner ones (or the axis), bottom and top
    std::vector<Mesh::Vertex_index> ob, ot, ib, it;
    for (uint32_t i = 0; i < corners; i++) {
        const double angle = rad->start + rad->bound[w] + i * width;
        ob.push_back(out.add_vertex(at(r_out, angle, low)));
        ot.push_back(out.add_vertex(at(r_out, angle, high)));
        if (!core) {
            ib.push_back(out.add_vertex(at(r_in, angle, low)));
            it.push_back(out.add_vertex(at(r_in, angle, high)));
        }
    }
    if (core) {
        ib.assign(corners, out.add_vertex(at(0.0, 0.0, low)));
        it.assign(corners, out.add_vertex(at(0.0, 0.0, high)));
    }
    bool ok = true;
    auto face = [&](Mesh::Vertex_index a, Mesh::Vertex_index b, Mesh::Vertex_index c) {
        ok = ok && out.add_face(a, b, c) != Mesh::null_face();
    };
    for (uint32_t i = 0; i < spans; i++) {
        const uint32_t n = (i + 1) % corners;
        face(ob[i], ob[n], ot[n]), face(ob[i], ot[n], ot[i]); // the outer wall
        face(ot[i], ot[n], it[n]), face(ib[i], ob[n], ob[i]); // top and bottom caps (fans about the axis)
        if (!core) {
            face(ot[i], it[n], it[i]), face(ib[i], ib[n], ob[n]);
            face(ib[i], it[n], ib[n]), face(ib[i], it[i], it[n]); // the inner wall
        }
    }
    if (!full) { // the wedge's sides
        face(ib[0], ob[0], ot[0]), face(ib[0], ot[0], it[0]);
        face(ib[spans], ot[spans], ob[spans]), face(ib[spans], it[spans], ot[spans]);
    }
    if (!ok || !CGAL::is_closed(out)) return false;
    if (!PMP::is_outward_oriented(out)) PMP::reverse_face_orientations(out);
    return true;
}

} // namespace

extern "C" uint32_t rb_cut_cells(const rb_mesh *body, const float *seeds, uint32_t count, const char *name,
                                 rb_mesh *out) {
    for (uint32_t k = 0; k < count; k++) std::memset(&out[k], 0, sizeof out[k]);
    if (!name) name = "(unnamed)";
    if (!seeds || count == 0) {
        rb_log(RB_LOG_WARN, "cut: %s: no seeds to cut it by; its pieces are drawn as their cells", name);
        return 0;
    }
    uint32_t made = 0;
    try {
        Mesh mesh;
        Normals normals;
        if (!prepare(body, name, mesh, normals)) return 0;
        // voro++'s box: the mesh's and the seeds' bounds, grown so that no
        // wall of it comes near the mesh
        double lo[3], hi[3];
        for (int a = 0; a < 3; a++) lo[a] = hi[a] = seeds[a];
        for (Mesh::Vertex_index v : mesh.vertices())
            for (int a = 0; a < 3; a++)
                lo[a] = std::min(lo[a], mesh.point(v)[a]), hi[a] = std::max(hi[a], mesh.point(v)[a]);
        for (uint32_t k = 0; k < count; k++)
            for (int a = 0; a < 3; a++)
                lo[a] = std::min(lo[a], (double)seeds[3 * k + a]), hi[a] = std::max(hi[a], (double)seeds[3 * k + a]);
        double size = 0.0;
        for (int a = 0; a < 3; a++) size = std::max(size, hi[a] - lo[a]);
        const double margin = 0.25 * size + 1e-3;
        const int blocks = std::max(1, (int)std::cbrt(count / 5.0));
        voro::container box(lo[0] - margin, hi[0] + margin, lo[1] - margin, hi[1] + margin, lo[2] - margin,
                            hi[2] + margin, blocks, blocks, blocks, false, false, false, 8);
        for (uint32_t k = 0; k < count; k++) box.put((int)k, seeds[3 * k], seeds[3 * k + 1], seeds[3 * k + 2]);
        std::vector<bool> cell_made(count, false);
        voro::c_loop_all loop(box);
        voro::voronoicell cell;
        if (loop.start()) do {
                const int id = loop.pid();
                if (id < 0 || (uint32_t)id >= count || !box.compute_cell(cell, loop)) continue;
                cell_made[id] = true;
                double seed[3];
                loop.pos(seed[0], seed[1], seed[2]);
                Mesh clipper;
                std::vector<Plane> planes;
                if (!cell_mesh(cell, seed, 1e-6 * size, clipper, planes)) {
                    rb_log(RB_LOG_WARN, "cut: %s: piece %d: its cell is degenerate; drawn as its cells", name, id);
                    continue;
                }
                if (clip_piece(mesh, clipper, planes, 1e-6 * size, normals, name, id, &out[id])) made++;
            } while (loop.inc());
        for (uint32_t k = 0; k < count; k++)
            if (!cell_made[k])
                rb_log(RB_LOG_WARN, "cut: %s: piece %u: voro++ made no cell for its seed; drawn as its cells", name, k);
    } catch (const std::exception &e) {
        rb_log(RB_LOG_WARN, "cut: %s: %s; its pieces are drawn as their cells", name, e.what());
        for (uint32_t k = 0; k < count; k++) rb_mesh_free(&out[k]);
        return 0;
    }
    return made;
}

extern "C" uint32_t rb_cut_radial(const rb_mesh *body, const rb_radial *rad, uint32_t count, const char *name,
                                  rb_mesh *out) {
    for (uint32_t k = 0; k < count; k++) std::memset(&out[k], 0, sizeof out[k]);
    if (!name) name = "(unnamed)";
    if (!rad || !rad->cell || count == 0) {
        rb_log(RB_LOG_WARN, "cut: %s: no wedges and rings to cut it by; its pieces are drawn as their cells", name);
        return 0;
    }
    uint32_t made = 0;
    try {
        Mesh mesh;
        Normals normals;
        if (!prepare(body, name, mesh, normals)) return 0;
        // the mesh's reach from the axis and along it: the prisms go past both
        double far = 0.0, low = INFINITY, high = -INFINITY, size = 0.0;
        for (Mesh::Vertex_index v : mesh.vertices()) {
            double d[3];
            for (int a = 0; a < 3; a++) d[a] = mesh.point(v)[a] - rad->centre[a];
            const double h = d[0] * rad->axis[0] + d[1] * rad->axis[1] + d[2] * rad->axis[2];
            for (int a = 0; a < 3; a++) d[a] -= h * rad->axis[a];
            far = std::max(far, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            low = std::min(low, h), high = std::max(high, h);
        }
        size = std::max(2.0 * far, high - low);
        const double margin = 0.25 * size + 1e-3;
        for (uint32_t k = 0; k < count; k++) {
            Mesh clipper;
            if (!radial_prism(rad, rad->cell[k], 2.0 * far + margin, low - margin, high + margin, clipper)) {
                rb_log(RB_LOG_WARN, "cut: %s: piece %u: its region is degenerate; drawn as its cells", name, k);
                continue;
            }
            if (clip_piece(mesh, clipper, face_planes(clipper), 1e-6 * size, normals, name, k, &out[k])) made++;
        }
    } catch (const std::exception &e) {
        rb_log(RB_LOG_WARN, "cut: %s: %s; its pieces are drawn as their cells", name, e.what());
        for (uint32_t k = 0; k < count; k++) rb_mesh_free(&out[k]);
        return 0;
    }
    return made;
}

extern "C" uint32_t rb_cut_pieces(const rb_mesh *body, const rb_pieces *p, const char *name, rb_mesh *out) {
    if (p->seeds) return rb_cut_cells(body, p->seeds, p->piece_count, name, out);
    if (p->radial) return rb_cut_radial(body, p->radial, p->piece_count, name, out);
    for (uint32_t k = 0; k < p->piece_count; k++) std::memset(&out[k], 0, sizeof out[k]);
    return 0;
}
