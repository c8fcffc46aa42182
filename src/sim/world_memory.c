/* world_memory.c - what a world of a given size needs, against the memory
 * this machine has available (world.h: rb_world_fits, rb_memory_available,
 * rb_world_bodies_fitting). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world.h"

/* Bytes a body and a particle take, fitted to the peak resident memory
 * (/usr/bin/time -v) of runs of 50,000, 100,000 and 200,000 cubes (27
 * particles, 4 contact slots) and of 50,000 and 100,000 cube2 (8
 * particles) on each backend (README, "Limits"): 277 B a particle and
 * 606 B a body on the reference backend, 280 B and 935 B on OpenCL, whose
 * buffers PoCL keeps in host memory beside the host's own arrays. Measured
 * on the sanitized build (ASan's shadow adds an eighth), so a release build
 * needs a little less. The host part is every backend's (the world's
 * arrays, the scene it was built from, the stage's tables); the device part
 * what OpenCL adds, with the memory its runtime takes before any world
 * (PoCL and its compiler: 340 MB; the reference program: 63 MB). */
#define HOST_BODY_BYTES 610.0
#define HOST_PARTICLE_BYTES(slots) (165.0 + (slots)*28.0)
#define HOST_BASE_BYTES 64e6
#define DEVICE_BODY_BYTES 330.0
#define DEVICE_PARTICLE_BYTES(slots) 4.0
#define DEVICE_BASE_BYTES 290e6
#define MAX_DEVICE_PARTICLES (1ull << 29) /* the OpenCL backend's one grid table */

static void format_bytes(double bytes, char *out, size_t size) {
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 5) bytes /= 1000.0, u++;
    snprintf(out, size, "%.3g %s", bytes, units[u]);
}

/* MemAvailable of /proc/meminfo in bytes; INFINITY where it cannot be read. */
static double meminfo_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return INFINITY;
    char line[256];
    double kb = INFINITY;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(f);
    return isfinite(kb) ? kb * 1024.0 : INFINITY;
}

/* RUBBLE_MEMORY_LIMIT: bytes, or a number with k, M or G (powers of 1000).
 * -1 where unset; -2 where it is not such a number. */
static double env_limit(void) {
    const char *v = getenv("RUBBLE_MEMORY_LIMIT");
    if (!v || !*v) return -1.0;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || !isfinite(x) || x <= 0.0) return -2.0;
    if (*end == 'k' || *end == 'K')
        x *= 1e3, end++;
    else if (*end == 'M')
        x *= 1e6, end++;
    else if (*end == 'G')
        x *= 1e9, end++;
    return *end ? -2.0 : x;
}

double rb_memory_available(char *source, size_t source_size) {
    const double limit = env_limit(), available = meminfo_available();
    if (limit == -2.0) {
        snprintf(source, source_size, "RUBBLE_MEMORY_LIMIT '%s' is not a size (bytes, or a number with k, M or G)",
                 getenv("RUBBLE_MEMORY_LIMIT"));
        return -1.0;
    }
    if (limit > 0.0 && limit < available) {
        snprintf(source, source_size, "RUBBLE_MEMORY_LIMIT");
        return limit;
    }
    snprintf(source, source_size, "%s", isfinite(available) ? "MemAvailable in /proc/meminfo" : "no /proc/meminfo");
    return available;
}

/* Contact slots a particle gets: the description's, else 8 where at least
 * half the particles can be lone spheres (rb_world_contact_slots), else 4. */
static uint32_t slots_for(const rb_world_desc *desc, double bodies, double particles) {
    return desc && desc->contact_slots ? desc->contact_slots : 2.0 * bodies >= particles ? 8u : 4u;
}

/* The estimate's bytes for bodies and particles: host and device parts. */
static void estimate(const rb_world_desc *desc, double bodies, double particles, double *host, double *device) {
    const double slots = slots_for(desc, bodies, particles);
    *host = HOST_BASE_BYTES + bodies * HOST_BODY_BYTES + particles * HOST_PARTICLE_BYTES(slots);
    const bool opencl = !desc || desc->backend != RB_BACKEND_REFERENCE;
    *device = opencl ? DEVICE_BASE_BYTES + bodies * DEVICE_BODY_BYTES + particles * DEVICE_PARTICLE_BYTES(slots) : 0.0;
}

bool rb_world_fits(const rb_world_desc *desc, uint64_t bodies, uint64_t particles, char *err, size_t err_size) {
    char source[256];
    const double memory = rb_memory_available(source, sizeof source);
    if (memory < 0.0) {
        snprintf(err, err_size, "%s", source);
        return false;
    }
    double host_bytes, device_bytes;
    estimate(desc, (double)bodies, (double)particles, &host_bytes, &device_bytes);
    if (host_bytes + device_bytes <= memory) {
        const bool device = !desc || desc->backend != RB_BACKEND_REFERENCE;
        if (particles > UINT32_MAX || (device && particles > MAX_DEVICE_PARTICLES)) {
            snprintf(err, err_size, "%llu particles are more than the %s backend's limit of %llu",
                     (unsigned long long)particles, device ? "OpenCL" : "reference",
                     device ? MAX_DEVICE_PARTICLES : (unsigned long long)UINT32_MAX);
            return false;
        }
        return true;
    }
    char need[32], host[32], dev[32], have[32];
    format_bytes(host_bytes + device_bytes, need, sizeof need);
    format_bytes(host_bytes, host, sizeof host);
    format_bytes(device_bytes, dev, sizeof dev);
    format_bytes(memory, have, sizeof have);
    snprintf(err, err_size,
             "%llu bodies of %llu particles need about %s (host %s, device %s), more than the %s of memory "
             "available (%s)",
             (unsigned long long)bodies, (unsigned long long)particles, need, host, dev, have, source);
    return false;
}

uint64_t rb_world_bodies_fitting(const rb_world_desc *desc, double particles_per_body) {
    char source[256];
    const double memory = rb_memory_available(source, sizeof source);
    if (!(memory > 0.0)) return 0;
    if (!isfinite(memory)) return UINT64_MAX;
    /* half the memory: a world that grows (emitters, breaks) doubles its arrays as it goes */
    double base_host, base_device, host, device;
    estimate(desc, 0.0, 0.0, &base_host, &base_device);
    estimate(desc, 1.0, particles_per_body > 1.0 ? particles_per_body : 1.0, &host, &device);
    const double base = base_host + base_device, per_body = host + device - base;
    const double n = floor((0.5 * memory - base) / per_body);
    return n <= 0.0 ? 0 : n >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)n;
}
