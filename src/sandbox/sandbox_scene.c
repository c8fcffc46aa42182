/* sandbox_scene.c - the sandbox's part of the scene on the stage
 * (scenes/stage.h: the world, its entity table, the scene and its debris
 * layer): installing one (a formation, a scene file, a dropped file) with
 * what only the sandbox holds (the grab ended, the camera bookmarks, the
 * pick meshes, the file name), resetting to it, saving the world (Ctrl+S)
 * and loading it back (Ctrl+O); dropped meshes and rescans (L) with the
 * renderer's meshes of the shapes they add, and of broken bodies' pieces.
 * A scene that cannot be read or built leaves the current world as it was. */
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
#include "base/replace.h"
#include "sandbox_internal.h"
#include "scenes/formations.h"

/* A scene loaded, not a reset: its camera bookmarks, if it has them; from
 * a file, the camera at its start view (camera.start), or without one its
 * bodies framed by the loop once the frame's actions are done
 * (sandbox_frame.c). */
static void take_camera(rb_sandbox *sb, const rb_scene *scene, bool from_file) {
    if (scene->has_camera) memcpy(sb->bookmarks, scene->bookmarks, sizeof sb->bookmarks);
    if (!from_file) return;
    if (scene->start.set) rb_camera_place(&sb->camera, scene->start.position, scene->start.yaw, scene->start.pitch);
    sb->look.frame_pending = !scene->start.set;
}

bool rb_sandbox_install_scene(rb_sandbox *sb, rb_scene *scene, const char *file, char *err, size_t err_size) {
    rb_stage_how how = {.world = rb_scene_world_desc(scene, rb_world_get_desc(rb_sandbox_live_world(sb))),
                        /* a reset (a formation, R) keeps the world when it can: no new OpenCL program */
                        .keep_world = !file,
                        .debris_optional = true};
    rb_app_override_world(&sb->opts, &how.world); /* --dt, --no-sleep over a scene's own */
    const bool reset = scene == rb_stage_scene(sb->stage);
    const uint64_t world = rb_stage_world_number(sb->stage);
    if (!rb_stage_install(sb->stage, scene, &how, NULL, err, err_size)) {
        rb_log(RB_LOG_ERROR, "%s", err);
        return false;
    }
    rb_grab_end(&sb->hands.grab);
    if (!reset) take_camera(sb, scene, file != NULL); /* the stage's scene now */
    if (rb_stage_world_number(sb->stage) != world) {
        sb->shapes_meshed = 0; /* the new world's shapes: its pieces' are yet to be meshed */
        rb_pick_meshes_forget(sb->look.pick_meshes);
    }
    snprintf(sb->scene_file, sizeof sb->scene_file, "%s", file ? file : "");
    if (file) sb->formation = 0;
    sb->steps_clock.accumulator = 0.0;
    return true;
}

void rb_sandbox_reset(rb_sandbox *sb, int formation) {
    char err[1024];
    if (formation == 0 && rb_stage_scene(sb->stage)) { /* R: the scene as it was installed */
        char file[4096];
        snprintf(file, sizeof file, "%s", sb->scene_file);
        rb_sandbox_install_scene(sb, rb_stage_scene(sb->stage), file[0] ? file : NULL, err, sizeof err);
        return;
    }
    if (formation < 1 || formation > RB_FORMATION_COUNT) formation = 1;
    if (sb->formation_shape < 0 || sb->opts.bodies <= 0) return;
    const char *shape = rb_entities_get(rb_sandbox_table(sb), (uint32_t)sb->formation_shape)->shape->name;
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
        rb_log(RB_LOG_ERROR, "%s%s", err, rb_stage_scene(sb->stage) ? " (the current scene is kept)" : "");
        snprintf(sb->load_refusal, sizeof sb->load_refusal, "%s", rb_log_last_error());
        return false;
    }
    if (!rb_sandbox_install_scene(sb, scene, path, err, sizeof err)) return false;
    /* an earlier load's refusal, if the HUD still shows it, no longer holds
     * ("the current scene is kept"); any other error or warning stays */
    if (sb->load_refusal[0] && strcmp(rb_log_last_error(), sb->load_refusal) == 0) rb_log_clear_last_error();
    sb->load_refusal[0] = '\0';
    rb_sandbox_notice(sb, "loaded %.600s", path);
    rb_log(RB_LOG_INFO, "scene loaded from %s", path);
    return true;
}

bool rb_sandbox_save_as(rb_sandbox *sb, const char *path) {
    char name[sizeof sb->last_saved], err[1024];
    if (path) {
        snprintf(name, sizeof name, "%s", path);
    } else { /* a name of its own: a second save in the same second gets -2 (base/replace.h) */
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stem[64];
        strftime(stem, sizeof stem, "rubble-scene-%Y%m%d-%H%M%S", &tm);
        if (!rb_replace_unused_name(stem, ".json", name, sizeof name)) {
            rb_log(RB_LOG_ERROR, "scene not saved: %s.json and its numbered names are all taken", stem);
            rb_sandbox_notice(sb, "not saved: %s.json and its numbered names are all taken", stem);
            return false;
        }
    }
    rb_scene_source source = rb_stage_source(sb->stage);
    source.bookmarks = sb->bookmarks;
    /* the camera as it is: where the scene opens when loaded (camera.start) */
    rb_scene_bookmark start = {.set = true, .yaw = sb->camera.yaw, .pitch = sb->camera.pitch};
    memcpy(start.position, sb->camera.position, sizeof start.position);
    if (sb->look.ctrl_held) /* Ctrl+S: Ctrl alone flies down; the eye from before it went down */
        memcpy(start.position, sb->look.before_ctrl, sizeof start.position);
    source.start = &start;
    /* a chosen name is replaced; a made one never written over */
    if (!(path ? rb_scene_save_source : rb_scene_save_new)(name, &source, err, sizeof err)) {
        rb_log(RB_LOG_ERROR, "%s", err);
        rb_sandbox_notice(sb, "%.900s", err);
        return false;
    }
    snprintf(sb->last_saved, sizeof sb->last_saved, "%s", name);
    rb_sandbox_notice(sb, "saved %s (Ctrl+O loads it)", name);
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

/* The longest path of a link in the drop folder, and the buffers for it. */
#define RB_DROP_LINK_MAX (sizeof((rb_sandbox *)0)->drop_dir + PATH_MAX)

/* Links file (and its side file FILE.json, if any) into the session's drop
 * folder, one the mesh plugin searches; the link's path into link. */
static bool link_into_drops(rb_sandbox *sb, const char *file, char *link, size_t link_size) {
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
    char real[PATH_MAX], side[PATH_MAX + 8], side_link[RB_DROP_LINK_MAX + 8];
    if (!realpath(file, real)) {
        rb_log(RB_LOG_ERROR, "%s: cannot open: %s", file, strerror(errno));
        return false;
    }
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    const int n = snprintf(link, link_size, "%s/%s", sb->drop_dir, base);
    if (n < 0 || (size_t)n >= link_size) {
        rb_log(RB_LOG_ERROR, "%s: its name is too long to link into %s", file, sb->drop_dir);
        return false;
    }
    unlink(link);
    if (symlink(real, link) != 0) {
        rb_log(RB_LOG_ERROR, "%s: cannot link it into %s: %s", file, sb->drop_dir, strerror(errno));
        return false;
    }
    snprintf(side, sizeof side, "%s.json", real);
    if (access(side, R_OK) == 0) {
        snprintf(side_link, sizeof side_link, "%s.json", link);
        unlink(side_link);
        if (symlink(side, side_link) != 0)
            rb_log(RB_LOG_WARN, "%s: its side file is not used: %s", file, strerror(errno));
    }
    return true;
}

/* A dropped mesh the plugin refused leaves the drop folder, so that later
 * drops do not read it again and say its error again. */
static void unlink_drop(const char *link) {
    char side_link[RB_DROP_LINK_MAX + 8];
    snprintf(side_link, sizeof side_link, "%s.json", link);
    unlink(link);
    unlink(side_link);
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
    char link[RB_DROP_LINK_MAX], why[1024];
    if (!link_into_drops(sb, path, link, sizeof link)) return;
    const uint32_t before = rb_entities_count(rb_sandbox_table(sb));
    rb_log_capture(link, why, sizeof why); /* the plugin reads the folder whole: what it says of this file */
    rb_registry_reload(sb->registry);
    rb_log_capture(NULL, NULL, 0);
    rb_sandbox_sync_shapes(sb);
    if (rb_entities_count(rb_sandbox_table(sb)) == before) {
        /* the plugin's reason names the link in the session's folder: said again of the file dropped */
        const char *at = why[0] ? strstr(why, link) : NULL;
        if (at) {
            rb_log(RB_LOG_ERROR, "%s%s (no shape added)", path, at + strlen(link));
            unlink_drop(link);
        } else {
            rb_log(RB_LOG_WARN, "%s: no new shape: a shape of that name is loaded already", path);
        }
        return;
    }
    sb->selected_shape = (int)before;
    rb_sandbox_notice(sb, "added shape %s: throwing it (Tab cycles)",
                      rb_entities_get(rb_sandbox_table(sb), before)->shape->name);
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

/* ---- shapes and their meshes ---- */

/* Gives row i its shape's mesh in the renderer, if it has one. */
static void mesh_row(rb_sandbox *sb, uint32_t i) {
    const rb_mesh *m = &rb_entities_get(rb_sandbox_table(sb), i)->shape->mesh;
    if (m->vertex_count > 0)
        rb_entities_set_mesh(
            rb_sandbox_table(sb), i,
            rb_renderer_add_mesh(sb->renderer, m->positions, m->normals, m->vertex_count, m->indices, m->index_count));
}

void rb_sandbox_sync_shapes(rb_sandbox *sb) {
    const uint32_t replaced = rb_entities_replaced(rb_sandbox_table(sb));
    rb_entities_sync(rb_sandbox_table(sb));
    if (rb_entities_replaced(rb_sandbox_table(sb)) != replaced) /* a replaced row has no mesh until given the new one */
        for (uint32_t i = 0; i < sb->meshed; i++)
            if (rb_entities_get(rb_sandbox_table(sb), i)->mesh < 0) mesh_row(sb, i);
    for (; sb->meshed < rb_entities_count(rb_sandbox_table(sb)); sb->meshed++) mesh_row(sb, sb->meshed);
}

void rb_sandbox_mesh_pieces(rb_sandbox *sb) {
    const uint32_t n = rb_world_shape_count(rb_sandbox_live_world(sb));
    for (; sb->shapes_meshed < n; sb->shapes_meshed++) {
        const uint32_t ws = sb->shapes_meshed;
        if (rb_entities_of_world_shape(rb_sandbox_table(sb), ws) >= 0) continue; /* a row's: its mesh is the row's */
        const uint32_t count = rb_world_shape_particles(rb_sandbox_live_world(sb), ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (count ? count : 1));
        rb_mesh m;
        /* a broken body's piece: its part of the body's mesh if the debris layer cut one, else its cells */
        if (rb_debris_piece_mesh(rb_stage_debris(sb->stage), ws, &m) ||
            (p && count == rb_world_shape_particles(rb_sandbox_live_world(sb), ws, p, count, NULL) &&
             rb_cell_mesh(p, count, rb_world_shape_radius(rb_sandbox_live_world(sb), ws), &m))) {
            const int mesh = rb_renderer_add_mesh_marked(sb->renderer, m.positions, m.normals, m.inside, m.vertex_count,
                                                         m.indices, m.index_count);
            if (mesh >= 0 && rb_entities_set_shape_mesh(rb_sandbox_table(sb), ws, mesh))
                rb_pick_meshes_take(sb->look.pick_meshes, rb_sandbox_live_world(sb), ws,
                                    &m); /* picked as it is drawn */
            rb_mesh_free(&m);
        } /* else drawn as its particles */
        free(p);
    }
}

void rb_sandbox_rescan(rb_sandbox *sb) {
    const uint32_t replaced = rb_registry_replaced(sb->registry);
    const int added = rb_registry_rescan(sb->registry);
    const uint32_t renewed = rb_registry_replaced(sb->registry) - replaced;
    rb_sandbox_sync_shapes(sb);
    if (sb->selected_shape < 0 && rb_entities_count(rb_sandbox_table(sb)) > 0) sb->selected_shape = 0;
    rb_sandbox_notice(sb, "plugins and meshes rescanned: %d new shape%s, %u replaced", added, added == 1 ? "" : "s",
                      renewed);
}
