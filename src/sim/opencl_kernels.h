/* opencl_kernels.h - the kernel sources, embedded at build time.
 *
 * kernels/embed.cmake generates the definitions from the .cl files in kernels/, in the
 * order the program needs them (helpers first). */
#ifndef RB_OPENCL_KERNELS_H
#define RB_OPENCL_KERNELS_H

typedef struct rb_kernel_source {
    const char *name; /* path under the source tree, e.g. "kernels/forces.cl" */
    const char *text; /* NUL-terminated OpenCL C */
} rb_kernel_source;

extern const rb_kernel_source rb_kernel_sources[];
extern const unsigned rb_kernel_source_count;

#endif
