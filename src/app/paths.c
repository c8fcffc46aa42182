/* paths.c - the program's folders (see paths.h). */
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/replace.h"
#include "base/same_path.h"

#ifndef RB_SOURCE_DIR
#define RB_SOURCE_DIR "."
#endif
#ifndef RB_INSTALL_DATADIR
#define RB_INSTALL_DATADIR "/usr/local/share/rubble"
#endif
#ifndef RB_INSTALL_PLUGINDIR
#define RB_INSTALL_PLUGINDIR "/usr/local/lib/rubble/plugins"
#endif

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rb_find_data_dir(const char *exe_dir, const char *name, char *out, size_t out_size) {
    char candidates[4][PATH_MAX];
    int n = 0;
    snprintf(candidates[n++], PATH_MAX, "%s/%s", exe_dir, name);
    if (strcmp(name, "plugins") == 0) {
        snprintf(candidates[n++], PATH_MAX, "%s/../lib/rubble/plugins", exe_dir);
        snprintf(candidates[n++], PATH_MAX, "%s", RB_INSTALL_PLUGINDIR);
    } else {
        snprintf(candidates[n++], PATH_MAX, "%s/../share/rubble/%s", exe_dir, name);
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

void rb_paths_find(rb_paths *p, const char *shader_dir) {
    *p = (rb_paths){0};
    ssize_t n = readlink("/proc/self/exe", p->exe_dir, sizeof p->exe_dir - 1);
    if (n <= 0) {
        strcpy(p->exe_dir, ".");
    } else {
        p->exe_dir[n] = '\0';
        char *slash = strrchr(p->exe_dir, '/');
        if (slash) *slash = '\0';
    }
    rb_find_data_dir(p->exe_dir, "plugins", p->plugins, sizeof p->plugins);
    rb_find_data_dir(p->exe_dir, "assets/meshes", p->meshes, sizeof p->meshes);
    const char *env = getenv("RUBBLE_SHADER_DIR");
    if (shader_dir && *shader_dir)
        snprintf(p->shaders, sizeof p->shaders, "%s", shader_dir);
    else if (env && *env)
        snprintf(p->shaders, sizeof p->shaders, "%s", env);
    else
        rb_find_data_dir(p->exe_dir, "shaders", p->shaders, sizeof p->shaders);
}

bool rb_path_writable(const char *path, char *err, size_t err_size) {
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (!slash)
        strcpy(folder, ".");
    else if (slash == folder)
        folder[1] = '\0';
    else
        *slash = '\0';
    if (!is_dir(folder)) return snprintf(err, err_size, "no folder %s", folder), false;
    /* an output replaces a file, never a device, pipe or folder (base/replace.h) */
    if (!rb_replace_allowed(path, err, err_size)) return false;
    /* access() says yes to root anywhere; making a file is the real test */
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/.rubble-probe-%ld", folder, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return snprintf(err, err_size, "cannot write in %s: %s", folder, strerror(errno)), false;
    close(fd);
    unlink(probe);
    return true;
}

bool rb_path_same(const char *a, const char *b) { return rb_same_path(a, b); }

bool rb_path_is_folder(const char *dir, char *err, size_t err_size) {
    struct stat st;
    if (stat(dir, &st) != 0) return snprintf(err, err_size, "%s", strerror(errno)), false;
    if (!S_ISDIR(st.st_mode)) return snprintf(err, err_size, "not a folder"), false;
    if (access(dir, R_OK | X_OK) != 0) return snprintf(err, err_size, "cannot read it: %s", strerror(errno)), false;
    return true;
}
