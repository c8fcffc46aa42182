/* rubble_plugin.h - the whole public ABI of a Rubble shape plugin.
 *
 * A plugin is a shared library that exports one function, rb_plugin_entry().
 * The host calls it once with a host-API struct and gets back a description of
 * the plugin: its ABI version, its name, and a function that hands out shape
 * descriptors by index until it returns NULL (as LADSPA and LV2 do).
 *
 * A plugin describes geometry only. Particle centres and mesh vertices are in
 * units of the particle diameter: two touching particles are 1.0 apart. The
 * diameter is the host's unless a shape names its own (particle_diameter).
 * The host computes mass, centre of mass and inertia from the particles, and
 * moves everything into the shape's principal frame.
 *
 * This header is all a plugin author needs; it includes only the C library. */
#ifndef RUBBLE_PLUGIN_H
#define RUBBLE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a struct below changes in a way an older host cannot read.
 * Fields added at the end of a struct do not bump it: the host reads such a
 * field only when the struct_size the plugin filled in covers it, and takes
 * its default otherwise. */
#define RB_PLUGIN_ABI_VERSION 1u

/* The name of the one exported symbol, for dlsym(). */
#define RB_PLUGIN_ENTRY_NAME "rb_plugin_entry"

/* Most particles one shape may have. The host refuses larger shapes. */
#define RB_PLUGIN_MAX_PARTICLES 65536u

#if defined(_WIN32)
#define RB_PLUGIN_EXPORT __declspec(dllexport)
#else
#define RB_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* How bad a line given to rb_host_api.log is. */
typedef enum rb_plugin_log_level {
    RB_PLUGIN_LOG_INFO = 0,
    RB_PLUGIN_LOG_WARN = 1,
    RB_PLUGIN_LOG_ERROR = 2,
} rb_plugin_log_level;

/* What the host lends a plugin. A plugin needs no symbol from the host
 * program: everything goes through these pointers. */
typedef struct rb_host_api {
    uint32_t struct_size; /* sizeof(rb_host_api) as the host knows it */
    uint32_t abi_version; /* RB_PLUGIN_ABI_VERSION of the host */
    void *host_data;      /* pass back as the first argument below */

    /* printf-style log line, without a trailing newline. */
    void (*log)(void *host_data, rb_plugin_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

    /* The index-th value of a host setting, or NULL past the last one.
     * Settings a host gives: "mesh_dir" (folders to search for meshes,
     * assets/meshes first, then each --meshes DIR), "plugin_dir" (the folder
     * this plugin was loaded from). */
    const char *(*setting)(void *host_data, const char *key, uint32_t index);
} rb_host_api;

/* One shape. All pointers stay valid until the plugin's shutdown(). */
typedef struct rb_shape_desc {
    uint32_t struct_size;    /* sizeof(rb_shape_desc) as the plugin knows it */
    const char *name;        /* unique, short, no spaces: "cube", "bunny" */
    const char *description; /* one line for menus and --list-shapes */

    uint32_t particle_count; /* > 0 and <= RB_PLUGIN_MAX_PARTICLES */
    const float *particles;  /* particle_count xyz triples, diameter units */

    /* Optional render mesh (triangles), same units and frame as particles.
     * vertex_count == 0 means: draw the particles. normals may be NULL (the
     * host then computes flat normals). */
    uint32_t vertex_count;
    const float *vertices;   /* vertex_count xyz triples */
    const float *normals;    /* vertex_count xyz triples, or NULL */
    uint32_t index_count;    /* a multiple of 3 */
    const uint32_t *indices; /* index_count vertex indices */

    /* Added after the first release (read only when struct_size covers it). */
    float particle_diameter; /* m, this shape's particles; 0 (or a plugin built without it): the host's */
    /* Added later still, in the same way: the file the shape was made from
     * (a mesh file), named in the host's messages about the shape; NULL: the
     * plugin alone. */
    const char *source;
    /* Added later still, in the same way: each particle's piece, for bodies
     * of the shape that break along the plugin's own lines (a scene's
     * `"breakable": {"pattern": "plugin"}`, docs/debris.md): particle_count
     * values, any numbers, particles with one number making one piece.
     * NULL: the shape gives no pieces. */
    const uint32_t *pieces;
    /* Added later still, in the same way: each render-mesh triangle's piece,
     * index_count / 3 values numbered as `pieces` are, so that each piece
     * of a broken body is drawn with its own triangles (a pre-fractured
     * mesh's parts: plugins/README.md). Read only with `pieces` and a mesh.
     * NULL: the pieces are drawn cut from the mesh or as their particles. */
    const uint32_t *triangle_pieces;
} rb_shape_desc;

/* What rb_plugin_entry() returns. */
typedef struct rb_plugin {
    uint32_t struct_size; /* sizeof(rb_plugin) as the plugin knows it */
    uint32_t abi_version; /* RB_PLUGIN_ABI_VERSION the plugin was built with */
    const char *name;     /* "cube", "mesh": 1-63 printable ASCII characters, no spaces, quotes or
                           * backslashes; a plugin with another name (or none) is refused */

    /* The index-th shape, or NULL past the last one. */
    const rb_shape_desc *(*shape)(uint32_t index);

    /* Frees what the plugin made. May be NULL. Called before dlclose(). */
    void (*shutdown)(void);
} rb_plugin;

/* The entry point every plugin exports. Returns NULL if the plugin cannot run
 * (it should say why through host->log). */
typedef const rb_plugin *(*rb_plugin_entry_fn)(const rb_host_api *host);

#ifdef __cplusplus
}
#endif

#endif /* RUBBLE_PLUGIN_H */
