/* test_resume.c - a recording resumed from a keyframe: the world built
 * again from the keyframe's scene and stepped on reaches the next keyframe
 * bit for bit, on the reference and on OpenCL (PoCL), whichever recorded;
 * a keyframe after a break (its pieces saved as the scene's own shapes)
 * resumes too.
 * Files are written in the build folder. */
#include "rb_test.h"

#include "app/run.h"
#include "record/cache.h"

/* Cubes of two kinds and two materials dropped in a heap, sleeping off: by
 * the first second they lie on each other, still moving, with contact
 * history (the static friction's springs), which the keyframe has to carry. */
static const char *heap_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016, \"sleep\": {\"time\": 0}},\n"
    " \"materials\": {\"rubber\": {\"restitution\": 0.7, \"friction\": 0.9}},\n"
    " \"generators\": [{\"type\": \"grid\", \"shape\": \"cube\", \"count\": [4, 3, 4], \"position\": [0, 1, 0]},\n"
    "                {\"type\": \"grid\", \"shape\": \"cube2\", \"count\": [3, 2, 3], \"position\": [0.3, 5, 0.2],\n"
    "                 \"material\": \"rubber\"}]}\n";

/* A breakable cube struck hard: the keyframes after the break hold pieces. */
static const char *break_text =
    "{\"rubble_scene\": 1,\n"
    " \"world\": {\"gravity\": [0, -9.81, 0], \"dt\": 0.0016},\n"
    " \"bodies\": [\n"
    "   {\"shape\": \"cube\", \"position\": [0, 0.6, 0], \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 4,\n"
    "    \"seed\": 2, \"strength\": 2000}},\n"
    "   {\"shape\": \"cube\", \"position\": [-3, 0.8, 0], \"velocity\": [25, 0, 0]}\n"
    " ]}\n";

static rb_registry *g_reg;

static char *build_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/resume-%s", RB_TEST_BUILD_DIR, name);
    return out;
}

/* The run takes the scene. */
static rb_run *run_of(rb_scene *scene, rb_backend_kind backend) {
    char err[1024];
    rb_world_desc base = rb_default_world_desc();
    base.backend = backend;
    rb_run *run = rb_run_create(g_reg, scene, &base, NULL, err, sizeof err);
    if (!run) fail_msg("%s", err);
    return run;
}

static bool on_frame(void *writer, double time) { return rb_cache_frame(writer, time); }

/* Records a scene for `seconds` on the backend under test; the cache, read back. */
static rb_cache *record(const char *text, const char *name, double seconds) {
    char err[1024], path[512];
    rb_scene *scene = rb_scene_parse(text, name, g_reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_run *run = run_of(scene, rb_test_backend());
    build_path(path, sizeof path, name);
    rb_cache_writer *w = rb_cache_begin(path, rb_run_world(run), rb_run_entities(run), 60.0, err, sizeof err);
    if (!w) fail_msg("%s", err);
    rb_run_on_frames(run, 60.0, on_frame, w);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, (long)(seconds / 0.0016 + 0.5), name, false, &stats));
    if (!rb_cache_end(w, err, sizeof err)) fail_msg("%s", err);
    rb_run_destroy(run);
    rb_cache *c = rb_cache_open(path, err, sizeof err);
    if (!c) fail_msg("%s", err);
    return c;
}

/* Every field a step carries over, bit for bit (the ids are the rebuilt
 * world's own). */
static void assert_same_state(const rb_body_state *a, const rb_body_state *b, uint32_t body) {
    const bool same = a->shape == b->shape && !memcmp(a->position, b->position, sizeof a->position) &&
                      !memcmp(a->orientation, b->orientation, sizeof a->orientation) &&
                      !memcmp(a->velocity, b->velocity, sizeof a->velocity) &&
                      !memcmp(a->angular_momentum, b->angular_momentum, sizeof a->angular_momentum) &&
                      !memcmp(&a->sleep_timer, &b->sleep_timer, sizeof a->sleep_timer) &&
                      !memcmp(&a->support, &b->support, sizeof a->support) && a->asleep == b->asleep &&
                      a->kind == b->kind && a->material == b->material;
    if (!same)
        fail_msg("body %u differs: position %.9g %.9g %.9g against %.9g %.9g %.9g", body, a->position[0],
                 a->position[1], a->position[2], b->position[0], b->position[1], b->position[2]);
}

/* Keyframe 1 built again and stepped to keyframe 2's time gives keyframe
 * 2's states, on both backends. */
static void test_resume_bit_for_bit(void **state) {
    (void)state;
    rb_cache *c = record(heap_text, "heap.rbc", 2.1);
    assert_int_equal(c->key_count, 3);
    assert_int_equal(rb_cache_key_before(c, 0), 0);
    assert_int_equal(rb_cache_key_before(c, c->keys[1].frame - 1), 0);
    assert_int_equal(rb_cache_key_before(c, c->keys[1].frame), 1);
    assert_int_equal(rb_cache_key_before(c, c->frame_count - 1), 2);
    const rb_cached_key *from = &c->keys[1], *to = &c->keys[2];
    assert_true(from->resumable && to->resumable);
    const long steps = lround((to->time - from->time) / c->dt);
    const rb_backend_kind backends[2] = {RB_BACKEND_REFERENCE, RB_BACKEND_OPENCL};
    for (int k = 0; k < 2; k++) {
        char err[1024];
        rb_scene *scene = rb_cache_key_scene(c, 1, g_reg, err, sizeof err);
        if (!scene) fail_msg("%s", err);
        assert_true(scene->contact_count > 100); /* the heap rests on remembered contacts */
        rb_run *run = run_of(scene, backends[k]);
        rb_world *w = rb_run_world(run);
        assert_int_equal(rb_world_body_count(w), from->body_count);
        rb_run_stats stats;
        assert_true(rb_run_steps(run, steps, "resume", false, &stats));
        assert_int_equal(rb_world_body_count(w), to->body_count);
        uint32_t asleep = 0;
        for (uint32_t b = 0; b < to->body_count; b++) {
            rb_body_state s;
            assert_true(rb_world_get_body(w, b, &s));
            assert_same_state(&s, &to->states[b], b);
            asleep += s.asleep;
        }
        printf("%s: %u bodies (%u asleep, %u contacts remembered) resumed at %.4f s, equal at %.4f s after %ld steps\n",
               rb_world_backend_name(w), to->body_count, asleep, scene->contact_count, from->time, to->time, steps);
        rb_run_destroy(run);
    }
    rb_cache_close(c);
}

/* After the break the keyframe holds the pieces as shapes of the scene's
 * own (docs/scene-format.md, "shapes"): built again, on both backends, and
 * stepped to the next keyframe, it gives that keyframe's states to the bit
 * (nothing breaks between them; a further break needs the debris layer's
 * own state, which its keys save). */
static void test_pieces_resume(void **state) {
    (void)state;
    rb_cache *c = record(break_text, "break.rbc", 2.1);
    assert_int_equal(c->key_count, 3);
    assert_true(c->keys[0].resumable && c->keys[1].resumable && c->keys[2].resumable);
    const rb_cached_key *from = &c->keys[1], *to = &c->keys[2];
    assert_true(from->body_count > 2); /* broken by then */
    assert_int_equal(to->body_count, from->body_count);
    const long steps = lround((to->time - from->time) / c->dt);
    const rb_backend_kind backends[2] = {RB_BACKEND_REFERENCE, RB_BACKEND_OPENCL};
    for (int k = 0; k < 2; k++) {
        char err[1024];
        rb_scene *scene = rb_cache_key_scene(c, 1, g_reg, err, sizeof err);
        if (!scene) fail_msg("%s", err);
        assert_true(scene->shape_count > 0);
        rb_run *run = run_of(scene, backends[k]);
        rb_world *w = rb_run_world(run);
        assert_int_equal(rb_world_body_count(w), from->body_count);
        rb_run_stats stats;
        assert_true(rb_run_steps(run, steps, "resume", false, &stats));
        assert_int_equal(rb_world_body_count(w), to->body_count);
        for (uint32_t b = 0; b < to->body_count; b++) {
            rb_body_state s;
            assert_true(rb_world_get_body(w, b, &s));
            /* a piece's world shape number is the rebuilt world's own */
            rb_body_state t = to->states[b];
            assert_memory_equal(&s.mass, &t.mass, sizeof s.mass); /* its shape's mass: the same piece */
            t.shape = s.shape;
            assert_same_state(&s, &t, b);
        }
        printf("%s: %u bodies (%u saved shapes) resumed after the break at %.4f s, equal at %.4f s\n",
               rb_world_backend_name(w), to->body_count, scene->shape_count, from->time, to->time);
        rb_run_destroy(run);
    }
    char err[1024];
    assert_null(rb_cache_key_scene(c, 3, g_reg, err, sizeof err));
    assert_non_null(strstr(err, "no keyframe 3"));
    rb_cache_close(c);
}

static int setup(void **state) {
    (void)state;
    g_reg = rb_test_registry();
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rb_registry_destroy(g_reg);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_bit_for_bit),
        cmocka_unit_test(test_pieces_resume),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
