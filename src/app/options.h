/* options.h - the command line of rubble. */
#ifndef RB_OPTIONS_H
#define RB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/world.h"

#define RB_MAX_DIRS 16

typedef struct rb_options {
    bool headless;                        /* --headless: no window, print a summary */
    bool json;                            /* --json */
    bool list_shapes;                     /* --list-shapes */
    bool list_devices;                    /* --list-devices */
    bool help;                            /* --help */
    int formation;                        /* --formation K, 1..5 */
    int bodies;                           /* --bodies N */
    const char *shape;                    /* --shape NAME */
    long steps;                           /* --steps N */
    float dt;                             /* --dt S; 0 = the default */
    rb_backend_kind backend;              /* --backend reference|opencl */
    int device;                           /* --device I; -1 = automatic */
    const char *plugin_dirs[RB_MAX_DIRS]; /* --plugins DIR (repeatable) */
    int plugin_dir_count;
    const char *mesh_dirs[RB_MAX_DIRS]; /* --meshes DIR (repeatable) */
    int mesh_dir_count;
    /* The sandbox */
    const char *screenshot; /* --screenshot FILE: save a PNG after --frames frames, exit */
    int frames;             /* --frames N; 0 = run until quit */
    const char *script;     /* --script FILE: timed input events */
    int width, height;      /* --width, --height of the window */
    bool vsync;             /* --no-vsync turns it off */
    const char *shader_dir; /* --shaders DIR: GLSL files (default: found beside the program) */
} rb_options;

void rb_options_defaults(rb_options *o);
/* Parses argv. Returns false with a message in err for unknown options and bad values. */
bool rb_options_parse(rb_options *o, int argc, char **argv, char *err, int err_size);
void rb_options_usage(FILE *out);

#endif
