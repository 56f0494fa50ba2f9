/*
 * The emitters' clock bound to the kernel event logger. Kept apart from
 * trace.c so the name and declaration tables do not pull the logger into
 * a program (a host tool) that only wants them. The emitters' puts are
 * the kernel logger's (kernel_event_logger.c: tw__trace_put_now,
 * tw__trace_put): they go to the ring directly, the trace mask already
 * tested by the emitter, and ids 1..3 (context switch, interrupt, sleep)
 * are legal there although tw_klog_put reserves them for the kernel hooks.
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
#endif
