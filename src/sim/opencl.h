/* opencl.h - what the OpenCL backend offers beyond the backend vtable.
 *
 * The backend itself is made by rb_opencl_create() (world_internal.h). */
#ifndef RB_OPENCL_H
#define RB_OPENCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "world_internal.h"

/* Prints every OpenCL device of every platform with the index --device takes.
 * Returns the number of devices (0 with a note on how to get one). */
int rb_opencl_list_devices(FILE *out);

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
const char *rb_opencl_error_name(int code);

/* Kernel times (profiling events) of the last step call of any OpenCL
 * backend in this process, ms summed over its steps, in the order of
 * rb_opencl_kernel_names: finer than rb_world_stage_times(), for the
 * benchmark, which has a world but no backend handle. */
#define RB_OPENCL_KERNEL_COUNT 9
extern const char *const rb_opencl_kernel_names[RB_OPENCL_KERNEL_COUNT];
void rb_opencl_last_kernel_times(double ms[RB_OPENCL_KERNEL_COUNT]);

/* True if the device offers cl_khr_gl_sharing (a renderer could then share the
 * transform buffer with OpenGL instead of reading it back). */
bool rb_opencl_has_gl_sharing(const rb_backend *backend);

/* Body transforms straight from the device, 32 bytes a body (position xyz +
 * pad, quaternion xyzw): the cheap read-back path for a renderer without
 * cl_khr_gl_sharing. Valid after a step; count is the body count. */
bool rb_opencl_read_transforms(rb_backend *backend, float *out, uint32_t count);

/* True if backend is an OpenCL backend (for the functions above). */
bool rb_backend_is_opencl(const rb_backend *backend);

#endif /* RB_OPENCL_H */
