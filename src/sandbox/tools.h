/* tools.h - what the mouse does to the world: throw, grab, delete, explode.
 *
 * rb_pick_ray casts a ray against every particle (a sphere of its shape's
 * particle radius), so it works for any shape; the planes are hit when no
 * body is. The sandbox picks what it draws instead (pick.h: meshes, and
 * particles where a body is drawn as particles). Units: metres, seconds,
 * kilograms. */
#ifndef RB_TOOLS_H
#define RB_TOOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "scenes/debris.h"
#include "sim/world.h"

typedef enum rb_tool {
    RB_TOOL_THROW = 0, /* left button throws the selected shape; hold longer to throw harder */
    RB_TOOL_GRAB,      /* left button drags the body under the cursor on a spring */
    RB_TOOL_DELETE,    /* left button removes the body under the cursor */
    RB_TOOL_EXPLODE,   /* left button sets off a blast (a radial field) at the point under the cursor */
    RB_TOOL_COUNT
} rb_tool;

const char *rb_tool_name(rb_tool tool);

/* What a ray hit. */
typedef struct rb_pick {
    bool hit;      /* a body or a plane */
    bool body_hit; /* a body: body is valid */
    rb_body_id body;
    float point[3]; /* m, where the ray entered the particle or met the plane */
    float distance; /* m along the ray */
} rb_pick;

/* Casts a ray (unit dir) against every particle; particles are the world's
 * particle positions (xyz triples, as rb_world_read_particles gives them). */
rb_pick rb_pick_ray(rb_world *world, const float *particles, const float origin[3], const float dir[3]);
/* The planes for a pick that has met a body at pick->distance, or nothing
 * (distance INFINITY): the nearest plane in front of that, entered from
 * outside, takes its place; then the point is set for whatever was hit. */
void rb_pick_planes(const rb_world *world, const float origin[3], const float dir[3], rb_pick *pick);

/* How the throw tool throws: a tap at `speed`, rising to `speed_max` after
 * holding the button 1.5 s, with a tumble of `spin` about a random axis
 * (the settings panel changes them). */
typedef struct rb_throw {
    float speed;     /* m/s for a tap */
    float speed_max; /* m/s after 1.5 s held */
    float spin;      /* rad/s */
} rb_throw;

/* 8 m/s, 40 m/s, 3 rad/s. */
rb_throw rb_throw_defaults(void);
/* Throw speed (m/s) after holding the button for held seconds: the speed at
 * once, up to speed_max after 1.5 s. */
float rb_throw_speed_of(const rb_throw *t, double held);
/* The same with the defaults: 8 m/s at once, up to 40 m/s after 1.5 s. */
float rb_throw_speed(double held);
/* Where a thrown body starts: at distance `ahead` (m) in front of the eye,
 * moving along dir at speed, turned and spinning (3 rad/s) by amounts from
 * seed. The caller spawns it (rb_entities_spawn) with the shape to throw. */
rb_body_desc rb_tool_throw_desc(const float eye[3], const float dir[3], float ahead, float speed, uint32_t seed);
/* The same, spinning at `spin` rad/s. */
rb_body_desc rb_tool_throw_spun(const float eye[3], const float dir[3], float ahead, float speed, float spin,
                                uint32_t seed);

/* The explode tool's blast: a radial impulse field (scenes/debris.h) that
 * pushes every dynamic body within the radius away from the centre, fading
 * linearly to nothing at the radius, and a little upward. */
typedef struct rb_blast {
    float radius;   /* m */
    float strength; /* N s: the impulse a body at the centre gets */
    float up;       /* added to the direction's upward part before it is normalised */
} rb_blast;

/* 4 m; 24,000 N s, 14 m/s to the 1.2 m cube (1,728 kg, the default shape),
 * as the explode tool's kick of 14 m/s gave every body before it was a
 * field (lighter bodies now fly faster, heavier ones slower); up 0.5. */
rb_blast rb_blast_defaults(void);
/* The blast at centre as a field for rb_debris_add_field (which sets its start). */
rb_field rb_blast_field(const rb_blast *blast, const float centre[3]);
/* How many dynamic bodies are within radius (m) of centre: those a blast there pushes. */
int rb_blast_reach(rb_world *world, const float centre[3], float radius);

/* The emitter key's fountain at point (where the cursor meets the ground or
 * a body): `shape` (an entity row's name; `radius` its bounding radius) at
 * half its size, 20 bodies a second from a 1 m disc lifted 1 m and a
 * body's radius above the point (spawns clear the bodies that land there),
 * up at 9 +- 2 m/s within 20 degrees, spinning up to 3 rad/s, each living
 * 5 s; it emits until it is removed. The disc is wide enough for 20 a
 * second to find room beside the last spawns (a 0.5 m one put about one in
 * five off: tests/test_sandbox.c). The seed makes each one differ. */
rb_emitter rb_tool_emitter(const char *shape, float radius, const float point[3], uint64_t seed);
/* The wind key's gust: 3 s of wind at 15 m/s along the horizontal part of
 * `forward` (the camera's view; its pitch never reaches straight up or
 * down), everywhere. Its drag, 40 N per (m/s)^2 per m^2, is a gale's toy:
 * air's (about 0.6) barely stirs bodies as dense as water; this slides a
 * 0.4 m cube (64 kg) along the ground and bends a fountain over. */
rb_field rb_tool_wind(const float forward[3]);
/* The vortex key's swirl about the vertical through centre: 5 s, 6 m in
 * radius, 10 m/s at its edge, approached at 3/s (enough to turn bodies
 * resting on the ground). */
rb_field rb_tool_vortex(const float centre[3]);

/* The mouse spring: the picked point of the body is pulled toward the point
 * on the cursor's ray at the depth it was picked at. */
typedef struct rb_grab {
    bool active;
    rb_body_id body;
    float local_anchor[3]; /* m, the picked point in the body frame */
    float depth;           /* m along the cursor ray */
    float target[3];       /* m, world: where the anchor is pulled */
    float anchor[3];       /* m, world: where the anchor is now (for drawing) */
    float hz;              /* the spring's natural frequency (its stiffness per kg); 0: RB_GRAB_HZ */
} rb_grab;

/* The grab spring's natural frequency unless rb_grab.hz says otherwise (Hz),
 * and the range the settings take: its force is held through a chunk of 4
 * steps, and a stiffer spring than 8 Hz swings past its target there. */
#define RB_GRAB_HZ 2.5f
#define RB_GRAB_HZ_MIN 0.5f
#define RB_GRAB_HZ_MAX 8.0f

/* Starts a grab at a pick that hit a dynamic body: its point and depth along
 * the ray are kept; hz is 0 (RB_GRAB_HZ) until the caller sets it. False
 * for anything else (static and kinematic bodies are not dragged). */
bool rb_grab_begin(rb_grab *g, rb_world *world, const rb_pick *pick);
/* Moves the target to the cursor's current ray. */
void rb_grab_aim(rb_grab *g, const float origin[3], const float dir[3]);
/* Wheel notches move the target nearer (negative) or farther (positive). */
void rb_grab_wheel(rb_grab *g, float notches);
/* Applies the spring and damping forces for the next rb_world_step() call
 * of `steps` steps; ends the grab if the body is gone. */
void rb_grab_apply(rb_grab *g, rb_world *world, uint32_t steps);
void rb_grab_end(rb_grab *g);

#endif
