/* view.c - the one frame read (see view.h). */
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/grow.h"
#include "base/rb_math.h"

struct rb_view {
    rb_transform *transforms;
    uint32_t body_count, body_cap;
    float *particles, *particle_colors;
    uint32_t particle_cap;
    uint32_t *piece_of; /* the particle view: a breakable body's particles' pieces */
    uint32_t piece_cap;
    uint32_t *mesh_count; /* instances per mesh this frame */
    rb_render_instance **mesh_out;
    uint32_t mesh_cap;
    double read_s, host_ms, total_ms; /* read_s: the read's share of this frame, s */
    uint64_t frames;
    uint32_t drawn_instances, drawn_particle_bodies;
    /* A frame read from a table (rb_view_read_table), not a world: its
     * shapes, each body's id and shape, and each body's first particle. */
    const rb_view_shape *table; /* NULL: the world's frame */
    rb_body_id *ids;
    uint32_t *shape_of, table_cap;
    rb_paint *paints; /* each body's colours */
    uint32_t paint_cap;
    uint32_t *first, first_cap;
};

rb_view *rb_view_create(void) { return calloc(1, sizeof(rb_view)); }

void rb_view_destroy(rb_view *v) {
    if (!v) return;
    free(v->transforms), free(v->particles), free(v->particle_colors), free(v->mesh_count), free(v->mesh_out);
    free(v->piece_of), free(v->ids), free(v->shape_of), free(v->paints), free(v->first);
    free(v);
}

/* Body id's palette colour, its piece'th piece's (0: the body's own) in the
 * particle view (src/scenes/colors.h, rb_palette_color). */
static void piece_color(rb_body_id id, uint32_t piece, float rgba[4]) {
    rb_palette_color(id, piece, rgba);
    rgba[3] = 1.0f;
}

void rb_view_body_color(rb_body_id id, float rgba[4]) { piece_color(id, 0, rgba); }

/* Body b's colour as the style shows it: asleep (the sleep view) washed
 * out to a cool grey, unlike every colour of the palette, so the sleeping
 * read at a glance; under the cursor lighter, grabbed lighter still. */
static void highlight(const rb_view_style *style, rb_body_id id, uint32_t b, float rgba[4]) {
    static const float sleep_tint[3] = {0.42f, 0.45f, 0.52f};
    if (style->asleep && style->asleep[b])
        for (int k = 0; k < 3; k++) rgba[k] = 0.2f * rgba[k] + 0.8f * sleep_tint[k];
    const float lift = rb_body_same(id, style->highlight) ? 0.5f : rb_body_same(id, style->hover) ? 0.3f : 0.0f;
    for (int k = 0; k < 3; k++) rgba[k] = lift + (1.0f - lift) * rgba[k];
}

/* Body b's colour as the style shows it, and its inside colour (its cut
 * faces'; NULL: not wanted): the stage's table's (style->colors), or a
 * table frame's own. */
static void body_color(const rb_view *v, const rb_view_style *style, rb_body_id id, uint32_t b, float rgba[4],
                       float inside[4]) {
    rb_paint paint;
    if (v->table)
        paint = v->paints[b];
    else
        rb_color_table_paint(style->colors, id, &paint);
    memcpy(rgba, paint.color, sizeof paint.color);
    rgba[3] = 1.0f;
    highlight(style, id, b, rgba);
    if (!inside) return;
    memcpy(inside, paint.inside, sizeof paint.inside);
    inside[3] = 1.0f;
    highlight(style, id, b, inside);
}

bool rb_view_read(rb_view *v, rb_world *world) {
    double t0 = rb_seconds();
    uint32_t n = rb_world_body_count(world);
    v->body_count = 0;
    v->table = NULL;
    if (!rb_grow((void **)&v->transforms, &v->body_cap, n, sizeof *v->transforms)) return false;
    if (n && !rb_world_read_transforms(world, v->transforms)) return false;
    v->body_count = n;
    v->read_s = rb_seconds() - t0;
    return true;
}

bool rb_view_read_table(rb_view *v, uint32_t count, const rb_view_shape *shapes, rb_body_id **ids,
                        rb_transform **transforms, uint32_t **shape_of, rb_paint **paints) {
    v->body_count = 0, v->read_s = 0.0;
    v->table = shapes;
    uint32_t cap = v->table_cap, xf_cap = v->body_cap;
    if (!rb_grow((void **)&v->transforms, &xf_cap, count, sizeof *v->transforms) ||
        !rb_grow((void **)&v->ids, &cap, count, sizeof *v->ids) ||
        !rb_grow((void **)&v->shape_of, &v->table_cap, count, sizeof *v->shape_of) ||
        !rb_grow((void **)&v->paints, &v->paint_cap, count, sizeof *v->paints))
        return false;
    v->body_cap = xf_cap;
    v->body_count = count;
    *ids = v->ids, *transforms = v->transforms, *shape_of = v->shape_of, *paints = v->paints;
    return true;
}

const rb_transform *rb_view_transforms(const rb_view *v, uint32_t *count) {
    *count = v->body_count;
    return v->transforms;
}

void rb_view_focus(const rb_view *v, float focus[3], float *radius) {
    /* Bodies whose position is not finite (a simulation that blew up) are left out. */
    double c[3] = {0, 0, 0};
    uint32_t n = 0;
    for (uint32_t b = 0; b < v->body_count; b++) {
        const float *p = v->transforms[b].position;
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) continue;
        for (int k = 0; k < 3; k++) c[k] += p[k];
        n++;
    }
    if (n)
        for (int k = 0; k < 3; k++) c[k] /= (double)n;
    double r2 = 0.0;
    for (uint32_t b = 0; b < v->body_count; b++) {
        const float *p = v->transforms[b].position;
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) d2 += (p[k] - c[k]) * (p[k] - c[k]);
        if (isfinite(d2) && d2 > r2) r2 = d2;
    }
    /* Room for the bodies' own size; bounded so one body flung far away does not blur every shadow. */
    float r = (float)sqrt(r2) + 3.0f;
    *radius = !(r >= 8.0f) ? 8.0f : r > 80.0f ? 80.0f : r;
    for (int k = 0; k < 3; k++) focus[k] = (float)c[k];
}

/* Room for np particles' positions and colours. */
static bool particle_room(rb_view *v, uint32_t np) {
    uint32_t cap = v->particle_cap;
    return rb_grow((void **)&v->particles, &cap, np, 3 * sizeof(float)) &&
           rb_grow((void **)&v->particle_colors, &v->particle_cap, np, 4 * sizeof(float));
}

/* A table's frame: every body's particles placed by its transform, and
 * each body's first particle in v->first. NULL if out of memory. */
static const uint32_t *table_particles(rb_view *v) {
    if (!rb_grow((void **)&v->first, &v->first_cap, v->body_count + 1, sizeof *v->first)) return NULL;
    uint64_t np = 0;
    for (uint32_t b = 0; b < v->body_count; b++) np += v->table[v->shape_of[b]].particle_count;
    if (np > UINT32_MAX / 4 || !particle_room(v, (uint32_t)np)) return NULL;
    uint32_t at = 0;
    for (uint32_t b = 0; b < v->body_count; b++) {
        const rb_view_shape *s = &v->table[v->shape_of[b]];
        const rb_transform *t = &v->transforms[b];
        v->first[b] = at;
        for (uint32_t i = 0; i < s->particle_count; i++, at++) {
            float *out = &v->particles[3 * at];
            rb_quat_rotate(t->orientation, &s->particles[3 * i], out);
            for (int k = 0; k < 3; k++) out[k] += t->position[k];
        }
    }
    v->first[v->body_count] = at;
    return v->first;
}

const float *rb_view_particles(rb_view *v, rb_world *world) {
    if (v->table) return table_particles(v) ? v->particles : NULL;
    uint32_t np = rb_world_particle_count(world);
    if (!particle_room(v, np)) return NULL;
    return np == 0 || rb_world_read_particles(world, v->particles) ? v->particles : NULL;
}

/* Body b's id, shape's mesh and scale, and particle radius: the world's or the table's. */
static rb_body_id id_of(const rb_view *v, rb_world *world, uint32_t b) {
    return v->table ? v->ids[b] : rb_world_body_id(world, b);
}

/* The renderer's mesh of body b, or -1 (drawn as particles). */
static int mesh_of(const rb_view *v, const rb_entities *entities, const uint32_t *shapes, uint32_t b) {
    return v->table ? v->table[v->shape_of[b]].mesh : rb_entities_mesh_of_world_shape(entities, shapes[b]);
}

/* Body b's swapped mesh (rb_view_style.swaps), or -1. */
static int swap_of(const rb_view *v, const rb_view_style *style, rb_world *world, uint32_t b) {
    if (!style->swaps || v->table) return -1;
    const rb_body_id id = id_of(v, world, b);
    return id.slot < style->swap_count && style->swaps[id.slot].generation == id.generation
               ? style->swaps[id.slot].mesh
               : -1;
}

/* A table's meshes are at their size (a cache holds a scaled shape's mesh scaled). */
static float scale_of(const rb_view *v, const rb_entities *entities, const uint32_t *shapes, uint32_t b) {
    return v->table ? 1.0f : rb_entities_scale_of_world_shape(entities, shapes[b]);
}

static float radius_of(const rb_view *v, rb_world *world, const uint32_t *shapes, uint32_t b) {
    return v->table ? v->table[v->shape_of[b]].radius : rb_world_shape_radius(world, shapes[b]);
}

/* How much of body b is drawn: its fade near the end of a debris lifetime,
 * else 1. Only debris with a lifetime is looked up beyond a slot index. */
static float fade_of(const rb_view *v, const rb_view_style *style, rb_world *world, uint32_t b) {
    return style->debris && !v->table ? rb_debris_fade(style->debris, rb_world_body_id(world, b)) : 1.0f;
}

/* Draws body b as its particles (first[b] .. first[b + 1] - 1), in its
 * colour (in the particle view, a breakable body's each in its piece's); a
 * fading body's particles are drawn smaller and drawn in toward its
 * centre, as its mesh would be. */
static void submit_particles(rb_view *v, rb_renderer *r, rb_world *world, const rb_view_style *style, uint32_t b,
                             const uint32_t *first, float radius, float fade) {
    float *particles = v->particles;
    const uint32_t n = first[b + 1] - first[b];
    const rb_body_id id = id_of(v, world, b);
    float rgba[4];
    body_color(v, style, id, b, rgba, NULL);
    for (uint32_t i = first[b]; i < first[b + 1]; i++) memcpy(&v->particle_colors[i * 4], rgba, sizeof rgba);
    if (style->particle_view && !v->table && rb_grow((void **)&v->piece_of, &v->piece_cap, n, sizeof *v->piece_of) &&
        rb_world_particle_pieces(world, id, v->piece_of, n) > 0)
        for (uint32_t i = 0; i < n; i++) {
            piece_color(id, v->piece_of[i], rgba);
            highlight(style, id, b, rgba);
            memcpy(&v->particle_colors[(first[b] + i) * 4], rgba, sizeof rgba);
        }
    if (fade < 1.0f) {
        const float *c = v->transforms[b].position;
        for (uint32_t i = first[b]; i < first[b + 1]; i++)
            for (int k = 0; k < 3; k++) particles[i * 3 + k] = c[k] + (particles[i * 3 + k] - c[k]) * fade;
    }
    rb_renderer_add_spheres(r, &particles[first[b] * 3], &v->particle_colors[first[b] * 4], n, fade * radius);
}

/* Each body's first particle with the positions in v->particles (the
 * view's own copy: fading bodies' particles are moved in it), or NULL. */
static const uint32_t *read_particles(rb_view *v, rb_world *world) {
    if (v->table) return table_particles(v);
    return rb_view_particles(v, world) ? rb_world_body_first_particle(world) : NULL;
}

bool rb_view_bounds(rb_view *v, rb_world *world, float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    const uint32_t *first = v->body_count ? read_particles(v, world) : NULL;
    if (!first) return false;
    const uint32_t *shapes = v->table ? NULL : rb_world_body_shapes(world);
    bool any = false;
    for (uint32_t b = 0; b < v->body_count; b++) {
        const float radius = radius_of(v, world, shapes, b);
        for (uint32_t i = first[b]; i < first[b + 1]; i++)
            for (int k = 0; k < 3; k++) {
                const float x = v->particles[3 * i + k];
                if (!isfinite(x)) continue;
                if (x - radius < lo[k]) lo[k] = x - radius;
                if (x + radius > hi[k]) hi[k] = x + radius;
                any = true;
            }
    }
    return any;
}

void rb_view_submit(rb_view *v, rb_renderer *r, rb_world *world, const rb_entities *entities,
                    const rb_view_style *style) {
    double t0 = rb_seconds();
    const uint32_t n = v->body_count, meshes = rb_renderer_mesh_count(r);
    const uint32_t *shapes = v->table ? NULL : rb_world_body_shapes(world);
    bool need_particles = style->particle_view;
    uint32_t cap = v->mesh_cap;
    if (!rb_grow((void **)&v->mesh_count, &cap, meshes, sizeof *v->mesh_count) ||
        !rb_grow((void **)&v->mesh_out, &v->mesh_cap, meshes, sizeof *v->mesh_out))
        return;
    /* Instances grouped by mesh, bodies in order within a mesh: count, take
     * room in each mesh's instance buffer, then write each body once. */
    if (meshes) memset(v->mesh_count, 0, meshes * sizeof *v->mesh_count);
    if (!style->particle_view)
        for (uint32_t b = 0; b < n; b++) {
            if (!(fade_of(v, style, world, b) > 0.0f)) continue; /* its time is up: gone at the next debris tick */
            const int swap = swap_of(v, style, world, b);
            const int m = swap >= 0 ? swap : mesh_of(v, entities, shapes, b);
            if (m >= 0 && (uint32_t)m < meshes)
                v->mesh_count[m]++;
            else
                need_particles = true;
        }
    for (uint32_t m = 0; m < meshes; m++) v->mesh_out[m] = rb_renderer_instances(r, (int)m, v->mesh_count[m]);
    const uint32_t *first = need_particles ? read_particles(v, world) : NULL;
    v->drawn_instances = v->drawn_particle_bodies = 0;
    for (uint32_t b = 0; b < n; b++) {
        const float fade = fade_of(v, style, world, b);
        if (!(fade > 0.0f)) continue;
        const int swap = style->particle_view ? -1 : swap_of(v, style, world, b);
        const int m = style->particle_view ? -1 : swap >= 0 ? swap : mesh_of(v, entities, shapes, b);
        if (m >= 0 && (uint32_t)m < meshes) {
            if (!v->mesh_out[m]) continue; /* the renderer had no room */
            rb_render_instance *out = v->mesh_out[m]++;
            out->transform = v->transforms[b];
            /* the mesh's size (a swapped one is at the body's), shrunk by the fade */
            out->transform.scale = (swap >= 0 ? 1.0f : scale_of(v, entities, shapes, b)) * fade;
            body_color(v, style, id_of(v, world, b), b, out->color, out->inside);
            v->drawn_instances++;
        } else if (first) {
            submit_particles(v, r, world, style, b, first, radius_of(v, world, shapes, b), fade);
            v->drawn_particle_bodies++;
        }
    }
    v->host_ms = (v->read_s + rb_seconds() - t0) * 1000.0;
    v->total_ms += v->host_ms;
    v->frames++;
}

void rb_view_drawn(const rb_view *v, uint32_t *instances, uint32_t *particle_bodies) {
    *instances = v->drawn_instances, *particle_bodies = v->drawn_particle_bodies;
}

double rb_view_host_ms(const rb_view *v, double *mean) {
    if (mean) *mean = v->frames ? v->total_ms / (double)v->frames : 0.0;
    return v->host_ms;
}
