/* pick.c - picking what is drawn: rays against render meshes, and against
 * particles where a body is drawn as them (see pick.h). */
#include "pick.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rb_math.h"

/* What picking knows of one world shape. */
typedef struct pick_shape {
    bool known;         /* mesh (or none), scale and radius below are set */
    const rb_mesh *m;   /* the mesh bodies of the shape are drawn with, or NULL: drawn as particles */
    float scale;        /* the mesh is drawn this many times its size */
    float radius;       /* m: the bodies' bounding sphere about the centre of mass, as drawn */
    float lo[3], hi[3]; /* m: their box as drawn, in their own frame */
    float particle_radius;
    rb_mesh own; /* a piece's mesh, given with rb_pick_meshes_take */
} pick_shape;

/* A body whose bounding sphere the ray meets, and where it enters it. */
typedef struct candidate {
    uint32_t body;
    float enter;
} candidate;

struct rb_pick_meshes {
    const rb_world *world; /* the world the shapes are of */
    pick_shape *shapes;
    uint32_t shape_cap;
    candidate *candidates;
    uint32_t candidate_cap;
};

rb_pick_meshes *rb_pick_meshes_create(void) { return calloc(1, sizeof(rb_pick_meshes)); }

static void forget(rb_pick_meshes *pm) {
    for (uint32_t i = 0; i < pm->shape_cap; i++) rb_mesh_free(&pm->shapes[i].own);
    if (pm->shape_cap) memset(pm->shapes, 0, pm->shape_cap * sizeof *pm->shapes);
}

void rb_pick_meshes_destroy(rb_pick_meshes *pm) {
    if (!pm) return;
    forget(pm);
    free(pm->shapes), free(pm->candidates);
    free(pm);
}

/* The entry of a world shape, the table grown and emptied for a new world as
 * needed; NULL if out of memory. */
static pick_shape *entry(rb_pick_meshes *pm, const rb_world *world, uint32_t ws) {
    if (pm->world != world) {
        forget(pm); /* world shape indices are the world's own */
        pm->world = world;
    }
    if (ws >= pm->shape_cap) {
        uint32_t cap = ws + ws / 2 + 16;
        pick_shape *p = realloc(pm->shapes, cap * sizeof *p);
        if (!p) return NULL;
        memset(p + pm->shape_cap, 0, (cap - pm->shape_cap) * sizeof *p);
        pm->shapes = p, pm->shape_cap = cap;
    }
    return &pm->shapes[ws];
}

bool rb_pick_meshes_take(rb_pick_meshes *pm, const rb_world *world, uint32_t world_shape, rb_mesh *m) {
    pick_shape *s = entry(pm, world, world_shape);
    if (!s) {
        rb_mesh_free(m);
        return false;
    }
    rb_mesh_free(&s->own);
    s->own = *m;
    memset(m, 0, sizeof *m);
    s->known = false; /* looked at again at the next pick */
    return true;
}

/* The farthest of count points (xyz) from the origin, times scale plus pad
 * (m); the box of them the same way into lo, hi. */
static float bound(const float *p, uint32_t count, float scale, float pad, float lo[3], float hi[3]) {
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        r2 = fmaxf(r2, rb_v3_dot(&p[3 * i], &p[3 * i]));
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[3 * i + k]), hi[k] = fmaxf(hi[k], p[3 * i + k]);
    }
    for (int k = 0; k < 3; k++) lo[k] = lo[k] * scale - pad, hi[k] = hi[k] * scale + pad;
    return sqrtf(r2) * scale + pad;
}

/* Fills in a shape's entry: the mesh it is drawn with, if picking has it
 * (a row's shape's, or a piece's given mesh), and its bounding radius. */
static void learn(pick_shape *s, const rb_pick_scene *scene, uint32_t ws) {
    rb_world *w = scene->world;
    const int row = rb_entities_of_world_shape(scene->entities, ws);
    const bool drawn_as_mesh = rb_entities_mesh_of_world_shape(scene->entities, ws) >= 0;
    const rb_mesh *m = row >= 0 ? &rb_entities_get(scene->entities, (uint32_t)row)->shape->mesh : &s->own;
    s->m = drawn_as_mesh && m->vertex_count > 0 && m->index_count >= 3 ? m : NULL;
    s->scale = row >= 0 ? rb_entities_scale_of_world_shape(scene->entities, ws) : 1.0f;
    s->particle_radius = rb_world_shape_radius(w, ws);
    /* the mesh's bound, or the particles' (offsets are at the shape's scale) */
    if (s->m) {
        s->radius = bound(s->m->positions, s->m->vertex_count, s->scale, 0.0f, s->lo, s->hi);
    } else {
        const uint32_t n = rb_world_shape_particles(w, ws, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (n ? n : 1));
        if (p && rb_world_shape_particles(w, ws, p, n, NULL) == n) {
            s->radius = bound(p, n, 1.0f, s->particle_radius, s->lo, s->hi);
        } else { /* out of memory: every ray goes on to the particles */
            s->radius = INFINITY;
            for (int k = 0; k < 3; k++) s->lo[k] = s->hi[k] = 0.0f;
        }
        free(p);
    }
    s->known = true;
}

bool rb_ray_triangle(const float o[3], const float d[3], const float a[3], const float b[3], const float c[3],
                     float *t) {
    float e1[3], e2[3], p[3], q[3], s[3];
    for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = o[k] - a[k];
    rb_v3_cross(d, e2, p);
    const float det = rb_v3_dot(e1, p);
    if (fabsf(det) < 1e-12f) return false; /* the ray runs along the triangle's plane */
    const float inv = 1.0f / det, u = rb_v3_dot(s, p) * inv;
    if (u < 0.0f || u > 1.0f) return false;
    rb_v3_cross(s, e1, q);
    const float v = rb_v3_dot(d, q) * inv;
    if (v < 0.0f || u + v > 1.0f) return false;
    *t = rb_v3_dot(e2, q) * inv;
    return *t >= 0.0f;
}

/* The nearest hit along the ray on body b's mesh, or INFINITY: the ray is
 * taken into the body's frame at the mesh's size (the direction scaled, not
 * normalised, so the distance found is the world's). */
static float hit_mesh(const pick_shape *s, const rb_transform *tf, const float o[3], const float d[3]) {
    float rel[3] = {o[0] - tf->position[0], o[1] - tf->position[1], o[2] - tf->position[2]}, lo[3], ld[3];
    rb_quat_rotate_inv(tf->orientation, rel, lo);
    rb_quat_rotate_inv(tf->orientation, d, ld);
    for (int k = 0; k < 3; k++) lo[k] /= s->scale, ld[k] /= s->scale;
    const float *v = s->m->positions;
    const uint32_t *idx = s->m->indices;
    float best = INFINITY, t;
    for (uint32_t i = 0; i + 2 < s->m->index_count; i += 3)
        if (rb_ray_triangle(lo, ld, &v[3 * idx[i]], &v[3 * idx[i + 1]], &v[3 * idx[i + 2]], &t) && t < best) best = t;
    return best;
}

/* The nearest hit on body b's particles (spheres of radius r), or INFINITY. */
static float hit_particles(const float *particles, uint32_t first, uint32_t end, float r, const float o[3],
                           const float d[3]) {
    float best = INFINITY;
    for (uint32_t i = first; i < end; i++) {
        const float *p = &particles[3 * i];
        float oc[3] = {o[0] - p[0], o[1] - p[1], o[2] - p[2]};
        float bq = rb_v3_dot(oc, d), disc = bq * bq - (rb_v3_dot(oc, oc) - r * r);
        if (disc < 0.0f) continue;
        float t = -bq - sqrtf(disc);
        if (t < 0.0f) t = -bq + sqrtf(disc); /* the eye is inside the particle */
        if (t >= 0.0f && t < best) best = t;
    }
    return best;
}

static int by_entry(const void *a, const void *b) {
    const float x = ((const candidate *)a)->enter, y = ((const candidate *)b)->enter;
    return (x > y) - (x < y);
}

/* The bodies whose bounding sphere the ray meets, nearest entry first; their count. */
static uint32_t gather(rb_pick_meshes *pm, const rb_pick_scene *scene, const rb_transform *tf, uint32_t n,
                       const float o[3], const float d[3]) {
    const uint32_t *shapes = rb_world_body_shapes(scene->world);
    uint32_t count = 0;
    for (uint32_t b = 0; b < n; b++) {
        pick_shape *s = entry(pm, scene->world, shapes[b]);
        if (!s) return 0;
        if (!s->known) learn(s, scene, shapes[b]);
        const float *c = tf[b].position;
        float oc[3] = {o[0] - c[0], o[1] - c[1], o[2] - c[2]};
        float bq = rb_v3_dot(oc, d), disc = bq * bq - (rb_v3_dot(oc, oc) - s->radius * s->radius);
        if (!(disc >= 0.0f) || -bq + sqrtf(disc) < 0.0f) continue; /* missed, or behind the eye */
        if (count >= pm->candidate_cap) {
            uint32_t cap = count + count / 2 + 64;
            candidate *p = realloc(pm->candidates, cap * sizeof *p);
            if (!p) break;
            pm->candidates = p, pm->candidate_cap = cap;
        }
        pm->candidates[count++] = (candidate){b, fmaxf(0.0f, -bq - sqrtf(disc))};
    }
    if (count > 1) qsort(pm->candidates, count, sizeof *pm->candidates, by_entry);
    return count;
}

rb_pick rb_pick_drawn(rb_pick_meshes *pm, const rb_pick_scene *scene, const float o[3], const float d[3]) {
    rb_pick pick = {.distance = INFINITY};
    rb_world *w = scene->world;
    uint32_t n = 0;
    const rb_transform *tf = rb_view_transforms(scene->view, &n);
    if (n != rb_world_body_count(w)) /* bodies came or went since the view's read */
        tf = rb_view_read(scene->view, w) ? rb_view_transforms(scene->view, &n) : NULL;
    const uint32_t count = tf ? gather(pm, scene, tf, n, o, d) : 0;
    const uint32_t *first = rb_world_body_first_particle(w), *shapes = rb_world_body_shapes(w);
    const float *particles = NULL; /* read at the first body drawn as particles */
    int best = -1;
    for (uint32_t i = 0; i < count && pm->candidates[i].enter < pick.distance; i++) {
        const uint32_t b = pm->candidates[i].body;
        const pick_shape *s = &pm->shapes[shapes[b]];
        float t = INFINITY;
        if (s->m && !scene->particle_view) {
            t = hit_mesh(s, &tf[b], o, d);
        } else {
            if (!particles && !(particles = rb_view_particles(scene->view, w))) break;
            t = hit_particles(particles, first[b], first[b + 1], s->particle_radius, o, d);
        }
        if (t < pick.distance) pick.distance = t, best = (int)b;
    }
    if (best >= 0) {
        pick.hit = pick.body_hit = true;
        pick.body = rb_world_body_id(w, (uint32_t)best);
    }
    rb_pick_planes(w, o, d, &pick);
    return pick;
}

bool rb_pick_body_bounds(rb_pick_meshes *pm, const rb_pick_scene *scene, uint32_t body, float lo[3], float hi[3],
                         float *radius) {
    if (body >= rb_world_body_count(scene->world)) return false;
    const uint32_t ws = rb_world_body_shapes(scene->world)[body];
    pick_shape *s = entry(pm, scene->world, ws);
    if (!s) return false;
    if (!s->known) learn(s, scene, ws);
    memcpy(lo, s->lo, sizeof s->lo), memcpy(hi, s->hi, sizeof s->hi);
    *radius = s->radius;
    return isfinite(s->radius);
}

void rb_pick_meshes_forget(rb_pick_meshes *pm) {
    forget(pm);
    pm->world = NULL;
}
