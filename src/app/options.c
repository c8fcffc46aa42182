/* options.c - the command line: strict parsing, a usage screen. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rb_options_defaults(rb_options *o) {
    *o = (rb_options){
        .formation = 1,
        .bodies = 100,
        .shape = "cube",
        .steps = 1000,
        .backend = RB_BACKEND_AUTO,
        .device = -1,
        .width = 1280,
        .height = 720,
        .vsync = true,
    };
}

void rb_options_usage(FILE *out) {
    fprintf(out, "usage: rubble [options]\n"
                 "A particle-based rigid body sandbox. Without --headless it opens the sandbox window.\n"
                 "\n"
                 "Scene:\n"
                 "  --formation K      starting formation, 1-5 (1: staggered stacks; 2-5: towers 5/10/20/40 high) [1]\n"
                 "  --bodies N         number of bodies [100]\n"
                 "  --shape NAME       shape of the bodies (see --list-shapes) [cube]\n"
                 "  --plugins DIR      also load shape plugins from DIR (repeatable)\n"
                 "  --meshes DIR       also offer the meshes in DIR as shapes (repeatable)\n"
                 "Simulation:\n"
                 "  --backend B        reference | opencl (default: opencl where a device exists)\n"
                 "  --device I         OpenCL device index (see --list-devices)\n"
                 "  --dt S             fixed step in seconds [0.0016: t_c / 5]\n"
                 "Headless runs:\n"
                 "  --headless         no window: simulate --steps steps and print a summary\n"
                 "  --steps N          steps to simulate [1000]\n"
                 "  --json             print one JSON object (with --headless, --list-shapes)\n"
                 "  --list-shapes      list the loaded shapes and exit\n"
                 "  --list-devices     list the OpenCL devices and exit\n"
                 "Sandbox:\n"
                 "  --width W --height H   window size [1280x720]\n"
                 "  --no-vsync         do not wait for the display\n"
                 "  --frames N         run N frames, then exit\n"
                 "  --screenshot FILE  save a PNG of the last frame (with --frames)\n"
                 "  --script FILE      feed timed input events from FILE (see README)\n"
                 "  --shaders DIR      load the GLSL shaders from DIR\n"
                 "  --help             this screen\n");
}

static bool parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_float(const char *s, float lo, float hi, float *out) {
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

#define FAIL(...) (snprintf(err, err_size, __VA_ARGS__), false)

bool rb_options_parse(rb_options *o, int argc, char **argv, char *err, int err_size) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* options without a value */
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
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            o->help = true;
        else {
            static const char *const with_value[] = {"--formation", "--bodies", "--shape",   "--steps",  "--dt",
                                                     "--backend",   "--device", "--plugins", "--meshes", "--screenshot",
                                                     "--frames",    "--script", "--width",   "--height", "--shaders"};
            bool known = false;
            for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) known |= !strcmp(a, with_value[k]);
            if (!known) return FAIL("unknown option '%s'", a);
            if (i + 1 >= argc) return FAIL("option %s needs a value", a);
            const char *v = argv[++i];
            long n;
            if (!strcmp(a, "--formation")) {
                if (!parse_long(v, 1, 5, &n)) return FAIL("--formation takes 1 to 5, not '%s'", v);
                o->formation = (int)n;
            } else if (!strcmp(a, "--bodies")) {
                if (!parse_long(v, 1, 10000000, &n))
                    return FAIL("--bodies takes a count from 1 to 10000000, not '%s'", v);
                o->bodies = (int)n;
            } else if (!strcmp(a, "--steps")) {
                if (!parse_long(v, 0, 1000000000, &n)) return FAIL("--steps takes a count >= 0, not '%s'", v);
                o->steps = n;
            } else if (!strcmp(a, "--frames")) {
                if (!parse_long(v, 1, 100000000, &n)) return FAIL("--frames takes a count >= 1, not '%s'", v);
                o->frames = (int)n;
            } else if (!strcmp(a, "--device")) {
                if (!parse_long(v, 0, 1000, &n))
                    return FAIL("--device takes a device index (see --list-devices), not '%s'", v);
                o->device = (int)n;
            } else if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
                if (!parse_long(v, 64, 16384, &n)) return FAIL("%s takes pixels from 64 to 16384, not '%s'", a, v);
                *(a[2] == 'w' ? &o->width : &o->height) = (int)n;
            } else if (!strcmp(a, "--dt")) {
                if (!parse_float(v, 1e-7f, 1.0f, &o->dt)) return FAIL("--dt takes seconds in (0, 1], not '%s'", v);
            } else if (!strcmp(a, "--backend")) {
                if (!strcmp(v, "reference"))
                    o->backend = RB_BACKEND_REFERENCE;
                else if (!strcmp(v, "opencl"))
                    o->backend = RB_BACKEND_OPENCL;
                else
                    return FAIL("--backend takes reference or opencl, not '%s'", v);
            } else if (!strcmp(a, "--shape")) {
                o->shape = v;
            } else if (!strcmp(a, "--screenshot")) {
                o->screenshot = v;
            } else if (!strcmp(a, "--shaders")) {
                o->shader_dir = v;
            } else if (!strcmp(a, "--script")) {
                o->script = v;
            } else if (!strcmp(a, "--plugins") || !strcmp(a, "--meshes")) {
                bool plugins = !strcmp(a, "--plugins");
                int *count = plugins ? &o->plugin_dir_count : &o->mesh_dir_count;
                if (*count >= RB_MAX_DIRS) return FAIL("at most %d %s folders", RB_MAX_DIRS, a);
                (plugins ? o->plugin_dirs : o->mesh_dirs)[(*count)++] = v;
            }
        }
    }
    if (o->screenshot && o->frames == 0) o->frames = 60;
    return true;
}
