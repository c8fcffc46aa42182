/* cache.h - a run recorded to a file, and read back (docs/cache-format.md).
 *
 * The writer takes a frame at a fixed rate: every live body's id, world
 * shape and transform; each body's colours the first frame it is in; each
 * world shape the first time a frame uses it (the pieces of a broken body
 * appear mid-run), with its particles and its render mesh where it has one
 * (the entity table's, or for a broken body's piece the mesh the debris
 * layer cut for it, its cut faces marked); and every second of simulated
 * time a keyframe: every body's whole state (rb_body_state) and the world as
 * a scene file (rb_scene_write: settings, bodies, contact history, and
 * after a break the pieces' shapes with their meshes), from
 * which rb_cache_key_scene builds the world again, bit for bit, to simulate
 * on from there. Each frame is one zstd-compressed chunk with its own
 * length and CRC, flushed as it is written, so a run that is killed, or a
 * file cut at any byte, still reads up to its last whole chunk.
 *
 * The reader takes a regular file only and reads it a chunk at a time, each
 * checked against the file's size and its own stored bytes before it is
 * inflated (cache_file.c), and keeps the records: its memory and time are a
 * small multiple of the file's size. rb_cache_to_anim turns a cache into
 * the animation export writes (anim.h). */
#ifndef RB_CACHE_H
#define RB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "scenes/colors.h"
#include "scenes/debris_events.h"
#include "scenes/entities.h"
#include "scenes/scene.h"
#include "scenes/stage.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define RB_CACHE_VERSION 5
/* The oldest version the reader still reads (docs/cache-format.md). */
#define RB_CACHE_OLDEST_VERSION 2
/* The most a chunk may inflate: its raw bytes at most RB_CACHE_INFLATION
 * times its stored bytes and RB_CACHE_INFLATION_SLACK more, checked before
 * it is inflated, so that what a reader holds is a small multiple of the
 * file's size (docs/cache-format.md, "Reading in bounded memory"). The
 * writer stores a chunk that zstd packs tighter than that uncompressed. */
#define RB_CACHE_INFLATION 32
#define RB_CACHE_INFLATION_SLACK 65536

/* The camera a run was seen through at a frame (a `V` record, version 4:
 * cache_camera.c). Its view looks along its local -z with +y up, as glTF's
 * camera does. */
typedef struct rb_cache_camera {
    float position[3];    /* m, the eye */
    float orientation[4]; /* x, y, z, w: the camera's frame in the world */
    float yfov;           /* rad, vertical field of view, 0 < yfov < pi */
    float aspect;         /* width / height of the view; 0: not known */
    float znear, zfar;    /* m, 0 < znear < zfar */
} rb_cache_camera;

/* A camera at position looking as the sandbox's fly camera with that yaw
 * and pitch does (src/sandbox/camera.h: yaw 0 looks along -z, positive yaw
 * turns toward -x, pitch > 0 looks up). */
void rb_cache_camera_from_view(rb_cache_camera *out, const float position[3], float yaw, float pitch, float yfov,
                               float aspect, float znear, float zfar);

/* ---- writing ---- */

typedef struct rb_cache_writer rb_cache_writer;

/* Creates path (replacing a file there) and writes the header: frames at
 * rate_hz, the world's step. entities (may be NULL) gives shapes their names
 * and meshes; both it and world must outlive the writer. NULL with
 * "path: what is wrong" in err. */
rb_cache_writer *rb_cache_begin(const char *path, rb_world *world, const rb_entities *entities, double rate_hz,
                                char *err, size_t err_size);
/* The same for the world on a stage (stage.h), with what the stage knows
 * besides: the pieces of its broken bodies with the meshes its debris layer
 * cut for them (rb_debris_piece_mesh), and every body's colours from its
 * table (rb_stage_colors). The stage must outlive the writer, and keep its
 * world while it records (a new world ends a recording: rb_stage_world_number). */
rb_cache_writer *rb_cache_begin_stage(const char *path, const rb_stage *stage, double rate_hz, char *err,
                                      size_t err_size);
/* Writes a frame of the world as it is now, at simulated time `time` (s):
 * first any world shape its bodies use that no frame used before, then a
 * keyframe if a second has passed since the last one (and at the first
 * frame), then the frame. False on a write or read failure: the writer
 * keeps the reason for rb_cache_end and writes nothing more. */
bool rb_cache_frame(rb_cache_writer *w, double time);
/* Keeps count events of the run (scenes/debris_events.h, in time order,
 * none before those given last) for the next frame's chunk: an events
 * record `N` (docs/cache-format.md). False when out of memory (the writer
 * then fails as rb_cache_frame does). */
bool rb_cache_events(rb_cache_writer *w, const rb_event *events, uint32_t count, const rb_body_id *pieces);
/* The camera of the frames written from now on (NULL: none from now on):
 * a `V` record goes with the next frame when it differs from the last one
 * written. The sandbox sets its view each frame; a headless run the
 * scene's start camera (else its first bookmark) once. */
void rb_cache_set_camera(rb_cache_writer *w, const rb_cache_camera *camera);
/* Writes the end mark, closes the file and frees the writer (NULL: true).
 * False with "path: what is wrong" in err if anything failed. */
bool rb_cache_end(rb_cache_writer *w, char *err, size_t err_size);

/* ---- reading ---- */

/* A world shape as the cache holds it. */
typedef struct rb_cached_shape {
    uint32_t world_shape; /* its index in the recorded world */
    char name[64];        /* the registry shape's name ("cube", "cube x0.5" scaled), or "piece N" */
    float radius, mass;
    uint32_t particle_count;
    float *particles; /* xyz triples, its principal frame */
    rb_mesh mesh; /* vertex_count 0: none was recorded; mesh.inside: its cut faces (NULL: none, or a version 2 cache) */
    /* the body this shape's body broke from (a `P` record, version 4): generation 0 for none */
    rb_body_id parent;
} rb_cached_shape;

/* A camera from frame `frame` on, until the next one (a `V` record). */
typedef struct rb_cached_camera {
    uint32_t frame;
    bool set; /* false: no camera from this frame on */
    rb_cache_camera camera;
} rb_cached_camera;

/* One body in one frame. */
typedef struct rb_cached_body {
    rb_body_id id;
    uint32_t world_shape;
    float position[3];
    float orientation[4]; /* x, y, z, w */
} rb_cached_body;

/* A body's colours, given the first frame it is in. */
typedef struct rb_cached_colors {
    rb_body_id id;
    rb_paint paint; /* sRGB 0..1: its colour, and its cut faces' */
} rb_cached_colors;

typedef struct rb_cached_frame {
    double time; /* s of simulated time */
    uint32_t body_count;
    rb_cached_body *bodies;
} rb_cached_frame;

/* Every body's whole state at a frame, and the world as a scene file. */
typedef struct rb_cached_key {
    uint32_t frame;
    double time;
    uint32_t body_count;
    rb_body_state *states;
    bool resumable; /* text is the scene (rb_scene_write); false: text says why the world could not be written */
    char *text;     /* NUL-terminated */
} rb_cached_key;

typedef struct rb_cache {
    char *path;          /* as opened, for messages */
    uint32_t version;    /* of its format: RB_CACHE_OLDEST_VERSION .. RB_CACHE_VERSION */
    double rate;         /* frames a second */
    double dt;           /* the world's step, s */
    bool cut_short;      /* the file ends without its end mark: the writer never finished, or it was cut */
    uint64_t bytes_read; /* header and whole chunks: where a cut file's last whole chunk ends */
    uint32_t frame_count;
    rb_cached_frame *frames;
    uint32_t shape_count;
    rb_cached_shape *shapes; /* in the order frames first used them */
    uint32_t key_count;
    rb_cached_key *keys;
    uint32_t color_count;
    rb_cached_colors *colors; /* sorted by id (generation, then slot); none in a version 2 cache */
    /* the run's events (version 4, record N; none in older caches or where none were kept), in time
     * order; a break's pieces at event_pieces[piece_first ..] */
    uint32_t event_count, event_piece_count;
    rb_event *events;
    rb_body_id *event_pieces;
    uint32_t camera_count;
    rb_cached_camera *cameras; /* in frame order; none before version 4 */
} rb_cache;

/* Reads a cache. A file cut short opens with the frames before the cut
 * (cut_short set). NULL with "path: what is wrong" in err for a file that
 * is missing, not a regular file (a FIFO, a device, a directory), empty,
 * not a cache, of another version, cut inside its header or with a damaged
 * one, has a damaged chunk or one inflating past RB_CACHE_INFLATION, bytes
 * after its end mark, or a body in a frame after it died. */
rb_cache *rb_cache_open(const char *path, char *err, size_t err_size);
void rb_cache_close(rb_cache *c);
/* The colours body id is drawn in: as the cache gives them, or the
 * defaults (colors.h) for a body it gives none for (a version 2 cache). */
void rb_cache_body_paint(const rb_cache *c, rb_body_id id, rb_paint *out);
/* The camera frame `frame` was seen through (the last `V` record at or
 * before it); false for none. */
bool rb_cache_camera_at(const rb_cache *c, uint32_t frame, rb_cache_camera *out);
/* The body the shape world_shape's body broke from; false (parent zero) for none. */
bool rb_cache_shape_parent(const rb_cache *c, uint32_t world_shape, rb_body_id *parent);
/* The index into c->shapes of a world shape, or -1. */
int rb_cache_find_shape(const rb_cache *c, uint32_t world_shape);
/* The last keyframe at or before a frame (the first keyframe is at frame
 * 0, so every frame has one), or -1 for a cache without keyframes. */
int rb_cache_key_before(const rb_cache *c, uint32_t frame);
/* The scene of keyframe k: the world's settings, every body's full state
 * and the contact history as rb_scene_save writes them, so that building it
 * gives the world the recording had at that frame, bit for bit (the
 * scene's debris effects are not in it: see docs/cache-format.md; a broken
 * body's pieces are, as the scene's own shapes). NULL with the reason in
 * err when the keyframe has none (a state that was not finite) or the
 * registry lacks one of its shapes. */
rb_scene *rb_cache_key_scene(const rb_cache *c, uint32_t key, const rb_registry *registry, char *err, size_t err_size);

/* The animation of the cache (anim.h): a shape each of its shapes (a shape
 * with no mesh gets its particles' cells, rb_cell_mesh; a cut mesh keeps its
 * inside marks), a body each body id, in its colours (rb_cache_body_paint),
 * its track from the first frame it is in to the last (a frame it misses in
 * between holds its pose), and its camera (rb_cache_anim_camera). False if
 * out of memory or the cache has no frames. Free with rb_cache_anim_free. */
bool rb_cache_to_anim(const rb_cache *c, rb_anim *out);
/* The animation's camera from the cache's `V` records (cache_camera.c):
 * its track from the first frame with a camera to the last frame (a frame
 * after a record saying "none" holds the last pose); out->camera NULL for
 * a cache without one. False if out of memory. */
bool rb_cache_anim_camera(const rb_cache *c, rb_anim *out);
void rb_cache_anim_free(rb_anim *anim);

/* ---- export (csv.c, export.c) ---- */

/* The cache as CSV (RB_CACHE_CSV_HEADER, docs/gltf-export.md, "CSV"): a
 * row a live body a frame (body and parent: (generation << 32) | slot;
 * shape: the world shape, shape_name its name; floats as the shortest
 * decimal that reads back as them; velocity and angular velocity by finite
 * differences of the recorded frames). Written to a temporary beside path
 * and renamed: a failure leaves nothing under path. False with "path:
 * what is wrong" in err. */
#define RB_CACHE_CSV_HEADER "frame,time,body,shape,x,y,z,qx,qy,qz,qw,shape_name,parent,vx,vy,vz,wx,wy,wz"
bool rb_cache_write_csv(const rb_cache *c, const char *path, char *err, size_t err_size);
/* How long before and after its time an impact or a break is marked in a replay, s. */
#define RB_CACHE_MARK_SECONDS 0.5
/* The replay's markers at simulated time `time`: for each impact and break
 * within RB_CACHE_MARK_SECONDS of it, a cross of three segments (along x,
 * y and z) at its position, 0.4 m across at its time and shrinking to
 * nothing at the window's ends. Writes up to max_segments segments to
 * points (2 xyz triples each, as rb_renderer_lines takes them); returns
 * how many there are. */
uint32_t rb_cache_event_marks(const rb_cache *c, double time, float *points, uint32_t max_segments);
/* The cache's events (version 4, record V) as an events file, a JSON line
 * each (docs/events.md), written whole or not at all; a cache without
 * events gives an empty file. False with "path: what is wrong" in err. */
bool rb_cache_write_events(const rb_cache *c, const char *path, char *err, size_t err_size);

/* The cache as CSV and/or glTF (either path may be NULL), each written
 * whole or not at all; the glTF's keys at the cache's own frames. False
 * with "path: what is wrong" in err. */
bool rb_cache_export(const rb_cache *c, const char *csv, const char *gltf, char *err, size_t err_size);
/* The same with the glTF resampled to fps frames a second (resample.h;
 * 0: the cache's own rate). */
bool rb_cache_export_at(const rb_cache *c, const char *csv, const char *gltf, double fps, char *err,
                        size_t err_size);

/* The cache as CSV, glTF (resampled to fps as above) and events (any may
 * be NULL), all or none: every output's folder is checked before the first
 * is written, each is written whole beside its name, and none is renamed
 * into place until all are written. False with "path: what is wrong" in
 * err, and nothing written. */
bool rb_cache_export_all(const rb_cache *c, const char *csv, const char *gltf, const char *events, double fps,
                         char *err, size_t err_size);

/* `rubble export CACHE [--csv OUT.csv] [--gltf OUT.glb] [--fps F]`: argv[0]
 * is "export". Returns the exit status: 0, 2 for a bad command line (an
 * output that is the cache or another output included), a cache that
 * cannot be read or a failed write. */
int rb_export_main(int argc, char **argv);

#endif
