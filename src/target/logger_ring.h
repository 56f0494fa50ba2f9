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
  if (TW__POW2_CONST(cap))
    return (k + 1u) & (cap - 1u);
  return k + 1u == cap ? 0u : k + 1u;
}

/* Exchange and add on a counter word: atomic, or under the interrupt lock
 * where a CAS is not lock-free. */
#if TW_CFG_LOGGER_CRITICAL
static inline uint32_t tw__ring_xchg(uint32_t *p, uint32_t v)
{
  uint32_t key = tw_port_irq_lock(), old = TW__LOAD(p, RELAXED);
  TW__STORE(p, v, RELAXED);
  tw_port_irq_unlock(key);
  return old;
}
static inline void tw__ring_add(uint32_t *p, uint32_t v)
{
  uint32_t key = tw_port_irq_lock();
  TW__STORE(p, TW__LOAD(p, RELAXED) + v, RELAXED);
  tw_port_irq_unlock(key);
}
#else
#define tw__ring_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#define tw__ring_add(p, v)  ((void)__atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#endif

/* Count a refused put (event_logger.c). */
void tw__logger_reject(struct tw_logger *l);

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
#if TW_CFG_LOGGER_WAKE
  /* seq_cst: pairs with the consumer's waiting store (event_logger.c) */
  if (TW__LOAD(&l->waiting, SEQ_CST))
    tw__logger_wake(l);
#else
  (void)l; /* nobody sleeps waiting for it (logger.h) */
#endif
}

/* Publish and wake. */
__attribute__((always_inline)) static inline void tw__ring_commit(struct tw_logger *l, uint32_t s,
                                                                  uint32_t hdr)
{
  tw__ring_publish(l, s, hdr);
  tw__ring_wake(l);
}

/* The general put (tw__logger_put; event_logger.c's design note argues
 * each step): an optional leading word (a timestamp: *first, or stamp()
 * read once the slot is reserved), data[0..n), an optional wraps word,
 * carrying the drops pending before it. Inline, so that a caller knowing
 * cap at compile time and passing no first word or wraps (the kernel
 * rings' emitter put, kernel_event_logger.c) gets only the steps it uses,
 * with masks where cap is a power of two. Returns as tw_logger_put. Any
 * context.
 * Why stamp: a clock read before the reservation lets an interrupt that
 * comes in between (a tick that was pending while the clock was read)
 * put its later events first, so the ring goes back in time by the
 * interrupt's length; read after it, only the few instructions from the
 * reservation to the read are open, as in the emitters' fast put. */
__attribute__((always_inline)) static inline int tw__ring_put(struct tw_logger *l, uint16_t id,
                                                              const uint32_t *first,
                                                              uint32_t (*stamp)(void),
                                                              const uint32_t *data, uint32_t n,
                                                              uint32_t wraps, uint32_t cap)
{
  uint32_t size = n + (first != 0 || stamp != 0);
  uint32_t hdr = (uint32_t)id << 16 | size;
  uint32_t need = 1u + size + (wraps != 0), drops = 0, h;

  if (size - 1u >= TW_LOGGER_MAX_DATA || need > cap) {
    tw__logger_reject(l);
    return TW_ETOOBIG;
  }
  if (TW__LOAD(&l->drops_pending, RELAXED) && (drops = tw__ring_xchg(&l->drops_pending, 0u)) != 0) {
    if (need < cap) { /* else the event fills the ring: see the top */
      need++;
      hdr |= TW__HDR_DROPS;
    }
  }
  if (!tw__ring_reserve_cap(l, &h, need, cap)) {
    tw__ring_add(&l->drops_pending, drops + 1u);
    tw__ring_add(&l->drops_total, 1u);
    return TW_ENOSPC;
  }
  uint32_t *b = l->buf, s = tw__ring_slot(cap, h), k = s;
  if (hdr & TW__HDR_DROPS)
    b[k = tw__ring_step(cap, k)] = drops;
  else if (drops)
    l->whole_drops = drops; /* ours until the consumer retires the event */
  if (wraps) {
    b[k = tw__ring_step(cap, k)] = wraps;
    hdr |= TW__HDR_WRAPS;
  }
  if (first)
    b[k = tw__ring_step(cap, k)] = *first;
  else if (stamp)
    b[k = tw__ring_step(cap, k)] = stamp();
  for (uint32_t i = 0; i < n; i++)
    b[k = tw__ring_step(cap, k)] = data[i];
  /* release, then the waiting check (seq_cst, see event_logger.c) */
  tw__ring_commit(l, s, hdr);
  return 0;
}

/* ---- the consumer's side, in place ----------------------------------------
 * tw_logger_get copies an event out through these; the minimal
 * configuration's streamer (streamer.c) writes its records straight from
 * the ring words instead, and an event it cannot write yet simply stays
 * in the ring. Consumer only. */

/* The oldest committed event, where it lies. */
struct tw__ring_ev {
  uint32_t hdr;      /* id << 16 | ext << 8 | size */
  uint32_t slot;     /* of the header */
  uint32_t data;     /* slot of data[0] */
  uint32_t dropped;  /* exact drops just before it */
  uint32_t wraps;    /* its wraps word, or 0 */
};

/* Words of an event in the ring: header, extension words, data. */
__attribute__((always_inline)) static inline uint32_t tw__ring_event_words(uint32_t hdr)
{
  return 1u + (hdr & 0xFFu) + (hdr >> 8 & 1u) + (hdr >> 9 & 1u); /* HDR_DROPS, HDR_WRAPS */
}

/* The header at tail (0: nothing committed there yet), with *v filled
 * when there is one. cap is l->cap (a caller that knows it at compile
 * time passes the constant), here and below. */
__attribute__((always_inline)) static inline uint32_t tw__ring_peek(struct tw_logger *l,
                                                                    struct tw__ring_ev *v,
                                                                    uint32_t cap)
{
  uint32_t *b = l->buf, k = tw__ring_slot(cap, l->tail);
  /* acquire: pairs with the producer's release of the header, so the
   * words read below are the ones it wrote */
  uint32_t hdr = TW__LOAD(&b[k], ACQUIRE);
  if (!hdr)
    return 0;
  v->hdr = hdr;
  v->slot = k;
  /* whole_drops is 0 unless this event fills the ring and carries drops
   * (event_logger.c, at the top) */
  v->dropped = hdr & TW__HDR_DROPS ? b[k = tw__ring_step(cap, k)] : l->whole_drops;
  v->wraps = hdr & TW__HDR_WRAPS ? b[k = tw__ring_step(cap, k)] : 0u;
  v->data = tw__ring_step(cap, k);
  return hdr;
}

/* Data word i of the peeked event (i < its size). */
__attribute__((always_inline)) static inline uint32_t tw__ring_word(const struct tw_logger *l,
                                                                    const struct tw__ring_ev *v,
                                                                    uint32_t i, uint32_t cap)
{
  return l->buf[tw__ring_slot(cap, v->data + i)]; /* data + i < 2 cap */
}

/* Done with the peeked event: its words zeroed (free words read 0) and
 * handed back to the producers. */
__attribute__((always_inline)) static inline void tw__ring_retire(struct tw_logger *l,
                                                                  const struct tw__ring_ev *v,
                                                                  uint32_t cap)
{
  uint32_t n = tw__ring_event_words(v->hdr);
  for (uint32_t i = 0; i < n; i++)
    l->buf[tw__ring_slot(cap, v->slot + i)] = 0u; /* slot + i < 2 cap */
  l->whole_drops = 0u;
  /* release: our reads and zeroing happen before producers reuse the
   * words (whole_drops too) */
  TW__STORE(&l->tail, tw__ring_advance(cap, l->tail, n), RELEASE);
  l->retrieved++;
}

#endif
