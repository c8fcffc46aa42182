/* Joints and keyframed paths (docs/joints.md), each physical check on the
 * reference and on OpenCL (PoCL here), their digests the same:
 * - a ball on a chain of 6 links swings with the period of the compound
 *   pendulum it makes, within 5%;
 * - a joint breaks at its breaking force within 5%: held at 0.97 of it, it
 *   holds; at 1.03, it breaks;
 * - a kinematic body on a path is on its keys at their times, and on the
 *   path between them (linear and smooth), within 1e-5;
 * - removing a body removes its joints; a sleeping body on a joint wakes
 *   when its partner moves;
 * - the wrecking-ball scene (assets/scenes/wrecking_ball.json) knocks its
 *   wall down;
 * - the scene keys: joints, chains, names and paths read, saved and read
 *   again; every bad value refused with the file and the key. */
#include "rb_test.h"
#include "scenes/entities.h"
#include "scenes/scene.h"

static rb_registry *g_reg;

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry_with_meshes();
    return g_reg && rb_registry_find(g_reg, "cube") >= 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

static rb_world *world_on(rb_backend_kind backend, rb_world_desc desc) {
    desc.backend = backend;
    char err[512];
    rb_world *w = rb_world_create(&desc, err, sizeof err);
    if (!w) fail_msg("cannot create a world: %s", err);
    return w;
}

/* A shape of n particles of radius r in a row along y, spaced 2r, of mass m
 * (solid spheres for the inertia). */
static uint32_t add_rod(rb_world *w, int n, float r, float m) {
    float offsets[3 * 8] = {0};
    double iy = 0.0, ix = 0.0;
    const double pm = m / (double)n;
    for (int k = 0; k < n; k++) {
        const double y = (k - 0.5 * (n - 1)) * 2.0 * r;
        offsets[3 * k + 1] = (float)y;
        ix += pm * (y * y + 0.4 * r * r);
        iy += pm * 0.4 * r * r;
    }
    const rb_shape_data s = {.particle_count = (uint32_t)n,
                             .offsets = offsets,
                             .mass = m,
                             .inertia = {(float)ix, (float)iy, (float)ix},
                             .particle_radius = r};
    const int shape = rb_world_add_shape(w, &s);
    assert_true(shape >= 0);
    return (uint32_t)shape;
}

/* ---- the pendulum ---- */

#define LINKS 6
#define LINK_MASS 20.0f
#define LINK_R 0.1f /* two particles: 0.4 m long */
#define PITCH 0.5f  /* joint to joint: 0.1 m between links */
#define BALL_MASS 400.0f
#define BALL_R 0.3f
#define BALL_ANCHOR 0.35f /* the ball's joint 0.05 m above its surface */
#define THETA0 0.08f      /* rad, the start: the whole chain turned about the pivot */

/* The chain as it starts, straight, turned THETA0 about z at the pivot
 * (0, 10, 0); returns the ball's id. */
static rb_body_id build_pendulum(rb_world *w) {
    const uint32_t link = add_rod(w, 2, LINK_R, LINK_MASS);
    const float ball_inertia = 0.4f * BALL_MASS * BALL_R * BALL_R;
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    const int ball_shape = rb_world_add_shape(w, &(rb_shape_data){.particle_count = 1,
                                                                  .offsets = zero,
                                                                  .mass = BALL_MASS,
                                                                  .inertia = {ball_inertia, ball_inertia, ball_inertia},
                                                                  .particle_radius = BALL_R});
    assert_true(ball_shape >= 0);
    const float s = sinf(THETA0), c = cosf(THETA0);
    const float q[4] = {0.0f, 0.0f, sinf(0.5f * THETA0), cosf(0.5f * THETA0)};
    rb_body_id prev = {0, 0};
    for (int k = 0; k <= LINKS; k++) {
        const bool ball = k == LINKS;
        const float down = ball ? LINKS * PITCH + BALL_ANCHOR : (k + 0.5f) * PITCH; /* from the pivot */
        rb_body_desc d = {.shape = ball ? (uint32_t)ball_shape : link, .position = {down * s, 10.0f - down * c, 0.0f}};
        memcpy(d.orientation, q, sizeof q);
        const rb_body_id id = rb_world_add_body(w, &d);
        assert_true(id.generation != 0);
        rb_joint_desc j = {.a = id, .b = prev, .anchor_a = {0.0f, ball ? BALL_ANCHOR : 0.5f * PITCH, 0.0f}};
        if (k == 0)
            j.anchor_b[1] = 10.0f;
        else
            j.anchor_b[1] = -0.5f * PITCH;
        assert_true(rb_world_add_joint(w, &j) != 0);
        prev = id;
    }
    assert_int_equal(rb_world_joint_count(w), LINKS + 1);
    return prev;
}

/* The period of small swings of the chain taken as rigid (a compound
 * pendulum): 2 pi sqrt(I / (M g d)), I about the pivot, d the centre of
 * mass's distance below it. */
static double compound_period(void) {
    double I = 0.0, Md = 0.0;
    for (int k = 0; k < LINKS; k++) {
        const double d = (k + 0.5) * PITCH;
        const double own = LINK_MASS * (2.0 * LINK_R * LINK_R + 0.4 * LINK_R * LINK_R); /* add_rod's ix */
        I += LINK_MASS * d * d + own, Md += LINK_MASS * d;
    }
    const double d = LINKS * PITCH + BALL_ANCHOR;
    I += BALL_MASS * d * d + 0.4 * BALL_MASS * BALL_R * BALL_R, Md += BALL_MASS * d;
    return 2.0 * M_PI * sqrt(I / (Md * 9.81));
}

/* Swings the pendulum for two periods and returns the measured period:
 * between the ball's first and third crossings of x = 0 (linear between
 * steps); *digest gets the world's at the end. */
static double swing(rb_backend_kind backend, uint64_t *digest, float *stretch) {
    rb_world_desc desc = rb_default_world_desc();
    desc.plane_count = 0;
    desc.sleep_time = 0.0f;
    rb_world *w = world_on(backend, desc);
    const rb_body_id ball = build_pendulum(w);
    const uint32_t every = 5, steps = (uint32_t)(2.3 * compound_period() / desc.dt);
    double crossings[4];
    int found = 0;
    float last_x = 0.0f, longest = 0.0f;
    rb_body_state st;
    for (uint32_t s = 0; s < steps && found < 3; s += every) {
        assert_true(rb_world_step(w, every));
        assert_true(rb_world_get_body_by_id(w, ball, &st));
        const float x = st.position[0];
        const float dy = 10.0f - st.position[1];
        longest = fmaxf(longest, sqrtf(x * x + dy * dy));
        if (s > 0 && (last_x > 0.0f) != (x > 0.0f))
            crossings[found++] = ((double)s + every * (double)last_x / ((double)last_x - x)) * desc.dt;
        last_x = x;
    }
    assert_int_equal(found, 3);
    *digest = rb_world_digest(w);
    *stretch = longest - (LINKS * PITCH + BALL_ANCHOR);
    rb_world_destroy(w);
    return crossings[2] - crossings[0];
}

static void test_chain_swings_with_the_pendulum_period(void **state) {
    (void)state;
    uint64_t ref_digest, cl_digest;
    float ref_stretch, cl_stretch;
    const double expected = compound_period(), point = 2.0 * M_PI * sqrt((LINKS * PITCH + BALL_ANCHOR) / 9.81);
    const double ref = swing(RB_BACKEND_REFERENCE, &ref_digest, &ref_stretch);
    const double cl = swing(RB_BACKEND_OPENCL, &cl_digest, &cl_stretch);
    printf("pendulum: period %.4f s (reference), %.4f s (opencl); compound pendulum %.4f s, point mass %.4f s; "
           "chain stretched %.4f m\n",
           ref, cl, expected, point, ref_stretch);
    assert_near(ref, expected, 0.05 * expected);
    assert_true(ref == cl);
    assert_true(ref_digest == cl_digest);
}

/* ---- breaking ---- */

#define LIMIT 2000.0f

/* A 50 kg ball hanging from the world on a joint of breaking force LIMIT,
 * pulled down, on top of its weight, so that the joint carries `total`
 * (reached over 0.5 s, then held 1 s). Returns whether it broke; *peak the
 * joint's largest force. */
static bool hang(rb_backend_kind backend, float total, float *peak, uint64_t *digest) {
    rb_world_desc desc = rb_default_world_desc();
    desc.plane_count = 0;
    rb_world *w = world_on(backend, desc);
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    const float m = 50.0f, r = 0.2f, i = 0.4f * m * r * r;
    const int shape = rb_world_add_shape(
        w,
        &(rb_shape_data){.particle_count = 1, .offsets = zero, .mass = m, .inertia = {i, i, i}, .particle_radius = r});
    const rb_body_id id = rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)shape, .position = {0, 5, 0}});
    const uint32_t joint = rb_world_add_joint(
        w, &(rb_joint_desc){.a = id, .anchor_a = {0, 0.25f, 0}, .anchor_b = {0, 5.25f, 0}, .breaking_force = LIMIT});
    assert_true(joint != 0);
    const float weight = m * 9.81f, pull = total - weight;
    const uint32_t chunk = 10, ramp = 312, hold = 625;
    bool broke = false;
    for (uint32_t s = 0; s < ramp + hold && !broke; s += chunk) {
        const float f = s < ramp ? pull * (float)s / (float)ramp : pull;
        assert_true(rb_world_add_load(w, id, (const float[3]){0.0f, -f, 0.0f}, zero));
        assert_true(rb_world_step(w, chunk));
        uint32_t taken[2];
        const uint32_t n = rb_world_take_joint_breaks(w, taken, 2);
        if (n) {
            assert_int_equal(n, 1);
            assert_int_equal(taken[0], joint);
            broke = true;
        }
    }
    rb_joint_state js;
    assert_true(rb_world_get_joint(w, 0, &js));
    assert_true(js.broken == broke);
    *peak = js.peak_force;
    if (broke) { /* it stays broken, and lets go: the ball falls */
        assert_true(rb_world_step(w, 100));
        rb_body_state st;
        assert_true(rb_world_get_body_by_id(w, id, &st));
        assert_true(st.velocity[1] < -1.0f);
        assert_int_equal(rb_world_take_joint_breaks(w, (uint32_t[1]){0}, 1), 0);
    }
    *digest = rb_world_digest(w);
    rb_world_destroy(w);
    return broke;
}

static void test_joint_breaks_at_its_force(void **state) {
    (void)state;
    uint64_t below[2], above[2];
    for (int backend = 0; backend < 2; backend++) {
        const rb_backend_kind kind = backend ? RB_BACKEND_OPENCL : RB_BACKEND_REFERENCE;
        float peak_below, peak_above;
        assert_false(hang(kind, 0.97f * LIMIT, &peak_below, &below[backend]));
        assert_true(hang(kind, 1.03f * LIMIT, &peak_above, &above[backend]));
        printf("%s: held at 0.97 x %g N (its peak %.1f N), broke at 1.03 x (peak before the break %.1f N)\n",
               backend ? "opencl" : "reference", LIMIT, peak_below, peak_above);
        assert_near(peak_below, 0.97 * LIMIT, 0.01 * LIMIT); /* it carries what it is given */
        assert_true(peak_above <= LIMIT && peak_above > 0.95f * LIMIT);
    }
    assert_true(below[0] == below[1]);
    assert_true(above[0] == above[1]);
}

/* ---- paths ---- */

static const rb_path_key g_keys[] = {
    {0.0f, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}},
    {0.8f, {2.0f, 1.5f, 0.0f}, {0.0f, 0.70710678f, 0.0f, 0.70710678f}},
    {1.6f, {2.0f, 3.0f, -1.0f}, {0.70710678f, 0.0f, 0.0f, 0.70710678f}},
    {2.4f, {-1.0f, 2.0f, 1.0f}, {0.0f, 0.0f, 0.0f, 1.0f}},
};

/* A kinematic cube on the path: checked against rb_path_pose every 25
 * steps and at each key's time; returns the largest miss (m, and of the
 * quaternion's components). */
static double follow(rb_backend_kind backend, bool smooth, bool loop, uint64_t *digest) {
    rb_world_desc desc = rb_default_world_desc();
    rb_world *w = world_on(backend, desc);
    const uint32_t shape = add_rod(w, 2, 0.2f, 10.0f);
    const rb_body_id id =
        rb_world_add_body(w, &(rb_body_desc){.shape = shape, .position = {0, 1, 0}, .kind = RB_BODY_KINEMATIC});
    const rb_path_desc path = {.keys = g_keys, .key_count = 4, .smooth = smooth, .loop = loop};
    assert_true(rb_world_set_path(w, id, &path));
    /* a dynamic body beside it: paths step one step at a time, the rest as ever */
    rb_world_add_body(w, &(rb_body_desc){.shape = shape, .position = {5, 0.4f, 0}});
    double miss = 0.0;
    const uint32_t every = 25, steps = 2000; /* 3.2 s: past the last key */
    for (uint32_t s = 0; s < steps; s += every) {
        assert_true(rb_world_step(w, every));
        rb_body_state st;
        assert_true(rb_world_get_body_by_id(w, id, &st));
        double pos[3], q[4];
        rb_path_pose(&path, (double)(s + every) * desc.dt, pos, q);
        if (q[0] * st.orientation[0] + q[1] * st.orientation[1] + q[2] * st.orientation[2] + q[3] * st.orientation[3] <
            0.0)
            for (int k = 0; k < 4; k++) q[k] = -q[k];
        for (int k = 0; k < 3; k++) miss = fmax(miss, fabs(pos[k] - st.position[k]));
        for (int k = 0; k < 4; k++) miss = fmax(miss, fabs(q[k] - st.orientation[k]));
        /* the keys' times fall on these steps: 0.8 s is step 500 */
        if ((s + every) % 500 == 0 && (s + every) / 500 < 4 && !loop) {
            const rb_path_key *k = &g_keys[(s + every) / 500];
            for (int c = 0; c < 3; c++) miss = fmax(miss, fabs(k->position[c] - st.position[c]));
        }
    }
    rb_path_desc back;
    assert_true(rb_world_get_path(w, id, &back));
    assert_near(back.time, (double)steps * desc.dt, 1e-9);
    *digest = rb_world_digest(w);
    rb_world_destroy(w);
    return miss;
}

static void test_kinematic_body_follows_its_path(void **state) {
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        const bool smooth = mode >= 1, loop = mode == 2;
        uint64_t ref_digest, cl_digest;
        const double ref = follow(RB_BACKEND_REFERENCE, smooth, loop, &ref_digest);
        const double cl = follow(RB_BACKEND_OPENCL, smooth, loop, &cl_digest);
        printf("path %s%s: largest miss %.3g (reference), %.3g (opencl)\n", smooth ? "smooth" : "linear",
               loop ? ", looped" : "", ref, cl);
        /* a few float roundings of a position of 3 m (2.4e-7 each) */
        assert_true(ref < 1e-5);
        assert_true(cl < 1e-5);
        assert_true(ref_digest == cl_digest);
    }
}

static void test_path_poses(void **state) {
    (void)state;
    const rb_path_desc lin = {.keys = g_keys, .key_count = 4},
                       smooth = {.keys = g_keys, .key_count = 4, .smooth = true};
    double p[3], q[4];
    for (int k = 0; k < 4; k++)
        for (int s = 0; s < 2; s++) {
            rb_path_pose(s ? &smooth : &lin, g_keys[k].time, p, q);
            for (int c = 0; c < 3; c++) assert_near(p[c], g_keys[k].position[c], 1e-6);
            for (int c = 0; c < 4; c++) assert_near(fabs(q[c]), fabs(g_keys[k].orientation[c]), 1e-6);
        }
    rb_path_pose(&lin, 0.4, p, q); /* halfway: the midpoint, half the turn */
    assert_near(p[0], 1.0, 1e-6);
    assert_near(p[1], 1.25, 1e-6);
    assert_near(q[1], sin(M_PI / 8), 1e-6);
    rb_path_pose(&lin, 10.0, p, q); /* held after the last */
    assert_near(p[0], -1.0, 1e-6);
    const rb_path_desc looped = {.keys = g_keys, .key_count = 4, .loop = true};
    rb_path_pose(&looped, 2.4 + 0.4, p, q);
    assert_near(p[0], 1.0, 1e-6);
}

/* ---- the world's bookkeeping ---- */

static void test_joints_go_with_their_bodies(void **state) {
    (void)state;
    rb_world *w = world_on(RB_BACKEND_REFERENCE, rb_default_world_desc());
    const uint32_t shape = add_rod(w, 2, 0.2f, 10.0f);
    rb_body_id id[3];
    for (int k = 0; k < 3; k++) id[k] = rb_world_add_body(w, &(rb_body_desc){.shape = shape, .position = {k, 5, 0}});
    const uint32_t j0 = rb_world_add_joint(w, &(rb_joint_desc){.a = id[0], .b = id[1], .anchor_a = {0.5f, 0, 0}});
    const uint32_t j1 = rb_world_add_joint(w, &(rb_joint_desc){.a = id[1], .b = id[2], .anchor_a = {0.5f, 0, 0}});
    const uint32_t j2 = rb_world_add_joint(w, &(rb_joint_desc){.a = id[2], .anchor_b = {2, 6, 0}});
    assert_true(j0 && j1 && j2 && j0 != j1 && j1 != j2);
    /* refused: the same body twice, a stale id, a negative breaking force */
    assert_int_equal(rb_world_add_joint(w, &(rb_joint_desc){.a = id[0], .b = id[0]}), 0);
    assert_int_equal(rb_world_add_joint(w, &(rb_joint_desc){.a = id[0], .breaking_force = -1.0f}), 0);
    assert_true(rb_world_remove_body(w, id[1]));
    assert_int_equal(rb_world_joint_count(w), 1);
    rb_joint_state js;
    assert_true(rb_world_get_joint(w, 0, &js));
    assert_int_equal(js.id, j2);
    assert_int_equal(rb_world_add_joint(w, &(rb_joint_desc){.a = id[1]}), 0);
    assert_true(rb_world_step(w, 10)); /* the index is built again over the bodies that are left */
    assert_true(rb_world_remove_joint(w, j2));
    assert_false(rb_world_remove_joint(w, j2));
    assert_int_equal(rb_world_joint_count(w), 0);
    /* a path only on a kinematic body */
    const rb_path_desc path = {.keys = g_keys, .key_count = 4};
    assert_false(rb_world_set_path(w, id[0], &path));
    rb_world_destroy(w);
}

/* A body asleep on the ground, joined to a kinematic body that starts to
 * move: the joint's force wakes it, and it follows. */
static void test_moving_partner_wakes_a_sleeper(void **state) {
    (void)state;
    for (int backend = 0; backend < 2; backend++) {
        rb_world *w = world_on(backend ? RB_BACKEND_OPENCL : RB_BACKEND_REFERENCE, rb_default_world_desc());
        const uint32_t shape = add_rod(w, 2, 0.2f, 10.0f);
        const rb_body_id sleeper = rb_world_add_body(
            w,
            &(rb_body_desc){.shape = shape, .position = {0, 0.2f, 0}, .orientation = {0, 0, 0.70710678f, 0.70710678f}});
        const rb_body_id mover =
            rb_world_add_body(w, &(rb_body_desc){.shape = shape, .position = {0, 2, 0}, .kind = RB_BODY_KINEMATIC});
        /* the sleeper's centre held where it lies: no load until the mover moves */
        assert_true(rb_world_add_joint(w, &(rb_joint_desc){.a = sleeper, .b = mover, .anchor_b = {0, -1.8f, 0}}));
        assert_true(rb_world_step(w, 1000));
        rb_body_state st;
        assert_true(rb_world_get_body_by_id(w, sleeper, &st));
        assert_true(st.asleep);
        const rb_path_key keys[2] = {{0.0f, {0, 2, 0}, {0, 0, 0, 1}}, {2.0f, {0, 3, 0}, {0, 0, 0, 1}}};
        assert_true(rb_world_set_path(w, mover, &(rb_path_desc){.keys = keys, .key_count = 2}));
        assert_true(rb_world_step(w, 1000));
        assert_true(rb_world_get_body_by_id(w, sleeper, &st));
        assert_false(st.asleep);
        assert_true(st.position[1] > 0.8f); /* lifted with the mover */
        rb_world_destroy(w);
    }
}

/* ---- scenes ---- */

static rb_scene *parse(const char *text, char *err, size_t size) {
    return rb_scene_parse(text, "test.json", g_reg, err, size);
}

static void refused(const char *text, const char *key, const char *says) {
    char err[512] = "";
    rb_scene *s = parse(text, err, sizeof err);
    if (s) {
        rb_scene_destroy(s);
        fail_msg("accepted: %s", text);
    }
    char want[128];
    snprintf(want, sizeof want, "test.json: %s: ", key);
    if (!strstr(err, want) || !strstr(err, says))
        fail_msg("for %s\nexpected '%s...%s', got: %s", text, want, says, err);
}

#define HEAD                                                                                                           \
    "{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"name\": \"a\", \"position\": [0, 5, 0]}, "             \
    "{\"shape\": \"cube\", \"name\": \"b\", \"position\": [2, 5, 0]}], "

static void test_bad_scenes_are_refused(void **state) {
    (void)state;
    refused(HEAD "\"joints\": [{\"a\": \"a\", \"b\": \"c\", \"anchor_a\": [0, 1, 0]}]}", "joints[0].b",
            "no body is named 'c'");
    refused(HEAD "\"joints\": [{\"a\": \"x\", \"point\": [0, 1, 0]}]}", "joints[0].a", "no body is named 'x'");
    refused(HEAD "\"joints\": [{\"a\": \"a\", \"b\": \"a\", \"point\": [0, 1, 0]}]}", "joints[0].b", "both ends");
    refused(HEAD "\"joints\": [{\"a\": \"a\", \"point\": [0, 6, 0], \"breaking_force\": 0}]}",
            "joints[0].breaking_force", "greater than 0");
    refused(HEAD "\"joints\": [{\"a\": \"a\", \"point\": [0, 6, 0], \"breaking_force\": -5}]}",
            "joints[0].breaking_force", "greater than 0");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"name\": \"a\", \"position\": [0, 5, 0]}, "
            "{\"shape\": \"cube\", \"name\": \"a\", \"position\": [2, 5, 0]}]}",
            "bodies[1].name", "another body is named 'a'");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"position\": [0, 5, 0], "
            "\"path\": {\"keys\": [{\"t\": 0, \"position\": [0, 1, 0]}]}}]}",
            "bodies[0].path", "only a kinematic body follows a path");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"kinematic\": true, \"path\": {\"keys\": "
            "[{\"t\": 1, \"position\": [0, 1, 0]}, {\"t\": 0.5, \"position\": [0, 2, 0]}]}}]}",
            "bodies[0].path.keys[1].t", "not after the key before");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"kinematic\": true, \"path\": {\"keys\": "
            "[{\"t\": 0, \"position\": [0, 1e999, 0]}]}}]}",
            "bodies[0].path.keys[0].position", "not a finite number");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"kinematic\": true, \"path\": {\"keys\": "
            "[{\"t\": 1e999, \"position\": [0, 1, 0]}]}}]}",
            "bodies[0].path.keys[0].t", "finite");
    refused("{\"rubble_scene\": 1, \"bodies\": [{\"shape\": \"cube\", \"kinematic\": true, \"path\": {\"keys\": "
            "[{\"t\": 0, \"position\": [0, 1, 0]}], \"interpolation\": \"cubic\"}}]}",
            "bodies[0].path.interpolation", "\"linear\" or \"smooth\"");
    refused(HEAD
            "\"joints\": [{\"chain\": {\"shape\": \"cube2\", \"links\": 6, \"from\": [0, 8, 0], \"to\": \"nobody\"}}]}",
            "joints[0].chain.to", "no body is named 'nobody'");
}

/* A scene with a chain, a joint, names and a path: read, built, stepped,
 * saved, read back with the same joints and path. */
static void test_scene_joints_save_and_load(void **state) {
    (void)state;
    const char *text =
        "{\"rubble_scene\": 1, \"bodies\": ["
        "{\"shape\": \"cube2\", \"scale\": 0.5, \"name\": \"ball\", \"position\": [0, 2, 0]},"
        "{\"shape\": \"cube2\", \"name\": \"swing\", \"position\": [4, 5, 0]},"
        "{\"shape\": \"cube2\", \"name\": \"lift\", \"kinematic\": true, \"path\": {\"keys\": ["
        "{\"t\": 0, \"position\": [8, 2, 0]}, {\"t\": 1, \"position\": [8, 4, 0], \"orientation\": [0, 0.3826834, 0, "
        "0.9238795]}], \"interpolation\": \"smooth\", \"loop\": true}}],"
        "\"joints\": [{\"chain\": {\"shape\": \"cube2\", \"scale\": 0.25, \"links\": 4, \"from\": [0, 6, 0], \"to\": "
        "\"ball\", \"anchor\": [0, 0.3, 0]}, \"breaking_force\": 1e7},"
        "{\"a\": \"swing\", \"point\": [4, 6, 0]}]}";
    char err[512];
    rb_scene *s = parse(text, err, sizeof err);
    if (!s) fail_msg("%s", err);
    assert_int_equal(s->body_count, 7);
    assert_int_equal(s->joint_count, 6);
    assert_int_equal(s->path_count, 1);
    assert_true(rb_scene_find_body(s, "lift") == 2);
    assert_near(s->bodies[2].desc.position[0], 8.0, 1e-6); /* where its path starts */
    rb_world *w = world_on(RB_BACKEND_REFERENCE, rb_scene_world_desc(s, &(rb_world_desc){0}));
    rb_entities *t = rb_entities_create(g_reg, w);
    assert_int_equal(rb_scene_build(s, t, err, sizeof err), 7);
    assert_int_equal(rb_world_joint_count(w), 6);
    assert_true(rb_world_step(w, 300));
    rb_body_state st;
    assert_true(rb_world_get_body(w, 0, &st));
    /* the block hangs on its chain, a little below where it started (the joints stretch under its weight) */
    assert_true(st.position[1] > 1.8f && st.position[1] < 2.0f);
    assert_near(st.position[0], 0.0, 1e-3);
    const char *path = "test_joints_saved.json";
    assert_true(rb_scene_save(path, w, t, err, sizeof err));
    rb_scene *back = rb_scene_load(path, g_reg, err, sizeof err);
    if (!back) fail_msg("%s", err);
    assert_int_equal(back->joint_count, 6);
    assert_int_equal(back->path_count, 1);
    assert_true(back->paths[0].smooth && back->paths[0].loop);
    assert_near(back->paths[0].time, 300.0 * rb_world_get_desc(w)->dt, 1e-9);
    rb_world *w2 = world_on(RB_BACKEND_REFERENCE, rb_scene_world_desc(back, &(rb_world_desc){0}));
    rb_entities *t2 = rb_entities_create(g_reg, w2);
    assert_int_equal(rb_scene_build(back, t2, err, sizeof err), 7);
    assert_true(rb_world_step(w2, 100));
    assert_true(rb_world_step(w, 100));
    for (uint32_t b = 0; b < 7; b++) { /* they go on alike */
        rb_body_state s1, s2;
        assert_true(rb_world_get_body(w, b, &s1) && rb_world_get_body(w2, b, &s2));
        for (int c = 0; c < 3; c++) assert_near(s1.position[c], s2.position[c], 1e-4);
    }
    if (!getenv("RB_KEEP")) remove(path);
    rb_entities_destroy(t2), rb_world_destroy(w2), rb_scene_destroy(back);
    rb_entities_destroy(t), rb_world_destroy(w), rb_scene_destroy(s);
}

/* The shipped scene: the ball swings into the wall and knocks it down. */
static void test_wrecking_ball_knocks_the_wall_down(void **state) {
    (void)state;
    char err[512];
    rb_scene *s = rb_scene_load(RB_TEST_SOURCE_DIR "/assets/scenes/wrecking_ball.json", g_reg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    uint64_t digests[2];
    uint32_t moved[2];
    for (int backend = 0; backend < 2; backend++) {
        rb_world *w =
            world_on(backend ? RB_BACKEND_OPENCL : RB_BACKEND_REFERENCE, rb_scene_world_desc(s, &(rb_world_desc){0}));
        rb_entities *t = rb_entities_create(g_reg, w);
        assert_int_equal(rb_scene_build(s, t, err, sizeof err), s->body_count);
        const uint32_t n = rb_world_body_count(w);
        float *start = calloc(3 * (size_t)n, sizeof *start);
        for (uint32_t b = 0; b < n; b++) {
            rb_body_state st;
            assert_true(rb_world_get_body(w, b, &st));
            memcpy(&start[3 * b], st.position, sizeof st.position);
        }
        assert_true(rb_world_step(w, 2500)); /* 4 s */
        moved[backend] = 0;
        uint32_t bricks = 0;
        for (uint32_t b = 0; b < n; b++) {
            if (strcmp(s->bodies[b].shape, "brick") != 0) continue;
            rb_body_state st;
            assert_true(rb_world_get_body(w, b, &st));
            const float d[3] = {st.position[0] - start[3 * b], st.position[1] - start[3 * b + 1],
                                st.position[2] - start[3 * b + 2]};
            bricks++;
            moved[backend] += rb_test_len(d) > 0.5f;
        }
        printf("%s: %u of %u bricks moved more than 0.5 m in 4 s\n", backend ? "opencl" : "reference", moved[backend],
               bricks);
        assert_true(moved[backend] >= bricks / 3);
        digests[backend] = rb_world_digest(w);
        free(start);
        rb_entities_destroy(t), rb_world_destroy(w);
    }
    assert_true(digests[0] == digests[1]);
    rb_scene_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_poses),
        cmocka_unit_test(test_joints_go_with_their_bodies),
        cmocka_unit_test(test_bad_scenes_are_refused),
        cmocka_unit_test(test_scene_joints_save_and_load),
        cmocka_unit_test(test_joint_breaks_at_its_force),
        cmocka_unit_test(test_kinematic_body_follows_its_path),
        cmocka_unit_test(test_moving_partner_wakes_a_sleeper),
        cmocka_unit_test(test_chain_swings_with_the_pendulum_period),
        cmocka_unit_test(test_wrecking_ball_knocks_the_wall_down),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
