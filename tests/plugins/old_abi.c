/* A plugin built against the version-1 header (tests/plugins/v1), whose
 * rb_shape_desc ends at indices: the host must read no field past its
 * struct_size. Its shape sits in memory right before a float that a host
 * reading rb_shape_desc.particle_diameter regardless would take for a
 * 7 m diameter (tests/test_plugins.c checks the shape has the host's). */
#include <rubble_plugin.h>

static const float particles[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};

static const struct {
    rb_shape_desc desc; /* version 1's: 80 bytes on LP64 */
    float after;        /* where a later rb_shape_desc has particle_diameter */
} shape = {
    .desc = {.struct_size = sizeof(rb_shape_desc),
             .name = "old_tetra",
             .description = "four particles, built against plugin ABI 1's header",
             .particle_count = 4,
             .particles = particles},
    .after = 7.0f,
};

static const rb_shape_desc *get_shape(uint32_t index) { return index == 0 ? &shape.desc : NULL; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "old_abi",
    .shape = get_shape,
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    (void)host;
    return &plugin;
}
