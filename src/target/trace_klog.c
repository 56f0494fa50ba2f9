/*
 * The emitters' two hooks bound to the kernel event logger. Kept apart
 * from trace.c so the name and declaration tables do not pull the logger
 * into a program (a host tool) that only wants them.
 *
 * Puts go to the kernel logger's ring directly: the trace mask was already
 * tested by the emitter, and ids 1..3 (context switch, interrupt, sleep)
 * are legal here although tw_klog_put reserves them for the kernel hooks.
 */
#include "tracewire/direct.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

#if !TW_CFG_DIRECT /* else src/target/direct.c */
uint32_t tw_trace_now(void)
{
  return tw_klog_timestamp();
}

void tw__trace_put(uint16_t id, const uint32_t *words, uint32_t n)
{
  /* void: a full ring is counted by the logger as an exact drop */
  (void)tw_logger_put(tw_klog_here(), id, words, n);
}
#endif
