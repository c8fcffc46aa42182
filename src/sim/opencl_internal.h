/* opencl_internal.h - helpers shared by the OpenCL backend's source files. */
#ifndef RB_OPENCL_INTERNAL_H
#define RB_OPENCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"

/* One device, with the platform it belongs to. */
typedef struct rb_cl_device {
    cl_platform_id platform;
    cl_device_id device;
    char name[256];
    char platform_name[256];
    bool is_gpu;
} rb_cl_device;

/* Every device of every platform, numbered as --device counts them. False
 * with a reason (how to get a platform, when there is none). *out is freed
 * by the caller. */
bool rb_cl_enumerate(rb_cl_device **out, uint32_t *count, char *err, size_t err_size);

/* True if code is CL_SUCCESS. Otherwise "<call> failed: <CL_NAME> (<code>)"
 * goes into err, or to the log when err is NULL. */
bool rb_cl_check(int code, const char *call, char *err, size_t err_size);

#endif
