/* sandbox_scene.c - the sandbox's scene: installing one (a formation, a
 * scene file, a dropped file), resetting to it, saving the world (Ctrl+S)
 * and loading it back (Ctrl+O). Part of the loop, with sandbox.c. A scene
 * that cannot be read or built leaves the current world as it was. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "base/log.h"
#include "sandbox_internal.h"
#include "scenes/formations.h"

static bool same_world(const rb_world_desc *a, const rb_world_desc *b) {
    if (a->particle_radius != b->particle_radius || a->dt != b->dt || a->sleep_speed != b->sleep_speed ||
        a->sleep_time != b->sleep_time || a->plane_count != b->plane_count ||
        a->material.restitution != b->material.restitution || a->material.friction != b->material.friction ||
        a->material.contact_time != b->material.contact_time ||
        a->material.rolling_friction != b->material.rolling_friction || a->contact_slots != b->contact_slots)
        return false;
    for (int k = 0; k < 3; k++)
        if (a->gravity[k] != b->gravity[k]) return false;
    for (uint32_t i = 0; i < a->plane_count; i++) {
        for (int k = 0; k < 3; k++)
            if (a->planes[i].normal[k] != b->planes[i].normal[k]) return false;
        if (a->planes[i].offset != b->planes[i].offset) return false;
    }
    return true;
}

/* The debris effects of the scene the sandbox holds, for its world as just
 * built: a scene whose effects cannot run here runs without them, said. */
static void restart_debris(rb_sandbox *sb) {
    rb_debris_destroy(sb->debris);
    char err[512];
    sb->debris = rb_scene_debris(sb->scene, sb->entities, err, sizeof err);
    if (!sb->debris && err[0]) rb_log(RB_LOG_ERROR, "%s (the scene runs without its debris effects)", err);
}

bool rb_sandbox_install_scene(rb_sandbox *sb, rb_scene *scene, const char *file, char *err, size_t err_size) {
    const rb_world_desc *now = rb_world_get_desc(sb->world);
    rb_world_desc desc = rb_scene_world_desc(scene, now);
    rb_app_override_world(&sb->opts, &desc); /* --dt, --no-sleep over a scene's own */
    rb_world *world = sb->world;
    rb_entities *entities = sb->entities;
    /* A reset (a formation, R), or any scene into an empty world, with the
     * same settings and no materials added yet only empties the world (no
     * new OpenCL program). A file otherwise gets a new world, swapped in once
     * it is built: a scene that fails loses nothing. */
    const bool reuse =
        (!file || rb_world_body_count(world) == 0) && same_world(&desc, now) && rb_world_material_count(world) == 1;
    if (reuse) {
        rb_world_clear(world);
    } else {
        world = rb_world_create(&desc, err, err_size);
        entities = world ? rb_entities_create(sb->registry, world) : NULL;
        if (!entities) {
            if (world && !entities) snprintf(err, err_size, "out of memory");
            rb_world_destroy(world);
            rb_log(RB_LOG_ERROR, "%s: %s", scene->name, err);
            if (scene != sb->scene) rb_scene_destroy(scene);
            return false;
        }
        for (uint32_t i = 0; i < rb_entities_count(entities); i++)
            rb_entities_set_mesh(entities, i, rb_entities_get(sb->entities, i)->mesh);
    }
    err[0] = '\0';
    uint32_t added = rb_scene_build(scene, entities, err, err_size);
    if (added != scene->body_count) {
        rb_log(RB_LOG_ERROR, "%s", err);
        if (!reuse) {
            rb_entities_destroy(entities);
            rb_world_destroy(world);
        } else if (sb->scene && scene != sb->scene) {
            /* the emptied world: back to the scene it had (a reset was asked for anyway) */
            char again[512];
            rb_world_clear(world);
            rb_scene_build(sb->scene, sb->entities, again, sizeof again);
            restart_debris(sb);
        }
        if (scene != sb->scene) rb_scene_destroy(scene);
        return false;
    }
    rb_grab_end(&sb->grab);
    /* a scene loaded, not a reset: its camera bookmarks, if it has them */
    if (scene != sb->scene) rb_sandbox_take_bookmarks(sb, scene);
    rb_debris_destroy(sb->debris); /* it knows the world it was made for */
    sb->debris = NULL;
    if (!reuse) {
        rb_entities_destroy(sb->entities);
        rb_world_destroy(sb->world);
        sb->world = world, sb->entities = entities;
        sb->shapes_meshed = 0; /* the new world's shapes: its pieces' are yet to be meshed */
        rb_pick_meshes_forget(sb->pick_meshes);
    }
    if (scene != sb->scene) {
        rb_scene_destroy(sb->scene);
        sb->scene = scene;
    }
    snprintf(sb->scene_file, sizeof sb->scene_file, "%s", file ? file : "");
    if (file) sb->formation = 0;
    sb->steps_clock.accumulator = 0.0;
    restart_debris(sb);
    return true;
}

void rb_sandbox_reset(rb_sandbox *sb, int formation) {
    char err[1024];
    if (formation == 0 && sb->scene) { /* R: the scene as it was installed */
        char file[4096];
        snprintf(file, sizeof file, "%s", sb->scene_file);
        rb_sandbox_install_scene(sb, sb->scene, file[0] ? file : NULL, err, sizeof err);
        return;
    }
    if (formation < 1 || formation > RB_FORMATION_COUNT) formation = 1;
    if (sb->formation_shape < 0 || sb->opts.bodies <= 0) return;
    const char *shape = rb_entities_get(sb->entities, (uint32_t)sb->formation_shape)->shape->name;
    rb_scene *scene = rb_scene_formation(sb->registry, shape, formation, sb->opts.bodies, err, sizeof err);
    if (!scene) {
        rb_log(RB_LOG_ERROR, "%s", err);
        return;
    }
    if (rb_sandbox_install_scene(sb, scene, NULL, err, sizeof err)) sb->formation = formation;
}

bool rb_sandbox_load_file(rb_sandbox *sb, const char *path) {
    char err[1024];
    rb_scene *scene = rb_scene_load(path, sb->registry, err, sizeof err);
    if (!scene) {
        rb_log(RB_LOG_ERROR, "%s%s", err, sb->scene ? " (the current scene is kept)" : "");
        return false;
    }
    if (!rb_sandbox_install_scene(sb, scene, path, err, sizeof err)) return false;
    char text[640];
    snprintf(text, sizeof text, "loaded %.600s", path);
    rb_sandbox_notice(sb, text);
    return true;
}

bool rb_sandbox_save_as(rb_sandbox *sb, const char *path) {
    char name[sizeof sb->last_saved], err[1024];
    if (path) {
        snprintf(name, sizeof name, "%s", path);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(name, sizeof name, "rubble-scene-%Y%m%d-%H%M%S.json", &tm);
    }
    if (!rb_scene_save_with_bookmarks(name, sb->world, sb->entities, sb->bookmarks, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "%s", err);
        return false;
    }
    snprintf(sb->last_saved, sizeof sb->last_saved, "%s", name);
    char text[sizeof name + 32];
    snprintf(text, sizeof text, "saved %s (Ctrl+O loads it)", name);
    rb_sandbox_notice(sb, text);
    rb_log(RB_LOG_INFO, "scene saved to %s", name);
    return true;
}

void rb_sandbox_save(rb_sandbox *sb) { rb_sandbox_save_as(sb, NULL); }

void rb_sandbox_load_last(rb_sandbox *sb) {
    const char *path = sb->last_saved[0] ? sb->last_saved : sb->scene_file[0] ? sb->scene_file : NULL;
    if (!path) {
        rb_sandbox_notice(sb, "nothing to load: save with Ctrl+S, or drop a scene file on the window");
        return;
    }
    char copy[4096]; /* installing replaces scene_file */
    snprintf(copy, sizeof copy, "%s", path);
    rb_sandbox_load_file(sb, copy);
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcasecmp(s + n - m, tail) == 0;
}

/* Links file (and its side file FILE.json, if any) into the session's drop
 * folder, one the mesh plugin searches. */
static bool link_into_drops(rb_sandbox *sb, const char *file) {
    if (!sb->drop_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(sb->drop_dir, sizeof sb->drop_dir, "%s/rubble-drops-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
        if (mkdir(sb->drop_dir, 0700) != 0 && errno != EEXIST) {
            rb_log(RB_LOG_ERROR, "%s: cannot make a folder for dropped meshes: %s", sb->drop_dir, strerror(errno));
            sb->drop_dir[0] = '\0';
            return false;
        }
        if (!rb_registry_add_mesh_dir(sb->registry, sb->drop_dir)) return false;
    }
    char real[PATH_MAX], side[PATH_MAX + 8], link[sizeof sb->drop_dir + PATH_MAX + 8];
    if (!realpath(file, real)) {
        rb_log(RB_LOG_ERROR, "%s: cannot open: %s", file, strerror(errno));
        return false;
    }
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    snprintf(link, sizeof link, "%s/%s", sb->drop_dir, base);
    unlink(link);
    if (symlink(real, link) != 0) {
        rb_log(RB_LOG_ERROR, "%s: cannot link it into %s: %s", file, sb->drop_dir, strerror(errno));
        return false;
    }
    snprintf(side, sizeof side, "%s.json", real);
    if (access(side, R_OK) == 0) {
        snprintf(link, sizeof link, "%s/%s.json", sb->drop_dir, base);
        unlink(link);
        if (symlink(side, link) != 0) rb_log(RB_LOG_WARN, "%s: its side file is not used: %s", file, strerror(errno));
    }
    return true;
}

void rb_sandbox_forget_drops(rb_sandbox *sb) {
    if (!sb->drop_dir[0]) return;
    DIR *d = opendir(sb->drop_dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", sb->drop_dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(sb->drop_dir);
}

/* A mesh dropped on the window becomes a shape, voxelized by the mesh plugin
 * (with its side file's settings, if it has one), and the one to throw. */
static void drop_mesh(rb_sandbox *sb, const char *path) {
    if (!link_into_drops(sb, path)) return;
    const uint32_t before = rb_entities_count(sb->entities);
    rb_registry_reload(sb->registry);
    rb_sandbox_sync_shapes(sb);
    if (rb_entities_count(sb->entities) == before) {
        rb_log(RB_LOG_WARN,
               "%s: no new shape (a shape of that name is loaded already, or the mesh was refused: the "
               "log says why)",
               path);
        return;
    }
    sb->selected_shape = (int)before;
    char text[160];
    snprintf(text, sizeof text, "added shape %s: throwing it (Tab cycles)",
             rb_entities_get(sb->entities, before)->shape->name);
    rb_sandbox_notice(sb, text);
}

void rb_sandbox_drop(rb_sandbox *sb, const char *path) {
    static const char *const meshes[] = {".obj", ".stl", ".ply", ".off", ".gltf", ".glb", ".fbx", ".dae"};
    if (ends_with(path, ".json")) {
        rb_sandbox_load_file(sb, path);
        return;
    }
    for (size_t i = 0; i < sizeof meshes / sizeof *meshes; i++)
        if (ends_with(path, meshes[i])) {
            drop_mesh(sb, path);
            return;
        }
    rb_log(RB_LOG_WARN,
           "%s: neither a scene file (.json) nor a mesh (.obj .stl .ply .off .gltf .glb .fbx .dae); "
           "nothing loaded",
           path);
}
