/* camera.h - the fly camera: a position and a heading (yaw, pitch).
 *
 * Units: metres, seconds, radians. y is up; yaw 0 looks along -z, positive
 * yaw turns left (toward -x); pitch > 0 looks up. */
#ifndef RB_CAMERA_H
#define RB_CAMERA_H

#include <stdbool.h>

typedef struct rb_camera {
    float position[3]; /* m */
    float yaw, pitch;  /* rad */
    float fov_y;       /* rad, vertical field of view */
    float speed;       /* m/s when flying; the wheel changes it */
    float near_m, far_m;
} rb_camera;

/* A camera at eye looking at target, 60 degree field of view, 8 m/s. */
void rb_camera_init(rb_camera *c, const float eye[3], const float target[3]);
void rb_camera_look_at(rb_camera *c, const float target[3]);
/* The eye at position looking along yaw and pitch (a scene's start camera
 * or bookmark), the pitch kept short of straight up or down. */
void rb_camera_place(rb_camera *c, const float position[3], float yaw, float pitch);
/* Unit vectors of the view: forward (where it looks), right, and up (y). */
void rb_camera_basis(const rb_camera *c, float forward[3], float right[3], float up[3]);
/* Mouse look: dx, dy in pixels of mouse motion (y down, as SDL reports it). */
void rb_camera_turn(rb_camera *c, float dx, float dy);
/* Moves along right, up (world y) and forward by amounts in -1..1, for dt seconds. */
void rb_camera_fly(rb_camera *c, float right, float up, float forward, float dt, bool fast);
/* Multiplies the speed by 1.25 per wheel notch (positive: faster), within 0.5..200 m/s. */
void rb_camera_wheel(rb_camera *c, float notches);
/* Orbit: turns the camera about centre by dx, dy pixels of mouse motion (as
 * rb_camera_turn turns it about the eye), keeping its distance to centre and
 * looking at it, so centre stays in the middle of the view. */
void rb_camera_orbit(rb_camera *c, const float centre[3], float dx, float dy);
/* Focus: looks at centre from along the current view, near enough that a
 * sphere of radius (m) about it fills about half the view's height (never
 * nearer than 1.5 m). */
void rb_camera_focus(rb_camera *c, const float centre[3], float radius);
/* Column-major view and projection for a width x height (pixels) viewport. */
void rb_camera_matrices(const rb_camera *c, int width, int height, float view[16], float proj[16]);
/* The ray through pixel (x, y) (from the top left): origin at the eye, unit direction. */
void rb_camera_ray(const rb_camera *c, int width, int height, float x, float y, float origin[3], float dir[3]);

#endif
