/* fracture_patterns.c - the fracture patterns: how a breakable body's
 * particles are grouped into pieces, and the regions the pieces' meshes are
 * cut along (fracture.h; docs/debris.md, "Breakable bodies"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fracture_internal.h"

/* splitmix64 (Steele, Lea and Flood): one 64-bit state, good enough to draw
 * seeds, and the same sequence on every platform, so a seed names a pattern. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from the top 53 bits of a draw. */
static double next_unit(uint64_t *state) { return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0); }

/* Impact seeds are drawn with this density at most below the hit's, so a
 * draw takes at most 64 tries on average however far the body reaches. */
#define RB_IMPACT_FLOOR (1.0 / 64.0)

/* Plain voronoi seeds are moved after the draw (relax, balance) so that the
 * pieces come out of even size: at most this many rounds of Lloyd's, then
 * at most this many of balancing, which stops once every piece is within
 * RB_VORONOI_EVEN of the mean size (or one particle). Each round is a
 * nearest-seed pass, particles x pieces. */
#define RB_VORONOI_LLOYD_ROUNDS 16
#define RB_VORONOI_BALANCE_ROUNDS 48
#define RB_VORONOI_EVEN 0.1
/* How much of a pair's difference a balancing round evens at first: a
 * piece has a dozen neighbours pulling at once, so a tenth. */
#define RB_VORONOI_BALANCE_GAIN 0.1

/* Each particle's nearest seed (seeds in doubles, xyz): the strict < gives
 * a tie to the lower seed. With `gap`: per particle its second nearest
 * seed in `second`, and how much nearer the first is, in squared metres.
 * True if any particle changed its seed. */
static bool nearest_seeds(const float *p, uint32_t n, const double *seed, uint32_t count, uint32_t *piece_of,
                          double *gap, uint32_t *second) {
    bool moved = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t best = 0, next = 0;
        double best_d = INFINITY, next_d = INFINITY;
        for (uint32_t s = 0; s < count; s++) {
            const double x = p[3 * i] - seed[3 * s], y = p[3 * i + 1] - seed[3 * s + 1],
                         z = p[3 * i + 2] - seed[3 * s + 2], d = x * x + y * y + z * z;
            if (d < best_d)
                next = best, next_d = best_d, best = s, best_d = d;
            else if (d < next_d)
                next = s, next_d = d;
        }
        moved |= piece_of[i] != best;
        piece_of[i] = best;
        if (gap) gap[i] = next_d - best_d, second[i] = next;
    }
    return moved;
}

/* Lloyd's relaxation: each seed moves to the centre of its particles (one
 * no particle joined stays), then each particle joins its nearest seed
 * again, until none changes its seed. It evens the pieces' shapes (round,
 * not thin) more than their sizes. `sum`: 4 doubles a seed. */
static void relax(const float *p, uint32_t n, double *seed, uint32_t count, uint32_t *piece_of, double *sum) {
    for (uint32_t round = 0; round < RB_VORONOI_LLOYD_ROUNDS; round++) {
        memset(sum, 0, 4 * sizeof *sum * count);
        for (uint32_t i = 0; i < n; i++) {
            double *s = &sum[4 * piece_of[i]];
            s[0] += p[3 * i], s[1] += p[3 * i + 1], s[2] += p[3 * i + 2], s[3] += 1.0;
        }
        for (uint32_t s = 0; s < count; s++)
            if (sum[4 * s + 3] > 0.0)
                for (int k = 0; k < 3; k++) seed[3 * s + k] = sum[4 * s + k] / sum[4 * s + 3];
        if (!nearest_seeds(p, n, seed, count, piece_of, NULL, NULL)) break;
    }
}

static int u64_order(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Balancing: a big piece gives particles to its smaller neighbours. Moving
 * seeds a and b both by d along b -> a moves their bisector d into a's
 * cell; the B particles within r of the bisector (a layer of the lattice,
 * 2 r thick) change sides per 2 r, so d = (n_a - n_b) r / B evens the two.
 * Each pair of neighbouring pieces (those with particles within r of their
 * bisector) moves by a gain times that, summed per seed; the gain halves
 * whenever a round leaves the sizes' spread (sum of squares) no smaller,
 * so it settles instead of swinging. `sum`: 4 doubles a seed. */
static bool balance(const float *p, uint32_t n, float r, double *seed, uint32_t count, uint32_t *piece_of,
                    double *sum) {
    double *gap = malloc(n * sizeof *gap), *move = malloc(3 * sizeof *move * count);
    uint32_t *second = malloc(n * sizeof *second);
    uint64_t *pairs = malloc(n * sizeof *pairs);
    const bool ok = gap && move && second && pairs;
    const double mean = (double)n / count, even = fmax(RB_VORONOI_EVEN * mean, 1.0), r2 = (double)r * r;
    double gain = RB_VORONOI_BALANCE_GAIN, last = INFINITY;
    for (uint32_t round = 0; ok && round < RB_VORONOI_BALANCE_ROUNDS; round++) {
        nearest_seeds(p, n, seed, count, piece_of, gap, second);
        double *size = sum; /* one a seed */
        memset(size, 0, count * sizeof *size);
        for (uint32_t i = 0; i < n; i++) size[piece_of[i]] += 1.0;
        double worst = 0.0, spread = 0.0;
        for (uint32_t s = 0; s < count; s++) {
            const double e = size[s] - mean;
            worst = fmax(worst, fabs(e)), spread += e * e;
        }
        if (worst <= even) break;
        if (spread >= last) gain *= 0.5;
        last = spread;
        /* the pairs of each particle within r of its bisector: gap / (2 |a - b|) < r */
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t a = piece_of[i], b = second[i];
            if (a == b) continue;
            double len2 = 0.0;
            for (int k = 0; k < 3; k++)
                len2 += (seed[3 * b + k] - seed[3 * a + k]) * (seed[3 * b + k] - seed[3 * a + k]);
            if (gap[i] * gap[i] < 4.0 * len2 * r2) pairs[m++] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
        }
        qsort(pairs, m, sizeof *pairs, u64_order);
        memset(move, 0, 3 * sizeof *move * count);
        for (uint32_t j = 0, e; j < m; j = e) {
            for (e = j; e < m && pairs[e] == pairs[j]; e++) continue;
            const uint32_t a = (uint32_t)(pairs[j] >> 32), b = (uint32_t)pairs[j];
            double u[3], len = 0.0;
            for (int k = 0; k < 3; k++) u[k] = seed[3 * a + k] - seed[3 * b + k], len += u[k] * u[k];
            len = sqrt(len);
            if (!(len > 0.0)) continue;
            const double d = gain * (size[a] - size[b]) * r / (e - j) / len;
            for (int k = 0; k < 3; k++) move[3 * a + k] += d * u[k], move[3 * b + k] += d * u[k];
        }
        for (uint32_t s = 0; s < 3 * count; s++) seed[s] += move[s];
    }
    free(gap), free(move), free(second), free(pairs);
    return ok;
}

/* Seeds: `count` distinct particles, the first of a partial Fisher-Yates
 * shuffle; with weights (per particle, in [RB_IMPACT_FLOOR, 1]) a draw is
 * kept with its particle's weight and drawn again otherwise, so seeds fall
 * with that density, and they stay the particles drawn (the pieces small
 * where it is high). Without weights they are relaxed and balanced, the
 * pieces even. Then the seeds are rounded to floats, as rb_pieces keeps
 * them and the cut takes them, and each particle joins the nearest, so its
 * centre lies in its seed's cell. */
bool rb_pattern_voronoi(const float *p, uint32_t n, float r, uint32_t count, uint64_t seed, const double *weight,
                        uint32_t *piece_of, float *seeds) {
    uint32_t *order = malloc(n * sizeof *order);
    double *at = malloc(3 * sizeof *at * count), *sum = malloc(4 * sizeof *sum * count);
    bool ok = order && at && sum;
    for (uint32_t i = 0; ok && i < n; i++) order[i] = i;
    uint64_t state = seed;
    for (uint32_t i = 0; ok && i < count; i++) {
        uint32_t j;
        do j = i + (uint32_t)(next_random(&state) % (n - i));
        while (weight && !(next_unit(&state) < weight[order[j]]));
        const uint32_t t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (uint32_t s = 0; ok && s < count; s++)
        for (int k = 0; k < 3; k++) at[3 * s + k] = p[3 * order[s] + k];
    if (ok && !weight) {
        for (uint32_t i = 0; i < n; i++) piece_of[i] = UINT32_MAX;
        nearest_seeds(p, n, at, count, piece_of, NULL, NULL);
        relax(p, n, at, count, piece_of, sum);
        ok = balance(p, n, r, at, count, piece_of, sum);
    }
    for (uint32_t s = 0; ok && s < 3 * count; s++) at[s] = seeds[s] = (float)at[s];
    if (ok) nearest_seeds(p, n, at, count, piece_of, NULL, NULL);
    free(order), free(at), free(sum);
    return ok;
}

/* The impact pattern's seed density per particle about hit: 1 / (1 +
 * (d / focus)^2), no less than RB_IMPACT_FLOOR; focus 0: a quarter of the
 * farthest particle's distance from the hit. */
double *rb_pattern_impact_weights(const float *p, uint32_t n, const float hit[3], float focus) {
    double *w = malloc(n * sizeof *w);
    if (!w) return NULL;
    double far2 = 0.0;
    for (uint32_t i = 0; i < n; i++) far2 = fmax(far2, w[i] = rb_distance2(&p[3 * i], hit));
    double f2 = focus > 0.0f ? (double)focus * focus : far2 / 16.0;
    if (!(f2 > 0.0)) f2 = 1.0; /* every particle at the hit: any focus weighs them alike */
    for (uint32_t i = 0; i < n; i++) w[i] = fmax(1.0 / (1.0 + w[i] / f2), RB_IMPACT_FLOOR);
    return w;
}

/* Slabs along the longest axis; each slab's seed the middle of it on the
 * axis, so that the Voronoi cells of the seeds are the slabs (between two
 * slabs kept with an empty one between them, the boundary moves into the
 * empty one, where no particle is). */
void rb_pattern_layers(const float *p, uint32_t n, uint32_t count, uint32_t *piece_of, float *seeds) {
    float low, extent;
    const int axis = rb_longest_axis(p, n, &low, &extent);
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

/* As layers, along any normal: a particle joins the slab of its centre, and
 * the seeds on the normal's line through the origin at the slabs' middles
 * make the slabs their Voronoi cells. */
void rb_pattern_slices(const float *p, uint32_t n, uint32_t count, const float normal[3], uint32_t *piece_of,
                       float *seeds) {
    double a[3], low = INFINITY, high = -INFINITY;
    unit(normal, a);
    for (uint32_t i = 0; i < n; i++) {
        const double x = dot((const double[3]){p[3 * i], p[3 * i + 1], p[3 * i + 2]}, a);
        low = fmin(low, x), high = fmax(high, x);
    }
    const double thickness = (high - low) / count;
    for (uint32_t k = 0; k < count; k++)
        for (int j = 0; j < 3; j++) seeds[3 * k + j] = (float)((low + (k + 0.5) * thickness) * a[j]);
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

uint32_t rb_radial_spans(const rb_radial *rad, uint32_t w) {
    const double span = rad->bound[w + 1] - rad->bound[w];
    const double spans = ceil(span / RB_RADIAL_STEP - 1e-9);
    return spans < 1.0 ? 1u : (uint32_t)spans;
}

/* x's polygonal radius (rb_radial), and its wedge in *wedge. */
static double polygonal_radius(const rb_radial *rad, const double x[3], uint32_t *wedge) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = x[k] - rad->centre[k];
    const double h = dot(d, rad->axis);
    for (int k = 0; k < 3; k++) d[k] -= h * rad->axis[k];
    const double rho = sqrt(dot(d, d));
    double t = atan2(dot(d, rad->v), dot(d, rad->u)) - rad->start;
    t -= RB_TWO_PI * floor(t / RB_TWO_PI);
    uint32_t w = 0, past = rad->wedges; /* the last boundary at or before t: bound[0] = 0 is */
    while (past - w > 1) {
        const uint32_t mid = w + (past - w) / 2;
        if (rad->bound[mid] <= t)
            w = mid;
        else
            past = mid;
    }
    *wedge = w;
    /* its corner span, and the polygon's radius there as a circle's at the span's corners */
    const uint32_t spans = rb_radial_spans(rad, w);
    const double width = (rad->bound[w + 1] - rad->bound[w]) / spans;
    double s = floor((t - rad->bound[w]) / width);
    s = s < 0.0 ? 0.0 : s >= spans ? spans - 1 : s;
    const double middle = rad->bound[w] + (s + 0.5) * width;
    return rho * cos(t - middle) / cos(0.5 * width);
}

void rb_radial_place(const rb_radial *rad, const double x[3], uint32_t *wedge, uint32_t *ring) {
    const double rho = polygonal_radius(rad, x, wedge);
    const double b = rad->band > 0.0 ? floor(rho / rad->band) : 0.0;
    *ring = b >= rad->rings ? rad->rings - 1 : b < 0.0 ? 0 : (uint32_t)b; /* the farthest: the outer ring */
}

/* Wedges about the axis (through centre, or the particles' mean: their
 * centre of mass) turned by a random angle, each boundary moved by up to
 * RB_WEDGE_JITTER of a wedge, all from seed; each wedge cut into rings of
 * equal width (polygonal radius, rb_radial) out to the farthest particle.
 * A particle's piece is wedge x rings + ring. */
bool rb_pattern_radial(const float *p, uint32_t n, const rb_fracture_desc *d, uint32_t *piece_of, rb_radial *rad) {
    memset(rad, 0, sizeof *rad);
    double *a = rad->axis, *c = rad->centre, *u = rad->u, *v = rad->v;
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
    u[least] = 1.0;
    const double along = dot(u, a);
    for (int k = 0; k < 3; k++) u[k] -= along * a[k];
    const double ul = sqrt(dot(u, u));
    for (int k = 0; k < 3; k++) u[k] /= ul;
    v[0] = a[1] * u[2] - a[2] * u[1], v[1] = a[2] * u[0] - a[0] * u[2], v[2] = a[0] * u[1] - a[1] * u[0];
    /* the boundaries: turned by `turn`, each moved by its jitter */
    const uint32_t wedges = rad->wedges = d->wedges, rings = rad->rings = d->rings;
    rad->bound = malloc((wedges + 1) * sizeof *rad->bound);
    if (!rad->bound) return false;
    uint64_t state = d->seed;
    const double width = RB_TWO_PI / wedges, turn = RB_TWO_PI * next_unit(&state);
    double first = 0.0;
    for (uint32_t k = 0; k < wedges; k++) {
        const double jitter = wedges > 1 ? RB_WEDGE_JITTER * (2.0 * next_unit(&state) - 1.0) : 0.0;
        rad->bound[k] = (k + jitter) * width;
        if (k == 0) first = rad->bound[0];
        rad->bound[k] -= first;
    }
    rad->bound[wedges] = RB_TWO_PI;
    rad->start = turn + first;
    /* the farthest particle (polygonal radius) sets the rings' width */
    double far = 0.0;
    uint32_t w;
    for (uint32_t i = 0; i < n; i++)
        far = fmax(far, polygonal_radius(rad, (const double[3]){p[3 * i], p[3 * i + 1], p[3 * i + 2]}, &w));
    rad->band = far / rings;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ring;
        rb_radial_place(rad, (const double[3]){p[3 * i], p[3 * i + 1], p[3 * i + 2]}, &w, &ring);
        piece_of[i] = w * rings + ring;
    }
    return true;
}

void rb_pattern_radial_free(rb_radial *rad) {
    if (!rad) return;
    free(rad->bound), free(rad->cell);
    memset(rad, 0, sizeof *rad);
}

uint32_t rb_pattern_drop_empty(uint32_t *piece_of, uint32_t n, uint32_t count, uint32_t *scratch, float *seeds,
                               uint32_t *cells) {
    memset(scratch, 0, count * sizeof *scratch);
    for (uint32_t i = 0; i < n; i++) scratch[piece_of[i]] = 1;
    uint32_t left = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (scratch[k] && seeds) memmove(&seeds[3 * left], &seeds[3 * k], 3 * sizeof *seeds);
        if (scratch[k] && cells) cells[left] = cells[k];
        scratch[k] = scratch[k] ? left++ : UINT32_MAX;
    }
    for (uint32_t i = 0; i < n; i++) piece_of[i] = scratch[piece_of[i]];
    return left;
}
