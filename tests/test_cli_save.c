/* rubble --headless --save (src/app/main.c, options.c): the end state as a
 * scene file that loads and runs on to the digest of one run, with a
 * fountain's debris; --save-every's numbered files; the files --save
 * refuses to write over; and rubble-bench --save. Files are written in the
 * build folder's tests/. */
#include <cjson/cJSON.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rb_test.h"

static char out[1 << 16], err[1 << 16];

/* Runs program with args; returns its exit code, stdout in out, stderr in err. */
static int run_program(const char *program, const char *args) {
    char cmd[4096], err_path[512];
    snprintf(err_path, sizeof err_path, "%s/tests/cli_save_stderr.txt", RB_TEST_BUILD_DIR);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", program, args, err_path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    const int status = pclose(p);
    FILE *e = fopen(err_path, "r");
    n = e ? fread(err, 1, sizeof err - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run(const char *args) { return run_program(RB_TEST_RUBBLE, args); }

/* program with args is refused: exit 2, stderr saying says. */
static void refused(const char *program, const char *args, const char *says) {
    const int code = run_program(program, args);
    if (code != 2 || !strstr(err, says)) fail_msg("'%s': exit %d, stderr '%s' should say '%s'", args, code, err, says);
}

static const char *fountain =
    "{\"rubble_scene\": 1,\n"
    " \"bodies\": [{\"shape\": \"cube\", \"position\": [3, 0.6, 0]}],\n"
    " \"emitters\": [{\"region\": {\"point\": [0, 1.5, 0]}, \"rate\": 30, \"shapes\": [{\"shape\": \"cube\"},\n"
    "   {\"shape\": \"cube2\", \"weight\": 2}], \"speed\": 5, \"cone\": 25, \"lifetime\": 0.9, \"seed\": 3}],\n"
    " \"fields\": [{\"type\": \"wind\", \"velocity\": [2, 0, 0], \"start\": 0.2, \"duration\": 1}]}\n";

static void path_of(char *p, size_t size, const char *name) {
    snprintf(p, size, "%s/tests/cli-save-%s", RB_TEST_BUILD_DIR, name);
}

/* Writes the fountain scene to path. */
static void write_fountain(const char *path) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(fountain, f);
    fclose(f);
}

/* path still holds the fountain scene, untouched. */
static void assert_still_fountain(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    const size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    assert_string_equal(out, fountain);
}

/* The digest a --json headless run printed. */
static void digest_of(char digest[32]) {
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON: %s", out);
    snprintf(digest, 32, "%s", cJSON_GetObjectItem(j, "digest")->valuestring);
    cJSON_Delete(j);
}

static void test_save_goes_on(void **state) {
    (void)state;
    char scene[512], saved[512], args[2048], one[32], two[32], numbered[512];
    path_of(scene, sizeof scene, "fountain.json");
    path_of(saved, sizeof saved, "end.json");
    write_fountain(scene);
    for (int k = 1; k <= 3; k++) {
        snprintf(numbered, sizeof numbered, "%s/tests/cli-save-end-%04d.json", RB_TEST_BUILD_DIR, k);
        remove(numbered);
    }
    const char *backends[] = {"reference", "opencl"};
    for (int b = 0; b < 2; b++) {
        snprintf(args, sizeof args, "--headless --json --backend %s --steps 1000 --scene '%s'", backends[b], scene);
        if (run(args) != 0) fail_msg("%s", err);
        digest_of(one);
        /* 437 steps, saved, and 563 from the file */
        snprintf(args, sizeof args, "--headless --json --backend %s --steps 437 --scene '%s' --save '%s'%s",
                 backends[b], scene, saved, b ? "" : " --save-every 0.25");
        if (run(args) != 0) fail_msg("%s", err);
        snprintf(args, sizeof args, "--headless --json --backend %s --steps 563 --scene '%s'", backends[b], saved);
        if (run(args) != 0) fail_msg("%s", err);
        digest_of(two);
        print_message("%s: 1000 steps %s, 437 + 563 from --save %s\n", backends[b], one, two);
        assert_string_equal(one, two);
    }
    /* --save-every 0.25 over 437 steps of 1.6 ms (0.70 s): two numbered files, the first at 0.25 s, loading */
    snprintf(numbered, sizeof numbered, "%s/tests/cli-save-end-0002.json", RB_TEST_BUILD_DIR);
    snprintf(args, sizeof args, "--headless --json --backend reference --steps 1 --scene '%s'", numbered);
    if (run(args) != 0) fail_msg("%s", err);
    snprintf(numbered, sizeof numbered, "%s/tests/cli-save-end-0003.json", RB_TEST_BUILD_DIR);
    assert_int_not_equal(access(numbered, F_OK), 0);
    /* the numbered file from 157 steps (the first at or after 0.25 s) runs on as the scene does */
    snprintf(args, sizeof args, "--headless --json --backend reference --steps 1000 --scene '%s'", scene);
    if (run(args) != 0) fail_msg("%s", err);
    digest_of(one);
    snprintf(numbered, sizeof numbered, "%s/tests/cli-save-end-0001.json", RB_TEST_BUILD_DIR);
    snprintf(args, sizeof args, "--headless --json --backend reference --steps %d --scene '%s'", 1000 - 157, numbered);
    if (run(args) != 0) fail_msg("%s", err);
    digest_of(two);
    assert_string_equal(one, two);
}

/* Files --save must not write over, and options that make no sense. */
static void test_save_refusals(void **state) {
    (void)state;
    char scene[512], args[2048], record[512];
    path_of(scene, sizeof scene, "fountain.json");
    path_of(record, sizeof record, "run.rbc");
    write_fountain(scene);
    struct {
        const char *extra, *says;
    } cases[] = {
        {"--save '%s'", "is the file --scene names"},
        {"--save '%s/tests/./cli-save-fountain.json'", "is the file --scene names"},
        {"--save '%s/tests/cli-save-run.rbc' --record '%s/tests/cli-save-run.rbc'", "is the file --record names"},
        {"--save '%s/tests/cli-save-fountain' --save-every 1", "--save-every would write over --scene"},
        {"--save-every 1", "--save-every needs --save FILE"},
        {"--save '%s/no-such-folder/x.json'", "--save"},
        {"--save-every 0 --save x.json", "--save-every takes simulated seconds > 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char extra[1024];
        if (i == 0)
            snprintf(extra, sizeof extra, cases[i].extra, scene);
        else if (i == 2)
            snprintf(extra, sizeof extra, cases[i].extra, RB_TEST_BUILD_DIR, RB_TEST_BUILD_DIR);
        else
            snprintf(extra, sizeof extra, cases[i].extra, RB_TEST_BUILD_DIR);
        /* the scene file renamed for the numbered case: cli-save-fountain-0001.json */
        const char *in = scene;
        char numbered[512];
        if (i == 3) {
            path_of(numbered, sizeof numbered, "fountain-0001.json");
            write_fountain(numbered);
            in = numbered;
        }
        snprintf(args, sizeof args, "--headless --backend reference --steps 10 --scene '%s' %s", in, extra);
        refused(RB_TEST_RUBBLE, args, cases[i].says);
    }
    assert_still_fountain(scene); /* the scene is as it was */
    (void)record;
}

/* rubble-bench --save: the state where timing starts, from which the timed
 * steps run again to the same digest (what scripts/profile relies on); and
 * what it refuses, writing nothing. */
static void test_bench_save(void **state) {
    (void)state;
    char scene[512], saved[512], args[2048], one[32], two[32];
    path_of(scene, sizeof scene, "bench-fountain.json");
    path_of(saved, sizeof saved, "bench-start.json");
    write_fountain(scene);
    const char *backends[] = {"reference", "opencl"};
    for (int b = 0; b < 2; b++) {
        remove(saved);
        /* 250 steps untimed, saved, then 100 timed */
        snprintf(args, sizeof args, "'%s' --backend %s --warmup 0.4 --time 0.16 --json --quiet --save '%s'", scene,
                 backends[b], saved);
        if (run_program(RB_TEST_BENCH, args) != 0) fail_msg("%s", err);
        digest_of(one);
        snprintf(args, sizeof args, "'%s' --backend %s --warmup 0 --time 0.16 --json --quiet", saved, backends[b]);
        if (run_program(RB_TEST_BENCH, args) != 0) fail_msg("%s", err);
        digest_of(two);
        print_message("%s: 250 + 100 steps %s, 100 from --save %s\n", backends[b], one, two);
        assert_string_equal(one, two);
    }
    remove(saved);
    struct {
        const char *args, *says;
    } cases[] = {
        {"pile 10 pile 20 --save '%s'", "give one scene and one backend"},
        {"pile 10 --backend both --save '%s'", "give one scene and one backend"},
        {"pile 10 --save '%s' --save-every 1", "unknown option '--save-every'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, cases[i].args, saved);
        refused(RB_TEST_BENCH, args, cases[i].says);
        assert_int_not_equal(access(saved, F_OK), 0);
    }
    /* the scene timed is never the file saved over */
    snprintf(args, sizeof args, "'%s' --warmup 0 --time 0.0016 --save '%s'", scene, scene);
    refused(RB_TEST_BENCH, args, "is the scene being timed");
    assert_still_fountain(scene);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_goes_on),
        cmocka_unit_test(test_save_refusals),
        cmocka_unit_test(test_bench_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
