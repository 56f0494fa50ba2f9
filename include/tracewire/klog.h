/*
 * The kernel event logger: one global tw_logger (capacity
 * TW_CFG_KLOG_CAPACITY words) fed by kernel hooks (context switch,
 * interrupt, sleep), by the RTOS vocabulary emitters (ids 4..17) and by
 * application custom events. Ids are fixed in tracewire/events.def:
 * 1 context switch, 2 interrupt, 3 sleep; mask bit (id - 1) for ids 1..32.
 * The seed names (sys_k_event_logger_*) are in tracewire/compat/
 * event_logger.h. Options: tracewire/klog_config.h. Docs: docs/logger.md.
 *
 * Event payloads (data words as the consumer receives them):
 *   context switch: { timestamp, context_id (thread switched out) }
 *   interrupt:      { timestamp, interrupt_id }
 *   sleep:          { sleep_timestamp, wake_timestamp, interrupt_id };
 *                   rec.wraps = whole 2^32-cycle periods slept on top of
 *                   (wake - sleep) mod 2^32
 *   timed custom:   { timestamp, data... }
 */
#ifndef TRACEWIRE_KLOG_H
#define TRACEWIRE_KLOG_H

#include <stdint.h>
#include "tracewire/klog_config.h"
#include "tracewire/logger.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_KLOG_CONTEXT_SWITCH_ID 1u
#define TW_KLOG_INTERRUPT_ID      2u
#define TW_KLOG_SLEEP_ID          3u
#define TW_KLOG_MAX_DYNAMIC_ID    32u

typedef uint32_t (*tw_klog_timer_fn)(void);

/* The global logger (core 0's on SMP), for statistics (tw_logger_stats /
 * _reset) and for consumers that want the generic calls. Any context. */
struct tw_logger *tw_klog_logger(void);
/* SMP (TW_CFG_CORES > 1): the logger of core `core` (NULL out of range);
 * events recorded on a core go to its logger. Any context. */
struct tw_logger *tw_klog_logger_of(uint32_t core);
/* The logger of the calling core. Any context. */
struct tw_logger *tw_klog_here(void);

/* Current timestamp from the logger's source: the custom timer if one is
 * set, else tw_port_timestamp(). Any context. */
uint32_t tw_klog_timestamp(void);
/* Rate of the default source (tw_port_timestamp_hz); 0 when a custom timer
 * is set (its rate is the application's). Thread context. */
uint32_t tw_klog_timestamp_hz(void);
/* Custom timestamp source; NULL restores the port's. Thread context, best
 * before recording starts (events in flight may use either source). The
 * emitters then take the general put (a function call per event costs
 * more than the put: docs/performance.md); on Cortex-M,
 * TW_CFG_CM_TIMESTAMP_FN is the inline way to another clock. */
void tw_klog_set_timer(tw_klog_timer_fn fn);

/* Dynamic mode only. Without it set is ignored and get returns the fixed
 * set: all bits but those of predefined events disabled at build time.
 * Any context. */
void tw_klog_set_mask(uint32_t mask);
uint32_t tw_klog_get_mask(void);
/* 1 if events of this id are recorded now, else 0. Ids 1..3 also need
 * their build-time switch; in dynamic mode ids 1..32 need their mask bit
 * and other ids give 0. Any context. */
int tw_klog_enabled(uint32_t id);

/* Custom events (also the RTOS vocabulary, ids 4..17). Returns 0;
 * TW_EEXIST for ids 1..3 (predefined); TW_EINVAL for id 0, NULL data or
 * n == 0; TW_ERANGE for ids > 32 in dynamic mode; else as tw_logger_put
 * (TW_ENOSPC dropped, TW_ETOOBIG too large). Refusals are counted as
 * rejects. Does not consult the mask (callers ask tw_klog_enabled first,
 * as the seed prescribes). Any context. */
int tw_klog_put(uint16_t id, const uint32_t *data, uint32_t n);
/* As tw_klog_put with the timestamp as first word; data may be NULL when
 * n == 0 (timestamp-only event). */
int tw_klog_put_timed(uint16_t id, const uint32_t *data, uint32_t n);
/* The seed's sys_k_event_logger_put / put_timed (compat/event_logger.h):
 * as the two above, but an event larger than the whole ring counts as a
 * drop told with the next event (seed 004's original), not as a reject. */
int tw__klog_put_seed(uint16_t id, const uint32_t *data, uint32_t n, int timed);

/* Kernel hooks. Void: an ISR never handles an error; refusals and drops
 * are counted. Each compiles to nothing useful when its event is disabled
 * at build time, and checks the mask in dynamic mode. Any context. */
/* A switch from thread `out` to thread `in` (tw_port_thread_id values);
 * not recorded when either is the registered collector. */
void tw_klog_context_switch(uintptr_t out, uintptr_t in);
void tw_klog_interrupt(uint32_t irq);
/* Sleep: enter stamps the sleep time; exit records the event. `wraps` is
 * the number of whole 2^32 timestamp periods slept beyond what the two
 * timestamps show (a tickless kernel knows it; pass 0 otherwise). Called
 * by the idle code on one CPU, interrupts masked. */
void tw_klog_sleep_enter(void);
void tw_klog_sleep_exit(uint32_t irq, uint32_t wraps);

/* The calling thread becomes the collector: its context switches are not
 * recorded. Thread context. */
void tw_klog_register_collector(void);
/* The registered collector (0: none). Any context. */
uintptr_t tw_klog_collector(void);

/* Consumer side: as tw_logger_get / tw_logger_get_wait on the global
 * logger (exact 32-bit drop count in rec->dropped). Consumer thread. */
int tw_klog_get(struct tw_logger_rec *rec, uint32_t *buf, uint32_t cap);
int tw_klog_get_wait(struct tw_logger_rec *rec, uint32_t *buf, uint32_t cap,
                     uint32_t timeout);
/* As tw_logger_take_drops on the global logger. Consumer thread. */
uint32_t tw_klog_take_drops(void);

#ifdef __cplusplus
}
#endif

#endif
