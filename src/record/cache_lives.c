/* cache_lives.c - each body's frames in a cache read back are one run of
 * frames (docs/cache-format.md, "F": a body is born at the first frame it
 * is in and has died by the first frame after that it is not in), checked
 * once the whole file is read. A file where a body comes back after it died
 * would make every reader that follows a body (an export's tracks hold a
 * pose for each frame from a body's first to its last) hold far more than
 * the file: two frames of a million bodies a million empty frames apart are
 * a small file and a track of a million poses each. */
#include "cache_lives.h"

#include <stdio.h>
#include <stdlib.h>

const char *rb_cache_check_lives(const rb_cache *c, char *detail, size_t detail_size) {
    uint64_t entries = 0;
    for (uint32_t f = 0; f < c->frame_count; f++) entries += c->frames[f].body_count;
    if (entries == 0) return NULL;
    /* an open-addressed table of the ids seen (at most half full): the last frame each was in */
    uint64_t slots = 64;
    while (slots < 2 * entries) slots *= 2;
    uint64_t *keys = malloc(sizeof *keys * slots);
    uint32_t *last = malloc(sizeof *last * slots);
    if (!keys || !last) {
        free(keys), free(last);
        return "out of memory";
    }
    for (uint64_t h = 0; h < slots; h++) last[h] = UINT32_MAX;
    const char *why = NULL;
    for (uint32_t f = 0; f < c->frame_count && !why; f++)
        for (uint32_t b = 0; b < c->frames[f].body_count; b++) {
            const rb_body_id id = c->frames[f].bodies[b].id;
            const uint64_t key = (uint64_t)id.generation << 32 | id.slot;
            uint64_t h = (key * 0x9E3779B97F4A7C15ull) & (slots - 1);
            while (last[h] != UINT32_MAX && keys[h] != key) h = (h + 1) & (slots - 1);
            if (last[h] == f) {
                snprintf(detail, detail_size, "body (slot %u, generation %u) twice in frame %u", id.slot, id.generation,
                         f);
                why = detail;
                break;
            }
            if (last[h] != UINT32_MAX && last[h] + 1 != f) {
                snprintf(detail, detail_size,
                         "body (slot %u, generation %u) in frame %u after it died (it was last in frame %u)", id.slot,
                         id.generation, f, last[h]);
                why = detail;
                break;
            }
            keys[h] = key, last[h] = f;
        }
    free(keys), free(last);
    return why;
}
