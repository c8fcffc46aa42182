/* fracture.h - breakable bodies' pieces: fracture patterns, the bonds
 * between pieces, and splitting a body into new bodies when bonds break
 * (docs/debris.md, "Breakable bodies").
 *
 * A breakable body's particles are grouped into pieces by a pattern; two
 * pieces are bonded where a particle of one touches a particle of the other
 * (centres within 2 r, with a little slack for rounding). Each bond holds up
 * to `strength` newtons; a piece holds to the rest of its body with the sum
 * of its bonds. The step measures each piece's load (src/sim: the world's
 * pieces); when a piece's load passes what its bonds hold, its bonds break,
 * and each connected group of pieces left becomes a body of its own
 * (rb_split). All of this is pure geometry and mechanics on the host: no
 * world, no backend. */
#ifndef RB_FRACTURE_H
#define RB_FRACTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/world.h"

typedef enum rb_fracture_kind {
    RB_FRACTURE_VORONOI = 0, /* `pieces` seeds drawn from `seed`, moved to even the pieces; each joins the nearest */
    RB_FRACTURE_LAYERS,      /* `pieces` slabs of equal thickness across the body's longest axis */
    RB_FRACTURE_PARTICLES,   /* every particle a piece: it crumbles */
    RB_FRACTURE_GIVEN,       /* the piece of each particle given (a shape plugin's) */
    RB_FRACTURE_SLICES,      /* `pieces` slabs of equal thickness across the body along `normal` */
    RB_FRACTURE_RADIAL,      /* `wedges` sectors about the axis `normal`, each cut in `rings` bands: glass */
} rb_fracture_kind;

/* The strength of a bond when a scene names none, N: a 1.2 m cube of 27
 * particles in `voronoi 8` pieces breaks landing on a corner from 5 m and
 * not from 0.5 m (tests/test_breaking.c measures both). */
#define RB_FRACTURE_STRENGTH 600000.0f

/* The largest wedges times rings a radial pattern may ask for. */
#define RB_FRACTURE_MAX_CELLS 1000000u

typedef struct rb_fracture_desc {
    rb_fracture_kind kind;
    uint32_t pieces; /* voronoi, layers, slices: how many (clamped to the particle count, said in a warning) */
    uint64_t seed;   /* voronoi; radial: the wedges' turn and jitter */
    float strength;  /* N a bond holds, > 0 */
    /* slices: the planes' normal; radial: the axis. Shape frame (principal,
     * centre of mass at the origin), any length but 0: it is normalised. */
    float normal[3];
    float centre[3];        /* radial: a point of the axis, shape frame, m (if centre_given) */
    bool centre_given;      /* radial: false: the axis runs through the particles' centre of mass */
    uint32_t wedges, rings; /* radial: >= 1 each, wedges x rings <= RB_FRACTURE_MAX_CELLS */
    /* voronoi: at the break the body's pieces are drawn again about the hit
     * (rb_pieces_make_at), seeds densest there; before it, plain voronoi. */
    bool impact;
    float focus; /* impact: m, how far from the hit seeds are densest; 0: a quarter of the farthest particle */
    /* Two pieces are bonded where particles of theirs are within this many
     * particle diameters; 0: 1.01 (touching, with a little slack for
     * rounding). Glued parts (debris.h, rb_debris_glue) reach across the
     * small gaps generators leave between bodies. */
    float bond_reach;
} rb_fracture_desc;

/* A radial pattern's regions (rb_pieces.radial): `wedges` sectors about an
 * axis, each cut into `rings` bands. A ring's edge is not a circle but a
 * polygon with a corner on the circle every RB_RADIAL_STEP of angle at most
 * (a wedge's corners evenly spread across it), so that each piece's region
 * is a prism of straight sides the cut can follow exactly, and glass's
 * spider-web look comes with it. A point's polygonal radius is its distance
 * from the axis times cos(its angle from the middle of its corner's span) /
 * cos(half the span): on the polygon through corners at radius R, it is R. */
typedef struct rb_radial {
    double centre[3], axis[3]; /* a point of the axis and its direction (unit), shape frame */
    double u[3], v[3];         /* across the axis, unit: angle 0 along u, pi / 2 along v */
    double start;              /* rad: where wedge 0 begins */
    double *bound;             /* wedges + 1 angles from start: 0 = bound[0] < ... < bound[wedges] = 2 pi */
    uint32_t wedges, rings;
    double band; /* m: ring j spans polygonal radii j band to (j + 1) band; the last goes on out */
    uint32_t *cell; /* per piece: wedge x rings + ring */
} rb_radial;

/* The most angle between two corners of a radial pattern's rings, rad (1/64 of a turn). */
#define RB_RADIAL_STEP (6.283185307179586 / 64.0)

/* The corner spans in wedge w of a radial pattern. */
uint32_t rb_radial_spans(const rb_radial *rad, uint32_t w);
/* The wedge and ring of a point x (shape frame, m) of a radial pattern. */
void rb_radial_place(const rb_radial *rad, const double x[3], uint32_t *wedge, uint32_t *ring);

/* A body's pieces, in its shape's frame (particle offsets from the centre of mass). */
typedef struct rb_pieces {
    uint32_t particle_count, piece_count;
    uint32_t *piece_of; /* per particle: its piece, 0 .. piece_count - 1 */
    float *mass;        /* per piece, kg */
    float *centre;      /* per piece, xyz: its centre of mass, shape frame, m */
    uint32_t *bonds;    /* bond_count pairs (a, b), a < b, sorted */
    uint32_t bond_count;
    float strength; /* N a bond holds */
    float radius;   /* m, the particles': rb_pieces_restrict finds a child's bonds with it */
    float bond_reach; /* rb_fracture_desc.bond_reach, which it finds them with too */
    float *holds;   /* per piece: strength times its bonds, N (0 for a piece with none) */
    /* voronoi, layers, slices: per piece xyz, shape frame, m: its region
     * is the Voronoi cell of this point (the points nearer it than any
     * other piece's), and it holds the piece's particles' centres:
     * voronoi's seed (a point, not a particle's centre, but an impact
     * pattern's), or a point on the slabs' axis at the middle of its slab.
     * NULL for the other patterns. The pieces' meshes are cut along these
     * cells (src/scenes/cut.h). */
    float *seeds;
    /* radial: the pieces' regions (above); NULL for the other patterns.
     * Patterns with neither (particles, given) have no regions: their
     * pieces are drawn as their particles' cells. */
    rb_radial *radial;
} rb_pieces;

/* Groups the n particles at offsets (xyz triples, m) of radius r and mass m
 * each into pieces by desc (given: piece indices in `given`, any values,
 * renumbered 0.. in order of first appearance). False with the reason in err
 * (bad desc, out of memory). */
bool rb_pieces_make(const float *offsets, uint32_t n, float r, float m, const rb_fracture_desc *desc,
                    const uint32_t *given, rb_pieces *out, char *err, size_t err_size);
void rb_pieces_free(rb_pieces *p);

/* The pieces of an impact pattern (desc->impact, voronoi) formed about
 * `hit` (shape frame, m): `pieces` seed particles drawn from `seed` with a
 * density 1 / (1 + (d / focus)^2) at a distance d from the hit, never under
 * 1/64 of that at the hit, so pieces are small there and large far away
 * (the seeds are not moved to even the pieces, as plain voronoi's are).
 * Otherwise as rb_pieces_make (which, for an impact pattern, makes the
 * plain voronoi pieces the body carries until it breaks). */
bool rb_pieces_make_at(const float *offsets, uint32_t n, float r, float m, const rb_fracture_desc *desc,
                       const float hit[3], rb_pieces *out, char *err, size_t err_size);

/* A new body made of some of a breaking body's particles. */
typedef struct rb_split_child {
    uint32_t particle_count;
    float *particles;          /* xyz offsets from its centre of mass, in its principal frame */
    uint32_t *parent;          /* per particle: its index in the parent's particles */
    float centre[3];           /* its centre of mass in the parent's shape frame, m */
    float axes[9];             /* R, row-major: its principal axes in the parent's shape frame, the columns;
                                  a parent offset p is R^T (p - centre) in the child's frame */
    float mass, inertia[3];    /* kg; principal moments, kg m^2 */
    float position[3];         /* world, its centre of mass */
    float orientation[4];      /* world, x y z w: parent's orientation times its principal frame's */
    float velocity[3];         /* the parent's velocity at its centre: v + w x r */
    float angular_velocity[3]; /* the parent's */
} rb_split_child;

/* Splits a body whose pieces `broken` (per piece) lost all their bonds:
 * each connected group of pieces (over the bonds left) becomes a child,
 * with the parent's motion at that place, so that the children's linear
 * and angular momentum sum to the parent's (exactly, but for rounding).
 * parent: the body's state (position, orientation, velocity, angular
 * velocity); offsets, r, m as for rb_pieces_make. Returns the number of
 * children (1: nothing to split, and *children is NULL), or 0 with the
 * reason in err. The caller frees with rb_split_free. */
uint32_t rb_split(const rb_pieces *p, const float *offsets, float r, float m, const bool *broken,
                  const rb_body_state *parent, rb_split_child **children, char *err, size_t err_size);
void rb_split_free(rb_split_child *children, uint32_t count);

/* One body of n particles at points (xyz triples, m, any frame: the
 * parent's, at rest at its origin) of radius r and mass m each, as rb_split
 * makes a child: its mass properties, principal frame (centre, axes,
 * orientation in the points' frame) and its particles in that frame; no
 * motion. False if out of memory (out empty). The caller frees out->particles and out->parent. */
bool rb_gather(const float *points, uint32_t n, float r, float m, rb_split_child *out);

/* The pieces a child keeps: the parent's pieces restricted to the child's
 * particles (bonds among them only), for a child that can break again. */
bool rb_pieces_restrict(const rb_pieces *parent, const rb_split_child *child, rb_pieces *out, char *err,
                        size_t err_size);

#endif
