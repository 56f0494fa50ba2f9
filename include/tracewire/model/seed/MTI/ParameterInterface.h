/*
 * The seed's header name (spec 003, "File Documentation"), so that plugin
 * code written to the MTI manual compiles unchanged: everything it declares
 * is in tracewire/mti.h, the C rendering (docs/mti.md). Add
 * include/tracewire/model/seed to the include path (CMake: link
 * tw_mti_seed_headers).
 */
#ifndef TRACEWIRE_SEED_MTI_PARAMETERINTERFACE_H
#define TRACEWIRE_SEED_MTI_PARAMETERINTERFACE_H
#include "tracewire/mti.h"
#include "mti_seed_names.h"
#endif
