/* grow.h - an array that grows to what a frame needs and keeps its room
 * (the sandbox's per-frame reads: transforms, particles, debug lines). */
#ifndef RB_GROW_H
#define RB_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes *p, an array of *cap items of elem bytes, hold at least n: realloc'd
 * to half as much again plus 64, so that a slowly growing count reallocates
 * seldom. False, and *p and *cap as they were, when memory runs out. */
bool rb_grow(void **p, uint32_t *cap, uint32_t n, size_t elem);

#endif
