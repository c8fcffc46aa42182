/* The same run on every backend: five scenes of 2,000 steps or more give
 * the same digest on the reference (sequential C) and on the OpenCL backend
 * (PoCL here; on a GPU where the test is run there, README "Determinism"):
 * a pile, mixed shapes, mixed sizes, breaking bodies and an emitter with
 * fields. The kernels and the reference do the same float operations in
 * the same order (kernels/common.cl; no fused multiply-adds on either side;
 * one sin and cos, rb_sincos; every sum in a fixed order), so this holds by
 * construction, not by luck; a digest that differs names the scene. */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/scene.h"

static rb_registry *g_reg;

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry_with_meshes();
    return g_reg && rb_registry_find(g_reg, "ball") >= 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

/* The digest of a scene stepped `steps` steps on a backend, through its
 * debris effects where it has them. */
static uint64_t digest_of(const rb_scene *s, rb_backend_kind backend, uint32_t steps) {
    rb_world_desc base = rb_default_world_desc();
    base.backend = backend;
    const rb_world_desc d = rb_scene_world_desc(s, &base);
    char err[1024] = "";
    rb_world *w = rb_world_create(&d, err, sizeof err);
    if (!w) fail_msg("%s: cannot create a world: %s", s->name, err);
    rb_entities *t = rb_entities_create(g_reg, w);
    if (rb_scene_build(s, t, err, sizeof err) != s->body_count) fail_msg("%s: %s", s->name, err);
    rb_debris *debris = rb_scene_debris(s, t, err, sizeof err);
    if (!debris && err[0]) fail_msg("%s: %s", s->name, err);
    for (uint32_t done = 0; done < steps; done += 100)
        assert_true(debris ? rb_debris_step(debris, 100) : rb_world_step(w, 100));
    const uint64_t digest = rb_world_digest(w);
    rb_debris_destroy(debris);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    return digest;
}

static void same_on_both(rb_scene *s, const char *what, uint32_t steps) {
    assert_non_null(s);
    const uint64_t ref = digest_of(s, RB_BACKEND_REFERENCE, steps), ocl = digest_of(s, RB_BACKEND_OPENCL, steps);
    print_message("%-40s %u steps: reference %016llx, opencl %016llx\n", what, steps, (unsigned long long)ref,
                  (unsigned long long)ocl);
    if (ref != ocl) fail_msg("%s: the backends part ways", what);
    rb_scene_destroy(s);
}

static rb_scene *load(const char *name) {
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/assets/scenes/%s.json", RB_TEST_SOURCE_DIR, name);
    rb_scene *s = rb_scene_load(path, g_reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    return s;
}

static void test_pile(void **state) {
    (void)state;
    char err[512];
    same_on_both(rb_scene_pile(g_reg, "cube", 200, err, sizeof err), "pile of 200 cubes", 2000);
}

static void test_mixed_shapes(void **state) {
    (void)state;
    same_on_both(load("rubble_heap"), "rubble_heap (cubes, rocks, pawns)", 2000);
}

static void test_mixed_sizes(void **state) {
    (void)state;
    char err[512];
    rb_scene *s = rb_scene_parse(
        "{\"rubble_scene\": 1, \"generators\": ["
        "{\"type\": \"grid\", \"shape\": \"cube\", \"scale\": 0.5, \"count\": [4, 3, 4], \"position\": [0, 2, 0]},"
        "{\"type\": \"grid\", \"shape\": \"cube\", \"scale\": 1.5, \"count\": [2, 2, 2], \"position\": [0.3, 6, 0.2]},"
        "{\"type\": \"grid\", \"shape\": \"cube2\", \"count\": [3, 2, 3], \"position\": [-0.4, 11, 0.1]}]}",
        "mixed_sizes", g_reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    same_on_both(s, "cubes of three sizes", 2500);
}

static void test_breaking(void **state) {
    (void)state;
    same_on_both(load("debris_brick_wall"), "debris_brick_wall (breaking, chips)", 2000);
}

/* The patterns an artist controls: radial wedges (a torus), slices (a
 * plank) and voronoi drawn about the hit (a rock), each broken by 1500 steps. */
static void test_patterns(void **state) {
    (void)state;
    same_on_both(load("breakable_patterns"), "breakable_patterns (radial, slices, impact)", 1500);
}

/* A pre-fractured mesh's parts (two pillars of three chunks), broken by 1000 steps. */
static void test_parts(void **state) {
    (void)state;
    same_on_both(load("breakable_parts"), "breakable_parts (a pre-fractured mesh's parts)", 1000);
}

static void test_emitter(void **state) {
    (void)state;
    same_on_both(load("emitter_fountain"), "emitter_fountain (emitter, wind, blast)", 6000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile),     cmocka_unit_test(test_mixed_shapes), cmocka_unit_test(test_mixed_sizes),
        cmocka_unit_test(test_breaking), cmocka_unit_test(test_patterns),     cmocka_unit_test(test_parts),
        cmocka_unit_test(test_emitter),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
