/* capture.c - reading the drawn frame back (see capture.h). */
#include "capture.h"

#include <stb_image_write.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/replace.h"

bool rb_capture_read(rb_renderer *r, int w, int h, uint8_t **rgba) {
    if (w <= 0 || h <= 0) return false;
    uint8_t *img = malloc((size_t)w * (size_t)h * 4);
    if (!img) return false;
    if (!rb_renderer_read_pixels(r, w, h, img)) {
        free(img);
        return false;
    }
    /* GL rows run bottom up; images top down. */
    size_t row = (size_t)w * 4;
    uint8_t *tmp = malloc(row);
    if (tmp) {
        for (int y = 0; y < h / 2; y++) {
            memcpy(tmp, img + (size_t)y * row, row);
            memcpy(img + (size_t)y * row, img + (size_t)(h - 1 - y) * row, row);
            memcpy(img + (size_t)(h - 1 - y) * row, tmp, row);
        }
        free(tmp);
    }
    *rgba = img;
    return true;
}

bool rb_capture_save_png(rb_renderer *r, int w, int h, const char *path) {
    return rb_capture_save_png_named(r, w, h, path, false);
}

bool rb_capture_save_png_named(rb_renderer *r, int w, int h, const char *path, bool keep_existing) {
    uint8_t *img;
    if (!rb_capture_read(r, w, h, &img)) {
        rb_log(RB_LOG_ERROR, "screenshot %s not saved: cannot read the frame", path);
        return false;
    }
    /* Opaque RGB: blending may have left alpha below 1. */
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        img[i * 3] = img[i * 4], img[i * 3 + 1] = img[i * 4 + 1], img[i * 3 + 2] = img[i * 4 + 2];
    /* written whole beside the name and renamed over it (base/replace.h):
     * a full disk leaves the old file as it was */
    rb_replace out;
    char why[512] = "";
    bool ok = rb_replace_open(&out, path, "wb", why, sizeof why) != NULL;
    if (ok) {
        out.keep_existing = keep_existing;
        const bool encoded = stbi_write_png_to_func(rb_replace_put, &out, w, h, 3, img, w * 3) != 0;
        if (!encoded) snprintf(why, sizeof why, "cannot encode the PNG (out of memory)");
        ok = rb_replace_close(&out, encoded, why, sizeof why);
    }
    free(img);
    if (!ok) {
        rb_log(RB_LOG_ERROR, "screenshot %s not saved: %s", path, why);
        return false;
    }
    rb_log(RB_LOG_INFO, "screenshot saved to %s (%dx%d)", path, w, h);
    return true;
}

bool rb_capture_video(rb_renderer *r, int w, int h, rb_video *video) {
    /* GL's bottom-up rows as they are: the video flips them as it copies. */
    uint8_t *img = w > 0 && h > 0 ? malloc((size_t)w * (size_t)h * 4) : NULL;
    const bool read = img && rb_renderer_read_pixels(r, w, h, img);
    const bool ok = rb_video_frame(video, read ? img : NULL, w, h);
    free(img);
    return ok;
}
