/* cache_file.c - see cache_file.h; the bytes are in docs/cache-format.md. */
#include "cache_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "cache.h"

static const char file_magic[8] = {'R', 'U', 'B', 'B', 'L', 'E', 'C', '1'};
static const char chunk_magic[4] = {'R', 'B', 'C', 'K'};

/* ---- CRC-32 (IEEE 802.3, reflected) ---- */

static uint32_t crc_table[256];

static void crc_init(void) {
    if (crc_table[1]) return;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t rb_cache_crc32(const uint8_t *p, size_t n) {
    crc_init();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static double le_f64(const uint8_t *p) {
    const uint64_t v = le32(p) | (uint64_t)le32(p + 4) << 32;
    double f;
    memcpy(&f, &v, 8);
    return f;
}

static void put_f64(uint8_t *p, double f) {
    uint64_t v;
    memcpy(&v, &f, 8);
    put_le32(p, (uint32_t)v), put_le32(p + 4, (uint32_t)(v >> 32));
}

void rb_cache_header(uint8_t out[RB_CACHE_HEADER_BYTES], double rate, double dt) {
    memcpy(out, file_magic, 8);
    put_le32(out + 8, RB_CACHE_VERSION);
    put_le32(out + 12, RB_CACHE_HEADER_BYTES);
    put_f64(out + 16, rate);
    put_f64(out + 24, dt);
    put_le32(out + 32, rb_cache_crc32(out, 32));
}

/* ---- writing a chunk's stored bytes ---- */

/* The most raw bytes a chunk of `stored` bytes may give (docs/cache-format.md). */
static uint64_t inflation_limit(uint64_t stored) {
    return (uint64_t)RB_CACHE_INFLATION * stored + RB_CACHE_INFLATION_SLACK;
}

static bool reserve(uint8_t **p, size_t *cap, size_t n) {
    if (n <= *cap) return true;
    uint8_t *grown = realloc(*p, n);
    if (!grown) return false;
    *p = grown, *cap = n;
    return true;
}

/* A zstd frame (RFC 8878) of raw blocks: the magic, a frame header of one
 * segment with its 8-byte content size, and blocks of at most 128 KiB, the
 * last one marked. */
#define RAW_BLOCK_BYTES (128u * 1024)
static size_t raw_frame(const uint8_t *raw, size_t n, uint8_t **out, size_t *cap) {
    const size_t blocks = n ? (n + RAW_BLOCK_BYTES - 1) / RAW_BLOCK_BYTES : 1;
    const size_t size = 4 + 1 + 8 + 3 * blocks + n;
    if (!reserve(out, cap, size)) return 0;
    uint8_t *p = *out;
    put_le32(p, 0xFD2FB528u), p += 4;
    *p++ = 0xE0; /* content size in 8 bytes, a single segment, no checksum, no dictionary */
    put_le32(p, (uint32_t)n), put_le32(p + 4, (uint32_t)((uint64_t)n >> 32)), p += 8;
    for (size_t b = 0, at = 0; b < blocks; b++) {
        const size_t len = n - at < RAW_BLOCK_BYTES ? n - at : RAW_BLOCK_BYTES;
        const uint32_t head = (uint32_t)(len << 3) | (b + 1 == blocks ? 1u : 0u); /* type 0: raw */
        p[0] = (uint8_t)head, p[1] = (uint8_t)(head >> 8), p[2] = (uint8_t)(head >> 16), p += 3;
        memcpy(p, raw + at, len), p += len, at += len;
    }
    return size;
}

size_t rb_cache_pack(void *zstd_cctx, const uint8_t *raw, size_t raw_bytes, int level, uint8_t **out, size_t *cap,
                     const char **why) {
    const size_t bound = ZSTD_compressBound(raw_bytes);
    *why = "out of memory";
    if (!reserve(out, cap, bound)) return 0;
    const size_t n = ZSTD_compressCCtx(zstd_cctx, *out, bound, raw, raw_bytes, level);
    if (ZSTD_isError(n)) {
        *why = ZSTD_getErrorName(n);
        return 0;
    }
    if (raw_bytes <= inflation_limit(n)) return n;
    return raw_frame(raw, raw_bytes, out, cap); /* so repetitive that a reader would refuse it packed */
}

/* ---- reading ---- */

static const char *file_type(mode_t mode) {
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a plain file";
}

/* Reads n bytes at f->at (below f->size); false if the file gave fewer. */
static bool read_at(rb_cache_file *f, uint8_t *out, size_t n) { return fread(out, 1, n, f->f) == n; }

const char *rb_cache_file_open(rb_cache_file *f, const char *path, char *detail, size_t detail_size) {
    memset(f, 0, sizeof *f);
    /* O_NONBLOCK: opening a FIFO does not wait for a writer, so that its type can be refused */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return strerror(errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(detail, detail_size, "%s", strerror(errno));
        close(fd);
        return detail;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(detail, detail_size, "%s, not a regular file: a cache is read from a file", file_type(st.st_mode));
        return detail;
    }
    f->f = fdopen(fd, "rb");
    if (!f->f) {
        close(fd);
        return "out of memory";
    }
    f->size = (uint64_t)st.st_size;
    uint8_t h[RB_CACHE_HEADER_BYTES];
    const size_t have = f->size < sizeof h ? (size_t)f->size : sizeof h;
    const char *why = NULL;
    if (f->size == 0)
        why = "an empty file, not a Rubble cache";
    else if (!read_at(f, h, have))
        why = "cannot be read";
    else if (memcmp(h, file_magic, have < 8 ? have : 8) != 0)
        why = "not a Rubble cache (it does not start with RUBBLEC1)";
    else if (have < 16) {
        snprintf(detail, detail_size, "cut short inside its header (%zu of %d bytes)", have, RB_CACHE_HEADER_BYTES);
        why = detail;
    }
    if (why) {
        rb_cache_file_close(f);
        return why;
    }
    f->version = le32(h + 8);
    const uint32_t header_bytes = f->version >= 5 ? RB_CACHE_HEADER_BYTES : RB_CACHE_OLD_HEADER_BYTES;
    if (f->version < RB_CACHE_OLDEST_VERSION || f->version > RB_CACHE_VERSION) {
        snprintf(detail, detail_size,
                 "cache format version %u; this build reads versions %d to %d (%s, or a damaged byte)", f->version,
                 RB_CACHE_OLDEST_VERSION, RB_CACHE_VERSION,
                 f->version > RB_CACHE_VERSION ? "a newer build's cache" : "an older build's cache");
        why = detail;
    } else if (have < header_bytes) {
        snprintf(detail, detail_size, "cut short inside its header (%zu of %u bytes)", have, header_bytes);
        why = detail;
    } else if (header_bytes == RB_CACHE_HEADER_BYTES && rb_cache_crc32(h, 32) != le32(h + 32))
        why = "a damaged header (its CRC does not match)"; /* version 5: nothing in it is believed */
    else {
        f->rate = le_f64(h + 16), f->dt = le_f64(h + 24);
        if (le32(h + 12) != header_bytes || !(f->rate > 0.0 && isfinite(f->rate)) || !(f->dt > 0.0 && isfinite(f->dt)))
            why = "a damaged header (its size, rate or step)";
    }
    if (why) {
        rb_cache_file_close(f);
        return why;
    }
    /* the older, shorter header: the bytes after it are the first chunk's */
    if (fseek(f->f, header_bytes, SEEK_SET) != 0) {
        rb_cache_file_close(f);
        return "cannot be read";
    }
    f->at = f->next = header_bytes;
    return NULL;
}

int rb_cache_file_chunk(rb_cache_file *f, const uint8_t **raw, size_t *raw_bytes, const char **why, char *detail,
                        size_t detail_size) {
    uint8_t h[RB_CACHE_CHUNK_HEADER_BYTES];
    f->at = f->next;
    if (f->size - f->at < sizeof h) return 0; /* cut inside a chunk's header, or at its start */
    if (!read_at(f, h, sizeof h)) return 0;   /* the file shrank while read: where it ends now */
    const uint32_t packed = le32(h + 4), inflated = le32(h + 8), crc = le32(h + 12);
    /* the header's own CRC first: a length is trusted only then, so a chunk
     * running past the end of the file is a cut, not damage */
    if (memcmp(h, chunk_magic, 4) != 0 || rb_cache_crc32(h, 16) != le32(h + 16) || packed > RB_CACHE_MAX_CHUNK_BYTES ||
        inflated > RB_CACHE_MAX_CHUNK_BYTES) {
        snprintf(detail, detail_size, "a damaged chunk at byte %llu (its header: mark, sizes or CRC)",
                 (unsigned long long)f->at);
        *why = detail;
        return -1;
    }
    if (f->size - f->at - sizeof h < packed) return 0; /* cut inside the chunk */
    /* checked before a byte is inflated: what a chunk gives is at most a
     * small multiple of what the file holds for it */
    if (inflated > inflation_limit(packed)) {
        snprintf(detail, detail_size,
                 "a chunk at byte %llu that inflates %u stored bytes to %u, past the most a cache's chunk may (%d "
                 "times its stored bytes and %d more)",
                 (unsigned long long)f->at, packed, inflated, RB_CACHE_INFLATION, RB_CACHE_INFLATION_SLACK);
        *why = detail;
        return -1;
    }
    if (!reserve(&f->stored, &f->stored_cap, packed ? packed : 1) ||
        !reserve(&f->raw, &f->raw_cap, inflated ? inflated : 1)) {
        *why = "out of memory";
        return -1;
    }
    if (!read_at(f, f->stored, packed)) return 0;
    if (rb_cache_crc32(f->stored, packed) != crc) {
        snprintf(detail, detail_size, "a damaged chunk at byte %llu (its CRC does not match)",
                 (unsigned long long)f->at);
        *why = detail;
        return -1;
    }
    const size_t got = ZSTD_decompress(f->raw, inflated, f->stored, packed);
    if (ZSTD_isError(got) || got != inflated) {
        snprintf(detail, detail_size, "a damaged chunk at byte %llu (it does not decompress)",
                 (unsigned long long)f->at);
        *why = detail;
        return -1;
    }
    *raw = f->raw, *raw_bytes = inflated;
    f->next = f->at + sizeof h + packed;
    return 1;
}

void rb_cache_file_close(rb_cache_file *f) {
    if (f->f) fclose(f->f);
    free(f->stored), free(f->raw);
    memset(f, 0, sizeof *f);
}
