/* scene_read_contacts.c - reading a saved world's contact history, a
 * scene's `contacts` (docs/scene-format.md, "contacts"), into
 * rb_scene.contacts, each bad entry named by file and element as the rest of
 * the reader does (scene_read_internal.h). What only the world knows is
 * checked when the scene is built (rb_world_restore_contacts). */
#include <math.h>
#include <stdlib.h>

#include "scene_read_internal.h"

/* An entry, as messages name it: the rolling angle is optional. */
#define CONTACT_ENTRY "[particle, partner, dx, dy, dz] or [particle, partner, dx, dy, dz, {\"rolling\": [rx, ry, rz]}]"

/* The value at the current path: a whole number below limit (the scene's
 * `what`s: particles or planes), named `name` in messages. */
static bool read_index(rb_reader *r, const cJSON *e, const char *name, uint64_t limit, const char *what,
                       uint32_t *out) {
    if (!cJSON_IsNumber(e)) return rb_read_fail(r, "expected a %s index, a whole number >= 0", name);
    const double d = e->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < 0.0)
        return rb_read_fail(r, "expected a %s index, a whole number >= 0, got %g", name, d);
    if (d >= (double)limit) {
        return limit ? rb_read_fail(r, "%s %.0f is past the scene's %llu %ss (0 to %llu)", name, d,
                                    (unsigned long long)limit, what, (unsigned long long)limit - 1)
                     : rb_read_fail(r, "%s %.0f: the scene has no %ss", name, d, what);
    }
    *out = (uint32_t)d;
    return true;
}

/* The entry's optional sixth element at the current path,
 * {"rolling": [rx, ry, rz]}: the rolling spring's angle, rad. */
static bool read_rolling(rb_reader *r, const cJSON *o, float rolling[3]) {
    static const char *const keys[] = {"rolling", NULL};
    if (!cJSON_IsObject(o)) return rb_read_fail(r, "expected {\"rolling\": [rx, ry, rz]}");
    if (!rb_read_check_keys(r, o, keys)) return false;
    if (!cJSON_GetObjectItemCaseSensitive(o, "rolling"))
        return rb_read_fail(r, "expected {\"rolling\": [rx, ry, rz]}: 'rolling' is missing");
    return rb_read_vector(r, o, "rolling", 3, rolling);
}

/* One entry at the current path, [particle, partner, dx, dy, dz] and
 * optionally a sixth element {"rolling": [rx, ry, rz]}: partner a particle
 * index or {"plane": k}, the displacement in m, the rolling angle in rad,
 * zero when absent (docs/scene-format.md, "contacts"). prev: the n_prev entries before it,
 * for their order and repeats. The checks the world makes again
 * (rb_world_restore_contacts) are made here too, to name the element; a
 * partner of the particle's own body and more entries for a particle than
 * it keeps are left to the world, which knows the bodies and the slots. */
static bool read_contact(rb_reader *r, const rb_scene *s, const cJSON *o, const rb_contact_memory *prev,
                         uint32_t n_prev, rb_contact_memory *m) {
    const int got = cJSON_IsArray(o) ? cJSON_GetArraySize(o) : -1;
    if (got != 5 && got != 6) {
        return got < 0 ? rb_read_fail(r, "expected " CONTACT_ENTRY ", got %s",
                                      cJSON_IsObject(o) ? "an object" : "a single value")
                       : rb_read_fail(r, "expected " CONTACT_ENTRY ", got %d values", got);
    }
    *m = (rb_contact_memory){0};
    size_t len = rb_read_enter(r, NULL, 0);
    if (!read_index(r, cJSON_GetArrayItem(o, 0), "particle", s->particle_count, "particle", &m->particle)) return false;
    if (n_prev > 0 && prev[n_prev - 1].particle > m->particle) {
        return rb_read_fail(r, "particle %u after particle %u: the entries go in particle order", m->particle,
                            prev[n_prev - 1].particle);
    }
    rb_read_leave(r, len);
    const cJSON *partner = cJSON_GetArrayItem(o, 1);
    len = rb_read_enter(r, NULL, 1);
    if (cJSON_IsObject(partner)) {
        static const char *const keys[] = {"plane", NULL};
        if (!rb_read_check_keys(r, partner, keys)) return false;
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(partner, "plane");
        if (!k) return rb_read_fail(r, "expected {\"plane\": k}: 'plane' is missing");
        uint32_t plane = 0;
        rb_read_enter(r, "plane", 0);
        if (!read_index(r, k, "plane", s->world.plane_count, "plane", &plane)) return false;
        m->partner = RB_CONTACT_PLANE + plane;
    } else if (cJSON_IsNumber(partner)) {
        if (!read_index(r, partner, "partner particle", s->particle_count, "particle", &m->partner)) return false;
        if (m->partner == m->particle) return rb_read_fail(r, "particle %u cannot touch itself", m->particle);
    } else {
        return rb_read_fail(r, "expected a particle index or {\"plane\": k}");
    }
    /* A particle keeps a few contacts (the world refuses more): looking back
     * 16 entries finds every repeat of a list it takes, and keeps a hostile
     * file of a million entries for one particle from costing n^2. */
    for (uint32_t i = n_prev, seen = 0; i-- > 0 && seen < 16 && prev[i].particle == m->particle; seen++)
        if (prev[i].partner == m->partner)
            return rb_read_fail(r, "particle %u's contact with this partner is given twice", m->particle);
    rb_read_leave(r, len);
    for (int k = 0; k < 3; k++) {
        const cJSON *e = cJSON_GetArrayItem(o, 2 + k);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !isfinite((float)e->valuedouble)) {
            rb_read_enter(r, NULL, 2 + k);
            return rb_read_fail(r, "expected a finite number (the displacement's %c, m)", "xyz"[k]);
        }
        m->displacement[k] = (float)e->valuedouble;
    }
    if (got == 6) {
        len = rb_read_enter(r, NULL, 5);
        if (!read_rolling(r, cJSON_GetArrayItem(o, 5), m->rolling)) return false;
        rb_read_leave(r, len);
    }
    return true;
}

bool rb_read_contacts(rb_reader *r, rb_scene *s, const cJSON *o) {
    if (!cJSON_IsArray(o)) return rb_read_fail(r, "expected an array of [particle, partner, dx, dy, dz]");
    const int n = cJSON_GetArraySize(o);
    if (n == 0) return true;
    s->contacts = calloc((size_t)n, sizeof *s->contacts);
    if (!s->contacts) return rb_read_fail(r, "out of memory for %d contacts", n);
    int i = 0;
    for (const cJSON *e = o->child; e; e = e->next, i++) {
        size_t len = rb_read_enter(r, NULL, i);
        if (!read_contact(r, s, e, s->contacts, s->contact_count, &s->contacts[s->contact_count])) return false;
        s->contact_count++;
        rb_read_leave(r, len);
    }
    return true;
}
