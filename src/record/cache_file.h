/* cache_file.h - a cache file's outside (docs/cache-format.md), private to
 * src/record: the CRC, the header (version 5's under a CRC of its own), and
 * the chunks, each read from the file and checked against the file's size
 * and its own stored bytes before it is believed, so that what a reader
 * holds and how long it takes stay within a small multiple of the file's
 * size. cache.c writes the chunks' records and reads them back. */
#ifndef RB_CACHE_FILE_H
#define RB_CACHE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Version 5's header: the 32 bytes of versions 2 to 4 and a CRC-32 of them. */
#define RB_CACHE_HEADER_BYTES 36
#define RB_CACHE_OLD_HEADER_BYTES 32
#define RB_CACHE_CHUNK_HEADER_BYTES 20
/* A chunk holds one frame: a chunk larger than this is damage, not data
 * (a 1,000,000-body keyframe and frame are about 140 MB). */
#define RB_CACHE_MAX_CHUNK_BYTES (1u << 30)

/* CRC-32 of IEEE 802.3 (zlib's crc32). */
uint32_t rb_cache_crc32(const uint8_t *p, size_t n);

/* Version 5's header for a run at rate frames a second and step dt. */
void rb_cache_header(uint8_t out[RB_CACHE_HEADER_BYTES], double rate, double dt);

/* The stored bytes of a chunk of raw bytes: zstd at level, or when that
 * would inflate past what a reader takes (RB_CACHE_INFLATION), the same
 * bytes in a zstd frame of raw blocks. Returns the stored size, 0 when out
 * of memory or zstd failed (*why says which); *out (realloc'd, *cap its
 * size) holds them. */
size_t rb_cache_pack(void *zstd_cctx, const uint8_t *raw, size_t raw_bytes, int level, uint8_t **out, size_t *cap,
                     const char **why);

/* A cache being read. */
typedef struct rb_cache_file {
    FILE *f;
    uint64_t size; /* the file's size when opened: nothing past it is read */
    uint64_t at;   /* where the chunk read last begins (after the header before the first) */
    uint64_t next; /* where the chunk after it begins */
    uint32_t version;
    double rate, dt;
    uint8_t *stored, *raw;
    size_t stored_cap, raw_cap;
} rb_cache_file;

/* Opens path, a regular file (a FIFO, a device, a directory or a socket is
 * refused by its type before a byte is read), and reads its header. NULL,
 * or what is wrong (in detail when it needs numbers); f is then closed. */
const char *rb_cache_file_open(rb_cache_file *f, const char *path, char *detail, size_t detail_size);
/* The next chunk's records: 1 with *raw (valid until the next call) and
 * *raw_bytes; 0 where the file ends or was cut (fewer bytes left than a
 * chunk header, or than its stored bytes); -1 with what is wrong (*why,
 * which may point into detail). f->at is where that chunk begins. */
int rb_cache_file_chunk(rb_cache_file *f, const uint8_t **raw, size_t *raw_bytes, const char **why, char *detail,
                        size_t detail_size);
void rb_cache_file_close(rb_cache_file *f);

#endif
