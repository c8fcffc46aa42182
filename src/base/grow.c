/* grow.c - see grow.h. */
#include "grow.h"

#include <stdlib.h>

bool rb_grow(void **p, uint32_t *cap, uint32_t n, size_t elem) {
    if (n <= *cap) return true;
    uint32_t c = n + n / 2 + 64;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return false;
    *p = q, *cap = c;
    return true;
}
