/* fuzz_mesh.c - a mesh file and its side file through the mesh plugin
 * (plugins/mesh/mesh.c, linked in): the plugin's entry point searches a
 * folder holding the two files, as it searches assets/meshes, and every
 * shape it offers goes through the registry's checks.
 *
 * Input: the extension on the first line ("ply\n"; an unknown one is read as
 * obj), then the mesh file's bytes, then optionally a line "%%side%%" and the
 * side file's bytes (written as m.EXT.json beside m.EXT). The plugin must
 * never offer a shape the registry refuses, and what the registry takes must
 * be whole. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "fuzz_check.h"
#include "rubble_plugin.h"
#include "shapes/shapes.h"

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *api);

static char g_dir[64];
static char g_mesh[128], g_side[160];

static void plugin_log(void *host_data, rb_plugin_log_level level, const char *fmt, ...) {
    (void)host_data, (void)level, (void)fmt;
}

static const char *setting(void *host_data, const char *key, uint32_t index) {
    (void)host_data;
    return strcmp(key, "mesh_dir") == 0 && index == 0 ? g_dir : NULL;
}

static void silent(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }

static void clean(void) {
    if (g_mesh[0]) unlink(g_mesh);
    if (g_side[0]) unlink(g_side);
    g_mesh[0] = g_side[0] = '\0';
}

static void remove_dir(void) {
    clean();
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/rubble-fuzz-mesh-XXXXXX");
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    rb_set_log_fn(silent, NULL);
    return 0;
}

static void write_file(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const known[] = {"obj", "stl", "ply", "off", "gltf", "glb", "fbx", "dae", "3ds"};
    const uint8_t *nl = memchr(data, '\n', size < 8 ? size : 8);
    const char *ext = "obj";
    for (size_t i = 0; nl && i < sizeof known / sizeof *known; i++)
        if ((size_t)(nl - data) == strlen(known[i]) && memcmp(data, known[i], strlen(known[i])) == 0) ext = known[i];
    const uint8_t *mesh = nl ? nl + 1 : data, *end = data + size;
    static const char sep[] = "\n%%side%%\n";
    const uint8_t *side = memmem(mesh, (size_t)(end - mesh), sep, sizeof sep - 1);

    clean();
    snprintf(g_mesh, sizeof g_mesh, "%s/m.%s", g_dir, ext);
    write_file(g_mesh, mesh, (size_t)((side ? side : end) - mesh));
    if (side) {
        snprintf(g_side, sizeof g_side, "%s.json", g_mesh);
        side += sizeof sep - 1;
        write_file(g_side, side, (size_t)(end - side));
    }

    const rb_host_api host = {
        .struct_size = sizeof(rb_host_api),
        .abi_version = RB_PLUGIN_ABI_VERSION,
        .log = plugin_log,
        .setting = setting,
    };
    const rb_plugin *plugin = rb_plugin_entry(&host);
    if (!plugin) abort(); /* it refuses only a host of another ABI */
    rb_registry *reg = rb_registry_create(NULL);
    if (!reg) abort();
    for (uint32_t i = 0;; i++) {
        const rb_shape_desc *d = plugin->shape(i);
        if (!d) break;
        rb_load_result r = rb_registry_add_desc(reg, d, "mesh", g_mesh);
        if (r != RB_LOAD_OK) {
            fprintf(stderr, "fuzz_mesh: the registry refused the plugin's shape '%s': %s\n", d->name ? d->name : "?",
                    rb_load_result_name(r));
            abort();
        }
    }
    for (uint32_t i = 0; i < rb_registry_count(reg); i++) rb_fuzz_check_shape(rb_registry_get(reg, i));
    rb_registry_destroy(reg);
    if (plugin->shutdown) plugin->shutdown();
    return 0;
}
