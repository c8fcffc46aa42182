/* framing.c - where the camera stands to see a box whole (see framing.h). */
#include "framing.h"

#include <math.h>

void rb_framing_fit(rb_camera *c, const float lo[3], const float hi[3], float aspect, float margin, float top) {
    float f[3], r[3], u[3], centre[3];
    rb_camera_basis(c, f, r, u);
    /* The camera's own up: right x forward (u is world y, for flying). */
    const float cu[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]};
    if (!(margin >= 0.0f)) margin = 0.0f;
    if (margin > 0.9f) margin = 0.9f;
    if (!(top >= 0.0f)) top = 0.0f;
    if (top > 0.5f) top = 0.5f;
    if (!(aspect > 0.0f)) aspect = 1.0f;
    /* The view kept, in tangents of the angle off the axis: across
     * [-tx, tx]; up and down [mid - ty, mid + ty], mid below the axis. */
    const float t = tanf(0.5f * c->fov_y), tx = t * aspect * (1.0f - margin), ty = t * (1.0f - top) * (1.0f - margin);
    const float mid = -t * top;
    for (int k = 0; k < 3; k++) centre[k] = 0.5f * (lo[k] + hi[k]);
    /* The eye at centre - d f - mid d cu: a corner p (from the centre) is
     * at depth z = p.f + d, across p.r, and up p.cu + mid d (the centre at
     * mid), so it is inside when |p.r| <= tx z and |p.cu + mid d - mid z|
     * = |p.cu - mid p.f| <= ty z. The least d that holds for all 8 corners. */
    float d = 1.5f;
    for (int i = 0; i < 8; i++) {
        float p[3], pf = 0.0f, pr = 0.0f, pu = 0.0f;
        for (int k = 0; k < 3; k++) {
            p[k] = ((i >> k) & 1 ? hi[k] : lo[k]) - centre[k];
            pf += p[k] * f[k], pr += p[k] * r[k], pu += p[k] * cu[k];
        }
        const float need_x = fabsf(pr) / tx - pf, need_y = fabsf(pu - mid * pf) / ty - pf;
        const float need_near = c->near_m * 2.0f - pf;
        if (need_x > d) d = need_x;
        if (need_y > d) d = need_y;
        if (need_near > d) d = need_near;
    }
    for (int k = 0; k < 3; k++) c->position[k] = centre[k] - f[k] * d - cu[k] * mid * d;
}

void rb_framing_box(const float lo[3], const float hi[3], float out_lo[3], float out_hi[3]) {
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])) { /* nothing there */
        const float l[3] = {-4.0f, 0.0f, -4.0f}, h[3] = {4.0f, 3.0f, 4.0f};
        for (int k = 0; k < 3; k++) out_lo[k] = l[k], out_hi[k] = h[k];
        return;
    }
    for (int k = 0; k < 3; k++) {
        float a = lo[k], b = hi[k];
        if (b - a < 2.0f) { /* grown to 2 m about its middle (upward only from its floor) */
            const float grow = 2.0f - (b - a);
            if (k == 1) b += grow;
            else a -= 0.5f * grow, b += 0.5f * grow;
        }
        const float room = k == 1 ? 0.0f : 0.05f * (b - a);
        out_lo[k] = a - room, out_hi[k] = b + room;
    }
    out_hi[1] += 0.25f * (out_hi[1] - out_lo[1]);
}
