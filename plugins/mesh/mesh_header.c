/* mesh_header.c - declared element counts checked against the file's size
 * and the caps, before assimp reads the file (see mesh_header.h). */
#include "mesh_header.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HEAD_BYTES (64u << 10) /* a PLY or OFF header must end within these */

static bool ends_with(const char *name, const char *ext) {
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcasecmp(name + n - e, ext) == 0;
}

/* One text line of data[*at..size): copied into line (tabs and carriage
 * returns made spaces), *at moved past it. 1; -1 if the line holds another
 * control byte or one past ASCII (a NUL, say: assimp reads past one, and
 * "100\0...0000300" was a count of 100 here and of a billion there); -2 if it does not fit in
 * line (cut, "0...01000000000" was a count of 0 here and of a billion in
 * assimp); 0 at the end of the data. */
static int next_line(const char *data, size_t size, size_t *at, char *line, size_t line_size) {
    if (*at >= size) return 0;
    size_t start = *at, end = start;
    bool control = false;
    while (end < size && data[end] != '\n') {
        const unsigned char c = (unsigned char)data[end++];
        control |= (c < 0x20 && c != '\r' && c != '\t') || c >= 0x7f;
    }
    *at = end < size ? end + 1 : end;
    if (end - start > line_size - 1) return -2;
    const size_t n = end - start;
    memcpy(line, data + start, n);
    line[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (line[i] == '\r' || line[i] == '\t') line[i] = ' ';
    return control ? -1 : 1;
}

/* The header error for next_line's -1 or -2 on line line_no; false. */
static bool line_error(int got, int line_no, size_t line_size, char *err, size_t err_size) {
    if (got == -2)
        snprintf(err, err_size, "header line %d is longer than %zu bytes", line_no, line_size - 1);
    else
        snprintf(err, err_size, "header line %d holds a control byte or one past ASCII", line_no);
    return false;
}

/* Splits line in place into at most max whitespace-separated words, each
 * whole however long (the rest of the line is ignored); unused ones are "".
 * Returns how many there were. */
static int split_words(char *line, char **w, int max) {
    int n = 0;
    for (int i = 0; i < max; i++) w[i] = "";
    for (char *s = line; n < max;) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) break;
        w[n++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = '\0';
    }
    return n;
}

/* A count read straight from the text, as assimp reads it (leading zeros
 * and all): decimal digits only, saturated at UINT64_MAX; false if none. */
static bool parse_count(const char *s, uint64_t *out) {
    if (!isdigit((unsigned char)*s)) return false;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : 10 * v + (uint64_t)(*s - '0');
    if (*s && !isspace((unsigned char)*s)) return false;
    *out = v;
    return true;
}

static const char *plural(const char *element) {
    if (strcmp(element, "vertex") == 0) return "vertices";
    if (strcmp(element, "face") == 0) return "faces";
    if (strcmp(element, "triangle") == 0) return "triangles";
    return NULL;
}

/* "the file can hold at most" and the caps, for one declared element. */
static bool check_count(const char *element, uint64_t count, uint64_t min_bytes, uint64_t room, char *err,
                        size_t err_size) {
    const char *what = plural(element);
    char other[96];
    if (!what) snprintf(other, sizeof other, "elements \"%.40s\"", element), what = other;
    if (min_bytes > 0 && count > room / min_bytes) {
        snprintf(err, err_size, "header declares %llu %s, the file can hold at most %llu", (unsigned long long)count,
                 what, (unsigned long long)(room / min_bytes));
        return false;
    }
    const bool face = strcmp(element, "face") == 0 || strcmp(element, "triangle") == 0;
    const uint64_t cap = face ? RB_MESH_MAX_FACES : RB_MESH_MAX_VERTICES;
    if (count > cap) {
        snprintf(err, err_size, "header declares %llu %s, more than the limit of %llu", (unsigned long long)count, what,
                 (unsigned long long)cap);
        return false;
    }
    return true;
}

#define PLY_MAX_PROPERTIES 64

/* One declared element: its count, the fewest bytes one takes, and (for the
 * walk through the data) each property's size, or for a list the size of
 * its count (negated), whether that count is signed, and its items' size. */
typedef struct ply_element {
    char name[64];
    uint64_t count, min_bytes;
    int properties;
    int size[PLY_MAX_PROPERTIES], item[PLY_MAX_PROPERTIES];
    bool count_signed[PLY_MAX_PROPERTIES];
} ply_element;

/* A PLY scalar type: its size and kind ('u' unsigned, 's' signed integer,
 * 'f' floating point); NULL if unknown. */
typedef struct ply_type {
    const char *name;
    unsigned size;
    char kind;
} ply_type;

static const ply_type *ply_type_find(const char *t) {
    static const ply_type types[] = {{"char", 1, 's'},  {"uchar", 1, 'u'},   {"int8", 1, 's'},   {"uint8", 1, 'u'},
                                     {"short", 2, 's'}, {"ushort", 2, 'u'},  {"int16", 2, 's'},  {"uint16", 2, 'u'},
                                     {"int", 4, 's'},   {"uint", 4, 'u'},    {"int32", 4, 's'},  {"uint32", 4, 'u'},
                                     {"float", 4, 'f'}, {"float32", 4, 'f'}, {"double", 8, 'f'}, {"float64", 8, 'f'}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0) return &types[i];
    return NULL;
}

/* The next whitespace-separated word of ASCII data: *word and *len; false at
 * the end of the data. */
static bool next_word(const char *d, size_t size, size_t *at, const char **word, size_t *len) {
    while (*at < size && isspace((unsigned char)d[*at])) (*at)++;
    if (*at == size) return false;
    *word = d + *at;
    while (*at < size && !isspace((unsigned char)d[*at])) (*at)++;
    *len = (size_t)(d + *at - *word);
    return true;
}

/* An ASCII list count: plain decimal digits (leading zeros fine) that its
 * type, of bytes bytes and signed or not, holds, as assimp reads it by that
 * type. 1 and *count; -1 for a negative count ("-1": assimp reads 4294967295
 * into a 32-bit count); -2 for anything else ("+1000000000", "3.0"); -3 and
 * *count for a count its type cannot hold (300 for a uchar). */
static int ascii_list_count(const char *w, size_t len, int bytes, bool is_signed, uint64_t *count) {
    size_t i = w[0] == '-' ? 1 : 0;
    if (i == len) return -2;
    uint64_t v = 0;
    for (size_t k = i; k < len; k++) {
        if (!isdigit((unsigned char)w[k])) return -2;
        v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : 10 * v + (uint64_t)(w[k] - '0');
    }
    if (i) return v ? -1 : -2;
    const unsigned bits = 8u * (unsigned)bytes - (is_signed ? 1u : 0u);
    *count = v;
    return v >> bits ? -3 : 1;
}

static bool negative_count(const char *element, uint64_t item, char *err, size_t err_size) {
    snprintf(err, err_size, "element %.40s item %llu has a negative list count", element, (unsigned long long)item);
    return false;
}

/* Walks PLY data element by element, reading each list's length: the data
 * must hold every element its header declares (binary data must end where
 * the file ends), and no face may be an empty list. assimp misreads data that
 * does not match and aborts the whole program on a face of no vertices. */
static bool walk_ply(const char *data, size_t at, size_t size, bool binary, bool big_endian,
                     const ply_element *elements, int n_elements, char *err, size_t err_size) {
    const unsigned char *d = (const unsigned char *)data;
    for (int e = 0; e < n_elements; e++)
        for (uint64_t i = 0; i < elements[e].count; i++)
            for (int p = 0; p < elements[e].properties; p++) {
                const bool list = elements[e].size[p] < 0;
                const int bytes = list ? -elements[e].size[p] : elements[e].size[p];
                const bool is_signed = list && elements[e].count_signed[p];
                uint64_t n = 0;
                const char *w;
                size_t len;
                if (!binary) {
                    if (!next_word(data, size, &at, &w, &len)) goto short_data;
                    const int got = list ? ascii_list_count(w, len, bytes, is_signed, &n) : 1;
                    if (got == -1) return negative_count(elements[e].name, i, err, err_size);
                    if (got == -2) {
                        snprintf(err, err_size,
                                 "element %.40s item %llu has a list count \"%.*s\" that is not plain digits",
                                 elements[e].name, (unsigned long long)i, len < 20 ? (int)len : 20, w);
                        return false;
                    }
                    if (got == -3) {
                        snprintf(err, err_size,
                                 "element %.40s item %llu has a list count of %llu, more than its type holds",
                                 elements[e].name, (unsigned long long)i, (unsigned long long)n);
                        return false;
                    }
                    for (uint64_t k = 0; list && k < n; k++)
                        if (!next_word(data, size, &at, &w, &len)) goto short_data;
                } else {
                    if (size - at < (size_t)bytes) goto short_data;
                    for (int k = 0; list && k < bytes; k++) n = n << 8 | d[at + (big_endian ? k : bytes - 1 - k)];
                    at += (size_t)bytes;
                    /* assimp converts a count by its type: a signed 0xFF is -1 there, 4294967295 items */
                    if (is_signed && n >> (8 * bytes - 1)) return negative_count(elements[e].name, i, err, err_size);
                    if (list && n > (size - at) / (uint64_t)elements[e].item[p]) goto short_data;
                    if (list) at += (size_t)n * (size_t)elements[e].item[p];
                }
                if (list && n == 0 && strcmp(elements[e].name, "face") == 0) {
                    snprintf(err, err_size, "face %llu has no vertices", (unsigned long long)i);
                    return false;
                }
            }
    if (!binary || at == size) return true;
    snprintf(err, err_size, "binary data goes on %zu bytes past its header's elements", size - at);
    return false;
short_data:
    snprintf(err, err_size, "data ends before its header's elements do");
    return false;
}

/* PLY: each element's count times the fewest bytes one can take (binary: its
 * scalar properties' sizes and each list's count; ASCII: two characters a
 * value), all together within the bytes after the header. */
static bool check_ply(const char *data, size_t size, uint64_t file_size, char *err, size_t err_size) {
    char line[256];
    size_t at = 0;
    bool binary = false, big_endian = false, ended = false;
    uint64_t used = 0;
    int line_no = 0;
    ply_element elements[32];
    ply_element current = {0};
    int n_elements = 0;
    for (int got; !ended && (got = next_line(data, size, &at, line, sizeof line)) != 0;) {
        line_no++;
        if (got < 0) return line_error(got, line_no, sizeof line, err, err_size);
        char *w[4];
        const int words = split_words(line, w, 4);
        if (line_no == 1 && strcmp(w[0], "ply") != 0) return snprintf(err, err_size, "is not a PLY file"), false;
        if (words < 1) continue;
        if (strcmp(w[0], "format") == 0) {
            binary = strncmp(w[1], "binary", 6) == 0;
            big_endian = strcmp(w[1], "binary_big_endian") == 0;
        } else if (strcmp(w[0], "element") == 0 || strcmp(w[0], "end_header") == 0) {
            if (current.name[0]) {
                if (n_elements == 32) return snprintf(err, err_size, "header declares more than 32 elements"), false;
                elements[n_elements++] = current;
            }
            ended = w[0][0] == 'e' && w[0][1] == 'n';
            if (!ended) {
                current = (ply_element){0};
                if (words < 3 || !parse_count(w[2], &current.count))
                    return snprintf(err, err_size, "header line %d: \"element\" needs a name and a count", line_no),
                           false;
                snprintf(current.name, sizeof current.name, "%s", w[1]);
            }
        } else if (strcmp(w[0], "property") == 0) {
            if (!current.name[0])
                return snprintf(err, err_size, "header line %d: a property before any element", line_no), false;
            const bool list = strcmp(w[1], "list") == 0;
            const ply_type *type = ply_type_find(list ? w[2] : w[1]);
            if (!type)
                return snprintf(err, err_size, "header line %d: unknown property type \"%.20s\"", line_no,
                                list ? w[2] : w[1]),
                       false;
            /* assimp reads a float count of 3 as 0 (an empty face: it aborts) */
            if (list && type->kind == 'f')
                return snprintf(err, err_size, "header line %d: list count type \"%.20s\" is not an integer type",
                                line_no, w[2]),
                       false;
            const unsigned bytes = type->size;
            current.min_bytes += binary ? bytes : 2u;
            if (current.properties == PLY_MAX_PROPERTIES)
                return snprintf(err, err_size, "header line %d: more than %d properties", line_no, PLY_MAX_PROPERTIES),
                       false;
            current.size[current.properties] = list ? -(int)bytes : (int)bytes;
            current.count_signed[current.properties] = type->kind == 's';
            const ply_type *item = list ? ply_type_find(w[3]) : NULL;
            current.item[current.properties++] = item ? (int)item->size : 0;
            if (list && !current.item[current.properties - 1])
                return snprintf(err, err_size, "header line %d: unknown list item type \"%.20s\"", line_no, w[3]),
                       false;
        } else if (strcmp(w[0], "comment") != 0 && strcmp(w[0], "obj_info") != 0 && line_no > 1) {
            /* a line assimp may read otherwise than this check would skip it */
            return snprintf(err, err_size, "header line %d: unknown keyword \"%.20s\"", line_no, w[0]), false;
        }
    }
    if (!ended)
        return snprintf(err, err_size,
                        size < file_size ? "header does not end within its first %u KiB"
                                         : "header has no end_header line",
                        HEAD_BYTES >> 10),
               false;
    const uint64_t room = file_size > at ? file_size - at : 0;
    for (int e = 0; e < n_elements; e++) {
        if (!check_count(elements[e].name, elements[e].count, elements[e].min_bytes, room - used, err, err_size))
            return false;
        used += elements[e].count * elements[e].min_bytes;
    }
    return size < file_size || walk_ply(data, at, size, binary, big_endian, elements, n_elements, err, err_size);
}

/* OFF: "OFF" (or COFF, NOFF...), then "vertices faces edges"; a vertex line
 * takes at least 6 bytes ("0 0 0\n"), a face at least 2 ("0\n"). */
static bool check_off(const char *data, size_t size, uint64_t file_size, char *err, size_t err_size) {
    char line[256];
    size_t at = 0;
    bool magic = false;
    for (int got, line_no = 1; (got = next_line(data, size, &at, line, sizeof line)) != 0; line_no++) {
        if (got < 0) return line_error(got, line_no, sizeof line, err, err_size);
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        char *hash = strchr(s, '#');
        if (hash) *hash = '\0';
        if (!*s) continue;
        if (!magic) {
            const char *word = s;
            while (*s && !isspace((unsigned char)*s)) s++;
            if (s - word < 3 || memcmp(s - 3, "OFF", 3) != 0)
                return snprintf(err, err_size, "is not an OFF file"), false;
            magic = true;
            while (isspace((unsigned char)*s)) s++;
            if (!*s) continue;
        }
        /* the counts read whole from the line, as assimp reads them */
        uint64_t vertices, faces;
        const char *b = s + strspn(s, "0123456789");
        b += strspn(b, " ");
        if (!parse_count(s, &vertices) || !parse_count(b, &faces))
            return snprintf(err, err_size, "header needs the vertex and face counts"), false;
        const uint64_t room = file_size > at ? file_size - at : 0;
        return check_count("vertex", vertices, 6, room, err, err_size) &&
               check_count("face", faces, 2, vertices <= room / 6 ? room - 6 * vertices : 0, err, err_size);
    }
    return snprintf(err, err_size, size < file_size ? "header does not end within its first %u KiB" : "has no header",
                    HEAD_BYTES >> 10),
           false;
}

/* Binary STL: 80 bytes, a triangle count, 50 bytes a triangle. A file that
 * begins with "solid" is ASCII STL unless, as assimp decides it (IsBinarySTL
 * in its STLLoader.cpp), 84 + 50 * count in 32-bit arithmetic, which can
 * wrap, is the file's size: then assimp reads it as binary and allocates
 * for the count. */
static bool check_stl(const unsigned char *data, size_t size, uint64_t file_size, char *err, size_t err_size) {
    if (size < 84) return true; /* too short to be binary: assimp reads it as text or refuses it */
    const uint64_t n =
        (uint64_t)data[80] | (uint64_t)data[81] << 8 | (uint64_t)data[82] << 16 | (uint64_t)data[83] << 24;
    size_t i = 0;
    while (i < size && isspace(data[i])) i++;
    const bool says_solid = size - i >= 5 && memcmp(data + i, "solid", 5) == 0;
    const bool binary_size = (uint64_t)(uint32_t)(84u + 50u * (uint32_t)n) == file_size;
    if (says_solid && !binary_size) return true;
    return check_count("triangle", n, 50, file_size >= 84 ? file_size - 84 : 0, err, err_size);
}

/* OBJ declares nothing: its "v" and "f" lines are counted (the whole file
 * must be in data). */
static bool check_obj(const char *data, size_t size, char *err, size_t err_size) {
    uint64_t vertices = 0, faces = 0;
    for (size_t i = 0; i < size; i++) {
        if (i > 0 && data[i - 1] != '\n') continue;
        size_t j = i;
        while (j < size && (data[j] == ' ' || data[j] == '\t')) j++;
        if (j + 1 < size && (data[j + 1] == ' ' || data[j + 1] == '\t')) {
            vertices += data[j] == 'v';
            faces += data[j] == 'f';
        }
    }
    if (vertices > RB_MESH_MAX_VERTICES)
        return snprintf(err, err_size, "has %llu vertices, more than the limit of %u", (unsigned long long)vertices,
                        RB_MESH_MAX_VERTICES),
               false;
    if (faces > RB_MESH_MAX_FACES)
        return snprintf(err, err_size, "has %llu faces, more than the limit of %u", (unsigned long long)faces,
                        RB_MESH_MAX_FACES),
               false;
    return true;
}

bool rb_mesh_header_check(const char *name, const void *data, size_t size, uint64_t file_size, char *err,
                          size_t err_size) {
    if (size > file_size) size = (size_t)file_size;
    if (file_size > RB_MESH_MAX_FILE_BYTES)
        return snprintf(err, err_size, "is %llu bytes, more than the limit of %u MiB", (unsigned long long)file_size,
                        RB_MESH_MAX_FILE_BYTES >> 20),
               false;
    if (ends_with(name, ".ply")) return check_ply(data, size, file_size, err, err_size);
    if (ends_with(name, ".off")) return check_off(data, size, file_size, err, err_size);
    if (ends_with(name, ".stl")) return check_stl(data, size, file_size, err, err_size);
    if (ends_with(name, ".obj") && size == file_size) return check_obj(data, size, err, err_size);
    return true;
}

bool rb_mesh_header_check_file(const char *path, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) return snprintf(err, err_size, "cannot be read"), false;
    long file_size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool ok = file_size >= 0 && fseek(f, 0, SEEK_SET) == 0;
    if (!ok) snprintf(err, err_size, "cannot be read");
    size_t want = 0;
    if (ok) {
        want = (uint64_t)file_size < HEAD_BYTES ? (size_t)file_size : HEAD_BYTES;
        if ((ends_with(path, ".obj") || ends_with(path, ".ply")) && (uint64_t)file_size <= RB_MESH_MAX_FILE_BYTES)
            want = (size_t)file_size; /* OBJ lines are counted, binary PLY data walked */
    }
    char *data = ok ? malloc(want + 1) : NULL;
    if (ok && !data) ok = false, snprintf(err, err_size, "cannot be read: out of memory");
    if (ok) {
        const size_t got = fread(data, 1, want, f);
        ok = got == want && !ferror(f);
        if (!ok) snprintf(err, err_size, "cannot be read"); /* a short read must not pass as a short file */
        if (ok) ok = rb_mesh_header_check(path, data, got, (uint64_t)file_size, err, err_size);
    }
    free(data);
    fclose(f);
    return ok;
}
