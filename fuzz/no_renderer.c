/* no_renderer.c - the four renderer entry points the replay and the view
 * (src/sandbox/replay.c, view.c) name, for fuzz_cache.c, which reads a
 * replay's frames and never draws: the fuzz build has no renderer
 * (RB_BUILD_APP off). Any call is a harness bug, so each aborts. */
#include <stdlib.h>

#include "render/render.h"

int rb_renderer_add_mesh_marked(rb_renderer *r, const float *positions, const float *normals, const uint8_t *inside,
                                uint32_t vertex_count, const uint32_t *indices, uint32_t index_count) {
    (void)r, (void)positions, (void)normals, (void)inside, (void)vertex_count, (void)indices, (void)index_count;
    abort();
}

uint32_t rb_renderer_mesh_count(const rb_renderer *r) {
    (void)r;
    abort();
}

rb_render_instance *rb_renderer_instances(rb_renderer *r, int mesh, uint32_t count) {
    (void)r, (void)mesh, (void)count;
    abort();
}

void rb_renderer_add_spheres(rb_renderer *r, const float *centers, const float *colors, uint32_t count, float radius) {
    (void)r, (void)centers, (void)colors, (void)count, (void)radius;
    abort();
}
