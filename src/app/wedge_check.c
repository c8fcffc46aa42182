/* wedge_check.c - a wedge's variants checked before anything runs (see wedge_check.h). */
#include "wedge_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "run.h"

/* What the scene reader said while a variant was checked: its warnings
 * about keys the wedge added, and the first variant's other warnings. */
typedef struct heard {
    const char *added; /* the paths the wedge added, a line each */
    char refused[512]; /* the first warning about one of them */
    bool pass_on;      /* other warnings go to stderr (the first variant only: they repeat) */
} heard;

static void listen(rb_log_level level, const char *message, void *user) {
    heard *h = user;
    if (level == RB_LOG_INFO) return;
    /* the reader warns "FILE: PATH: unknown key, ignored" */
    for (const char *p = h->added; *p && !h->refused[0];) {
        const size_t len = strcspn(p, "\n");
        char pattern[RB_WEDGE_KEY_SIZE + 32];
        snprintf(pattern, sizeof pattern, ": %.*s: unknown key", (int)len, p);
        if (strstr(message, pattern)) {
            snprintf(h->refused, sizeof h->refused, "%s", message);
            char *ignored = strstr(h->refused, ": unknown key, ignored"); /* not ignored here: the wedge is refused */
            if (ignored) ignored[strlen(": unknown key")] = '\0';
        }
        p += len + (p[len] == '\n');
    }
    if (h->pass_on && !h->refused[0]) fprintf(stderr, "%s\n", message);
}

/* Variant i built as the headless runner builds it. False with the reason in err. */
static bool check_variant(const rb_wedge *w, const rb_registry *registry, uint32_t i, char *err, size_t err_size) {
    char added[4 * RB_WEDGE_KEY_SIZE];
    cJSON *tree = rb_wedge_variant_scene(w, i, added, sizeof added, err, err_size);
    char *text = tree ? cJSON_PrintUnformatted(tree) : NULL;
    cJSON_Delete(tree);
    if (!text) return false;
    heard h = {.added = added, .pass_on = i == 0};
    rb_set_log_fn(listen, &h);
    rb_scene *scene = rb_scene_parse(text, w->scene, registry, err, err_size);
    free(text);
    rb_world_desc base = rb_default_world_desc();
    base.backend = RB_BACKEND_REFERENCE;
    bool ok = scene != NULL;
    if (ok && h.refused[0]) {
        snprintf(err, err_size,
                 "%s, which the wedge cannot set (a key missing from the scene is added only where the scene reader "
                 "takes it)",
                 h.refused);
        rb_scene_destroy(scene);
        ok = false;
    }
    if (ok) { /* memory (rb_stage_fits), the world taking every body, the debris layer: the run takes the scene */
        const uint32_t bodies = scene->body_count;
        rb_run_refusal why = {0};
        rb_run *run = rb_run_create(registry, scene, &base, &why, err, err_size);
        if (!run && why.added < bodies) {
            char said[1024];
            snprintf(said, sizeof said, "%.1000s", err);
            snprintf(err, err_size, "only %u of %u bodies could be added: %s", why.added, bodies, said);
        }
        ok = run != NULL;
        rb_run_destroy(run);
    }
    rb_set_log_fn(NULL, NULL);
    return ok;
}

bool rb_wedge_check(const rb_wedge *w, const rb_registry *registry, char *err, size_t err_size) {
    for (uint32_t i = 0; i < w->variant_count; i++) {
        char why[2048];
        if (check_variant(w, registry, i, why, sizeof why)) continue;
        char name[16], values[512];
        rb_wedge_variant_name(i, name);
        rb_wedge_describe(w, i, values, sizeof values);
        snprintf(err, err_size, "%s: variant %s (%s): %s", w->file, name, values, why);
        return false;
    }
    return true;
}
