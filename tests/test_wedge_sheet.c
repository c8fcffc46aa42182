/* test_wedge_sheet.c - a wedge's pictures and tables as a user makes them:
 * rubble --headless --shots (PNGs at simulated times, drawn offscreen by the
 * real renderer; the run's digest the same with them or without, on both
 * backends; times outside the run and a prefix onto an input refused), and
 * rubble wedge --collect on a folder built here by hand from a real run's
 * shots (summary.csv's rows, the sheet's size by the layout of
 * src/app/wedge_collect.h, a tile's pixels its shot's, missing shots grey;
 * a huge or broken summary a failed row; a wedge of 10^6 variants refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <stb/stb_image.h>

#include "app/wedge_collect.h"

static char out[1 << 16], err[1 << 16];

/* A folder of the test's own under the build folder, empty. */
static void fresh_folder(char *dir, size_t size, const char *name) {
    char cmd[1200];
    snprintf(dir, size, "%s/tests/wedge-sheet-%s", RB_TEST_BUILD_DIR, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* Runs rubble with args; returns its exit code, stdout in out, stderr in err. */
static int run(const char *args) {
    char cmd[8192], err_path[512];
    snprintf(err_path, sizeof err_path, "%s/tests/wedge_sheet_stderr.txt", RB_TEST_BUILD_DIR);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", RB_TEST_RUBBLE, args, err_path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    FILE *e = fopen(err_path, "r");
    n = e ? fread(err, 1, sizeof err - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The "digest" of a --json run's line in out. */
static void digest_of(char *digest, size_t size) {
    const char *d = strstr(out, "\"digest\":\"");
    if (!d) fail_msg("no digest in: %s (stderr: %s)", out, err);
    snprintf(digest, size, "%.16s", d + strlen("\"digest\":\""));
}

/* The names in a folder, sorted, one a line. */
static void listing(const char *dir, char *list, size_t size) {
    struct dirent **names;
    const int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    list[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
            snprintf(list + strlen(list), size - strlen(list), "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

static uint8_t *load(const char *path, int *w, int *h) {
    int n;
    uint8_t *rgb = stbi_load(path, w, h, &n, 3);
    if (!rgb) fail_msg("%s is not a PNG that reads", path);
    return rgb;
}

/* Mean absolute difference a channel between two images of one size. */
static double difference(const uint8_t *a, const uint8_t *b, int w, int h) {
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) sum += abs((int)a[i] - (int)b[i]);
    return sum / ((double)w * h * 3);
}

/* The mean of channel k over a w x h block at (x, y) of an image iw wide. */
static double block_mean(const uint8_t *rgb, int iw, int x, int y, int w, int h, int k) {
    double sum = 0.0;
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++) sum += rgb[((size_t)j * iw + i) * 3 + k];
    return sum / (w * h);
}

#define STEPS 200 /* 0.32 s at the default 0.0016 s: formation 1's tower falls */

/* Shots at three times exist, are PNGs of the size asked, differ as the
 * tower falls, leave nothing else in their folder, and leave the run as it
 * was: the same digest as without them, on each backend. */
static void test_shots_leave_the_run_alone(void **state) {
    (void)state;
    const char *backends[] = {"reference", "opencl"};
    for (int b = 0; b < 2; b++) {
        char dir[512], args[2048], plain[32], shot_digest[32], list[1024];
        fresh_folder(dir, sizeof dir, backends[b]);
        snprintf(args, sizeof args, "--headless --json --formation 1 --bodies 24 --steps %d --backend %s", STEPS,
                 backends[b]);
        if (run(args) != 0) fail_msg("%s: %s", args, err);
        digest_of(plain, sizeof plain);
        snprintf(args, sizeof args,
                 "--headless --json --formation 1 --bodies 24 --steps %d --backend %s --shots 0,0.16,0.32 "
                 "--shot-size 320x180 --shot-prefix '%s/shot-'",
                 STEPS, backends[b], dir);
        if (run(args) != 0) fail_msg("%s: %s", args, err);
        digest_of(shot_digest, sizeof shot_digest);
        assert_string_equal(plain, shot_digest);
        listing(dir, list, sizeof list);
        assert_string_equal(list, "shot-0.00.png\nshot-0.16.png\nshot-0.32.png\n");
        char path[600];
        int w, h;
        snprintf(path, sizeof path, "%s/shot-0.00.png", dir);
        uint8_t *first = load(path, &w, &h);
        assert_int_equal(w, 320);
        assert_int_equal(h, 180);
        snprintf(path, sizeof path, "%s/shot-0.32.png", dir);
        uint8_t *last = load(path, &w, &h);
        assert_int_equal(w, 320);
        assert_int_equal(h, 180);
        const double moved = difference(first, last, w, h);
        if (!(moved > 0.5)) fail_msg("%s: the shots at 0 and 0.32 s differ by %.3f a channel", backends[b], moved);
        free(first), free(last);
    }
}

/* Times outside the run, a bad list, and a prefix that would name an input
 * are refused before anything runs, naming the value; nothing is written. */
static void test_shots_refused(void **state) {
    (void)state;
    char dir[512], args[2048], list[1024], scene[600], cmd[1400];
    fresh_folder(dir, sizeof dir, "refused");
    snprintf(args, sizeof args,
             "--headless --formation 1 --bodies 8 --steps 100 --backend reference --shots 0,0.5 --shot-prefix '%s/s-'",
             dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "0.5 s is not within the run, 0 to 0.16 s")) fail_msg("stderr: %s", err);
    snprintf(args, sizeof args, "--headless --steps 100 --shots 0,soon --shot-prefix '%s/s-'", dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "'soon'")) fail_msg("stderr: %s", err);
    snprintf(args, sizeof args, "--headless --steps 100 --shots 0.1,0.05 --shot-prefix '%s/s-'", dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "in order")) fail_msg("stderr: %s", err);
    snprintf(args, sizeof args, "--headless --steps 100 --shots 0.1,0.104 --shot-prefix '%s/s-'", dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "0.10")) fail_msg("stderr: %s", err);
    snprintf(args, sizeof args, "--headless --steps 100 --shots 0 --shot-size 10x10000 --shot-prefix '%s/s-'", dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "'10x10000'")) fail_msg("stderr: %s", err);
    /* a scene whose name is a shot's: refused, the scene untouched */
    snprintf(scene, sizeof scene, "%s/s-0.00.png", dir);
    snprintf(cmd, sizeof cmd, "cp '%s/assets/scenes/brick_wall.json' '%s'", RB_SOURCE_DIR, scene);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, "--headless --steps 10 --scene '%s' --shots 0 --shot-prefix '%s/s-'", scene, dir);
    assert_int_equal(run(args), 2);
    if (!strstr(err, "would write over --scene")) fail_msg("stderr: %s", err);
    snprintf(cmd, sizeof cmd, "cmp -s '%s/assets/scenes/brick_wall.json' '%s'", RB_SOURCE_DIR, scene);
    assert_int_equal(system(cmd), 0);
    listing(dir, list, sizeof list);
    assert_string_equal(list, "s-0.00.png\n");
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void shell(const char *fmt, ...) {
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0) fail_msg("%s failed", cmd);
}

/* A wedge folder by hand: two keys, 2 x 2 variants, shots at 0 and 0.48 s
 * from a real run (640x360). 0000: both shots; 0001: its first shot is the
 * run's 0.48 s one, its second absent; 0002: failed, no shots; 0003: no
 * folder at all. */
static void make_wedge(char *dir, size_t size, char *shots, size_t shots_size) {
    fresh_folder(dir, size, "collect");
    snprintf(shots, shots_size, "%s-shots", dir);
    shell("rm -rf '%s' && mkdir -p '%s' '%s/0000' '%s/0001' '%s/0002'", shots, shots, dir, dir, dir);
    char args[2048];
    snprintf(args, sizeof args,
             "--headless --formation 1 --bodies 24 --steps 300 --backend reference --shots 0,0.48 --shot-prefix "
             "'%s/shot-'",
             shots);
    if (run(args) != 0) fail_msg("%s: %s", args, err);
    write_file(dir, "wedge.json",
               "{\"scene\": \"/somewhere/tower.json\", \"steps\": 300, \"outputs\": [\"summary\"], \"shots\": [0, 0.48],"
               " \"keys\": [\"world.gravity\", \"bodies[0].velocity\"], \"variants\": ["
               "{\"name\": \"0000\", \"values\": {\"world.gravity\": -9.81, \"bodies[0].velocity\": [0, 0, -5]}},"
               "{\"name\": \"0001\", \"values\": {\"world.gravity\": -9.81, \"bodies[0].velocity\": [0, 0, -10]}},"
               "{\"name\": \"0002\", \"values\": {\"world.gravity\": -1.62, \"bodies[0].velocity\": [0, 0, -5]}},"
               "{\"name\": \"0003\", \"values\": {\"world.gravity\": -1.62, \"bodies[0].velocity\": [0, 0, -10]}}]}");
    shell("cp '%s/shot-0.00.png' '%s/shot-0.48.png' '%s/0000/'", shots, shots, dir);
    shell("cp '%s/shot-0.48.png' '%s/0001/shot-0.00.png'", shots, dir);
    write_file(dir, "0000/summary.json",
               "{\"variant\": \"0000\", \"values\": {}, \"status\": \"ok\", \"bodies\": 24, \"breaks\": 0, "
               "\"max_speed\": 4.25, \"nan\": false, \"digest\": \"00112233aabbccdd\", \"wall_s\": 1.5, \"steps\": 100}");
    write_file(dir, "0001/summary.json",
               "{\"variant\": \"0001\", \"values\": {}, \"status\": \"ok\", \"bodies\": 25, \"breaks\": 3, "
               "\"max_speed\": 7.5, \"nan\": false, \"digest\": \"ffeeddccbbaa9988\", \"wall_s\": 2.25, \"steps\": 100}");
    write_file(dir, "0002/summary.json",
               "{\"variant\": \"0002\", \"values\": {}, \"status\": \"failed\", \"error\": \"blew up, badly\", "
               "\"nan\": true}");
}

/* The sheet's rows of tiles start here (wedge_collect.h): the header's
 * four lines (scene, keys, the second key's values, the times), then each
 * row's band: a line naming the first key's value, the tile. */
#define PAD RB_SHEET_PAD
#define LINE RB_SHEET_LINE
#define TW 320 /* 640x360 shots at RB_SHEET_THUMB */
#define TH 180
#define TILE_W (2 * TW + RB_SHEET_SHOT_GAP)
#define TILE_H (TH + 3 * LINE)
#define BAND (LINE + TILE_H + PAD)
#define TILE_X(col) (PAD + (col) * (TILE_W + PAD))
#define TILE_Y(row) (PAD + 4 * LINE + (row) * BAND + LINE)

/* Block means of the sheet at a shot's place and of the shot there, 16x9
 * blocks over the thumbnail: equal (to rounding) where the shot is its own. */
static double tile_vs_shot(const uint8_t *sheet, int sw, int x, int y, const uint8_t *shot) {
    double worst = 0.0;
    for (int by = 0; by < 9; by++)
        for (int bx = 0; bx < 16; bx++)
            for (int k = 0; k < 3; k++) {
                const double a = block_mean(sheet, sw, x + bx * 20, y + by * 20, 20, 20, k),
                             b = block_mean(shot, 640, bx * 40, by * 40, 40, 40, k);
                if (fabs(a - b) > worst) worst = fabs(a - b);
            }
    return worst;
}

static void test_collect(void **state) {
    (void)state;
    char dir[512], shots[600], args[1024], path[1024];
    make_wedge(dir, sizeof dir, shots, sizeof shots);
    snprintf(args, sizeof args, "wedge --collect '%s'", dir);
    if (run(args) != 0) fail_msg("%s: %s", args, err);
    if (!strstr(out, "2 variants did not run or failed")) fail_msg("stdout: %s", out);
    /* summary.csv: the header, then a row a variant, in order, with the values given */
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char csv[4096];
    csv[fread(csv, 1, sizeof csv - 1, f)] = '\0';
    fclose(f);
    assert_string_equal(
        csv, "variant,world.gravity,bodies[0].velocity,status,bodies,breaks,max_speed,nan,digest,wall_s,error\n"
             "0000,-9.81,\"[0,0,-5]\",ok,24,0,4.25,false,00112233aabbccdd,1.5,\n"
             "0001,-9.81,\"[0,0,-10]\",ok,25,3,7.5,false,ffeeddccbbaa9988,2.25,\n"
             "0002,-1.62,\"[0,0,-5]\",failed,,,,true,,,\"blew up, badly\"\n"
             "0003,-1.62,\"[0,0,-10]\",missing,,,,,,,0003/summary.json: none\n");
    snprintf(path, sizeof path, "%s/summary.json", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    char json[8192];
    json[fread(json, 1, sizeof json - 1, f)] = '\0';
    fclose(f);
    assert_true(json[0] == '[' && strstr(json, "\"status\":\t\"missing\"") && strstr(json, "\"max_speed\":\t7.5"));

    /* the sheet: the layout's size, tiles placed by value (rows: gravity, columns: velocity) */
    int sw, sh, w, h;
    snprintf(path, sizeof path, "%s/sheet.png", dir);
    uint8_t *sheet = load(path, &sw, &sh);
    assert_int_equal(sw, PAD + 2 * (TILE_W + PAD));
    assert_int_equal(sh, PAD + 4 * LINE + 2 * BAND);
    snprintf(path, sizeof path, "%s/shot-0.00.png", shots);
    uint8_t *at0 = load(path, &w, &h);
    assert_true(w == 640 && h == 360);
    snprintf(path, sizeof path, "%s/shot-0.48.png", shots);
    uint8_t *at48 = load(path, &w, &h);
    /* 0000 (row 0, column 0): its two shots, in order */
    double d = tile_vs_shot(sheet, sw, TILE_X(0), TILE_Y(0), at0);
    if (d > 1.0) fail_msg("0000's first shot differs from its file by %.2f", d);
    d = tile_vs_shot(sheet, sw, TILE_X(0) + TW + RB_SHEET_SHOT_GAP, TILE_Y(0), at48);
    if (d > 1.0) fail_msg("0000's second shot differs from its file by %.2f", d);
    /* 0001 (row 0, column 1): its first shot is the 0.48 s picture, not the 0 s one */
    d = tile_vs_shot(sheet, sw, TILE_X(1), TILE_Y(0), at48);
    if (d > 1.0) fail_msg("0001's first shot differs from its file by %.2f", d);
    assert_true(tile_vs_shot(sheet, sw, TILE_X(1), TILE_Y(0), at0) > 10.0);
    /* grey where a shot is absent: 0001's second, 0002's (failed) and 0003's (missing) */
    const int grey[][2] = {{TILE_X(1) + TW + RB_SHEET_SHOT_GAP, TILE_Y(0)},
                           {TILE_X(0), TILE_Y(1)},
                           {TILE_X(0) + TW + RB_SHEET_SHOT_GAP, TILE_Y(1)},
                           {TILE_X(1), TILE_Y(1)}};
    for (int g = 0; g < 4; g++)
        for (int k = 0; k < 3; k++) { /* a corner of the tile, clear of its word */
            const double m = block_mean(sheet, sw, grey[g][0], grey[g][1], 40, 40, k);
            if (m != 128.0) fail_msg("absent shot %d: its corner's mean is %.2f, not grey", g, m);
        }
    free(sheet), free(at0), free(at48);
}

/* A wedge without shots (assets/wedges/wall_ball.json's "outputs": [] and
 * none) gets tiles a thumbnail wide for its names and values, over a band
 * saying "no shots": at 16 pixels wide (a shot's default size) the text was
 * cut to nothing. */
static void test_collect_without_shots(void **state) {
    (void)state;
    char dir[512], args[1024], path[1024];
    fresh_folder(dir, sizeof dir, "noshots");
    shell("mkdir -p '%s/0000' '%s/0001'", dir, dir);
    write_file(dir, "wedge.json",
               "{\"scene\": \"/somewhere/wall.json\", \"steps\": 100, \"outputs\": [], \"keys\": [\"world.gravity\"],"
               " \"variants\": [{\"name\": \"0000\", \"values\": {\"world.gravity\": -9.81}},"
               "{\"name\": \"0001\", \"values\": {\"world.gravity\": -1.62}}]}");
    write_file(dir, "0000/summary.json",
               "{\"variant\": \"0000\", \"values\": {}, \"status\": \"ok\", \"bodies\": 24, \"breaks\": 0, "
               "\"max_speed\": 4.25, \"nan\": false, \"digest\": \"00112233aabbccdd\", \"wall_s\": 1.5, \"steps\": 100}");
    write_file(dir, "0001/summary.json",
               "{\"variant\": \"0001\", \"values\": {}, \"status\": \"ok\", \"bodies\": 24, \"breaks\": 0, "
               "\"max_speed\": 1.5, \"nan\": false, \"digest\": \"ffeeddccbbaa9988\", \"wall_s\": 1.5, \"steps\": 100}");
    snprintf(args, sizeof args, "wedge --collect '%s'", dir);
    if (run(args) != 0) fail_msg("%s: %s", args, err);
    int sw, sh;
    snprintf(path, sizeof path, "%s/sheet.png", dir);
    uint8_t *sheet = load(path, &sw, &sh);
    /* two tiles side by side (one key: a square grid), each RB_SHEET_THUMB
     * wide: a band of a line, the name and status and the value under it;
     * the header's three lines (scene, keys, times) */
    assert_int_equal(sw, PAD + 2 * (RB_SHEET_THUMB + PAD));
    assert_int_equal(sh, PAD + 3 * LINE + (LINE + 2 * LINE + PAD));
    /* the first tile's band is grey (no shots) */
    const double m = block_mean(sheet, sw, PAD + 2, PAD + 3 * LINE + 1, 8, 8, 0);
    if (m != 128.0) fail_msg("the band's corner is %.2f, not grey", m);
    free(sheet);
}

/* A summary that is huge, or not JSON, is a failed row saying so; the
 * collection goes on. A wedge.json of 10^6 variants, or not JSON, or
 * naming a variant out of its folder, is refused naming the file and the
 * limit, and nothing is written. */
static void test_collect_bad_input(void **state) {
    (void)state;
    char dir[512], shots[600], args[1024], path[1024];
    make_wedge(dir, sizeof dir, shots, sizeof shots);
    snprintf(path, sizeof path, "%s/0001/summary.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < RB_WEDGE_MAX_SUMMARY + 10; i++) fputc(' ', f);
    fputs("{}", f);
    fclose(f);
    write_file(dir, "0000/summary.json", "{\"variant\": \"0000\", \"status\": ");
    snprintf(args, sizeof args, "wedge --collect '%s'", dir);
    if (run(args) != 0) fail_msg("%s: %s", args, err);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    char csv[4096];
    csv[fread(csv, 1, sizeof csv - 1, f)] = '\0';
    fclose(f);
    if (!strstr(csv, "\n0000,-9.81,\"[0,0,-5]\",failed,,,,,,,0000/summary.json: not a JSON object\n"))
        fail_msg("summary.csv: %s", csv);
    if (!strstr(csv, "\n0001,-9.81,\"[0,0,-10]\",failed,,,,,,,0001/summary.json: 1048588 bytes; at most 1048576 are read\n"))
        fail_msg("summary.csv: %s", csv);

    const char *bad[][2] = {
        {"{\"keys\": [], \"variants\": [", "not JSON"},
        {"{\"keys\": [], \"variants\": [{\"name\": \"../0000\"}]}", "variants[0]: name"},
        {"{\"keys\": [], \"variants\": [{\"name\": \"0000\"}, {\"name\": \"0000\"}]}", "variants[1]: the name '0000'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        shell("rm -f '%s/summary.csv' '%s/summary.json' '%s/sheet.png'", dir, dir, dir);
        write_file(dir, "wedge.json", bad[i][0]);
        assert_int_equal(run(args), 1);
        if (!strstr(err, "wedge.json") || !strstr(err, bad[i][1])) fail_msg("%s: stderr: %s", bad[i][0], err);
        char list[1024];
        listing(dir, list, sizeof list);
        assert_string_equal(list, "0000\n0001\n0002\nwedge.json\n");
    }
    /* 10^6 variants, each {} (3 MB): refused by the count */
    snprintf(path, sizeof path, "%s/wedge.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"keys\": [], \"variants\": [{}", f);
    for (int i = 1; i < 1000000; i++) fputs(",{}", f);
    fputs("]}", f);
    fclose(f);
    assert_int_equal(run(args), 1);
    if (!strstr(err, "1000000 variants; a wedge has at most 10000")) fail_msg("stderr: %s", err);
    char list[1024];
    listing(dir, list, sizeof list);
    assert_string_equal(list, "0000\n0001\n0002\nwedge.json\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shots_leave_the_run_alone),
        cmocka_unit_test(test_shots_refused),
        cmocka_unit_test(test_collect),
        cmocka_unit_test(test_collect_without_shots),
        cmocka_unit_test(test_collect_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
