/* test_live_reload.c - L while the sandbox runs: a mesh copied into a
 * --meshes folder becomes a shape, and a plugin rebuilt in its folder has
 * its shape replaced for new bodies while the bodies already made keep the
 * layout and the look they were made with. The files are copied in between
 * frames of a real (offscreen) sandbox window, and the registry and entity
 * table are checked alone too: a replaced shape's old entry stays readable
 * (ASan would see a use after free) and the registry's growth past its
 * first array moves no shape. */
#include "rb_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/options.h"
#include "app/paths.h"
#include "sandbox/sandbox.h"
#include "scenes/entities.h"

/* Copies a file, then gives it a modification time `later` seconds ahead
 * of the one it replaces, as a rebuild would. */
static void copy_file(const char *from, const char *to, int later) {
    struct stat old;
    const bool had = stat(to, &old) == 0;
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
    if (had) {
        struct timespec times[2] = {old.st_atim, old.st_mtim};
        times[0].tv_sec += later, times[1].tv_sec += later;
        assert_int_equal(utimensat(AT_FDCWD, to, times, 0), 0);
    }
}

static void remove_dir(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static uint32_t particles_of(rb_world *w, uint32_t world_shape) {
    return rb_world_shape_particles(w, world_shape, NULL, 0, NULL);
}

/* The registry and the entity table alone: a rebuilt plugin's shape is
 * replaced in place (same index, a new entry), the old entry stays valid,
 * new bodies get the new layout, the old body keeps its own. */
static void test_rebuilt_plugin_replaces_its_shape(void **state) {
    (void)state;
    char dir[] = "/tmp/rubble-reload-XXXXXX", so[600];
    assert_non_null(mkdtemp(dir));
    snprintf(so, sizeof so, "%s/rebuilt.so", dir);
    copy_file(RB_TEST_REBUILT_V1 "/rebuilt.so", so, 0);
    rb_registry *reg = rb_registry_create(NULL);
    rb_registry_scan_dir(reg, dir);
    const int index = rb_registry_find(reg, "rebuilt_rod");
    assert_true(index >= 0);
    const rb_shape *old = rb_registry_get(reg, (uint32_t)index);
    assert_int_equal(old->particle_count, 2);
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_entities *t = rb_entities_create(reg, w);
    const int old_ws = rb_entities_get(t, (uint32_t)index)->world_shape;
    const rb_body_id before = rb_entities_spawn(t, (uint32_t)index, &(rb_body_desc){.position = {0, 2, 0}});
    rb_entities_set_mesh(t, (uint32_t)index, 7); /* as the sandbox gives a row its renderer mesh */

    /* an unchanged file: nothing to do */
    assert_int_equal(rb_registry_rescan(reg), 0);
    assert_int_equal(rb_registry_replaced(reg), 0);
    assert_ptr_equal(rb_registry_get(reg, (uint32_t)index), old);

    copy_file(RB_TEST_REBUILT_V2 "/rebuilt.so", so, 5);
    assert_int_equal(rb_registry_rescan(reg), 0);   /* no new shape ... */
    assert_int_equal(rb_registry_replaced(reg), 1); /* ... one replaced */
    assert_int_equal(rb_registry_find(reg, "rebuilt_rod"), index);
    const rb_shape *now = rb_registry_get(reg, (uint32_t)index);
    assert_ptr_not_equal(now, old);
    assert_int_equal(now->particle_count, 3);
    assert_int_equal(old->particle_count, 2); /* still readable: bodies were made of it */
    assert_string_equal(old->name, "rebuilt_rod");

    assert_int_equal(rb_entities_sync(t), 0);
    assert_int_equal(rb_entities_replaced(t), 1);
    const rb_entity *row = rb_entities_get(t, (uint32_t)index);
    assert_ptr_equal(row->shape, now);
    assert_int_equal(row->mesh, -1); /* the new shape's mesh is the sandbox's to give */
    assert_true(row->world_shape >= 0 && row->world_shape != old_ws);
    const rb_body_id after = rb_entities_spawn(t, (uint32_t)index, &(rb_body_desc){.position = {3, 2, 0}});
    rb_body_state a, b;
    assert_true(rb_world_get_body_by_id(w, before, &a) && rb_world_get_body_by_id(w, after, &b));
    assert_int_equal(particles_of(w, a.shape), 2);
    assert_int_equal(particles_of(w, b.shape), 3);
    /* the old bodies keep their name (scene saves), their shape and their look */
    assert_int_equal(rb_entities_of_world_shape(t, (uint32_t)old_ws), index);
    assert_ptr_equal(rb_entities_shape_of_world_shape(t, (uint32_t)old_ws), old);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, (uint32_t)old_ws), 7);
    rb_entities_set_mesh(t, (uint32_t)index, 8);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, (uint32_t)row->world_shape), 8);
    assert_int_equal(rb_entities_mesh_of_world_shape(t, (uint32_t)old_ws), 7);

    rb_entities_destroy(t);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    remove_dir(dir);
}

/* Shapes keep their address while the registry grows: a row's pointer
 * taken with the first shape still reads it after many more are added. */
static void test_growth_moves_no_shape(void **state) {
    (void)state;
    rb_registry *reg = rb_registry_create(NULL);
    static const float one[3] = {0, 0, 0};
    rb_shape_desc d = {.struct_size = sizeof d, .name = "first", .particle_count = 1, .particles = one};
    assert_int_equal(rb_registry_add_desc(reg, &d, "test", NULL), RB_LOAD_OK);
    const rb_shape *first = rb_registry_get(reg, 0);
    for (int i = 0; i < 100; i++) {
        char name[16];
        snprintf(name, sizeof name, "more%d", i);
        d.name = name;
        assert_int_equal(rb_registry_add_desc(reg, &d, "test", NULL), RB_LOAD_OK);
    }
    assert_ptr_equal(rb_registry_get(reg, 0), first);
    assert_string_equal(first->name, "first");
    rb_registry_destroy(reg);
}

/* The window: L after a mesh is copied into a --meshes folder and a plugin
 * is rebuilt in its folder, between frames. */
static void test_l_sees_new_meshes_and_rebuilt_plugins(void **state) {
    (void)state;
    char plugins[] = "/tmp/rubble-reload-plugins-XXXXXX", meshes[] = "/tmp/rubble-reload-meshes-XXXXXX";
    char so[600], mesh[600];
    assert_non_null(mkdtemp(plugins));
    assert_non_null(mkdtemp(meshes));
    snprintf(so, sizeof so, "%s/rebuilt.so", plugins);
    snprintf(mesh, sizeof mesh, "%s/sphere966.off", meshes);
    copy_file(RB_TEST_REBUILT_V1 "/rebuilt.so", so, 0);

    setenv("SDL_VIDEODRIVER", "offscreen", 0);
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    o.bodies = 0, o.width = 320, o.height = 240, o.vsync = false;
    o.backend = RB_BACKEND_REFERENCE;
    o.plugin_dirs[o.plugin_dir_count++] = RB_TEST_PLUGIN_DIR;
    o.plugin_dirs[o.plugin_dir_count++] = plugins;
    o.mesh_dirs[o.mesh_dir_count++] = meshes;
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    char err[4096];
    rb_sandbox *sb = rb_sandbox_create(&o, &paths, err, sizeof err);
    if (!sb) fail_msg("rb_sandbox_create: %s", err);
    rb_sandbox_set_fixed_dt(sb, 1.0 / 60.0);
    rb_world *w = rb_sandbox_world(sb);
    const int old_ws = rb_sandbox_world_shape(sb, "rebuilt_rod");
    assert_true(old_ws >= 0);
    assert_true(rb_sandbox_world_shape(sb, "sphere966") < 0);
    const rb_body_id before = rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)old_ws, .position = {0, 1, 0}});
    rb_sandbox_stats st;
    rb_sandbox_get_stats(sb, &st);
    const int shapes = st.shape_count;
    for (int i = 0; i < 10; i++) assert_true(rb_sandbox_frame(sb));

    copy_file(RB_TEST_DATA_DIR "/sphere966.off", mesh, 0);
    copy_file(RB_TEST_REBUILT_V2 "/rebuilt.so", so, 5);
    if (!rb_sandbox_set_script(sb, "0 key L\n", err, sizeof err)) fail_msg("%s", err);
    for (int i = 0; i < 3; i++) assert_true(rb_sandbox_frame(sb));

    rb_sandbox_get_stats(sb, &st);
    assert_int_equal(st.shape_count, shapes + 1); /* the mesh; the rod replaced, not added */
    assert_true(rb_sandbox_world_shape(sb, "sphere966") >= 0);
    assert_non_null(strstr(st.message, "1 new shape, 1 replaced"));
    const int new_ws = rb_sandbox_world_shape(sb, "rebuilt_rod");
    assert_true(new_ws >= 0 && new_ws != old_ws);
    assert_int_equal(particles_of(w, (uint32_t)new_ws), 3);
    rb_body_state b;
    assert_true(rb_world_get_body_by_id(w, before, &b));
    assert_int_equal(b.shape, (uint32_t)old_ws); /* the body made before keeps its layout */
    assert_int_equal(particles_of(w, b.shape), 2);
    /* both are drawn, and the old one is not drawn with the new shape's look */
    const rb_entities *t = rb_sandbox_entities(sb);
    assert_ptr_not_equal(rb_entities_shape_of_world_shape(t, (uint32_t)old_ws),
                         rb_entities_shape_of_world_shape(t, (uint32_t)new_ws));
    rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)new_ws, .position = {3, 1, 0}});
    for (int i = 0; i < 3; i++) assert_true(rb_sandbox_frame(sb));
    rb_sandbox_get_stats(sb, &st);
    assert_int_equal(st.bodies, 2);
    assert_int_equal(st.gl_errors, 0);

    /* L again with nothing changed: nothing new, nothing replaced */
    if (!rb_sandbox_set_script(sb, "0 key L\n", err, sizeof err)) fail_msg("%s", err);
    for (int i = 0; i < 2; i++) assert_true(rb_sandbox_frame(sb));
    rb_sandbox_get_stats(sb, &st);
    assert_int_equal(st.shape_count, shapes + 1);
    assert_non_null(strstr(st.message, "0 new shapes, 0 replaced"));
    rb_sandbox_destroy(sb);
    remove_dir(plugins);
    remove_dir(meshes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rebuilt_plugin_replaces_its_shape),
        cmocka_unit_test(test_growth_moves_no_shape),
        cmocka_unit_test(test_l_sees_new_meshes_and_rebuilt_plugins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
