/* debug_views.c - the debug views, the selection's box and the crosshair (see debug_views.h). */
#include "debug_views.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/log.h"
#include "base/rb_math.h"

/* A grid cell, by its integer coordinates. */
typedef struct cell {
    int32_t c[3];
} cell;

struct rb_debug_views {
    bool on[RB_DEBUG_VIEW_COUNT];
    bool *asleep;
    uint32_t asleep_cap;
    rb_contact_memory *contacts;
    uint32_t contact_cap;
    float *forces;
    uint32_t force_cap;
    uint8_t *touching; /* per particle: has a contact this frame */
    uint32_t touching_cap;
    cell *cells;
    uint32_t cell_cap;
    float *lines; /* segments being gathered, xyz pairs */
    uint32_t line_count, line_cap;
    uint32_t drawn_contacts, drawn_cells;
    bool cells_cut;
};

static const char *const g_names[RB_DEBUG_VIEW_COUNT] = {"sleeping", "contacts", "axes", "grid cells", "fields"};
static const char *const g_keys[RB_DEBUG_VIEW_COUNT] = {"F3", "F4", "F6", "F7", "F8"};

rb_debug_views *rb_debug_views_create(void) {
    rb_debug_views *dv = calloc(1, sizeof *dv);
    if (dv) dv->on[RB_DEBUG_FIELDS] = true; /* the sandbox always showed a field's reach */
    return dv;
}

void rb_debug_views_destroy(rb_debug_views *dv) {
    if (!dv) return;
    free(dv->asleep), free(dv->contacts), free(dv->forces), free(dv->touching), free(dv->cells), free(dv->lines);
    free(dv);
}

bool rb_debug_views_on(const rb_debug_views *dv, rb_debug_view_kind kind) {
    return kind < RB_DEBUG_VIEW_COUNT && dv->on[kind];
}

bool rb_debug_views_toggle(rb_debug_views *dv, rb_debug_view_kind kind) {
    if (kind >= RB_DEBUG_VIEW_COUNT) return false;
    return dv->on[kind] = !dv->on[kind];
}

const char *rb_debug_view_name(rb_debug_view_kind kind) { return kind < RB_DEBUG_VIEW_COUNT ? g_names[kind] : "?"; }
const char *rb_debug_view_key(rb_debug_view_kind kind) { return kind < RB_DEBUG_VIEW_COUNT ? g_keys[kind] : "?"; }

void rb_debug_views_describe(const rb_debug_views *dv, char *out, size_t size) {
    size_t n = 0;
    if (size) out[0] = '\0';
    for (int k = 0; k < RB_DEBUG_VIEW_COUNT; k++) {
        if (!dv->on[k] || k == RB_DEBUG_FIELDS) continue; /* the fields' is on by default: not news */
        char count[48] = "";
        if (k == RB_DEBUG_CONTACTS) snprintf(count, sizeof count, ": %u", dv->drawn_contacts);
        if (k == RB_DEBUG_GRID)
            snprintf(count, sizeof count, ": %u%s", dv->drawn_cells, dv->cells_cut ? " (more not drawn)" : "");
        const int wrote =
            snprintf(out + n, size - n, "%s%s (%s)%s", n ? ", " : "views: ", g_names[k], g_keys[k], count);
        if (wrote < 0 || (size_t)wrote >= size - n) return; /* cut short: what fitted stays */
        n += (size_t)wrote;
    }
}

void rb_debug_views_counts(const rb_debug_views *dv, uint32_t *contacts, uint32_t *cells, bool *cells_cut) {
    *contacts = dv->drawn_contacts, *cells = dv->drawn_cells, *cells_cut = dv->cells_cut;
}

const bool *rb_debug_asleep(rb_debug_views *dv, rb_world *world) {
    if (!dv->on[RB_DEBUG_SLEEP]) return NULL;
    const uint32_t n = rb_world_body_count(world);
    if (!rb_grow((void **)&dv->asleep, &dv->asleep_cap, n, sizeof *dv->asleep)) return NULL;
    for (uint32_t b = 0; b < n; b++) {
        rb_body_state s; /* the first read brings the whole state back from the backend; the rest are the host's */
        if (!rb_world_get_body(world, b, &s)) return NULL;
        dv->asleep[b] = s.asleep;
    }
    return dv->asleep;
}

/* ---- lines ---- */

static void segment(rb_debug_views *dv, const float a[3], const float b[3]) {
    if (!rb_grow((void **)&dv->lines, &dv->line_cap, 6 * (dv->line_count + 1), sizeof *dv->lines)) return;
    memcpy(&dv->lines[6 * dv->line_count], a, 3 * sizeof(float));
    memcpy(&dv->lines[6 * dv->line_count + 3], b, 3 * sizeof(float));
    dv->line_count++;
}

/* Hands the segments gathered to the renderer in one colour. */
static void flush(rb_debug_views *dv, rb_renderer *r, const float rgba[4], bool over) {
    rb_renderer_lines(r, dv->lines, dv->line_count, rgba, over);
    dv->line_count = 0;
}

/* A small 3D cross: three segments of length 2 size through p. */
static void cross(rb_debug_views *dv, const float p[3], float size) {
    for (int k = 0; k < 3; k++) {
        float a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
        a[k] -= size, b[k] += size;
        segment(dv, a, b);
    }
}

/* The body that owns particle i: the last b with first[b] <= i. */
static uint32_t body_of(const uint32_t *first, uint32_t bodies, uint32_t i) {
    uint32_t lo = 0, hi = bodies;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (first[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Each remembered contact as a cross where it touches (particle pairs once,
 * by the lower index), and each touching particle's contact force as a line
 * from its centre: 0.2 m for its own weight, growing as the square root (a
 * resting stack's bottom carries many weights), at most 1.5 m. */
static void draw_contacts(rb_debug_views *dv, rb_renderer *r, rb_world *w, rb_view *view) {
    dv->drawn_contacts = 0;
    const uint32_t np = rb_world_particle_count(w), bodies = rb_world_body_count(w);
    const uint32_t n = np ? rb_world_read_contacts(w, NULL, 0) : 0;
    if (n == 0 || !rb_grow((void **)&dv->contacts, &dv->contact_cap, n, sizeof *dv->contacts) ||
        rb_world_read_contacts(w, dv->contacts, n) != n)
        return;
    const float *p = rb_view_particles(view, w);
    if (!p || !rb_grow((void **)&dv->forces, &dv->force_cap, 3 * np, sizeof *dv->forces) ||
        !rb_grow((void **)&dv->touching, &dv->touching_cap, np, 1) || !rb_world_particle_forces(w, dv->forces))
        return;
    memset(dv->touching, 0, np);
    const uint32_t *first = rb_world_body_first_particle(w), *shapes = rb_world_body_shapes(w);
    const rb_world_desc *desc = rb_world_get_desc(w);
    for (uint32_t k = 0; k < n; k++) {
        const rb_contact_memory *c = &dv->contacts[k];
        if (c->particle >= np) continue;
        dv->touching[c->particle] = 1;
        const float *pi = &p[3 * c->particle];
        const float ri = rb_world_shape_radius(w, shapes[body_of(first, bodies, c->particle)]);
        float at[3];
        if (c->partner >= RB_CONTACT_PLANE) { /* the particle's centre dropped onto the plane */
            const uint32_t plane = c->partner - RB_CONTACT_PLANE;
            if (plane >= desc->plane_count) continue;
            const rb_plane *pl = &desc->planes[plane];
            const float h = rb_v3_dot(pl->normal, pi) - pl->offset;
            for (int j = 0; j < 3; j++) at[j] = pi[j] - pl->normal[j] * h;
        } else { /* between the centres, where the two spheres meet in proportion to their radii */
            if (c->partner >= np || c->partner < c->particle) continue;
            const float *pj = &p[3 * c->partner];
            const float rj = rb_world_shape_radius(w, shapes[body_of(first, bodies, c->partner)]);
            for (int j = 0; j < 3; j++) at[j] = pi[j] + (pj[j] - pi[j]) * ri / (ri + rj);
        }
        cross(dv, at, 0.3f * ri);
        dv->drawn_contacts++;
    }
    static const float yellow[4] = {1.0f, 0.92f, 0.2f, 1.0f}, red[4] = {1.0f, 0.3f, 0.15f, 1.0f};
    flush(dv, r, yellow, true);
    const float g = sqrtf(rb_v3_dot(desc->gravity, desc->gravity));
    for (uint32_t b = 0; b < bodies; b++) {
        float mass = 0.0f;
        const uint32_t count = rb_world_shape_particles(w, shapes[b], NULL, 0, &mass);
        const float weight = count ? mass / (float)count * (g > 0.0f ? g : 9.81f) : 1.0f;
        for (uint32_t i = first[b]; i < first[b + 1]; i++) {
            const float *f = &dv->forces[3 * i], size = sqrtf(rb_v3_dot(f, f));
            if (!dv->touching[i] || !(size > 0.0f) || !isfinite(size)) continue;
            const float len = fminf(1.5f, 0.2f * sqrtf(size / weight));
            const float *pi = &p[3 * i],
                        tip[3] = {pi[0] + f[0] / size * len, pi[1] + f[1] / size * len, pi[2] + f[2] / size * len};
            segment(dv, pi, tip);
        }
    }
    flush(dv, r, red, true);
}

/* Each body's centre of mass and principal axes, x red, y green, z blue,
 * reaching a little past its surface. */
static void draw_axes(rb_debug_views *dv, rb_renderer *r, const rb_debug_frame *f) {
    uint32_t n = 0;
    const rb_transform *t = rb_view_transforms(f->scene->view, &n);
    static const float colours[3][4] = {{1.0f, 0.2f, 0.2f, 1.0f}, {0.2f, 1.0f, 0.3f, 1.0f}, {0.3f, 0.5f, 1.0f, 1.0f}};
    for (int axis = 0; axis < 3; axis++) {
        for (uint32_t b = 0; b < n; b++) {
            float lo[3], hi[3], radius;
            if (!rb_pick_body_bounds(f->pick, f->scene, b, lo, hi, &radius)) continue;
            float e[3] = {0.0f, 0.0f, 0.0f}, d[3];
            e[axis] = 0.5f * (hi[axis] - lo[axis]) + 0.15f * radius;
            rb_quat_rotate(t[b].orientation, e, d);
            const float *c = t[b].position, tip[3] = {c[0] + d[0], c[1] + d[1], c[2] + d[2]};
            segment(dv, c, tip);
        }
        flush(dv, r, colours[axis], true);
    }
}

static int by_cell(const void *a, const void *b) { return memcmp(a, b, sizeof(cell)); }

/* The twelve edges of the box lo..hi, in t's frame (NULL: the world's). */
static void box(rb_debug_views *dv, const float lo[3], const float hi[3], const rb_transform *t) {
    float corner[8][3];
    for (int i = 0; i < 8; i++) {
        const float local[3] = {i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]};
        if (t) {
            rb_quat_rotate(t->orientation, local, corner[i]);
            for (int k = 0; k < 3; k++) corner[i][k] += t->position[k];
        } else {
            memcpy(corner[i], local, sizeof local);
        }
    }
    for (int i = 0; i < 8; i++)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(i & bit)) segment(dv, corner[i], corner[i | bit]); /* each edge once, from its lower corner */
}

/* The grid's occupied cells: the simulation's cell is the largest particle
 * diameter among the bodies, and a particle's cell is floor(x / cell)
 * (src/sim/contact.h, rb_cell_coord). */
static void draw_grid(rb_debug_views *dv, rb_renderer *r, rb_world *w, rb_view *view) {
    dv->drawn_cells = 0, dv->cells_cut = false;
    const uint32_t np = rb_world_particle_count(w), bodies = rb_world_body_count(w);
    const uint32_t *shapes = rb_world_body_shapes(w), *first = rb_world_body_first_particle(w);
    float radius = 0.0f;
    for (uint32_t b = 0; b < bodies; b++) radius = fmaxf(radius, rb_world_shape_radius(w, shapes[b]));
    const float *p = np ? rb_view_particles(view, w) : NULL;
    if (!p || !(radius > 0.0f) || !rb_grow((void **)&dv->cells, &dv->cell_cap, np, sizeof *dv->cells)) return;
    const float size = 2.0f * radius;
    uint32_t n = 0;
    for (uint32_t i = 0; i < first[bodies]; i++) {
        cell c;
        bool finite = true;
        for (int k = 0; k < 3; k++) {
            const float x = floorf(p[3 * i + k] / size);
            finite &= fabsf(x) < 1e6f; /* a body flung far away, or a blown-up one: no box worth drawing */
            c.c[k] = finite ? (int32_t)x : 0;
        }
        if (finite) dv->cells[n++] = c;
    }
    qsort(dv->cells, n, sizeof *dv->cells, by_cell);
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && by_cell(&dv->cells[i], &dv->cells[i - 1]) == 0) continue;
        if (dv->drawn_cells >= RB_DEBUG_MAX_CELLS) {
            dv->cells_cut = true;
            break;
        }
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++) lo[k] = (float)dv->cells[i].c[k] * size, hi[k] = lo[k] + size;
        box(dv, lo, hi, NULL);
        dv->drawn_cells++;
    }
    static const float green[4] = {0.35f, 1.0f, 0.55f, 0.55f};
    flush(dv, r, green, true);
}

/* ---- fields: dots, as the overlay draws them ---- */

/* Where a world point lands in the window (pixels from the top left); false
 * if it is behind the eye. */
static bool on_screen(const float vp[16], const float p[3], int w, int h, float out[2]) {
    vec4 in = {p[0], p[1], p[2], 1.0f}, o;
    glm_mat4_mulv((vec4 *)vp, in, o);
    if (o[3] <= 1e-4f) return false;
    out[0] = (o[0] / o[3] * 0.5f + 0.5f) * (float)w;
    out[1] = (0.5f - o[1] / o[3] * 0.5f) * (float)h;
    return true;
}

/* A dot at p, unless p is inside a plane's solid (under the ground) or behind the eye. */
static void dot(rb_renderer *r, const rb_debug_frame *f, const float p[3], const float colour[4]) {
    const rb_world_desc *wd = rb_world_get_desc(f->scene->world);
    for (uint32_t j = 0; j < wd->plane_count; j++)
        if (rb_v3_dot(wd->planes[j].normal, p) < wd->planes[j].offset) return;
    const float size = f->height >= 700 ? 4.0f : 3.0f;
    float px[2];
    if (on_screen(f->view_proj, p, f->width, f->height, px))
        rb_renderer_rect(r, px[0] - 0.5f * size, px[1] - 0.5f * size, size, size, colour);
}

/* Two unit vectors across axis, and across each other. */
static void across(const float axis[3], float u[3], float v[3]) {
    const float pick[3] = {fabsf(axis[0]) < 0.9f ? 1.0f : 0.0f, fabsf(axis[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    rb_v3_cross(axis, pick, u);
    const float len = sqrtf(rb_v3_dot(u, u));
    for (int k = 0; k < 3; k++) u[k] /= len;
    rb_v3_cross(axis, u, v);
}

enum { DOTS = 72 }; /* dots around a circle */

/* A dotted circle of radius about centre, in the plane of unit vectors u, v. */
static void circle(rb_renderer *r, const rb_debug_frame *f, const float centre[3], const float u[3], const float v[3],
                   float radius, const float colour[4]) {
    for (int i = 0; i < DOTS; i++) {
        const float a = 6.2831853f * (float)i / DOTS, c = cosf(a) * radius, s = sinf(a) * radius;
        const float p[3] = {centre[0] + u[0] * c + v[0] * s, centre[1] + u[1] * c + v[1] * s,
                            centre[2] + u[2] * c + v[2] * s};
        dot(r, f, p, colour);
    }
}

/* A vortex acts within its radius of its axis, however far along it: a
 * dotted cylinder about the axis, a radius either way of the centre, with
 * rings at every half radius and 12 lines along it. */
static void cylinder(rb_renderer *r, const rb_debug_frame *f, const rb_field *fd, const float colour[4]) {
    float u[3], v[3];
    across(fd->axis, u, v);
    const float R = fd->radius;
    for (int ring = -2; ring <= 2; ring++) {
        const float h = 0.5f * R * (float)ring;
        const float c[3] = {fd->centre[0] + fd->axis[0] * h, fd->centre[1] + fd->axis[1] * h,
                            fd->centre[2] + fd->axis[2] * h};
        circle(r, f, c, u, v, R, colour);
    }
    const int along = (int)(2.0f * DOTS / 6.2831853f); /* 2R at the rings' spacing of dots */
    for (int line = 0; line < 12; line++) {
        const float a = 6.2831853f * (float)line / 12.0f, c = cosf(a) * R, s = sinf(a) * R;
        for (int i = 0; i <= along; i++) {
            const float h = R * (2.0f * (float)i / (float)along - 1.0f);
            const float p[3] = {fd->centre[0] + u[0] * c + v[0] * s + fd->axis[0] * h,
                                fd->centre[1] + u[1] * c + v[1] * s + fd->axis[1] * h,
                                fd->centre[2] + u[2] * c + v[2] * s + fd->axis[2] * h};
            dot(r, f, p, colour);
        }
    }
}

/* The extent of each field acting now (a blast for a quarter second after
 * it goes off): a radial field's (and a wind's with a radius) as a dotted
 * sphere of its radius, three great circles; a vortex's as a cylinder. The
 * overlay has no depth: the dots read through bodies as an outline. */
static void draw_fields(rb_renderer *r, const rb_debug_frame *f) {
    if (!f->debris) return;
    const rb_debris_desc *dd = rb_debris_get_desc(f->debris);
    static const float radial[4] = {1.0f, 0.55f, 0.15f, 0.9f}, other[4] = {0.35f, 0.85f, 1.0f, 0.9f};
    static const float x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    for (uint32_t k = 0; k < dd->field_count; k++) {
        const rb_field *fd = &dd->fields[k];
        if (!(fd->radius > 0.0f) || !rb_debris_field_active(f->debris, k)) continue;
        const float *colour = fd->kind == RB_FIELD_RADIAL ? radial : other;
        if (fd->kind == RB_FIELD_VORTEX) {
            cylinder(r, f, fd, colour);
            continue;
        }
        circle(r, f, fd->centre, x, z, fd->radius, colour); /* in the ground's plane */
        circle(r, f, fd->centre, x, y, fd->radius, colour);
        circle(r, f, fd->centre, z, y, fd->radius, colour);
    }
}

void rb_debug_views_draw(rb_debug_views *dv, rb_renderer *r, const rb_debug_frame *f) {
    rb_world *w = f->scene->world;
    if (dv->on[RB_DEBUG_GRID])
        draw_grid(dv, r, w, f->scene->view);
    else
        dv->drawn_cells = 0, dv->cells_cut = false;
    if (dv->on[RB_DEBUG_CONTACTS])
        draw_contacts(dv, r, w, f->scene->view);
    else
        dv->drawn_contacts = 0;
    if (dv->on[RB_DEBUG_AXES]) draw_axes(dv, r, f);
    if (dv->on[RB_DEBUG_FIELDS]) draw_fields(r, f);
}

void rb_debug_draw_selection(rb_renderer *r, const rb_transform *t, const float lo[3], const float hi[3]) {
    rb_debug_views scratch = {0}; /* its own segment list: the views' may be in use */
    box(&scratch, lo, hi, t);
    static const float yellow[4] = {1.0f, 0.85f, 0.1f, 1.0f};
    flush(&scratch, r, yellow, true);
    free(scratch.lines);
}

void rb_debug_draw_crosshair(rb_renderer *r, float x, float y, float size) {
    static const float dark[4] = {0.0f, 0.0f, 0.0f, 0.6f}, light[4] = {1.0f, 1.0f, 1.0f, 0.95f};
    const float gap = 3.0f, arm = 0.5f * size - gap;
    /* four arms around a gap, so the pixel under the cursor stays in sight: dark first, light on top */
    for (int pass = 0; pass < 2; pass++) {
        const float t = pass ? 2.0f : 4.0f, e = pass ? 0.0f : 1.0f;
        const float *c = pass ? light : dark;
        rb_renderer_rect(r, x - gap - arm - e, y - 0.5f * t, arm + 2.0f * e, t, c);
        rb_renderer_rect(r, x + gap - e, y - 0.5f * t, arm + 2.0f * e, t, c);
        rb_renderer_rect(r, x - 0.5f * t, y - gap - arm - e, t, arm + 2.0f * e, c);
        rb_renderer_rect(r, x - 0.5f * t, y + gap - e, t, arm + 2.0f * e, c);
    }
}
