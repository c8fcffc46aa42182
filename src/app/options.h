/* options.h - the command lines of rubble and rubble-bench: one parser, one
 * struct, strict values, a usage screen per program. */
#ifndef RB_OPTIONS_H
#define RB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"
#include "sim/world.h"

#define RB_MAX_DIRS 16
#define RB_MAX_SCENES 32
#define RB_MAX_SHOTS 64 /* --shots: times a run */

typedef enum rb_program {
    RB_PROGRAM_RUBBLE, /* rubble: the sandbox, or --headless */
    RB_PROGRAM_BENCH,  /* rubble-bench: named scenes timed per backend */
} rb_program;

typedef struct rb_options {
    bool headless;                        /* --headless: no window, print a summary */
    bool json;                            /* --json */
    bool list_shapes;                     /* --list-shapes */
    bool list_devices;                    /* --list-devices */
    bool help;                            /* --help */
    const char *scene;                    /* --scene FILE: a scene file (docs/scene-format.md) */
    int formation;                        /* --formation K, 1..5 */
    int bodies;                           /* --bodies N */
    const char *shape;                    /* --shape NAME */
    bool shape_given;                     /* --shape was on the command line (not the default) */
    long steps;                           /* --steps N */
    float dt;                             /* --dt S; 0 = the default */
    bool no_sleep;                        /* --no-sleep: sleeping off (sleep_time 0), whatever the scene says */
    const char *record;                   /* --record FILE: a cache of the run (docs/cache-format.md) */
    double record_rate;                   /* --record-rate HZ: its frames a second [60] */
    const char *replay;                   /* --replay FILE: the sandbox shows a cache instead of a live world */
    const char *export_csv, *export_gltf; /* --csv FILE, --gltf FILE: a headless run exported as rubble export does */
    const char *events;                   /* --events FILE: a headless run's events (docs/events.md) */
    float events_impulse;                 /* --events-impulse N: impacts listed above it, N s [1] */
    const char *save;                     /* --save FILE: a headless run's end state as a scene file */
    double save_every;                    /* --save-every S: also FILE-0001.json ... every S simulated s; 0 = none */
    /* --shots T1,T2,...: a headless run's pictures at those simulated times
     * (s, ascending, none named twice), each PREFIX + "%.2f" of T + ".png"
     * (src/sandbox/shots.h) */
    double shots[RB_MAX_SHOTS];
    int shot_count;
    const char *shot_prefix;         /* --shot-prefix PREFIX ["shot-"] */
    int shot_width, shot_height;     /* --shot-size WxH [640x360] */
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
    const char *video;      /* --video FILE: the frames drawn as an MP4, through ffmpeg */
    int width, height;      /* --width, --height of the window */
    bool vsync;             /* --no-vsync turns it off */
    bool panels;            /* --panels: the settings panels shown in scripted runs too (off there by default) */
    const char *shader_dir; /* --shaders DIR: GLSL files (default: found beside the program) */
    double stats_every;     /* --stats-every S: a line of figures on stdout every S s of wall time; 0 = none */
    /* --blast R,J,UP: the explode tool's radial field (m, N s, upward bias); 0 0 0 = its defaults */
    float blast_radius, blast_impulse, blast_up;
    /* Drawing quality (render/quality.h): each given one replaces the automatic choice's */
    int msaa;           /* --msaa 0|2|4; -1 = automatic */
    int shadows;        /* --shadows 0|512|1024|2048 (shadow map side); -1 = automatic */
    float render_scale; /* --render-scale S, 0.5..1; 0 = automatic */
    bool frame_stats;   /* --frame-stats: frame, draw and simulation times as JSON on stdout at exit */
    /* rubble-bench */
    rb_run_scene scenes[RB_MAX_SCENES]; /* SCENE...: pile N, formationK [N], repose [N], FILE.json */
    int scene_count;
    bool both_backends;     /* --backend both */
    double warmup, time;    /* --warmup S, --time S: simulated seconds untimed, then timed */
    bool quiet;             /* --quiet: no progress on stderr */
    float friction;         /* --friction MU: the world material's friction, every scene; < 0 = the scene's */
    float rolling_friction; /* --rolling MU_R: the world material's rolling friction, every scene; < 0 = the scene's */
    uint32_t contact_slots; /* --contact-slots N: 4 or 8, every scene; 0 = the scene's */
    double settle;          /* --settle S: the repose scene's simulated seconds after the last sphere */
    uint64_t seed;          /* --seed N: the repose scene's random choices (disc and pour), 0 the default's */
} rb_options;

void rb_options_defaults(rb_options *o, rb_program program);
/* Parses argv for a program. Returns false with a message in err for unknown
 * options (and options of the other program), bad values and, for
 * rubble-bench, a missing scene. */
bool rb_options_parse(rb_options *o, rb_program program, int argc, char **argv, char *err, int err_size);
/* The name of --save OUT's k-th numbered file (--save-every): OUT less a
 * ".json" ending, then "-0001.json" (four digits at least). False if it
 * does not fit in size. */
bool rb_options_save_name(const char *out, unsigned k, char *name, size_t size);
/* The file of --shots' time t: prefix, t as "%.2f", ".png". False if it
 * does not fit in size. */
bool rb_options_shot_name(const char *prefix, double t, char *name, size_t size);
/* The program's usage screen, written to out (usage.c). */
void rb_options_usage(rb_program program, FILE *out);
/* rubble wedge's usage screen (usage.c; the command is in wedge.c). */
void rb_wedge_usage(FILE *out);
/* Defaults, then argv: a bad command line prints what is wrong and that
 * --help lists the options (returns 2), --help prints the usage (returns
 * 0). Returns -1 to go on. */
int rb_options_read(rb_options *o, rb_program program, int argc, char **argv);

#endif
