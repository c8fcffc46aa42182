/* registry.c - loads shape plugins with dlopen, checks what they offer, and
 * keeps each shape with its mass properties in its principal frame.
 *
 * Everything a plugin hands over is copied, then the plugin is shut down and
 * closed: a shape never points into a library that may be rebuilt or gone.
 *
 * A shape stays where it was made (an array of pointers, not of shapes), so
 * the entity table's pointers outlive the registry's growth; a shape that a
 * rebuilt plugin replaces is kept, retired, until the registry goes, since
 * bodies made of it keep its layout. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "shapes.h"

#define MAX_SHAPES_PER_PLUGIN 4096
#define MAX_COORDINATE 1e6f     /* diameters; farther is a mistake, and would overflow the overlap grid's cells */
#define OVERLAP_TOLERANCE 1e-3f /* diameters: lattices built with float arithmetic may be a hair short */

typedef struct loaded_file {
    char *path;
    long long stamp; /* file_stamp: a rebuilt plugin has another */
    bool searches;   /* it asked for the mesh folders: a rescan runs it again to find new files there */
} loaded_file;

struct rb_registry {
    rb_registry_desc desc;
    char **mesh_dirs;
    rb_shape **shapes;
    int *file_of; /* each shape's plugin file (an index into files), -1: none */
    uint32_t count, capacity;
    rb_shape **retired; /* shapes replaced by a rebuilt plugin's */
    uint32_t retired_count, replaced;
    char **dirs; /* folders scanned, for rescan */
    uint32_t dir_count;
    loaded_file *files; /* plugins loaded, for rescan */
    uint32_t file_count;
    const char *loading_path; /* the plugin being loaded, for log lines and "plugin_dir" */
    bool reloading;           /* rb_registry_reload: shapes already registered are skipped quietly */
    bool replacing;           /* a changed plugin file: its own shapes are replaced, not refused */
    char loading_dir[4096];
};

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

/* ---- the host API lent to plugins ---- */

/* A plugin's level goes on to rb_log as it is, so the two enums must agree:
 * the same values, and the same size and signedness (any number a plugin
 * passes then reaches rb_log's clamping unchanged). */
_Static_assert((int)RB_PLUGIN_LOG_INFO == (int)RB_LOG_INFO && (int)RB_PLUGIN_LOG_WARN == (int)RB_LOG_WARN &&
                   (int)RB_PLUGIN_LOG_ERROR == (int)RB_LOG_ERROR,
               "rb_plugin_log_level (rubble_plugin.h) and rb_log_level (base/log.h) differ in value");
_Static_assert(sizeof(rb_plugin_log_level) == sizeof(rb_log_level) &&
                   ((rb_plugin_log_level)-1 > 0) == ((rb_log_level)-1 > 0),
               "rb_plugin_log_level (rubble_plugin.h) and rb_log_level (base/log.h) differ in size or signedness");

static void host_log(void *host_data, rb_plugin_log_level level, const char *fmt, ...) {
    rb_registry *reg = host_data;
    char message[900];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    rb_log((rb_log_level)level, "plugin %s: %s", reg->loading_path ? reg->loading_path : "?", message);
}

static int file_index(const rb_registry *reg, const char *path);

static const char *host_setting(void *host_data, const char *key, uint32_t index) {
    rb_registry *reg = host_data;
    if (strcmp(key, "mesh_dir") == 0) {
        const int f = file_index(reg, reg->loading_path);
        if (f >= 0) reg->files[f].searches = true;
        return index < reg->desc.mesh_dir_count ? reg->mesh_dirs[index] : NULL;
    }
    if (strcmp(key, "plugin_dir") == 0) return index == 0 ? reg->loading_dir : NULL;
    return NULL;
}

/* ---- creation ---- */

static char *dup_string(const char *s) {
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
        if ((reg->mesh_dirs[kept] = dup_string(desc->mesh_dirs[i]))) kept++;
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

static bool good_name(const char *name) {
    if (!name || !name[0] || strlen(name) > 63) return false;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c <= ' ' || *c >= 0x7f || *c == '"' || *c == '\\') return false;
    return true;
}

/* A plugin's string for a message: at most max_chars bytes of it, quotes, backslashes,
 * control and non-ASCII bytes as \xNN. */
static const char *escaped(const char *s, size_t max_chars, char *out, size_t out_size) {
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
    if (!good_name(d->name)) {
        char name[300]; /* escaped(): at most 64 characters of 4 bytes */
        snprintf(why, why_size,
                 "shape name \"%s\": a name is 1-63 printable ASCII characters without spaces, quotes or "
                 "backslashes",
                 escaped(d->name, 64, name, sizeof name));
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
static int file_index(const rb_registry *reg, const char *path) {
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
    const int from_file = file_index(reg, source), replacing = replaced_by(reg, d, from_file);
    rb_load_result r = check_desc(reg, d, replacing, why, sizeof why);
    if (r != RB_LOAD_OK) {
        const char *from = r == RB_LOAD_ABI_MISMATCH ? NULL : shape_source(d);
        if (!(reg->reloading && r == RB_LOAD_DUPLICATE_NAME))
            rb_log(r == RB_LOAD_DUPLICATE_NAME ? RB_LOG_WARN : RB_LOG_ERROR, "plugin %s%s%s: %s (%s); shape skipped",
                   source ? source : plugin_name, from ? ", file " : "",
                   from ? escaped(from, 1024, file, sizeof file) : "", why, rb_load_result_name(r));
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
               from ? escaped(from, 1024, file, sizeof file) : "", s->name, why);
    else if (!s->pieces && shape_triangle_pieces(d))
        rb_log(RB_LOG_WARN, "plugin %s: shape '%s' gives triangle pieces but no particle pieces; they are ignored",
               plugin_name ? plugin_name : "?", s->name);
    return true;
}

/* ---- plugins ---- */

/* What tells a rebuilt file from the one loaded: its modification time to
 * the nanosecond, and its size (a copy over it within the same second of
 * clock granularity still differs in one or the other, or is the same file). */
static long long file_stamp(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return ((long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec) ^ ((long long)st.st_size << 40);
}

static void remember_file(rb_registry *reg, const char *path) {
    for (uint32_t i = 0; i < reg->file_count; i++)
        if (strcmp(reg->files[i].path, path) == 0) {
            reg->files[i].stamp = file_stamp(path);
            return;
        }
    loaded_file *f = realloc(reg->files, (reg->file_count + 1) * sizeof *f);
    if (!f) return;
    reg->files = f;
    reg->files[reg->file_count++] = (loaded_file){dup_string(path), file_stamp(path), false};
}

rb_load_result rb_registry_load_plugin(rb_registry *reg, const char *path) {
    remember_file(reg, path);
    /* A path without a slash would make dlopen search the library path. */
    char full[4096];
    snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *lib = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        rb_log(RB_LOG_ERROR, "plugin %s: cannot open: %s", path, dlerror());
        return RB_LOAD_CANNOT_OPEN;
    }
    rb_plugin_entry_fn entry;
    *(void **)&entry = dlsym(lib, RB_PLUGIN_ENTRY_NAME); /* POSIX's way from void * to a function pointer */
    if (!entry) {
        rb_log(RB_LOG_ERROR, "plugin %s: no entry point '%s': not a Rubble shape plugin", path, RB_PLUGIN_ENTRY_NAME);
        dlclose(lib);
        return RB_LOAD_NO_ENTRY;
    }
    const rb_host_api host = {
        .struct_size = sizeof(rb_host_api),
        .abi_version = RB_PLUGIN_ABI_VERSION,
        .host_data = reg,
        .log = host_log,
        .setting = host_setting,
    };
    reg->loading_path = path;
    snprintf(reg->loading_dir, sizeof reg->loading_dir, "%s", full);
    char *slash = strrchr(reg->loading_dir, '/');
    if (slash) *slash = '\0';

    rb_load_result result = RB_LOAD_OK;
    const rb_plugin *plugin = entry(&host);
    if (!plugin) {
        rb_log(RB_LOG_ERROR, "plugin %s: its entry point failed (returned no plugin)", path);
        result = RB_LOAD_ENTRY_FAILED;
    } else if (plugin->abi_version != RB_PLUGIN_ABI_VERSION) {
        rb_log(RB_LOG_ERROR, "plugin %s: incompatible ABI: built for version %u, this host speaks %u", path,
               plugin->abi_version, RB_PLUGIN_ABI_VERSION);
        result = RB_LOAD_ABI_MISMATCH;
        plugin = NULL; /* its other fields cannot be trusted */
    } else if (plugin->struct_size < offsetof(rb_plugin, shutdown) + sizeof plugin->shutdown) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin struct_size is %u, less than ABI %u's %zu", path,
               plugin->struct_size, RB_PLUGIN_ABI_VERSION, offsetof(rb_plugin, shutdown) + sizeof plugin->shutdown);
        result = RB_LOAD_ABI_MISMATCH;
        plugin = NULL;
    } else if (!plugin->shape) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin has no shape function (shape is NULL)", path);
        result = RB_LOAD_NO_SHAPES;
        if (plugin->shutdown) plugin->shutdown();
    } else if (!plugin->name) {
        rb_log(RB_LOG_ERROR, "plugin %s: its rb_plugin has no name (name is NULL)", path);
        result = RB_LOAD_BAD_NAME;
        if (plugin->shutdown) plugin->shutdown();
    } else if (!good_name(plugin->name)) {
        char name[300]; /* escaped(): at most 64 characters of 4 bytes */
        rb_log(RB_LOG_ERROR,
               "plugin %s: plugin name \"%s\"%s: a name is 1-63 printable ASCII characters without spaces, quotes "
               "or backslashes",
               path, escaped(plugin->name, 64, name, sizeof name),
               strlen(plugin->name) > 64 ? "... (cut)" : "");
        result = RB_LOAD_BAD_NAME;
        if (plugin->shutdown) plugin->shutdown();
    } else {
        const char *plugin_name = plugin->name;
        uint32_t offered = 0, added = 0;
        const rb_shape_desc *first = NULL;
        char first_name[64] = ""; /* a plugin may refill one struct for every shape */
        for (uint32_t i = 0;; i++) {
            const rb_shape_desc *d = plugin->shape(i);
            if (!d) break;
            if (i == MAX_SHAPES_PER_PLUGIN) {
                rb_log(RB_LOG_WARN, "plugin %s: offers more than %u shapes; the rest are ignored", path,
                       MAX_SHAPES_PER_PLUGIN);
                break;
            }
            /* A list that never ends comes round to its first shape again
             * (the same struct with the same name): said once. */
            if (i > 0 && d == first && d->name && strncmp(d->name, first_name, sizeof first_name) == 0) {
                rb_log(RB_LOG_ERROR,
                       "plugin %s: shape(%u) is shape(0) again: shape() must return NULL past the last shape; the "
                       "rest are ignored",
                       path, i);
                if (result == RB_LOAD_OK) result = RB_LOAD_DUPLICATE_NAME;
                break;
            }
            if (i == 0) {
                first = d;
                snprintf(first_name, sizeof first_name, "%s", d->name ? d->name : "");
            }
            offered++;
            rb_load_result r = rb_registry_add_desc(reg, d, plugin_name, path);
            if (r == RB_LOAD_OK)
                added++;
            else if (result == RB_LOAD_OK && r != RB_LOAD_DUPLICATE_NAME)
                result = r;
        }
        if (offered == 0) {
            rb_log(RB_LOG_WARN, "plugin %s: offers no shapes", path);
            result = RB_LOAD_NO_SHAPES;
        } else if (added == 0 && result == RB_LOAD_OK) {
            result = RB_LOAD_DUPLICATE_NAME; /* everything it offers is loaded already */
        }
        if (plugin->shutdown) plugin->shutdown();
    }
    reg->loading_path = NULL;
    dlclose(lib);
    return result;
}

static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Loads the *.so files of dir; with only_new, only those not loaded before
 * or changed since (whose own shapes the new load replaces). Returns the
 * number of plugins that loaded. */
static int scan(rb_registry *reg, const char *dir, bool only_new) {
    DIR *dp = opendir(dir);
    if (!dp) {
        rb_log(RB_LOG_WARN, "plugin folder %s: cannot open it", dir);
        return 0;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0) continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        char *name = dup_string(e->d_name);
        if (grown) names = grown;
        if (!grown || !name) {
            free(name);
            break;
        }
        names[n++] = name;
    }
    closedir(dp);
    if (n > 1) qsort(names, n, sizeof *names, compare_strings);
    int loaded = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        const int known = file_index(reg, path);
        const bool same = known >= 0 && reg->files[known].stamp == file_stamp(path);
        reg->replacing = only_new && known >= 0;
        if (!(only_new && same) && rb_registry_load_plugin(reg, path) == RB_LOAD_OK) loaded++;
        reg->replacing = false;
        free(names[i]);
    }
    free(names);
    return loaded;
}

int rb_registry_scan_dir(rb_registry *reg, const char *dir) {
    char real[PATH_MAX];
    const char *key = realpath(dir, real) ? real : dir; /* one folder named two ways is one folder */
    for (uint32_t i = 0; i < reg->dir_count; i++)
        if (strcmp(reg->dirs[i], key) == 0) return 0; /* scanned already */
    char **d = realloc(reg->dirs, (reg->dir_count + 1) * sizeof *d);
    char *copy = dup_string(key);
    if (d) reg->dirs = d;
    if (d && copy)
        reg->dirs[reg->dir_count++] = copy;
    else
        free(copy);
    return scan(reg, key, false);
}

bool rb_registry_add_mesh_dir(rb_registry *reg, const char *dir) {
    for (uint32_t i = 0; i < reg->desc.mesh_dir_count; i++)
        if (strcmp(reg->mesh_dirs[i], dir) == 0) return true;
    char **dirs = realloc(reg->mesh_dirs, (reg->desc.mesh_dir_count + 2) * sizeof *dirs);
    if (!dirs) return false;
    reg->mesh_dirs = dirs;
    if (!(dirs[reg->desc.mesh_dir_count] = dup_string(dir))) return false;
    dirs[++reg->desc.mesh_dir_count] = NULL;
    return true;
}

/* Loads the plugins loaded so far once more (only those that search the
 * mesh folders, with searching_only); shapes already registered are skipped
 * quietly. Returns the number of new shapes. */
static int load_again(rb_registry *reg, bool searching_only) {
    uint32_t before = reg->count;
    reg->reloading = true;
    for (uint32_t i = 0; i < reg->file_count; i++) {
        if (searching_only && !reg->files[i].searches) continue;
        char path[4096]; /* loading remembers the file again: a copy of its name */
        snprintf(path, sizeof path, "%s", reg->files[i].path);
        rb_registry_load_plugin(reg, path);
    }
    reg->reloading = false;
    return (int)(reg->count - before);
}

int rb_registry_reload(rb_registry *reg) { return load_again(reg, false); }

int rb_registry_rescan(rb_registry *reg) {
    uint32_t before = reg->count;
    for (uint32_t i = 0; i < reg->dir_count; i++) scan(reg, reg->dirs[i], true);
    load_again(reg, true); /* plugins that search folders (meshes) search them again */
    return (int)(reg->count - before);
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
