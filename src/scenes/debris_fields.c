/* debris_fields.c - fields (debris.h, rb_field; docs/debris.md): added and
 * changed, and at a tick their pushes on the bodies read: a radial impulse
 * given once, forces held through the tick's steps (radial, wind on each
 * body's faces, vortex). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debris_internal.h"
#include "debris_math.h"

/* ---- a field added, changed ---- */

/* True if field k will act no more: its impulse given, its duration over. */
static bool field_done(const rb_debris *d, uint32_t k, double t) {
    const rb_field *f = &d->desc.fields[k];
    if (f->kind == RB_FIELD_RADIAL && f->impulse) return d->fired[k];
    return f->duration > 0.0f && t >= (double)f->start + f->duration;
}

bool rb_debris_add_field(rb_debris *d, const rb_field *f) {
    if (f->kind != RB_FIELD_WIND && !(f->radius > 0.0f)) return false;
    const double t = rb_debris_now(d);
    uint32_t k = d->desc.field_count;
    if (k == RB_DEBRIS_MAX_FIELDS) { /* the oldest done field's place, so the table stays bounded */
        for (uint32_t j = 0; j < RB_DEBRIS_MAX_FIELDS; j++)
            if (field_done(d, j, t) && (k == RB_DEBRIS_MAX_FIELDS || d->desc.fields[j].start < d->desc.fields[k].start))
                k = j;
        if (k == RB_DEBRIS_MAX_FIELDS) return false;
    }
    rb_field *slot = &d->desc.fields[k];
    *slot = *f;
    slot->start = rb_debris_start_now(d);
    d->fired[k] = false;
    if (k == d->desc.field_count) d->desc.field_count++;
    return true;
}

bool rb_debris_set_field(rb_debris *d, uint32_t k, const rb_field *f, char *err, size_t err_size) {
    if (k >= d->desc.field_count) {
        snprintf(err, err_size, "field %u: there are %u fields", k, d->desc.field_count);
        return false;
    }
    rb_field *slot = &d->desc.fields[k];
    if (f->kind != slot->kind) {
        snprintf(err, err_size, "field %u: its kind cannot change", k);
        return false;
    }
    const float *v[] = {f->centre, f->velocity, f->axis};
    bool finite = isfinite(f->radius) && isfinite(f->duration) && isfinite(f->strength) && isfinite(f->falloff) &&
                  isfinite(f->up) && isfinite(f->drag);
    for (int i = 0; i < 3; i++) finite = finite && isfinite(v[i][0]) && isfinite(v[i][1]) && isfinite(v[i][2]);
    if (!finite) {
        snprintf(err, err_size, "field %u: every value must be a finite number", k);
        return false;
    }
    if (f->kind != RB_FIELD_WIND && !(f->radius > 0.0f)) {
        snprintf(err, err_size, "field %u: radius %g m: a %s field needs a radius above 0", k, f->radius,
                 f->kind == RB_FIELD_RADIAL ? "radial" : "vortex");
        return false;
    }
    if (!(f->radius >= 0.0f && f->duration >= 0.0f && f->falloff >= 0.0f && f->up >= 0.0f && f->drag >= 0.0f)) {
        snprintf(err, err_size, "field %u: radius, duration, falloff, up and drag must be >= 0", k);
        return false;
    }
    float axis[3] = {f->axis[0], f->axis[1], f->axis[2]};
    if (f->kind == RB_FIELD_VORTEX && !normalise(axis)) {
        snprintf(err, err_size, "field %u: a vortex needs an axis", k);
        return false;
    }
    const float start = slot->start;
    *slot = *f;
    slot->start = start; /* it acts on from when it began; a blast given stays given */
    memcpy(slot->axis, axis, sizeof axis);
    return true;
}

/* ---- at a tick: the pushes ---- */

/* Holds force at point on body s for the tick (told to impact debris, so
 * that what it gives is no hit). */
static bool hold(rb_debris *d, const rb_body_state *s, const float force[3], const float point[3]) {
    const float tick_s = (float)(d->tick_steps * d->dt),
                impulse[3] = {force[0] * tick_s, force[1] * tick_s, force[2] * tick_s};
    if (!rb_debris_impact_pushed(d, s, impulse)) return false;
    const rb_body_id id = s->id;
    const float *centre = s->position;
    if (d->held_count == d->held_capacity) {
        const uint32_t cap = d->held_capacity ? 2u * d->held_capacity : 64u;
        held_force *h = realloc(d->held, sizeof *h * cap);
        if (!h) return false;
        d->held = h, d->held_capacity = cap;
    }
    held_force *h = &d->held[d->held_count++];
    h->id = id;
    memcpy(h->force, force, sizeof h->force);
    const float lever[3] = {point[0] - centre[0], point[1] - centre[1], point[2] - centre[2]};
    rb_v3_cross(lever, force, h->torque);
    return true;
}

/* The faces of a world shape's particles that wind can blow on: the
 * outer faces of their cells (rb_cell_mesh), each its centre and outward
 * normal in the shape's frame and its area: 7 floats a face. Made once a
 * shape, when wind first blows on one of its bodies. */
static const float *faces_of(rb_debris *d, uint32_t shape, uint32_t *count) {
    if (shape >= d->face_size) {
        const uint32_t size = 2u * shape + 16u;
        face_set *f = realloc(d->faces, sizeof *f * size);
        if (!f) return NULL;
        memset(f + d->face_size, 0, sizeof *f * (size - d->face_size));
        d->faces = f, d->face_size = size;
    }
    face_set *set = &d->faces[shape];
    if (!set->made) {
        const uint32_t n = rb_world_shape_particles(d->world, shape, NULL, 0, NULL);
        float *p = malloc(sizeof *p * 3 * (n ? n : 1));
        rb_mesh m = {0};
        bool ok = p && n && rb_world_shape_particles(d->world, shape, p, n, NULL) == n &&
                  rb_cell_mesh(p, n, rb_world_shape_radius(d->world, shape), &m);
        free(p);
        const uint32_t faces = ok ? m.vertex_count / 4u : 0u;
        set->data = ok ? malloc(sizeof *set->data * 7 * (faces ? faces : 1)) : NULL;
        if (!set->data) {
            rb_mesh_free(&m);
            return NULL;
        }
        for (uint32_t k = 0; k < faces; k++) {
            const float *v = &m.positions[12 * k];
            float *out = &set->data[7 * k], e1[3], e2[3], cr[3];
            for (int j = 0; j < 3; j++) {
                out[j] = 0.25f * (v[j] + v[3 + j] + v[6 + j] + v[9 + j]);
                out[3 + j] = m.normals[12 * k + j];
                e1[j] = v[3 + j] - v[j], e2[j] = v[9 + j] - v[j];
            }
            rb_v3_cross(e1, e2, cr);
            out[6] = sqrtf(rb_v3_dot(cr, cr));
        }
        rb_mesh_free(&m);
        set->count = faces;
        set->made = true;
    }
    *count = set->count;
    return set->data;
}

/* Wind on the faces of a body that meet it (debris.h, rb_field): on each
 * outer cell face whose outward normal n meets the wind relative to the
 * body, u, a pressure drag |u|^2 (-n . u/|u|) over its area, along u. The
 * sum, *out, acts at *at: a point on the line through the centre of
 * pressure, so that it turns the body as the faces' forces would (all but
 * the twist about the wind's own direction). False if out of memory. */
static bool wind_on(rb_debris *d, const rb_body_state *s, const rb_field *fd, float out[3], float at[3]) {
    uint32_t count = 0;
    const float *faces = faces_of(d, s->shape, &count);
    if (!faces) return false;
    float u[3];
    for (int k = 0; k < 3; k++) u[k] = fd->velocity[k] - s->velocity[k], out[k] = 0.0f, at[k] = s->position[k];
    const float speed = sqrtf(rb_v3_dot(u, u));
    if (!(speed > 0.0f)) return true;
    float torque[3] = {0.0f, 0.0f, 0.0f};
    for (uint32_t f = 0; f < count; f++) {
        const float *face = &faces[7 * f];
        float n[3], c[3];
        rb_quat_rotate(s->orientation, &face[3], n);
        const float facing = -rb_v3_dot(n, u) / speed;
        if (!(facing > 0.0f)) continue;
        rb_quat_rotate(s->orientation, face, c);
        const float push = fd->drag * face[6] * facing * speed, f3[3] = {push * u[0], push * u[1], push * u[2]};
        float t[3];
        rb_v3_cross(c, f3, t);
        for (int k = 0; k < 3; k++) out[k] += f3[k], torque[k] += t[k];
    }
    const float f2 = rb_v3_dot(out, out);
    if (f2 > 0.0f) { /* the point c + (F x T) / |F|^2 has (point - c) x F = T less its part along F */
        float ft[3];
        rb_v3_cross(out, torque, ft);
        for (int k = 0; k < 3; k++) at[k] += ft[k] / f2;
    }
    return true;
}

/* The fields' pushes on the bodies read at this tick. */
bool rb_debris_push(rb_debris *d, double t, const rb_body_state *states, uint32_t n) {
    rb_world *w = d->world;
    for (uint32_t f = 0; f < d->desc.field_count; f++) {
        const rb_field *fd = &d->desc.fields[f];
        const bool once = fd->kind == RB_FIELD_RADIAL && fd->impulse;
        if (once ? (d->fired[f] || t < fd->start) : !rb_debris_acts_at(t, fd->start, fd->duration)) continue;
        d->fired[f] = true;
        for (uint32_t b = 0; b < n; b++) {
            const rb_body_state *s = &states[b];
            if (s->kind != RB_BODY_DYNAMIC || !rb_world_body_valid(w, s->id)) continue;
            float rel[3], out[3] = {0.0f, 0.0f, 0.0f};
            for (int k = 0; k < 3; k++) rel[k] = s->position[k] - fd->centre[k];
            const float dist = sqrtf(rb_v3_dot(rel, rel));
            if (fd->radius > 0.0f && dist >= fd->radius && fd->kind != RB_FIELD_VORTEX) continue;
            if (fd->kind == RB_FIELD_RADIAL) {
                float dir[3] = {rel[0], rel[1], rel[2]};
                if (!normalise(dir)) dir[0] = 0.0f, dir[1] = 1.0f, dir[2] = 0.0f;
                dir[1] += fd->up;
                normalise(dir);
                const float amount = fd->strength * powf(1.0f - dist / fd->radius, fd->falloff);
                for (int k = 0; k < 3; k++) out[k] = amount * dir[k];
                if (once) {
                    if (!rb_world_apply_impulse(w, s->id, out, s->position) || !rb_debris_impact_pushed(d, s, out))
                        return false;
                    continue;
                }
            } else if (fd->kind == RB_FIELD_WIND) {
                float at[3];
                if (!wind_on(d, s, fd, out, at)) return false;
                if (rb_v3_dot(out, out) > 0.0f && !hold(d, s, out, at)) return false;
                continue;
            } else { /* vortex: towards a solid swirl within the radius, strength at its edge */
                const float along = rb_v3_dot(rel, fd->axis);
                float radial[3];
                for (int k = 0; k < 3; k++) radial[k] = rel[k] - along * fd->axis[k];
                const float rho = sqrtf(rb_v3_dot(radial, radial));
                if (rho >= fd->radius || !(rho > 0.0f)) continue;
                float tangent[3];
                rb_v3_cross(fd->axis, radial, tangent);
                normalise(tangent);
                const float want = fd->strength * rho / fd->radius, have = rb_v3_dot(s->velocity, tangent);
                /* held for a tick: the part of the way the rate would go in a
                 * tick, exactly (1 - e^-drag t), so no drag overshoots */
                const float tick_s = (float)(d->tick_steps * d->dt);
                const float gain = (1.0f - expf(-fd->drag * tick_s)) / tick_s;
                for (int k = 0; k < 3; k++) out[k] = s->mass * gain * (want - have) * tangent[k];
            }
            if (!hold(d, s, out, s->position)) return false;
        }
    }
    return true;
}

bool rb_debris_field_active(const rb_debris *d, uint32_t k) {
    if (k >= d->desc.field_count) return false;
    const rb_field *f = &d->desc.fields[k];
    const double t = rb_debris_now(d);
    if (f->kind == RB_FIELD_RADIAL && f->impulse) return t >= f->start && t < (double)f->start + 0.25;
    return rb_debris_acts_at(t, f->start, f->duration);
}
