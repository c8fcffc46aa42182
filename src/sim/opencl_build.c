/* opencl_build.c - the program of the OpenCL backend (opencl.c): the device
 * picked, the kernel set chosen for it, and the kernels built from the
 * embedded sources in kernels/, with each kernel's work-group size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"
#include "opencl.h"
#include "opencl_backend.h"
#include "opencl_kernels.h"

/* Bodies a work-group of the integration's kernels on a CPU: few, so
 * that a world of a hundred bodies still spreads over the cores. */
#define RB_CPU_BODY_GROUP 32u

/* Builds the program from the embedded sources; each file is announced with
 * #line so compiler messages name it. On failure the whole build log is
 * logged and err gets its start. */
bool rb_ocl_build_program(ocl *o, char *err, size_t err_size) {
    const unsigned files = rb_kernel_source_count;
    const char **texts = calloc(2u * files, sizeof *texts);
    char(*lines)[160] = calloc(files, sizeof *lines);
    if (!texts || !lines) {
        free(texts), free(lines);
        return snprintf(err, err_size, "out of memory"), false;
    }
    for (unsigned f = 0; f < files; f++) {
        snprintf(lines[f], sizeof lines[f], "\n#line 1 \"%s\"\n", rb_kernel_sources[f].name);
        texts[2 * f] = lines[f];
        texts[2 * f + 1] = rb_kernel_sources[f].text;
    }
    cl_int e;
    o->program = clCreateProgramWithSource(o->context, 2u * files, texts, NULL, &e);
    free(texts), free(lines);
    if (!rb_cl_check(e, "clCreateProgramWithSource", err, err_size)) return false;

    /* Exact division and square root where the device offers them, so the
     * contact law gives the reference's bits. The CPU kernel set is built
     * with RB_CPU_KERNELS, which fixes the force pass's order (forces.cl,
     * RB_ORDER); a GPU set that turns to the CPU kernels below, after the
     * build, reads the order from the kernel's argument as before. */
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    char options[768];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DRB_SUM_PARTS=%uu -DRB_MIN_CHUNK=%uu -DRB_MAX_MATERIALS=%uu -DRB_SCAN_GROUP=%uu "
             "-DRB_MAX_CONTACT_SLOTS=%uu -DRB_SLOT_FREE=%#xu -DRB_SLOT_PLANE=%#xu -DRB_MAX_PLANES=%uu "
             "-DRB_TANGENTIAL_SPRING=%.9gf -DRB_ROLLING_SPRING=%.9gf -DRB_JOINT_WORLD=%#xu -DRB_CELL_SEAM=%.9gf "
             "-DRB_CELL_ROUNDING=%.9gf -DRB_INTEGRATE_LANES=%uu%s%s",
             RB_SUM_PARTS, RB_SUM_MIN_CHUNK, (unsigned)RB_MAX_MATERIALS, RB_SCAN_GROUP, RB_MAX_CONTACT_SLOTS,
             RB_SLOT_FREE, RB_SLOT_PLANE, (unsigned)RB_MAX_PLANES, (double)RB_TANGENTIAL_SPRING,
             (double)RB_ROLLING_SPRING, RB_JOINT_WORLD, (double)RB_CELL_SEAM, (double)RB_CELL_ROUNDING,
             RB_INTEGRATE_LANES,
             (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? " -cl-fp32-correctly-rounded-divide-sqrt" : "",
             o->gpu_kernels ? "" : " -DRB_CPU_KERNELS");
    e = clBuildProgram(o->program, 1, &o->device, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t size = 0;
        clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        char *log = malloc(size + 1);
        if (log) {
            log[0] = 0;
            clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
            log[size] = 0;
        }
        rb_log(RB_LOG_ERROR, "OpenCL: building the kernels failed (%s); build log:\n%s", rb_opencl_error_name(e),
               log ? log : "(no memory for the log)");
        snprintf(err, err_size, "clBuildProgram failed: %s (%d); build log: %.300s", rb_opencl_error_name(e), e,
                 log ? log : "");
        free(log);
        return false;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (!rb_ocl_kernel_entry[k]) continue;
        o->kernels[k] = clCreateKernel(o->program, rb_ocl_kernel_entry[k], &e);
        if (e != CL_SUCCESS) {
            snprintf(err, err_size, "clCreateKernel(%s) failed: %s (%d)", rb_ocl_kernel_entry[k],
                     rb_opencl_error_name(e), e);
            return false;
        }
        /* A kernel may allow smaller groups than the device (registers): the
         * per-particle kernels take any size, so halve RB_PARTICLE_GROUP to fit. */
        size_t limit = 0;
        e = clGetKernelWorkGroupInfo(o->kernels[k], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL);
        if (e != CL_SUCCESS) {
            snprintf(err, err_size, "clGetKernelWorkGroupInfo(%s) failed: %s (%d)", rb_ocl_kernel_entry[k],
                     rb_opencl_error_name(e), e);
            return false;
        }
        o->group[k] = RB_PARTICLE_GROUP;
        while (o->group[k] > 1 && o->group[k] > limit) o->group[k] /= 2;
        const bool block_kernel = k == K_BLOCK_SUMS || k == K_BLOCK_OFFSETS || k == K_BLOCKS;
        if (block_kernel && o->gpu_kernels && limit < (k == K_BLOCK_OFFSETS ? o->offsets_group : RB_SCAN_GROUP)) {
            rb_log(RB_LOG_WARN, "OpenCL: %s allows work-groups of %zu on this device: the CPU kernels instead",
                   rb_ocl_kernel_entry[k], limit);
            o->gpu_kernels = false;
        }
        /* the integration's: RB_CPU_BODY_GROUP bodies a work-group, eight a work-item of rb_integrate */
        const size_t bodies = k == K_INTEGRATE ? RB_CPU_BODY_GROUP / RB_INTEGRATE_LANES : RB_CPU_BODY_GROUP;
        const bool body_kernel = k == K_SUM_BODIES || k == K_INTEGRATE;
        if (body_kernel && !o->gpu_kernels && o->group[k] > bodies) o->group[k] = bodies;
        if (k == K_FORCES) o->force_group_most = o->group[k];
    }
    return true;
}

/* The kernel set for the device: the GPU kernels on a GPU, the CPU kernels
 * elsewhere, unless RUBBLE_OPENCL_KERNELS says "cpu", "gpu" or "gpu:N" (the
 * GPU kernels with N work-items, a power of two up to RB_SCAN_GROUP, in the
 * block scan's offsets pass: the tests' way to make that pass loop over
 * several tiles with a small table). */
bool rb_ocl_choose_kernels(ocl *o, bool is_gpu, char *err, size_t err_size) {
    o->gpu_kernels = is_gpu;
    o->offsets_group = RB_SCAN_GROUP;
    const char *v = getenv("RUBBLE_OPENCL_KERNELS");
    if (!v || !*v) return true;
    unsigned group = RB_SCAN_GROUP;
    char tail;
    if (strcmp(v, "cpu") == 0)
        o->gpu_kernels = false;
    else if (strcmp(v, "gpu") == 0 || (sscanf(v, "gpu:%u%c", &group, &tail) == 1 && group >= 1 &&
                                       group <= RB_SCAN_GROUP && (group & (group - 1)) == 0))
        o->gpu_kernels = true, o->offsets_group = group;
    else
        return snprintf(err, err_size,
                        "RUBBLE_OPENCL_KERNELS=%s: expected cpu, gpu or gpu:N (N a power of two up to %u)", v,
                        RB_SCAN_GROUP),
               false;
    return true;
}

/* The device asked for: an index across all platforms, or (index < 0) the
 * first GPU, else the first device. */
bool rb_ocl_pick_device(int index, rb_cl_device *out, char *err, size_t err_size) {
    rb_cl_device *list;
    uint32_t n;
    if (!rb_cl_enumerate(&list, &n, err, err_size)) return false;
    int pick = index;
    if (index < 0) {
        pick = 0;
        for (uint32_t i = 0; i < n; i++)
            if (list[i].is_gpu) {
                pick = (int)i;
                break;
            }
    } else if ((uint32_t)index >= n) {
        snprintf(err, err_size, "no OpenCL device %d: there are %u (see --list-devices)", index, n);
        free(list);
        return false;
    }
    *out = list[pick];
    free(list);
    return true;
}
