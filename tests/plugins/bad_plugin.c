/* A plugin that is wrong in one way, chosen by BAD_CASE when it is built.
 * The registry must refuse it with the right reason and keep going. */
#include <math.h>
#include <rubble_plugin.h>

enum {
    BAD_NO_ENTRY = 1, /* exports no rb_plugin_entry */
    BAD_ENTRY_NULL,   /* entry returns NULL */
    BAD_ABI,          /* built for another ABI version */
    BAD_NO_SHAPES,    /* offers nothing */
    BAD_NO_PARTICLES, /* a shape with zero particles */
    BAD_NON_FINITE,   /* a NaN coordinate */
    BAD_OVERLAP,      /* two particles half a diameter apart */
    BAD_TOO_MANY,     /* one particle over the limit */
    BAD_MESH_INDEX,   /* a mesh index past the vertices */
    MIXED,            /* one good shape and one overlapping shape */
    BAD_NULL_SHAPE,   /* rb_plugin.shape is NULL */
    BAD_ENDLESS,      /* shape() never returns NULL: the same shape at every index */
    BAD_NAME,         /* a name of non-ASCII bytes */
    REUSED,           /* not bad: two shapes handed out in one static struct, refilled at each call */
    BAD_PLUGIN_NULL,  /* a good shape from a plugin whose name is NULL */
    BAD_PLUGIN_QUOTE, /* a plugin name with a quote and a newline */
    BAD_PLUGIN_LONG,  /* a plugin name of 300 characters */
};

#if BAD_CASE == 1 /* BAD_NO_ENTRY; the preprocessor cannot see enums */
RB_PLUGIN_EXPORT int not_an_entry_point(void) { return 0; }
#else
static float two[6] = {0, 0, 0, 1, 0, 0};
static float overlap[6] = {0, 0, 0, 0.5f, 0, 0};
static float nan_point[6] = {0, 0, 0, 1, 0, 0};
static float many[(RB_PLUGIN_MAX_PARTICLES + 1) * 3];
static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint32_t bad_indices[3] = {0, 1, 7};

static rb_shape_desc shapes[2];
static uint32_t shape_count;

static const rb_shape_desc *get_shape(uint32_t i) { return i < shape_count ? &shapes[i] : 0; }
static const rb_shape_desc *endless(uint32_t i) { return (void)i, &shapes[0]; }
static const rb_shape_desc *reused(uint32_t i) {
    static const char *const names[2] = {"reused_a", "reused_b"};
    if (i >= 2) return 0;
    shapes[0].name = names[i]; /* the registry copies a shape before it asks for the next */
    return &shapes[0];
}

static rb_plugin plugin = {sizeof(rb_plugin), RB_PLUGIN_ABI_VERSION, "bad", get_shape, 0};

static rb_shape_desc shape(const char *name, uint32_t n, const float *p) {
    rb_shape_desc d = {sizeof(rb_shape_desc), name, "a test shape", n, p, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0};
    return d;
}

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    shape_count = 1;
    switch (BAD_CASE) {
    case BAD_ENTRY_NULL:
        host->log(host->host_data, RB_PLUGIN_LOG_ERROR, "refusing to start");
        return 0;
    case BAD_ABI: /* a good shape: only the version is wrong */
        plugin.abi_version = RB_PLUGIN_ABI_VERSION + 98;
        shapes[0] = shape("abi_pair", 2, two);
        break;
    case BAD_NO_SHAPES:
        shape_count = 0;
        break;
    case BAD_NO_PARTICLES:
        shapes[0] = shape("empty", 0, two);
        break;
    case BAD_NON_FINITE:
        nan_point[4] = nanf("");
        shapes[0] = shape("nan", 2, nan_point);
        break;
    case BAD_OVERLAP:
        shapes[0] = shape("squeezed", 2, overlap);
        break;
    case BAD_TOO_MANY:
        for (uint32_t i = 0; i <= RB_PLUGIN_MAX_PARTICLES; i++)
            many[3 * i] = (float)(i % 64), many[3 * i + 1] = (float)(i / 64 % 64), many[3 * i + 2] = (float)(i / 4096);
        shapes[0] = shape("huge", RB_PLUGIN_MAX_PARTICLES + 1, many);
        break;
    case BAD_MESH_INDEX:
        shapes[0] = shape("badmesh", 2, two);
        shapes[0].vertex_count = 3, shapes[0].vertices = tri, shapes[0].index_count = 3,
        shapes[0].indices = bad_indices;
        break;
    case MIXED:
        shapes[0] = shape("pair", 2, two);
        shapes[0].description = "a \x1b[31mred\x1b[0m pair\n";
        shapes[1] = shape("squeezed", 2, overlap);
        shape_count = 2;
        break;
    case BAD_NULL_SHAPE:
        plugin.shape = 0;
        break;
    case BAD_ENDLESS:
        shapes[0] = shape("endless", 2, two);
        plugin.shape = endless;
        break;
    case BAD_NAME:
        shapes[0] = shape("k\xc3\xbc\"bel", 2, two);
        break;
    case REUSED:
        shapes[0] = shape("reused_a", 2, two);
        plugin.shape = reused;
        break;
    case BAD_PLUGIN_NULL:
        plugin.name = 0;
        shapes[0] = shape("nameless_pair", 2, two);
        break;
    case BAD_PLUGIN_QUOTE:
        plugin.name = "bad\"name\n";
        shapes[0] = shape("quoted_pair", 2, two);
        break;
    case BAD_PLUGIN_LONG: {
        static char long_name[301];
        for (int i = 0; i < 300; i++) long_name[i] = 'a' + i % 26;
        plugin.name = long_name;
        shapes[0] = shape("long_pair", 2, two);
        break;
    }
    }
    return &plugin;
}
#endif
