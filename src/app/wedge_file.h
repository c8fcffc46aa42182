/* wedge_file.h - a wedge file (docs/wedge.md): one scene, the keys of it to
 * vary and their values; the variants are the cross product of the value
 * lists. Read and checked here, each variant's scene made as a cJSON tree
 * (the scene file's tree with the variant's values set at their key paths).
 * Nothing here runs a simulation: wedge.c checks and runs the variants. */
#ifndef RB_WEDGE_FILE_H
#define RB_WEDGE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The most variants a wedge may have; more is refused before one is made. */
#define RB_WEDGE_MAX_VARIANTS 10000
/* The most keys a wedge varies, and shots a variant takes. */
#define RB_WEDGE_MAX_KEYS 16
#define RB_WEDGE_MAX_SHOTS 64
/* The longest key path. */
#define RB_WEDGE_KEY_SIZE 256
/* The largest wedge or scene file read (bytes). */
#define RB_WEDGE_MAX_FILE (64u << 20)

/* What a variant writes besides its summary (OUT/NNNN/run.rbc, run.csv, run.glb). */
typedef struct rb_wedge_outputs {
    bool record, csv, gltf;
} rb_wedge_outputs;

typedef struct rb_wedge_key {
    char path[RB_WEDGE_KEY_SIZE]; /* as the scene reader prints it: materials.default.friction, fields[0].impulse */
    cJSON *values;                /* a JSON array of the values, in order */
} rb_wedge_key;

typedef struct rb_wedge {
    char file[PATH_MAX];  /* the wedge file, as given */
    char scene[PATH_MAX]; /* the scene file, absolute */
    cJSON *scene_tree;    /* the scene file read as JSON */
    long steps;
    rb_wedge_outputs outputs;
    double shots[RB_WEDGE_MAX_SHOTS]; /* simulated seconds */
    uint32_t shot_count;
    rb_wedge_key keys[RB_WEDGE_MAX_KEYS];
    uint32_t key_count;
    uint32_t variant_count; /* the product of the keys' value counts */
} rb_wedge;

/* A whole file, NUL-ended, of at most RB_WEDGE_MAX_FILE bytes, read by
 * rb_read_file (src/base/read_file.h: regular files only); the caller frees
 * it. NULL with "PATH: why" in err. */
char *rb_wedge_read_text(const char *path, char *err, size_t err_size);

/* Reads a wedge file and its scene. NULL with "FILE: key: what is wrong" in err. */
rb_wedge *rb_wedge_load(const char *path, char *err, size_t err_size);
void rb_wedge_destroy(rb_wedge *w);

/* The name of variant i: four digits, 0000 to 9999. */
void rb_wedge_variant_name(uint32_t i, char name[16]);
/* Variant i's value of key k: the last key's values change fastest. */
const cJSON *rb_wedge_value(const rb_wedge *w, uint32_t i, uint32_t k);
/* "materials.default.friction = 0.2, world.dt = 0.001" for variant i (cut at size). */
void rb_wedge_describe(const rb_wedge *w, uint32_t i, char *out, size_t size);
/* {"key path": value, ...} of variant i (the caller deletes it). */
cJSON *rb_wedge_values(const rb_wedge *w, uint32_t i);

/* Variant i's scene: the scene file's tree with each key's value set. A key
 * path whose array index or object (other than the scene's objects' keys,
 * docs/wedge.md) is not in the scene is refused: NULL with "PATH: what is
 * missing" in err. The keys added to the tree (missing object keys) are
 * listed, one path a line, in added (may be NULL), for the caller to check
 * that the scene reader takes them. */
cJSON *rb_wedge_variant_scene(const rb_wedge *w, uint32_t i, char *added, size_t added_size, char *err,
                              size_t err_size);

/* Sets value (copied) at path in root. Object keys missing along the path
 * are made (objects on the way, the value at the end) and their paths
 * appended to added, a line each; an array index past the array, a key
 * under something that is not an object, or an index into something that
 * is not an array is refused. False with "PATH: why" in err. */
bool rb_wedge_set(cJSON *root, const char *path, const cJSON *value, char *added, size_t added_size, char *err,
                  size_t err_size);

#endif
