/* debris_impact.c - impact debris (debris.h, rb_impact_debris;
 * docs/debris.md): at a tick, each body's contact impulse compared with the
 * tick before's, and chips thrown beside a body hit hard, clear of the
 * planes, the bodies and each other. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "debris_internal.h"
#include "debris_math.h"

/* A body's size for placing chips: its shape's bounding radius (a piece of
 * a broken body, which has no row, the radius of a ball of its particles). */
static float body_size(const rb_debris *d, uint32_t shape) {
    const int row = rb_entities_of_world_shape(d->entities, shape);
    if (row >= 0)
        return rb_entities_get(d->entities, (uint32_t)row)->shape->bounding_radius *
               rb_entities_scale_of_world_shape(d->entities, shape);
    return rb_world_shape_radius(d->world, shape) *
           (1.0f + cbrtf((float)rb_world_shape_particles(d->world, shape, NULL, 0, NULL)));
}

bool rb_debris_throw_chips(rb_debris *d, const rb_body_state *states, uint32_t n) {
    const rb_impact_debris *im = &d->desc.impact;
    const float *g = rb_world_get_desc(d->world)->gravity;
    const float tick_s = (float)(d->tick_steps * d->dt);
    uint32_t top = 0;
    for (uint32_t b = 0; b < n; b++) top = states[b].id.slot + 1u > top ? states[b].id.slot + 1u : top;
    if (top > d->last_size) {
        float *v = realloc(d->last_v, sizeof *v * 7 * top);
        if (!v) return false;
        memset(v + 7 * d->last_size, 0, sizeof *v * 7 * (top - d->last_size));
        d->last_v = v, d->last_size = top;
    }
    const rb_shape *chip = rb_entities_get(d->entities, (uint32_t)d->impact_row)->shape;
    uint32_t thrown = 0, placed = 0;
    float chips[256][3]; /* where this tick's chips start */
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_state *s = &states[b];
        float *last = &d->last_v[7 * s->id.slot];
        uint32_t gen;
        memcpy(&gen, &last[6], sizeof gen);
        const bool known = gen == s->id.generation;
        /* the contacts' impulse per mass this tick (the change of velocity
         * less gravity's), and its change since the last tick: a body
         * resting under its weight takes the same impulse each tick (no
         * hit); a landing takes one suddenly */
        float dv[3];
        for (int k = 0; k < 3; k++) {
            const float j = s->velocity[k] - last[k] - (s->asleep ? 0.0f : g[k] * tick_s);
            dv[k] = j - last[3 + k];
            last[3 + k] = j;
        }
        memcpy(last, s->velocity, sizeof s->velocity);
        memcpy(&last[6], &s->id.generation, sizeof gen);
        const tracked *t = rb_debris_find(d, s->id);
        if (!known || s->kind != RB_BODY_DYNAMIC || (t && t->emitter == RB_IMPACT_EMITTER) || thrown >= 256u) continue;
        if (!(s->mass * sqrtf(rb_v3_dot(dv, dv)) > im->threshold) || !normalise(dv)) continue;
        float at[3];
        const float size = body_size(d, s->shape), clear = chip->bounding_radius * im->scale;
        d->impacts++;
        float u[3], v[3];
        basis(dv, u, v);
        for (uint32_t c = 0; c < im->count; c++, thrown++) {
            /* beside the body on the side it was hit on: outside its bounding
             * sphere across the hit, half its size back along it */
            const float phi = 6.2831853f * uniform(&d->rng_impact);
            rb_body_desc bd = {0};
            float dir[3];
            in_cone(&d->rng_impact, dv, 0.785398f, dir);
            for (int k = 0; k < 3; k++) {
                const float side = cosf(phi) * u[k] + sinf(phi) * v[k];
                at[k] = s->position[k] + (clear - 0.5f * size) * dv[k] + (size + clear) * side;
                bd.position[k] = at[k];
                bd.velocity[k] = s->velocity[k] + im->speed * dir[k];
            }
            /* never into a plane, a body or a chip thrown before: started
             * inside one, contacts throw it out at tens of m/s */
            if (!clear_of_planes(rb_world_get_desc(d->world), at, clear)) continue;
            bool free_here = true;
            for (uint32_t o = 0; o < n && free_here; o++) {
                float gap[3];
                for (int k = 0; k < 3; k++) gap[k] = at[k] - states[o].position[k];
                const float reach = clear + body_size(d, states[o].shape);
                free_here = rb_v3_dot(gap, gap) >= reach * reach;
            }
            for (uint32_t o = 0; o < placed && free_here; o++) {
                float gap[3];
                for (int k = 0; k < 3; k++) gap[k] = at[k] - chips[o][k];
                free_here = rb_v3_dot(gap, gap) >= 4.0f * clear * clear;
            }
            if (!free_here) continue;
            memcpy(chips[placed++], at, sizeof at);
            const rb_body_id id = rb_entities_spawn_scaled(d->entities, (uint32_t)d->impact_row, im->scale, &bd);
            if (id.generation == 0) continue;
            d->spawned++;
            if (!rb_debris_add_tracked(d, id, im->lifetime, RB_IMPACT_EMITTER)) return false;
        }
    }
    return true;
}
