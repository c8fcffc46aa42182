/* test_cache_bounds.c - a cache reader's memory and time bounded by the
 * cache's size, whatever the file (docs/cache-format.md, "Reading in
 * bounded memory"): a chunk that inflates far past its stored bytes, a FIFO,
 * a device, a directory, a large file that is not a cache, a header with a
 * bit flipped, bytes after the end mark. Each hostile file is made here and
 * read in a child process (rb_cache_open, or the rubble program's export),
 * whose peak memory and time are measured. Files are in the build folder. */
#include "rb_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "record/cache.h"
#include "record/cache_file.h"

/* A reader of a hostile file may use this much memory beyond what the test
 * process held when it started it, and take this long. */
#define MEMORY_MB 96
#define SECONDS 5.0

static char g_cache[512]; /* a real recording: the rubble program's */

static char *out_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/cache-bounds-%s", RB_TEST_BUILD_DIR, name);
    return out;
}

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*n + 1);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

static void spit(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This process's resident memory now, kB (what a child starts with). */
static long resident_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    assert_true(kb > 0);
    return kb;
}

/* What a child did: its message, how long it took, how much memory it
 * took beyond what this process had. */
typedef struct outcome {
    bool opened;
    char err[1024];
    double seconds;
    long extra_mb;
} outcome;

/* rb_cache_open(path) in a child process, killed after 4 times SECONDS. */
static outcome open_in_child(const char *path) {
    int pipe_fd[2];
    assert_int_equal(pipe(pipe_fd), 0);
    const long before = resident_kb();
    const double start = now();
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipe_fd[0]);
        alarm((unsigned)(4 * SECONDS));
        char err[1024] = "";
        rb_cache *c = rb_cache_open(path, err, sizeof err);
        if (c) snprintf(err, sizeof err, "opened");
        rb_cache_close(c);
        if (write(pipe_fd[1], err, strlen(err) + 1) < 0) _exit(3);
        _exit(c ? 0 : 1);
    }
    close(pipe_fd[1]);
    outcome o = {0};
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof o.err && (n = read(pipe_fd[0], o.err + got, sizeof o.err - 1 - got)) > 0) got += (size_t)n;
    close(pipe_fd[0]);
    int status;
    struct rusage u;
    assert_int_equal(wait4(pid, &status, 0, &u), pid);
    o.seconds = now() - start;
    if (WIFSIGNALED(status))
        fail_msg("reading %s: killed by signal %d after %.1f s", path, WTERMSIG(status), o.seconds);
    o.opened = WEXITSTATUS(status) == 0;
    o.extra_mb = (u.ru_maxrss - before) / 1024;
    printf("  %s: %s (%.2f s, %ld MB more)\n", path, o.err, o.seconds, o.extra_mb);
    return o;
}

/* Refused by rb_cache_open in bounded time and memory, the message naming
 * the file and saying what. */
static void expect_refused(const char *path, const char *what) {
    const outcome o = open_in_child(path);
    if (o.opened) fail_msg("%s opened; expected \"%s\"", path, what);
    if (strncmp(o.err, path, strlen(path)) != 0 || !strstr(o.err, what))
        fail_msg("refused with \"%s\"; expected \"%s: ...%s...\"", o.err, path, what);
    if (o.seconds > SECONDS) fail_msg("%s: refused after %.1f s", path, o.seconds);
    if (o.extra_mb > MEMORY_MB) fail_msg("%s: the reader took %ld MB", path, o.extra_mb);
}

/* ---- caches made here, from the format's description ---- */

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static void le32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void le_f32(uint8_t *p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    le32(p, v);
}

/* A version 5 header: 60 frames a second, a step of 0.0016 s, its CRC. */
static void header(uint8_t h[36]) {
    memcpy(h, "RUBBLEC1", 8);
    le32(h + 8, 5), le32(h + 12, 36);
    const double rate = 60.0, dt = 0.0016;
    memcpy(h + 16, &rate, 8), memcpy(h + 24, &dt, 8); /* little-endian hosts only, as the rest of Rubble */
    le32(h + 32, crc32_of(h, 32));
}

/* A chunk's header for stored bytes of it, which give `raw` bytes. */
static void chunk_header(uint8_t h[20], const uint8_t *stored, uint32_t packed, uint32_t raw) {
    memcpy(h, "RBCK", 4);
    le32(h + 4, packed), le32(h + 8, raw);
    le32(h + 12, crc32_of(stored, packed));
    le32(h + 16, crc32_of(h, 16));
}

/* A shape record's head: world shape 0 of `particles` particles (12 bytes
 * each follow, then its mesh's two counts: 0, no mesh). */
static size_t shape_record(uint8_t *p, uint32_t particles) {
    size_t n = 0;
    p[n++] = 'S';
    le32(p + n, 0), n += 4;
    memset(p + n, 0, 64), memcpy(p + n, "cube", 4), n += 64;
    le_f32(p + n, 0.1f), le_f32(p + n + 4, 1.0f), n += 8;
    le32(p + n, particles), n += 4;
    return n;
}

/* A frame record's head: frame 0 at time 0 with `bodies` bodies (40 bytes each follow). */
static size_t frame_record(uint8_t *p, uint32_t bodies) {
    size_t n = 0;
    p[n++] = 'F';
    le32(p + n, 0), n += 4;
    memset(p + n, 0, 8), n += 8;
    le32(p + n, bodies), n += 4;
    return n;
}

/* A cache of one chunk: a shape of `particles` particles, all at the
 * origin, and a frame of `bodies` bodies (each the same body of it, at the
 * origin), compressed as a stream so that this process never holds the raw
 * bytes; no end mark (the reader stops at the chunk anyway). */
static void inflating_cache(const char *path, uint32_t particles, uint32_t bodies) {
    uint8_t head[128];
    size_t head_n = shape_record(head, particles);
    static uint8_t zeros[12 * 4096], body[40 * 1024];
    for (int b = 0; b < 1024; b++) {
        uint8_t *p = body + 40 * b;
        memset(p, 0, 40);
        le32(p, 1), le32(p + 4, 1), le_f32(p + 36, 1.0f); /* body (1, 1), shape 0, at rest, w = 1 */
    }
    uint8_t frame_head[32];
    const size_t frame_n = frame_record(frame_head, bodies);
    const uint64_t raw = head_n + 12ull * particles + 8 + frame_n + 40ull * bodies;
    assert_true(raw < (1u << 30));
    ZSTD_CCtx *z = ZSTD_createCCtx();
    const size_t cap = 1 << 22;
    uint8_t *stored = malloc(cap);
    ZSTD_outBuffer out = {stored, cap, 0};
    ZSTD_CCtx_setPledgedSrcSize(z, raw);
    const struct {
        const uint8_t *p;
        size_t n;
        uint64_t times;
    } parts[] = {{head, head_n, 1},
                 {zeros, sizeof zeros, particles / 4096},
                 {zeros, 12 * (particles % 4096), 1},
                 {zeros, 8, 1}, /* no mesh */
                 {frame_head, frame_n, 1},
                 {body, sizeof body, bodies / 1024},
                 {body, 40 * (bodies % 1024), 1}};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
        for (uint64_t t = 0; t < parts[k].times; t++) {
            ZSTD_inBuffer in = {parts[k].p, parts[k].n, 0};
            while (in.pos < in.size) assert_false(ZSTD_isError(ZSTD_compressStream2(z, &out, &in, ZSTD_e_continue)));
        }
    ZSTD_inBuffer none = {NULL, 0, 0};
    size_t left;
    do left = ZSTD_compressStream2(z, &out, &none, ZSTD_e_end);
    while (left && !ZSTD_isError(left));
    assert_false(ZSTD_isError(left));
    ZSTD_freeCCtx(z);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint8_t h[36], ch[20];
    header(h);
    chunk_header(ch, stored, (uint32_t)out.pos, (uint32_t)raw);
    assert_int_equal(fwrite(h, 1, 36, f), 36);
    assert_int_equal(fwrite(ch, 1, 20, f), 20);
    assert_int_equal(fwrite(stored, 1, out.pos, f), out.pos);
    assert_int_equal(fclose(f), 0);
    printf("  %s: %zu bytes stored for %llu raw\n", path, out.pos, (unsigned long long)raw);
    free(stored);
}

/* A cache of one chunk (and its end mark's): a shape, then `bodies` bodies
 * (slots 1.., generation 1) in frame 0, `gap` frames without them, and the
 * same bodies again in the frame after. */
static void comeback_cache(const char *path, uint32_t bodies, uint32_t gap) {
    const size_t raw_cap = 128 + 2 * (17 + 40 * (size_t)bodies) + 17 * (size_t)gap;
    uint8_t *raw = calloc(raw_cap, 1);
    size_t n = shape_record(raw, 1);
    n += 12 + 8; /* its particle, at the origin, and no mesh */
    for (uint32_t f = 0; f < gap + 2; f++) {
        const uint32_t count = f == 0 || f == gap + 1 ? bodies : 0;
        n += frame_record(raw + n, count);
        le32(raw + n - 16, f); /* its index */
        for (uint32_t b = 0; b < count; b++, n += 40) {
            le32(raw + n, b + 1), le32(raw + n + 4, 1), le32(raw + n + 8, 0);
            le_f32(raw + n + 12, (float)b), le_f32(raw + n + 36, 1.0f);
        }
    }
    assert_true(n <= raw_cap);
    const size_t bound = ZSTD_compressBound(n);
    uint8_t *out = malloc(36 + 20 + bound + 64);
    header(out);
    const size_t packed = ZSTD_compress(out + 56, bound, raw, n, 3);
    assert_false(ZSTD_isError(packed));
    chunk_header(out + 36, out + 56, (uint32_t)packed, (uint32_t)n);
    size_t at = 56 + packed;
    uint8_t end[5] = {'E'}; /* the end mark, in a chunk of its own */
    le32(end + 1, gap + 2);
    const size_t end_packed = ZSTD_compress(out + at + 20, 64, end, 5, 3);
    assert_false(ZSTD_isError(end_packed));
    chunk_header(out + at, out + at + 20, (uint32_t)end_packed, 5);
    spit(path, out, at + 20 + end_packed);
    printf("  %s: %zu bytes, %zu raw\n", path, at + 20 + end_packed, n);
    free(out), free(raw);
}

/* ---- the tests ---- */

static int setup(void **state) {
    (void)state;
    char scene[512], cmd[2048];
    out_path(scene, sizeof scene, "scene.json");
    out_path(g_cache, sizeof g_cache, "run.rbc");
    FILE *f = fopen(scene, "w");
    if (!f) return -1;
    fprintf(f, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 2, 0]},"
               " {\"shape\": \"cube\", \"position\": [0.3, 4, 0]}]}\n");
    fclose(f);
    remove(g_cache);
    snprintf(cmd, sizeof cmd, "'%s' --headless --backend reference --scene '%s' --steps 700 --record '%s' >/dev/null",
             RB_TEST_RUBBLE, scene, g_cache);
    return system(cmd) == 0 ? 0 : -1;
}

/* A chunk whose few kilobytes inflate to hundreds of megabytes of records
 * that parse (a frame of millions of bodies, a shape of millions of
 * particles): refused from its header, before it is inflated. */
static void test_inflating_chunk(void **state) {
    (void)state;
    char path[512];
    inflating_cache(out_path(path, sizeof path, "bodies.rbc"), 1, 6u << 20); /* 240 MB of frame */
    expect_refused(path, "inflates");
    expect_refused(path, "32 times its stored bytes");
    inflating_cache(out_path(path, sizeof path, "particles.rbc"), 8u << 20, 1); /* 96 MB of particles */
    expect_refused(path, "inflates");
    /* the same through the program: export spends no time on the particles' cells and writes nothing */
    char glb[512], cmd[2048];
    out_path(glb, sizeof glb, "particles.glb");
    remove(glb);
    snprintf(cmd, sizeof cmd, "'%s' export '%s' --gltf '%s' --csv '%s.csv' 2>&1", RB_TEST_RUBBLE, path, glb, glb);
    const double start = now();
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char said[2048] = "";
    const size_t got = fread(said, 1, sizeof said - 1, p);
    said[got] = '\0';
    const int status = pclose(p);
    const double took = now() - start;
    printf("  export: %s (%.2f s)\n", said, took);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    assert_non_null(strstr(said, path));
    assert_non_null(strstr(said, "inflates"));
    assert_true(took < SECONDS);
    assert_int_equal(access(glb, F_OK), -1);
}

/* A body that comes back after it died is refused: a small file of two
 * frames of 50,000 bodies 20,000 frames apart would be tracks of a pose a
 * frame for each of them in an export (28 GB). */
static void test_body_comes_back(void **state) {
    (void)state;
    char path[512];
    comeback_cache(out_path(path, sizeof path, "comeback.rbc"), 1, 1);
    expect_refused(path, "body (slot 1, generation 1) in frame 2 after it died (it was last in frame 0)");
    comeback_cache(path, 50000, 20000);
    expect_refused(path, "in frame 20001 after it died");
    comeback_cache(path, 3, 0); /* each frame follows the last: a body in each reads */
    const outcome o = open_in_child(path);
    if (!o.opened) fail_msg("%s refused: %s", path, o.err);
}

/* A keyframe whose scene claims 4 GB in a chunk of a few bytes is refused
 * without asking for them (fuzz/corpus/cache/keyframe-scene-length.rbc: what
 * fuzz_cache found). */
static void test_keyframe_scene_length(void **state) {
    (void)state;
    uint8_t raw[64] = {'K'}; /* frame 0, time 0, no bodies, a scene of 0xFFFFFFFE bytes that are not there */
    raw[17] = 1;
    le32(raw + 18, 0xFFFFFFFEu);
    const size_t n = 22;
    uint8_t out[256];
    header(out);
    const size_t packed = ZSTD_compress(out + 56, sizeof out - 56, raw, n, 3);
    assert_false(ZSTD_isError(packed));
    chunk_header(out + 36, out + 56, (uint32_t)packed, (uint32_t)n);
    char path[512];
    spit(out_path(path, sizeof path, "scene-length.rbc"), out, 56 + packed);
    expect_refused(path, "a keyframe with a bad scene");
    const outcome o = open_in_child(path);
    assert_true(o.extra_mb < 16);
}

/* What a writer makes reads: records that pack well but not past the
 * limit (two frames of 100,000 bodies at rest), and a chunk that zstd would
 * pack past it, which the writer stores raw (rb_cache_pack): it inflates
 * back to the same bytes through zstd itself, within the limit. */
static void test_limit_reads(void **state) {
    (void)state;
    char path[512];
    comeback_cache(out_path(path, sizeof path, "at-rest.rbc"), 100000, 0);
    const outcome o = open_in_child(path);
    if (!o.opened) fail_msg("%s refused: %s", path, o.err);
    /* what it held: the frames' records (about the raw bytes, 17 times the file here) and one chunk's raw
     * bytes while it read them, within the limit's 32 times the file, and 16 MB for the allocator */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    if (o.extra_mb > (32 * (long)st.st_size >> 20) + 16)
        fail_msg("%s: %ld MB held for a file of %lld bytes", path, o.extra_mb, (long long)st.st_size);
    const size_t raw_bytes = 4u << 20;
    uint8_t *raw = calloc(raw_bytes, 1);
    for (size_t i = 0; i < raw_bytes; i += 4096) raw[i] = (uint8_t)(i >> 12); /* a little to tell it by */
    ZSTD_CCtx *z = ZSTD_createCCtx();
    uint8_t *stored = NULL;
    size_t cap = 0;
    const char *why = NULL;
    const size_t n = rb_cache_pack(z, raw, raw_bytes, 3, &stored, &cap, &why);
    ZSTD_freeCCtx(z);
    assert_true(n > 0);
    assert_true((uint64_t)raw_bytes <= (uint64_t)RB_CACHE_INFLATION * n + RB_CACHE_INFLATION_SLACK);
    uint8_t *back = malloc(raw_bytes);
    assert_int_equal(ZSTD_decompress(back, raw_bytes, stored, n), raw_bytes);
    assert_memory_equal(back, raw, raw_bytes);
    free(back), free(stored), free(raw);
}

/* What is not a regular file is refused by its type before a byte is read:
 * a FIFO (no writer: reading it would wait for ever), /dev/zero (endless),
 * a directory. */
static void test_not_files(void **state) {
    (void)state;
    char path[512];
    out_path(path, sizeof path, "fifo.rbc");
    remove(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_refused(path, "a FIFO, not a regular file");
    remove(path);
    expect_refused("/dev/zero", "a character device, not a regular file");
    expect_refused(RB_TEST_BUILD_DIR, "a directory, not a regular file");
}

/* A large file is judged by its first bytes: 1.5 GB (sparse) that is not a
 * cache, and a cache header followed by 1.5 GB of zeros (its first chunk's
 * header is no chunk's). */
static void test_large_files(void **state) {
    (void)state;
    char path[512];
    const off_t big = (off_t)1536 << 20;
    int fd = open(out_path(path, sizeof path, "large.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, big), 0);
    close(fd);
    expect_refused(path, "not a Rubble cache");
    uint8_t h[36];
    header(h);
    fd = open(path, O_WRONLY);
    assert_int_equal(write(fd, h, sizeof h), (ssize_t)sizeof h);
    close(fd);
    expect_refused(path, "a damaged chunk at byte 36");
    remove(path);
}

/* The header is under its own CRC (version 5): a bit flipped anywhere in it
 * is refused, never read as another rate or step. */
static void test_header_flips(void **state) {
    (void)state;
    size_t n;
    uint8_t *whole = slurp(g_cache, &n);
    assert_true(n > 36);
    assert_int_equal(whole[8], RB_CACHE_VERSION);
    char path[512], err[1024];
    out_path(path, sizeof path, "flipped.rbc");
    rb_cache *c = rb_cache_open(g_cache, err, sizeof err);
    if (!c) fail_msg("%s", err);
    assert_true(c->rate == 60.0 && fabs(c->dt - 0.0016) < 1e-7);
    rb_cache_close(c);
    for (size_t at = 0; at < 36; at++)
        for (int bit = 0; bit < 8; bit++) {
            whole[at] ^= (uint8_t)(1u << bit);
            spit(path, whole, n);
            c = rb_cache_open(path, err, sizeof err);
            whole[at] ^= (uint8_t)(1u << bit);
            if (c) fail_msg("byte %zu bit %d flipped: opened, rate %g, dt %g", at, bit, c->rate, c->dt);
            assert_non_null(strstr(err, path));
            /* the rate and the step (bytes 16 to 31) and the CRC itself are damage */
            if (at >= 16) assert_non_null(strstr(err, "a damaged header (its CRC does not match)"));
        }
    free(whole);
}

/* Bytes after the end mark's chunk are refused: a stray byte, another
 * whole chunk (the file's own end mark again). */
static void test_after_end(void **state) {
    (void)state;
    size_t n;
    uint8_t *whole = slurp(g_cache, &n);
    uint8_t *more = malloc(n + 64);
    memcpy(more, whole, n);
    char path[512];
    out_path(path, sizeof path, "trailing.rbc");
    more[n] = 0;
    spit(path, more, n + 1);
    expect_refused(path, "1 bytes after the end mark's chunk");
    /* the last chunk (the end mark) twice: find where it starts, from the chunk sizes */
    size_t at = 36, last = 0;
    while (at + 20 <= n) {
        uint32_t packed;
        memcpy(&packed, whole + at + 4, 4);
        last = at, at += 20 + packed;
    }
    assert_int_equal(at, n);
    memcpy(more + n, whole + last, n - last);
    spit(path, more, n + (n - last));
    expect_refused(path, "bytes after the end mark's chunk");
    spit(path, whole, n); /* and as it was, it reads */
    const outcome o = open_in_child(path);
    if (!o.opened) fail_msg("%s refused: %s", path, o.err);
    free(more), free(whole);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inflating_chunk), cmocka_unit_test(test_limit_reads),
        cmocka_unit_test(test_not_files),       cmocka_unit_test(test_large_files),
        cmocka_unit_test(test_header_flips),    cmocka_unit_test(test_after_end),
        cmocka_unit_test(test_body_comes_back), cmocka_unit_test(test_keyframe_scene_length),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
