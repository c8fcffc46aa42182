/* step_scatter.c - what a longer step costs a contact's restitution: one
 * contact of unit mass, no gravity, closing at 1 m/s, stepped as the world
 * steps it (v += f dt, then x -= v dt) with the world's normal law
 * (rb_contact_normal, src/sim/contact.h) and the world's stiffness, from 64
 * entry phases (the first overlap phase * dt). For each restitution and step
 * t_c / N it calibrates the damping so that the mean rebound is e (as
 * src/sim/params.c does) and prints the mean, the lowest and the highest
 * rebound: the scatter over where the first touch falls within a step, which
 * no calibration removes. Two laws:
 *   explicit  the world's: the dashpot on the speed at the step's start,
 *             damping at most 0.5 / dt (rb_material_check);
 *   implicit  a model: the same force divided by 1 + c dt, the spring and
 *             dashpot taken at the step's end speed, which allows any damping.
 * README.md, "Instructions a particle (CPU)", quotes its table.
 *
 *   rb_step_scatter */
#include <stdio.h>

#include "sim/contact.h"

enum { PHASES = 64 };

typedef struct scatter {
    double mean, low, high;
} scatter;

static scatter rebounds(float k, float c, float dt, int implicit) {
    scatter s = {0.0, 1e9, -1e9};
    for (int j = 0; j < PHASES; j++) {
        float x = (j + 0.5f) / PHASES * dt, v = -1.0f; /* overlap, separation speed */
        for (int n = 0; x > 0.0f && n < 100000; n++) {
            float f = rb_contact_normal(k, c, x, v, dt);
            if (implicit) f /= 1.0f + c * dt;
            v += f * dt;
            x -= v * dt;
        }
        s.mean += v / PHASES;
        s.low = v < s.low ? v : s.low;
        s.high = v > s.high ? v : s.high;
    }
    return s;
}

/* The damping in [0, top] whose mean rebound is e (the mean falls as the
 * damping grows); top itself where even that rebounds above e. */
static float calibrate(float k, float e, float dt, float top, int implicit) {
    float lo = 0.0f, hi = top;
    for (int i = 0; i < 40; i++) {
        const float c = 0.5f * (lo + hi);
        if (rebounds(k, c, dt, implicit).mean > e)
            lo = c;
        else
            hi = c;
    }
    return 0.5f * (lo + hi);
}

int main(void) {
    const float es[] = {0.3f, 0.5f, 0.9f}, divisors[] = {5.0f, 4.0f, 3.5f, 3.0f, 2.5f};
    const rb_material base = rb_default_material();
    printf("contact time %.3f s; rebound speed over impact speed from %d entry phases: mean [lowest, highest]\n",
           base.contact_time, PHASES);
    printf("%-5s %-8s %-34s %-34s %s\n", "e", "dt", "explicit (the world's law)", "implicit (a model)",
           "the world at this step");
    for (size_t a = 0; a < sizeof es / sizeof *es; a++)
        for (size_t b = 0; b < sizeof divisors / sizeof *divisors; b++) {
            rb_material m = base;
            m.restitution = es[a];
            const float dt = m.contact_time / divisors[b];
            const float k = rb_contact_rates_of(m, dt).stiffness;
            const float ce = calibrate(k, m.restitution, dt, 0.5f / dt, 0);
            const float ci = calibrate(k, m.restitution, dt, 100.0f / dt, 1);
            const scatter se = rebounds(k, ce, dt, 0), si = rebounds(k, ci, dt, 1);
            char why[256];
            const int accepted = rb_material_check(&m, dt, why, sizeof why);
            printf("%-5.1f t_c/%-4.1f %.3f [%.3f, %.3f] c dt %.2f%s  %.3f [%.3f, %.3f] c dt %.2f    %s\n",
                   m.restitution, divisors[b], se.mean, se.low, se.high, ce * dt, ce * dt > 0.499f ? "*" : " ",
                   si.mean, si.low, si.high, ci * dt, accepted ? "accepted" : "refused");
        }
    printf("* the explicit law's damping at its limit (0.5 / dt): its mean stays above e\n");
    return 0;
}
