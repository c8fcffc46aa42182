/* framing.c - where the camera stands to see a box whole (see framing.h). */
#include "framing.h"

#include <math.h>

void rb_framing_fit(rb_camera *c, const float lo[3], const float hi[3], float aspect, float margin) {
    float f[3], r[3], u[3], centre[3];
    rb_camera_basis(c, f, r, u);
    /* The camera's own up: right x forward (u is world y, for flying). */
    const float cu[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
    if (!(margin >= 0.0f)) margin = 0.0f;
    if (margin > 0.9f) margin = 0.9f;
    if (!(aspect > 0.0f)) aspect = 1.0f;
    const float ty = tanf(0.5f * c->fov_y) * (1.0f - margin), tx = ty * aspect;
    for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]);
    /* With the eye at centre - d f, a corner p (from the centre) is at depth
     * p.f + d; it is inside the view when |p.r| <= tx (p.f + d) and
     * |p.cu| <= ty (p.f + d). The least d that holds for all 8 corners. */
    float d = 1.5f;
    for (int i = 0; i < 8; i++) {
        float p[3], pf = 0.0f, pr = 0.0f, pu = 0.0f;
        for (int k = 0; k < 3; k++) {
            p[k] = ((i >> k) & 1 ? hi[k] : lo[k]) - centre[k];
            pf += p[k] * f[k], pr += p[k] * r[k], pu += p[k] * cu[k];
        }
        const float need_x = fabsf(pr) / tx - pf, need_y = fabsf(pu) / ty - pf, need_near = c->near_m * 2.0f - pf;
        if (need_x > d) d = need_x;
        if (need_y > d) d = need_y;
        if (need_near > d) d = need_near;
    }
    for (int k = 0; k < 3; k++) c->position[k] = centre[k] - f[k] * d;
}

void rb_framing_box(const float lo[3], const float hi[3], float out_lo[3], float out_hi[3]) {
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])) { /* nothing there */
        const float l[3] = {-4.0f, 0.0f, -4.0f}, h[3] = {4.0f, 3.0f, 4.0f};
        for (int k = 0; k < 3; k++) out_lo[k] = l[k], out_hi[k] = h[k];
        return;
    }
    const float min_size[3] = {4.0f, 2.0f, 4.0f};
    float width = 0.0f;
    for (int k = 0; k < 3; k++) {
        float a = lo[k], b = hi[k];
        if (b - a < min_size[k]) { /* grown about its middle (upward only from its floor) */
            const float grow = min_size[k] - (b - a);
            if (k == 1) b += grow;
            else a -= 0.5f * grow, b += 0.5f * grow;
        }
        out_lo[k] = a, out_hi[k] = b;
        if (k != 1 && b - a > width) width = b - a;
    }
    out_hi[1] += 0.25f * (out_hi[1] - out_lo[1]);
    for (int k = 0; k < 3; k += 2) out_lo[k] -= 0.1f * width, out_hi[k] += 0.1f * width;
}
