/* transform.h - a body's pose as the simulation hands it to the app and the
 * app hands it to the renderer: one type, 32 bytes, the same bytes all the
 * way from the OpenCL buffer to the OpenGL instance buffer (Harada 29.2.8:
 * a position and a quaternion per body). */
#ifndef RB_TRANSFORM_H
#define RB_TRANSFORM_H

#include <stddef.h>

typedef struct rb_transform {
    float position[3]; /* m, centre of mass */
    /* Drawn size over the shape's own, for the renderer: 0 (as the simulation
     * writes it) is 1. Completes the position's float4, as cl_float4 and the
     * mesh shader's i_position read it. */
    float scale;
    float orientation[4]; /* quaternion x, y, z, w */
} rb_transform;

#ifndef __cplusplus /* C++ spells it static_assert; the C files check it */
_Static_assert(sizeof(rb_transform) == 32 && offsetof(rb_transform, orientation) == 16, "rb_transform is two float4s");
#endif

#endif
