/* view.h - what a drawn frame reads of the world, and how it reaches the
 * renderer: the one frame read.
 *
 * Each frame reads every body's transform once (rb_world_read_transforms:
 * on OpenCL one 32-byte read a body, nothing else of the state), takes body
 * ids and shapes from the world's host arrays, and writes each transform once
 * more, straight into the renderer's instance buffer of its shape's mesh,
 * with the body's colour. Particles are read only when something is drawn as
 * particles (a shape without a mesh, the particle view) or picked. */
#ifndef RB_VIEW_H
#define RB_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "render/render.h"
#include "scenes/colors.h"
#include "scenes/debris.h"
#include "scenes/entities.h"
#include "sim/world.h"

typedef struct rb_view rb_view;

/* A body drawn with another mesh (rb_view_style.swaps). */
typedef struct rb_view_swap {
    uint32_t generation; /* the body's id's, in its slot */
    int mesh;            /* the renderer's mesh, in the body's frame at its size; -1: none */
} rb_view_swap;

typedef struct rb_view_style {
    bool particle_view;   /* every body as its particles */
    rb_body_id highlight; /* drawn lighter (the grabbed body); a null id for none */
    rb_body_id hover;     /* drawn a little lighter (the body under the cursor); a null id for none */
    const bool *asleep;   /* per body (body order): drawn tinted when asleep; NULL: no tint */
    /* The scene's debris, or NULL: a body near the end of its lifetime is
     * drawn shrunk by its fade (rb_debris_fade), and not at all at 0. */
    const rb_debris *debris;
    /* The bodies' colours (the stage's: rb_stage_colors), or NULL: each
     * body in its default colours (src/scenes/colors.h). */
    const rb_color_table *colors;
    /* By body slot (rb_body_id.slot), swap_count of them: a body whose id
     * is the swap's is drawn with its mesh (the sandbox's exploded view);
     * NULL: none. */
    const rb_view_swap *swaps;
    uint32_t swap_count;
} rb_view_style;

rb_view *rb_view_create(void);
void rb_view_destroy(rb_view *v);

/* Reads every body's transform. False on a backend failure (logged). */
bool rb_view_read(rb_view *v, rb_world *world);

/* A shape of bodies that are not a world's (a replayed cache's, replay.h). */
typedef struct rb_view_shape {
    int mesh;     /* the renderer's mesh, drawn at its size; -1: drawn as its particles */
    float radius; /* m, its particles' */
    uint32_t particle_count;
    const float *particles; /* xyz triples, its own frame */
} rb_view_shape;

/* Takes the frame's bodies from a table instead of a world (a replay's
 * frame): room for count bodies, whose ids, transforms, shapes (each an
 * index into shapes) and colours the caller fills. shapes must stay as they are until
 * the frame is submitted; submit then draws from them, and its world and
 * entities may be NULL. False if out of memory (nothing is drawn). */
bool rb_view_read_table(rb_view *v, uint32_t count, const rb_view_shape *shapes, rb_body_id **ids,
                        rb_transform **transforms, uint32_t **shape_of, rb_paint **paints);
/* The transforms just read, in body order; count is the body count. */
const rb_transform *rb_view_transforms(const rb_view *v, uint32_t *count);
/* The centre of the bodies just read and a radius around them (m), bounded
 * to 8..80 m, for the shadow map. */
void rb_view_focus(const rb_view *v, float focus[3], float *radius);
/* Hands the bodies just read to the renderer (between rb_renderer_begin and
 * _end): an instance per body with a mesh, the particles of the others (of
 * every body in the particle view), each at its fading size. Bodies read
 * from a table are drawn from its shapes, in their colours, never faded. */
void rb_view_submit(rb_view *v, rb_renderer *r, rb_world *world, const rb_entities *entities,
                    const rb_view_style *style);
/* Every particle's position (xyz triples), read now (a table's: placed
 * from its shapes, body after body; world unused); NULL on failure. Valid
 * until the next call into the view. */
const float *rb_view_particles(rb_view *v, rb_world *world);
/* The box about every particle of the bodies just read, each grown by its
 * radius (m): what the camera frames (framing.h). False with lo > hi when
 * there is no body; false too when the particles cannot be read. */
bool rb_view_bounds(rb_view *v, rb_world *world, float lo[3], float hi[3]);

/* What the last submit drew: bodies as mesh instances, bodies as particles. */
void rb_view_drawn(const rb_view *v, uint32_t *instances, uint32_t *particle_bodies);

/* Host time (ms) of the last frame's read and submit, and its mean over the
 * frames since the view was made. */
double rb_view_host_ms(const rb_view *v, double *mean);

/* The colour a body is drawn in by default (sRGB, 0..1): the palette's,
 * fixed by its id (a scene may give it another: style->colors). */
void rb_view_body_color(rb_body_id id, float rgba[4]);

#endif
