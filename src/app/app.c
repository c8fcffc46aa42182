/* app.c - set-up shared by rubble and rubble-bench (see app.h). */
#include "app.h"

#include "base/log.h"

rb_registry *rb_app_registry(const rb_options *o, const rb_paths *paths) {
    const char *mesh_dirs[RB_MAX_DIRS + 1];
    uint32_t n_mesh = 0;
    if (paths->meshes[0]) mesh_dirs[n_mesh++] = paths->meshes;
    for (int i = 0; i < o->mesh_dir_count; i++) mesh_dirs[n_mesh++] = o->mesh_dirs[i];
    rb_world_desc wd = rb_default_world_desc();
    rb_registry *reg = rb_registry_create(
        &(rb_registry_desc){.particle_radius = wd.particle_radius, .mesh_dirs = mesh_dirs, .mesh_dir_count = n_mesh});
    if (!reg) return NULL;
    if (paths->plugins[0])
        rb_registry_scan_dir(reg, paths->plugins);
    else
        rb_log(RB_LOG_WARN, "no plugin folder found beside %s; only --plugins folders are scanned", paths->exe_dir);
    for (int i = 0; i < o->plugin_dir_count; i++) rb_registry_scan_dir(reg, o->plugin_dirs[i]);
    return reg;
}

rb_world_desc rb_app_world_desc(const rb_options *o) {
    rb_world_desc d = rb_default_world_desc();
    d.backend = o->backend;
    d.device_index = o->device;
    rb_app_override_world(o, &d);
    return d;
}

void rb_app_override_world(const rb_options *o, rb_world_desc *d) {
    if (o->dt > 0.0f) d->dt = o->dt;
    if (o->no_sleep) d->sleep_time = 0.0f;
    if (o->friction >= 0.0f) d->material.friction = o->friction;
    if (o->rolling_friction >= 0.0f) d->material.rolling_friction = o->rolling_friction;
    if (o->contact_slots) d->contact_slots = o->contact_slots;
}
