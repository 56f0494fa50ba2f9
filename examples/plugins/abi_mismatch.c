/*
 * A plugin built for another MTI plugin ABI revision, for the loader's
 * refusal test. Its entry point aborts: the host must refuse it from the
 * ABI stamp alone, without ever calling into it.
 */
#include <stdlib.h>
#include "tracewire/mti.h"

TW_MTI_PLUGIN_INTERFACE_WEXP const struct tw_mti_plugin_abi tw_mti_plugin_abi = {
    TW_MTI_ABI_MAGIC, TW_MTI_ABI_REVISION + 1, "future"};

TW_MTI_PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void);
TW_MTI_PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void)
{
  abort();
}
