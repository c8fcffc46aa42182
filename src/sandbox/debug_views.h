/* debug_views.h - seeing what the simulation does: views the sandbox draws
 * over the scene, each toggled by a key (F3, F4, F6, F7, F8), and the
 * crosshair and the selection's box.
 *
 * - sleeping bodies tinted (the view's colours: rb_view_style.asleep);
 * - contacts: each contact the world remembers (rb_world_read_contacts) as
 *   a small cross where the two particles (or particle and plane) touch,
 *   and each touching particle's contact force (rb_world_particle_forces)
 *   as a line from its centre;
 * - each body's centre of mass and principal axes (x red, y green, z blue);
 * - the grid's occupied cells: a wire box per cell holding a particle (the
 *   cell is the largest particle diameter, as the simulation's grid);
 * - fields' extents while they act: a blast's and a radial field's reach as
 *   a dotted sphere, a vortex's as a dotted cylinder about its axis (it
 *   acts within its radius of the axis), a wind with a radius as a sphere.
 *
 * A view that is off costs nothing: what it reads of the world (every
 * body's state, the contact history, the particles, the forces) is read
 * only while it is on. The fields' view starts on; the others off. */
#ifndef RB_DEBUG_VIEWS_H
#define RB_DEBUG_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pick.h"
#include "render/render.h"
#include "scenes/debris.h"
#include "sim/world.h"
#include "view.h"

typedef enum rb_debug_view_kind {
    RB_DEBUG_SLEEP,    /* F3 */
    RB_DEBUG_CONTACTS, /* F4 */
    RB_DEBUG_AXES,     /* F6 */
    RB_DEBUG_GRID,     /* F7 */
    RB_DEBUG_FIELDS,   /* F8, on at start */
    RB_DEBUG_VIEW_COUNT
} rb_debug_view_kind;

/* At most this many grid cells are drawn (the nearest are not chosen: the
 * first found); the HUD says when there were more. */
#define RB_DEBUG_MAX_CELLS 20000u

typedef struct rb_debug_views rb_debug_views;

rb_debug_views *rb_debug_views_create(void);
void rb_debug_views_destroy(rb_debug_views *dv);

bool rb_debug_views_on(const rb_debug_views *dv, rb_debug_view_kind kind);
/* Turns a view on or off; returns whether it is on now. */
bool rb_debug_views_toggle(rb_debug_views *dv, rb_debug_view_kind kind);
/* "sleeping", "contacts", "axes", "grid cells", "fields"; and its key ("F3"...). */
const char *rb_debug_view_name(rb_debug_view_kind kind);
const char *rb_debug_view_key(rb_debug_view_kind kind);
/* The views on as a HUD line ("views: sleeping (F3), axes (F6)"), "" when
 * none is on but the fields' (which is on at start). */
void rb_debug_views_describe(const rb_debug_views *dv, char *out, size_t size);

/* The sleep view: whether each body (in body order) is asleep, read now;
 * NULL when the view is off or the world cannot be read (logged). */
const bool *rb_debug_asleep(rb_debug_views *dv, rb_world *world);

/* What the frame drew, for the line views. */
typedef struct rb_debug_frame {
    rb_pick_meshes *pick;       /* the bodies' drawn sizes (axes' length) */
    const rb_pick_scene *scene; /* world, entities, the view with this frame's transforms */
    const rb_debris *debris;    /* the fields, or NULL */
    const float *view_proj;     /* 16 floats, column-major: world to clip */
    int width, height;          /* pixels */
} rb_debug_frame;

/* Adds the views that are on to the frame (between rb_renderer_begin and
 * _end): lines for contacts, axes and cells, dots for fields. */
void rb_debug_views_draw(rb_debug_views *dv, rb_renderer *r, const rb_debug_frame *f);
/* Contacts and cells drawn by the last rb_debug_views_draw (0 when off),
 * and whether cells were left out (more than RB_DEBUG_MAX_CELLS). */
void rb_debug_views_counts(const rb_debug_views *dv, uint32_t *contacts, uint32_t *cells, bool *cells_cut);

/* The selected body's box (its drawn bounds in its own frame) as yellow
 * lines over everything. */
void rb_debug_draw_selection(rb_renderer *r, const rb_transform *t, const float lo[3], const float hi[3]);
/* A crosshair centred on pixel (x, y), size pixels across, light with a dark
 * edge so it reads on sky, ground and bodies alike. */
void rb_debug_draw_crosshair(rb_renderer *r, float x, float y, float size);

#endif
