/* opencl_util.c - OpenCL error names and device enumeration.
 *
 * Devices are numbered across all platforms, platform by platform in the
 * order the ICD loader lists them: that index is what --device takes. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl.h"
#include "opencl_internal.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

const char *rb_opencl_error_name(int code) {
    switch (code) {
#define NAME(c)                                                                                                        \
    case c:                                                                                                            \
        return #c;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_IMAGE_FORMAT_MISMATCH)
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE)
        NAME(CL_LINKER_NOT_AVAILABLE)
        NAME(CL_LINK_PROGRAM_FAILURE)
        NAME(CL_DEVICE_PARTITION_FAILED)
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        NAME(CL_INVALID_IMAGE_SIZE)
        NAME(CL_INVALID_SAMPLER)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_GL_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_MIP_LEVEL)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_INVALID_PROPERTY)
        NAME(CL_INVALID_IMAGE_DESCRIPTOR)
        NAME(CL_INVALID_COMPILER_OPTIONS)
        NAME(CL_INVALID_LINKER_OPTIONS)
        NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
        NAME(CL_PLATFORM_NOT_FOUND_KHR)
#undef NAME
    default:
        return "CL_UNKNOWN_ERROR";
    }
}

bool rb_cl_check(int code, const char *call, char *err, size_t err_size) {
    if (code == CL_SUCCESS) return true;
    char msg[256];
    snprintf(msg, sizeof msg, "%s failed: %s (%d)", call, rb_opencl_error_name(code), code);
    if (err && err_size)
        snprintf(err, err_size, "%s", msg);
    else
        rb_log(RB_LOG_ERROR, "OpenCL: %s", msg);
    return false;
}

/* The hint for a machine with no OpenCL at all. */
static const char no_platform_hint[] =
    "no OpenCL platform found; for the CPU install PoCL (apt-get install pocl-opencl-icd), or a GPU vendor's driver";

bool rb_cl_enumerate(rb_cl_device **out, uint32_t *count, char *err, size_t err_size) {
    *out = NULL;
    *count = 0;
    cl_uint platform_count = 0;
    cl_int e = clGetPlatformIDs(0, NULL, &platform_count);
    if (e == CL_PLATFORM_NOT_FOUND_KHR || (e == CL_SUCCESS && platform_count == 0)) {
        snprintf(err, err_size, "%s (clGetPlatformIDs: %s)", no_platform_hint,
                 rb_opencl_error_name(e == CL_SUCCESS ? CL_PLATFORM_NOT_FOUND_KHR : e));
        return false;
    }
    if (!rb_cl_check(e, "clGetPlatformIDs", err, err_size)) return false;
    cl_platform_id *platforms = calloc(platform_count, sizeof *platforms);
    if (!platforms) return snprintf(err, err_size, "out of memory"), false;
    e = clGetPlatformIDs(platform_count, platforms, NULL);
    if (!rb_cl_check(e, "clGetPlatformIDs", err, err_size)) return free(platforms), false;

    rb_cl_device *list = NULL;
    uint32_t n = 0;
    for (cl_uint p = 0; p < platform_count; p++) {
        cl_uint dev_count = 0;
        e = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &dev_count);
        if (e == CL_DEVICE_NOT_FOUND || dev_count == 0) continue; /* a platform without devices */
        if (!rb_cl_check(e, "clGetDeviceIDs", err, err_size)) goto fail;
        cl_device_id *ids = calloc(dev_count, sizeof *ids);
        rb_cl_device *grown = realloc(list, (n + dev_count) * sizeof *list);
        if (!ids || !grown) {
            free(ids);
            snprintf(err, err_size, "out of memory");
            goto fail;
        }
        list = grown;
        e = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, dev_count, ids, NULL);
        if (!rb_cl_check(e, "clGetDeviceIDs", err, err_size)) {
            free(ids);
            goto fail;
        }
        for (cl_uint k = 0; k < dev_count; k++) {
            rb_cl_device *d = &list[n++];
            memset(d, 0, sizeof *d);
            d->platform = platforms[p];
            d->device = ids[k];
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof d->platform_name, d->platform_name, NULL);
            clGetDeviceInfo(ids[k], CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
            cl_device_type type = 0;
            clGetDeviceInfo(ids[k], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            d->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
        }
        free(ids);
    }
    free(platforms);
    if (n == 0) {
        snprintf(err, err_size, "the OpenCL platforms list no device; %s", no_platform_hint);
        free(list);
        return false;
    }
    *out = list;
    *count = n;
    return true;
fail:
    free(platforms);
    free(list);
    return false;
}

int rb_opencl_list_devices(FILE *out) {
    rb_cl_device *list;
    uint32_t n;
    char err[512];
    if (!rb_cl_enumerate(&list, &n, err, sizeof err)) {
        fprintf(out, "No OpenCL device: %s\n", err);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        cl_device_id d = list[i].device;
        cl_uint units = 0;
        cl_ulong mem = 0;
        char version[128] = "", extensions[8192] = "";
        clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
        clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
        clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_VERSION, sizeof version, version, NULL);
        clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL);
        fprintf(out, "%u: %s [%s] (%s, %u compute units, %.0f MiB, %s, %s)\n", i, list[i].name, list[i].platform_name,
                list[i].is_gpu ? "GPU" : "not a GPU", units, mem / 1048576.0, version,
                strstr(extensions, "cl_khr_gl_sharing") ? "cl_khr_gl_sharing" : "no cl_khr_gl_sharing");
    }
    free(list);
    return (int)n;
}
