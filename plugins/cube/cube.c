/* The cube plugins: an N x N x N lattice of particles with a cube render mesh.
 * Built twice: cube.so (N = 3, the thesis's 27-particle cube) and cube2.so
 * (N = 2). Includes only the public plugin header, as any plugin must. */
#include <rubble_plugin.h>

#ifndef CUBE_N
#define CUBE_N 3
#endif
#define CUBE_PARTICLES (CUBE_N * CUBE_N * CUBE_N)

#define STR_(x) #x
#define STR(x) STR_(x)

static float particles[CUBE_PARTICLES * 3];
static uint32_t pieces[CUBE_PARTICLES]; /* four columns, for "breakable": {"pattern": "plugin"} */
static float vertices[24 * 3], normals[24 * 3];
static uint32_t indices[36];

/* Fills the lattice (centred on the origin, spacing one diameter) and a cube
 * mesh whose faces are the lattice's outer particle surfaces. */
static void build(void) {
    const float c = 0.5f * (CUBE_N - 1), h = 0.5f * CUBE_N;
    int n = 0;
    for (int i = 0; i < CUBE_N; i++)
        for (int j = 0; j < CUBE_N; j++)
            for (int k = 0; k < CUBE_N; k++) {
                particles[n++] = (float)i - c;
                particles[n++] = (float)j - c;
                particles[n++] = (float)k - c;
                pieces[n / 3 - 1] = (uint32_t)(2 * i >= CUBE_N) + 2u * (uint32_t)(2 * k >= CUBE_N);
            }
    /* Each face: axis a, sign s; four corners counter-clockwise seen from outside. */
    for (int face = 0; face < 6; face++) {
        int a = face / 2, u = (a + 1) % 3, v = (a + 2) % 3;
        float s = (face % 2) ? -1.0f : 1.0f;
        static const float cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
        for (int corner = 0; corner < 4; corner++) {
            int vi = face * 4 + corner;
            float *p = &vertices[vi * 3], *nn = &normals[vi * 3];
            p[a] = s * h;
            p[u] = cu[corner] * h;
            p[v] = s * cv[corner] * h; /* mirrored faces flip v to stay counter-clockwise */
            nn[0] = nn[1] = nn[2] = 0.0f;
            nn[a] = s;
        }
        static const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int q = 0; q < 6; q++) indices[face * 6 + q] = (uint32_t)(face * 4) + quad[q];
    }
}

static const rb_shape_desc shape = {
    .struct_size = sizeof(rb_shape_desc),
    .name = CUBE_NAME,
    .description = STR(CUBE_N) "x" STR(CUBE_N) "x" STR(CUBE_N) " particle cube",
    .particle_count = CUBE_PARTICLES,
    .particles = particles,
    .vertex_count = 24,
    .vertices = vertices,
    .normals = normals,
    .index_count = 36,
    .indices = indices,
    .pieces = pieces,
};

static const rb_shape_desc *get_shape(uint32_t index) { return index == 0 ? &shape : NULL; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = CUBE_NAME,
    .shape = get_shape,
    .shutdown = 0,
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    (void)host;
    build();
    return &plugin;
}
