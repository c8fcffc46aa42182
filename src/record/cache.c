/* cache.c - see cache.h; the bytes are in docs/cache-format.md. */
#include "cache.h"
#include "cache_records.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cache_events.h"
#include "cache_file.h"
#include "cache_lives.h"
#include "base/transform.h"

#define ZSTD_LEVEL 3

enum { REC_SHAPE = 'S', REC_KEY = 'K', REC_COLORS = 'C', REC_FRAME = 'F', REC_END = 'E', REC_EVENTS = 'N' };
/* Bytes of a body's colours in a colours record: u32 slot, u32 generation, 6 f32. */
#define COLOR_BYTES 32

/* ---- little-endian bytes out ---- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} buf;

static uint8_t *buf_grow(buf *b, size_t more) {
    if (b->oom) return NULL;
    if (b->n + more > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + more) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return NULL;
        }
        b->p = p, b->cap = cap;
    }
    uint8_t *at = b->p + b->n;
    b->n += more;
    return at;
}

static void put_u8(buf *b, uint8_t v) {
    uint8_t *p = buf_grow(b, 1);
    if (p) *p = v;
}

static void put_u32(buf *b, uint32_t v) {
    uint8_t *p = buf_grow(b, 4);
    if (p)
        for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void put_u64(buf *b, uint64_t v) {
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_f32(buf *b, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(b, v);
}

static void put_f64(buf *b, double f) {
    uint64_t v;
    memcpy(&v, &f, 8);
    put_u64(b, v);
}

static void put_f32s(buf *b, const float *f, size_t n) {
    for (size_t i = 0; i < n; i++) put_f32(b, f[i]);
}

static void put_bytes(buf *b, const void *src, size_t n) {
    uint8_t *p = buf_grow(b, n);
    if (p) memcpy(p, src, n);
}

/* ---- little-endian bytes in: a read past the end sets bad and gives 0 ---- */

typedef struct cursor {
    const uint8_t *p;
    size_t n, at;
    bool bad;
} cursor;

static const uint8_t *take(cursor *c, size_t n) {
    if (c->bad || c->n - c->at < n) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *p = c->p + c->at;
    c->at += n;
    return p;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t get_u8(cursor *c) {
    const uint8_t *p = take(c, 1);
    return p ? *p : 0;
}

static uint32_t get_u32(cursor *c) {
    const uint8_t *p = take(c, 4);
    return p ? le32(p) : 0;
}

static float get_f32(cursor *c) {
    uint32_t v = get_u32(c);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static double get_f64(cursor *c) {
    uint64_t v = get_u32(c);
    v |= (uint64_t)get_u32(c) << 32;
    double f;
    memcpy(&f, &v, 8);
    return f;
}

static void get_f32s(cursor *c, float *f, size_t n) {
    for (size_t i = 0; i < n; i++) f[i] = get_f32(c);
}

/* Whether n records of at least `each` bytes can still be in the cursor:
 * checked before allocating for them, so a damaged count cannot ask for
 * gigabytes. */
static bool room_for(const cursor *c, uint64_t n, uint64_t each) {
    return !c->bad && n * each <= (uint64_t)(c->n - c->at);
}

/* ---- the writer ---- */

struct rb_cache_writer {
    FILE *f;
    char *path;
    rb_world *world;
    const rb_entities *entities;
    const rb_stage *stage; /* NULL: no pieces' meshes, every body in its default colours */
    uint32_t *colored;     /* by body slot: the generation whose colours were written; 0: none */
    uint32_t colored_size;
    ZSTD_CCtx *zstd;
    buf raw, packed;
    buf events;          /* events records kept for the next chunk (rb_cache_events) */
    bool *shape_written; /* by world shape index */
    uint32_t shape_cap;
    uint32_t frames;
    double next_key; /* simulated time of the next keyframe */
    rb_transform *transforms;
    uint32_t transform_cap;
    rb_camera_track camera; /* version 4's `V` records (cache_camera.c) */
    bool failed;
    char why[512];
};

static bool writer_fail(rb_cache_writer *w, const char *what) {
    if (!w->failed) snprintf(w->why, sizeof w->why, "%s", what);
    w->failed = true;
    return false;
}

bool rb_cache_events(rb_cache_writer *w, const rb_event *events, uint32_t count, const rb_body_id *pieces) {
    if (w->failed) return false;
    if (count == 0) return true;
    size_t size;
    uint8_t *packed = rb_cache_events_pack(events, count, pieces, &size);
    if (!packed) return writer_fail(w, "out of memory");
    put_u8(&w->events, REC_EVENTS);
    put_bytes(&w->events, packed, size);
    free(packed);
    return !w->events.oom || writer_fail(w, "out of memory");
}

/* Compresses w->raw into one chunk, writes it and flushes it: a whole chunk
 * is on disk before the next frame is taken. */
static bool write_chunk(rb_cache_writer *w) {
    if (w->raw.oom) return writer_fail(w, "out of memory");
    const char *why = NULL;
    const size_t n = rb_cache_pack(w->zstd, w->raw.p, w->raw.n, ZSTD_LEVEL, &w->packed.p, &w->packed.cap, &why);
    if (!n) return writer_fail(w, why);
    uint8_t head[RB_CACHE_CHUNK_HEADER_BYTES] = {'R', 'B', 'C', 'K'};
    for (int k = 0; k < 4; k++) {
        head[4 + k] = (uint8_t)(n >> (8 * k));
        head[8 + k] = (uint8_t)(w->raw.n >> (8 * k));
    }
    const uint32_t crc = rb_cache_crc32(w->packed.p, n);
    for (int k = 0; k < 4; k++) head[12 + k] = (uint8_t)(crc >> (8 * k));
    const uint32_t head_crc = rb_cache_crc32(head, 16); /* a damaged length is told from a cut */
    for (int k = 0; k < 4; k++) head[16 + k] = (uint8_t)(head_crc >> (8 * k));
    const bool ok =
        fwrite(head, 1, sizeof head, w->f) == sizeof head && fwrite(w->packed.p, 1, n, w->f) == n && fflush(w->f) == 0;
    w->raw.n = 0;
    return ok ? true : writer_fail(w, strerror(errno));
}

rb_cache_writer *rb_cache_begin(const char *path, rb_world *world, const rb_entities *entities, double rate_hz,
                                char *err, size_t err_size) {
    if (!(rate_hz > 0.0 && isfinite(rate_hz))) {
        snprintf(err, err_size, "%s: the frame rate must be positive, not %g", path, rate_hz);
        return NULL;
    }
    rb_cache_writer *w = calloc(1, sizeof *w);
    if (w) w->path = strdup(path);
    if (w && w->path) w->zstd = ZSTD_createCCtx();
    if (!w || !w->path || !w->zstd) {
        snprintf(err, err_size, "%s: out of memory", path);
        rb_cache_end(w, NULL, 0);
        return NULL;
    }
    w->world = world, w->entities = entities;
    w->f = fopen(path, "wb");
    if (!w->f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        rb_cache_end(w, NULL, 0);
        return NULL;
    }
    uint8_t head[RB_CACHE_HEADER_BYTES];
    rb_cache_header(head, rate_hz, rb_world_get_desc(world)->dt);
    const bool ok = fwrite(head, 1, sizeof head, w->f) == sizeof head && fflush(w->f) == 0;
    if (!ok) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        w->failed = true; /* no end mark after a header that did not go out */
        rb_cache_end(w, NULL, 0);
        return NULL;
    }
    return w;
}

rb_cache_writer *rb_cache_begin_stage(const char *path, const rb_stage *stage, double rate_hz, char *err,
                                      size_t err_size) {
    rb_cache_writer *w = rb_cache_begin(path, rb_stage_world(stage), rb_stage_entities(stage), rate_hz, err, err_size);
    if (w) w->stage = stage;
    return w;
}

/* A world shape's record: its particles, and its row's name and mesh (at
 * the variant's scale) when the entity table has a row for it, else the
 * mesh the stage's debris layer cut for it (a broken body's piece), with
 * its cut faces marked. */
static bool put_shape(rb_cache_writer *w, uint32_t s) {
    float mass = 0.0f;
    const uint32_t n = rb_world_shape_particles(w->world, s, NULL, 0, &mass);
    float *particles = malloc(sizeof(float) * 3 * (n ? n : 1));
    if (!particles) return writer_fail(w, "out of memory");
    rb_world_shape_particles(w->world, s, particles, n, NULL);
    char name[64];
    snprintf(name, sizeof name, "piece %u", s);
    const rb_mesh *mesh = NULL;
    float scale = 1.0f;
    /* the shape it was made from: a row's shape that a rebuilt plugin replaced keeps its old mesh here */
    const rb_shape *made = w->entities ? rb_entities_shape_of_world_shape(w->entities, s) : NULL;
    if (made) {
        scale = rb_entities_scale_of_world_shape(w->entities, s);
        if (scale == 1.0f)
            snprintf(name, sizeof name, "%s", made->name);
        else
            snprintf(name, sizeof name, "%.48s x%g", made->name, scale);
        if (made->mesh.vertex_count > 0) mesh = &made->mesh;
    }
    rb_mesh cut = {0}; /* a piece's, a copy */
    if (!made && w->stage && rb_debris_piece_mesh(rb_stage_debris(w->stage), s, &cut)) mesh = &cut;
    put_u8(&w->raw, REC_SHAPE);
    put_u32(&w->raw, s);
    put_bytes(&w->raw, name, sizeof name);
    put_f32(&w->raw, rb_world_shape_radius(w->world, s));
    put_f32(&w->raw, mass);
    put_u32(&w->raw, n);
    put_f32s(&w->raw, particles, 3 * (size_t)n);
    free(particles);
    put_u32(&w->raw, mesh ? mesh->vertex_count : 0);
    put_u32(&w->raw, mesh ? mesh->index_count : 0);
    if (mesh) {
        for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; i++) put_f32(&w->raw, mesh->positions[i] * scale);
        put_f32s(&w->raw, mesh->normals, 3 * (size_t)mesh->vertex_count);
        for (uint32_t i = 0; i < mesh->index_count; i++) put_u32(&w->raw, mesh->indices[i]);
        for (uint32_t i = 0; i < mesh->vertex_count; i++) put_u8(&w->raw, mesh->inside && mesh->inside[i] ? 1 : 0);
    }
    rb_mesh_free(&cut);
    /* version 4: the body a piece's shape broke from (cache_parent.c) */
    rb_body_id parent;
    if (!made && w->stage && rb_debris_piece_parent(rb_stage_debris(w->stage), s, &parent)) {
        uint8_t record[RB_PARENT_RECORD_BYTES];
        rb_parent_record(s, parent, record);
        put_u8(&w->raw, RB_REC_PARENT);
        put_bytes(&w->raw, record, sizeof record);
    }
    return true;
}

/* The colours of the frame's bodies whose colours no frame gave yet (each
 * body's at the first frame it is in): a record of them, if any. */
static bool put_colors(rb_cache_writer *w, uint32_t n) {
    const rb_color_table *table = w->stage ? rb_stage_colors(w->stage) : NULL;
    size_t count_at = 0;
    uint32_t count = 0;
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_id id = rb_world_body_id(w->world, b);
        if (id.slot >= w->colored_size) {
            uint32_t size = w->colored_size ? w->colored_size : 1024;
            while (size <= id.slot && size <= UINT32_MAX / 2) size *= 2;
            if (size <= id.slot) return writer_fail(w, "a body slot past the table of colours written");
            uint32_t *grown = realloc(w->colored, sizeof *grown * size);
            if (!grown) return writer_fail(w, "out of memory");
            memset(grown + w->colored_size, 0, sizeof *grown * (size - w->colored_size));
            w->colored = grown, w->colored_size = size;
        }
        if (w->colored[id.slot] == id.generation) continue;
        w->colored[id.slot] = id.generation;
        if (count++ == 0) {
            put_u8(&w->raw, REC_COLORS);
            count_at = w->raw.n;
            put_u32(&w->raw, 0); /* the count, filled in below */
        }
        rb_paint paint;
        rb_color_table_paint(table, id, &paint);
        put_u32(&w->raw, id.slot);
        put_u32(&w->raw, id.generation);
        put_f32s(&w->raw, paint.color, 3);
        put_f32s(&w->raw, paint.inside, 3);
    }
    if (count && !w->raw.oom)
        for (int k = 0; k < 4; k++) w->raw.p[count_at + k] = (uint8_t)(count >> (8 * k));
    return true;
}

static void put_state(buf *b, const rb_body_state *s) {
    put_u32(b, s->id.slot);
    put_u32(b, s->id.generation);
    put_u32(b, s->shape);
    put_f32s(b, s->position, 3);
    put_f32s(b, s->orientation, 4);
    put_f32s(b, s->velocity, 3);
    put_f32s(b, s->angular_velocity, 3);
    put_f32s(b, s->angular_momentum, 3);
    put_f32(b, s->mass);
    put_f32(b, s->sleep_timer);
    put_f32(b, s->support);
    put_u32(b, (uint32_t)s->kind);
    put_u32(b, s->material);
    put_u8(b, s->asleep);
}

/* The world as a scene file (rb_scene_write) after a keyframe's states: 1
 * and the text, or 0 and why it could not be written, so that a replay can
 * say why it cannot resume there. */
static bool put_key_scene(rb_cache_writer *w) {
    char *text = NULL, why[256] = "no entity table: the recording was made without one";
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) return writer_fail(w, "out of memory");
    rb_scene_source source = {.world = w->world, .entities = w->entities};
    if (w->stage) source = rb_stage_source(w->stage);
    const bool ok = source.entities && rb_scene_write_source(f, &source, why, sizeof why);
    if (fclose(f) != 0 || !text) {
        free(text);
        return writer_fail(w, "out of memory");
    }
    const char *said = ok ? text : why;
    const size_t length = strlen(said);
    put_u8(&w->raw, ok);
    put_u32(&w->raw, (uint32_t)length);
    put_bytes(&w->raw, said, length);
    free(text);
    return true;
}

static bool put_key(rb_cache_writer *w, double time) {
    const uint32_t n = rb_world_body_count(w->world);
    put_u8(&w->raw, REC_KEY);
    put_u32(&w->raw, w->frames);
    put_f64(&w->raw, time);
    put_u32(&w->raw, n);
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s;
        if (!rb_world_get_body(w->world, b, &s)) return writer_fail(w, "cannot read the bodies");
        put_state(&w->raw, &s);
    }
    return put_key_scene(w);
}

bool rb_cache_frame(rb_cache_writer *w, double time) {
    if (w->failed) return false;
    rb_world *world = w->world;
    const uint32_t n = rb_world_body_count(world), shapes = rb_world_shape_count(world);
    if (n > w->transform_cap) {
        rb_transform *t = realloc(w->transforms, sizeof *t * n);
        if (!t) return writer_fail(w, "out of memory");
        w->transforms = t, w->transform_cap = n;
    }
    if (shapes > w->shape_cap) {
        bool *known = realloc(w->shape_written, sizeof *known * shapes);
        if (!known) return writer_fail(w, "out of memory");
        memset(known + w->shape_cap, 0, sizeof *known * (shapes - w->shape_cap));
        w->shape_written = known, w->shape_cap = shapes;
    }
    if (n && !rb_world_read_transforms(world, w->transforms)) return writer_fail(w, "cannot read the bodies");
    const uint32_t *shape_of = rb_world_body_shapes(world);
    w->raw.n = 0;
    for (uint32_t b = 0; b < n; b++)
        if (shape_of[b] < w->shape_cap && !w->shape_written[shape_of[b]]) {
            if (!put_shape(w, shape_of[b])) return false;
            w->shape_written[shape_of[b]] = true;
        }
    if (w->frames == 0 || time >= w->next_key) {
        if (!put_key(w, time)) return false;
        w->next_key = floor(time) + 1.0;
    }
    if (!put_colors(w, n)) return false;
    if (w->events.n) put_bytes(&w->raw, w->events.p, w->events.n), w->events.n = 0;
    uint8_t camera[RB_CAMERA_RECORD_BYTES];
    if (rb_camera_track_record(&w->camera, w->frames, camera)) {
        put_u8(&w->raw, RB_REC_CAMERA);
        put_bytes(&w->raw, camera, sizeof camera);
    }
    put_u8(&w->raw, REC_FRAME);
    put_u32(&w->raw, w->frames);
    put_f64(&w->raw, time);
    put_u32(&w->raw, n);
    for (uint32_t b = 0; b < n; b++) {
        const rb_body_id id = rb_world_body_id(world, b);
        put_u32(&w->raw, id.slot);
        put_u32(&w->raw, id.generation);
        put_u32(&w->raw, shape_of[b]);
        put_f32s(&w->raw, w->transforms[b].position, 3);
        put_f32s(&w->raw, w->transforms[b].orientation, 4);
    }
    if (!write_chunk(w)) return false;
    w->frames++;
    return true;
}

void rb_cache_set_camera(rb_cache_writer *w, const rb_cache_camera *camera) {
    if (w) rb_camera_track_set(&w->camera, camera);
}

bool rb_cache_end(rb_cache_writer *w, char *err, size_t err_size) {
    if (!w) return true;
    if (w->f && !w->failed) {
        w->raw.n = 0;
        if (w->events.n) put_bytes(&w->raw, w->events.p, w->events.n); /* the events after the last frame */
        put_u8(&w->raw, REC_END);
        put_u32(&w->raw, w->frames);
        write_chunk(w);
    }
    if (w->f && fclose(w->f) != 0) writer_fail(w, strerror(errno));
    const bool ok = !w->failed;
    if (!ok && err) snprintf(err, err_size, "%s: %s", w->path, w->why);
    ZSTD_freeCCtx(w->zstd);
    free(w->raw.p);
    free(w->events.p);
    free(w->packed.p);
    free(w->shape_written);
    free(w->colored);
    free(w->transforms);
    free(w->path);
    free(w);
    return ok;
}

/* ---- the reader ---- */

void rb_cache_close(rb_cache *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->shape_count; i++) {
        free(c->shapes[i].particles);
        rb_mesh_free(&c->shapes[i].mesh);
    }
    for (uint32_t i = 0; i < c->frame_count; i++) free(c->frames[i].bodies);
    for (uint32_t i = 0; i < c->key_count; i++) free(c->keys[i].states), free(c->keys[i].text);
    free(c->shapes);
    free(c->frames);
    free(c->keys);
    free(c->colors);
    rb_cache_events_free(c);
    rb_cache_free_cameras(c);
    free(c->path);
    free(c);
}

static uint64_t id_key(rb_body_id id) { return (uint64_t)id.generation << 32 | id.slot; }

void rb_cache_body_paint(const rb_cache *c, rb_body_id id, rb_paint *out) {
    const uint64_t key = id_key(id);
    uint32_t lo = 0, hi = c->color_count; /* the first at or after key */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (id_key(c->colors[mid].id) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->color_count && id_key(c->colors[lo].id) == key)
        *out = c->colors[lo].paint;
    else
        rb_color_spec_paint(NULL, id, out);
}

int rb_cache_find_shape(const rb_cache *c, uint32_t world_shape) {
    for (uint32_t i = 0; i < c->shape_count; i++)
        if (c->shapes[i].world_shape == world_shape) return (int)i;
    return -1;
}

int rb_cache_key_before(const rb_cache *c, uint32_t frame) {
    int best = -1;
    for (uint32_t i = 0; i < c->key_count && c->keys[i].frame <= frame; i++) best = (int)i;
    return best;
}

rb_scene *rb_cache_key_scene(const rb_cache *c, uint32_t key, const rb_registry *registry, char *err, size_t err_size) {
    if (key >= c->key_count) {
        snprintf(err, err_size, "%s: no keyframe %u (it has %u)", c->path, key, c->key_count);
        return NULL;
    }
    const rb_cached_key *k = &c->keys[key];
    if (!k->resumable) {
        snprintf(err, err_size, "%s: the keyframe at %.3f s cannot be resumed: %s", c->path, k->time, k->text);
        return NULL;
    }
    char name[4200];
    snprintf(name, sizeof name, "%s (keyframe at %.3f s)", c->path, k->time);
    return rb_scene_parse(k->text, name, registry, err, err_size);
}

/* Grows an array of `size`-byte items to hold one more; false if out of memory. */
static bool grow(void **items, uint32_t count, size_t size) {
    if (count & (count - 1)) return true; /* capacity doubles at powers of two */
    void *p = realloc(*items, size * (count ? 2 * (size_t)count : 4));
    if (!p) return false;
    *items = p;
    return true;
}

static const char *read_shape(rb_cache *c, cursor *in) {
    rb_cached_shape s = {.world_shape = get_u32(in)};
    const uint8_t *name = take(in, sizeof s.name);
    if (name) memcpy(s.name, name, sizeof s.name);
    s.name[sizeof s.name - 1] = '\0';
    s.radius = get_f32(in);
    s.mass = get_f32(in);
    s.particle_count = get_u32(in);
    if (!room_for(in, s.particle_count, 12) || s.particle_count == 0) return "a shape with a bad particle count";
    if (rb_cache_find_shape(c, s.world_shape) >= 0) return "a shape given twice";
    s.particles = malloc(sizeof(float) * 3 * s.particle_count);
    if (!s.particles) return "out of memory";
    get_f32s(in, s.particles, 3 * (size_t)s.particle_count);
    const uint32_t vertices = get_u32(in), indices = get_u32(in);
    /* version 3 marks each vertex of a cut face: a byte a vertex more */
    const uint64_t vertex_bytes = c->version >= 3 ? 25 : 24;
    if (!room_for(in, vertices, vertex_bytes) || !room_for(in, indices, 4) || indices % 3) {
        free(s.particles);
        return "a shape with a bad mesh size";
    }
    bool bad_mark = false;
    if (vertices) {
        s.mesh.vertex_count = vertices, s.mesh.index_count = indices;
        s.mesh.positions = malloc(sizeof(float) * 3 * vertices);
        s.mesh.normals = malloc(sizeof(float) * 3 * vertices);
        s.mesh.indices = malloc(sizeof(uint32_t) * (indices ? indices : 1));
        if (c->version >= 3) s.mesh.inside = malloc(vertices);
        if (!s.mesh.positions || !s.mesh.normals || !s.mesh.indices || (c->version >= 3 && !s.mesh.inside)) {
            free(s.particles);
            rb_mesh_free(&s.mesh);
            return "out of memory";
        }
        get_f32s(in, s.mesh.positions, 3 * (size_t)vertices);
        get_f32s(in, s.mesh.normals, 3 * (size_t)vertices);
        for (uint32_t i = 0; i < indices; i++) {
            s.mesh.indices[i] = get_u32(in);
            if (s.mesh.indices[i] >= vertices) in->bad = true;
        }
        bool cut = false;
        for (uint32_t i = 0; s.mesh.inside && i < vertices; i++) {
            s.mesh.inside[i] = get_u8(in);
            bad_mark = bad_mark || s.mesh.inside[i] > 1;
            cut = cut || s.mesh.inside[i];
        }
        if (!cut) free(s.mesh.inside), s.mesh.inside = NULL; /* a whole body's mesh: no cut faces */
    }
    if (!grow((void **)&c->shapes, c->shape_count, sizeof *c->shapes)) {
        free(s.particles);
        rb_mesh_free(&s.mesh);
        return "out of memory";
    }
    c->shapes[c->shape_count++] = s; /* owned by the cache now, even if the rest is bad */
    return in->bad ? "a shape record cut short" : bad_mark ? "a shape with a cut-face mark other than 0 or 1" : NULL;
}

static const char *read_key(rb_cache *c, cursor *in) {
    rb_cached_key k = {.frame = get_u32(in), .time = get_f64(in), .body_count = get_u32(in)};
    if (k.frame != c->frame_count) return "a keyframe out of order";
    if (!room_for(in, k.body_count, 97)) return "a keyframe with a bad body count";
    k.states = calloc(k.body_count ? k.body_count : 1, sizeof *k.states);
    if (!k.states || !grow((void **)&c->keys, c->key_count, sizeof *c->keys)) {
        free(k.states);
        return "out of memory";
    }
    for (uint32_t b = 0; b < k.body_count; b++) {
        rb_body_state *s = &k.states[b];
        s->id.slot = get_u32(in);
        s->id.generation = get_u32(in);
        s->shape = get_u32(in);
        get_f32s(in, s->position, 3);
        get_f32s(in, s->orientation, 4);
        get_f32s(in, s->velocity, 3);
        get_f32s(in, s->angular_velocity, 3);
        get_f32s(in, s->angular_momentum, 3);
        s->mass = get_f32(in);
        s->sleep_timer = get_f32(in);
        s->support = get_f32(in);
        s->kind = (rb_body_kind)get_u32(in);
        s->material = get_u32(in);
        s->asleep = get_u8(in) != 0;
    }
    const uint8_t resumable = get_u8(in);
    const uint32_t length = get_u32(in);
    const uint8_t *text = resumable <= 1 && room_for(in, length, 1) ? take(in, length) : NULL;
    k.text = malloc(text ? (size_t)length + 1 : 1); /* a length past the chunk's bytes is never allocated */
    if (!k.text) {
        free(k.states);
        return "out of memory";
    }
    if (text) memcpy(k.text, text, length);
    k.text[text ? length : 0] = '\0';
    k.resumable = resumable == 1;
    c->keys[c->key_count++] = k; /* owned by the cache now, even if the rest is bad */
    if (!text && !in->bad) return "a keyframe with a bad scene";
    return in->bad ? "a keyframe cut short" : NULL;
}

/* A colour channel as a cache may hold it: sRGB 0..1. */
static bool channel(float x) { return x >= 0.0f && x <= 1.0f; }

static const char *read_colors(rb_cache *c, cursor *in) {
    const uint32_t n = get_u32(in);
    if (n == 0 || !room_for(in, n, COLOR_BYTES)) return "a colours record with a bad count";
    uint64_t cap = 4;
    while (cap < (uint64_t)c->color_count + n) cap *= 2;
    if (cap > UINT32_MAX) return "a colours record with a bad count";
    rb_cached_colors *grown = realloc(c->colors, sizeof *grown * cap);
    if (!grown) return "out of memory";
    c->colors = grown;
    for (uint32_t i = 0; i < n; i++) {
        rb_cached_colors *e = &c->colors[c->color_count];
        e->id.slot = get_u32(in);
        e->id.generation = get_u32(in);
        get_f32s(in, e->paint.color, 3);
        get_f32s(in, e->paint.inside, 3);
        bool ok = e->id.generation != 0;
        for (int k = 0; k < 3; k++) ok = ok && channel(e->paint.color[k]) && channel(e->paint.inside[k]);
        if (in->bad) return "a colours record cut short";
        if (!ok) return "a body's colours out of range (each channel 0 to 1)";
        c->color_count++;
    }
    return NULL;
}

static const char *read_frame(rb_cache *c, cursor *in) {
    rb_cached_frame f = {0};
    const uint32_t index = get_u32(in);
    f.time = get_f64(in);
    f.body_count = get_u32(in);
    if (index != c->frame_count) return "a frame out of order";
    if (!room_for(in, f.body_count, 40)) return "a frame with a bad body count";
    f.bodies = malloc(sizeof *f.bodies * (f.body_count ? f.body_count : 1));
    if (!f.bodies || !grow((void **)&c->frames, c->frame_count, sizeof *c->frames)) {
        free(f.bodies);
        return "out of memory";
    }
    for (uint32_t b = 0; b < f.body_count; b++) {
        rb_cached_body *body = &f.bodies[b];
        body->id.slot = get_u32(in);
        body->id.generation = get_u32(in);
        body->world_shape = get_u32(in);
        get_f32s(in, body->position, 3);
        get_f32s(in, body->orientation, 4);
        if (!in->bad && rb_cache_find_shape(c, body->world_shape) < 0) {
            free(f.bodies);
            return "a body of a shape never given";
        }
    }
    c->frames[c->frame_count++] = f;
    return in->bad ? "a frame cut short" : NULL;
}

/* Reads one chunk's records; NULL, or what is wrong with them. *end is set
 * by the end mark. */
static const char *read_records(rb_cache *c, const uint8_t *p, size_t n, bool *end) {
    cursor in = {.p = p, .n = n};
    while (in.at < in.n) {
        const uint8_t tag = get_u8(&in);
        const char *why = NULL;
        if (tag == REC_SHAPE)
            why = read_shape(c, &in);
        else if (tag == REC_KEY)
            why = read_key(c, &in);
        else if (tag == REC_FRAME)
            why = read_frame(c, &in);
        else if (tag == REC_COLORS && c->version >= 3)
            why = read_colors(c, &in);
        else if (tag == REC_EVENTS && c->version >= 4) {
            size_t used = 0;
            why = rb_cache_events_read(c, in.p + in.at, in.n - in.at, &used);
            in.at += used;
        } else if ((tag == RB_REC_CAMERA || tag == RB_REC_PARENT) && c->version >= 4) {
            const size_t size = tag == RB_REC_CAMERA ? RB_CAMERA_RECORD_BYTES : RB_PARENT_RECORD_BYTES;
            const uint8_t *bytes = take(&in, size);
            why = !bytes                  ? "a record cut short"
                  : tag == RB_REC_CAMERA ? rb_cache_read_camera(c, bytes)
                                         : rb_cache_read_parent(c, bytes);
        } else if (tag == REC_END) {
            if (get_u32(&in) != c->frame_count) return "an end mark with the wrong frame count";
            *end = true;
            return in.at == in.n ? NULL : "bytes after the end mark";
        } else
            return "a record of unknown type";
        if (why) return why;
    }
    return NULL;
}

static int by_id(const void *a, const void *b) {
    const uint64_t x = id_key(((const rb_cached_colors *)a)->id), y = id_key(((const rb_cached_colors *)b)->id);
    return x < y ? -1 : x > y;
}

/* The bodies' colours sorted by id for rb_cache_body_paint; what is wrong
 * if a body's are given twice. */
static const char *sort_colors(rb_cache *c) {
    if (c->color_count > 1) qsort(c->colors, c->color_count, sizeof *c->colors, by_id);
    for (uint32_t i = 1; i < c->color_count; i++)
        if (id_key(c->colors[i].id) == id_key(c->colors[i - 1].id)) return "a body's colours given twice";
    return NULL;
}

rb_cache *rb_cache_open(const char *path, char *err, size_t err_size) {
    rb_cache_file file;
    char detail[200] = "";
    const char *why = rb_cache_file_open(&file, path, detail, sizeof detail);
    if (why) {
        snprintf(err, err_size, "%s: %s", path, why);
        return NULL;
    }
    rb_cache *c = calloc(1, sizeof *c);
    if (c) c->path = strdup(path);
    if (!c || !c->path) why = "out of memory";
    if (!why) c->version = file.version, c->rate = file.rate, c->dt = file.dt;
    bool end = false;
    while (!why && !end) {
        const uint8_t *raw;
        size_t raw_bytes;
        const int got = rb_cache_file_chunk(&file, &raw, &raw_bytes, &why, detail, sizeof detail);
        if (got <= 0) break; /* the end of the file (a cut: no end mark), or why */
        const char *bad = read_records(c, raw, raw_bytes, &end);
        if (bad) {
            snprintf(detail, sizeof detail, "a damaged chunk at byte %llu (%s)", (unsigned long long)file.at, bad);
            why = detail;
        }
    }
    /* a file ends with its end mark's chunk: anything after it was not written by a recorder */
    if (!why && end && file.next != file.size) {
        snprintf(detail, sizeof detail, "%llu bytes after the end mark's chunk (at byte %llu)",
                 (unsigned long long)(file.size - file.next), (unsigned long long)file.next);
        why = detail;
    }
    if (!why) why = sort_colors(c);
    if (!why) why = rb_cache_check_lives(c, detail, sizeof detail);
    if (why) {
        snprintf(err, err_size, "%s: %s", path, why);
        rb_cache_file_close(&file);
        rb_cache_close(c);
        return NULL;
    }
    c->bytes_read = file.next;
    c->cut_short = !end;
    rb_cache_file_close(&file);
    return c;
}

/* ---- the animation ---- */

void rb_cache_anim_free(rb_anim *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->shape_count; i++) {
        free((void *)a->shapes[i].positions);
        free((void *)a->shapes[i].normals);
        free((void *)a->shapes[i].indices);
        free((void *)a->shapes[i].inside);
    }
    for (uint32_t i = 0; i < a->body_count; i++) free((void *)a->bodies[i].track);
    free((void *)a->shapes);
    free((void *)a->bodies);
    if (a->camera) free((void *)a->camera->track);
    free((void *)a->camera);
    *a = (rb_anim){0};
}

/* A shape's mesh for the animation: a copy of its own (its cut faces
 * marked), else its particles' cells. */
static bool anim_shape(const rb_cached_shape *s, rb_anim_shape *out) {
    rb_mesh m = {0};
    if (s->mesh.vertex_count) {
        const size_t v = 3 * (size_t)s->mesh.vertex_count, i = s->mesh.index_count;
        m.vertex_count = s->mesh.vertex_count, m.index_count = s->mesh.index_count;
        m.positions = malloc(sizeof(float) * v);
        m.normals = malloc(sizeof(float) * v);
        m.indices = malloc(sizeof(uint32_t) * (i ? i : 1));
        if (s->mesh.inside) m.inside = malloc(s->mesh.vertex_count);
        if (!m.positions || !m.normals || !m.indices || (s->mesh.inside && !m.inside)) {
            rb_mesh_free(&m);
            return false;
        }
        memcpy(m.positions, s->mesh.positions, sizeof(float) * v);
        memcpy(m.normals, s->mesh.normals, sizeof(float) * v);
        memcpy(m.indices, s->mesh.indices, sizeof(uint32_t) * i);
        if (m.inside) memcpy(m.inside, s->mesh.inside, s->mesh.vertex_count);
    } else if (!rb_cell_mesh(s->particles, s->particle_count, s->radius, &m)) {
        return false;
    }
    snprintf(out->name, sizeof out->name, "%s", s->name);
    out->vertex_count = m.vertex_count, out->positions = m.positions, out->normals = m.normals;
    out->index_count = m.index_count, out->indices = m.indices, out->inside = m.inside;
    return true;
}

bool rb_cache_to_anim(const rb_cache *c, rb_anim *out) {
    *out = (rb_anim){.rate = c->rate, .frame_count = c->frame_count};
    if (c->frame_count == 0) return false;
    rb_anim_shape *shapes = calloc(c->shape_count ? c->shape_count : 1, sizeof *shapes);
    out->shapes = shapes;
    if (!shapes) return false;
    for (uint32_t i = 0; i < c->shape_count; i++, out->shape_count++)
        if (!anim_shape(&c->shapes[i], &shapes[i])) {
            rb_cache_anim_free(out);
            return false;
        }
    /* Each body id once, with its first and last frame: an open-addressed
     * table of ids (at most half full) to the body's index. */
    uint64_t slots = 64;
    for (uint32_t f = 0; f < c->frame_count; f++)
        while (slots < 2 * (uint64_t)c->frames[f].body_count + 2) slots *= 2;
    uint64_t *keys = NULL;
    uint32_t *index = NULL, count = 0, cap = 0;
    rb_anim_body *bodies = NULL;
    uint32_t *last = NULL;
    bool ok = true;
    for (uint32_t f = 0; f < c->frame_count && ok; f++) {
        for (uint32_t b = 0; b < c->frames[f].body_count && ok; b++) {
            if (2 * (uint64_t)(count + 1) > slots || !keys) { /* (re)build the table larger */
                while (2 * (uint64_t)(count + 1) > slots) slots *= 2;
                free(keys), free(index);
                keys = malloc(sizeof *keys * slots);
                index = malloc(sizeof *index * slots);
                if (!keys || !index) {
                    ok = false;
                    break;
                }
                memset(index, 0xFF, sizeof *index * slots);
                for (uint32_t k = 0; k < count; k++) {
                    uint64_t h = (bodies[k].id * 0x9E3779B97F4A7C15ull) & (slots - 1);
                    while (index[h] != UINT32_MAX) h = (h + 1) & (slots - 1);
                    keys[h] = bodies[k].id, index[h] = k;
                }
            }
            const rb_cached_body *cb = &c->frames[f].bodies[b];
            const uint64_t id = id_key(cb->id);
            uint64_t h = (id * 0x9E3779B97F4A7C15ull) & (slots - 1);
            while (index[h] != UINT32_MAX && keys[h] != id) h = (h + 1) & (slots - 1);
            if (index[h] == UINT32_MAX) {
                if (count == cap) {
                    cap = cap ? 2 * cap : 64;
                    rb_anim_body *nb = realloc(bodies, sizeof *nb * cap);
                    uint32_t *nl = nb ? realloc(last, sizeof *nl * cap) : NULL;
                    if (nb) bodies = nb;
                    if (nl) last = nl;
                    if (!nb || !nl) {
                        ok = false;
                        break;
                    }
                }
                bodies[count] =
                    (rb_anim_body){.id = id, .shape = (uint32_t)rb_cache_find_shape(c, cb->world_shape), .first = f};
                rb_paint paint;
                rb_cache_body_paint(c, cb->id, &paint);
                memcpy(bodies[count].color, paint.color, sizeof paint.color);
                memcpy(bodies[count].inside, paint.inside, sizeof paint.inside);
                last[count] = f;
                keys[h] = id, index[h] = count++;
            } else {
                last[index[h]] = f;
            }
        }
    }
    /* the tracks: a frame a body misses between its first and last (none
     * should) holds the pose before; NaN marks a frame not yet filled */
    for (uint32_t k = 0; k < count && ok; k++) {
        bodies[k].count = last[k] - bodies[k].first + 1;
        float *t = malloc(sizeof(float) * 7 * (size_t)bodies[k].count);
        bodies[k].track = t;
        ok = t != NULL;
        for (uint32_t g = 0; ok && g < bodies[k].count; g++) t[7 * g] = NAN;
    }
    for (uint32_t f = 0; f < c->frame_count && ok; f++)
        for (uint32_t b = 0; b < c->frames[f].body_count; b++) {
            const rb_cached_body *cb = &c->frames[f].bodies[b];
            const uint64_t id = id_key(cb->id);
            uint64_t h = (id * 0x9E3779B97F4A7C15ull) & (slots - 1);
            while (keys[h] != id) h = (h + 1) & (slots - 1);
            const rb_anim_body *ab = &bodies[index[h]];
            float *t = (float *)ab->track + 7 * (size_t)(f - ab->first);
            memcpy(t, cb->position, sizeof cb->position);
            memcpy(t + 3, cb->orientation, sizeof cb->orientation);
        }
    for (uint32_t k = 0; k < count && ok; k++)
        for (uint32_t g = 1; g < bodies[k].count; g++) {
            float *t = (float *)bodies[k].track + 7 * (size_t)g;
            if (isnan(t[0])) memcpy(t, t - 7, sizeof(float) * 7);
        }
    free(keys), free(index), free(last);
    out->bodies = bodies, out->body_count = count;
    ok = ok && rb_cache_anim_camera(c, out);
    if (!ok) rb_cache_anim_free(out);
    return ok;
}
