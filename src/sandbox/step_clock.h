/* step_clock.h - the sandbox's fixed-step clock: how many simulation steps a
 * drawn frame owes, in what chunks, and when to give up owing (no spiral of
 * death). It knows nothing of SDL or the world: the loop tells it the time
 * and what the steps cost, and takes the steps itself, so the clock can be
 * tested alone (tests/test_step_clock.c).
 *
 * A frame:
 *     rb_step_clock_begin(&c, frame_dt, now);
 *     for (uint32_t n; (n = rb_step_clock_next(&c, chunk, now())) > 0;) {
 *         t = now(); step the world n steps;
 *         rb_step_clock_took(&c, n, now() - t, now());
 *     }
 *     rb_step_clock_end(&c, real_dt);
 *     draw and present; rb_step_clock_drawn(&c, what that took);
 * The budget for stepping adapts to the drawing: a frame aims at
 * RB_FRAME_TARGET, and the simulation gets what drawing leaves of it, so a
 * slow renderer (a software rasterizer) slows the simulation down rather
 * than the frame rate, and a fast one leaves nearly all of it to stepping.
 * Units: seconds. */
#ifndef RB_STEP_CLOCK_H
#define RB_STEP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* Longest frame the clock accepts (s): a stall (a breakpoint, a dragged
 * window) does not turn into a burst of catch-up steps. */
#define RB_MAX_FRAME_DT 0.1
/* Wall time (s) the simulation may take per frame before it is slowed down
 * instead of falling further behind (the spiral of death): at most this,
 * when drawing takes next to nothing... */
#define RB_SIM_BUDGET 0.030
/* ...at least this, however long drawing takes, so the world still moves... */
#define RB_SIM_BUDGET_MIN 0.008
/* ...and in between, what drawing leaves of a frame of this long (30 fps). */
#define RB_FRAME_TARGET (1.0 / 30.0)

typedef struct rb_step_clock {
    double dt;          /* the simulation's fixed step */
    bool fixed;         /* frames advance a fixed time (scripts, --frames): never slowed */
    double scale;       /* simulated seconds a second of clock time: 1 real time, 0.25 slow motion */
    double accumulator; /* simulated time owed */
    double step_cost;   /* wall time per step, smoothed: sizes the chunks on a slow machine */
    double frame_dt;    /* this frame's clock time */
    double frame_start; /* wall time the frame's stepping began */
    double drawn;       /* wall time of a frame besides stepping (drawing, presenting), smoothed; 0 = not known */
    double budget;      /* this frame's stepping budget (wall clock only) */
    bool out_of_time;   /* this frame used its budget */
    uint32_t frame_steps;
    /* What the HUD shows */
    bool slowed;       /* the simulation fell behind real time and was slowed down */
    double sim_rate;   /* simulated seconds per second of the clock, smoothed (1 = real time; at most scale) */
    double lost_share; /* of the simulated time asked for, the share given up, smoothed */
} rb_step_clock;

/* A clock for steps of dt; fixed: frames advance a fixed time, so a run is the
 * same however fast the machine is (no budget is applied). */
void rb_step_clock_init(rb_step_clock *c, double dt, bool fixed);
/* Changes the step (the world's dt changed) or the fixed-time mode. */
void rb_step_clock_set(rb_step_clock *c, double dt, bool fixed);

/* Simulated time per clock time (the panels' time scale, 0.05 to 2): each
 * frame owes scale x its clock time, so slow motion takes fewer steps a
 * frame, never drops any. The caller checks the range. */
void rb_step_clock_set_scale(rb_step_clock *c, double scale);

/* Starts a frame of frame_dt seconds of clock time at wall time now. */
void rb_step_clock_begin(rb_step_clock *c, double frame_dt, double now);
/* How many steps to take next, at most max_chunk: 0 once the frame owes less
 * than a step, has taken the longest frame's worth (RB_MAX_FRAME_DT x scale
 * of simulated time), or (on the wall clock)
 * has used its budget. At least one while anything is owed and budget is left. */
uint32_t rb_step_clock_next(rb_step_clock *c, uint32_t max_chunk, double now);
/* The loop took `steps` steps, which cost `seconds` of wall time, ending at now. */
void rb_step_clock_took(rb_step_clock *c, uint32_t steps, double seconds, double now);
/* Ends the frame: time owed beyond a step is given up (the simulation slows
 * down rather than owing more each frame). real_dt: wall time the frame took. */
void rb_step_clock_end(rb_step_clock *c, double real_dt);
/* The rest of the frame (drawing, presenting, input) took `seconds` of wall
 * time: later frames' budgets leave that much of RB_FRAME_TARGET to it. */
void rb_step_clock_drawn(rb_step_clock *c, double seconds);
/* The stepping budget a frame beginning now gets: RB_FRAME_TARGET less the
 * smoothed drawing time, within [RB_SIM_BUDGET_MIN, RB_SIM_BUDGET]. */
double rb_step_clock_budget(const rb_step_clock *c);
/* A paused frame: nothing is owed; single counts one step taken by hand (N). */
void rb_step_clock_pause(rb_step_clock *c, bool single);

#endif
