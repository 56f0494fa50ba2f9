/*
 * The ring protocol's hot steps as inline functions: the mirror indices,
 * reserve and commit. src/target/event_logger.c (whose design note argues
 * every order used here, and the indices) puts through them, and so does
 * the kernel logger's emitter put (tw__trace_put_now in
 * kernel_event_logger.c), which runs them without a call because it is
 * what every kernel/RTOS emitter pays (docs/performance.md measures it).
 * Internal to src/target.
 */
#ifndef TW_LOGGER_RING_H
#define TW_LOGGER_RING_H

#include "tracewire/logger.h"
#include "tracewire/port.h"

#define TW__HDR_DROPS 0x100u /* header ext bit 0: an exact drops word follows */
#define TW__HDR_WRAPS 0x200u /* header ext bit 1: a wraps word follows */

#define TW__LOAD(p, mo)     __atomic_load_n((p), __ATOMIC_##mo)
#define TW__STORE(p, v, mo) __atomic_store_n((p), (v), __ATOMIC_##mo)

/* ---- mirror indices in [0, 2 cap): compares and subtracts, no modulo ----
 * A caller that knows cap at compile time and it is a power of two (the
 * kernel rings by default) gets a mask for each: with i < 2 cap, i - cap
 * when i >= cap is i & (cap - 1), and arithmetic modulo 2 cap is & (2 cap
 * - 1). The same values; one instruction instead of three. */
#define TW__POW2_CONST(cap) (__builtin_constant_p(cap) && !((cap) & ((cap) - 1u)))

/* The buffer slot of index i in [0, 2 cap). */
__attribute__((always_inline)) static inline uint32_t tw__ring_slot(uint32_t cap, uint32_t i)
{
  if (TW__POW2_CONST(cap))
    return i & (cap - 1u);
  return i >= cap ? i - cap : i;
}

/* Index i advanced by n <= cap words, in [0, 2 cap) again. */
__attribute__((always_inline)) static inline uint32_t tw__ring_advance(uint32_t cap, uint32_t i, uint32_t n)
{
  if (TW__POW2_CONST(cap))
    return (i + n) & (2u * cap - 1u);
  uint32_t j = i + n - 2u * cap; /* < 2 cap <= 2^31 either way: the sign decides */
  return (int32_t)j < 0 ? i + n : j;
}

/* Words in use between tail t and head h. |h - t| < 2 cap <= 2^31, so the
 * sign of the difference says whether head went round first. */
__attribute__((always_inline)) static inline uint32_t tw__ring_used(uint32_t cap, uint32_t h, uint32_t t)
{
  if (TW__POW2_CONST(cap))
    return (h - t) & (2u * cap - 1u);
  uint32_t u = h - t;
  return (int32_t)u < 0 ? u + 2u * cap : u;
}

/* The buffer slot after slot k. */
__attribute__((always_inline)) static inline uint32_t tw__ring_step(uint32_t cap, uint32_t k)
{
  return k + 1u == cap ? 0u : k + 1u;
}

/* Wake a consumer sleeping in get_wait (event_logger.c; out of line). */
void tw__logger_wake(struct tw_logger *l);

/* Claim indices [*h, *h + need) or return 0 (full, or need > capacity),
 * with interrupts locked by the caller (TW_CFG_LOGGER_CRITICAL). cap is
 * l->cap (a caller that knows it at compile time passes the constant). */
__attribute__((always_inline)) static inline int tw__ring_claim_locked(struct tw_logger *l,
                                                                       uint32_t *h, uint32_t need,
                                                                       uint32_t cap)
{
  *h = TW__LOAD(&l->head, RELAXED);
  if (tw__ring_used(cap, *h, TW__LOAD(&l->tail, ACQUIRE)) + need > cap)
    return 0;
  TW__STORE(&l->head, tw__ring_advance(cap, *h, need), SEQ_CST);
  return 1;
}

/* Claim indices [*h, *h + need) or return 0 (full, or need > capacity).
 * cap as for tw__ring_claim_locked. */
__attribute__((always_inline)) static inline int tw__ring_reserve_cap(struct tw_logger *l, uint32_t *h,
                                                                      uint32_t need, uint32_t cap)
{
#if TW_CFG_LOGGER_CRITICAL
  uint32_t key = tw__port_irq_lock_inline();
  int ok = tw__ring_claim_locked(l, h, need, cap);
  tw__port_irq_unlock_inline(key);
  return ok;
#else
  *h = TW__LOAD(&l->head, RELAXED);
  do {
    /* acquire: the consumer finished with (and zeroed) the words below
     * tail before we may overwrite them */
    if (tw__ring_used(cap, *h, TW__LOAD(&l->tail, ACQUIRE)) + need > cap)
      return 0;
  } while (!__atomic_compare_exchange_n(&l->head, h, tw__ring_advance(cap, *h, need), 1,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return 1;
#endif
}

__attribute__((always_inline)) static inline int tw__ring_reserve(struct tw_logger *l, uint32_t *h,
                                                                  uint32_t need)
{
  return tw__ring_reserve_cap(l, h, need, l->cap);
}

/* As tw__ring_reserve_cap, for a caller that knows cap at compile time:
 * returns the first slot + 1, or 0 when the ring is full or, unless cap is
 * a power of two (the caller then writes across the end with a mask), when
 * the event would cross the buffer's end (the general put then takes it).
 * With interrupts locked by the caller when TW_CFG_LOGGER_CRITICAL. */
__attribute__((always_inline)) static inline uint32_t tw__ring_reserve_flat(struct tw_logger *l,
                                                                            uint32_t need,
                                                                            uint32_t cap)
{
  uint32_t h = TW__LOAD(&l->head, RELAXED), s;
#if TW_CFG_LOGGER_CRITICAL
  s = tw__ring_slot(cap, h);
  if (tw__ring_used(cap, h, TW__LOAD(&l->tail, ACQUIRE)) + need > cap ||
      (!TW__POW2_CONST(cap) && s + need > cap))
    return 0;
  TW__STORE(&l->head, tw__ring_advance(cap, h, need), SEQ_CST);
#else
  do {
    s = tw__ring_slot(cap, h);
    /* acquire: as in tw__ring_reserve_cap */
    if (tw__ring_used(cap, h, TW__LOAD(&l->tail, ACQUIRE)) + need > cap ||
        (!TW__POW2_CONST(cap) && s + need > cap))
      return 0;
  } while (!__atomic_compare_exchange_n(&l->head, &h, tw__ring_advance(cap, h, need), 1,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
#endif
  return s + 1u;
}

/* Publish the event whose header goes in slot s, its other words written. */
__attribute__((always_inline)) static inline void tw__ring_publish(struct tw_logger *l, uint32_t s,
                                                                   uint32_t hdr)
{
  /* release: the words written before are visible before the consumer
   * sees hdr */
  TW__STORE(&l->buf[s], hdr, RELEASE);
}

/* After publishing: wake a consumer that sleeps in get_wait. */
__attribute__((always_inline)) static inline void tw__ring_wake(struct tw_logger *l)
{
  /* seq_cst: pairs with the consumer's waiting store (event_logger.c) */
  if (TW__LOAD(&l->waiting, SEQ_CST))
    tw__logger_wake(l);
}

/* Publish and wake. */
__attribute__((always_inline)) static inline void tw__ring_commit(struct tw_logger *l, uint32_t s,
                                                                  uint32_t hdr)
{
  tw__ring_publish(l, s, hdr);
  tw__ring_wake(l);
}

#endif
