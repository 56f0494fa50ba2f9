/*
 * A fresh target-side trace state, for tests and fuzz programs that run the
 * target stack several times in one process: the kernel logger's timer,
 * all events masked off, an empty ring, no names or custom declarations.
 */
#ifndef TW_TARGET_RESET_H
#define TW_TARGET_RESET_H

#include <stdint.h>
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

static inline void tw_target_reset(tw_klog_timer_fn timer)
{
  struct tw_logger_rec rec;
  uint32_t buf[TW_EVENT_MAX_DATA];
  tw_klog_set_timer(timer);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  while (tw_klog_get(&rec, buf, TW_EVENT_MAX_DATA) > 0)
    ;
  tw_name_reset();
  tw_custom_reset();
}

#endif
