/* capture.c - reading the drawn frame back (see capture.h). */
#include "capture.h"

#include <stb_image_write.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

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
    uint8_t *img;
    if (!rb_capture_read(r, w, h, &img)) {
        rb_log(RB_LOG_ERROR, "screenshot: cannot read the frame");
        return false;
    }
    /* Opaque RGB: blending may have left alpha below 1. */
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        img[i * 3] = img[i * 4], img[i * 3 + 1] = img[i * 4 + 1], img[i * 3 + 2] = img[i * 4 + 2];
    bool ok = stbi_write_png(path, w, h, 3, img, w * 3) != 0;
    free(img);
    if (!ok) {
        rb_log(RB_LOG_ERROR, "screenshot: cannot write %s", path);
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
