/* cache_records.h - the records version 4 added to a cache
 * (docs/cache-format.md): a frame's camera (`V`, cache_camera.c) and the
 * body a piece's shape broke from (`P`, cache_parent.c), each encoded and
 * decoded here at a fixed size so that cache.c only frames them. Private to
 * src/record. */
#ifndef RB_CACHE_RECORDS_H
#define RB_CACHE_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cache.h"

enum { RB_REC_CAMERA = 'V', RB_REC_PARENT = 'P' };

/* u32 frame, u8 set, 11 f32: position, orientation, yfov, aspect, znear, zfar */
#define RB_CAMERA_RECORD_BYTES 49
/* u32 world shape, u32 parent slot, u32 parent generation */
#define RB_PARENT_RECORD_BYTES 12

/* The writer's camera: the one set now, and the last one sent. */
typedef struct rb_camera_track {
    bool set, sent_any, sent_set;
    rb_cache_camera now, sent;
} rb_camera_track;

void rb_camera_track_set(rb_camera_track *t, const rb_cache_camera *camera);
/* The `V` record's bytes (after its type) for frame when the camera is not
 * the last one sent (the first frame always sends one); false: nothing to send. */
bool rb_camera_track_record(rb_camera_track *t, uint32_t frame, uint8_t out[RB_CAMERA_RECORD_BYTES]);
/* Reads a `V` record's bytes into c->cameras; NULL, or what is wrong. */
const char *rb_cache_read_camera(rb_cache *c, const uint8_t *p);
void rb_cache_free_cameras(rb_cache *c);

void rb_parent_record(uint32_t world_shape, rb_body_id parent, uint8_t out[RB_PARENT_RECORD_BYTES]);
/* Reads a `P` record's bytes into its shape (given before); NULL, or what is wrong. */
const char *rb_cache_read_parent(rb_cache *c, const uint8_t *p);

#endif
