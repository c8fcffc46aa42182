/* camera.c - the fly camera: look, fly, rays through pixels, matrices (see camera.h). */
#include "camera.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

/* Radians of turn per pixel of mouse motion. */
#define RB_LOOK_SENSITIVITY 0.0035f
/* Just short of straight up or down, where yaw would lose its meaning. */
#define RB_PITCH_LIMIT 1.55f

void rb_camera_init(rb_camera *c, const float eye[3], const float target[3]) {
    memset(c, 0, sizeof *c);
    memcpy(c->position, eye, 3 * sizeof(float));
    c->fov_y = glm_rad(60.0f);
    c->speed = 8.0f;
    c->near_m = 0.05f;
    c->far_m = 2000.0f;
    rb_camera_look_at(c, target);
}

void rb_camera_look_at(rb_camera *c, const float target[3]) {
    float d[3] = {target[0] - c->position[0], target[1] - c->position[1], target[2] - c->position[2]};
    float h = sqrtf(d[0] * d[0] + d[2] * d[2]);
    c->yaw = atan2f(-d[0], -d[2]);
    c->pitch = atan2f(d[1], h);
}

void rb_camera_place(rb_camera *c, const float position[3], float yaw, float pitch) {
    memcpy(c->position, position, 3 * sizeof(float));
    c->yaw = yaw;
    c->pitch = pitch > RB_PITCH_LIMIT ? RB_PITCH_LIMIT : pitch < -RB_PITCH_LIMIT ? -RB_PITCH_LIMIT : pitch;
}

void rb_camera_basis(const rb_camera *c, float forward[3], float right[3], float up[3]) {
    float cp = cosf(c->pitch), sp = sinf(c->pitch), cy = cosf(c->yaw), sy = sinf(c->yaw);
    forward[0] = -sy * cp, forward[1] = sp, forward[2] = -cy * cp;
    right[0] = cy, right[1] = 0.0f, right[2] = -sy;
    up[0] = 0.0f, up[1] = 1.0f, up[2] = 0.0f;
}

void rb_camera_turn(rb_camera *c, float dx, float dy) {
    c->yaw -= dx * RB_LOOK_SENSITIVITY;
    c->pitch -= dy * RB_LOOK_SENSITIVITY;
    if (c->pitch > RB_PITCH_LIMIT) c->pitch = RB_PITCH_LIMIT;
    if (c->pitch < -RB_PITCH_LIMIT) c->pitch = -RB_PITCH_LIMIT;
    c->yaw = remainderf(c->yaw, 2.0f * GLM_PIf);
}

void rb_camera_orbit(rb_camera *c, const float centre[3], float dx, float dy) {
    const float d[3] = {c->position[0] - centre[0], c->position[1] - centre[1], c->position[2] - centre[2]};
    const float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(dist > 1e-4f)) return; /* the eye is at the centre: nothing to turn about */
    rb_camera_look_at(c, centre);
    rb_camera_turn(c, dx, dy);
    float f[3], r[3], u[3];
    rb_camera_basis(c, f, r, u);
    for (int k = 0; k < 3; k++) c->position[k] = centre[k] - f[k] * dist;
}

void rb_camera_focus(rb_camera *c, const float centre[3], float radius) {
    float dist = radius / tanf(0.25f * c->fov_y); /* the sphere's radius is a quarter of the view's height */
    if (!(dist >= 1.5f)) dist = 1.5f;
    float f[3], r[3], u[3];
    rb_camera_basis(c, f, r, u);
    for (int k = 0; k < 3; k++) c->position[k] = centre[k] - f[k] * dist;
}

void rb_camera_fly(rb_camera *c, float right, float up, float forward, float dt, bool fast) {
    float f[3], r[3], u[3];
    rb_camera_basis(c, f, r, u);
    float step = c->speed * dt * (fast ? 4.0f : 1.0f);
    for (int k = 0; k < 3; k++) c->position[k] += (r[k] * right + u[k] * up + f[k] * forward) * step;
}

void rb_camera_wheel(rb_camera *c, float notches) {
    c->speed *= powf(1.25f, notches);
    if (c->speed < 0.5f) c->speed = 0.5f;
    if (c->speed > 200.0f) c->speed = 200.0f;
}

void rb_camera_matrices(const rb_camera *c, int width, int height, float view[16], float proj[16]) {
    float f[3], r[3], u[3];
    rb_camera_basis(c, f, r, u);
    vec3 eye, target, up = {0.0f, 1.0f, 0.0f};
    glm_vec3_copy((float *)c->position, eye);
    glm_vec3_add(eye, f, target);
    mat4 v, p;
    glm_lookat(eye, target, up, v);
    glm_perspective(c->fov_y, height > 0 ? (float)width / (float)height : 1.0f, c->near_m, c->far_m, p);
    memcpy(view, v, sizeof v);
    memcpy(proj, p, sizeof p);
}

void rb_camera_ray(const rb_camera *c, int width, int height, float x, float y, float origin[3], float dir[3]) {
    float f[3], r[3], u[3];
    rb_camera_basis(c, f, r, u);
    /* The camera's true up is right x forward (u above is world y, for flying). */
    float cu[3];
    glm_vec3_cross(r, f, cu);
    float aspect = height > 0 ? (float)width / (float)height : 1.0f;
    float t = tanf(0.5f * c->fov_y);
    float nx = (2.0f * (x + 0.5f) / (float)width - 1.0f) * t * aspect;
    float ny = (1.0f - 2.0f * (y + 0.5f) / (float)height) * t;
    for (int k = 0; k < 3; k++) dir[k] = f[k] + r[k] * nx + cu[k] * ny;
    glm_vec3_normalize(dir);
    memcpy(origin, c->position, 3 * sizeof(float));
}
