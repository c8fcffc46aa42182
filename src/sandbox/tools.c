/* tools.c - the tools on the world: picking, throwing, grabbing, blasts, emitters, wind, vortices (see tools.h). */
#include "tools.h"

#include "base/rb_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Damping ratio of the grab's spring (its frequency is rb_grab.hz, or
 * RB_GRAB_HZ). Scaled by the body's mass, so every body follows the cursor alike. */
#define RB_GRAB_DAMPING 0.9f
/* Spin kept per call (4 steps) while held, so a dragged body neither twirls nor swings forever. */
#define RB_GRAB_SPIN_KEEP 0.97f

const char *rb_tool_name(rb_tool tool) {
    static const char *const names[RB_TOOL_COUNT] = {"throw", "grab", "delete", "explode"};
    return tool < RB_TOOL_COUNT ? names[tool] : "?";
}

rb_pick rb_pick_ray(rb_world *world, const float *particles, const float origin[3], const float dir[3]) {
    rb_pick pick = {0};
    pick.distance = INFINITY;
    const uint32_t *first = rb_world_body_first_particle(world), *shapes = rb_world_body_shapes(world);
    uint32_t bodies = rb_world_body_count(world);
    int best_body = -1;
    for (uint32_t b = 0; b < bodies; b++) {
        const float r = rb_world_shape_radius(world, shapes[b]); /* each shape's particles have their own size */
        for (uint32_t i = first[b]; i < first[b + 1]; i++) {
            const float *p = &particles[3 * i];
            float oc[3] = {origin[0] - p[0], origin[1] - p[1], origin[2] - p[2]};
            float bq = rb_v3_dot(oc, dir);
            float disc = bq * bq - (rb_v3_dot(oc, oc) - r * r);
            if (disc < 0.0f) continue;
            float t = -bq - sqrtf(disc);
            if (t < 0.0f) t = -bq + sqrtf(disc); /* the eye is inside the particle */
            if (t < 0.0f || t >= pick.distance) continue;
            pick.distance = t;
            best_body = (int)b;
        }
    }
    if (best_body >= 0) {
        pick.hit = pick.body_hit = true;
        pick.body = rb_world_body_id(world, (uint32_t)best_body);
    }
    rb_pick_planes(world, origin, dir, &pick);
    return pick;
}

void rb_pick_planes(const rb_world *world, const float origin[3], const float dir[3], rb_pick *pick) {
    /* A plane: the nearest one the ray enters from outside. */
    const rb_world_desc *desc = rb_world_get_desc(world);
    for (uint32_t k = 0; k < desc->plane_count; k++) {
        const rb_plane *pl = &desc->planes[k];
        float denom = rb_v3_dot(pl->normal, dir);
        if (denom >= -1e-6f) continue;
        float t = (pl->offset - rb_v3_dot(pl->normal, origin)) / denom;
        if (t < 0.0f || t >= pick->distance) continue;
        pick->distance = t;
        pick->hit = true;
        pick->body_hit = false;
        pick->body = (rb_body_id){0};
    }
    if (pick->hit)
        for (int k = 0; k < 3; k++) pick->point[k] = origin[k] + dir[k] * pick->distance;
}

rb_throw rb_throw_defaults(void) { return (rb_throw){.speed = 8.0f, .speed_max = 40.0f, .spin = 3.0f}; }

float rb_throw_speed_of(const rb_throw *t, double held) {
    double f = held / 1.5;
    if (f > 1.0) f = 1.0;
    if (f < 0.0) f = 0.0;
    return (float)(t->speed + (t->speed_max - t->speed) * f);
}

float rb_throw_speed(double held) {
    const rb_throw t = rb_throw_defaults();
    return rb_throw_speed_of(&t, held);
}

/* A small hash for repeatable variety (spin axes, colours). */
static uint32_t hash32(uint32_t x) {
    x ^= x >> 16, x *= 0x7feb352du;
    x ^= x >> 15, x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

rb_body_desc rb_tool_throw_desc(const float eye[3], const float dir[3], float ahead, float speed, uint32_t seed) {
    return rb_tool_throw_spun(eye, dir, ahead, speed, rb_throw_defaults().spin, seed);
}

rb_body_desc rb_tool_throw_spun(const float eye[3], const float dir[3], float ahead, float speed, float spin,
                                uint32_t seed) {
    rb_body_desc d = {0};
    for (int k = 0; k < 3; k++) {
        d.position[k] = eye[k] + dir[k] * ahead;
        d.velocity[k] = dir[k] * speed;
    }
    /* A random tumble of a few rad/s and a random start orientation, so throws look alive. */
    float axis[3];
    for (int k = 0; k < 3; k++) axis[k] = (float)(hash32(seed * 3u + (uint32_t)k) & 0xffff) / 32768.0f - 1.0f;
    float n = sqrtf(rb_v3_dot(axis, axis));
    if (n < 1e-3f) axis[0] = 1.0f, n = 1.0f;
    for (int k = 0; k < 3; k++) axis[k] /= n;
    float angle = (float)(hash32(seed * 7u + 1u) & 0xffff) / 65536.0f * 6.2831853f;
    rb_quat_from_axis_angle(axis, angle, d.orientation);
    for (int k = 0; k < 3; k++) d.angular_velocity[k] = axis[(k + 1) % 3] * spin;
    return d;
}

rb_blast rb_blast_defaults(void) { return (rb_blast){.radius = 4.0f, .strength = 24000.0f, .up = 0.5f}; }

rb_field rb_blast_field(const rb_blast *blast, const float centre[3]) {
    rb_field f = {.kind = RB_FIELD_RADIAL,
                  .centre = {centre[0], centre[1], centre[2]},
                  .radius = blast->radius,
                  .strength = blast->strength,
                  .impulse = true,
                  .falloff = 1.0f,
                  .up = blast->up};
    return f;
}

int rb_blast_reach(rb_world *world, const float centre[3], float radius) {
    int reached = 0;
    const uint32_t n = rb_world_body_count(world);
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s;
        /* static and kinematic bodies are not pushed by anything */
        if (!rb_world_get_body(world, b, &s) || s.kind != RB_BODY_DYNAMIC) continue;
        float d[3] = {s.position[0] - centre[0], s.position[1] - centre[1], s.position[2] - centre[2]};
        if (rb_v3_dot(d, d) < radius * radius) reached++;
    }
    return reached;
}

rb_emitter rb_tool_emitter(const char *shape, float radius, const float point[3], uint64_t seed) {
    const float scale = 0.5f;
    rb_emitter e = {.region = {.kind = RB_REGION_DISC,
                               .centre = {point[0], point[1] + 1.0f + scale * radius, point[2]},
                               .radius = 1.0f},
                    .rate = 20.0f,
                    .choice_count = 1,
                    .direction = {0.0f, 1.0f, 0.0f},
                    .speed = 9.0f,
                    .speed_spread = 2.0f,
                    .cone = 0.349066f, /* 20 degrees */
                    .spin = 3.0f,
                    .lifetime = 5.0f,
                    .seed = seed};
    snprintf(e.choices[0].shape, sizeof e.choices[0].shape, "%s", shape);
    e.choices[0].scale = scale, e.choices[0].weight = 1.0f;
    return e;
}

rb_field rb_tool_wind(const float forward[3]) {
    float h[3] = {forward[0], 0.0f, forward[2]};
    const float len = sqrtf(rb_v3_dot(h, h));
    for (int k = 0; k < 3; k++) h[k] = len > 0.0f ? 15.0f * h[k] / len : 0.0f;
    return (rb_field){.kind = RB_FIELD_WIND, .duration = 3.0f, .velocity = {h[0], h[1], h[2]}, .drag = 40.0f};
}

rb_field rb_tool_vortex(const float centre[3]) {
    return (rb_field){.kind = RB_FIELD_VORTEX,
                      .centre = {centre[0], centre[1], centre[2]},
                      .radius = 6.0f,
                      .duration = 5.0f,
                      .strength = 10.0f,
                      .drag = 3.0f,
                      .axis = {0.0f, 1.0f, 0.0f}};
}

bool rb_grab_begin(rb_grab *g, rb_world *world, const rb_pick *pick) {
    memset(g, 0, sizeof *g);
    rb_body_state s;
    if (!pick->body_hit || !rb_world_get_body_by_id(world, pick->body, &s)) return false;
    if (s.kind != RB_BODY_DYNAMIC) return false; /* a static or kinematic body cannot be dragged */
    float rel[3] = {pick->point[0] - s.position[0], pick->point[1] - s.position[1], pick->point[2] - s.position[2]};
    rb_quat_rotate_inv(s.orientation, rel, g->local_anchor);
    g->active = true;
    g->body = pick->body;
    g->depth = pick->distance;
    memcpy(g->target, pick->point, sizeof g->target);
    memcpy(g->anchor, pick->point, sizeof g->anchor);
    return true;
}

void rb_grab_aim(rb_grab *g, const float origin[3], const float dir[3]) {
    if (!g->active) return;
    for (int k = 0; k < 3; k++) g->target[k] = origin[k] + dir[k] * g->depth;
}

void rb_grab_wheel(rb_grab *g, float notches) {
    g->depth *= powf(1.1f, notches);
    if (g->depth < 0.5f) g->depth = 0.5f;
    if (g->depth > 500.0f) g->depth = 500.0f;
}

void rb_grab_apply(rb_grab *g, rb_world *world, uint32_t steps) {
    if (!g->active) return;
    rb_body_state s;
    if (!rb_world_get_body_by_id(world, g->body, &s)) {
        rb_grab_end(g);
        return;
    }
    float rel[3];
    rb_quat_rotate(s.orientation, g->local_anchor, rel);
    float vel[3];
    rb_v3_cross(s.angular_velocity, rel, vel);
    for (int k = 0; k < 3; k++) {
        g->anchor[k] = s.position[k] + rel[k];
        vel[k] += s.velocity[k];
    }
    const float w = 2.0f * 3.14159265f * (g->hz > 0.0f ? g->hz : RB_GRAB_HZ);
    const float k_spring = s.mass * w * w, c_damp = 2.0f * RB_GRAB_DAMPING * s.mass * w;
    const float *gravity = rb_world_get_desc(world)->gravity;
    float force[3];
    for (int k = 0; k < 3; k++)
        /* The spring, its damper, and the body's weight held up so it hangs where the cursor is. */
        force[k] = k_spring * (g->target[k] - g->anchor[k]) - c_damp * vel[k] - s.mass * gravity[k];
    rb_world_apply_force(world, g->body, force, g->anchor);
    /* Damp the spin about the held point, keeping that point's own velocity (the
     * spring's business): damping the spin alone would leave a swing about the
     * point in the body's linear velocity, and it would swing on. */
    float spin[3], swing[3], linear[3];
    const float keep = powf(RB_GRAB_SPIN_KEEP, (float)steps / 4.0f); /* RB_GRAB_SPIN_KEEP is per 4 steps */
    for (int k = 0; k < 3; k++) spin[k] = s.angular_velocity[k] * keep;
    rb_v3_cross(spin, rel, swing);
    for (int k = 0; k < 3; k++) linear[k] = vel[k] - swing[k];
    rb_world_set_velocity(world, g->body, linear, spin);
}

void rb_grab_end(rb_grab *g) { g->active = false; }
