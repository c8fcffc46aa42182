/* scene_save.c - a scene file saved whole or not at all (scene.h,
 * rb_scene_save_source; the text written by scene.c, rb_scene_write_source). */
#include <stdio.h>

#include "base/replace.h"
#include "scene.h"

bool rb_scene_save(const char *path, rb_world *w, const rb_entities *t, char *err, size_t err_size) {
    const rb_scene_source source = {.world = w, .entities = t};
    return rb_scene_save_source(path, &source, err, err_size);
}

static bool write_source(FILE *f, void *source, char *why, size_t why_size) {
    return rb_scene_write_source(f, source, why, why_size);
}

/* Written beside the name and renamed (or with keep_existing linked) when
 * whole (base/replace.h). */
static bool save_whole(const char *path, const rb_scene_source *source, bool keep_existing, char *err,
                       size_t err_size) {
    char why[1024];
    if ((keep_existing ? rb_replace_write_new : rb_replace_write)(path, "w", write_source, (void *)source, why,
                                                                  sizeof why))
        return true;
    snprintf(err, err_size, "%s; not saved (the old file, if any, is untouched)", why);
    return false;
}

bool rb_scene_save_source(const char *path, const rb_scene_source *source, char *err, size_t err_size) {
    return save_whole(path, source, false, err, err_size);
}

bool rb_scene_save_new(const char *path, const rb_scene_source *source, char *err, size_t err_size) {
    return save_whole(path, source, true, err, err_size);
}
