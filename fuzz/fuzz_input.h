/* fuzz_input.h - the harnesses' way of taking typed values off the front of
 * libFuzzer's bytes; past the end every value is 0. */
#ifndef RB_FUZZ_INPUT_H
#define RB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct rb_fuzz_in {
    const uint8_t *p;
    size_t n;
} rb_fuzz_in;

static inline uint8_t fuzz_u8(rb_fuzz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static inline uint16_t fuzz_u16(rb_fuzz_in *in) { return (uint16_t)(fuzz_u8(in) | fuzz_u8(in) << 8); }

static inline uint32_t fuzz_u32(rb_fuzz_in *in) { return (uint32_t)fuzz_u16(in) | (uint32_t)fuzz_u16(in) << 16; }

/* Any bit pattern: NaN, infinities and denormals included. */
static inline float fuzz_f32(rb_fuzz_in *in) {
    uint32_t bits = fuzz_u32(in);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Up to max - 1 bytes (a length byte first) as a NUL-terminated string; the
 * bytes may hold a NUL of their own. */
static inline void fuzz_string(rb_fuzz_in *in, char *out, size_t max) {
    size_t len = fuzz_u8(in) % max;
    if (len > in->n) len = in->n;
    memcpy(out, in->p, len);
    out[len] = '\0';
    in->p += len, in->n -= len;
}

#endif
