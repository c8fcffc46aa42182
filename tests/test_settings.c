/* test_settings.c - the settings the panels change (src/app/settings.h),
 * called as the panels call them, on worlds of the reference backend: each
 * setter changes what the world does (a slide, a fall, a bounce, sleeping,
 * the step, the clock's time), and each refusal gives its reason and
 * leaves the world as it was, stepping on as a twin world that was never
 * asked does. No window. */
#include "rb_test.h"

#include "scenes/debris.h"
#include "scenes/entities.h"
#include "sandbox/settings.h"
#include "sandbox/step_clock.h"
#include "sandbox/tools.h"

/* A world of the defaults (reference backend) and its 3x3x3 cube of 1.2 m, 1,728 kg. */
static rb_world *cube_world(uint32_t *shape) {
    rb_world *w = rb_test_world(rb_default_world_desc());
    *shape = rb_test_add_box(w, 3, 3, 3, 0.2f);
    return w;
}

static rb_settings settings_of(rb_world *w) { return (rb_settings){.world = w}; }

static rb_body_state state(rb_world *w, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    return s;
}

/* How far a cube on the ground, sent along x at 5 m/s, slides before it stops. */
static float slide(rb_world *w, uint32_t cube) {
    rb_body_id id = rb_world_add_body(w, &(rb_body_desc){.shape = cube, .position = {0.0f, 0.6f, 0.0f}});
    assert_true(rb_world_step(w, 300)); /* settled on its face */
    const float x0 = state(w, id).position[0];
    assert_true(rb_world_set_velocity(w, id, (float[3]){5.0f, 0.0f, 0.0f}, (float[3]){0.0f, 0.0f, 0.0f}));
    assert_true(rb_world_step(w, 2500)); /* 4 s: stopped long before */
    return state(w, id).position[0] - x0;
}

static void test_friction_changes_a_slide(void **st) {
    uint32_t a_cube, b_cube;
    rb_world *a = cube_world(&a_cube), *b = cube_world(&b_cube);
    char why[512];
    rb_settings s = settings_of(b);
    assert_true(rb_settings_set_friction(&s, 0.2f, why, sizeof why));
    rb_material m;
    assert_true(rb_world_get_material(b, 0, &m));
    assert_true(m.friction == 0.2f);
    const float at_half = slide(a, a_cube), at_fifth = slide(b, b_cube);
    /* v^2 / (2 mu g): 2.55 m at 0.5, 6.37 m at 0.2 */
    fprintf(stderr, "slid %.3f m at mu 0.5, %.3f m at mu 0.2\n", at_half, at_fifth);
    assert_near(at_half, 25.0 / (2.0 * 0.5 * 9.81), 0.25 * 2.55);
    assert_near(at_fifth, 25.0 / (2.0 * 0.2 * 9.81), 0.25 * 6.37);
    assert_true(at_fifth > 2.0f * at_half);
    rb_world_destroy(a), rb_world_destroy(b);
}

/* A ball (one particle of the default 0.2 m, 64 kg, I = 2/5 m r^2) rolling
 * on the ground along x at 2 m/s; its speed sampled every 31 steps
 * (0.0496 s) for 1 s and fitted: the slope, m/s^2. */
static double rolling_slope(rb_world *w, rb_body_id id) {
    static const float x[3] = {1.0f, 0.0f, 0.0f};
    return rb_test_acceleration(w, id, x, 31, 21);
}

/* The rolling friction setter, by its effect: the ball keeps its speed
 * (within 0.02 m/s^2) without rolling friction; after the setter takes
 * 0.1, on the same running world, it slows at 5/7 mu_r g = 0.70 m/s^2
 * (derived in tests/test_rolling.c), within 5%. */
static void test_rolling_friction_setter_slows_a_rolling_ball(void **st) {
    rb_world *w = rb_test_world(rb_default_world_desc());
    const float r = 0.2f, m = 64.0f, I = 0.4f * m * r * r, origin[3] = {0.0f, 0.0f, 0.0f};
    const int ball = rb_world_add_shape(w, &(rb_shape_data){1, origin, m, {I, I, I}, 0.0f});
    assert_true(ball >= 0);
    const rb_body_id id = rb_world_add_body(w, &(rb_body_desc){.shape = (uint32_t)ball,
                                                               .position = {0.0f, r, 0.0f},
                                                               .velocity = {2.0f, 0.0f, 0.0f},
                                                               .angular_velocity = {0.0f, 0.0f, -2.0f / r}});
    assert_true(rb_world_step(w, 125)); /* 0.2 s: settled on the ground */
    const double free_slope = rolling_slope(w, id);
    char why[512];
    rb_settings s = settings_of(w);
    assert_true(rb_settings_set_rolling_friction(&s, 0.1f, why, sizeof why));
    rb_material mat;
    assert_true(rb_world_get_material(w, 0, &mat));
    assert_true(mat.rolling_friction == 0.1f && mat.friction == 0.5f);
    assert_true(rb_world_step(w, 6)); /* the rolling spring yields within 3 steps */
    const double slowed = -rolling_slope(w, id), expect = 5.0 / 7.0 * 0.1 * 9.81;
    fprintf(stderr, "a ball at 2 m/s: slope %.4f m/s^2 free, slows at %.4f m/s^2 at mu_r 0.1 (5/7 mu_r g = %.4f)\n",
            free_slope, slowed, expect);
    assert_near(free_slope, 0.0, 0.02);
    assert_near(slowed, expect, 0.05 * expect);
    rb_world_destroy(w);
}

static void test_gravity_changes_a_fall(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    char why[512];
    rb_settings s = settings_of(w);
    assert_true(rb_settings_set_gravity(&s, (float[3]){0.0f, -2.0f, 0.0f}, why, sizeof why));
    assert_true(rb_world_get_desc(w)->gravity[1] == -2.0f);
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 20.0f, 0.0f);
    assert_true(rb_world_step(w, 625)); /* 1 s */
    /* g t^2 / 2 = 1 m, not 4.9 m */
    assert_near(20.0f - state(w, id).position[1], 1.0, 0.01);
    rb_world_destroy(w);
}

static void test_restitution_changes_a_bounce(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    char why[512];
    rb_settings s = settings_of(w);
    float depth, e;
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 2.0f, 0.0f);
    rb_test_landing(w, id, 0.2f, &depth, &e);
    assert_near(e, 0.5, 0.05);
    assert_true(rb_world_remove_body(w, id));
    assert_true(rb_settings_set_restitution(&s, 0.9f, why, sizeof why));
    id = rb_test_add_body(w, cube, 0.0f, 2.0f, 0.0f);
    rb_test_landing(w, id, 0.2f, &depth, &e);
    assert_near(e, 0.9, 0.05);
    rb_world_destroy(w);
}

/* A contact time the step cannot resolve is refused with the step it
 * needs; after a smaller step it is taken, and bodies land harder-edged
 * (less overlap). */
static void test_contact_time_needs_its_step(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    char why[512];
    rb_settings s = settings_of(w);
    assert_false(rb_settings_set_contact_time(&s, 0.001f, why, sizeof why));
    fprintf(stderr, "%s\n", why);
    assert_non_null(strstr(why, "contact time 1 ms needs a step of at most 0.25 ms; the step is 1.6 ms"));
    assert_true(rb_world_get_material(w, 0, &(rb_material){0}));
    assert_true(rb_settings_set_step(&s, 0.0002f, why, sizeof why));
    assert_true(rb_world_get_desc(w)->dt == 0.0002f);
    assert_true(rb_settings_set_contact_time(&s, 0.001f, why, sizeof why));
    rb_material m;
    assert_true(rb_world_get_material(w, 0, &m));
    assert_true(m.contact_time == 0.001f);
    /* and the step back up is refused now: the new contact time needs the small one */
    assert_false(rb_settings_check_step(&s, 0.0016f, why, sizeof why));
    assert_non_null(strstr(why, "needs a step of at most 0.25 ms"));
    /* the stiffer contact: a 2 m drop lands 8x shallower (overlap ~ t_c) */
    float depth, e;
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 2.0f, 0.0f);
    rb_test_landing(w, id, 0.2f, &depth, &e);
    fprintf(stderr, "depth %.4f m\n", depth);
    assert_true(depth < 0.01f);
    rb_world_destroy(w);
}

static void test_step_changes_live(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    char why[512];
    rb_settings s = settings_of(w);
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 20.0f, 0.0f);
    assert_true(rb_settings_set_step(&s, 0.001f, why, sizeof why));
    assert_true(rb_world_get_desc(w)->dt == 0.001f);
    assert_true(rb_world_step(w, 1000)); /* 1 s at the new step */
    assert_near(20.0f - state(w, id).position[1], 4.905, 0.01);
    rb_world_destroy(w);
}

static void test_sleeping_on_and_off(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    char why[512];
    rb_settings s = settings_of(w);
    rb_body_id id = rb_world_add_body(w, &(rb_body_desc){.shape = cube, .position = {0.0f, 0.6f, 0.0f}});
    assert_true(rb_world_step(w, 1250)); /* 2 s: resting, asleep */
    assert_true(rb_settings_sleeping(&s));
    assert_true(state(w, id).asleep);
    assert_true(rb_settings_set_sleeping(&s, false, why, sizeof why));
    assert_false(rb_settings_sleeping(&s));
    assert_true(rb_world_get_desc(w)->sleep_time == 0.0f);
    assert_true(rb_world_step(w, 1));
    assert_false(state(w, id).asleep);
    assert_true(rb_world_step(w, 1250));
    assert_false(state(w, id).asleep); /* never again while off */
    assert_true(rb_settings_set_sleeping(&s, true, why, sizeof why));
    assert_true(rb_world_step(w, 1250));
    assert_true(state(w, id).asleep);
    rb_world_destroy(w);
}

/* Time scale 0.25 on the fixed clock: a second of 1/60 s frames owes a
 * quarter second of steps, taken whole (none dropped: nothing is owed
 * beyond a step at the end). */
static void test_time_scale_quarter(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    rb_step_clock c;
    rb_step_clock_init(&c, rb_world_get_desc(w)->dt, true);
    char why[512];
    rb_settings s = {.world = w, .clock = &c};
    assert_true(rb_settings_set_time_scale(&s, 0.25, why, sizeof why));
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 20.0f, 0.0f);
    uint64_t steps = 0;
    for (int f = 0; f < 120; f++) { /* 2 s of clock */
        rb_step_clock_begin(&c, 1.0 / 60.0, 0.0);
        for (uint32_t n; (n = rb_step_clock_next(&c, 16, 0.0)) > 0;) {
            assert_true(rb_world_step(w, n));
            rb_step_clock_took(&c, n, 0.0, 0.0);
            steps += n;
        }
        rb_step_clock_end(&c, 1.0 / 60.0);
        assert_true(c.accumulator < c.dt);
        assert_false(c.slowed);
    }
    const double simulated = (double)steps * rb_world_get_desc(w)->dt;
    fprintf(stderr, "%llu steps: %.4f s simulated in 2 s of clock\n", (unsigned long long)steps, simulated);
    assert_near(simulated, 0.5, 0.0016);
    /* 2 or 3 steps a frame, each frame's rate capped at the scale: smoothed, a little under it */
    assert_true(c.sim_rate > 0.2 && c.sim_rate <= 0.25);
    /* the body fell for half a second: 1.226 m */
    assert_near(20.0f - state(w, id).position[1], 9.81 * 0.5 * 0.5 / 2.0, 0.01);
    rb_world_destroy(w);
}

/* ---- refusals ---- */

/* A world and its twin: the first is asked for bad values, the second is
 * not; both step on the same afterwards. */
typedef struct twins {
    rb_world *asked, *left;
    uint32_t cube;
    rb_world_desc desc;
    rb_material material;
} twins;

static twins make_twins(void) {
    twins t;
    uint32_t other;
    t.asked = cube_world(&t.cube);
    t.left = cube_world(&other);
    for (int k = 0; k < 5; k++) {
        rb_test_add_body(t.asked, t.cube, 0.3f * k, 1.0f + 1.5f * k, 0.0f);
        rb_test_add_body(t.left, other, 0.3f * k, 1.0f + 1.5f * k, 0.0f);
    }
    assert_true(rb_world_step(t.asked, 50) && rb_world_step(t.left, 50));
    t.desc = *rb_world_get_desc(t.asked);
    rb_world_get_material(t.asked, 0, &t.material);
    return t;
}

/* Nothing changed, and both run on to the same state. */
static void check_twins(twins *t) {
    assert_memory_equal(rb_world_get_desc(t->asked), &t->desc, sizeof t->desc);
    rb_material m;
    rb_world_get_material(t->asked, 0, &m);
    assert_memory_equal(&m, &t->material, sizeof m);
    assert_true(rb_world_step(t->asked, 200) && rb_world_step(t->left, 200));
    assert_true(rb_world_digest(t->asked) == rb_world_digest(t->left));
    rb_world_destroy(t->asked), rb_world_destroy(t->left);
}

#define REFUSED(call, reason)                                                                                          \
    do {                                                                                                               \
        why[0] = '\0';                                                                                                 \
        assert_false(call);                                                                                            \
        if (!strstr(why, reason)) fail_msg("%s: '%s' does not say '%s'", #call, why, reason);                          \
    } while (0)

static void test_bad_material_is_refused(void **st) {
    twins t = make_twins();
    rb_settings s = settings_of(t.asked);
    char why[512];
    REFUSED(rb_settings_set_friction(&s, -1.0f, why, sizeof why), "friction -1: must be a number >= 0");
    REFUSED(rb_settings_set_friction(&s, NAN, why, sizeof why), "friction nan: must be a number >= 0");
    REFUSED(rb_settings_set_friction(&s, INFINITY, why, sizeof why), "must be a number >= 0");
    REFUSED(rb_settings_set_rolling_friction(&s, -0.1f, why, sizeof why),
            "rolling friction -0.1: must be a number from 0 to 1");
    REFUSED(rb_settings_set_rolling_friction(&s, 1.5f, why, sizeof why),
            "rolling friction 1.5: must be a number from 0 to 1");
    REFUSED(rb_settings_set_rolling_friction(&s, NAN, why, sizeof why), "rolling friction nan: must be a number");
    REFUSED(rb_settings_set_rolling_friction(&s, INFINITY, why, sizeof why), "rolling friction inf: must be a number");
    REFUSED(rb_settings_set_restitution(&s, 0.1f, why, sizeof why), "restitution 0.1: must be from 0.14 to 1");
    REFUSED(rb_settings_set_restitution(&s, 1.5f, why, sizeof why), "must be from 0.14 to 1");
    /* e = 0.2 at t_c 8 ms: its dashpot needs dt < 1.24 ms (README, Limits) */
    REFUSED(rb_settings_set_restitution(&s, 0.2f, why, sizeof why), "restitution 0.2 needs a step of at most 1.24 ms");
    REFUSED(rb_settings_set_contact_time(&s, 0.0f, why, sizeof why), "contact time 0 s: must be above 0 s");
    REFUSED(rb_settings_set_contact_time(&s, -0.008f, why, sizeof why), "must be above 0 s");
    REFUSED(rb_settings_set_contact_time(&s, 0.005f, why, sizeof why),
            "contact time 5 ms needs a step of at most 1.25 ms; the step is 1.6 ms");
    check_twins(&t);
}

static void test_bad_world_settings_are_refused(void **st) {
    twins t = make_twins();
    rb_step_clock c;
    rb_step_clock_init(&c, t.desc.dt, true);
    rb_settings s = {.world = t.asked, .clock = &c};
    char why[512];
    REFUSED(rb_settings_set_step(&s, 0.0f, why, sizeof why), "step 0 s: must be above 0 s and at most 1 s");
    REFUSED(rb_settings_set_step(&s, -0.001f, why, sizeof why), "must be above 0 s");
    REFUSED(rb_settings_set_step(&s, NAN, why, sizeof why), "step nan s");
    REFUSED(rb_settings_set_step(&s, 0.005f, why, sizeof why),
            "step 5 ms is too large: the material (contact time 8 ms, restitution 0.5) needs a step of at most 2 ms");
    REFUSED(rb_settings_set_gravity(&s, (float[3]){0.0f, NAN, 0.0f}, why, sizeof why), "gravity y nan m/s^2");
    REFUSED(rb_settings_set_gravity(&s, (float[3]){5000.0f, -9.81f, 0.0f}, why, sizeof why),
            "gravity x 5000 m/s^2: must be a number from -1000 to 1000");
    REFUSED(rb_settings_set_time_scale(&s, 0.0, why, sizeof why), "time scale 0: must be from 0.05 (slow motion) to 2");
    REFUSED(rb_settings_set_time_scale(&s, 3.0, why, sizeof why), "time scale 3");
    REFUSED(rb_settings_set_time_scale(&s, NAN, why, sizeof why), "time scale nan");
    assert_true(c.scale == 1.0);
    check_twins(&t);
}

/* A step a scene's second material cannot take is refused, naming it. */
static void test_step_checks_every_material(void **st) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    const rb_material second = {.restitution = 0.5f, .friction = 0.5f, .contact_time = 0.0072f};
    assert_true(rb_world_add_material(w, second) == 1);
    rb_settings s = settings_of(w);
    char why[512];
    /* material 0 (8 ms) takes 1.9 ms; the second (7.2 ms) at most 1.8 ms */
    REFUSED(rb_settings_set_step(&s, 0.0019f, why, sizeof why),
            "step 1.9 ms is too large: material 1 of the scene (contact time 7.2 ms, restitution 0.5) needs a step of "
            "at most 1.8 ms");
    assert_true(rb_world_get_desc(w)->dt == 0.0016f);
    assert_true(rb_settings_set_step(&s, 0.0017f, why, sizeof why));
    assert_true(rb_world_get_desc(w)->dt == 0.0017f);
    rb_world_destroy(w);
}

static void test_tools_settings(void **st) {
    rb_throw th = rb_throw_defaults();
    rb_blast bl = rb_blast_defaults();
    float hz = RB_GRAB_HZ;
    rb_settings s = {.throw_params = &th, .blast = &bl, .grab_hz = &hz};
    char why[512];
    assert_true(rb_settings_set_throw(&s, 12.0f, 30.0f, 6.0f, why, sizeof why));
    assert_true(rb_throw_speed_of(&th, 0.0) == 12.0f && rb_throw_speed_of(&th, 2.0) == 30.0f);
    /* the spin a thrown body gets */
    const rb_body_desc d = rb_tool_throw_spun((float[3]){0, 2, 0}, (float[3]){0, 0, -1}, 1.0f, 12.0f, th.spin, 7);
    assert_near(rb_test_len(d.angular_velocity), 6.0, 1e-4);
    REFUSED(rb_settings_set_throw(&s, 0.0f, 30.0f, 6.0f, why, sizeof why), "throw speed 0 m/s: must be above 0");
    REFUSED(rb_settings_set_throw(&s, 20.0f, 10.0f, 6.0f, why, sizeof why),
            "full-charge speed 10 m/s: must be from the tap's 20 m/s");
    REFUSED(rb_settings_set_throw(&s, 20.0f, 500.0f, 6.0f, why, sizeof why), "full-charge speed 500 m/s");
    REFUSED(rb_settings_set_throw(&s, 500.0f, 500.0f, 6.0f, why, sizeof why), "at most 100 m/s");
    REFUSED(rb_settings_set_throw(&s, 20.0f, 30.0f, -1.0f, why, sizeof why), "spin -1 rad/s");
    assert_true(th.speed == 12.0f && th.speed_max == 30.0f && th.spin == 6.0f);
    assert_true(rb_settings_set_blast(&s, 6.0f, 50000.0f, 1.0f, why, sizeof why));
    assert_true(bl.radius == 6.0f && bl.strength == 50000.0f && bl.up == 1.0f);
    REFUSED(rb_settings_set_blast(&s, 0.0f, 50000.0f, 1.0f, why, sizeof why), "blast radius 0 m: must be above 0");
    REFUSED(rb_settings_set_blast(&s, 6.0f, NAN, 1.0f, why, sizeof why), "blast impulse nan N s");
    assert_true(bl.radius == 6.0f);
    assert_true(rb_settings_set_grab_hz(&s, 5.0f, why, sizeof why));
    assert_true(hz == 5.0f);
    REFUSED(rb_settings_set_grab_hz(&s, 20.0f, why, sizeof why), "grab stiffness 20 Hz: must be from 0.5 to 8 Hz");
    REFUSED(rb_settings_set_grab_hz(&s, 0.0f, why, sizeof why), "grab stiffness 0 Hz");
    assert_true(hz == 5.0f);
}

/* The grab's stiffness: a body pulled 1 m toward its target moves farther
 * in 0.1 s on a 6 Hz spring than on a 1 Hz one. */
static float grab_pull(float hz) {
    uint32_t cube;
    rb_world *w = cube_world(&cube);
    rb_world_set_gravity(w, (float[3]){0.0f, 0.0f, 0.0f});
    rb_body_id id = rb_test_add_body(w, cube, 0.0f, 5.0f, 0.0f);
    rb_grab g;
    const rb_pick p = {.hit = true, .body_hit = true, .body = id, .point = {0.0f, 5.0f, 0.6f}, .distance = 5.0f};
    assert_true(rb_grab_begin(&g, w, &p));
    g.hz = hz;
    g.target[0] = 1.0f;
    for (int k = 0; k < 16; k++) { /* 0.1 s in calls of 4 steps */
        rb_grab_apply(&g, w, 4);
        assert_true(rb_world_step(w, 4));
    }
    const float moved = state(w, id).position[0];
    rb_world_destroy(w);
    return moved;
}

static void test_grab_stiffness_pulls_harder(void **st) {
    const float soft = grab_pull(1.0f), stiff = grab_pull(6.0f);
    fprintf(stderr, "moved %.3f m on 1 Hz, %.3f m on 6 Hz\n", soft, stiff);
    assert_true(stiff > 3.0f * soft);
}

/* ---- emitters and fields ---- */

static void test_emitter_and_field_values(void **st) {
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_registry *reg = rb_test_registry();
    rb_entities *ents = rb_entities_create(reg, w);
    char why[512];
    static const rb_debris_desc none = {0};
    rb_debris *d = rb_debris_create(&none, ents, why, sizeof why);
    assert_non_null(d);
    rb_settings s = {.world = w, .debris = d};
    rb_emitter_values v;
    assert_false(rb_settings_get_emitter(&s, 0, &v));
    REFUSED(rb_settings_set_emitter(&s, 0, &v, why, sizeof why), "emitter 1: there is none");
    const rb_emitter e = rb_tool_emitter("cube", 1.04f, (float[3]){0.0f, 0.0f, 0.0f}, 1);
    assert_true(rb_debris_add_emitter(d, &e, why, sizeof why));
    assert_true(rb_settings_get_emitter(&s, 0, &v));
    assert_true(v.rate == 20.0f && fabsf(v.cone - 20.0f) < 1e-3f);
    v.rate = 40.0f, v.lifetime = 2.0f;
    assert_true(rb_settings_set_emitter(&s, 0, &v, why, sizeof why));
    assert_true(rb_debris_get_desc(d)->emitters[0].rate == 40.0f &&
                rb_debris_get_desc(d)->emitters[0].lifetime == 2.0f);
    /* 40 a second for a second */
    assert_true(rb_debris_step(d, 625));
    fprintf(stderr, "spawned %llu in 1 s\n", (unsigned long long)rb_debris_spawned(d));
    assert_true(rb_debris_spawned(d) >= 36 && rb_debris_spawned(d) <= 41);
    rb_emitter_values bad = v;
    bad.rate = -1.0f;
    REFUSED(rb_settings_set_emitter(&s, 0, &bad, why, sizeof why), "emitter 1: rate -1 a second");
    bad = v, bad.cone = 200.0f;
    REFUSED(rb_settings_set_emitter(&s, 0, &bad, why, sizeof why), "cone 200 degrees: must be from 0 to 180");
    bad = v, bad.centre[1] = -3.0f;
    REFUSED(rb_settings_set_emitter(&s, 0, &bad, why, sizeof why), "inside a plane's solid");
    assert_true(rb_debris_get_desc(d)->emitters[0].rate == 40.0f);

    const rb_field wind = rb_tool_wind((float[3]){0.0f, 0.0f, -1.0f});
    assert_true(rb_debris_add_field(d, &wind));
    rb_field_values f;
    assert_true(rb_settings_get_field(&s, 0, &f));
    assert_true(f.kind == RB_FIELD_WIND && fabsf(f.speed - 15.0f) < 1e-4f);
    f.speed = 30.0f, f.duration = 10.0f;
    assert_true(rb_settings_set_field(&s, 0, &f, why, sizeof why));
    const rb_field *now = &rb_debris_get_desc(d)->fields[0];
    assert_near(now->velocity[2], -30.0, 1e-4);
    assert_true(now->duration == 10.0f);
    const rb_field vortex = rb_tool_vortex((float[3]){0.0f, 0.0f, 0.0f});
    assert_true(rb_debris_add_field(d, &vortex));
    assert_true(rb_settings_get_field(&s, 1, &f));
    f.radius = 0.0f;
    REFUSED(rb_settings_set_field(&s, 1, &f, why, sizeof why), "field 2: radius 0 m: must be above 0");
    assert_true(rb_debris_get_desc(d)->fields[1].radius == 6.0f);
    /* with a debris layer the step is not changed here: it keeps time in steps */
    REFUSED(rb_settings_set_step(&s, 0.001f, why, sizeof why), "the debris layer keeps time in steps");
    rb_debris_destroy(d);
    rb_entities_destroy(ents);
    rb_registry_destroy(reg);
    rb_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_friction_changes_a_slide),
        cmocka_unit_test(test_rolling_friction_setter_slows_a_rolling_ball),
        cmocka_unit_test(test_gravity_changes_a_fall),
        cmocka_unit_test(test_restitution_changes_a_bounce),
        cmocka_unit_test(test_contact_time_needs_its_step),
        cmocka_unit_test(test_step_changes_live),
        cmocka_unit_test(test_sleeping_on_and_off),
        cmocka_unit_test(test_time_scale_quarter),
        cmocka_unit_test(test_bad_material_is_refused),
        cmocka_unit_test(test_bad_world_settings_are_refused),
        cmocka_unit_test(test_step_checks_every_material),
        cmocka_unit_test(test_tools_settings),
        cmocka_unit_test(test_grab_stiffness_pulls_harder),
        cmocka_unit_test(test_emitter_and_field_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
