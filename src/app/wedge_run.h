/* wedge_run.h - one variant of a prepared wedge run (docs/wedge.md):
 * `rubble wedge --run-one DIR I` runs `rubble --headless` on DIR/NNNN/scene.json
 * as a child process and writes DIR/NNNN/summary.json whole. What it needs
 * comes from DIR/wedge.json alone, so any machine that sees DIR runs it. */
#ifndef RB_WEDGE_RUN_H
#define RB_WEDGE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The longest a child's stdout is read (bytes); the rest is dropped. */
#define RB_WEDGE_MAX_STDOUT (1u << 20)

/* The running program's absolute path (/proc/self/exe). False if unknown. */
bool rb_wedge_self(char *path, size_t size);

/* Writes text to path whole or not at all (base/replace.h). False with
 * "PATH: why" in err. */
bool rb_wedge_write(const char *path, const char *text, char *err, size_t err_size);

/* Reads DIR/wedge.json (the run's settings and variants). NULL with the reason in err. */
cJSON *rb_wedge_read_plan(const char *dir, char *err, size_t err_size);

/* DIR/NNNN/summary.json read (NULL if absent or not JSON). */
cJSON *rb_wedge_read_summary(const char *dir, const char *name);

/* Runs variant i of the wedge prepared in dir with the program exe and
 * writes its summary.json. Returns 0 when the variant ran ok, 1 when it
 * failed (the summary says why), 2 when it could not be run at all (dir
 * or i wrong, the summary could not be written; said on stderr). */
int rb_wedge_run_one(const char *exe, const char *dir, uint32_t i);

#endif
