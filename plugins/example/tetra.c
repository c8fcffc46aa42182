/* tetra.c - an example shape plugin: ten particles stacked as a tetrahedron
 * (three layers of close packing: 6, 3, 1) inside a tetrahedral render mesh.
 *
 * It includes nothing of Rubble but the public header, so it builds out of
 * the tree:
 *   cc -std=c11 -shared -fPIC -I<folder of rubble_plugin.h> tetra.c -o tetra.so
 * and loads by dropping tetra.so into a plugin folder (rubble --plugins DIR). */
#include <rubble_plugin.h>

#define LAYERS 3
#define COUNT 10 /* LAYERS (LAYERS + 1) (LAYERS + 2) / 6 */

/* The close-packed lattice's basis: any two neighbours are exactly one
 * diameter apart (units: particle diameters). sqrt(3)/2, sqrt(3)/6, sqrt(2/3). */
static const double basis[3][3] = {
    {1.0, 0.0, 0.0}, {0.5, 0.8660254037844386, 0.0}, {0.5, 0.28867513459481287, 0.816496580927726}};

static float particles[3 * COUNT];
static float vertices[3 * 4];
/* Counter-clockwise seen from outside: the host computes flat normals. */
static const uint32_t indices[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};

/* Particle i a + j b + k c for i + j + k < LAYERS; the mesh is the lattice's
 * corner tetrahedron moved outward by one radius (edge e: inradius grows by
 * 1/2 when scaled by 1 + sqrt(6)/e about the centroid), so it wraps the spheres. */
static void build(void) {
    int n = 0;
    for (int k = 0; k < LAYERS; k++)
        for (int j = 0; j + k < LAYERS; j++)
            for (int i = 0; i + j + k < LAYERS; i++, n++)
                for (int c = 0; c < 3; c++)
                    particles[3 * n + c] = (float)(i * basis[0][c] + j * basis[1][c] + k * basis[2][c]);
    const double edge = LAYERS - 1, scale = 1.0 + 2.449489742783178 / edge;
    double corner[4][3] = {{0, 0, 0}}, centroid[3] = {0, 0, 0};
    for (int v = 1; v < 4; v++)
        for (int c = 0; c < 3; c++) corner[v][c] = edge * basis[v - 1][c];
    for (int v = 0; v < 4; v++)
        for (int c = 0; c < 3; c++) centroid[c] += corner[v][c] / 4.0;
    for (int v = 0; v < 4; v++)
        for (int c = 0; c < 3; c++) vertices[3 * v + c] = (float)(centroid[c] + scale * (corner[v][c] - centroid[c]));
}

static const rb_shape_desc shape = {
    .struct_size = sizeof(rb_shape_desc),
    .name = "tetra",
    .description = "ten particles stacked as a tetrahedron (example plugin)",
    .particle_count = COUNT,
    .particles = particles,
    .vertex_count = 4,
    .vertices = vertices,
    .normals = NULL,
    .index_count = 12,
    .indices = indices,
};

/* The host asks for shapes by index until it gets NULL. */
static const rb_shape_desc *get_shape(uint32_t index) { return index == 0 ? &shape : NULL; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "tetra",
    .shape = get_shape,
    .shutdown = NULL, /* nothing was allocated */
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    if (host->abi_version != RB_PLUGIN_ABI_VERSION) {
        host->log(host->host_data, RB_PLUGIN_LOG_ERROR, "tetra: built for plugin ABI %u, the host has %u",
                  RB_PLUGIN_ABI_VERSION, host->abi_version);
        return NULL;
    }
    build();
    return &plugin;
}
