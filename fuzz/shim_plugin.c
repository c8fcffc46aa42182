/* shim_plugin.c - a shape plugin that is whatever fuzz_registry made of
 * its input: the entry point hands the host the plugin struct the harness
 * exports as rb_fuzz_plugin_entry, so rb_registry_load_plugin checks it as
 * it checks any library's. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>

#include "rubble_plugin.h"

RB_PLUGIN_EXPORT const rb_plugin *rb_plugin_entry(const rb_host_api *host) {
    rb_plugin_entry_fn made;
    *(void **)&made = dlsym(RTLD_DEFAULT, "rb_fuzz_plugin_entry");
    return made ? made(host) : 0;
}
