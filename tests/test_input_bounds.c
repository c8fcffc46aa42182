/* Scene files read within bounds (src/base/read_file.c, src/scenes/scene_read.c,
 * docs/scene-format.md "Limits"): a FIFO and a device refused by type
 * without blocking, a file over the cap refused with the cap named, an
 * object of a hundred thousand keys checked in linear-logarithmic time, a
 * text of too many values refused before it is parsed; and values the
 * simulation cannot carry refused at their key (gravity, a body's velocity
 * and angular velocity, names holding a NUL), quaternions far from unit
 * length entering the world normalised, and a cube fired into the ground at
 * the top speed the reader allows coming back no faster (on the backend
 * RUBBLE_TEST_BACKEND names: both run in CTest). */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/read_file.h"
#include "rb_test.h"
#include "scenes/scene.h"
#include "scenes/stage.h"

static rb_registry *g_reg;
static char g_dir[512];

static void quiet(rb_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    rb_set_log_fn(quiet, NULL); /* a hundred thousand unknown keys are warned about */
    snprintf(g_dir, sizeof g_dir, "input-bounds-%s-%ld", rb_test_backend_name(), (long)getpid());
    mkdir(g_dir, 0700);
    /* a FIFO left unopened, or an open that blocks, ends the test, not the suite */
    alarm(120);
    return g_reg && rb_registry_find(g_reg, "cube") >= 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_set_log_fn(NULL, NULL);
    rb_registry_destroy(g_reg);
    rmdir(g_dir);
    return 0;
}

/* Refused by rb_scene_load, with every one of says (NULL-ended) in the message. */
static void load_refused(const char *path, const char *const *says) {
    char err[1024] = "";
    rb_scene *s = rb_scene_load(path, g_reg, err, sizeof err);
    if (s) {
        rb_scene_destroy(s);
        fail_msg("%s was accepted", path);
    }
    for (; *says; says++)
        if (!strstr(err, *says)) fail_msg("says '%s', should say '%s'", err, *says);
}

static void refused(const char *text, const char *key, const char *says) {
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (s) {
        rb_scene_destroy(s);
        fail_msg("accepted, but should be refused at %s: %.300s", key, text);
    }
    if (!strstr(err, key) || !strstr(err, says)) fail_msg("says '%s', should name %s and say '%s'", err, key, says);
}

static rb_scene *accepted(const char *text) {
    char err[1024] = "";
    rb_scene *s = rb_scene_parse(text, "t.json", g_reg, err, sizeof err);
    if (!s) fail_msg("refused: %s", err);
    return s;
}

/* ---- files ---- */

static void test_fifo_refused_at_once(void **state) {
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/scene.fifo", g_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    const double start = rb_seconds();
    load_refused(path, (const char *const[]){path, "FIFO", NULL});
    assert_true(rb_seconds() - start < 1.0);
    unlink(path);
}

static void test_device_refused(void **state) {
    (void)state;
    const double start = rb_seconds();
    load_refused("/dev/zero", (const char *const[]){"/dev/zero", "character device", NULL});
    load_refused(".", (const char *const[]){"folder", NULL});
    assert_true(rb_seconds() - start < 1.0);
}

/* A file one byte over the cap (sparse: no disk spent) is refused by its
 * size, the cap in the message, before anything is read. */
static void test_oversized_refused_with_cap(void **state) {
    (void)state;
    char path[600], cap[64];
    snprintf(path, sizeof path, "%s/big.json", g_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)RB_SCENE_FILE_MAX_BYTES + 1), 0);
    close(fd);
    snprintf(cap, sizeof cap, "at most %zu MiB", RB_SCENE_FILE_MAX_BYTES >> 20);
    const double start = rb_seconds();
    load_refused(path, (const char *const[]){path, cap, NULL});
    assert_true(rb_seconds() - start < 1.0);
    /* the same file at the cap is read (and refused as text, for its NUL bytes) */
    fd = open(path, O_WRONLY);
    assert_int_equal(ftruncate(fd, 16), 0);
    close(fd);
    load_refused(path, (const char *const[]){"NUL byte", NULL});
    unlink(path);
}

/* An object of a hundred thousand keys, one given twice: refused within a couple of seconds. */
static void test_many_keys_checked_quickly(void **state) {
    (void)state;
    const int n = 100000;
    char *text = malloc((size_t)n * 16 + 256), *at = text;
    at += sprintf(at, "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 1, 0]");
    for (int i = 0; i < n; i++) at += sprintf(at, ", \"k%d\": 0", i);
    at += sprintf(at, ", \"k%d\": 1}]}", n / 2);
    const double start = rb_seconds();
    refused(text, "bodies[0].k50000", "given twice");
    const double took = rb_seconds() - start;
    free(text);
    if (took > 2.0) fail_msg("%.1f s to refuse an object of %d keys", took, n);
}

/* A text of more values than a scene may hold is refused before it is
 * parsed (a cJSON node a value), with the limit named. */
static void test_too_many_values_refused(void **state) {
    (void)state;
    const size_t n = (size_t)RB_SCENE_MAX_VALUES + 1;
    char *text = malloc(2 * n + 64), *at = text;
    at += sprintf(at, "{\"rubble_scene\": 1, \"x\": [0");
    for (size_t i = 1; i < n; i++) *at++ = ',', *at++ = '0';
    strcpy(at, "]}");
    char limit[64];
    snprintf(limit, sizeof limit, "at most %u", RB_SCENE_MAX_VALUES);
    const double start = rb_seconds();
    refused(text, "t.json", limit);
    assert_true(rb_seconds() - start < 2.0);
    free(text);
}

/* Past the first million values, a text denser than one value per 4 bytes
 * (reading takes about 80 bytes a value) is refused before it is parsed;
 * a million are read. */
static void test_dense_values_refused(void **state) {
    (void)state;
    const size_t n = 2 * (size_t)RB_SCENE_FREE_VALUES;
    char *text = malloc(2 * n + 64), *at = text;
    at += sprintf(at, "{\"rubble_scene\": 1, \"x\": [0");
    for (size_t i = 1; i < n; i++) *at++ = ',', *at++ = '0';
    strcpy(at, "]}");
    refused(text, "t.json", "one value per 4 bytes");
    /* the first million are free of the rule */
    at = text + sprintf(text, "{\"rubble_scene\": 1, \"x\": [0");
    for (size_t i = 1; i < RB_SCENE_FREE_VALUES - 8; i++) *at++ = ',', *at++ = '0';
    strcpy(at, "]}");
    rb_scene_destroy(accepted(text));
    free(text);
}

/* ---- values ---- */

static char *body_scene(char *out, size_t size, const char *world, const char *body) {
    snprintf(out, size, "{\"rubble_scene\": 1, %s%s\"bodies\": [{\"shape\": \"cube\", \"position\": [0, 3, 0], %s}]}",
             world, world[0] ? ", " : "", body);
    return out;
}

static void test_gravity_range(void **state) {
    (void)state;
    char text[1024];
    refused(body_scene(text, sizeof text, "\"world\": {\"gravity\": [0, -1e25, 0]}", "\"static\": false"),
            "world.gravity", "at most 1000");
    refused(body_scene(text, sizeof text, "\"world\": {\"gravity\": [0, -1e15, 0]}", "\"static\": false"),
            "world.gravity", "at most 1000");
    /* the size counts, not each component */
    refused(body_scene(text, sizeof text, "\"world\": {\"gravity\": [600, -600, 600]}", "\"static\": false"),
            "world.gravity", "out of range");
    rb_scene_destroy(
        accepted(body_scene(text, sizeof text, "\"world\": {\"gravity\": [0, -1000, 0]}", "\"static\": false")));
}

/* The top speed the reader takes for a cube in a world of step dt, found
 * by bisection on what it accepts (key: "velocity" or "angular_velocity"). */
static double top_speed(const char *key, double dt) {
    double lo = 1.0, hi = 1e38; /* geometric bisection: the bound is somewhere in 38 decades */
    char text[1024], body[256], world[128];
    snprintf(world, sizeof world, "\"world\": {\"dt\": %.9g}", dt);
    for (int i = 0; i < 200 && hi > lo * (1.0 + 1e-7); i++) {
        const double mid = sqrt(lo * hi);
        snprintf(body, sizeof body, "\"%s\": [0, %.9g, 0]", key, -mid);
        char err[1024];
        rb_scene *s = rb_scene_parse(body_scene(text, sizeof text, world, body), "t.json", g_reg, err, sizeof err);
        if (s)
            lo = mid;
        else
            hi = mid;
        rb_scene_destroy(s);
    }
    return lo;
}

static void test_speed_range(void **state) {
    (void)state;
    char text[1024];
    refused(body_scene(text, sizeof text, "", "\"velocity\": [3e38, 0, 0]"), "bodies[0].velocity", "at most");
    refused(body_scene(text, sizeof text, "", "\"velocity\": [0, -1e6, 0]"), "bodies[0].velocity", "at most");
    refused(body_scene(text, sizeof text, "", "\"angular_velocity\": [0, 1e30, 0]"), "bodies[0].angular_velocity",
            "at most");
    /* what a scene's debris effects send bodies at, too (docs/debris.md) */
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}], \"speed\": 1e6}]}",
            "emitters[0].speed", "at most");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\"}], \"speed\": 100, "
            "\"speed_spread\": 100}]}",
            "emitters[0].speed_spread", "at most");
    refused("{\"rubble_scene\": 1, \"emitters\": [{\"rate\": 1, \"shapes\": [{\"shape\": \"cube\", \"scale\": 0.1}], "
            "\"spin\": 1e4}]}",
            "emitters[0].spin", "at most");
    refused("{\"rubble_scene\": 1, \"debris\": {\"impact\": {\"shape\": \"cube\", \"threshold\": 1, \"speed\": 1e6}}}",
            "debris.impact.speed", "at most");
    /* the bound is the particle's radius a step: a step half as long carries twice the speed */
    const rb_shape *cube = rb_registry_get(g_reg, (uint32_t)rb_registry_find(g_reg, "cube"));
    const double dt = rb_default_world_desc().dt;
    const double v1 = top_speed("velocity", dt), v2 = top_speed("velocity", dt / 2);
    assert_true(v1 > 10.0); /* a shipped scene's ball at 48 m/s, a thrown cube at 30, stay readable */
    assert_float_equal(v1 * dt, cube->particle_radius, 1e-3 * cube->particle_radius);
    assert_float_equal(v2, 2.0 * v1, 1e-3 * v1);
    /* a saved state (what rubble writes: here its sleep_timer) gets a hundred
     * times the bound: a world the simulation ran faster than a new body may
     * start loads again as it was saved */
    char body[128];
    snprintf(body, sizeof body, "\"velocity\": [0, %.9g, 0], \"sleep_timer\": 0", -2.0 * v1);
    rb_scene_destroy(accepted(body_scene(text, sizeof text, "", body)));
    snprintf(body, sizeof body, "\"velocity\": [0, %.9g, 0], \"sleep_timer\": 0", -101.0 * v1);
    refused(body_scene(text, sizeof text, "", body), "bodies[0].velocity", "a saved state, 100 times that");
    const double w1 = top_speed("angular_velocity", dt);
    assert_float_equal(w1 * cube->bounding_radius * dt, cube->particle_radius, 1e-3 * cube->particle_radius);
}

/* Far from unit length either way, a quaternion enters the world
 * normalised: not [0, 0, 0, 0] (overflow) nor left tiny (underflow). */
static void test_extreme_quaternions_normalised(void **state) {
    (void)state;
    static const char *const qs[] = {"[1e30, 0, 0, 1e30]", "[-3e38, 0, 0, 3e38]", "[1e-30, 0, 0, 1e-30]",
                                     "[1e-40, 0, 0, 1e-40]"};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        char text[1024], body[128];
        snprintf(body, sizeof body, "\"orientation\": %s", qs[i]);
        rb_scene *scene = accepted(body_scene(text, sizeof text, "", body));
        rb_world_desc base = rb_default_world_desc();
        base.backend = rb_test_backend();
        const rb_world_desc d = rb_scene_world_desc(scene, &base);
        char err[1024];
        rb_stage *stage = rb_stage_create(g_reg, &d, err, sizeof err);
        if (!stage) fail_msg("%s", err);
        rb_stage_how how = {.world = d};
        if (!rb_stage_install(stage, scene, &how, NULL, err, sizeof err)) fail_msg("%s", err);
        rb_body_state b;
        assert_true(rb_world_get_body(rb_stage_world(stage), 0, &b));
        const float *q = b.orientation;
        const double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        if (fabs(n - 1.0) > 1e-5) fail_msg("%s entered as [%g, %g, %g, %g]", qs[i], q[0], q[1], q[2], q[3]);
        assert_float_equal(fabsf(q[0]), (float)sqrt(0.5), 1e-6);
        assert_float_equal(q[0] * q[3] / fabsf(q[0] * q[3]), i == 1 ? -1.0f : 1.0f, 0.0f);
        rb_stage_destroy(stage);
    }
}

/* A NUL escaped in a name is refused at its key, not cut short there into
 * another name (or a shape the file did not name). */
static void test_nul_in_names_refused(void **state) {
    (void)state;
    char text[1024];
    refused(body_scene(text, sizeof text, "", "\"name\": \"a\\u0000b\""), "bodies[0].name", "control character");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\\u0000anything\", \"position\": [0, 1, 0]}]}",
            "bodies[0].shape", "control character");
    refused("{\"rubble_scene\": 1, \"materials\": {\"rock\\u0000x\": {\"friction\": 0.5}}}", "materials.rock",
            "control character");
    /* an escaped backslash before u0000 is no NUL: the name is the text "a\u0000" */
    rb_scene *s = accepted(body_scene(text, sizeof text, "", "\"name\": \"a\\\\u0000\""));
    assert_string_equal(s->bodies[0].name, "a\\u0000");
    rb_scene_destroy(s);
}

/* ---- physics at the bound ---- */

/* Kinetic energy of body 0, J. */
static double energy(rb_world *w) {
    rb_body_state b;
    assert_true(rb_world_get_body(w, 0, &b));
    const float *v = b.velocity, *o = b.angular_velocity, *l = b.angular_momentum;
    return 0.5 * b.mass * ((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]) +
           0.5 * ((double)o[0] * l[0] + (double)o[1] * l[1] + (double)o[2] * l[2]);
}

/* A cube fired straight down at the ground at the top speed the reader
 * allows, on a face, an edge and a corner, without gravity and with no loss
 * at the contact (restitution 1), leaves it with no more energy than it
 * came with. */
static void test_top_speed_into_ground_gains_nothing(void **state) {
    (void)state;
    const double dt = rb_default_world_desc().dt, v = top_speed("velocity", dt);
    static const char *const turns[] = {"[0, 0, 0, 1]", "[0.3826834, 0, 0, 0.9238795]",
                                        "[0.3250576, 0.1346438, 0.3250576, 0.8774734]"};
    for (size_t i = 0; i < sizeof turns / sizeof *turns; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"rubble_scene\": 1, \"world\": {\"gravity\": [0, 0, 0], \"sleep\": false}, \"materials\": "
                 "{\"default\": {\"restitution\": 1}}, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, %.9g, 0], "
                 "\"orientation\": %s, \"velocity\": [0, %.9g, 0]}]}",
                 1.2 + 5.0 * v * dt, turns[i], -v);
        rb_scene *scene = accepted(text);
        rb_world_desc base = rb_default_world_desc();
        base.backend = rb_test_backend();
        const rb_world_desc d = rb_scene_world_desc(scene, &base);
        char err[1024];
        rb_stage *stage = rb_stage_create(g_reg, &d, err, sizeof err);
        if (!stage) fail_msg("%s", err);
        rb_stage_how how = {.world = d};
        if (!rb_stage_install(stage, scene, &how, NULL, err, sizeof err)) fail_msg("%s", err);
        rb_world *w = rb_stage_world(stage);
        const double before = energy(w);
        /* down, into the ground and out: 0.2 s is forty contact times */
        assert_true(rb_stage_step(stage, (uint32_t)(0.2 / dt)));
        rb_body_state b;
        assert_true(rb_world_get_body(w, 0, &b));
        const double after = energy(w);
        if (!(b.velocity[1] > 0.0f) || !(after <= before * 1.001))
            fail_msg("turn %s at %.1f m/s: left at %g m/s up with %.4g of its energy", turns[i], v, b.velocity[1],
                     after / before);
        rb_stage_destroy(stage);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_refused_at_once),
        cmocka_unit_test(test_device_refused),
        cmocka_unit_test(test_oversized_refused_with_cap),
        cmocka_unit_test(test_many_keys_checked_quickly),
        cmocka_unit_test(test_too_many_values_refused),
        cmocka_unit_test(test_dense_values_refused),
        cmocka_unit_test(test_gravity_range),
        cmocka_unit_test(test_speed_range),
        cmocka_unit_test(test_extreme_quaternions_normalised),
        cmocka_unit_test(test_nul_in_names_refused),
        cmocka_unit_test(test_top_speed_into_ground_gains_nothing),
    };
    const char *only = getenv("RUBBLE_TEST_ONLY"); /* one test by name (a glob) */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, setup, teardown);
}
