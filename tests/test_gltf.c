/* test_gltf.c - rb_gltf_write (src/record/gltf.h): a small animation (a cube
 * and a tetrahedron; a body alive throughout, one born at frame 10, one
 * dying at frame 20) written as .glb, passed by the Khronos validator
 * (tests/gltf/validate.js, run with node) and read back by assimp, whose
 * animation keys must give the tracks back; what is refused, leaving
 * nothing under the name; and a breaking scene's export: its pieces' cut
 * meshes, a material a colour. Files are written into the build folder
 * (RB_TEST_OUT). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/scene.h>

#include "app/run.h"
#include "base/color.h"
#include "record/cache.h"
#include "record/gltf.h"

#define FRAMES 30
#define RATE 24.0

/* ---- the animation ---- */

/* A unit cube, four vertices a face so that each face has its own normal. */
static float cube_pos[24 * 3], cube_nrm[24 * 3];
static uint32_t cube_idx[36];
/* A tetrahedron, three vertices a face. */
static float tet_pos[12 * 3], tet_nrm[12 * 3];
static uint32_t tet_idx[12];

static void make_cube(void) {
    for (int f = 0; f < 6; f++) {
        const int axis = f / 2;
        const float side = f % 2 ? 1.0f : -1.0f;
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int c = 0; c < 4; c++) {
            float *p = cube_pos + (f * 4 + c) * 3, *n = cube_nrm + (f * 4 + c) * 3;
            p[axis] = 0.5f * side, p[u] = 0.5f * corners[c][0], p[v] = 0.5f * corners[c][1];
            n[axis] = side, n[u] = 0, n[v] = 0;
        }
        /* counter-clockwise seen from outside */
        const uint32_t b = (uint32_t)f * 4;
        const uint32_t tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        const uint32_t flip[6] = {b, b + 2, b + 1, b, b + 3, b + 2};
        memcpy(cube_idx + f * 6, side > 0 ? tri : flip, sizeof tri);
    }
}

static void make_tetrahedron(void) {
    const float c[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    const int faces[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (int f = 0; f < 4; f++) {
        const float *a = c[faces[f][0]], *b = c[faces[f][1]], *d = c[faces[f][2]];
        float n[3] = {(b[1] - a[1]) * (d[2] - a[2]) - (b[2] - a[2]) * (d[1] - a[1]),
                      (b[2] - a[2]) * (d[0] - a[0]) - (b[0] - a[0]) * (d[2] - a[2]),
                      (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0])};
        const float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 3; i++) {
                tet_pos[(f * 3 + k) * 3 + i] = 0.3f * c[faces[f][k]][i];
                tet_nrm[(f * 3 + k) * 3 + i] = n[i] / len;
            }
            tet_idx[f * 3 + k] = (uint32_t)(f * 3 + k);
        }
    }
}

static rb_anim_shape shapes[2];
static rb_anim_body bodies[3];
static float tracks[3][FRAMES * 7];

/* A track that moves and turns every frame. Every other quaternion is
 * negated (the same turn), and body 2's are 1.5 long: the writer must give
 * unit quaternions on one side. */
static void make_track(float *t, uint32_t count, int body) {
    for (uint32_t f = 0; f < count; f++) {
        const double s = f + 3.0 * body;
        float *k = t + f * 7;
        k[0] = (float)(body * 2.0 + sin(0.3 * s));
        k[1] = (float)(1.0 + 0.1 * s - 0.01 * s * s);
        k[2] = (float)cos(0.2 * s) - body;
        const double axis[3] = {0.6, 0.0, 0.8}, half = 0.25 * s + 0.1 * body;
        const double sign = f % 2 ? -1.0 : 1.0, len = body == 2 ? 1.5 : 1.0;
        for (int i = 0; i < 3; i++) k[3 + i] = (float)(sign * len * sin(half) * axis[i]);
        k[6] = (float)(sign * len * cos(half));
    }
}

static rb_anim make_anim(void) {
    make_cube();
    make_tetrahedron();
    shapes[0] = (rb_anim_shape){.name = "cube",
                                .vertex_count = 24,
                                .positions = cube_pos,
                                .normals = cube_nrm,
                                .index_count = 36,
                                .indices = cube_idx};
    shapes[1] = (rb_anim_shape){.name = "tetrahedron",
                                .vertex_count = 12,
                                .positions = tet_pos,
                                .normals = tet_nrm,
                                .index_count = 12,
                                .indices = tet_idx};
    bodies[0] = (rb_anim_body){.id = 0x100000001ull, .shape = 0, .first = 0, .count = FRAMES, .track = tracks[0]};
    bodies[1] = (rb_anim_body){.id = 0x100000002ull, .shape = 1, .first = 10, .count = FRAMES - 10, .track = tracks[1]};
    bodies[2] = (rb_anim_body){.id = 0x200000003ull, .shape = 0, .first = 0, .count = 21, .track = tracks[2]};
    for (int b = 0; b < 3; b++) make_track(tracks[b], bodies[b].count, b);
    return (rb_anim){
        .rate = RATE, .frame_count = FRAMES, .shapes = shapes, .shape_count = 2, .bodies = bodies, .body_count = 3};
}

static void out_path(char *path, size_t size, const char *name) {
    mkdir(RB_TEST_OUT, 0755);
    snprintf(path, size, "%s/%s", RB_TEST_OUT, name);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- the Khronos validator ---- */

/* The validator on path: no error. */
static void validate(const char *path) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' 2>&1", RB_NODE, RB_VALIDATE_JS, RB_VALIDATOR_MODULES, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[1024];
    bool counted = false;
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        if (strstr(line, ": errors 0 ")) counted = true;
    }
    const int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
        fail_msg("cannot run node (%s): scripts/deps installs Debian's nodejs and npm", RB_NODE);
    if (WEXITSTATUS(status) == 2) fail_msg("the glTF validator did not run (see above)");
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(counted);
}

static void test_validator(void **state) {
    (void)state;
    const rb_anim anim = make_anim();
    char path[512], err[512] = "";
    out_path(path, sizeof path, "bodies.glb");
    assert_true(rb_gltf_write(path, &anim, err, sizeof err));
    validate(path);
}

/* ---- read back by assimp ---- */

static const struct aiNode *find_node(const struct aiNode *n, const char *name) {
    if (strcmp(n->mName.data, name) == 0) return n;
    for (unsigned i = 0; i < n->mNumChildren; i++) {
        const struct aiNode *found = find_node(n->mChildren[i], name);
        if (found) return found;
    }
    return NULL;
}

static const struct aiNodeAnim *find_channel(const struct aiAnimation *a, const char *name) {
    for (unsigned i = 0; i < a->mNumChannels; i++)
        if (strcmp(a->mChannels[i]->mNodeName.data, name) == 0) return a->mChannels[i];
    return NULL;
}

/* The key of keys (n of them, each size bytes, its time first) at time t
 * seconds; NULL when there is none. */
static const void *key_at(const void *keys, unsigned n, size_t size, double ticks, double t) {
    for (unsigned i = 0; i < n; i++) {
        const void *k = (const char *)keys + i * size;
        if (fabs(*(const double *)k / ticks - t) < 1e-5) return k;
    }
    return NULL;
}

static void test_assimp(void **state) {
    (void)state;
    const rb_anim anim = make_anim();
    char path[512], err[512] = "";
    out_path(path, sizeof path, "assimp.glb");
    assert_true(rb_gltf_write(path, &anim, err, sizeof err));

    const struct aiScene *scene = aiImportFile(path, 0);
    if (!scene) fail_msg("assimp cannot read %s: %s", path, aiGetErrorString());
    assert_int_equal(scene->mNumAnimations, 1);
    const struct aiAnimation *a = scene->mAnimations[0];
    /* assimp's glTF importer keeps times in milliseconds; ticks say so */
    const double ticks = a->mTicksPerSecond > 0 ? a->mTicksPerSecond : 1.0;
    printf("  assimp: %u meshes, %u channels, %g ticks a second, %g ticks long\n", scene->mNumMeshes, a->mNumChannels,
           ticks, a->mDuration);

    for (uint32_t b = 0; b < anim.body_count; b++) {
        const rb_anim_body *body = &anim.bodies[b];
        char name[64];
        snprintf(name, sizeof name, "body %llu", (unsigned long long)body->id);
        const struct aiNode *node = find_node(scene->mRootNode, name);
        const struct aiNodeAnim *ch = find_channel(a, name);
        if (!node || !ch) fail_msg("%s: no node or no channel", name);

        assert_int_equal(node->mNumMeshes, 1);
        const struct aiMesh *mesh = scene->mMeshes[node->mMeshes[0]];
        assert_int_equal(mesh->mNumVertices, anim.shapes[body->shape].vertex_count);
        assert_int_equal(mesh->mNumFaces, anim.shapes[body->shape].index_count / 3);

        /* every frame of its life, each a key at its time (a break at one
         * frame shows) */
        for (uint32_t frame = body->first; frame < body->first + body->count; frame++) {
            const double t = frame / anim.rate;
            const float *k = body->track + (size_t)(frame - body->first) * 7;
            const struct aiVectorKey *pk = key_at(ch->mPositionKeys, ch->mNumPositionKeys, sizeof *pk, ticks, t);
            const struct aiQuatKey *rk = key_at(ch->mRotationKeys, ch->mNumRotationKeys, sizeof *rk, ticks, t);
            if (!pk || !rk) fail_msg("%s: no key at frame %u (%g s)", name, frame, t);
            assert_float_equal(pk->mValue.x, k[0], 1e-4);
            assert_float_equal(pk->mValue.y, k[1], 1e-4);
            assert_float_equal(pk->mValue.z, k[2], 1e-4);
            /* the same turn: q or -q, normalised */
            const double len = sqrt(k[3] * k[3] + k[4] * k[4] + k[5] * k[5] + k[6] * k[6]);
            const struct aiQuaternion q = rk->mValue;
            const double dot = (q.x * k[3] + q.y * k[4] + q.z * k[5] + q.w * k[6]) / len;
            const double sign = dot < 0 ? -1.0 : 1.0;
            assert_float_equal(q.x, sign * k[3] / len, 1e-4);
            assert_float_equal(q.y, sign * k[4] / len, 1e-4);
            assert_float_equal(q.z, sign * k[5] / len, 1e-4);
            assert_float_equal(q.w, sign * k[6] / len, 1e-4);
        }
        /* one side throughout: an importer that does not take the short
         * way between keys still turns the short way */
        for (unsigned i = 1; i < ch->mNumRotationKeys; i++) {
            const struct aiQuaternion p = ch->mRotationKeys[i - 1].mValue, q = ch->mRotationKeys[i].mValue;
            assert_true(p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w > 0);
        }
        /* scale 0 outside its life, 1 inside (step keys: the value from a
         * key's time on) */
        const bool born_late = body->first > 0, dies_early = body->first + body->count < anim.frame_count;
        if (born_late || dies_early) {
            const double born = body->first / anim.rate, gone = (body->first + body->count) / anim.rate;
            const struct aiVectorKey *on = key_at(ch->mScalingKeys, ch->mNumScalingKeys, sizeof *on, ticks, born);
            assert_non_null(on);
            assert_float_equal(on->mValue.x, 1.0, 0);
            if (born_late) {
                const struct aiVectorKey *k0 = key_at(ch->mScalingKeys, ch->mNumScalingKeys, sizeof *k0, ticks, 0);
                assert_non_null(k0);
                assert_float_equal(k0->mValue.x, 0.0, 0);
            }
            if (dies_early) {
                const struct aiVectorKey *off = key_at(ch->mScalingKeys, ch->mNumScalingKeys, sizeof *off, ticks, gone);
                assert_non_null(off);
                assert_float_equal(off->mValue.y, 0.0, 0);
            }
        }
    }
    aiReleaseImport(scene);
}

/* ---- refusals ---- */

static void refused(const rb_anim *anim, const char *name, const char *says) {
    char path[512], err[512] = "";
    out_path(path, sizeof path, name);
    remove(path);
    assert_false(rb_gltf_write(path, anim, err, sizeof err));
    printf("  %s\n", err);
    assert_true(strncmp(err, path, strlen(path)) == 0 && strncmp(err + strlen(path), ": ", 2) == 0);
    if (!strstr(err, says)) fail_msg("'%s' does not say '%s'", err, says);
    assert_false(exists(path));
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    assert_false(exists(tmp));
}

static void test_refusals(void **state) {
    (void)state;
    rb_anim anim = make_anim();
    rb_anim_body body = bodies[1];
    anim.bodies = &body;
    anim.body_count = 1;

    body.shape = 2;
    refused(&anim, "shape.glb", "shape 2 of 2");
    body.shape = 1;
    body.count = FRAMES; /* born at 10, so past the end */
    refused(&anim, "long.glb", "past the animation");
    body.count = 5;
    float track[5 * 7];
    memcpy(track, tracks[1], sizeof track);
    track[2 * 7 + 1] = NAN;
    body.track = track;
    refused(&anim, "nan.glb", "frame 12 is not finite");
    memset(track + 3 * 7 + 3, 0, 4 * sizeof(float));
    track[2 * 7 + 1] = 0;
    refused(&anim, "zero.glb", "zero quaternion");
    memcpy(track, tracks[1], sizeof track);
    body.inside[1] = 1.5f;
    refused(&anim, "colour.glb", "body 0: a colour channel out of range (sRGB, 0 to 1)");
    body.inside[1] = 0.5f, body.color[2] = NAN;
    refused(&anim, "colour.glb", "body 0: a colour channel out of range");

    anim = make_anim();
    anim.rate = 0;
    refused(&anim, "rate.glb", "frame rate");
    anim = make_anim();
    rb_anim_shape sh[2] = {shapes[0], shapes[1]};
    uint32_t idx[12];
    memcpy(idx, tet_idx, sizeof idx);
    idx[4] = 12;
    sh[1].indices = idx;
    anim.shapes = sh;
    refused(&anim, "index.glb", "'tetrahedron': index 4 is 12");

    /* a folder that is not there: nothing written, the reason said */
    anim = make_anim();
    char err[512] = "";
    const char *missing = RB_TEST_OUT "/no such folder/x.glb";
    assert_false(rb_gltf_write(missing, &anim, err, sizeof err));
    printf("  %s\n", err);
    assert_non_null(strstr(err, "cannot write"));
    assert_true(strncmp(err, missing, strlen(missing)) == 0);
}

/* A failed write leaves the old file as it was. */
static void test_keeps_old_file(void **state) {
    (void)state;
    char path[512], err[512] = "";
    out_path(path, sizeof path, "kept.glb");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    rb_anim anim = make_anim();
    anim.frame_count = 0;
    assert_false(rb_gltf_write(path, &anim, err, sizeof err));
    char got[8] = "";
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "old");
}

/* ---- a breaking scene, recorded and exported ---- */

/* Two cubes of one colour break on landing, one with an inside colour of
 * its own, the other its colour's default; a third body, unbroken, in
 * another colour: the pieces in their cubes' colours, cut from the cube's
 * mesh (src/scenes/cut.h). */
static const char *const breaking_text =
    "{\"rubble_scene\": 1, \"bodies\": ["
    " {\"shape\": \"cube\", \"position\": [0, 0.61, 0], \"color\": \"#cc3333\", \"inside_color\": \"#e0c040\","
    "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6, \"seed\": 4, \"strength\": 1}},"
    " {\"shape\": \"cube\", \"position\": [4, 0.61, 0], \"color\": \"#cc3333\","
    "  \"breakable\": {\"pattern\": \"voronoi\", \"pieces\": 6, \"seed\": 5, \"strength\": 1}},"
    " {\"shape\": \"cube2\", \"position\": [8, 1, 0], \"color\": [0.2, 0.3, 0.9]}]}";

static bool record_frame(void *writer, double time) { return rb_cache_frame(writer, time); }

/* The scene run half a second, recorded through its stage (the pieces' cut
 * meshes and every body's colours), the cache read back into c. */
static rb_cache *record_breaking(void) {
    rb_registry *reg = rb_registry_create(&(rb_registry_desc){.particle_radius = 0.2f});
    rb_registry_scan_dir(reg, RB_TEST_PLUGIN_DIR);
    char err[1024], cache[512];
    rb_scene *scene = rb_scene_parse(breaking_text, "breaking", reg, err, sizeof err);
    if (!scene) fail_msg("%s", err);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    rb_run *run = rb_run_create(reg, scene, &base, NULL, err, sizeof err); /* it takes the scene */
    if (!run) fail_msg("%s", err);
    out_path(cache, sizeof cache, "breaking.rbc");
    rb_cache_writer *w = rb_cache_begin_stage(cache, rb_run_stage(run), RATE, err, sizeof err);
    if (!w) fail_msg("%s", err);
    rb_run_on_frames(run, RATE, record_frame, w);
    rb_run_stats stats;
    assert_true(rb_run_steps(run, 320, "gltf", false, &stats));
    assert_true(rb_cache_end(w, err, sizeof err));
    printf("  %llu breaks made %llu bodies\n", (unsigned long long)rb_debris_breaks(rb_run_debris(run)),
           (unsigned long long)rb_debris_pieces_made(rb_run_debris(run)));
    assert_int_equal(rb_debris_breaks(rb_run_debris(run)), 2);
    rb_run_destroy(run);
    rb_registry_destroy(reg);
    rb_cache *c = rb_cache_open(cache, err, sizeof err);
    if (!c) fail_msg("%s", err);
    return c;
}

static const char *material_name(const struct aiScene *scene, unsigned m) {
    static struct aiString name;
    if (aiGetMaterialString(scene->mMaterials[m], AI_MATKEY_NAME, &name) != aiReturn_SUCCESS) return "";
    return name.data;
}

/* The export of the breaking scene: valid, one material a colour (two
 * outside colours, two inside colours: four, however many pieces and
 * shapes), and each piece's cut mesh read back by assimp, its surface in
 * its cube's colour and its cut faces in the cube's inside colour. */
static void test_breaking_scene(void **state) {
    (void)state;
    rb_cache *c = record_breaking();
    char path[512], err[1024];
    out_path(path, sizeof path, "breaking.glb");
    assert_true(rb_cache_export(c, NULL, path, err, sizeof err));
    validate(path);

    rb_anim anim;
    assert_true(rb_cache_to_anim(c, &anim));
    const struct aiScene *scene = aiImportFile(path, 0);
    if (!scene) fail_msg("assimp cannot read %s: %s", path, aiGetErrorString());
    printf("  %u bodies, %u shapes; assimp: %u meshes, %u materials\n", anim.body_count, anim.shape_count,
           scene->mNumMeshes, scene->mNumMaterials);
    /* assimp adds a default material of its own to the file's */
    unsigned named = 0;
    for (unsigned m = 0; m < scene->mNumMaterials; m++)
        named += !strncmp(material_name(scene, m), "colour #", 8) || !strncmp(material_name(scene, m), "inside #", 8);
    assert_int_equal(named, 4);
    const char *want[4] = {"colour #cc3333", "colour #334de6", "inside #e0c040", NULL};
    float red[3] = {0.8f, 0.2f, 0.2f}, stone[3];
    rb_inside_color_of(red, stone); /* the second cube's inside: its colour's default */
    char def[32];
    snprintf(def, sizeof def, "inside #%02x%02x%02x", (int)lroundf(stone[0] * 255), (int)lroundf(stone[1] * 255),
             (int)lroundf(stone[2] * 255));
    want[3] = def;
    for (int k = 0; k < 4; k++) {
        bool found = false;
        for (unsigned m = 0; m < scene->mNumMaterials && !found; m++) found = !strcmp(material_name(scene, m), want[k]);
        if (!found) fail_msg("no material '%s'", want[k]);
    }
    uint32_t pieces = 0, cut_faces = 0;
    for (uint32_t b = 0; b < anim.body_count; b++) {
        const rb_anim_body *body = &anim.bodies[b];
        const rb_anim_shape *sh = &anim.shapes[body->shape];
        char name[64];
        snprintf(name, sizeof name, "body %llu", (unsigned long long)body->id);
        const struct aiNode *node = find_node(scene->mRootNode, name);
        if (!node) fail_msg("%s: no node", name);
        uint32_t inside_tris = 0;
        for (uint32_t t = 0; sh->inside && t < sh->index_count; t += 3)
            inside_tris +=
                sh->inside[sh->indices[t]] && sh->inside[sh->indices[t + 1]] && sh->inside[sh->indices[t + 2]];
        unsigned faces = 0, read_inside = 0;
        for (unsigned i = 0; i < node->mNumMeshes; i++) {
            const struct aiMesh *mesh = scene->mMeshes[node->mMeshes[i]];
            const char *material = material_name(scene, mesh->mMaterialIndex);
            faces += mesh->mNumFaces;
            if (!strncmp(material, "inside", 6)) {
                read_inside += mesh->mNumFaces;
                assert_string_equal(material, body->inside[1] == 192.0f / 255.0f ? "inside #e0c040" : def);
            } else {
                assert_string_equal(material, body->color[2] > 0.5f ? "colour #334de6" : "colour #cc3333");
            }
        }
        assert_int_equal(faces, sh->index_count / 3);
        assert_int_equal(read_inside, inside_tris);
        if (strncmp(sh->name, "piece", 5) == 0) {
            pieces++;
            assert_non_null(sh->inside); /* cut from the cube's mesh, not its particles' cells */
            assert_true(inside_tris > 0);
            assert_int_equal(node->mNumMeshes, 2);
            assert_true(body->color[0] == 0.8f && body->color[1] == 0.2f); /* its cube's colour */
            cut_faces += inside_tris;
        }
    }
    printf("  %u pieces, %u cut triangles\n", pieces, cut_faces);
    assert_int_equal(pieces, 12);
    aiReleaseImport(scene);
    rb_cache_anim_free(&anim);
    rb_cache_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validator),      cmocka_unit_test(test_assimp),         cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_keeps_old_file), cmocka_unit_test(test_breaking_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
