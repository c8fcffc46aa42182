/* cache_camera.c - the `V` record of a cache (cache_records.h,
 * docs/cache-format.md): the camera a frame was seen through, and the
 * animation's camera made from those records. */
#include "cache_records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rb_cache_camera_from_view(rb_cache_camera *out, const float position[3], float yaw, float pitch, float yfov,
                               float aspect, float znear, float zfar) {
    memset(out, 0, sizeof *out);
    memcpy(out->position, position, sizeof out->position);
    /* a turn by yaw about +y after a turn by pitch about +x: -z goes to
     * (-sin yaw cos pitch, sin pitch, -cos yaw cos pitch), the sandbox's
     * forward (src/sandbox/camera.c, rb_camera_basis) */
    const double cy = cos(0.5 * yaw), sy = sin(0.5 * yaw), cp = cos(0.5 * pitch), sp = sin(0.5 * pitch);
    out->orientation[0] = (float)(cy * sp);
    out->orientation[1] = (float)(sy * cp);
    out->orientation[2] = (float)(-sy * sp);
    out->orientation[3] = (float)(cy * cp);
    out->yfov = yfov, out->aspect = aspect, out->znear = znear, out->zfar = zfar;
}

/* ---- the writer's side ---- */

void rb_camera_track_set(rb_camera_track *t, const rb_cache_camera *camera) {
    t->set = camera != NULL;
    if (camera) t->now = *camera;
}

static void put32(uint8_t **p, uint32_t v) {
    for (int k = 0; k < 4; k++) (*p)[k] = (uint8_t)(v >> (8 * k));
    *p += 4;
}

static void putf(uint8_t **p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    put32(p, v);
}

bool rb_camera_track_record(rb_camera_track *t, uint32_t frame, uint8_t out[RB_CAMERA_RECORD_BYTES]) {
    if (t->sent_any && t->sent_set == t->set && (!t->set || !memcmp(&t->sent, &t->now, sizeof t->now))) return false;
    if (!t->sent_any && !t->set) return false; /* no camera yet: nothing to say */
    t->sent_any = true, t->sent_set = t->set, t->sent = t->now;
    const rb_cache_camera zero = {0}, *c = t->set ? &t->now : &zero;
    uint8_t *p = out;
    put32(&p, frame);
    *p++ = t->set;
    for (int k = 0; k < 3; k++) putf(&p, c->position[k]);
    for (int k = 0; k < 4; k++) putf(&p, c->orientation[k]);
    putf(&p, c->yfov), putf(&p, c->aspect), putf(&p, c->znear), putf(&p, c->zfar);
    return true;
}

/* ---- the reader's side ---- */

static uint32_t get32(const uint8_t **p) {
    const uint8_t *b = *p;
    *p += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float getf(const uint8_t **p) {
    const uint32_t v = get32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

const char *rb_cache_read_camera(rb_cache *c, const uint8_t *p) {
    rb_cached_camera v = {.frame = get32(&p)};
    const uint8_t set = *p++;
    rb_cache_camera *cam = &v.camera;
    for (int k = 0; k < 3; k++) cam->position[k] = getf(&p);
    for (int k = 0; k < 4; k++) cam->orientation[k] = getf(&p);
    cam->yfov = getf(&p), cam->aspect = getf(&p), cam->znear = getf(&p), cam->zfar = getf(&p);
    /* it comes before its frame, in the same chunk, once a frame */
    if (v.frame != c->frame_count || (c->camera_count && c->cameras[c->camera_count - 1].frame == v.frame))
        return "a camera out of order";
    if (set > 1) return "a camera with a bad flag";
    v.set = set == 1;
    if (v.set) {
        double q = 0;
        bool finite = true;
        for (int k = 0; k < 3; k++) finite = finite && isfinite(cam->position[k]);
        for (int k = 0; k < 4; k++)
            finite = finite && isfinite(cam->orientation[k]), q += cam->orientation[k] * cam->orientation[k];
        if (!finite || q < 1e-12) return "a camera with a bad position or orientation";
        if (!(cam->yfov > 0.0f && cam->yfov < 3.14159265f) || !(cam->aspect >= 0.0f && isfinite(cam->aspect)) ||
            !(cam->znear > 0.0f && cam->zfar > cam->znear && isfinite(cam->zfar)))
            return "a camera with a bad lens (field of view, aspect, near or far)";
    }
    if ((c->camera_count & (c->camera_count - 1)) == 0) { /* capacity doubles at powers of two */
        rb_cached_camera *grown =
            realloc(c->cameras, sizeof *grown * (c->camera_count ? 2 * (size_t)c->camera_count : 4));
        if (!grown) return "out of memory";
        c->cameras = grown;
    }
    c->cameras[c->camera_count++] = v;
    return NULL;
}

void rb_cache_free_cameras(rb_cache *c) {
    free(c->cameras);
    c->cameras = NULL, c->camera_count = 0;
}

bool rb_cache_camera_at(const rb_cache *c, uint32_t frame, rb_cache_camera *out) {
    uint32_t lo = 0, hi = c->camera_count; /* the first record after frame */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (c->cameras[mid].frame <= frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || !c->cameras[lo - 1].set) return false;
    *out = c->cameras[lo - 1].camera;
    return true;
}

/* ---- the animation's camera ---- */

bool rb_cache_anim_camera(const rb_cache *c, rb_anim *out) {
    out->camera = NULL;
    uint32_t first = 0;
    while (first < c->camera_count && !c->cameras[first].set) first++;
    if (first == c->camera_count || c->cameras[first].frame >= c->frame_count) return true;
    const rb_cached_camera *lens = &c->cameras[first];
    rb_anim_camera *cam = calloc(1, sizeof *cam);
    const uint32_t count = c->frame_count - lens->frame;
    float *track = cam ? malloc(sizeof *track * 7 * (size_t)count) : NULL;
    if (!track) {
        free(cam);
        return false;
    }
    for (uint32_t f = 0; f < count; f++) {
        rb_cache_camera at;
        float *t = track + 7 * (size_t)f;
        if (rb_cache_camera_at(c, lens->frame + f, &at)) {
            memcpy(t, at.position, sizeof at.position);
            memcpy(t + 3, at.orientation, sizeof at.orientation);
        } else {
            memcpy(t, t - 7, sizeof *t * 7); /* no camera now: where the last one was (f > 0: frame 0 has one) */
        }
    }
    *cam = (rb_anim_camera){.first = lens->frame,
                            .count = count,
                            .track = track,
                            .yfov = lens->camera.yfov,
                            .aspect = lens->camera.aspect,
                            .znear = lens->camera.znear,
                            .zfar = lens->camera.zfar};
    out->camera = cam;
    return true;
}
