/* rubble wedge as a user runs it (docs/wedge.md): a small wedge run two at a
 * time gives each variant the digest of one `rubble --headless` run of its
 * scene; the same wedge prepared and run through GNU parallel, and a task of
 * its Slurm array run by hand, give the same; a second run skips what is
 * done; bad wedges and folders are refused before anything runs; a variant
 * that goes NaN fails alone. */
#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "rb_test.h"

#define DIR RB_TEST_BUILD_DIR "/tests/wedge"
#define STEPS 150

static char out[1 << 16], err[1 << 16];

/* Runs a shell command; returns its exit status, stdout in out, stderr in err. */
static int run_shell(const char *cmd) {
    char full[4096];
    snprintf(full, sizeof full, "%s 2>'%s/stderr.txt'", cmd, DIR);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    const int status = pclose(p);
    char path[512];
    snprintf(path, sizeof path, "%s/stderr.txt", DIR);
    FILE *e = fopen(path, "r");
    n = e ? fread(err, 1, sizeof err - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int wedge(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' wedge %s", RB_TEST_RUBBLE, args);
    return run_shell(cmd);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static cJSON *read_json(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char text[1 << 20];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return cJSON_Parse(text);
}

static const char *string_at(const cJSON *j, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* A cube falling onto another, sliding on it: friction and the throw both
 * change where they end. */
static const char *scene_text =
    "{\"rubble_scene\": 1, \"materials\": {\"default\": {\"friction\": 0.5}},\n"
    " \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]},\n"
    "            {\"shape\": \"cube\", \"position\": [0, 1.9, 0], \"velocity\": [1, 0, 0]}]}\n";

/* The wedge file wedge/NAME.json over the scene, varying the lines given. */
static void write_wedge(const char *name, const char *vary) {
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/%s.json", DIR, name);
    snprintf(text, sizeof text, "{\"scene\": \"scene.json\", \"steps\": %d, \"vary\": [%s]}\n", STEPS, vary);
    write_file(path, text);
}

static int setup(void **state) {
    (void)state;
    assert_int_equal(system("rm -rf '" DIR "' && mkdir -p '" DIR "'"), 0);
    write_file(DIR "/scene.json", scene_text);
    write_wedge("small", "{\"key\": \"materials.default.friction\", \"values\": [0.2, 0.8]},"
                         "{\"key\": \"bodies[1].velocity[0]\", \"range\": [1, 3], \"count\": 2}");
    return 0;
}

/* The digest of variant name's summary in dir; fails the test unless it ran ok. */
static void summary_digest(const char *dir, const char *name, char digest[32]) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, name);
    cJSON *s = read_json(path);
    if (!s) fail_msg("no summary %s", path);
    if (strcmp(string_at(s, "status"), "ok")) fail_msg("%s: %s", path, string_at(s, "error"));
    assert_string_equal(string_at(s, "variant"), name);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(s, "steps")->valueint, STEPS);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(s, "bodies")->valueint, 2);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "nan")));
    snprintf(digest, 32, "%s", string_at(s, "digest"));
    assert_int_equal(strlen(digest), 16);
    cJSON_Delete(s);
}

static double mtime(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) fail_msg("no %s", path);
    return (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
}

/* Run two at a time: each digest is one headless run's of its scene, the
 * variants differ, the layout is the contract's, and a second run skips all. */
static void test_run_matches_headless(void **state) {
    (void)state;
    if (wedge("'" DIR "/small.json' --out '" DIR "/run' --jobs 2") != 0) fail_msg("wedge: %s", err);
    assert_non_null(strstr(err, "wedge: 4 of 4 done, 0 failed"));
    static char table[sizeof out];
    memcpy(table, out, sizeof out);
    cJSON *plan = read_json(DIR "/run/wedge.json");
    assert_non_null(plan);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "variants")), 4);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(plan, "steps")->valueint, STEPS);
    assert_true(string_at(plan, "scene")[0] == '/');
    /* variant 0001: the first key's first value, the second's second */
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "variants"), 1), "values");
    assert_near(cJSON_GetObjectItemCaseSensitive(values, "materials.default.friction")->valuedouble, 0.2, 1e-12);
    assert_near(cJSON_GetObjectItemCaseSensitive(values, "bodies[1].velocity[0]")->valuedouble, 3.0, 1e-12);
    cJSON_Delete(plan);
    char digests[4][32];
    for (int i = 0; i < 4; i++) {
        char name[8], cmd[1024], path[512];
        snprintf(name, sizeof name, "%04d", i);
        summary_digest(DIR "/run", name, digests[i]);
        snprintf(path, sizeof path, "%s/run/%s/scene.json", DIR, name);
        snprintf(cmd, sizeof cmd, "'%s' --headless --scene '%s' --steps %d --json", RB_TEST_RUBBLE, path, STEPS);
        if (run_shell(cmd) != 0) fail_msg("%s: %s", cmd, err);
        cJSON *j = cJSON_Parse(out);
        assert_non_null(j);
        assert_string_equal(string_at(j, "digest"), digests[i]);
        cJSON_Delete(j);
        for (int k = 0; k < i; k++) /* every variant ran its own values */
            if (!strcmp(digests[k], digests[i])) fail_msg("variants %d and %d ended the same", k, i);
    }
    /* one row a variant */
    for (int i = 0; i < 4; i++)
        if (!strstr(table, digests[i])) fail_msg("no row with %s in\n%s", digests[i], table);
    /* a second run skips every variant: no summary is written again */
    const double before = mtime(DIR "/run/0002/summary.json");
    if (wedge("'" DIR "/small.json' --out '" DIR "/run' --jobs 2") != 0) fail_msg("again: %s", err);
    assert_non_null(strstr(err, "4 of 4 variants already done ok"));
    assert_true(mtime(DIR "/run/0002/summary.json") == before);
    /* a failed variant's summary is not done: only it runs again */
    write_file(DIR "/run/0002/summary.json", "{\"variant\": \"0002\", \"status\": \"failed\", \"steps\": 150}");
    if (wedge("'" DIR "/small.json' --out '" DIR "/run' --jobs 2") != 0) fail_msg("again: %s", err);
    assert_non_null(strstr(err, "3 of 4 variants already done ok"));
    char again[32];
    summary_digest(DIR "/run", "0002", again);
    assert_string_equal(again, digests[2]);
}

/* Prepared, then run by GNU parallel from jobs.txt: the same scenes and
 * digests; a Slurm array task run by hand runs its variant. */
static void test_parallel_and_slurm(void **state) {
    (void)state;
    /* against test_run_matches_headless's run (two at a time) */
    if (wedge("'" DIR "/small.json' --out '" DIR "/par' --prepare") != 0) fail_msg("prepare: %s", err);
    struct stat st;
    assert_int_not_equal(stat(DIR "/par/0000/summary.json", &st), 0); /* prepared, nothing run */
    if (run_shell("parallel --jobs 2 < '" DIR "/par/jobs.txt'") != 0) fail_msg("parallel: %s", err);
    for (int i = 0; i < 4; i++) {
        char name[8], a[32], b[32], cmd[1024];
        snprintf(name, sizeof name, "%04d", i);
        summary_digest(DIR "/run", name, a);
        summary_digest(DIR "/par", name, b);
        assert_string_equal(a, b);
        snprintf(cmd, sizeof cmd, "cmp '%s/run/%s/scene.json' '%s/par/%s/scene.json'", DIR, name, DIR, name);
        assert_int_equal(run_shell(cmd), 0);
    }
    /* the wedge then finds them all done */
    if (wedge("'" DIR "/small.json' --out '" DIR "/par'") != 0) fail_msg("after parallel: %s", err);
    assert_non_null(strstr(err, "4 of 4 variants already done ok"));
    /* parallel.sh is a shell script naming jobs.txt */
    assert_int_equal(
        run_shell("sh -n '" DIR "/par/parallel.sh' && grep -q 'parallel --jobs' '" DIR "/par/parallel.sh'"), 0);

    /* Slurm: the script is bash, an array of 4 tasks; task 2 runs variant 0002 only, with the outputs asked */
    if (wedge("'" DIR "/small.json' --out '" DIR "/slurm' --prepare --record --csv") != 0) fail_msg("prepare: %s", err);
    assert_int_equal(run_shell("bash -n '" DIR "/slurm/slurm.sbatch'"), 0);
    assert_int_equal(run_shell("grep -c '^#SBATCH --array=0-3$' '" DIR "/slurm/slurm.sbatch'"), 0);
    if (run_shell("cd / && SLURM_ARRAY_TASK_ID=2 bash '" DIR "/slurm/slurm.sbatch'") != 0) fail_msg("task: %s", err);
    char a[32], b[32];
    summary_digest(DIR "/run", "0002", a);
    summary_digest(DIR "/slurm", "0002", b);
    assert_string_equal(a, b);
    /* its cache and CSV: the CSV has a row a body a frame, 60 frames a second (README "Record and export") */
    assert_int_equal(stat(DIR "/slurm/0002/run.rbc", &st), 0);
    assert_true(st.st_size > 0);
    assert_int_equal(run_shell("wc -l < '" DIR "/slurm/0002/run.csv'"), 0);
    const int frames = (int)floor(STEPS * (double)rb_default_world_desc().dt * 60 + 1e-6) + 1;
    if (atoi(out) != 1 + 2 * frames) fail_msg("run.csv has %d lines, not 1 + 2 x %d", atoi(out), frames);
    assert_int_not_equal(stat(DIR "/slurm/0001/summary.json", &st), 0);
    assert_int_not_equal(stat(DIR "/slurm/0003/summary.json", &st), 0);
}

/* Refused before anything runs (exit 2, nothing written), each with its reason. */
static void test_refusals(void **state) {
    (void)state;
    struct stat st;
    /* 10^6 variants: refused at once, the limit named */
    write_wedge("huge", "{\"key\": \"world.dt\", \"range\": [0.001, 0.002], \"count\": 1000},"
                        "{\"key\": \"materials.default.friction\", \"random\": [0, 1], \"count\": 1000, \"seed\": 3}");
    const double t0 = rb_seconds();
    assert_int_equal(wedge("'" DIR "/huge.json' --out '" DIR "/huge'"), 2);
    assert_true(rb_seconds() - t0 < 10.0);
    assert_non_null(strstr(err, "at most 10000"));
    assert_int_not_equal(stat(DIR "/huge", &st), 0);
    /* a path not in the scene */
    write_wedge("nokey", "{\"key\": \"bodies[5].position[0]\", \"values\": [1]}");
    assert_int_equal(wedge("'" DIR "/nokey.json' --out '" DIR "/nokey'"), 2);
    if (!strstr(err, "variant 0000 (bodies[5].position[0] = 1)") || !strstr(err, "there is no [5]"))
        fail_msg("%s", err);
    assert_int_not_equal(stat(DIR "/nokey", &st), 0);
    /* a key the reader does not know is not added */
    write_wedge("typo", "{\"key\": \"materials.default.fricton\", \"values\": [0.3]}");
    assert_int_equal(wedge("'" DIR "/typo.json' --out '" DIR "/typo'"), 2);
    if (!strstr(err, "materials.default.fricton: unknown key, which the wedge cannot set") || strstr(err, "ignored"))
        fail_msg("%s", err);
    /* a missing key the reader takes is added: world.dt in a scene without world */
    write_wedge("added", "{\"key\": \"world.dt\", \"values\": [0.001]}");
    assert_int_equal(wedge("'" DIR "/added.json' --out '" DIR "/added' --prepare"), 0);
    cJSON *scene = read_json(DIR "/added/0000/scene.json");
    assert_near(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(scene, "world"), "dt")->valuedouble,
                0.001, 1e-12);
    cJSON_Delete(scene);
    /* a value out of the key's range: the reader's message, the variant named */
    write_wedge("range", "{\"key\": \"materials.default.friction\", \"values\": [0.5, -1]}");
    assert_int_equal(wedge("'" DIR "/range.json' --out '" DIR "/range'"), 2);
    if (!strstr(err, "variant 0001 (materials.default.friction = -1)") || !strstr(err, "out of range"))
        fail_msg("%s", err);
    assert_int_not_equal(stat(DIR "/range", &st), 0);
    /* an output folder that cannot be made: under a file */
    assert_int_equal(wedge("'" DIR "/small.json' --out '" DIR "/scene.json/out'"), 2);
    if (!strstr(err, "cannot make")) fail_msg("%s", err);
    /* a bad command line */
    assert_int_equal(wedge("'" DIR "/small.json' --jobs 0"), 2);
    assert_non_null(strstr(err, "--jobs"));
    assert_non_null(strstr(err, "'rubble wedge --help' lists the options")); /* not the whole usage over the reason */
    assert_null(strstr(err, "usage:"));
    assert_int_equal(wedge("--run-one '" DIR "/nowhere' 0"), 2);
}

/* A variant that fails at run time is reported in its summary with the
 * child's last word, and the others run on. Scene values are checked before
 * anything runs, so such a failure comes from the run itself: here the
 * variant's scene is spoilt after --prepare (a file the runner finds as it
 * is, as on a farm), naming a shape no plugin gives. */
static void test_failed_variant(void **state) {
    (void)state;
    write_wedge("fails", "{\"key\": \"materials.default.friction\", \"values\": [0.3, 0.6]}");
    assert_int_equal(wedge("'" DIR "/fails.json' --out '" DIR "/fails' --prepare"), 0);
    write_file(DIR "/fails/0001/scene.json",
               "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"no_such_shape\", \"position\": [0, 1, 0]}]}\n");
    assert_int_equal(wedge("--run-one '" DIR "/fails' 0"), 0);
    assert_int_equal(wedge("--run-one '" DIR "/fails' 1"), 1);
    char digest[32];
    summary_digest(DIR "/fails", "0000", digest);
    cJSON *s = read_json(DIR "/fails/0001/summary.json");
    assert_non_null(s);
    assert_string_equal(string_at(s, "status"), "failed");
    if (!strstr(string_at(s, "error"), "no_such_shape")) fail_msg("error: %s", string_at(s, "error"));
    cJSON_Delete(s);
    /* the table counts it */
    assert_int_equal(wedge("--collect '" DIR "/fails'"), 0);
    if (!strstr(out, "failed")) fail_msg("%s", out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_matches_headless),
        cmocka_unit_test(test_parallel_and_slurm),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_failed_variant),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
