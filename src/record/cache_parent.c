/* cache_parent.c - the `P` record of a cache (cache_records.h,
 * docs/cache-format.md): the body a piece's world shape broke from. */
#include "cache_records.h"

static void le32_out(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t le32_in(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void rb_parent_record(uint32_t world_shape, rb_body_id parent, uint8_t out[RB_PARENT_RECORD_BYTES]) {
    le32_out(out, world_shape);
    le32_out(out + 4, parent.slot);
    le32_out(out + 8, parent.generation);
}

/* The index of world shape ws in c->shapes, or -1 (as rb_cache_find_shape,
 * which this file does not call: cache.c calls here). */
static int shape_index(const rb_cache *c, uint32_t ws) {
    for (uint32_t i = 0; i < c->shape_count; i++)
        if (c->shapes[i].world_shape == ws) return (int)i;
    return -1;
}

const char *rb_cache_read_parent(rb_cache *c, const uint8_t *p) {
    const int s = shape_index(c, le32_in(p));
    if (s < 0) return "a parent for a shape never given";
    rb_cached_shape *shape = &c->shapes[s];
    if (shape->parent.generation != 0) return "a shape's parent given twice";
    const rb_body_id parent = {.slot = le32_in(p + 4), .generation = le32_in(p + 8)};
    if (parent.generation == 0) return "a parent with generation 0";
    shape->parent = parent;
    return NULL;
}

bool rb_cache_shape_parent(const rb_cache *c, uint32_t world_shape, rb_body_id *parent) {
    const int s = shape_index(c, world_shape);
    *parent = s >= 0 ? c->shapes[s].parent : (rb_body_id){0};
    return parent->generation != 0;
}
