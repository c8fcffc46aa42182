/* wedge_collect.h - a wedge's results gathered: `rubble wedge --collect DIR`
 * reads DIR/wedge.json and each variant's DIR/NAME/summary.json and shots
 * (DIR/NAME/shot-T.png, T as "%.2f"), prints a table, and writes
 * DIR/summary.csv, DIR/summary.json and DIR/sheet.png, the contact sheet
 * (docs/wedge-sheet.md has the folder's layout and the sheet's). */
#ifndef RB_WEDGE_COLLECT_H
#define RB_WEDGE_COLLECT_H

#include <stddef.h>
#include <stdio.h>

/* What a wedge folder may hold; more is refused, naming the file. */
#include "wedge_file.h" /* RB_WEDGE_MAX_VARIANTS, _KEYS, _SHOTS: the wedge file's limits */

#define RB_WEDGE_MAX_NAME 64                        /* a variant's name: letters, digits, '_' and '-' */
#define RB_WEDGE_MAX_JSON (8 * 1024 * 1024)         /* bytes of wedge.json */
#define RB_WEDGE_MAX_SUMMARY (1024 * 1024)          /* bytes of a summary.json */
#define RB_WEDGE_MAX_SHOT_BYTES (64 * 1024 * 1024)  /* bytes of a shot's PNG */
#define RB_WEDGE_MAX_SHOT_SIDE 4096                 /* pixels, a shot's width or height */

/* The contact sheet's layout (pixels). A tile is a variant's shots side by
 * side, each scaled to THUMB wide (never up: a narrower shot keeps its
 * width) and as tall as the first shot found makes it (a 16:9 box when none
 * is), SHOT_GAP apart, with LINE-high lines under them: the variant's name
 * and status, then one a key, "key = value". Tiles are PAD apart and from
 * the edges. Above them: the header's lines (the scene, the keys; with two
 * keys the second key's value over each column; the times over each shot),
 * and with two keys a line over each row naming the first key's value. A
 * sheet that would be over MAX_SIDE on a side gets narrower thumbnails. */
#define RB_SHEET_THUMB 320
#define RB_SHEET_SHOT_GAP 2
#define RB_SHEET_PAD 16
#define RB_SHEET_LINE 20
#define RB_SHEET_TEXT_SCALE 2
#define RB_SHEET_MAX_SIDE 8192

/* Collects the wedge in dir (above): the table to out (NULL: none), the
 * three files written each whole or not at all. A variant whose summary is
 * missing or cannot be read is a row marked "missing" or "failed", not an
 * error. Returns how many variants are not "ok" (0: all ran), or -1 with
 * the reason in err ("DIR/wedge.json: ...") when the folder cannot be
 * collected (nothing is written then) or a file cannot be written. */
int rb_wedge_collect(const char *dir, FILE *out, char *err, size_t err_size);

/* rubble wedge --collect DIR: argv[0] is "wedge". Returns the exit code:
 * 0 collected, 1 not, 2 a bad command line. */
int rb_wedge_collect_main(int argc, char **argv);

#endif
