/* run.c - the headless runner (see run.h). */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/decimal.h"
#include "scenes/debris_events.h"
#include "scenes/stage.h"

/* Steps per rb_world_step call: progress and stage times are gathered between calls. */
#define RB_RUN_CHUNK 50

struct rb_run {
    rb_stage *stage; /* the world, its entity table, the scene and its debris effects */
    long step;       /* steps run since the run began */
    /* rb_run_on_frames: the function, its rate and the next frame it is due */
    rb_run_frame_fn frame_fn;
    void *frame_user;
    double frame_rate;
    long next_frame;
    /* rb_run_on_steps: the steps to stop at, the function, the next stop due */
    const long *stops;
    uint32_t stop_count, next_stop;
    rb_run_frame_fn stop_fn;
    void *stop_user;
    /* rb_run_on_events: who takes the debris layer's events; NULL: none */
    rb_run_events_fn events_fn;
    void *events_user;
};

rb_scene *rb_run_make_scene(const rb_registry *registry, const char *shape, const rb_run_scene *spec, char *err,
                            size_t err_size) {
    if (spec->file) return rb_scene_load(spec->file, registry, err, err_size);
    if (rb_registry_find(registry, shape) < 0) {
        int n = snprintf(err, err_size, "no shape named '%s'; the shapes are:", shape);
        for (uint32_t i = 0; i < rb_registry_count(registry) && n >= 0 && (size_t)n < err_size; i++)
            n += snprintf(err + n, err_size - (size_t)n, " %s", rb_registry_get(registry, i)->name);
        return NULL;
    }
    if (spec->formation == 0) return rb_scene_pile(registry, shape, spec->bodies, err, err_size);
    return rb_scene_formation(registry, shape, spec->formation, spec->bodies, err, err_size);
}

rb_run *rb_run_create(const rb_registry *registry, rb_scene *scene, const rb_world_desc *base, rb_run_refusal *why,
                      char *err, size_t err_size) {
    const rb_stage_how how = {.world = rb_scene_world_desc(scene, base)};
    rb_run_refusal scratch;
    if (!why) why = &scratch;
    *why = (rb_run_refusal){.added = scene->body_count, .scene = true}; /* until the world refuses a body */
    rb_run *run = NULL;
    char check[512];
    if (!rb_world_desc_check(&how.world, check, sizeof check)) { /* e.g. --dt over the scene's material */
        snprintf(err, err_size, "%s: %s", scene->name, check);
        rb_scene_destroy(scene);
        return NULL;
    }
    if (!rb_stage_fits(scene, &how.world, err, err_size)) {
        rb_scene_destroy(scene);
        return NULL;
    }
    why->scene = false; /* the machine's, until the world is made */
    if (!(run = calloc(1, sizeof *run)) || !(run->stage = rb_stage_create(registry, &how.world, err, err_size))) {
        if (!run) snprintf(err, err_size, "cannot create the world: out of memory");
        free(run);
        rb_scene_destroy(scene);
        return NULL;
    }
    /* into the empty world just made for it: a scene the world takes in
     * part, or whose debris cannot run, is not run as something else */
    why->scene = true;
    if (!rb_stage_install(run->stage, scene, &how, &why->added, err, err_size)) {
        rb_run_destroy(run);
        return NULL;
    }
    return run;
}

void rb_run_destroy(rb_run *run) {
    if (!run) return;
    rb_stage_destroy(run->stage);
    free(run);
}

rb_world *rb_run_world(rb_run *run) { return rb_stage_world(run->stage); }
const rb_entities *rb_run_entities(const rb_run *run) { return rb_stage_entities(run->stage); }
const rb_debris *rb_run_debris(const rb_run *run) { return rb_stage_debris(run->stage); }
const rb_stage *rb_run_stage(const rb_run *run) { return run->stage; }
const rb_scene *rb_run_get_scene(const rb_run *run) { return rb_stage_scene(run->stage); }

double rb_run_warm(rb_run *run) {
    const double t0 = rb_seconds();
    rb_world_warm(rb_run_world(run)); /* the world as it was, warmed or not */
    return rb_seconds() - t0;
}

bool rb_run_on_events(rb_run *run, float impulse, rb_run_events_fn fn, void *user, char *err, size_t err_size) {
    rb_debris *d = rb_stage_debris_layer(run->stage, err, err_size); /* a scene without debris gets an empty layer */
    if (!d) return false;
    if (!rb_debris_keep_events(d, impulse)) {
        snprintf(err, err_size, "events: out of memory, or an impulse threshold that is not a number >= 0");
        return false;
    }
    run->events_fn = fn, run->events_user = user;
    return true;
}

/* Writes the events ready (all of them once the run is over). */
static bool drain_events(rb_run *run, bool over) {
    if (!run->events_fn) return true;
    rb_debris *d = rb_stage_debris_layer(run->stage, NULL, 0);
    if (!d || (over && !rb_debris_flush_events(d))) return false;
    const rb_event *e;
    const rb_body_id *pieces;
    const uint32_t n = rb_debris_events(d, &e, &pieces);
    const bool ok = n == 0 || run->events_fn(run->events_user, e, n, pieces);
    rb_debris_clear_events(d);
    return ok;
}

/* The step as the decimal it was given as (0.0016, not the float's
 * 0.00159999995): frame times and the steps frames fall on come out as a
 * person reckons them (3 s at 60 Hz is 180 frames at 0.0016 s). */
static double decimal_dt(const rb_run *run) { return rb_decimal(rb_world_get_desc(rb_stage_world(run->stage))->dt); }

void rb_run_on_frames(rb_run *run, double rate_hz, rb_run_frame_fn fn, void *user) {
    run->frame_fn = fn, run->frame_user = user, run->frame_rate = rate_hz;
    run->next_frame = (long)ceil((double)run->step * rate_hz * decimal_dt(run) - 1e-6);
}

/* The step frame k falls on: the first at or after k / rate (the small
 * slack keeps a frame that falls on a step from sliding to the next one by
 * rounding). */
static long frame_step(const rb_run *run, long k) {
    return (long)ceil((double)k / (run->frame_rate * decimal_dt(run)) - 1e-6);
}

/* Calls the frame function for every frame due at the current step. */
static bool frames_due(rb_run *run) {
    const double dt = decimal_dt(run);
    for (; run->frame_fn && frame_step(run, run->next_frame) <= run->step; run->next_frame++)
        if (!run->frame_fn(run->frame_user, (double)run->step * dt)) return false;
    return true;
}

void rb_run_on_steps(rb_run *run, const long *steps, uint32_t count, rb_run_frame_fn fn, void *user) {
    run->stops = steps, run->stop_count = count, run->next_stop = 0, run->stop_fn = fn, run->stop_user = user;
}

/* Calls the stop function for every stop due at the current step. */
static bool stops_due(rb_run *run) {
    for (; run->stop_fn && run->next_stop < run->stop_count && run->stops[run->next_stop] <= run->step; run->next_stop++)
        if (!run->stop_fn(run->stop_user, (double)run->step * decimal_dt(run))) return false;
    return true;
}

bool rb_run_steps(rb_run *run, long steps, const char *label, bool progress, rb_run_stats *r) {
    const bool tty = isatty(STDERR_FILENO);
    double t0 = rb_seconds(), last_note = t0, c0 = rb_cpu_seconds();
    *r = (rb_run_stats){0};
    const uint64_t rested = rb_world_rested(rb_run_world(run)), off_grid = rb_world_off_grid(rb_run_world(run));
    for (long done = 0; done < steps;) {
        if (!frames_due(run) || !stops_due(run)) return false;
        /* whole debris ticks (debris.h); a recording's frames: a debris step
         * gives the same run however its steps are split (docs/debris.md) */
        long n = rb_stage_whole_ticks(run->stage, (uint32_t)(steps - done < RB_RUN_CHUNK ? steps - done : RB_RUN_CHUNK));
        if (run->frame_fn && frame_step(run, run->next_frame) - run->step < n)
            n = frame_step(run, run->next_frame) - run->step;
        if (run->stop_fn && run->next_stop < run->stop_count && run->stops[run->next_stop] - run->step < n)
            n = run->stops[run->next_stop] - run->step;
        if (!rb_stage_step(run->stage, (uint32_t)n) || !drain_events(run, false)) return false;
        done += n;
        run->step += n;
        double ms[RB_STAGE_COUNT], kms[RB_RUN_MAX_KERNELS];
        rb_stage_stage_times(run->stage, ms);
        for (int s = 0; s < RB_STAGE_COUNT; s++) r->stage_ms[s] += ms[s];
        r->kernel_count = rb_stage_kernel_times(run->stage, &r->kernel_names, kms, RB_RUN_MAX_KERNELS);
        if (r->kernel_count > RB_RUN_MAX_KERNELS) r->kernel_count = RB_RUN_MAX_KERNELS;
        for (uint32_t k = 0; k < r->kernel_count; k++) r->kernel_ms[k] += kms[k];
        /* On a terminal: a line redrawn in place once the run has taken a
         * second; in a log: a line every 10 s. */
        double t = rb_seconds();
        if (progress && (tty || t - last_note > 10.0) && t - t0 > 1.0) {
            fprintf(stderr,
                    tty ? "\r  %s: step %ld / %ld (%3.0f%%), %.0f steps/s   "
                        : "  %s: step %ld / %ld (%3.0f%%), %.0f steps/s\n",
                    label, done, steps, 100.0 * (double)done / (double)steps, (double)done / (t - t0));
            last_note = t;
        }
    }
    if (!drain_events(run, true) || !frames_due(run) || !stops_due(run)) return false;
    r->steps = steps;
    r->wall_s = rb_seconds() - t0;
    r->cpu_s = rb_cpu_seconds() - c0;
    r->rested = rb_world_rested(rb_run_world(run)) - rested;
    r->off_grid = rb_world_off_grid(rb_run_world(run)) - off_grid;
    if (progress && tty && r->wall_s > 1.0) fprintf(stderr, "\r%70s\r", "");
    return true;
}

rb_run_summary rb_run_summarize(rb_run *run) {
    rb_world *w = rb_run_world(run);
    rb_run_summary s = {
        .bodies = rb_world_body_count(w), .particles = rb_world_particle_count(w), .ok = true, .min_y = INFINITY};
    for (uint32_t b = 0; b < s.bodies && s.ok; b++) {
        rb_body_state st;
        s.ok = rb_world_get_body(w, b, &st);
        if (!s.ok) break;
        const float *v = st.velocity;
        float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int k = 0; k < 3; k++)
            s.nan |= !isfinite(st.position[k]) || !isfinite(st.velocity[k]) || !isfinite(st.angular_momentum[k]);
        for (int k = 0; k < 4; k++) s.nan |= !isfinite(st.orientation[k]);
        if (speed > s.max_speed) s.max_speed = speed;
        s.sleeping += st.asleep;
    }
    s.contact_overflow = rb_world_contact_overflow(w);
    /* the lowest point of any particle: its centre less its shape's radius */
    float *p = malloc(sizeof(float) * 3 * (s.particles ? s.particles : 1));
    const uint32_t *first = rb_world_body_first_particle(w), *shapes = rb_world_body_shapes(w);
    if (!p || !rb_world_read_particles(w, p))
        s.ok = false;
    else
        for (uint32_t b = 0; b < s.bodies; b++) {
            const float r = rb_world_shape_radius(w, shapes[b]);
            for (uint32_t i = first[b]; i < first[b + 1]; i++) {
                s.nan |= !isfinite(p[3 * i + 1]);
                if (p[3 * i + 1] - r < s.min_y) s.min_y = p[3 * i + 1] - r;
            }
        }
    free(p);
    if (!(s.bodies && isfinite(s.min_y))) s.min_y = 0.0f;
    s.digest = rb_world_digest(w);
    return s;
}
