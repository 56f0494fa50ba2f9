/* The built-in analysis plugin (src/analysis/plugin.c) as a shared library,
 * for `tracewire run --plugin libanalysis.so --param TRACE.analysis.json=1`. */
#include "tracewire/analysis/analysis.h"

TW_MTI_PLUGIN_EXPORT(tw_an_plugin_factory())
