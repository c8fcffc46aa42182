/* solid_angle.h - the tests' winding numbers: a triangle's solid angle. */
#ifndef RB_TEST_SOLID_ANGLE_H
#define RB_TEST_SOLID_ANGLE_H

#include <math.h>

/* The signed solid angle of triangle (a, b, c) seen from the origin
 * (corners relative to the point; Van Oosterom and Strackee): a closed
 * mesh's triangles' sum over 4 pi is its winding number about the point.
 * NaN at a corner (the point on the surface). */
static inline double rb_test_solid_angle(const double a[3], const double b[3], const double c[3]) {
    const double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]),
                 lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (la * lb * lc == 0.0) return NAN;
    const double det =
        a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    const double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2], bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2],
                 ca = c[0] * a[0] + c[1] * a[1] + c[2] * a[2];
    return 2.0 * atan2(det, la * lb * lc + ab * lc + bc * la + ca * lb);
}

#endif
