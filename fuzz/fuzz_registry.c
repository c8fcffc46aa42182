/* fuzz_registry.c - shape descriptors, as a plugin may hand them over, through
 * the registry's checks (src/shapes/registry.c; plugins: registry_plugins.c):
 * either straight to rb_registry_add_desc, or as a whole plugin (its ABI
 * version, struct size, name, shape function, a list of shapes that may
 * never end) through rb_registry_load_plugin and the shim library
 * (shim_plugin.c).
 *
 * Every array is as long as its count says (a plugin that lies about its
 * arrays cannot be caught by any host), except a particle count over the
 * limit, which the registry must refuse before reading a particle. A shape
 * the registry takes must come out whole: finite mass, inertia, particles and
 * mesh, indices in range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "shapes/shapes.h"

#define MAX_DESCS 4
#define MAX_LATTICE (RB_PLUGIN_MAX_PARTICLES + 300)
#define MAX_VERTICES 4096
#define MAX_INDICES 12288

typedef struct made_desc {
    rb_shape_desc desc;
    char name[96], description[200];
    float *particles, *vertices, *normals;
    uint32_t *indices, *pieces, *triangle_pieces;
} made_desc;

static made_desc g_descs[MAX_DESCS];
static uint32_t g_desc_count;
static bool g_endless; /* shape(i) never returns NULL */
static rb_plugin g_plugin;
static bool g_entry_null;

static const rb_shape_desc *shape_at(uint32_t i) {
    if (g_endless) return &g_descs[i % g_desc_count].desc;
    return i < g_desc_count ? &g_descs[i].desc : NULL;
}
static void shutdown_plugin(void) {}

/* What the shim's entry point returns (found with dlsym: exported). */
__attribute__((visibility("default"))) const rb_plugin *rb_fuzz_plugin_entry(const rb_host_api *host) {
    (void)host;
    return g_entry_null ? NULL : &g_plugin;
}

static void silent(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    rb_set_log_fn(silent, NULL);
    return 0;
}

static float pick_float(rb_fuzz_in *in) {
    static const float table[] = {0.0f, 1.0f, -1.0f, 0.5f, 1e-4f, 1e3f, 1e6f, 1.0001e6f, 1e30f, 1e-30f};
    uint8_t k = fuzz_u8(in);
    return k < 200 ? (float)(int8_t)k * 0.25f : k < 200 + 10 ? table[k - 200] : fuzz_f32(in);
}

/* particle_count xyz triples: a lattice of points about spacing apart
 * (overlapping just below 1.0), some coordinates replaced by any float. */
static void fill_particles(rb_fuzz_in *in, float *p, uint32_t n) {
    uint32_t side = 1 + fuzz_u8(in) % 48;
    float spacing = 0.99f + 0.0002f * (float)fuzz_u8(in);
    uint8_t raw = fuzz_u8(in); /* every raw-th coordinate from the input, 0: none */
    for (uint32_t i = 0; i < n; i++) {
        p[3 * i + 0] = spacing * (float)(i % side);
        p[3 * i + 1] = spacing * (float)(i / side % side);
        p[3 * i + 2] = spacing * (float)(i / side / side);
        if (raw && i % raw == 0) p[3 * i + fuzz_u8(in) % 3] = pick_float(in);
    }
}

static void free_desc(made_desc *m) {
    free(m->particles), free(m->vertices), free(m->normals), free(m->indices);
    free(m->pieces), free(m->triangle_pieces);
    memset(m, 0, sizeof *m);
}

static void make_desc(rb_fuzz_in *in, made_desc *m) {
    uint8_t sel = fuzz_u8(in);
    rb_shape_desc *d = &m->desc;
    switch (sel & 3) {
    case 0:
        d->struct_size = sizeof(rb_shape_desc);
        break;
    case 1:
        d->struct_size = offsetof(rb_shape_desc, particle_diameter);
        break; /* an older plugin */
    case 2:
        d->struct_size = fuzz_u16(in);
        break;
    default:
        d->struct_size = 8;
        break;
    }
    fuzz_string(in, m->name, sizeof m->name);
    fuzz_string(in, m->description, sizeof m->description);
    d->name = sel & 4 ? NULL : m->name;
    d->description = sel & 8 ? NULL : m->description;

    uint8_t kind = fuzz_u8(in);
    uint32_t n;
    switch (kind % 4) {
    case 0:
        n = fuzz_u8(in);
        break;
    case 1:
        n = fuzz_u16(in);
        break;
    case 2:
        n = RB_PLUGIN_MAX_PARTICLES - 2 + fuzz_u8(in) % 8;
        break; /* about the limit */
    default:
        n = fuzz_u32(in);
        break;
    }
    /* over the limit the array holds one particle: the registry must refuse before reading */
    uint32_t stored = n <= MAX_LATTICE ? n : 1;
    m->particles = malloc(3 * sizeof(float) * (stored ? stored : 1));
    if (!m->particles) abort();
    fill_particles(in, m->particles, stored);
    d->particle_count = n;
    d->particles = sel & 16 ? NULL : m->particles;

    uint8_t mesh = fuzz_u8(in);
    if (mesh & 1) {
        uint32_t vc = fuzz_u16(in) % (MAX_VERTICES + 1), ic = fuzz_u16(in) % (MAX_INDICES + 1);
        m->vertices = malloc(3 * sizeof(float) * (vc ? vc : 1));
        m->normals = malloc(3 * sizeof(float) * (vc ? vc : 1));
        m->indices = malloc(sizeof(uint32_t) * (ic ? ic : 1));
        if (!m->vertices || !m->normals || !m->indices) abort();
        for (uint32_t i = 0; i < 3 * vc; i++) m->vertices[i] = pick_float(in);
        for (uint32_t i = 0; i < 3 * vc; i++) m->normals[i] = mesh & 16 ? pick_float(in) : (i % 3 == 1);
        for (uint32_t i = 0; i < ic; i++) m->indices[i] = mesh & 32 ? fuzz_u32(in) : fuzz_u16(in) % (vc + 1);
        d->vertex_count = vc;
        d->index_count = ic;
        d->vertices = mesh & 2 ? NULL : m->vertices;
        d->normals = mesh & 4 ? NULL : m->normals;
        d->indices = mesh & 8 ? NULL : m->indices;
        if (mesh & 64) {
            /* pieces (a few values) and each triangle's piece, now and then one no particle has */
            m->pieces = malloc(sizeof(uint32_t) * (stored ? stored : 1));
            m->triangle_pieces = malloc(sizeof(uint32_t) * (ic / 3 + 1));
            if (!m->pieces || !m->triangle_pieces) abort();
            for (uint32_t i = 0; i < stored; i++) m->pieces[i] = fuzz_u8(in) % 4;
            for (uint32_t t = 0; t < ic / 3; t++) m->triangle_pieces[t] = fuzz_u8(in) % 5;
            d->pieces = m->pieces;
            d->triangle_pieces = mesh & 128 ? NULL : m->triangle_pieces;
        }
    }
    d->particle_diameter = sel & 32 ? pick_float(in) : 0.0f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rb_fuzz_in in = {data, size};
    uint8_t flags = fuzz_u8(&in);
    rb_registry_desc rd = {0};
    /* the host's own radius is trusted (no plugin sets it): one of the sizes a plugin may ask for */
    static const float radii[] = {0.2f, 0.05f, 1.0f, 0.5f * RB_MIN_DIAMETER, 0.5f * RB_MAX_DIAMETER};
    if (flags & 2) rd.particle_radius = radii[fuzz_u8(&in) % 5];
    rb_registry *reg = rb_registry_create(&rd);
    if (!reg) abort();

    g_desc_count = 1 + fuzz_u8(&in) % MAX_DESCS;
    for (uint32_t i = 0; i < g_desc_count; i++) make_desc(&in, &g_descs[i]);
    if (flags & 1) {
        /* the whole plugin, through dlopen */
        static char plugin_name[96];
        uint8_t p = fuzz_u8(&in);
        fuzz_string(&in, plugin_name, sizeof plugin_name);
        /* one field at a time: the order the bytes are taken in is fixed */
        g_plugin = (rb_plugin){.name = p & 4 ? NULL : plugin_name,
                               .shape = p & 8 ? NULL : shape_at,
                               .shutdown = p & 16 ? NULL : shutdown_plugin};
        g_plugin.struct_size = p & 1 ? fuzz_u16(&in) : sizeof(rb_plugin);
        g_plugin.abi_version = p & 2 ? fuzz_u32(&in) : RB_PLUGIN_ABI_VERSION;
        g_endless = p & 32;
        g_entry_null = (p & 0xc0) == 0xc0;
        rb_registry_load_plugin(reg, RB_FUZZ_SHIM);
    } else {
        for (uint32_t i = 0; i < g_desc_count; i++) rb_registry_add_desc(reg, &g_descs[i].desc, "fuzz", "fuzz");
    }
    for (uint32_t i = 0; i < rb_registry_count(reg); i++) rb_fuzz_check_shape(rb_registry_get(reg, i));
    for (uint32_t i = 0; i < g_desc_count; i++) free_desc(&g_descs[i]);
    rb_registry_destroy(reg);
    return 0;
}
