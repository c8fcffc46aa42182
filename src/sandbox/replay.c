/* replay.c - a recorded cache shown in the sandbox (see replay.h). */
#include "replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenes/scene.h"

static const double g_speeds[RB_REPLAY_SPEEDS] = {0.25, 0.5, 1.0, 2.0, 4.0};
#define RB_REPLAY_ONE_X 2 /* g_speeds[2] = 1x: where a replay starts */

struct rb_replay {
    rb_cache *cache;
    char *path;
    double time; /* the replay clock, s of the recording */
    uint32_t frame;
    int speed; /* index into g_speeds */
    bool playing, scrubbing;
    rb_view_shape *shapes; /* a view shape per cached shape, in the cache's order */
    uint64_t *by_world;    /* world shape << 32 | cached shape index, sorted: the frames' lookups */
    rb_replay_bar bar;     /* where the timeline was last laid out */
    float *key_x;          /* each keyframe along it */
};

/* ---- open and close ---- */

static int ascending(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

rb_replay *rb_replay_open(const char *path, char *err, size_t err_size) {
    rb_cache *c = rb_cache_open(path, err, err_size);
    if (!c) return NULL;
    if (c->frame_count == 0) {
        snprintf(err, err_size, "%s: no frame to replay (the recording was cut short before its first frame)", path);
        rb_cache_close(c);
        return NULL;
    }
    rb_replay *r = calloc(1, sizeof *r);
    const uint32_t shapes = c->shape_count ? c->shape_count : 1, keys = c->key_count ? c->key_count : 1;
    if (r) {
        r->cache = c, r->speed = RB_REPLAY_ONE_X, r->playing = true;
        r->path = strdup(path);
        r->shapes = calloc(shapes, sizeof *r->shapes);
        r->by_world = calloc(shapes, sizeof *r->by_world);
        r->key_x = calloc(keys, sizeof *r->key_x);
    }
    if (!r || !r->path || !r->shapes || !r->by_world || !r->key_x) {
        snprintf(err, err_size, "%s: out of memory", path);
        if (!r) rb_cache_close(c);
        rb_replay_destroy(r);
        return NULL;
    }
    for (uint32_t i = 0; i < c->shape_count; i++) {
        const rb_cached_shape *s = &c->shapes[i];
        r->shapes[i] = (rb_view_shape){
            .mesh = -1, .radius = s->radius, .particle_count = s->particle_count, .particles = s->particles};
        r->by_world[i] = (uint64_t)s->world_shape << 32 | i;
    }
    qsort(r->by_world, c->shape_count, sizeof *r->by_world, ascending);
    return r;
}

void rb_replay_destroy(rb_replay *r) {
    if (!r) return;
    rb_cache_close(r->cache);
    free(r->path), free(r->shapes), free(r->by_world), free(r->key_x);
    free(r);
}

const rb_cache *rb_replay_cache(const rb_replay *r) { return r->cache; }
const char *rb_replay_path(const rb_replay *r) { return r->path; }

void rb_replay_add_meshes(rb_replay *r, rb_renderer *renderer) {
    for (uint32_t i = 0; i < r->cache->shape_count; i++) {
        const rb_cached_shape *s = &r->cache->shapes[i];
        rb_mesh cells = {0};
        const rb_mesh *m = &s->mesh;
        if (m->vertex_count == 0) /* recorded without one: its particles' cells, as an export draws it */
            m = rb_cell_mesh(s->particles, s->particle_count, s->radius, &cells) ? &cells : NULL;
        if (m) /* a broken body's piece's cut faces marked: drawn in its inside colour */
            r->shapes[i].mesh = rb_renderer_add_mesh_marked(renderer, m->positions, m->normals, m->inside,
                                                            m->vertex_count, m->indices, m->index_count);
        rb_mesh_free(&cells);
    }
}

/* ---- the clock ---- */

uint32_t rb_replay_frame_at(double time, double rate, uint32_t frame_count) {
    if (frame_count == 0 || !(time > 0.0) || !(rate > 0.0)) return 0;
    const double k = floor(time * rate + 1e-6);
    return k >= (double)(frame_count - 1) ? frame_count - 1 : (uint32_t)k;
}

/* The clock to frame k's due time, exactly. */
static void go_to(rb_replay *r, uint32_t k) {
    const uint32_t last = r->cache->frame_count - 1;
    r->frame = k < last ? k : last;
    r->time = (double)r->frame / r->cache->rate;
}

void rb_replay_advance(rb_replay *r, double dt) {
    if (!r->playing || r->scrubbing || !(dt > 0.0)) return;
    const uint32_t last = r->cache->frame_count - 1;
    r->time += dt * g_speeds[r->speed];
    r->frame = rb_replay_frame_at(r->time, r->cache->rate, r->cache->frame_count);
    if (r->frame == last) { /* the end: held there, paused */
        go_to(r, last);
        r->playing = false;
    }
}

void rb_replay_play(rb_replay *r, bool play) {
    if (play && r->frame == r->cache->frame_count - 1) go_to(r, 0);
    r->playing = play;
}

bool rb_replay_playing(const rb_replay *r) { return r->playing; }

void rb_replay_step(rb_replay *r, int frames) {
    r->playing = false;
    const int64_t k = (int64_t)r->frame + frames;
    go_to(r, k < 0 ? 0 : k > UINT32_MAX ? UINT32_MAX : (uint32_t)k);
}

void rb_replay_seek(rb_replay *r, uint32_t frame) { go_to(r, frame); }

void rb_replay_change_speed(rb_replay *r, int delta) {
    r->speed += delta > 0 ? 1 : delta < 0 ? -1 : 0;
    if (r->speed < 0) r->speed = 0;
    if (r->speed >= RB_REPLAY_SPEEDS) r->speed = RB_REPLAY_SPEEDS - 1;
}

double rb_replay_speed(const rb_replay *r) { return g_speeds[r->speed]; }
double rb_replay_time(const rb_replay *r) { return r->time; }
uint32_t rb_replay_frame(const rb_replay *r) { return r->frame; }

int rb_replay_key(const rb_replay *r) { return rb_cache_key_before(r->cache, r->frame); }

bool rb_replay_world_desc(const rb_replay *r, const rb_registry *registry, rb_world_desc *desc, char *err,
                          size_t err_size) {
    rb_scene *first = r->cache->key_count ? rb_cache_key_scene(r->cache, 0, registry, err, err_size) : NULL;
    if (!r->cache->key_count) snprintf(err, err_size, "%s: no keyframe", r->path);
    if (!first) return false;
    *desc = rb_scene_world_desc(first, desc);
    rb_scene_destroy(first);
    return true;
}

bool rb_replay_camera(const rb_replay *r, const rb_registry *registry, rb_scene_bookmark *bookmarks,
                      rb_scene_bookmark *start) {
    char err[1024];
    rb_scene *first = r->cache->key_count ? rb_cache_key_scene(r->cache, 0, registry, err, sizeof err) : NULL;
    if (!first) return false; /* the world's settings said so already (rb_replay_world_desc) */
    const rb_scene_bookmark *view = first->start.set ? &first->start : NULL;
    for (int i = 0; !view && i < RB_SCENE_BOOKMARKS; i++)
        if (first->bookmarks[i].set) view = &first->bookmarks[i];
    const bool found = first->has_camera && view;
    if (found) {
        memcpy(bookmarks, first->bookmarks, RB_SCENE_BOOKMARKS * sizeof *bookmarks);
        *start = *view;
    }
    rb_scene_destroy(first);
    return found;
}

/* ---- the timeline ---- */

rb_replay_bar rb_replay_bar_layout(int width, int height, float scale) {
    const float margin = 12.0f * scale, h = 6.0f * scale;
    return (rb_replay_bar){
        .x = margin, .y = (float)height - 10.0f * scale - h, .w = (float)width - 2.0f * margin, .h = h};
}

bool rb_replay_bar_hit(const rb_replay_bar *bar, float x, float y) {
    const float reach = 1.5f * bar->h; /* a thin bar: clicks a little off it count */
    return x >= bar->x - reach && x <= bar->x + bar->w + reach && y >= bar->y - reach && y <= bar->y + bar->h + reach;
}

uint32_t rb_replay_bar_frame(const rb_replay_bar *bar, float x, uint32_t frame_count) {
    if (frame_count < 2 || !(bar->w > 0.0f)) return 0;
    const double u = ((double)x - bar->x) / bar->w, k = floor(u * (frame_count - 1) + 0.5);
    return !(k > 0.0) ? 0 : k >= (double)(frame_count - 1) ? frame_count - 1 : (uint32_t)k;
}

float rb_replay_bar_x(const rb_replay_bar *bar, uint32_t frame, uint32_t frame_count) {
    return frame_count < 2 ? bar->x : bar->x + bar->w * (float)((double)frame / (frame_count - 1));
}

void rb_replay_layout(rb_replay *r, int width, int height, float scale) {
    r->bar = rb_replay_bar_layout(width, height, scale);
    for (uint32_t i = 0; i < r->cache->key_count; i++)
        r->key_x[i] = rb_replay_bar_x(&r->bar, r->cache->keys[i].frame, r->cache->frame_count);
}

bool rb_replay_press(rb_replay *r, float x, float y) {
    if (!rb_replay_bar_hit(&r->bar, x, y)) return false;
    r->scrubbing = true;
    rb_replay_drag(r, x);
    return true;
}

void rb_replay_drag(rb_replay *r, float x) {
    if (r->scrubbing) go_to(r, rb_replay_bar_frame(&r->bar, x, r->cache->frame_count));
}

void rb_replay_release(rb_replay *r) { r->scrubbing = false; }
bool rb_replay_scrubbing(const rb_replay *r) { return r->scrubbing; }

/* ---- the frame ---- */

/* The cached shape of a world shape (every frame's shapes are in the cache: rb_cache_open checks). */
static uint32_t shape_index(const rb_replay *r, uint32_t world_shape) {
    uint32_t lo = 0, hi = r->cache->shape_count;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (r->by_world[mid] >> 32 <= world_shape)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)r->by_world[lo];
}

bool rb_replay_read(const rb_replay *r, rb_view *v) {
    const rb_cached_frame *f = &r->cache->frames[r->frame];
    rb_body_id *ids;
    rb_transform *xf;
    uint32_t *shape_of;
    rb_paint *paints;
    if (!rb_view_read_table(v, f->body_count, r->shapes, &ids, &xf, &shape_of, &paints)) return false;
    for (uint32_t b = 0; b < f->body_count; b++) {
        const rb_cached_body *cb = &f->bodies[b];
        ids[b] = cb->id;
        xf[b] = (rb_transform){
            .position = {cb->position[0], cb->position[1], cb->position[2]},
            .orientation = {cb->orientation[0], cb->orientation[1], cb->orientation[2], cb->orientation[3]}};
        shape_of[b] = shape_index(r, cb->world_shape);
        rb_cache_body_paint(r->cache, cb->id, &paints[b]);
    }
    return true;
}

void rb_replay_hud(const rb_replay *r, rb_hud_replay *out) {
    const rb_cache *c = r->cache;
    const int key = rb_replay_key(r);
    const char *slash = strrchr(r->path, '/');
    *out = (rb_hud_replay){
        .file = slash ? slash + 1 : r->path,
        .frame = r->frame,
        .last = c->frame_count - 1,
        .time = c->frames[r->frame].time,
        .speed = g_speeds[r->speed],
        .bodies = c->frames[r->frame].body_count,
        .playing = r->playing,
        .cut_short = c->cut_short,
        .key_frame = key >= 0 ? (int)c->keys[key].frame : -1,
        .bar = {r->bar.x, r->bar.y, r->bar.w, r->bar.h},
        .head_x = rb_replay_bar_x(&r->bar, r->frame, c->frame_count),
        .from_x = key >= 0 ? r->key_x[key] : -1.0f,
        .key_x = r->key_x,
        .key_count = c->key_count,
    };
}
