/* colors.h - the colours bodies are drawn in, and the table that keeps them
 * by body id (docs/scene-format.md, "Colours").
 *
 * A body has two colours, both sRGB with channels 0..1: its own, and the
 * inside colour the faces a break cut inside it are drawn in (rb_mesh.inside,
 * src/scenes/cut.h). A scene may give either (a body's, a generator's or a
 * material's `color` and `inside_color`, an emitter's); a colour not given
 * is the palette's, by the body's id (rb_palette_color), and an inside
 * colour not given is made from the body's colour (rb_inside_color_of,
 * base/color.h: the paler, greyer stone).
 *
 * The stage owns one table (stage.h, rb_stage_colors): it sets the scene's
 * bodies' colours when a scene is installed; the debris layer gives a broken
 * body's pieces their parent's colours (they stay the colour it was) and an
 * emitter's bodies the emitter's; the sandbox draws and the cache records
 * each body in the colours the table gives it. A body the table has no
 * entry for has the defaults, so the table holds only bodies given a colour
 * and the pieces of broken bodies. */
#ifndef RB_COLORS_H
#define RB_COLORS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/world.h"

/* Colours as a scene gives them: either may be left to its default. */
typedef struct rb_color_spec {
    bool has_color, has_inside;
    float color[3];  /* sRGB 0..1, if has_color */
    float inside[3]; /* sRGB 0..1, if has_inside */
} rb_color_spec;

/* A body's two colours, defaults filled in: what it is drawn with. */
typedef struct rb_paint {
    float color[3];  /* sRGB 0..1 */
    float inside[3]; /* sRGB 0..1: its cut faces */
} rb_paint;

/* The palette's colour (sRGB) of body id, its piece'th piece's in the
 * particle view (0: the body's own colour): saturated, not garish, distinct
 * from the grey ground and the blue sky, fixed by the id's slot (a reset
 * that fills the same slots keeps the colours). Pieces step 3
 * places through the palette's 8 colours, so a body's first 8 pieces all
 * differ. */
void rb_palette_color(rb_body_id id, uint32_t piece, float rgb[3]);

/* The colours of body id given spec (NULL: nothing given). */
void rb_color_spec_paint(const rb_color_spec *spec, rb_body_id id, rb_paint *out);

typedef struct rb_color_table rb_color_table;

/* An empty table (every body in its default colours); NULL if out of memory. */
rb_color_table *rb_color_table_create(void);
void rb_color_table_destroy(rb_color_table *t);
/* Forgets every entry (a new scene). */
void rb_color_table_clear(rb_color_table *t);
/* Gives body id the colours spec gives (a spec that gives neither forgets
 * its entry). The values are taken as they are: the readers check them.
 * False if out of memory. */
bool rb_color_table_set(rb_color_table *t, rb_body_id id, const rb_color_spec *spec);
/* The colours body id was given; false (out: nothing given) for a body
 * with none, a body gone, or t NULL. */
bool rb_color_table_get(const rb_color_table *t, rb_body_id id, rb_color_spec *out);
/* The colours body id is drawn with (t NULL: the defaults). */
void rb_color_table_paint(const rb_color_table *t, rb_body_id id, rb_paint *out);
/* Gives child the colours parent is drawn with (a piece of a broken body:
 * its colour stays the body's, its inside colour the body's given one, or
 * the default made from the same colour). False if out of memory. */
bool rb_color_table_inherit(rb_color_table *t, rb_body_id parent, rb_body_id child);

#endif
