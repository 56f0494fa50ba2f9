/*
 * The seed's PluginInterface.h (spec 003, 6.12): the shared library entry
 * point of a trace plugin, GetCAInterface(), "the entry point and only
 * function of a trace plugin", and its type GetCAInterfaceFunc. A plugin
 * written to the manual defines it with PLUGIN_INTERFACE_WEXP and exports
 * nothing else; tracewire loads such a plugin (docs/mti.md, "Plugins written
 * to the seed"). TW_MTI_PLUGIN_EXPORT defines the same function plus the ABI
 * stamp tracewire checks when it is there.
 */
#ifndef TRACEWIRE_SEED_MTI_PLUGININTERFACE_H
#define TRACEWIRE_SEED_MTI_PLUGININTERFACE_H
#include "tracewire/mti.h"
#include "mti_seed_names.h"

#ifndef PLUGIN_INTERFACE_WEXP
#define PLUGIN_INTERFACE_WEXP TW_MTI_PLUGIN_INTERFACE_WEXP
#endif

#ifdef __cplusplus
extern "C" {
#endif
PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void);
#ifdef __cplusplus
}
#endif

#endif
