/* Particles of different sizes in one world: a contact between particles
 * of radii r_i and r_j overlaps by r_i + r_j - distance, and acts at the
 * contact point. Rest, restitution, rolling and a mixed pile, on the
 * backend named by RUBBLE_TEST_BACKEND (reference by default, or opencl).
 *
 * Sizes: cubes of the cube plugin (radius 0.2, 64 kg a particle), pebbles
 * (one particle of radius 0.05: 1 kg at 1000 kg/m^3 of its cell (2r)^3),
 * balls of radius 0.1 (8 kg). The world's defaults otherwise (dt 1.6 ms,
 * t_c 8 ms, e 0.5, mu 0.5). Tolerances are argued at each test. */
#include "rb_test.h"
#include "sim/world_internal.h"

static const float g = 9.81f;
/* The drop heights of test_physics.c's restitution tests: unevenly spaced,
 * so where the first touch falls within a step is sampled. */
static const float heights[] = {0.3f, 0.31f, 0.45f, 0.7f, 0.83f, 1.0f, 1.27f, 1.6f, 1.85f, 2.19f, 2.4f, 2.6f};
#define HEIGHTS (sizeof heights / sizeof *heights)

static rb_body_state body(rb_world *w, rb_body_id id) {
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    return s;
}

/* The contact spring rate K (k = m_eff K) of the description's material. */
static double stiffness_rate(const rb_world_desc *d) { return rb_step_params_from_desc(d).rates[0].stiffness; }

/* The mass of a particle of radius r at 1000 kg/m^3 of its cell, as the registry gives it. */
static float particle_mass(float r) { return 1000.0f * (2.0f * r) * (2.0f * r) * (2.0f * r); }

/* A one-particle body of radius r: a solid sphere of particle_mass(r). */
static uint32_t add_ball(rb_world *w, float r) {
    const float m = particle_mass(r), I = 0.4f * m * r * r, origin[3] = {0, 0, 0};
    rb_shape_data d = {1, origin, m, {I, I, I}, r};
    int s = rb_world_add_shape(w, &d);
    assert_true(s >= 0);
    assert_true(rb_world_shape_radius(w, (uint32_t)s) == r);
    return (uint32_t)s;
}

static rb_body_id add_at(rb_world *w, uint32_t shape, rb_body_kind kind, float x, float y, float z) {
    rb_body_desc d = {.shape = shape, .position = {x, y, z}, .kind = kind};
    rb_body_id id = rb_world_add_body(w, &d);
    assert_int_not_equal(id.generation, 0);
    return id;
}

/* The world position of particle i now. */
static void particle(rb_world *w, uint32_t i, float out[3]) {
    const uint32_t n = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * n);
    assert_true(rb_world_read_particles(w, p));
    memcpy(out, &p[3 * i], 3 * sizeof(float));
    free(p);
}

/* The particle of body b highest above its centre (the middle of a cube's top face). */
static uint32_t top_particle(rb_world *w, uint32_t b) {
    const uint32_t *first = rb_world_body_first_particle(w), n = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * n), best = -INFINITY;
    assert_true(rb_world_read_particles(w, p));
    rb_body_state s;
    assert_true(rb_world_get_body(w, b, &s));
    uint32_t top = first[b];
    for (uint32_t i = first[b]; i < first[b + 1]; i++) {
        const float dx = p[3 * i] - s.position[0], dz = p[3 * i + 2] - s.position[2];
        const float score = p[3 * i + 1] - 10.0f * (dx * dx + dz * dz);
        if (score > best) best = score, top = i;
    }
    free(p);
    return top;
}

/* ---- resting ---- */

/* Steps 5 s (50 x 62 steps) watching body id rest on particle `top`: the
 * largest error of its height above that particle against `rest` from 1 s
 * on, and the farthest it moved sideways from anchor (x and z). */
static void watch_rest(rb_world *w, rb_body_id id, uint32_t top, const float anchor[3], double rest, float *worst,
                       float *drift) {
    *worst = *drift = 0.0f;
    for (int k = 0; k < 50; k++) {
        assert_true(rb_world_step(w, 62));
        const rb_body_state s = body(w, id);
        float q[3];
        particle(w, top, q);
        *drift = fmaxf(*drift, fmaxf(fabsf(s.position[0] - anchor[0]), fabsf(s.position[2] - anchor[2])));
        if (k >= 10) *worst = fmaxf(*worst, fabsf((s.position[1] - q[1]) - (float)rest));
    }
}

/* The first body: a cube of shape cube, its centre let go 0.6 m up, left
 * 625 steps (1 s) to settle on the ground. Returns its top particle (the
 * one of the world's particles highest up), whose centre goes in p. */
static uint32_t settled_cube_top(rb_world *w, uint32_t cube, float p[3]) {
    add_at(w, cube, RB_BODY_DYNAMIC, 0.0f, 0.6f, 0.0f);
    assert_true(rb_world_step(w, 625));
    const uint32_t top = top_particle(w, 0);
    particle(w, top, p);
    return top;
}

/* The mass of the world's first body (the cube). */
static float first_mass(rb_world *w) {
    rb_body_state s;
    assert_true(rb_world_get_body(w, 0, &s));
    return s.mass;
}

/* The sag of a ball of mass m resting on a dynamic lattice body (cells,
 * src/sim/contact.h) of mass M at a point l = (lx, -, lz) off its centre
 * along the face: its one contact is sized by the effective mass along the
 * vertical, 1 / (1/m + s w_c), w_c = 1/M + (lx^2 + lz^2) / I the cube's
 * point inverse mass (I = M (6 r)^2 / 6 for the cube plugin: 27 cells of
 * side 2 r, a solid cube of side 6 r) and s its share, its onset support on
 * a face: nine cells (rb_contact_share): the spring k = m_eff K holds m g
 * at g / K (1 + m s w_c). */
static double ball_on_cube_sag(const rb_world_desc *desc, float m, float M, float lx, float lz) {
    const double side = 6.0 * 0.2, I = M * side * side / 6.0, wc = 1.0 / M + (lx * lx + lz * lz) / I;
    return g / stiffness_rate(desc) * (1.0 + m * 9.0 * wc);
}

/* A pebble (r = 0.05, 1 kg) set down 1 cm above the middle particle of a
 * cube's top face (radius 0.2), which rests on the ground: it comes to rest
 * on the face, its centre r_p + r_c = 0.25 above the particle's, less the
 * static overlap of one contact carrying its weight (ball_on_cube_sag: the
 * cube's side adds 0.5%, 86 um in all). Checked against the particle's own
 * position (the cube sags too) within 5 um (6% of the sag; positions near
 * 1 m round to 6e-8) from 1 s to 5 s after it was let go, and the pebble
 * never moves sideways by more than 1 mm. A contact at twice either radius
 * would put it 0.15 m off. The default sleeping holds it there. Off the
 * middle it rests on the face as well: test_pebble_lands_on_lattice. */
static void test_pebble_rests_on_cube(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube"), pebble = add_ball(w, 0.05f);
    float p[3];
    const uint32_t top = settled_cube_top(w, cube, p);
    rb_body_id id = add_at(w, pebble, RB_BODY_DYNAMIC, p[0], p[1] + 0.25f + 0.01f, p[2]);
    const double sag = ball_on_cube_sag(&desc, particle_mass(0.05f), first_mass(w), 0.0f, 0.0f), rest = 0.25 - sag;
    float worst, drift;
    watch_rest(w, id, top, p, rest, &worst, &drift);
    print_message("pebble on a cube: %.6f m above the particle (expected %.6f, sag %.2g m), error <= %.2g m, "
                  "sideways <= %.2g m, %s\n",
                  body(w, id).position[1] - p[1], rest, sag, worst, drift, body(w, id).asleep ? "asleep" : "awake");
    assert_true(worst <= 5e-6f);
    assert_true(drift < 1e-3f);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* A ball of radius 0.1 (8 kg) dropped 2 cm onto the cube's top face over a
 * pocket, where four particles of radius 0.2 meet 0.2 m away along x and z:
 * the face is flat there (cells: src/sim/contact.h), so the ball rests on
 * it, 0.2 + 0.1 = 0.3 m above the top row's centres less the sag of its one
 * contact (ball_on_cube_sag: 1.05 g / K), not nested 0.1 m above them
 * between four spheres as a lattice of marbles held it. Checked against the
 * top particle (the cube sags too) within 10% of the sag (the 5% the cube's
 * share adds is known only as well as its onset support), and stable with
 * sleeping off: from 1 s to 5 s after it was let go its height stays within
 * 1% of the sag, and nothing on a flat face pulls it sideways: it never
 * moves 1 mm off the pocket. */
static void test_ball_rests_on_face_over_pocket(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    desc.sleep_time = 0.0f; /* the contact alone holds it */
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube"), ball = add_ball(w, 0.1f);
    float p[3];
    const uint32_t top = settled_cube_top(w, cube, p);
    const float hole[3] = {p[0] + 0.2f, p[1], p[2] + 0.2f};
    rb_body_id id = add_at(w, ball, RB_BODY_DYNAMIC, hole[0], hole[1] + 0.3f + 0.02f, hole[2]);
    const double sag = ball_on_cube_sag(&desc, particle_mass(0.1f), first_mass(w), 0.2f, 0.2f);
    assert_true(rb_world_step(w, 625));
    float q[3];
    particle(w, top, q);
    const double rest = body(w, id).position[1] - q[1]; /* at 1 s */
    float worst, drift;
    watch_rest(w, id, top, hole, rest, &worst, &drift);
    print_message("ball of r 0.1 over a pocket: %.6f m above the top row (sag %.3g m, %.3f of ball_on_cube_sag's "
                  "%.3g), moved <= %.2g m from 1 s to 5 s, sideways <= %.2g m\n",
                  rest, 0.3 - rest, (0.3 - rest) / sag, sag, worst, drift);
    assert_near(0.3 - rest, sag, 0.1 * sag);
    assert_true(worst <= 0.01 * sag);
    assert_true(drift < 1e-3f);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* The same ball on the same face over a pocket, with the default
 * sleeping: it falls asleep within 1.5 s of being let go, and stays put. */
static void test_ball_on_face_sleeps(void **state) {
    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_registry *reg = rb_test_registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube"), ball = add_ball(w, 0.1f);
    float p[3];
    settled_cube_top(w, cube, p);
    rb_body_id id = add_at(w, ball, RB_BODY_DYNAMIC, p[0] + 0.2f, p[1] + 0.32f, p[2] + 0.2f);
    int asleep_at = -1;
    for (int k = 0; k < 940 && asleep_at < 0; k++) {
        assert_true(rb_world_step(w, 1));
        if (body(w, id).asleep) asleep_at = k + 1;
    }
    const rb_body_state s = body(w, id);
    print_message("ball of r 0.1 on the face over a pocket: %s after %d steps, spinning at %.3g rad/s\n",
                  asleep_at > 0 ? "asleep" : "awake", asleep_at, rb_test_len(s.angular_velocity));
    assert_true(asleep_at > 0);
    assert_true(rb_world_step(w, 625));
    assert_true(body(w, id).asleep);
    assert_memory_equal(body(w, id).position, s.position, sizeof s.position);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* A lattice is no sieve: a pebble (r = 0.05) dropped from 1.5 m over the
 * middle of a pocket of the cube's top face, where the marbles' square hole
 * (sqrt 2 - 1) R = 0.083 m wide let it fall through the cube to the ground,
 * lands on the face (cells: src/sim/contact.h) and rests there: its centre
 * 0.2 + 0.05 = 0.25 above the top row's centres, less the sag of its
 * contact (ball_on_cube_sag), within 10% of that sag, and above the
 * pocket, within 1 mm along x and z (its bounces are vertical on a flat
 * face; the cube it strikes off its axis tilts a little, and the pebble
 * rolls off nowhere). */
static void test_pebble_lands_on_lattice(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube"), pebble = add_ball(w, 0.05f);
    add_at(w, cube, RB_BODY_DYNAMIC, 0.0f, 0.6f, 0.0f);
    rb_body_id id = add_at(w, pebble, RB_BODY_DYNAMIC, 0.2f, 1.5f, 0.2f);
    assert_true(rb_world_step(w, 1500));
    const rb_body_state s = body(w, id);
    const uint32_t top = top_particle(w, 0);
    float q[3];
    particle(w, top, q);
    const double sag = ball_on_cube_sag(&desc, particle_mass(0.05f), first_mass(w), 0.2f, 0.2f);
    print_message("pebble over a pocket: ends at (%.4f, %.6f, %.4f), %.6f above the top row (sag %.3g m, expected "
                  "%.3g)\n",
                  s.position[0], s.position[1], s.position[2], s.position[1] - q[1], 0.25 - (s.position[1] - q[1]),
                  sag);
    assert_near(0.25 - (s.position[1] - q[1]), sag, 0.1 * sag);
    assert_near(s.position[0], 0.2, 1e-3);
    assert_near(s.position[2], 0.2, 1e-3);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* ---- restitution ---- */

/* Speeds at which a dropped body crosses into contact (its centre within
 * `touch` of height `floor`) and out of it, as test_physics.c's bounce(). */
static void bounce(rb_world *w, rb_body_id id, float floor, float touch, float *impact, float *rebound) {
    int phase = 0; /* 0: falling, 1: in contact, 2: left */
    for (int step = 0; step < 5000 && phase < 2; step++) {
        const rb_body_state s = body(w, id);
        const bool contact = s.position[1] - floor < touch;
        if (phase == 0 && contact) phase = 1, *impact = -s.velocity[1];
        if (phase == 1 && !contact) phase = 2, *rebound = s.velocity[1];
        assert_true(rb_world_step(w, 1));
    }
    if (phase < 2) fail_msg("the body never left");
}

/* A ball of radius r_drop dropped from each of the twelve heights onto a
 * static ball of radius r_base: the contact's effective mass is the dropped
 * ball's, its overlap r_drop + r_base - distance. Returns the worst
 * deviation of the rebound ratio from e. */
static double drop_on_static(float e, float r_drop, float r_base) {
    rb_world_desc desc = rb_default_world_desc();
    desc.material.restitution = e;
    desc.plane_count = 0;
    double worst = 0.0;
    for (size_t h = 0; h < HEIGHTS; h++) {
        rb_world *w = rb_test_world(desc);
        const uint32_t base = add_ball(w, r_base), drop = r_drop == r_base ? base : add_ball(w, r_drop);
        add_at(w, base, RB_BODY_STATIC, 0.0f, 0.0f, 0.0f);
        rb_body_id id = add_at(w, drop, RB_BODY_DYNAMIC, 0.0f, r_base + r_drop + heights[h], 0.0f);
        float impact = 0.0f, rebound = 0.0f;
        bounce(w, id, 0.0f, r_base + r_drop, &impact, &rebound);
        worst = fmax(worst, fabs(rebound / impact - e));
        rb_world_destroy(w);
    }
    return worst;
}

/* A pebble dropped on a static ball of radius 0.2, and a ball of radius 0.2
 * dropped on a static pebble, from the twelve heights, for e = 0.3, 0.5 and
 * 0.9: the rebound is e of the impact within 0.05, the tolerance of
 * test_physics.c's restitution tests. The rates are per unit effective
 * mass and the overlap's scale (the radii) is only the spring's rest
 * length, which no rate depends on: the radius must not show. */
static void test_restitution_small_on_big(void **state) {
    static const float es[] = {0.3f, 0.5f, 0.9f};
    for (int k = 0; k < 3; k++) {
        const double small_on_big = drop_on_static(es[k], 0.05f, 0.2f),
                     big_on_small = drop_on_static(es[k], 0.2f, 0.05f);
        print_message("e = %.1f: pebble on a static r 0.2 ball within %.4f of e, r 0.2 ball on a static pebble within "
                      "%.4f\n",
                      es[k], small_on_big, big_on_small);
        assert_true(small_on_big <= 0.05);
        assert_true(big_on_small <= 0.05);
    }
}

/* Two free balls, a pebble (1 kg) and a ball of radius 0.2 (64 kg), meet
 * head on without gravity at the impact speeds of the twelve heights
 * (sqrt(2 g h), 2.4 to 7.1 m/s), once the pebble moving and once the big
 * ball: the contact's effective mass is 64/65 kg, its overlap 0.25 m less
 * the distance. Their relative speed after is e of that before within 0.05,
 * for e = 0.3, 0.5, 0.9; momentum is kept. */
static void test_restitution_free_pair(void **state) {
    static const float es[] = {0.3f, 0.5f, 0.9f};
    for (int k = 0; k < 3; k++) {
        rb_world_desc desc = rb_default_world_desc();
        desc.material.restitution = es[k];
        desc.plane_count = 0;
        desc.gravity[1] = 0.0f;
        double worst = 0.0, worst_p = 0.0;
        for (size_t h = 0; h < 2 * HEIGHTS; h++) {
            const bool big_moves = h >= HEIGHTS;
            const float v = sqrtf(2.0f * g * heights[h % HEIGHTS]);
            rb_world *w = rb_test_world(desc);
            const uint32_t pebble = add_ball(w, 0.05f), big = add_ball(w, 0.2f);
            rb_body_desc a = {.shape = pebble, .position = {0.0f, 0.0f, 0.0f}, .velocity = {big_moves ? 0.0f : v}};
            rb_body_desc b = {.shape = big,
                              .position = {0.25f + 0.1f * heights[h % HEIGHTS], 0.0f, 0.0f},
                              .velocity = {big_moves ? -v : 0.0f}};
            const rb_body_id ia = rb_world_add_body(w, &a), ib = rb_world_add_body(w, &b);
            const double p0 = particle_mass(0.05f) * a.velocity[0] + particle_mass(0.2f) * b.velocity[0];
            int phase = 0;
            float before = 0.0f, after = 0.0f;
            for (int step = 0; step < 2000 && phase < 2; step++) {
                const rb_body_state sa = body(w, ia), sb = body(w, ib);
                const bool contact = sb.position[0] - sa.position[0] < 0.25f;
                const float closing = sa.velocity[0] - sb.velocity[0];
                if (phase == 0 && contact) phase = 1, before = closing;
                if (phase == 1 && !contact) phase = 2, after = -closing;
                assert_true(rb_world_step(w, 1));
            }
            assert_int_equal(phase, 2);
            const double p1 =
                particle_mass(0.05f) * body(w, ia).velocity[0] + particle_mass(0.2f) * body(w, ib).velocity[0];
            worst = fmax(worst, fabs(after / before - es[k]));
            worst_p = fmax(worst_p, fabs(p1 - p0) / fabs(p0));
            rb_world_destroy(w);
        }
        print_message("e = %.1f: pebble and r 0.2 ball head on: rebound within %.4f of e, momentum within %.2g\n",
                      es[k], worst, worst_p);
        assert_true(worst <= 0.05);
        assert_true(worst_p < 1e-5);
    }
}

/* ---- rolling ---- */

/* A ball of radius 0.2 set spinning at 20 rad/s in a pocket of a static
 * bed of pebbles (r = 0.05, 0.1 m apart): friction at its contacts drives
 * it until it rolls. Its contacts act 0.2 m less half the overlap from its
 * centre (the contact point, README "The contact"), not at the midpoint of
 * the centres (0.125 m): rolling without slip there means v = omega R with
 * R the contact points' depth below the centre, 0.2 cos(asin(0.0707 /
 * 0.25)) = 0.192 m less the overlap. Checked within 5% (the bed's bumps,
 * 1 cm every 10 cm, make it ride up and down) after 1 s; with the midpoint
 * the ratio would be 0.63. Sleeping off. */
static void test_ball_rolls_on_pebbles(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    desc.sleep_time = 0.0f;
    desc.plane_count = 0;
    rb_world *w = rb_test_world(desc);
    enum { SIDE = 40 };
    float *bed = malloc(sizeof(float) * 3 * SIDE * SIDE);
    for (int i = 0; i < SIDE; i++)
        for (int k = 0; k < SIDE; k++) {
            float *q = &bed[3 * (i * SIDE + k)];
            q[0] = 0.1f * (float)(i - SIDE / 2), q[1] = 0.0f, q[2] = 0.1f * (float)(k - SIDE / 2);
        }
    rb_shape_data bed_shape = {SIDE * SIDE, bed, (float)(SIDE * SIDE), {1e3f, 1e3f, 1e3f}, 0.05f};
    const int bed_index = rb_world_add_shape(w, &bed_shape);
    free(bed);
    assert_true(bed_index >= 0);
    add_at(w, (uint32_t)bed_index, RB_BODY_STATIC, 0.0f, 0.0f, 0.0f);
    const float lift = sqrtf(0.25f * 0.25f - 2.0f * 0.05f * 0.05f); /* over a pocket of four pebbles */
    rb_body_desc spin = {
        .shape = add_ball(w, 0.2f), .position = {-1.0f + 0.05f, lift, 0.05f}, .angular_velocity = {0.0f, 0.0f, -20.0f}};
    rb_body_id id = rb_world_add_body(w, &spin);
    assert_true(rb_world_step(w, 625));
    double v = 0.0, omega = 0.0, height = 0.0;
    const int samples = 100;
    for (int k = 0; k < samples; k++) { /* averaged over 0.1 s: about one bump */
        assert_true(rb_world_step(w, 1));
        const rb_body_state s = body(w, id);
        v += s.velocity[0] / samples, omega += -s.angular_velocity[2] / samples, height += s.position[1] / samples;
    }
    const double R = 0.2 * cos(asin(0.05 * sqrt(2.0) / 0.25));
    print_message("ball rolling on pebbles: %.4f m/s, %.3f rad/s, v / (omega R) = %.4f (R = %.4f m), height %.4f m\n",
                  v, omega, v / (omega * R), R, height);
    assert_true(v > 0.5);
    assert_near(v / (omega * R), 1.0, 0.05);
    rb_world_destroy(w);
}

/* ---- a mixed pile ---- */

/* Kinetic plus potential energy of every body (springs left out: they only add). */
static double mechanical_energy(rb_world *w) {
    double e = 0.0;
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        e += 0.5 * s.mass * rb_v3_dot(s.velocity, s.velocity) +
             0.5 * rb_v3_dot(s.angular_momentum, s.angular_velocity) + s.mass * g * s.position[1];
    }
    return e;
}

/* Six layers, 2.1 m apart, of 16 cells 2.1 m apart dropped into a box of
 * 8.8 m: in each cell a cube of the cube plugin (r 0.2, 27 particles,
 * 1728 kg), a cube of 27 particles of r 0.1 (216 kg) or nine pebbles (r
 * 0.05, 1 kg), 480 bodies in all, tumbling. (A cube is a lattice: it
 * reaches its cells' corners, sqrt(3) 0.6 = 1.04 m from its centre, so the
 * cells are 2.1 m apart and the lowest layer 1.1 m up, where 1.8 m and
 * 1.0 m let turned cubes start in each other and in the ground.) Over 4 s,
 * sampled every 5 steps:
 * - every state stays finite, and kinetic plus potential energy never
 *   exceeds its start (the contacts only take energy away);
 * - nothing passes through the ground or a wall: no particle ever lies
 *   wholly beyond a plane (r_i - height < 2 r_i), and at the end no
 *   particle's centre is more than a tenth of its radius beyond one.
 * On the way a particle's centre does dip under the ground for a few
 * steps: a 1.7 t cube landing at 10 m/s on the small cube squeezes its
 * 8 kg particles, whose springs are as soft as their mass (the rates are
 * per unit effective mass), about a radius into it (measured: 1.10 r_i at
 * worst); and a pebble pinned under a cube's flat face at the end bears
 * the cube's weight on its own springs (README, "Limits": light particles
 * are soft): its centre ends 1.005 of its radius under the ground. */
static void test_mixed_pile(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    const float half = 4.4f;
    desc.plane_count = 5;
    desc.planes[1] = (rb_plane){{1, 0, 0}, -half};
    desc.planes[2] = (rb_plane){{-1, 0, 0}, -half};
    desc.planes[3] = (rb_plane){{0, 0, 1}, -half};
    desc.planes[4] = (rb_plane){{0, 0, -1}, -half};
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    static float small[27 * 3];
    for (int i = 0; i < 27; i++)
        small[3 * i] = (float)(i % 3), small[3 * i + 1] = (float)(i / 3 % 3), small[3 * i + 2] = (float)(i / 9);
    rb_shape_desc sd = {.struct_size = sizeof sd,
                        .name = "small_cube",
                        .particle_count = 27,
                        .particles = small,
                        .particle_diameter = 0.2f};
    assert_int_equal(rb_registry_add_desc(reg, &sd, "test", "test_sizes.c"), RB_LOAD_OK);
    const uint32_t shapes[3] = {rb_test_add_shape(w, reg, "cube"), rb_test_add_shape(w, reg, "small_cube"),
                                add_ball(w, 0.05f)};
    assert_true(rb_world_shape_radius(w, shapes[1]) == 0.1f);
    uint32_t n = 0;
    for (int layer = 0; layer < 6; layer++)
        for (int i = 0; i < 16; i++, n++) {
            const uint32_t kind = n % 4 == 0 ? 0 : n % 4 == 2 ? 1 : 2;
            const float x = -3.15f + 2.1f * (float)(i % 4) + 0.13f * (float)(layer % 3),
                        z = -3.15f + 2.1f * (float)(i / 4);
            for (int k = 0; k < (kind == 2 ? 9 : 1); k++) {
                rb_body_desc d = {.shape = shapes[kind], .position = {x, 1.1f + 2.1f * (float)layer, z}};
                if (kind == 2) d.position[0] += 0.3f * (float)(k % 3 - 1), d.position[2] += 0.3f * (float)(k / 3 - 1);
                const float angle = 0.4f + 0.9f * (float)n, s = sinf(0.5f * angle);
                const float axis[3] = {cosf(2.39996f * (float)n), 0.5f, sinf(2.39996f * (float)n)};
                const float len = rb_test_len(axis);
                for (int c = 0; c < 3; c++) d.orientation[c] = axis[c] / len * s;
                d.orientation[3] = cosf(0.5f * angle);
                assert_int_not_equal(rb_world_add_body(w, &d).generation, 0);
            }
        }
    const uint32_t np = rb_world_particle_count(w);
    float *p = malloc(sizeof(float) * 3 * np), *radius = rb_test_particle_radii(w);
    const double e0 = mechanical_energy(w);
    double gain = -INFINITY;
    float worst = 0.0f, end = 0.0f; /* deepest beyond a plane, in radii of the particle */
    for (int k = 0; k < 500; k++) {
        assert_true(rb_world_step(w, 5));
        assert_true(rb_world_read_particles(w, p));
        end = 0.0f;
        for (uint32_t i = 0; i < np; i++) {
            assert_true(isfinite(p[3 * i]) && isfinite(p[3 * i + 1]) && isfinite(p[3 * i + 2]));
            for (uint32_t c = 0; c < desc.plane_count; c++) {
                const rb_plane *pl = &desc.planes[c];
                end = fmaxf(end, (radius[i] - (rb_v3_dot(pl->normal, &p[3 * i]) - pl->offset)) / radius[i]);
            }
        }
        worst = fmaxf(worst, end);
        if (k % 10 == 9) gain = fmax(gain, mechanical_energy(w) / e0 - 1.0);
    }
    print_message("mixed pile of %u bodies, %u particles: energy at most %+.2g of its start; deepest beyond a plane "
                  "%.3f radii of the particle, %.3f at the end\n",
                  rb_world_body_count(w), np, gain, worst, end);
    assert_true(gain <= 0.0);
    assert_true(worst < 2.0f);
    assert_true(end < 1.1f);
    free(p), free(radius);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pebble_rests_on_cube),     cmocka_unit_test(test_ball_rests_on_face_over_pocket),
        cmocka_unit_test(test_ball_on_face_sleeps),    cmocka_unit_test(test_pebble_lands_on_lattice),
        cmocka_unit_test(test_restitution_small_on_big), cmocka_unit_test(test_restitution_free_pair),
        cmocka_unit_test(test_ball_rolls_on_pebbles),    cmocka_unit_test(test_mixed_pile),
    };
    const char *only = getenv("RUBBLE_SIZES_ONLY"); /* one test by name (a cmocka pattern) */
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
