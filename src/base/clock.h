/* clock.h - one monotonic clock for timings (steps, frames, benchmarks). */
#ifndef RB_CLOCK_H
#define RB_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock: only differences mean anything. */
static inline double rb_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds of CPU time this process has used, every thread's (a software
 * renderer's and the OpenCL runtime's included): where other programs share
 * the cores, a frame's cost shows here when its wall time swings. */
static inline double rb_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
