/* colors.c - body colours and the table of them (see colors.h). */
#include "colors.h"

#include <stdlib.h>
#include <string.h>

#include "base/color.h"

#define PALETTE 8u
#define SHADES 256u

/* The palette's colour of body id's piece'th piece as a number below
 * PALETTE * SHADES: its colour in the palette and its shade. By the slot
 * alone (as a first generation's, 1): a reset, which refills the slots of
 * the world it keeps with new generations, once gave every body a new
 * colour at each R. */
static uint32_t palette_key(rb_body_id id, uint32_t piece) {
    uint32_t h = id.slot * 2654435761u ^ 40503u;
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

/* ---- the table: an entry a body slot, valid for the generation it was set for ---- */

typedef struct entry {
    uint32_t generation; /* 0: none */
    rb_color_spec spec;
    rb_paint paint; /* what spec gives the body: drawn each frame, made once */
} entry;

struct rb_color_table {
    entry *entries; /* by body slot */
    uint32_t size;
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
    if (given) {
        e->generation = id.generation;
        e->spec = *spec;
        rb_color_spec_paint(spec, id, &e->paint);
    } else
        memset(e, 0, sizeof *e);
    return true;
}

/* Body id's entry, or NULL (none, a body gone, t NULL). */
static const entry *find(const rb_color_table *t, rb_body_id id) {
    return t && id.generation != 0 && id.slot < t->size && t->entries[id.slot].generation == id.generation
               ? &t->entries[id.slot]
               : NULL;
}

bool rb_color_table_get(const rb_color_table *t, rb_body_id id, rb_color_spec *out) {
    const entry *e = find(t, id);
    if (e)
        *out = e->spec;
    else
        memset(out, 0, sizeof *out);
    return e != NULL;
}

void rb_color_table_paint(const rb_color_table *t, rb_body_id id, rb_paint *out) {
    const entry *e = find(t, id);
    if (e)
        *out = e->paint;
    else if (t)
        *out = t->defaults[palette_key(id, 0)];
    else
        rb_color_spec_paint(NULL, id, out);
}

bool rb_color_table_inherit(rb_color_table *t, rb_body_id parent, rb_body_id child) {
    const entry *e = find(t, parent);
    rb_paint paint;
    rb_color_table_paint(t, parent, &paint);
    /* its colour as drawn; its inside colour given, or left to be made from the same colour */
    rb_color_spec spec = {.has_color = true, .has_inside = e && e->spec.has_inside};
    memcpy(spec.color, paint.color, sizeof spec.color);
    memcpy(spec.inside, paint.inside, sizeof spec.inside);
    return rb_color_table_set(t, child, &spec);
}
