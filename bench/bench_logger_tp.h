/* LTTng-UST tracepoint provider for bench_logger.c: the peer of a 2-word
 * tracewire put is a tracepoint with two 32-bit integer fields. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER twbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_logger_tp.h"

#if !defined(BENCH_LOGGER_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LOGGER_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(twbench, put2,
  LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(uint32_t, a, a)
    lttng_ust_field_integer(uint32_t, b, b)))

#endif

#include <lttng/tracepoint-event.h>
