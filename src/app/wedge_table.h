/* wedge_table.h - a wedge folder as read by rb_wedge_collect
 * (wedge_collect.c), handed to the contact sheet's drawing (wedge_sheet.c).
 * Private to those two files. */
#ifndef RB_WEDGE_TABLE_H
#define RB_WEDGE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "wedge_collect.h"

typedef struct rb_wedge_row {
    char name[RB_WEDGE_MAX_NAME + 1];
    char **values;        /* per key, as printed ("-" where the variant has none) */
    const cJSON *raw;     /* the variant's "values" object in wedge.json, or NULL */
    const char *status;   /* "ok", "failed" or "missing" */
    char error[512];      /* why, for a row not ok */
    double bodies, breaks, max_speed, wall_s; /* NAN where the summary gives none */
    int nan;              /* the summary's "nan": 1, 0, or -1 when it gives none */
    char digest[33];
} rb_wedge_row;

typedef struct rb_wedge_table {
    const char *dir;
    char scene[1024]; /* wedge.json's "scene" */
    int key_count;
    char **keys;
    int shot_count;
    double shots[RB_WEDGE_MAX_SHOTS];
    int row_count;
    rb_wedge_row *rows;
} rb_wedge_table;

/* Draws the contact sheet of t (wedge_collect.h's layout) and writes it to
 * path as a PNG, whole or not at all. False with the reason in err. */
bool rb_wedge_sheet_write(const rb_wedge_table *t, const char *path, char *err, size_t err_size);

/* The file of a variant's shot at time t: DIR/NAME/shot-T.png. False if it does not fit. */
bool rb_wedge_shot_path(const rb_wedge_table *t, const rb_wedge_row *row, double time, char *path, size_t size);

#endif
