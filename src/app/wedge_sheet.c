/* wedge_sheet.c - a wedge's contact sheet (wedge_table.h): a tile a
 * variant, its shots side by side, its name, status and values under them,
 * in a grid with a header; text in stb_easy_font's segments, filled on the
 * CPU. The layout is wedge_collect.h's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb_image.h>
#include <stb_image_write.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#include "base/replace.h"
#include "wedge_table.h"

typedef struct image {
    int w, h;
    uint8_t *rgb;
} image;

static const uint8_t BACKGROUND[3] = {28, 30, 34}, TEXT[3] = {232, 232, 232}, DIM[3] = {160, 164, 172},
                     GREY[3] = {128, 128, 128}, GREY_TEXT[3] = {40, 40, 40}, OK[3] = {140, 220, 140},
                     FAILED[3] = {245, 110, 100}, MISSING[3] = {240, 190, 90};

static void fill(image *im, int x, int y, int w, int h, const uint8_t c[3]) {
    const int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y, x1 = x + w > im->w ? im->w : x + w,
              y1 = y + h > im->h ? im->h : y + h;
    for (int j = y0; j < y1; j++)
        for (int i = x0; i < x1; i++) memcpy(im->rgb + ((size_t)j * (size_t)im->w + (size_t)i) * 3, c, 3);
}

/* Pixels a text takes across. */
static int text_width(const char *s) { return stb_easy_font_width((char *)s) * RB_SHEET_TEXT_SCALE; }

/* Text with its top left at (x, y), cut with "..." to at most max_w pixels. */
static void text(image *im, int x, int y, const char *s, const uint8_t c[3], int max_w) {
    char line[256];
    const size_t len = strnlen(s, sizeof line - 1); /* a longer text is cut below anyway */
    memcpy(line, s, len);
    line[len] = '\0';
    for (size_t n = strlen(line); n > 0 && text_width(line) > max_w; n--) /* shortest cut that fits */
        snprintf(line + (n > 3 ? n - 3 : 0), sizeof line - (n > 3 ? n - 3 : 0), "...");
    if (text_width(line) > max_w) return;
    static char quads[256 * 300]; /* stb_easy_font: about 270 bytes a character at worst */
    const int n = stb_easy_font_print(0.0f, 0.0f, line, NULL, quads, (int)sizeof quads);
    for (int q = 0; q < n; q++) {
        float lo[2] = {1e9f, 1e9f}, hi[2] = {-1e9f, -1e9f};
        for (int v = 0; v < 4; v++) { /* a vertex: x, y, z (floats), then 4 colour bytes */
            float p[2];
            memcpy(p, quads + (size_t)(q * 4 + v) * 16, sizeof p);
            for (int k = 0; k < 2; k++) lo[k] = fminf(lo[k], p[k]), hi[k] = fmaxf(hi[k], p[k]);
        }
        const int S = RB_SHEET_TEXT_SCALE;
        fill(im, x + (int)lroundf(lo[0] * S), y + (int)lroundf(lo[1] * S), (int)lroundf((hi[0] - lo[0]) * S),
             (int)lroundf((hi[1] - lo[1]) * S), c);
    }
}

bool rb_wedge_shot_path(const rb_wedge_table *t, const rb_wedge_row *row, double time, char *path, size_t size) {
    const int n = snprintf(path, size, "%s/%s/shot-%.2f.png", t->dir, row->name, time);
    return n >= 0 && (size_t)n < size;
}

/* "key = value" in at most max_w pixels, the value kept whole where it can
 * be: the key cut from the left ("...e.friction = 0.5") before the value is
 * cut at its end (by text()). The keys are whole in the header. */
static void key_value(const char *key, const char *value, int max_w, char *line, size_t size) {
    snprintf(line, size, "%s = %s", key, value);
    for (size_t keep = strlen(key); keep > 4 && text_width(line) > max_w; keep--)
        snprintf(line, size, "...%s = %s", key + strlen(key) - (keep - 1), value);
}

/* A shot's size, if its file is there and a PNG of a size a shot may have. */
static bool shot_size(const char *path, int *w, int *h) {
    struct stat st;
    int comp;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= RB_WEDGE_MAX_SHOT_BYTES &&
           stbi_info(path, w, h, &comp) && *w > 0 && *h > 0 && *w <= RB_WEDGE_MAX_SHOT_SIDE &&
           *h <= RB_WEDGE_MAX_SHOT_SIDE;
}

/* The shot at path scaled to tw x th (each thumbnail pixel the mean of the
 * shot's pixels under it) at (x, y). False, drawing nothing, if it cannot be read. */
static bool draw_shot(image *im, const char *path, int x, int y, int tw, int th) {
    int w, h, comp;
    if (!shot_size(path, &w, &h)) return false;
    uint8_t *src = stbi_load(path, &w, &h, &comp, 3);
    if (!src) return false;
    for (int j = 0; j < th; j++) {
        const int sy0 = (int)((long)j * h / th), sy1 = (int)((long)(j + 1) * h / th);
        for (int i = 0; i < tw; i++) {
            const int sx0 = (int)((long)i * w / tw), sx1 = (int)((long)(i + 1) * w / tw);
            unsigned long sum[3] = {0, 0, 0}, n = 0;
            for (int sy = sy0; sy < (sy1 > sy0 ? sy1 : sy0 + 1); sy++)
                for (int sx = sx0; sx < (sx1 > sx0 ? sx1 : sx0 + 1); sx++, n++)
                    for (int k = 0; k < 3; k++) sum[k] += src[((size_t)sy * (size_t)w + (size_t)sx) * 3 + (size_t)k];
            uint8_t c[3];
            for (int k = 0; k < 3; k++) c[k] = (uint8_t)((sum[k] + n / 2) / n);
            fill(im, x + i, y + j, 1, 1, c);
        }
    }
    stbi_image_free(src);
    return true;
}

/* Where each variant goes: rows and columns of the grid, and each row's cell. */
typedef struct grid {
    bool two; /* a row a value of the first key, a column a value of the second */
    int cols, rows;
    int *cell;      /* per variant: row * cols + col */
    int *row_value; /* two: per grid row, the first variant of its value */
    int *col_value; /* two: per grid column, the first variant of its value */
} grid;

/* The grid: with two keys whose values make one (each pair of values once,
 * at most half the cells empty), a row a value of the first key and a
 * column a value of the second, in the order the variants first give them;
 * else near square, the variants row by row in their order. */
static bool lay_out(const rb_wedge_table *t, grid *g) {
    const int n = t->row_count;
    g->cell = calloc((size_t)(n ? n : 1), sizeof *g->cell);
    g->row_value = calloc((size_t)(n ? n : 1), sizeof *g->row_value);
    g->col_value = calloc((size_t)(n ? n : 1), sizeof *g->col_value);
    if (!g->cell || !g->row_value || !g->col_value) return false;
    g->two = t->key_count == 2 && n > 0;
    g->rows = g->cols = 0;
    int *col_of = calloc((size_t)(n ? n : 1), sizeof *col_of);
    if (!col_of) return false;
    for (int i = 0; g->two && i < n; i++) {
        int r = -1, c = -1;
        for (int k = 0; k < g->rows && r < 0; k++)
            if (!strcmp(t->rows[g->row_value[k]].values[0], t->rows[i].values[0])) r = k;
        for (int k = 0; k < g->cols && c < 0; k++)
            if (!strcmp(t->rows[g->col_value[k]].values[1], t->rows[i].values[1])) c = k;
        if (r < 0) g->row_value[r = g->rows++] = i;
        if (c < 0) g->col_value[c = g->cols++] = i;
        g->cell[i] = r, col_of[i] = c;
        if ((long)g->rows * g->cols > 2L * n) g->two = false;
    }
    bool *taken = g->two ? calloc((size_t)g->rows * (size_t)g->cols, sizeof *taken) : NULL;
    if (g->two && !taken) g->two = false;
    for (int i = 0; g->two && i < n; i++) {
        g->cell[i] = g->cell[i] * g->cols + col_of[i];
        if (taken[g->cell[i]]) g->two = false; /* two variants of one pair of values */
        taken[g->cell[i]] = true;
    }
    free(taken), free(col_of);
    if (g->two) return true;
    g->cols = n > 0 ? (int)ceil(sqrt((double)n)) : 1;
    g->rows = n > 0 ? (n + g->cols - 1) / g->cols : 0;
    for (int i = 0; i < n; i++) g->cell[i] = i;
    return true;
}

static const uint8_t *status_colour(const char *status) {
    return !strcmp(status, "ok") ? OK : !strcmp(status, "failed") ? FAILED : MISSING;
}

bool rb_wedge_sheet_write(const rb_wedge_table *t, const char *path, char *err, size_t err_size) {
    grid g = {0};
    if (!lay_out(t, &g)) {
        free(g.cell), free(g.row_value), free(g.col_value);
        snprintf(err, err_size, "%s: out of memory", path);
        return false;
    }
    /* the thumbnail's size: the first shot there's, at most RB_SHEET_THUMB wide */
    int sw = 16, sh = 9;
    char shot[4096 + 128];
    for (int r = 0, found = 0; r < t->row_count && !found; r++)
        for (int s = 0; s < t->shot_count && !found; s++)
            found = rb_wedge_shot_path(t, &t->rows[r], t->shots[s], shot, sizeof shot) && shot_size(shot, &sw, &sh);
    /* no shots asked for: a band a line high saying so, the tile as wide as a
     * thumbnail, for its name, status and values (16 pixels cut them) */
    if (t->shot_count == 0) sw = RB_SHEET_THUMB, sh = RB_SHEET_LINE;
    const int ns = t->shot_count > 0 ? t->shot_count : 1, head_lines = 2 + (g.two ? 1 : 0) + 1;
    int tw = sw < RB_SHEET_THUMB ? sw : RB_SHEET_THUMB, th, tile_w, tile_h, band_h, W, H;
    for (;; tw = tw * 3 / 4) {
        th = (int)lround((double)tw * sh / sw);
        if (th < 1) th = 1;
        tile_w = ns * tw + (ns - 1) * RB_SHEET_SHOT_GAP;
        tile_h = th + (1 + t->key_count) * RB_SHEET_LINE;
        band_h = (g.two ? RB_SHEET_LINE : 0) + tile_h + RB_SHEET_PAD;
        W = RB_SHEET_PAD + g.cols * (tile_w + RB_SHEET_PAD);
        H = RB_SHEET_PAD + head_lines * RB_SHEET_LINE + g.rows * band_h;
        if ((W <= RB_SHEET_MAX_SIDE && H <= RB_SHEET_MAX_SIDE) || tw <= 16) break;
    }
    if (W > RB_SHEET_MAX_SIDE || H > RB_SHEET_MAX_SIDE) {
        free(g.cell), free(g.row_value), free(g.col_value);
        snprintf(err, err_size, "%s: a sheet of %d variants would be %dx%d pixels; at most %d a side", path,
                 t->row_count, W, H, RB_SHEET_MAX_SIDE);
        return false;
    }
    image im = {W, H, malloc((size_t)W * (size_t)H * 3)};
    if (!im.rgb) {
        free(g.cell), free(g.row_value), free(g.col_value);
        snprintf(err, err_size, "%s: out of memory for %dx%d pixels", path, W, H);
        return false;
    }
    fill(&im, 0, 0, W, H, BACKGROUND);
    const int inner = W - 2 * RB_SHEET_PAD;
    char line[1400];
    int y = RB_SHEET_PAD, counts[3] = {0, 0, 0};
    for (int r = 0; r < t->row_count; r++)
        counts[!strcmp(t->rows[r].status, "ok") ? 0 : !strcmp(t->rows[r].status, "failed") ? 1 : 2]++;
    snprintf(line, sizeof line, "%s: %d variants, %d ok, %d failed, %d missing", t->scene[0] ? t->scene : t->dir,
             t->row_count, counts[0], counts[1], counts[2]);
    text(&im, RB_SHEET_PAD, y + 3, line, TEXT, inner), y += RB_SHEET_LINE;
    int n = 0;
    if (g.two)
        n = snprintf(line, sizeof line, "rows: %s   columns: %s", t->keys[0], t->keys[1]);
    else
        for (int k = 0; k < t->key_count && n < (int)sizeof line; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", k ? ", " : "keys: ", t->keys[k]);
    if (t->key_count == 0) n = snprintf(line, sizeof line, "no keys varied");
    text(&im, RB_SHEET_PAD, y + 3, line, DIM, inner), y += RB_SHEET_LINE;
    for (int c = 0; g.two && c < g.cols; c++) { /* the second key's value over each column */
        key_value(t->keys[1], t->rows[g.col_value[c]].values[1], tile_w, line, sizeof line);
        text(&im, RB_SHEET_PAD + c * (tile_w + RB_SHEET_PAD), y + 3, line, TEXT, tile_w);
    }
    if (g.two) y += RB_SHEET_LINE;
    for (int c = 0; c < g.cols; c++) /* the times over each shot */
        for (int s = 0; s < t->shot_count; s++) {
            snprintf(line, sizeof line, "t = %.2f s", t->shots[s]);
            text(&im, RB_SHEET_PAD + c * (tile_w + RB_SHEET_PAD) + s * (tw + RB_SHEET_SHOT_GAP), y + 3, line, DIM, tw);
        }
    y += RB_SHEET_LINE;
    for (int r = 0; g.two && r < g.rows; r++) { /* the first key's value over each row */
        key_value(t->keys[0], t->rows[g.row_value[r]].values[0], inner, line, sizeof line);
        text(&im, RB_SHEET_PAD, y + r * band_h + 3, line, TEXT, inner);
    }
    for (int i = 0; i < t->row_count; i++) {
        const rb_wedge_row *row = &t->rows[i];
        const int x0 = RB_SHEET_PAD + g.cell[i] % g.cols * (tile_w + RB_SHEET_PAD),
                  y0 = y + g.cell[i] / g.cols * band_h + (g.two ? RB_SHEET_LINE : 0);
        for (int s = 0; s < ns; s++) {
            const int x = x0 + s * (tw + RB_SHEET_SHOT_GAP);
            if (t->shot_count > 0 && rb_wedge_shot_path(t, row, t->shots[s], shot, sizeof shot) &&
                draw_shot(&im, shot, x, y0, tw, th))
                continue;
            fill(&im, x, y0, tw, th, GREY); /* no shot: grey, saying why */
            const char *why = t->shot_count == 0 ? "no shots" : !strcmp(row->status, "failed") ? "failed" : "missing";
            text(&im, x + (tw - text_width(why)) / 2, y0 + th / 2 - 7, why, GREY_TEXT, tw);
        }
        int ly = y0 + th + 3;
        snprintf(line, sizeof line, "%s  %s", row->name, row->status);
        text(&im, x0, ly, line, status_colour(row->status), tile_w), ly += RB_SHEET_LINE;
        for (int k = 0; k < t->key_count; k++, ly += RB_SHEET_LINE) {
            key_value(t->keys[k], row->values[k], tile_w, line, sizeof line);
            text(&im, x0, ly, line, TEXT, tile_w);
        }
    }
    free(g.cell), free(g.row_value), free(g.col_value);
    rb_replace out;
    char why[512] = "";
    FILE *f = rb_replace_open(&out, path, "wb", why, sizeof why);
    bool ok = f && stbi_write_png_to_func(rb_replace_put, &out, W, H, 3, im.rgb, W * 3) != 0;
    free(im.rgb);
    if (f && !ok) snprintf(why, sizeof why, "the PNG cannot be made");
    if (f && rb_replace_close(&out, ok, why, sizeof why)) return true;
    snprintf(err, err_size, "%s: %s", path, why);
    return false;
}
