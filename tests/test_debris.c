/* Debris effects at run time (src/scenes/debris.c): emitters, lifetimes,
 * kill regions, the body cap, sleep removal and fields, on the backend
 * RUBBLE_TEST_BACKEND names (the OpenCL run also checks that the reference
 * gives the same digest).
 *
 * The debris clock ticks every round(1 / (60 dt)) steps: 10 steps, 16 ms at
 * the default dt of 1.6 ms. What a tick owes is exact in the tolerances
 * below: an emitter of 500 bodies/s owes 8 a tick. */
#include "rb_test.h"
#include "scenes/debris.h"
#include "scenes/entities.h"

typedef struct fixture {
    rb_registry *reg;
    rb_world *world;
    rb_entities *entities;
    rb_debris *debris;
} fixture;

static void open_world(fixture *f, rb_world_desc desc) {
    f->reg = rb_test_registry();
    f->world = rb_test_world(desc);
    f->entities = rb_entities_create(f->reg, f->world);
    assert_non_null(f->entities);
}

static void open_debris(fixture *f, const rb_debris_desc *dd) {
    char err[256];
    f->debris = rb_debris_create(dd, f->entities, err, sizeof err);
    if (!f->debris) fail_msg("rb_debris_create: %s", err);
}

static void close_all(fixture *f) {
    rb_debris_destroy(f->debris);
    rb_entities_destroy(f->entities);
    rb_world_destroy(f->world);
    rb_registry_destroy(f->reg);
}

static uint32_t steps_of(float seconds) { return (uint32_t)lroundf(seconds / 0.0016f); }

/* A world without gravity or planes: only the fields move what is in it. */
static rb_world_desc empty_space(void) {
    rb_world_desc d = rb_default_world_desc();
    d.gravity[1] = 0.0f;
    d.plane_count = 0;
    d.sleep_time = 0.0f;
    return d;
}

/* An emitter of cube2 bodies over a 20 x 20 m box 5 m up (they land apart). */
static rb_emitter rain(float rate, float lifetime) {
    rb_emitter e = {.region = {RB_REGION_BOX, {0.0f, 5.0f, 0.0f}, {10.0f, 0.5f, 10.0f}, 0.0f},
                    .rate = rate,
                    .choice_count = 1,
                    .direction = {0.0f, 1.0f, 0.0f},
                    .lifetime = lifetime,
                    .seed = 7};
    snprintf(e.choices[0].shape, sizeof e.choices[0].shape, "cube2");
    e.choices[0].scale = 1.0f, e.choices[0].weight = 1.0f;
    return e;
}

/* 500 bodies/s living 2 s: 1,000 alive once the first have died, and the
 * world holds just those. Within one tick's 8 either way. */
static void test_emitter_holds_rate_times_lifetime(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {.emitter_count = 1};
    dd.emitters[0] = rain(500.0f, 2.0f);
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, steps_of(3.0f)));
    const uint32_t alive = rb_debris_alive(f.debris);
    print_message("alive after 3 s: %u (spawned %llu, removed %llu)\n", alive,
                  (unsigned long long)rb_debris_spawned(f.debris), (unsigned long long)rb_debris_removed(f.debris));
    assert_in_range(alive, 992, 1008);
    assert_int_equal(rb_world_body_count(f.world), alive);
    assert_int_equal(rb_debris_spawned(f.debris) - rb_debris_removed(f.debris), alive);
    assert_in_range(rb_debris_spawned(f.debris), 1490, 1510);
    close_all(&f);
}

/* Bodies come and go every tick for 10,000 steps: past their lifetime they
 * are gone, their slots are taken again (ids stay below twice the most
 * alive), and the world's device memory stops growing once it has held the
 * most at once. Under ASan, nothing leaks. */
static void test_churn_reuses_slots(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {.emitter_count = 1};
    dd.emitters[0] = rain(625.0f, 0.1f); /* 10 a tick, each living 6 ticks */
    open_debris(&f, &dd);
    size_t bytes_at_2000 = 0;
    uint32_t most = 0, top_slot = 0;
    for (uint32_t step = 0; step < 10000; step += 10) {
        assert_true(rb_debris_step(f.debris, 10));
        const uint32_t n = rb_world_body_count(f.world);
        if (n > most) most = n;
        for (uint32_t b = 0; b < n; b++)
            if (rb_world_body_id(f.world, b).slot > top_slot) top_slot = rb_world_body_id(f.world, b).slot;
        if (step + 10 == 2000) bytes_at_2000 = rb_world_device_bytes(f.world);
    }
    print_message("most alive %u, highest slot %u, device bytes %zu then %zu\n", most, top_slot, bytes_at_2000,
                  rb_world_device_bytes(f.world));
    assert_in_range(most, 50, 80);
    assert_true(top_slot < 2u * most);
    assert_true(rb_world_device_bytes(f.world) == bytes_at_2000);
    assert_true(rb_debris_removed(f.debris) > 9000);
    close_all(&f);
}

/* The same through the world alone, every step: a body added and the
 * oldest removed at each of 10,000 steps (40 alive), with contacts and
 * their history coming and going. The device memory stops growing once the
 * most alive has been held, and ids reuse their slots. */
static void test_world_churn_every_step(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    const uint32_t row = (uint32_t)rb_entities_find(f.entities, "cube2");
    uint64_t rng = 12345;
    size_t bytes_at_2000 = 0;
    uint32_t top_slot = 0;
    for (uint32_t step = 0; step < 10000; step++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const float x = (float)(rng >> 40) / 16777216.0f * 8.0f - 4.0f;
        const rb_body_id id = rb_entities_spawn(f.entities, row, &(rb_body_desc){.position = {x, 1.5f, 0.0f}});
        assert_true(id.generation != 0);
        if (id.slot > top_slot) top_slot = id.slot;
        if (rb_world_body_count(f.world) > 40) assert_true(rb_world_remove_body(f.world, rb_world_body_id(f.world, 0)));
        assert_true(rb_world_step(f.world, 1));
        if (step + 1 == 2000) bytes_at_2000 = rb_world_device_bytes(f.world);
    }
    print_message("highest slot %u, device bytes %zu then %zu\n", top_slot, bytes_at_2000,
                  rb_world_device_bytes(f.world));
    assert_int_equal(rb_world_body_count(f.world), 40);
    assert_true(top_slot < 80);
    assert_true(rb_world_device_bytes(f.world) == bytes_at_2000);
    close_all(&f);
}

/* A busy scene: two shapes at two sizes in a cone with spin, an explosion
 * and wind. */
static rb_debris_desc busy(void) {
    rb_debris_desc dd = {.emitter_count = 1, .field_count = 2};
    rb_emitter *e = &dd.emitters[0];
    *e = rain(300.0f, 1.0f);
    e->region = (rb_region){RB_REGION_DISC, {0.0f, 3.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 2.0f};
    e->speed = 6.0f, e->speed_spread = 2.0f, e->cone = 0.5f, e->spin = 4.0f;
    e->choice_count = 2;
    snprintf(e->choices[1].shape, sizeof e->choices[1].shape, "cube");
    e->choices[0].scale = 0.5f, e->choices[1].scale = 1.0f, e->choices[1].weight = 0.5f;
    dd.fields[0] = (rb_field){.kind = RB_FIELD_RADIAL,
                              .centre = {0.0f, 0.5f, 0.0f},
                              .radius = 6.0f,
                              .start = 0.8f,
                              .strength = 2000.0f,
                              .impulse = true,
                              .falloff = 1.0f,
                              .up = 0.5f};
    dd.fields[1] = (rb_field){
        .kind = RB_FIELD_WIND, .start = 0.3f, .duration = 0.6f, .velocity = {8.0f, 0.0f, 0.0f}, .drag = 0.6f};
    return dd;
}

static uint64_t run_busy(rb_backend_kind backend, uint32_t chunk) {
    fixture f = {0};
    rb_world_desc d = rb_default_world_desc();
    d.backend = backend;
    f.reg = rb_test_registry();
    char err[256];
    f.world = rb_world_create(&d, err, sizeof err);
    if (!f.world) fail_msg("cannot create a world: %s", err);
    f.entities = rb_entities_create(f.reg, f.world);
    const rb_debris_desc dd = busy();
    open_debris(&f, &dd);
    for (uint32_t done = 0, total = steps_of(1.5f); done < total; done += chunk)
        assert_true(rb_debris_step(f.debris, chunk < total - done ? chunk : total - done));
    print_message("spawned %llu, put off for want of room %llu\n", (unsigned long long)rb_debris_spawned(f.debris),
                  (unsigned long long)rb_debris_crowded(f.debris));
    assert_true(rb_debris_spawned(f.debris) > 150);
    const uint64_t digest = rb_world_digest(f.world);
    close_all(&f);
    return digest;
}

/* The same debris, body for body and bit for bit: twice, stepped in calls
 * that end inside ticks (a tick's field loads are held again, as a force
 * and torque fixed at the tick, for each call), and (on the OpenCL run) on
 * the reference. */
static void test_debris_is_deterministic(void **state) {
    (void)state;
    const uint64_t a = run_busy(rb_test_backend(), 50), b = run_busy(rb_test_backend(), 50);
    const uint64_t c = run_busy(rb_test_backend(), 7); /* calls that end inside ticks */
    print_message("digests %016llx %016llx %016llx\n", (unsigned long long)a, (unsigned long long)b,
                  (unsigned long long)c);
    assert_true(a == b);
    assert_true(a == c);
    if (rb_test_backend() == RB_BACKEND_OPENCL) assert_true(run_busy(RB_BACKEND_REFERENCE, 50) == a);
}

/* A radial impulse J with falloff 1 gives a body at distance d from the
 * centre J (1 - d / R) of momentum along the line from the centre, up
 * weighted by `up`; momentum is exact to float rounding (1e-4). */
static void test_radial_impulse(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube"),
                                            &(rb_body_desc){.position = {3.0f, 0.0f, 4.0f}});
    rb_debris_desc dd = {.field_count = 1};
    dd.fields[0] =
        (rb_field){.kind = RB_FIELD_RADIAL, .radius = 10.0f, .strength = 5000.0f, .impulse = true, .falloff = 1.0f};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, 20));
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f.world, id, &s));
    const float expect = 5000.0f * (1.0f - 5.0f / 10.0f);
    print_message("momentum %.4f %.4f %.4f, expected %.4f along (0.6, 0, 0.8)\n", s.mass * s.velocity[0],
                  s.mass * s.velocity[1], s.mass * s.velocity[2], expect);
    assert_near(s.mass * s.velocity[0], 0.6 * expect, 1e-4 * expect);
    assert_near(s.mass * s.velocity[2], 0.8 * expect, 1e-4 * expect);
    assert_near(s.velocity[1], 0.0, 1e-6);
    /* once: the next ticks give nothing more */
    assert_true(rb_debris_step(f.debris, 100));
    rb_body_state later;
    assert_true(rb_world_get_body_by_id(f.world, id, &later));
    assert_near(later.velocity[0], s.velocity[0], 1e-6);
    close_all(&f);
}

/* Wind's drag from rest on a cube square to it: the wind meets one face
 * of the 3x3x3 cube, 1.2 x 1.2 m = 1.44 m^2 (its 9 cells' faces; the side
 * faces are parallel to it and meet none), so dv/dt = k (W - v)^2 with
 * k = drag A / m, and W - v(t) = 1 / (1 / W + k t). The force is held
 * through each 16 ms tick (the rate it would have at the tick's start):
 * within 2% of W after 5 s. The cube is symmetric about the wind: it must
 * not turn (the faces' moments cancel). */
static void test_wind_drag(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const int row = rb_entities_find(f.entities, "cube");
    const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)row, &(rb_body_desc){.position = {0, 0, 0}});
    rb_debris_desc dd = {.field_count = 1};
    dd.fields[0] = (rb_field){.kind = RB_FIELD_WIND, .velocity = {10.0f, 0.0f, 0.0f}, .drag = 50.0f};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, steps_of(5.0f)));
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f.world, id, &s));
    const double area = 1.2 * 1.2, k = 50.0 * area / s.mass, w = 10.0, expect = w - 1.0 / (1.0 / w + k * 5.0);
    print_message("v = %.4f m/s after 5 s, expected %.4f; spin %.2e rad/s\n", s.velocity[0], expect,
                  rb_test_len(s.angular_velocity));
    assert_near(s.velocity[0], expect, 0.02 * w);
    assert_true(rb_test_len(s.angular_velocity) < 1e-3f);
    close_all(&f);
}

/* Wind meets a body's faces by their projected area: a 2x2x2 cube turned
 * 45 degrees to the wind shows sqrt 2 times the area it shows face on. */
static void test_wind_meets_faces(void **state) {
    (void)state;
    float speed[2];
    for (int k = 0; k < 2; k++) {
        fixture f = {0};
        open_world(&f, empty_space());
        /* the cube2 (2x2x2): face on, the wind meets 4 cells' faces; turned 45
         * degrees about y, two sides of 4 each at cos 45 (pressure on each
         * face's projected area): 4 sqrt 2 cells' worth */
        rb_body_desc b = {.position = {0, 0, 0}};
        if (k) b.orientation[1] = sinf(0.3926991f), b.orientation[3] = cosf(0.3926991f); /* 45 degrees about y */
        const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube2"), &b);
        rb_debris_desc dd = {.field_count = 1};
        dd.fields[0] = (rb_field){.kind = RB_FIELD_WIND, .velocity = {10.0f, 0.0f, 0.0f}, .drag = 1.0f};
        open_debris(&f, &dd);
        assert_true(rb_debris_step(f.debris, 10)); /* one tick: v stays about 0 */
        rb_body_state s;
        assert_true(rb_world_get_body_by_id(f.world, id, &s));
        speed[k] = s.velocity[0];
        close_all(&f);
    }
    print_message("face on %.5f m/s, 45 degrees %.5f m/s (ratio %.4f, expected sqrt 2)\n", speed[0], speed[1],
                  speed[1] / speed[0]);
    assert_near(speed[1] / speed[0], sqrt(2.0), 0.01);
}

/* A vortex pulls a body at distance rho from its axis towards the swirl's
 * speed there, strength rho / R, at rate `drag`: v(t) = v_want (1 - e^-drag t).
 * After 0.5 s at drag 2: 63% of the way, within 3% of v_want (the body
 * drifts out a little as it turns). */
static void test_vortex(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube"),
                                            &(rb_body_desc){.position = {4.0f, 0.0f, 0.0f}});
    rb_debris_desc dd = {.field_count = 1};
    dd.fields[0] =
        (rb_field){.kind = RB_FIELD_VORTEX, .radius = 8.0f, .strength = 6.0f, .drag = 2.0f, .axis = {0, 1, 0}};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, steps_of(0.5f)));
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f.world, id, &s));
    const double want = 6.0 * 4.0 / 8.0, expect = want * (1.0 - exp(-1.0));
    print_message("swirl %.4f m/s (x %.4f), expected %.4f\n", -s.velocity[2], s.velocity[0], expect);
    assert_near(-s.velocity[2], expect, 0.03 * want); /* axis y x radial +x = -z */
    close_all(&f);
}

/* A body falling into a kill region is removed, debris or not; one beside
 * it stays. */
static void test_kill_region(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube");
    const rb_body_id in = rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {0.0f, 3.0f, 0.0f}});
    const rb_body_id out = rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {5.0f, 3.0f, 0.0f}});
    rb_debris_desc dd = {.kill_count = 1};
    dd.kill[0] = (rb_kill_region){{-1.0f, 0.0f, -1.0f}, {1.0f, 1.0f, 1.0f}};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, steps_of(0.3f)));
    assert_true(rb_world_body_valid(f.world, in)); /* still above it */
    assert_true(rb_debris_step(f.debris, steps_of(1.2f)));
    assert_false(rb_world_body_valid(f.world, in));
    assert_true(rb_world_body_valid(f.world, out));
    assert_int_equal(rb_debris_removed(f.debris), 1);
    close_all(&f);
}

/* Debris asleep for remove_asleep seconds goes; a scene body that is not
 * debris sleeps on. */
static void test_remove_asleep(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube");
    const rb_body_id junk = rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {0.0f, 0.61f, 0.0f}});
    const rb_body_id keep = rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {5.0f, 0.61f, 0.0f}});
    rb_debris_desc dd = {.remove_asleep = 1.0f};
    open_debris(&f, &dd);
    assert_true(rb_debris_track(f.debris, junk, 0.0f));
    double gone = -1.0;
    for (int k = 0; k < 300 && gone < 0.0; k++) {
        assert_true(rb_debris_step(f.debris, 10));
        if (!rb_world_body_valid(f.world, junk)) gone = rb_debris_time(f.debris);
    }
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f.world, keep, &s));
    print_message("removed at %.3f s; the other asleep: %d\n", gone, s.asleep);
    assert_true(s.asleep);
    /* it falls asleep after sleep_time (0.5 s) of rest, then 1 s more */
    assert_true(gone >= 1.5 && gone < 3.0);
    close_all(&f);
}

/* With a cap on bodies, the oldest debris goes first: the newest stay. */
static void test_body_cap(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {.emitter_count = 1, .max_bodies = 50};
    dd.emitters[0] = rain(500.0f, 0.0f);
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, 10));
    const rb_body_id first = rb_world_body_id(f.world, 0);
    assert_true(rb_debris_step(f.debris, steps_of(1.0f)));
    assert_int_equal(rb_world_body_count(f.world), 50);
    assert_false(rb_world_body_valid(f.world, first));
    /* the 8 of the last tick are there: the last bodies in the world's order */
    assert_int_equal(rb_debris_spawned(f.debris) - rb_debris_removed(f.debris), 50);
    close_all(&f);
}

/* A body with a lifetime fades over its last half second, then is gone. */
static void test_fade(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube"),
                                            &(rb_body_desc){.position = {0, 0, 0}});
    rb_debris_desc dd = {0};
    open_debris(&f, &dd);
    assert_true(rb_debris_track(f.debris, id, 1.0f));
    assert_true(rb_debris_step(f.debris, steps_of(0.4f)));
    assert_near(rb_debris_fade(f.debris, id), 1.0, 1e-6);
    assert_true(rb_debris_step(f.debris, steps_of(0.35f)));
    assert_near(rb_debris_fade(f.debris, id), 0.5, 0.01);
    assert_true(rb_debris_step(f.debris, steps_of(0.3f)));
    assert_false(rb_world_body_valid(f.world, id));
    close_all(&f);
}

/* Fields added at run time start at once; a full table takes the next in
 * the place of the oldest field that is done, and refuses it while none is. */
static void test_add_field(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, empty_space());
    const rb_body_id id = rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube"),
                                            &(rb_body_desc){.position = {3.0f, 0.0f, 4.0f}});
    rb_debris_desc dd = {0};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, 25));
    const rb_field blast = {.kind = RB_FIELD_RADIAL,
                            .radius = 10.0f,
                            .strength = 5000.0f,
                            .impulse = true,
                            .falloff = 1.0f,
                            .start = 99.0f};
    assert_true(rb_debris_add_field(f.debris, &blast));
    assert_near(rb_debris_get_desc(f.debris)->fields[0].start, rb_debris_time(f.debris), 1e-6);
    assert_true(rb_debris_field_active(f.debris, 0));
    assert_true(rb_debris_step(f.debris, 10)); /* the tick at step 30 gives it */
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(f.world, id, &s));
    assert_near(s.mass * s.velocity[0], 0.6 * 2500.0, 0.25);
    rb_field none = blast;
    none.radius = 0.0f;
    assert_false(rb_debris_add_field(f.debris, &none));
    /* the table full of fields still to act: refused */
    rb_field later = {.kind = RB_FIELD_WIND, .velocity = {1.0f, 0.0f, 0.0f}, .drag = 0.0f, .duration = 1.0f};
    for (uint32_t k = 1; k < RB_DEBRIS_MAX_FIELDS; k++) assert_true(rb_debris_add_field(f.debris, &later));
    assert_int_equal(rb_debris_get_desc(f.debris)->field_count, RB_DEBRIS_MAX_FIELDS);
    /* field 0 is done (given): it makes room */
    rb_field vortex = {.kind = RB_FIELD_VORTEX, .radius = 2.0f, .axis = {0.0f, 1.0f, 0.0f}};
    assert_true(rb_debris_add_field(f.debris, &vortex));
    assert_int_equal(rb_debris_get_desc(f.debris)->fields[0].kind, RB_FIELD_VORTEX);
    assert_false(rb_debris_add_field(f.debris, &vortex));
    /* a second on: the winds are over, the oldest goes first */
    assert_true(rb_debris_step(f.debris, steps_of(1.1f)));
    assert_true(rb_debris_add_field(f.debris, &blast));
    assert_int_equal(rb_debris_get_desc(f.debris)->fields[1].kind, RB_FIELD_RADIAL);
    assert_int_equal(rb_debris_get_desc(f.debris)->field_count, RB_DEBRIS_MAX_FIELDS);
    close_all(&f);
}

/* An emitter added mid-run (the sandbox's emitter key) starts at once and
 * emits at its rate: added at step 625 (1 s, inside a tick), 125 bodies/s
 * owe 2 a tick (a hair under: dt is a float), and the ticks at steps 630
 * to 1240 are 62: 124 bodies by 2 s, within a tick's 2. Removed, it emits
 * no more and its bodies stay. */
static void test_add_emitter_mid_run(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {0};
    open_debris(&f, &dd);
    assert_true(rb_debris_step(f.debris, steps_of(1.0f)));
    assert_int_equal(rb_debris_spawned(f.debris), 0);
    rb_emitter e = rain(125.0f, 0.0f);
    e.start = 99.0f; /* set to now */
    char err[256];
    if (!rb_debris_add_emitter(f.debris, &e, err, sizeof err)) fail_msg("rb_debris_add_emitter: %s", err);
    assert_near(rb_debris_get_desc(f.debris)->emitters[0].start, rb_debris_time(f.debris), 1e-6);
    assert_true(rb_debris_emitter_active(f.debris, 0));
    assert_true(rb_debris_step(f.debris, steps_of(1.0f)));
    const uint64_t made = rb_debris_spawned(f.debris);
    print_message("emitted %llu in the second after it was added (125 asked)\n", (unsigned long long)made);
    assert_in_range(made, 122, 126);
    assert_int_equal(rb_debris_alive(f.debris), made);
    assert_int_equal(rb_world_body_count(f.world), made);
    assert_true(rb_debris_remove_emitter(f.debris, 0));
    assert_false(rb_debris_remove_emitter(f.debris, 0));
    assert_int_equal(rb_debris_get_desc(f.debris)->emitter_count, 0);
    assert_true(rb_debris_step(f.debris, steps_of(0.5f)));
    assert_int_equal(rb_debris_spawned(f.debris), made);
    assert_int_equal(rb_world_body_count(f.world), made);
    /* the slot it left takes a new one, which starts from nothing owed */
    if (!rb_debris_add_emitter(f.debris, &e, err, sizeof err)) fail_msg("rb_debris_add_emitter: %s", err);
    assert_true(rb_debris_step(f.debris, steps_of(0.5f)));
    assert_in_range(rb_debris_spawned(f.debris) - made, 60, 64);
    close_all(&f);
}

/* Emitters added at run time are refused with the reason: an unknown shape,
 * a region centred under the ground, no rate, and a full table. Nothing is
 * added by a refusal. */
static void test_add_emitter_refused(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {0};
    open_debris(&f, &dd);
    char err[256];
    rb_emitter e = rain(10.0f, 1.0f);
    snprintf(e.choices[0].shape, sizeof e.choices[0].shape, "no-such-shape");
    assert_false(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    print_message("%s\n", err);
    assert_non_null(strstr(err, "no shape 'no-such-shape'"));
    e = rain(10.0f, 1.0f);
    e.region.centre[1] = -0.5f;
    assert_false(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    print_message("%s\n", err);
    assert_non_null(strstr(err, "inside a plane's solid"));
    e = rain(0.0f, 1.0f);
    assert_false(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    assert_non_null(strstr(err, "rate"));
    assert_int_equal(rb_debris_get_desc(f.debris)->emitter_count, 0);
    e = rain(10.0f, 1.0f);
    for (uint32_t k = 0; k < RB_DEBRIS_MAX_EMITTERS; k++)
        assert_true(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    assert_false(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    print_message("%s\n", err);
    assert_non_null(strstr(err, "emitters are in use"));
    assert_int_equal(rb_debris_get_desc(f.debris)->emitter_count, RB_DEBRIS_MAX_EMITTERS);
    /* one removed makes room */
    assert_true(rb_debris_remove_emitter(f.debris, 3));
    assert_true(rb_debris_add_emitter(f.debris, &e, err, sizeof err));
    close_all(&f);
}

/* An emitter inside a plane's solid, or naming no shape, is refused with the key. */
static void test_bad_emitters_refused(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_debris_desc dd = {.emitter_count = 1};
    dd.emitters[0] = rain(10.0f, 1.0f);
    dd.emitters[0].region.centre[1] = -2.0f;
    char err[256];
    assert_null(rb_debris_create(&dd, f.entities, err, sizeof err));
    assert_non_null(strstr(err, "emitters[0].region"));
    dd.emitters[0] = rain(10.0f, 1.0f);
    snprintf(dd.emitters[0].choices[0].shape, sizeof dd.emitters[0].choices[0].shape, "no-such-shape");
    assert_null(rb_debris_create(&dd, f.entities, err, sizeof err));
    assert_non_null(strstr(err, "emitters[0].shapes[0]"));
    close_all(&f);
}

/* Impact debris: a 1.2 m cube (1,728 kg) landing flat from 5 m changes its
 * momentum by m v (1 + e) = 1728 x 9.9 x 1.5, about 26 kN s, from 0.2 m by
 * 5 kN s; a threshold of 12 kN s throws chips at the first and not the
 * second. Each hit throws its `count` chips, all of them (evenly round the
 * cube, none where another is); they land beside the cube, not in it or in
 * the ground, and throw none themselves. */
static uint64_t impacts_from(float height, uint32_t count, uint64_t *spawned, uint64_t *short_of, float *lowest) {
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    rb_entities_spawn(f.entities, (uint32_t)rb_entities_find(f.entities, "cube"),
                      &(rb_body_desc){.position = {0.0f, 0.6f + height, 0.0f}});
    rb_debris_desc dd = {
        .impact = {
            .shape = "cube2", .scale = 0.25f, .threshold = 12000.0f, .count = count, .speed = 3.0f, .lifetime = 5.0f}};
    open_debris(&f, &dd);
    *lowest = INFINITY;
    for (int k = 0; k < 150; k++) {
        assert_true(rb_debris_step(f.debris, 10));
        for (uint32_t b = 1; b < rb_world_body_count(f.world); b++) {
            rb_body_state s;
            assert_true(rb_world_get_body(f.world, b, &s));
            *lowest = fminf(*lowest, s.position[1]);
        }
    }
    const uint64_t n = rb_debris_impacts(f.debris);
    *spawned = rb_debris_spawned(f.debris);
    *short_of = rb_debris_chips_short(f.debris);
    close_all(&f);
    return n;
}

static void test_impact_debris(void **state) {
    (void)state;
    uint64_t spawned, short_of;
    float lowest;
    for (uint32_t count = 1; count <= 8; count *= 2) {
        const uint64_t high = impacts_from(5.0f, count, &spawned, &short_of, &lowest);
        print_message("count %u from 5 m: %llu impacts, %llu chips, %llu short, the lowest chip centre %.3f m\n", count,
                      (unsigned long long)high, (unsigned long long)spawned, (unsigned long long)short_of, lowest);
        /* the landing, perhaps its first rebound's, and a chip falling back on it */
        assert_true(high >= 1 && high <= 4);
        assert_int_equal(spawned, (uint64_t)count * high); /* every chip asked for */
        assert_int_equal(short_of, 0);
        assert_true(lowest > 0.0f); /* above the ground: none started inside it */
    }
    const uint64_t low = impacts_from(0.2f, 4, &spawned, &short_of, &lowest);
    assert_int_equal(low, 0);
    assert_int_equal(spawned, 0);
}

/* Chips only where contacts struck: a cube thrown up from 20 m (10 m/s, its
 * start velocity 17 kN s of momentum), one kicked sideways by a blast 2 m
 * from it at 0.3 s (10 kN s, 5.8 m/s, some of it up), and one under a 150 m/s wind from 0.6 s (a held force
 * of about 20 kN, 330 N s a tick), all in free flight for 1.5 s, throw
 * none at a threshold of 200 N s: the start velocity, the blast and the
 * wind are no hits. */
static void test_no_chips_in_free_flight(void **state) {
    (void)state;
    fixture f = {0};
    open_world(&f, rb_default_world_desc());
    const uint32_t cube = (uint32_t)rb_entities_find(f.entities, "cube");
    rb_entities_spawn(f.entities, cube,
                      &(rb_body_desc){.position = {0.0f, 20.0f, 0.0f},
                                      .velocity = {1.0f, 10.0f, 0.0f},
                                      .angular_velocity = {0.5f, 1.0f, 0.0f}});
    rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {20.0f, 30.0f, 0.0f}});
    rb_entities_spawn(f.entities, cube, &(rb_body_desc){.position = {-20.0f, 30.0f, 0.0f}});
    rb_debris_desc dd = {
        .impact = {.shape = "cube2", .scale = 0.25f, .threshold = 200.0f, .count = 4, .speed = 3.0f, .lifetime = 5.0f},
        .field_count = 2};
    dd.fields[0] = (rb_field){.kind = RB_FIELD_RADIAL,
                              .centre = {18.0f, 30.0f, 0.0f},
                              .radius = 3.0f,
                              .start = 0.3f,
                              .strength = 30000.0f,
                              .impulse = true,
                              .falloff = 1.0f};
    dd.fields[1] = (rb_field){.kind = RB_FIELD_WIND,
                              .centre = {-20.0f, 30.0f, 0.0f},
                              .radius = 4.0f,
                              .start = 0.6f,
                              .velocity = {150.0f, 0.0f, 0.0f},
                              .drag = 0.6f};
    open_debris(&f, &dd);
    float speed[3] = {0, 0, 0};
    for (int k = 0; k < 94; k++) assert_true(rb_debris_step(f.debris, 10)); /* 1.5 s */
    for (uint32_t b = 0; b < 3; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(f.world, b, &s));
        speed[b] = sqrtf(s.velocity[0] * s.velocity[0] + s.velocity[2] * s.velocity[2]);
        assert_true(s.position[1] > 5.0f); /* still flying */
    }
    print_message("in flight 1.5 s: %llu impacts, %llu chips; sideways the thrown, blasted and blown cubes at %.2f, "
                  "%.2f, %.2f m/s\n",
                  (unsigned long long)rb_debris_impacts(f.debris), (unsigned long long)rb_debris_spawned(f.debris),
                  speed[0], speed[1], speed[2]);
    assert_true(speed[1] > 3.0f && speed[2] > 3.0f); /* the blast and the wind did push */
    assert_int_equal(rb_debris_impacts(f.debris), 0);
    assert_int_equal(rb_debris_spawned(f.debris), 0);
    close_all(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emitter_holds_rate_times_lifetime),
        cmocka_unit_test(test_churn_reuses_slots),
        cmocka_unit_test(test_world_churn_every_step),
        cmocka_unit_test(test_debris_is_deterministic),
        cmocka_unit_test(test_radial_impulse),
        cmocka_unit_test(test_wind_drag),
        cmocka_unit_test(test_wind_meets_faces),
        cmocka_unit_test(test_vortex),
        cmocka_unit_test(test_kill_region),
        cmocka_unit_test(test_remove_asleep),
        cmocka_unit_test(test_body_cap),
        cmocka_unit_test(test_fade),
        cmocka_unit_test(test_add_field),
        cmocka_unit_test(test_add_emitter_mid_run),
        cmocka_unit_test(test_add_emitter_refused),
        cmocka_unit_test(test_bad_emitters_refused),
        cmocka_unit_test(test_impact_debris),
        cmocka_unit_test(test_no_chips_in_free_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
