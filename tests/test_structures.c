/* Structures (docs/structures.md), on the backend RUBBLE_TEST_BACKEND names:
 * - a dormant body (asleep until touched) stays where it starts, in the
 *   air, with sleeping off, and breaks nothing however hard it is pressed,
 *   until a mover touches it or a load reaches it; then it falls;
 * - an anchored body stays under impulses and contacts, with sleeping off,
 *   and its pieces' loads are its contact forces;
 * - gluing: an assembly moves with its parts' momentum and keeps their mass;
 * - the shipped anchored wall stands with sleeping off, and a 35 t ball at
 *   20 m/s breaks it along its mortar before any brick breaks;
 * - the shipped glued building stands, and a blast at its base brings it down;
 * - bad structures in a scene file are refused with the file and key named. */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/entities.h"
#include "scenes/scene.h"

static rb_registry *g_reg;

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry_with_meshes();
    return g_reg ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

typedef struct fixture {
    rb_world *world;
    rb_entities *entities;
    rb_debris *debris;
} fixture;

static void open_world(fixture *f, float sleep_time) {
    rb_world_desc desc = rb_default_world_desc();
    desc.sleep_time = sleep_time;
    f->world = rb_test_world(desc);
    f->entities = rb_entities_create(g_reg, f->world);
    const rb_debris_desc none = {0};
    char err[256];
    f->debris = rb_debris_create(&none, f->entities, err, sizeof err);
    assert_non_null(f->debris);
}

static void close_world(fixture *f) {
    rb_debris_destroy(f->debris);
    rb_entities_destroy(f->entities);
    rb_world_destroy(f->world);
}

static rb_body_id cube_at(fixture *f, float x, float y, float z, rb_body_hold hold) {
    const int row = rb_entities_find(f->entities, "cube");
    assert_true(row >= 0);
    rb_body_desc b = {.position = {x, y, z}, .hold = hold};
    const rb_body_id id = rb_entities_spawn(f->entities, (uint32_t)row, &b);
    assert_true(id.generation != 0);
    return id;
}

static rb_body_state state_of(fixture *f, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f->world, id, &s));
    return s;
}

/* A dormant cube 3 m up stays there with sleeping off; a cube dropped on it
 * wakes it, and both fall. */
static void test_dormant_waits_until_touched(void **state) {
    (void)state;
    fixture f;
    open_world(&f, 0.0f);
    const rb_body_id sleeper = cube_at(&f, 0, 3, 0, RB_HOLD_DORMANT);
    rb_body_state s = state_of(&f, sleeper);
    assert_int_equal(s.hold, RB_HOLD_DORMANT);
    assert_true(s.asleep);
    assert_true(rb_world_step(f.world, 625)); /* 1 s: free fall would take it 4.9 m */
    s = state_of(&f, sleeper);
    assert_true(s.position[1] == 3.0f && s.hold == RB_HOLD_DORMANT);
    /* dropped from 1 m above its top: it lands at about 4.4 m/s */
    const rb_body_id mover = cube_at(&f, 0.3f, 5.2f, 0, RB_HOLD_NONE);
    assert_true(rb_world_step(f.world, 625));
    s = state_of(&f, sleeper);
    assert_int_equal(s.hold, RB_HOLD_NONE);
    assert_false(s.asleep);
    print_message("after the touch: the sleeper at %.3f m, the mover at %.3f m\n", s.position[1],
                  state_of(&f, mover).position[1]);
    assert_true(s.position[1] < 2.0f); /* it fell: 0.6 s of free fall after waking is 1.8 m */
    close_world(&f);
}

/* A load through the API (a field's) wakes a dormant body; an impulse too. */
static void test_a_load_or_an_impulse_wakes_a_dormant_body(void **state) {
    (void)state;
    fixture f;
    open_world(&f, 0.5f);
    const rb_body_id a = cube_at(&f, 0, 3, 0, RB_HOLD_DORMANT), b = cube_at(&f, 5, 3, 0, RB_HOLD_DORMANT);
    const float push[3] = {1000.0f, 0.0f, 0.0f}, none[3] = {0}, at[3] = {5, 3, 0};
    assert_true(rb_world_add_load(f.world, a, push, none));
    assert_true(rb_world_apply_impulse(f.world, b, push, at));
    assert_true(rb_world_step(f.world, 100));
    assert_true(state_of(&f, a).position[1] < 3.0f);
    assert_true(state_of(&f, b).position[0] > 5.0f);
    close_world(&f);
}

/* A breakable cube set 0.1 m into the ground: awake, the ground throws it
 * out hard enough to break it (bonds of 100 kN); dormant, nothing breaks. */
static uint64_t breaks_when_sunk(rb_body_hold hold) {
    fixture f;
    open_world(&f, 0.5f);
    const rb_body_id id = cube_at(&f, 0, 0.5f, 0, hold);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_VORONOI, .pieces = 8, .seed = 1, .strength = 100000.0f};
    char err[256];
    if (!rb_debris_make_breakable(f.debris, id, &fd, err, sizeof err)) fail_msg("%s", err);
    assert_true(rb_debris_step(f.debris, 625));
    const uint64_t breaks = rb_debris_breaks(f.debris);
    close_world(&f);
    return breaks;
}

static void test_dormant_breaks_nothing(void **state) {
    (void)state;
    const uint64_t awake = breaks_when_sunk(RB_HOLD_NONE), dormant = breaks_when_sunk(RB_HOLD_DORMANT);
    print_message("breaks of a cube 0.1 m into the ground: awake %llu, dormant %llu\n", (unsigned long long)awake,
                  (unsigned long long)dormant);
    assert_true(awake > 0);
    assert_int_equal(dormant, 0);
}

/* An anchored cube in the air stays, whatever pushes it, with sleeping off;
 * a cube landing on it loads its top pieces, not its bottom ones. */
static void test_anchored_holds_and_feels_its_contacts(void **state) {
    (void)state;
    fixture f;
    open_world(&f, 0.0f);
    const rb_body_id anchor = cube_at(&f, 0, 3, 0, RB_HOLD_ANCHORED);
    const rb_fracture_desc fd = {.kind = RB_FRACTURE_SLICES, .pieces = 3, .strength = 1e9f, .normal = {0, 1, 0}};
    char err[256];
    if (!rb_debris_make_breakable(f.debris, anchor, &fd, err, sizeof err)) fail_msg("%s", err);
    const float kick[3] = {0, 5000, 3000}, at[3] = {0.6f, 3, 0};
    assert_true(rb_world_apply_impulse(f.world, anchor, kick, at));
    assert_false(rb_world_set_velocity(f.world, anchor, kick, kick));
    cube_at(&f, 0, 5.2f, 0, RB_HOLD_NONE);
    assert_true(rb_debris_step(f.debris, 1250));
    const rb_body_state s = state_of(&f, anchor);
    assert_true(s.position[0] == 0.0f && s.position[1] == 3.0f && s.position[2] == 0.0f);
    assert_true(s.orientation[3] == 1.0f && s.hold == RB_HOLD_ANCHORED);
    /* three slabs, bottom to top: the landing loads the top one only */
    float loads[3];
    assert_int_equal(rb_world_piece_loads(f.world, anchor, loads, 3), 3);
    float most = 0.0f, least = INFINITY;
    for (int k = 0; k < 3; k++) most = fmaxf(most, loads[k]), least = fminf(least, loads[k]);
    print_message("anchored cube's piece loads over 1e9 N holds: %g .. %g\n", least, most);
    /* a 1728 kg cube resting on it presses about 17 kN (more while it lands):
     * a load of at least its weight on some piece, none on another */
    assert_true(most * 1e9f > 16000.0f);
    assert_true(least == 0.0f);
    close_world(&f);
}

/* Two cubes side by side, glued, one moving at 1 m/s and one at 3: the
 * assembly has their mass and moves at 2 m/s; each part is a piece. */
static void test_glue_keeps_mass_and_momentum(void **state) {
    (void)state;
    fixture f;
    open_world(&f, 0.5f);
    const int row = rb_entities_find(f.entities, "cube");
    rb_body_desc a = {.position = {0, 3, 0}, .velocity = {1, 0, 0}},
                 b = {.position = {1.2024f, 3, 0}, .velocity = {3, 0, 0}};
    const rb_glue_part parts[2] = {{.id = rb_entities_spawn(f.entities, (uint32_t)row, &a)},
                                   {.id = rb_entities_spawn(f.entities, (uint32_t)row, &b)}};
    const rb_glue_desc glue = {.strength = 1e6f};
    char err[256];
    const rb_body_id id = rb_debris_glue(f.debris, parts, 2, &glue, err, sizeof err);
    if (id.generation == 0) fail_msg("%s", err);
    assert_int_equal(rb_world_body_count(f.world), 1);
    const rb_body_state s = state_of(&f, id);
    assert_near(s.mass, 2.0 * 1728.0, 0.01);
    assert_near(s.velocity[0], 2.0, 1e-6);
    assert_near(s.position[0], 0.6012, 1e-5);
    uint32_t piece_of[54];
    assert_int_equal(rb_world_particle_pieces(f.world, id, piece_of, 54), 2);
    rb_mesh mesh;
    assert_true(rb_debris_piece_mesh(f.debris, s.shape, &mesh)); /* drawn as its parts' meshes */
    assert_true(mesh.vertex_count > 0 && mesh.vertex_count % 2 == 0);
    /* which meet, with no gap between them where the parts had one (2.4 mm,
     * a generator's): the first part's vertices, then the second's, along
     * the line between their centres */
    const uint32_t half = mesh.vertex_count / 2;
    double ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0}, dir[3], len = 0.0;
    for (uint32_t v = 0; v < half; v++)
        for (int k = 0; k < 3; k++)
            ca[k] += mesh.positions[3 * v + k] / half, cb[k] += mesh.positions[3 * (half + v) + k] / half;
    for (int k = 0; k < 3; k++) dir[k] = cb[k] - ca[k], len += dir[k] * dir[k];
    len = sqrt(len);
    double a_far = -1e9, b_near = 1e9;
    for (uint32_t v = 0; v < half; v++) {
        double ta = 0.0, tb = 0.0;
        for (int k = 0; k < 3; k++)
            ta += mesh.positions[3 * v + k] * dir[k] / len, tb += mesh.positions[3 * (half + v) + k] * dir[k] / len;
        a_far = fmax(a_far, ta), b_near = fmin(b_near, tb);
    }
    print_message("the parts' meshes: centres %.4f m apart, %.4f m of overlap\n", len, a_far - b_near);
    assert_near(len, 1.2024, 1e-4);
    assert_true(a_far - b_near > 0.0005 && a_far - b_near < 0.006); /* 2 x 1.8 mm less the 2.4 mm gap */
    rb_mesh_free(&mesh);
    /* gluing a part twice, or a static body, is refused */
    const rb_glue_part twice[2] = {{.id = id}, {.id = id}};
    assert_int_equal(rb_debris_glue(f.debris, twice, 2, &glue, err, sizeof err).generation, 0);
    print_message("refused: %s\n", err);
    close_world(&f);
}

/* ---- the shipped scenes ---- */

typedef struct run {
    rb_scene *scene;
    rb_world *world;
    rb_entities *entities;
    rb_debris *debris;
} run;

static void open_scene(run *r, const char *name, bool sleeping) {
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/assets/scenes/%s.json", RB_TEST_SOURCE_DIR, name);
    r->scene = rb_scene_load(path, g_reg, err, sizeof err);
    if (!r->scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_world_desc d = rb_scene_world_desc(r->scene, &base);
    if (!sleeping) d.sleep_time = 0.0f;
    r->world = rb_test_world(d);
    r->entities = rb_entities_create(g_reg, r->world);
    if (rb_scene_build(r->scene, r->entities, err, sizeof err) != r->scene->body_count) fail_msg("%s", err);
    r->debris = rb_scene_debris(r->scene, r->entities, err, sizeof err);
    if (!r->debris) fail_msg("%s: %s", name, err);
}

static void close_scene(run *r) {
    rb_debris_destroy(r->debris);
    rb_entities_destroy(r->entities);
    rb_world_destroy(r->world);
    rb_scene_destroy(r->scene);
}

/* The fastest a body's point moves: |v| + |w| times its reach (m/s). */
static float fastest(rb_world *w, float reach) {
    float most = 0.0f;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        rb_world_get_body(w, b, &s);
        most = fmaxf(most, sqrtf(rb_v3_dot(s.velocity, s.velocity)) +
                               reach * sqrtf(rb_v3_dot(s.angular_velocity, s.angular_velocity)));
    }
    return most;
}

/* The wall without its ball, sleeping off: one body, nothing moving. */
static void test_anchored_wall_stands(void **state) {
    (void)state;
    run r;
    open_scene(&r, "anchored_wall", false);
    rb_world_remove_body(r.world, rb_world_body_id(r.world, 0)); /* the ball (the assembly came last) */
    assert_int_equal(rb_world_body_count(r.world), 1);
    assert_true(rb_debris_step(r.debris, 1250)); /* 2 s */
    for (int k = 0; k < 4; k++) {
        assert_true(rb_debris_step(r.debris, 313)); /* 2 s more, looked at 4 times */
        assert_true(fastest(r.world, 20.0f) < 0.005f);
    }
    assert_int_equal(rb_world_body_count(r.world), 1);
    assert_int_equal(rb_debris_breaks(r.debris), 0);
    close_scene(&r);
}

/* The ball through the wall: whole bricks (96 particles) and half bricks
 * (48) come off before any brick breaks (a body of fewer than 48: a brick
 * in `voronoi 3` breaks into pieces of about 32). */
static void test_ball_breaks_the_wall_along_its_mortar(void **state) {
    (void)state;
    run r;
    open_scene(&r, "anchored_wall", false);
    uint32_t freed_first = 0, freed = 0, crumbs = 0;
    for (int tick = 0; tick < 120; tick++) { /* 2 s */
        assert_true(rb_debris_step(r.debris, 10));
        freed = crumbs = 0;
        for (uint32_t b = 0; b < rb_world_body_count(r.world); b++) {
            rb_body_state s;
            rb_world_get_body(r.world, b, &s);
            const uint32_t n = rb_world_shape_particles(r.world, s.shape, NULL, 0, NULL);
            freed += n == 96 || n == 48, crumbs += n < 48;
        }
        if (crumbs && !freed_first) freed_first = freed ? freed : UINT32_MAX;
    }
    print_message(
        "after 2 s: %u bricks and half bricks freed whole, %u brick pieces; freed before the first brick broke: %u\n",
        freed, crumbs, freed_first);
    assert_true(freed >= 3);
    assert_true(crumbs > 0); /* the bricks' own bonds (5 MN) gave way too, later */
    assert_true(freed_first >= 1 && freed_first != UINT32_MAX);
    close_scene(&r);
}

/* The building, sleeping on (its settings): one body while it stands, and
 * many once a blast at its base (at 12 s in the scene, moved to 1 s here)
 * has brought it down. */
static void test_blast_brings_the_building_down(void **state) {
    (void)state;
    run r;
    open_scene(&r, "glued_building", true);
    assert_int_equal(rb_world_body_count(r.world), 1);
    rb_field blast = rb_debris_get_desc(r.debris)->fields[0];
    assert_true(rb_debris_step(r.debris, 600)); /* ~1 s */
    assert_true(fastest(r.world, 8.0f) < 0.005f);
    const uint32_t before = rb_world_body_count(r.world);
    assert_true(rb_debris_add_field(r.debris, &blast)); /* now */
    assert_true(rb_debris_step(r.debris, 1250));        /* 2 s on */
    const uint32_t after = rb_world_body_count(r.world);
    print_message("glued building: %u bodies before the blast, %u 2 s after\n", before, after);
    assert_int_equal(before, 1);
    assert_true(after > 3 * before);
    close_scene(&r);
}

/* A heap of breakable rocks (80 kN bonds) started asleep breaks nothing
 * and moves nothing in 1.5 s, not a bit of it; a ball dropped on one
 * corner breaks rocks there and leaves most of those over 6 m from it asleep. */
static void test_sleeping_heap_waits_for_its_meteor(void **state) {
    (void)state;
    static const char *const text =
        "{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 40, \"size\": [10, 2, 10], "
        "\"seed\": 7, \"asleep\": true, \"shapes\": [{\"shape\": \"rock_a\", \"scale\": 1.0, \"weight\": 2}, "
        "{\"shape\": \"rock_b\", \"scale\": 1.2, \"weight\": 1}], \"breakable\": {\"pattern\": \"voronoi\", "
        "\"pieces\": 4, \"seed\": 3, \"strength\": 80000}}]}";
    char err[1024];
    run r = {0};
    r.scene = rb_scene_parse(text, "heap.json", g_reg, err, sizeof err);
    if (!r.scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    r.world = rb_test_world(rb_scene_world_desc(r.scene, &base));
    r.entities = rb_entities_create(g_reg, r.world);
    assert_int_equal(rb_scene_build(r.scene, r.entities, err, sizeof err), 40);
    r.debris = rb_scene_debris(r.scene, r.entities, err, sizeof err);
    assert_non_null(r.debris);
    const uint64_t before = rb_world_digest(r.world);
    assert_true(rb_debris_step(r.debris, 940)); /* 1.5 s */
    assert_int_equal(rb_debris_breaks(r.debris), 0);
    assert_true(rb_world_digest(r.world) == before); /* nothing moved, not a bit */
    /* a 5 t ball at 20 m/s onto the corner at x, z = -3.5 */
    const int row = rb_entities_find(r.entities, "ball");
    rb_body_desc ball = {.position = {-3.5f, 5.0f, -3.5f}, .velocity = {0, -20, 0}};
    const rb_body_id meteor = rb_entities_spawn(r.entities, (uint32_t)row, &ball);
    assert_true(meteor.generation != 0);
    assert_true(rb_debris_step(r.debris, 940));
    uint32_t far_asleep = 0, far = 0;
    for (uint32_t b = 0; b < rb_world_body_count(r.world); b++) {
        rb_body_state s;
        rb_world_get_body(r.world, b, &s);
        const float dx = s.position[0] + 3.5f, dz = s.position[2] + 3.5f;
        if (dx * dx + dz * dz > 36.0f) far++, far_asleep += s.hold == RB_HOLD_DORMANT;
    }
    print_message("heap of 40: %llu breaks after the ball; %u of %u rocks over 6 m from it still dormant\n",
                  (unsigned long long)rb_debris_breaks(r.debris), far_asleep, far);
    assert_true(rb_debris_breaks(r.debris) > 0);
    /* a piece thrown far may wake one or two there */
    assert_true(far >= 8 && 4 * far_asleep >= 3 * far);
    close_scene(&r);
}

/* ---- bad input ---- */

static void refused(const char *text, const char *expect) {
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(text, "bad.json", g_reg, err, sizeof err);
    if (s) {
        rb_scene_destroy(s);
        fail_msg("accepted: %s", text);
    }
    print_message("%s\n", err);
    if (!strstr(err, expect)) fail_msg("'%s' does not say '%s'", err, expect);
}

static void test_bad_structures_are_refused(void **state) {
    (void)state;
    refused(
        "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"assembly\": \"x\"}]}",
        "bad.json: bodies[0].assembly: no assembly 'x'");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\"}]}", "bad.json: assemblies[0]: no body");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}",
            "bad.json: assemblies[1].name: 'a' names assemblies[0] already");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\", \"strength\": 0}]}",
            "bad.json: assemblies[0].strength");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 5, 0], \"anchored\": true}]}",
            "bad.json: bodies[0].anchored: it touches no plane and no static body");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\", \"anchored\": true}], \"bodies\": ["
            "{\"shape\": \"cube\", \"position\": [0, 5, 0], \"assembly\": \"a\"}]}",
            "bad.json: assemblies[0]: anchored, but none of its parts touches");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"static\": true, "
            "\"anchored\": true}]}",
            "bad.json: bodies[0]: only a dynamic body");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\"}], \"bodies\": ["
            "{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"assembly\": \"a\"},"
            "{\"shape\": \"brick\", \"position\": [1, 0.1, 0], \"assembly\": \"a\"}]}",
            "an assembly's parts have particles of one size");
    refused("{\"rubble_scene\": 1, \"assemblies\": [{\"name\": \"a\"}], \"generators\": [{\"type\": \"tower\", "
            "\"shape\": \"cube\", \"height\": 2, \"assembly\": \"a\", \"glue\": {}}]}",
            "bad.json: generators[0].glue: a generator glues its bodies, or names an assembly, not both");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 3, 0], \"asleep\": true, "
            "\"velocity\": [1, 0, 0]}]}",
            "bad.json: bodies[0]: a body asleep or anchored starts at rest");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dormant_waits_until_touched),
        cmocka_unit_test(test_a_load_or_an_impulse_wakes_a_dormant_body),
        cmocka_unit_test(test_dormant_breaks_nothing),
        cmocka_unit_test(test_anchored_holds_and_feels_its_contacts),
        cmocka_unit_test(test_glue_keeps_mass_and_momentum),
        cmocka_unit_test(test_anchored_wall_stands),
        cmocka_unit_test(test_ball_breaks_the_wall_along_its_mortar),
        cmocka_unit_test(test_blast_brings_the_building_down),
        cmocka_unit_test(test_sleeping_heap_waits_for_its_meteor),
        cmocka_unit_test(test_bad_structures_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
