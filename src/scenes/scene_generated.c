/* scene_generated.c - scenes of one generator, read as a scene file would
 * be (scene.h): a formation for --formation, and the benchmark pile. */
#include <stdio.h>

#include "scene.h"

/* Towers of 20 (formation 4) stand on contacts of half the default contact
 * time, with the step halved to keep t_c / 5: on the default 8 ms contacts
 * a column of 24 m is too soft to hold itself up and buckles under its own
 * weight, an Euler column (README.md, "Limits"). */
#define TALL_CONTACT_TIME "0.004"
#define TALL_STEP "0.0008"

rb_scene *rb_scene_formation(const rb_registry *registry, const char *shape, int formation, int n, char *err,
                             size_t err_size) {
    char text[640];
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, %s\"generators\": [{\"type\": \"formation\", \"formation\": %d, \"count\": %d, "
             "\"shape\": \"%s\"}]}",
             formation == 4 ? "\"world\": {\"dt\": " TALL_STEP
                              "}, \"materials\": {\"default\": {\"contact_time\": " TALL_CONTACT_TIME "}}, "
                            : "",
             formation, n, shape);
    char name[64];
    snprintf(name, sizeof name, "formation %d", formation);
    return rb_scene_parse(text, name, registry, err, err_size);
}

rb_scene *rb_scene_pile(const rb_registry *registry, const char *shape, int n, char *err, size_t err_size) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"rubble_scene\": 1, \"generators\": [{\"type\": \"pile\", \"count\": %d, \"shape\": \"%s\"}]}", n,
             shape);
    return rb_scene_parse(text, "pile", registry, err, err_size);
}
