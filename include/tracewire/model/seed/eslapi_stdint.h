/*
 * The seed's header name (spec 003: CAInterface.h includes it): the fixed
 * width integers. See tracewire/model/seed/MTI/ModelTraceInterface.h.
 */
#ifndef TRACEWIRE_SEED_ESLAPI_STDINT_H
#define TRACEWIRE_SEED_ESLAPI_STDINT_H
#include <stdint.h>
#endif
