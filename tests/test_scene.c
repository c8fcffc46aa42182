/* Scene files (src/scenes/scene.h, docs/scene-format.md): the minimal scene,
 * each generator, every refusal named by file and key, saving through a
 * temporary file, and a saved world that reloads and continues bit for bit
 * (on the backend RUBBLE_TEST_BACKEND names: both run in CTest). */
#include <sys/stat.h>
#include <unistd.h>

#include "base/rb_math.h"
#include "rb_test.h"
#include "scenes/formations.h"
#include "scenes/pile.h"
#include "scenes/scene.h"
#include "scenes/stage.h"

static rb_registry *g_reg;
static char g_log[1 << 14];

static void keep_log(rb_log_level level, const char *message, void *user) {
    size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof g_log - n, "%s\n", message);
}

static int setup(void **state) {
    g_reg = rb_test_registry_with_meshes();
    rb_set_log_fn(keep_log, NULL);
    return g_reg && rb_registry_find(g_reg, "cube") >= 0 ? 0 : -1;
}
static int teardown(void **state) {
    rb_set_log_fn(NULL, NULL);
    rb_registry_destroy(g_reg);
    return 0;
}

static rb_scene *parse(const char *text) {
    char err[1024];
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (!s) fail_msg("refused: %s", err);
    return s;
}

/* Refused, with says in the message. */
static void refused(const char *text, const char *says) {
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (s) fail_msg("accepted, but should say '%s': %s", says, text);
    if (!strstr(err, says)) fail_msg("says '%s', should say '%s'", err, says);
}

/* The scene file rb_scene_write gives for w and t (free it). */
static char *written(rb_world *w, const rb_entities *t) {
    char *text = NULL, err[1024];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    if (!rb_scene_write(f, w, t, NULL, err, sizeof err)) fail_msg("not written: %s", err);
    fclose(f);
    return text;
}

static void test_minimal_scene(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1,\n"
                        " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
                        " \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 3, 0], \"orientation\": [0, 0, 0, 1],\n"
                        "             \"velocity\": [0, 0, 0], \"angular_velocity\": [0, 0, 0]}]}");
    assert_int_equal(s->body_count, 1);
    assert_string_equal(s->bodies[0].shape, "cube");
    assert_true(s->bodies[0].desc.position[1] == 3.0f);
    assert_true(s->world.dt == 0.0016f && s->world.gravity[1] == -9.81f);
    assert_int_equal(s->world.plane_count, 1); /* the ground, by default */
    assert_false(s->bodies[0].exact);
    rb_scene_destroy(s);
    /* only shape and position are required */
    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube2\", \"position\": [1, 2, 3]}]}");
    assert_true(s->bodies[0].desc.orientation[3] == 1.0f);
    rb_scene_destroy(s);
}

static void test_bad_input_is_named(void **state) {
    refused("{\"rubble_scene\": 1,\n \"bodies\": [\n  {\"shape\": \"cube\" \"position\": [0, 1, 0]}]}",
            "t.json: not JSON: a syntax error at line 3, column 20");
    refused("[1, 2]", "t.json: expected a JSON object");
    refused("{\"bodies\": []}", "t.json: not a scene file: no \"rubble_scene\" version key");
    refused("{\"rubble_scene\": 2}", "t.json: rubble_scene: version 2 is not one this program reads (it reads 1)");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cub\", \"position\": [0, 1, 0]}]}",
            "t.json: bodies[0].shape: unknown shape 'cub' (the shapes are: cube");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]},"
            "{\"shape\": \"cube\", \"position\": [0, 3, 0]}, {\"shape\": \"cube\", \"position\": [0, 5, 0]},"
            "{\"shape\": \"cube\", \"position\": [0, 7]}]}",
            "t.json: bodies[3].position: expected 3 numbers, got 2");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\"}]}", "t.json: bodies[0]: 'position' is missing");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1e400, 0]}]}",
            "bodies[0].position: element 1 is not a finite number");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1e39, 0]}]}",
            "bodies[0].position: element 1 is not a finite number"); /* finite as a double, not as a float */
    refused("{\"rubble_scene\": 1, \"world\": {\"dt\": -1}}", "t.json: world.dt: -1 is out of range");
    refused("{\"rubble_scene\": 1, \"materials\": {\"bouncy\": {\"restitution\": 2}}}",
            "t.json: materials.bouncy.restitution: 2 is out of range [0, 1]");
    refused("{\"rubble_scene\": 1, \"materials\": {\"mud\": {\"restitution\": 0.2}}}",
            "materials.mud: restitution 0.2");
    refused("{\"rubble_scene\": 1, \"materials\": {\"sticky\": {\"rolling_friction\": 1.5}}}",
            "t.json: materials.sticky.rolling_friction: 1.5 is out of range [0, 1]");
    refused("{\"rubble_scene\": 1, \"materials\": {\"default\": {\"rolling_friction\": -0.1}}}",
            "t.json: materials.default.rolling_friction: -0.1 is out of range [0, 1]");
    refused("{\"rubble_scene\": 1, \"materials\": {\"sticky\": {\"rolling_friction\": \"0.1\"}}}",
            "t.json: materials.sticky.rolling_friction: expected a number");
    refused("{\"rubble_scene\": 1, \"materials\": {\"sticky\": {\"rolling_friction\": 1e400}}}",
            "t.json: materials.sticky.rolling_friction: inf is not a finite number");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"orientation\": [0, 0, "
            "0, 0]}]}",
            "t.json: bodies[0].orientation: a zero quaternion is no rotation");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"scale\": -2}]}",
            "t.json: bodies[0].scale: scale must be greater than 0 (got -2)");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"material\": "
            "\"rubberr\"}]}",
            "t.json: bodies[0].material: unknown material 'rubberr' (the materials are: default)");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"static\": true, "
            "\"kinematic\": true}]}",
            "bodies[0]: a body is static or kinematic, not both");
    refused("{\"rubble_scene\": 1, \"planes\": [{\"normal\": [0, 0, 0]}]}", "planes[0]: normal: a zero vector");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"scale\": 200}]}",
            "bodies[0].scale: scale 200 is out of range [0.01, 100]");
    refused("{\"rubble_scene\": 1, \"bodies\": [], \"bodies\": []}", "t.json: bodies: the key is given twice");
    refused("{\"rubble_scene\": 1, \"materials\": {\"a\": {}, \"a\": {}}}",
            "t.json: materials.a: the key is given twice");
    refused(
        "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"velocity\": [1, 0, 0], "
        "\"static\": true}]}",
        "bodies[0]: a static body never moves");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"orientation\": [0, 0, "
            "0, 5], \"sleep_timer\": 0}]}",
            "bodies[0].orientation: a saved state (with angular_momentum, sleep_timer or support) needs a unit "
            "quaternion");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cu\\u001b[2Jbe\", \"position\": [0, 1, 0]}]}",
            "bodies[0].shape: holds a control character"); /* refused, and not printed */
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"pyramid\", \"shape\": \"cube\"}]}",
            "generators[0].type: unknown generator 'pyramid'");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 2.5, "
            "\"columns\": 2}]}",
            "generators[0].rows: expected a whole number >= 0, got 2.5");
}

/* Two cubes of 27 particles (0-26 and 27-53) on the ground plane, with
 * `contacts` set to the text given. */
#define TWO_CUBES(contacts)                                                                                            \
    "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}, {\"shape\": \"cube\", "      \
    "\"position\": [0, 1.8, 0]}], \"contacts\": " contacts "}"

/* A saved state's support and contact history: read, and every bad value
 * refused with its key. */
static void test_saved_contacts_are_read_and_checked(void **state) {
    rb_scene *s = parse(TWO_CUBES("[[2, 29, 1e-5, 0, -2.5e-6], [2, {\"plane\": 0}, 0, 0, 3e-6], [29, 2, -1e-5, 0, "
                                  "2.5e-6]]"));
    assert_int_equal(s->contact_count, 3);
    assert_int_equal(s->contacts[0].particle, 2);
    assert_int_equal(s->contacts[0].partner, 29);
    assert_true(s->contacts[0].displacement[0] == 1e-5f && s->contacts[0].displacement[2] == -2.5e-6f);
    assert_int_equal(s->contacts[1].partner, RB_CONTACT_PLANE + 0);
    assert_int_equal(s->contacts[2].particle, 29);
    for (int k = 0; k < 3; k++) assert_true(s->contacts[k].rolling[0] == 0.0f && s->contacts[k].rolling[2] == 0.0f);
    rb_scene_destroy(s);
    /* a rolling angle, where given; zero where not */
    s = parse(TWO_CUBES("[[2, 29, 1e-5, 0, 0, {\"rolling\": [1e-3, -0, -2.5e-4]}], [2, {\"plane\": 0}, 0, 0, 0]]"));
    assert_int_equal(s->contact_count, 2);
    assert_true(s->contacts[0].rolling[0] == 1e-3f && s->contacts[0].rolling[2] == -2.5e-4f);
    assert_true(s->contacts[0].rolling[1] == 0.0f && signbit(s->contacts[0].rolling[1])); /* -0 kept */
    assert_true(s->contacts[1].rolling[0] == 0.0f && s->contacts[1].rolling[1] == 0.0f &&
                s->contacts[1].rolling[2] == 0.0f);
    rb_scene_destroy(s);
    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"support\": "
              "2.5}]}");
    assert_true(s->bodies[0].exact && s->bodies[0].support == 2.5f);
    rb_scene_destroy(s);

    /* support */
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"support\": -1}]}",
            "t.json: bodies[0].support: -1 is out of range");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"support\": "
            "\"2\"}]}",
            "t.json: bodies[0].support: expected a number");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"support\": 1e400}]}",
            "t.json: bodies[0].support: inf is not a finite number");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"static\": true, "
            "\"support\": 1}]}",
            "t.json: bodies[0].support: a static or kinematic body has no support");
    refused(
        "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], \"orientation\": [0, 0, "
        "0, 2], \"support\": 1}]}",
        "t.json: bodies[0].orientation: a saved state (with angular_momentum, sleep_timer or support) needs a unit");
    /* the list and its entries */
    refused(TWO_CUBES("{}"), "t.json: contacts: expected an array of [particle, partner, dx, dy, dz]");
#define ENTRY                                                                                                          \
    "t.json: contacts[0]: expected [particle, partner, dx, dy, dz] or [particle, partner, dx, dy, dz, {\"rolling\": "  \
    "[rx, ry, rz]}]"
    refused(TWO_CUBES("[[2, 29, 0, 0]]"), ENTRY ", got 4 values");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [0, 0, 0]}, 0]]"), ENTRY ", got 7 values");
    refused(TWO_CUBES("[{\"particle\": 2}]"), ENTRY ", got an object");
    refused(TWO_CUBES("[2, 29, 0, 0, 0]"), ENTRY ", got a single value");
#undef ENTRY
    /* the particle */
    refused(TWO_CUBES("[[2.5, 29, 0, 0, 0]]"),
            "t.json: contacts[0][0]: expected a particle index, a whole number >= 0, got 2.5");
    refused(TWO_CUBES("[[-1, 29, 0, 0, 0]]"),
            "t.json: contacts[0][0]: expected a particle index, a whole number >= 0, got -1");
    refused(TWO_CUBES("[[\"2\", 29, 0, 0, 0]]"), "t.json: contacts[0][0]: expected a particle index");
    refused(TWO_CUBES("[[54, 2, 0, 0, 0]]"),
            "t.json: contacts[0][0]: particle 54 is past the scene's 54 particles (0 to 53)");
    refused(TWO_CUBES("[[1e10, 2, 0, 0, 0]]"), "t.json: contacts[0][0]: particle 10000000000 is past the scene's 54");
    refused("{\"rubble_scene\": 1, \"contacts\": [[0, {\"plane\": 0}, 0, 0, 0]]}",
            "t.json: contacts[0][0]: particle 0: the scene has no particles");
    refused(TWO_CUBES("[[29, 2, 0, 0, 0], [2, 29, 0, 0, 0]]"),
            "t.json: contacts[1][0]: particle 2 after particle 29: the entries go in particle order");
    /* the partner */
    refused(TWO_CUBES("[[2, 54, 0, 0, 0]]"),
            "t.json: contacts[0][1]: partner particle 54 is past the scene's 54 particles (0 to 53)");
    refused(TWO_CUBES("[[2, -3, 0, 0, 0]]"),
            "t.json: contacts[0][1]: expected a partner particle index, a whole number >= 0, got -3");
    refused(TWO_CUBES("[[2, 2, 0, 0, 0]]"), "t.json: contacts[0][1]: particle 2 cannot touch itself");
    refused(TWO_CUBES("[[2, \"ground\", 0, 0, 0]]"),
            "t.json: contacts[0][1]: expected a particle index or {\"plane\": k}");
    refused(TWO_CUBES("[[2, {\"plane\": 1}, 0, 0, 0]]"),
            "t.json: contacts[0][1].plane: plane 1 is past the scene's 1 planes (0 to 0)");
    refused(TWO_CUBES("[[2, {\"plane\": 0.5}, 0, 0, 0]]"),
            "t.json: contacts[0][1].plane: expected a plane index, a whole number >= 0, got 0.5");
    refused(TWO_CUBES("[[2, {\"plan\": 0}, 0, 0, 0]]"),
            "t.json: contacts[0][1]: expected {\"plane\": k}: 'plane' is missing");
    refused(TWO_CUBES("[[2, {\"plane\": 0, \"plane\": 0}, 0, 0, 0]]"),
            "t.json: contacts[0][1].plane: the key is given twice");
    refused("{\"rubble_scene\": 1, \"planes\": [], \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}], "
            "\"contacts\": [[0, {\"plane\": 0}, 0, 0, 0]]}",
            "t.json: contacts[0][1].plane: plane 0: the scene has no planes");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0], [2, {\"plane\": 0}, 0, 0, 0], [2, 29, 1, 0, 0]]"),
            "t.json: contacts[2][1]: particle 2's contact with this partner is given twice");
    /* the displacement */
    refused(TWO_CUBES("[[2, 29, 0, 1e400, 0]]"),
            "t.json: contacts[0][3]: expected a finite number (the displacement's y, m)");
    refused(TWO_CUBES("[[2, 29, 0, 0, 1e39]]"), /* finite as a double, not as a float */
            "t.json: contacts[0][4]: expected a finite number (the displacement's z, m)");
    refused(TWO_CUBES("[[2, 29, \"0\", 0, 0]]"),
            "t.json: contacts[0][2]: expected a finite number (the displacement's x, m)");
    /* the rolling angle (an optional sixth element) */
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, 0]]"), "t.json: contacts[0][5]: expected {\"rolling\": [rx, ry, rz]}");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {}]]"),
            "t.json: contacts[0][5]: expected {\"rolling\": [rx, ry, rz]}: 'rolling' is missing");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [0, 0]}]]"),
            "t.json: contacts[0][5].rolling: expected 3 numbers, got 2");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": 0.5}]]"),
            "t.json: contacts[0][5].rolling: expected 3 numbers, got a single value");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [0, 1e400, 0]}]]"),
            "t.json: contacts[0][5].rolling: element 1 is not a finite number");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [0, 0, 1e39]}]]"), /* finite as a double, not as a float */
            "t.json: contacts[0][5].rolling: element 2 is not a finite number");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [\"0\", 0, 0]}]]"),
            "t.json: contacts[0][5].rolling: element 0 is a string, not a number");
    refused("{\"rubble_scene\": 1, \"world\": {\"gravity\": [0, \"nan\", 0]}}",
            "t.json: world.gravity: element 1 is a string, not a number");
    refused("{\"rubble_scene\": 1, \"world\": {\"gravity\": [0, null, 0]}}",
            "t.json: world.gravity: element 1 is null, not a number");
    refused(TWO_CUBES("[[2, 29, 0, 0, 0, {\"rolling\": [0, 0, 0], \"rolling\": [0, 0, 0]}]]"),
            "t.json: contacts[0][5].rolling: the key is given twice");
    refused("{\"rubble_scene\": 1, \"contacts\": [], \"contacts\": []}", "t.json: contacts: the key is given twice");
}

/* What only the world can check (a partner in the particle's own body, more
 * entries for a particle than it keeps) is refused when the scene is built:
 * the build fails with the key named, the world's log names the entry, and
 * the bodies the build added are gone again. */
static void test_saved_contacts_the_world_refuses(void **state) {
    static const char *const cases[] = {
        TWO_CUBES("[[2, 5, 0, 0, 0]]"), /* particles 2 and 5 are both the first cube's */
        TWO_CUBES("[[2, 27, 0, 0, 0], [2, 28, 0, 0, 0], [2, 29, 0, 0, 0], [2, 30, 0, 0, 0], [2, 31, 0, 0, 0]]"),
    };
    static const char *const logged[] = {"entry 0 (particle 2, partner 5) has a partner that is neither",
                                         "entry 4 (particle 2, partner 31) has more contacts for one particle"};
    for (int i = 0; i < 2; i++) {
        rb_scene *s = parse(cases[i]);
        rb_world_desc base = rb_default_world_desc();
        rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
        rb_entities *t = rb_entities_create(g_reg, w);
        char err[1024] = "";
        g_log[0] = '\0';
        assert_int_equal(rb_scene_build(s, t, err, sizeof err), 0);
        assert_non_null(strstr(err, "t.json: contacts: the world refused the saved contact history"));
        if (!strstr(g_log, logged[i])) fail_msg("the log says '%s', not '%s'", g_log, logged[i]);
        assert_int_equal(rb_world_body_count(w), 0);
        assert_int_equal(rb_world_particle_count(w), 0);
        rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
    }
    /* a history names particles from 0: it goes into an empty world only */
    rb_scene *s = parse(TWO_CUBES("[[2, 29, 0, 0, 0]]"));
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024] = "";
    s->contact_count = 0;
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 2);
    s->contact_count = 1;
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 0);
    assert_non_null(strstr(err, "t.json: contacts: a saved contact history is restored into an empty world only"));
    assert_int_equal(rb_world_body_count(w), 2);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* world.contact_slots: a world of cubes told to keep 8 contacts a particle
 * takes a saved particle's 5 (the default, chosen from its bodies, keeps 4
 * and refuses them: test_saved_contacts_the_world_refuses), saves the key
 * and reads it back; a world that chose its own count saves none; any
 * count but 4 or 8 is refused at its key. */
static void test_contact_slots_key(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"world\": {\"contact_slots\": 8}, \"bodies\": [{\"shape\": "
                        "\"cube\", \"position\": [0, 0.6, 0]}, {\"shape\": \"cube\", \"position\": [0, 1.8, 0]}], "
                        "\"contacts\": [[2, 27, 0, 0, 0], [2, 28, 0, 0, 0], [2, 29, 0, 0, 0], [2, 30, 0, 0, 0], "
                        "[2, 31, 0, 0, 0]]}");
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 2);
    assert_int_equal(rb_world_contact_slots(w), 8);
    assert_int_equal(rb_world_read_contacts(w, NULL, 0), 5);
    char *text = written(w, t);
    assert_non_null(strstr(text, "\"contact_slots\": 8"));
    rb_scene *again = parse(text);
    assert_int_equal(again->world.contact_slots, 8);
    free(text);
    rb_scene_destroy(again), rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);

    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}]}");
    w = rb_test_world(rb_scene_world_desc(s, &base));
    t = rb_entities_create(g_reg, w);
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 1);
    text = written(w, t);
    assert_null(strstr(text, "contact_slots"));
    free(text);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);

    refused("{\"rubble_scene\": 1, \"world\": {\"contact_slots\": 6}}", "t.json: world.contact_slots: expected 4 or 8");
    refused("{\"rubble_scene\": 1, \"world\": {\"contact_slots\": \"8\"}}",
            "t.json: world.contact_slots: expected 4 or 8");
}

/* A body set into the ground is built (the author may mean it) but said:
 * its file, its index and how deep; one resting on it is not. */
static void test_body_inside_a_plane_is_said(void **state) {
    (void)state;
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.3, 0]},"
                        " {\"shape\": \"cube\", \"position\": [3, 0.61, 0]}]}");
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024] = "";
    g_log[0] = '\0';
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 2);
    assert_non_null(strstr(g_log, "t.json: bodies[0] (cube): starts 0.30 m into plane 0"));
    assert_null(strstr(g_log, "bodies[1]"));
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* 10^9 bodies are refused with the limit at once, not by failing to allocate. */
static void test_huge_generators_are_refused_with_the_limit(void **state) {
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 1e9}]}",
            "t.json: generators[0].height: 1e+09 is more than the limit of 2000000");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 100000, "
            "\"columns\": 100000}]}",
            "generators[0]: the scene would hold 5000050000 bodies; the limit is 2000000");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [1000, 1000, "
            "1000]}]}",
            "generators[0]: the scene would hold 1000000000 bodies; the limit is 2000000");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [0, 4e9, "
            "4e9]}]}",
            "generators[0].count: expected whole counts from 0 to 2000000");
    /* bodies of many particles: the particle count is limited too */
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"torus\", \"height\": "
            "2000000}]}",
            "generators[0]: the scene would hold 528000000 particles; the limit is 64000000");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": -1}]}",
            "generators[0].height: expected a whole number >= 0, got -1");
    /* a grid with a zero count is empty, at once */
    rb_scene *s = parse("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", \"count\": "
                        "[0, 2000000, 2000000]}]}");
    assert_int_equal(s->body_count, 0);
    rb_scene_destroy(s);
}

static void test_unknown_keys_are_warned_about(void **state) {
    g_log[0] = '\0';
    rb_scene *s = parse("{\"rubble_scene\": 1, \"colour\": 3, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, "
                        "0], \"velocty\": [1, 0, 0]}], \"emitters\": []}");
    assert_int_equal(s->body_count, 1);
    assert_non_null(strstr(g_log, "t.json: colour: unknown key, ignored"));
    assert_non_null(strstr(g_log, "t.json: bodies[0].velocty: unknown key, ignored"));
    rb_scene_destroy(s);
}

/* "default" is read first wherever it stands: the others start from it. */
static void test_materials_do_not_depend_on_key_order(void **state) {
    rb_scene *a = parse("{\"rubble_scene\": 1, \"materials\": {\"rubber\": {\"restitution\": 0.8}, \"default\": "
                        "{\"friction\": 0.9}}}");
    rb_scene *b = parse("{\"rubble_scene\": 1, \"materials\": {\"default\": {\"friction\": 0.9}, \"rubber\": "
                        "{\"restitution\": 0.8}}}");
    assert_int_equal(a->material_count, 2);
    assert_true(a->materials[1].material.friction == 0.9f && b->materials[1].material.friction == 0.9f);
    assert_true(a->materials[1].material.restitution == 0.8f);
    assert_true(a->world.material.friction == 0.9f);
    rb_scene_destroy(a), rb_scene_destroy(b);
    /* rolling friction: read, 0 unless given, and the others start from the default's */
    a = parse("{\"rubble_scene\": 1, \"materials\": {\"rubber\": {\"restitution\": 0.8}}}");
    assert_true(a->world.material.rolling_friction == 0.0f && a->materials[1].material.rolling_friction == 0.0f);
    rb_scene_destroy(a);
    a = parse("{\"rubble_scene\": 1, \"materials\": {\"rubber\": {\"restitution\": 0.8}, \"smooth\": "
              "{\"rolling_friction\": 0}, \"default\": {\"rolling_friction\": 0.2}}}");
    assert_true(a->world.material.rolling_friction == 0.2f);
    assert_true(a->materials[1].material.rolling_friction == 0.2f && a->materials[2].material.rolling_friction == 0.0f);
    rb_scene_destroy(a);
}

static const rb_shape *shape(const char *name) {
    return rb_registry_get(g_reg, (uint32_t)rb_registry_find(g_reg, name));
}

static void test_generators(void **state) {
    rb_scene *s =
        parse("{\"rubble_scene\": 1, \"generators\": ["
              "{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 3, \"columns\": 4, \"gap\": 0},"
              "{\"type\": \"tower\", \"shape\": \"cube2\", \"height\": 5, \"position\": [20, 0, 0]},"
              "{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [2, 3, 4], \"position\": [-20, 0, 0]},"
              "{\"type\": \"ring\", \"shape\": \"cube2\", \"count\": 6, \"radius\": 5, \"position\": [0, 0, 30]},"
              "{\"type\": \"formation\", \"formation\": 2, \"count\": 7, \"shape\": \"cube\"},"
              "{\"type\": \"pile\", \"count\": 300, \"shape\": \"cube\", \"material\": \"default\"}]}");
    assert_int_equal(s->body_count, 9 + 5 + 24 + 6 + 7 + 300);
    const rb_scene_body *b = s->bodies;
    /* the wall, without a half body: rows of 4, 3 and 2 cubes 1.2 m apart,
     * each row shifted 0.6 m (running bond) and one shorter, its ends racked
     * back, so nothing overhangs; 1.2 m up a row */
    assert_near(b[1].desc.position[0] - b[0].desc.position[0], 1.2, 1e-5);
    assert_near(b[4].desc.position[0] - b[0].desc.position[0], 0.6, 1e-5);
    assert_near(b[7].desc.position[0] - b[0].desc.position[0], 1.2, 1e-5);
    assert_near(b[4].desc.position[1] - b[0].desc.position[1], 1.2, 1e-5);
    assert_near(b[6].desc.position[0] - b[3].desc.position[0], -0.6, 1e-5); /* the ends racked back */
    assert_near(b[0].desc.position[1], 0.6, 1e-5);                          /* standing on the ground */
    /* the tower: 0.8 m cubes stacked */
    b += 9;
    for (int i = 1; i < 5; i++) assert_near(b[i].desc.position[1] - b[i - 1].desc.position[1], 0.8 + 0.0016, 1e-5);
    /* the grid */
    b += 5;
    assert_near(b[0].desc.position[0], -20.0 - 0.5 * (1.2 + 0.0024), 1e-4);
    /* the ring: every body 5 m from its centre */
    b += 24;
    for (int i = 0; i < 6; i++) assert_near(hypot(b[i].desc.position[0], b[i].desc.position[2] - 30.0), 5.0, 1e-4);
    /* the formation, as rb_formation_pose places it */
    b += 6;
    float p[3];
    assert_true(rb_formation_pose(shape("cube"), 2, 7, 6, p));
    assert_memory_equal(b[6].desc.position, p, sizeof p);
    /* the pile, as pile.h defines it, with its four walls */
    b += 7;
    float q[4];
    rb_pile_body_pose(299, p, q);
    assert_memory_equal(b[299].desc.position, p, sizeof p);
    assert_memory_equal(b[299].desc.orientation, q, sizeof q);
    assert_int_equal(s->world.plane_count, 5);
    rb_scene_destroy(s);
}

/* Every body of a wall rests on the row below: its centre of mass at
 * least a quarter of its length inside the span it is held on (from the
 * first to the last point where the bodies under it meet it), so none
 * overhangs; and no two bodies of a row overlap. Rows are told by height. */
static void assert_no_overhang(const rb_scene *s, uint32_t first, uint32_t n) {
    for (uint32_t i = first; i < first + n; i++) {
        const rb_scene_body *a = &s->bodies[i];
        float ha[3];
        rb_shape_half_extents(shape(a->shape), ha);
        const float xa = a->desc.position[0], ya = a->desc.position[1], la = ha[0] * a->scale;
        float held_lo = INFINITY, held_hi = -INFINITY;
        if (ya < 2.0f * ha[1] * a->scale) held_lo = xa - la, held_hi = xa + la; /* the bottom row: on the ground */
        for (uint32_t j = first; j < first + n; j++) {
            const rb_scene_body *o = &s->bodies[j];
            float ho[3];
            rb_shape_half_extents(shape(o->shape), ho);
            const float xo = o->desc.position[0], yo = o->desc.position[1], lo = ho[0] * o->scale;
            const float rise = ya - yo;
            if (fabsf(rise - 2.0f * ha[1] * a->scale) < 0.1f * ha[1] * a->scale && fabsf(xa - xo) < la + lo) {
                held_lo = fminf(held_lo, fmaxf(xa - la, xo - lo));
                held_hi = fmaxf(held_hi, fminf(xa + la, xo + lo));
            }
            if (i != j && fabsf(rise) < 1e-4f && fabsf(xa - xo) < la + lo)
                fail_msg("bodies %u and %u of a row overlap (x %.4f, %.4f)", i, j, xa, xo);
        }
        if (!(xa >= held_lo + 0.5f * la && xa <= held_hi - 0.5f * la))
            fail_msg("body %u (%s at x %.4f, y %.4f) overhangs: held from x %.4f to %.4f", i, a->shape, xa, ya, held_lo,
                     held_hi);
    }
}

/* The wall generator's running bond: with a half body (the shipped brick
 * and half brick) every other row is half, bricks, half, both ends flush;
 * without one the ends are racked back. Either way no body's centre of
 * mass is nearer than a quarter of its length to the end of what holds it, and a
 * wall of more rows than columns without a half, or a half that does not
 * fit, is refused. */
static void test_wall_has_no_overhang(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"generators\": ["
                        "{\"type\": \"wall\", \"shape\": \"brick\", \"half\": \"brick_half\", \"scale\": 14.88, "
                        "\"rows\": 5, \"columns\": 10},"
                        "{\"type\": \"wall\", \"shape\": \"brick\", \"scale\": 14.88, \"rows\": 5, \"columns\": 10, "
                        "\"position\": [0, 0, 20]}]}");
    assert_int_equal(s->body_count, 52 + 40); /* 10 + 9 and 2 halves, ...; 10 + 9 + 8 + 7 + 6 */
    /* the brick is 8 x 4 x 3 particles of 0.4 m at this scale, its half 4 x 4 x 3 */
    assert_int_equal(shape("brick_half")->particle_count, 48);
    assert_no_overhang(s, 0, 52);
    assert_no_overhang(s, 52, 40);
    /* with halves both ends are flush on every row: the left ends of rows 0 and 1 */
    const rb_scene_body *b = s->bodies;
    assert_string_equal(b[19].shape, "brick_half");
    assert_near(b[19].desc.position[0] - 0.8, b[0].desc.position[0] - 1.6, 1e-3); /* 0.4 m particles at 0.39994 */
    assert_near(b[20].desc.position[0] + 0.8, b[9].desc.position[0] + 1.6, 1e-3);
    rb_scene_destroy(s);
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 5, "
            "\"columns\": 4}]}",
            "t.json: generators[0].rows: 5 rows of 4: a wall without 'half' is one body shorter each row up");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"brick\", \"half\": \"cube\", "
            "\"rows\": 2, \"columns\": 4}]}",
            "t.json: generators[0].half: 'cube' is 1.2 m tall, the wall's 'brick' 0.1075 m: a half must be as tall");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"brick_half\", \"half\": "
            "\"brick\", \"rows\": 2, \"columns\": 4}]}",
            "t.json: generators[0].half: 'brick' is 0.215 m long, more than half the wall's 'brick_half'");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"wall\", \"shape\": \"brick\", \"half\": \"nope\", "
            "\"rows\": 2, \"columns\": 4}]}",
            "t.json: generators[0].half: unknown shape 'nope'");
}

/* `position` means the same for every generator: where the arrangement
 * stands, the middle of its footprint, its lowest bodies' bottoms half a
 * gap above it (a grid's too: y 1.2012 for cubes stood on y 0.6). */
static void test_generators_stand_on_position(void **state) {
    static const char *const gens[] = {
        "{\"type\": \"wall\", \"shape\": \"cube\", \"rows\": 2, \"columns\": 3",
        "{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 3",
        "{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [2, 3, 4]",
        "{\"type\": \"ring\", \"shape\": \"cube\", \"count\": 6, \"radius\": 5",
        "{\"type\": \"heap\", \"shape\": \"cube\", \"count\": 20, \"size\": [6, 6, 6]",
    };
    for (size_t g = 0; g < sizeof gens / sizeof *gens; g++) {
        char text[512];
        snprintf(text, sizeof text, "{\"rubble_scene\": 1, \"generators\": [%s, \"position\": [3, 0.6, -2]}]}",
                 gens[g]);
        rb_scene *s = parse(text);
        float lowest = INFINITY, sum[2] = {0, 0}, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (uint32_t i = 0; i < s->body_count; i++) lowest = fminf(lowest, s->bodies[i].desc.position[1]);
        uint32_t bottom = 0;
        for (uint32_t i = 0; i < s->body_count; i++) {
            const float *p = s->bodies[i].desc.position;
            if (p[1] > lowest + 0.01f) continue;
            bottom++, sum[0] += p[0], sum[1] += p[2];
            lo[0] = fminf(lo[0], p[0]), hi[0] = fmaxf(hi[0], p[0]), lo[1] = fminf(lo[1], p[2]),
            hi[1] = fmaxf(hi[1], p[2]);
        }
        print_message("%s: the lowest centre at y %.4f; the bottom layer's middle (%.3f, %.3f)\n", gens[g], lowest,
                      0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]));
        assert_near(lowest, 0.6 + 0.6 + 0.5 * 0.0024, 1e-5); /* the cube's half height and half a gap above */
        if (g < 4) { /* the heap's bottom layer is scattered, its footprint within the region (below) */
            assert_near(sum[0] / (float)bottom, 3.0, 1e-4);
            assert_near(sum[1] / (float)bottom, -2.0, 1e-4);
        } else {
            assert_true(lo[0] >= 0.0f && hi[0] <= 6.0f && lo[1] >= -5.0f && hi[1] <= 1.0f);
        }
        rb_scene_destroy(s);
    }
}

/* `orientation` turns the whole arrangement about its position: a tower
 * turned a quarter about z lies along -x from it, each body turned too; a
 * pile's walls turn and move with it; the identity changes no bit; a
 * quaternion that is not of unit length or not finite is refused. */
static void test_generators_turned(void **state) {
    const float s2 = 0.70710678f;
    rb_scene *s = parse("{\"rubble_scene\": 1, \"generators\": ["
                        "{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 3, \"position\": [5, 1, 0], "
                        "\"orientation\": [0, 0, 0.70710678, 0.70710678]},"
                        "{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [3, 2, 2], \"position\": [1, 2, 3]},"
                        "{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [3, 2, 2], \"position\": [1, 2, 3], "
                        "\"orientation\": [0, 0, 0, 1]},"
                        "{\"type\": \"pile\", \"shape\": \"cube\", \"count\": 2, \"position\": [100, 0, 0], "
                        "\"orientation\": [0, 0.70710678, 0, 0.70710678]}]}");
    assert_int_equal(s->body_count, 3 + 12 + 12 + 2);
    for (int k = 0; k < 3; k++) {
        const rb_scene_body *b = &s->bodies[k];
        assert_near(b->desc.position[0], 5.0 - (0.6 + 0.0012 + k * 1.2024), 1e-4);
        assert_near(b->desc.position[1], 1.0, 1e-4);
        assert_near(b->desc.position[2], 0.0, 1e-4);
        assert_near(b->desc.orientation[2], s2, 1e-6);
        assert_near(b->desc.orientation[3], s2, 1e-6);
    }
    for (int k = 0; k < 12; k++) /* all but where the file gave them: generators[1] and [2] */
        memcpy(s->bodies[15 + k].origin, s->bodies[3 + k].origin, sizeof s->bodies[0].origin);
    assert_memory_equal(&s->bodies[3], &s->bodies[15], 12 * sizeof s->bodies[0]);
    /* the pile turned a quarter about y: its body 1 (x -12.3, z -14.1 about its origin) at x 100 - 14.1, z 12.3 */
    float p[3], q[4];
    rb_pile_body_pose(1, p, q);
    assert_near(s->bodies[28].desc.position[0], 100.0 + p[2], 1e-3);
    assert_near(s->bodies[28].desc.position[2], -p[0], 1e-3);
    /* its walls: x = 100 +- 15, z = +-15, the ground first */
    assert_int_equal(s->world.plane_count, 5);
    for (uint32_t i = 1; i < 5; i++) {
        const rb_plane *w = &s->world.planes[i];
        const float centre[3] = {100.0f, 0.0f, 0.0f};
        assert_near(fabsf(w->normal[0]) + fabsf(w->normal[2]), 1.0, 1e-5);
        assert_near(rb_v3_dot(w->normal, centre) - w->offset, 15.0, 1e-3); /* the middle 15 m clear of it */
    }
    rb_scene_destroy(s);
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 3, "
            "\"orientation\": [0, 0, 1, 1]}]}",
            "t.json: generators[0].orientation: [0, 0, 1, 1] has length 1.41421: expected a unit quaternion");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 3, "
            "\"orientation\": [0, 0, 0, 0]}]}",
            "t.json: generators[0].orientation: [0, 0, 0, 0] has length 0: expected a unit quaternion");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"shape\": \"cube\", \"count\": 3, "
            "\"size\": [5, 5, 5], \"orientation\": [0, 0, 1e400, 1]}]}",
            "t.json: generators[0].orientation: element 2 is not a finite number");
}

/* Whether two heap bodies' boxes, each turned any way about the vertical,
 * could meet: their footprint circles overlap and their heights do. */
static bool could_meet(const rb_scene_body *a, const rb_scene_body *b) {
    float ha[3], hb[3];
    rb_shape_half_extents(shape(a->shape), ha);
    rb_shape_half_extents(shape(b->shape), hb);
    const float ra = a->scale * hypotf(ha[0], ha[2]), rb = b->scale * hypotf(hb[0], hb[2]);
    const float dx = a->desc.position[0] - b->desc.position[0], dz = a->desc.position[2] - b->desc.position[2];
    const float dy = fabsf(a->desc.position[1] - b->desc.position[1]);
    return hypotf(dx, dz) < ra + rb && dy < a->scale * ha[1] + b->scale * hb[1];
}

/* A heap: count bodies of a weighted list of shapes in a box standing on
 * its position, no two overlapping, each shape about as often as its
 * weight asks, the same from the same seed; bad input refused at its key. */
static void test_heap(void **state) {
    const char *text = "{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 60, \"seed\": %d, "
                       "\"shapes\": [{\"shape\": \"cube\", \"weight\": 3}, {\"shape\": \"cube2\"}, "
                       "{\"shape\": \"cube\", \"scale\": 0.5}], \"size\": [8, 7, 6], \"position\": [10, 0, 0]}]}";
    char t1[512], t2[512];
    snprintf(t1, sizeof t1, text, 3), snprintf(t2, sizeof t2, text, 4);
    rb_scene *s = parse(t1), *same = parse(t1), *other = parse(t2);
    assert_int_equal(s->body_count, 60);
    assert_memory_equal(s->bodies, same->bodies, 60 * sizeof *s->bodies);
    assert_memory_not_equal(s->bodies, other->bodies, 60 * sizeof *s->bodies);
    uint32_t big = 0, small = 0;
    for (uint32_t i = 0; i < 60; i++) {
        const rb_scene_body *a = &s->bodies[i];
        float h[3];
        rb_shape_half_extents(shape(a->shape), h);
        const float r = a->scale * hypotf(h[0], h[2]);
        big += strcmp(a->shape, "cube") == 0 && a->scale == 1.0f, small += a->scale == 0.5f;
        /* within the box */
        assert_true(a->desc.position[0] - r >= 6.0f && a->desc.position[0] + r <= 14.0f);
        assert_true(a->desc.position[2] - r >= -3.0f && a->desc.position[2] + r <= 3.0f);
        assert_true(a->desc.position[1] - a->scale * h[1] >= 0.0f && a->desc.position[1] + a->scale * h[1] <= 7.0f);
        for (uint32_t j = 0; j < i; j++)
            if (could_meet(a, &s->bodies[j])) fail_msg("heap bodies %u and %u overlap", j, i);
    }
    print_message("a heap of 60: %u cubes (weight 3 of 5), %u half cubes (1 of 5)\n", big, small);
    assert_true(big >= 25 && big <= 47 && small >= 4 && small <= 20);
    rb_scene_destroy(s), rb_scene_destroy(same), rb_scene_destroy(other);
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 3, \"shapes\": [], \"size\": [5, "
            "5, 5]}]}",
            "t.json: generators[0].shapes: expected at least one shape");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 0, \"shape\": \"cube\", \"size\": "
            "[5, 5, 5]}]}",
            "t.json: generators[0].count: a heap of 0 bodies: expected a count >= 1");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 50, \"shape\": \"cube\", \"size\": "
            "[5, 5, 5]}]}",
            "t.json: generators[0].size: 50 bodies do not fit in [5, 5, 5]: it holds 16 (2 x 2 cells of 1.7 m, 4 "
            "layers of 1.2 m");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 5, \"shapes\": [{\"shape\": "
            "\"cub\"}], \"size\": [5, 5, 5]}]}",
            "t.json: generators[0].shapes[0].shape: unknown shape 'cub'");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 5, \"shape\": \"cube\", "
            "\"shapes\": [{\"shape\": \"cube\"}], \"size\": [5, 5, 5]}]}",
            "t.json: generators[0]: give 'shape' or 'shapes', not both");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 5, \"shape\": \"cube\", "
            "\"size\": [5, 0, 5]}]}",
            "t.json: generators[0].size: expected 3 sizes > 0");
}

/* A heap in a world comes to rest: nothing starts inside anything (no body
 * faster than 2 m/s after a step: bodies started overlapping fly apart at
 * tens of m/s), and after 10 s every body sleeps. */
static void test_heap_settles(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"heap\", \"count\": 40, \"shapes\": "
                        "[{\"shape\": \"cube\"}, {\"shape\": \"cube2\"}], \"size\": [7, 6, 7]}]}");
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[256];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 40);
    float fastest = 0.0f;
    assert_true(rb_world_step(w, 1));
    for (uint32_t b = 0; b < 40; b++) {
        rb_body_state st;
        assert_true(rb_world_get_body(w, b, &st));
        fastest = fmaxf(fastest, sqrtf(rb_v3_dot(st.velocity, st.velocity)));
    }
    assert_true(rb_world_step(w, 6250)); /* 10 s: all asleep by 8 s (39 of 40 at 6 s) */
    uint32_t asleep = 0;
    for (uint32_t b = 0; b < 40; b++) {
        rb_body_state st;
        assert_true(rb_world_get_body(w, b, &st));
        asleep += st.asleep;
    }
    print_message("a heap of 40: fastest %.3f m/s after a step; %u asleep after 10 s\n", fastest, asleep);
    assert_true(fastest < 2.0f);
    assert_int_equal(asleep, 40);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* The formations and the pile that --formation and rubble-bench ask for come from generators. */
static void test_formation_and_pile_scenes(void **state) {
    char err[256];
    rb_scene *s = rb_scene_formation(g_reg, "cube", 1, 50, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(s->body_count, 50);
    assert_string_equal(rb_scene_shape_name(s), "cube");
    rb_scene_destroy(s);
    s = rb_scene_pile(g_reg, "cube2", 20, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(s->body_count, 20);
    assert_int_equal(s->world.plane_count, 5);
    rb_scene_destroy(s);
    assert_null(rb_scene_formation(g_reg, "nope", 1, 5, err, sizeof err));
}

/* A saved world reloads and continues bit for bit: the digest after 300 more
 * steps equals the run that was never saved. The scene has a static body, a
 * kinematic one, a second material, sleeping bodies and bodies resting on
 * the ground and on each other (supports and a contact history), so every
 * saved field matters. */
static void test_save_and_reload_continue_bit_for_bit(void **state) {
    rb_scene *s =
        parse("{\"rubble_scene\": 1, \"materials\": {\"rubber\": {\"restitution\": 0.8, \"friction\": "
              "0.9}},"
              " \"bodies\": [{\"shape\": \"cube\", \"position\": [6, 0.6, 0], \"static\": true},"
              "  {\"shape\": \"cube2\", \"position\": [6.1, 3, 0.2], \"material\": \"rubber\", "
              "\"angular_velocity\": [1, 2, 3]},"
              "  {\"shape\": \"cube\", \"position\": [-4, 0.5, 8], \"scale\": 0.25, \"angular_velocity\": [0, "
              "1, 0]},"
              "  {\"shape\": \"cube2\", \"position\": [-10, 0.41, 12], \"kinematic\": true, \"velocity\": "
              "[0.5, 0, 0], \"angular_velocity\": [0, 0.3, 0]},"
              "  {\"shape\": \"rock_a\", \"scale\": 0.5, \"position\": [-6.3, 4, 0.5]}],"
              " \"generators\": [{\"type\": \"formation\", \"formation\": 2, \"count\": 10, \"shape\": "
              "\"cube\"}, {\"type\": \"formation\", \"formation\": 1, \"count\": 8, \"shape\": \"cube2\", "
              "\"position\": [-6, 0, 0]}]}");
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_world_desc d = rb_scene_world_desc(s, &base);
    rb_world *w = rb_test_world(d);
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), s->body_count);
    assert_true(rb_world_step(w, 3000)); /* long enough for the towers to fall asleep (4.8 s) */
    bool any_asleep = false;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state st;
        assert_true(rb_world_get_body(w, b, &st));
        any_asleep |= st.asleep;
    }
    assert_true(any_asleep);
    /* a nudge wakes formation 1's bottom layer (bodies 15 on): the stack is
     * sliding and settling, on the ground and on each other, when it is
     * saved, so the contact history matters to the steps after. The rock
     * (a mesh whose voxels are turned in its principal frame: not a
     * lattice, its particles spheres) lies on it: a lattice body shares its
     * mass among at most its onset support, whatever its saved support
     * (src/sim/contact.h, rb_contact_share), so it is the rock's support
     * that the run needs */
    rb_body_state nudged;
    assert_true(rb_world_get_body(w, 15, &nudged));
    assert_true(rb_world_apply_impulse(w, nudged.id, (const float[3]){0.3f * nudged.mass, 0, 0}, nudged.position));
    assert_true(rb_world_step(w, 20));

    char path[256];
    snprintf(path, sizeof path, "%s/tests/saved-scene.json", RB_TEST_BUILD_DIR);
    remove(path);
    assert_true(rb_scene_save(path, w, t, err, sizeof err));
    rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
    if (!again) fail_msg("%s", err);
    assert_int_equal(again->body_count, rb_world_body_count(w));
    /* the contact history came along, plane contacts among it, and the supports */
    const uint32_t contacts = rb_world_read_contacts(w, NULL, 0);
    assert_true(contacts > 0);
    assert_int_equal(again->contact_count, contacts);
    bool plane_contact = false, support = false;
    for (uint32_t i = 0; i < again->contact_count; i++) plane_contact |= again->contacts[i].partner >= RB_CONTACT_PLANE;
    for (uint32_t i = 0; i < again->body_count; i++) support |= again->bodies[i].support > 0.0f;
    assert_true(plane_contact && support);
    rb_world_desc d2 = rb_scene_world_desc(again, &base);
    rb_world *w2 = rb_test_world(d2);
    rb_entities *t2 = rb_entities_create(g_reg, w2);
    assert_int_equal(rb_scene_build(again, t2, err, sizeof err), again->body_count);
    assert_true(rb_world_digest(w2) == rb_world_digest(w)); /* the same state, bit for bit */
    rb_contact_memory *h = calloc(contacts, sizeof *h), *h2 = calloc(contacts, sizeof *h2);
    assert_int_equal(rb_world_read_contacts(w, h, contacts), contacts);
    assert_int_equal(rb_world_read_contacts(w2, h2, contacts), contacts);
    assert_memory_equal(h, h2, contacts * sizeof *h);
    free(h), free(h2);
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state a, c;
        assert_true(rb_world_get_body(w, b, &a) && rb_world_get_body(w2, b, &c));
        assert_memory_equal(&a.support, &c.support, sizeof a.support);
    }
    assert_true(rb_world_step(w, 300));
    assert_true(rb_world_step(w2, 300));
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    /* each is needed: without the contact history, or without the supports,
     * the same 300 steps go another way */
    for (int drop = 0; drop < 2; drop++) {
        rb_scene *less = rb_scene_load(path, g_reg, err, sizeof err);
        if (!less) fail_msg("%s", err);
        if (drop == 0) less->contact_count = 0;
        for (uint32_t i = 0; drop == 1 && i < less->body_count; i++) less->bodies[i].support = 0.0f;
        rb_world *w3 = rb_test_world(rb_scene_world_desc(less, &base));
        rb_entities *t3 = rb_entities_create(g_reg, w3);
        assert_int_equal(rb_scene_build(less, t3, err, sizeof err), less->body_count);
        assert_true(rb_world_step(w3, 300));
        if (rb_world_digest(w3) == rb_world_digest(w))
            fail_msg("the run went the same way without the saved %s", drop ? "supports" : "contacts");
        rb_entities_destroy(t3), rb_world_destroy(w3), rb_scene_destroy(less);
    }
    rb_body_state a, b;
    assert_true(rb_world_get_body(w, 1, &a));
    assert_true(rb_world_get_body(w2, 1, &b));
    assert_int_equal(a.material, b.material);
    assert_int_equal(a.kind, b.kind);
    assert_true(rb_world_get_body(w, 3, &a));
    assert_true(rb_world_get_body(w2, 3, &b));
    assert_int_equal(b.kind, RB_BODY_KINEMATIC);
    assert_memory_equal(a.position, b.position, sizeof a.position); /* it moved, the same in both */
    /* the scaled block came back at its scale */
    assert_true(rb_world_get_body(w2, 2, &b));
    assert_true(rb_entities_scale_of_world_shape(t2, b.shape) == 0.25f);
    assert_near(rb_world_shape_radius(w2, b.shape), 0.05, 1e-7);
    rb_entities_destroy(t2), rb_world_destroy(w2), rb_scene_destroy(again);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* A world with rolling friction (rb_material.rolling_friction) reloads and
 * continues bit for bit too: its materials' rolling friction and its
 * contacts' rolling angles (rb_contact_memory.rolling) are saved. Balls of
 * rolling friction 0.2 (the default material) roll on the ground, one rolls
 * off another, a rubber ball (0.05) rolls across, and a block of a material
 * without rolling friction slides (a material of 0 beside a default that
 * is not 0 must be written to read back as 0). Saved mid-run, the file has
 * the key and the angles, and the reloaded world has the same materials,
 * contact history and digest, and after 300 more steps the same digest;
 * without the saved angles the same 300 steps go another way. */
static void test_rolling_friction_saved_and_continued(void **state) {
    rb_scene *s = parse(
        "{\"rubble_scene\": 1, \"materials\": {\"default\": {\"rolling_friction\": 0.2}, \"rubber\": "
        "{\"restitution\": 0.8, \"rolling_friction\": 0.05}, \"smooth\": {\"rolling_friction\": 0}},"
        " \"bodies\": [{\"shape\": \"ball\", \"scale\": 0.5, \"position\": [0, 0.65, 0], \"velocity\": [2, 0, 0], "
        "\"angular_velocity\": [0, 0, -3.3]},"
        "  {\"shape\": \"ball\", \"scale\": 0.5, \"position\": [-6, 0.65, 0]},"
        "  {\"shape\": \"ball\", \"scale\": 0.5, \"position\": [-5.9, 1.9, 0.05]},"
        "  {\"shape\": \"ball\", \"scale\": 0.5, \"position\": [6, 0.65, 3], \"material\": \"rubber\", "
        "\"velocity\": [0, 0, -1.5], \"angular_velocity\": [-2.5, 0, 0]},"
        "  {\"shape\": \"cube2\", \"position\": [0, 0.4, 6], \"material\": \"smooth\", \"velocity\": [3, 0, 0]}]}");
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), s->body_count);
    assert_true(rb_world_step(w, 500)); /* 0.8 s: rolling, the top ball coming off */

    char path[256];
    snprintf(path, sizeof path, "%s/tests/saved-rolling.json", RB_TEST_BUILD_DIR);
    remove(path);
    assert_true(rb_scene_save(path, w, t, err, sizeof err));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 20];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\"rolling_friction\": 0.2"));
    assert_non_null(strstr(text, "\"rolling_friction\": 0.05"));
    assert_non_null(strstr(text, "\"rolling_friction\": 0}")); /* "smooth", against the default's 0.2 */
    assert_non_null(strstr(text, ", {\"rolling\": ["));

    rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
    if (!again) fail_msg("%s", err);
    const uint32_t contacts = rb_world_read_contacts(w, NULL, 0);
    assert_int_equal(again->contact_count, contacts);
    /* angles on contacts with the ground and between two balls */
    uint32_t on_plane = 0, between = 0;
    for (uint32_t i = 0; i < again->contact_count; i++) {
        const rb_contact_memory *c = &again->contacts[i];
        if (c->rolling[0] == 0.0f && c->rolling[1] == 0.0f && c->rolling[2] == 0.0f) continue;
        if (c->partner >= RB_CONTACT_PLANE)
            on_plane++;
        else
            between++;
    }
    print_message("%u contacts saved, %u with a rolling angle on the ground, %u between balls\n", contacts, on_plane,
                  between);
    assert_true(on_plane > 0 && between > 0);
    rb_world *w2 = rb_test_world(rb_scene_world_desc(again, &base));
    rb_entities *t2 = rb_entities_create(g_reg, w2);
    assert_int_equal(rb_scene_build(again, t2, err, sizeof err), again->body_count);
    assert_int_equal(rb_world_material_count(w2), rb_world_material_count(w));
    for (uint32_t k = 0; k < rb_world_material_count(w); k++) {
        rb_material a, b;
        assert_true(rb_world_get_material(w, k, &a) && rb_world_get_material(w2, k, &b));
        assert_memory_equal(&a, &b, sizeof a);
    }
    assert_true(rb_world_digest(w2) == rb_world_digest(w));
    rb_contact_memory *h = calloc(contacts, sizeof *h), *h2 = calloc(contacts, sizeof *h2);
    assert_int_equal(rb_world_read_contacts(w, h, contacts), contacts);
    assert_int_equal(rb_world_read_contacts(w2, h2, contacts), contacts);
    assert_memory_equal(h, h2, contacts * sizeof *h);
    free(h), free(h2);
    assert_true(rb_world_step(w, 300));
    assert_true(rb_world_step(w2, 300));
    assert_true(rb_world_digest(w2) == rb_world_digest(w));

    /* the angles are needed: without them the same 300 steps go another way */
    rb_scene *less = rb_scene_load(path, g_reg, err, sizeof err);
    if (!less) fail_msg("%s", err);
    for (uint32_t i = 0; i < less->contact_count; i++)
        memset(less->contacts[i].rolling, 0, sizeof less->contacts[i].rolling);
    rb_world *w3 = rb_test_world(rb_scene_world_desc(less, &base));
    rb_entities *t3 = rb_entities_create(g_reg, w3);
    assert_int_equal(rb_scene_build(less, t3, err, sizeof err), less->body_count);
    assert_true(rb_world_step(w3, 300));
    if (rb_world_digest(w3) == rb_world_digest(w))
        fail_msg("the run went the same way without the saved rolling angles");
    rb_entities_destroy(t3), rb_world_destroy(w3), rb_scene_destroy(less);
    remove(path);
    rb_entities_destroy(t2), rb_world_destroy(w2), rb_scene_destroy(again);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* A world without rolling friction is saved as before it existed: no
 * rolling_friction key and no rolling angle in the file. */
static void test_no_rolling_friction_no_keys(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"materials\": {\"rubber\": {\"restitution\": 0.8}}, \"bodies\": "
                        "[{\"shape\": \"ball\", \"scale\": 0.5, \"position\": [0, 0.65, 0], \"velocity\": [2, 0, 0]},"
                        " {\"shape\": \"cube2\", \"position\": [3, 0.4, 0], \"material\": \"rubber\"}]}");
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), s->body_count);
    assert_true(rb_world_step(w, 200));
    assert_true(rb_world_read_contacts(w, NULL, 0) > 0);
    char *text = written(w, t);
    assert_non_null(strstr(text, "\"contact_time\""));
    assert_null(strstr(text, "rolling"));
    free(text);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* A save goes to a temporary file that is renamed: when the rename cannot
 * happen, what stood at the path is untouched and no temporary is left. */
static void test_failed_save_keeps_the_old_file(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]}]}");
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024], dir[256], inside[300];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 1);
    /* a folder (holding a file) where the scene would go: rename cannot replace it */
    snprintf(dir, sizeof dir, "%s/tests/save-target", RB_TEST_BUILD_DIR);
    snprintf(inside, sizeof inside, "%s/keep.txt", dir);
    mkdir(dir, 0755);
    FILE *f = fopen(inside, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    assert_false(rb_scene_save(dir, w, t, err, sizeof err));
    assert_non_null(strstr(err, "not saved (the old file, if any, is untouched)"));
    struct stat st;
    assert_int_equal(stat(inside, &st), 0);
    assert_int_equal(st.st_size, 8);
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", dir, (long)getpid());
    assert_int_not_equal(stat(tmp, &st), 0); /* no temporary left behind */
    /* a folder that does not exist */
    assert_false(rb_scene_save("/nonexistent-folder/x.json", w, t, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-folder/x.json: cannot write"));
    remove(inside), rmdir(dir);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* Pattern 'parts', a pre-fractured mesh's: the shipped pillar's parts are
 * its pieces (the given pattern); a shape with none (a rock) stays whole
 * with a warning naming the file, the body and the shape, the scene
 * loading; 'plugin' on such a shape is refused as before. */
static void test_pattern_parts(void **state) {
    (void)state;
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"pillar\", \"position\": [0, 2, 0], "
                        "\"breakable\": {\"pattern\": \"parts\", \"strength\": 1000}}]}");
    assert_true(s->bodies[0].breakable);
    assert_int_equal(s->bodies[0].fracture.kind, RB_FRACTURE_GIVEN);
    assert_near(s->bodies[0].fracture.strength, 1000.0, 0.0);
    rb_scene_destroy(s);
    g_log[0] = '\0';
    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 2, 0]}, "
              "{\"shape\": \"rock_a\", \"position\": [3, 2, 0], \"breakable\": {\"pattern\": \"parts\"}}]}");
    assert_int_equal(s->body_count, 2);
    assert_false(s->bodies[1].breakable);
    if (!strstr(g_log, "t.json: bodies[1].breakable: pattern 'parts': shape 'rock_a' has no parts"))
        fail_msg("no warning in:\n%s", g_log);
    rb_scene_destroy(s);
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"rock_a\", \"position\": [3, 2, 0], "
            "\"breakable\": {\"pattern\": \"plugin\"}}]}",
            "pattern 'plugin': shape 'rock_a' gives no pieces");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"pillar\", \"position\": [3, 2, 0], "
            "\"breakable\": {\"pattern\": \"part\"}}]}",
            "unknown pattern 'part' (voronoi, layers, slices, radial, particles, plugin or parts)");
}

/* The shipped scenes load and build. */
static void test_shipped_scenes_build(void **state) {
    static const char *const names[] = {"brick_wall",      "tower_on_platform",  "ramp_rocks",
                                        "rubble_heap",     "debris_rockfall",    "debris_brick_wall",
                                        "breakable_tower", "breakable_patterns", "breakable_parts"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512], err[1024];
        snprintf(path, sizeof path, "%s/assets/scenes/%s.json", RB_TEST_SOURCE_DIR, names[i]);
        rb_scene *s = rb_scene_load(path, g_reg, err, sizeof err);
        if (!s) fail_msg("%s", err);
        assert_true(s->body_count > 0);
        rb_world_desc base = rb_default_world_desc();
        base.backend = rb_test_backend();
        rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
        rb_entities *t = rb_entities_create(g_reg, w);
        if (rb_scene_build(s, t, err, sizeof err) != s->body_count) fail_msg("%s: %s", names[i], err);
        assert_true(rb_world_step(w, 100));
        rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
    }
}

/* Colours (docs/scene-format.md, "Colours"): a body's, a generator's, a
 * material's and an emitter's `color` and `inside_color`, as [r, g, b] or
 * "#rrggbb", a material's under a body's own; written back for the bodies
 * given them (and only them), reading back to the bit; each bad value
 * refused at its key. */
static void test_colors_read_written_and_refused(void **state) {
    rb_scene *s = parse(
        "{\"rubble_scene\": 1, \"materials\": {\"clay\": {\"color\": \"#C06030\", \"inside_color\": [0.9, 0.8, 0.7]},"
        " \"default\": {\"color\": [0.5, 0.5, 0.5]}},"
        " \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"color\": [0.1, 0.2, 0.3]},"
        "  {\"shape\": \"cube\", \"position\": [3, 0.6, 0], \"material\": \"clay\", \"inside_color\": \"#000000\"},"
        "  {\"shape\": \"cube\", \"position\": [6, 0.6, 0], \"material\": \"clay\"},"
        "  {\"shape\": \"cube\", \"position\": [9, 0.6, 0], \"inside_color\": [1, 1, 1]}],"
        " \"generators\": [{\"type\": \"tower\", \"shape\": \"cube2\", \"height\": 2, \"position\": [0, 0, 6],"
        "  \"color\": \"#ffffff\", \"material\": \"clay\"}],"
        " \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}], \"color\": [0, 1, 0]}]}");
    assert_int_equal(s->body_count, 6);
    const rb_color_spec *c = &s->bodies[0].colors; /* its own colour over the default material's */
    assert_true(c->has_color && !c->has_inside);
    assert_true(c->color[0] == 0.1f && c->color[1] == 0.2f && c->color[2] == 0.3f);
    c = &s->bodies[1].colors; /* clay's colour, its own inside colour */
    assert_true(c->has_color && c->has_inside);
    assert_true(c->color[0] == 192.0f / 255.0f && c->color[1] == 96.0f / 255.0f && c->color[2] == 48.0f / 255.0f);
    assert_true(c->inside[0] == 0.0f && c->inside[1] == 0.0f && c->inside[2] == 0.0f);
    c = &s->bodies[2].colors; /* clay's both */
    assert_true(c->has_color && c->has_inside && c->inside[0] == 0.9f && c->inside[2] == 0.7f);
    c = &s->bodies[3].colors; /* the default material's colour, its own inside colour */
    assert_true(c->has_color && c->color[1] == 0.5f && c->has_inside && c->inside[1] == 1.0f);
    for (int b = 4; b < 6; b++) { /* the tower: its colour over clay's, clay's inside colour */
        c = &s->bodies[b].colors;
        assert_true(c->has_color && c->color[0] == 1.0f && c->has_inside && c->inside[1] == 0.8f);
    }
    assert_true(s->debris && s->debris->emitters[0].colors.has_color && !s->debris->emitters[0].colors.has_inside);
    assert_true(s->debris->emitters[0].colors.color[1] == 1.0f);
    rb_scene_destroy(s);

    /* written back through a stage's table: the colours given, no others; read back to the bit */
    s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"color\": [0.1, "
              "0.2, 0.3], \"inside_color\": \"#ab12ef\"}, {\"shape\": \"cube\", \"position\": [3, 0.6, 0]}, "
              "{\"shape\": \"cube\", \"position\": [6, 0.6, 0], \"inside_color\": [0.25, 0.5, 0.75]}]}");
    rb_world_desc base = rb_default_world_desc();
    base.backend = rb_test_backend();
    const rb_world_desc d = rb_scene_world_desc(s, &base);
    char err[1024];
    rb_stage *stage = rb_stage_create(g_reg, &d, err, sizeof err);
    if (!stage) fail_msg("%s", err);
    const rb_stage_how how = {.world = d};
    rb_color_spec given[3];
    for (int b = 0; b < 3; b++) given[b] = s->bodies[b].colors;
    assert_true(rb_stage_install(stage, s, &how, NULL, err, sizeof err)); /* it takes the scene */
    rb_world *w = rb_stage_world(stage);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    if (!rb_scene_write(f, w, rb_stage_entities(stage), rb_stage_colors(stage), err, sizeof err))
        fail_msg("not written: %s", err);
    fclose(f);
    assert_non_null(strstr(text, "\"color\": [0.1, 0.2, 0.3], \"inside_color\": [0.67058825, 0.07058824, 0.9372549]"));
    rb_scene *again = parse(text);
    for (int b = 0; b < 3; b++) {
        const rb_color_spec *a = &again->bodies[b].colors, *g = &given[b];
        assert_int_equal(a->has_color, g->has_color);
        assert_int_equal(a->has_inside, g->has_inside);
        if (g->has_color) assert_memory_equal(a->color, g->color, sizeof a->color);
        if (g->has_inside) assert_memory_equal(a->inside, g->inside, sizeof a->inside);
    }
    rb_scene_destroy(again);
    free(text);
    /* without the table, no colour is written */
    text = written(w, rb_stage_entities(stage));
    assert_null(strstr(text, "color"));
    free(text);
    rb_stage_destroy(stage);

#define BODY(colors) "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0], " colors "}]}"
    refused(BODY("\"color\": [1.5, 0, 0]"), "t.json: bodies[0].color: element 0 is 1.5, out of range [0, 1]");
    refused(BODY("\"color\": [0, -0.1, 0]"), "t.json: bodies[0].color: element 1 is -0.1, out of range [0, 1]");
    refused(BODY("\"color\": [0, 1e400, 0]"), "t.json: bodies[0].color: element 1 is not a finite number");
    refused(BODY("\"inside_color\": [0, 0, \"NaN\"]"),
            "t.json: bodies[0].inside_color: element 2 is a string, not a number");
    refused(BODY("\"color\": \"NaN\""), "t.json: bodies[0].color: 'NaN' is not a colour: expected \"#rrggbb\"");
    refused(BODY("\"color\": \"#12345g\""), "t.json: bodies[0].color: '#12345g' is not a colour");
    refused(BODY("\"color\": \"#fff\""), "t.json: bodies[0].color: '#fff' is not a colour");
    refused(BODY("\"color\": [0.5, 0.5]"), "t.json: bodies[0].color: expected 3 numbers (r, g, b, each 0 to 1), got 2");
    refused(BODY("\"inside_color\": 0.5"),
            "t.json: bodies[0].inside_color: expected [r, g, b] (each 0 to 1) or \"#rrggbb\"");
    refused(BODY("\"color\": {\"r\": 1}"), "t.json: bodies[0].color: expected [r, g, b]");
#undef BODY
    refused("{\"rubble_scene\": 1, \"materials\": {\"clay\": {\"inside_color\": [2, 0, 0]}}}",
            "t.json: materials.clay.inside_color: element 0 is 2, out of range [0, 1]");
    refused("{\"rubble_scene\": 1, \"generators\": [{\"type\": \"tower\", \"shape\": \"cube\", \"height\": 2, "
            "\"color\": true}]}",
            "t.json: generators[0].color: expected [r, g, b]");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}], \"inside_color\": "
            "\"#00ff0\"}]}",
            "t.json: emitters[0].inside_color: '#00ff0' is not a colour");
}

/* Camera bookmarks (the `camera` key): written by a save with them, an
 * empty slot as null, read back to the bit; a scene without them says so;
 * each bad value refused at its key. */
static void test_camera_bookmarks_saved_and_read(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}]}");
    assert_false(s->has_camera);
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024], path[256];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 1);
    const rb_scene_bookmark marks[RB_SCENE_BOOKMARKS] = {
        {.set = true, .position = {1.0f / 3.0f, 2.5f, -7.125f}, .yaw = 0.1f, .pitch = -0.7f},
        {0},
        {.set = true, .position = {-4.0f, 10.0f, 3e-7f}, .yaw = -2.9f, .pitch = 1.55f}};
    snprintf(path, sizeof path, "%s/tests/saved-bookmarks.json", RB_TEST_BUILD_DIR);
    const rb_scene_source source = {.world = w, .entities = t, .bookmarks = marks};
    assert_true(rb_scene_save_source(path, &source, err, sizeof err));
    rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
    if (!again) fail_msg("%s", err);
    assert_true(again->has_camera);
    assert_int_equal(again->body_count, 1);
    for (int i = 0; i < RB_SCENE_BOOKMARKS; i++) {
        assert_int_equal(again->bookmarks[i].set, marks[i].set);
        assert_memory_equal(again->bookmarks[i].position, marks[i].position, sizeof marks[i].position);
        assert_true(again->bookmarks[i].yaw == marks[i].yaw && again->bookmarks[i].pitch == marks[i].pitch);
    }
    rb_scene_destroy(again);
    /* without bookmarks (and through rb_scene_save) no camera key is written */
    assert_true(rb_scene_save(path, w, t, err, sizeof err));
    again = rb_scene_load(path, g_reg, err, sizeof err);
    assert_non_null(again);
    assert_false(again->has_camera);
    rb_scene_destroy(again);
    remove(path);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);

    /* fewer than three, by hand */
    s = parse("{\"rubble_scene\": 1, \"camera\": {\"bookmarks\": [null, {\"position\": [1, 2, 3], \"yaw\": 4, "
              "\"pitch\": 0.5}]}}");
    assert_true(s->has_camera);
    assert_false(s->bookmarks[0].set || s->bookmarks[2].set);
    assert_true(s->bookmarks[1].set && s->bookmarks[1].position[2] == 3.0f && s->bookmarks[1].yaw == 4.0f);
    rb_scene_destroy(s);
#define CAMERA(list) "{\"rubble_scene\": 1, \"camera\": {\"bookmarks\": " list "}}"
    refused("{\"rubble_scene\": 1, \"camera\": []}",
            "t.json: camera: expected an object with \"bookmarks\" or \"start\"");
    refused(CAMERA("{}"), "t.json: camera.bookmarks: expected an array of up to 3 bookmarks");
    refused(CAMERA("[null, null, null, null]"), "t.json: camera.bookmarks: at most 3 bookmarks (got 4)");
    refused(CAMERA("[7]"), "t.json: camera.bookmarks[0]: expected null or an object with position, yaw and pitch");
    refused(CAMERA("[null, {\"yaw\": 0, \"pitch\": 0}]"), "t.json: camera.bookmarks[1]: 'position' is missing");
    refused(CAMERA("[{\"position\": [0, 1, 2], \"pitch\": 0}]"), "t.json: camera.bookmarks[0]: 'yaw' is missing");
    refused(CAMERA("[{\"position\": [0, 1], \"yaw\": 0, \"pitch\": 0}]"),
            "t.json: camera.bookmarks[0].position: expected 3 numbers, got 2");
    refused(CAMERA("[{\"position\": [0, 1, 2], \"yaw\": 0, \"pitch\": 2}]"),
            "t.json: camera.bookmarks[0].pitch: 2 is out of range [-1.5708, 1.5708]");
    refused(CAMERA("[{\"position\": [0, 1, 2], \"yaw\": \"left\", \"pitch\": 0}]"),
            "t.json: camera.bookmarks[0].yaw: expected a number");
#undef CAMERA
    /* an unknown key in a bookmark is warned about, not refused */
    g_log[0] = '\0';
    s = parse("{\"rubble_scene\": 1, \"camera\": {\"bookmarks\": [{\"position\": [0, 1, 2], \"yaw\": 0, \"pitch\": "
              "0, \"fov\": 1}]}}");
    assert_non_null(strstr(g_log, "t.json: camera.bookmarks[0].fov: unknown key, ignored"));
    rb_scene_destroy(s);
}

/* The start camera (`camera.start`): written by a save with one, alone or
 * beside the bookmarks, read back to the bit; null or left out: none; each
 * bad value refused at its key as a bookmark's is. */
static void test_camera_start_saved_and_read(void **state) {
    rb_scene *s = parse("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 0.6, 0]}]}");
    assert_false(s->start.set);
    rb_world_desc base = rb_default_world_desc();
    rb_world *w = rb_test_world(rb_scene_world_desc(s, &base));
    rb_entities *t = rb_entities_create(g_reg, w);
    char err[1024], path[256];
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 1);
    const rb_scene_bookmark start = {.set = true, .position = {1.0f / 3.0f, 4.75f, 9.1f}, .yaw = 0.61f, .pitch = -0.44f};
    const rb_scene_bookmark marks[RB_SCENE_BOOKMARKS] = {{0}, {.set = true, .position = {1, 2, 3}, .yaw = -1.0f}, {0}};
    snprintf(path, sizeof path, "%s/tests/saved-start.json", RB_TEST_BUILD_DIR);
    for (int with_marks = 0; with_marks < 2; with_marks++) {
        const rb_scene_source source = {.world = w, .entities = t, .start = &start, .bookmarks = with_marks ? marks : NULL};
        assert_true(rb_scene_save_source(path, &source, err, sizeof err));
        rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
        if (!again) fail_msg("%s", err);
        assert_true(again->has_camera && again->start.set);
        assert_memory_equal(again->start.position, start.position, sizeof start.position);
        assert_true(again->start.yaw == start.yaw && again->start.pitch == start.pitch);
        assert_int_equal(again->bookmarks[1].set, with_marks);
        if (with_marks) assert_true(again->bookmarks[1].position[2] == 3.0f && again->bookmarks[1].yaw == -1.0f);
        assert_false(again->bookmarks[0].set || again->bookmarks[2].set);
        rb_scene_destroy(again);
    }
    /* a start that is not set is not written */
    const rb_scene_bookmark unset = {0};
    const rb_scene_source none = {.world = w, .entities = t, .start = &unset};
    assert_true(rb_scene_save_source(path, &none, err, sizeof err));
    rb_scene *again = rb_scene_load(path, g_reg, err, sizeof err);
    assert_non_null(again);
    assert_false(again->has_camera || again->start.set);
    rb_scene_destroy(again);
    remove(path);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);

    s = parse("{\"rubble_scene\": 1, \"camera\": {\"start\": null}}");
    assert_true(s->has_camera && !s->start.set);
    rb_scene_destroy(s);
#define START(view) "{\"rubble_scene\": 1, \"camera\": {\"start\": " view "}}"
    refused(START("[1, 2, 3]"), "t.json: camera.start: expected null or an object with position, yaw and pitch");
    refused(START("{\"position\": [0, 1, 2], \"yaw\": 0}"), "t.json: camera.start: 'pitch' is missing");
    refused(START("{\"yaw\": 0, \"pitch\": 0}"), "t.json: camera.start: 'position' is missing");
    refused(START("{\"position\": [0, 1, 2, 3], \"yaw\": 0, \"pitch\": 0}"),
            "t.json: camera.start.position: expected 3 numbers, got 4");
    refused(START("{\"position\": [0, 1, 2], \"yaw\": 0, \"pitch\": -1.6}"),
            "t.json: camera.start.pitch: -1.6 is out of range [-1.5708, 1.5708]");
    refused(START("{\"position\": [0, 1, 2], \"yaw\": true, \"pitch\": 0}"),
            "t.json: camera.start.yaw: expected a number");
#undef START
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_inside_a_plane_is_said),
        cmocka_unit_test(test_minimal_scene),
        cmocka_unit_test(test_bad_input_is_named),
        cmocka_unit_test(test_saved_contacts_are_read_and_checked),
        cmocka_unit_test(test_saved_contacts_the_world_refuses),
        cmocka_unit_test(test_contact_slots_key),
        cmocka_unit_test(test_huge_generators_are_refused_with_the_limit),
        cmocka_unit_test(test_unknown_keys_are_warned_about),
        cmocka_unit_test(test_materials_do_not_depend_on_key_order),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_wall_has_no_overhang),
        cmocka_unit_test(test_generators_stand_on_position),
        cmocka_unit_test(test_generators_turned),
        cmocka_unit_test(test_heap),
        cmocka_unit_test(test_heap_settles),
        cmocka_unit_test(test_formation_and_pile_scenes),
        cmocka_unit_test(test_save_and_reload_continue_bit_for_bit),
        cmocka_unit_test(test_rolling_friction_saved_and_continued),
        cmocka_unit_test(test_no_rolling_friction_no_keys),
        cmocka_unit_test(test_failed_save_keeps_the_old_file),
        cmocka_unit_test(test_camera_bookmarks_saved_and_read),
        cmocka_unit_test(test_camera_start_saved_and_read),
        cmocka_unit_test(test_colors_read_written_and_refused),
        cmocka_unit_test(test_shipped_scenes_build),
        cmocka_unit_test(test_pattern_parts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
