/* test_render.c - the renderer alone, in an offscreen OpenGL 3.3 core context
 * (SDL_VIDEODRIVER=offscreen: Mesa llvmpipe through EGL, no X server). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "render/render.h"

#include <SDL.h>
#include <cglm/cglm.h>
#include <stb_image_write.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

typedef struct fixture {
    SDL_Window *window;
    SDL_GLContext context;
    rb_renderer *renderer;
    int cube;
    char shader_dir[512];
} fixture;

static const float g_red[4] = {0.85f, 0.12f, 0.10f, 1.0f};

/* A 1 m cube centred on the origin, with face normals; `cut`: every face
 * marked a cut face (rb_renderer_add_mesh_marked). */
static int add_cube_marked(rb_renderer *r, bool cut) {
    float pos[24 * 3], nrm[24 * 3];
    uint32_t idx[36];
    for (int face = 0; face < 6; face++) {
        int a = face / 2, u = (a + 1) % 3, v = (a + 2) % 3;
        float s = (face % 2) ? -1.0f : 1.0f;
        static const float cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
        for (int c = 0; c < 4; c++) {
            float *p = &pos[(face * 4 + c) * 3], *n = &nrm[(face * 4 + c) * 3];
            p[a] = s * 0.5f, p[u] = cu[c] * 0.5f, p[v] = s * cv[c] * 0.5f;
            n[0] = n[1] = n[2] = 0.0f, n[a] = s;
        }
        static const uint32_t q[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) idx[face * 6 + k] = (uint32_t)face * 4 + q[k];
    }
    uint8_t inside[24];
    memset(inside, cut ? 1 : 0, sizeof inside);
    return cut ? rb_renderer_add_mesh_marked(r, pos, nrm, inside, 24, idx, 36)
               : rb_renderer_add_mesh(r, pos, nrm, 24, idx, 36);
}

static int add_cube(rb_renderer *r) { return add_cube_marked(r, false); }

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        return -1;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    f->window = SDL_CreateWindow("test_render", 0, 0, W, H, SDL_WINDOW_OPENGL);
    if (!f->window) return -1;
    f->context = SDL_GL_CreateContext(f->window);
    if (!f->context) return -1;
    rb_render_pin_gl_driver();
    snprintf(f->shader_dir, sizeof f->shader_dir, "%s", RB_TEST_SOURCE_SHADERS);
    char err[4096];
    f->renderer = rb_renderer_create(f->shader_dir, err, sizeof err);
    if (!f->renderer) {
        fprintf(stderr, "renderer: %s\n", err);
        return -1;
    }
    f->cube = add_cube(f->renderer);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    rb_renderer_destroy(f->renderer);
    SDL_GL_DeleteContext(f->context);
    SDL_DestroyWindow(f->window);
    SDL_Quit();
    free(f);
    return 0;
}

/* The camera of every test: 5 m back, 2 m up, looking at (0, 0.5, 0). */
static void make_view(rb_render_view *v, mat4 view_proj) {
    vec3 eye = {0.0f, 2.0f, 5.0f}, target = {0.0f, 0.5f, 0.0f}, up = {0.0f, 1.0f, 0.0f};
    mat4 view, proj;
    glm_lookat(eye, target, up, view);
    glm_perspective(glm_rad(60.0f), (float)W / H, 0.05f, 1000.0f, proj);
    memcpy(v->view, view, sizeof view);
    memcpy(v->proj, proj, sizeof proj);
    memcpy(v->eye, eye, sizeof eye);
    v->width = W, v->height = H;
    glm_mat4_mul(proj, view, view_proj);
}

static rb_render_scene ground_scene(void) {
    rb_render_scene s = {.focus = {0, 0.5f, 0}, .focus_radius = 6.0f, .plane_count = 1};
    s.planes[0][1] = 1.0f; /* y = 0 */
    return s;
}

/* Pixel (x, y from the top) of a frame read bottom row first. */
static const uint8_t *pixel(const uint8_t *img, int x, int y) { return &img[((H - 1 - y) * W + x) * 4]; }

static void project(mat4 vp, const float p[3], int *x, int *y) {
    vec4 c = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv(vp, c, o);
    *x = (int)((o[0] / o[3] * 0.5f + 0.5f) * W);
    *y = (int)((0.5f - o[1] / o[3] * 0.5f) * H);
}

/* Renders the cube (mesh view) or its 27 particles (particle view) at y = 0.5. */
static void render(fixture *f, bool particles, uint8_t *img, mat4 vp) {
    rb_render_view v;
    make_view(&v, vp);
    rb_render_scene s = ground_scene();
    rb_renderer_begin(f->renderer, &v, &s);
    if (particles) {
        float c[27 * 3], col[27 * 4];
        int n = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++, n++) {
                    c[n * 3] = (i - 1) / 3.0f, c[n * 3 + 1] = 0.5f + (j - 1) / 3.0f, c[n * 3 + 2] = (k - 1) / 3.0f;
                    memcpy(&col[n * 4], g_red, sizeof g_red);
                }
        rb_renderer_add_spheres(f->renderer, c, col, 27, 1.0f / 6.0f);
    } else {
        const rb_transform t = {.position = {0.0f, 0.5f, 0.0f}, .orientation = {0.0f, 0.0f, 0.0f, 1.0f}};
        rb_renderer_add_instances(f->renderer, f->cube, &t, g_red, 1);
    }
    const float white[4] = {1, 1, 1, 1};
    rb_renderer_text(f->renderer, 4, 4, 1.0f, white, "test");
    assert_true(rb_renderer_end(f->renderer));
    assert_true(rb_renderer_read_pixels(f->renderer, W, H, img));
}

static bool is_body_red(const uint8_t *p) { return p[0] > 90 && p[0] > 2 * p[1] && p[0] > 2 * p[2]; }
static bool is_ground_grey(const uint8_t *p) {
    return abs(p[0] - p[1]) < 30 && abs(p[1] - p[2]) < 30 && p[0] > 40 && p[0] < 230;
}

static void test_body_colour_where_it_projects(void **state) {
    fixture *f = *state;
    static uint8_t img[W * H * 4];
    mat4 vp;
    render(f, false, img, vp);
    int x, y;
    project(vp, (float[3]){0.0f, 0.5f, 0.0f}, &x, &y);
    assert_true(is_body_red(pixel(img, x, y)));
    /* The ground well beside the cube, in front of the camera. */
    project(vp, (float[3]){-2.5f, 0.0f, 1.5f}, &x, &y);
    const uint8_t *g = pixel(img, x, y);
    if (!is_ground_grey(g)) fprintf(stderr, "ground pixel %d %d %d\n", g[0], g[1], g[2]);
    assert_true(is_ground_grey(g));
    /* Sky at the top: bluer than red. */
    const uint8_t *s = pixel(img, W / 2, 2);
    assert_true(s[2] > s[0]);
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

/* A broken body's cut faces (src/scenes/cut.h) are drawn paler and greyer
 * than its outside: the same red cube, every face marked, is less red. */
static void test_cut_faces_drawn_greyer(void **state) {
    fixture *f = *state;
    static uint8_t img[W * H * 4];
    mat4 vp;
    render(f, false, img, vp);
    int x, y;
    project(vp, (float[3]){0.0f, 0.5f, 0.0f}, &x, &y);
    uint8_t outside[4];
    memcpy(outside, pixel(img, x, y), 4);
    const int plain = f->cube;
    f->cube = add_cube_marked(f->renderer, true);
    assert_true(f->cube >= 0);
    render(f, false, img, vp);
    f->cube = plain;
    const uint8_t *cut = pixel(img, x, y);
    print_message("outside %d %d %d, cut face %d %d %d\n", outside[0], outside[1], outside[2], cut[0], cut[1], cut[2]);
    assert_true(is_body_red(outside));
    assert_true(cut[0] - cut[2] < (outside[0] - outside[2]) / 2); /* far less saturated */
    assert_true(cut[1] > outside[1] + 30);                        /* paler */
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

static void test_particle_view_differs(void **state) {
    fixture *f = *state;
    static uint8_t mesh[W * H * 4], spheres[W * H * 4];
    mat4 vp;
    render(f, false, mesh, vp);
    render(f, true, spheres, vp);
    int differ = 0;
    for (int i = 0; i < W * H; i++)
        if (abs(mesh[i * 4] - spheres[i * 4]) + abs(mesh[i * 4 + 1] - spheres[i * 4 + 1]) > 40) differ++;
    assert_true(differ > 200);
    /* The spheres are still the body's colour at its centre column. */
    int x, y;
    project(vp, (float[3]){0.0f, 0.5f + 1.0f / 3.0f, 1.0f / 3.0f}, &x, &y);
    assert_true(is_body_red(pixel(spheres, x, y)));
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

static void copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_non_null(a);
    assert_non_null(b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) fwrite(buf, 1, n, b);
    fclose(a), fclose(b);
}

static void test_broken_shader_keeps_the_old_one(void **state) {
    fixture *f = *state;
    /* A private copy of the shaders, so breaking one harms nothing else. */
    char dir[] = "/tmp/rubble-shaders-XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const files[] = {
        "quat.glsl",       "lighting.glsl",    "sphere_common.glsl", "mesh.vert.glsl",         "mesh.frag.glsl",
        "depth.frag.glsl", "sphere.vert.glsl", "sphere.frag.glsl",   "sphere_depth.frag.glsl", "plane.vert.glsl",
        "plane.frag.glsl", "sky.vert.glsl",    "sky.frag.glsl",      "overlay.vert.glsl",      "overlay.frag.glsl",
        "lines.vert.glsl", "lines.frag.glsl"};
    char a[700], b[700];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(a, sizeof a, "%s/%s", f->shader_dir, files[i]);
        snprintf(b, sizeof b, "%s/%s", dir, files[i]);
        copy_file(a, b);
    }
    char err[4096];
    rb_renderer *r = rb_renderer_create(dir, err, sizeof err);
    assert_non_null(r);
    rb_renderer *saved = f->renderer;
    f->renderer = r;
    f->cube = add_cube(r);

    /* Break line 3 of mesh.frag.glsl. */
    snprintf(b, sizeof b, "%s/mesh.frag.glsl", dir);
    FILE *out = fopen(b, "w");
    fputs("#version 330 core\nout vec4 o_color;\nvoid main() { o_color = vec4(1.0) + undefined_thing; }\n", out);
    fclose(out);
    assert_false(rb_renderer_reload(r, err, sizeof err));
    fprintf(stderr, "expected error:\n%s\n", err);
    assert_non_null(strstr(err, "mesh.frag.glsl:3:"));
    assert_non_null(strstr(err, "undefined_thing"));

    /* The old shaders still draw the red cube. */
    static uint8_t img[W * H * 4];
    mat4 vp;
    render(f, false, img, vp);
    int x, y;
    project(vp, (float[3]){0.0f, 0.5f, 0.0f}, &x, &y);
    assert_true(is_body_red(pixel(img, x, y)));

    /* An error in an included file names that file. */
    snprintf(a, sizeof a, "%s/mesh.frag.glsl", f->shader_dir);
    copy_file(a, b);
    snprintf(b, sizeof b, "%s/lighting.glsl", dir);
    out = fopen(b, "a");
    fputs("\nfloat broken( {\n", out);
    fclose(out);
    assert_false(rb_renderer_reload(r, err, sizeof err));
    fprintf(stderr, "expected error:\n%s\n", err);
    assert_non_null(strstr(err, "lighting.glsl:"));

    /* Fixed again: reload succeeds. */
    snprintf(a, sizeof a, "%s/lighting.glsl", f->shader_dir);
    copy_file(a, b);
    assert_true(rb_renderer_reload(r, err, sizeof err));

    f->renderer = saved;
    rb_renderer_destroy(r);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(b, sizeof b, "%s/%s", dir, files[i]);
        remove(b);
    }
    remove(dir);
}

/* Writes img as a PNG into $RB_TEST_DUMP_DIR when that is set, to look at by eye. */
static void dump(const char *name, const uint8_t *img) {
    const char *dir = getenv("RB_TEST_DUMP_DIR");
    if (!dir) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    stbi_flip_vertically_on_write(1);
    stbi_write_png(path, W, H, 4, img, W * 4);
}

static void test_walls_are_drawn_see_through(void **state) {
    fixture *f = *state;
    static uint8_t plain[W * H * 4], walled[W * H * 4];
    mat4 vp;
    render(f, false, plain, vp);
    dump("plain.png", plain);
    /* The scene with a wall at x = 1.5 (solid beyond it) and one at z = -2. */
    rb_render_view v;
    make_view(&v, vp);
    rb_render_scene s = ground_scene();
    s.plane_count = 3;
    s.planes[1][0] = -1.0f, s.planes[1][3] = -1.5f;
    s.planes[2][2] = 1.0f, s.planes[2][3] = -2.0f;
    rb_renderer_begin(f->renderer, &v, &s);
    const rb_transform t = {.position = {0.0f, 0.5f, 0.0f}, .orientation = {0.0f, 0.0f, 0.0f, 1.0f}};
    rb_renderer_add_instances(f->renderer, f->cube, &t, g_red, 1);
    assert_true(rb_renderer_end(f->renderer));
    assert_true(rb_renderer_read_pixels(f->renderer, W, H, walled));
    dump("walled.png", walled);
    int x, y;
    /* A point on the wall x = 1.5, behind it the ground: changed, but still seen through. */
    project(vp, (float[3]){1.5f, 0.3f, 0.5f}, &x, &y);
    const uint8_t *a = pixel(plain, x, y), *b = pixel(walled, x, y);
    assert_true(abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) > 6);
    /* The cube in front of the back wall keeps its colour. */
    project(vp, (float[3]){0.0f, 0.5f, 0.0f}, &x, &y);
    assert_true(is_body_red(pixel(walled, x, y)));
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

/* A body between the sun and another casts its shadow on it. */
static void test_bodies_shadow_each_other(void **state) {
    fixture *f = *state;
    static uint8_t lit[W * H * 4], shaded[W * H * 4];
    rb_render_view v;
    mat4 vp;
    make_view(&v, vp);
    rb_render_scene s = ground_scene();
    s.light_dir[1] = 1.0f; /* the sun straight above */
    const rb_transform both[2] = {{.position = {0.0f, 0.5f, 0.0f}, .orientation = {0.0f, 0.0f, 0.0f, 1.0f}},
                                  {.position = {0.0f, 2.6f, 0.0f}, .orientation = {0.0f, 0.0f, 0.0f, 1.0f}}};
    const rb_transform *below = both;
    const float colours[8] = {0.85f, 0.12f, 0.10f, 1.0f, 0.85f, 0.12f, 0.10f, 1.0f};
    for (int pass = 0; pass < 2; pass++) {
        rb_renderer_begin(f->renderer, &v, &s);
        rb_renderer_add_instances(f->renderer, f->cube, pass ? both : below, colours, pass ? 2 : 1);
        assert_true(rb_renderer_end(f->renderer));
        assert_true(rb_renderer_read_pixels(f->renderer, W, H, pass ? shaded : lit));
    }
    dump("shadow.png", shaded);
    int x, y;
    project(vp, (float[3]){0.0f, 1.0f, 0.1f}, &x, &y); /* the lower cube's top face */
    const uint8_t *a = pixel(lit, x, y), *b = pixel(shaded, x, y);
    fprintf(stderr, "top face lit %d %d %d, under the other cube %d %d %d\n", a[0], a[1], a[2], b[0], b[1], b[2]);
    assert_true(is_body_red(a));
    assert_true(b[0] < a[0] * 0.7);
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

/* Red, on a lit face or a face turned from the sun (darker): the ground is grey. */
static bool is_red_lit_or_not(const uint8_t *p) { return p[0] > 60 && p[0] > 3 * p[1] && p[0] > 3 * p[2]; }

/* An instance is drawn turned by its quaternion and grown by its scale (the
 * transform's scale): a point of the turned, doubled cube that neither the
 * plain cube, the turned one nor the doubled one covers shows red. */
static void test_instances_turn_and_scale(void **state) {
    fixture *f = *state;
    static uint8_t img[W * H * 4];
    rb_render_view v;
    mat4 vp;
    make_view(&v, vp);
    rb_render_scene s = ground_scene();
    const float c45 = 0.9238795f, s45 = 0.3826834f; /* 45 degrees about y */
    for (int pass = 0; pass < 4; pass++) {
        const bool turned = pass & 1, doubled = pass & 2;
        rb_transform t = {.position = {0.0f, doubled ? 1.0f : 0.5f, 0.0f},
                          .scale = doubled ? 2.0f : 0.0f,
                          .orientation = {0.0f, turned ? s45 : 0.0f, 0.0f, turned ? c45 : 1.0f}};
        rb_renderer_begin(f->renderer, &v, &s);
        rb_renderer_add_instances(f->renderer, f->cube, &t, g_red, 1);
        assert_true(rb_renderer_end(f->renderer));
        assert_true(rb_renderer_read_pixels(f->renderer, W, H, img));
        int x, y;
        /* a corner of the turned, doubled cube reaches x = sqrt(2) at z = 0 */
        project(vp, (float[3]){1.3f, 1.0f, 0.0f}, &x, &y);
        assert_int_equal(is_red_lit_or_not(pixel(img, x, y)), turned && doubled);
        /* every version covers the middle */
        project(vp, (float[3]){0.0f, 0.6f, 0.0f}, &x, &y);
        assert_true(is_red_lit_or_not(pixel(img, x, y)));
    }
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

static bool is_green(const uint8_t *p) { return p[1] > 150 && p[0] < 100 && p[2] < 100; }

/* Lines of the debug views: a segment through the cube, from behind it to
 * in front of it, shows only in front of the cube when it is hidden by what
 * is in front, and along its whole length when it is drawn over everything. */
static void test_lines_hidden_or_over(void **state) {
    fixture *f = *state;
    static uint8_t img[W * H * 4];
    rb_render_view v;
    mat4 vp;
    make_view(&v, vp);
    rb_render_scene s = ground_scene();
    /* along x at the cube's middle height, 1 m in front of its front face (z = 1) and 1 m behind it (z = -1.5) */
    const float front[6] = {-2.0f, 0.5f, 1.0f, 2.0f, 0.5f, 1.0f}, back[6] = {-2.0f, 0.5f, -1.5f, 2.0f, 0.5f, -1.5f};
    const float green[4] = {0.1f, 0.9f, 0.1f, 1.0f};
    /* one sample a pixel: a line one pixel wide keeps its colour (multisampled, it is blended with what it crosses) */
    const rb_render_quality was = rb_renderer_quality(f->renderer);
    assert_true(
        rb_renderer_set_quality(f->renderer, &(rb_render_quality){.msaa = 0, .shadow_size = 2048, .scale = 1.0f}));
    for (int over = 0; over < 2; over++) {
        rb_renderer_begin(f->renderer, &v, &s);
        const rb_transform t = {.position = {0.0f, 0.5f, 0.0f}, .orientation = {0.0f, 0.0f, 0.0f, 1.0f}};
        rb_renderer_add_instances(f->renderer, f->cube, &t, g_red, 1);
        rb_renderer_lines(f->renderer, front, 1, green, over);
        rb_renderer_lines(f->renderer, back, 1, green, over);
        assert_true(rb_renderer_end(f->renderer));
        assert_true(rb_renderer_read_pixels(f->renderer, W, H, img));
        dump(over ? "lines-over.png" : "lines-hidden.png", img);
        /* a line is one pixel wide: look at the pixel and the ones above and below it */
        int x, y, hits[3] = {0, 0, 0};
        const float at[3][3] = {{0.0f, 0.5f, 1.0f}, {0.0f, 0.5f, -1.5f}, {-1.8f, 0.5f, -1.5f}};
        for (int k = 0; k < 3; k++) {
            project(vp, at[k], &x, &y);
            for (int dy = -1; dy <= 1; dy++) hits[k] |= is_green(pixel(img, x, y + dy));
        }
        fprintf(stderr, "over %d: in front %d, behind the cube %d, behind beside it %d\n", over, hits[0], hits[1],
                hits[2]);
        assert_true(hits[0]);            /* in front of the cube: always */
        assert_int_equal(hits[1], over); /* behind it: only over everything */
        assert_true(hits[2]);            /* behind, beside the cube: nothing hides it */
    }
    assert_true(rb_renderer_set_quality(f->renderer, &was));
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

/* The quality presets and the automatic choice, without GL: a software
 * renderer by its GL_RENDERER name starts low, a GPU high (a GPU driver
 * whose name mentions LLVM included), and each setting the user gave
 * replaces the choice's own. */
static void test_quality_presets_and_choice(void **state) {
    (void)state;
    assert_true(rb_quality_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    assert_true(rb_quality_software_renderer("softpipe"));
    assert_true(rb_quality_software_renderer("Mesa X11 SWRAST"));
    assert_false(rb_quality_software_renderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
    assert_false(rb_quality_software_renderer("AMD Radeon RX 6800 (navi21, LLVM 15.0.6, DRM 3.49)"));
    assert_false(rb_quality_software_renderer(NULL));
    assert_int_equal(rb_quality_auto("llvmpipe (LLVM 15.0.6, 256 bits)"), RB_QUALITY_LOW);
    assert_int_equal(rb_quality_auto("NVIDIA H100 80GB HBM3/PCIe/SSE2"), RB_QUALITY_HIGH);

    const rb_render_quality low = rb_quality_preset_get(RB_QUALITY_LOW), high = rb_quality_preset_get(RB_QUALITY_HIGH);
    assert_true(high.msaa == 4 && high.shadow_size == 2048 && high.scale == 1.0f);
    assert_true(low.msaa == 0 && low.scale < 1.0f);
    rb_render_quality q = rb_quality_choose("llvmpipe", -1, -1, 0.0f);
    assert_memory_equal(&q, &low, sizeof q);
    q = rb_quality_choose("llvmpipe", 4, -1, 0.0f);
    assert_true(q.msaa == 4 && q.shadow_size == low.shadow_size && q.scale == low.scale);
    assert_int_equal(rb_quality_preset_of(&q), RB_QUALITY_CUSTOM);
    q = rb_quality_choose("NVIDIA H100", -1, 0, 0.6f);
    assert_true(q.msaa == 4 && q.shadow_size == 0 && q.scale == 0.6f);

    /* F9's cycle: low, medium, high, low; custom settings go to low */
    rb_quality_preset p = RB_QUALITY_LOW;
    for (int k = 0; k < RB_QUALITY_PRESETS; k++) {
        q = rb_quality_preset_get(p);
        assert_true(rb_quality_valid(&q));
        assert_int_equal(rb_quality_preset_of(&q), p);
        p = rb_quality_next_preset(&q);
        assert_int_equal(p, (k + 1) % RB_QUALITY_PRESETS);
    }
    q = (rb_render_quality){.msaa = 2, .shadow_size = 0, .scale = 0.9f};
    assert_int_equal(rb_quality_next_preset(&q), RB_QUALITY_LOW);
    char text[128];
    rb_quality_describe(&q, text, sizeof text);
    assert_string_equal(text, "custom (msaa 2x, shadows off, scale 0.9)");
    rb_quality_describe(&high, text, sizeof text);
    assert_string_equal(text, "high (msaa 4x, shadows 2048, scale 1)");

    /* the values the command line takes, and no others */
    assert_false(rb_quality_msaa_ok(1) || rb_quality_msaa_ok(3) || rb_quality_msaa_ok(8));
    assert_false(rb_quality_shadow_size_ok(256) || rb_quality_shadow_size_ok(4096));
    assert_false(rb_quality_scale_ok(0.49f) || rb_quality_scale_ok(1.01f) || rb_quality_scale_ok(NAN));
    assert_true(rb_quality_scale_ok(0.5f) && rb_quality_scale_ok(1.0f));
}

/* The scene drawn multisampled and at half the window's size still reads
 * back at the window's size with the body where it projects, and the
 * overlay's text at full resolution; a setting the renderer does not take
 * is refused and changes nothing. */
static void test_quality_in_the_renderer(void **state) {
    fixture *f = *state;
    static uint8_t full[W * H * 4], half[W * H * 4];
    mat4 vp;
    const rb_render_quality was = rb_renderer_quality(f->renderer);
    const rb_render_quality bad = {.msaa = 3, .shadow_size = 512, .scale = 1.0f};
    assert_false(rb_renderer_set_quality(f->renderer, &bad));
    const rb_render_quality kept = rb_renderer_quality(f->renderer);
    assert_memory_equal(&was, &kept, sizeof was);
    const rb_render_quality plain = {.msaa = 0, .shadow_size = 2048, .scale = 1.0f},
                            small = {.msaa = 4, .shadow_size = 1024, .scale = 0.5f};
    assert_true(rb_renderer_set_quality(f->renderer, &plain));
    render(f, false, full, vp);
    assert_true(rb_renderer_set_quality(f->renderer, &small));
    render(f, false, half, vp);
    dump("quality-half.png", half);
    int x, y;
    project(vp, (float[3]){0.0f, 0.5f, 0.0f}, &x, &y);
    assert_true(is_body_red(pixel(half, x, y)));
    /* the scene differs (blurred), the overlay's "test" at (4, 4) does not */
    int differ = 0, text_diff = 0;
    for (int i = 0; i < W * H; i++) differ += abs(full[i * 4] - half[i * 4]) > 20;
    for (int py = 2; py < 14; py++)
        for (int px = 2; px < 30; px++) {
            const uint8_t *a = pixel(full, px, py), *b = pixel(half, px, py);
            const int d = abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
            if (d > text_diff) text_diff = d;
        }
    fprintf(stderr, "half scale: %d pixels differ; the overlay's text by at most %d\n", differ, text_diff);
    assert_true(differ > 200);
    assert_true(text_diff <= 12);
    assert_true(rb_renderer_set_quality(f->renderer, &was));
    assert_int_equal(rb_renderer_gl_errors(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_colour_where_it_projects), cmocka_unit_test(test_cut_faces_drawn_greyer),
        cmocka_unit_test(test_particle_view_differs),         cmocka_unit_test(test_broken_shader_keeps_the_old_one),
        cmocka_unit_test(test_walls_are_drawn_see_through),   cmocka_unit_test(test_bodies_shadow_each_other),
        cmocka_unit_test(test_instances_turn_and_scale),      cmocka_unit_test(test_lines_hidden_or_over),
        cmocka_unit_test(test_quality_presets_and_choice),    cmocka_unit_test(test_quality_in_the_renderer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
