/* fracture.c - breakable bodies' pieces, bonds and splits (see fracture.h). */
#include "fracture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
#include "fracture_internal.h"
#include "shapes/shapes.h"

/* Touching particles' centres lie 2 r apart; lattice offsets scaled in
 * floats land a few ulps either side of that, so a bond reaches 1% further. */
#define RB_BOND_REACH 1.01

static void say(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t err_size, const char *fmt, ...) {
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

typedef struct keyed {
    uint32_t value, index;
} keyed;

static int keyed_order(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int u32_order(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Given pieces, any values, renumbered in order of first appearance: sorted
 * by (value, index), each value's group starts with its first particle; the
 * groups' first particles, sorted, give the new numbers. Sorting keeps it
 * n log n for a plugin's 65536 particles of as many pieces. */
static bool renumber_given(const uint32_t *given, uint32_t n, uint32_t *piece_of, uint32_t *count) {
    keyed *k = malloc(n * sizeof *k);
    uint32_t *first = malloc(n * sizeof *first);
    if (!k || !first) {
        free(k), free(first);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) k[i] = (keyed){given[i], i};
    qsort(k, n, sizeof *k, keyed_order);
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || k[i].value != k[i - 1].value) first[groups++] = k[i].index;
        piece_of[k[i].index] = first[groups - 1];
    }
    qsort(first, groups, sizeof *first, u32_order);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *at = bsearch(&piece_of[i], first, groups, sizeof *first, u32_order);
        piece_of[i] = (uint32_t)(at - first);
    }
    *count = groups;
    free(k), free(first);
    return true;
}

typedef struct along {
    float x;
    uint32_t index;
} along;

static int along_order(const void *a, const void *b) {
    const along *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x;
}

static int pair_order(const void *a, const void *b) {
    const uint32_t *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* Bonds: the piece pairs with a touching particle pair. A sweep along the
 * longest axis (particles sorted on it, each compared with those within
 * reach ahead) instead of all n^2 pairs. */
static bool find_bonds(const float *p, uint32_t n, float r, float bond_reach, const uint32_t *piece_of,
                       uint32_t **bonds, uint32_t *bond_count) {
    const double reach = 2.0 * r * (bond_reach > 0.0f ? bond_reach : RB_BOND_REACH), reach2 = reach * reach;
    float low, extent;
    const int axis = rb_longest_axis(p, n, &low, &extent);
    along *s = malloc(n * sizeof *s);
    if (!s) return false;
    for (uint32_t i = 0; i < n; i++) s[i] = (along){p[3 * i + axis], i};
    qsort(s, n, sizeof *s, along_order);
    uint32_t *pairs = NULL, count = 0, capacity = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n && (double)s[b].x - s[a].x <= reach; b++) {
            const uint32_t i = s[a].index, j = s[b].index, pi = piece_of[i], pj = piece_of[j];
            if (pi == pj || rb_distance2(&p[3 * i], &p[3 * j]) > reach2) continue;
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                uint32_t *grown = realloc(pairs, 2 * sizeof *pairs * capacity);
                if (!grown) {
                    free(pairs), free(s);
                    return false;
                }
                pairs = grown;
            }
            pairs[2 * count] = pi < pj ? pi : pj, pairs[2 * count + 1] = pi < pj ? pj : pi;
            count++;
        }
    free(s);
    if (count) qsort(pairs, count, 2 * sizeof *pairs, pair_order);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < count; k++)
        if (unique == 0 || pair_order(&pairs[2 * k], &pairs[2 * (unique - 1)]) != 0) {
            pairs[2 * unique] = pairs[2 * k], pairs[2 * unique + 1] = pairs[2 * k + 1];
            unique++;
        }
    *bonds = pairs, *bond_count = unique;
    return true;
}

static bool finite_vector(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* A direction for slices or radial: finite and not zero. */
static bool check_direction(const float v[3], const char *what, char *err, size_t err_size) {
    if (finite_vector(v) && (v[0] != 0.0f || v[1] != 0.0f || v[2] != 0.0f)) return true;
    say(err, err_size, "fracture: %s (%g, %g, %g): expected a finite vector, not zero", what, v[0], v[1], v[2]);
    return false;
}

/* The new patterns' own settings (the rest is checked with the old ones). */
static bool check_pattern(const rb_fracture_desc *desc, char *err, size_t err_size) {
    switch (desc->kind) {
    case RB_FRACTURE_SLICES:
        return check_direction(desc->normal, "slices' normal", err, err_size);
    case RB_FRACTURE_RADIAL:
        if (!check_direction(desc->normal, "radial's axis", err, err_size)) return false;
        if (desc->centre_given && !finite_vector(desc->centre)) {
            say(err, err_size, "fracture: radial's centre is not finite");
            return false;
        }
        if (desc->wedges == 0 || desc->rings == 0 || (uint64_t)desc->wedges * desc->rings > RB_FRACTURE_MAX_CELLS) {
            say(err, err_size, "fracture: radial of %u wedges and %u rings: at least 1 of each, at most %u cells",
                desc->wedges, desc->rings, RB_FRACTURE_MAX_CELLS);
            return false;
        }
        return true;
    case RB_FRACTURE_VORONOI:
        if (desc->impact && (!(desc->focus >= 0.0f) || !isfinite(desc->focus))) {
            say(err, err_size, "fracture: impact focus %g m: expected a finite length >= 0", desc->focus);
            return false;
        }
        return true;
    default:
        return true;
    }
}

/* rb_pieces_make, and rb_pieces_make_at with hit: the impact pattern drawn about it. */
static bool make_pieces(const float *offsets, uint32_t n, float r, float m, const rb_fracture_desc *desc,
                        const uint32_t *given, const float *hit, rb_pieces *out, char *err, size_t err_size) {
    if (!out) {
        say(err, err_size, "fracture: no pieces to fill");
        return false;
    }
    memset(out, 0, sizeof *out);
    if (!desc) {
        say(err, err_size, "fracture: no pattern");
        return false;
    }
    if (n == 0 || !offsets) {
        say(err, err_size, "fracture: a body of no particles has no pieces");
        return false;
    }
    if (!(desc->strength > 0.0f) || !isfinite(desc->strength)) {
        say(err, err_size, "fracture: strength %g: a bond must hold a finite force > 0 N", desc->strength);
        return false;
    }
    if (!(r > 0.0f) || !isfinite(r) || !(m > 0.0f) || !isfinite(m)) {
        say(err, err_size, "fracture: particle radius %g m and mass %g kg must be finite and > 0", r, m);
        return false;
    }
    for (uint32_t i = 0; i < 3 * n; i++)
        if (!isfinite(offsets[i])) {
            say(err, err_size, "fracture: particle %u's offset is not finite", i / 3);
            return false;
        }
    if (!check_pattern(desc, err, err_size)) return false;
    uint32_t count = desc->pieces;
    switch (desc->kind) {
    case RB_FRACTURE_VORONOI:
    case RB_FRACTURE_LAYERS:
    case RB_FRACTURE_SLICES:
        if (count == 0) {
            say(err, err_size, "fracture: %s of 0 pieces: at least 1",
                desc->kind == RB_FRACTURE_VORONOI  ? "voronoi"
                : desc->kind == RB_FRACTURE_LAYERS ? "layers"
                                                   : "slices");
            return false;
        }
        if (count > n) {
            rb_log(RB_LOG_WARN, "fracture: %u pieces asked of a body of %u particles: %u", count, n, n);
            count = n;
        }
        break;
    case RB_FRACTURE_PARTICLES:
        count = n;
        break;
    case RB_FRACTURE_RADIAL:
        count = desc->wedges * desc->rings; /* checked: at most RB_FRACTURE_MAX_CELLS */
        break;
    case RB_FRACTURE_GIVEN:
        if (!given) {
            say(err, err_size, "fracture: given pieces, but none given");
            return false;
        }
        break;
    default:
        say(err, err_size, "fracture: no pattern of kind %d", (int)desc->kind);
        return false;
    }

    out->particle_count = n;
    out->strength = desc->strength;
    out->bond_reach = desc->bond_reach;
    out->radius = r;
    out->piece_of = malloc(n * sizeof *out->piece_of);
    uint32_t *scratch = malloc((count > n ? count : n) * sizeof *scratch);
    double *weight = desc->kind == RB_FRACTURE_VORONOI && desc->impact && hit
                         ? rb_pattern_impact_weights(offsets, n, hit, desc->focus)
                         : NULL;
    /* the patterns whose pieces are the Voronoi cells of seeds keep them,
     * radial its wedges and rings (the pieces' meshes are cut along them) */
    const bool cells =
        desc->kind == RB_FRACTURE_VORONOI || desc->kind == RB_FRACTURE_LAYERS || desc->kind == RB_FRACTURE_SLICES;
    if (cells) out->seeds = malloc(3 * sizeof *out->seeds * count);
    if (desc->kind == RB_FRACTURE_RADIAL) out->radial = calloc(1, sizeof *out->radial);
    bool ok = out->piece_of && scratch && (!cells || out->seeds) && (desc->kind != RB_FRACTURE_RADIAL || out->radial) &&
              (weight || !(desc->kind == RB_FRACTURE_VORONOI && desc->impact && hit));
    if (ok) switch (desc->kind) {
        case RB_FRACTURE_VORONOI:
            ok = rb_pattern_voronoi(offsets, n, r, count, desc->seed, weight, out->piece_of, out->seeds);
            if (ok) count = rb_pattern_drop_empty(out->piece_of, n, count, scratch, out->seeds, NULL);
            break;
        case RB_FRACTURE_LAYERS:
            rb_pattern_layers(offsets, n, count, out->piece_of, out->seeds);
            count = rb_pattern_drop_empty(out->piece_of, n, count, scratch, out->seeds, NULL);
            break;
        case RB_FRACTURE_SLICES:
            rb_pattern_slices(offsets, n, count, desc->normal, out->piece_of, out->seeds);
            count = rb_pattern_drop_empty(out->piece_of, n, count, scratch, out->seeds, NULL);
            break;
        case RB_FRACTURE_RADIAL:
            ok = rb_pattern_radial(offsets, n, desc, out->piece_of, out->radial) &&
                 (out->radial->cell = malloc(count * sizeof *out->radial->cell)) != NULL;
            for (uint32_t k = 0; ok && k < count; k++) out->radial->cell[k] = k;
            if (ok) count = rb_pattern_drop_empty(out->piece_of, n, count, scratch, NULL, out->radial->cell);
            break;
        case RB_FRACTURE_PARTICLES:
            for (uint32_t i = 0; i < n; i++) out->piece_of[i] = i;
            break;
        default:
            ok = renumber_given(given, n, out->piece_of, &count);
            break;
        }
    free(scratch), free(weight);
    if (ok) {
        out->piece_count = count;
        out->mass = calloc(count, sizeof *out->mass);
        out->centre = calloc(3 * (size_t)count, sizeof *out->centre);
        out->holds = calloc(count, sizeof *out->holds);
        ok = out->mass && out->centre && out->holds;
    }
    if (ok) {
        double *sum = calloc(4 * (size_t)count, sizeof *sum);
        ok = sum != NULL;
        for (uint32_t i = 0; ok && i < n; i++) {
            double *s = &sum[4 * out->piece_of[i]];
            s[0] += offsets[3 * i], s[1] += offsets[3 * i + 1], s[2] += offsets[3 * i + 2], s[3] += 1.0;
        }
        for (uint32_t k = 0; ok && k < count; k++) {
            out->mass[k] = m * (float)sum[4 * k + 3];
            for (int a = 0; a < 3; a++) out->centre[3 * k + a] = (float)(sum[4 * k + a] / sum[4 * k + 3]);
        }
        free(sum);
    }
    if (ok) ok = find_bonds(offsets, n, r, desc->bond_reach, out->piece_of, &out->bonds, &out->bond_count);
    if (!ok) {
        rb_pieces_free(out);
        say(err, err_size, "fracture: out of memory for the pieces of %u particles", n);
        return false;
    }
    for (uint32_t b = 0; b < out->bond_count; b++) {
        out->holds[out->bonds[2 * b]] += out->strength;
        out->holds[out->bonds[2 * b + 1]] += out->strength;
    }
    return true;
}

bool rb_pieces_make(const float *offsets, uint32_t n, float r, float m, const rb_fracture_desc *desc,
                    const uint32_t *given, rb_pieces *out, char *err, size_t err_size) {
    return make_pieces(offsets, n, r, m, desc, given, NULL, out, err, err_size);
}

bool rb_pieces_make_at(const float *offsets, uint32_t n, float r, float m, const rb_fracture_desc *desc,
                       const float hit[3], rb_pieces *out, char *err, size_t err_size) {
    if (hit && !finite_vector(hit)) {
        if (out) memset(out, 0, sizeof *out);
        say(err, err_size, "fracture: the hit (%g, %g, %g) is not finite", hit[0], hit[1], hit[2]);
        return false;
    }
    return make_pieces(offsets, n, r, m, desc, NULL, hit, out, err, err_size);
}

void rb_pieces_free(rb_pieces *p) {
    if (!p) return;
    free(p->piece_of), free(p->mass), free(p->centre), free(p->bonds), free(p->holds), free(p->seeds);
    if (p->radial) rb_pattern_radial_free(p->radial), free(p->radial);
    memset(p, 0, sizeof *p);
}

static uint32_t find_root(uint32_t *root, uint32_t k) {
    while (root[k] != k) k = root[k] = root[root[k]];
    return k;
}

/* The rotation matrix (row-major; its columns the principal axes in the
 * parent's frame) as a quaternion, x y z w: Shepperd's choice of the
 * largest of w, x, y, z to divide by, so no branch divides by a small one. */
static void quat_from_rotation(const double m[9], float q[4]) {
    const double t = m[0] + m[4] + m[8];
    double x, y, z, w, s;
    if (t > 0.0) {
        s = 2.0 * sqrt(1.0 + t);
        w = 0.25 * s, x = (m[7] - m[5]) / s, y = (m[2] - m[6]) / s, z = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        x = 0.25 * s, y = (m[1] + m[3]) / s, z = (m[2] + m[6]) / s, w = (m[7] - m[5]) / s;
    } else if (m[4] > m[8]) {
        s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        y = 0.25 * s, x = (m[1] + m[3]) / s, z = (m[5] + m[7]) / s, w = (m[2] - m[6]) / s;
    } else {
        s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        z = 0.25 * s, x = (m[2] + m[6]) / s, y = (m[5] + m[7]) / s, w = (m[3] - m[1]) / s;
    }
    q[0] = (float)x, q[1] = (float)y, q[2] = (float)z, q[3] = (float)w;
    rb_quat_normalize(q);
}

/* One child's mass properties, frame and motion from its particles (parent
 * indices in c->parent); `scratch` holds 3 * its particle count floats. */
static void make_child(rb_split_child *c, const float *offsets, float r, float m, const rb_body_state *parent,
                       float *scratch) {
    for (uint32_t i = 0; i < c->particle_count; i++) memcpy(&scratch[3 * i], &offsets[3 * c->parent[i]], 12);
    float com[3];
    double tensor[9], moments[3], rot[9];
    rb_mass_properties(scratch, c->particle_count, r, m, &c->mass, com, tensor);
    rb_sym3_eigen(tensor, moments, rot);
    for (int k = 0; k < 3; k++) c->inertia[k] = (float)moments[k];
    memcpy(c->centre, com, sizeof c->centre);
    for (int k = 0; k < 9; k++) c->axes[k] = (float)rot[k];
    /* offsets about its centre, in its principal frame: rot^T (p - com) */
    for (uint32_t i = 0; i < c->particle_count; i++) {
        const double v[3] = {(double)scratch[3 * i] - com[0], (double)scratch[3 * i + 1] - com[1],
                             (double)scratch[3 * i + 2] - com[2]};
        for (int k = 0; k < 3; k++)
            c->particles[3 * i + k] = (float)(rot[k] * v[0] + rot[3 + k] * v[1] + rot[6 + k] * v[2]);
    }
    float principal[4], arm[3], spin[3];
    quat_from_rotation(rot, principal);
    rb_quat_mul(parent->orientation, principal, c->orientation);
    rb_quat_normalize(c->orientation);
    rb_quat_rotate(parent->orientation, com, arm);
    rb_v3_cross(parent->angular_velocity, arm, spin);
    for (int k = 0; k < 3; k++) {
        c->position[k] = parent->position[k] + arm[k];
        c->velocity[k] = parent->velocity[k] + spin[k];
        c->angular_velocity[k] = parent->angular_velocity[k];
    }
}

uint32_t rb_split(const rb_pieces *p, const float *offsets, float r, float m, const bool *broken,
                  const rb_body_state *parent, rb_split_child **children, char *err, size_t err_size) {
    if (children) *children = NULL;
    if (!p || !offsets || !broken || !parent || !children || p->piece_count == 0 || p->particle_count == 0) {
        say(err, err_size, "fracture: split: no pieces, particles, broken flags, parent or children to fill");
        return 0;
    }
    const uint32_t np = p->piece_count, n = p->particle_count;
    uint32_t *root = malloc(np * sizeof *root), *component = malloc(np * sizeof *component);
    if (!root || !component) {
        free(root), free(component);
        say(err, err_size, "fracture: split: out of memory");
        return 0;
    }
    /* A broken piece's bonds are gone: it is a component of its own. */
    for (uint32_t k = 0; k < np; k++) root[k] = k;
    for (uint32_t b = 0; b < p->bond_count; b++) {
        const uint32_t x = p->bonds[2 * b], y = p->bonds[2 * b + 1];
        if (broken[x] || broken[y]) continue;
        root[find_root(root, x)] = find_root(root, y);
    }
    /* components numbered in the order of their lowest piece */
    uint32_t count = 0;
    for (uint32_t k = 0; k < np; k++) component[k] = UINT32_MAX;
    for (uint32_t k = 0; k < np; k++) {
        const uint32_t top = find_root(root, k);
        if (component[top] == UINT32_MAX) component[top] = count++;
    }
    if (count == 1) {
        free(root), free(component);
        return 1;
    }
    rb_split_child *c = calloc(count, sizeof *c);
    float *scratch = malloc(3 * sizeof *scratch * n);
    bool ok = c && scratch;
    for (uint32_t i = 0; ok && i < n; i++) c[component[find_root(root, p->piece_of[i])]].particle_count++;
    for (uint32_t k = 0; ok && k < count; k++) {
        c[k].particles = malloc(3 * sizeof *c[k].particles * c[k].particle_count);
        c[k].parent = malloc(sizeof *c[k].parent * c[k].particle_count);
        ok = c[k].particles && c[k].parent;
        c[k].particle_count = 0; /* counted again as the particles go in, in ascending order */
    }
    for (uint32_t i = 0; ok && i < n; i++) {
        rb_split_child *to = &c[component[find_root(root, p->piece_of[i])]];
        to->parent[to->particle_count++] = i;
    }
    for (uint32_t k = 0; ok && k < count; k++) make_child(&c[k], offsets, r, m, parent, scratch);
    free(root), free(component), free(scratch);
    if (!ok) {
        rb_split_free(c, c ? count : 0);
        say(err, err_size, "fracture: split: out of memory for %u children", count);
        return 0;
    }
    *children = c;
    return count;
}

bool rb_gather(const float *points, uint32_t n, float r, float m, rb_split_child *out) {
    memset(out, 0, sizeof *out);
    out->particle_count = n;
    out->particles = malloc(3 * sizeof *out->particles * (n ? n : 1));
    out->parent = malloc(sizeof *out->parent * (n ? n : 1));
    float *scratch = malloc(3 * sizeof *scratch * (n ? n : 1));
    if (!n || !out->particles || !out->parent || !scratch) {
        free(out->particles), free(out->parent), free(scratch);
        memset(out, 0, sizeof *out);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) out->parent[i] = i;
    const rb_body_state origin = {.orientation = {0.0f, 0.0f, 0.0f, 1.0f}};
    make_child(out, points, r, m, &origin, scratch);
    free(scratch);
    return true;
}

void rb_split_free(rb_split_child *children, uint32_t count) {
    if (!children) return;
    for (uint32_t k = 0; k < count; k++) free(children[k].particles), free(children[k].parent);
    free(children);
}

bool rb_pieces_restrict(const rb_pieces *parent, const rb_split_child *child, rb_pieces *out, char *err,
                        size_t err_size) {
    if (out) memset(out, 0, sizeof *out);
    if (!parent || !child || !out || child->particle_count == 0) {
        say(err, err_size, "fracture: restrict: no parent pieces, child or pieces to fill");
        return false;
    }
    uint32_t *given = malloc(child->particle_count * sizeof *given);
    if (!given) {
        say(err, err_size, "fracture: restrict: out of memory");
        return false;
    }
    for (uint32_t i = 0; i < child->particle_count; i++) {
        if (child->parent[i] >= parent->particle_count) {
            say(err, err_size, "fracture: restrict: the child's particle %u is the parent's %u of %u", i,
                child->parent[i], parent->particle_count);
            free(given);
            return false;
        }
        given[i] = parent->piece_of[child->parent[i]];
    }
    /* The parent's pieces as given ones: renumbered in the child's order,
     * bonds found afresh among the child's own offsets. */
    const rb_fracture_desc desc = {
        .kind = RB_FRACTURE_GIVEN, .strength = parent->strength, .bond_reach = parent->bond_reach};
    const bool ok = rb_pieces_make(child->particles, child->particle_count, parent->radius,
                                   child->mass / (float)child->particle_count, &desc, given, out, err, err_size);
    free(given);
    return ok;
}
