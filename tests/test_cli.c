/* rubble --headless as a user runs it: the JSON summary, determinism across
 * runs, --list-shapes, and clear refusals of bad command lines. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/repose.h"
#include "rb_test.h"

/* Runs a program with args; returns its exit code, stdout in out, stderr in err. */
static int run_program(const char *program, const char *args, char *out, size_t out_size, char *err, size_t err_size) {
    char cmd[2048], err_path[256];
    snprintf(err_path, sizeof err_path, "%s/tests/cli_stderr.txt", RB_TEST_BUILD_DIR);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", program, args, err_path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, out_size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    FILE *e = fopen(err_path, "r");
    n = e ? fread(err, 1, err_size - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run(const char *args, char *out, size_t out_size, char *err, size_t err_size) {
    return run_program(RB_TEST_RUBBLE, args, out, out_size, err, err_size);
}

static char out[1 << 16], err[1 << 16];

static cJSON *headless_json(const char *extra) {
    char args[512];
    snprintf(args, sizeof args, "--headless --json --backend reference --formation 1 --bodies 20 --steps 300 %s",
             extra);
    int code = run(args, out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("exit %d: %s", code, err);
    int lines = 0;
    for (const char *c = out; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 1); /* one JSON object on one line */
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON: %s", out);
    return j;
}

static void test_json_summary(void **state) {
    cJSON *j = headless_json("");
    static const char *const numbers[] = {"bodies",
                                          "particles",
                                          "steps",
                                          "dt",
                                          "wall_seconds",
                                          "build_seconds",
                                          "steps_per_second",
                                          "particle_steps_per_second",
                                          "max_speed",
                                          "min_y",
                                          "sleeping"};
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++)
        if (!cJSON_IsNumber(cJSON_GetObjectItem(j, numbers[i]))) fail_msg("no number '%s' in %s", numbers[i], out);
    assert_int_equal(cJSON_GetObjectItem(j, "bodies")->valueint, 20);
    assert_int_equal(cJSON_GetObjectItem(j, "particles")->valueint, 20 * 27);
    assert_int_equal(cJSON_GetObjectItem(j, "steps")->valueint, 300);
    const double dt = cJSON_GetObjectItem(j, "dt")->valuedouble, t = 300 * dt;
    assert_near(dt, rb_default_world_desc().dt, 1e-9);
    assert_string_equal(cJSON_GetObjectItem(j, "backend")->valuestring, "reference");
    assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "device")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "nan")));
    const char *digest = cJSON_GetObjectItem(j, "digest")->valuestring;
    assert_int_equal(strlen(digest), 16);
    /* t = 300 steps of free fall from rest for the top bodies: at most g t
     * (semi-implicit Euler gains exactly g dt a step); nothing below the
     * ground by more than a few mm */
    double speed = cJSON_GetObjectItem(j, "max_speed")->valuedouble;
    assert_true(speed > 0.7 * 9.81 * t && speed < 9.81 * t * 1.0001);
    assert_true(cJSON_GetObjectItem(j, "min_y")->valuedouble > -0.01);
    cJSON_Delete(j);
}

static void test_same_run_same_digest(void **state) {
    cJSON *a = headless_json(""), *b = headless_json(""), *c = headless_json("--dt 0.0009");
    assert_string_equal(cJSON_GetObjectItem(a, "digest")->valuestring, cJSON_GetObjectItem(b, "digest")->valuestring);
    assert_string_not_equal(cJSON_GetObjectItem(a, "digest")->valuestring,
                            cJSON_GetObjectItem(c, "digest")->valuestring);
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(c);
}

static void test_list_shapes_json(void **state) {
    assert_int_equal(run("--list-shapes --json", out, sizeof out, err, sizeof err), 0);
    bool cube = false, cube2 = false;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        if (!j) fail_msg("not a JSON line: %s", line);
        const char *name = cJSON_GetObjectItem(j, "name")->valuestring;
        assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "plugin")));
        assert_true(cJSON_GetObjectItem(j, "particles")->valueint > 0);
        assert_true(cJSON_GetObjectItem(j, "mass")->valuedouble > 0);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "principal_moments")), 3);
        if (!strcmp(name, "cube")) {
            cube = true;
            assert_int_equal(cJSON_GetObjectItem(j, "particles")->valueint, 27);
            assert_near(cJSON_GetObjectItem(j, "mass")->valuedouble, 1728.0, 1e-3);
        }
        cube2 |= !strcmp(name, "cube2");
        cJSON_Delete(j);
    }
    assert_true(cube && cube2);
}

/* Each bad command line: a non-zero exit and a message saying what is wrong. */
static int count_of(const char *text, const char *what) {
    int n = 0;
    for (const char *at = text; (at = strstr(at, what)); at += strlen(what)) n++;
    return n;
}

static void test_bad_command_lines(void **state) {
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"--headless --frobnicate", "unknown option '--frobnicate'"},
        {"--headless --bodies lots", "--bodies takes"},
        {"--headless --bodies 0", "--bodies takes"},
        {"--headless --formation 9", "--formation takes 1 to 5"},
        {"--headless --dt nan", "--dt takes"},
        {"--headless --dt -1", "--dt takes"},
        {"--headless --backend gpu", "--backend takes reference or opencl"},
        {"--headless --stats-every 0", "--stats-every takes seconds > 0"},
        {"--headless --stats-every soon", "--stats-every takes seconds > 0"},
        {"--headless --blast 0,24000,0.5", "--blast takes RADIUS,IMPULSE,UP"},
        {"--headless --blast 4", "--blast takes RADIUS,IMPULSE,UP"},
        {"--headless --blast 4,-1,0", "--blast takes RADIUS,IMPULSE,UP"},
        {"--headless --steps", "needs a value"},
        {"--headless --shape nosuchshape --steps 1", "no shape named 'nosuchshape'"},
        {"--headless --dt 0.01 --steps 1", "too large for contact_time"},
        {"--headless --no-sleep=3", "--no-sleep takes no value (remove '=3')"},
        {"--headless --dt=0.001", "--dt takes its value after a space: --dt 0.001"},
        {"--headless --friction 0.3", "unknown option '--friction'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int code = run(cases[i].args, out, sizeof out, err, sizeof err);
        if (code == 0 || !strstr(err, cases[i].says))
            fail_msg("'%s': exit %d, stderr '%s' should say '%s'", cases[i].args, code, err, cases[i].says);
    }
    /* the drawing quality's flags take their values and no others, refused before anything runs (exit 2);
     * --headless: were one taken, the run would end at once rather than open a window */
    static const struct {
        const char *args, *says;
    } quality[] = {
        {"--headless --steps 1 --msaa 3", "--msaa takes 0 (off), 2 or 4 samples, not '3'"},
        {"--headless --steps 1 --msaa 8", "--msaa takes 0 (off), 2 or 4 samples, not '8'"},
        {"--headless --steps 1 --msaa 4x", "--msaa takes 0 (off), 2 or 4 samples, not '4x'"},
        {"--headless --steps 1 --msaa -1", "--msaa takes"},
        {"--headless --steps 1 --shadows 256", "--shadows takes 0 (off), 512, 1024 or 2048 texels, not '256'"},
        {"--headless --steps 1 --shadows 4096", "--shadows takes 0 (off), 512, 1024 or 2048 texels, not '4096'"},
        {"--headless --steps 1 --shadows on", "--shadows takes"},
        {"--headless --steps 1 --render-scale 0.4",
         "--render-scale takes a fraction of the window from 0.5 to 1, not '0.4'"},
        {"--headless --steps 1 --render-scale 1.5",
         "--render-scale takes a fraction of the window from 0.5 to 1, not '1.5'"},
        {"--headless --steps 1 --render-scale nan", "--render-scale takes"},
        {"--headless --steps 1 --render-scale 75%", "--render-scale takes"},
        {"--headless --steps 1 --render-scale", "option --render-scale needs a value"},
        {"--headless --steps 1 --frame-stats=1", "--frame-stats takes no value (remove '=1')"},
        /* the window's own: a headless run has none to drive (it ran and ignored them) */
        {"--headless --steps 1 --frames 2", "--screenshot, --script and --frames drive the sandbox's window"},
        {"--headless --steps 1 --screenshot x.png", "--screenshot, --script and --frames drive the sandbox's window"},
        {"--headless --steps 1 --script s.txt", "--screenshot, --script and --frames drive the sandbox's window"},
    };
    for (size_t i = 0; i < sizeof quality / sizeof *quality; i++) {
        int code = run(quality[i].args, out, sizeof out, err, sizeof err);
        if (code != 2 || !strstr(err, quality[i].says))
            fail_msg("'%s': exit %d, stderr '%s' should say '%s' and exit 2", quality[i].args, code, err,
                     quality[i].says);
    }
    /* an unknown option: the reason and where the options are, not the
     * whole usage over it (69 lines, which scrolled the reason away) */
    assert_int_equal(run("--frobnicate", out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "unknown option"));
    assert_non_null(strstr(err, "'rubble --help' lists the options"));
    assert_null(strstr(err, "usage: rubble"));
    assert_true(count_of(err, "\n") <= 3);
    assert_int_equal(run("--help", out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "--headless"));
    for (const char *const *o = (const char *const[]){"--msaa", "--shadows", "--render-scale", "--frame-stats", NULL};
         *o; o++)
        if (!strstr(out, *o)) fail_msg("--help does not list %s", *o);
}

/* A folder, device, script or screenshot the user named that cannot be used:
 * exit 2 with one message, before anything runs (both programs). */
static void test_unusable_names_exit_2(void **state) {
    char nul_script[512], proc_script[512], args[1024];
    snprintf(nul_script, sizeof nul_script, "%s/tests/cli-nul.script", RB_TEST_BUILD_DIR);
    FILE *f = fopen(nul_script, "wb");
    assert_non_null(f);
    fwrite("0.0 key Tab\n\0"
           "0.1 quit\n",
           1, 21, f);
    fclose(f);
    snprintf(proc_script, sizeof proc_script, "%s/tests/cli-proc.script", RB_TEST_BUILD_DIR);
    f = fopen(proc_script, "w");
    assert_non_null(f);
    fputs("0.1 screenshot /proc/x.png\n0.2 quit\n", f);
    fclose(f);
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"--headless --steps 1 --device 99", "--device 99: there "},
        {"--headless --steps 1 --plugins /nonexistent", "--plugins /nonexistent: No such file or directory"},
        {"--headless --steps 1 --meshes /nonexistent", "--meshes /nonexistent: No such file or directory"},
        {"--headless --steps 1 --meshes /etc/hostname", "--meshes /etc/hostname: not a folder"},
        {"--screenshot /proc/x.png --frames 1", "--screenshot /proc/x.png: cannot write in /proc"},
        {"--screenshot /no/such/folder/x.png --frames 1",
         "--screenshot /no/such/folder/x.png: no folder /no/such/folder"},
        {"--frames 30 --script %s", "cli-nul.script:2: holds a NUL byte"},
        {"--frames 30 --script %s", "cli-proc.script:1: screenshot /proc/x.png: cannot write in /proc"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, cases[i].args, i == 6 ? nul_script : proc_script);
        int code = run(args, out, sizeof out, err, sizeof err);
        if (code != 2 || count_of(err, cases[i].says) != 1)
            fail_msg("'%s': exit %d, stderr '%s' should say '%s' once", args, code, err, cases[i].says);
    }
    int code = run_program(RB_TEST_BENCH, "pile 10 --device 99", out, sizeof out, err, sizeof err);
    if (code != 2 || count_of(err, "--device 99: there ") != 1)
        fail_msg("rubble-bench --device 99: exit %d, %s", code, err);
    remove(nul_script), remove(proc_script);
}

/* --record then `rubble export`, as a user runs them: 0.5 s at 20 Hz is 11
 * frames, a CSV row a body a frame; a bad cache, a bad output or a bad
 * command line exits 2 naming the problem and leaves no output. */
static char *slurp_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("%s was not written", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc(*n + 1);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

static void assert_same_file(const char *a, const char *b) {
    size_t na, nb;
    char *pa = slurp_file(a, &na), *pb = slurp_file(b, &nb);
    if (na != nb || memcmp(pa, pb, na)) fail_msg("%s (%zu bytes) and %s (%zu bytes) differ", a, na, b, nb);
    free(pa);
    free(pb);
}

/* --csv and --gltf straight from a headless run give the files that
 * `rubble export` makes of the same run's cache, byte for byte, and leave no
 * temporary cache; they are refused without --headless and for a folder
 * that is not there, before anything runs. */
static void export_straight(const char *cache) {
    char args[2048], csv[512], glb[512], csv2[512], glb2[512], tmp[512];
    snprintf(csv, sizeof csv, "%s/tests/cli-straight.csv", RB_TEST_BUILD_DIR);
    snprintf(glb, sizeof glb, "%s/tests/cli-straight.glb", RB_TEST_BUILD_DIR);
    snprintf(csv2, sizeof csv2, "%s/tests/cli-exported.csv", RB_TEST_BUILD_DIR);
    snprintf(glb2, sizeof glb2, "%s/tests/cli-exported.glb", RB_TEST_BUILD_DIR);
    snprintf(tmp, sizeof tmp, "%s/tests/cli-tmp", RB_TEST_BUILD_DIR);
    mkdir(tmp, 0755);
    snprintf(args, sizeof args, "export %s --csv %s --gltf %s", cache, csv2, glb2);
    if (run(args, out, sizeof out, err, sizeof err) != 0) fail_msg("%s: %s", args, err);
    snprintf(args, sizeof args, "--headless --bodies 10 --steps 313 --record-rate 20 --csv %s --gltf %s", csv, glb);
    setenv("TMPDIR", tmp, 1); /* where the temporary cache goes */
    const int code = run(args, out, sizeof out, err, sizeof err);
    unsetenv("TMPDIR");
    if (code != 0) fail_msg("%s: exit %d: %s", args, code, err);
    assert_same_file(csv, csv2);
    assert_same_file(glb, glb2);
    assert_int_equal(rmdir(tmp), 0); /* empty: the temporary cache is gone */
    remove(csv), remove(glb), remove(csv2), remove(glb2);
    snprintf(args, sizeof args, "--frames 1 --csv %s", csv);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--csv and --gltf export a --headless run"));
    snprintf(args, sizeof args, "--headless --steps 10 --gltf %s/no-such-folder/x.glb", RB_TEST_BUILD_DIR);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "no-such-folder"));
    assert_null(strstr(out, "steps/s")); /* refused before the run */
    assert_int_not_equal(access(csv, F_OK), 0);
}

static void test_record_and_export(void **state) {
    char cache[512], csv[512], args[2048];
    snprintf(cache, sizeof cache, "%s/tests/cli-record.rbc", RB_TEST_BUILD_DIR);
    snprintf(csv, sizeof csv, "%s/tests/cli-record.csv", RB_TEST_BUILD_DIR);
    remove(csv);
    snprintf(args, sizeof args, "--headless --bodies 10 --steps 313 --record %s --record-rate 20", cache);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 0);
    snprintf(args, sizeof args, "export %s --csv %s", cache, csv);
    if (run(args, out, sizeof out, err, sizeof err) != 0) fail_msg("%s: %s", args, err);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f)) rows++;
    fclose(f);
    assert_int_equal(rows, 1 + 11 * 10);
    /* frame 10 falls on the first step at or after 0.5 s: step 313, 0.5008 s */
    assert_non_null(strstr(line, "10,0.5008,"));
    remove(csv);
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"export /nonexistent.rbc --csv %s", "/nonexistent.rbc: No such file or directory"},
        {"export /etc/hostname --csv %s", "/etc/hostname: not a Rubble cache"},
        {"export %s", "nothing to write"},
        {"export --csv %s", "no cache given"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, cases[i].args, i == 2 ? cache : csv);
        int code = run(args, out, sizeof out, err, sizeof err);
        if (code != 2 || !strstr(err, cases[i].says))
            fail_msg("'%s': exit %d, stderr '%s' should say '%s'", args, code, err, cases[i].says);
        assert_int_not_equal(access(csv, F_OK), 0);
    }
    snprintf(args, sizeof args, "export %s --csv /proc/cli-record.csv", cache);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "/proc/cli-record.csv: "));
    assert_int_not_equal(access("/proc/cli-record.csv", F_OK), 0);
    export_straight(cache);
    remove(cache);
}

/* A screenshot whose path is a folder is refused before the run, exit 2,
 * said once (only a regular file is written over: src/base/replace.h; a
 * screenshot that fails once the run is under way exits 1:
 * tests/test_no_destroy.c). */
static void test_screenshot_folder_exits_2_once(void **state) {
    char args[1024], folder[512];
    snprintf(folder, sizeof folder, "%s/tests", RB_TEST_BUILD_DIR);
    snprintf(args, sizeof args, "--frames 2 --width 64 --height 64 --screenshot '%s'", folder);
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    int code = run(args, out, sizeof out, err, sizeof err);
    unsetenv("SDL_VIDEODRIVER");
    if (strstr(err, "no sandbox window")) return; /* a build without the sandbox (RB_BUILD_APP=OFF) */
    if (code != 2 || count_of(err, "is not a regular file (a folder)") != 1)
        fail_msg("exit %d, stderr '%s' should say 'is not a regular file (a folder)' once", code, err);
}

/* A folder of broken plugins is reported and the run goes on with the good shapes. */
static void test_bad_plugin_folder_goes_on(void **state) {
    char args[512];
    snprintf(args, sizeof args, "--headless --json --backend reference --bodies 3 --steps 10 --plugins '%s'",
             RB_BAD_PLUGIN_DIR);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(err, "no entry point"));
    assert_non_null(strstr(err, "incompatible ABI"));
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "bodies")->valueint, 3);
    cJSON_Delete(j);
}

/* rubble --headless and rubble-bench run scenes through one runner: the same
 * scene for the same steps ends in the same state, on either program. */
static void test_bench_and_headless_agree(void **state) {
    /* 0.16 s of 1.6 ms steps: 100 steps */
    assert_int_equal(run("--headless --json --backend reference --formation 2 --bodies 12 --steps 100", out, sizeof out,
                         err, sizeof err),
                     0);
    cJSON *h = cJSON_Parse(out);
    assert_non_null(h);
    int code = run_program(RB_TEST_BENCH, "formation2 12 --backend reference --warmup 0 --time 0.16 --json --quiet",
                           out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench exit %d: %s", code, err);
    cJSON *b = cJSON_Parse(out);
    if (!b) fail_msg("rubble-bench printed no JSON: %s", out);
    assert_int_equal(cJSON_GetObjectItem(b, "steps")->valueint, 100);
    assert_int_equal(cJSON_GetObjectItem(b, "bodies")->valueint, 12);
    assert_string_equal(cJSON_GetObjectItem(b, "scene")->valuestring, "formation2 12");
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(b, "stage_ms_per_step")));
    assert_string_equal(cJSON_GetObjectItem(b, "digest")->valuestring, cJSON_GetObjectItem(h, "digest")->valuestring);
    cJSON_Delete(h), cJSON_Delete(b);
    /* the bench's own command line: refused with the reason, exit 2 */
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"", "no scene given"},
        {"pile", "'pile' needs a body count"},
        {"formation9", "unknown scene 'formation9'"},
        {"pile 10 --steps 5", "unknown option '--steps'"},
        {"pile 10 --backend gpu", "--backend takes reference or opencl or both"},
        {"pile 10 --time 0", "--time takes"},
        {"pile 10 --shape nosuchshape", "no shape 'nosuchshape'"},
        {"pile 10 --no-sleep=3", "--no-sleep takes no value (remove '=3')"},
        {"pile 10 --friction -1", "--friction takes a coefficient from 0 to 100, not '-1'"},
        {"pile 10 --friction=0.3", "--friction takes its value after a space: --friction 0.3"},
        {"repose 300 --settle soon", "--settle takes simulated seconds >= 0, not 'soon'"},
        {"repose 300 --seed 0", "--seed takes a whole number from 1 to 4294967296, not '0'"},
        {"repose 300 --seed -3", "--seed takes a whole number from 1 to 4294967296, not '-3'"},
        {"repose 0", "unknown scene or option '0'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        code = run_program(RB_TEST_BENCH, cases[i].args, out, sizeof out, err, sizeof err);
        if (code != 2 || !strstr(err, cases[i].says))
            fail_msg("rubble-bench '%s': exit %d, stderr '%s' should say '%s'", cases[i].args, code, err,
                     cases[i].says);
    }
    assert_int_equal(run_program(RB_TEST_BENCH, "--help", out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "usage: rubble-bench"));
}

/* wall_seconds times the stepping alone: with PoCL's kernel cache empty, the
 * program's build and the kernels' first compilation (seconds) are
 * build_seconds; the 20 steps after them take a fraction of that. The warm-up
 * step is undone bit for bit: rubble-bench, which has none, ends with the
 * same digest. */
static void test_wall_seconds_exclude_build(void **state) {
    char cache[512], cmd[1100];
    snprintf(cache, sizeof cache, "%s/tests/cold-pocl-cache", RB_TEST_BUILD_DIR);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache, cache);
    assert_int_equal(system(cmd), 0);
    const char *old = getenv("POCL_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("POCL_CACHE_DIR", cache, 1);
    int code = run("--headless --json --backend opencl --formation 2 --bodies 12 --steps 100", out, sizeof out, err,
                   sizeof err);
    if (saved)
        setenv("POCL_CACHE_DIR", saved, 1), free(saved);
    else
        unsetenv("POCL_CACHE_DIR"); /* the later tests keep the warm cache */
    if (code != 0) fail_msg("exit %d: %s", code, err);
    cJSON *h = cJSON_Parse(out);
    assert_non_null(h);
    const double wall = cJSON_GetObjectItem(h, "wall_seconds")->valuedouble,
                 build = cJSON_GetObjectItem(h, "build_seconds")->valuedouble;
    printf("cold cache: build %.3f s, 100 steps %.3f s\n", build, wall);
    assert_true(build > 0.3 && wall < 0.25 * build);
    code = run_program(RB_TEST_BENCH, "formation2 12 --backend opencl --warmup 0 --time 0.16 --json --quiet", out,
                       sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench exit %d: %s", code, err);
    cJSON *b = cJSON_Parse(out);
    assert_non_null(b);
    assert_int_equal(cJSON_GetObjectItem(b, "steps")->valueint, 100);
    assert_string_equal(cJSON_GetObjectItem(b, "digest")->valuestring, cJSON_GetObjectItem(h, "digest")->valuestring);
    cJSON_Delete(h), cJSON_Delete(b);
}

/* rubble-bench --save on a full disk (a file size limit: past it a write
 * fails with EFBIG, as with ENOSPC) says why, once, and exits 1: the
 * stepping did not fail and is not said to have. */
static void test_bench_save_full_disk(void **state) {
    (void)state;
    char saved[512], err_path[512], cmd[2048];
    snprintf(saved, sizeof saved, "%s/tests/cli-full-save.json", RB_TEST_BUILD_DIR);
    snprintf(err_path, sizeof err_path, "%s/tests/cli-full-save.txt", RB_TEST_BUILD_DIR);
    remove(saved);
    snprintf(cmd, sizeof cmd,
             "sh -c \"trap '' XFSZ; ulimit -f 2; exec '%s' pile 20 --backend reference --warmup 0 --time 0.0016 "
             "--quiet --save '%s'\" >/dev/null 2>'%s'",
             RB_TEST_BENCH, saved, err_path);
    const int status = system(cmd);
    FILE *e = fopen(err_path, "r");
    assert_non_null(e);
    const size_t n = fread(err, 1, sizeof err - 1, e);
    err[n] = '\0';
    fclose(e);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) fail_msg("exit %d: %s", status, err);
    const char *said = strstr(err, "rubble-bench: --save ");
    if (!said || !strstr(said, "File too large") || strstr(said + 1, "rubble-bench: --save"))
        fail_msg("should say why, once: %s", err);
    if (strstr(err, "stepping failed")) fail_msg("the stepping did not fail: %s", err);
    struct stat st;
    assert_int_not_equal(stat(saved, &st), 0); /* nothing half written */
    remove(err_path);
}

/* --scene: a shipped scene runs headless and in the bench; a broken one is
 * refused with the file, the key and the problem, exit 2. */
static void test_scene_files(void **state) {
    char args[1024], path[512];
    snprintf(path, sizeof path, "%s/assets/scenes/tower_on_platform.json", RB_TEST_SOURCE_DIR);
    snprintf(args, sizeof args, "--headless --json --backend reference --steps 50 --scene '%s'", path);
    int code = run(args, out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("exit %d: %s", code, err);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "bodies")->valueint, 35); /* 25 static cubes and a tower of 10 */
    assert_string_equal(cJSON_GetObjectItem(j, "scene")->valuestring, path);
    assert_string_equal(cJSON_GetObjectItem(j, "shape")->valuestring, "cube");
    cJSON_Delete(j);

    snprintf(args, sizeof args, "'%s' --backend reference --warmup 0 --time 0.08 --json --quiet", path);
    code = run_program(RB_TEST_BENCH, args, out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench exit %d: %s", code, err);
    j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "bodies")->valueint, 35);
    cJSON_Delete(j);

    char bad[512];
    snprintf(bad, sizeof bad, "%s/tests/cli-bad-scene.json", RB_TEST_BUILD_DIR);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 1e9, "
          "\"columns\": 1}]}",
          f);
    fclose(f);
    snprintf(args, sizeof args, "--headless --scene '%s'", bad);
    code = run(args, out, sizeof out, err, sizeof err);
    assert_int_equal(code, 2);
    assert_non_null(strstr(err, "cli-bad-scene.json: generators[0].rows: 1e+09 is more than the limit of 2000000"));
    snprintf(args, sizeof args, "--headless --scene '%s/no-such-scene.json'", RB_TEST_BUILD_DIR);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "no-such-scene.json: cannot open: No such file or directory"));
    /* a warning from rubble-bench's scene reader says whose it is */
    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"colour\": 1}]}", f);
    fclose(f);
    snprintf(args, sizeof args, "'%s' --backend reference --warmup 0 --time 0.0016 --quiet", bad);
    code = run_program(RB_TEST_BENCH, args, out, sizeof out, err, sizeof err);
    if (code != 0 || !strstr(err, "rubble-bench: warning: ") || strstr(err, "rubble: "))
        fail_msg("exit %d: %s", code, err);
    f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 1e9, "
          "\"columns\": 1}]}",
          f);
    fclose(f);
    /* rubble-bench alike: exit 2, the file named once */
    snprintf(args, sizeof args, "'%s' --backend reference --quiet", bad);
    assert_int_equal(run_program(RB_TEST_BENCH, args, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "rubble-bench: "));
    const char *named = strstr(err, "cli-bad-scene.json: generators[0].rows: 1e+09 is more than the limit");
    if (!named || strstr(err, "cli-bad-scene.json") != named) fail_msg("the file named once: %s", err);
    snprintf(args, sizeof args, "'%s/no-such-scene.json' --backend reference --quiet", RB_TEST_BUILD_DIR);
    assert_int_equal(run_program(RB_TEST_BENCH, args, out, sizeof out, err, sizeof err), 2);
    named = strstr(err, "no-such-scene.json: cannot open: No such file or directory");
    if (!named || strstr(named + 1, "no-such-scene.json")) fail_msg("the file named once: %s", err);
    remove(bad);
}

/* --no-sleep turns sleeping off whatever the scene says: a scene that asks
 * for sleeping (towers of formation 2, settled for 600 steps) has bodies
 * asleep at the end, the same with --no-sleep none; rubble-bench runs the
 * scene with --no-sleep to the same state as rubble --headless. */
static void test_no_sleep(void **state) {
    char scene[512], args[1024];
    snprintf(scene, sizeof scene, "%s/tests/cli-sleepy.json", RB_TEST_BUILD_DIR);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fputs("{\"rubble_scene\": 1, \"world\": {\"sleep\": {\"speed\": 0.05, \"time\": 0.25}},\n"
          " \"generators\": [{\"type\": \"formation\", \"shape\": \"cube\", \"formation\": 2, \"count\": 12}]}\n",
          f);
    fclose(f);
    cJSON *runs[2];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "--headless --json --backend reference --steps 600 --scene '%s'%s", scene,
                 i ? " --no-sleep" : "");
        int code = run(args, out, sizeof out, err, sizeof err);
        if (code != 0) fail_msg("'%s': exit %d: %s", args, code, err);
        runs[i] = cJSON_Parse(out);
        if (!runs[i] || !cJSON_IsNumber(cJSON_GetObjectItem(runs[i], "sleeping"))) fail_msg("no 'sleeping' in %s", out);
    }
    const int asleep = cJSON_GetObjectItem(runs[0], "sleeping")->valueint;
    print_message("sleeping bodies after 600 steps: %d as the scene asks, %d with --no-sleep\n", asleep,
                  cJSON_GetObjectItem(runs[1], "sleeping")->valueint);
    assert_true(asleep >= 1);
    assert_int_equal(cJSON_GetObjectItem(runs[1], "sleeping")->valueint, 0);
    assert_string_not_equal(cJSON_GetObjectItem(runs[0], "digest")->valuestring,
                            cJSON_GetObjectItem(runs[1], "digest")->valuestring);
    /* the text summary says it too */
    snprintf(args, sizeof args, "--headless --backend reference --steps 600 --scene '%s'", scene);
    assert_int_equal(run(args, out, sizeof out, err, sizeof err), 0);
    char says[64];
    snprintf(says, sizeof says, ", %d bodies asleep,", asleep);
    if (!strstr(out, says)) fail_msg("the summary should say '%s': %s", says, out);

    snprintf(args, sizeof args, "'%s' --backend reference --warmup 0 --time 0.96 --no-sleep --json --quiet", scene);
    int code = run_program(RB_TEST_BENCH, args, out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench exit %d: %s", code, err);
    cJSON *b = cJSON_Parse(out);
    assert_non_null(b);
    assert_int_equal(cJSON_GetObjectItem(b, "steps")->valueint, 600);
    assert_string_equal(cJSON_GetObjectItem(b, "digest")->valuestring,
                        cJSON_GetObjectItem(runs[1], "digest")->valuestring);
    cJSON_Delete(b), cJSON_Delete(runs[0]), cJSON_Delete(runs[1]);
    remove(scene);
}

/* A cone of spheres of radius r at a known angle: a close packing (hexagonal
 * layers stacked A B C, centres jittered by r / 10) cut by the cone, its
 * axis at (ax, az). */
static uint32_t make_cone(float *xyz, uint32_t max, double angle_deg, double radius, double ax, double az, double r,
                          uint64_t *seed) {
    const double t = tan(angle_deg * M_PI / 180.0), d = 2.0 * r, layer = d * sqrt(2.0 / 3.0);
    const double offset[3][2] = {{0, 0}, {d / 2, d * sqrt(3.0) / 6}, {0, d * sqrt(3.0) / 3}};
    const int n = (int)(radius / d) + 2;
    uint32_t count = 0;
    for (int l = 0; l * layer <= radius * t; l++)
        for (int j = -2 * n; j <= 2 * n; j++)
            for (int i = -2 * n; i <= 2 * n; i++) {
                double p[3] = {d * (i + 0.5 * j) + offset[l % 3][0], l * layer,
                               d * sqrt(3.0) / 2 * j + offset[l % 3][1]};
                for (int k = 0; k < 3; k++) {
                    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
                    p[k] += ((double)(*seed >> 11) / 9007199254740992.0 - 0.5) * 0.2 * r;
                }
                const double rho = hypot(p[0], p[2]);
                if (rho > radius || p[1] > radius * t - rho * t || count >= max) continue;
                xyz[3 * count] = (float)(p[0] + ax), xyz[3 * count + 1] = (float)p[1],
                        xyz[3 * count + 2] = (float)(p[2] + az);
                count++;
            }
    return count;
}

/* The angle of repose rubble-bench repose reports (src/app/repose.h) is a
 * cone's own angle: within 1.2 degrees for cones of 20, 30 and 40 degrees,
 * 6 m across the base and of spheres of 0.2 m (a fitted slope over 9 rings
 * of one diameter, the surface a staircase of layers); each quarter within
 * 2.5 degrees. A heap of a few spheres is too small to fit. Then a short
 * pour: the scene runs, and reports the friction and sleeping it was given. */
static void test_repose(void **state) {
    enum { MAX = 20000 };
    float *xyz = malloc(sizeof(float) * 3 * MAX);
    assert_non_null(xyz);
    uint64_t seed = 7;
    const double angles[] = {20.0, 30.0, 40.0};
    for (int a = 0; a < 3; a++) {
        const uint32_t n = make_cone(xyz, MAX, angles[a], 6.0, 1.5, -2.5, 0.2, &seed);
        rb_repose_fit fit;
        assert_true(rb_repose_measure(xyz, n, 1.5, -2.5, 0.4, &fit));
        print_message("cone of %.0f deg (%u spheres): %.2f deg; quarters %.2f %.2f %.2f %.2f; rings %d, rms %.3f m\n",
                      angles[a], n, fit.angle_deg, fit.quarter_deg[0], fit.quarter_deg[1], fit.quarter_deg[2],
                      fit.quarter_deg[3], fit.fitted, fit.rms);
        assert_near(fit.angle_deg, angles[a], 1.2);
        for (int q = 0; q < 4; q++) assert_near(fit.quarter_deg[q], angles[a], 2.5);
        assert_near(fit.radius, 6.0, 0.2);
        assert_near(fit.apex, 6.0 * tan(angles[a] * M_PI / 180.0), 0.5);
        assert_int_equal(fit.spheres, n);
    }
    rb_repose_fit fit;
    assert_false(rb_repose_measure(xyz, 3, 1.5, -2.5, 0.4, &fit));
    free(xyz);

    int code = run_program(RB_TEST_BENCH,
                           "repose 300 --settle 0.5 --friction 0.3 --no-sleep --backend reference --json --quiet", out,
                           sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench repose exit %d: %s", code, err);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("rubble-bench repose printed no JSON: %s", out);
    assert_string_equal(cJSON_GetObjectItem(j, "scene")->valuestring, "repose 300");
    assert_near(cJSON_GetObjectItem(j, "friction")->valuedouble, 0.3, 1e-9);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "sleep")));
    assert_int_equal(cJSON_GetObjectItem(j, "poured")->valueint, 300);
    const double angle = cJSON_GetObjectItem(j, "angle_deg")->valuedouble;
    assert_true(angle > 0.0 && angle < 60.0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "settling")), 2); /* t = 0 and 0.5 s */
    assert_int_equal(cJSON_GetObjectItem(j, "seed")->valueint, 0);
    cJSON_Delete(j);

    /* --seed: another heap from the same pour (a disc and patches placed otherwise) */
    code = run_program(RB_TEST_BENCH,
                       "repose 300 --settle 0.5 --friction 0.3 --no-sleep --backend reference --json --quiet --seed 5",
                       out, sizeof out, err, sizeof err);
    if (code != 0) fail_msg("rubble-bench repose --seed 5 exit %d: %s", code, err);
    j = cJSON_Parse(out);
    if (!j) fail_msg("rubble-bench repose --seed 5 printed no JSON: %s", out);
    assert_int_equal(cJSON_GetObjectItem(j, "seed")->valueint, 5);
    const double other = cJSON_GetObjectItem(j, "angle_deg")->valuedouble;
    print_message("repose 300: %.3f deg, with --seed 5 %.3f deg\n", angle, other);
    assert_true(other > 0.0 && other < 60.0 && other != angle);
    cJSON_Delete(j);
}

/* The peak resident memory (bytes) of program run with args (each its
 * own word), its output dropped; -1 where it did not exit 0. */
static double peak_bytes(const char *program, const char *const *args) {
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1), dup2(null, 2);
        char *argv[16] = {(char *)program};
        for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = (char *)args[i];
        execv(program, argv);
        _exit(127);
    }
    int status;
    struct rusage u;
    assert_int_equal(wait4(pid, &status, 0, &u), pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? (double)u.ru_maxrss * 1024.0 : -1.0;
}

/* A headless run's warm-up (rb_world_warm) takes no memory: its peak is
 * rubble-bench's for the same world and step, which has no warm-up and to
 * which the check before building was fitted (README, "Limits"). The
 * warm-up once copied every OpenCL buffer: 815 MB against 510 MB for
 * 50,000 cubes (Release build), past the check's estimate of 780 MB. */
static void test_warm_up_takes_no_memory(void **state) {
    (void)state;
    const char *const headless[] = {"--headless", "--backend", "opencl",  "--formation", "1",
                                    "--bodies",   "50000",     "--steps", "1",           NULL};
    const char *const bench[] = {"formation1", "50000",  "--backend", "opencl",  "--warmup",
                                 "0",          "--time", "0.0016",    "--quiet", NULL};
    /* first a run that fills PoCL's kernel cache: a program that compiles
     * kernels holds the compiler's memory too (400 MB more on the sanitized
     * build, whichever program it is) */
    assert_true(peak_bytes(RB_TEST_RUBBLE, headless) > 0.0);
    const double without = peak_bytes(RB_TEST_BENCH, bench), with = peak_bytes(RB_TEST_RUBBLE, headless);
    printf("50,000 cubes, one step on OpenCL: peak %.0f MB headless, %.0f MB in rubble-bench\n", with / 1e6,
           without / 1e6);
    assert_true(with > 0.0 && without > 0.0);
    /* a device's worth is 216 B a particle, 292 MB here; the two programs' own code differs by far less */
    assert_true(with <= without + 60e6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_summary),
        cmocka_unit_test(test_same_run_same_digest),
        cmocka_unit_test(test_list_shapes_json),
        cmocka_unit_test(test_bad_command_lines),
        cmocka_unit_test(test_bad_plugin_folder_goes_on),
        cmocka_unit_test(test_unusable_names_exit_2),
        cmocka_unit_test(test_record_and_export),
        cmocka_unit_test(test_screenshot_folder_exits_2_once),
        cmocka_unit_test(test_bench_and_headless_agree),
        cmocka_unit_test(test_wall_seconds_exclude_build),
        cmocka_unit_test(test_warm_up_takes_no_memory),
        cmocka_unit_test(test_bench_save_full_disk),
        cmocka_unit_test(test_scene_files),
        cmocka_unit_test(test_no_sleep),
        cmocka_unit_test(test_repose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
