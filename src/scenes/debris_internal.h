/* debris_internal.h - what the rooms of the debris layer share: its state,
 * its clock read, and each room's few entry points. Not for code outside
 * src/scenes/debris*.c. The rooms: debris.c calls the others, which call
 * only the table and the helpers, so none calls back up.
 *   debris.c         create, destroy, the tick (lifetimes, kill regions,
 *                    sleep removal), the step, the clock and the getters
 *   debris_emit.c    emitters: added, changed, removed, and their spawns
 *   debris_fields.c  fields: added, changed, and their pushes and held loads
 *   debris_impact.c  impact debris: the chips a hard hit throws
 *   debris_break.c   breakable bodies: their pieces, and the split
 *   debris_glue.c    glued assemblies, and a blast's load on pieces (calls
 *                    debris_break.c's split)
 *   debris_table.c   the table of debris bodies and the list of breakable
 *                    ones: used by all of the above, calls none of them
 *   debris_math.h    random numbers and vector helpers (header only) */
#ifndef RB_DEBRIS_INTERNAL_H
#define RB_DEBRIS_INTERNAL_H

#include <math.h>

#include "debris.h"
#include "shapes/shapes.h"

/* The debris clock: a tick about every 1/60 s of simulated time. */
#define RB_DEBRIS_TICK_HZ 60.0
/* Most kernels whose times are summed (rb_debris_kernel_times). */
#define RB_DEBRIS_KERNELS 32

/* A debris body: when it was born, how long it lives, and since when it has slept. */
typedef struct tracked {
    rb_body_id id;
    double born;
    float lifetime;      /* 0: none */
    int emitter;         /* -1: a scene body */
    double asleep_since; /* < 0: awake at the last tick */
    int why;             /* once marked gone (lifetime < 0): the rb_event_cause its removal is told with */
} tracked;

/* A body an emitter spawned lately, where it is headed: a new one must
 * start clear of it. */
#define RB_RECENT 32u
typedef struct recent {
    float position[3], velocity[3];
    double born;
    float radius; /* bounding */
} recent;

/* A shape's faces for the wind (faces_of). */
typedef struct face_set {
    bool made;
    uint32_t count;
    float *data;
} face_set;

/* A load the world holds through the steps of the current tick: a force
 * at the centre and a torque, fixed at the tick (a point of application
 * would be measured again from wherever the body is at each call). */
typedef struct held_force {
    rb_body_id id;
    float force[3], torque[3];
} held_force;

/* A breakable body: its pieces, and its particles as its shape has them. */
typedef struct breakable {
    rb_body_id id;
    rb_pieces pieces;
    float *offsets; /* xyz a particle, shape frame */
    float r, m;     /* its particles' radius and mass */
    /* its pattern: with `impact`, the pieces drawn again about the hit at the break */
    rb_fracture_desc desc;
    rb_mesh *meshes; /* per piece: its part of the body's mesh, shape frame (cut.h); NULL, or one
                        of vertex_count 0: drawn as its particles' cells */
    /* a glued assembly's (debris_glue.c; NULL for other bodies), per piece:
     * whether its part is anchored, and the index of its part's own pattern
     * in rb_debris.inner (-1: none), which a part breaks by once it is
     * freed as a body of its own */
    uint8_t *anchored;
    int32_t *inner;
} breakable;

/* What impact debris remembers of a body from tick to tick
 * (debris_impact.c): velocities per mass, m/s. */
typedef struct impact_memory {
    float velocity[3];   /* at the last tick */
    float impulse[3];    /* the contacts' over the tick before it (gravity and the fields' taken out) */
    float pushed[3];     /* the fields' given at the last tick, acting until this one */
    float pushing[3];    /* the fields' given at this tick, acting until the next */
    uint32_t generation; /* the id's; another: a new body in the slot, nothing known of it */
    uint32_t seen;       /* ticks it was read at, up to 2: from the third its impulse's change is known */
} impact_memory;

struct rb_debris {
    rb_debris_desc desc;
    rb_entities *entities;
    rb_world *world;
    int rows[RB_DEBRIS_MAX_EMITTERS][RB_DEBRIS_MAX_CHOICES]; /* each choice's entity row */
    uint64_t rng[RB_DEBRIS_MAX_EMITTERS];
    double owed[RB_DEBRIS_MAX_EMITTERS]; /* bodies an emitter owes, a fraction of one */
    uint32_t alive_of[RB_DEBRIS_MAX_EMITTERS];
    recent recent[RB_DEBRIS_MAX_EMITTERS][RB_RECENT]; /* a ring of each emitter's latest spawns */
    uint32_t recent_next[RB_DEBRIS_MAX_EMITTERS];
    uint64_t crowded;                 /* spawns put off: no clear point in the region */
    bool fired[RB_DEBRIS_MAX_FIELDS]; /* a radial impulse given */
    tracked *bodies;                  /* in order of birth: the oldest first */
    uint32_t count, capacity;
    uint32_t *where; /* a body slot's index in bodies, plus 1; 0: not debris */
    uint32_t where_size;
    held_force *held;
    uint32_t held_count, held_capacity;
    rb_body_state *states; /* every body, read at a tick that needs them */
    uint32_t state_capacity;
    uint64_t steps;       /* steps done */
    uint64_t ticked_step; /* the step the last tick ran at, + 1; 0: none yet */
    uint32_t tick_steps;
    double dt;
    uint64_t spawned, removed;
    breakable *breakables;
    uint32_t breakable_count, breakable_capacity;
    uint64_t breaks, pieces_made;
    /* impact debris: what it remembers of each body, by its id's slot */
    int impact_row; /* the entity row it throws; -1: none */
    impact_memory *memory;
    uint32_t memory_size; /* slots */
    uint64_t rng_impact, impacts;
    uint64_t chips_short; /* chips not thrown: no clear place beside the body, or the tick's 256 thrown */
    /* the world's cap on bodies (world.max_bodies): spawns and breaks skipped
     * at it, and whether that was said (once a layer) */
    uint64_t capped_spawns, capped_breaks;
    bool cap_said;
    face_set *faces;      /* by world shape */
    uint32_t face_size;
    /* by world shape: the mesh a split's child is drawn with, its pieces'
     * meshes together (vertex_count 0: none, drawn as its cells) */
    rb_mesh *shape_meshes;
    uint32_t shape_mesh_size;
    /* by world shape: the body a split's child broke from (generation 0: none) */
    rb_body_id *shape_parents;
    uint32_t shape_parent_size;
    /* the bodies' colours (colors.h, the stage's: rb_debris_set_colors); NULL: none kept */
    rb_color_table *colors;
    /* assemblies glued before the table came: (first part, assembly) pairs
     * whose colours it takes when it does */
    rb_body_id *pending_colors;
    uint32_t pending_count;
    /* the parts' own patterns of glued assemblies (breakable.inner) */
    rb_fracture_desc *inner;
    uint32_t inner_count;
    /* the last rb_debris_step's stage and kernel times (rb_debris_stage_times) */
    double stage_ms[RB_STAGE_COUNT], kernel_ms[RB_DEBRIS_KERNELS];
    const char *const *kernel_names;
    uint32_t kernel_count;
    /* the events kept (debris_events.c); NULL: none asked for */
    struct rb_event_log *events;
};

/* Events (debris_events.c; nothing while none are kept): one noted, in
 * time order; a break with its pieces; the impacts found at a tick from
 * the bodies read then; all freed. False if out of memory. */
typedef struct rb_event_log rb_event_log;
struct rb_event;
bool rb_debris_note(rb_debris *d, const struct rb_event *e);
bool rb_debris_note_break(rb_debris *d, rb_body_id parent, const float position[3], const rb_body_id *pieces,
                          uint32_t count);
bool rb_debris_watch_hits(rb_debris *d, double t, const rb_body_state *states, uint32_t n);
void rb_debris_free_events(rb_debris *d);
/* A spawn (cause, the emitter's index or -1, the parent: null for an
 * emitter's) or a removal (cause) of body id at pos, noted now. */
bool rb_debris_note_body(rb_debris *d, int kind, rb_body_id id, const float pos[3], int cause, int emitter,
                         rb_body_id parent);

/* The emitter index impact debris is tracked under (it throws none itself). */
#define RB_IMPACT_EMITTER (-2)

/* Simulated time since the debris began, s: rb_debris_time, here so the
 * rooms below debris.c read the clock without calling up into it. */
static inline double rb_debris_now(const rb_debris *d) { return (double)d->steps * d->dt; }

/* True if what starts at `start` for `duration` s (0: for ever) acts at t. */
static inline bool rb_debris_acts_at(double t, float start, float duration) {
    return t >= start && (duration <= 0.0f || t < (double)start + duration);
}

/* Now as a start time, rounded down: a start rounded up past the clock
 * would put off what is added to the next tick. */
static inline float rb_debris_start_now(const rb_debris *d) {
    const double t = rb_debris_now(d);
    float start = (float)t;
    if ((double)start > t) start = nextafterf(start, 0.0f);
    return start;
}

/* The debris table (debris_table.c): a body's entry, or NULL if it is not
 * debris; a new entry (born now); the entries marked gone (lifetime < 0)
 * removed from the world and the table, and from the breakables. False if
 * out of memory. */
const tracked *rb_debris_find(const rb_debris *d, rb_body_id id);
bool rb_debris_add_tracked(rb_debris *d, rb_body_id id, float lifetime, int emitter);
/* Whether the world has room under its cap on bodies (rb_world_max_bodies)
 * for n more; false, said the first time, when it has not (the caller
 * counts what it skipped). */
bool rb_debris_room(rb_debris *d, uint32_t n);
bool rb_debris_sweep(rb_debris *d);

/* The list of breakable bodies (debris_table.c): a body's entry, or NULL;
 * a body that went loses its pieces; all freed, with the children's
 * meshes (shape_meshes). */
breakable *rb_debris_find_breakable(rb_debris *d, rb_body_id id);
void rb_debris_forget_breakable(rb_debris *d, rb_body_id id);
void rb_debris_free_breakables(rb_debris *d);

/* Emitters (debris_emit.c): what rb_debris_create and rb_debris_add_emitter
 * both refuse in an emitter (called `name` in err), rows filled with each
 * choice's entity row; the spawns the active emitters owe at tick time t,
 * then the cap on all bodies. */
bool rb_debris_resolve_emitter(rb_entities *entities, const rb_emitter *em, const char *name,
                               int rows[RB_DEBRIS_MAX_CHOICES], char *err, size_t err_size);
bool rb_debris_emit(rb_debris *d, double t, double tick_seconds);

/* Fields (debris_fields.c): their pushes on the n bodies read at tick time t. */
bool rb_debris_push(rb_debris *d, double t, const rb_body_state *states, uint32_t n);

/* Impact debris (debris_impact.c): chips thrown by the bodies read at this
 * tick hit hard. A field's push given to a body at this tick (an impulse,
 * or a held force times the tick), told to it before the chips are thrown,
 * so that the velocity it gives is not taken for a hit at the next tick;
 * nothing without impact debris. False if out of memory. */
bool rb_debris_throw_chips(rb_debris *d, const rb_body_state *states, uint32_t n);
bool rb_debris_impact_pushed(rb_debris *d, const rb_body_state *s, const float impulse[3]);

/* Breakable bodies (debris_break.c): the bodies the world found broken
 * since the last tick, split. */
bool rb_debris_break_bodies(rb_debris *d);
/* Splits body id along its pieces over their hold, in the world's loads
 * or in extra (per piece, load over hold; NULL: none). False on a failure. */
bool rb_debris_split(rb_debris *d, rb_body_id id, const float *extra);
/* Makes body id breakable with pieces p of its particles at offsets, made
 * by pattern desc, with its pieces' meshes (NULL: none) and a glued
 * assembly's per-piece anchored and inner (NULL: none): all taken over,
 * freed here on failure. */
bool rb_debris_add_breakable(rb_debris *d, rb_body_id id, rb_pieces *p, float *offsets, float r, float m,
                             const rb_fracture_desc *desc, rb_mesh *meshes, uint8_t *anchored, int32_t *inner);
/* Keeps mesh m (taken over) as world shape `shape`'s (rb_debris_piece_mesh). False if out of memory (m freed). */
bool rb_debris_keep_shape_mesh(rb_debris *d, uint32_t shape, rb_mesh *m);
/* Keeps parent as the body world shape `shape`'s body broke from
 * (rb_debris_piece_parent). False if out of memory. */
bool rb_debris_keep_shape_parent(rb_debris *d, uint32_t shape, rb_body_id parent);
/* Appends mesh b to a (a's arrays grown). False if out of memory (a kept as it was). */
bool rb_debris_append_mesh(rb_mesh *a, const rb_mesh *b);
/* Body id (a world shape with no entity row: a piece or an assembly) made
 * breakable by desc, its pieces cut from mesh (its own, in its shape frame;
 * NULL: drawn as cells). False with the reason in err. */
bool rb_debris_break_by(rb_debris *d, rb_body_id id, const rb_fracture_desc *desc, const rb_mesh *mesh, char *err,
                        size_t err_size);

/* Blasts (debris_glue.c): the pieces of the anchored breakable bodies a
 * radial impulse field f reaches, each loaded by the impulse the field
 * gives a body at its centre over a contact time (the anchor holds the
 * body still, so the rest must hold all of it back); those over their hold
 * break now, before the field pushes, and the parts freed are pushed as
 * bodies of their own. A free body flies as one, and breaks where it
 * lands. Returns the bodies split (-1 on a failure). */
int rb_debris_blast(rb_debris *d, const rb_field *f);

#endif
