/* gltf.c - see gltf.h. (Not written yet: refuses.) */
#include "gltf.h"

#include <stdio.h>

bool rb_gltf_write(const char *path, const rb_anim *anim, char *err, size_t err_size) {
    (void)anim;
    snprintf(err, err_size, "%s: glTF export is not built yet", path);
    return false;
}
