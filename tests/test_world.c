/* The world API: ids, adding and removing bodies while running, impulses,
 * bad input refused with nothing lost, the first-particle index. */
#include "rb_test.h"

static rb_world *world_with_shapes(uint32_t shapes[3], rb_registry **reg) {
    rb_world *w = rb_test_world(rb_default_world_desc());
    *reg = rb_test_registry();
    shapes[0] = rb_test_add_shape(w, *reg, "cube");
    shapes[1] = rb_test_add_shape(w, *reg, "cube2");
    shapes[2] = rb_test_add_lattice(w, 6, 0.2f, 64.0f);
    return w;
}

static bool same_state(const rb_body_state *a, const rb_body_state *b) {
    return memcmp(a->position, b->position, sizeof a->position) == 0 &&
           memcmp(a->orientation, b->orientation, sizeof a->orientation) == 0 &&
           memcmp(a->velocity, b->velocity, sizeof a->velocity) == 0 &&
           memcmp(a->angular_momentum, b->angular_momentum, sizeof a->angular_momentum) == 0;
}

/* The CSR index matches each body's shape through adds and removes. */
static void check_index(rb_world *w, const uint32_t counts[3]) {
    const uint32_t *first = rb_world_body_first_particle(w);
    assert_int_equal(first[0], 0);
    for (uint32_t b = 0; b < rb_world_body_count(w); b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        assert_int_equal(first[b + 1] - first[b], counts[s.shape]);
    }
    assert_int_equal(first[rb_world_body_count(w)], rb_world_particle_count(w));
}

/* Removing a body and adding another while the world runs leaves every other
 * body's state bit for bit as it was; ids stay valid, the removed id is stale. */
static void test_add_remove_keeps_states(void **state) {
    uint32_t shapes[3];
    const uint32_t counts[3] = {27, 8, 216};
    rb_registry *reg;
    rb_world *w = world_with_shapes(shapes, &reg);
    rb_body_id ids[12];
    for (int i = 0; i < 12; i++)
        ids[i] = rb_test_add_body(w, shapes[i % 3], (i % 4) * 3.0f, 1.5f + (i / 4) * 3.0f, 0.0f);
    check_index(w, counts);
    assert_true(rb_world_step(w, 300));
    rb_body_state before[12], after;
    for (int i = 0; i < 12; i++) assert_true(rb_world_get_body_by_id(w, ids[i], &before[i]));

    assert_true(rb_world_remove_body(w, ids[4]));
    rb_body_id added = rb_test_add_body(w, shapes[2], 50.0f, 5.0f, 50.0f);
    assert_int_equal(rb_world_body_count(w), 12);
    check_index(w, counts);
    for (int i = 0; i < 12; i++) {
        if (i == 4) continue;
        assert_true(rb_world_get_body_by_id(w, ids[i], &after));
        assert_true(same_state(&before[i], &after));
    }
    /* the stale id is refused everywhere */
    rb_body_state s;
    const float zero[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    assert_false(rb_world_body_valid(w, ids[4]));
    assert_false(rb_world_get_body_by_id(w, ids[4], &s));
    assert_false(rb_world_remove_body(w, ids[4]));
    assert_false(rb_world_apply_impulse(w, ids[4], up, zero));
    /* a new body may reuse the slot, never the generation */
    assert_true(added.slot != ids[4].slot || added.generation != ids[4].generation);
    assert_true(rb_world_step(w, 100));
    assert_true(rb_world_body_valid(w, added));
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* An impulse J at the centre adds J / m; at an offset point it adds r x J to L. */
static void test_impulse(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    desc.gravity[1] = 0.0f;
    desc.plane_count = 0;
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    uint32_t cube = rb_test_add_shape(w, reg, "cube");
    rb_body_id id = rb_test_add_body(w, cube, 1.0f, 2.0f, 3.0f);
    rb_body_state s;
    assert_true(rb_world_apply_impulse(w, id, (const float[3]){1728.0f, 0, 0}, (const float[3]){1, 2, 3}));
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_near(s.velocity[0], 1.0, 1e-6);
    assert_near(rb_test_len(s.angular_momentum), 0.0, 1e-6);
    /* 0.5 m above the centre, along +z: L = (0, 0.5, 0) x (0, 0, 100) = (50, 0, 0) */
    assert_true(rb_world_apply_impulse(w, id, (const float[3]){0, 0, 100.0f}, (const float[3]){1, 2.5f, 3}));
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_near(s.angular_momentum[0], 50.0, 1e-4);
    assert_near(s.angular_velocity[0], 50.0 / 396.288, 1e-5);
    assert_near(s.velocity[2], 100.0 / 1728.0, 1e-6);
    /* a force lasts one step call: F dt / m per step for 10 steps, then nothing */
    assert_true(rb_world_apply_force(w, id, (const float[3]){0, 1728.0f, 0}, s.position));
    assert_true(rb_world_step(w, 10));
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_near(s.velocity[1], 10 * desc.dt, 1e-6);
    assert_true(rb_world_step(w, 10));
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_near(s.velocity[1], 10 * desc.dt, 1e-6);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* Bad input gets a message naming the problem, and nothing changes. */
static void test_bad_input(void **state) {
    char err[256];
    rb_world_desc desc = rb_default_world_desc();
    desc.gravity[1] = NAN;
    assert_null(rb_world_create(&desc, err, sizeof err));
    assert_non_null(strstr(err, "gravity"));
    desc = rb_default_world_desc();
    desc.dt = 0.01f;
    assert_null(rb_world_create(&desc, err, sizeof err));
    assert_non_null(strstr(err, "dt"));
    desc = rb_default_world_desc();
    desc.material.restitution = 0.0f;
    assert_null(rb_world_create(&desc, err, sizeof err));
    assert_non_null(strstr(err, "restitution"));
    desc.material.restitution = 0.1f; /* below what a contact that never pulls can give */
    assert_null(rb_world_create(&desc, err, sizeof err));
    assert_non_null(strstr(err, "0.135"));
    desc.material.restitution = 0.2f; /* its dashpot needs a smaller step than the default */
    assert_null(rb_world_create(&desc, err, sizeof err));
    assert_non_null(strstr(err, "needs dt < 0.00124"));
    desc.dt = 0.001f;
    rb_world *low = rb_world_create(&desc, err, sizeof err);
    assert_non_null(low);
    rb_world_destroy(low);

    rb_world *w = rb_test_world(rb_default_world_desc());
    rb_registry *reg = rb_test_registry();
    uint32_t cube = rb_test_add_shape(w, reg, "cube");
    rb_test_add_body(w, cube, 0, 1, 0);
    uint64_t digest = rb_world_digest(w);
    rb_body_desc bad = {.shape = cube, .position = {0, NAN, 0}};
    assert_int_equal(rb_world_add_body(w, &bad).generation, 0);
    bad = (rb_body_desc){.shape = 99};
    assert_int_equal(rb_world_add_body(w, &bad).generation, 0);
    rb_body_state s;
    rb_world_get_body(w, 0, &s);
    assert_false(rb_world_apply_impulse(w, s.id, (const float[3]){INFINITY, 0, 0}, s.position));
    assert_false(
        rb_world_set_material(w, (rb_material){.restitution = 0.5f, .friction = NAN, .contact_time = 0.008f}, 0.001f));
    const float origin[3] = {0, 0, 0};
    rb_shape_data no_mass = {1, origin, 0.0f, {1, 1, 1}, 0.0f};
    assert_int_equal(rb_world_add_shape(w, &no_mass), -1);
    assert_int_equal(rb_world_body_count(w), 1);
    assert_true(rb_world_digest(w) == digest);
    assert_true(rb_world_step(w, 10)); /* and it still runs */
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* Many adds grow every array; clearing empties the world. */
static void test_growth_and_clear(void **state) {
    uint32_t shapes[3];
    const uint32_t counts[3] = {27, 8, 216};
    rb_registry *reg;
    rb_world *w = world_with_shapes(shapes, &reg);
    for (int i = 0; i < 500; i++) rb_test_add_body(w, shapes[i % 2], (i % 20) * 2.0f, 1.0f + (i / 20) * 2.0f, 0.0f);
    check_index(w, counts);
    assert_int_equal(rb_world_particle_count(w), 250 * 27 + 250 * 8);
    assert_true(rb_world_step(w, 5));
    rb_world_clear(w);
    assert_int_equal(rb_world_body_count(w), 0);
    assert_int_equal(rb_world_particle_count(w), 0);
    assert_true(rb_world_step(w, 5));
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* The transforms the renderer reads right after steps (straight from the
 * backend where it can) are the bodies' states, bit for bit. */
static void test_transforms_match_states(void **state) {
    uint32_t shapes[3];
    rb_registry *reg;
    rb_world *w = world_with_shapes(shapes, &reg);
    for (int i = 0; i < 9; i++) rb_test_add_body(w, shapes[i % 3], (i % 3) * 3.0f, 2.0f + (i / 3) * 3.0f, 0.0f);
    assert_true(rb_world_step(w, 200));
    rb_transform t[9];
    assert_true(rb_world_read_transforms(w, t));
    const uint32_t *shapes_of = rb_world_body_shapes(w);
    for (uint32_t b = 0; b < 9; b++) {
        rb_body_state s;
        assert_true(rb_world_get_body(w, b, &s));
        assert_memory_equal(t[b].position, s.position, sizeof s.position);
        assert_memory_equal(t[b].orientation, s.orientation, sizeof s.orientation);
        /* ids and shapes come from the host arrays, without a read-back */
        assert_int_equal(rb_world_body_id(w, b).slot, s.id.slot);
        assert_int_equal(rb_world_body_id(w, b).generation, s.id.generation);
        assert_int_equal(shapes_of[b], s.shape);
        assert_int_equal(s.shape, shapes[b % 3]);
    }
    assert_int_equal(rb_world_body_id(w, 9).generation, 0); /* past the end: the null id */
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

static const rb_material restore_material = {.restitution = 0.8f, .friction = 0.3f, .contact_time = 0.01f};

/* The scene of the save-and-restore test: twelve bodies of three shapes
 * (27, 8 and 216 particles, every other of restore_material) dropped
 * spinning, a static cube among them, a
 * kinematic cube gliding and turning above them, and a cube thrown into them
 * after they settled; see test_restore_continues. */
enum { RESTORE_DROPPED = 12, RESTORE_BODIES = 15 };

static rb_body_desc restore_scene_desc(const uint32_t shapes[3], int i) {
    static const float spin[3] = {0.4f, -1.1f, 0.7f};
    if (i == RESTORE_DROPPED) /* static, on the ground beside the first row */
        return (rb_body_desc){.shape = shapes[0], .position = {-3.0f, 0.6f, 0.0f}, .kind = RB_BODY_STATIC};
    if (i == RESTORE_DROPPED + 1) /* kinematic, above the last row */
        return (rb_body_desc){.shape = shapes[0],
                              .position = {-2.0f, 3.5f, 6.0f},
                              .velocity = {0.3f, 0.0f, 0.05f},
                              .angular_velocity = {0.1f, 0.5f, -0.2f},
                              .kind = RB_BODY_KINEMATIC};
    if (i == RESTORE_DROPPED + 2) /* thrown in after the others settled */
        return (rb_body_desc){.shape = shapes[0], .position = {-3.0f, 1.0f, 3.0f}, .velocity = {12.0f, 1.0f, 0.0f}};
    rb_body_desc d = {.shape = shapes[i % 3],
                      .position = {(i % 4) * 3.0f, 1.5f + (i % 3) * 0.7f, (i / 4) * 3.0f},
                      .material = (uint32_t)(i % 2)};
    for (int k = 0; k < 3; k++) d.angular_velocity[k] = spin[k] * (float)(i % 5);
    return d;
}

/* Save and restore, for scene files that reload and go on: a world runs
 * 2000 steps (bodies falling asleep), a cube is thrown into it and it runs
 * on until bodies are asleep, others have their sleep timers part-way and
 * others move (contacts in progress).
 * Every body's state is read; a new world gets the same shapes, materials
 * and bodies (kinds and materials included) in the same order and each
 * body's state restored. The
 * states read back are the saved ones bit for bit (angular velocity and
 * sleep timer included), and after 800 more steps of both worlds their
 * digests are equal: the state a step carries over is exactly what
 * rb_world_restore_body puts back. (Tested with the sleep timer left out of
 * the restore: the digests part.) */
static void test_restore_continues(void **state) {
    uint32_t shapes[3], fresh_shapes[3];
    rb_registry *reg, *reg2;
    rb_world *a = world_with_shapes(shapes, &reg);
    assert_int_equal(rb_world_add_material(a, restore_material), 1);
    enum { N = RESTORE_BODIES };
    for (int i = 0; i < N - 1; i++) {
        rb_body_desc d = restore_scene_desc(shapes, i);
        assert_int_not_equal(rb_world_add_body(a, &d).generation, 0);
    }
    assert_true(rb_world_step(a, 2000));
    rb_body_desc thrown = restore_scene_desc(shapes, N - 1);
    assert_int_not_equal(rb_world_add_body(a, &thrown).generation, 0);
    /* saved once every part of the state matters: some bodies asleep, some
     * with their sleep timer running, some moving */
    rb_body_state saved[N];
    int asleep = 0, timing = 0, moving = 0, steps = 2000;
    const float sleep_time = rb_world_get_desc(a)->sleep_time;
    while (!(asleep > 0 && timing > 0 && moving > 0) && steps < 6000) {
        assert_true(rb_world_step(a, 10));
        steps += 10;
        asleep = timing = moving = 0;
        for (int i = 0; i < N; i++) {
            assert_true(rb_world_get_body(a, (uint32_t)i, &saved[i]));
            asleep += saved[i].asleep;
            timing += saved[i].sleep_timer > 0.0f && saved[i].sleep_timer < sleep_time;
            moving += rb_test_len(saved[i].velocity) > 0.1f;
        }
    }
    print_message("saved %d bodies after %d steps: %d asleep, %d with a sleep timer running, %d moving\n", N, steps,
                  asleep, timing, moving);
    assert_true(asleep > 0 && timing > 0 && moving > 0);
    assert_int_equal(saved[RESTORE_DROPPED].kind, RB_BODY_STATIC);
    assert_int_equal(saved[RESTORE_DROPPED + 1].kind, RB_BODY_KINEMATIC);

    rb_world *b = world_with_shapes(fresh_shapes, &reg2);
    assert_int_equal(rb_world_add_material(b, restore_material), 1);
    rb_body_id ids[N];
    for (int i = 0; i < N; i++) {
        rb_body_desc d = restore_scene_desc(fresh_shapes, i);
        ids[i] = rb_world_add_body(b, &d);
        assert_true(rb_world_restore_body(b, ids[i], &saved[i]));
    }
    /* the contacts' memory: without it the continuation parts at once (a slipping contact's spring) */
    const uint32_t contacts = rb_world_read_contacts(a, NULL, 0);
    rb_contact_memory *memory = malloc(sizeof *memory * (contacts + 1));
    assert_int_equal(rb_world_read_contacts(a, memory, contacts), contacts);
    print_message("%u contacts remembered\n", contacts);
    assert_true(contacts > 0);
    assert_true(rb_world_restore_contacts(b, memory, contacts));
    assert_int_equal(rb_world_read_contacts(b, NULL, 0), contacts);
    for (int i = 0; i < N; i++) {
        rb_body_state s;
        assert_true(rb_world_get_body(b, (uint32_t)i, &s));
        assert_true(same_state(&saved[i], &s));
        assert_memory_equal(s.angular_velocity, saved[i].angular_velocity, sizeof s.angular_velocity);
        assert_memory_equal(&s.sleep_timer, &saved[i].sleep_timer, sizeof s.sleep_timer);
        assert_memory_equal(&s.support, &saved[i].support, sizeof s.support);
        assert_int_equal(s.asleep, saved[i].asleep);
        assert_int_equal(s.kind, saved[i].kind);
        assert_int_equal(s.material, saved[i].material);
    }
    assert_true(rb_world_digest(a) == rb_world_digest(b));
    for (int k = 0; k < 4; k++) {
        assert_true(rb_world_step(a, 200));
        assert_true(rb_world_step(b, 200));
        assert_true(rb_world_digest(a) == rb_world_digest(b));
    }

    /* refused, with nothing changed: a stale id, non-finite values, a bad
     * quaternion, a negative timer, a static body given a velocity */
    const uint64_t digest = rb_world_digest(b);
    rb_body_state bad = saved[0];
    assert_false(rb_world_restore_body(b, (rb_body_id){0, 0}, &bad));
    bad.position[1] = NAN;
    assert_false(rb_world_restore_body(b, ids[0], &bad));
    bad = saved[0], bad.angular_momentum[2] = INFINITY;
    assert_false(rb_world_restore_body(b, ids[0], &bad));
    bad = saved[0], bad.orientation[3] *= 2.0f;
    assert_false(rb_world_restore_body(b, ids[0], &bad));
    bad = saved[0], bad.sleep_timer = -0.5f; /* -1 and -2 are holds (world.h) */
    assert_false(rb_world_restore_body(b, ids[0], &bad));
    bad = saved[RESTORE_DROPPED], bad.velocity[0] = 1.0f;
    assert_false(rb_world_restore_body(b, ids[RESTORE_DROPPED], &bad));
    bad = saved[0], bad.support = NAN;
    assert_false(rb_world_restore_body(b, ids[0], &bad));
    assert_true(rb_world_digest(b) == digest);

    /* contacts refused whole: a particle out of range, a partner of its own
     * body or past the planes, a NaN displacement or rolling angle, five for
     * one particle, out of order */
    const uint32_t particles = rb_world_particle_count(b), first1 = rb_world_body_first_particle(b)[1];
    const uint32_t remembered = rb_world_read_contacts(b, NULL, 0);
    const rb_contact_memory refused[][5] = {
        {{particles, 0, {0, 0, 0}, {0, 0, 0}}},
        {{0, 1, {0, 0, 0}, {0, 0, 0}}},
        {{0, RB_CONTACT_PLANE + 7, {0, 0, 0}, {0, 0, 0}}},
        {{0, first1, {NAN, 0, 0}, {0, 0, 0}}},
        {{0, first1, {0, 0, 0}, {0, INFINITY, 0}}},
        {{0, first1, {0}, {0}},
         {0, first1 + 1, {0}, {0}},
         {0, first1 + 2, {0}, {0}},
         {0, first1 + 3, {0}, {0}},
         {0, first1 + 4, {0}, {0}}},
        {{1, first1, {0}, {0}}, {0, first1, {0}, {0}}},
    };
    const uint32_t refused_count[] = {1, 1, 1, 1, 1, 5, 2};
    for (size_t k = 0; k < sizeof refused_count / sizeof *refused_count; k++)
        assert_false(rb_world_restore_contacts(b, refused[k], refused_count[k]));
    assert_int_equal(rb_world_read_contacts(b, NULL, 0), remembered);
    free(memory);
    rb_world_destroy(a), rb_world_destroy(b);
    rb_registry_destroy(reg), rb_registry_destroy(reg2);
}

static bool same_material(rb_material a, rb_material b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Materials: indices from 1 (0 is the description's), refused with the
 * reason (out of range; a step too large for the dashpot, naming the step
 * it needs; the 17th), bodies naming one, the mixing rules' algebra, and the
 * step changed for every pair or for none. */
static void test_materials(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    rb_world *w = rb_test_world(desc);
    rb_registry *reg = rb_test_registry();
    const uint32_t cube = rb_test_add_shape(w, reg, "cube");
    rb_material m;
    assert_int_equal(rb_world_material_count(w), 1);
    assert_true(rb_world_get_material(w, 0, &m) && same_material(m, desc.material));
    assert_false(rb_world_get_material(w, 1, &m));

    const rb_material dull = {.restitution = 0.3f, .friction = 0.9f, .contact_time = 0.008f};
    const rb_material ice = {.restitution = 0.5f, .friction = 0.0f, .contact_time = 0.012f};
    assert_int_equal(rb_world_add_material(w, dull), 1);
    assert_int_equal(rb_world_add_material(w, ice), 2);
    assert_true(rb_world_get_material(w, 2, &m) && same_material(m, ice));
    rb_log_clear_last_error();
    assert_int_equal(
        rb_world_add_material(w, (rb_material){.restitution = 0.2f, .friction = 0.5f, .contact_time = 0.008f}), -1);
    assert_non_null(strstr(rb_log_last_error(), "needs dt < 0.00124"));
    assert_int_equal(
        rb_world_add_material(w, (rb_material){.restitution = 0.5f, .friction = NAN, .contact_time = 0.008f}), -1);
    assert_non_null(strstr(rb_log_last_error(), "friction"));
    assert_int_equal(rb_world_material_count(w), 3);

    /* the mixing rules: symmetric, a material with itself is itself, values as README says */
    const rb_material ab = rb_material_mix(dull, ice), ba = rb_material_mix(ice, dull);
    assert_true(same_material(ab, ba));
    assert_true(same_material(rb_material_mix(dull, dull), dull));
    assert_true(same_material(rb_material_mix(ice, ice), ice));
    assert_near(ab.friction, 0.0, 0.0);
    assert_near(ab.restitution, 0.5, 0.0);
    assert_near(ab.contact_time, sqrt(0.5 * (0.008 * 0.008 + 0.012 * 0.012)), 1e-9);
    assert_near(rb_material_mix(dull, desc.material).friction, sqrt(0.45), 1e-7);

    /* bodies name a material; an unknown one is refused */
    rb_body_desc d = {.shape = cube, .position = {0, 0.6f, 0}, .material = 2};
    rb_body_id id = rb_world_add_body(w, &d);
    rb_body_state s;
    assert_true(rb_world_get_body_by_id(w, id, &s));
    assert_int_equal(s.material, 2);
    d.material = 3, d.position[0] = 3.0f;
    assert_int_equal(rb_world_add_body(w, &d).generation, 0);

    /* removing a body moves the later ones' kinds and materials down with them */
    rb_body_desc k1 = {.shape = cube, .position = {-3, 3, 0}, .kind = RB_BODY_STATIC, .material = 1};
    rb_body_desc k2 = {.shape = cube, .position = {-6, 3, 0}, .kind = RB_BODY_KINEMATIC, .material = 0};
    const rb_body_id i1 = rb_world_add_body(w, &k1), i2 = rb_world_add_body(w, &k2);
    assert_true(rb_world_remove_body(w, id));
    assert_true(rb_world_get_body_by_id(w, i1, &s));
    assert_true(s.kind == RB_BODY_STATIC && s.material == 1);
    assert_true(rb_world_get_body_by_id(w, i2, &s));
    assert_true(s.kind == RB_BODY_KINEMATIC && s.material == 0);
    assert_true(rb_world_remove_body(w, i1) && rb_world_remove_body(w, i2));
    d.material = 2, d.position[0] = 0.0f;
    id = rb_world_add_body(w, &d);

    /* a step the e = 0.3 material cannot take is refused for every material, naming it */
    assert_false(rb_world_set_material(w, desc.material, 0.0017f));
    assert_non_null(strstr(rb_log_last_error(), "material 1"));
    assert_non_null(strstr(rb_log_last_error(), "needs dt < 0.00166"));
    assert_true(rb_world_get_desc(w)->dt == desc.dt);
    const rb_material soft = {.restitution = 0.6f, .friction = 0.4f, .contact_time = 0.01f};
    assert_true(rb_world_set_material(w, soft, 0.001f));
    assert_true(rb_world_get_material(w, 0, &m) && same_material(m, soft));
    assert_true(rb_world_get_desc(w)->dt == 0.001f && same_material(rb_world_get_desc(w)->material, soft));
    assert_true(rb_world_get_material(w, 1, &m) && same_material(m, dull));

    /* a 16th material, and no 17th */
    for (uint32_t k = rb_world_material_count(w); k < RB_MAX_MATERIALS; k++)
        assert_int_equal(rb_world_add_material(w, dull), (int)k);
    assert_int_equal(rb_world_add_material(w, dull), -1);
    assert_non_null(strstr(rb_log_last_error(), "at most 16"));
    d.material = RB_MAX_MATERIALS - 1;
    assert_int_not_equal(rb_world_add_body(w, &d).generation, 0);
    d.material = RB_MAX_MATERIALS;
    assert_int_equal(rb_world_add_body(w, &d).generation, 0);

    /* gravity is not a material: changing it leaves every pair's contact as it was */
    d = (rb_body_desc){.shape = cube, .position = {0.9f, 0.55f, 0.2f}, .material = 1};
    assert_int_not_equal(rb_world_add_body(w, &d).generation, 0); /* on the ground, into the first cube */
    const uint32_t n = rb_world_particle_count(w);
    float *before = malloc(sizeof(float) * 3 * n), *after = malloc(sizeof(float) * 3 * n);
    assert_true(rb_world_particle_forces(w, before));
    assert_true(rb_world_set_gravity(w, (const float[3]){0.0f, -3.7f, 0.0f}));
    assert_true(rb_world_particle_forces(w, after));
    assert_memory_equal(before, after, sizeof(float) * 3 * n);
    assert_true(before[3 * (n - 27) + 0] != 0.0f); /* the new cube's first particle touches the first cube */
    free(before), free(after);
    rb_world_destroy(w);
    rb_registry_destroy(reg);
}

/* Shapes carry their particle radius: 0 takes the description's, a
 * negative or non-finite one is refused (logged) with nothing added; the
 * renderer reads it with rb_world_shape_radius, 0 past the last shape. The
 * description's own radius is kept apart: a world with pebbles still says
 * 0.2 there. */
static void test_shape_radius(void **state) {
    rb_world_desc desc = rb_default_world_desc();
    rb_world *w = rb_test_world(desc);
    const float origin[3] = {0, 0, 0};
    rb_shape_data d = {1, origin, 1.0f, {0.001f, 0.001f, 0.001f}, 0.0f};
    assert_int_equal(rb_world_add_shape(w, &d), 0);
    d.particle_radius = 0.05f;
    assert_int_equal(rb_world_add_shape(w, &d), 1);
    const float bad[] = {-0.1f, NAN, INFINITY};
    for (int k = 0; k < 3; k++) {
        rb_log_clear_last_error();
        d.particle_radius = bad[k];
        assert_int_equal(rb_world_add_shape(w, &d), -1);
        assert_non_null(strstr(rb_log_last_error(), "particle_radius"));
    }
    assert_int_equal(rb_world_shape_count(w), 2);
    assert_true(rb_world_shape_radius(w, 0) == desc.particle_radius);
    assert_true(rb_world_shape_radius(w, 1) == 0.05f);
    assert_true(rb_world_shape_radius(w, 2) == 0.0f);
    rb_body_desc b = {.shape = 1, .position = {0, 0.05f, 0}};
    assert_int_not_equal(rb_world_add_body(w, &b).generation, 0);
    assert_true(rb_world_get_desc(w)->particle_radius == desc.particle_radius);
    assert_true(rb_world_step(w, 10));
    rb_body_state st;
    assert_true(rb_world_get_body(w, 0, &st));
    assert_near(st.position[1], 0.05, 1e-3); /* it rests on the ground at its own radius */
    rb_world_destroy(w);
}

/* rb_sincos, which turns every orientation on both backends, is within an
 * ulp of sin and cos on [-pi/4, pi/4] and within 8e-8 of them to 1e4 rad,
 * and turns nothing for NaN or a spin past 2^16 rad a step. */
static void test_sincos(void **state) {
    double near = 0.0, far = 0.0;
    for (int i = -100000; i <= 100000; i++) {
        const float x = (float)(0.7853981 * i / 100000.0), y = (float)(1e4 * i / 100000.0) + 0.37f;
        float s, c;
        rb_sincos(x, &s, &c);
        const float ulp_s = nextafterf(fabsf((float)sin(x)), INFINITY) - fabsf((float)sin(x));
        const float ulp_c = nextafterf(fabsf((float)cos(x)), INFINITY) - fabsf((float)cos(x));
        near = fmax(near, fmax(fabs(s - sin(x)) / ulp_s, fabs(c - cos(x)) / ulp_c));
        rb_sincos(y, &s, &c);
        far = fmax(far, fmax(fabs(s - sin(y)), fabs(c - cos(y))));
    }
    print_message("rb_sincos: %.3f ulp on [-pi/4, pi/4], %.3g to 1e4 rad\n", near, far);
    assert_true(near <= 1.0);
    assert_true(far <= 8e-8);
    float s = 1.0f, c = 0.0f;
    rb_sincos(NAN, &s, &c);
    assert_true(s == 0.0f && c == 1.0f);
    rb_sincos(1e6f, &s, &c);
    assert_true(s == 0.0f && c == 1.0f);
}

/* A world bigger than any machine is refused with the estimate, before
 * anything is allocated; one that fits is not. */
static void test_fits_estimates_bytes(void **state) {
    char err[512];
    rb_world_desc d = rb_default_world_desc();
    assert_true(rb_world_fits(&d, 1000, 27000, err, sizeof err));
    assert_false(rb_world_fits(&d, 2000000000ull, 54000000000000ull, err, sizeof err));
    /* host 610 B a body, 277 a particle at 4 slots (112 of them its
     * contact history: keys, displacements and rolling angles); OpenCL 330
     * and 4 more (src/sim/world_memory.c, fitted to measured peak memory) */
    assert_non_null(strstr(err, "2000000000 bodies of 54000000000000 particles need about 15.2 PB (host 15 PB, "
                                "device 217 TB), more than the "));
    assert_non_null(strstr(err, "of memory available ("));
    d.backend = RB_BACKEND_REFERENCE; /* no device buffers */
    assert_false(rb_world_fits(&d, 2000000000ull, 54000000000000ull, err, sizeof err));
    assert_non_null(strstr(err, "device 0 B"));
    /* within memory but past a grid table's indexing on OpenCL */
    d.backend = RB_BACKEND_OPENCL;
    if (rb_world_fits(&d, 1, 600000000ull, err, sizeof err)) fail_msg("600 M particles fit OpenCL: %s", err);
    assert_true(strstr(err, "limit of 536870912") || strstr(err, "of memory available"));
}

/* The contacts a particle remembers follow the bodies
 * (rb_world_contact_slots): 4 for cubes, 8 once lone spheres (bodies of one
 * particle) are at least half the dynamic particles, 4 again when they are
 * fewer; the history goes with the slots, all of it when they grow, each
 * particle's first 4 when they shrink. A count the description gives
 * stays, whatever the bodies. */
static void test_contact_slots_follow_bodies(void **state) {
    uint32_t shapes[3];
    rb_registry *reg;
    rb_world *w = world_with_shapes(shapes, &reg);
    const uint32_t one = rb_test_add_lattice(w, 1, 0.2f, 1.0f);
    assert_int_equal(rb_world_contact_slots(w), 4); /* nothing dynamic */
    rb_test_add_body(w, shapes[0], 0.0f, 5.0f, 0.0f);
    rb_body_id spheres[28];
    for (int i = 0; i < 26; i++) spheres[i] = rb_test_add_body(w, one, 3.0f * (float)(i + 1), 5.0f, 0.0f);
    assert_int_equal(rb_world_contact_slots(w), 4); /* 26 of 53 */
    /* a sphere's memory of 4 contacts (with spheres, and the ground) */
    const rb_contact_memory four[4] = {{27, 28, {1e-4f, 0, 0}, {0}},
                                       {27, 29, {0, 2e-4f, 0}, {0}},
                                       {27, RB_CONTACT_PLANE, {0, 0, 3e-4f}, {0.1f, 0, 0}},
                                       {27, 30, {4e-4f, 0, 0}, {0}}};
    assert_true(rb_world_restore_contacts(w, four, 4));
    spheres[26] = rb_test_add_body(w, one, 90.0f, 5.0f, 0.0f);
    assert_int_equal(rb_world_contact_slots(w), 8); /* 27 of 54 */
    rb_contact_memory got[8];
    assert_int_equal(rb_world_read_contacts(w, got, 8), 4);
    assert_memory_equal(got, four, sizeof four);
    /* 8 kept now: 6 for one sphere, then 2 for another */
    const rb_contact_memory eight[8] = {{27, 28, {1, 0, 0}, {0}},  {27, 29, {2, 0, 0}, {0}}, {27, 30, {3, 0, 0}, {0}},
                                        {27, 31, {4, 0, 0}, {0}},  {27, 32, {5, 0, 0}, {0}}, {27, 33, {6, 0, 0}, {0}},
                                        {28, 27, {-1, 0, 0}, {0}}, {28, 34, {7, 0, 0}, {0}}};
    assert_true(rb_world_restore_contacts(w, eight, 8));
    assert_int_equal(rb_world_read_contacts(w, NULL, 0), 8);
    /* spheres come and go (the last ones, so no partner is renumbered) */
    spheres[27] = rb_test_add_body(w, one, 93.0f, 5.0f, 0.0f);
    assert_true(rb_world_remove_body(w, spheres[27]));
    assert_int_equal(rb_world_contact_slots(w), 8); /* 27 of 54 */
    assert_int_equal(rb_world_read_contacts(w, NULL, 0), 8);
    assert_true(rb_world_remove_body(w, spheres[26]));
    assert_int_equal(rb_world_contact_slots(w), 4); /* 26 of 53 */
    assert_int_equal(rb_world_read_contacts(w, got, 8), 6);
    assert_memory_equal(got, eight, 4 * sizeof *got);         /* the first sphere's first 4 */
    assert_memory_equal(got + 4, eight + 6, 2 * sizeof *got); /* the other's 2 */
    assert_true(rb_world_step(w, 10));                        /* and the world steps on */
    rb_world_destroy(w);

    /* as the description says */
    rb_world_desc d = rb_default_world_desc();
    d.contact_slots = 8;
    w = rb_test_world(d);
    rb_test_add_body(w, rb_test_add_lattice(w, 3, 0.2f, 1.0f), 0.0f, 5.0f, 0.0f);
    assert_int_equal(rb_world_contact_slots(w), 8);
    rb_world_destroy(w);
    d.contact_slots = 4;
    w = rb_test_world(d);
    rb_test_add_body(w, rb_test_add_lattice(w, 1, 0.2f, 1.0f), 0.0f, 5.0f, 0.0f);
    assert_int_equal(rb_world_contact_slots(w), 4);
    rb_world_destroy(w);
    /* and no other count */
    char err[256];
    d.contact_slots = 6;
    assert_false(rb_world_desc_check(&d, err, sizeof err));
    assert_non_null(strstr(err, "contact_slots must be 4, 8 or 0"));
    rb_registry_destroy(reg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_estimates_bytes),
        cmocka_unit_test(test_add_remove_keeps_states),
        cmocka_unit_test(test_impulse),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_growth_and_clear),
        cmocka_unit_test(test_transforms_match_states),
        cmocka_unit_test(test_restore_continues),
        cmocka_unit_test(test_contact_slots_follow_bodies),
        cmocka_unit_test(test_materials),
        cmocka_unit_test(test_shape_radius),
        cmocka_unit_test(test_sincos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
