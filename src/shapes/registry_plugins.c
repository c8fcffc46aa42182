/* registry_plugins.c - shape plugins: the host API lent to them, each
 * loaded with dlopen, asked for its shapes (each checked and kept by
 * registry.c, rb_registry_add_desc), shut down and closed; folders
 * scanned for them, and loaded again when rebuilt (rb_registry_rescan,
 * rb_registry_reload). */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "registry_internal.h"

#define MAX_SHAPES_PER_PLUGIN 4096

/* ---- the host API lent to plugins ---- */

/* A plugin's level goes on to rb_log as it is, so the two enums must agree:
 * the same values, and the same size and signedness (any number a plugin
 * passes then reaches rb_log's clamping unchanged). */
_Static_assert((int)RB_PLUGIN_LOG_INFO == (int)RB_LOG_INFO && (int)RB_PLUGIN_LOG_WARN == (int)RB_LOG_WARN &&
                   (int)RB_PLUGIN_LOG_ERROR == (int)RB_LOG_ERROR,
               "rb_plugin_log_level (rubble_plugin.h) and rb_log_level (base/log.h) differ in value");
_Static_assert(sizeof(rb_plugin_log_level) == sizeof(rb_log_level) &&
                   ((rb_plugin_log_level)-1 > 0) == ((rb_log_level)-1 > 0),
               "rb_plugin_log_level (rubble_plugin.h) and rb_log_level (base/log.h) differ in size or signedness");

static void host_log(void *host_data, rb_plugin_log_level level, const char *fmt, ...) {
    rb_registry *reg = host_data;
    char message[900];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    rb_log((rb_log_level)level, "plugin %s: %s", reg->loading_path ? reg->loading_path : "?", message);
}

static const char *host_setting(void *host_data, const char *key, uint32_t index) {
    rb_registry *reg = host_data;
    if (strcmp(key, "mesh_dir") == 0) {
        const int f = rb_registry_file_index(reg, reg->loading_path);
        if (f >= 0) reg->files[f].searches = true;
        return index < reg->desc.mesh_dir_count ? reg->mesh_dirs[index] : NULL;
    }
    if (strcmp(key, "plugin_dir") == 0) return index == 0 ? reg->loading_dir : NULL;
    return NULL;
}

/* ---- plugins ---- */

/* What tells a rebuilt file from the one loaded: its modification time to
 * the nanosecond, and its size (a copy over it within the same second of
 * clock granularity still differs in one or the other, or is the same file). */
static long long file_stamp(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return ((long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec) ^ ((long long)st.st_size << 40);
}

static void remember_file(rb_registry *reg, const char *path) {
    for (uint32_t i = 0; i < reg->file_count; i++)
        if (strcmp(reg->files[i].path, path) == 0) {
            reg->files[i].stamp = file_stamp(path);
            return;
        }
    loaded_file *f = realloc(reg->files, (reg->file_count + 1) * sizeof *f);
    if (!f) return;
    reg->files = f;
    reg->files[reg->file_count++] = (loaded_file){rb_registry_strdup(path), file_stamp(path), false};
}

rb_load_result rb_registry_load_plugin(rb_registry *reg, const char *path) {
    remember_file(reg, path);
    /* A path without a slash would make dlopen search the library path. */
    char full[4096];
    snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *lib = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        rb_log(RB_LOG_ERROR, "plugin %s: cannot open: %s", path, dlerror());
        return RB_LOAD_CANNOT_OPEN;
    }
    rb_plugin_entry_fn entry;
    *(void **)&entry = dlsym(lib, RB_PLUGIN_ENTRY_NAME); /* POSIX's way from void * to a function pointer */
    if (!entry) {
        rb_log(RB_LOG_ERROR, "plugin %s: no entry point '%s': not a Rubble shape plugin", path, RB_PLUGIN_ENTRY_NAME);
        dlclose(lib);
        return RB_LOAD_NO_ENTRY;
    }
    const rb_host_api host = {
        .struct_size = sizeof(rb_host_api),
        .abi_version = RB_PLUGIN_ABI_VERSION,
        .host_data = reg,
        .log = host_log,
        .setting = host_setting,
    };
    reg->loading_path = path;
    snprintf(reg->loading_dir, sizeof reg->loading_dir, "%s", full);
    char *slash = strrchr(reg->loading_dir, '/');
    if (slash) *slash = '\0';

    rb_load_result result = RB_LOAD_OK;
    const rb_plugin *plugin = entry(&host);
    if (!plugin) {
        rb_log(RB_LOG_ERROR, "plugin %s: its entry point failed (returned no plugin)", path);
        result = RB_LOAD_ENTRY_FAILED;
    } else if (plugin->abi_version != RB_PLUGIN_ABI_VERSION) {
        rb_log(RB_LOG_ERROR, "plugin %s: incompatible ABI: built for version %u, this host speaks %u", path,
               plugin->abi_version, RB_PLUGIN_ABI_VERSION);
        result = RB_LOAD_ABI_MISMATCH;
        plugin = NULL; /* its other fields cannot be trusted */
    } else if (plugin->struct_size < offsetof(rb_plugin, shutdown) + sizeof plugin->shutdown) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin struct_size is %u, less than ABI %u's %zu", path,
               plugin->struct_size, RB_PLUGIN_ABI_VERSION, offsetof(rb_plugin, shutdown) + sizeof plugin->shutdown);
        result = RB_LOAD_ABI_MISMATCH;
        plugin = NULL;
    } else if (!plugin->shape) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin has no shape function (shape is NULL)", path);
        result = RB_LOAD_NO_SHAPES;
        if (plugin->shutdown) plugin->shutdown();
    } else if (!plugin->name) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin has no name (name is NULL)", path);
        result = RB_LOAD_BAD_NAME;
        if (plugin->shutdown) plugin->shutdown();
    } else if (!rb_registry_good_name(plugin->name)) {
        char name[300]; /* rb_registry_escaped(): at most 64 characters of 4 bytes */
        rb_log(RB_LOG_ERROR,
               "plugin %s: plugin name \"%s\"%s: a name is 1-63 printable ASCII characters without spaces, quotes "
               "or backslashes",
               path, rb_registry_escaped(plugin->name, 64, name, sizeof name),
               strlen(plugin->name) > 64 ? "... (cut)" : "");
        result = RB_LOAD_BAD_NAME;
        if (plugin->shutdown) plugin->shutdown();
    } else {
        const char *plugin_name = plugin->name;
        uint32_t offered = 0, added = 0;
        const rb_shape_desc *first = NULL;
        char first_name[64] = ""; /* a plugin may refill one struct for every shape */
        for (uint32_t i = 0;; i++) {
            const rb_shape_desc *d = plugin->shape(i);
            if (!d) break;
            if (i == MAX_SHAPES_PER_PLUGIN) {
                rb_log(RB_LOG_WARN, "plugin %s: offers more than %u shapes; the rest are ignored", path,
                       MAX_SHAPES_PER_PLUGIN);
                break;
            }
            /* A list that never ends comes round to its first shape again
             * (the same struct with the same name): said once. */
            if (i > 0 && d == first && d->name && strncmp(d->name, first_name, sizeof first_name) == 0) {
                rb_log(RB_LOG_ERROR,
                       "plugin %s: shape(%u) is shape(0) again: shape() must return NULL past the last shape; the "
                       "rest are ignored",
                       path, i);
                if (result == RB_LOAD_OK) result = RB_LOAD_DUPLICATE_NAME;
                break;
            }
            if (i == 0) {
                first = d;
                snprintf(first_name, sizeof first_name, "%s", d->name ? d->name : "");
            }
            offered++;
            rb_load_result r = rb_registry_add_desc(reg, d, plugin_name, path);
            if (r == RB_LOAD_OK)
                added++;
            else if (result == RB_LOAD_OK && r != RB_LOAD_DUPLICATE_NAME)
                result = r;
        }
        if (offered == 0) {
            rb_log(RB_LOG_WARN, "plugin %s: offers no shapes", path);
            result = RB_LOAD_NO_SHAPES;
        } else if (added == 0 && result == RB_LOAD_OK) {
            result = RB_LOAD_DUPLICATE_NAME; /* everything it offers is loaded already */
        }
        if (plugin->shutdown) plugin->shutdown();
    }
    reg->loading_path = NULL;
    dlclose(lib);
    return result;
}

static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Loads the *.so files of dir; with only_new, only those not loaded before
 * or changed since (whose own shapes the new load replaces). Returns the
 * number of plugins that loaded. */
static int scan(rb_registry *reg, const char *dir, bool only_new) {
    DIR *dp = opendir(dir);
    if (!dp) {
        rb_log(RB_LOG_WARN, "plugin folder %s: cannot open it", dir);
        return 0;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0) continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        char *name = rb_registry_strdup(e->d_name);
        if (grown) names = grown;
        if (!grown || !name) {
            free(name);
            break;
        }
        names[n++] = name;
    }
    closedir(dp);
    if (n > 1) qsort(names, n, sizeof *names, compare_strings);
    int loaded = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        const int known = rb_registry_file_index(reg, path);
        const bool same = known >= 0 && reg->files[known].stamp == file_stamp(path);
        reg->replacing = only_new && known >= 0;
        if (!(only_new && same) && rb_registry_load_plugin(reg, path) == RB_LOAD_OK) loaded++;
        reg->replacing = false;
        free(names[i]);
    }
    free(names);
    return loaded;
}

int rb_registry_scan_dir(rb_registry *reg, const char *dir) {
    char real[PATH_MAX];
    const char *key = realpath(dir, real) ? real : dir; /* one folder named two ways is one folder */
    for (uint32_t i = 0; i < reg->dir_count; i++)
        if (strcmp(reg->dirs[i], key) == 0) return 0; /* scanned already */
    char **d = realloc(reg->dirs, (reg->dir_count + 1) * sizeof *d);
    char *copy = rb_registry_strdup(key);
    if (d) reg->dirs = d;
    if (d && copy)
        reg->dirs[reg->dir_count++] = copy;
    else
        free(copy);
    return scan(reg, key, false);
}

bool rb_registry_add_mesh_dir(rb_registry *reg, const char *dir) {
    for (uint32_t i = 0; i < reg->desc.mesh_dir_count; i++)
        if (strcmp(reg->mesh_dirs[i], dir) == 0) return true;
    char **dirs = realloc(reg->mesh_dirs, (reg->desc.mesh_dir_count + 2) * sizeof *dirs);
    if (!dirs) return false;
    reg->mesh_dirs = dirs;
    if (!(dirs[reg->desc.mesh_dir_count] = rb_registry_strdup(dir))) return false;
    dirs[++reg->desc.mesh_dir_count] = NULL;
    return true;
}

/* Loads the plugins loaded so far once more (only those that search the
 * mesh folders, with searching_only); shapes already registered are skipped
 * quietly. Returns the number of new shapes. */
static int load_again(rb_registry *reg, bool searching_only) {
    uint32_t before = reg->count;
    reg->reloading = true;
    for (uint32_t i = 0; i < reg->file_count; i++) {
        if (searching_only && !reg->files[i].searches) continue;
        char path[4096]; /* loading remembers the file again: a copy of its name */
        snprintf(path, sizeof path, "%s", reg->files[i].path);
        rb_registry_load_plugin(reg, path);
    }
    reg->reloading = false;
    return (int)(reg->count - before);
}

int rb_registry_reload(rb_registry *reg) { return load_again(reg, false); }

int rb_registry_rescan(rb_registry *reg) {
    uint32_t before = reg->count;
    for (uint32_t i = 0; i < reg->dir_count; i++) scan(reg, reg->dirs[i], true);
    load_again(reg, true); /* plugins that search folders (meshes) search them again */
    return (int)(reg->count - before);
}
