/* options.c - the command lines of rubble and rubble-bench: strict parsing
 * (the usage screens are in usage.c). */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"
#include "render/quality.h"
#include "scenes/formations.h"
#include "scenes/scene.h"

void rb_options_defaults(rb_options *o, rb_program program) {
    *o = (rb_options){
        .formation = 1,
        .bodies = 100,
        .shape = "cube",
        .steps = 1000,
        .backend = program == RB_PROGRAM_BENCH ? RB_BACKEND_OPENCL : RB_BACKEND_AUTO,
        .device = -1,
        .width = 1280,
        .height = 720,
        .vsync = true,
        .warmup = 2.0,
        .time = 1.0,
        .friction = -1.0f,
        .rolling_friction = -1.0f,
        .settle = 5.0,
        .record_rate = 60.0,
        .events_impulse = 1.0f,
        .msaa = -1,
        .shadows = -1,
        .shot_prefix = "shot-",
        .shot_width = 640,
        .shot_height = 360,
    };
}

static bool parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* Which program takes an option. */
enum { RUBBLE = 1, BENCH = 2, BOTH = 3 };

typedef struct option_spec {
    const char *name;
    bool value; /* takes a value */
    int programs;
} option_spec;

static const option_spec specs[] = {
    {"--help", false, BOTH},
    {"-h", false, BOTH},
    {"--json", false, BOTH},
    {"--shape", true, BOTH},
    {"--plugins", true, BOTH},
    {"--meshes", true, BOTH},
    {"--dt", true, BOTH},
    {"--backend", true, BOTH},
    {"--device", true, BOTH},
    {"--no-sleep", false, BOTH},
    {"--headless", false, RUBBLE},
    {"--list-shapes", false, RUBBLE},
    {"--list-devices", false, RUBBLE},
    {"--no-vsync", false, RUBBLE},
    {"--panels", false, RUBBLE},
    {"--formation", true, RUBBLE},
    {"--bodies", true, RUBBLE},
    {"--steps", true, RUBBLE},
    {"--screenshot", true, RUBBLE},
    {"--frames", true, RUBBLE},
    {"--script", true, RUBBLE},
    {"--video", true, RUBBLE},
    {"--width", true, RUBBLE},
    {"--height", true, RUBBLE},
    {"--shaders", true, RUBBLE},
    {"--stats-every", true, RUBBLE},
    {"--blast", true, RUBBLE},
    {"--msaa", true, RUBBLE},
    {"--shadows", true, RUBBLE},
    {"--render-scale", true, RUBBLE},
    {"--frame-stats", false, RUBBLE},
    {"--scene", true, RUBBLE},
    {"--record", true, RUBBLE},
    {"--record-rate", true, RUBBLE},
    {"--replay", true, RUBBLE},
    {"--csv", true, RUBBLE},
    {"--gltf", true, RUBBLE},
    {"--events", true, RUBBLE},
    {"--events-impulse", true, RUBBLE},
    {"--save", true, BOTH},
    {"--save-every", true, RUBBLE},
    {"--shots", true, RUBBLE},
    {"--shot-prefix", true, RUBBLE},
    {"--shot-size", true, RUBBLE},
    {"--quiet", false, BENCH},
    {"--warmup", true, BENCH},
    {"--time", true, BENCH},
    {"--friction", true, BENCH},
    {"--rolling", true, BENCH},
    {"--contact-slots", true, BENCH},
    {"--settle", true, BENCH},
    {"--seed", true, BENCH},
};

#define FAIL(...) (snprintf(err, err_size, __VA_ARGS__), false)

/* rubble-bench's scenes: "pile N", "formationK [N]". Consumes argv[*i] and maybe the count after it. */
static bool parse_scene(rb_options *o, int argc, char **argv, int *i, char *err, int err_size) {
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    long n;
    rb_run_scene s = {.formation = 0, .bodies = 1000};
    size_t len = strlen(a);
    if (len > 5 && strcmp(a + len - 5, ".json") == 0) {
        if (o->scene_count >= RB_MAX_SCENES) return FAIL("at most %d scenes", RB_MAX_SCENES);
        o->scenes[o->scene_count++] = (rb_run_scene){.file = a};
        return true;
    }
    if (strncmp(a, "formation", 9) == 0) {
        if (!parse_long(a + 9, 1, RB_FORMATION_COUNT, &n))
            return FAIL("unknown scene '%s' (formation1 .. formation%d)", a, RB_FORMATION_COUNT);
        s.formation = (int)n;
    } else if (strcmp(a, "repose") == 0) {
        s.repose = true, s.bodies = 5000;
    } else if (strcmp(a, "pile") != 0) {
        return FAIL("unknown scene or option '%s'", a);
    }
    if (v && parse_long(v, 1, RB_SCENE_MAX_BODIES, &n))
        s.bodies = (int)n, (*i)++;
    else if (s.formation == 0 && !s.repose)
        return FAIL("'pile' needs a body count from 1 to %u", RB_SCENE_MAX_BODIES);
    if (o->scene_count >= RB_MAX_SCENES) return FAIL("at most %d scenes", RB_MAX_SCENES);
    o->scenes[o->scene_count++] = s;
    return true;
}

/* --shots T1,T2,...: simulated seconds >= 0, ascending, no two with one
 * file name (the same "%.2f"). The run's length is checked when the scene
 * has given it its step (src/sandbox/shots.c). */
static bool parse_shots(rb_options *o, const char *v, char *err, int err_size) {
    o->shot_count = 0;
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char one[64];
        double t;
        if (len == 0 || len >= sizeof one)
            return FAIL("--shots takes simulated seconds >= 0 split by commas, not '%s'", v);
        memcpy(one, p, len), one[len] = '\0';
        if (!parse_double(one, 0.0, 1e9, &t))
            return FAIL("--shots: '%s' is not a time in simulated seconds >= 0 (in '%s')", one, v);
        if (o->shot_count == RB_MAX_SHOTS) return FAIL("--shots takes at most %d times", RB_MAX_SHOTS);
        if (o->shot_count > 0) {
            char a[64], b[64];
            const double last = o->shots[o->shot_count - 1];
            snprintf(a, sizeof a, "%.2f", last), snprintf(b, sizeof b, "%.2f", t);
            if (!strcmp(a, b))
                return FAIL("--shots: %g and %s both name the shot of %s s (names keep two decimals)", last, one, b);
            if (t < last) return FAIL("--shots: the times go in order; %s comes after %g", one, last);
        }
        o->shots[o->shot_count++] = t;
        if (!comma) return true;
        p = comma + 1;
    }
}

bool rb_options_shot_name(const char *prefix, double t, char *name, size_t size) {
    const int len = snprintf(name, size, "%s%.2f.png", prefix, t);
    return len >= 0 && (size_t)len < size;
}

static bool parse_value(rb_options *o, rb_program program, const char *a, const char *v, char *err, int err_size) {
    long n;
    double x;
    if (!strcmp(a, "--shots")) {
        return parse_shots(o, v, err, err_size);
    } else if (!strcmp(a, "--shot-prefix")) {
        if (!*v) return FAIL("--shot-prefix takes the start of the shots' file names, e.g. out/shot-");
        o->shot_prefix = v;
    } else if (!strcmp(a, "--shot-size")) {
        int w, h;
        char tail;
        if (sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 4096 || h > 4096)
            return FAIL("--shot-size takes WIDTHxHEIGHT in pixels, 16 to 4096 each, e.g. 640x360; not '%s'", v);
        o->shot_width = w, o->shot_height = h;
    } else if (!strcmp(a, "--formation")) {
        if (!parse_long(v, 1, RB_FORMATION_COUNT, &n)) return FAIL("--formation takes 1 to 5, not '%s'", v);
        o->formation = (int)n;
    } else if (!strcmp(a, "--bodies")) {
        if (!parse_long(v, 1, RB_SCENE_MAX_BODIES, &n))
            return FAIL("--bodies takes a count from 1 to %u, not '%s'", RB_SCENE_MAX_BODIES, v);
        o->bodies = (int)n;
    } else if (!strcmp(a, "--steps")) {
        if (!parse_long(v, 0, 1000000000, &n)) return FAIL("--steps takes a count >= 0, not '%s'", v);
        o->steps = n;
    } else if (!strcmp(a, "--frames")) {
        if (!parse_long(v, 1, 100000000, &n)) return FAIL("--frames takes a count >= 1, not '%s'", v);
        o->frames = (int)n;
    } else if (!strcmp(a, "--device")) {
        if (!parse_long(v, 0, 1000, &n)) return FAIL("--device takes a device index (see --list-devices), not '%s'", v);
        o->device = (int)n;
    } else if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
        if (!parse_long(v, 64, 16384, &n)) return FAIL("%s takes pixels from 64 to 16384, not '%s'", a, v);
        *(a[2] == 'w' ? &o->width : &o->height) = (int)n;
    } else if (!strcmp(a, "--dt")) {
        if (!parse_double(v, 1e-7, 1.0, &x)) return FAIL("--dt takes seconds in (0, 1], not '%s'", v);
        o->dt = (float)x;
    } else if (!strcmp(a, "--blast")) {
        float r, j, up;
        char tail;
        if (sscanf(v, "%f,%f,%f%c", &r, &j, &up, &tail) != 3 || !(r > 0.0f && r <= 1000.0f) ||
            !(j > 0.0f && j <= 1e9f) || !(up >= 0.0f && up <= 100.0f))
            return FAIL("--blast takes RADIUS,IMPULSE,UP (m > 0, N s > 0, >= 0), e.g. --blast 4,24000,0.5; not '%s'",
                        v);
        o->blast_radius = r, o->blast_impulse = j, o->blast_up = up;
    } else if (!strcmp(a, "--msaa")) {
        if (!parse_long(v, 0, 4, &n) || !rb_quality_msaa_ok((int)n))
            return FAIL("--msaa takes 0 (off), 2 or 4 samples, not '%s'", v);
        o->msaa = (int)n;
    } else if (!strcmp(a, "--shadows")) {
        if (!parse_long(v, 0, 2048, &n) || !rb_quality_shadow_size_ok((int)n))
            return FAIL("--shadows takes 0 (off), 512, 1024 or 2048 texels, not '%s'", v);
        o->shadows = (int)n;
    } else if (!strcmp(a, "--render-scale")) {
        if (!parse_double(v, RB_RENDER_SCALE_MIN, 1.0, &x))
            return FAIL("--render-scale takes a fraction of the window from 0.5 to 1, not '%s'", v);
        o->render_scale = (float)x;
    } else if (!strcmp(a, "--stats-every")) {
        if (!parse_double(v, 1e-6, 1e6, &x)) return FAIL("--stats-every takes seconds > 0, not '%s'", v);
        o->stats_every = x;
    } else if (!strcmp(a, "--record-rate")) {
        if (!parse_double(v, 1e-3, 1e4, &x)) return FAIL("--record-rate takes frames a second > 0, not '%s'", v);
        o->record_rate = x;
    } else if (!strcmp(a, "--record")) {
        o->record = v;
    } else if (!strcmp(a, "--replay")) {
        o->replay = v;
    } else if (!strcmp(a, "--csv")) {
        o->export_csv = v;
    } else if (!strcmp(a, "--gltf")) {
        o->export_gltf = v;
    } else if (!strcmp(a, "--events")) {
        o->events = v;
    } else if (!strcmp(a, "--events-impulse")) {
        if (!parse_double(v, 0.0, 1e12, &x)) return FAIL("--events-impulse takes an impulse in N s >= 0, not '%s'", v);
        o->events_impulse = (float)x;
    } else if (!strcmp(a, "--save")) {
        o->save = v;
    } else if (!strcmp(a, "--save-every")) {
        if (!parse_double(v, 1e-6, 1e9, &x)) return FAIL("--save-every takes simulated seconds > 0, not '%s'", v);
        o->save_every = x;
    } else if (!strcmp(a, "--warmup")) {
        if (!parse_double(v, 0.0, 1e6, &x)) return FAIL("--warmup takes simulated seconds >= 0, not '%s'", v);
        o->warmup = x;
    } else if (!strcmp(a, "--time")) {
        if (!parse_double(v, 1e-9, 1e6, &x)) return FAIL("--time takes simulated seconds > 0, not '%s'", v);
        o->time = x;
    } else if (!strcmp(a, "--settle")) {
        if (!parse_double(v, 0.0, 1e6, &x)) return FAIL("--settle takes simulated seconds >= 0, not '%s'", v);
        o->settle = x;
    } else if (!strcmp(a, "--seed")) {
        if (!parse_long(v, 1, 4294967296L, &n))
            return FAIL("--seed takes a whole number from 1 to 4294967296, not '%s'", v);
        o->seed = (uint64_t)n;
    } else if (!strcmp(a, "--friction")) {
        if (!parse_double(v, 0.0, 100.0, &x)) return FAIL("--friction takes a coefficient from 0 to 100, not '%s'", v);
        o->friction = (float)x;
    } else if (!strcmp(a, "--contact-slots")) {
        if (strcmp(v, "4") && strcmp(v, "8")) return FAIL("--contact-slots takes 4 or 8, not '%s'", v);
        o->contact_slots = (uint32_t)atoi(v);
    } else if (!strcmp(a, "--rolling")) {
        if (!parse_double(v, 0.0, 1.0, &x)) return FAIL("--rolling takes a coefficient from 0 to 1, not '%s'", v);
        o->rolling_friction = (float)x;
    } else if (!strcmp(a, "--backend")) {
        o->both_backends = false;
        if (!strcmp(v, "reference"))
            o->backend = RB_BACKEND_REFERENCE;
        else if (!strcmp(v, "opencl"))
            o->backend = RB_BACKEND_OPENCL;
        else if (!strcmp(v, "both") && program == RB_PROGRAM_BENCH)
            o->backend = RB_BACKEND_OPENCL, o->both_backends = true;
        else
            return FAIL("--backend takes reference or opencl%s, not '%s'",
                        program == RB_PROGRAM_BENCH ? " or both" : "", v);
    } else if (!strcmp(a, "--shape")) {
        o->shape = v, o->shape_given = true;
    } else if (!strcmp(a, "--scene")) {
        o->scene = v;
    } else if (!strcmp(a, "--screenshot")) {
        o->screenshot = v;
    } else if (!strcmp(a, "--shaders")) {
        o->shader_dir = v;
    } else if (!strcmp(a, "--script")) {
        o->script = v;
    } else if (!strcmp(a, "--video")) {
        o->video = v;
    } else if (!strcmp(a, "--plugins") || !strcmp(a, "--meshes")) {
        bool plugins = !strcmp(a, "--plugins");
        int *count = plugins ? &o->plugin_dir_count : &o->mesh_dir_count;
        if (*count >= RB_MAX_DIRS) return FAIL("at most %d %s folders", RB_MAX_DIRS, a);
        (plugins ? o->plugin_dirs : o->mesh_dirs)[(*count)++] = v;
    }
    return true;
}

bool rb_options_parse(rb_options *o, rb_program program, int argc, char **argv, char *err, int err_size) {
    const int mine = program == RB_PROGRAM_BENCH ? BENCH : RUBBLE;
    const char *not_with_replay = NULL; /* the first option --replay cannot go with */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!not_with_replay &&
            (!strcmp(a, "--headless") || !strcmp(a, "--scene") || !strcmp(a, "--formation") || !strcmp(a, "--record")))
            not_with_replay = a;
        const option_spec *spec = NULL, *glued = NULL;
        const char *eq = strchr(a, '=');
        for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
            if (!strcmp(a, specs[k].name)) spec = &specs[k];
            if (eq && strlen(specs[k].name) == (size_t)(eq - a) && !strncmp(a, specs[k].name, (size_t)(eq - a)))
                glued = &specs[k];
        }
        if (!spec && glued && (glued->programs & mine)) { /* --name=value: say how this parser takes it */
            if (!glued->value) return FAIL("%s takes no value (remove '%s')", glued->name, eq);
            return FAIL("%s takes its value after a space: %s %s", glued->name, glued->name, eq + 1);
        }
        if (!spec || !(spec->programs & mine)) {
            if (program == RB_PROGRAM_BENCH && a[0] != '-') {
                if (!parse_scene(o, argc, argv, &i, err, err_size)) return false;
                continue;
            }
            return FAIL("unknown option '%s'", a);
        }
        if (!spec->value) {
            if (!strcmp(a, "--headless"))
                o->headless = true;
            else if (!strcmp(a, "--json"))
                o->json = true;
            else if (!strcmp(a, "--list-shapes"))
                o->list_shapes = true;
            else if (!strcmp(a, "--list-devices"))
                o->list_devices = true;
            else if (!strcmp(a, "--no-vsync"))
                o->vsync = false;
            else if (!strcmp(a, "--no-sleep"))
                o->no_sleep = true;
            else if (!strcmp(a, "--panels"))
                o->panels = true;
            else if (!strcmp(a, "--quiet"))
                o->quiet = true;
            else if (!strcmp(a, "--frame-stats"))
                o->frame_stats = true;
            else
                o->help = true;
            continue;
        }
        if (i + 1 >= argc) return FAIL("option %s needs a value", a);
        if (!parse_value(o, program, a, argv[++i], err, err_size)) return false;
    }
    if (o->replay && not_with_replay)
        return FAIL("--replay shows a recorded cache in the sandbox window; it cannot go with %s", not_with_replay);
    if (o->screenshot && o->frames == 0) o->frames = 60;
    if ((o->export_csv || o->export_gltf) && !o->headless && !o->help && !o->list_shapes && !o->list_devices)
        return FAIL("--csv and --gltf export a --headless run; in the window, --record a cache and then run "
                    "rubble export CACHE --csv OUT.csv or --gltf OUT.glb");
    if (o->events && !o->headless && !o->help && !o->list_shapes && !o->list_devices)
        return FAIL("--events writes a --headless run's events; the window does not write them");
    /* one file, one output: --events over the cache or an export would leave neither whole */
    const char *others[] = {o->record, o->export_csv, o->export_gltf, o->screenshot, o->video, o->save};
    const char *names[] = {"--record", "--csv", "--gltf", "--screenshot", "--video", "--save"};
    for (size_t k = 0; o->events && k < sizeof others / sizeof *others; k++)
        if (others[k] && rb_path_same(o->events, others[k]))
            return FAIL("--events %s is also %s's file: give each output a file of its own", o->events, names[k]);
    if (o->video && o->headless) return FAIL("--video records the sandbox's frames; --headless draws none");
    if (o->headless && (o->screenshot || o->script || o->frames))
        return FAIL("--screenshot, --script and --frames drive the sandbox's window; --headless has none (--steps N "
                    "runs it, --shots T,... draws it at simulated times)");
    if ((o->save || o->save_every > 0) && program == RB_PROGRAM_RUBBLE && !o->headless && !o->help && !o->list_shapes &&
        !o->list_devices)
        return FAIL("--save and --save-every write a --headless run's state; in the window, Ctrl+S saves the scene");
    if (o->save_every > 0 && !o->save) return FAIL("--save-every needs --save FILE: its files are named after FILE");
    if (o->shot_count && !o->headless && !o->help && !o->list_shapes && !o->list_devices)
        return FAIL("--shots draws a --headless run at simulated times; in the window, F12 saves a screenshot");
    if (program == RB_PROGRAM_BENCH && o->scene_count == 0 && !o->help)
        return FAIL("no scene given (e.g. rubble-bench pile 1000)");
    if (program == RB_PROGRAM_BENCH && o->save) {
        if (o->scene_count != 1 || o->both_backends)
            return FAIL("--save writes one run's state: give one scene and one backend");
        if (o->scenes[0].file && rb_path_same(o->save, o->scenes[0].file))
            return FAIL("--save %s is the scene being timed: give the saved scene a name of its own", o->save);
    }
    return true;
}

bool rb_options_save_name(const char *out, unsigned k, char *name, size_t size) {
    size_t n = strlen(out);
    if (n >= 5 && !strcmp(out + n - 5, ".json")) n -= 5;
    const int len = snprintf(name, size, "%.*s-%04u.json", (int)n, out, k);
    return len >= 0 && (size_t)len < size;
}

/* True if path is one of --save OUT's numbered files (OUT-NNNN.json, digits
 * only between), which --save-every would write over. */
static bool numbered_save(const rb_options *o, const char *path) {
    char first[PATH_MAX + 16];
    if (!o->save_every || !rb_options_save_name(o->save, 0, first, sizeof first)) return false;
    const size_t stem = strlen(first) - strlen("0000.json"), n = strlen(path);
    if (n < stem + strlen("0.json") || strncmp(path, first, stem) || strcmp(path + n - 5, ".json")) return false;
    for (size_t i = stem; i < n - 5; i++)
        if (path[i] < '0' || path[i] > '9') return false;
    return true;
}

/* --save's file (and its numbered ones) is none of the files the run
 * reads or writes besides: a file not asked for is never written over. */
static bool save_apart(const rb_options *o, char *err, int err_size) {
    const char *names[] = {"--scene", "--record", "--csv", "--gltf"};
    const char *paths[] = {o->scene, o->record, o->export_csv, o->export_gltf};
    for (int i = 0; i < 4; i++) {
        if (!paths[i]) continue;
        if (rb_path_same(o->save, paths[i]))
            return FAIL("--save %s is the file %s names: give the saved scene a name of its own", o->save, names[i]);
        if (numbered_save(o, paths[i]))
            return FAIL("--save-every would write over %s %s (it writes %s's numbered files)", names[i], paths[i],
                        o->save);
    }
    return true;
}

/* Each --shots file can be made and is none of the files the run reads or
 * writes besides. */
static bool shots_apart(const rb_options *o, char *err, int err_size) {
    const char *names[] = {"--scene", "--record", "--csv", "--gltf", "--events", "--save"};
    const char *paths[] = {o->scene, o->record, o->export_csv, o->export_gltf, o->events, o->save};
    char shot[PATH_MAX + 64], why[PATH_MAX + 64];
    for (int k = 0; k < o->shot_count; k++) {
        if (!rb_options_shot_name(o->shot_prefix, o->shots[k], shot, sizeof shot))
            return FAIL("--shot-prefix %s: the shots' names are too long", o->shot_prefix);
        if (!rb_path_writable(shot, why, sizeof why)) return FAIL("--shot-prefix %s: %s", o->shot_prefix, why);
        for (int i = 0; i < 6; i++)
            if (paths[i] && rb_path_same(shot, paths[i]))
                return FAIL("--shots would write over %s %s: give the shots a --shot-prefix of their own", names[i],
                            paths[i]);
    }
    return true;
}

/* An output's file name: not empty, not a folder, and not one that starts
 * with '-' (ffmpeg, and a person reading the command line, would take it
 * for an option): ./-1 says it is a file. */
static bool output_name(const char *option, const char *path, char *err, int err_size) {
    if (!path) return true;
    if (!path[0]) return FAIL("%s '': an empty file name (give the file to write)", option);
    if (path[0] == '-')
        return FAIL("%s %s: a file name that starts with '-' (for that file, write ./%s)", option, path, path);
    struct stat st; /* (a screenshot is tried when taken: one that cannot be written fails the run, README) */
    if (strcmp(option, "--screenshot") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return FAIL("%s %s: a folder, not a file", option, path);
    return true;
}

/* What the command line names must be there: each folder, the device, the
 * outputs' names and folders. One message a problem. */
static bool usable(const rb_options *o, char *err, int err_size) {
    char why[PATH_MAX + 64];
    const char *outputs[] = {o->record, o->export_csv, o->export_gltf, o->events, o->save, o->screenshot, o->video};
    const char *names[] = {"--record", "--csv", "--gltf", "--events", "--save", "--screenshot", "--video"};
    for (size_t k = 0; k < sizeof outputs / sizeof *outputs; k++)
        if (!output_name(names[k], outputs[k], err, err_size)) return false;
    const char *inputs[] = {o->scene, o->replay, o->script};
    const char *input_names[] = {"--scene", "--replay", "--script"};
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++)
        if (inputs[k] && !inputs[k][0]) return FAIL("%s '': an empty file name", input_names[k]);
    if (o->shader_dir && !rb_path_is_folder(o->shader_dir, why, sizeof why))
        return FAIL("--shaders %s: %s", o->shader_dir, why);
    for (int i = 0; i < o->plugin_dir_count; i++)
        if (!rb_path_is_folder(o->plugin_dirs[i], why, sizeof why))
            return FAIL("--plugins %s: %s", o->plugin_dirs[i], why);
    for (int i = 0; i < o->mesh_dir_count; i++)
        if (!rb_path_is_folder(o->mesh_dirs[i], why, sizeof why)) return FAIL("--meshes %s: %s", o->mesh_dirs[i], why);
    if (o->screenshot && !rb_path_writable(o->screenshot, why, sizeof why))
        return FAIL("--screenshot %s: %s", o->screenshot, why);
    if (o->record && !rb_path_writable(o->record, why, sizeof why)) return FAIL("--record %s: %s", o->record, why);
    if (o->export_csv && !rb_path_writable(o->export_csv, why, sizeof why))
        return FAIL("--csv %s: %s", o->export_csv, why);
    if (o->export_gltf && !rb_path_writable(o->export_gltf, why, sizeof why))
        return FAIL("--gltf %s: %s", o->export_gltf, why);
    if (o->events && !rb_path_writable(o->events, why, sizeof why)) return FAIL("--events %s: %s", o->events, why);
    if (o->save && !rb_path_writable(o->save, why, sizeof why)) return FAIL("--save %s: %s", o->save, why);
    if (o->save && !save_apart(o, err, err_size)) return false;
    if (o->shot_count && !shots_apart(o, err, err_size)) return false;
    if (o->device >= 0 && o->backend != RB_BACKEND_REFERENCE) {
        FILE *null = fopen("/dev/null", "w");
        const int devices = null ? rb_world_list_devices(null) : 0;
        if (null) fclose(null);
        if (o->device >= devices)
            return FAIL("--device %d: there %s %d OpenCL device%s (see --list-devices)", o->device,
                        devices == 1 ? "is" : "are", devices, devices == 1 ? "" : "s");
    }
    return true;
}

int rb_options_read(rb_options *o, rb_program program, int argc, char **argv) {
    const char *name = program == RB_PROGRAM_BENCH ? "rubble-bench" : "rubble";
    char err[PATH_MAX + 256];
    rb_options_defaults(o, program);
    if (!rb_options_parse(o, program, argc, argv, err, sizeof err)) {
        /* the reason alone, not under the whole usage (69 lines that scrolled it away) */
        fprintf(stderr, "%s: %s\n%s: '%s --help' lists the options\n", name, err, name, name);
        return 2;
    }
    if (o->help) {
        rb_options_usage(program, stdout);
        return 0;
    }
    if (!usable(o, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 2;
    }
    return -1;
}
