/* opencl.h - what the OpenCL backend offers beyond the backend vtable.
 * Private to src/sim (and the tests of the backend).
 *
 * The backend itself is made by rb_opencl_create() (world_internal.h), and
 * programs list the devices with rb_world_list_devices() (world.h). */
#ifndef RB_OPENCL_H
#define RB_OPENCL_H

#include <stdbool.h>
#include <stddef.h>

#include "world_internal.h"

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
const char *rb_opencl_error_name(int code);

/* True if the device offers cl_khr_gl_sharing (a renderer could then share the
 * transform buffer with OpenGL instead of reading it back). */
bool rb_opencl_has_gl_sharing(const rb_backend *backend);

/* Body transforms straight from the device, 32 bytes a body (position xyz +
 * scale 0, quaternion xyzw): the cheap read-back path for a renderer without
 * cl_khr_gl_sharing. Valid after a step; count is the body count. */
bool rb_opencl_read_transforms(rb_backend *backend, rb_transform *out, uint32_t count);

/* True if backend is an OpenCL backend (for the functions above). */
bool rb_backend_is_opencl(const rb_backend *backend);

#endif /* RB_OPENCL_H */
