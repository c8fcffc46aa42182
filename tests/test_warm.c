/* test_warm.c - the headless runner's warm-up (src/app/run.c, rb_run_warm)
 * leaves no trace: bodies that touch at the start (contact history built in
 * the first step), a breakable body (its pieces' peak loads) and a joint
 * (its peak force) run through the runner's path give the same state
 * whether the run was warmed or not, and the same on the reference and on
 * OpenCL (PoCL). */
#include "rb_test.h"

#include "app/run.h"

/* A cube sliding on the ground with another pressed on it and sliding the
 * other way: contacts from t = 0 with a tangential displacement after the
 * first step. A breakable cube beside them, joined to the first. */
static const char *scene_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.598, 0], \"velocity\": [1, 0, 0]},\n"
    "   {\"shape\": \"cube\", \"position\": [0.1, 1.796, 0], \"velocity\": [-1, 0, 0.5]},\n"
    "   {\"shape\": \"cube\", \"position\": [2.5, 0.598, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 3,\n"
    "    \"seed\": 2, \"strength\": 1000000}}\n"
    " ]}\n";

static rb_registry *g_reg;

/* What a step leaves behind, beyond the digest. */
typedef struct outcome {
    uint64_t digest;
    uint32_t contact_count;
    rb_contact_memory contacts[4096];
    float loads[8];
    uint32_t load_count;
    rb_joint_state joint;
    uint64_t overflow;
} outcome;

/* The scene run `steps` steps through the runner on `backend`, warmed first or not. */
static void run_scene(rb_backend_kind backend, bool warm, long steps, outcome *out) {
    char err[1024];
    rb_scene *scene = rb_scene_parse(scene_text, "warm.json", g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = backend;
    rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    rb_world *w = rb_run_world(run);
    const rb_joint_desc jd = {
        .a = rb_world_body_id(w, 0), .b = rb_world_body_id(w, 2), .anchor_a = {0.6f, 0, 0}, .anchor_b = {-1.9f, 0, 0}};
    assert_true(rb_world_add_joint(w, &jd) > 0);
    if (warm) rb_run_warm(run);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, steps, "warm", false, &stats));
    memset(out, 0, sizeof *out);
    out->digest = rb_run_summarize(run).digest;
    out->contact_count = rb_world_read_contacts(w, out->contacts, 4096);
    if (!(out->contact_count > 0 && out->contact_count <= 4096)) fail_msg("%u contacts", out->contact_count);
    out->load_count = rb_world_piece_loads(w, rb_world_body_id(w, 2), out->loads, 8);
    assert_int_equal(out->load_count, 3);
    assert_true(rb_world_get_joint(w, 0, &out->joint));
    out->overflow = rb_world_contact_overflow(w);
    rb_run_destroy(run);
}

static void assert_same(const outcome *a, const outcome *b, const char *what) {
    if (a->digest != b->digest)
        fail_msg("%s: digest %016llx against %016llx", what, (unsigned long long)a->digest,
                 (unsigned long long)b->digest);
    if (a->contact_count != b->contact_count ||
        memcmp(a->contacts, b->contacts, a->contact_count * sizeof *a->contacts))
        fail_msg("%s: the contact history differs (%u against %u entries)", what, a->contact_count, b->contact_count);
    if (memcmp(a->loads, b->loads, sizeof a->loads)) fail_msg("%s: the pieces' peak loads differ", what);
    if (a->joint.broken != b->joint.broken || memcmp(&a->joint.peak_force, &b->joint.peak_force, sizeof(float)))
        fail_msg("%s: the joint's peak force differs (%g against %g)", what, a->joint.peak_force, b->joint.peak_force);
    if (a->overflow != b->overflow) fail_msg("%s: contact overflow differs", what);
}

static void check_steps(long steps) {
    static outcome ref, cold, warm, ref_warm;
    run_scene(RB_BACKEND_REFERENCE, false, steps, &ref);
    run_scene(RB_BACKEND_REFERENCE, true, steps, &ref_warm);
    run_scene(RB_BACKEND_OPENCL, false, steps, &cold);
    run_scene(RB_BACKEND_OPENCL, true, steps, &warm);
    printf("%ld steps: reference %016llx (warmed %016llx), opencl %016llx (warmed %016llx)\n", steps,
           (unsigned long long)ref.digest, (unsigned long long)ref_warm.digest, (unsigned long long)cold.digest,
           (unsigned long long)warm.digest);
    assert_same(&ref, &ref_warm, "reference, warmed against not");
    assert_same(&cold, &warm, "opencl, warmed against not");
    assert_same(&ref, &warm, "reference against opencl warmed");
    /* the first step builds tangential displacement in the contacts alive at t = 0 */
    bool displaced = false;
    for (uint32_t i = 0; i < ref.contact_count; i++)
        displaced |= ref.contacts[i].displacement[0] != 0.0f || ref.contacts[i].displacement[2] != 0.0f;
    assert_true(displaced);
    assert_true(ref.joint.peak_force > 0.0f && ref.loads[0] > 0.0f);
}

static void test_warm_one_step(void **state) {
    (void)state;
    check_steps(1);
}

static void test_warm_many_steps(void **state) {
    (void)state;
    check_steps(60);
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    return g_reg ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warm_one_step),
        cmocka_unit_test(test_warm_many_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
