/* fracture.c - breakable bodies' pieces, bonds and splits (see fracture.h). */
#include "fracture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/rb_math.h"
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

/* splitmix64 (Steele, Lea and Flood): one 64-bit state, good enough to draw
 * seeds, and the same sequence on every platform, so a seed names a pattern. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double distance2(const float *a, const float *b) {
    const double x = (double)a[0] - b[0], y = (double)a[1] - b[1], z = (double)a[2] - b[2];
    return x * x + y * y + z * z;
}

/* The axis along which the particles spread furthest (the first of equals),
 * and where their centres start on it. */
static int longest_axis(const float *p, uint32_t n, float *low, float *extent) {
    float lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
    for (uint32_t i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) lo[k] = fminf(lo[k], p[3 * i + k]), hi[k] = fmaxf(hi[k], p[3 * i + k]);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    *low = lo[axis], *extent = hi[axis] - lo[axis];
    return axis;
}

/* A uniform double in [0, 1) from the top 53 bits of a draw. */
static double next_unit(uint64_t *state) { return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0); }

/* Impact seeds are drawn with this density at most below the hit's, so a
 * draw takes at most 64 tries on average however far the body reaches. */
#define RB_IMPACT_FLOOR (1.0 / 64.0)

/* Seeds: `count` distinct particles, the first of a partial Fisher-Yates
 * shuffle (their centres in seeds, xyz); with weights (per particle, in
 * [RB_IMPACT_FLOOR, 1]) a draw is kept with its particle's weight and drawn
 * again otherwise, so seeds fall with that density. Each particle joins the
 * nearest seed; the strict < gives a tie to the lower seed. */
static bool voronoi(const float *p, uint32_t n, uint32_t count, uint64_t seed, const double *weight,
                    uint32_t *piece_of, float *seeds) {
    uint32_t *order = malloc(n * sizeof *order);
    if (!order) return false;
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    uint64_t state = seed;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j;
        do j = i + (uint32_t)(next_random(&state) % (n - i));
        while (weight && !(next_unit(&state) < weight[order[j]]));
        const uint32_t t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (uint32_t s = 0; s < count; s++) memcpy(&seeds[3 * s], &p[3 * order[s]], 3 * sizeof *seeds);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t best = 0;
        double best_d = INFINITY;
        for (uint32_t s = 0; s < count; s++) {
            const double d = distance2(&p[3 * i], &p[3 * order[s]]);
            if (d < best_d) best = s, best_d = d;
        }
        piece_of[i] = best;
    }
    free(order);
    return true;
}

/* The impact pattern's seed density per particle about hit: 1 / (1 +
 * (d / focus)^2), no less than RB_IMPACT_FLOOR; focus 0: a quarter of the
 * farthest particle's distance from the hit. */
static double *impact_weights(const float *p, uint32_t n, const float hit[3], float focus) {
    double *w = malloc(n * sizeof *w);
    if (!w) return NULL;
    double far2 = 0.0;
    for (uint32_t i = 0; i < n; i++) far2 = fmax(far2, w[i] = distance2(&p[3 * i], hit));
    double f2 = focus > 0.0f ? (double)focus * focus : far2 / 16.0;
    if (!(f2 > 0.0)) f2 = 1.0; /* every particle at the hit: any focus weighs them alike */
    for (uint32_t i = 0; i < n; i++) w[i] = fmax(1.0 / (1.0 + w[i] / f2), RB_IMPACT_FLOOR);
    return w;
}

/* Slabs along the longest axis; each slab's seed the middle of it on the
 * axis, so that the Voronoi cells of the seeds are the slabs (between two
 * slabs kept with an empty one between them, the boundary moves into the
 * empty one, where no particle is). */
static void layers(const float *p, uint32_t n, uint32_t count, uint32_t *piece_of, float *seeds) {
    float low, extent;
    const int axis = longest_axis(p, n, &low, &extent);
    const double thickness = (double)extent / count;
    for (uint32_t k = 0; k < count; k++) {
        seeds[3 * k] = seeds[3 * k + 1] = seeds[3 * k + 2] = 0.0f;
        seeds[3 * k + axis] = (float)(low + (k + 0.5) * thickness);
    }
    for (uint32_t i = 0; i < n; i++) {
        /* the far end lands on count exactly: it belongs to the last slab */
        double s = thickness > 0.0 ? floor(((double)p[3 * i + axis] - low) / thickness) : 0.0;
        piece_of[i] = s >= count ? count - 1 : (uint32_t)s;
    }
}

/* A unit vector along v (non-zero, finite: checked by the caller), in doubles. */
static void unit(const float v[3], double u[3]) {
    const double len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    for (int k = 0; k < 3; k++) u[k] = v[k] / len;
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Slabs of equal thickness across the particles' spread along the normal,
 * as layers' along an axis: a particle joins the slab of its centre. */
static void slices(const float *p, uint32_t n, uint32_t count, const float normal[3], uint32_t *piece_of) {
    double a[3], low = INFINITY, high = -INFINITY;
    unit(normal, a);
    for (uint32_t i = 0; i < n; i++) {
        const double x = dot((const double[3]){p[3 * i], p[3 * i + 1], p[3 * i + 2]}, a);
        low = fmin(low, x), high = fmax(high, x);
    }
    const double thickness = (high - low) / count;
    for (uint32_t i = 0; i < n; i++) {
        const double x = dot((const double[3]){p[3 * i], p[3 * i + 1], p[3 * i + 2]}, a);
        const double s = thickness > 0.0 ? floor((x - low) / thickness) : 0.0;
        piece_of[i] = s >= count ? count - 1 : (uint32_t)s; /* the far end: the last slab */
    }
}

#define RB_TWO_PI 6.283185307179586

/* How far a wedge's boundary may move from its even place, in wedges:
 * under a half, so the boundaries keep their order. */
#define RB_WEDGE_JITTER 0.25

/* Wedges about the axis (through centre, or the particles' mean: their
 * centre of mass) turned by a random angle, each boundary moved by up to
 * RB_WEDGE_JITTER of a wedge, all from seed; each wedge cut into rings of
 * equal width out to the farthest particle from the axis. A particle's
 * piece is wedge x rings + ring. */
static bool radial(const float *p, uint32_t n, const rb_fracture_desc *d, uint32_t *piece_of) {
    double a[3], c[3] = {0.0, 0.0, 0.0};
    unit(d->normal, a);
    if (d->centre_given) {
        for (int k = 0; k < 3; k++) c[k] = d->centre[k];
    } else {
        for (uint32_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) c[k] += p[3 * i + k];
        for (int k = 0; k < 3; k++) c[k] /= n;
    }
    /* u, v: across the axis, u from the coordinate axis least along it */
    int least = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(a[k]) < fabs(a[least])) least = k;
    double u[3] = {0.0, 0.0, 0.0}, v[3];
    u[least] = 1.0;
    const double along = dot(u, a);
    for (int k = 0; k < 3; k++) u[k] -= along * a[k];
    const double ul = sqrt(dot(u, u));
    for (int k = 0; k < 3; k++) u[k] /= ul;
    v[0] = a[1] * u[2] - a[2] * u[1], v[1] = a[2] * u[0] - a[0] * u[2], v[2] = a[0] * u[1] - a[1] * u[0];
    /* the boundaries: turned by `turn`, each moved by its jitter; wedge k
     * runs from bound[k] to bound[k + 1], angles from bound[0] */
    const uint32_t wedges = d->wedges, rings = d->rings;
    uint64_t state = d->seed;
    const double width = RB_TWO_PI / wedges, turn = RB_TWO_PI * next_unit(&state);
    double first = 0.0, far = 0.0;
    for (uint32_t i = 0; i < n; i++) { /* the farthest particle from the axis sets the rings' width */
        double x[3];
        for (int k = 0; k < 3; k++) x[k] = p[3 * i + k] - c[k];
        const double h = dot(x, a);
        for (int k = 0; k < 3; k++) x[k] -= h * a[k];
        far = fmax(far, sqrt(dot(x, x)));
    }
    const double band = far / rings;
    double *bound = malloc(wedges * sizeof *bound);
    if (!bound) return false;
    for (uint32_t k = 0; k < wedges; k++) {
        const double jitter = wedges > 1 ? RB_WEDGE_JITTER * (2.0 * next_unit(&state) - 1.0) : 0.0;
        bound[k] = (k + jitter) * width;
        if (k == 0) first = bound[0];
        bound[k] -= first;
    }
    for (uint32_t i = 0; i < n; i++) {
        double x[3];
        for (int k = 0; k < 3; k++) x[k] = p[3 * i + k] - c[k];
        const double h = dot(x, a);
        for (int k = 0; k < 3; k++) x[k] -= h * a[k];
        const double rho = sqrt(dot(x, x));
        double t = atan2(dot(x, v), dot(x, u)) - turn - first;
        t -= RB_TWO_PI * floor(t / RB_TWO_PI);
        uint32_t w = 0, past = wedges; /* the last boundary at or before t: bound[0] = 0 is */
        while (past - w > 1) {
            const uint32_t mid = w + (past - w) / 2;
            if (bound[mid] <= t)
                w = mid;
            else
                past = mid;
        }
        const double b = band > 0.0 ? floor(rho / band) : 0.0;
        const uint32_t ring = b >= rings ? rings - 1 : (uint32_t)b; /* the farthest: the outer ring */
        piece_of[i] = w * rings + ring;
    }
    free(bound);
    return true;
}

/* Drops pieces no particle joined, and their seeds (if the pattern has
 * them), keeping the others' order; returns how many are left. */
static uint32_t drop_empty(uint32_t *piece_of, uint32_t n, uint32_t count, uint32_t *scratch, float *seeds) {
    memset(scratch, 0, count * sizeof *scratch);
    for (uint32_t i = 0; i < n; i++) scratch[piece_of[i]] = 1;
    uint32_t left = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (scratch[k] && seeds) memmove(&seeds[3 * left], &seeds[3 * k], 3 * sizeof *seeds);
        scratch[k] = scratch[k] ? left++ : UINT32_MAX;
    }
    for (uint32_t i = 0; i < n; i++) piece_of[i] = scratch[piece_of[i]];
    return left;
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
static bool find_bonds(const float *p, uint32_t n, float r, const uint32_t *piece_of, uint32_t **bonds,
                       uint32_t *bond_count) {
    const double reach = 2.0 * r * RB_BOND_REACH, reach2 = reach * reach;
    float low, extent;
    const int axis = longest_axis(p, n, &low, &extent);
    along *s = malloc(n * sizeof *s);
    if (!s) return false;
    for (uint32_t i = 0; i < n; i++) s[i] = (along){p[3 * i + axis], i};
    qsort(s, n, sizeof *s, along_order);
    uint32_t *pairs = NULL, count = 0, capacity = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n && (double)s[b].x - s[a].x <= reach; b++) {
            const uint32_t i = s[a].index, j = s[b].index, pi = piece_of[i], pj = piece_of[j];
            if (pi == pj || distance2(&p[3 * i], &p[3 * j]) > reach2) continue;
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
    out->radius = r;
    out->piece_of = malloc(n * sizeof *out->piece_of);
    uint32_t *scratch = malloc((count > n ? count : n) * sizeof *scratch);
    double *weight =
        desc->kind == RB_FRACTURE_VORONOI && desc->impact && hit ? impact_weights(offsets, n, hit, desc->focus) : NULL;
    /* the patterns whose pieces are the Voronoi cells of seeds keep them (the pieces' meshes are cut along them) */
    const bool cells = desc->kind == RB_FRACTURE_VORONOI || desc->kind == RB_FRACTURE_LAYERS;
    if (cells) out->seeds = malloc(3 * sizeof *out->seeds * count);
    bool ok = out->piece_of && scratch && (!cells || out->seeds) &&
              (weight || !(desc->kind == RB_FRACTURE_VORONOI && desc->impact && hit));
    if (ok) switch (desc->kind) {
        case RB_FRACTURE_VORONOI:
            ok = voronoi(offsets, n, count, desc->seed, weight, out->piece_of, out->seeds);
            if (ok) count = drop_empty(out->piece_of, n, count, scratch, out->seeds);
            break;
        case RB_FRACTURE_LAYERS:
            layers(offsets, n, count, out->piece_of, out->seeds);
            count = drop_empty(out->piece_of, n, count, scratch, out->seeds);
            break;
        case RB_FRACTURE_SLICES:
            slices(offsets, n, count, desc->normal, out->piece_of);
            count = drop_empty(out->piece_of, n, count, scratch, NULL);
            break;
        case RB_FRACTURE_RADIAL:
            ok = radial(offsets, n, desc, out->piece_of);
            if (ok) count = drop_empty(out->piece_of, n, count, scratch, NULL);
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
    if (ok) ok = find_bonds(offsets, n, r, out->piece_of, &out->bonds, &out->bond_count);
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
    const rb_fracture_desc desc = {.kind = RB_FRACTURE_GIVEN, .strength = parent->strength};
    const bool ok = rb_pieces_make(child->particles, child->particle_count, parent->radius,
                                   child->mass / (float)child->particle_count, &desc, given, out, err, err_size);
    free(given);
    return ok;
}
