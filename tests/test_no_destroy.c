/* No command destroys a file it did not mean to write (src/base/replace.c,
 * same_path.c, temps.c; src/app/paths_check.c; src/record/export.c;
 * src/sandbox/capture.c): the real rubble program run as a user runs it,
 * each in a folder of its own under the build folder's tests/.
 *
 * - a screenshot on a full disk (a file size limit, RLIMIT_FSIZE) keeps the
 *   old file, says so and why, and fails the scripted run;
 * - an output that is an input or another output, by any name, is refused
 *   with exit 2 before anything is read or written;
 * - an output that is not a regular file (a pipe, a link to a device) is
 *   refused and left as it is;
 * - two Ctrl+S (and two F12) in one second give two files;
 * - SIGTERM during a headless --csv run and SIGINT during an export leave
 *   no temporary file;
 * - an export with one output that cannot be written writes none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char err[1 << 16];

/* A folder of the test's own under the build folder, empty. */
static void fresh_folder(char *dir, size_t size, const char *name) {
    char cmd[1200];
    snprintf(dir, size, "%s/tests/no-destroy-%s", RB_TEST_BUILD_DIR, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A file's bytes, malloc'd; *size its length. */
static char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    data[n] = '\0';
    *size = (size_t)n;
    return data;
}

/* The names in a folder, one a line, sorted; "" if empty. */
static void listing(const char *dir, char *list, size_t size) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    const size_t n = fread(list, 1, size - 1, p);
    list[n] = '\0';
    pclose(p);
}

/* Starts `rubble ARGS` through the shell in folder dir, its stderr to
 * dir/../no-destroy-stderr.txt, with a file size limit of fsize bytes if
 * fsize > 0 (SIGXFSZ ignored: a write past it fails with EFBIG, as on a
 * full disk). Returns the child's pid. */
static pid_t start(const char *dir, const char *args, long fsize) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec '%s' %s 2>'%s/tests/no-destroy-stderr.txt' >/dev/null", RB_TEST_RUBBLE, args,
             RB_TEST_BUILD_DIR);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(127);
        if (fsize > 0) {
            signal(SIGXFSZ, SIG_IGN);
            const struct rlimit lim = {(rlim_t)fsize, (rlim_t)fsize};
            if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(127);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void read_err(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/no-destroy-stderr.txt", RB_TEST_BUILD_DIR);
    FILE *e = fopen(path, "r");
    const size_t n = e ? fread(err, 1, sizeof err - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
}

/* Waits for pid; its exit code, or -SIGNAL if a signal ended it. */
static int finish(pid_t pid) {
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    read_err();
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1000;
}

static int run(const char *dir, const char *args) { return finish(start(dir, args, 0)); }

/* How many names in dir start with prefix and end with suffix. */
static int count_named(const char *dir, const char *prefix, const char *suffix) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name), tail = strlen(suffix);
        n += !strncmp(e->d_name, prefix, strlen(prefix)) && len > tail && !strcmp(e->d_name + len - tail, suffix);
    }
    closedir(d);
    return n;
}

/* A small cache, recorded in dir as run.rbc. */
static void record_cache(const char *dir, const char *name, const char *extra) {
    char args[1024];
    snprintf(args, sizeof args, "--headless --backend reference --bodies 8 --steps 60 --record %s %s", name, extra);
    const int code = run(dir, args);
    if (code != 0) fail_msg("recording %s: exit %d: %s", name, code, err);
}

#ifdef RB_TEST_HAVE_SANDBOX
/* ---- screenshots on a full disk ---- */

static void test_screenshot_full_disk_keeps_the_old_file(void **state) {
    (void)state;
    char dir[512], list[4096];
    fresh_folder(dir, sizeof dir, "full");
    char old[600], script[600];
    snprintf(old, sizeof old, "%s/shot.png", dir);
    snprintf(script, sizeof script, "%s/f12.txt", dir);
    write_file(old, "the screenshot from before: kept whole");
    write_file(script, "0.00 key F12\n");
    /* a 320x240 frame's PNG is well over 4 KB: every screenshot hits the limit */
    const int code = finish(start(dir,
                                  "--frames 5 --width 320 --height 240 --bodies 10 --backend reference "
                                  "--script f12.txt --screenshot shot.png",
                                  4096));
    if (code != 1) fail_msg("a screenshot that could not be written: exit %d, expected 1: %s", code, err);
    /* said once, naming the file and why (the write's error: past the
     * limit, EFBIG, as a full disk's is ENOSPC) */
    const char *said = strstr(err, "screenshot shot.png not saved: cannot write: File too large");
    if (!said || strstr(said + 1, "screenshot shot.png not saved")) fail_msg("should say it once, and why: %s", err);
    assert_null(strstr(err, "screenshot saved"));
    size_t n;
    char *kept = read_all(old, &n);
    assert_string_equal(kept, "the screenshot from before: kept whole");
    free(kept);
    /* no half-written F12 file, no temporary */
    listing(dir, list, sizeof list);
    assert_string_equal(list, "f12.txt\nshot.png\n");
}

#endif

/* ---- one file named twice ---- */

static void test_same_file_twice_is_refused(void **state) {
    (void)state;
    char dir[512], path[700];
    fresh_folder(dir, sizeof dir, "same");
    record_cache(dir, "run.rbc", "");
    snprintf(path, sizeof path, "%s/my.json", dir);
    write_file(path, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]}]}\n");
    snprintf(path, sizeof path, "%s/s.txt", dir);
    write_file(path, "0.00 key Space\n");
    snprintf(path, sizeof path, "%s/X", dir);
    write_file(path, "X: nobody's output\n");
    snprintf(path, sizeof path, "%s/run-link.rbc", dir);
    assert_int_equal(symlink("run.rbc", path), 0);
    const char *inputs[] = {"run.rbc", "my.json", "s.txt", "X"};
    char *before[4];
    size_t size[4];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, inputs[i]);
        before[i] = read_all(path, &size[i]);
    }
    struct {
        const char *args, *first, *second;
    } cases[] = {
        {"--headless --backend reference --steps 5 --scene my.json --record my.json", "--scene", "--record"},
        {"--headless --backend reference --steps 5 --scene my.json --record ./my.json", "--scene", "--record"},
        {"export run.rbc --csv run.rbc", "the cache", "--csv"},
        {"export run.rbc --gltf run-link.rbc", "the cache", "--gltf"},
        {"export run-link.rbc --csv X --events ./X", "--csv", "--events"},
        {"--replay run.rbc --video run.rbc", "--replay", "--video"},
        {"--script s.txt --screenshot s.txt --frames 2", "--script", "--screenshot"},
        {"--headless --backend reference --steps 5 --csv X --gltf X", "--csv", "--gltf"},
        {"--headless --backend reference --steps 5 --save my.json --scene ../no-destroy-same/my.json", "--scene",
         "--save"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int code = run(dir, cases[c].args);
        if (code != 2 || !strstr(err, cases[c].first) || !strstr(err, cases[c].second))
            fail_msg("'%s': exit %d, stderr '%s': should exit 2 naming %s and %s", cases[c].args, code, err,
                     cases[c].first, cases[c].second);
        for (int i = 0; i < 4; i++) { /* every input as it was, byte for byte */
            snprintf(path, sizeof path, "%s/%s", dir, inputs[i]);
            size_t n;
            char *now = read_all(path, &n);
            if (n != size[i] || memcmp(now, before[i], n))
                fail_msg("'%s' changed %s (%zu bytes, was %zu)", cases[c].args, inputs[i], n, size[i]);
            free(now);
        }
    }
    for (int i = 0; i < 4; i++) free(before[i]);
    char list[4096];
    listing(dir, list, sizeof list);
    assert_string_equal(list, "X\nmy.json\nrun-link.rbc\nrun.rbc\ns.txt\n");
}

/* ---- outputs that are not files ---- */

static void test_non_regular_output_is_refused(void **state) {
    (void)state;
    char dir[512], fifo[600], link[600];
    fresh_folder(dir, sizeof dir, "special");
    record_cache(dir, "run.rbc", "");
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(link, sizeof link, "%s/null-link", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(symlink("/dev/null", link), 0);
    const char *cases[] = {
        "export run.rbc --csv pipe",
        "export run.rbc --gltf null-link",
        "export run.rbc --events pipe",
        "--headless --backend reference --steps 5 --csv null-link",
        "--headless --backend reference --steps 5 --save pipe",
        "--headless --backend reference --steps 5 --record null-link",
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int code = run(dir, cases[c]);
        if (code != 2 || !strstr(err, "not a regular file"))
            fail_msg("'%s': exit %d, stderr '%s': should exit 2, not a regular file", cases[c], code, err);
        struct stat st;
        assert_int_equal(lstat(fifo, &st), 0);
        assert_true(S_ISFIFO(st.st_mode));
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
    char list[4096];
    listing(dir, list, sizeof list);
    assert_string_equal(list, "null-link\npipe\nrun.rbc\n");
}

#ifdef RB_TEST_HAVE_SANDBOX
/* ---- saves named by the time ---- */

/* Files under the names Ctrl+S and F12 would make for each second of the
 * next few minutes (local time, as the sandbox names them), holding "taken". */
static int take_names(const char *dir) {
    int n = 0;
    const time_t t0 = time(NULL);
    for (time_t t = t0 - 2; t < t0 + 300; t++) {
        struct tm tm;
        localtime_r(&t, &tm);
        char name[64], path[700];
        strftime(name, sizeof name, "rubble-scene-%Y%m%d-%H%M%S.json", &tm);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        write_file(path, "taken");
        strftime(name, sizeof name, "rubble-%Y%m%d-%H%M%S.png", &tm);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        write_file(path, "taken");
        n++;
    }
    return n;
}

/* Every file in dir whose name starts with prefix and ends with suffix holds "taken". */
static int count_taken(const char *dir, const char *prefix, const char *suffix) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name), tail = strlen(suffix);
        if (strncmp(e->d_name, prefix, strlen(prefix)) || len <= tail || strcmp(e->d_name + len - tail, suffix))
            continue;
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        char *text = read_all(path, &size);
        n += !strcmp(text, "taken");
        free(text);
    }
    closedir(d);
    return n;
}

/* Two Ctrl+S in one frame and two F12 a frame apart, every name of the
 * time already taken: four new files, none written over. */
static void test_two_saves_in_one_second(void **state) {
    (void)state;
    char dir[512], script[600];
    fresh_folder(dir, sizeof dir, "saves");
    snprintf(script, sizeof script, "%s/two.txt", dir);
    write_file(script, "0.05 key down Left Ctrl\n0.05 key S\n0.05 key S\n0.07 key up Left Ctrl\n"
                       "0.10 key F12\n0.12 key F12\n");
    const int taken = take_names(dir);
    const int code = run(dir, "--frames 12 --width 160 --height 120 --bodies 5 --backend reference --script two.txt");
    if (code != 0) fail_msg("exit %d: %s", code, err);
    /* the names taken are as they were, and two new ones of each kind */
    assert_int_equal(count_taken(dir, "rubble-scene-", ".json"), taken);
    assert_int_equal(count_taken(dir, "rubble-", ".png"), taken);
    assert_int_equal(count_named(dir, "rubble-scene-", ".json"), taken + 2);
    assert_int_equal(count_named(dir, "rubble-", ".png"), taken + 2);
}

#endif

/* ---- signals ---- */

/* Waits (up to 120 s) for a name in dir starting with prefix; true if one came. */
static bool wait_for(const char *dir, const char *prefix, pid_t pid) {
    for (int i = 0; i < 120000; i++) {
        if (count_named(dir, prefix, "")) return true;
        if (waitpid(pid, NULL, WNOHANG) == pid) return false;
        usleep(1000);
    }
    return false;
}

static void test_sigterm_headless_csv_leaves_no_temporary(void **state) {
    (void)state;
    char dir[512], tmp[600], list[4096], args[1024];
    fresh_folder(dir, sizeof dir, "sigterm");
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    assert_int_equal(mkdir(tmp, 0755), 0);
    snprintf(args, sizeof args, "--headless --backend reference --bodies 50 --steps 100000000 --csv out.csv");
    setenv("TMPDIR", tmp, 1);
    const pid_t pid = start(dir, args, 0);
    unsetenv("TMPDIR");
    if (!wait_for(tmp, "rubble-export-", pid)) fail_msg("the run made no temporary cache in %s", tmp);
    usleep(200000); /* well into the run, writing frames */
    assert_int_equal(kill(pid, SIGTERM), 0);
    const int code = finish(pid);
    assert_int_equal(code, -SIGTERM);
    listing(tmp, list, sizeof list);
    assert_string_equal(list, "");
    listing(dir, list, sizeof list);
    assert_string_equal(list, "tmp\n");
}

static void test_sigint_export_leaves_no_temporary(void **state) {
    (void)state;
    char dir[512], list[4096];
    fresh_folder(dir, sizeof dir, "sigint");
    /* a cache big enough that its export takes a while: a frame every step */
    const int made = run(dir, "--headless --backend reference --bodies 400 --steps 400 --record-rate 10000 "
                              "--dt 0.0001 --record big.rbc");
    if (made != 0) fail_msg("recording big.rbc: exit %d: %s", made, err);
    const pid_t pid = start(dir, "export big.rbc --csv out.csv --gltf out.glb --events out.jsonl", 0);
    if (!wait_for(dir, "out.", pid)) fail_msg("the export wrote nothing before it ended: %s", err);
    assert_int_equal(kill(pid, SIGINT), 0);
    const int code = finish(pid);
    if (code != -SIGINT) fail_msg("the export was not ended by SIGINT (exit %d): too quick to catch? %s", code, err);
    listing(dir, list, sizeof list);
    assert_string_equal(list, "big.rbc\n");
}

/* ---- all or none ---- */

static void test_export_all_or_none(void **state) {
    (void)state;
    char dir[512], path[600], list[4096];
    fresh_folder(dir, sizeof dir, "allnone");
    record_cache(dir, "run.rbc", "");
    snprintf(path, sizeof path, "%s/ok.csv", dir);
    write_file(path, "the old CSV\n");
    assert_int_equal(mkdir(strcat(strcpy(path, dir), "/folder.glb"), 0755), 0);
    const char *cases[] = {
        "export run.rbc --csv ok.csv --gltf /nonexistent/x.glb",
        "export run.rbc --csv ok.csv --gltf folder.glb",
        "export run.rbc --csv ok.csv --gltf new.glb --events /nonexistent/e.jsonl",
        "--headless --backend reference --steps 5 --csv ok.csv --gltf folder.glb",
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int code = run(dir, cases[c]);
        if (code != 2) fail_msg("'%s': exit %d, expected 2: %s", cases[c], code, err);
        snprintf(path, sizeof path, "%s/ok.csv", dir);
        size_t n;
        char *csv = read_all(path, &n);
        assert_string_equal(csv, "the old CSV\n");
        free(csv);
        listing(dir, list, sizeof list);
        if (strcmp(list, "folder.glb\nok.csv\nrun.rbc\n")) fail_msg("'%s' left: %s", cases[c], list);
    }
    /* and with every output writable, all are written */
    assert_int_equal(run(dir, "export run.rbc --csv ok.csv --gltf new.glb --events e.jsonl"), 0);
    listing(dir, list, sizeof list);
    assert_string_equal(list, "e.jsonl\nfolder.glb\nnew.glb\nok.csv\nrun.rbc\n");
}

int main(void) {
    /* the children's shader caches off: a file size limit would fail their writes */
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    const struct CMUnitTest tests[] = {
#ifdef RB_TEST_HAVE_SANDBOX
        cmocka_unit_test(test_screenshot_full_disk_keeps_the_old_file),
        cmocka_unit_test(test_two_saves_in_one_second),
#endif
        cmocka_unit_test(test_same_file_twice_is_refused),
        cmocka_unit_test(test_non_regular_output_is_refused),
        cmocka_unit_test(test_sigterm_headless_csv_leaves_no_temporary),
        cmocka_unit_test(test_sigint_export_leaves_no_temporary),
        cmocka_unit_test(test_export_all_or_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
