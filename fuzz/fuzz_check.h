/* fuzz_check.h - what every shape the registry took must be, whatever a
 * plugin or a mesh file handed over (fuzz_registry.c, fuzz_mesh.c). */
#ifndef RB_FUZZ_CHECK_H
#define RB_FUZZ_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "shapes/shapes.h"

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz: shape '%s' taken but %s\n", s->name, #cond);                                        \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* What a shape the registry took must be. */
static inline void rb_fuzz_check_shape(const rb_shape *s) {
    CHECK(s->name[0] != '\0');
    CHECK(s->particle_count > 0 && s->particle_count <= RB_PLUGIN_MAX_PARTICLES);
    CHECK(isfinite(s->mass) && s->mass > 0.0f);
    CHECK(isfinite(s->particle_radius) && s->particle_radius > 0.0f);
    CHECK(isfinite(s->bounding_radius) && s->bounding_radius >= s->particle_radius);
    for (int k = 0; k < 3; k++) CHECK(isfinite(s->inertia[k]) && s->inertia[k] >= 0.0f);
    for (uint32_t i = 0; i < 3 * s->particle_count; i++) CHECK(isfinite(s->particles[i]));
    if (s->mesh.vertex_count > 0) {
        CHECK(s->mesh.positions && s->mesh.normals);
        CHECK(s->mesh.index_count % 3 == 0);
        for (uint32_t i = 0; i < 3 * s->mesh.vertex_count; i++)
            CHECK(isfinite(s->mesh.positions[i]) && isfinite(s->mesh.normals[i]));
        for (uint32_t i = 0; i < s->mesh.index_count; i++) CHECK(s->mesh.indices[i] < s->mesh.vertex_count);
    }
    /* a pre-fractured shape's parts: whole meshes, each a piece some particle has */
    CHECK(s->part_count == 0 || (s->pieces && s->parts && s->part_piece && s->mesh.vertex_count > 0));
    uint32_t part_triangles = 0;
    for (uint32_t k = 0; k < s->part_count; k++) {
        const rb_mesh *p = &s->parts[k];
        CHECK(p->vertex_count > 0 && p->index_count > 0 && p->index_count % 3 == 0 && p->inside);
        for (uint32_t i = 0; i < 3 * p->vertex_count; i++) CHECK(isfinite(p->positions[i]) && isfinite(p->normals[i]));
        for (uint32_t i = 0; i < p->index_count; i++) CHECK(p->indices[i] < p->vertex_count);
        bool had = false;
        for (uint32_t i = 0; i < s->particle_count && !had; i++) had = s->pieces[i] == s->part_piece[k];
        CHECK(had);
        part_triangles += p->index_count / 3;
    }
    CHECK(s->part_count == 0 || part_triangles == s->mesh.index_count / 3);
}

#endif
