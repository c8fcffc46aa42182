/* main.c - rubble: the sandbox, or with --headless a batch run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "app.h"
#include "base/log.h"
#include "paths.h"
#include "scenes/formations.h"
#ifdef RB_HAVE_OPENCL_BACKEND
#include "sim/opencl.h"
#endif
#ifdef RB_HAVE_SANDBOX
#include "sandbox.h"
#endif

static int list_shapes(const rb_registry *reg, bool json) {
    for (uint32_t i = 0; i < rb_registry_count(reg); i++) {
        const rb_shape *s = rb_registry_get(reg, i);
        if (json)
            printf("{\"name\":\"%s\",\"plugin\":\"%s\",\"particles\":%u,\"mass\":%.6g,\"principal_moments\":[%.6g,%.6g,"
                   "%.6g],"
                   "\"has_mesh\":%s}\n",
                   s->name, s->plugin, s->particle_count, s->mass, s->inertia[0], s->inertia[1], s->inertia[2],
                   s->mesh.vertex_count ? "true" : "false");
        else
            printf("%-16s %-8s %6u particles  %9.2f kg  I = (%.3g, %.3g, %.3g) kg m^2  %s\n", s->name, s->plugin,
                   s->particle_count, s->mass, s->inertia[0], s->inertia[1], s->inertia[2], s->description);
    }
    return rb_registry_count(reg) > 0 ? 0 : 1;
}

/* A float as the shortest decimal that reads back as it (0.001, not 0.0010000000474974513). */
static double decimal(float f) {
    char text[32];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, f);
        if (strtof(text, NULL) == f) break;
    }
    return strtod(text, NULL);
}

/* Steps in chunks so a long run can show its progress on a terminal. */
static bool run_steps(rb_world *w, long steps, bool progress) {
    const long chunk = 100;
    for (long done = 0; done < steps;) {
        long n = steps - done < chunk ? steps - done : chunk;
        if (!rb_world_step(w, (uint32_t)n)) return false;
        done += n;
        if (progress) fprintf(stderr, "\rstep %ld / %ld (%3.0f%%)", done, steps, 100.0 * done / steps);
    }
    if (progress) fprintf(stderr, "\r%40s\r", "");
    return true;
}

int rb_headless_run(const rb_options *o) {
    rb_registry *reg = rb_app_registry(o);
    if (!reg) return 1;
    int shape_index = rb_registry_find(reg, o->shape);
    if (shape_index < 0) {
        fprintf(stderr, "rubble: no shape named '%s'; the shapes are:", o->shape);
        for (uint32_t i = 0; i < rb_registry_count(reg); i++) fprintf(stderr, " %s", rb_registry_get(reg, i)->name);
        fprintf(stderr, "\n");
        rb_registry_destroy(reg);
        return 2;
    }
    const rb_shape *shape = rb_registry_get(reg, (uint32_t)shape_index);
    rb_world_desc desc = rb_app_world_desc(o);
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) {
        fprintf(stderr, "rubble: cannot create the world: %s\n", err);
        rb_registry_destroy(reg);
        return 1;
    }
    int ws = rb_scene_add_shape(w, shape);
    int added = ws < 0 ? 0 : rb_formation_build(w, o->formation, o->bodies, (uint32_t)ws, shape);
    if (added != o->bodies) fprintf(stderr, "rubble: only %d of %d bodies could be added\n", added, o->bodies);

    double t0 = rb_seconds();
    bool ok = run_steps(w, o->steps, !o->json && isatty(STDERR_FILENO) && o->steps >= 2000);
    double wall = rb_seconds() - t0;

    uint32_t nb = rb_world_body_count(w), np = rb_world_particle_count(w);
    float max_speed = 0.0f, min_y = INFINITY;
    bool nan = false;
    for (uint32_t b = 0; b < nb && ok; b++) {
        rb_body_state s;
        ok = rb_world_get_body(w, b, &s);
        if (!ok) break;
        float v = sqrtf(s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2]);
        for (int k = 0; k < 3; k++)
            nan |= !isfinite(s.position[k]) || !isfinite(s.velocity[k]) || !isfinite(s.angular_momentum[k]);
        for (int k = 0; k < 4; k++) nan |= !isfinite(s.orientation[k]);
        if (v > max_speed) max_speed = v;
    }
    float *particles = malloc(sizeof(float) * 3 * (np ? np : 1));
    if (!particles || !rb_world_read_particles(w, particles))
        ok = false;
    else
        for (uint32_t i = 0; i < np; i++) {
            nan |= !isfinite(particles[3 * i + 1]);
            if (particles[3 * i + 1] < min_y) min_y = particles[3 * i + 1];
        }
    free(particles);
    if (!isfinite(min_y)) min_y = 0.0f; /* no particles read */
    min_y -= desc.particle_radius;      /* the lowest point of any particle */
    char digest[17];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)rb_world_digest(w));
    double sps = wall > 0 ? o->steps / wall : 0.0;

    if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "bodies", nb);
        cJSON_AddNumberToObject(j, "particles", np);
        cJSON_AddNumberToObject(j, "steps", (double)o->steps);
        cJSON_AddNumberToObject(j, "dt", decimal(desc.dt));
        cJSON_AddNumberToObject(j, "simulated_seconds", o->steps * decimal(desc.dt));
        cJSON_AddNumberToObject(j, "wall_seconds", wall);
        cJSON_AddNumberToObject(j, "steps_per_second", sps);
        cJSON_AddNumberToObject(j, "particle_steps_per_second", sps * np);
        cJSON_AddStringToObject(j, "backend", rb_world_backend_name(w));
        cJSON_AddStringToObject(j, "device", rb_world_device_name(w));
        cJSON_AddStringToObject(j, "shape", shape->name);
        cJSON_AddNumberToObject(j, "formation", o->formation);
        cJSON_AddNumberToObject(j, "max_speed", decimal(max_speed));
        cJSON_AddNumberToObject(j, "min_y", nb ? decimal(min_y) : 0.0);
        cJSON_AddBoolToObject(j, "nan", nan);
        cJSON_AddStringToObject(j, "digest", digest);
        cJSON_AddBoolToObject(j, "ok", ok);
        char *text = cJSON_PrintUnformatted(j);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(j);
    } else {
        printf("rubble: %u bodies of '%s' (%u particles), formation %d (%s)\n", nb, shape->name, np, o->formation,
               rb_formation_name(o->formation));
        printf("backend %s on %s; %ld steps of %g s = %.3f s simulated in %.3f s wall\n", rb_world_backend_name(w),
               rb_world_device_name(w), o->steps, desc.dt, o->steps * desc.dt, wall);
        printf("%.1f steps/s, %.3g particle-steps/s, real-time factor %.3f\n", sps, sps * np, sps * desc.dt);
        printf("max speed %.3f m/s, lowest particle point y = %.4f m, %s, digest %s\n", max_speed, nb ? min_y : 0.0,
               nan ? "NaN FOUND" : "all finite", digest);
    }
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    return ok && !nan ? 0 : 1;
}

int main(int argc, char **argv) {
    rb_options o;
    rb_options_defaults(&o);
    char err[256];
    if (!rb_options_parse(&o, argc, argv, err, sizeof err)) {
        fprintf(stderr, "rubble: %s\n\n", err);
        rb_options_usage(stderr);
        return 2;
    }
    if (o.help) {
        rb_options_usage(stdout);
        return 0;
    }
    if (o.list_devices) {
#ifdef RB_HAVE_OPENCL_BACKEND
        return rb_opencl_list_devices(stdout) > 0 ? 0 : 1;
#else
        fprintf(stderr, "rubble: this build has no OpenCL backend\n");
        return 1;
#endif
    }
    if (o.list_shapes) {
        rb_registry *reg = rb_app_registry(&o);
        int code = reg ? list_shapes(reg, o.json) : 1;
        rb_registry_destroy(reg);
        return code;
    }
#ifdef RB_HAVE_SANDBOX
    if (!o.headless) return rb_sandbox_run(&o);
    if (o.screenshot || o.script || o.frames)
        fprintf(stderr, "rubble: --screenshot, --script and --frames are for the sandbox; --headless ignores them\n");
#else
    if (!o.headless) fprintf(stderr, "rubble: this build has no sandbox window; running headless\n");
#endif
    return rb_headless_run(&o);
}
