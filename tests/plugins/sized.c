/* A plugin that gives its shapes their own particle size
 * (rb_shape_desc.particle_diameter): a pebble of one 0.1 m particle, a
 * pair at the host's size (0), and shapes the host must refuse (a negative
 * diameter, one past RB_MAX_DIAMETER, NaN) while keeping the rest. */
#include <math.h>
#include <rubble_plugin.h>

static const float one[3] = {0, 0, 0}, two[6] = {0, 0, 0, 1, 0, 0};

static rb_shape_desc shapes[5];

static const rb_shape_desc *get_shape(uint32_t index) { return index < 5 ? &shapes[index] : 0; }

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "sized",
    .shape = get_shape,
};

static rb_shape_desc shape(const char *name, uint32_t n, const float *p, float diameter) {
    return (rb_shape_desc){.struct_size = sizeof(rb_shape_desc),
                           .name = name,
                           .description = "a sized test shape",
                           .particle_count = n,
                           .particles = p,
                           .particle_diameter = diameter};
}

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    (void)host;
    shapes[0] = shape("sized_pebble", 1, one, 0.1f);
    shapes[1] = shape("sized_pair", 2, two, 0.0f);
    shapes[2] = shape("sized_negative", 1, one, -0.1f);
    shapes[3] = shape("sized_huge", 1, one, 2000.0f);
    shapes[4] = shape("sized_nan", 1, one, nanf(""));
    return &plugin;
}
