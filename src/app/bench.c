/* bench.c - rubble-bench: named scenes timed per backend (issue 3).
 *
 *   rubble-bench [options] SCENE...      SCENE: pile N | formationK [N]
 *
 * Each scene runs to t = --warmup s untimed, then --time s timed (the pile's
 * dense landing phase is t = 2 s to 3 s, the defaults). Per run it prints
 * bodies, particles, dt, steps/s, the real-time factor (simulated seconds per
 * wall second), particle-steps/s, stage and kernel times (OpenCL profiling
 * events) and device memory per particle; --json prints one object per run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "app.h"
#include "base/log.h"
#include "scenes/formations.h"
#include "scenes/pile.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define MAX_SCENES 32

typedef struct scene {
    int formation; /* 0: the pile; 1..5: a thesis formation */
    int bodies;
} scene;

typedef struct bench_options {
    scene scenes[MAX_SCENES];
    int scene_count;
    rb_backend_kind backends[2];
    int backend_count;
    const char *shape;
    const char *plugin_dir;
    int device;
    double warmup, time; /* simulated seconds */
    float dt;            /* 0: the default */
    bool json, quiet;
} bench_options;

static void usage(FILE *out) {
    fprintf(out, "usage: rubble-bench [options] SCENE...\n"
                 "scenes:\n"
                 "  pile N           N bodies in the benchmark pile (issue 3): layers of 16 x 16 in walls at +-15 m\n"
                 "  formationK [N]   the thesis's formation K (1..5) of N bodies (default 1000)\n"
                 "options:\n"
                 "  --backend B      opencl (default), reference, or both\n"
                 "  --device I       OpenCL device index (see rubble --list-devices)\n"
                 "  --shape NAME     body shape (default cube; e.g. cube2)\n"
                 "  --plugins DIR    another shape plugin folder (the one beside the program is always read)\n"
                 "  --warmup S       simulated seconds before timing (default 2)\n"
                 "  --time S         simulated seconds timed (default 1)\n"
                 "  --dt S           step (default: the world's default)\n"
                 "  --json           one JSON object per run on stdout\n"
                 "  --quiet          no progress on stderr\n"
                 "example: rubble-bench pile 3000 pile 1000 formation1 --backend both\n");
}

static bool parse_number(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

static bool parse(bench_options *o, int argc, char **argv) {
    *o = (bench_options){
        .shape = "cube", .device = -1, .warmup = 2.0, .time = 1.0, .backend_count = 1, .backends = {RB_BACKEND_OPENCL}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--json"))
            o->json = true;
        else if (!strcmp(a, "--quiet"))
            o->quiet = true;
        else if (!strcmp(a, "--shape") && v)
            o->shape = v, i++;
        else if (!strcmp(a, "--plugins") && v)
            o->plugin_dir = v, i++;
        else if (!strcmp(a, "--device") && v && parse_number(v, 0, 1e6, &x))
            o->device = (int)x, i++;
        else if (!strcmp(a, "--warmup") && v && parse_number(v, 0, 1e6, &x))
            o->warmup = x, i++;
        else if (!strcmp(a, "--time") && v && parse_number(v, 1e-9, 1e6, &x))
            o->time = x, i++;
        else if (!strcmp(a, "--dt") && v && parse_number(v, 1e-9, 1, &x))
            o->dt = (float)x, i++;
        else if (!strcmp(a, "--backend") && v) {
            i++;
            if (!strcmp(v, "opencl"))
                o->backends[0] = RB_BACKEND_OPENCL, o->backend_count = 1;
            else if (!strcmp(v, "reference"))
                o->backends[0] = RB_BACKEND_REFERENCE, o->backend_count = 1;
            else if (!strcmp(v, "both"))
                o->backends[0] = RB_BACKEND_OPENCL, o->backends[1] = RB_BACKEND_REFERENCE, o->backend_count = 2;
            else
                return fprintf(stderr, "rubble-bench: --backend takes opencl, reference or both, not '%s'\n", v), false;
        } else if ((!strcmp(a, "pile") || !strncmp(a, "formation", 9)) && o->scene_count < MAX_SCENES) {
            scene s = {.formation = 0, .bodies = 1000};
            if (a[0] == 'f' && !(parse_number(a + 9, 1, RB_FORMATION_COUNT, &x) && (s.formation = (int)x)))
                return fprintf(stderr, "rubble-bench: unknown scene '%s' (formation1 .. formation%d)\n", a,
                               RB_FORMATION_COUNT),
                       false;
            if (v && parse_number(v, 1, 1e7, &x))
                s.bodies = (int)x, i++;
            else if (s.formation == 0)
                return fprintf(stderr, "rubble-bench: 'pile' needs a body count\n"), false;
            o->scenes[o->scene_count++] = s;
        } else {
            fprintf(stderr, "rubble-bench: unknown or incomplete argument '%s'\n", a);
            usage(stderr);
            return false;
        }
    }
    if (o->scene_count == 0) return usage(stderr), false;
    return true;
}

/* CPU seconds this process has used (all threads, user + system). */
static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

typedef struct run_result {
    long steps;
    double wall_s;
    double cpu_s; /* CPU time of the run: cpu_s / wall_s is how many cores it really had */
    double stage_ms[RB_STAGE_COUNT];
    const char *const *kernel_names; /* the backend's timed kernels (none for the reference) */
    uint32_t kernel_count;
    double kernel_ms[16];
} run_result;

/* Steps in chunks, summing stage times, showing progress on long runs. */
static bool run_steps(rb_world *w, long steps, const char *what, bool quiet, run_result *r) {
    const long chunk = 50;
    const bool tty = isatty(2);
    double t0 = rb_seconds(), last_note = t0, c0 = cpu_s();
    *r = (run_result){0};
    for (long done = 0; done < steps;) {
        long n = steps - done < chunk ? steps - done : chunk;
        if (!rb_world_step(w, (uint32_t)n)) return false;
        done += n;
        double ms[RB_STAGE_COUNT];
        rb_world_stage_times(w, ms);
        for (int s = 0; s < RB_STAGE_COUNT; s++) r->stage_ms[s] += ms[s];
        double kms[16];
        r->kernel_count = rb_world_kernel_times(w, &r->kernel_names, kms, 16);
        if (r->kernel_count > 16) r->kernel_count = 16;
        for (uint32_t k = 0; k < r->kernel_count; k++) r->kernel_ms[k] += kms[k];
        double t = rb_seconds();
        if (!quiet && (tty || t - last_note > 10.0) && t - t0 > 1.0) {
            fprintf(stderr, tty ? "\r  %s: step %ld / %ld, %.0f steps/s   " : "  %s: step %ld / %ld, %.0f steps/s\n",
                    what, done, steps, done / (t - t0));
            last_note = t;
        }
    }
    r->steps = steps;
    r->wall_s = rb_seconds() - t0;
    r->cpu_s = cpu_s() - c0;
    if (!quiet && tty && r->wall_s > 1.0) fprintf(stderr, "\r%60s\r", "");
    return true;
}

static const char *scene_name(const scene *s, char *buf, size_t size) {
    if (s->formation)
        snprintf(buf, size, "formation%d %d", s->formation, s->bodies);
    else
        snprintf(buf, size, "pile %d", s->bodies);
    return buf;
}

static void print_text(const char *name, const rb_shape *shape, rb_world *w, const run_result *r, double t_start) {
    const rb_world_desc *d = rb_world_get_desc(w);
    const uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    const double sps = r->steps / r->wall_s;
    printf("%s (%s) on %s [%s]\n", name, shape->name, rb_world_backend_name(w), rb_world_device_name(w));
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
    printf("  device memory %.2f MiB, %.1f bytes/particle\n", bytes / 1048576.0, np ? (double)bytes / np : 0.0);
    fflush(stdout);
}

static void print_json(const char *name, const rb_shape *shape, rb_world *w, const run_result *r, double t_start) {
    const rb_world_desc *d = rb_world_get_desc(w);
    const uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    const double sps = r->steps / r->wall_s;
    const size_t bytes = rb_world_device_bytes(w);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scene", name);
    cJSON_AddStringToObject(j, "shape", shape->name);
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
    char *text = cJSON_PrintUnformatted(j);
    printf("%s\n", text);
    fflush(stdout);
    free(text);
    cJSON_Delete(j);
}

static bool run_scene(const bench_options *o, const scene *sc, rb_backend_kind backend, const rb_shape *shape) {
    char name[64];
    scene_name(sc, name, sizeof name);
    rb_world_desc desc = rb_default_world_desc();
    desc.backend = backend;
    desc.device_index = o->device;
    if (o->dt > 0.0f) desc.dt = o->dt;
    if (sc->formation == 0) rb_pile_planes(&desc);
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) return fprintf(stderr, "rubble-bench: %s: %s\n", name, err), false;
    int ws = rb_scene_add_shape(w, shape);
    int added = ws < 0               ? 0
                : sc->formation == 0 ? (int)rb_pile_build(w, (uint32_t)sc->bodies, (uint32_t)ws)
                                     : rb_formation_build(w, sc->formation, sc->bodies, (uint32_t)ws, shape);
    if (added != sc->bodies) {
        fprintf(stderr, "rubble-bench: %s: only %d of %d bodies could be added\n", name, added, sc->bodies);
        rb_world_destroy(w);
        return false;
    }
    const double dt = rb_world_get_desc(w)->dt;
    const long warm_steps = lround(o->warmup / dt), timed_steps = lround(o->time / dt);
    char what[128];
    snprintf(what, sizeof what, "%s %s warm-up", name, rb_world_backend_name(w));
    run_result r;
    bool ok = run_steps(w, warm_steps, what, o->quiet, &r);
    snprintf(what, sizeof what, "%s %s timed", name, rb_world_backend_name(w));
    ok = ok && run_steps(w, timed_steps > 0 ? timed_steps : 1, what, o->quiet, &r);
    if (ok)
        (o->json ? print_json : print_text)(name, shape, w, &r, warm_steps * dt);
    else
        fprintf(stderr, "rubble-bench: %s: stepping failed\n", name);
    rb_world_destroy(w);
    return ok;
}

int main(int argc, char **argv) {
    bench_options o;
    if (!parse(&o, argc, argv)) return 2;
    /* The program's own plugin folders (and mesh folders), plus --plugins DIR */
    rb_options ro;
    rb_options_defaults(&ro);
    if (o.plugin_dir) ro.plugin_dirs[ro.plugin_dir_count++] = o.plugin_dir;
    rb_registry *reg = rb_app_registry(&ro);
    if (!reg) return fprintf(stderr, "rubble-bench: cannot create the shape registry\n"), 2;
    int si = rb_registry_find(reg, o.shape);
    if (si < 0) {
        fprintf(stderr, "rubble-bench: no shape '%s' (is the plugin folder found? try --plugins DIR)\n", o.shape);
        rb_registry_destroy(reg);
        return 2;
    }
    const rb_shape *shape = rb_registry_get(reg, (uint32_t)si);
    bool ok = true;
    for (int s = 0; s < o.scene_count; s++)
        for (int b = 0; b < o.backend_count; b++) ok = run_scene(&o, &o.scenes[s], o.backends[b], shape) && ok;
    rb_registry_destroy(reg);
    return ok ? 0 : 1;
}
