/* rubble --video as a user runs it (offscreen): the frames and size asked
 * for, as ffprobe counts them, the picture the right way up; and each way it
 * can fail (no ffmpeg, an output that cannot be written, ffmpeg failing
 * mid-way) says so, names the file, and leaves nothing under its name or
 * beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb/stb_image.h>

#define W 320
#define H 240
#define FRAMES 30

static char out[1 << 16], err[1 << 16];

/* A folder of the test's own under the build folder, empty. */
static void fresh_folder(char *dir, size_t size, const char *name) {
    char cmd[1200];
    snprintf(dir, size, "%s/tests/video-%s", RB_TEST_BUILD_DIR, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* The names in a folder, one a line, sorted as readdir gives them; "" if empty. */
static void folder_listing(const char *dir, char *list, size_t size) {
    list[0] = '\0';
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(list + strlen(list), size - strlen(list), "%s\n", e->d_name);
    closedir(d);
}

/* Runs rubble with args, with PATH replaced by path when it is not NULL;
 * returns its exit code, stdout in out, stderr in err. */
static int run(const char *path, const char *args) {
    char cmd[4096], err_path[512];
    snprintf(err_path, sizeof err_path, "%s/tests/video_stderr.txt", RB_TEST_BUILD_DIR);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", RB_TEST_RUBBLE, args, err_path);
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    if (path) setenv("PATH", path, 1); /* popen's shell is /bin/sh and rubble a full path: neither searches */
    FILE *p = popen(cmd, "r");
    if (path) saved ? setenv("PATH", saved, 1) : unsetenv("PATH");
    free(saved);
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

/* ffprobe's count of a video's frames and its size: "W,H,FRAMES". */
static void probe(const char *video, char *answer, size_t size) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=width,height,nb_read_frames "
             "-of csv=p=0 '%s'",
             video);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(answer, 1, size - 1, p);
    answer[n] = '\0';
    while (n > 0 && (answer[n - 1] == '\n' || answer[n - 1] == '\r')) answer[--n] = '\0';
    if (pclose(p) != 0)
        fail_msg("ffprobe %s failed (is ffmpeg installed? scripts/deps installs it): %s", video, answer);
}

/* Frame k of a video as RGB rows from the top, decoded by ffmpeg. */
static uint8_t *decode_frame(const char *video, int k, int w, int h) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -v error -i '%s' -vf 'select=eq(n\\,%d)' -frames:v 1 -f rawvideo -pix_fmt rgb24 -", video, k);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    assert_non_null(rgb);
    size_t n = fread(rgb, 1, (size_t)w * h * 3, p);
    assert_int_equal(pclose(p), 0);
    assert_int_equal(n, (size_t)w * h * 3);
    return rgb;
}

/* Mean absolute difference per channel of two RGB images, b read upside down if flip. */
static double difference(const uint8_t *a, const uint8_t *b, int w, int h, bool flip) {
    double sum = 0.0;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w * 3; i++)
            sum += abs((int)a[(size_t)y * w * 3 + i] - (int)b[(size_t)(flip ? h - 1 - y : y) * w * 3 + i]);
    return sum / ((double)w * h * 3);
}

/* --frames 30 --width 320 --height 240: 30 frames of 320x240, and its last
 * frame is the last frame drawn (--screenshot saves the same pixels), the
 * right way up. */
static void test_frames_and_size(void **state) {
    char dir[512], video[600], shot[600], args[2048], answer[128], list[1024];
    fresh_folder(dir, sizeof dir, "frames");
    snprintf(video, sizeof video, "%s/out.mp4", dir);
    snprintf(shot, sizeof shot, "%s/last.png", dir);
    snprintf(args, sizeof args,
             "--frames %d --width %d --height %d --bodies 20 --backend reference --video '%s' --screenshot '%s'",
             FRAMES, W, H, video, shot);
    int code = run(NULL, args);
    if (code != 0) fail_msg("exit %d: %s", code, err);
    probe(video, answer, sizeof answer);
    assert_string_equal(answer, "320,240,30");
    folder_listing(dir, list, sizeof list);
    if (strcmp(list, "out.mp4\nlast.png\n") && strcmp(list, "last.png\nout.mp4\n"))
        fail_msg("a stray file beside the video: %s", list);

    int w, h, n;
    uint8_t *png = stbi_load(shot, &w, &h, &n, 3);
    assert_non_null(png);
    assert_true(w == W && h == H);
    uint8_t *last = decode_frame(video, FRAMES - 1, W, H);
    const double same = difference(png, last, W, H, false), flipped = difference(png, last, W, H, true);
    /* H.264 at 4:2:0 loses a little (3.7 here, most of it at the HUD's
     * letters); upside down is another picture (38.6) */
    if (!(same < 6.0 && flipped > 4.0 * same))
        fail_msg("the video's last frame differs from the screenshot by %.2f a channel (upside down: %.2f)", same,
                 flipped);
    free(last);
    stbi_image_free(png);
}

/* An odd window size: H.264's 4:2:0 needs even sizes, so the last column and
 * bottom row are cropped. */
static void test_odd_size_is_cropped(void **state) {
    char dir[512], video[600], args[2048], answer[128];
    fresh_folder(dir, sizeof dir, "odd");
    snprintf(video, sizeof video, "%s/odd.mp4", dir);
    snprintf(args, sizeof args, "--frames 3 --width 161 --height 121 --bodies 5 --backend reference --video '%s'",
             video);
    int code = run(NULL, args);
    if (code != 0) fail_msg("exit %d: %s", code, err);
    assert_non_null(strstr(err, "cropped to even sizes"));
    probe(video, answer, sizeof answer);
    assert_string_equal(answer, "160,120,3");
}

/* No ffmpeg on PATH: exit 2 at start, the message names the output and
 * ffmpeg and the package, and nothing is written. */
static void test_no_ffmpeg_exits_2(void **state) {
    char dir[512], empty[512], video[600], args[2048], says[1024], list[1024];
    fresh_folder(dir, sizeof dir, "no-ffmpeg");
    fresh_folder(empty, sizeof empty, "empty-path");
    snprintf(video, sizeof video, "%s/out.mp4", dir);
    snprintf(args, sizeof args, "--frames %d --width %d --height %d --video '%s'", FRAMES, W, H, video);
    int code = run(empty, args);
    snprintf(says, sizeof says, "rubble: --video %s: ffmpeg is not installed", video);
    if (code != 2 || !strstr(err, says) || !strstr(err, "apt-get install ffmpeg"))
        fail_msg("exit %d, stderr '%s' should say '%s' and how to install it", code, err, says);
    assert_null(strstr(err, "OpenGL")); /* said at start, before a window opens */
    folder_listing(dir, list, sizeof list);
    assert_string_equal(list, "");
}

/* An output whose folder does not exist, is a file, or cannot be written:
 * exit 2 at start, naming it, and nothing made. */
static void test_unwritable_output_exits_2(void **state) {
    static const struct {
        const char *video, *says;
    } cases[] = {
        {"/no/such/folder/out.mp4", "--video /no/such/folder/out.mp4: no folder /no/such/folder"},
        {"/etc/hostname/out.mp4", "--video /etc/hostname/out.mp4: no folder /etc/hostname"},
        {"/proc/out.mp4", "--video /proc/out.mp4: cannot write in /proc"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[1024];
        snprintf(args, sizeof args, "--frames %d --width %d --height %d --video %s", FRAMES, W, H, cases[i].video);
        int code = run(NULL, args);
        if (code != 2 || !strstr(err, cases[i].says))
            fail_msg("'%s': exit %d, stderr '%s' should say '%s'", args, code, err, cases[i].says);
        assert_int_not_equal(access(cases[i].video, F_OK), 0);
    }
}

/* --video with --headless: nothing is drawn, so it is refused. */
static void test_headless_refused(void **state) {
    int code = run(NULL, "--headless --steps 1 --video out.mp4");
    if (code != 2 || !strstr(err, "--video") || !strstr(err, "--headless"))
        fail_msg("exit %d, stderr '%s' should refuse --video with --headless", code, err);
    assert_int_not_equal(access("out.mp4", F_OK), 0);
}

/* An ffmpeg that fails (a script on PATH in its place): at once, after a
 * few frames, or after taking every frame; each writes something first where
 * it was told to. The sandbox says so naming the output, exits 1, and leaves
 * nothing under the name and no temporary beside it. */
static void test_ffmpeg_failing_leaves_nothing(void **state) {
    static const struct {
        const char *name, *body, *says;
    } cases[] = {
        {"at-once", "exit 1\n", "ffmpeg failed (exit status 1) after 0 frames; no video was saved"},
        {"mid-way", "/usr/bin/head -c 1000000 >/dev/null\nexit 1\n", "ffmpeg stopped taking frames at frame "},
        {"at-the-end", "/bin/cat >/dev/null\nexit 3\n", "ffmpeg failed (exit status 3) after 30 frames"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[512], bin[600], fake[700], video[600], args[2048], list[1024];
        fresh_folder(dir, sizeof dir, cases[i].name);
        snprintf(bin, sizeof bin, "%s/bin", dir);
        mkdir(bin, 0755);
        snprintf(fake, sizeof fake, "%s/ffmpeg", bin);
        FILE *f = fopen(fake, "w");
        assert_non_null(f);
        /* the last argument is the file ffmpeg is told to write */
        fprintf(f, "#!/bin/sh\nfor a; do last=$a; done\necho half a video >\"$last\"\n%s", cases[i].body);
        fclose(f);
        chmod(fake, 0755);
        snprintf(video, sizeof video, "%s/out.mp4", dir);
        snprintf(args, sizeof args, "--frames %d --width %d --height %d --bodies 5 --backend reference --video '%s'",
                 FRAMES, W, H, video);
        int code = run(bin, args);
        if (code != 1 || !strstr(err, video) || !strstr(err, cases[i].says))
            fail_msg("%s: exit %d, stderr '%s' should name %s and say '%s'", cases[i].name, code, err, video,
                     cases[i].says);
        folder_listing(dir, list, sizeof list);
        if (strcmp(list, "bin\n")) fail_msg("%s: left beside the fake ffmpeg: %s", cases[i].name, list);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_and_size),   cmocka_unit_test(test_odd_size_is_cropped),
        cmocka_unit_test(test_no_ffmpeg_exits_2), cmocka_unit_test(test_unwritable_output_exits_2),
        cmocka_unit_test(test_headless_refused),  cmocka_unit_test(test_ffmpeg_failing_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
