/* registry.c - checks what a shape plugin offers and keeps each shape with
 * its mass properties in its principal frame. Loading the plugins is
 * registry_plugins.c.
 *
 * Everything a plugin hands over is copied, then the plugin is shut down and
 * closed: a shape never points into a library that may be rebuilt or gone.
 *
 * A shape stays where it was made (an array of pointers, not of shapes), so
 * the entity table's pointers outlive the registry's growth; a shape that a
 * rebuilt plugin replaces is kept, retired, until the registry goes, since
 * bodies made of it keep its layout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "registry_internal.h"

#define MAX_COORDINATE 1e6f     /* diameters; farther is a mistake, and would overflow the overlap grid's cells */
#define OVERLAP_TOLERANCE 1e-3f /* diameters: lattices built with float arithmetic may be a hair short */

static const char *const result_names[RB_LOAD_RESULT_COUNT] = {
    "ok",
    "cannot open",
    "no entry point",
    "entry point failed",
    "incompatible ABI",
    "no shapes",
    "no particles",
    "non-finite coordinates",
    "overlapping particles",
    "too many particles",
    "bad mesh",
    "duplicate name",
    "bad name",
    "bad particle size",
};

const char *rb_load_result_name(rb_load_result r) {
    return (unsigned)r < RB_LOAD_RESULT_COUNT ? result_names[r] : "unknown";
}

/* ---- creation ---- */

char *rb_registry_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

rb_registry *rb_registry_create(const rb_registry_desc *desc) {
    rb_registry *reg = calloc(1, sizeof *reg);
    if (!reg) return NULL;
    if (desc) reg->desc = *desc;
    if (reg->desc.particle_radius <= 0.0f) reg->desc.particle_radius = 0.2f;
    if (reg->desc.density <= 0.0f) reg->desc.density = 1000.0f;
    reg->mesh_dirs = calloc(reg->desc.mesh_dir_count + 1, sizeof *reg->mesh_dirs);
    if (!reg->mesh_dirs) {
        free(reg);
        return NULL;
    }
    uint32_t kept = 0; /* a folder that cannot be copied is dropped, not handed out as NULL */
    for (uint32_t i = 0; i < reg->desc.mesh_dir_count; i++)
        if ((reg->mesh_dirs[kept] = rb_registry_strdup(desc->mesh_dirs[i]))) kept++;
    reg->desc.mesh_dir_count = kept;
    reg->desc.mesh_dirs = NULL; /* the copies above are what count */
    return reg;
}

static void free_shape(rb_shape *s) {
    rb_shape_free_parts(s);
    free(s->particles);
    free(s->pieces);
    rb_mesh_free(&s->mesh);
}

void rb_registry_destroy(rb_registry *reg) {
    if (!reg) return;
    for (uint32_t i = 0; i < reg->count; i++) free_shape(reg->shapes[i]), free(reg->shapes[i]);
    for (uint32_t i = 0; i < reg->retired_count; i++) free_shape(reg->retired[i]), free(reg->retired[i]);
    free(reg->shapes);
    free(reg->file_of);
    free(reg->retired);
    for (uint32_t i = 0; i < reg->desc.mesh_dir_count; i++) free(reg->mesh_dirs[i]);
    free(reg->mesh_dirs);
    for (uint32_t i = 0; i < reg->dir_count; i++) free(reg->dirs[i]);
    free(reg->dirs);
    for (uint32_t i = 0; i < reg->file_count; i++) free(reg->files[i].path);
    free(reg->files);
    free(reg);
}

/* ---- checks ---- */

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* True if every value is finite and at most bound in magnitude. */
static bool within(const float *v, size_t n, float bound) {
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(v[i]) <= bound)) return false;
    return true;
}

/* True if two particles are closer than one diameter (less the tolerance),
 * or if there is no memory to check (the shape is then refused). A hash grid
 * of unit cells keeps this linear for large shapes. */
static bool particles_overlap(const float *p, uint32_t n, uint32_t *first, uint32_t *second) {
    uint32_t table = 64;
    while (table < 2 * n) table *= 2;
    uint32_t *head = malloc(table * sizeof *head), *next = malloc(n * sizeof *next);
    int *cell = malloc(3 * (size_t)n * sizeof *cell);
    bool found = false;
    if (!head || !next || !cell) {
        *first = *second = 0;
        found = true;
        goto done;
    }
    memset(head, 0xff, table * sizeof *head);
#define HASH(x, y, z) (((unsigned)(x)*73856093u ^ (unsigned)(y)*19349663u ^ (unsigned)(z)*83492791u) & (table - 1))
    for (uint32_t i = 0; i < n && !found; i++) {
        int *c = &cell[3 * i];
        for (int k = 0; k < 3; k++) c[k] = (int)floorf(p[3 * i + k]);
        for (int dz = -1; dz <= 1 && !found; dz++)
            for (int dy = -1; dy <= 1 && !found; dy++)
                for (int dx = -1; dx <= 1 && !found; dx++) {
                    for (uint32_t j = head[HASH(c[0] + dx, c[1] + dy, c[2] + dz)]; j != UINT32_MAX; j = next[j]) {
                        float d2 = 0.0f;
                        for (int k = 0; k < 3; k++) d2 += (p[3 * i + k] - p[3 * j + k]) * (p[3 * i + k] - p[3 * j + k]);
                        if (d2 < (1.0f - OVERLAP_TOLERANCE) * (1.0f - OVERLAP_TOLERANCE)) {
                            *first = j, *second = i, found = true;
                            break;
                        }
                    }
                }
        uint32_t h = HASH(c[0], c[1], c[2]);
        next[i] = head[h];
        head[h] = i;
    }
#undef HASH
done:
    free(head), free(next), free(cell);
    return found;
}

bool rb_registry_good_name(const char *name) {
    if (!name || !name[0] || strlen(name) > 63) return false;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c <= ' ' || *c >= 0x7f || *c == '"' || *c == '\\') return false;
    return true;
}

/* A plugin's string for a message: at most max_chars bytes of it, quotes, backslashes,
 * control and non-ASCII bytes as \xNN. */
const char *rb_registry_escaped(const char *s, size_t max_chars, char *out, size_t out_size) {
    if (!s) return "(null)";
    size_t n = 0;
    for (size_t i = 0; s[i] && i < max_chars && n + 5 < out_size; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, out_size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    return out;
}

/* The file a shape was made from, where the plugin's struct has the field. */
static const char *shape_source(const rb_shape_desc *d) {
    return d->struct_size >= offsetof(rb_shape_desc, source) + sizeof d->source ? d->source : NULL;
}

/* Each particle's piece, where the plugin's struct has the field. */
static const uint32_t *shape_pieces(const rb_shape_desc *d) {
    return d->struct_size >= offsetof(rb_shape_desc, pieces) + sizeof d->pieces ? d->pieces : NULL;
}

/* Each render triangle's piece, where the plugin's struct has the field. */
static const uint32_t *shape_triangle_pieces(const rb_shape_desc *d) {
    return d->struct_size >= offsetof(rb_shape_desc, triangle_pieces) + sizeof d->triangle_pieces ? d->triangle_pieces
                                                                                                  : NULL;
}

/* The shape's particle_diameter, where the plugin's struct has the field (a
 * plugin built against an older header has a shorter struct: then 0, the
 * host's diameter). */
static float shape_diameter(const rb_shape_desc *d) {
    return d->struct_size >= offsetof(rb_shape_desc, particle_diameter) + sizeof d->particle_diameter
               ? d->particle_diameter
               : 0.0f;
}

/* replacing: the index of the shape d replaces (its name is d's), or -1. */
static rb_load_result check_desc(const rb_registry *reg, const rb_shape_desc *d, int replacing, char *why,
                                 size_t why_size) {
    if (d->struct_size < offsetof(rb_shape_desc, indices) + sizeof d->indices) {
        snprintf(why, why_size, "shape struct_size %u is smaller than ABI %u's %zu", d->struct_size,
                 RB_PLUGIN_ABI_VERSION, offsetof(rb_shape_desc, indices) + sizeof d->indices);
        return RB_LOAD_ABI_MISMATCH;
    }
    if (!rb_registry_good_name(d->name)) {
        char name[300]; /* rb_registry_escaped(): at most 64 characters of 4 bytes */
        snprintf(why, why_size,
                 "shape name \"%s\": a name is 1-63 printable ASCII characters without spaces, quotes or "
                 "backslashes",
                 rb_registry_escaped(d->name, 64, name, sizeof name));
        return RB_LOAD_BAD_NAME;
    }
    const int taken = rb_registry_find(reg, d->name);
    if (taken >= 0 && taken != replacing) {
        snprintf(why, why_size, "a shape named '%s' is already loaded (from plugin %s)", d->name,
                 reg->shapes[taken]->plugin[0] ? reg->shapes[taken]->plugin : "?");
        return RB_LOAD_DUPLICATE_NAME;
    }
    if (d->particle_count == 0 || !d->particles) {
        snprintf(why, why_size, "shape '%s' has no particles", d->name);
        return RB_LOAD_NO_PARTICLES;
    }
    if (d->particle_count > RB_PLUGIN_MAX_PARTICLES) {
        snprintf(why, why_size, "shape '%s' has %u particles, more than the limit of %u", d->name, d->particle_count,
                 RB_PLUGIN_MAX_PARTICLES);
        return RB_LOAD_TOO_MANY;
    }
    if (!finite_all(d->particles, 3 * (size_t)d->particle_count)) {
        snprintf(why, why_size, "shape '%s' has a particle coordinate that is NaN or infinite", d->name);
        return RB_LOAD_NON_FINITE;
    }
    for (uint32_t i = 0; i < 3 * d->particle_count; i++)
        if (fabsf(d->particles[i]) > MAX_COORDINATE) {
            snprintf(why, why_size, "shape '%s' has a particle %g diameters from its origin (at most %g)", d->name,
                     d->particles[i], MAX_COORDINATE);
            return RB_LOAD_NON_FINITE;
        }
    uint32_t a, b;
    if (particles_overlap(d->particles, d->particle_count, &a, &b)) {
        snprintf(why, why_size, "shape '%s': particles %u and %u are closer than one diameter", d->name, a, b);
        return RB_LOAD_OVERLAP;
    }
    if (d->vertex_count > 0) {
        if (!d->vertices || !d->indices || d->index_count == 0 || d->index_count % 3 != 0) {
            snprintf(why, why_size, "shape '%s': the mesh needs vertices and a multiple of 3 indices", d->name);
            return RB_LOAD_BAD_MESH;
        }
        for (uint32_t i = 0; i < d->index_count; i++)
            if (d->indices[i] >= d->vertex_count) {
                snprintf(why, why_size, "shape '%s': mesh index %u is %u, past the %u vertices", d->name, i,
                         d->indices[i], d->vertex_count);
                return RB_LOAD_BAD_MESH;
            }
        /* bounded as particles are: scaled and turned, a larger one would overflow to infinity */
        if (!within(d->vertices, 3 * (size_t)d->vertex_count, MAX_COORDINATE) ||
            (d->normals && !within(d->normals, 3 * (size_t)d->vertex_count, MAX_COORDINATE))) {
            snprintf(why, why_size, "shape '%s' has a mesh coordinate that is NaN, infinite or over %g", d->name,
                     MAX_COORDINATE);
            return RB_LOAD_NON_FINITE;
        }
    }
    const float diameter = shape_diameter(d);
    if (diameter != 0.0f && !(diameter >= RB_MIN_DIAMETER && diameter <= RB_MAX_DIAMETER)) {
        snprintf(why, why_size, "shape '%s': particle_diameter %g m is not 0 (the host's) nor from %g to %g m", d->name,
                 diameter, RB_MIN_DIAMETER, RB_MAX_DIAMETER);
        return RB_LOAD_BAD_SIZE;
    }
    return RB_LOAD_OK;
}

/* ---- adding a shape ---- */

/* out = R^T (p - origin) * scale: into the principal frame (R's columns are the axes). */
static void to_frame(const double rot[9], const double origin[3], double scale, const float *p, float *out) {
    double v[3] = {p[0] * scale - origin[0], p[1] * scale - origin[1], p[2] * scale - origin[2]};
    for (int k = 0; k < 3; k++) out[k] = (float)(rot[k] * v[0] + rot[3 + k] * v[1] + rot[6 + k] * v[2]);
}

static bool copy_mesh(rb_mesh *m, const rb_shape_desc *d, const double rot[9], const double com[3], double scale) {
    const double zero[3] = {0, 0, 0};
    if (d->normals) {
        m->vertex_count = d->vertex_count;
        m->index_count = d->index_count;
        m->positions = malloc(3 * sizeof(float) * d->vertex_count);
        m->normals = malloc(3 * sizeof(float) * d->vertex_count);
        m->indices = malloc(sizeof(uint32_t) * d->index_count);
        if (!m->positions || !m->normals || !m->indices) return false;
        for (uint32_t v = 0; v < d->vertex_count; v++) {
            to_frame(rot, com, scale, &d->vertices[3 * v], &m->positions[3 * v]);
            to_frame(rot, zero, 1.0, &d->normals[3 * v], &m->normals[3 * v]);
        }
        memcpy(m->indices, d->indices, sizeof(uint32_t) * d->index_count);
        return true;
    }
    /* No normals: one vertex per triangle corner, with the face's normal (flat shading). */
    m->vertex_count = m->index_count = d->index_count;
    m->positions = malloc(3 * sizeof(float) * d->index_count);
    m->normals = malloc(3 * sizeof(float) * d->index_count);
    m->indices = malloc(sizeof(uint32_t) * d->index_count);
    if (!m->positions || !m->normals || !m->indices) return false;
    for (uint32_t t = 0; t < d->index_count; t += 3) {
        float *p = &m->positions[3 * t];
        for (int c = 0; c < 3; c++) {
            to_frame(rot, com, scale, &d->vertices[3 * d->indices[t + c]], &p[3 * c]);
            m->indices[t + c] = t + c;
        }
        float e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++) e1[k] = p[3 + k] - p[k], e2[k] = p[6 + k] - p[k];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) n[k] = len > 0.0f ? n[k] / len : (k == 1 ? 1.0f : 0.0f);
        for (int c = 0; c < 3; c++) memcpy(&m->normals[3 * (t + c)], n, sizeof n);
    }
    return true;
}

/* The index in files of a plugin file, or -1. */
int rb_registry_file_index(const rb_registry *reg, const char *path) {
    for (uint32_t i = 0; path && i < reg->file_count; i++)
        if (strcmp(reg->files[i].path, path) == 0) return (int)i;
    return -1;
}

/* The shape a changed plugin file's desc replaces: one of that name from
 * the same file; -1 if none (not replacing, or another plugin's name). */
static int replaced_by(const rb_registry *reg, const rb_shape_desc *d, int file) {
    if (!reg->replacing || file < 0 || !d->name) return -1;
    const int i = rb_registry_find(reg, d->name);
    return i >= 0 && reg->file_of[i] == file ? i : -1;
}

/* Puts s at index `replacing` (the old shape retired), or after the last. */
static bool keep_shape(rb_registry *reg, rb_shape *s, int replacing, int file) {
    if (replacing >= 0) {
        rb_shape **r = realloc(reg->retired, (reg->retired_count + 1) * sizeof *r);
        if (!r) return false;
        reg->retired = r;
        reg->retired[reg->retired_count++] = reg->shapes[replacing];
        reg->shapes[replacing] = s;
        reg->replaced++;
        return true;
    }
    if (reg->count == reg->capacity) {
        uint32_t cap = reg->capacity ? 2 * reg->capacity : 16;
        rb_shape **grown = realloc(reg->shapes, cap * sizeof *grown);
        if (grown) reg->shapes = grown;
        int *files = grown ? realloc(reg->file_of, cap * sizeof *files) : NULL;
        if (files) reg->file_of = files;
        if (!grown || !files) return false;
        reg->capacity = cap;
    }
    reg->file_of[reg->count] = file;
    reg->shapes[reg->count++] = s;
    return true;
}

/* Fills s from d: the particles in the principal frame, mass, inertia, mesh, pieces. */
static bool make_shape(const rb_registry *reg, const rb_shape_desc *d, const char *plugin_name, rb_shape *s);

rb_load_result rb_registry_add_desc(rb_registry *reg, const rb_shape_desc *d, const char *plugin_name,
                                    const char *source) {
    char why[400], file[1100]; /* a path of up to 1024 characters, its odd bytes escaped */
    const int from_file = rb_registry_file_index(reg, source), replacing = replaced_by(reg, d, from_file);
    rb_load_result r = check_desc(reg, d, replacing, why, sizeof why);
    if (r != RB_LOAD_OK) {
        const char *from = r == RB_LOAD_ABI_MISMATCH ? NULL : shape_source(d);
        if (!(reg->reloading && r == RB_LOAD_DUPLICATE_NAME))
            rb_log(r == RB_LOAD_DUPLICATE_NAME ? RB_LOG_WARN : RB_LOG_ERROR, "plugin %s%s%s: %s (%s); shape skipped",
                   source ? source : plugin_name, from ? ", file " : "",
                   from ? rb_registry_escaped(from, 1024, file, sizeof file) : "", why, rb_load_result_name(r));
        return r;
    }
    rb_shape *s = calloc(1, sizeof *s);
    if (!s || !make_shape(reg, d, plugin_name, s) || !keep_shape(reg, s, replacing, from_file)) {
        if (s) free_shape(s);
        free(s);
        return RB_LOAD_NO_SHAPES;
    }
    if (replacing >= 0)
        rb_log(RB_LOG_INFO, "plugin %s: shape '%s' replaced by the rebuilt plugin's (bodies already made keep theirs)",
               source ? source : plugin_name, s->name);
    return RB_LOAD_OK;
}

static bool make_shape(const rb_registry *reg, const rb_shape_desc *d, const char *plugin_name, rb_shape *s) {
    snprintf(s->name, sizeof s->name, "%s", d->name);
    snprintf(s->plugin, sizeof s->plugin, "%s", plugin_name ? plugin_name : "");
    /* Control bytes would drive the terminal or the HUD: kept as \xNN. */
    size_t at = 0;
    for (const unsigned char *c = (const unsigned char *)(d->description ? d->description : "");
         *c && at + 5 < sizeof s->description; c++) {
        if (*c < 0x20 || *c == 0x7f)
            at += (size_t)snprintf(s->description + at, sizeof s->description - at, "\\x%02x", *c);
        else
            s->description[at++] = (char)*c;
    }
    s->description[at] = '\0';

    /* the shape's own particle size, else the registry's; mass from the density at that size */
    const float radius = shape_diameter(d) > 0.0f ? 0.5f * shape_diameter(d) : reg->desc.particle_radius;
    const double diameter = 2.0 * radius;
    const float particle_mass = reg->desc.density * (float)(diameter * diameter * diameter);
    const uint32_t n = d->particle_count;
    float *scaled = malloc(3 * sizeof(float) * n);
    s->particles = malloc(3 * sizeof(float) * n);
    if (!scaled || !s->particles) {
        free(scaled); /* the caller frees s */
        return false;
    }
    for (uint32_t i = 0; i < 3 * n; i++) scaled[i] = (float)(d->particles[i] * diameter);
    float comf[3];
    double tensor[9], moments[3], rot[9];
    rb_mass_properties(scaled, n, radius, particle_mass, &s->mass, comf, tensor);
    rb_sym3_eigen(tensor, moments, rot);
    const double com[3] = {comf[0], comf[1], comf[2]};
    float far = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        to_frame(rot, com, diameter, &d->particles[3 * i], &s->particles[3 * i]);
        const float *q = &s->particles[3 * i];
        far = fmaxf(far, sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
    }
    free(scaled);
    s->particle_count = n;
    for (int k = 0; k < 3; k++) s->inertia[k] = (float)moments[k];
    s->particle_radius = radius;
    s->bounding_radius = far + radius;
    if (d->vertex_count > 0 && !copy_mesh(&s->mesh, d, rot, com, diameter)) return false;
    s->pieces = NULL;
    if (shape_pieces(d)) { /* the particles keep their order in the principal frame: so do their pieces */
        s->pieces = malloc(sizeof *s->pieces * n);
        if (!s->pieces) return false;
        memcpy(s->pieces, shape_pieces(d), sizeof *s->pieces * n);
    }
    /* the parts' meshes: a plugin's mistake in them costs the shape its parts, not itself */
    char why[200], file[1100];
    const char *from = shape_source(d);
    if (s->pieces && shape_triangle_pieces(d) && s->mesh.vertex_count > 0 &&
        !rb_shape_split_parts(s, shape_triangle_pieces(d), why, sizeof why))
        rb_log(RB_LOG_WARN, "plugin %s%s%s: shape '%s': %s; its pieces are drawn without their parts' meshes",
               plugin_name ? plugin_name : "?", from ? ", file " : "",
               from ? rb_registry_escaped(from, 1024, file, sizeof file) : "", s->name, why);
    else if (!s->pieces && shape_triangle_pieces(d))
        rb_log(RB_LOG_WARN, "plugin %s: shape '%s' gives triangle pieces but no particle pieces; they are ignored",
               plugin_name ? plugin_name : "?", s->name);
    return true;
}

uint32_t rb_registry_replaced(const rb_registry *reg) { return reg->replaced; }
uint32_t rb_registry_count(const rb_registry *reg) { return reg->count; }
const rb_shape *rb_registry_get(const rb_registry *reg, uint32_t i) { return i < reg->count ? reg->shapes[i] : NULL; }
float rb_registry_particle_radius(const rb_registry *reg) { return reg->desc.particle_radius; }

int rb_registry_find(const rb_registry *reg, const char *name) {
    for (uint32_t i = 0; i < reg->count; i++)
        if (strcmp(reg->shapes[i]->name, name) == 0) return (int)i;
    return -1;
}
