#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RB_SOURCE_DIR
#define RB_SOURCE_DIR "."
#endif
#ifndef RB_INSTALL_DATADIR
#define RB_INSTALL_DATADIR "/usr/local/share/rubble"
#endif
#ifndef RB_INSTALL_PLUGINDIR
#define RB_INSTALL_PLUGINDIR "/usr/local/lib/rubble/plugins"
#endif

const char *rb_exe_dir(void) {
    static char dir[PATH_MAX];
    if (dir[0]) return dir;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) return strcpy(dir, ".");
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    return dir;
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rb_find_data_dir(const char *name, char *out, size_t out_size) {
    char candidates[5][PATH_MAX];
    int n = 0;
    snprintf(candidates[n++], PATH_MAX, "%s/%s", rb_exe_dir(), name);
    if (strcmp(name, "plugins") == 0) {
        snprintf(candidates[n++], PATH_MAX, "%s/../lib/rubble/plugins", rb_exe_dir());
        snprintf(candidates[n++], PATH_MAX, "%s", RB_INSTALL_PLUGINDIR);
    } else {
        snprintf(candidates[n++], PATH_MAX, "%s/../share/rubble/%s", rb_exe_dir(), name);
        snprintf(candidates[n++], PATH_MAX, "%s/%s", RB_INSTALL_DATADIR, name);
        snprintf(candidates[n++], PATH_MAX, "%s/%s", RB_SOURCE_DIR, name);
    }
    for (int i = 0; i < n; i++)
        if (is_dir(candidates[i])) {
            snprintf(out, out_size, "%s", candidates[i]);
            return true;
        }
    return false;
}
