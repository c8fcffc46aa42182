/* shapes.h - the shape registry: shapes from plugins, with mass properties.
 *
 * A plugin gives particle centres in diameter units. The registry scales them
 * by the shape's particle diameter (the plugin's particle_diameter, else the
 * registry's), computes mass, centre of mass and inertia
 * (each particle a solid sphere), and moves the particles and the render mesh
 * into the principal frame: centre of mass at the origin, inertia diagonal. */
#ifndef RB_SHAPES_H
#define RB_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "rubble_plugin.h" /* the plugin ABI: plugins/ is on rubble_shapes' include path */

/* Why a plugin or one of its shapes was refused. */
typedef enum rb_load_result {
    RB_LOAD_OK = 0,
    RB_LOAD_CANNOT_OPEN,    /* dlopen failed: the dlerror() text is logged */
    RB_LOAD_NO_ENTRY,       /* no rb_plugin_entry symbol */
    RB_LOAD_ENTRY_FAILED,   /* rb_plugin_entry returned NULL */
    RB_LOAD_ABI_MISMATCH,   /* abi_version or struct_size the host cannot read */
    RB_LOAD_NO_SHAPES,      /* the plugin offered no (valid) shape */
    RB_LOAD_NO_PARTICLES,   /* a shape with particle_count 0 or NULL particles */
    RB_LOAD_NON_FINITE,     /* a particle or vertex coordinate is NaN or infinite */
    RB_LOAD_OVERLAP,        /* two particles closer than one diameter */
    RB_LOAD_TOO_MANY,       /* more than RB_PLUGIN_MAX_PARTICLES */
    RB_LOAD_BAD_MESH,       /* indices out of range or not a multiple of 3 */
    RB_LOAD_DUPLICATE_NAME, /* a shape of that name is already registered */
    RB_LOAD_BAD_NAME,       /* no name, or one with spaces or over 63 characters */
    RB_LOAD_BAD_SIZE,       /* particle_diameter not 0 and not in [RB_MIN_DIAMETER, RB_MAX_DIAMETER] */
    RB_LOAD_RESULT_COUNT
} rb_load_result;

const char *rb_load_result_name(rb_load_result r);

/* The particle diameters (m) a plugin may give a shape (rb_shape_desc.particle_diameter). */
#define RB_MIN_DIAMETER 1e-4f
#define RB_MAX_DIAMETER 1e3f

/* A triangle mesh, in metres, in the shape's principal frame. */
typedef struct rb_mesh {
    uint32_t vertex_count; /* 0: no mesh, draw the particles */
    float *positions;      /* xyz triples */
    float *normals;        /* xyz triples */
    uint32_t index_count;
    uint32_t *indices;
    uint8_t *inside; /* per vertex: 1 on a face a cut made inside a broken body (src/scenes/cut.h); NULL: none */
} rb_mesh;

typedef struct rb_shape {
    char name[64];
    char plugin[64]; /* the plugin's name */
    char description[160];
    uint32_t particle_count;
    float *particles;      /* xyz triples, m, principal frame */
    float mass;            /* kg */
    float inertia[3];      /* principal moments, kg m^2 */
    float particle_radius; /* m: the shape's own (the plugin's particle_diameter / 2), else the registry's */
    float bounding_radius; /* m, farthest particle centre + radius */
    rb_mesh mesh;
    uint32_t *pieces; /* per particle, its piece as the plugin gives it (rb_shape_desc.pieces); NULL: none */
    /* A pre-fractured mesh's parts (rb_shape_desc.triangle_pieces): part k's
     * triangles of `mesh`, in the same frame, the mesh a piece numbered
     * part_piece[k] (as `pieces` numbers them) is drawn with when a body of
     * the shape breaks; `inside` marks the faces a part shares with another
     * (the artist's cuts). part_count 0: none (a piece with no triangles has
     * no part either). */
    uint32_t part_count;
    rb_mesh *parts;
    uint32_t *part_piece;
} rb_shape;

/* Mass properties of equal solid spheres of radius r and mass m at points p
 * (xyz triples): total mass, centre of mass, and the inertia tensor about the
 * centre of mass (row-major 3x3). */
void rb_mass_properties(const float *p, uint32_t n, float radius, float particle_mass, float *mass, float com[3],
                        double inertia[9]);
/* Eigen-decomposition of a symmetric 3x3 matrix (Jacobi): a = R diag(values) R^T,
 * eigenvectors are R's columns, values ascending, R a proper rotation. */
void rb_sym3_eigen(const double a[9], double values[3], double rotation[9]);

/* Half extents (m) of the box around a shape's particles, radius included. */
void rb_shape_half_extents(const rb_shape *shape, float half[3]);

/* The surface of a set of particles' voxel cells, for a body that has no
 * mesh of its own (a piece of a broken body): a cube of side one lattice
 * step (the particles' spacing, 2 radius in any shape made on a lattice)
 * about each particle, the faces between two of its cells left out, each
 * face 4 vertices with its own normal (flat shading) and wound
 * counter-clockwise from outside. Coplanar faces are not merged. The
 * lattice's axes are found from the particles themselves (a piece is in its
 * own principal frame, turned from its parent's lattice); particles (xyz
 * triples, m) in any frame, the mesh in the same one. False if out of
 * memory or n is 0; out is then empty. */
bool rb_cell_mesh(const float *particles, uint32_t n, float radius, rb_mesh *out);
void rb_mesh_free(rb_mesh *m);

/* Splits shape s's mesh into its parts (src/shapes/parts.c):
 * triangle_pieces, index_count / 3 values numbered as s->pieces, give each
 * triangle's piece; part k is the triangles of piece part_piece[k], their
 * vertices gathered, and a triangle lying on another part's face (turned
 * the other way, within 1e-5 of the mesh's size) is marked inside. False
 * with the reason in why (no pieces or mesh, a triangle's piece no
 * particle has, out of memory): s then has no parts. */
bool rb_shape_split_parts(rb_shape *s, const uint32_t *triangle_pieces, char *why, size_t why_size);
void rb_shape_free_parts(rb_shape *s);

typedef struct rb_registry rb_registry;

typedef struct rb_registry_desc {
    float particle_radius; /* m, of shapes that give no diameter of their own; 0 = 0.2 */
    float density;         /* kg/m^3 of a particle's cubic cell (2r)^3, r the shape's radius; 0 = 1000 */
    /* Host settings handed to plugins (see rubble_plugin.h). */
    const char *const *mesh_dirs;
    uint32_t mesh_dir_count;
} rb_registry_desc;

rb_registry *rb_registry_create(const rb_registry_desc *desc);
void rb_registry_destroy(rb_registry *reg);

/* Loads one plugin library. Its valid shapes are added; refused ones are
 * logged with the file, the shape and the reason. Returns the first problem
 * (or RB_LOAD_OK). Nothing already registered is lost. */
rb_load_result rb_registry_load_plugin(rb_registry *reg, const char *path);
/* Adds a shape from a descriptor (what load_plugin does for each shape). */
rb_load_result rb_registry_add_desc(rb_registry *reg, const rb_shape_desc *desc, const char *plugin_name,
                                    const char *source);
/* Loads every *.so in a folder, in name order. Returns how many plugins loaded. */
int rb_registry_scan_dir(rb_registry *reg, const char *dir);
/* Rescans every folder scanned so far and runs again each plugin that
 * searches the mesh folders (so the mesh plugin finds new meshes): shapes not seen before are
 * added; a plugin file that changed since it was loaded (rebuilt) has its
 * own shapes replaced by what it offers now (rb_registry_replaced counts
 * them); other shapes are kept as they are. A replaced shape's old entry
 * stays valid until the registry is destroyed: bodies made of it keep its
 * layout. Returns the number of new shapes. */
int rb_registry_rescan(rb_registry *reg);
/* How many shapes rebuilt plugins have replaced so far. */
uint32_t rb_registry_replaced(const rb_registry *reg);
/* Adds a folder the mesh plugin searches (the host's "mesh_dir" setting);
 * it takes effect at the next load of the plugin (rb_registry_reload). */
bool rb_registry_add_mesh_dir(rb_registry *reg, const char *dir);
/* Loads every plugin loaded so far once more (a plugin's entry point runs
 * again, as the mesh plugin's does to search its folders again): shapes it
 * offers that are not registered yet are added; the ones already registered
 * are skipped without a word. Returns the number of new shapes. */
int rb_registry_reload(rb_registry *reg);

uint32_t rb_registry_count(const rb_registry *reg);
/* Shape `index` (NULL past the end). The pointer stays valid, whatever is
 * loaded later, until the registry is destroyed; a replaced shape's index
 * gives the new shape from then on. */
const rb_shape *rb_registry_get(const rb_registry *reg, uint32_t index);
/* Index of the shape of that name, or -1. */
int rb_registry_find(const rb_registry *reg, const char *name);
/* The registry's radius: that of shapes that give no diameter of their own
 * (each shape's is rb_shape.particle_radius). */
float rb_registry_particle_radius(const rb_registry *reg);

#endif
