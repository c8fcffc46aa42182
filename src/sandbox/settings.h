/* settings.h - the sandbox's settings as the panels change them (panels.h):
 * the world's gravity, step, sleeping and material, the time scale, the
 * tools' throw, blast and grab, the debris layer's emitters and fields.
 *
 * Each setter checks its value first and changes nothing when it refuses:
 * it returns false with the reason in `why`, naming the value and what it
 * must be ("friction -1: must be a number >= 0", "contact time 1 ms needs a
 * step of at most 0.25 ms; the step is 1.6 ms"), and the simulation runs on
 * as it was. A value taken is in effect from the next step. The world's own
 * checks (rb_world_desc_check) are the rule; the messages say it in the
 * panel's terms.
 *
 * No SDL, no window: the tests call these on a world of their own
 * (tests/test_settings.c), and the panels (C++) call the same functions.
 * Plain C types only, so the header is C and C++ alike. */
#ifndef RB_SETTINGS_H
#define RB_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rb_world;
struct rb_step_clock;
struct rb_throw;
struct rb_blast;
struct rb_debris;

/* What the settings change; the sandbox points it at its own each frame
 * (the world changes when a scene loads). A NULL member: its settings are
 * refused ("no debris layer"). */
typedef struct rb_settings {
    struct rb_world *world;
    struct rb_step_clock *clock;   /* the time scale */
    struct rb_throw *throw_params; /* the throw tool */
    struct rb_blast *blast;        /* the explode tool */
    float *grab_hz;                /* the grab's spring, Hz */
    struct rb_debris *debris;      /* the emitters and fields; NULL without a debris layer */
} rb_settings;

/* The ranges the panels offer and the setters take. */
#define RB_TIME_SCALE_MIN 0.05
#define RB_TIME_SCALE_MAX 2.0
#define RB_GRAVITY_MAX 1000.0f    /* m/s^2 along any axis */
#define RB_THROW_SPEED_MAX 100.0f /* m/s: faster bodies pass through one another (README, Limits) */
#define RB_THROW_SPIN_MAX 50.0f   /* rad/s */
#define RB_BLAST_RADIUS_MAX 1000.0f
#define RB_BLAST_STRENGTH_MAX 1e9f /* N s, as --blast takes */
#define RB_BLAST_UP_MAX 100.0f

/* ---- the world ---- */
bool rb_settings_set_gravity(const rb_settings *s, const float gravity[3], char *why, size_t why_size);
/* Checks a step (s) against every material of the world without changing
 * anything: finite, above 0, at most 1 s (as --dt), and small enough for
 * each material ("contact time 8 ms needs a step of at most 2 ms"). */
bool rb_settings_check_step(const rb_settings *s, float dt, char *why, size_t why_size);
/* The step, live (rb_world_set_material keeps the material, calibrates
 * every pair again). Refused with a debris layer: it keeps time in steps
 * (the sandbox reloads the scene at the new step instead). */
bool rb_settings_set_step(const rb_settings *s, float dt, char *why, size_t why_size);
/* Simulated time per second of the clock, RB_TIME_SCALE_MIN to _MAX: slow
 * motion takes fewer steps a frame, it drops none. */
bool rb_settings_set_time_scale(const rb_settings *s, double scale, char *why, size_t why_size);
/* Sleeping on (a body still for the default 0.5 s sleeps, below the world's
 * sleep speed) or off (every body moves again). */
bool rb_settings_set_sleeping(const rb_settings *s, bool on, char *why, size_t why_size);
bool rb_settings_sleeping(const rb_settings *s);

/* ---- the material (material 0, every body's unless it names another) ---- */
bool rb_settings_set_restitution(const rb_settings *s, float restitution, char *why, size_t why_size);
bool rb_settings_set_friction(const rb_settings *s, float friction, char *why, size_t why_size);
/* Rolling friction mu_r, 0 to 1 (rb_material.rolling_friction; 0: rolling
 * is free). */
bool rb_settings_set_rolling_friction(const rb_settings *s, float rolling_friction, char *why, size_t why_size);
/* Contact time t_c, s: refused when the step is too large for it, with the
 * step it needs. */
bool rb_settings_set_contact_time(const rb_settings *s, float contact_time, char *why, size_t why_size);
/* The largest step (s) a material of restitution e and contact time t_c
 * takes, by the world's own check; 0 for a material no step resolves. */
float rb_settings_step_for(float restitution, float contact_time);

/* ---- the tools ---- */
/* The throw: tap speed, full-charge speed (m/s, 0 < tap <= full <=
 * RB_THROW_SPEED_MAX), spin (rad/s, 0 to RB_THROW_SPIN_MAX). */
bool rb_settings_set_throw(const rb_settings *s, float speed, float speed_max, float spin, char *why, size_t why_size);
/* The explode tool's blast: radius m (above 0), impulse N s at its centre
 * (above 0), upward bias (>= 0), in --blast's ranges. */
bool rb_settings_set_blast(const rb_settings *s, float radius, float strength, float up, char *why, size_t why_size);
/* The grab spring's frequency, RB_GRAB_HZ_MIN to _MAX Hz (tools.h). */
bool rb_settings_set_grab_hz(const rb_settings *s, float hz, char *why, size_t why_size);

/* ---- the debris layer's emitters and fields ---- */
/* What the scene panel edits of an emitter. */
typedef struct rb_emitter_values {
    float rate;         /* bodies a second, (0, 100000] */
    float speed;        /* m/s, >= 0 */
    float speed_spread; /* m/s, >= 0 */
    float cone;         /* degrees, 0 to 180 */
    float spin;         /* rad/s, >= 0 */
    float lifetime;     /* s, >= 0 (0: for ever) */
    float centre[3];    /* m: its region's centre */
} rb_emitter_values;
bool rb_settings_get_emitter(const rb_settings *s, uint32_t k, rb_emitter_values *out);
bool rb_settings_set_emitter(const rb_settings *s, uint32_t k, const rb_emitter_values *v, char *why, size_t why_size);

/* What the scene panel edits of a field; which of them mean something
 * depends on its kind (radial: strength N s or N, up; wind: speed along
 * its velocity, drag; vortex: strength m/s at its edge, drag). */
typedef struct rb_field_values {
    int kind;        /* RB_FIELD_RADIAL, _WIND, _VORTEX (read only) */
    float radius;    /* m (wind: 0 = everywhere) */
    float strength;  /* radial, vortex; >= 0 */
    float up;        /* radial, >= 0 */
    float speed;     /* wind: m/s along its direction, >= 0 */
    float drag;      /* wind, vortex; >= 0 */
    float duration;  /* s, >= 0 (0: for ever) */
    float centre[3]; /* m */
} rb_field_values;
bool rb_settings_get_field(const rb_settings *s, uint32_t k, rb_field_values *out);
bool rb_settings_set_field(const rb_settings *s, uint32_t k, const rb_field_values *v, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
