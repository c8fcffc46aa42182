/* repose.h - the angle of repose of a heap of spheres on a flat base,
 * measured from the spheres' centres alone (rubble-bench repose,
 * src/app/repose.c; checked on cones of known angle by tests/test_cli.c).
 *
 * The heap's surface is sampled in rings about the axis, one particle
 * diameter wide: in each ring the highest centre. The heap's radius is the
 * farthest centre from the axis; a line is fitted by least squares to the
 * rings' heights (each at its ring's middle radius) over the middle of the
 * slope, from 20% to 80% of that radius (the top is rounded by the pour, the
 * toe curves out), and the angle of repose is the line's slope,
 * atan(-dh/dr). The same fit on each quarter of the heap (by azimuth) says
 * how far its sides differ, and the profile (the rings' heights) shows
 * whether the heap is a cone at all. Header only: plain arithmetic, no
 * world. */
#ifndef RB_REPOSE_H
#define RB_REPOSE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define RB_REPOSE_MAX_RINGS 128
#define RB_REPOSE_FROM 0.2 /* the fit's radii, as fractions of the heap's radius */
#define RB_REPOSE_TO 0.8

typedef struct rb_repose_fit {
    double angle_deg;                    /* the angle of repose, degrees */
    double quarter_deg[4];               /* the same fit on each quarter of the heap (NAN where it has too few rings) */
    double apex;                         /* the fitted line's height at the axis, m (of a centre) */
    double rms;                          /* the rings' heights about the line, r.m.s., m */
    double radius;                       /* the heap's radius: its farthest centre from the axis, m */
    double from, to;                     /* the radii fitted, m */
    int fitted;                          /* rings in the fit */
    int rings;                           /* rings out to the heap's radius */
    double profile[RB_REPOSE_MAX_RINGS]; /* each ring's highest centre, m (NAN: an empty ring) */
    uint32_t spheres;                    /* centres measured */
} rb_repose_fit;

/* Least squares h = a + b r over the rings of top (NAN: empty) whose middle
 * radius lies in [from, to]; false with fewer than 3 rings. */
static inline bool rb_repose_line(const double *top, int rings, double ring, double from, double to, double *a,
                                  double *b, double *rms, int *used) {
    double n = 0, sr = 0, sh = 0, srr = 0, srh = 0;
    for (int k = 0; k < rings; k++) {
        const double r = (k + 0.5) * ring;
        if (isnan(top[k]) || r < from || r > to) continue;
        n += 1, sr += r, sh += top[k], srr += r * r, srh += r * top[k];
    }
    const double det = n * srr - sr * sr;
    if (n < 3 || !(det > 0)) return false;
    *b = (n * srh - sr * sh) / det;
    *a = (sh - *b * sr) / n;
    double ss = 0;
    for (int k = 0; k < rings; k++) {
        const double r = (k + 0.5) * ring;
        if (!isnan(top[k]) && r >= from && r <= to) ss += (top[k] - *a - *b * r) * (top[k] - *a - *b * r);
    }
    *rms = sqrt(ss / n);
    *used = (int)n;
    return true;
}

/* Measures the heap of the n centres xyz (y up) about the vertical axis
 * through (axis_x, axis_z), in rings `ring` metres wide (a particle
 * diameter); centres past RB_REPOSE_MAX_RINGS rings are left out. False
 * when the heap is too small to fit (fewer than 3 rings in the middle of
 * its slope). */
static inline bool rb_repose_measure(const float *xyz, uint32_t n, double axis_x, double axis_z, double ring,
                                     rb_repose_fit *fit) {
    double quarter[4][RB_REPOSE_MAX_RINGS];
    *fit = (rb_repose_fit){.angle_deg = NAN, .quarter_deg = {NAN, NAN, NAN, NAN}, .spheres = n};
    for (int k = 0; k < RB_REPOSE_MAX_RINGS; k++) {
        fit->profile[k] = NAN;
        for (int q = 0; q < 4; q++) quarter[q][k] = NAN;
    }
    if (!(ring > 0)) return false;
    for (uint32_t i = 0; i < n; i++) {
        const double dx = xyz[3 * i] - axis_x, dz = xyz[3 * i + 2] - axis_z, y = xyz[3 * i + 1];
        const double r = sqrt(dx * dx + dz * dz);
        if (!(r / ring < RB_REPOSE_MAX_RINGS) || !isfinite(y)) continue;
        const int k = (int)(r / ring), q = (dx >= 0 ? 0 : 1) + (dz >= 0 ? 0 : 2);
        if (r > fit->radius) fit->radius = r;
        if (k + 1 > fit->rings) fit->rings = k + 1;
        if (isnan(fit->profile[k]) || y > fit->profile[k]) fit->profile[k] = y;
        if (isnan(quarter[q][k]) || y > quarter[q][k]) quarter[q][k] = y;
    }
    fit->from = RB_REPOSE_FROM * fit->radius;
    fit->to = RB_REPOSE_TO * fit->radius;
    double a, b, rms;
    int used;
    if (!rb_repose_line(fit->profile, fit->rings, ring, fit->from, fit->to, &a, &b, &rms, &used)) return false;
    fit->angle_deg = atan(-b) * 180.0 / M_PI;
    fit->apex = a;
    fit->rms = rms;
    fit->fitted = used;
    for (int q = 0; q < 4; q++)
        if (rb_repose_line(quarter[q], fit->rings, ring, fit->from, fit->to, &a, &b, &rms, &used))
            fit->quarter_deg[q] = atan(-b) * 180.0 / M_PI;
    return true;
}

#endif
