/* colors.c - body colours and the table of them (see colors.h). */
#include "colors.h"

#include <stdlib.h>
#include <string.h>

#include "base/color.h"

#define PALETTE 8u
#define SHADES 256u

/* The palette's colour of body id's piece'th piece as a number below
 * PALETTE * SHADES: its colour in the palette and its shade. */
static uint32_t palette_key(rb_body_id id, uint32_t piece) {
    uint32_t h = id.slot * 2654435761u ^ id.generation * 40503u;
    h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12;
    return (h + 3u * piece) % PALETTE * SHADES + ((h >> 8) & 0xff);
}

static void palette_rgb(uint32_t key, float rgb[3]) {
    static const float palette[PALETTE][3] = {
        {0.90f, 0.30f, 0.22f}, {0.95f, 0.62f, 0.15f}, {0.95f, 0.85f, 0.30f}, {0.45f, 0.78f, 0.30f},
        {0.20f, 0.65f, 0.60f}, {0.30f, 0.50f, 0.90f}, {0.60f, 0.40f, 0.85f}, {0.90f, 0.45f, 0.65f},
    };
    const float *c = palette[key / SHADES];
    const float shade = 0.85f + 0.15f * (float)(key % SHADES) / 255.0f;
    for (int k = 0; k < 3; k++) rgb[k] = c[k] * shade;
}

void rb_palette_color(rb_body_id id, uint32_t piece, float rgb[3]) { palette_rgb(palette_key(id, piece), rgb); }

void rb_color_spec_paint(const rb_color_spec *spec, rb_body_id id, rb_paint *out) {
    if (spec && spec->has_color)
        memcpy(out->color, spec->color, sizeof out->color);
    else
        rb_palette_color(id, 0, out->color);
    if (spec && spec->has_inside)
        memcpy(out->inside, spec->inside, sizeof out->inside);
    else
        rb_inside_color_of(out->color, out->inside);
}

rb_color_spec rb_color_spec_over(const rb_color_spec *a, const rb_color_spec *b) {
    rb_color_spec s = *b;
    if (a->has_color) s.has_color = true, memcpy(s.color, a->color, sizeof s.color);
    if (a->has_inside) s.has_inside = true, memcpy(s.inside, a->inside, sizeof s.inside);
    return s;
}

/* ---- the table: an entry a body slot, valid for the generation it was set for ---- */

typedef struct entry {
    uint32_t generation; /* 0: none */
    rb_color_spec spec;
    rb_paint paint; /* what spec gives the body: drawn each frame, made once */
} entry;

struct rb_color_table {
    entry *entries; /* by body slot */
    uint32_t size;
    uint32_t count;
    /* every default paint, by palette key: a body with no entry costs a
     * look-up a frame, not the powers of its inside colour */
    rb_paint defaults[PALETTE * SHADES];
};

rb_color_table *rb_color_table_create(void) {
    rb_color_table *t = calloc(1, sizeof *t);
    for (uint32_t key = 0; t && key < PALETTE * SHADES; key++) {
        palette_rgb(key, t->defaults[key].color);
        rb_inside_color_of(t->defaults[key].color, t->defaults[key].inside);
    }
    return t;
}

void rb_color_table_destroy(rb_color_table *t) {
    if (!t) return;
    free(t->entries);
    free(t);
}

void rb_color_table_clear(rb_color_table *t) {
    if (t->size) memset(t->entries, 0, sizeof *t->entries * t->size);
    t->count = 0;
}

bool rb_color_table_set(rb_color_table *t, rb_body_id id, const rb_color_spec *spec) {
    if (id.generation == 0) return true;
    const bool given = spec->has_color || spec->has_inside;
    if (id.slot >= t->size) {
        if (!given) return true;
        uint32_t size = t->size ? t->size : 64;
        while (size <= id.slot) size = size > UINT32_MAX / 2 ? UINT32_MAX : 2 * size;
        if (size <= id.slot) return false;
        entry *grown = realloc(t->entries, sizeof *grown * size);
        if (!grown) return false;
        memset(&grown[t->size], 0, sizeof *grown * (size - t->size));
        t->entries = grown, t->size = size;
    }
    entry *e = &t->entries[id.slot];
    t->count -= e->generation != 0;
    if (given) {
        e->generation = id.generation;
        e->spec = *spec;
        rb_color_spec_paint(spec, id, &e->paint);
        t->count++;
    } else
        memset(e, 0, sizeof *e);
    return true;
}

bool rb_color_table_get(const rb_color_table *t, rb_body_id id, rb_color_spec *out) {
    const bool found = t && id.generation != 0 && id.slot < t->size && t->entries[id.slot].generation == id.generation;
    if (found)
        *out = t->entries[id.slot].spec;
    else
        memset(out, 0, sizeof *out);
    return found;
}

void rb_color_table_paint(const rb_color_table *t, rb_body_id id, rb_paint *out) {
    if (!t)
        rb_color_spec_paint(NULL, id, out);
    else if (id.generation != 0 && id.slot < t->size && t->entries[id.slot].generation == id.generation)
        *out = t->entries[id.slot].paint;
    else
        *out = t->defaults[palette_key(id, 0)];
}

bool rb_color_table_inherit(rb_color_table *t, rb_body_id parent, rb_body_id child) {
    rb_color_spec given, spec = {.has_color = true};
    const bool has = rb_color_table_get(t, parent, &given);
    rb_paint paint;
    rb_color_spec_paint(has ? &given : NULL, parent, &paint);
    memcpy(spec.color, paint.color, sizeof spec.color);
    if (has && given.has_inside) spec.has_inside = true, memcpy(spec.inside, given.inside, sizeof spec.inside);
    return rb_color_table_set(t, child, &spec);
}

uint32_t rb_color_table_count(const rb_color_table *t) { return t->count; }
