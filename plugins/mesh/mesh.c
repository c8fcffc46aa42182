/* mesh.c - the mesh plugin: every triangle mesh in the host's "mesh_dir"
 * folders becomes a shape, filled with particles by the voxelizer.
 *
 * A mesh "rock.obj" is offered as the shape "rock". Its settings come from a
 * side file "rock.obj.json" beside it, or from the defaults below. A mesh that
 * cannot be used is reported through host->log with its file and the reason,
 * and the plugin goes on with the others. */
#include <rubble_plugin.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_load.h"
#include "voxelize.h"

#define RB_MESH_DEFAULT_RESOLUTION 10u
#define RB_MESH_MAX_RESOLUTION 1024u
#define RB_MESH_NAME_SIZE 64
#define RB_MESH_DESC_SIZE 160

/* What a shape's size follows (the side file's "size"). */
typedef enum rb_mesh_sizing {
    RB_SIZE_FILE = 0,   /* the file's own: its numbers times "units" times "scale", in metres */
    RB_SIZE_GIVEN,      /* "size": N, the longest side of the bounding box N metres */
    RB_SIZE_RESOLUTION, /* "size": "resolution": resolution times the host's particle diameter (the old way) */
} rb_mesh_sizing;

/* Per-mesh settings: the side file's keys. */
typedef struct rb_mesh_settings {
    uint32_t resolution;                 /* particles across the longest side */
    bool surface;                        /* surface-only particles (Harada 29.2.9) */
    bool smooth;                         /* smooth render normals where the file has none */
    bool parts;                          /* "pieces": "parts": the file's parts are the shape's pieces */
    rb_mesh_sizing sizing;               /* what the size follows */
    double unit;                         /* metres a file unit ("units"; 1: metres) */
    double scale;                        /* times the unit ("scale"; 1) */
    double size;                         /* RB_SIZE_GIVEN: m, the longest side */
    bool units_given;                    /* "units" or "scale" was given */
    char name[RB_MESH_NAME_SIZE];        /* "" = the file stem */
    char description[RB_MESH_DESC_SIZE]; /* "" = made up from the file */
} rb_mesh_settings;

/* The units a side file may name, metres each. */
static const struct {
    const char *name;
    double metres;
} units[] = {{"m", 1.0}, {"dm", 0.1}, {"cm", 0.01}, {"mm", 0.001}, {"km", 1000.0}, {"in", 0.0254}, {"ft", 0.3048}};

/* How far "scale" and "size" may go: beyond these a particle cannot be
 * within the host's 1e-4 to 1000 m at any resolution from 1 to 1024. */
#define RB_MESH_MIN_SCALE 1e-9
#define RB_MESH_MAX_SCALE 1e9

typedef struct rb_mesh_shape {
    rb_shape_desc desc;
    char source[4096]; /* the mesh file's path */
    char name[RB_MESH_NAME_SIZE];
    char description[RB_MESH_DESC_SIZE];
    float *particles, *vertices, *normals;
    uint32_t *indices;
    uint32_t *pieces, *triangle_pieces; /* a pre-fractured mesh's parts; NULL: none */
} rb_mesh_shape;

static const rb_host_api *host;
static rb_mesh_shape **shapes;
static uint32_t shape_count, shape_capacity;

#define LOG(level, ...)                                                                                                \
    do {                                                                                                               \
        if (host && host->log) host->log(host->host_data, level, __VA_ARGS__);                                         \
    } while (0)

static const char *host_setting(const char *key, uint32_t index) {
    if (!host || host->struct_size < offsetof(rb_host_api, setting) + sizeof host->setting || !host->setting)
        return NULL;
    return host->setting(host->host_data, key, index);
}

static void free_shape(rb_mesh_shape *s) {
    if (!s) return;
    free(s->particles);
    free(s->vertices);
    free(s->normals);
    free(s->indices);
    free(s->pieces);
    free(s->triangle_pieces);
    free(s);
}

static void free_all(void) {
    for (uint32_t i = 0; i < shape_count; i++) free_shape(shapes[i]);
    free(shapes);
    shapes = NULL;
    shape_count = shape_capacity = 0;
}

static bool file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* Reads a whole small file; NULL if it cannot. *size: the bytes read. */
static char *read_text(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long length = ftell(f);
        if (length >= 0 && length < (1 << 20) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)length + 1))) {
            *size = fread(text, 1, (size_t)length, f);
            text[*size] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* s for a message: at most 40 bytes, quotes, backslashes, control and
 * non-ASCII bytes escaped (\xNN), so a message shows what the file holds and
 * a terminal is not driven by it. */
static const char *escaped(const char *s, char *out, size_t out_size) {
    size_t n = 0;
    for (size_t i = 0; s[i] && i < 40 && n + 5 < out_size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, out_size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    return out;
}

/* A shape name the host takes: printable ASCII without spaces, quotes or
 * backslashes (the registry's rule, src/shapes/registry.c). */
static bool good_name(const char *v) {
    for (const unsigned char *c = (const unsigned char *)v; *c; c++)
        if (*c <= ' ' || *c >= 0x7f || *c == '"' || *c == '\\') return false;
    return true;
}

static bool has_control(const char *v) {
    for (const unsigned char *c = (const unsigned char *)v; *c; c++)
        if (*c < 0x20 || *c == 0x7f) return true;
    return false;
}

/* Fills s from a JSON side file such as {"resolution": 8, "surface": true}.
 * Returns false with the problem in err: a typo must not silently give a
 * shape of another size. */
static bool parse_side_file(const char *path, rb_mesh_settings *s, char *err, size_t err_size) {
    size_t size = 0;
    char *text = read_text(path, &size);
    if (!text) {
        snprintf(err, err_size, "cannot be read (%s)", strerror(errno));
        return false;
    }
    char near[200];
    const char *nul = memchr(text, '\0', size);
    const char *end = NULL;
    cJSON *root = nul ? NULL : cJSON_ParseWithOpts(text, &end, true);
    bool ok = root && cJSON_IsObject(root);
    if (nul) {
        snprintf(err, err_size, "holds a NUL byte at offset %zu", (size_t)(nul - text));
    } else if (!root && end && end > text && *end && (root = cJSON_ParseWithOpts(text, NULL, false))) {
        snprintf(err, err_size, "has something after its JSON object (near \"%s\")", escaped(end, near, sizeof near));
    } else if (!ok) {
        const char *at = root ? NULL : cJSON_GetErrorPtr();
        snprintf(err, err_size, "is not a JSON object%s%s%s", at && *at ? " (near \"" : "",
                 at && *at ? escaped(at, near, sizeof near) : "", at && *at ? "\")" : "");
    }
    for (const cJSON *item = root && ok ? root->child : NULL; item && ok; item = item->next) {
        const char *key = item->string;
        for (const cJSON *before = root->child; before != item && ok; before = before->next)
            if (strcmp(before->string, key) == 0) {
                snprintf(err, err_size, "has the key \"%s\" twice", escaped(key, near, sizeof near));
                ok = false;
            }
        if (!ok) break;
        if (strcmp(key, "resolution") == 0) {
            double v = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
            if (!(v >= 1.0 && v <= RB_MESH_MAX_RESOLUTION) || v != floor(v)) {
                snprintf(err, err_size, "\"resolution\" must be a whole number from 1 to %u", RB_MESH_MAX_RESOLUTION);
                ok = false;
            } else
                s->resolution = (uint32_t)v;
        } else if (strcmp(key, "units") == 0) {
            const char *v = cJSON_GetStringValue(item);
            size_t u = 0;
            while (v && u < sizeof units / sizeof units[0] && strcmp(v, units[u].name) != 0) u++;
            if (!v || u == sizeof units / sizeof units[0]) {
                snprintf(err, err_size,
                         "\"units\" %s%s%s is not a unit the mesh plugin knows (m, dm, cm, mm, km, in, ft)",
                         v ? "\"" : "", v ? escaped(v, near, sizeof near) : "(not a string)", v ? "\"" : "");
                ok = false;
            } else
                s->unit = units[u].metres, s->units_given = true;
        } else if (strcmp(key, "scale") == 0) {
            const double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
            if (!(v >= RB_MESH_MIN_SCALE && v <= RB_MESH_MAX_SCALE)) {
                snprintf(err, err_size, "\"scale\" must be a number greater than 0 (at most %g), metres a file unit%s",
                         RB_MESH_MAX_SCALE, cJSON_IsNumber(item) ? "" : ": it is not a number");
                ok = false;
            } else
                s->scale = v, s->units_given = true;
        } else if (strcmp(key, "size") == 0) {
            const char *v = cJSON_GetStringValue(item);
            const double n = cJSON_IsNumber(item) ? item->valuedouble : NAN;
            if (v && strcmp(v, "file") == 0)
                s->sizing = RB_SIZE_FILE;
            else if (v && strcmp(v, "resolution") == 0)
                s->sizing = RB_SIZE_RESOLUTION;
            else if (!v && n >= RB_MESH_MIN_SCALE && n <= RB_MESH_MAX_SCALE)
                s->sizing = RB_SIZE_GIVEN, s->size = n;
            else {
                snprintf(err, err_size,
                         "\"size\" must be \"file\" (the file's own, in \"units\"), \"resolution\" (resolution "
                         "times the host's particle size) or the longest side in metres, a number greater than 0%s%s%s",
                         v ? " (got \"" : "", v ? escaped(v, near, sizeof near) : "", v ? "\")" : "");
                ok = false;
            }
        } else if (strcmp(key, "pieces") == 0) {
            const char *v = cJSON_GetStringValue(item);
            if (!v || (strcmp(v, "parts") != 0 && strcmp(v, "none") != 0)) {
                snprintf(err, err_size,
                         "\"pieces\" must be \"parts\" (the file's parts are the shape's pieces) or \"none\"%s%s%s",
                         v ? " (got \"" : "", v ? escaped(v, near, sizeof near) : "", v ? "\")" : "");
                ok = false;
            } else
                s->parts = strcmp(v, "parts") == 0;
        } else if (strcmp(key, "surface") == 0 || strcmp(key, "smooth") == 0) {
            if (!cJSON_IsBool(item)) {
                snprintf(err, err_size, "\"%s\" must be true or false", key);
                ok = false;
            } else
                *(strcmp(key, "surface") == 0 ? &s->surface : &s->smooth) = cJSON_IsTrue(item);
        } else if (strcmp(key, "name") == 0 || strcmp(key, "description") == 0) {
            bool is_name = strcmp(key, "name") == 0;
            size_t cap = is_name ? sizeof s->name : sizeof s->description;
            const char *v = cJSON_GetStringValue(item);
            if (!v || !*v || strlen(v) >= cap || (is_name ? !good_name(v) : has_control(v))) {
                snprintf(err, err_size, "\"%s\" %s%s%s must be a string of 1 to %zu %s", key, v ? "\"" : "",
                         v ? escaped(v, near, sizeof near) : "", v ? "\"" : "", cap - 1,
                         is_name ? "printable ASCII characters without spaces, quotes or backslashes"
                                 : "characters without control characters");
                ok = false;
            } else
                snprintf(is_name ? s->name : s->description, cap, "%s", v);
        } else {
            snprintf(err, err_size,
                     "has an unknown key \"%s\" (known: resolution, size, units, scale, pieces, surface, smooth, "
                     "name, description)",
                     escaped(key, near, sizeof near));
            ok = false;
        }
    }
    if (ok && s->units_given && s->sizing != RB_SIZE_FILE) {
        snprintf(err, err_size, "gives \"%s\" with \"size\": %s; give one or the other",
                 s->scale != 1.0 ? "scale" : "units",
                 s->sizing == RB_SIZE_GIVEN ? "a length sets the size whatever the units"
                                            : "\"resolution\" sizes the mesh by the particles, not its units");
        ok = false;
    }
    cJSON_Delete(root);
    free(text);
    return ok;
}

/* The shape name from a file name: the stem, spaces made underscores. */
static void stem_of(const char *file, char *name, size_t size) {
    snprintf(name, size, "%s", file);
    char *dot = strrchr(name, '.');
    if (dot && dot != name) *dot = '\0';
    for (char *c = name; *c; c++)
        if (*c == ' ' || *c == '\t') *c = '_';
}

static bool name_taken(const char *name) {
    for (uint32_t i = 0; i < shape_count; i++)
        if (strcmp(shapes[i]->name, name) == 0) return true;
    return false;
}

static bool push_shape(rb_mesh_shape *s) {
    if (shape_count == shape_capacity) {
        uint32_t cap = shape_capacity ? 2 * shape_capacity : 16;
        rb_mesh_shape **grown = realloc(shapes, sizeof *grown * cap);
        if (!grown) return false;
        shapes = grown;
        shape_capacity = cap;
    }
    shapes[shape_count++] = s;
    return true;
}

/* Turns a voxelized mesh into a shape: particles as they come, the render
 * mesh moved into the same diameter-unit frame ((v - centre) / cell). */
/* The render mesh gets the same orientation repair the voxelizer made, so
 * back-face culling shows the outside. The file's normals followed the old
 * winding: they are dropped and the host shades the triangles flat. */
static void turn_render_mesh(rb_mesh_data *mesh, const uint32_t *parts) {
    uint32_t *turned = malloc(sizeof(uint32_t) * 3 * (size_t)mesh->triangle_count);
    if (!turned || rb_vox_orient_parts(mesh->positions, mesh->vertex_count, mesh->indices, mesh->triangle_count, parts,
                                       turned, NULL) < 0) {
        free(turned);
        return;
    }
    free(mesh->indices);
    mesh->indices = turned;
    free(mesh->normals);
    mesh->normals = NULL;
}

/* diameter: m, the particles' (0: the host's); pieced: vox's parts and the
 * mesh's triangle parts are the shape's pieces. */
static rb_mesh_shape *make_shape(const char *path, const char *file, const rb_mesh_settings *set, rb_mesh_data *mesh,
                                 rb_voxels *vox, double diameter, bool pieced) {
    rb_mesh_shape *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    snprintf(s->source, sizeof s->source, "%s", path);
    snprintf(s->name, sizeof s->name, "%s", set->name);
    char size[48] = "";
    if (diameter > 0.0) snprintf(size, sizeof size, ", %.3g m", diameter * set->resolution);
    if (set->description[0])
        snprintf(s->description, sizeof s->description, "%s", set->description);
    else
        snprintf(s->description, sizeof s->description, "mesh %s: %u particles, %u across%s, %s%s", file, vox->count,
                 set->resolution, size, set->surface ? "surface" : "solid", pieced ? ", in parts" : "");
    s->particles = vox->particles;
    vox->particles = NULL;
    if (pieced) {
        s->pieces = vox->parts, vox->parts = NULL;
        s->triangle_pieces = mesh->triangle_parts, mesh->triangle_parts = NULL;
    }
    s->vertices = malloc(sizeof(float) * 3 * mesh->vertex_count);
    if (!s->vertices) {
        free_shape(s);
        return NULL;
    }
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            s->vertices[3 * v + k] = (float)((mesh->positions[3 * v + k] - vox->centre[k]) / vox->cell);
    /* Normals are directions: a uniform scale and a shift leave them as they are. */
    s->normals = mesh->normals;
    s->indices = mesh->indices;
    mesh->normals = NULL;
    mesh->indices = NULL;
    s->desc = (rb_shape_desc){
        .struct_size = sizeof(rb_shape_desc),
        .name = s->name,
        .description = s->description,
        .particle_count = vox->count,
        .particles = s->particles,
        .vertex_count = mesh->vertex_count,
        .vertices = s->vertices,
        .normals = s->normals,
        .index_count = 3 * mesh->triangle_count,
        .indices = s->indices,
        .particle_diameter = (float)diameter,
        .source = s->source,
        .pieces = s->pieces,
        .triangle_pieces = s->triangle_pieces,
    };
    return s;
}

/* A part's name for messages: "name" (k of n), or part k of n. */
static const char *part_label(const rb_mesh_data *mesh, uint32_t k, char *out, size_t size) {
    char name[300];
    if (mesh->part_names && mesh->part_names[k][0])
        snprintf(out, size, "part \"%s\" (%u of %u)", escaped(mesh->part_names[k], name, sizeof name), k + 1,
                 mesh->part_count);
    else
        snprintf(out, size, "part %u of %u", k + 1, mesh->part_count);
    return out;
}

/* Where particle i's centre is, in the file's units, for messages. */
static void file_point(const rb_voxels *vox, uint32_t i, double out[3]) {
    for (int k = 0; k < 3; k++) out[k] = vox->centre[k] + vox->particles[3 * i + k] * vox->cell;
}

/* Whether the parts' particles can be the shape's pieces: none in two
 * parts, none in no part, none of the parts empty. Says each problem (the
 * shape then loads without pieces). */
static bool parts_usable(const char *path, const char *side, const rb_mesh_settings *set, const rb_mesh_data *mesh,
                         const rb_voxels *vox) {
    char a[400], b[400];
    double q[3];
    bool ok = true;
    if (vox->overlaps > 0) {
        file_point(vox, vox->overlap_particle, q);
        LOG(RB_PLUGIN_LOG_WARN,
            "mesh: %s: %s and %s overlap: %u particle centres are inside both (the first at (%.4g, %.4g, %.4g) in "
            "the file's units); loaded without pieces",
            path, part_label(mesh, vox->overlap_parts[0], a, sizeof a),
            part_label(mesh, vox->overlap_parts[1], b, sizeof b), vox->overlaps, q[0], q[1], q[2]);
        ok = false;
    }
    if (vox->orphans > 0) {
        file_point(vox, vox->orphan_particle, q);
        LOG(RB_PLUGIN_LOG_WARN,
            "mesh: %s: %u of %u particle centres inside the mesh are in no part (the first at (%.4g, %.4g, %.4g) in "
            "the file's units): a part is open, or the parts are patches of one surface rather than closed pieces; "
            "loaded without pieces",
            path, vox->orphans, vox->count, q[0], q[1], q[2]);
        ok = false;
    }
    uint32_t empty = 0, first = 0;
    for (uint32_t k = 0; k < mesh->part_count; k++)
        if (vox->part_particles[k] == 0 && empty++ == 0) first = k;
    if (empty > 0 && vox->orphans == 0) { /* with orphans, parts are empty for that reason */
        if (empty > 1) snprintf(b, sizeof b, " and %u other parts are", empty - 1);
        LOG(RB_PLUGIN_LOG_WARN,
            "mesh: %s: %s%s too small to hold a particle at %u across (no particle centre is inside it); raise "
            "\"resolution\" in %s or join it to a neighbour; loaded without pieces",
            path, part_label(mesh, first, a, sizeof a), empty > 1 ? b : " is", set->resolution, side);
    }
    return ok && empty == 0;
}

/* The particles' diameter in metres (0: the host's, "size": "resolution"),
 * or -1 with the problem said: outside what the host takes. */
static double particle_size(const char *path, const char *side, const rb_mesh_settings *set, const rb_voxels *vox) {
    if (set->sizing == RB_SIZE_RESOLUTION) return 0.0;
    const double d = set->sizing == RB_SIZE_GIVEN ? set->size / set->resolution : vox->cell * set->unit * set->scale;
    const double across = d * set->resolution;
    if (!(d >= 1e-4 && d <= 1000.0)) {
        LOG(RB_PLUGIN_LOG_ERROR,
            "mesh: %s would be %g m across%s, its particles %g m at %u across: outside the 0.0001 to 1000 m a "
            "particle may be; give \"units\", \"scale\" or \"size\" in %s; skipped",
            path, across, set->sizing == RB_SIZE_FILE && !set->units_given ? " (its numbers read as metres)" : "", d,
            set->resolution, side);
        return -1.0;
    }
    if (set->sizing == RB_SIZE_FILE && !set->units_given && (across > 100.0 || across < 0.01))
        LOG(RB_PLUGIN_LOG_WARN,
            "mesh: %s is %g m across, its numbers read as metres; if the file is in other units, say so in %s "
            "(\"units\": \"mm\", \"cm\", \"in\"..., or \"scale\")",
            path, across, side);
    return d;
}

/* Loads one mesh file as a shape, or says why not. */
static void load_mesh(const char *dir, const char *file) {
    char path[4096], side[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    rb_mesh_settings set = {.resolution = RB_MESH_DEFAULT_RESOLUTION, .unit = 1.0, .scale = 1.0};
    stem_of(file, set.name, sizeof set.name);
    snprintf(side, sizeof side, "%s.json", path);
    if (file_exists(side) && !parse_side_file(side, &set, err, sizeof err)) {
        LOG(RB_PLUGIN_LOG_ERROR, "mesh: %s: side file %s; mesh skipped", side, err);
        return;
    }
    if (!good_name(set.name)) {
        LOG(RB_PLUGIN_LOG_ERROR,
            "mesh: %s: the shape name \"%s\" (from the file name) is not printable ASCII without spaces, quotes "
            "or backslashes; give a \"name\" in %s; skipped",
            path, escaped(set.name, err, sizeof err), side);
        return;
    }
    if (name_taken(set.name)) {
        LOG(RB_PLUGIN_LOG_WARN, "mesh: %s: a shape named \"%s\" was already loaded from another file; skipped", path,
            escaped(set.name, err, sizeof err));
        return;
    }
    rb_mesh_data mesh;
    const bool loaded = set.parts ? rb_mesh_load_parts(path, set.smooth, &mesh, err, sizeof err)
                                  : rb_mesh_load(path, set.smooth, &mesh, err, sizeof err);
    if (!loaded) {
        LOG(RB_PLUGIN_LOG_ERROR, "mesh: %s %s; skipped", path, err);
        return;
    }
    if (set.parts && mesh.part_count < 2) {
        char one[400];
        LOG(RB_PLUGIN_LOG_WARN,
            "mesh: %s has one part (%s); \"pieces\": \"parts\" in %s needs two or more (separate objects: OBJ `o` "
            "or `g` groups, glTF nodes); loaded without pieces",
            path, part_label(&mesh, 0, one, sizeof one), side);
    }
    const bool parts = set.parts && mesh.part_count >= 2;
    rb_vox_desc desc = {
        .positions = mesh.positions,
        .vertex_count = mesh.vertex_count,
        .indices = mesh.indices,
        .triangle_count = mesh.triangle_count,
        .resolution = set.resolution,
        .surface_only = set.surface,
        .max_particles = RB_PLUGIN_MAX_PARTICLES,
        .triangle_parts = parts ? mesh.triangle_parts : NULL,
        .part_count = parts ? mesh.part_count : 0,
    };
    rb_voxels vox;
    rb_vox_result r = rb_voxelize(&desc, &vox);
    double diameter = -1.0;
    if (r == RB_VOX_TOO_MANY) {
        LOG(RB_PLUGIN_LOG_ERROR,
            "mesh: %s would need about %.0f particles at %u across, more than the limit of %u; lower "
            "\"resolution\" in %s; skipped",
            path, vox.estimate, set.resolution, RB_PLUGIN_MAX_PARTICLES, side);
    } else if (r != RB_VOX_OK) {
        LOG(RB_PLUGIN_LOG_ERROR, "mesh: %s %s (%u across, %u triangles); skipped", path, rb_vox_result_text(r),
            set.resolution, mesh.triangle_count);
    } else if ((diameter = particle_size(path, side, &set, &vox)) >= 0.0) {
        if (vox.open_edges > 0)
            LOG(RB_PLUGIN_LOG_WARN,
                "mesh: %s is not closed (%u open edges%s); the winding number fills it as if closed", path,
                vox.open_edges, parts ? " within its parts" : "");
        /* a pre-fractured file read as one surface: each part's cut face meets its neighbour's edge to edge,
         * the repair cannot carry a part's orientation across such an edge, turns some cut faces by their own
         * volume, and the particles along them go missing */
        if (!parts && vox.crowded_edges > 0 && vox.flipped > 0)
            LOG(RB_PLUGIN_LOG_WARN,
                "mesh: %s: %u triangles were turned where %u edges are each shared by more than two triangles; if "
                "its objects are the pieces of one body (a pre-fractured mesh), particles are missing along its "
                "cuts: say \"pieces\": \"parts\" in %s",
                path, vox.flipped, vox.crowded_edges, side);
        if (vox.flipped > 0) {
            LOG(RB_PLUGIN_LOG_INFO, "mesh: %s: %u triangles faced the wrong way and were turned", path, vox.flipped);
            turn_render_mesh(&mesh, desc.triangle_parts);
        }
        const bool pieced = parts && parts_usable(path, side, &set, &mesh, &vox);
        rb_mesh_shape *s = make_shape(path, file, &set, &mesh, &vox, diameter, pieced);
        if (!s || !push_shape(s)) {
            LOG(RB_PLUGIN_LOG_ERROR, "mesh: %s: out of memory; skipped", path);
            free_shape(s);
        }
    }
    rb_voxels_free(&vox);
    rb_mesh_data_free(&mesh);
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Loads every mesh file of one folder, in name order so shapes come out the
 * same on every machine. */
static void scan_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        LOG(RB_PLUGIN_LOG_WARN, "mesh: cannot open mesh folder %s: %s", dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !rb_mesh_is_mesh_file(e->d_name)) continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, sizeof *grown * cap);
            if (!grown) break;
            names = grown;
        }
        if (!(names[count] = strdup(e->d_name))) break;
        count++;
    }
    closedir(d);
    if (count) qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        load_mesh(dir, names[i]);
        free(names[i]);
    }
    free(names);
}

static const rb_shape_desc *get_shape(uint32_t index) { return index < shape_count ? &shapes[index]->desc : NULL; }

static void shutdown(void) {
    free_all();
    host = NULL;
}

static const rb_plugin plugin = {
    .struct_size = sizeof(rb_plugin),
    .abi_version = RB_PLUGIN_ABI_VERSION,
    .name = "mesh",
    .shape = get_shape,
    .shutdown = shutdown,
};

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *api) {
    free_all(); /* a second entry (a rescan) starts over */
    host = api;
    if (!api || api->abi_version != RB_PLUGIN_ABI_VERSION) {
        LOG(RB_PLUGIN_LOG_ERROR, "mesh: host ABI version %u, plugin built for %u", api ? api->abi_version : 0,
            RB_PLUGIN_ABI_VERSION);
        return NULL;
    }
    const char *dir;
    uint32_t folders = 0;
    for (; (dir = host_setting("mesh_dir", folders)); folders++) scan_dir(dir);
    if (folders == 0)
        LOG(RB_PLUGIN_LOG_INFO, "mesh: the host named no mesh folder (\"mesh_dir\"): no mesh shapes");
    else if (shape_count == 0)
        LOG(RB_PLUGIN_LOG_INFO, "mesh: no usable mesh in the %u mesh folder(s)", folders);
    return &plugin;
}
