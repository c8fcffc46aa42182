/* bench.c - rubble-bench: named scenes timed per backend.
 *
 *   rubble-bench [options] SCENE...      SCENE: pile N | formationK [N] | repose [N] | FILE.json
 *
 * Each scene runs to t = --warmup s untimed, then --time s timed (the pile's
 * dense landing phase is t = 2 s to 3 s, the defaults), through the headless
 * runner (run.h). Per run it prints bodies, particles, dt, steps/s, the
 * real-time factor (simulated seconds per wall second), particle-steps/s,
 * stage and kernel times (OpenCL profiling events), device memory per
 * particle and the digest of the state at the end; --json prints one object
 * per run. --save FILE writes the state where timing starts as a scene file,
 * so that a profiler can take the timed steps alone (scripts/profile).
 * README.md, "Benchmarks", defines the pile and gives figures.
 *
 * `repose N` is a measurement more than a timing: N spheres poured onto a
 * rough disc, the angle of repose of the heap they make (repose.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "app.h"
#include "base/log.h"
#include "bench.h"
#include "run.h"
#include "scenes/stage.h"

static const char *scene_name(const rb_run_scene *s, char *buf, size_t size) {
    if (s->file)
        snprintf(buf, size, "%s", s->file);
    else if (s->formation)
        snprintf(buf, size, "formation%d %d", s->formation, s->bodies);
    else
        snprintf(buf, size, "pile %d", s->bodies);
    return buf;
}

static void print_text(const char *name, const char *shape, rb_run *run, const rb_run_stats *r, double t_start,
                       bool nan) {
    rb_world *w = rb_run_world(run);
    const rb_world_desc *d = rb_world_get_desc(w);
    const uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    const double sps = r->steps / r->wall_s;
    printf("%s (%s) on %s [%s]\n", name, shape, rb_world_backend_name(w), rb_world_device_name(w));
    printf("  bodies %u, particles %u, dt %g s, timed t = %g .. %g s (%ld steps)\n", nb, np, d->dt, t_start,
           t_start + r->steps * d->dt, r->steps);
    printf("  %.2f s wall: %.1f steps/s, real-time factor %.3f, %.2f M particle-steps/s\n", r->wall_s, sps, sps * d->dt,
           sps * np * 1e-6);
    printf("  %.2f s CPU: %.2f cores busy on average (the machine may be shared)\n", r->cpu_s, r->cpu_s / r->wall_s);
    printf("  stages, ms/step:");
    for (int s = 0; s < RB_STAGE_COUNT; s++) printf(" %s %.3f", rb_stage_names[s], r->stage_ms[s] / r->steps);
    printf("\n");
    if (r->kernel_count > 0) {
        printf("  kernels, ms/step:");
        for (uint32_t k = 0; k < r->kernel_count; k++)
            printf(" %s %.3f", r->kernel_names[k], r->kernel_ms[k] / r->steps);
        printf("\n");
    }
    size_t bytes = rb_world_device_bytes(w);
    printf("  device memory %.2f MiB, %.1f bytes/particle; %llu contacts without a history slot (of %u a "
           "particle); digest %016llx\n",
           bytes / 1048576.0, np ? (double)bytes / np : 0.0, (unsigned long long)rb_world_contact_overflow(w),
           rb_world_contact_slots(w), (unsigned long long)rb_world_digest(w));
    const double body_steps = (double)nb * (double)r->steps;
    printf("  sleeping bodies left out of %.1f%% of the body-steps, of the grid %.1f%% (README, \"Sleeping bodies "
           "rest\"); %s\n",
           body_steps > 0.0 ? 100.0 * (double)r->rested / body_steps : 0.0,
           body_steps > 0.0 ? 100.0 * (double)r->off_grid / body_steps : 0.0,
           nan ? "NaN FOUND: a body's state is not finite" : "all finite");
    fflush(stdout);
}

static void print_json(const char *name, const char *shape, rb_run *run, const rb_run_stats *r, double t_start,
                       bool nan) {
    rb_world *w = rb_run_world(run);
    const rb_world_desc *d = rb_world_get_desc(w);
    const uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    const double sps = r->steps / r->wall_s;
    const size_t bytes = rb_world_device_bytes(w);
    char digest[17];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)rb_world_digest(w));
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scene", name);
    cJSON_AddStringToObject(j, "shape", shape);
    cJSON_AddStringToObject(j, "backend", rb_world_backend_name(w));
    cJSON_AddStringToObject(j, "device", rb_world_device_name(w));
    cJSON_AddNumberToObject(j, "bodies", nb);
    cJSON_AddNumberToObject(j, "particles", np);
    cJSON_AddNumberToObject(j, "dt", d->dt);
    cJSON_AddNumberToObject(j, "t_start", t_start);
    cJSON_AddNumberToObject(j, "steps", (double)r->steps);
    cJSON_AddNumberToObject(j, "wall_s", r->wall_s);
    cJSON_AddNumberToObject(j, "cpu_s", r->cpu_s);
    cJSON_AddNumberToObject(j, "steps_per_s", sps);
    cJSON_AddNumberToObject(j, "real_time_factor", sps * d->dt);
    cJSON_AddNumberToObject(j, "particle_steps_per_s", sps * np);
    cJSON *stages = cJSON_AddObjectToObject(j, "stage_ms_per_step");
    for (int s = 0; s < RB_STAGE_COUNT; s++)
        cJSON_AddNumberToObject(stages, rb_stage_names[s], r->stage_ms[s] / r->steps);
    if (r->kernel_count > 0) {
        cJSON *kernels = cJSON_AddObjectToObject(j, "kernel_ms_per_step");
        for (uint32_t k = 0; k < r->kernel_count; k++)
            cJSON_AddNumberToObject(kernels, r->kernel_names[k], r->kernel_ms[k] / r->steps);
    }
    cJSON_AddNumberToObject(j, "device_bytes", (double)bytes);
    cJSON_AddNumberToObject(j, "device_bytes_per_particle", np ? (double)bytes / np : 0.0);
    cJSON_AddNumberToObject(j, "contact_overflow", (double)rb_world_contact_overflow(w));
    cJSON_AddNumberToObject(j, "contact_slots", rb_world_contact_slots(w));
    cJSON_AddNumberToObject(j, "rested_body_steps", (double)r->rested);
    cJSON_AddNumberToObject(j, "off_grid_body_steps", (double)r->off_grid);
    cJSON_AddBoolToObject(j, "nan", nan);
    cJSON_AddStringToObject(j, "digest", digest);
    char *text = cJSON_PrintUnformatted(j);
    printf("%s\n", text);
    fflush(stdout);
    free(text);
    cJSON_Delete(j);
}

/* Runs one scene on one backend and prints its figures: 0, or as rubble's
 * headless run exits (src/app/main.c), 2 where the scene cannot be read or
 * had here (the command line asked for it) and 1 where the run failed (a
 * backend call, NaN, a --save that could not be written). */
static int bench_scene(const rb_options *o, const rb_registry *reg, const rb_run_scene *scene,
                       rb_backend_kind backend) {
    char name[256], err[4096 + 256];
    scene_name(scene, name, sizeof name);
    rb_world_desc desc = rb_app_world_desc(o);
    desc.backend = backend;
    rb_scene *sc = rb_run_make_scene(reg, o->shape, scene, err, sizeof err);
    if (sc) rb_app_override_world(o, &sc->world); /* --dt, --no-sleep, --friction, --rolling over the scene's own */
    const uint32_t bodies = sc ? sc->body_count : 0;
    rb_run_refusal why = {0};
    rb_run *run = sc ? rb_run_create(reg, sc, &desc, &why, err, sizeof err) : NULL; /* it takes the scene */
    if (!run) {
        if (sc && why.added < bodies)
            fprintf(stderr, "rubble-bench: %s: only %u of %u bodies could be added: %s\n", name, why.added, bodies,
                    err);
        else if (scene->file) /* a scene file's message starts with its name */
            fprintf(stderr, "rubble-bench: %s\n", err);
        else
            fprintf(stderr, "rubble-bench: %s: %s\n", name, err);
        return !sc || why.scene ? 2 : 1;
    }
    rb_world *w = rb_run_world(run);
    const double dt = rb_world_get_desc(w)->dt;
    const long warm_steps = lround(o->warmup / dt), timed_steps = lround(o->time / dt);
    char label[400];
    snprintf(label, sizeof label, "%s %s warm-up", name, rb_world_backend_name(w));
    rb_run_stats r;
    bool stepped = rb_run_steps(run, warm_steps, label, !o->quiet, &r), saved = true;
    if (stepped && o->save) { /* the state where timing starts: `rubble-bench FILE --warmup 0` times the same steps */
        const rb_scene_source source = rb_stage_source(rb_run_stage(run));
        saved = rb_scene_save_source(o->save, &source, err, sizeof err);
        if (!saved) fprintf(stderr, "rubble-bench: --save %s\n", err);
    }
    snprintf(label, sizeof label, "%s %s timed", name, rb_world_backend_name(w));
    stepped = stepped && saved && rb_run_steps(run, timed_steps > 0 ? timed_steps : 1, label, !o->quiet, &r);
    /* as a headless run (src/app/main.c): a run that went NaN is reported, and fails */
    const bool nan = stepped && rb_run_summarize(run).nan;
    if (stepped)
        (o->json ? print_json : print_text)(name, rb_scene_shape_name(rb_run_get_scene(run)), run, &r, warm_steps * dt,
                                            nan);
    else if (saved)
        fprintf(stderr, "rubble-bench: %s: stepping failed\n", name);
    if (nan) fprintf(stderr, "rubble-bench: %s: the run went NaN (a body's state is not finite)\n", name);
    rb_run_destroy(run);
    return stepped && !nan ? 0 : 1;
}

int main(int argc, char **argv) {
    rb_log_set_program("rubble-bench");
    rb_options o;
    int code = rb_options_read(&o, RB_PROGRAM_BENCH, argc, argv);
    if (code >= 0) return code;
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_registry *reg = rb_app_registry(&o, &paths);
    if (!reg) return fprintf(stderr, "rubble-bench: cannot create the shape registry\n"), 2;
    bool files_only = true;
    for (int s = 0; s < o.scene_count; s++) files_only &= o.scenes[s].file != NULL || o.scenes[s].repose;
    if (!files_only && rb_registry_find(reg, o.shape) < 0) {
        fprintf(stderr, "rubble-bench: no shape '%s' (is the plugin folder found? try --plugins DIR)\n", o.shape);
        rb_registry_destroy(reg);
        return 2;
    }
    const rb_backend_kind backends[2] = {RB_BACKEND_OPENCL, RB_BACKEND_REFERENCE};
    const int backend_count = o.both_backends ? 2 : 1;
    int status = 0; /* the worst of the runs': 2, a scene that cannot be had; 1, a run that failed */
    for (int s = 0; s < o.scene_count; s++)
        for (int b = 0; b < backend_count; b++) {
            const rb_backend_kind backend = o.both_backends ? backends[b] : o.backend;
            const int run_code = o.scenes[s].repose ? (rb_bench_repose(&o, &o.scenes[s], backend) ? 0 : 1)
                                                    : bench_scene(&o, reg, &o.scenes[s], backend);
            if (run_code > status) status = run_code;
        }
    rb_registry_destroy(reg);
    return status;
}
