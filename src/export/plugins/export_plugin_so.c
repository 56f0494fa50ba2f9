/* libtw_export_<format>.so: the built-in exporter plugin of one format
 * (src/export/export_plugin.c) as a loadable MTI plugin. Built once per
 * format with TW_EXPORT_FORMAT defined (src/export/plugins/CMakeLists.txt). */
#include "tracewire/export/export.h"

TW_MTI_PLUGIN_EXPORT(tw_export_plugin_factory(TW_EXPORT_FORMAT))
