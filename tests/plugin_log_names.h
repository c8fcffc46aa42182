/* plugin_log_names.h - the plugin ABI's log levels under the names they had
 * before rubble_plugin.h called them rb_plugin_log_level and RB_PLUGIN_LOG_*
 * (rb_log_level and RB_LOG_* are now base/log.h's). For a test that acts as a
 * plugin host and still uses the old names; never together with base/log.h.
 * Goes once no test includes it. */
#ifndef RB_PLUGIN_LOG_NAMES_H
#define RB_PLUGIN_LOG_NAMES_H

#include "rubble_plugin.h"

#ifdef RB_LOG_H
#error "plugin_log_names.h renames base/log.h's rb_log_level: include one or the other"
#endif

#define rb_log_level rb_plugin_log_level
#define RB_LOG_INFO RB_PLUGIN_LOG_INFO
#define RB_LOG_WARN RB_PLUGIN_LOG_WARN
#define RB_LOG_ERROR RB_PLUGIN_LOG_ERROR

#endif
