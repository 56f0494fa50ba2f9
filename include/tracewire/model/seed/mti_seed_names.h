/*
 * The seed's spellings of the MTI functions (spec 003 spells these both
 * ways; tracewire/mti.h uses the GetNumOf... form of its detailed
 * documentation and index), so seed-written plugin code compiles unchanged.
 * Macros, not extra table slots: the tables keep their layout, and only
 * code that includes the seed's header names (include/tracewire/model/seed)
 * sees them.
 */
#ifndef TRACEWIRE_SEED_MTI_SEED_NAMES_H
#define TRACEWIRE_SEED_MTI_SEED_NAMES_H
#include "tracewire/mti.h"

#define GetNumberOfTraceComponents GetNumOfTraceComponents
#define GetNumberOfTraceSources GetNumOfTraceSources
#define GetNumberOfEnumConstants GetNumOfEnumConstants

#endif
