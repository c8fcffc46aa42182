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

#include "solid_angle.h"

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

/* The extent of a shape's particles along axis k, m: centre to centre plus a diameter. */
static double particle_extent(const rb_shape_desc *d, int k) {
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < d->particle_count; i++)
        lo = fmin(lo, d->particles[3 * i + k]), hi = fmax(hi, d->particles[3 * i + k]);
    return (hi - lo + 1.0) * d->particle_diameter;
}

/* ---- fixtures ---- */

static char folder[1024], folder2[1024], sizes[1024], parts[1024];

static void path_of(char *out, size_t size, const char *dir, const char *file) {
    const int n = snprintf(out, size, "%s/%s", dir, file);
    assert_true(n >= 0 && (size_t)n < size); /* the fixtures' folders are short: a cut path is the test's mistake */
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

/* A mesh of one box, sides sx, sy, sz, centred at (cx, cy, cz). */
static void box_at(rb_gen_mesh *m, double sx, double sy, double sz, double cx, double cy, double cz) {
    static const double one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    rb_gen_mesh b = {0};
    rb_gen_box(&b, sx, sy, sz);
    rb_gen_transform(&b, one, (const double[3]){cx, cy, cz});
    const uint32_t base = m->vertex_count;
    for (uint32_t v = 0; v < b.vertex_count; v++) rb_gen_vertex(m, b.v[3 * v], b.v[3 * v + 1], b.v[3 * v + 2]);
    for (uint32_t t = 0; t < b.triangle_count; t++)
        rb_gen_triangle(m, base + b.t[3 * t], base + b.t[3 * t + 1], base + b.t[3 * t + 2]);
    rb_gen_free(&b);
}

static void write_box(const char *dir, const char *file, double sx, double sy, double sz, const char *side_json) {
    rb_gen_mesh m = {0};
    box_at(&m, sx, sy, sz, 0, 0, 0);
    write_mesh(dir, file, &m);
    rb_gen_free(&m);
    if (side_json) {
        char side[256];
        snprintf(side, sizeof side, "%s.json", file);
        write_text(dir, side, side_json);
    }
}

/* Meshes whose size comes from the file, its units, a scale or a size. */
static void setup_sizes(void) {
    make_dir(sizes);
    write_box(sizes, "pillar.obj", 0.5, 2.0, 0.5, "{ \"resolution\": 10 }");
    write_box(sizes, "cube_mm.stl", 1200, 1200, 1200, "{ \"resolution\": 10, \"units\": \"mm\" }");
    write_box(sizes, "cube_scaled.off", 1200, 1200, 1200, "{ \"resolution\": 10, \"scale\": 0.001 }");
    write_box(sizes, "cube_cm.off", 60, 60, 60, "{ \"resolution\": 10, \"units\": \"cm\", \"scale\": 2 }");
    write_box(sizes, "cube_in.off", 10, 10, 10, "{ \"resolution\": 10, \"units\": \"in\" }");
    write_box(sizes, "sized.obj", 0.5, 2.0, 0.5, "{ \"resolution\": 10, \"size\": 3 }");
    write_box(sizes, "old.obj", 0.5, 2.0, 0.5, "{ \"resolution\": 10, \"size\": \"resolution\" }");
    write_box(sizes, "filesize.obj", 0.5, 2.0, 0.5, "{ \"resolution\": 10, \"size\": \"file\" }");
    write_box(sizes, "brick_mm.stl", 215, 102.5, 65, "{ \"resolution\": 8 }"); /* millimetres, not said */
    /* each refused, naming its side file */
    static const struct {
        const char *file, *side;
    } bad[] = {
        {"negative.obj", "{ \"scale\": -1 }"},
        {"zero.obj", "{ \"scale\": 0 }"},
        {"infinite.obj", "{ \"scale\": 1e999 }"},
        {"nan.obj", "{ \"scale\": \"NaN\" }"},
        {"furlong.obj", "{ \"units\": \"furlong\" }"},
        {"number_unit.obj", "{ \"units\": 3 }"},
        {"negsize.obj", "{ \"size\": -2 }"},
        {"bigword.obj", "{ \"size\": \"big\" }"},
        {"both.obj", "{ \"size\": 2, \"units\": \"mm\" }"},
        {"giant.obj", "{ \"resolution\": 10, \"scale\": 1e6 }"},
        {"badpieces.obj", "{ \"pieces\": \"shards\" }"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) write_box(sizes, bad[i].file, 0.5, 2.0, 0.5, bad[i].side);
}

/* The pillar of assets/meshes/pillar.obj (tools/meshgen.c): three chunks of
 * a 0.8 m square prism, y from 0 to 2.4 m, along two slanted planes. */
static void pillar_chunks(rb_gen_mesh chunks[3]) {
    static const double ground[3] = {0.0, 0.0, 0.0}, cut1[3] = {0.83, 0.22, 0.12}, cut2[3] = {1.57, -0.3, 0.18},
                        top[3] = {2.4, 0.0, 0.0};
    const double *planes[4] = {ground, cut1, cut2, top};
    for (int c = 0; c < 3; c++) {
        chunks[c] = (rb_gen_mesh){0};
        rb_gen_prism_chunk(&chunks[c], 0.4, planes[c], planes[c + 1]);
    }
}

static void write_parts(const char *file, rb_gen_mesh *meshes, const char *const *names, uint32_t n,
                        const char *side_json) {
    char path[1200], side[256];
    path_of(path, sizeof path, parts, file);
    assert_true(rb_gen_write_obj_parts(meshes, names, n, path));
    for (uint32_t k = 0; k < n; k++) rb_gen_free(&meshes[k]);
    snprintf(side, sizeof side, "%s.json", file);
    write_text(parts, side, side_json);
}

/* Pre-fractured meshes: good ones and each kind of bad one. */
static void setup_parts(void) {
    make_dir(parts);
    static const char *const chunk_names[3] = {"base", "middle", "capital"};
    rb_gen_mesh m[6];
    pillar_chunks(m);
    write_parts("pillar.obj", m, chunk_names, 3, "{ \"resolution\": 12, \"pieces\": \"parts\" }");
    pillar_chunks(m); /* the same read as one surface, its parts not asked for */
    write_parts("whole.obj", m, chunk_names, 3, "{ \"resolution\": 12 }");
    /* two cubes, the second half inside the first */
    static const char *const ab[3] = {"a", "b", "c"};
    m[0] = m[1] = (rb_gen_mesh){0};
    box_at(&m[0], 1, 1, 1, 0, 0, 0), box_at(&m[1], 1, 1, 1, 0.5, 0, 0);
    write_parts("overlap.obj", m, ab, 2, "{ \"resolution\": 8, \"pieces\": \"parts\" }");
    /* a cube's six faces, each an object: patches of one surface, no part closed */
    static const char *const faces[6] = {"f0", "f1", "f2", "f3", "f4", "f5"};
    rb_gen_mesh cube = {0};
    rb_gen_box(&cube, 1, 1, 1);
    for (int f = 0; f < 6; f++) {
        m[f] = (rb_gen_mesh){0};
        for (int t = 2 * f; t < 2 * f + 2; t++) {
            uint32_t c[3];
            for (int k = 0; k < 3; k++) {
                const float *v = cube.v + 3 * (size_t)cube.t[3 * t + k];
                c[k] = rb_gen_vertex(&m[f], v[0], v[1], v[2]);
            }
            rb_gen_triangle(&m[f], c[0], c[1], c[2]);
        }
    }
    rb_gen_free(&cube);
    write_parts("faces.obj", m, faces, 6, "{ \"resolution\": 8, \"pieces\": \"parts\" }");
    /* two cubes side by side and a 5 cm one on top of the first, between the voxel centres */
    m[0] = m[1] = m[2] = (rb_gen_mesh){0};
    box_at(&m[0], 1, 1, 1, 0, 0, 0), box_at(&m[1], 1, 1, 1, 1, 0, 0), box_at(&m[2], 0.05, 0.05, 0.05, 0, 0.525, 0);
    write_parts("tiny.obj", m, ab, 3, "{ \"resolution\": 8, \"pieces\": \"parts\" }");
    m[0] = (rb_gen_mesh){0};
    box_at(&m[0], 1, 1, 1, 0, 0, 0);
    write_parts("single.obj", m, ab, 1, "{ \"resolution\": 8, \"pieces\": \"parts\" }");
    /* glTF: one box mesh in two nodes, the second moved 2.5 m and mirrored in x */
    m[0] = (rb_gen_mesh){0};
    rb_gen_box(&m[0], 1, 1, 1);
    char path[1200];
    path_of(path, sizeof path, parts, "twins.gltf");
    assert_true(rb_gen_write_gltf(&m[0], path));
    rb_gen_free(&m[0]);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[65536];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *one = "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}]";
    char *at = strstr(text, one);
    assert_non_null(at);
    static char edited[70000];
    snprintf(edited, sizeof edited,
             "%.*s\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0,\"name\":\"left\"},"
             "{\"mesh\":0,\"name\":\"right\",\"translation\":[2.5,0,0],\"scale\":[-1,1,1]}]%s",
             (int)(at - text), text, at + strlen(one));
    write_text(parts, "twins.gltf", edited);
    write_text(parts, "twins.gltf.json", "{ \"resolution\": 14, \"pieces\": \"parts\" }");
}

static int setup(void **state) {
    (void)state;
    mkdir(RB_TEST_OUT, 0755);
    snprintf(folder, sizeof folder, "%s/meshes", RB_TEST_OUT);
    snprintf(folder2, sizeof folder2, "%s/meshes2", RB_TEST_OUT);
    snprintf(sizes, sizeof sizes, "%s/sizes", RB_TEST_OUT);
    snprintf(parts, sizeof parts, "%s/parts", RB_TEST_OUT);
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
    setup_sizes();
    setup_parts();
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
    static const char *names[] = {"banana", "brick", "bunny", "pawn", "pillar", "plank", "rock_a", "rock_b", "torus"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const rb_shape_desc *d = find_shape(l.plugin, names[i]);
        assert_non_null(d);
        printf("%-8s %4u particles, %5u triangles: %s\n", d->name, d->particle_count, d->index_count / 3,
               d->description);
        assert_true(d->particle_count >= 20 && d->particle_count <= 300);
    }
    /* sizes of their own (assets/README.md): the brick a brick's, the rock a metre, the plank 8 m */
    static const struct {
        const char *name;
        double longest;
    } sized[] = {{"brick", 0.215}, {"rock_a", 1.0}, {"plank", 8.0}, {"pillar", 2.4}};
    for (size_t i = 0; i < sizeof sized / sizeof *sized; i++) {
        const rb_shape_desc *d = find_shape(l.plugin, sized[i].name);
        const double longest = fmax(fmax(particle_extent(d, 0), particle_extent(d, 1)), particle_extent(d, 2));
        printf("%-8s %.4f m long (particles of %.4f m)\n", d->name, longest, d->particle_diameter);
        assert_true(fabs(longest - sized[i].longest) <= d->particle_diameter);
    }
    assert_non_null(find_shape(l.plugin, "pillar")->pieces); /* the pre-fractured one, in three parts */
    assert_non_null(find_shape(l.plugin, "pillar")->triangle_pieces);
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

/* ---- sizes ---- */

/* A mesh keeps its own size in metres; "units", "scale" and "size" change
 * it; "size": "resolution" gives the old size (the host's particles); bad
 * values are refused naming the side file; a mesh whose numbers look like
 * millimetres read as metres is loaded with a warning that says so. */
static void test_size_follows_the_file(void **state) {
    (void)state;
    dirs[0] = sizes;
    dirs[1] = NULL;
    loaded l = load_plugin();
    /* a 2 m pillar at 10 across: particles of 0.2 m, 2 m tall within a particle */
    const rb_shape_desc *pillar = find_shape(l.plugin, "pillar");
    assert_non_null(pillar);
    assert_float_equal(pillar->particle_diameter, 0.2f, 1e-6f);
    printf("pillar: %u particles of %.4f m, %.4f x %.4f x %.4f m\n", pillar->particle_count, pillar->particle_diameter,
           particle_extent(pillar, 0), particle_extent(pillar, 1), particle_extent(pillar, 2));
    assert_true(fabs(particle_extent(pillar, 1) - 2.0) <= pillar->particle_diameter);
    assert_int_equal(pillar->particle_count, 3 * 10 * 3);
    assert_non_null(strstr(pillar->description, "2 m"));
    /* a 1.2 m cube at 10 across: 1,000 particles of 0.12 m, however its size is said */
    static const char *const cubes[] = {"cube_mm", "cube_scaled", "cube_cm"};
    for (size_t i = 0; i < sizeof cubes / sizeof *cubes; i++) {
        const rb_shape_desc *c = find_shape(l.plugin, cubes[i]);
        assert_non_null(c);
        printf("%s: %u particles of %.6f m\n", cubes[i], c->particle_count, c->particle_diameter);
        assert_int_equal(c->particle_count, 1000);
        assert_float_equal(c->particle_diameter, 0.12f, 1e-6f);
        assert_true(fabs(particle_extent(c, 0) - 1.2) < 1e-5);
    }
    assert_float_equal(find_shape(l.plugin, "cube_in")->particle_diameter, 0.0254f, 1e-7f);
    assert_float_equal(find_shape(l.plugin, "sized")->particle_diameter, 0.3f, 1e-6f);
    assert_float_equal(find_shape(l.plugin, "filesize")->particle_diameter, 0.2f, 1e-6f);
    /* the old way: no size of its own, the host's particles */
    assert_float_equal(find_shape(l.plugin, "old")->particle_diameter, 0.0f, 0.0f);
    /* a brick in millimetres, said nowhere: 215 m long, loaded, with a warning naming it and "units" */
    char path[1200];
    path_of(path, sizeof path, sizes, "brick_mm.stl");
    assert_float_equal(find_shape(l.plugin, "brick_mm")->particle_diameter, 215.0f / 8.0f, 1e-3f);
    assert_true(find_line(RB_PLUGIN_LOG_WARN, path, "\"units\": \"mm\"") >= 0);
    assert_true(find_line(RB_PLUGIN_LOG_WARN, path, "215 m across") >= 0);
    static const struct {
        const char *file, *problem;
    } bad[] = {
        {"negative.obj.json", "\"scale\" must be a number greater than 0"},
        {"zero.obj.json", "\"scale\" must be a number greater than 0"},
        {"infinite.obj.json", "\"scale\" must be a number greater than 0"},
        {"nan.obj.json", "\"scale\" must be a number greater than 0 (at most 1e+09), metres a file unit: it is not a "
                         "number"},
        {"furlong.obj.json", "\"units\" \"furlong\" is not a unit the mesh plugin knows (m, dm, cm, mm, km, in, ft)"},
        {"number_unit.obj.json", "\"units\" (not a string) is not a unit"},
        {"negsize.obj.json", "\"size\" must be \"file\""},
        {"bigword.obj.json", "(got \"big\")"},
        {"both.obj.json", "gives \"units\" with \"size\""},
        {"giant.obj", "outside the 0.0001 to 1000 m a particle may be"},
        {"badpieces.obj.json", "\"pieces\" must be \"parts\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path_of(path, sizeof path, sizes, bad[i].file);
        if (find_line(RB_PLUGIN_LOG_ERROR, path, bad[i].problem) < 0)
            fail_msg("no error line naming %s with \"%s\"", path, bad[i].problem);
        char stem[64];
        snprintf(stem, sizeof stem, "%.*s", (int)(strchr(bad[i].file, '.') - bad[i].file), bad[i].file);
        assert_null(find_shape(l.plugin, stem)); /* skipped, not loaded at a size nobody asked for */
    }
    unload_plugin(&l);
}

/* ---- parts ---- */

/* The winding number of the triangles of d's mesh whose piece is `piece`
 * about point q (diameter units): 1 inside that part, 0 outside. */
static double part_winding(const rb_shape_desc *d, uint32_t piece, const float *q) {
    double sum = 0.0;
    for (uint32_t t = 0; t < d->index_count / 3; t++) {
        if (d->triangle_pieces[t] != piece) continue;
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++) {
            a[k] = d->vertices[3 * d->indices[3 * t] + k] - q[k];
            b[k] = d->vertices[3 * d->indices[3 * t + 1] + k] - q[k];
            c[k] = d->vertices[3 * d->indices[3 * t + 2] + k] - q[k];
        }
        sum += rb_test_solid_angle(a, b, c);
    }
    return sum / (4.0 * M_PI);
}

/* A three-part OBJ asked for "parts": one shape, the union's particles as
 * without parts, each particle's piece the part that holds its centre,
 * each triangle's piece its part's (12 each, in file order); a glTF's two
 * nodes of one mesh, one moved and mirrored, are two parts where the nodes
 * put them, the mirrored one still facing out. */
static void test_parts_become_pieces(void **state) {
    (void)state;
    dirs[0] = parts;
    dirs[1] = NULL;
    loaded l = load_plugin();
    const rb_shape_desc *pillar = find_shape(l.plugin, "pillar");
    assert_non_null(pillar);
    assert_int_equal(pillar->struct_size, sizeof(rb_shape_desc));
    assert_non_null(pillar->pieces);
    assert_non_null(pillar->triangle_pieces);
    assert_int_equal(pillar->index_count, 3 * 36);
    for (uint32_t t = 0; t < 36; t++) assert_int_equal(pillar->triangle_pieces[t], t / 12);
    /* 0.8 m across at 2.4 / 12 = 0.2 m particles: 4 x 12 x 4 */
    assert_int_equal(pillar->particle_count, 192);
    assert_float_equal(pillar->particle_diameter, 0.2f, 1e-6f);
    uint32_t count[3] = {0, 0, 0};
    for (uint32_t i = 0; i < pillar->particle_count; i++) {
        const uint32_t k = pillar->pieces[i];
        assert_true(k < 3);
        count[k]++;
        /* its own part holds it, no other does */
        for (uint32_t p = 0; p < 3; p++) {
            const double w = part_winding(pillar, p, &pillar->particles[3 * i]);
            if (p == k ? w < 0.5 : w > 0.5) fail_msg("particle %u of piece %u: winding %.3f in part %u", i, k, w, p);
        }
    }
    printf("pillar: %u, %u and %u particles in its three parts\n", count[0], count[1], count[2]);
    assert_true(count[0] > 0 && count[1] > 0 && count[2] > 0);
    assert_non_null(strstr(pillar->description, "in parts"));
    /* the same file without "pieces": one surface whose cut faces the orientation repair turns by their own
     * volume; particles go missing along the cuts, and the plugin says what would keep them */
    const rb_shape_desc *whole = find_shape(l.plugin, "whole");
    assert_non_null(whole);
    assert_null(whole->pieces);
    char whole_path[1200];
    path_of(whole_path, sizeof whole_path, parts, "whole.obj");
    printf("whole: %u particles (in parts: %u)\n", whole->particle_count, pillar->particle_count);
    assert_true(find_line(RB_PLUGIN_LOG_WARN, whole_path, "say \"pieces\": \"parts\" in") >= 0);

    const rb_shape_desc *twins = find_shape(l.plugin, "twins");
    assert_non_null(twins);
    assert_non_null(twins->pieces);
    assert_int_equal(twins->particle_count, 2 * 64); /* 3.5 m at 14 across: 4 x 4 x 4 a box */
    assert_float_equal(twins->particle_diameter, 0.25f, 1e-6f);
    uint32_t left = 0;
    for (uint32_t i = 0; i < twins->particle_count; i++) {
        /* the left box's particles are 10 diameters (2.5 m) from the right one's */
        left += twins->pieces[i] == 0;
        assert_true(twins->pieces[i] == 0 ? twins->particles[3 * i] < 0.0f : twins->particles[3 * i] > 0.0f);
    }
    assert_int_equal(left, 64);
    char path[1200];
    path_of(path, sizeof path, parts, "twins.gltf");
    assert_int_equal(find_line(RB_PLUGIN_LOG_INFO, path, "faced the wrong way"), -1); /* the mirror turned back */
    for (uint32_t p = 0; p < 2; p++) { /* each part encloses positive volume: faces out */
        double v = 0.0;
        for (uint32_t t = 0; t < twins->index_count / 3; t++) {
            if (twins->triangle_pieces[t] != p) continue;
            const float *a = twins->vertices + 3 * twins->indices[3 * t],
                        *b = twins->vertices + 3 * twins->indices[3 * t + 1],
                        *c = twins->vertices + 3 * twins->indices[3 * t + 2];
            v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                  a[2] * (b[0] * c[1] - b[1] * c[0])) /
                 6.0;
        }
        assert_true(v > 0.9 * 64.0); /* a 1 m box of 0.25 m diameters: 64 cubic diameters */
    }
    unload_plugin(&l);
}

/* Parts that cannot be pieces: each said with the file and the problem,
 * and the shape loads as a plain one (no pieces, no triangle pieces). */
static void test_bad_parts_load_plain(void **state) {
    (void)state;
    dirs[0] = parts;
    dirs[1] = NULL;
    loaded l = load_plugin();
    static const struct {
        const char *file, *problem, *detail;
    } bad[] = {
        {"overlap.obj", "part \"a\" (1 of 2) and part \"b\" (2 of 2) overlap", "particle centres are inside both"},
        {"faces.obj", "particle centres inside the mesh are in no part", "a part is open"},
        {"tiny.obj", "part \"c\" (3 of 3) is too small to hold a particle at 8 across", "raise \"resolution\""},
        {"single.obj", "has one part (part \"a\" (1 of 1))", "needs two or more"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1200], name[64];
        path_of(path, sizeof path, parts, bad[i].file);
        const int at = find_line(RB_PLUGIN_LOG_WARN, path, bad[i].problem);
        if (at < 0) fail_msg("no warning naming %s with \"%s\"", path, bad[i].problem);
        assert_non_null(strstr(lines[at], bad[i].detail));
        assert_non_null(strstr(lines[at], "loaded without pieces"));
        snprintf(name, sizeof name, "%.*s", (int)(strchr(bad[i].file, '.') - bad[i].file), bad[i].file);
        const rb_shape_desc *d = find_shape(l.plugin, name);
        if (!d) fail_msg("%s did not load", name);
        assert_null(d->pieces);
        assert_null(d->triangle_pieces);
        assert_true(d->particle_count > 0);
    }
    unload_plugin(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_is_named_and_skipped),
        cmocka_unit_test(test_mesh_and_particles_share_a_frame),
        cmocka_unit_test(test_inside_out_mesh_is_turned_for_drawing),
        cmocka_unit_test(test_assets_load_cleanly),
        cmocka_unit_test(test_entry_twice),
        cmocka_unit_test(test_size_follows_the_file),
        cmocka_unit_test(test_parts_become_pieces),
        cmocka_unit_test(test_bad_parts_load_plain),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
