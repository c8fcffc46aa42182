/* params.c - defaults, checks, the mixing of materials, and the contact rates derived from each material and pair. */
#include "world_internal.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>

/* The defaults every physics test passes with (tests/test_physics.c).
 * contact_time 8 ms keeps a 20 m/s face-on impact under half a radius of
 * overlap (about 11 t_c of overlap at 20 m/s; README.md, "Defaults"), and
 * dt = t_c / 5 resolves a contact in 5 steps: with the onset correction
 * (rb_contact_normal) and the calibrated damping below, restitution stays
 * within 0.035 of e from 460 drop heights, for e from 0.3 to 1. Every physics
 * test passes up to dt = 1.65 ms (README, Defaults). */
rb_material rb_default_material(void) {
    return (rb_material){.restitution = 0.5f, .friction = 0.5f, .contact_time = 0.008f};
}

rb_world_desc rb_default_world_desc(void) {
    rb_world_desc d = {
        .particle_radius = 0.2f,
        .gravity = {0.0f, -9.81f, 0.0f},
        .dt = 0.0016f,
        .material = rb_default_material(),
        .sleep_speed = 0.02f,
        .sleep_time = 0.5f,
        .plane_count = 1,
        .planes = {{.normal = {0.0f, 1.0f, 0.0f}, .offset = 0.0f}},
        .backend = RB_BACKEND_AUTO,
        .device_index = -1,
        .contact_slots = RB_CONTACT_SLOTS_AUTO,
    };
    return d;
}

/* The contact's rates per unit mass for restitution e and contact time t_c,
 * as a continuous contact: returns the damping c and sets w0 (stiffness
 * w0^2). The textbook k = m (pi^2 + ln^2 e) / t_c^2, c = -2 m ln(e) / t_c give
 * e only if the dashpot may pull at the end of the contact. It may not, so
 * the contact ends early and bounces higher (0.60 for e = 0.5). Instead find
 * the damping ratio zeta whose clamped contact gives e (bisection; e falls as
 * zeta grows), then scale time so the contact lasts t_c. */
static double continuous_rates(double e, double tc, double *w0) {
    double lo = 0.0, hi = 0.999, theta = M_PI;
    for (int i = 0; i < 60 && e < 1.0; i++) {
        double zeta = 0.5 * (lo + hi);
        if (rb_clamped_restitution(1.0, 2.0 * zeta, NULL) > e)
            lo = zeta;
        else
            hi = zeta;
    }
    const double zeta = e < 1.0 ? 0.5 * (lo + hi) : 0.0;
    rb_clamped_restitution(1.0, 2.0 * zeta, &theta); /* w0 = 1: w_d t* = theta */
    const double wd = theta / tc;
    *w0 = wd / sqrt(1.0 - zeta * zeta);
    return 2.0 * zeta * *w0;
}

#define FAIL(...) (snprintf(err, err_size, __VA_ARGS__), false)

/* Mixing rules (README.md, "The contact"). Each is exact on floats given
 * as doubles (a float's square fits a double), so a material mixed with
 * itself comes back bit for bit, and a pair of materials the step resolves
 * is resolved too: its restitution is the larger (less damping) and its
 * contact time at least the shorter, so its dashpot is never stronger than
 * either material's own. */
rb_material rb_material_mix(rb_material a, rb_material b) {
    const double ta = a.contact_time, tb = b.contact_time;
    return (rb_material){
        .restitution = fmaxf(a.restitution, b.restitution),
        .friction = (float)sqrt((double)a.friction * (double)b.friction),
        .contact_time = (float)sqrt(0.5 * (ta * ta + tb * tb)),
        .rolling_friction = (float)sqrt((double)a.rolling_friction * (double)b.rolling_friction),
    };
}

bool rb_material_check(const rb_material *m, float dt, char *err, size_t err_size) {
    /* A contact that never pulls rebounds at e^-2 = 0.135 of its speed even
     * when critically damped: lower restitution needs another contact law. */
    if (!(isfinite(m->restitution) && m->restitution >= 0.14f && m->restitution <= 1.0f))
        return FAIL("restitution must be in [0.14, 1]: a spring-dashpot contact that never pulls rebounds at "
                    "least 0.135 of its speed (got %g)",
                    m->restitution);
    if (!(isfinite(m->friction) && m->friction >= 0.0f))
        return FAIL("friction must be a number >= 0 (got %g)", m->friction);
    /* Past 1 the rolling spring (RB_ROLLING_SPRING mu_r^2) outgrows the
     * normal one and rings faster than the step resolves; DEM's values for
     * sand and gravel are 0.01 to 0.3. */
    if (!(isfinite(m->rolling_friction) && m->rolling_friction >= 0.0f && m->rolling_friction <= 1.0f))
        return FAIL("rolling_friction must be a number in [0, 1] (got %g)", m->rolling_friction);
    if (!(isfinite(m->contact_time) && m->contact_time > 0.0f))
        return FAIL("contact_time must be a positive number of seconds (got %g)", m->contact_time);
    if (!(isfinite(dt) && dt > 0.0f)) return FAIL("dt must be a positive number of seconds (got %g)", dt);
    /* Explicit tangential damping decays slip by a factor 1 - pi dt / t_c a
     * step: past t_c / pi it overshoots. t_c / 4 keeps a margin; t_c / 5 is the default. */
    if (dt > m->contact_time / 4.0f)
        return FAIL("dt %g s is too large for contact_time %g s: keep dt <= contact_time / 4 (/ 5 is the default)", dt,
                    m->contact_time);
    /* The dashpot acts explicitly: past c dt = 1/2 one step takes more than
     * half the approach speed, the first and last steps of a contact
     * (rb_contact_normal) are no longer near the continuous contact, and
     * restitution comes out far from e (e = 0.2 at t_c / 5 rebounded at 0.16
     * on average). Low restitution needs a smaller step. */
    double w0, c = continuous_rates(m->restitution, m->contact_time, &w0);
    if (c * dt >= 0.5)
        return FAIL("restitution %g with contact_time %g s needs dt < %.3g s (got %g s): the contact's damping is too "
                    "strong for a larger step",
                    m->restitution, m->contact_time, 0.5 / c, dt);
    return true;
}

bool rb_world_desc_check(const rb_world_desc *d, char *err, size_t err_size) {
    if (!(isfinite(d->particle_radius) && d->particle_radius > 0.0f))
        return FAIL("particle_radius must be a positive number (got %g)", d->particle_radius);
    for (int i = 0; i < 3; i++)
        if (!isfinite(d->gravity[i])) return FAIL("gravity[%d] is not finite (got %g)", i, d->gravity[i]);
    if (!rb_material_check(&d->material, d->dt, err, err_size)) return false;
    if (!(isfinite(d->sleep_speed) && d->sleep_speed >= 0.0f && isfinite(d->sleep_time) && d->sleep_time >= 0.0f))
        return FAIL("sleep_speed and sleep_time must be numbers >= 0 (got %g, %g)", d->sleep_speed, d->sleep_time);
    if (d->contact_slots != RB_CONTACT_SLOTS_AUTO && d->contact_slots != 4u && d->contact_slots != 8u)
        return FAIL("contact_slots must be 4, 8 or 0 (chosen from the bodies) (got %u)", d->contact_slots);
    if (d->plane_count > RB_MAX_PLANES) return FAIL("at most %d planes (got %u)", RB_MAX_PLANES, d->plane_count);
    for (uint32_t i = 0; i < d->plane_count; i++) {
        const rb_plane *p = &d->planes[i];
        float n2 = p->normal[0] * p->normal[0] + p->normal[1] * p->normal[1] + p->normal[2] * p->normal[2];
        if (!isfinite(n2) || !isfinite(p->offset) || fabsf(n2 - 1.0f) > 1e-3f)
            return FAIL("plane %u needs a unit normal and a finite offset", i);
    }
    return true;
}

/* A spring-dashpot contact of unit mass, m x'' = -k x - c x', that starts at
 * overlap 0 with speed v and ends when its force would turn into a pull (the
 * normal force never pulls). With beta = c / 2, w_d = sqrt(k - beta^2), the
 * overlap is x = v / w_d e^(-beta t) sin(w_d t); the force k x + c x' first
 * vanishes after the turn at w_d t* = theta with
 * tan(theta) = -2 beta w_d / (k - 2 beta^2), theta in (0, pi). Returns theta and the
 * restitution -x'(t*) / v = e^(-beta t*) (beta / w_d sin(theta) - cos(theta)). */
double rb_clamped_restitution(double stiffness, double damping, double *theta_out) {
    double beta = 0.5 * damping, wd = sqrt(stiffness - beta * beta);
    /* the root in (0, pi): sin(theta) > 0 while the particles overlap */
    double theta = atan2(2.0 * beta * wd, 2.0 * beta * beta - stiffness);
    if (theta_out) *theta_out = theta;
    return exp(-beta * theta / wd) * (beta / wd * sin(theta) - cos(theta));
}

/* The same contact as the step integrates it (semi-implicit Euler: v += a dt,
 * then x += v dt; force from the state at the start of the step, clamped at
 * zero), unit mass, no gravity, entry speed 1. The first state in contact has
 * overlap phase * dt (phase in (0, 1): where the crossing fell within the
 * step). Returns the speed it leaves with: the discrete restitution. The
 * force is rb_contact_normal's, in double, its onset correction on the
 * closing step only, as there (tests/test_physics.c,
 * test_damping_calibrated_on_the_law): calling the float function instead
 * moves the calibrated damping by a rounding, and the trajectories with it
 * (tests/test_opencl.c, test_pile_matches_reference). */
static double discrete_rebound(double k, double c, double dt, double phase) {
    double x = phase * dt, v = -1.0; /* x: overlap, v: separation speed */
    for (int n = 0; x > 0.0 && n < 100000; n++) {
        double f = k * x - c * v, u = fabs(v) * dt;
        if (v < 0.0 && x < u) f = (x + 0.5 * u) / u * (0.5 * k * (x + 0.5 * u) - c * v); /* first step */
        v += (f > 0.0 ? f : 0.0) * dt;
        x -= v * dt;
    }
    return v;
}

/* Mean of discrete_rebound over 32 evenly spaced entry phases. */
static double discrete_mean_restitution(double k, double c, double dt) {
    enum { PHASES = 32 };
    double sum = 0.0;
    for (int j = 0; j < PHASES; j++) sum += discrete_rebound(k, c, dt, (j + 0.5) / PHASES);
    return sum / PHASES;
}

rb_contact_rates rb_contact_rates_of(rb_material m, float dt) {
    const double e = m.restitution, tc = m.contact_time;
    double w0, damping = continuous_rates(e, tc, &w0);
    /* The step resolves the contact in only t_c / dt steps, and its mean
     * restitution over where the first touch falls within a step is not the
     * continuous one. Calibrate the damping on the stepped contact itself so
     * that this mean is e: bisection, as the mean falls with the damping on
     * [0, 0.5 / dt] (checked for e from 0.14 to 0.95, dt from t_c / 256 to
     * t_c / 4; above e = 0.95 at dt >= t_c / 5 it wobbles by under 5e-4).
     * Deterministic: fixed phases and iteration count; it costs
     * 0.03 ms at the default dt, 1.6 ms at t_c / 256. This removes the bias
     * only, not the scatter over entry phases. Skipped for e = 1 (no
     * dashpot) and for dt < t_c / 256 (bias below 1e-3). Where even no
     * damping rebounds below e (e above 0.989 at t_c / 4, 0.994 at t_c / 5), the contact
     * gets no damping: the closest it comes. */
    if (e < 1.0 && dt * 256.0 >= tc && damping * dt < 0.5) {
        double clo = 0.0, chi = fmin(2.0 * damping, 0.5 / dt);
        for (int i = 0; i < 40; i++) {
            double c = 0.5 * (clo + chi);
            if (discrete_mean_restitution(w0 * w0, c, dt) > e)
                clo = c;
            else
                chi = c;
        }
        damping = 0.5 * (clo + chi);
    }
    return (rb_contact_rates){
        .stiffness = (float)(w0 * w0),
        .damping = (float)damping,
        /* Tangential damping as fast as the normal spring's frequency: sliding
         * contacts reach the Coulomb cap after a few mm/s of slip, and
         * eta_t dt / m_eff = pi dt / t_c stays below 1 for dt <= t_c / 4. */
        .tangential = (float)(M_PI / tc),
        .friction = m.friction,
    };
}

/* The spin part of how a point at l (principal frame) gives way to a unit
 * tangential force t: the largest (l x t) . D (l x t) over unit t, D the
 * inverse principal moments. l x t spans the plane normal to l, so it is
 * |l|^2 times the largest of u . D u over unit u in that plane: the larger
 * root of lambda^2 - B lambda + C = 0 (the secular equation of D restricted
 * to the plane). */
static double spin_mobility(const double l[3], const double D[3]) {
    const double l2 = l[0] * l[0] + l[1] * l[1] + l[2] * l[2];
    if (!(l2 > 0.0)) return 0.0;
    const double n[3] = {l[0] * l[0] / l2, l[1] * l[1] / l2, l[2] * l[2] / l2}; /* squared unit components */
    const double B = n[0] * (D[1] + D[2]) + n[1] * (D[0] + D[2]) + n[2] * (D[0] + D[1]);
    const double C = n[0] * D[1] * D[2] + n[1] * D[0] * D[2] + n[2] * D[0] * D[1];
    return l2 * 0.5 * (B + sqrt(fmax(0.0, B * B - 4.0 * C)));
}

double rb_shape_mobility(const rb_shape_data *s, float radius) {
    const double D[3] = {1.0 / s->inertia[0], 1.0 / s->inertia[1], 1.0 / s->inertia[2]};
    const double m = (double)s->mass / s->particle_count;
    double worst = 0.0;
    for (uint32_t i = 0; i < s->particle_count; i++) {
        const double o[3] = {s->offsets[3 * i], s->offsets[3 * i + 1], s->offsets[3 * i + 2]};
        const double len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        /* points of the particle's surface: outward from the centre of mass, and toward the 26 neighbours of a cube */
        for (int k = 0; k < 28; k++) {
            double d[3] = {(double)(k % 3 - 1), (double)(k / 3 % 3 - 1), (double)(k / 9 % 3 - 1)};
            if (k == 13) continue; /* (0, 0, 0) */
            if (k == 27) {
                if (!(len > 0.0)) continue;
                d[0] = o[0], d[1] = o[1], d[2] = o[2];
            }
            const double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double l[3] = {o[0] + radius * d[0] / dl, o[1] + radius * d[1] / dl, o[2] + radius * d[2] / dl};
            worst = fmax(worst, spin_mobility(l, D));
        }
    }
    return fmax(1.0, m * (1.0 / s->mass + worst));
}

double rb_shape_onset_support(const rb_shape_data *s, float radius) {
    const double D[3] = {1.0 / s->inertia[0], 1.0 / s->inertia[1], 1.0 / s->inertia[2]};
    double best = 1.0;
    for (int axis = 0; axis < 6; axis++) { /* +x, -x, +y, -y, +z, -z: the faces of the principal frame */
        const int a = axis / 2;
        const double sign = axis % 2 ? -1.0 : 1.0;
        double far = -INFINITY;
        for (uint32_t i = 0; i < s->particle_count; i++) far = fmax(far, sign * s->offsets[3 * i + a]);
        double support = 0.0;
        for (uint32_t i = 0; i < s->particle_count; i++) {
            if (sign * s->offsets[3 * i + a] < far - 0.01 * radius) continue; /* not in the outermost layer */
            double l[3] = {s->offsets[3 * i], s->offsets[3 * i + 1], s->offsets[3 * i + 2]}, n[3] = {0, 0, 0};
            l[a] += sign * radius; /* the touching point */
            n[a] = sign;
            const double c[3] = {l[1] * n[2] - l[2] * n[1], l[2] * n[0] - l[0] * n[2], l[0] * n[1] - l[1] * n[0]};
            const double w = 1.0 / s->mass + c[0] * c[0] * D[0] + c[1] * c[1] * D[1] + c[2] * c[2] * D[2];
            support += 1.0 / (s->mass * w);
        }
        best = fmax(best, support);
    }
    return best;
}

rb_step_params rb_step_params_from_desc(const rb_world_desc *d) {
    rb_step_params p = {
        .max_radius = d->particle_radius,
        .dt = d->dt,
        .gravity = {d->gravity[0], d->gravity[1], d->gravity[2]},
        .sleep_speed = d->sleep_speed,
        .sleep_time = d->sleep_time,
        .wake_accel = 1.0f,
        .support_keep = (float)exp(-(double)d->dt / 1.0),
        .plane_count = d->plane_count,
        .material_count = 1,
    };
    p.rates[0] = rb_contact_rates_of(d->material, d->dt);
    p.rolling[0] = d->material.rolling_friction;
    p.rolling_any = p.rolling[0] > 0.0f;
    for (uint32_t i = 0; i < d->plane_count; i++)
        p.planes[i] =
            (rb_float4){d->planes[i].normal[0], d->planes[i].normal[1], d->planes[i].normal[2], d->planes[i].offset};
    return p;
}

bool rb_step_params_set_materials(rb_step_params *p, const rb_material *materials, uint32_t count, uint32_t kept,
                                  char *err, size_t err_size) {
    char why[256];
    if (count == 0 || count > RB_MAX_MATERIALS)
        return FAIL("a world holds 1 to %d materials (asked for %u)", RB_MAX_MATERIALS, count);
    for (uint32_t a = 0; a < count; a++)
        if (!rb_material_check(&materials[a], p->dt, why, sizeof why)) return FAIL("material %u: %s", a, why);
    for (uint32_t a = 0; a < count; a++)
        for (uint32_t b = a + 1; b < count; b++) {
            const rb_material m = rb_material_mix(materials[a], materials[b]);
            if (!rb_material_check(&m, p->dt, why, sizeof why))
                return FAIL("materials %u and %u in contact: %s", a, b, why);
        }
    /* Each distinct pair material is calibrated once: with the mixing rules
     * many pairs share one (every pair of one material, say). */
    rb_material done[RB_MAX_MATERIALS * RB_MAX_MATERIALS];
    rb_contact_rates done_rates[RB_MAX_MATERIALS * RB_MAX_MATERIALS];
    uint32_t done_count = 0;
    for (uint32_t a = 0; a < count; a++)
        for (uint32_t b = a < kept ? kept : a; b < count; b++) {
            const rb_material m = rb_material_mix(materials[a], materials[b]);
            uint32_t k = 0;
            while (k < done_count && memcmp(&done[k], &m, sizeof m) != 0) k++;
            if (k == done_count) done[done_count] = m, done_rates[done_count++] = rb_contact_rates_of(m, p->dt);
            p->rates[rb_pair_index(a, b)] = p->rates[rb_pair_index(b, a)] = done_rates[k];
            p->rolling[rb_pair_index(a, b)] = p->rolling[rb_pair_index(b, a)] = m.rolling_friction;
        }
    p->material_count = count;
    /* a pair resists rolling where both materials do (sqrt(a b)), so some
     * pair does where some material does: with itself, at least */
    p->rolling_any = false;
    for (uint32_t a = 0; a < count; a++) p->rolling_any |= materials[a].rolling_friction > 0.0f;
    return true;
}
