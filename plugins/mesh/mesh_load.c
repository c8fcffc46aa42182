/* mesh_load.c - a triangle mesh from a file, through assimp's C API. */
#include "mesh_load.h"

#include "mesh_header.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

bool rb_mesh_is_mesh_file(const char *name) {
    static const char *const extensions[] = {".obj", ".stl", ".ply", ".off", ".gltf", ".glb", ".fbx", ".dae", ".3ds"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
        size_t e = strlen(extensions[i]);
        if (n > e && strcasecmp(name + n - e, extensions[i]) == 0) return true;
    }
    return false;
}

void rb_mesh_data_free(rb_mesh_data *m) {
    free(m->positions);
    free(m->normals);
    free(m->indices);
    free(m->triangle_parts);
    free(m->part_names);
    memset(m, 0, sizeof *m);
}

/* ---- parts: the node graph walked by hand ---- */

/* A mesh's triangles (faces of three corners) and whether it counts. */
static bool has_triangles(const struct aiMesh *mesh) { return mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE; }

static uint32_t triangle_faces(const struct aiMesh *mesh) {
    uint32_t n = 0;
    for (unsigned f = 0; f < mesh->mNumFaces; f++) n += mesh->mFaces[f].mNumIndices == 3;
    return n;
}

/* What the walk adds up first (counting) and then fills (out). */
typedef struct walk {
    const struct aiScene *scene;
    uint64_t vertices, triangles, parts;
    unsigned depth_limit_hit;
    bool all_normals;
    rb_mesh_data *out; /* NULL while counting */
} walk;

/* p' = M p for assimp's row-major 4x4 (a1..a4 the first row). */
static void transform_point(const struct aiMatrix4x4 *m, const struct aiVector3D *v, float *out) {
    out[0] = m->a1 * v->x + m->a2 * v->y + m->a3 * v->z + m->a4;
    out[1] = m->b1 * v->x + m->b2 * v->y + m->b3 * v->z + m->b4;
    out[2] = m->c1 * v->x + m->c2 * v->y + m->c3 * v->z + m->c4;
}

/* A normal through M's 3x3: its cofactor matrix (the inverse transpose
 * times the determinant, so a mirror keeps normals outward), normalised. */
static void transform_normal(const struct aiMatrix4x4 *m, const struct aiVector3D *v, float *out) {
    const double c[9] = {m->b2 * m->c3 - m->b3 * m->c2, m->b3 * m->c1 - m->b1 * m->c3, m->b1 * m->c2 - m->b2 * m->c1,
                         m->a3 * m->c2 - m->a2 * m->c3, m->a1 * m->c3 - m->a3 * m->c1, m->a2 * m->c1 - m->a1 * m->c2,
                         m->a2 * m->b3 - m->a3 * m->b2, m->a3 * m->b1 - m->a1 * m->b3, m->a1 * m->b2 - m->a2 * m->b1};
    double n[3];
    for (int k = 0; k < 3; k++) n[k] = c[3 * k] * v->x + c[3 * k + 1] * v->y + c[3 * k + 2] * v->z;
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) out[k] = (float)(len > 0.0 ? n[k] / len : (k == 1));
}

static double determinant3(const struct aiMatrix4x4 *m) {
    return m->a1 * ((double)m->b2 * m->c3 - (double)m->b3 * m->c2) -
           m->a2 * ((double)m->b1 * m->c3 - (double)m->b3 * m->c1) +
           m->a3 * ((double)m->b1 * m->c2 - (double)m->b2 * m->c1);
}

/* Each node under `node` (its parent's transform `above`) that holds
 * triangles is one part; counts (w->out NULL) or fills. Depth is bounded:
 * a file's graph is data, and a deep one must not exhaust the stack. */
static void walk_node(walk *w, const struct aiNode *node, const struct aiMatrix4x4 *above, unsigned depth) {
    if (depth > 256) {
        w->depth_limit_hit = 1;
        return;
    }
    struct aiMatrix4x4 m = *above;
    aiMultiplyMatrix4(&m, &node->mTransformation);
    bool part = false;
    const bool mirror = determinant3(&m) < 0.0;
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        if (node->mMeshes[i] >= w->scene->mNumMeshes) continue;
        const struct aiMesh *mesh = w->scene->mMeshes[node->mMeshes[i]];
        if (!has_triangles(mesh) || triangle_faces(mesh) == 0) continue;
        part = true;
        if (!w->out) {
            w->vertices += mesh->mNumVertices;
            w->triangles += triangle_faces(mesh);
            w->all_normals = w->all_normals && mesh->mNormals;
            continue;
        }
        rb_mesh_data *o = w->out;
        const uint32_t base = o->vertex_count;
        for (unsigned v = 0; v < mesh->mNumVertices; v++) {
            transform_point(&m, &mesh->mVertices[v], o->positions + 3 * (size_t)(base + v));
            if (o->normals) transform_normal(&m, &mesh->mNormals[v], o->normals + 3 * (size_t)(base + v));
        }
        o->vertex_count += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3) continue;
            o->triangle_parts[o->triangle_count] = o->part_count;
            uint32_t *t = o->indices + 3 * (size_t)o->triangle_count++;
            for (int c = 0; c < 3; c++) t[c] = base + face->mIndices[mirror && c ? 3 - c : c];
        }
    }
    if (part) {
        if (w->out) {
            snprintf(w->out->part_names[w->out->part_count], sizeof w->out->part_names[0], "%.*s",
                     (int)(node->mName.length < 63 ? node->mName.length : 63), node->mName.data);
            w->out->part_count++;
        } else
            w->parts++;
    }
    for (unsigned c = 0; c < node->mNumChildren; c++) walk_node(w, node->mChildren[c], &m, depth + 1);
}

/* Fills out from the scene's nodes, one part a node. */
static bool load_parts(const struct aiScene *scene, rb_mesh_data *out, char *err, size_t err_size) {
    struct aiMatrix4x4 identity;
    aiIdentityMatrix4(&identity);
    walk w = {.scene = scene, .all_normals = true};
    if (scene->mRootNode) walk_node(&w, scene->mRootNode, &identity, 0);
    if (w.depth_limit_hit) {
        snprintf(err, err_size, "has a node graph deeper than 256 levels");
        return false;
    }
    if (w.triangles == 0) {
        snprintf(err, err_size, "has no triangles");
        return false;
    }
    if (w.vertices > UINT32_MAX / 3 || w.triangles > UINT32_MAX / 3) {
        snprintf(err, err_size, "is too large (%llu vertices, %llu triangles)", (unsigned long long)w.vertices,
                 (unsigned long long)w.triangles);
        return false;
    }
    out->positions = malloc(sizeof(float) * 3 * w.vertices);
    out->normals = w.all_normals ? malloc(sizeof(float) * 3 * w.vertices) : NULL;
    out->indices = malloc(sizeof(uint32_t) * 3 * w.triangles);
    out->triangle_parts = malloc(sizeof(uint32_t) * w.triangles);
    out->part_names = calloc(w.parts, sizeof *out->part_names);
    if (!out->positions || !out->indices || !out->triangle_parts || !out->part_names ||
        (w.all_normals && !out->normals)) {
        snprintf(err, err_size, "is too large: out of memory");
        return false;
    }
    w.out = out;
    walk_node(&w, scene->mRootNode, &identity, 0);
    return true;
}

/* ---- loading ---- */

static bool load(const char *path, bool smooth_normals, bool parts, rb_mesh_data *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    /* assimp says "file is too small" or worse for an empty file; say it plainly. */
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, err_size, "cannot be read");
        return false;
    }
    if (st.st_size == 0) {
        snprintf(err, err_size, "is empty");
        return false;
    }
    /* assimp allocates for the counts a header declares: a count the file
     * cannot hold, or one over the caps, is refused before it reads a byte. */
    char header[256];
    if (!rb_mesh_header_check_file(path, header, sizeof header)) {
        snprintf(err, err_size, "is refused: %s", header);
        return false;
    }
    /* Node transforms baked in, polygons split, points and lines sorted out
     * into meshes of their own (skipped below). */
    unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType |
                     aiProcess_ValidateDataStructure;
    if (!parts) flags |= aiProcess_PreTransformVertices; /* with parts, load_parts walks the nodes */
    if (smooth_normals) flags |= aiProcess_GenSmoothNormals;
    const struct aiScene *scene = aiImportFile(path, flags);
    if (!scene) {
        /* A file that parses but holds no faces is not garbage: say what it lacks. */
        const char *why = aiGetErrorString();
        bool no_faces = strstr(why, "no valid faces") || strstr(why, "mNumMeshes is 0");
        snprintf(err, err_size, no_faces ? "has no triangles (assimp: %s)" : "is not a mesh assimp can read: %s", why);
        return false;
    }
    if (parts) {
        const bool ok = load_parts(scene, out, err, err_size);
        aiReleaseImport(scene);
        if (!ok) rb_mesh_data_free(out);
        return ok;
    }
    uint64_t vertices = 0, triangles = 0;
    bool all_normals = true;
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        vertices += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) triangles += mesh->mFaces[f].mNumIndices == 3;
        all_normals = all_normals && mesh->mNormals;
    }
    if (triangles == 0) {
        snprintf(err, err_size, "has no triangles");
        aiReleaseImport(scene);
        return false;
    }
    if (vertices > UINT32_MAX / 3 || triangles > UINT32_MAX / 3) {
        snprintf(err, err_size, "is too large (%llu vertices, %llu triangles)", (unsigned long long)vertices,
                 (unsigned long long)triangles);
        aiReleaseImport(scene);
        return false;
    }
    out->positions = malloc(sizeof(float) * 3 * vertices);
    out->normals = all_normals ? malloc(sizeof(float) * 3 * vertices) : NULL;
    out->indices = malloc(sizeof(uint32_t) * 3 * triangles);
    if (!out->positions || !out->indices || (all_normals && !out->normals)) {
        snprintf(err, err_size, "is too large: out of memory");
        aiReleaseImport(scene);
        rb_mesh_data_free(out);
        return false;
    }
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        uint32_t base = out->vertex_count;
        for (unsigned v = 0; v < mesh->mNumVertices; v++) {
            float *p = out->positions + 3 * (size_t)(base + v);
            p[0] = mesh->mVertices[v].x;
            p[1] = mesh->mVertices[v].y;
            p[2] = mesh->mVertices[v].z;
            if (out->normals) {
                float *n = out->normals + 3 * (size_t)(base + v);
                n[0] = mesh->mNormals[v].x;
                n[1] = mesh->mNormals[v].y;
                n[2] = mesh->mNormals[v].z;
            }
        }
        out->vertex_count += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3) continue;
            uint32_t *t = out->indices + 3 * (size_t)out->triangle_count++;
            for (int c = 0; c < 3; c++) t[c] = base + face->mIndices[c];
        }
    }
    aiReleaseImport(scene);
    return true;
}

bool rb_mesh_load(const char *path, bool smooth_normals, rb_mesh_data *out, char *err, size_t err_size) {
    return load(path, smooth_normals, false, out, err, err_size);
}

bool rb_mesh_load_parts(const char *path, bool smooth_normals, rb_mesh_data *out, char *err, size_t err_size) {
    return load(path, smooth_normals, true, out, err, err_size);
}
