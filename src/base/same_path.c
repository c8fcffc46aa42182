/* same_path.c - see same_path.h. */
#include "same_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The folder a path is in, resolved, and its last name. False if the folder is not there. */
static bool split_real(const char *path, char folder[PATH_MAX], const char **name) {
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return false;
    char *slash = strrchr(dir, '/');
    *name = slash ? path + (slash - dir) + 1 : path;
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return realpath(dir, folder) != NULL;
}

bool rb_same_path(const char *a, const char *b) {
    if (!strcmp(a, b)) return true;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char fa[PATH_MAX], fb[PATH_MAX];
    const char *na, *nb;
    return split_real(a, fa, &na) && split_real(b, fb, &nb) && !strcmp(fa, fb) && !strcmp(na, nb);
}

bool rb_paths_clash(const rb_named_path *list, int count, int *a, int *b) {
    for (int i = 0; i < count; i++)
        for (int k = i + 1; k < count; k++)
            if (list[i].path && list[k].path && (list[i].output || list[k].output) &&
                rb_same_path(list[i].path, list[k].path)) {
                *a = i, *b = k;
                return true;
            }
    return false;
}
