/* debris_impact.c - impact debris (debris.h, rb_impact_debris;
 * docs/debris.md): at a tick, each body's contact impulse compared with the
 * tick before's, and chips thrown beside a body hit hard, clear of the
 * planes, the bodies and each other. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "debris_events.h"
#include "debris_internal.h"
#include "debris_math.h"

/* The most chips a tick throws. */
#define MAX_CHIPS 256u

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

/* The memory of the body of that id: grown to hold its slot, and emptied
 * when the slot holds a body it has not seen (a new one: its velocity at
 * its first tick, whether given at its start, by an emitter or by a break,
 * is nobody's hit). NULL if out of memory. */
static impact_memory *memory_of(rb_debris *d, rb_body_id id) {
    if (id.slot >= d->memory_size) {
        uint32_t size = d->memory_size ? d->memory_size : 64u;
        while (size <= id.slot) size *= 2u;
        impact_memory *m = realloc(d->memory, sizeof *m * size);
        if (!m) return NULL;
        memset(m + d->memory_size, 0, sizeof *m * (size - d->memory_size));
        d->memory = m, d->memory_size = size;
    }
    impact_memory *m = &d->memory[id.slot];
    if (m->generation != id.generation) {
        memset(m, 0, sizeof *m);
        m->generation = id.generation;
    }
    return m;
}

bool rb_debris_impact_pushed(rb_debris *d, const rb_body_state *s, const float impulse[3]) {
    if (d->impact_row < 0 || !(s->mass > 0.0f)) return true;
    impact_memory *m = memory_of(d, s->id);
    if (!m) return false;
    for (int k = 0; k < 3; k++) m->pushing[k] += impulse[k] / s->mass;
    return true;
}

/* The contacts' impulse per mass over the tick that just ended into j, and
 * true if the body was seen at the two ticks before (so the impulse before
 * is known); the memory moved on a tick. */
static bool impulse_now(impact_memory *m, const rb_body_state *s, const float g[3], float tick_s, float j[3]) {
    /* the change of velocity less gravity's and the fields' pushes: a
     * body's start velocity, an emitter's launch or a blast is no hit */
    for (int k = 0; k < 3; k++)
        j[k] = s->velocity[k] - m->velocity[k] - (s->asleep ? 0.0f : g[k] * tick_s) - m->pushed[k];
    const bool known = m->seen >= 2;
    if (m->seen < 2) m->seen++;
    memcpy(m->velocity, s->velocity, sizeof m->velocity);
    memcpy(m->pushed, m->pushing, sizeof m->pushed);
    memset(m->pushing, 0, sizeof m->pushing);
    return known;
}

bool rb_debris_throw_chips(rb_debris *d, const rb_body_state *states, uint32_t n) {
    const rb_impact_debris *im = &d->desc.impact;
    const float *g = rb_world_get_desc(d->world)->gravity;
    const float tick_s = (float)(d->tick_steps * d->dt);
    const rb_shape *chip = rb_entities_get(d->entities, (uint32_t)d->impact_row)->shape;
    uint32_t placed = 0;
    float chips[MAX_CHIPS][3]; /* where this tick's chips start */
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_state *s = &states[b];
        impact_memory *m = memory_of(d, s->id);
        if (!m) return false;
        /* a body resting under its weight takes the same impulse each tick
         * (no hit); a landing takes one suddenly */
        const bool first = m->seen == 0;
        float j[3], dv[3];
        const bool known = impulse_now(m, s, g, tick_s, j);
        for (int k = 0; k < 3; k++) dv[k] = j[k] - m->impulse[k];
        /* at its first tick no impulse is known: its velocity is only kept */
        if (!first) memcpy(m->impulse, j, sizeof j);
        const tracked *t = rb_debris_find(d, s->id);
        if (!known || s->kind != RB_BODY_DYNAMIC || (t && t->emitter == RB_IMPACT_EMITTER)) continue;
        if (!(s->mass * sqrtf(rb_v3_dot(dv, dv)) > im->threshold) || !normalise(dv)) continue;
        const float size = body_size(d, s->shape), clear = chip->bounding_radius * im->scale;
        d->impacts++;
        float u[3], v[3];
        basis(dv, u, v);
        /* count chips evenly round a ring across the hit, beside the body
         * (outside its bounding sphere across it, half its size back along
         * it), the ring wide enough that neighbours are clear of each
         * other; a place taken tries the same angle on two rings further
         * out. Placed at random angles they met each other, and some were
         * dropped. */
        const float spread = im->count > 1 ? 1.05f * clear / sinf(3.14159265f / (float)im->count) : 0.0f;
        const float ring = fmaxf(size + clear, spread), phi0 = 6.2831853f * uniform(&d->rng_impact);
        for (uint32_t c = 0; c < im->count; c++) {
            const float phi = phi0 + 6.2831853f * (float)c / (float)im->count;
            rb_body_desc bd = {0};
            float dir[3], at[3];
            in_cone(&d->rng_impact, dv, 0.785398f, dir);
            bool free_here = false;
            for (int tries = 0; tries < 3 && !free_here && placed < MAX_CHIPS; tries++) {
                const float out = ring + (float)tries * 2.1f * clear;
                for (int k = 0; k < 3; k++)
                    at[k] =
                        s->position[k] + (clear - 0.5f * size) * dv[k] + out * (cosf(phi) * u[k] + sinf(phi) * v[k]);
                /* never into a plane, a body or a chip thrown before: started
                 * inside one, contacts throw it out at tens of m/s */
                free_here = clear_of_planes(rb_world_get_desc(d->world), at, clear);
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
            }
            if (!free_here) {
                d->chips_short++;
                continue;
            }
            if (!rb_debris_room(d, 1)) { /* the world's cap */
                d->capped_spawns++;
                continue;
            }
            memcpy(chips[placed++], at, sizeof at);
            for (int k = 0; k < 3; k++) {
                bd.position[k] = at[k];
                bd.velocity[k] = s->velocity[k] + im->speed * dir[k];
            }
            const rb_body_id id = rb_entities_spawn_scaled(d->entities, (uint32_t)d->impact_row, im->scale, &bd);
            if (id.generation == 0) {
                d->chips_short++;
                continue;
            }
            d->spawned++;
            if (!rb_debris_add_tracked(d, id, im->lifetime, RB_IMPACT_EMITTER) ||
                !rb_debris_note_body(d, RB_EVENT_SPAWN, id, bd.position, RB_CAUSE_CHIP, -1, s->id))
                return false;
        }
    }
    return true;
}
