/* repose.c - rubble-bench repose N: the angle of repose of poured spheres
 * (see bench.h).
 *
 * The fixed-base heap: spheres (bodies of one particle of the world's radius
 * r, weighed as the registry weighs a particle, 1000 kg/m^3 of its cubic
 * cell) are poured onto a static disc of radius 30 r (15 diameters: 6 m at
 * the default 0.2 m), one hexagonal layer of touching particles, each raised
 * or lowered at random by up to r / 8 so that the heap's first layer does not
 * start a crystal. The disc floats 10 r above the ground; what rolls off its
 * rim falls and is removed. The spheres come down in a stream: every T
 * seconds a patch of up to 19 of them, 2.3 r apart in a hexagon 9.2 r across
 * (turned at random, jittered by up to r / 20), starts 2.5 r above the heap's
 * top (its highest slow sphere near the axis), and at least 2.3 r above any
 * sphere under it, at 2 m/s downward; T is the time the patch before takes
 * to fall 2.4 r, so patches never meet in the air (0.17 s: 112 spheres a
 * second at r = 0.2). Once the N spheres are poured the heap settles for
 * --settle seconds. The heap (the spheres on the disc slower than 1 m/s) is
 * measured (src/app/repose.h) at the end of the pour and each second after;
 * the angle at the end is the result. The world's material sets the
 * friction (--friction) and the rolling friction (--rolling); sleeping is
 * the world's (on; --no-sleep turns it off). Everything is deterministic:
 * the same command gives the same heap; --seed N places the disc's
 * particles and the patches by another random sequence, for the spread of
 * the angle from heap to heap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "app.h"
#include "base/clock.h"
#include "base/decimal.h"
#include "bench.h"
#include "repose.h"

#define REPOSE_BASE_RADIUS 30.0 /* the disc, in r */
#define REPOSE_BASE_HEIGHT 10.0 /* its particles' centres above the ground, in r */
#define REPOSE_SPACING 2.3      /* between the spheres of a patch, in r */
#define REPOSE_DROP 2.5         /* a patch starts this far above the heap's top, in r */
#define REPOSE_SPEED 2.0        /* m/s, downward, at the start */
#define REPOSE_SLOW 1.0         /* m/s: a sphere slower than this on the disc is part of the heap */
#define REPOSE_PATCH 19

/* A small deterministic generator: the same heap every run (xorshift64*). */
static double repose_random(uint64_t *s) {
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* The static disc: a hexagonal layer of touching particles of radius r
 * within `radius` of the axis, centres at `height` give or take r / 8. */
static bool repose_add_base(rb_world *w, float r, float radius, float height, uint64_t *rng, uint32_t *count) {
    const int n = (int)(radius / (2.0f * r)) + 2;
    float *xyz = malloc(sizeof(float) * 3 * (size_t)(2 * n + 1) * (size_t)(2 * n + 1));
    if (!xyz) return false;
    uint32_t k = 0;
    for (int j = -n; j <= n; j++)
        for (int i = -n; i <= n; i++) {
            const float x = 2.0f * r * ((float)i + 0.5f * (float)j), z = 2.0f * r * 0.8660254f * (float)j;
            if (x * x + z * z > radius * radius) continue;
            xyz[3 * k] = x, xyz[3 * k + 2] = z;
            xyz[3 * k + 1] = (float)((repose_random(rng) - 0.5) * 0.25 * r);
            k++;
        }
    double cy = 0.0, inertia[3] = {0, 0, 0};
    for (uint32_t i = 0; i < k; i++) cy += xyz[3 * i + 1] / k;
    const float m = 1000.0f * 8.0f * r * r * r;
    for (uint32_t i = 0; i < k; i++) { /* about the centre of mass (the lattice centres x and z) */
        const double x = xyz[3 * i], y = (xyz[3 * i + 1] -= (float)cy), z = xyz[3 * i + 2];
        inertia[0] += m * (y * y + z * z), inertia[1] += m * (x * x + z * z), inertia[2] += m * (x * x + y * y);
    }
    const rb_shape_data shape = {k, xyz, m * (float)k, {(float)inertia[0], (float)inertia[1], (float)inertia[2]}, r};
    const int s = rb_world_add_shape(w, &shape);
    free(xyz);
    *count = k;
    return s >= 0 && rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)s,
                                                          .position = {0.0f, height + (float)cy, 0.0f},
                                                          .kind = RB_BODY_STATIC})
                         .generation;
}

typedef struct repose_look {
    uint32_t on_base, asleep; /* spheres on the disc, and of them asleep */
    float fastest;            /* m/s, of the spheres on the disc */
    float top;                /* the highest slow centre near the axis, m */
    float top_any;            /* the highest centre near the axis, moving or not (a patch in the air), m */
    uint32_t fell;            /* spheres that fell off the disc, removed this time */
    bool measured;            /* fit holds a measurement */
    rb_repose_fit fit;
} repose_look;

/* Reads every sphere: removes those that fell below the disc, finds the
 * heap's top and the highest sphere within near_axis of the axis, and
 * measures the heap if asked. */
static bool repose_read(rb_world *w, float r, float base_y, float near_axis, bool measure, float *xyz,
                        repose_look *out) {
    *out = (repose_look){.top = base_y, .top_any = base_y};
    const uint32_t n = rb_world_body_count(w);
    uint32_t heap = 0, fell = 0;
    rb_body_id *fallen = malloc(sizeof *fallen * (n ? n : 1));
    if (!fallen) return false;
    bool ok = true;
    for (uint32_t b = 0; b < n && ok; b++) {
        rb_body_state st;
        ok = rb_world_get_body(w, b, &st);
        if (!ok || st.kind != RB_BODY_DYNAMIC) continue;
        const float *p = st.position, *v = st.velocity;
        const float rho = sqrtf(p[0] * p[0] + p[2] * p[2]), speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(p[1] >= base_y - 2.0f * r)) { /* fell off (or is not finite) */
            fallen[fell++] = st.id;
            continue;
        }
        if (p[1] < base_y) continue; /* past the rim, falling */
        if (rho < near_axis) out->top_any = fmaxf(out->top_any, p[1]);
        out->on_base++;
        out->asleep += st.asleep;
        out->fastest = fmaxf(out->fastest, speed);
        if (speed >= REPOSE_SLOW) continue;
        if (rho < near_axis) out->top = fmaxf(out->top, p[1]);
        xyz[3 * heap] = p[0], xyz[3 * heap + 1] = p[1] - base_y, xyz[3 * heap + 2] = p[2];
        heap++;
    }
    for (uint32_t i = 0; ok && i < fell; i++) rb_world_remove_body(w, fallen[i]);
    free(fallen);
    out->fell = fell;
    if (ok && measure) out->measured = rb_repose_measure(xyz, heap, 0.0, 0.0, 2.0 * r, &out->fit);
    return ok;
}

static cJSON *repose_fit_json(const rb_repose_fit *f, bool measured) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "angle_deg", measured ? f->angle_deg : -1.0);
    double q[4];
    for (int k = 0; k < 4; k++) q[k] = isfinite(f->quarter_deg[k]) ? f->quarter_deg[k] : -1.0;
    cJSON_AddItemToObject(o, "quarter_deg", cJSON_CreateDoubleArray(q, 4));
    cJSON_AddNumberToObject(o, "apex_m", measured ? f->apex : 0.0);
    cJSON_AddNumberToObject(o, "rms_m", measured ? f->rms : 0.0);
    cJSON_AddNumberToObject(o, "heap_radius_m", f->radius);
    cJSON_AddNumberToObject(o, "fit_from_m", f->from);
    cJSON_AddNumberToObject(o, "fit_to_m", f->to);
    cJSON_AddNumberToObject(o, "rings_fitted", f->fitted);
    double profile[RB_REPOSE_MAX_RINGS];
    for (int k = 0; k < f->rings; k++) profile[k] = isnan(f->profile[k]) ? -1.0 : f->profile[k];
    cJSON_AddItemToObject(o, "profile_m", cJSON_CreateDoubleArray(profile, f->rings));
    cJSON_AddNumberToObject(o, "spheres", f->spheres);
    return o;
}

static void repose_fit_text(const char *when, const repose_look *s, float ring) {
    const rb_repose_fit *f = &s->fit;
    if (!s->measured) {
        printf("  %s: too few spheres on the disc to fit a slope (%u)\n", when, f->spheres);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 4; k++)
        if (isfinite(f->quarter_deg[k])) lo = fmin(lo, f->quarter_deg[k]), hi = fmax(hi, f->quarter_deg[k]);
    printf("  %s: angle of repose %.1f deg (quarters %.1f .. %.1f); fitted over r = %.2f .. %.2f m, %d rings, rms "
           "%.3f m; apex %.2f m above the disc, heap radius %.2f m, %u spheres\n",
           when, f->angle_deg, lo, hi, f->from, f->to, f->fitted, f->rms, f->apex, f->radius, f->spheres);
    printf("    profile, the highest centre in each %g m ring, m:", ring);
    for (int k = 0; k < f->rings; k++) printf(" %.2f", f->profile[k]);
    printf("\n");
}

typedef struct repose_sample {
    double t;       /* s after the last sphere was poured */
    double angle;   /* degrees; -1 where the heap could not be fitted */
    uint32_t heap;  /* spheres on the disc */
    uint32_t sleep; /* of them asleep */
} repose_sample;

bool rb_bench_repose(const rb_options *o, const rb_run_scene *scene, rb_backend_kind backend) {
    char name[64], err[1024];
    snprintf(name, sizeof name, "repose %d", scene->bodies);
    rb_world_desc desc = rb_app_world_desc(o);
    desc.backend = backend;
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) {
        fprintf(stderr, "rubble-bench: %s: cannot create the world: %s\n", name, err);
        return false;
    }
    const float r = desc.particle_radius, dt = desc.dt, g = fabsf(desc.gravity[1]);
    const float base_radius = (float)REPOSE_BASE_RADIUS * r, base_y = (float)REPOSE_BASE_HEIGHT * r;
    const float m = 1000.0f * 8.0f * r * r * r, inertia = 0.4f * m * r * r, origin[3] = {0, 0, 0};
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ (o->seed * 0xd1b54a32d192ed03ull); /* --seed 0: the default heap */
    if (rng == 0) rng = 1;                                                    /* xorshift never leaves 0 */
    uint32_t base_particles = 0;
    const int sphere = rb_world_add_shape(w, &(rb_shape_data){1, origin, m, {inertia, inertia, inertia}, r});
    const long second = lround(1.0 / dt), settle_steps = lround(o->settle / dt);
    float *xyz = malloc(sizeof(float) * 3 * ((size_t)scene->bodies + REPOSE_PATCH));
    repose_sample *history = malloc(sizeof *history * (size_t)(settle_steps / second + 2));
    if (sphere < 0 || !xyz || !history || !repose_add_base(w, r, base_radius, base_y, &rng, &base_particles)) {
        fprintf(stderr, "rubble-bench: %s: cannot set the scene up (the log says why)\n", name);
        free(xyz), free(history);
        rb_world_destroy(w);
        return false;
    }
    /* the patch: a hexagon of 19, 2.3 r apart */
    float patch[REPOSE_PATCH][2];
    int np = 0;
    for (int a = -2; a <= 2; a++)
        for (int b = -2; b <= 2; b++)
            if (abs(a + b) <= 2) {
                patch[np][0] = (float)(REPOSE_SPACING * r * (a + 0.5 * b));
                patch[np][1] = (float)(REPOSE_SPACING * r * 0.8660254 * b);
                np++;
            }
    const float near_axis = (float)(2.0 * REPOSE_SPACING + 2.0) * r, v0 = (float)REPOSE_SPEED;
    const double gap = 2.4 * r; /* a patch falls this far before the next starts */
    const long tick = lround(ceil((-v0 + sqrt(v0 * v0 + 2.0 * g * gap)) / g / dt));
    const bool tty = isatty(STDERR_FILENO);
    int poured = 0, samples = 0;
    uint32_t fell = 0;
    long steps = 0, settled = 0;
    repose_look look, end_of_pour = {0};
    const double t0 = rb_seconds();
    double last_note = t0;
    bool ok = true;
    for (;;) {
        const bool pouring = poured < scene->bodies;
        const bool sample = !pouring && (settled % second == 0 || settled == settle_steps);
        ok = repose_read(w, r, base_y, near_axis, sample, xyz, &look);
        if (!ok) break;
        fell += look.fell;
        if (sample) {
            history[samples++] = (repose_sample){settled * (double)dt, look.measured ? look.fit.angle_deg : -1.0,
                                                 look.on_base, look.asleep};
            if (settled == 0) end_of_pour = look;
        }
        if (!pouring && settled >= settle_steps) break;
        long n = tick;
        if (pouring) { /* the next patch, turned at random, above the heap and clear of every sphere under it */
            const float spawn_y = fmaxf(look.top + (float)REPOSE_DROP * r, look.top_any + (float)REPOSE_SPACING * r);
            const double turn = 2.0 * M_PI * repose_random(&rng), c = cos(turn), s = sin(turn);
            for (int k = 0; k < np && poured < scene->bodies && ok; k++, poured++) {
                const double jx = (repose_random(&rng) - 0.5) * 0.1 * r, jz = (repose_random(&rng) - 0.5) * 0.1 * r;
                const rb_body_desc b = {.shape = (uint32_t)sphere,
                                        .position = {(float)(c * patch[k][0] - s * patch[k][1] + jx), spawn_y,
                                                     (float)(s * patch[k][0] + c * patch[k][1] + jz)},
                                        .velocity = {0.0f, -v0, 0.0f}};
                ok = rb_world_add_body(w, &b).generation != 0;
            }
        } else { /* settling: up to the next whole second, or the end */
            const long next = settled / second * second + second, until = next < settle_steps ? next : settle_steps;
            n = until - settled < tick ? until - settled : tick;
            settled += n;
        }
        ok = ok && rb_world_step(w, (uint32_t)n);
        if (!ok) break;
        steps += n;
        const double t = rb_seconds();
        if (!o->quiet && (tty || t - last_note > 10.0) && t - t0 > 1.0) {
            fprintf(stderr,
                    tty ? "\r  %s: t = %.1f s, %d / %d poured, %u on the disc   "
                        : "  %s: t = %.1f s, %d / %d poured, %u on the disc\n",
                    name, steps * dt, poured, scene->bodies, look.on_base);
            last_note = t;
        }
    }
    const double wall = rb_seconds() - t0;
    if (!o->quiet && tty && wall > 1.0) fprintf(stderr, "\r%78s\r", "");
    free(xyz);
    if (!ok) {
        fprintf(stderr, "rubble-bench: %s: stepping failed\n", name);
        free(history);
        rb_world_destroy(w);
        return false;
    }
    const rb_material mat = desc.material;
    const double rate = REPOSE_PATCH / (tick * dt), settle_s = settle_steps * (double)dt;
    if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "scene", name);
        cJSON_AddStringToObject(j, "backend", rb_world_backend_name(w));
        cJSON_AddStringToObject(j, "device", rb_world_device_name(w));
        cJSON_AddNumberToObject(j, "angle_deg", look.measured ? look.fit.angle_deg : -1.0);
        cJSON_AddNumberToObject(j, "friction", rb_decimal(mat.friction));
        cJSON_AddNumberToObject(j, "rolling_friction", rb_decimal(mat.rolling_friction));
        cJSON_AddNumberToObject(j, "seed", (double)o->seed);
        cJSON_AddNumberToObject(j, "restitution", rb_decimal(mat.restitution));
        cJSON_AddNumberToObject(j, "contact_time", rb_decimal(mat.contact_time));
        cJSON_AddBoolToObject(j, "sleep", desc.sleep_time > 0.0f);
        cJSON_AddNumberToObject(j, "particle_radius", rb_decimal(r));
        cJSON_AddNumberToObject(j, "base_radius", rb_decimal(base_radius));
        cJSON_AddNumberToObject(j, "base_particles", base_particles);
        cJSON_AddNumberToObject(j, "poured", poured);
        cJSON_AddNumberToObject(j, "pour_rate", rate);
        cJSON_AddNumberToObject(j, "fell_off", fell);
        cJSON_AddNumberToObject(j, "on_base", look.on_base);
        cJSON_AddNumberToObject(j, "asleep", look.asleep);
        cJSON_AddNumberToObject(j, "fastest", look.fastest);
        cJSON_AddNumberToObject(j, "contact_overflow", (double)rb_world_contact_overflow(w));
        cJSON_AddNumberToObject(j, "contact_slots", rb_world_contact_slots(w));
        cJSON_AddNumberToObject(j, "device_bytes", (double)rb_world_device_bytes(w));
        cJSON_AddNumberToObject(j, "dt", rb_decimal(dt));
        cJSON_AddNumberToObject(j, "steps", (double)steps);
        cJSON_AddNumberToObject(j, "simulated_s", steps * (double)dt);
        cJSON_AddNumberToObject(j, "settle_s", settle_s);
        cJSON_AddNumberToObject(j, "wall_s", wall);
        cJSON_AddItemToObject(j, "end", repose_fit_json(&look.fit, look.measured));
        cJSON_AddItemToObject(j, "end_of_pour", repose_fit_json(&end_of_pour.fit, end_of_pour.measured));
        cJSON *h = cJSON_AddArrayToObject(j, "settling");
        for (int i = 0; i < samples; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "t", history[i].t);
            cJSON_AddNumberToObject(e, "angle_deg", history[i].angle);
            cJSON_AddNumberToObject(e, "on_base", history[i].heap);
            cJSON_AddNumberToObject(e, "asleep", history[i].sleep);
            cJSON_AddItemToArray(h, e);
        }
        char *text = cJSON_PrintUnformatted(j);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(j);
    } else {
        printf("%s (spheres of r %g m) on %s [%s]", name, r, rb_world_backend_name(w), rb_world_device_name(w));
        if (o->seed) printf(", seed %llu", (unsigned long long)o->seed);
        printf("\n");
        printf("  friction %g, rolling friction %g, restitution %g, contact time %g s, sleeping %s; dt %g s\n",
               mat.friction, mat.rolling_friction, mat.restitution, mat.contact_time,
               desc.sleep_time > 0.0f ? "on" : "off", dt);
        printf("  %d poured, %.0f a second, onto a disc of radius %g m (%u particles); %u fell off; at the end %u on "
               "the disc, %u asleep, the fastest at %.3f m/s\n",
               poured, rate, base_radius, base_particles, fell, look.on_base, look.asleep, look.fastest);
        const uint32_t particles = rb_world_particle_count(w);
        printf("  %llu contacts without a history slot (of up to %u a particle); device memory %.1f bytes a "
               "particle\n",
               (unsigned long long)rb_world_contact_overflow(w), rb_world_contact_slots(w),
               particles ? (double)rb_world_device_bytes(w) / particles : 0.0);
        repose_fit_text("end of the pour", &end_of_pour, 2.0f * r);
        char when[64];
        snprintf(when, sizeof when, "%g s later", settle_s);
        repose_fit_text(when, &look, 2.0f * r);
        printf("  settling, each second: angle (deg) / spheres on the disc:");
        for (int i = 0; i < samples; i++) printf(" %.1f/%u", history[i].angle, history[i].heap);
        printf("\n  %.1f s simulated (%ld steps) in %.1f s wall, %.0f steps/s\n", steps * (double)dt, steps, wall,
               steps / wall);
    }
    fflush(stdout);
    free(history);
    rb_world_destroy(w);
    return look.measured;
}
