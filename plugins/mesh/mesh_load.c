/* mesh_load.c - a triangle mesh from a file, through assimp's C API. */
#include "mesh_load.h"

#include "mesh_header.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
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
    memset(m, 0, sizeof *m);
}

bool rb_mesh_load(const char *path, bool smooth_normals, rb_mesh_data *out, char *err, size_t err_size) {
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
    unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
                     aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    if (smooth_normals) flags |= aiProcess_GenSmoothNormals;
    const struct aiScene *scene = aiImportFile(path, flags);
    if (!scene) {
        /* A file that parses but holds no faces is not garbage: say what it lacks. */
        const char *why = aiGetErrorString();
        bool no_faces = strstr(why, "no valid faces") || strstr(why, "mNumMeshes is 0");
        snprintf(err, err_size, no_faces ? "has no triangles (assimp: %s)" : "is not a mesh assimp can read: %s", why);
        return false;
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
