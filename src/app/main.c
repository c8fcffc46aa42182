/* main.c - rubble: the sandbox window, or with --headless a batch run that
 * prints a summary (README.md, "Headless runs"). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "app.h"
#include "base/clock.h"
#include "base/decimal.h"
#include "base/temps.h"
#include "record/cache.h"
#include "record/events_file.h"
#include "paths_check.h"
#include "run.h"
#include "wedge_collect.h"
#include "wedge.h"
#include "scenes/formations.h"
#ifdef RB_HAVE_SANDBOX
#include "sandbox/camera.h"
#include "sandbox/sandbox.h"
#include "sandbox/shots.h"
#endif

static int list_shapes(const rb_registry *reg, bool json) {
    for (uint32_t i = 0; i < rb_registry_count(reg); i++) {
        const rb_shape *s = rb_registry_get(reg, i);
        if (json) { /* cJSON escapes what a plugin wrote */
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "name", s->name);
            cJSON_AddStringToObject(j, "plugin", s->plugin);
            cJSON_AddNumberToObject(j, "particles", s->particle_count);
            cJSON_AddNumberToObject(j, "mass", s->mass);
            const double moments[3] = {s->inertia[0], s->inertia[1], s->inertia[2]};
            cJSON_AddItemToObject(j, "principal_moments", cJSON_CreateDoubleArray(moments, 3));
            cJSON_AddBoolToObject(j, "has_mesh", s->mesh.vertex_count > 0);
            cJSON_AddStringToObject(j, "description", s->description);
            char *text = cJSON_PrintUnformatted(j);
            printf("%s\n", text ? text : "{}");
            free(text);
            cJSON_Delete(j);
        } else {
            printf("%-16s %-8s %6u particles  %9.2f kg  I = (%.3g, %.3g, %.3g) kg m^2  %s\n", s->name, s->plugin,
                   s->particle_count, s->mass, s->inertia[0], s->inertia[1], s->inertia[2], s->description);
        }
    }
    return rb_registry_count(reg) > 0 ? 0 : 1;
}

static void print_json(const rb_options *o, const rb_scene *scene, rb_run *run, const rb_run_stats *st,
                       const rb_run_summary *s, bool ok, double build_s) {
    rb_world *w = rb_run_world(run);
    const double dt = rb_decimal(rb_world_get_desc(w)->dt), sps = st->wall_s > 0 ? o->steps / st->wall_s : 0.0;
    char digest[17];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)s->digest);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "bodies", s->bodies);
    cJSON_AddNumberToObject(j, "particles", s->particles);
    cJSON_AddNumberToObject(j, "steps", (double)o->steps);
    cJSON_AddNumberToObject(j, "dt", dt);
    cJSON_AddNumberToObject(j, "simulated_seconds", o->steps * dt);
    cJSON_AddNumberToObject(j, "wall_seconds", st->wall_s);
    cJSON_AddNumberToObject(j, "build_seconds", build_s);
    cJSON_AddNumberToObject(j, "steps_per_second", sps);
    cJSON_AddNumberToObject(j, "particle_steps_per_second", sps * s->particles);
    cJSON_AddStringToObject(j, "backend", rb_world_backend_name(w));
    cJSON_AddStringToObject(j, "device", rb_world_device_name(w));
    cJSON_AddStringToObject(j, "shape", rb_scene_shape_name(scene));
    if (o->scene)
        cJSON_AddStringToObject(j, "scene", o->scene);
    else
        cJSON_AddNumberToObject(j, "formation", o->formation);
    cJSON_AddNumberToObject(j, "max_speed", rb_decimal(s->max_speed));
    cJSON_AddNumberToObject(j, "min_y", rb_decimal(s->min_y));
    cJSON_AddNumberToObject(j, "sleeping", s->sleeping);
    cJSON_AddNumberToObject(j, "contact_overflow", (double)s->contact_overflow);
    const rb_debris *d = rb_run_debris(run);
    if (d) {
        cJSON *dj = cJSON_AddObjectToObject(j, "debris");
        cJSON_AddNumberToObject(dj, "alive", rb_debris_alive(d));
        cJSON_AddNumberToObject(dj, "spawned", (double)rb_debris_spawned(d));
        cJSON_AddNumberToObject(dj, "removed", (double)rb_debris_removed(d));
        cJSON_AddNumberToObject(dj, "breaks", (double)rb_debris_breaks(d));
        cJSON_AddNumberToObject(dj, "pieces", (double)rb_debris_pieces_made(d));
        cJSON_AddNumberToObject(dj, "impacts", (double)rb_debris_impacts(d));
        cJSON_AddNumberToObject(dj, "crowded", (double)rb_debris_crowded(d));
        cJSON_AddNumberToObject(dj, "chips_short", (double)rb_debris_chips_short(d));
        cJSON_AddNumberToObject(dj, "capped_spawns", (double)rb_debris_capped_spawns(d));
        cJSON_AddNumberToObject(dj, "capped_breaks", (double)rb_debris_capped_breaks(d));
    }
    cJSON_AddBoolToObject(j, "nan", s->nan);
    cJSON_AddStringToObject(j, "digest", digest);
    cJSON_AddBoolToObject(j, "ok", ok);
    char *text = cJSON_PrintUnformatted(j);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(j);
}

static void print_text(const rb_options *o, const rb_scene *scene, rb_run *run, const rb_run_stats *st,
                       const rb_run_summary *s, double build_s) {
    rb_world *w = rb_run_world(run);
    const float dt = rb_world_get_desc(w)->dt;
    const double sps = st->wall_s > 0 ? o->steps / st->wall_s : 0.0;
    if (o->scene)
        printf("rubble: %u bodies of '%s' (%u particles), scene %s\n", s->bodies, rb_scene_shape_name(scene),
               s->particles, o->scene);
    else
        printf("rubble: %u bodies of '%s' (%u particles), formation %d (%s)\n", s->bodies, rb_scene_shape_name(scene),
               s->particles, o->formation, rb_formation_name(o->formation));
    printf("backend %s on %s; %ld steps of %g s = %.3f s simulated in %.3f s wall (%.3f s building before)\n",
           rb_world_backend_name(w), rb_world_device_name(w), o->steps, dt, o->steps * dt, st->wall_s, build_s);
    printf("%.1f steps/s, %.3g particle-steps/s, real-time factor %.3f\n", sps, sps * s->particles, sps * dt);
    printf("max speed %.3f m/s, lowest particle point y = %.4f m, %u bodies asleep, %s, digest %016llx\n", s->max_speed,
           s->min_y, s->sleeping, s->nan ? "NaN FOUND" : "all finite", (unsigned long long)s->digest);
    if (s->contact_overflow)
        printf("%llu contacts found no free history slot and acted without static friction\n",
               (unsigned long long)s->contact_overflow);
    const rb_debris *d = rb_run_debris(run);
    if (d)
        printf("debris: %u alive; %llu spawned (%llu put off for room), %llu removed; %llu breaks made %llu bodies; "
               "%llu impacts threw chips (%llu chips short of their count: no room)\n",
               rb_debris_alive(d), (unsigned long long)rb_debris_spawned(d), (unsigned long long)rb_debris_crowded(d),
               (unsigned long long)rb_debris_removed(d), (unsigned long long)rb_debris_breaks(d),
               (unsigned long long)rb_debris_pieces_made(d), (unsigned long long)rb_debris_impacts(d),
               (unsigned long long)rb_debris_chips_short(d));
    if (d && (rb_debris_capped_spawns(d) || rb_debris_capped_breaks(d)))
        printf("the world's cap of %u bodies (world.max_bodies) skipped %llu spawns and %llu breaks\n",
               rb_world_max_bodies(w), (unsigned long long)rb_debris_capped_spawns(d),
               (unsigned long long)rb_debris_capped_breaks(d));
}

/* --record: each frame of the run into the cache. */
static bool record_frame(void *writer, double time) { return rb_cache_frame(writer, time); }

/* Where a headless run's events go: --events' file, --record's cache. */
typedef struct events_out {
    FILE *file;
    rb_cache_writer *cache;
} events_out;

static bool take_events(void *user, const rb_event *events, uint32_t count, const rb_body_id *pieces) {
    events_out *out = user;
    if (out->file && !rb_events_write_all(out->file, events, count, pieces)) {
        fprintf(stderr, "rubble: --events: a line could not be written: %s\n", strerror(errno));
        return false;
    }
    return !out->cache || rb_cache_events(out->cache, events, count, pieces);
}

/* A headless run's camera in its cache: the scene's start camera, else its
 * first camera bookmark, fixed, with the sandbox's lens
 * (src/sandbox/camera.c, rb_camera_init); none for a scene without one
 * (docs/cache-format.md, `V`). */
static void record_camera(rb_cache_writer *rec, const rb_scene *scene) {
#ifndef RB_HAVE_SANDBOX /* no sandbox, no lens: a build without the window records no camera */
    (void)rec;
    (void)scene;
#else
    if (!scene || !scene->has_camera) return;
    const rb_scene_bookmark *b = scene->start.set ? &scene->start : NULL;
    for (int i = 0; !b && i < RB_SCENE_BOOKMARKS; i++)
        if (scene->bookmarks[i].set) b = &scene->bookmarks[i];
    if (!b) return;
    rb_camera lens;
    rb_camera_init(&lens, (const float[3]){0, 0, 0}, (const float[3]){0, 0, -1});
    rb_cache_camera camera;
    rb_cache_camera_from_view(&camera, b->position, b->yaw, b->pitch, lens.fov_y, 0.0f, lens.near_m, lens.far_m);
    rb_cache_set_camera(rec, &camera);
#endif
}

/* The cache a headless run records to: --record's, or for --csv and --gltf
 * alone a temporary one (removed after the export, or by SIGINT or SIGTERM:
 * its slot in base/temps.h in *slot). False if it cannot be made. */
static bool cache_path(const rb_options *o, char *path, size_t size, int *slot) {
    if (o->record || !(o->export_csv || o->export_gltf)) {
        snprintf(path, size, "%s", o->record ? o->record : "");
        return true;
    }
    const char *dir = getenv("TMPDIR");
    dir = dir && *dir ? dir : "/tmp";
    /* noted before it is made (a signal in between still removes it), and
     * made only where nothing is: the next number on a name taken */
    for (unsigned k = 0; k < 1000; k++) {
        if (snprintf(path, size, "%s/rubble-export-%ld-%u.rbc", dir, (long)getpid(), k) >= (int)size) break;
        *slot = rb_temps_add(path);
        const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            close(fd);
            return true;
        }
        const int e = errno;
        rb_temps_remove(*slot);
        *slot = -1;
        if (e != EEXIST) {
            fprintf(stderr, "rubble: cannot make a temporary cache for --csv/--gltf in %s: %s\n", dir, strerror(e));
            return false;
        }
    }
    fprintf(stderr, "rubble: cannot make a temporary cache for --csv/--gltf in %s: no free name\n", dir);
    return false;
}

/* The temporary cache of --csv/--gltf alone removed. */
static void remove_temporary(const rb_options *o, const char *cache, int *slot) {
    if (!(o->export_csv || o->export_gltf) || o->record) return;
    remove(cache);
    rb_temps_remove(*slot);
    *slot = -1;
}

/* --csv, --gltf: the recorded cache exported as rubble export writes it. */
static bool export_run(const rb_options *o, const char *cache) {
    char err[4096 + 256];
    rb_cache *c = rb_cache_open(cache, err, sizeof err);
    const bool ok = c && rb_cache_export(c, o->export_csv, o->export_gltf, err, sizeof err);
    if (!ok) fprintf(stderr, "rubble: %s\n", err);
    rb_cache_close(c);
    return ok;
}

/* --save, --save-every: the run's state now as a scene file, whole or not at all. */
static bool save_state(rb_run *run, const char *path) {
    char err[4096 + 256];
    const rb_scene_source source = rb_stage_source(rb_run_stage(run));
    if (rb_scene_save_source(path, &source, err, sizeof err)) return true;
    fprintf(stderr, "rubble: --save %s\n", err);
    return false;
}

static void add_stats(rb_run_stats *total, const rb_run_stats *s) {
    total->steps += s->steps, total->wall_s += s->wall_s, total->cpu_s += s->cpu_s;
    for (int k = 0; k < RB_STAGE_COUNT; k++) total->stage_ms[k] += s->stage_ms[k];
    total->kernel_names = s->kernel_names, total->kernel_count = s->kernel_count;
    for (uint32_t k = 0; k < s->kernel_count && k < RB_RUN_MAX_KERNELS; k++) total->kernel_ms[k] += s->kernel_ms[k];
}

/* The run's --steps, stopping every --save-every s of simulated time (at
 * the first step at or after k S, as frames fall: run.h) to write the k-th
 * numbered file (rb_options_save_name), then --save's at the end. */
static bool steps_saving(const rb_options *o, rb_run *run, rb_run_stats *total) {
    const double dt = rb_decimal(rb_world_get_desc(rb_run_world(run))->dt);
    *total = (rb_run_stats){0};
    long done = 0;
    for (unsigned k = 1; done < o->steps || (k == 1 && o->steps == 0); k++) {
        long next = o->steps;
        if (o->save_every > 0) {
            const double at = ceil((double)k * o->save_every / dt - 1e-6);
            if (at < (double)next) next = (long)at;
        }
        rb_run_stats st;
        if (!rb_run_steps(run, next - done, "headless", !o->json && o->steps >= 2000, &st)) return false;
        add_stats(total, &st);
        done = next;
        if (o->save_every > 0 && done == (long)ceil((double)k * o->save_every / dt - 1e-6)) {
            char name[4096 + 32];
            if (!rb_options_save_name(o->save, k, name, sizeof name)) {
                fprintf(stderr, "rubble: --save-every: the name of file %u is too long\n", k);
                return false;
            }
            if (!save_state(run, name)) return false;
        }
        if (o->steps == 0) break;
    }
    return !o->save || save_state(run, o->save);
}

/* --shots: the run's pictures at simulated times (src/sandbox/shots.h),
 * their context opened before the run's world is made (dt: the step it
 * will have); *shots stays NULL without --shots. False (said on stderr)
 * when they cannot be had: a time past the run, no OpenGL context, a build
 * without the renderer. */
static bool open_shots(const rb_options *o, const rb_paths *paths, float dt, void **shots) {
    *shots = NULL;
    if (!o->shot_count) return true;
#ifdef RB_HAVE_SANDBOX
    char err[4096 + 256];
    const rb_shots_desc d = {.times = o->shots, .count = o->shot_count, .prefix = o->shot_prefix,
                             .width = o->shot_width, .height = o->shot_height, .shaders = paths->shaders,
                             .steps = o->steps};
    *shots = rb_shots_open(&d, dt, err, sizeof err);
    if (!*shots) fprintf(stderr, "rubble: %s\n", err);
    return *shots != NULL;
#else
    (void)paths, (void)dt;
    fprintf(stderr, "rubble: --shots needs the renderer, which this build has not (RB_BUILD_APP=OFF)\n");
    return false;
#endif
}

/* The shots' camera placed on the run's scene, their steps set. */
static void attach_shots(void *shots, rb_run *run) {
#ifdef RB_HAVE_SANDBOX
    if (shots) rb_shots_attach(shots, run);
#else
    (void)shots, (void)run;
#endif
}

/* Whether every shot so far was written (said on stderr if not). */
static bool shots_ok(const void *shots) {
#ifdef RB_HAVE_SANDBOX
    char err[4096 + 256];
    if (rb_shots_ok(shots, err, sizeof err)) return true;
    fprintf(stderr, "rubble: %s\n", err);
    return false;
#else
    (void)shots;
    return true;
#endif
}

/* The end of --shots: the GL context and SDL closed last, once the world
 * (its OpenCL) is gone. */
static void end_shots(void *shots) {
#ifdef RB_HAVE_SANDBOX
    rb_shots_end(shots);
#else
    (void)shots;
#endif
}

/* --headless: builds the formation, steps, prints the summary. Returns the exit code. */
static int headless(const rb_options *o, const rb_paths *paths) {
    rb_registry *reg = rb_app_registry(o, paths);
    if (!reg) return 1;
    rb_world_desc desc = rb_app_world_desc(o);
    rb_run_scene spec = {.file = o->scene, .formation = o->formation, .bodies = o->bodies};
    char err[1024];
    rb_scene *scene = rb_run_make_scene(reg, o->shape, &spec, err, sizeof err);
    if (scene) rb_app_override_world(o, &scene->world); /* --dt, --no-sleep over the scene's own */
    void *shots = NULL;
    if (scene) { /* the shots' GL context, opened before the world (src/sandbox/shots.h) */
        const rb_world_desc wd = rb_scene_world_desc(scene, &desc);
        if (!open_shots(o, paths, wd.dt, &shots)) {
            rb_scene_destroy(scene);
            rb_registry_destroy(reg);
            return 2;
        }
    }
    const double t_build = rb_seconds();
    const bool read = scene != NULL;
    const uint32_t scene_bodies = read ? scene->body_count : 0;
    /* more than memory holds is refused before anything is built (rb_stage_fits) */
    rb_run_refusal why = {0};
    rb_run *run = read ? rb_run_create(reg, scene, &desc, &why, err, sizeof err) : NULL; /* it takes the scene */
    scene = NULL; /* the run's: rb_run_get_scene */
    if (!run) {
        if (read && why.added < scene_bodies) /* a scene the world will not take whole is not run as something else */
            fprintf(stderr, "rubble: only %u of %u bodies could be added: %s\n", why.added, scene_bodies, err);
        else
            fprintf(stderr, "rubble: %s\n", err);
        rb_registry_destroy(reg);
        end_shots(shots);
        /* a scene that cannot be read or had here, or a shape that does not
         * exist, is what the command line asked: a usage error */
        return !read || why.scene ? 2 : 1;
    }
    /* the world's making (the OpenCL program's build) and the kernels' first
     * launch are timed apart from the stepping */
    if (o->steps > 0) rb_run_warm(run);
    const double build_s = rb_seconds() - t_build;
    attach_shots(shots, run);
    rb_cache_writer *rec = NULL;
    char cache[4096];
    const bool exporting = o->export_csv || o->export_gltf;
    int temp_slot = -1;
    const bool made = cache_path(o, cache, sizeof cache, &temp_slot);
    if (!made || cache[0]) {
        rec = made ? rb_cache_begin_stage(cache, rb_run_stage(run), o->record_rate, err, sizeof err) : NULL;
        if (!rec) {
            if (made) fprintf(stderr, "rubble: %s %s\n", o->record ? "--record" : "--csv/--gltf", err);
            if (made) remove_temporary(o, cache, &temp_slot);
            rb_run_destroy(run);
            rb_registry_destroy(reg);
            end_shots(shots);
            return 1;
        }
        record_camera(rec, rb_run_get_scene(run));
        rb_run_on_frames(run, o->record_rate, record_frame, rec);
    }
    /* --events: a line an event, written as the run goes; --record: the
     * events in the cache too, for a replay's markers (docs/events.md) */
    FILE *events = o->events ? fopen(o->events, "w") : NULL;
    events_out out = {.file = events, .cache = o->record ? rec : NULL};
    if ((o->events && !events) ||
        ((out.file || out.cache) && !rb_run_on_events(run, o->events_impulse, take_events, &out, err, sizeof err))) {
        fprintf(stderr, "rubble: --events %s: %s\n", o->events, events ? err : strerror(errno));
        if (events) fclose(events);
        if (rec) rb_cache_end(rec, err, sizeof err);
        remove_temporary(o, cache, &temp_slot);
        rb_run_destroy(run);
        rb_registry_destroy(reg);
        end_shots(shots);
        return 1;
    }
    rb_run_stats stats;
    bool ok = o->save ? steps_saving(o, run, &stats)
                      : rb_run_steps(run, o->steps, "headless", !o->json && o->steps >= 2000, &stats);
    if (!shots_ok(shots)) ok = false;
    if (events && fclose(events) != 0) {
        fprintf(stderr, "rubble: --events %s: %s\n", o->events, strerror(errno));
        ok = false;
    }
    if (!ok) stats.wall_s = 0.0;
    if (rec && !rb_cache_end(rec, err, sizeof err)) { /* the frames written so far still read (cache.h) */
        fprintf(stderr, "rubble: --record %s\n", err);
        ok = false;
    }
    if (ok && exporting) ok = export_run(o, cache);
    remove_temporary(o, cache, &temp_slot);
    rb_run_summary s = rb_run_summarize(run);
    ok = ok && s.ok;
    if (o->json)
        print_json(o, rb_run_get_scene(run), run, &stats, &s, ok, build_s);
    else
        print_text(o, rb_run_get_scene(run), run, &stats, &s, build_s);
    rb_run_destroy(run);
    rb_registry_destroy(reg);
    end_shots(shots);
    return ok && !s.nan ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "export")) return rb_export_main(argc - 1, argv + 1);
    if (argc > 2 && !strcmp(argv[1], "wedge") && !strcmp(argv[2], "--collect"))
        return rb_wedge_collect_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "wedge")) return rb_wedge_main(argc - 1, argv + 1);
    rb_options o;
    int code = rb_options_read(&o, RB_PROGRAM_RUBBLE, argc, argv);
    if (code >= 0) return code;
    char err[4096 + 256];
    if (!rb_options_check_paths(&o, err, sizeof err)) { /* before anything is read or written */
        fprintf(stderr, "rubble: %s\n", err);
        return 2;
    }
    if (o.list_devices) return rb_world_list_devices(stdout) > 0 ? 0 : 1;
    rb_paths paths;
    rb_paths_find(&paths, o.shader_dir);
    if (o.list_shapes) {
        rb_registry *reg = rb_app_registry(&o, &paths);
        code = reg ? list_shapes(reg, o.json) : 1;
        rb_registry_destroy(reg);
        return code;
    }
#ifdef RB_HAVE_SANDBOX
    if (!o.headless) return rb_sandbox_run(&o, &paths);
#else
    if (o.replay) {
        fprintf(stderr, "rubble: --replay needs the sandbox window, which this build has not (RB_BUILD_APP=OFF)\n");
        return 2;
    }
    if (!o.headless) fprintf(stderr, "rubble: this build has no sandbox window (RB_BUILD_APP=OFF); running headless\n");
#endif
    return headless(&o, &paths);
}
