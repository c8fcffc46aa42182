/* fuzz_scene.c - scene files (src/scenes/scene_read.c) read from a file as
 * --scene reads them, against a registry of three shapes (cube, cube2,
 * pebble). A refused scene must say which file; a taken one must hold what
 * scene.h promises (known shapes and materials, finite poses, no more than
 * the limits). A small one is built into a world on the reference backend,
 * stepped, saved (rb_scene_save) and read again: the saved file must load,
 * with the same bodies at the same positions, bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "scenes/entities.h"
#include "scenes/scene.h"
#include "shapes/shapes.h"
#include "sim/world.h"

#define BUILD_MAX_BODIES 48
#define BUILD_MAX_PARTICLES 2000

static char g_path[64], g_saved[80];
static rb_registry *g_registry;

static void silent(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }
static void remove_files(void) { unlink(g_path), unlink(g_saved); }

/* An n x n x n lattice, one diameter apart. */
static void add_shape(const char *name, int n, float diameter) {
    float p[3 * 27];
    int k = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) p[k++] = (float)x, p[k++] = (float)y, p[k++] = (float)z;
    rb_shape_desc d = {.struct_size = sizeof d,
                       .name = name,
                       .description = name,
                       .particle_count = (uint32_t)(n * n * n),
                       .particles = p,
                       .particle_diameter = diameter};
    if (rb_registry_add_desc(g_registry, &d, "fuzz", "fuzz") != RB_LOAD_OK) abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    snprintf(g_path, sizeof g_path, "/tmp/rubble-fuzz-scene-XXXXXX");
    int fd = mkstemp(g_path);
    if (fd < 0) abort();
    close(fd);
    snprintf(g_saved, sizeof g_saved, "%s-saved.json", g_path);
    atexit(remove_files);
    rb_set_log_fn(silent, NULL);
    g_registry = rb_registry_create(NULL);
    if (!g_registry) abort();
    add_shape("cube", 3, 0.0f);
    add_shape("cube2", 2, 0.0f);
    add_shape("pebble", 1, 0.1f);
    return 0;
}

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_scene: " __VA_ARGS__);                                                               \
            fprintf(stderr, " (%s)\n", #cond);                                                                         \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static bool finite3(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static void check_scene(const rb_scene *s) {
    CHECK(s->body_count <= RB_SCENE_MAX_BODIES, "%u bodies taken", s->body_count);
    CHECK(s->particle_count <= RB_SCENE_MAX_PARTICLES, "%llu particles taken", (unsigned long long)s->particle_count);
    CHECK(s->material_count >= 1 && s->material_count <= RB_SCENE_MAX_MATERIALS, "%u materials", s->material_count);
    for (uint32_t i = 0; i < s->body_count; i++) {
        const rb_scene_body *b = &s->bodies[i];
        CHECK(rb_registry_find(g_registry, b->shape) >= 0, "body %u of unknown shape '%s'", i, b->shape);
        CHECK(b->material < s->material_count, "body %u of material %u", i, b->material);
        CHECK(finite3(b->desc.position, 3) && finite3(b->desc.orientation, 4), "body %u not finite", i);
        CHECK(finite3(b->desc.velocity, 3) && finite3(b->desc.angular_velocity, 3), "body %u moving by NaN", i);
        CHECK(isfinite(b->scale) && b->scale > 0.0f, "body %u of scale %g", i, b->scale);
    }
}

/* Builds, steps, saves and reads back a small scene. */
static void round_trip(const rb_scene *scene) {
    char err[1024];
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_world_desc desc = rb_scene_world_desc(scene, &base);
    rb_world *world = rb_world_create(&desc, err, sizeof err);
    if (!world) return; /* a world the scene asks for but the simulation refuses, with a reason */
    rb_entities *ents = rb_entities_create(g_registry, world);
    if (!ents) abort();
    uint32_t built = rb_scene_build(scene, ents, err, sizeof err);
    bool finite = true;
    if (built == scene->body_count && rb_world_step(world, 2)) {
        uint32_t n = rb_world_body_count(world);
        for (uint32_t i = 0; i < n && finite; i++) {
            rb_body_state b;
            CHECK(rb_world_get_body(world, i, &b), "body %u cannot be read", i);
            finite = finite3(b.position, 3) && finite3(b.orientation, 4) && finite3(b.velocity, 3) &&
                     finite3(b.angular_momentum, 3);
        }
        /* A world gone non-finite is the simulation's business (hostile speeds), not the reader's. */
        if (finite) {
            CHECK(rb_scene_save(g_saved, world, ents, err, sizeof err), "a world of %u bodies cannot be saved: %s", n,
                  err);
            rb_scene *again = rb_scene_load(g_saved, g_registry, err, sizeof err);
            CHECK(again, "a saved world does not load: %s", err);
            CHECK(again->body_count == n, "saved %u bodies, read %u", n, again->body_count);
            for (uint32_t i = 0; i < n; i++) {
                rb_body_state b;
                rb_world_get_body(world, i, &b);
                CHECK(memcmp(b.position, again->bodies[i].desc.position, sizeof b.position) == 0,
                      "body %u saved at (%.9g %.9g %.9g), read at (%.9g %.9g %.9g)", i, b.position[0], b.position[1],
                      b.position[2], again->bodies[i].desc.position[0], again->bodies[i].desc.position[1],
                      again->bodies[i].desc.position[2]);
            }
            rb_scene_destroy(again);
        }
    }
    rb_entities_destroy(ents);
    rb_world_destroy(world);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fopen(g_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    char err[1024] = "";
    rb_scene *scene = rb_scene_load(g_path, g_registry, err, sizeof err);
    if (!scene) {
        CHECK(strncmp(err, g_path, strlen(g_path)) == 0, "a refusal that does not name the file: '%s'", err);
        return 0;
    }
    check_scene(scene);
    if (scene->body_count <= BUILD_MAX_BODIES && scene->particle_count <= BUILD_MAX_PARTICLES) round_trip(scene);
    rb_scene_destroy(scene);
    return 0;
}
