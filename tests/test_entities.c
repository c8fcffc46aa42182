/* The entity table (src/scenes/entities.h): one row per registry shape with
 * its world shape and mesh; the one place bodies are spawned, which the
 * formations and the benchmark pile go through. */
#include "rb_test.h"
#include "scenes/entities.h"
#include "scenes/formations.h"
#include "scenes/pile.h"

/* A rod of n particles along x, added to the registry as a plugin would. */
static void add_rod(rb_registry *reg, const char *name, uint32_t n) {
    static float p[3 * 16];
    for (uint32_t i = 0; i < n; i++) p[3 * i] = (float)i, p[3 * i + 1] = p[3 * i + 2] = 0.0f;
    rb_shape_desc d = {
        .struct_size = sizeof d, .name = name, .description = "a rod", .particle_count = n, .particles = p};
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", "test_entities.c"), RB_LOAD_OK);
}

static void test_rows_follow_the_registry(void **state) {
    rb_registry *reg = rb_test_registry();
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_entities *t = rb_entities_create(reg, w);
    const uint32_t n = rb_registry_count(reg);
    assert_true(n >= 2);
    assert_int_equal(rb_entities_count(t), n);
    assert_int_equal(rb_world_shape_count(w), n);
    for (uint32_t i = 0; i < n; i++) {
        const rb_entity *e = rb_entities_get(t, i);
        assert_ptr_equal(e->shape, rb_registry_get(reg, i));
        assert_true(e->world_shape >= 0);
        assert_int_equal(rb_entities_of_world_shape(t, (uint32_t)e->world_shape), i);
        assert_int_equal(e->mesh, -1); /* no renderer gave it one */
        assert_int_equal(rb_entities_find(t, e->shape->name), i);
    }
    assert_null(rb_entities_get(t, n));
    assert_int_equal(rb_entities_find(t, "no such shape"), -1);
    assert_int_equal(rb_entities_of_world_shape(t, 999), -1);
    rb_entities_set_mesh(t, 1, 7);
    assert_int_equal(rb_entities_get(t, 1)->mesh, 7);
    /* A second table on the same world: its rows' world shapes are n .. 2n - 1,
     * so a row and its world shape differ and the map between them is needed. */
    rb_entities *t2 = rb_entities_create(reg, w);
    for (uint32_t i = 0; i < n; i++) {
        const rb_entity *e = rb_entities_get(t2, i);
        assert_int_equal(e->world_shape, (int)(n + i));
        assert_int_equal(rb_entities_of_world_shape(t2, n + i), i);
        assert_int_equal(rb_entities_of_world_shape(t2, i), -1); /* the first table's */
    }
    rb_body_id id = rb_entities_spawn(t2, 1, &(rb_body_desc){.position = {0, 5, 0}});
    rb_body_state st;
    assert_true(rb_world_get_body_by_id(w, id, &st));
    assert_int_equal(st.shape, n + 1);
    rb_entities_destroy(t2);
    rb_world_clear(w);

    /* A shape the registry gains later (a rescan) gets one new row, in the world too. */
    assert_int_equal(rb_entities_sync(t), 0);
    add_rod(reg, "rod5", 5);
    assert_int_equal(rb_entities_sync(t), 1);
    assert_int_equal(rb_entities_count(t), n + 1);
    int rod = rb_entities_find(t, "rod5");
    assert_int_equal(rod, (int)n);
    assert_int_equal(rb_world_shape_count(w), 2 * n + 1);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* Spawning gives the body the row's world shape and the pose asked for. */
static void test_spawn(void **state) {
    rb_registry *reg = rb_test_registry();
    add_rod(reg, "rod3", 3);
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_entities *t = rb_entities_create(reg, w);
    const int rod = rb_entities_find(t, "rod3");
    const rb_entity *e = rb_entities_get(t, (uint32_t)rod);
    /* desc.shape is not read: the row says what the body is */
    rb_body_desc d = {.shape = 12345, .position = {1.0f, 2.0f, 3.0f}, .velocity = {0.5f, 0.0f, 0.0f}};
    rb_body_id id = rb_entities_spawn(t, (uint32_t)rod, &d);
    assert_true(id.generation != 0);
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_int_equal(s.shape, (uint32_t)e->world_shape);
    assert_int_equal(rb_world_particle_count(w), 3);
    assert_memory_equal(s.position, d.position, sizeof s.position);
    assert_memory_equal(s.velocity, d.velocity, sizeof s.velocity);
    /* an unknown row spawns nothing */
    assert_int_equal(rb_entities_spawn(t, rb_entities_count(t), &d).generation, 0);
    assert_int_equal(rb_world_body_count(w), 1);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* A scaled body is its shape at scale: particles further apart and larger,
 * mass times scale^3, inertia times scale^5; one world shape per (shape, scale). */
static void test_spawn_scaled(void **state) {
    rb_registry *reg = rb_test_registry();
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_entities *t = rb_entities_create(reg, w);
    const uint32_t cube = (uint32_t)rb_entities_find(t, "cube");
    const rb_shape *s = rb_entities_get(t, cube)->shape;
    const uint32_t shapes_before = rb_world_shape_count(w);
    rb_body_desc d = {.position = {0.0f, 2.0f, 0.0f}};
    rb_body_id a = rb_entities_spawn_scaled(t, cube, 0.25f, &d);
    d.position[0] = 3.0f;
    rb_body_id b = rb_entities_spawn_scaled(t, cube, 0.25f, &d);
    assert_true(a.generation && b.generation);
    assert_int_equal(rb_world_shape_count(w), shapes_before + 1); /* one variant for both */
    rb_body_state sa;
    assert_true(rb_world_get_body_by_id(w, a, &sa));
    assert_int_equal(rb_entities_of_world_shape(t, sa.shape), cube);
    assert_true(rb_entities_scale_of_world_shape(t, sa.shape) == 0.25f);
    assert_true(rb_entities_scale_of_world_shape(t, (uint32_t)rb_entities_get(t, cube)->world_shape) == 1.0f);
    assert_near(rb_world_shape_radius(w, sa.shape), 0.25 * s->particle_radius, 1e-7);
    assert_near(sa.mass, s->mass / 64.0, 1e-3 * s->mass / 64.0);
    /* out of range: nothing */
    assert_int_equal(rb_entities_spawn_scaled(t, cube, 0.0f, &d).generation, 0);
    assert_int_equal(rb_entities_spawn_scaled(t, cube, 1000.0f, &d).generation, 0);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* The formations and the pile spawn through the table: every body has the
 * row's shape, and the counts are the ones asked for. */
static void test_scenes_spawn_through_the_table(void **state) {
    rb_registry *reg = rb_test_registry();
    rb_world_desc desc = rb_default_world_desc();
    rb_pile_planes(&desc);
    rb_world *w = rb_test_world(desc);
    rb_entities *t = rb_entities_create(reg, w);
    const uint32_t cube = (uint32_t)rb_entities_find(t, "cube"), cube2 = (uint32_t)rb_entities_find(t, "cube2");
    assert_int_equal(rb_formation_build(t, cube2, 3, 25), 25);
    assert_int_equal(rb_pile_build(t, cube, 300), 300);
    assert_int_equal(rb_world_body_count(w), 325);
    const uint32_t *shapes = rb_world_body_shapes(w);
    for (uint32_t b = 0; b < 325; b++)
        assert_int_equal(shapes[b], (uint32_t)rb_entities_get(t, b < 25 ? cube2 : cube)->world_shape);
    assert_int_equal(rb_world_particle_count(w), 25 * 8 + 300 * 27);
    /* The pile's bodies stand where pile.h says. */
    rb_body_state s;
    float pos[3], q[4];
    assert_true(rb_world_get_body(w, 25 + 299, &s));
    rb_pile_body_pose(299, pos, q);
    assert_memory_equal(s.position, pos, sizeof pos);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* A world shape with no row (a piece of a broken body) has a mesh of its
 * own; a row's world shape has its row's. */
static void test_shape_mesh_of_a_world_shape_without_a_row(void **state) {
    (void)state;
    rb_registry *reg = rb_test_registry();
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_entities *t = rb_entities_create(reg, w);
    const uint32_t piece = rb_test_add_box(w, 2, 1, 1, 0.2f);
    assert_int_equal(rb_entities_of_world_shape(t, piece), -1);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, piece), -1);
    assert_true(rb_entities_set_shape_mesh(t, piece, 5));
    assert_int_equal(rb_entities_mesh_of_world_shape(t, piece), 5);
    const uint32_t row_shape = (uint32_t)rb_entities_get(t, 0)->world_shape;
    assert_false(rb_entities_set_shape_mesh(t, row_shape, 9));
    rb_entities_set_mesh(t, 0, 3);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, row_shape), 3);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, 999), -1);
    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_follow_the_registry),
        cmocka_unit_test(test_spawn),
        cmocka_unit_test(test_spawn_scaled),
        cmocka_unit_test(test_shape_mesh_of_a_world_shape_without_a_row),
        cmocka_unit_test(test_scenes_spawn_through_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
