/* test_mesh_header.c - mesh files that declare more than they hold are
 * refused before assimp reads them (plugins/mesh/mesh_header.h): in well
 * under a second and 100 MB, where assimp took minutes and gigabytes; honest
 * files pass; the caps hold; and a corrupt binary PLY that does reach assimp
 * is refused without a leak report (tests/lsan.supp). */
#include <assimp/cimport.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mesh_header.h"
#include "mesh_load.h"

static char dir[1024];

/* The bytes (size of a file of file_size) refused with exactly the message says. */
#define assert_refused(name, data, size, file_size, says)                                                              \
    do {                                                                                                               \
        char refusal_[512];                                                                                            \
        assert_false(rb_mesh_header_check(name, data, size, file_size, refusal_, sizeof refusal_));                    \
        assert_string_equal(refusal_, says);                                                                           \
    } while (0)
/* The same for a whole file given as a string literal. */
#define assert_text_refused(name, text, says) assert_refused(name, text, sizeof text - 1, sizeof text - 1, says)

static void write_file(const char *name, const void *bytes, size_t size, char *path, size_t path_size) {
    snprintf(path, path_size, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static double cpu_seconds(const struct rusage *r) {
    return (double)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) +
           1e-6 * (double)(r->ru_utime.tv_usec + r->ru_stime.tv_usec);
}

/* The child's address space now, from /proc/self/statm (a sanitized build
 * has reserved terabytes of shadow before main), or 0 if unknown. */
static uint64_t address_space_bytes(void) {
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%llu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Loads path in a child process (at most 2 s of CPU and 2 GiB of address
 * space more than it starts with) through rb_mesh_load, as the plugin does.
 * Returns whether it was refused with `says`; *seconds and *mb: its CPU time
 * (user and system, so a loaded machine does not slow it past the limit)
 * and its peak resident memory above a child that does nothing. */
static bool refused_in_child(const char *path, const char *says, double *seconds, double *mb) {
    struct rusage idle, used;
    int status;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    assert_int_equal(wait4(pid, &status, 0, &idle), pid);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(2); /* should the check fail, assimp gets 2 s to allocate, not minutes */
        /* and 2 GiB more address space than it has, not the machine's memory
         * (over that, malloc fails or the sanitizer aborts and the child was
         * not refused as it should be; a flat 2 GiB fails a sanitized child's
         * first mmap, its shadow memory being reserved already) */
        const rlim_t limit = (rlim_t)address_space_bytes() + ((rlim_t)2 << 30);
        const struct rlimit as = {limit, limit};
        if (setrlimit(RLIMIT_AS, &as) != 0) _exit(2);
        rb_mesh_data m;
        char err[512] = "";
        const bool loaded = rb_mesh_load(path, false, &m, err, sizeof err);
        if (loaded) rb_mesh_data_free(&m);
        fprintf(stderr, "  %s: %s\n", path, loaded ? "loaded" : err);
        _exit(!loaded && strstr(err, says) ? 0 : 1);
    }
    assert_int_equal(wait4(pid, &status, 0, &used), pid);
    *seconds = cpu_seconds(&used);
    *mb = (double)(used.ru_maxrss - idle.ru_maxrss) / 1024.0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Each bomb of the report: refused with the declared and the possible count,
 * under a second and under 100 MB each. */
static void test_bombs_are_refused_at_once(void **state) {
    (void)state;
    static const char ply_vertices[] =
        "ply\nformat ascii 1.0\nelement vertex 1000000000\nproperty float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    static const char ply_faces[] =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float "
        "z\nelement face 1000000000\nproperty list uchar int vertex_indices\nend_header\n";
    static const char off_faces[] = "OFF\n3 1000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    unsigned char stl[84 + 50] = "binary";
    stl[80] = 0x00, stl[81] = 0xca, stl[82] = 0x9a, stl[83] = 0x3b; /* 10^9 triangles */
    unsigned char wrap[88] = "solid wrap";
    wrap[80] = 0x52, wrap[81] = 0xb8, wrap[82] = 0x1e, wrap[83] = 0x05; /* 84 + 50 * 85899346 = 2^32 + 88 */
    char binary_ply[512];
    size_t n = strlen(ply_faces);
    memcpy(binary_ply, ply_faces, n);
    memset(binary_ply + n, 0, 36 + 13); /* three vertices and one face's worth of bytes */
    static const struct {
        const char *name;
        const char *says;
    } bombs[] = {
        {"vertices.ply", "header declares 1000000000 vertices, the file can hold at most 4"},
        {"faces.ply", "header declares 1000000000 faces, the file can hold at most 13"},
        {"faces.off", "header declares 1000000000 faces, the file can hold at most 4"},
        {"triangles.stl", "header declares 1000000000 triangles, the file can hold at most 1"},
        {"wrap.stl", "header declares 85899346 triangles, the file can hold at most 0"},
    };
    const void *bytes[] = {ply_vertices, binary_ply, off_faces, stl, wrap};
    const size_t sizes[] = {sizeof ply_vertices - 1, n + 36 + 13, sizeof off_faces - 1, sizeof stl, sizeof wrap};
    for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
        char path[1200];
        write_file(bombs[i].name, bytes[i], sizes[i], path, sizeof path);
        double seconds, mb;
        const bool refused = refused_in_child(path, bombs[i].says, &seconds, &mb);
        printf("%s: %s in %.3f s of CPU, %.1f MB\n", bombs[i].name, refused ? "refused" : "NOT refused", seconds, mb);
        if (!refused) fail_msg("%s was not refused with '%s'", bombs[i].name, bombs[i].says);
        assert_true(seconds < 1.0);
        assert_true(mb < 100.0);
    }
}

/* The buffer API as a fuzz harness calls it: the caps, the walk through PLY
 * data, and honest files (every shipped mesh) passing. */
static void test_caps_and_honest_files(void **state) {
    (void)state;
    char err[256];
    static const char head[] = "ply\nformat ascii 1.0\nelement vertex 1500000\nproperty float x\nend_header\n";
    /* a header alone (the file's first bytes) over the vertex cap, in a file that could hold them */
    assert_refused("big.ply", head, sizeof head - 1, 40u << 20,
                   "header declares 1500000 vertices, more than the limit of 1000000");
    assert_refused("big.obj", "v 0 0 0\n", 8, (uint64_t)RB_MESH_MAX_FILE_BYTES + 1,
                   "is 67108865 bytes, more than the limit of 64 MiB");
    /* OBJ declares nothing: its lines are counted */
    const size_t lines = RB_MESH_MAX_VERTICES + 1;
    char *obj = malloc(8 * lines);
    assert_non_null(obj);
    for (size_t i = 0; i < lines; i++) memcpy(obj + 8 * i, "v 0 0 0\n", 8);
    assert_refused("many.obj", obj, 8 * lines, 8 * lines, "has 1000001 vertices, more than the limit of 1000000");
    assert_true(rb_mesh_header_check("many.obj", obj, 8 * (lines - 1), 8 * (lines - 1), err, sizeof err));
    free(obj);
    /* binary PLY: data that ends early, or goes on past the elements */
    static const char tri[] = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty "
                              "float y\nproperty float z\nelement face 1\nproperty list uchar int vi\nend_header\n";
    char data[256] = {0};
    const size_t h = sizeof tri - 1;
    memcpy(data, tri, h);
    data[h + 36] = 3; /* one face of three vertices: 13 bytes */
    assert_true(rb_mesh_header_check("t.ply", data, h + 49, h + 49, err, sizeof err));
    assert_refused("t.ply", data, h + 48, h + 48, "data ends before its header's elements do");
    assert_refused("t.ply", data, h + 52, h + 52, "binary data goes on 3 bytes past its header's elements");
    data[h + 36] = 0; /* a face of no vertices: assimp would abort the program */
    assert_refused("t.ply", data, h + 37, h + 37, "face 0 has no vertices");
    /* a NUL inside a header's count (found by fuzz/fuzz_mesh.c: assimp took
     * "100\0...\0" "0000300" for a count of a billion and ran past the
     * fuzzer's 15 s) */
    static const char nul_count[] = "ply\nformat ascii 1.0\nelement vertex 100\0\0\0000300\nproperty float x\n"
                                    "end_header\n0\n";
    assert_text_refused("n.ply", nul_count, "header line 3 holds a control byte or one past ASCII");
    static const char nul_off[] = "OFF\n3 1\0 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    assert_text_refused("n.off", nul_off, "header line 2 holds a control byte or one past ASCII");
    /* a header line this check would skip but assimp reads otherwise (found
     * by fuzz/fuzz_mesh.c: a "prope..." line of bytes past ASCII, after which
     * assimp took a list count of a billion), and an unknown keyword */
    static const char odd[] = "ply\nformat ascii 1.0\nelement vertex 3\nprope\x97\x97o 2 float y\nproperty float z\n"
                              "end_header\n0\n1\n2\n";
    assert_text_refused("odd.ply", odd, "header line 4 holds a control byte or one past ASCII");
    static const char unknown[] = "ply\nformat ascii 1.0\nelement vertex 3\nproprety float x\nend_header\n0\n1\n2\n";
    assert_text_refused("u.ply", unknown, "header line 4: unknown keyword \"proprety\"");
    /* the shipped meshes and the test meshes pass */
    static const char *const honest[] = {
        "assets/meshes/banana.obj", "assets/meshes/brick.stl", "assets/meshes/bunny.off",
        "assets/meshes/pawn.gltf",  "assets/meshes/plank.ply", "assets/meshes/torus.off",
        "assets/meshes/pillar.obj", "tests/data/cube.off",     "tests/data/sphere966.off"};
    for (size_t i = 0; i < sizeof honest / sizeof honest[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", RB_TEST_SOURCE_DIR, honest[i]);
        if (!rb_mesh_header_check_file(path, err, sizeof err)) fail_msg("%s refused: %s", honest[i], err);
    }
}

/* Counts as assimp reads them, whole (fuzz/corpus/mesh/ply-long-count,
 * off-long-count, ply-long-line, off-long-line): a count longer than a token buffer was
 * split ("0...0" "1000000000": 0 here, 10^9 in assimp), and a header line
 * longer than the line buffer was cut. */
static void test_long_counts_and_lines(void **state) {
    (void)state;
    char ply[512], off[512];
    int n = snprintf(ply, sizeof ply,
                     "ply\nformat ascii 1.0\nelement vertex %063d1000000000\nproperty float x\nproperty float y\n"
                     "property float z\nend_header\n0 0 0\n",
                     0);
    assert_refused("long.ply", ply, (size_t)n, (uint64_t)n,
                   "header declares 1000000000 vertices, the file can hold at most 1");
    n = snprintf(off, sizeof off, "OFF\n%063d1 1000000000 0\n0 0 0\n3 0 0 0\n", 0);
    assert_refused("long.off", off, (size_t)n, (uint64_t)n,
                   "header declares 1000000000 faces, the file can hold at most 4");
    n = snprintf(ply, sizeof ply,
                 "ply\nformat ascii 1.0\nelement vertex %0246d1000000000\nproperty float x\nend_header\n0\n", 0);
    assert_refused("line.ply", ply, (size_t)n, (uint64_t)n, "header line 3 is longer than 255 bytes");
    n = snprintf(off, sizeof off, "OFF\n%0246d1 1000000000 0\n0 0 0\n3 0 0 0\n", 0);
    assert_refused("line.off", off, (size_t)n, (uint64_t)n, "header line 2 is longer than 255 bytes");
}

/* List counts as assimp converts them, by their declared type
 * (fuzz/corpus/mesh/ply-signed-count, ply-negative-count, ply-plus-count,
 * ply-float-count, ply-wide-count): a signed 0xFF is -1 there (4294967295 indices), not 255;
 * "-1" and "+1000000000" are not counts to skip; a float count of 3 reads
 * as 0 in assimp (an empty face, and assimp aborts). */
static void test_list_count_types(void **state) {
    (void)state;
    char err[256];
    static const char hdr[] = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty "
                              "float y\nproperty float z\nelement face 1\nproperty list char int vi\nend_header\n";
    static char bin[sizeof hdr + 36 + 1 + 255 * 4]; /* the bytes the walk once read a count of 255 from */
    const size_t h = sizeof hdr - 1, size = h + 36 + 1 + 255 * 4;
    memcpy(bin, hdr, h);
    bin[h + 36] = (char)0xff;
    assert_refused("signed.ply", bin, size, size, "element face item 0 has a negative list count");
    static const char minus[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                "property float z\nelement face 1\nproperty list int int vi\nend_header\n"
                                "0 0 0\n1 0 0\n0 1 0\n-1 0 1 2\n";
    assert_text_refused("minus.ply", minus, "element face item 0 has a negative list count");
    static const char plus[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                               "property float z\nelement face 1\nproperty list int int vi\nend_header\n"
                               "0 0 0\n1 0 0\n0 1 0\n+1000000000 0 1 2\n";
    assert_text_refused("plus.ply", plus,
                        "element face item 0 has a list count \"+1000000000\" that is not plain digits");
    static const char wide[] = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nelement face 1\n"
                               "property list uchar int vi\nend_header\n0\n256 0\n";
    assert_text_refused("wide.ply", wide, "element face item 0 has a list count of 256, more than its type holds");
    static const char real[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                               "property float z\nelement face 1\nproperty list float int vi\nend_header\n"
                               "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    assert_text_refused("real.ply", real, "header line 8: list count type \"float\" is not an integer type");
    /* an honest signed count still passes */
    static const char tri[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                              "property float z\nelement face 1\nproperty list char int vi\nend_header\n"
                              "0 0 0\n1 0 0\n0 1 0\n003 0 1 2\n";
    assert_true(rb_mesh_header_check("tri.ply", tri, sizeof tri - 1, sizeof tri - 1, err, sizeof err));
}

/* An STL that begins with "solid" but whose 32-bit 84 + 50 * count wraps
 * round to its size (fuzz/corpus/mesh/stl-solid-wrap): assimp's
 * IsBinarySTL (code/AssetLib/STL/STLLoader.cpp) takes it for binary, and an
 * assimp whose own size check wraps the same way allocates for 85899346
 * triangles (the one here refuses it as too small: the check must not rely
 * on that). */
static void test_stl_solid_wrapping_count(void **state) {
    (void)state;
    char err[256];
    unsigned char stl[88] = "solid wrap";
    stl[80] = 0x52, stl[81] = 0xb8, stl[82] = 0x1e, stl[83] = 0x05; /* 85899346: 84 + 50 n = 2^32 + 88 */
    assert_refused("wrap.stl", stl, sizeof stl, sizeof stl,
                   "header declares 85899346 triangles, the file can hold at most 0");
    /* a short ASCII STL whose bytes 80..83 say nothing of its size passes */
    assert_true(rb_mesh_header_check("wrap.stl", stl, sizeof stl, sizeof stl + 1, err, sizeof err));
}

/* A file whose read comes up short is refused as unreadable, never checked
 * as if its first bytes were all of it: a directory named like a mesh (on
 * ext4 it seeks to an end of 2^63 - 1 bytes, then reads nothing; where the
 * seek fails it is unreadable all the same). */
static void test_short_read(void **state) {
    (void)state;
    char path[1200], err[256] = "";
    snprintf(path, sizeof path, "%s/folder.stl", dir);
    mkdir(path, 0755);
    assert_false(rb_mesh_header_check_file(path, err, sizeof err));
    assert_string_equal(err, "cannot be read");
}

/* A binary PLY whose face list's count is an int: the header check refuses
 * it, and assimp itself refuses it too, leaking 0.26 MB on the way (a leak
 * in libassimp that tests/lsan.supp names, so the run stays clean). */
static void test_corrupt_binary_ply_reaching_assimp(void **state) {
    (void)state;
    static const char hdr[] = "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty "
                              "float y\nproperty float z\nelement face 4\nproperty list int int vertex_indices\n"
                              "end_header\n";
    unsigned char bytes[512] = {0};
    const size_t h = sizeof hdr - 1;
    memcpy(bytes, hdr, h);
    static const float v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(bytes + h, v, sizeof v);
    static const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
    size_t at = h + sizeof v;
    for (int f = 0; f < 4; f++, at += 13) { /* written with a uchar count, read with an int one */
        bytes[at] = 3;
        memcpy(bytes + at + 1, faces[f], 12);
    }
    char path[1200], err[256];
    write_file("corrupt.ply", bytes, at, path, sizeof path);
    assert_false(rb_mesh_header_check_file(path, err, sizeof err));
    printf("header check: %s\n", err);
    const struct aiScene *scene = aiImportFile(path, 0);
    assert_null(scene);
    printf("assimp: %s\n", aiGetErrorString());
}

int main(void) {
    snprintf(dir, sizeof dir, "%s", RB_TEST_OUT);
    mkdir(dir, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bombs_are_refused_at_once),
        cmocka_unit_test(test_caps_and_honest_files),
        cmocka_unit_test(test_corrupt_binary_ply_reaching_assimp),
        cmocka_unit_test(test_long_counts_and_lines),
        cmocka_unit_test(test_list_count_types),
        cmocka_unit_test(test_stl_solid_wrapping_count),
        cmocka_unit_test(test_short_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
