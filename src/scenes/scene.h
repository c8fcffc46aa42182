/* scene.h - scenes as data: what a scene file holds (docs/scene-format.md),
 * read with every error named by file and key, written so that a saved
 * world reloads and continues bit for bit, and built into a world through
 * the entity table.
 *
 * A scene is the world's settings (gravity, step, material, sleeping,
 * planes), named materials, and bodies. Generators (wall, pile, tower, grid,
 * ring, formation) are expanded into bodies when the file is read, so a
 * scene in memory is only bodies. The formations of --formation and the
 * benchmark pile are made the same way (rb_scene_formation, rb_scene_pile):
 * there is one way to set a scene up. */
#ifndef RB_SCENE_H
#define RB_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "colors.h"
#include "debris.h"
#include "entities.h"
#include "fracture.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_SCENE_VERSION 1
/* The most bodies a scene may hold, generators included. */
#define RB_SCENE_MAX_BODIES 2000000u
/* ... and particles (a million 3x3x3 cubes is 27 M). */
#define RB_SCENE_MAX_PARTICLES 64000000u
#define RB_SCENE_MAX_MATERIALS 16u
/* The size of a scene's gravity, m/s^2 (about 100 g). A body's speeds are
 * bounded by its particles' radius and the step (scene_read_bodies.c). */
#define RB_SCENE_MAX_GRAVITY 1000.0
/* The most JSON values (numbers, strings, arrays, objects...) a scene's text
 * may hold: reading it takes a cJSON node (about 80 bytes) each, so about
 * 1.3 GB at most; and past the first RB_SCENE_FREE_VALUES, one value per
 * RB_SCENE_BYTES_PER_VALUE bytes of text at most, so that reading takes at
 * most about 20 times the text (a saved world's text has one per 11 bytes,
 * and reading it takes 7 times its size). A scene file is at most
 * RB_SCENE_FILE_MAX_BYTES (base/read_file.h). docs/scene-format.md, "Limits". */
#define RB_SCENE_MAX_VALUES 16000000u
#define RB_SCENE_FREE_VALUES 1000000u
#define RB_SCENE_BYTES_PER_VALUE 4u
#define RB_SCENE_NAME_SIZE 64

typedef struct rb_scene_material {
    char name[RB_SCENE_NAME_SIZE];
    rb_material material;
    rb_color_spec colors; /* `color`, `inside_color`: its bodies' unless they give their own (colors.h) */
} rb_scene_material;

typedef struct rb_scene_body {
    char shape[RB_SCENE_NAME_SIZE]; /* a registry shape's name */
    rb_body_desc desc;              /* where it starts; desc.shape is unused (the name says) */
    uint32_t material;              /* index into the scene's materials; 0 = the world's */
    bool is_static, is_kinematic;
    float scale; /* 1 */
    /* Saved state (a scene written by rb_scene_save): set exactly after the
     * body is added, so the run continues bit for bit. */
    bool exact;
    float angular_momentum[3]; /* world frame, kg m^2/s */
    float sleep_timer;         /* s the body has been slow */
    float support;             /* rb_body_state.support (dynamic bodies); 0: none yet, as a new body has */
    float lifetime;            /* s; 0: none. A body with one is debris (debris.h, rb_debris_track) */
    bool breakable;            /* it breaks into pieces when hit hard enough (fracture.h, rb_debris_make_breakable) */
    rb_fracture_desc fracture;
    rb_color_spec colors; /* its `color` and `inside_color`, or its material's; neither: the defaults (colors.h) */
    /* Structures (docs/structures.md): `asleep` (dormant until touched),
     * `anchored` (held to the world until its bonds break), the assembly it
     * is a part of (1 + its index in rb_scene.assemblies; 0: none); its
     * `breakable` is then the pattern it breaks by once freed alone. */
    bool asleep, anchored;
    uint32_t assembly;
    char origin[32]; /* where the file gave it, for messages: "bodies[3]", "generators[1]" */
    char name[RB_SCENE_NAME_SIZE]; /* its `name`, unique in the scene ("" : none; joints name bodies by it) */
    uint32_t path;                 /* its `path`: 1 + an index into the scene's paths; 0: none (kinematic bodies) */
    /* A saved world's (docs/scene-format.md, "shapes"): the shape it names
     * is the scene's own, 1 + an index into rb_scene.shapes (0: shape names
     * a registry shape); its world piece state, 1 + an index into
     * rb_scene.pieces (0: none). */
    uint32_t saved_shape;
    uint32_t pieces;
} rb_scene_body;

/* A breakable body's piece state in the world (world.h, rb_world_set_pieces,
 * rb_world_piece_loads): a body's `pieces` key, set again as it was saved. */
typedef struct rb_scene_pieces {
    uint32_t piece_count, particle_count;
    uint32_t *piece_of;    /* particle_count: each particle's piece */
    rb_piece_desc *pieces; /* piece_count: centre, mass, holds */
    float *peak;           /* piece_count: the largest load over hold so far (+inf: a piece that holds nothing, loaded) */
    bool taken;            /* its break was given out (rb_world_take_breaks) */
} rb_scene_pieces;

/* The most assemblies a scene may hold. */
#define RB_SCENE_MAX_ASSEMBLIES 256u

/* Bodies glued into one breakable structure (debris.h, rb_debris_glue):
 * an entry of `assemblies`, or a generator's `glue`. */
typedef struct rb_scene_assembly {
    char name[RB_SCENE_NAME_SIZE]; /* "" for a generator's own */
    char origin[48];               /* where the file gave it: "assemblies[2]", "generators[1].glue" */
    float strength;                /* N a bond between two touching parts holds */
    bool anchored;                 /* its parts that touch a plane or a static body are anchored */
    bool asleep;                   /* it starts dormant */
} rb_scene_assembly;

/* A joint of the `joints` key (world.h, rb_joint_desc), between bodies by index. */
typedef struct rb_scene_joint {
    uint32_t a, b; /* indices into the scene's bodies; b RB_SCENE_WORLD: the world */
    float anchor_a[3], anchor_b[3];
    float breaking_force; /* N; 0: unbreakable */
} rb_scene_joint;
#define RB_SCENE_WORLD UINT32_MAX

/* A kinematic body's `path` (world.h, rb_path_desc). */
typedef struct rb_scene_path {
    rb_path_key *keys;
    uint32_t key_count;
    bool smooth, loop;
    double time; /* the path's clock at the start, s (a saved scene's) */
} rb_scene_path;

/* Camera bookmarks a scene keeps (the `camera` key): the sandbox's Ctrl+1..3. */
#define RB_SCENE_BOOKMARKS 3
/* Pitch, rad, a bookmark may have: straight up or down (the sandbox's camera stops just short of them). */
#define RB_SCENE_PITCH_LIMIT 1.5707963267948966

/* A camera view: where the eye is and where it looks, as the sandbox's fly
 * camera holds it (yaw 0 looks along -z, positive yaw turns toward -x; pitch
 * > 0 looks up). */
typedef struct rb_scene_bookmark {
    bool set;          /* false: the slot is empty */
    float position[3]; /* m */
    float yaw, pitch;  /* rad */
} rb_scene_bookmark;

typedef struct rb_scene {
    char name[256]; /* the file, for messages */
    rb_world_desc world;
    rb_scene_material materials[RB_SCENE_MAX_MATERIALS]; /* [0] is the world's material, "default" */
    uint32_t material_count;
    rb_scene_body *bodies;
    uint32_t body_count, body_capacity;
    uint64_t particle_count;
    /* A saved world's contact history (rb_world_read_contacts), restored
     * after the bodies are built: particle indices are the world's, the
     * bodies' particles in body order. */
    rb_contact_memory *contacts;
    uint32_t contact_count;
    /* Debris effects (debris.h): the `emitters`, `fields` and `debris` keys;
     * NULL when the scene has none of them and no body has a lifetime. */
    rb_debris_desc *debris;
    /* A saved debris layer's run-time state (the `debris_state` key,
     * src/scenes/debris_state_read.c): a layer of no world, its bodies
     * indices into bodies, which rb_scene_debris builds the layer from;
     * NULL: none. */
    rb_debris *debris_state;
    rb_scene_assembly assemblies[RB_SCENE_MAX_ASSEMBLIES];
    uint32_t assembly_count;
    /* The `camera` key's bookmarks and start camera (`camera.start`;
     * start.set false: none); has_camera false when the file has no `camera`. */
    bool has_camera;
    rb_scene_bookmark bookmarks[RB_SCENE_BOOKMARKS];
    rb_scene_bookmark start;
    /* The `joints` key (and the bodies a chain entry made), and the bodies' paths. */
    rb_scene_joint *joints;
    uint32_t joint_count, joint_capacity;
    rb_scene_path *paths;
    uint32_t path_count, path_capacity;
    /* The `shapes` key: a saved world's shapes that no registry shape is (a
     * broken body's pieces, a glued assembly), each registered with the
     * world as it is when the scene is built; name, particles, mass,
     * inertia, particle_radius, bounding_radius and mesh are set. */
    rb_shape *shapes;
    uint32_t shape_count;
    /* The bodies' `pieces` keys. */
    rb_scene_pieces *pieces;
    uint32_t piece_state_count, piece_state_capacity;
} rb_scene;

/* The index of the scene's body of that name, or -1. */
int64_t rb_scene_find_body(const rb_scene *scene, const char *name);

/* Reads a scene file; shapes are checked against the registry (and sized by
 * it, for generators). NULL with "FILE: key.path: what is wrong" in err.
 * Unknown keys are warned about (rb_log), not fatal. */
rb_scene *rb_scene_load(const char *path, const rb_registry *registry, char *err, size_t err_size);
/* The same from text; name stands for the file in messages. */
rb_scene *rb_scene_parse(const char *text, const char *name, const rb_registry *registry, char *err, size_t err_size);
void rb_scene_destroy(rb_scene *scene);

/* An empty scene with the default world (a ground plane). */
rb_scene *rb_scene_create(const char *name);
/* Formation k (1..5) of n bodies of a shape, on the default world. NULL (err) for an unknown shape. */
rb_scene *rb_scene_formation(const rb_registry *registry, const char *shape, int formation, int n, char *err,
                             size_t err_size);
/* The benchmark pile (scenes/pile.h): n bodies of a shape, with its walls. */
rb_scene *rb_scene_pile(const rb_registry *registry, const char *shape, int n, char *err, size_t err_size);

/* The shape every body has, "mixed" if they differ, "none" without bodies. */
const char *rb_scene_shape_name(const rb_scene *scene);

/* The world description the scene asks for; backend and device from base. */
rb_world_desc rb_scene_world_desc(const rb_scene *scene, const rb_world_desc *base);
/* Adds the scene's bodies to a world made from rb_scene_world_desc, through
 * the table (which must be for that world), then restores the scene's
 * contact history if it has one (into a world that had no bodies before:
 * the history names particles by index, and replaces the world's). Returns
 * the bodies added; on a body the world refuses, stops with the reason in
 * err. On a contact history the world refuses, removes the bodies it added
 * and returns 0, with the reason in err. The scene's own shapes (`shapes`)
 * are registered with the world first, and a body's `pieces` set on it
 * (rb_world_set_pieces, then its saved loads: rb_world_restore_piece_loads):
 * whoever makes the body breakable again in the debris layer afterwards
 * must keep those loads (setting the pieces again starts them at 0). */
uint32_t rb_scene_build(const rb_scene *scene, rb_entities *entities, char *err, size_t err_size);

/* The scene's debris effects (debris.h) for a world it was built into with
 * rb_scene_build (the first bodies the world holds are the scene's, in
 * order): its emitters, fields and rules, and its bodies with a lifetime.
 * NULL with err empty when the scene has none; NULL with the reason in err
 * when they cannot run in this world. */
rb_debris *rb_scene_debris(const rb_scene *scene, rb_entities *entities, char *err, size_t err_size);

/* What a scene file is written from: the world and what knows its bodies
 * beside it. Only world and entities are needed; the rest may be NULL. */
typedef struct rb_scene_source {
    rb_world *world;
    const rb_entities *entities;
    /* the colours bodies were given (colors.h: a body's `color` and
     * `inside_color` where the table has them); NULL: none */
    const rb_color_table *colors;
    /* the world's debris layer (debris.h), whose state is written with the
     * world; NULL: none */
    const rb_debris *debris;
    /* camera bookmarks (RB_SCENE_BOOKMARKS of them; the `camera` key,
     * written when one is set); NULL: none */
    const rb_scene_bookmark *bookmarks;
    /* the camera the sandbox opens at (`camera.start`, written when set);
     * NULL: none */
    const rb_scene_bookmark *start;
} rb_scene_source;

/* Writes the world as a scene file: its settings, every body's full state
 * in body order and the contact history, so loading it and stepping gives
 * the same digest as stepping on. Written to a temporary file and renamed,
 * so a failed save never destroys the file it would replace. False with the
 * reason in err. */
bool rb_scene_save_source(const char *path, const rb_scene_source *source, char *err, size_t err_size);
/* The same text to an open stream (a keyframe of a cache,
 * src/record/cache.c). A body of a world shape the entity table has no
 * row for (a broken body's piece, a glued assembly) has its shape written
 * in the `shapes` key, with the mesh the debris layer keeps for it, and a
 * breakable body its world piece state (`pieces`). False with the reason
 * in err (a state that is not finite); what was written then is not a
 * scene. */
bool rb_scene_write_source(FILE *f, const rb_scene_source *source, char *err, size_t err_size);

/* rb_scene_save_source, but never over a file already at path (false,
 * "already exists"): the sandbox's Ctrl+S. */
bool rb_scene_save_new(const char *path, const rb_scene_source *source, char *err, size_t err_size);
/* rb_scene_save_source of the world and its entity table alone. */
bool rb_scene_save(const char *path, rb_world *world, const rb_entities *entities, char *err, size_t err_size);
/* rb_scene_write_source of the world, its entity table and colours. */
bool rb_scene_write(FILE *f, rb_world *world, const rb_entities *entities, const rb_color_table *colors, char *err,
                    size_t err_size);

#endif
