/* test_mesh_plugin.c - mesh.so loaded as a host loads it (dlopen, a host-API
 * struct of our own): good meshes become shapes, each kind of bad input is
 * reported with its file and the problem, and the others still load. Files
 * are written into the build folder (RB_TEST_OUT). */
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "rubble_plugin.h"
#include "shapegen.h"

/* ---- a host that records what the plugin says ---- */

#define MAX_LINES 256
static char lines[MAX_LINES][1024];
static rb_plugin_log_level levels[MAX_LINES];
static int line_count;
static const char *dirs[4];

static void host_log(void *data, rb_plugin_log_level level, const char *fmt, ...) {
    (void)data;
    if (line_count == MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lines[line_count], sizeof lines[0], fmt, ap);
    va_end(ap);
    levels[line_count++] = level;
    printf("  log %d: %s\n", (int)level, lines[line_count - 1]);
}

static const char *host_setting(void *data, const char *key, uint32_t index) {
    (void)data;
    if (strcmp(key, "mesh_dir") != 0) return NULL;
    return index < 4 ? dirs[index] : NULL;
}

static const rb_host_api host = {
    .struct_size = sizeof(rb_host_api),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .log = host_log,
    .setting = host_setting,
};

/* A line at level whose text holds both a and b, or -1. */
static int find_line(rb_plugin_log_level level, const char *a, const char *b) {
    for (int i = 0; i < line_count; i++)
        if (levels[i] == level && strstr(lines[i], a) && (!b || strstr(lines[i], b))) return i;
    return -1;
}

typedef struct loaded {
    void *lib;
    const rb_plugin *plugin;
} loaded;

static loaded load_plugin(void) {
    line_count = 0;
    loaded l = {dlopen(RB_MESH_PLUGIN, RTLD_NOW | RTLD_LOCAL), NULL};
    if (!l.lib) fprintf(stderr, "dlopen: %s\n", dlerror());
    assert_non_null(l.lib);
    rb_plugin_entry_fn entry = (rb_plugin_entry_fn)dlsym(l.lib, RB_PLUGIN_ENTRY_NAME);
    assert_non_null(entry);
    l.plugin = entry(&host);
    assert_non_null(l.plugin);
    assert_int_equal(l.plugin->abi_version, RB_PLUGIN_ABI_VERSION);
    assert_string_equal(l.plugin->name, "mesh");
    return l;
}

static void unload_plugin(loaded *l) {
    if (l->plugin->shutdown) l->plugin->shutdown();
    dlclose(l->lib);
}

static const rb_shape_desc *find_shape(const rb_plugin *p, const char *name) {
    const rb_shape_desc *d;
    for (uint32_t i = 0; (d = p->shape(i)); i++)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

/* ---- fixtures ---- */

static char folder[1024], folder2[1024];

static void path_of(char *out, size_t size, const char *dir, const char *file) {
    snprintf(out, size, "%s/%s", dir, file);
}

static void write_text(const char *dir, const char *file, const char *text) {
    char path[1200];
    path_of(path, sizeof path, dir, file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void write_bytes(const char *dir, const char *file, const char *bytes, size_t size) {
    char path[1200];
    path_of(path, sizeof path, dir, file);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static void write_mesh(const char *dir, const char *file, const rb_gen_mesh *m) {
    char path[1200];
    path_of(path, sizeof path, dir, file);
    bool ok = rb_gen_write(m, path);
    assert_true(ok);
}

static void make_dir(const char *dir) {
    mkdir(dir, 0755);
    /* Start from nothing: files of an earlier run must not count. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dir);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state) {
    (void)state;
    mkdir(RB_TEST_OUT, 0755);
    snprintf(folder, sizeof folder, "%s/meshes", RB_TEST_OUT);
    snprintf(folder2, sizeof folder2, "%s/meshes2", RB_TEST_OUT);
    make_dir(folder);
    make_dir(folder2);

    rb_gen_mesh m = {0};
    rb_gen_icosphere(&m, 3);
    write_mesh(folder, "ball.off", &m);
    write_text(folder, "ball.off.json", "{ \"resolution\": 12 }");
    write_mesh(folder, "ball.stl", &m); /* the same name again, loaded second */
    write_mesh(folder, "shell.off", &m);
    write_text(folder, "shell.off.json",
               "{ \"resolution\": 12, \"surface\": true, \"description\": \"a hollow ball\" }");
    write_mesh(folder, "huge.off", &m);
    write_text(folder, "huge.off.json", "{ \"resolution\": 200 }");
    write_mesh(folder, "badside.off", &m);
    write_text(folder, "badside.off.json", "{ \"resolutoin\": 5 }");
    write_mesh(folder, "badjson.off", &m);
    write_text(folder, "badjson.off.json", "{ \"resolution\": 5, }");
    /* side files parsed strictly; names and control bytes escaped in the message */
    static const struct {
        const char *mesh, *side;
    } sides[] = {
        {"trailing.off", "{ \"resolution\": 5 } x"},
        {"dupkey.off", "{ \"resolution\": 5, \"resolution\": 6 }"},
        {"quote.off", "{ \"name\": \"a\\\"b\" }"},
        {"kuebel.off", "{ \"name\": \"k\xc3\xbc"
                       "bel\" }"},
        {"bell.off", "{ \"description\": \"ding\\u0007\" }"},
        {"cube.off", "{ \"name\": \"cube\" }"}, /* a name the cube plugin has: the registry's to refuse */
    };
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        char side[64];
        snprintf(side, sizeof side, "%s.json", sides[i].mesh);
        write_mesh(folder, sides[i].mesh, &m);
        write_text(folder, side, sides[i].side);
    }
    write_mesh(folder, "nul.off", &m);
    write_bytes(folder, "nul.off.json", "{ \"resolution\": 5 }\0{\"x\": 1}", 28);
    for (uint32_t t = 0; t < m.triangle_count; t++) { /* inside out: every triangle reversed */
        uint32_t a = m.t[3 * t + 1];
        m.t[3 * t + 1] = m.t[3 * t + 2], m.t[3 * t + 2] = a;
    }
    write_mesh(folder, "inverted.off", &m);
    write_text(folder, "inverted.off.json", "{ \"resolution\": 12 }");
    for (uint32_t t = 0; t < m.triangle_count; t++) { /* and back */
        uint32_t a = m.t[3 * t + 1];
        m.t[3 * t + 1] = m.t[3 * t + 2], m.t[3 * t + 2] = a;
    }
    m.triangle_count -= 1; /* one face missing */
    write_mesh(folder, "holed.ply", &m);
    write_text(folder, "holed.ply.json", "{ \"resolution\": 12 }");
    rb_gen_free(&m);

    rb_gen_box(&m, 2.0, 1.0, 0.0);
    write_mesh(folder, "flat.off", &m);
    rb_gen_free(&m);
    rb_gen_torus(&m, 1.0, 0.02, 64, 8);
    write_mesh(folder, "thin.off", &m);
    write_text(folder, "thin.off.json", "{ \"resolution\": 4 }");
    rb_gen_free(&m);

    write_text(folder, "empty.obj", "");
    write_text(folder, "notamesh.stl", "hello, this is not a mesh\n");
    write_text(folder, "notris.off", "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n");
    write_text(folder, "nan.off", "OFF\n4 4 0\nnan 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 3 2\n3 0 1 3\n3 1 2 3\n");
    write_text(folder, "readme.txt", "not a mesh extension: never opened\n");
    /* header bombs: counts the file cannot hold, refused before assimp reads them (small ones:
     * should the check fail, assimp asks for megabytes, not the 12 GB of test_mesh_header's) */
    write_text(folder, "bomb.ply",
               "ply\nformat ascii 1.0\nelement vertex 2000000\nproperty float x\nproperty float y\n"
               "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n");
    write_text(folder, "bomb.off", "OFF\n3 2000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    write_text(folder, "noface.ply",
               "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
               "element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0\n3 0 1 2\n");

    rb_gen_box(&m, 3.0, 2.0, 1.0);
    write_mesh(folder2, "slab.obj", &m);
    rb_gen_free(&m);
    return 0;
}

/* ---- tests ---- */

static void test_bad_input_is_named_and_skipped(void **state) {
    (void)state;
    dirs[0] = folder;
    dirs[1] = RB_TEST_OUT "/no-such-folder";
    dirs[2] = folder2;
    dirs[3] = NULL;
    loaded l = load_plugin();
    static const struct {
        const char *file, *problem;
    } bad[] = {
        {"empty.obj", "is empty"},
        {"notamesh.stl", "is not a mesh"},
        {"notris.off", "has no triangles"},
        {"nan.off", "non-finite"},
        {"flat.off", "is flat"},
        {"thin.off", "no voxel centre is inside"},
        {"huge.off", "more than the limit of 65536"},
        {"badside.off.json", "unknown key \"resolutoin\""},
        {"badjson.off.json", "is not a JSON object"},
        {"trailing.off.json", "has something after its JSON object (near \"x\")"},
        {"dupkey.off.json", "has the key \"resolution\" twice"},
        {"nul.off.json", "holds a NUL byte at offset 19"},
        {"quote.off.json", "\"name\" \"a\\x22b\" must be a string of 1 to 63 printable ASCII"},
        {"kuebel.off.json", "\"name\" \"k\\xc3\\xbcbel\" must be"},
        {"bell.off.json", "\"description\" \"ding\\x07\" must be a string of 1 to 159 characters without control"},
        {"bomb.ply", "header declares 2000000 vertices, the file can hold at most 1"},
        {"bomb.off", "header declares 2000000 faces, the file can hold at most 4"},
        {"noface.ply", "face 0 has no vertices"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1200];
        path_of(path, sizeof path, folder, bad[i].file);
        int at = find_line(RB_PLUGIN_LOG_ERROR, path, bad[i].problem);
        if (at < 0) fprintf(stderr, "no error line naming %s with \"%s\"\n", path, bad[i].problem);
        assert_true(at >= 0);
    }
    /* The missing face is tolerated with a warning; the duplicate name and the missing folder are warned about. */
    assert_true(find_line(RB_PLUGIN_LOG_WARN, "holed.ply", "not closed") >= 0);
    assert_true(find_line(RB_PLUGIN_LOG_WARN, "ball.stl", "already loaded") >= 0);
    assert_true(find_line(RB_PLUGIN_LOG_WARN, "no-such-folder", NULL) >= 0);
    assert_int_equal(find_line(RB_PLUGIN_LOG_ERROR, "readme.txt", NULL), -1);
    assert_int_equal(find_line(RB_PLUGIN_LOG_WARN, "readme.txt", NULL), -1);

    /* What is left: the good ones, from both folders, in folder then name order. */
    const char *expect[] = {"ball", "cube", "holed", "inverted", "shell", "slab"};
    uint32_t n = 0;
    for (const rb_shape_desc *d; (d = l.plugin->shape(n)); n++) {
        assert_true(n < 6);
        assert_string_equal(d->name, expect[n]);
        assert_int_equal(d->struct_size, sizeof(rb_shape_desc));
        assert_true(d->particle_count > 0 && d->particle_count <= RB_PLUGIN_MAX_PARTICLES);
        assert_true(d->index_count > 0 && d->index_count % 3 == 0);
        for (uint32_t i = 0; i < d->index_count; i++) assert_true(d->indices[i] < d->vertex_count);
        /* each names its file, for the host's messages */
        char path[1200];
        snprintf(path, sizeof path, "%s.", d->name);
        assert_non_null(d->source);
        assert_non_null(strstr(d->source, path));
    }
    assert_int_equal(n, 6);

    const rb_shape_desc *ball = find_shape(l.plugin, "ball"), *holed = find_shape(l.plugin, "holed"),
                        *shell = find_shape(l.plugin, "shell");
    printf("ball %u, holed %u, shell %u particles\n", ball->particle_count, holed->particle_count,
           shell->particle_count);
    assert_true(fabs((double)holed->particle_count - ball->particle_count) <= 0.1 * ball->particle_count);
    assert_true(shell->particle_count < ball->particle_count);
    assert_string_equal(shell->description, "a hollow ball");
    assert_non_null(strstr(ball->description, "12 across"));
    unload_plugin(&l);
}

/* Particles and render mesh share one frame in diameter units: a unit ball
 * at 12 across has its mesh at radius 6 and its particles inside it. */
static void test_mesh_and_particles_share_a_frame(void **state) {
    (void)state;
    dirs[0] = folder;
    dirs[1] = NULL;
    loaded l = load_plugin();
    const rb_shape_desc *ball = find_shape(l.plugin, "ball");
    assert_non_null(ball);
    double rmax = 0.0, pmax = 0.0;
    for (uint32_t v = 0; v < ball->vertex_count; v++) {
        const float *p = ball->vertices + 3 * v;
        rmax = fmax(rmax, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
    for (uint32_t i = 0; i < ball->particle_count; i++) {
        const float *p = ball->particles + 3 * i;
        pmax = fmax(pmax, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
    printf("ball: mesh radius %.4f, farthest particle centre %.4f (diameters)\n", rmax, pmax);
    assert_true(fabs(rmax - 6.0) < 1e-3);
    assert_true(pmax < 6.0 && pmax > 4.5);
    unload_plugin(&l);
}

/* An inside-out ball voxelizes like the ball, and its render mesh is turned
 * too (positive signed volume: triangles face out, so culling shows the
 * outside); the file's normals, made for the old winding, are dropped. */
static void test_inside_out_mesh_is_turned_for_drawing(void **state) {
    (void)state;
    dirs[0] = folder;
    dirs[1] = NULL;
    loaded l = load_plugin();
    const rb_shape_desc *ball = find_shape(l.plugin, "ball"), *inv = find_shape(l.plugin, "inverted");
    assert_non_null(ball);
    assert_non_null(inv);
    assert_int_equal(inv->particle_count, ball->particle_count);
    double volume = 0.0;
    for (uint32_t t = 0; t < inv->index_count; t += 3) {
        const float *a = inv->vertices + 3 * inv->indices[t], *b = inv->vertices + 3 * inv->indices[t + 1],
                    *c = inv->vertices + 3 * inv->indices[t + 2];
        volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                   a[2] * (b[0] * c[1] - b[1] * c[0])) /
                  6.0;
    }
    printf("inverted ball: render mesh volume %.1f cubic diameters (a sphere of radius 6: %.1f)\n", volume,
           4.0 / 3.0 * M_PI * 216.0);
    assert_true(volume > 0.9 * 4.0 / 3.0 * M_PI * 216.0);
    assert_null(inv->normals);
    unload_plugin(&l);
}

/* The shipped assets: at least five, all load without a complaint, and each
 * is small enough to be debris. */
static void test_assets_load_cleanly(void **state) {
    (void)state;
    dirs[0] = RB_ASSETS_DIR;
    dirs[1] = NULL;
    loaded l = load_plugin();
    assert_int_equal(find_line(RB_PLUGIN_LOG_ERROR, "", NULL), -1);
    assert_int_equal(find_line(RB_PLUGIN_LOG_WARN, "", NULL), -1);
    static const char *names[] = {"banana", "brick", "bunny", "pawn", "plank", "rock_a", "rock_b", "torus"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const rb_shape_desc *d = find_shape(l.plugin, names[i]);
        assert_non_null(d);
        printf("%-8s %4u particles, %5u triangles: %s\n", d->name, d->particle_count, d->index_count / 3,
               d->description);
        assert_true(d->particle_count >= 20 && d->particle_count <= 300);
    }
    unload_plugin(&l);
}

/* A second entry (a host rescanning) starts over instead of doubling up. */
static void test_entry_twice(void **state) {
    (void)state;
    dirs[0] = folder2;
    dirs[1] = NULL;
    loaded l = load_plugin();
    rb_plugin_entry_fn entry = (rb_plugin_entry_fn)dlsym(l.lib, RB_PLUGIN_ENTRY_NAME);
    assert_non_null(entry(&host));
    assert_non_null(l.plugin->shape(0));
    assert_null(l.plugin->shape(1));
    unload_plugin(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_is_named_and_skipped),
        cmocka_unit_test(test_mesh_and_particles_share_a_frame),
        cmocka_unit_test(test_inside_out_mesh_is_turned_for_drawing),
        cmocka_unit_test(test_assets_load_cleanly),
        cmocka_unit_test(test_entry_twice),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
