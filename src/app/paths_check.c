/* paths_check.c - see paths_check.h. */
#include "paths_check.h"

#include <stdio.h>

#include "base/same_path.h"

bool rb_options_check_paths(const rb_options *o, char *err, size_t err_size) {
    const rb_named_path files[] = {
        {"--scene", o->scene, false},         {"--script", o->script, false},     {"--replay", o->replay, false},
        {"--record", o->record, true},        {"--csv", o->export_csv, true},     {"--gltf", o->export_gltf, true},
        {"--events", o->events, true},        {"--save", o->save, true},          {"--screenshot", o->screenshot, true},
        {"--video", o->video, true},
    };
    int a, b;
    if (!rb_paths_clash(files, (int)(sizeof files / sizeof files[0]), &a, &b)) return true;
    snprintf(err, err_size, "%s %s and %s %s are one file: %s", files[a].option, files[a].path, files[b].option,
             files[b].path,
             files[a].output && files[b].output ? "give each output its own name"
                                                : "an output would write over the input; give it another name");
    return false;
}
