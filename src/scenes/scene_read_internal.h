/* scene_read_internal.h - what the parts of the scene reader share, private
 * to src/scenes. The parts, none calling one above it:
 *   scene_read.c             the file and its top level, world, materials,
 *                            planes, camera
 *   scene_read_generators.c  `generators`, expanded into bodies
 *   scene_read_bodies.c      `bodies`, and what a body and a generator share
 *   debris_read.c            `emitters`, `fields`, `debris`, `breakable`
 *   debris_state_read.c      `debris_state`, a saved debris layer's state
 *   scene_read_contacts.c    `contacts`
 *   scene_read_joints.c      `joints`, chains made into bodies and joints
 *   scene_read_paths.c       a body's `name` and `path`, bodies by name
 *   scene_read_shapes.c      `shapes` (a saved world's own), a body's `pieces`
 *   scene_read_base.c        the toolkit they all use: the key path every
 *                            message names, and values read and checked at it
 *
 * Every function that reads a key enters it for its messages and leaves it
 * again; on a bad value it fails (the first failure's message is kept in
 * err, later ones are dropped) and returns false, and the caller returns at
 * once. An absent optional key keeps the value its caller set. */
#ifndef RB_SCENE_READ_INTERNAL_H
#define RB_SCENE_READ_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene.h"

typedef struct rb_reader {
    const char *file;
    const rb_registry *registry;
    char path[256]; /* "bodies[3].position" */
    char *err;
    size_t err_size;
    bool failed;
} rb_reader;

/* Enters key (or [index] when key is NULL) of the current path; returns the old length to leave with. */
size_t rb_read_enter(rb_reader *r, const char *key, int index);
void rb_read_leave(rb_reader *r, size_t len);

/* Refuses the scene with a message at the current key path. Returns false. */
bool rb_read_fail(rb_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same at key, one step below the current path. */
bool rb_read_fail_at(rb_reader *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What a list's element e that is no finite number is, for a message
 * ("element 1 is a string, not a number"; "... is not a finite number"). */
const char *rb_read_not_finite(const cJSON *e);

/* Refuses a key given twice in obj (JSON leaves it undefined which one
 * counts); warns about keys not in known (NULL-terminated; NULL: any key). */
bool rb_read_check_keys(rb_reader *r, const cJSON *obj, const char *const *known);

/* A finite number within [lo, hi]; absent: *out keeps its default. */
/* A limit for a message: a whole one exactly, another as %g (pi / 2: 1.5708). */
const char *rb_read_limit(double x, char text[32]);
bool rb_read_number(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, double *out);
bool rb_read_float(rb_reader *r, const cJSON *obj, const char *key, double lo, double hi, float *out);
/* A whole number from 0 to hi; absent: refused if required, else *out keeps its default. */
bool rb_read_count(rb_reader *r, const cJSON *obj, const char *key, double hi, uint32_t *out, bool required);
/* n finite numbers (finite as floats too); absent: out keeps its defaults. */
bool rb_read_vector(rb_reader *r, const cJSON *obj, const char *key, int n, float *out);
bool rb_read_bool(rb_reader *r, const cJSON *obj, const char *key, bool *out);
/* True when text has no control character (below U+0020, or U+007F): a
 * name's. An escaped NUL in the file reaches the readers as U+0001
 * (scene_read.c), so a name that held one is refused, not cut short. */
bool rb_read_plain(const char *text);
/* A string shorter than size, without control characters; absent: refused if required, else out keeps its default. */
bool rb_read_string(rb_reader *r, const cJSON *obj, const char *key, char *out, size_t size, bool required);

/* A colour at key: [r, g, b], each a number from 0 to 1, or "#rrggbb";
 * absent: *has and rgb keep theirs. `color` and `inside_color` of obj into
 * spec (colors.h), each given one marked given. */
bool rb_read_color(rb_reader *r, const cJSON *obj, const char *key, bool *has, float rgb[3]);
bool rb_read_colors(rb_reader *r, const cJSON *obj, rb_color_spec *spec);

/* The registry's shape of that name; NULL, failed at the current path with
 * the shapes there are, if there is none. */
const rb_shape *rb_read_find_shape(rb_reader *r, const char *name);

/* A quaternion read from the file scaled so that its largest component's
 * size is 1 when it is far from that (scene_read_base.c), so that the
 * world's float normalisation neither overflows nor underflows. */
void rb_read_quat_rescale(float q[4]);

/* The speeds the step carries (docs/scene-format.md, "Limits"): a body of
 * shape at scale moving at speed (m/s), or turning at spin (rad/s), moves
 * no particle more than its radius in a step dt. Past it particles skip
 * through contacts (the README's pass-through speeds are about r / dt at
 * the default step), and far past it a contact's spring, acting on a depth
 * of many radii, sends a body back with more energy than it came with.
 * times: 1, or RB_SAVED_SPEED_TIMES for a saved state (scene_read_bodies.c).
 * False, failed at key, past it. */
bool rb_read_check_speed(rb_reader *r, const char *key, double speed, double dt, const rb_shape *shape, float scale,
                         double times);
bool rb_read_check_spin(rb_reader *r, const char *key, double spin, double dt, const rb_shape *shape, float scale,
                        double times);

/* Room for n more bodies of `particles` particles each, within the scene's
 * limits (scene_read_bodies.c); r NULL: no message. */
bool rb_read_reserve_bodies(rb_scene *s, uint64_t n, uint32_t particles, rb_reader *r);
/* What a body and a generator share, into t: shape, material, static,
 * kinematic, scale, lifetime, breakable (scene_read_bodies.c). Its shape;
 * NULL, failed, on a bad value. */
const rb_shape *rb_read_template(rb_reader *r, const rb_scene *s, const cJSON *o, rb_scene_body *t);
/* One entry of `bodies` (scene_read_bodies.c), or of `generators`
 * expanded into bodies (scene_read_generators.c), added to s. False,
 * failed, on a bad value. */
bool rb_read_body(rb_reader *r, rb_scene *s, const cJSON *o);
bool rb_read_generator(rb_reader *r, rb_scene *s, const cJSON *o);

/* The debris keys of a scene (debris_read.c): the top level's `emitters`,
 * `fields` and `debris` into s->debris, allocated if any of them is there
 * or a body has a lifetime (read with the bodies). False, failed, on a bad
 * value. */
bool rb_read_debris(rb_reader *r, rb_scene *s, const cJSON *root);
/* A saved debris layer's run-time state, the top level's `debris_state`
 * value o (debris_state_read.c), after the effects keys and the bodies:
 * into s->debris_state, its emitters and fields checked against the
 * scene's (s->debris, made if the scene had none). False, failed, on a bad
 * value. */
bool rb_read_debris_state(rb_reader *r, rb_scene *s, const cJSON *o);
/* One entry of a weighted list of shapes, {"shape", "scale", "weight"}, as
 * an emitter's `shapes` and a heap generator's take it (debris_read.c). */
bool rb_read_emit_choice(rb_reader *r, const cJSON *o, rb_emit_choice *c);
/* A body's or generator's `breakable` key, if there is one, into t (debris_read.c). */
bool rb_read_breakable(rb_reader *r, const cJSON *o, rb_scene_body *t);

/* Structures (scene_read_assemblies.c): the top level's `assemblies` list
 * o; a generator's `glue` (an assembly of its own, origin naming it); and,
 * once every body is read, the checks that need them all: every assembly
 * has parts of one particle size and no lifetime, every anchored body or
 * part touches a plane or a static body (an anchored assembly's parts that
 * do are marked anchored). False, failed, on a bad value. */
bool rb_read_assemblies(rb_reader *r, rb_scene *s, const cJSON *o);
bool rb_read_glue(rb_reader *r, rb_scene *s, const cJSON *o, const char *origin, uint32_t *assembly);
bool rb_read_check_structures(rb_reader *r, rb_scene *s);

/* The top level's `contacts` value o, a saved world's contact history, into
 * s->contacts (scene_read_contacts.c). False, failed, on a bad entry. */
bool rb_read_contacts(rb_reader *r, rb_scene *s, const cJSON *o);

/* A body's `name` and `path` keys into b, about to be the scene's body
 * (scene_read_paths.c): the name unique, the path on a kinematic body only.
 * False, failed, on a bad value. */
bool rb_read_name_and_path(rb_reader *r, rb_scene *s, const cJSON *o, rb_scene_body *b);
/* The top level's `joints` value o (scene_read_joints.c), after every body
 * is read: each joint's bodies by name, or a chain of new bodies. False,
 * failed, on a bad entry. */
bool rb_read_joints(rb_reader *r, rb_scene *s, const cJSON *o);

/* A saved world's own shapes (scene_read_shapes.c): the top level's
 * `shapes` list o into s->shapes, each checked (a name no registry shape
 * has, positive radius, mass and inertia, finite particles, a mesh checked
 * by rb_read_mesh); the index of the scene's shape of that name, or -1; a
 * body's `pieces` (its world piece state, checked against its shape's
 * particles) into s->pieces and b->pieces. False, failed, on a bad value. */
bool rb_read_shapes(rb_reader *r, rb_scene *s, const cJSON *o);
int rb_read_saved_shape(const rb_scene *s, const char *name);
bool rb_read_body_pieces(rb_reader *r, rb_scene *s, const cJSON *o, const rb_shape *shape, rb_scene_body *b);

#endif
