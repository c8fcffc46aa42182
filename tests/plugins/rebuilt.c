/* A test plugin built twice (REBUILT_VERSION 1 and 2) into files of the same
 * name, to stand for a plugin rebuilt while the sandbox runs: its one shape,
 * "rebuilt_rod", is a row of REBUILT_VERSION + 1 particles, without a mesh. */
#include <rubble_plugin.h>

#define PARTICLES (REBUILT_VERSION + 1)

static float particles[PARTICLES * 3];

static const rb_shape_desc shape = {
    .struct_size = sizeof(rb_shape_desc),
    .name = "rebuilt_rod",
    .description = "a row of particles, one more each rebuild",
    .particle_count = PARTICLES,
    .particles = particles,
};

static const rb_shape_desc *get_shape(uint32_t index) { return index == 0 ? &shape : NULL; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "rebuilt",
    .shape = get_shape,
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    (void)host;
    for (int i = 0; i < PARTICLES; i++) particles[3 * i] = (float)i;
    return &plugin;
}
