/* transform.h - a body's pose as the simulation hands it to the app and the
 * app hands it to the renderer: one type, 32 bytes, the same bytes all the
 * way from the OpenCL buffer to the OpenGL instance buffer (Harada 29.2.8:
 * a position and a quaternion per body). */
#ifndef RB_TRANSFORM_H
#define RB_TRANSFORM_H

typedef struct rb_transform {
    float position[3];    /* m, centre of mass */
    float pad;            /* 0; keeps the quaternion 16-byte aligned, as cl_float4 */
    float orientation[4]; /* quaternion x, y, z, w */
} rb_transform;

_Static_assert(sizeof(rb_transform) == 32, "rb_transform is two float4s");

#endif
