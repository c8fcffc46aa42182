/* cache_lives.h - a cache's bodies each in one run of frames
 * (cache_lives.c), private to src/record. */
#ifndef RB_CACHE_LIVES_H
#define RB_CACHE_LIVES_H

#include <stddef.h>

#include "cache.h"

/* NULL when every body of c's frames is in one run of consecutive frames,
 * once a frame; else what is wrong (in detail, or "out of memory"). Memory
 * in proportion to the frames' bodies, time too. */
const char *rb_cache_check_lives(const rb_cache *c, char *detail, size_t detail_size);

#endif
