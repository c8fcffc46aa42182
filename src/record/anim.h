/* anim.h - an animation of rigid bodies, what export writes (gltf.h, and
 * the CSV of src/record/export.c): the shapes as triangle meshes, and for
 * each body its shape and a track of transforms sampled at a fixed rate,
 * from the frame it is born to the frame it dies. Built from a cache
 * (cache.h) or straight from a run. Units: metres, seconds; quaternions
 * x, y, z, w, as everywhere in Rubble. */
#ifndef RB_ANIM_H
#define RB_ANIM_H

#include <stdint.h>

typedef struct rb_anim_shape {
    char name[64];
    uint32_t vertex_count; /* > 0 */
    const float *positions; /* xyz triples, the shape's principal frame */
    const float *normals;   /* xyz triples */
    uint32_t index_count;   /* a multiple of 3 */
    const uint32_t *indices;
    /* per vertex: 1 on a face a break cut inside a body (drawn in its inside colour); NULL: none */
    const uint8_t *inside;
} rb_anim_shape;

typedef struct rb_anim_body {
    uint64_t id;        /* a stable id (a body id's slot and generation) */
    uint32_t shape;     /* index into rb_anim.shapes */
    uint32_t first;     /* the frame it is born at */
    uint32_t count;     /* frames it lives: first .. first + count - 1 */
    const float *track; /* count x 7 floats: position xyz, orientation xyzw */
    float color[3];     /* sRGB 0..1: its colour */
    float inside[3];    /* sRGB 0..1: its shape's cut faces' colour */
} rb_anim_body;

/* The camera the run was seen through: a track like a body's (its eye and
 * its frame, looking along its -z with +y up) and a fixed lens. */
typedef struct rb_anim_camera {
    uint32_t first, count; /* as a body's */
    const float *track;    /* count x 7 floats */
    float yfov;            /* rad */
    float aspect;          /* width / height; 0: not known */
    float znear, zfar;     /* m */
} rb_anim_camera;

typedef struct rb_anim {
    double rate;          /* frames a second, > 0 */
    uint32_t frame_count; /* frames in all, >= 1 */
    const rb_anim_shape *shapes;
    uint32_t shape_count;
    const rb_anim_body *bodies;
    uint32_t body_count;
    const rb_anim_camera *camera; /* NULL: none */
} rb_anim;

#endif
