/* pick.h - picking what is drawn: a ray through the cursor against each
 * body's render mesh, as the frame drew it.
 *
 * rb_pick_ray (tools.h) tests the particles: a click a few pixels inside a
 * drawn corner of a cube misses, for the corner particle's sphere leaves the
 * corner of the mesh empty. Here a body with a mesh is tested against its
 * mesh's triangles, moved into the body's frame (one ray-triangle test per
 * triangle, only for the bodies whose bounding sphere the ray meets); a body
 * drawn as its particles (a shape without a mesh, the particle view) against
 * its particles, read only when such a body is met. The planes are hit when
 * no body is in front of them. The grab and delete tools, the explode tool,
 * emitters, vortices, the hover highlight and orbiting all pick this way.
 * Units: metres. */
#ifndef RB_PICK_H
#define RB_PICK_H

#include <stdbool.h>
#include <stdint.h>

#include "scenes/entities.h"
#include "sim/world.h"
#include "tools.h"
#include "view.h"

/* What picking knows of each world shape (its mesh and bounding radius),
 * kept between picks; the meshes of world shapes without an entity row (the
 * pieces of broken bodies) are given to it. It forgets everything when it is
 * used with another world. */
typedef struct rb_pick_meshes rb_pick_meshes;

rb_pick_meshes *rb_pick_meshes_create(void);
void rb_pick_meshes_destroy(rb_pick_meshes *pm);
/* Gives a world shape with no entity row the mesh it is drawn with (the
 * frame of its particles); takes m's arrays (m is emptied). False (m freed)
 * if out of memory. */
bool rb_pick_meshes_take(rb_pick_meshes *pm, const rb_world *world, uint32_t world_shape, rb_mesh *m);

/* Forgets every shape (the sandbox's world was replaced). */
void rb_pick_meshes_forget(rb_pick_meshes *pm);

/* What a frame drew: the world, its entity table (each row's mesh), the
 * view that read the transforms (rb_view_read, this frame) and gives the
 * particles when they are needed, and whether every body was drawn as its
 * particles (the particle view). */
typedef struct rb_pick_scene {
    rb_world *world;
    const rb_entities *entities;
    rb_view *view;
    bool particle_view;
} rb_pick_scene;

/* Casts a ray (unit dir) against the bodies as drawn, then the planes. */
rb_pick rb_pick_drawn(rb_pick_meshes *pm, const rb_pick_scene *scene, const float origin[3], const float dir[3]);

/* Body `body`'s (index) box as drawn, in its own frame (centre of mass at
 * the origin; its mesh's, or its particles'), and the radius of the sphere
 * about its centre of mass that holds it, m. False for a bad index. */
bool rb_pick_body_bounds(rb_pick_meshes *pm, const rb_pick_scene *scene, uint32_t body, float lo[3], float hi[3],
                         float *radius);

/* The distance along a ray (unit dir) to a triangle, from either side; false
 * if it misses or lies behind the origin. Moller and Trumbore (1997). */
bool rb_ray_triangle(const float origin[3], const float dir[3], const float a[3], const float b[3], const float c[3],
                     float *t);

#endif
