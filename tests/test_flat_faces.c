/* Bodies that behave like their shapes: a lattice body's flat faces collide,
 * slide and bounce as flat faces, not as the bumpy rows of spheres its
 * particles are. Each case is measured by a function that returns its
 * figures; every figure is printed (print_message) before anything is
 * asserted, passing or not, so one run reads them all off
 * (scripts/flat-faces runs both backends).
 *
 * 1. restitution body on body: a cube, then a cube2, dropped from rest face
 *    down from 1 m and 5 m onto a static cube's top face, centred, r off
 *    along x, and r off along x and z (a cube's lattice then aligned, half
 *    a spacing off, in the pockets; a cube2's in the pockets, aligned along
 *    x only, aligned): e within 0.1 of the material's;
 * 2. head-on: two cubes meet face to face at 2 m/s each with no gravity,
 *    aligned and offset: they lose 1 - e^2 of their kinetic energy
 *    (each collision of 1 and 2 at 4 phases of the step: PHASES);
 * 3. sliding on the ground: a cube and a cube2 thrown along it at 5 m/s,
 *    mu 0.5, 0.7, 0.8: no tipping, and they stop at v^2 / (2 mu g);
 * 4. a 30 degree plane, mu 0.5: a cube and a cube2 slide at
 *    g (sin 30 - mu cos 30) without tumbling;
 * 5. a body ramp: a static block of 10 x 10 x 10 particles tilted 30
 *    degrees; a cube on its upper face, aligned with its lattice, a quarter
 *    and half a spacing off, slides at the plane's acceleration; at 20
 *    degrees it holds.
 *
 * The world's defaults (rb_default_world_desc: r 0.2 m, e 0.5, mu 0.5, t_c
 * 8 ms, dt 1.6 ms) with sleeping off; shapes from the real plugins: cube
 * (3 x 3 x 3 particles, spacing 2r), cube2 (2 x 2 x 2) and block10, the
 * cube plugin's own source built with 10 particles a side (tests/flat_faces.cmake).
 * Runs on the backend RUBBLE_TEST_BACKEND names (tests/rb_test.h). */
#include "rb_test.h"

static const float g = 9.81f, r = 0.2f;
static const float deg = (float)M_PI / 180.0f;

/* The defaults with sleeping off and no planes (each case adds its own). */
static rb_world_desc flat_desc(float mu) {
    rb_world_desc d = rb_default_world_desc();
    d.sleep_time = 0.0f;
    d.plane_count = 0;
    d.material.friction = mu;
    return d;
}

/* The cube and cube2 plugins of the build, and block10 from its own folder
 * (kept out of the plugin folder so the sandbox's shapes do not get it). */
static rb_registry *registry(void) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = r});
    const char *const plugins[3] = {RB_CUBE_PLUGIN, RB_CUBE2_PLUGIN, RB_BLOCK_PLUGIN};
    for (int k = 0; k < 3; k++)
        if (rb_registry_load_plugin(reg, plugins[k]) != RB_LOAD_OK) fail_msg("cannot load %s", plugins[k]);
    return reg;
}

static uint32_t steps_of(const rb_world *w, float seconds) {
    return (uint32_t)lroundf(seconds / rb_world_get_desc(w)->dt);
}

static rb_body_state state_of(rb_world *w, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    return s;
}

/* Half the side of a cube shape of n particles a side, faces included: n r. */
static float half_side(const char *shape) { return strcmp(shape, "cube2") == 0 ? 2 * r : 3 * r; }

/* The angle (degrees) between the body's axis `axis` (its frame) turned by
 * q and the world direction dir. */
static float axis_angle(const float q[4], const float axis[3], const float dir[3]) {
    float a[3];
    rb_quat_rotate(q, axis, a);
    return acosf(fmaxf(-1.0f, fminf(1.0f, rb_v3_dot(a, dir) / rb_test_len(a)))) / deg;
}

/* ---- a contact from start to end, read off the bodies' momenta ---- */

/* A body in free flight changes its velocity by exactly g dt a step and
 * keeps its angular momentum; a step that does otherwise had a contact in
 * it. This is blind to the contact law (where contacts begin and end
 * differs between spheres and cells), so it measures any law alike. The
 * tolerances sit far above float rounding (velocities of a few m/s round
 * at 1e-6 m/s; the cubes' angular momenta of up to 1e3 N m s at 1e-4) and
 * far below one step of any contact's impulse (a contact's force reaches
 * the body's weight within a step or two: g dt = 0.016 m/s). */
#define QUIET_V 1e-4f /* m/s a step */
#define QUIET_L 0.05f /* N m s a step */
/* Steps of free flight that end a contact: 5 steps (8 ms, the contact
 * time) with no force, so a contact that lets go for a step and takes hold
 * again is one contact. */
#define QUIET_STEPS 5

typedef struct contact_watch {
    rb_body_state before[2]; /* the last states before the first step with a contact */
    rb_body_state after[2];  /* the first states after the last step with a contact */
    int contact_steps;       /* steps from the first with a contact to the last */
} contact_watch;

static bool moved_freely(const rb_world *w, const rb_body_state *a, const rb_body_state *b) {
    const rb_world_desc *d = rb_world_get_desc(w);
    for (int k = 0; k < 3; k++) {
        if (fabsf(b->velocity[k] - a->velocity[k] - d->gravity[k] * d->dt) > QUIET_V) return false;
        if (fabsf(b->angular_momentum[k] - a->angular_momentum[k]) > QUIET_L) return false;
    }
    return true;
}

/* Steps until `count` bodies (1 or 2) have met something and moved freely
 * again for QUIET_STEPS steps, at most `seconds`: fails if no contact began
 * or it did not end. */
static contact_watch watch_contact(rb_world *w, const rb_body_id *ids, int count, float seconds) {
    contact_watch c = {.contact_steps = 0};
    rb_body_state now[2], next[2];
    for (int i = 0; i < count; i++) now[i] = state_of(w, ids[i]);
    int phase = 0, quiet = 0, first_contact = 0, last_contact = 0; /* phase 0: before, 1: in contact */
    const int limit = (int)steps_of(w, seconds);
    for (int step = 0; step < limit; step++) {
        assert_true(rb_world_step(w, 1));
        bool free = true;
        for (int i = 0; i < count; i++) {
            next[i] = state_of(w, ids[i]);
            free = free && moved_freely(w, &now[i], &next[i]);
        }
        if (!free) {
            if (phase == 0) {
                phase = 1, first_contact = step;
                for (int i = 0; i < count; i++) c.before[i] = now[i];
            }
            quiet = 0, last_contact = step;
        } else if (phase == 1) {
            if (quiet == 0)
                for (int i = 0; i < count; i++) c.after[i] = now[i];
            if (++quiet == QUIET_STEPS) {
                c.contact_steps = last_contact + 1 - first_contact;
                return c;
            }
        }
        for (int i = 0; i < count; i++) now[i] = next[i];
    }
    fail_msg("%s: no contact began and ended within %.1f s", phase == 0 ? "no contact" : "a contact went on",
             (double)seconds);
    return c;
}

/* A contact's outcome depends on where its start falls between two steps:
 * the same collision begun a fraction of a step later rebounds differently
 * (today by up to 0.07 in e, 10 points of energy head on). So each
 * collision is run PHASES times, started k / PHASES of a step's travel
 * farther apart (k = 0 .. PHASES - 1), and every phase must pass; phase 0
 * is the plain start, whose figures README.md (*Flat faces*) quotes. */
#define PHASES 4

typedef struct spread {
    float at[PHASES]; /* each phase's figure */
    float low, mean, high;
} spread;

static void spread_sum(spread *s) {
    s->low = s->high = s->mean = s->at[0];
    for (int k = 1; k < PHASES; k++) {
        s->low = fminf(s->low, s->at[k]), s->high = fmaxf(s->high, s->at[k]);
        s->mean += s->at[k];
    }
    s->mean /= PHASES;
}

/* Every phase within tol of expect. */
static void assert_spread(const spread *s, float expect, float tol) {
    for (int k = 0; k < PHASES; k++) assert_near(s->at[k], expect, tol);
}

/* ---- 1. restitution, body on body ---- */

/* How the dropped body stands over the static cube: its centre moved from
 * the static cube's vertical by nothing, r along x, or r along x and z. A
 * cube's columns (at its centre and +-2r) then stand over the static
 * cube's (at 0 and +-2r), half a spacing off along x, or in its pockets; a
 * cube2's (at +-r about its centre) in the pockets (the four about the
 * static cube's middle column), over its columns along x and in its
 * pockets along z, or over its columns. */
static const char *const offset_names[3] = {"centred", "r along x", "r along x and z"};
static const char *const lattice_names[2][3] = {{"aligned", "half a spacing off", "in the pockets"},
                                                {"in the pockets", "aligned along x only", "aligned"}};

/* A static cube with its centre at the origin (no planes); `shape`
 * dropped from rest face down onto its top face from `height` (the gap
 * between the faces, m) raised by `phase` steps of the impact's travel,
 * placed by `offset` (offset_names). e: the dropped body's centre's
 * vertical speed when the contact ended over its speed when it began
 * (watch_contact). */
static float drop_e(const char *shape, float height, int offset, float mu, float phase) {
    rb_world *w = rb_test_world(flat_desc(mu));
    rb_registry *reg = registry();
    const uint32_t base = rb_test_add_shape(w, reg, "cube"), dropped = rb_test_add_shape(w, reg, shape);
    rb_body_desc sd = {.shape = base, .kind = RB_BODY_STATIC};
    assert_int_not_equal(rb_world_add_body(w, &sd).generation, 0);
    const float gap = height + phase * sqrtf(2.0f * g * height) * rb_world_get_desc(w)->dt;
    rb_body_desc dd = {.shape = dropped,
                       .position = {offset >= 1 ? r : 0.0f, 3 * r + half_side(shape) + gap, offset == 2 ? r : 0.0f}};
    const rb_body_id id = rb_world_add_body(w, &dd);
    assert_int_not_equal(id.generation, 0);
    const contact_watch c = watch_contact(w, &id, 1, 1.5f + 0.5f * height);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    return c.after[0].velocity[1] / -c.before[0].velocity[1];
}

static spread drop_spread(const char *shape, float height, int offset, float mu) {
    spread s;
    for (int k = 0; k < PHASES; k++) s.at[k] = drop_e(shape, height, offset, mu, (float)k / PHASES);
    spread_sum(&s);
    return s;
}

/* e within 0.1 of the material's (0.5) for the 12 drops, every phase. A
 * single particle's contact holds e within 0.035 (README, "The contact");
 * a body's contacts share its mass among them and the share changes as
 * contacts come and go through the impact, so a body gets 0.1, about three
 * times a particle's margin, as the landings on the ground do
 * (tests/test_static.c, check_landings). A drop off the centre is not
 * symmetric about it (a cube moved r hangs r past the static one's edge)
 * and turns the body a little; its centre's vertical speed is still what e
 * is about. Today the sphere rows interlock: at 1 m (phase 0) the cube
 * half a spacing off bounces at 0.35, in the pockets at 0.32, and cube2 in
 * the pockets at 0.13. */
static void test_restitution_body_on_body(void **state) {
    (void)state;
    static const char *const shapes[2] = {"cube", "cube2"};
    static const float heights[2] = {1.0f, 5.0f};
    const float e_material = rb_default_material().restitution;
    spread e[2][2][3];
    for (int s = 0; s < 2; s++)
        for (int h = 0; h < 2; h++)
            for (int o = 0; o < 3; o++) {
                e[s][h][o] = drop_spread(shapes[s], heights[h], o, 0.5f);
                const spread *x = &e[s][h][o];
                print_message("1. %-5s dropped %.0f m onto a static cube, %-15s (%-20s) mu 0.5: e = %.3f (phases "
                              "%.3f %.3f %.3f %.3f; mean %.3f, %.3f to %.3f; material %.2f)\n",
                              shapes[s], (double)heights[h], offset_names[o], lattice_names[s][o], (double)x->at[0],
                              (double)x->at[0], (double)x->at[1], (double)x->at[2], (double)x->at[3], (double)x->mean,
                              (double)x->low, (double)x->high, (double)e_material);
            }
    /* without friction, for comparison (not asserted: the goal is with it) */
    const spread f = drop_spread("cube2", 1.0f, 0, 0.0f);
    print_message("1. cube2 dropped 1 m, centred (in the pockets), mu 0: e = %.3f (mean %.3f, %.3f to %.3f)\n",
                  (double)f.at[0], (double)f.mean, (double)f.low, (double)f.high);
    for (int s = 0; s < 2; s++)
        for (int h = 0; h < 2; h++)
            for (int o = 0; o < 3; o++) assert_spread(&e[s][h][o], e_material, 0.1f);
}

/* ---- 2. head-on, free ---- */

/* Two cubes 1 cm apart (more by `phase` steps of their closing speed)
 * along x, faces toward each other, each at 2 m/s toward the other, no
 * gravity and no planes; the second moved by offset k: none, r along y, r
 * along y and z. Returns the fraction of the kinetic energy (translational
 * and rotational, 1/2 w.L) the contact took. */
static float head_on_loss(int offset, float phase) {
    rb_world_desc d = flat_desc(0.5f);
    d.gravity[1] = 0.0f;
    rb_world *w = rb_test_world(d);
    rb_registry *reg = registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube");
    const float v = 2.0f, x = 3 * r + 0.005f + phase * v * d.dt;
    rb_body_desc a = {.shape = cube, .position = {-x, 0, 0}, .velocity = {v, 0, 0}};
    rb_body_desc b = {
        .shape = cube, .position = {x, offset >= 1 ? r : 0.0f, offset == 2 ? r : 0.0f}, .velocity = {-v, 0, 0}};
    const rb_body_id ids[2] = {rb_world_add_body(w, &a), rb_world_add_body(w, &b)};
    assert_int_not_equal(ids[0].generation, 0);
    assert_int_not_equal(ids[1].generation, 0);
    const contact_watch c = watch_contact(w, ids, 2, 1.0f);
    double before = 0.0, after = 0.0;
    for (int i = 0; i < 2; i++) {
        const rb_body_state *s0 = &c.before[i], *s1 = &c.after[i];
        before += 0.5 * s0->mass * rb_v3_dot(s0->velocity, s0->velocity) +
                  0.5 * rb_v3_dot(s0->angular_velocity, s0->angular_momentum);
        after += 0.5 * s1->mass * rb_v3_dot(s1->velocity, s1->velocity) +
                 0.5 * rb_v3_dot(s1->angular_velocity, s1->angular_momentum);
    }
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    return (float)(1.0 - after / before);
}

/* Equal bodies meeting head on at restitution e leave at e times their
 * speeds: they lose 1 - e^2 = 0.75 of the energy; within 0.05 at every
 * phase. A body's margin on e of 0.1 (test_restitution_body_on_body) is
 * +-0.1 on e^2, but two free bodies meeting symmetrically share nothing
 * with a static one's infinite mass, and the aligned pair stays within
 * 0.03 of 0.75 at every phase today (72.9-76.0%): the offset ones must do as well, with
 * room. Today they lose 74-91%. */
static void test_head_on(void **state) {
    (void)state;
    static const char *const names[3] = {"aligned", "offset r along y", "offset r along y and z"};
    const float e = rb_default_material().restitution, expect = 1.0f - e * e;
    spread loss[3];
    for (int o = 0; o < 3; o++) {
        for (int k = 0; k < PHASES; k++) loss[o].at[k] = head_on_loss(o, (float)k / PHASES);
        spread_sum(&loss[o]);
        const spread *x = &loss[o];
        print_message("2. two cubes head on at 2 m/s each, %-22s: lost %.1f%% of the kinetic energy (phases %.1f "
                      "%.1f %.1f %.1f; mean %.1f%%; 1 - e^2 = %.0f%%)\n",
                      names[o], 100.0 * x->at[0], 100.0 * x->at[0], 100.0 * x->at[1], 100.0 * x->at[2],
                      100.0 * x->at[3], 100.0 * x->mean, 100.0 * expect);
    }
    for (int o = 0; o < 3; o++) assert_spread(&loss[o], expect, 0.05f);
}

/* ---- 3. sliding on flat ground ---- */

typedef struct slide {
    float distance; /* m along x from where it was thrown to where it stopped */
    float tilt;     /* degrees: the largest angle between its up axis and the world's over the run */
    float seconds;  /* how long it slid */
} slide;

/* `shape` resting on a face on the ground (a plane y = 0), friction mu,
 * settled 0.3 s, then given 5 m/s along x; stepped until it has been
 * slower than 1 cm/s for 0.1 s (at most 4 s: 5 / (mu g) is 1 s at mu 0.5),
 * its tilt looked at every 2 steps. */
static slide slide_on_ground(const char *shape, float mu) {
    rb_world_desc d = flat_desc(mu);
    d.planes[0] = (rb_plane){{0, 1, 0}, 0};
    d.plane_count = 1;
    rb_world *w = rb_test_world(d);
    rb_registry *reg = registry();
    rb_body_desc bd = {.shape = rb_test_add_shape(w, reg, shape), .position = {0, half_side(shape) + 0.001f, 0}};
    const rb_body_id id = rb_world_add_body(w, &bd);
    assert_int_not_equal(id.generation, 0);
    assert_true(rb_world_step(w, steps_of(w, 0.3f)));
    const rb_body_state start = state_of(w, id);
    const float v0 = 5.0f, throw[3] = {v0, 0, 0}, spin[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    assert_true(rb_world_set_velocity(w, id, throw, spin));
    slide out = {0, axis_angle(start.orientation, up, up), 0};
    int slow = 0, step = 0;
    const int limit = (int)steps_of(w, 4.0f), settled = (int)steps_of(w, 0.1f) / 2;
    for (; step < limit && slow < settled; step += 2) {
        assert_true(rb_world_step(w, 2));
        const rb_body_state s = state_of(w, id);
        out.tilt = fmaxf(out.tilt, axis_angle(s.orientation, up, up));
        slow = rb_test_len(s.velocity) < 0.01f ? slow + 1 : 0;
    }
    out.distance = state_of(w, id).position[0] - start.position[0];
    out.seconds = (float)step * d.dt;
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    return out;
}

/* No tipping: the tilt stays under 5 degrees. A box of half width a whose
 * centre of mass is h above its face tips under friction when mu > a / h:
 * never below mu 1 for a cube, cell or particle lattice, if its face is
 * flat. A face of spheres touches the ground only under its particles'
 * centres, a = 2r for the cube (h = 3r), and tips above mu 2/3 (today's
 * cube at mu 0.7 turns over). An upright box leans only by its contacts'
 * give: the weight squeezes them g (t_c / pi)^2 = 0.06 mm, and friction's
 * torque at most doubles that at the front, 1e-4 m over 0.8 m, 0.01
 * degree; what starts to tip goes past 5 degrees on its way over.
 * Distance: v^2 / (2 mu g) within 5%; the 0.1 s it spends at under 1 cm/s
 * moves it under 1 mm, and the friction builds up within a few steps
 * (0.05 m at 5 m/s in 6 steps, 2% of 2.5 m), so 5% is the Coulomb law held
 * against the sliding body as a whole. Today the cube at mu 0.7 turns over
 * and goes 2.49 m (1.82 m expected). */
static void test_sliding_on_ground(void **state) {
    (void)state;
    static const char *const shapes[2] = {"cube", "cube2"};
    static const float mus[3] = {0.5f, 0.7f, 0.8f};
    slide s[2][3];
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 3; m++) {
            s[k][m] = slide_on_ground(shapes[k], mus[m]);
            const float expect = 25.0f / (2.0f * mus[m] * g);
            print_message("3. %-5s thrown at 5 m/s on the ground, mu %.1f: slid %.3f m in %.2f s (v^2 / (2 mu g) = "
                          "%.3f m, %+.1f%%), largest tilt %.2f degrees\n",
                          shapes[k], (double)mus[m], (double)s[k][m].distance, (double)s[k][m].seconds, (double)expect,
                          100.0 * (s[k][m].distance / expect - 1.0), (double)s[k][m].tilt);
        }
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 3; m++) {
            const float expect = 25.0f / (2.0f * mus[m] * g);
            assert_true(s[k][m].tilt < 5.0f);
            assert_near(s[k][m].distance, expect, 0.05 * expect);
        }
}

/* ---- 4 and 5. slopes: a plane, and a static block ---- */

typedef struct incline {
    float accel; /* m/s^2 down the slope, the least-squares slope of the downhill speed */
    float tilt;  /* degrees: the largest angle between the body's up axis and the slope's normal */
    float drift; /* m: the farthest the centre went from where it was after settling (holding runs) */
} incline;

/* The slope rising at theta toward +x: its normal and downhill direction. */
static void slope_axes(float theta, float n[3], float down[3]) {
    n[0] = -sinf(theta), n[1] = cosf(theta), n[2] = 0.0f;
    down[0] = -cosf(theta), down[1] = -sinf(theta), down[2] = 0.0f;
}

/* Watches body id on the slope of theta: after `settle` s, samples its
 * downhill speed every 0.05 s for `seconds` (its acceleration fitted, as
 * rb_test_acceleration) and its tilt and distance from where it was. */
static incline watch_incline(rb_world *w, rb_body_id id, float theta, float settle, float seconds) {
    float n[3], down[3];
    const float up[3] = {0, 1, 0};
    slope_axes(theta, n, down);
    incline out = {0, 0, 0};
    const uint32_t every = steps_of(w, 0.05f);
    for (uint32_t k = 0; k < steps_of(w, settle); k++) { /* tilt through the settling too */
        assert_true(rb_world_step(w, 1));
        out.tilt = fmaxf(out.tilt, axis_angle(state_of(w, id).orientation, up, n));
    }
    const rb_body_state start = state_of(w, id);
    const int samples = (int)lroundf(seconds / 0.05f) + 1;
    double st = 0, sv = 0, stt = 0, stv = 0;
    for (int k = 0; k < samples; k++) {
        if (k > 0) assert_true(rb_world_step(w, every));
        const rb_body_state s = state_of(w, id);
        const double t = 0.05 * k, v = rb_v3_dot(s.velocity, down);
        st += t, sv += v, stt += t * t, stv += t * v;
        const float dp[3] = {s.position[0] - start.position[0], s.position[1] - start.position[1],
                             s.position[2] - start.position[2]};
        out.drift = fmaxf(out.drift, rb_test_len(dp));
        out.tilt = fmaxf(out.tilt, axis_angle(s.orientation, up, n));
    }
    out.accel = (float)((samples * stv - st * sv) / (samples * stt - st * st));
    return out;
}

/* The orientation that turns a body by theta about z (its up axis onto the slope's normal). */
static rb_body_desc on_slope(uint32_t shape, float theta, const float position[3]) {
    return (rb_body_desc){.shape = shape,
                          .position = {position[0], position[1], position[2]},
                          .orientation = {0.0f, 0.0f, sinf(0.5f * theta), cosf(0.5f * theta)}};
}

/* `shape` resting face down on a plane through the origin rising at 30
 * degrees toward +x (the only plane), mu 0.5, 1 mm above it; 0.2 s to land
 * and start sliding, then fitted over 1 s. */
static incline plane_slide(const char *shape) {
    const float theta = 30.0f * deg;
    float n[3], down[3];
    slope_axes(theta, n, down);
    rb_world_desc d = flat_desc(0.5f);
    d.planes[0] = (rb_plane){{n[0], n[1], n[2]}, 0.0f};
    d.plane_count = 1;
    rb_world *w = rb_test_world(d);
    rb_registry *reg = registry();
    const float h = half_side(shape) + 0.001f, p[3] = {n[0] * h, n[1] * h, 0.0f};
    const rb_body_desc bd = on_slope(rb_test_add_shape(w, reg, shape), theta, p);
    const rb_body_id id = rb_world_add_body(w, &bd);
    assert_int_not_equal(id.generation, 0);
    const incline out = watch_incline(w, id, theta, 0.2f, 1.0f);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
    return out;
}

/* The acceleration g (sin theta - mu cos theta) of a box sliding on a slope. */
static float slope_accel(float theta, float mu) { return g * (sinf(theta) - mu * cosf(theta)); }

/* Within 10% of g (sin 30 - 0.5 cos 30) = 0.657 m/s^2, as the cube on a 30
 * degree slope at mu 0.3 is held in tests/test_static.c (test_slope_slides):
 * the Coulomb cap on a sliding contact; 10% of 0.657 is 0.066 m/s^2, mu
 * off by 0.008. No tumbling: the tilt from the slope's normal stays under
 * 5 degrees (test_sliding_on_ground's argument: a flat-faced box tips on a
 * slope only past tan theta = a / h, 1 for these cubes; a cube2 of spheres
 * touches under its particles' centres, a / h = r / 2r, and tumbles past
 * 26.6 degrees, as it does today). */
static void test_plane_slope(void **state) {
    (void)state;
    static const char *const shapes[2] = {"cube", "cube2"};
    const float expect = slope_accel(30.0f * deg, 0.5f);
    incline s[2];
    for (int k = 0; k < 2; k++) {
        s[k] = plane_slide(shapes[k]);
        print_message("4. %-5s on a 30 degree plane, mu 0.5: slides at %.3f m/s^2 (g (sin - mu cos) = %.3f, %+.1f%%), "
                      "largest tilt %.2f degrees\n",
                      shapes[k], (double)s[k].accel, (double)expect, 100.0 * (s[k].accel / expect - 1.0),
                      (double)s[k].tilt);
    }
    for (int k = 0; k < 2; k++) {
        assert_true(s[k].tilt < 5.0f);
        assert_near(s[k].accel, expect, 0.1 * expect);
    }
}

/* The ramp: a static block10 (10 x 10 x 10 particles, 4 m a side) centred
 * at the origin, turned by theta about z, so its upper face is a slope
 * rising toward +x 2 m from the origin; no planes. A cube rests on it face
 * down, 1 mm above it, its particle columns over the block's (the block's
 * columns are at odd multiples of r from its centre: the cube's centre at
 * 5r uphill and r across) and then moved by `offset` both uphill and
 * across. 1.4 m of the block lie below the cube: at 0.66 m/s^2 it takes
 * 2 s to slide off, the run is 1.2 s (0.5 m). */
static rb_world *ramp_world(float theta, float offset, rb_body_id *id) {
    float n[3], down[3];
    slope_axes(theta, n, down);
    rb_world *w = rb_test_world(flat_desc(0.5f));
    rb_registry *reg = registry();
    const float zero[3] = {0, 0, 0};
    rb_body_desc block = on_slope(rb_test_add_shape(w, reg, "block10"), theta, zero);
    block.kind = RB_BODY_STATIC;
    assert_int_equal(rb_world_shape_particles(w, block.shape, NULL, 0, NULL), 1000);
    assert_int_not_equal(rb_world_add_body(w, &block).generation, 0);
    const float h = 10 * r + 3 * r + 0.001f, along = 5 * r + offset, across = r + offset;
    const float p[3] = {n[0] * h - down[0] * along, n[1] * h - down[1] * along, across};
    const rb_body_desc cube = on_slope(rb_test_add_shape(w, reg, "cube"), theta, p);
    *id = rb_world_add_body(w, &cube);
    assert_int_not_equal(id->generation, 0);
    rb_registry_destroy(reg); /* the world keeps its shapes */
    return w;
}

static const float ramp_offsets[3] = {0.0f, 0.5f * 0.2f, 0.2f};

/* 30 degrees, mu 0.5: the cube slides at the plane's acceleration within
 * 15% at each offset: test_plane_slope's 10%, and 5% more for the block's
 * face being particles too (the cells meet cells, each pair with its own
 * contact, where the plane is one smooth face). Tilt as there. Today the
 * cube locks in the pockets or tumbles off. */
static void test_ramp_slides(void **state) {
    (void)state;
    const float theta = 30.0f * deg, expect = slope_accel(theta, 0.5f);
    incline s[3];
    for (int k = 0; k < 3; k++) {
        rb_body_id id;
        rb_world *w = ramp_world(theta, ramp_offsets[k], &id);
        s[k] = watch_incline(w, id, theta, 0.2f, 1.0f);
        rb_world_destroy(w);
        print_message("5. a cube on a static block10 tilted 30 degrees, mu 0.5, offset %.2f m along and across: "
                      "slides at %.3f m/s^2 (the plane's %.3f, %+.1f%%), largest tilt %.2f degrees\n",
                      (double)ramp_offsets[k], (double)s[k].accel, (double)expect, 100.0 * (s[k].accel / expect - 1.0),
                      (double)s[k].tilt);
    }
    for (int k = 0; k < 3; k++) {
        assert_true(s[k].tilt < 5.0f);
        assert_near(s[k].accel, expect, 0.15 * expect);
    }
}

/* 20 degrees, mu 0.5 (tan 20 = 0.36 < mu): after 0.5 s of settling the cube
 * moves under 1 mm in 10 s at every offset, the bound
 * tests/test_static.c (test_slope_holds) holds a cube to on a plane: a
 * holding contact moves by its tangential spring's stretch under the
 * slope's pull, 0.06 mm. */
static void test_ramp_holds(void **state) {
    (void)state;
    const float theta = 20.0f * deg;
    incline s[3];
    for (int k = 0; k < 3; k++) {
        rb_body_id id;
        rb_world *w = ramp_world(theta, ramp_offsets[k], &id);
        s[k] = watch_incline(w, id, theta, 0.5f, 10.0f);
        rb_world_destroy(w);
        print_message("5. a cube on a static block10 tilted 20 degrees, mu 0.5, offset %.2f m along and across: "
                      "moved at most %.5f m in 10 s after settling, largest tilt %.2f degrees\n",
                      (double)ramp_offsets[k], (double)s[k].drift, (double)s[k].tilt);
    }
    for (int k = 0; k < 3; k++) {
        assert_true(s[k].drift < 1e-3f);
        assert_true(s[k].tilt < 5.0f);
    }
}

int main(void) {
    /* RUBBLE_FLAT_ONLY=PATTERN runs only the tests whose names match
     * (cmocka's filter: * and ?), as scripts/flat-faces passes it on */
    if (getenv("RUBBLE_FLAT_ONLY")) cmocka_set_test_filter(getenv("RUBBLE_FLAT_ONLY"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restitution_body_on_body),
        cmocka_unit_test(test_head_on),
        cmocka_unit_test(test_sliding_on_ground),
        cmocka_unit_test(test_plane_slope),
        cmocka_unit_test(test_ramp_slides),
        cmocka_unit_test(test_ramp_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
