/* debris_internal.h - what the files of the debris layer share: its state
 * (debris.c runs the clock, emitters, lifetimes and fields; debris_break.c
 * makes bodies breakable and splits them) and the debris table's few
 * operations. Not for code outside src/scenes/debris*.c. */
#ifndef RB_DEBRIS_INTERNAL_H
#define RB_DEBRIS_INTERNAL_H

#include "debris.h"

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
} breakable;

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
    /* impact debris: each body's velocity and contact impulse at the last
     * tick, by its id's slot */
    int impact_row;     /* the entity row it throws; -1: none */
    float *last_v;      /* 7 a slot: velocity xyz, the last tick's impulse per mass xyz, the id's generation (bits) */
    uint32_t last_size; /* slots */
    uint64_t rng_impact, impacts;
    face_set *faces; /* by world shape */
    uint32_t face_size;
    /* the last rb_debris_step's stage and kernel times (rb_debris_stage_times) */
    double stage_ms[RB_STAGE_COUNT], kernel_ms[RB_DEBRIS_KERNELS];
    const char *const *kernel_names;
    uint32_t kernel_count;
};

/* The emitter index impact debris is tracked under (it throws none itself). */
#define RB_IMPACT_EMITTER (-2)

/* The debris table (debris.c): a body's entry, or NULL if it is not debris;
 * a new entry (born now); the entries marked gone (lifetime < 0) removed
 * from the world and the table. False if out of memory. */
const tracked *rb_debris_find(const rb_debris *d, rb_body_id id);
bool rb_debris_add_tracked(rb_debris *d, rb_body_id id, float lifetime, int emitter);
bool rb_debris_sweep(rb_debris *d);

/* Breakable bodies (debris_break.c): a body that went loses its pieces; the
 * bodies the world found broken since the last tick are split; all freed. */
void rb_debris_forget_breakable(rb_debris *d, rb_body_id id);
bool rb_debris_break_bodies(rb_debris *d);
void rb_debris_free_breakables(rb_debris *d);

#endif
