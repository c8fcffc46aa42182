/* settings.c - the sandbox's settings, checked and applied (see settings.h). */
#include "settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenes/debris.h"
#include "sim/world.h"
#include "step_clock.h"
#include "tools.h"

#define REFUSE(...) (snprintf(why, why_size, __VA_ARGS__), false)
#define DEGREES (3.14159265358979323846 / 180.0)

/* A step or contact time for people: "1.6 ms", "0.25 ms", "2 s". */
static const char *time_text(double s, char buf[32]) {
    if (s != 0.0 && fabs(s) < 1.0)
        snprintf(buf, 32, "%.3g ms", s * 1000.0);
    else
        snprintf(buf, 32, "%.3g s", s);
    return buf;
}

static bool have_world(const rb_settings *s, char *why, size_t why_size) {
    return s->world ? true : REFUSE("no world");
}

/* The world's description with material 0 and the step replaced: what the
 * world's own check (rb_world_desc_check) is asked about. */
static bool world_takes(const rb_settings *s, rb_material m, float dt, char *why, size_t why_size) {
    rb_world_desc d = *rb_world_get_desc(s->world);
    d.material = m, d.dt = dt;
    return rb_world_desc_check(&d, why, why_size);
}

float rb_settings_step_for(float restitution, float contact_time) {
    rb_world_desc d = rb_default_world_desc();
    d.material.restitution = restitution, d.material.contact_time = contact_time;
    char err[256];
    /* dt <= t_c / 4 bounds it; the dashpot's limit (c dt < 1/2) may lower it */
    float lo = 0.0f, hi = contact_time / 4.0f;
    d.dt = hi;
    if (!(hi > 0.0f) || !isfinite(hi)) return 0.0f;
    if (rb_world_desc_check(&d, err, sizeof err)) return hi;
    for (int i = 0; i < 60; i++) {
        d.dt = 0.5f * (lo + hi);
        if (d.dt <= lo || d.dt >= hi) break;
        if (rb_world_desc_check(&d, err, sizeof err))
            lo = d.dt;
        else
            hi = d.dt;
    }
    return lo;
}

/* A material for material 0 at the world's step: its values' own ranges are
 * checked by the caller; here the step it needs, then the world's check. */
static bool apply_material(const rb_settings *s, rb_material m, const char *what, char *why, size_t why_size) {
    const float dt = rb_world_get_desc(s->world)->dt;
    const float most = rb_settings_step_for(m.restitution, m.contact_time);
    char a[32], b[32];
    if (!(dt <= most))
        return REFUSE("%s needs a step of at most %s; the step is %s (the World panel changes it)", what,
                      time_text(most, a), time_text(dt, b));
    char err[512];
    if (!world_takes(s, m, dt, err, sizeof err)) return REFUSE("%s: %s", what, err);
    /* every other material of the world is calibrated again with it */
    if (!rb_world_set_material(s->world, m, dt)) return REFUSE("%s: the world refused it (the log says why)", what);
    return true;
}

static rb_material material0(const rb_settings *s) {
    rb_material m;
    rb_world_get_material(s->world, 0, &m);
    return m;
}

/* ---- the world ---- */

bool rb_settings_set_gravity(const rb_settings *s, const float g[3], char *why, size_t why_size) {
    if (!have_world(s, why, why_size)) return false;
    for (int k = 0; k < 3; k++)
        if (!(isfinite(g[k]) && fabsf(g[k]) <= RB_GRAVITY_MAX))
            return REFUSE("gravity %c %g m/s^2: must be a number from -%g to %g", "xyz"[k], g[k],
                          (double)RB_GRAVITY_MAX, (double)RB_GRAVITY_MAX);
    return rb_world_set_gravity(s->world, g) ? true : REFUSE("gravity: the world refused it (the log says why)");
}

bool rb_settings_check_step(const rb_settings *s, float dt, char *why, size_t why_size) {
    char a[32], b[32], c[32];
    if (!have_world(s, why, why_size)) return false;
    if (!(isfinite(dt) && dt > 0.0f && dt <= 1.0f)) return REFUSE("step %g s: must be above 0 s and at most 1 s", dt);
    for (uint32_t k = 0; k < rb_world_material_count(s->world); k++) {
        rb_material m;
        rb_world_get_material(s->world, k, &m);
        const float most = rb_settings_step_for(m.restitution, m.contact_time);
        if (dt > most) {
            char which[48];
            snprintf(which, sizeof which, k == 0 ? "the material" : "material %u of the scene", k);
            return REFUSE("step %s is too large: %s (contact time %s, restitution %g) needs a step of at most %s",
                          time_text(dt, a), which, time_text(m.contact_time, b), m.restitution, time_text(most, c));
        }
    }
    char err[512];
    if (!world_takes(s, material0(s), dt, err, sizeof err)) return REFUSE("step %s: %s", time_text(dt, a), err);
    return true;
}

bool rb_settings_set_step(const rb_settings *s, float dt, char *why, size_t why_size) {
    if (!rb_settings_check_step(s, dt, why, why_size)) return false;
    if (s->debris)
        return REFUSE("the debris layer keeps time in steps: its scene must be loaded again at the new step");
    if (!rb_world_set_material(s->world, material0(s), dt))
        return REFUSE("step: the world refused it (the log says why)");
    return true;
}

bool rb_settings_set_time_scale(const rb_settings *s, double scale, char *why, size_t why_size) {
    if (!s->clock) return REFUSE("no clock to scale");
    if (!(isfinite(scale) && scale >= RB_TIME_SCALE_MIN && scale <= RB_TIME_SCALE_MAX))
        return REFUSE("time scale %g: must be from %g (slow motion) to %g", scale, RB_TIME_SCALE_MIN,
                      RB_TIME_SCALE_MAX);
    rb_step_clock_set_scale(s->clock, scale);
    return true;
}

bool rb_settings_sleeping(const rb_settings *s) { return s->world && rb_world_get_desc(s->world)->sleep_time > 0.0f; }

bool rb_settings_set_sleeping(const rb_settings *s, bool on, char *why, size_t why_size) {
    if (!have_world(s, why, why_size)) return false;
    const rb_world_desc *d = rb_world_get_desc(s->world), def = rb_default_world_desc();
    if (on == (d->sleep_time > 0.0f)) return true;
    const float speed = d->sleep_speed > 0.0f ? d->sleep_speed : def.sleep_speed;
    if (!rb_world_set_sleeping(s->world, speed, on ? def.sleep_time : 0.0f))
        return REFUSE("sleeping: the world refused it (the log says why)");
    return true;
}

/* ---- the material ---- */

bool rb_settings_set_restitution(const rb_settings *s, float e, char *why, size_t why_size) {
    if (!have_world(s, why, why_size)) return false;
    if (!(isfinite(e) && e >= 0.14f && e <= 1.0f))
        return REFUSE("restitution %g: must be from 0.14 to 1 (a contact that never pulls rebounds at least 0.135 of "
                      "its speed)",
                      e);
    rb_material m = material0(s);
    m.restitution = e;
    char what[48];
    snprintf(what, sizeof what, "restitution %g", e);
    return apply_material(s, m, what, why, why_size);
}

bool rb_settings_set_friction(const rb_settings *s, float mu, char *why, size_t why_size) {
    if (!have_world(s, why, why_size)) return false;
    if (!(isfinite(mu) && mu >= 0.0f)) return REFUSE("friction %g: must be a number >= 0", mu);
    rb_material m = material0(s);
    m.friction = mu;
    char what[48];
    snprintf(what, sizeof what, "friction %g", mu);
    return apply_material(s, m, what, why, why_size);
}

bool rb_settings_set_rolling_friction(const rb_settings *s, float mu_r, char *why, size_t why_size) {
    if (!have_world(s, why, why_size)) return false;
    if (!(isfinite(mu_r) && mu_r >= 0.0f && mu_r <= 1.0f))
        return REFUSE("rolling friction %g: must be a number from 0 to 1", mu_r);
    rb_material m = material0(s);
    m.rolling_friction = mu_r;
    char what[48];
    snprintf(what, sizeof what, "rolling friction %g", mu_r);
    return apply_material(s, m, what, why, why_size);
}

bool rb_settings_set_contact_time(const rb_settings *s, float tc, char *why, size_t why_size) {
    char a[32];
    if (!have_world(s, why, why_size)) return false;
    if (!(isfinite(tc) && tc > 0.0f && tc <= 1.0f))
        return REFUSE("contact time %g s: must be above 0 s and at most 1 s", tc);
    rb_material m = material0(s);
    m.contact_time = tc;
    char what[64];
    snprintf(what, sizeof what, "contact time %s", time_text(tc, a));
    return apply_material(s, m, what, why, why_size);
}

/* ---- the tools ---- */

bool rb_settings_set_throw(const rb_settings *s, float speed, float speed_max, float spin, char *why, size_t why_size) {
    if (!s->throw_params) return REFUSE("no throw tool");
    if (!(isfinite(speed) && speed > 0.0f && speed <= RB_THROW_SPEED_MAX))
        return REFUSE("throw speed %g m/s: must be above 0 and at most %g m/s (faster bodies pass through others)",
                      speed, (double)RB_THROW_SPEED_MAX);
    if (!(isfinite(speed_max) && speed_max >= speed && speed_max <= RB_THROW_SPEED_MAX))
        return REFUSE("full-charge speed %g m/s: must be from the tap's %g m/s to %g m/s", speed_max, speed,
                      (double)RB_THROW_SPEED_MAX);
    if (!(isfinite(spin) && spin >= 0.0f && spin <= RB_THROW_SPIN_MAX))
        return REFUSE("spin %g rad/s: must be from 0 to %g rad/s", spin, (double)RB_THROW_SPIN_MAX);
    *s->throw_params = (rb_throw){.speed = speed, .speed_max = speed_max, .spin = spin};
    return true;
}

bool rb_settings_set_blast(const rb_settings *s, float radius, float strength, float up, char *why, size_t why_size) {
    if (!s->blast) return REFUSE("no explode tool");
    if (!(isfinite(radius) && radius > 0.0f && radius <= RB_BLAST_RADIUS_MAX))
        return REFUSE("blast radius %g m: must be above 0 and at most %g m", radius, (double)RB_BLAST_RADIUS_MAX);
    if (!(isfinite(strength) && strength > 0.0f && strength <= RB_BLAST_STRENGTH_MAX))
        return REFUSE("blast impulse %g N s: must be above 0 and at most %g N s", strength,
                      (double)RB_BLAST_STRENGTH_MAX);
    if (!(isfinite(up) && up >= 0.0f && up <= RB_BLAST_UP_MAX))
        return REFUSE("blast upward bias %g: must be from 0 to %g", up, (double)RB_BLAST_UP_MAX);
    *s->blast = (rb_blast){.radius = radius, .strength = strength, .up = up};
    return true;
}

bool rb_settings_set_grab_hz(const rb_settings *s, float hz, char *why, size_t why_size) {
    if (!s->grab_hz) return REFUSE("no grab tool");
    if (!(isfinite(hz) && hz >= RB_GRAB_HZ_MIN && hz <= RB_GRAB_HZ_MAX))
        return REFUSE("grab stiffness %g Hz: must be from %g to %g Hz (a stiffer spring, held through 4 steps, "
                      "swings past the cursor)",
                      hz, (double)RB_GRAB_HZ_MIN, (double)RB_GRAB_HZ_MAX);
    *s->grab_hz = hz;
    return true;
}

/* ---- emitters and fields ---- */

bool rb_settings_get_emitter(const rb_settings *s, uint32_t k, rb_emitter_values *out) {
    if (!s->debris || k >= rb_debris_get_desc(s->debris)->emitter_count) return false;
    const rb_emitter *e = &rb_debris_get_desc(s->debris)->emitters[k];
    *out = (rb_emitter_values){.rate = e->rate,
                               .speed = e->speed,
                               .speed_spread = e->speed_spread,
                               .cone = (float)(e->cone / DEGREES),
                               .spin = e->spin,
                               .lifetime = e->lifetime};
    memcpy(out->centre, e->region.centre, sizeof out->centre);
    return true;
}

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

bool rb_settings_set_emitter(const rb_settings *s, uint32_t k, const rb_emitter_values *v, char *why, size_t why_size) {
    if (!s->debris) return REFUSE("no debris layer: place an emitter first (M, or the Scene panel)");
    if (k >= rb_debris_get_desc(s->debris)->emitter_count) return REFUSE("emitter %u: there is none", k + 1);
    if (!(isfinite(v->rate) && v->rate > 0.0f && v->rate <= 100000.0f))
        return REFUSE("emitter %u: rate %g a second: must be above 0 and at most 100000", k + 1, v->rate);
    if (!(isfinite(v->speed) && v->speed >= 0.0f && isfinite(v->speed_spread) && v->speed_spread >= 0.0f))
        return REFUSE("emitter %u: speed %g m/s and spread %g m/s: must be numbers >= 0", k + 1, v->speed,
                      v->speed_spread);
    if (!(isfinite(v->cone) && v->cone >= 0.0f && v->cone <= 180.0f))
        return REFUSE("emitter %u: cone %g degrees: must be from 0 to 180", k + 1, v->cone);
    if (!(isfinite(v->spin) && v->spin >= 0.0f && isfinite(v->lifetime) && v->lifetime >= 0.0f))
        return REFUSE("emitter %u: spin %g rad/s and lifetime %g s: must be numbers >= 0", k + 1, v->spin, v->lifetime);
    if (!finite3(v->centre)) return REFUSE("emitter %u: its centre must be finite", k + 1);
    rb_emitter e = rb_debris_get_desc(s->debris)->emitters[k];
    e.rate = v->rate, e.speed = v->speed, e.speed_spread = v->speed_spread;
    e.cone = (float)(v->cone * DEGREES), e.spin = v->spin, e.lifetime = v->lifetime;
    memcpy(e.region.centre, v->centre, sizeof e.region.centre);
    char err[256];
    if (!rb_debris_set_emitter(s->debris, k, &e, err, sizeof err)) return REFUSE("emitter %u: %s", k + 1, err);
    return true;
}

bool rb_settings_get_field(const rb_settings *s, uint32_t k, rb_field_values *out) {
    if (!s->debris || k >= rb_debris_get_desc(s->debris)->field_count) return false;
    const rb_field *f = &rb_debris_get_desc(s->debris)->fields[k];
    *out = (rb_field_values){.kind = (int)f->kind,
                             .radius = f->radius,
                             .strength = f->strength,
                             .up = f->up,
                             .speed = sqrtf(f->velocity[0] * f->velocity[0] + f->velocity[1] * f->velocity[1] +
                                            f->velocity[2] * f->velocity[2]),
                             .drag = f->drag,
                             .duration = f->duration};
    memcpy(out->centre, f->centre, sizeof out->centre);
    return true;
}

bool rb_settings_set_field(const rb_settings *s, uint32_t k, const rb_field_values *v, char *why, size_t why_size) {
    if (!s->debris) return REFUSE("no debris layer: set off a field first (B, J, C, or the Scene panel)");
    if (k >= rb_debris_get_desc(s->debris)->field_count) return REFUSE("field %u: there is none", k + 1);
    rb_field f = rb_debris_get_desc(s->debris)->fields[k];
    const bool wind = f.kind == RB_FIELD_WIND;
    if (!(isfinite(v->radius) && (wind ? v->radius >= 0.0f : v->radius > 0.0f)))
        return REFUSE(wind ? "field %u: radius %g m: must be >= 0 (0: everywhere)"
                           : "field %u: radius %g m: must be "
                             "above 0",
                      k + 1, v->radius);
    if (!(isfinite(v->strength) && v->strength >= 0.0f && isfinite(v->up) && v->up >= 0.0f))
        return REFUSE("field %u: strength %g and upward bias %g: must be numbers >= 0", k + 1, v->strength, v->up);
    if (!(isfinite(v->speed) && v->speed >= 0.0f && isfinite(v->drag) && v->drag >= 0.0f))
        return REFUSE("field %u: speed %g m/s and drag %g: must be numbers >= 0", k + 1, v->speed, v->drag);
    if (!(isfinite(v->duration) && v->duration >= 0.0f))
        return REFUSE("field %u: duration %g s: must be a number >= 0 (0: for ever)", k + 1, v->duration);
    if (!finite3(v->centre)) return REFUSE("field %u: its centre must be finite", k + 1);
    f.radius = v->radius, f.strength = v->strength, f.up = v->up, f.drag = v->drag, f.duration = v->duration;
    memcpy(f.centre, v->centre, sizeof f.centre);
    if (wind) { /* the speed along the wind's direction; a calm wind blows along x when it picks up */
        const float was =
            sqrtf(f.velocity[0] * f.velocity[0] + f.velocity[1] * f.velocity[1] + f.velocity[2] * f.velocity[2]);
        for (int a = 0; a < 3; a++)
            f.velocity[a] = was > 0.0f ? f.velocity[a] / was * v->speed : (a == 0 ? v->speed : 0.0f);
    }
    char err[256];
    if (!rb_debris_set_field(s->debris, k, &f, err, sizeof err)) return REFUSE("field %u: %s", k + 1, err);
    return true;
}
