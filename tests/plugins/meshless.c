/* A test plugin whose one shape has no render mesh: the sandbox must draw it
 * as its particles. A 3 x 1 x 3 slab of particles. */
#include <rubble_plugin.h>

static float particles[9 * 3];

static const rb_shape_desc shape = {
    .struct_size = sizeof(rb_shape_desc),
    .name = "meshless_slab",
    .description = "3x1x3 particles, no mesh",
    .particle_count = 9,
    .particles = particles,
};

static const rb_shape_desc *get_shape(uint32_t index) { return index == 0 ? &shape : NULL; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "meshless",
    .shape = get_shape,
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    (void)host;
    for (int i = 0; i < 9; i++) {
        particles[i * 3] = (float)(i % 3) - 1.0f;
        particles[i * 3 + 1] = 0.0f;
        particles[i * 3 + 2] = (float)(i / 3) - 1.0f;
    }
    return &plugin;
}
