/* step_clock.c - the fixed-step clock (see step_clock.h). */
#include "step_clock.h"

#include <math.h>

void rb_step_clock_init(rb_step_clock *c, double dt, bool fixed) {
    *c = (rb_step_clock){.dt = dt, .fixed = fixed, .scale = 1.0, .sim_rate = 1.0};
}

void rb_step_clock_set_scale(rb_step_clock *c, double scale) {
    /* the smoothed rate starts at the new scale: a change is not read as falling behind */
    if (scale != c->scale) c->sim_rate = scale;
    c->scale = scale;
}

void rb_step_clock_set(rb_step_clock *c, double dt, bool fixed) {
    if (dt != c->dt) c->accumulator = 0.0, c->step_cost = 0.0;
    c->dt = dt, c->fixed = fixed;
}

void rb_step_clock_begin(rb_step_clock *c, double frame_dt, double now) {
    c->frame_steps = 0;
    c->frame_dt = frame_dt;
    c->frame_start = now;
    c->out_of_time = false;
    c->accumulator += frame_dt * c->scale;
    c->budget = rb_step_clock_budget(c);
}

void rb_step_clock_drawn(rb_step_clock *c, double seconds) {
    if (!(seconds >= 0.0)) return;
    /* A stall (a screenshot written, shaders rebuilt) counts as a long frame, no longer. */
    if (seconds > RB_MAX_FRAME_DT) seconds = RB_MAX_FRAME_DT;
    c->drawn = c->drawn > 0.0 ? 0.8 * c->drawn + 0.2 * seconds : seconds;
}

double rb_step_clock_budget(const rb_step_clock *c) {
    double b = RB_FRAME_TARGET - c->drawn;
    return b < RB_SIM_BUDGET_MIN ? RB_SIM_BUDGET_MIN : b > RB_SIM_BUDGET ? RB_SIM_BUDGET : b;
}

uint32_t rb_step_clock_next(rb_step_clock *c, uint32_t max_chunk, double now) {
    /* Never more steps than the longest frame needs, even on a fixed clock. */
    const uint32_t max_steps = (uint32_t)fmax(1.0, ceil(RB_MAX_FRAME_DT * c->scale / c->dt));
    if (c->out_of_time || c->accumulator < c->dt || c->frame_steps >= max_steps) return 0;
    uint32_t chunk = max_chunk;
    uint32_t owed = (uint32_t)(c->accumulator / c->dt);
    if (chunk > owed) chunk = owed;
    if (chunk > max_steps - c->frame_steps) chunk = max_steps - c->frame_steps;
    if (!c->fixed && c->step_cost > 0.0) {
        /* No more steps than fit in what is left of the budget (at least one, so it always moves). */
        double left = c->budget - (now - c->frame_start);
        uint32_t fit = left > 0.0 ? (uint32_t)(left / c->step_cost) : 0;
        if (fit < 1) fit = 1;
        if (chunk > fit) chunk = fit;
    }
    return chunk;
}

void rb_step_clock_took(rb_step_clock *c, uint32_t steps, double seconds, double now) {
    if (steps == 0) return;
    double cost = seconds / steps;
    c->step_cost = c->step_cost > 0.0 ? 0.7 * c->step_cost + 0.3 * cost : cost;
    c->accumulator -= steps * c->dt;
    c->frame_steps += steps;
    /* On the wall clock, a simulation slower than real time gives up the
     * time it owes instead of owing more each frame (the spiral of death). */
    if (!c->fixed && now - c->frame_start > c->budget) c->out_of_time = true;
}

void rb_step_clock_end(rb_step_clock *c, double real_dt) {
    bool behind = c->accumulator >= c->dt;
    /* Simulated time the frame owed and gave up: what was left beyond a
     * step, and on the wall clock what the longest frame cut off. */
    double lost = behind ? c->accumulator - fmod(c->accumulator, c->dt) : 0.0;
    if (behind) c->accumulator = fmod(c->accumulator, c->dt);
    if (!c->fixed && real_dt > c->frame_dt) lost += (real_dt - c->frame_dt) * c->scale;
    double per = c->fixed ? c->frame_dt : real_dt;
    double rate = per > 0.0 ? c->frame_steps * c->dt / per : c->scale;
    if (rate > c->scale) rate = c->scale;
    c->sim_rate = 0.9 * c->sim_rate + 0.1 * rate;
    /* Shown while the share of the time asked for (real time, or the time
     * scale's) that is given up stays above 5%: a step a frame or none at a
     * small scale is not falling behind. */
    const double owed = (per > c->frame_dt ? per : c->frame_dt) * c->scale;
    c->lost_share = 0.9 * c->lost_share + 0.1 * (owed > 0.0 ? lost / owed : 0.0);
    c->slowed = behind || c->out_of_time || c->lost_share > 0.05;
}

void rb_step_clock_pause(rb_step_clock *c, bool single) {
    c->accumulator = 0.0;
    c->frame_steps = single ? 1 : 0;
}
