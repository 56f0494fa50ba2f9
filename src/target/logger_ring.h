/*
 * The ring protocol's two hot steps, reserve and commit, as inline
 * functions: src/target/event_logger.c (whose design note argues every
 * order used here) puts through them, and so does the kernel logger's
 * emitter put (tw__trace_put_now in kernel_event_logger.c), which runs
 * them without a call because it is what every kernel/RTOS emitter pays
 * (docs/performance.md measures it). Internal to src/target.
 */
#ifndef TW_LOGGER_RING_H
#define TW_LOGGER_RING_H

#include "tracewire/logger.h"
#include "tracewire/port.h"

#define TW__HDR_DROPS 0x100u /* header ext bit 0: an exact drops word follows */
#define TW__HDR_WRAPS 0x200u /* header ext bit 1: a wraps word follows */

#define TW__LOAD(p, mo)     __atomic_load_n((p), __ATOMIC_##mo)
#define TW__STORE(p, v, mo) __atomic_store_n((p), (v), __ATOMIC_##mo)

/* Wake a consumer sleeping in get_wait (event_logger.c; out of line). */
void tw__logger_wake(struct tw_logger *l);

/* Claim words [*h, *h + need) or return 0 (full, or need > capacity),
 * with interrupts locked by the caller (TW_CFG_LOGGER_CRITICAL). */
__attribute__((always_inline)) static inline int tw__ring_claim_locked(struct tw_logger *l,
                                                                       uint32_t *h, uint32_t need)
{
  *h = TW__LOAD(&l->head, RELAXED);
  if (*h + need - TW__LOAD(&l->tail, ACQUIRE) > l->mask + 1u)
    return 0;
  TW__STORE(&l->head, *h + need, SEQ_CST);
  return 1;
}

/* Claim words [*h, *h + need) or return 0 (full, or need > capacity). */
__attribute__((always_inline)) static inline int tw__ring_reserve(struct tw_logger *l, uint32_t *h,
                                                                  uint32_t need)
{
#if TW_CFG_LOGGER_CRITICAL
  uint32_t key = tw__port_irq_lock_inline();
  int ok = tw__ring_claim_locked(l, h, need);
  tw__port_irq_unlock_inline(key);
  return ok;
#else
  uint32_t cap = l->mask + 1u;
  *h = TW__LOAD(&l->head, RELAXED);
  do {
    /* acquire: the consumer finished with (and zeroed) the words below
     * tail before we may overwrite them */
    if (*h + need - TW__LOAD(&l->tail, ACQUIRE) > cap)
      return 0;
  } while (!__atomic_compare_exchange_n(&l->head, h, *h + need, 1,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return 1;
#endif
}

/* Publish the event reserved at h, its other words written. */
__attribute__((always_inline)) static inline void tw__ring_publish(struct tw_logger *l, uint32_t h,
                                                                   uint32_t hdr)
{
  /* release: the words written before are visible before the consumer
   * sees hdr */
  TW__STORE(&l->buf[h & l->mask], hdr, RELEASE);
}

/* After publishing: wake a consumer that sleeps in get_wait. */
__attribute__((always_inline)) static inline void tw__ring_wake(struct tw_logger *l)
{
  /* seq_cst: pairs with the consumer's waiting store (event_logger.c) */
  if (TW__LOAD(&l->waiting, SEQ_CST))
    tw__logger_wake(l);
}

/* Publish and wake. */
__attribute__((always_inline)) static inline void tw__ring_commit(struct tw_logger *l, uint32_t h,
                                                                  uint32_t hdr)
{
  tw__ring_publish(l, h, hdr);
  tw__ring_wake(l);
}

#endif
