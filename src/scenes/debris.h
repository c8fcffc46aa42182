/* debris.h - debris effects: emitters that spawn bodies, lifetimes that
 * remove them, fields that push them (docs/debris.md).
 *
 * All of it runs on the host, between calls to rb_world_step(), on a fixed
 * clock of its own: every `tick_steps` steps (about 1/60 s) it reads the
 * bodies back once if it needs them, sets the fields' loads (a force and
 * a torque fixed at the tick, which the world holds through the tick's
 * steps, however many calls they take), throws impact debris, splits broken
 * bodies, removes the bodies whose time is up and spawns what the emitters
 * owe. Ticks fall on step counts, not on how the caller splits its steps,
 * so a scene gives the same bodies and the same digest however it is
 * stepped (sandbox, headless, benchmark) and on every
 * backend (spawns come from each emitter's own seeded generator, and fields
 * act on state the backends compute bit for bit alike).
 *
 * A scene's `emitters`, `fields` and `debris` keys and each body's
 * `lifetime` fill an rb_debris_desc (src/scenes/debris_read.c). */
#ifndef RB_DEBRIS_H
#define RB_DEBRIS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "colors.h"
#include "entities.h"
#include "fracture.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_DEBRIS_MAX_EMITTERS 32u
#define RB_DEBRIS_MAX_FIELDS 32u
#define RB_DEBRIS_MAX_KILL_REGIONS 16u
#define RB_DEBRIS_MAX_CHOICES 8u
#define RB_DEBRIS_NAME_SIZE 64
/* The last seconds of a body's lifetime, over which it is drawn fading. */
#define RB_DEBRIS_FADE 0.5f

/* Where an emitter spawns: a point, a box (centre, half extents) or a disc
 * (centre, radius, in the plane normal to the emitter's direction). */
typedef enum rb_region_kind { RB_REGION_POINT = 0, RB_REGION_BOX, RB_REGION_DISC } rb_region_kind;

typedef struct rb_region {
    rb_region_kind kind;
    float centre[3];
    float half[3]; /* box: half extents, m */
    float radius;  /* disc: m */
} rb_region;

/* One entry of an emitter's weighted list of shapes. */
typedef struct rb_emit_choice {
    char shape[RB_DEBRIS_NAME_SIZE]; /* a registry shape's name */
    float scale;                     /* times the shape's size, as rb_entities_spawn_scaled */
    float weight;                    /* > 0; chances are weight / the sum */
} rb_emit_choice;

typedef struct rb_emitter {
    rb_region region;
    float rate;         /* bodies a second, > 0 */
    uint32_t max_alive; /* its bodies alive at once at most; 0: no cap */
    rb_emit_choice choices[RB_DEBRIS_MAX_CHOICES];
    uint32_t choice_count; /* >= 1 */
    float direction[3];    /* unit vector: the cone's axis */
    float speed;           /* m/s along a direction in the cone */
    float speed_spread;    /* speed varies by up to +- this, m/s (never below 0) */
    float cone;            /* half angle, radians, 0..pi */
    float spin;            /* angular speed up to this, rad/s, about a random axis */
    float lifetime;        /* s its bodies live; 0: until something else removes them */
    float start, duration; /* s of simulated time it emits from, and for; duration 0: for ever */
    uint64_t seed;
    rb_color_spec colors; /* its bodies' colours (colors.h); neither given: each body its default */
} rb_emitter;

typedef enum rb_field_kind {
    RB_FIELD_RADIAL = 0, /* an explosion: out from centre */
    RB_FIELD_WIND,       /* a drag towards a wind velocity */
    RB_FIELD_VORTEX,     /* a swirl about an axis through centre */
} rb_field_kind;

typedef struct rb_field {
    rb_field_kind kind;
    float centre[3];
    float radius; /* m, > 0: nothing beyond it is touched (wind: 0 = everywhere) */
    float start,
        duration; /* s; radial impulse: acts once, at start; others act over [start, start + duration), 0 = for ever */
    /* radial: strength is an impulse (N s) a body at the centre gets if
     * `impulse`, else a force (N) held over the duration; falloff: scaled by
     * (1 - d / radius)^falloff; up: the direction's upward part added, then
     * the direction normalised. */
    float strength;
    bool impulse;
    float falloff;
    float up;
    /* wind: velocity (m/s); drag: N per (m/s)^2 per m^2 of the body's cross
     * section (about half the air's density times a drag coefficient). */
    float velocity[3];
    float drag;
    /* vortex: axis (unit) through centre; strength is the swirl's speed
     * (m/s) at the radius, approached at rate `drag` (1/s). */
    float axis[3];
} rb_field;

/* A box a body's centre must not enter: it is removed there. */
typedef struct rb_kill_region {
    float min[3], max[3];
} rb_kill_region;

/* Impact debris: the chips and dust a heavy impact throws up. A body whose
 * contact impulse over a tick (its change of momentum less gravity's)
 * differs by more than `threshold` from the tick before's throws `count`
 * bodies of `shape` beside it on the side it was hit on (outside its
 * bounding sphere across the change, half its size back along it), out
 * along the change at `speed` in a 45 degree cone. Debris it throws throws
 * none. docs/debris.md. */
typedef struct rb_impact_debris {
    char shape[RB_DEBRIS_NAME_SIZE];
    float scale;     /* times the shape's size */
    float threshold; /* N s */
    uint32_t count;  /* a hit; 0: no impact debris */
    float speed;     /* m/s */
    float lifetime;  /* s; 0: none */
} rb_impact_debris;

typedef struct rb_debris_desc {
    rb_emitter emitters[RB_DEBRIS_MAX_EMITTERS];
    uint32_t emitter_count;
    rb_field fields[RB_DEBRIS_MAX_FIELDS];
    uint32_t field_count;
    rb_kill_region kill[RB_DEBRIS_MAX_KILL_REGIONS];
    uint32_t kill_count;
    uint32_t max_bodies; /* 0: no cap; else the oldest debris goes first */
    float remove_asleep; /* s: debris asleep this long is removed; 0: never */
    rb_impact_debris impact;
} rb_debris_desc;

typedef struct rb_debris rb_debris;

/* Debris for a world whose bodies were made through `entities` (it must
 * outlive the debris). Shapes the emitters name must be in the table: NULL
 * with "emitters[k].shapes[j]: no shape 'x'" in err otherwise. */
rb_debris *rb_debris_create(const rb_debris_desc *desc, rb_entities *entities, char *err, size_t err_size);
void rb_debris_destroy(rb_debris *d);

/* The table of the bodies' colours (colors.h; the stage's, which must
 * outlive the debris; NULL: none): a broken body's pieces get its colours
 * there, an emitter's bodies the emitter's. */
void rb_debris_set_colors(rb_debris *d, rb_color_table *colors);

/* Makes a body in the world debris with a lifetime (s; 0: none, but the
 * body cap and sleep removal still count it): a scene body's `lifetime`. */
bool rb_debris_track(rb_debris *d, rb_body_id id, float lifetime);

/* Makes a dynamic body breakable (fracture.h): its particles grouped into
 * pieces by desc, the pieces' holds given to the world, which measures
 * their loads in each step. At a tick after a piece's load passes its
 * hold, the body is split: each connected group of pieces left becomes a
 * body of its own (a new world shape, drawn with its pieces' meshes:
 * rb_debris_piece_mesh), moving as the parent moved there, and breakable
 * in turn where it has two pieces or more; a debris body's pieces are
 * debris with its lifetime. False with the reason in err. */
bool rb_debris_make_breakable(rb_debris *d, rb_body_id id, const rb_fracture_desc *desc, char *err, size_t err_size);
/* A part of a glued assembly (rb_debris_glue). */
typedef struct rb_glue_part {
    rb_body_id id;             /* a dynamic body in the world */
    bool anchored;             /* held to the world until the bonds that tie it to the rest break */
    bool breakable;            /* once freed alone, it breaks by its own pattern: */
    rb_fracture_desc fracture; /* (its `breakable`) */
} rb_glue_part;

/* How an assembly holds together. */
typedef struct rb_glue_desc {
    float strength; /* N a bond between two touching parts holds, > 0 */
    bool asleep;    /* the assembly starts dormant (world.h, rb_body_hold) unless a part is anchored */
} rb_glue_desc;

/* The most parts an assembly may have. */
#define RB_GLUE_MAX_PARTS 100000u

/* Glues count bodies into one breakable body (docs/structures.md): their
 * particles together, in their places, one body moving with their total
 * momentum (each particle weighing the same: the parts' total mass over
 * their particles); each part a piece of it, drawn with its own mesh, two
 * parts bonded where particles of theirs are within a quarter radius of
 * touching, each bond holding glue->strength. A part breaks off when its
 * load passes its bonds' sum (rb_world_set_pieces); the parts still bonded
 * stay together, an anchored group held; a part freed alone breaks by its
 * own pattern from then on. The parts' bodies are removed; the assembly
 * keeps the first part's colours and material. Parts must be dynamic, have
 * particles of one radius, and not be breakable already. Returns the
 * assembly's id, or a null id with the reason in err (nothing changed). */
rb_body_id rb_debris_glue(rb_debris *d, const rb_glue_part *parts, uint32_t count, const rb_glue_desc *glue, char *err,
                          size_t err_size);

/* The mesh a world shape a split made (a child of a broken body) is drawn
 * with: the body's render mesh cut along the child's pieces' cells, in the
 * child's frame, made when the pattern was set (docs/debris.md, "The
 * pieces' meshes"). A copy in out (free with rb_mesh_free); false, out
 * empty, if that shape has none (its pieces' pattern has no cells, its body
 * no mesh, or the cut failed: draw its particles' cells). */
bool rb_debris_piece_mesh(const rb_debris *d, uint32_t world_shape, rb_mesh *out);
/* Gives a world shape with no entity row (a saved world's piece, rebuilt
 * from a scene file: src/scenes/scene.c) mesh m (copied) as the one
 * rb_debris_piece_mesh gives. False if out of memory. */
bool rb_debris_set_piece_mesh(rb_debris *d, uint32_t world_shape, const rb_mesh *m);
/* The body a split's child of world shape world_shape broke from (a piece,
 * or a group of pieces that broke off together: each has a world shape of
 * its own); false, parent zero, for a shape no split made. */
bool rb_debris_piece_parent(const rb_debris *d, uint32_t world_shape, rb_body_id *parent);
/* A breakable body's pieces' meshes (not yet broken), each moved out from
 * the body's centre of mass by `spread` (>= 0) times its own centre's
 * offset, all in one mesh in the body's frame, at its size: the pattern
 * pulled apart (the sandbox's exploded view). False, out empty, for a body
 * that is not breakable or whose pieces are drawn as cells. */
bool rb_debris_exploded_mesh(const rb_debris *d, rb_body_id id, float spread, rb_mesh *out);
/* The breakable bodies not yet broken: up to capacity ids in ids; returns how many there are. */
uint32_t rb_debris_breakables(const rb_debris *d, rb_body_id *ids, uint32_t capacity);
/* Breaks so far (bodies split), and bodies they made. */
uint64_t rb_debris_breaks(const rb_debris *d);
uint64_t rb_debris_pieces_made(const rb_debris *d);
/* Impacts that threw debris so far. */
uint64_t rb_debris_impacts(const rb_debris *d);

/* Runs the tick due now, if one is due and has not run yet (the next
 * rb_debris_step would run it first). False on a backend failure. */
bool rb_debris_tick(rb_debris *d);
/* Adds a field at run time (the sandbox's explode tool), starting now: its
 * start is set to rb_debris_time(). When the table is full the oldest field
 * that is done (an impulse given, a duration over) makes room. False if
 * none is done, or if a radial or vortex field has no radius. */
bool rb_debris_add_field(rb_debris *d, const rb_field *f);

/* Adds an emitter at run time (the sandbox's emitter key), starting now:
 * its start is set to rb_debris_time(), its generator seeded from its seed.
 * Checked as rb_debris_create checks a scene's (a shape the entity table
 * has not got, a region centred inside a plane's solid) and for a rate, a
 * weighted shape and a direction; false with the reason in err, and when
 * the table holds RB_DEBRIS_MAX_EMITTERS already. */
bool rb_debris_add_emitter(rb_debris *d, const rb_emitter *e, char *err, size_t err_size);
/* Changes emitter k's values (rate, speed, region, shapes...) to e's, as
 * the settings panel edits them: its start, seed and generator, the
 * bodies it made and the spawns it owes go on. Checked as
 * rb_debris_add_emitter checks; false with the reason in err, and for no
 * emitter k, with nothing changed. */
bool rb_debris_set_emitter(rb_debris *d, uint32_t k, const rb_emitter *e, char *err, size_t err_size);
/* Changes field k's values (radius, strength, duration, velocity, drag...)
 * to f's, keeping its start (a blast already given is not given again).
 * Its kind cannot change. False with the reason in err for a non-finite
 * or negative value, a radial or vortex field without a radius, a vortex
 * without an axis, or no field k, with nothing changed. */
bool rb_debris_set_field(rb_debris *d, uint32_t k, const rb_field *f, char *err, size_t err_size);
/* Removes emitter k: it spawns no more, and its bodies live out their
 * lifetimes as debris of no emitter; the emitters after it move down one.
 * False if there is no emitter k. */
bool rb_debris_remove_emitter(rb_debris *d, uint32_t k);

/* Advances the world by `steps` steps, ticking the debris on its clock.
 * False on a backend failure (logged). */
bool rb_debris_step(rb_debris *d, uint32_t steps);

/* Stage and kernel times (world.h) summed over the world's step calls of
 * the last rb_debris_step, which splits its steps at its ticks: the world's
 * own give the last of those calls only. */
void rb_debris_stage_times(const rb_debris *d, double ms[RB_STAGE_COUNT]);
uint32_t rb_debris_kernel_times(const rb_debris *d, const char *const **names, double *ms, uint32_t capacity);

/* Steps from now to the next tick (1 to a tick's steps). A caller that
 * applies loads of its own (the sandbox's grab) steps no further than this
 * at a time: rb_debris_step splits its steps at ticks into several world
 * step calls, and the world holds a load through one call only. */
uint32_t rb_debris_steps_to_tick(const rb_debris *d);
/* Steps a tick, round(1 / (60 dt)). */
uint32_t rb_debris_tick_steps(const rb_debris *d);

/* Simulated time since the debris began, s. */
double rb_debris_time(const rb_debris *d);
/* Debris bodies alive now, spawned and removed in all. */
uint32_t rb_debris_alive(const rb_debris *d);
uint64_t rb_debris_spawned(const rb_debris *d);
uint64_t rb_debris_removed(const rb_debris *d);
/* Spawns put off because no point of the region was clear of the emitter's
 * latest bodies (they start where those would overlap them). */
uint64_t rb_debris_crowded(const rb_debris *d);
/* Impact chips not thrown: a hit's `count` chips found no clear place
 * beside the body (a plane, a body or another chip there), or the tick had
 * thrown its 256. */
uint64_t rb_debris_chips_short(const rb_debris *d);
/* Spawns (an emitter's, an impact's chips) and breaks skipped at the world's
 * cap on bodies (world.max_bodies, rb_world_max_bodies): a skipped break
 * leaves its body whole. */
uint64_t rb_debris_capped_spawns(const rb_debris *d);
uint64_t rb_debris_capped_breaks(const rb_debris *d);
/* How much of a body is drawn, 1 down to 0 over its last RB_DEBRIS_FADE s;
 * 1 for a body that is not debris or has no lifetime. */
float rb_debris_fade(const rb_debris *d, rb_body_id id);
/* True if emitter k emits at the current time. */
bool rb_debris_emitter_active(const rb_debris *d, uint32_t k);
/* True if field k acts at the current time (the sandbox draws its extent). */
bool rb_debris_field_active(const rb_debris *d, uint32_t k);
const rb_debris_desc *rb_debris_get_desc(const rb_debris *d);

/* Saving (src/scenes/debris_save.c; docs/scene-format.md, "debris_state"):
 * writes the layer's effects as the scene keys `emitters`, `fields` and
 * `debris`, and its run-time state (clock, generators, tables, counters)
 * as `debris_state`, each a line of a scene file's top level ending ",\n";
 * bodies named by their index in the world's body order, as the scene
 * writer writes them. A breakable body of a world shape of its own (a
 * broken body's piece, a glued assembly) is written without its pieces,
 * warned of (docs/debris.md, "Saving"). False with the reason in err (a
 * value that is not finite); what was written then is not a scene. */
bool rb_debris_write_state(FILE *f, const rb_debris *d, char *err, size_t err_size);
/* A layer made from desc for the world of entities (rb_debris_create), its
 * run-time state taken from saved: a `debris_state` as the scene reader
 * read it (src/scenes/debris_state_read.c), a layer of no world whose
 * bodies are indices into ids (the scene's bodies in the world). NULL with
 * the reason in err. */
rb_debris *rb_debris_restore(const rb_debris_desc *desc, const rb_debris *saved, rb_entities *entities,
                             const rb_body_id *ids, uint32_t id_count, char *err, size_t err_size);

#endif
