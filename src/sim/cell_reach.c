/* cell_reach.c - how far from a particle the OpenCL force pass looks for
 * partners (kernels/forces.cl, slot_reach) where bodies are lattices and
 * meet others as cells (contact.h, "cells"). */
#include <math.h>

#include "contact.h"
#include "opencl_internal.h"
#include "world_internal.h"

/* The farthest from a cell's centre (half side h) that a sphere of radius
 * rs touches it (rb_cell_touch): the sphere's centre within rs of the
 * cell's region, which runs the seam, (1 + RB_CELL_SEAM) h, along an axis
 * where the body goes on, and h along one where the cell's face is
 * exposed, the sphere's rs then spent across the exposed axes. Off a
 * corner (three exposed) sqrt(3) h + rs; with one, two or three axes in a
 * seam the seam's length counts instead of a share of rs. */
static double touch_reach(double rs, double h) {
    const double e = 1.0 + (double)RB_CELL_SEAM, e2 = e * e;
    double far = sqrt(3.0) * h + rs;
    far = fmax(far, sqrt((e2 + 2.0) * h * h + 2.0 * sqrt(2.0) * h * rs + rs * rs));
    far = fmax(far, sqrt((2.0 * e2 + 1.0) * h * h + 2.0 * h * rs + rs * rs));
    return fmax(far, sqrt(3.0 * e2) * h);
}

float rb_cl_slot_reach(const rb_world_data *d, float max_radius) {
    bool cells = false;
    for (uint32_t b = 0; b < d->body_count && !cells; b++) cells = d->body_contact[b].w > 0.0f;
    if (!cells) return max_radius; /* spheres: r_i + r_j <= r_i + max_radius */
    /* Particle i (radius r) meets a cell of half side h <= max_radius as a
     * sphere, or is the cell (h = r) for a sphere of rs <= max_radius; the
     * reach grows with both, so the largest partner bounds each. */
    const double big = max_radius;
    double reach = big;
    for (uint32_t b = 0; b < d->body_count; b++) {
        const double r = d->body_contact[b].x;
        reach = fmax(reach, fmax(touch_reach(r, big), touch_reach(big, r)) - r);
    }
    return (float)(reach * 1.001); /* a thousandth wider, against the kernel's rounding */
}
