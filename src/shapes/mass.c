/* mass.c - mass properties of a rigid set of equal solid spheres, and the
 * principal axes of its inertia tensor. */
#include <math.h>
#include <string.h>

#include "shapes.h"

/* Each particle is a solid sphere of mass m and radius r: about the centre
 * of mass, I = sum m (|r_i|^2 E - r_i r_i^T) + (2/5) m r^2 E. The sphere
 * term keeps a straight rod's tensor invertible. Doubles: a few hundred
 * particles' sums stay exact to float precision. */
void rb_mass_properties(const float *p, uint32_t n, float radius, float particle_mass, float *mass, float com[3],
                        double inertia[9]) {
    double c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) c[k] += p[3 * i + k];
    for (int k = 0; k < 3; k++) c[k] /= n, com[k] = (float)c[k];
    *mass = particle_mass * (float)n;
    double m = particle_mass, sphere = 0.4 * m * (double)radius * radius;
    memset(inertia, 0, 9 * sizeof *inertia);
    for (uint32_t i = 0; i < n; i++) {
        double r[3] = {p[3 * i] - c[0], p[3 * i + 1] - c[1], p[3 * i + 2] - c[2]};
        double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) inertia[3 * a + b] += m * ((a == b ? r2 : 0.0) - r[a] * r[b]);
    }
    for (int a = 0; a < 3; a++) inertia[4 * a] += sphere * n;
}

/* Cyclic Jacobi rotations until the off-diagonal part vanishes. */
void rb_sym3_eigen(const double a_in[9], double values[3], double rot[9]) {
    double a[9];
    memcpy(a, a_in, sizeof a);
    for (int i = 0; i < 9; i++) rot[i] = (i % 4 == 0) ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
        double scale = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
        if (off <= 1e-30 * scale || off == 0.0) break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                double apq = a[3 * p + q];
                if (apq == 0.0) continue;
                double theta = (a[3 * q + q] - a[3 * p + p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                /* a = J^T a J, rot = rot J, with J the rotation in the (p, q) plane */
                for (int k = 0; k < 3; k++) {
                    double akp = a[3 * k + p], akq = a[3 * k + q];
                    a[3 * k + p] = c * akp - s * akq;
                    a[3 * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = a[3 * p + k], aqk = a[3 * q + k];
                    a[3 * p + k] = c * apk - s * aqk;
                    a[3 * q + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double rkp = rot[3 * k + p], rkq = rot[3 * k + q];
                    rot[3 * k + p] = c * rkp - s * rkq;
                    rot[3 * k + q] = s * rkp + c * rkq;
                }
            }
    }
    for (int i = 0; i < 3; i++) values[i] = a[4 * i];
    /* sort ascending, swapping columns */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (values[j] > values[j + 1]) {
                double t = values[j];
                values[j] = values[j + 1], values[j + 1] = t;
                for (int k = 0; k < 3; k++)
                    t = rot[3 * k + j], rot[3 * k + j] = rot[3 * k + j + 1], rot[3 * k + j + 1] = t;
            }
    /* a proper rotation: flip the last axis if the frame is left-handed */
    double det = rot[0] * (rot[4] * rot[8] - rot[5] * rot[7]) - rot[1] * (rot[3] * rot[8] - rot[5] * rot[6]) +
                 rot[2] * (rot[3] * rot[7] - rot[4] * rot[6]);
    if (det < 0)
        for (int k = 0; k < 3; k++) rot[3 * k + 2] = -rot[3 * k + 2];
}

void rb_shape_half_extents(const rb_shape *s, float half[3]) {
    /* particles are in the principal frame, centre of mass at the origin */
    for (int k = 0; k < 3; k++) half[k] = 0.0f;
    for (uint32_t i = 0; i < s->particle_count; i++)
        for (int k = 0; k < 3; k++) half[k] = fmaxf(half[k], fabsf(s->particles[3 * i + k]));
    for (int k = 0; k < 3; k++) half[k] += s->particle_radius;
}
