/*
 * The event logger ring: many producers (threads and interrupt handlers),
 * one consumer, variable-size events, no locks on the put path.
 *
 * Layout. A ring of `cap` 32-bit words, any size from 2 to 2^30 words
 * (seed 004 takes any buffer size; a power of two is not required). head
 * and tail are "mirror" indices in [0, 2 * cap): slot(i) is i or i - cap,
 * the words in use are head - tail (plus 2 * cap when head < tail), so the
 * full and empty states need no spare slot (head == tail is empty, a
 * difference of cap is full). Every wrap is a compare and a subtract,
 * never a modulo (a division on Cortex-M), and an event that does not
 * cross the end of the buffer (nearly all) is written with plain
 * consecutive stores. An event occupies
 *     header | [drops] | [wraps] | data[0..size-1]
 * header = id << 16 | ext << 8 | size, with size >= 1 so a committed
 * header is never 0, and ext bits announcing the optional exact
 * drop-count and wraps words. Words of the ring are 0 whenever they are
 * free: init zeroes them and the consumer zeroes each event it retires.
 *
 * Put. (1) Reserve: CAS head from h to h + need (wrapped) provided
 * used + need <= cap. (2) Write the extension and data words with plain
 * stores; nobody else reads them yet. (3) Commit: store the header with
 * release. A producer preempted (by an interrupt or the scheduler)
 * between (1) and (3) leaves a 0 header: the consumer stops there and
 * events reserved later wait behind it, so FIFO order is reservation order
 * and a half-written event is never read.
 *
 * Get. Load the header at tail with acquire; 0 means nothing committed
 * yet. Copy, zero the event's words, then store tail with release.
 *
 * Why these orders suffice:
 *  - header release (put) / header acquire (get): the data words written
 *    before the release are visible to the consumer after the acquire.
 *  - tail release (get) / tail acquire (put): the consumer's reads and
 *    zeroing of retired words happen before a producer reuses them, so a
 *    new event never races the old one and stale words read as 0.
 *  - head needs no ordering for data (the CAS only partitions the ring);
 *    it is seq_cst for the sleep/wake handshake: the consumer stores
 *    waiting = 1 and then loads head (both seq_cst); a producer CASes head
 *    and later loads waiting (both seq_cst). In the single total order one
 *    of them sees the other: either the consumer sees the reservation and
 *    polls instead of sleeping, or the producer sees waiting and wakes it
 *    after its commit. No lost wake-up, and the put path pays one CAS: on
 *    x86 the seq_cst load is a plain mov.
 *  - drops: a failed put adds itself (and any count it had claimed) to
 *    drops_pending; the next put that finds it nonzero exchanges it for 0
 *    and carries it in its drops word. Every drop lands in exactly one
 *    event or stays pending (visible in the stats): retrieved + dropped ==
 *    produced holds exactly. An event that fills the whole ring has no
 *    room for a drops word, yet it must carry the count like any other
 *    (the seed's ring keeps it in the header): it puts the count in
 *    whole_drops instead. Only an event reserved in an empty ring can fill
 *    it, and no other event can be reserved until the consumer retires
 *    it, so that one field is owned exactly like the ring's words (written
 *    before the header's release, read after its acquire, zeroed and free
 *    again after the tail's release); the consumer reads it for every
 *    event without a drops word, and it is 0 for all but that one.
 *
 * Cost: the common put is one relaxed load, one acquire load, one CAS,
 * n + 1 stores and one load. Speed-optimised builds (hosts) also get a
 * specialised tw_logger_put for that common case, with the rare cases
 * (bad arguments, pending drops, a full ring, a sleeping consumer, an event
 * across the buffer end) out of line; -Os builds keep the one general path.
 * Where a 32-bit CAS is not lock-free (Cortex-M0) TW_CFG_LOGGER_CRITICAL
 * does the same steps under tw_port_irq_lock().
 */
#include "tracewire/logger.h"
#include "tracewire/port.h"
/* the mirror indices, reserve and commit, inline: the kernel logger's
 * emitter put (kernel_event_logger.c) runs the same steps */
#include "logger_ring.h"

#define HDR_DROPS TW__HDR_DROPS
#define HDR_WRAPS TW__HDR_WRAPS
#define LOAD TW__LOAD
#define STORE TW__STORE

#define xchg tw__ring_xchg
#define add tw__ring_add

#define slot tw__ring_slot
#define advance tw__ring_advance
#define used tw__ring_used
#define step tw__ring_step

/* The buffer slot `off` words after slot s (off < cap: within one event). */
static inline uint32_t at(uint32_t cap, uint32_t s, uint32_t off)
{
  return slot(cap, s + off);
}

int tw_logger_init(struct tw_logger *l, uint32_t *buffer, uint32_t words)
{
  if (!l || !buffer || words < 2 || words > TW_LOGGER_MAX_WORDS)
    return TW_EINVAL;
  for (uint32_t i = 0; i < words; i++)
    buffer[i] = 0;
  *l = (struct tw_logger)TW_LOGGER_INITIALIZER(buffer, words);
  return 0;
}

void tw__logger_reject(struct tw_logger *l)
{
  add(&l->rejects, 1u);
}

void tw__logger_wake(struct tw_logger *l)
{
  if (xchg(&l->waiting, 0u))
    tw__wake(&l->waiting);
}

/* Claim [h, h + need) or return 0 with *h unchanged in meaning. */
#define reserve tw__ring_reserve

int tw__logger_put(struct tw_logger *l, uint16_t id, const uint32_t *first,
                   const uint32_t *data, uint32_t n, uint32_t wraps)
{
  return tw__ring_put(l, id, first, 0, data, n, wraps, l->cap);
}

#if defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__) && !TW_CFG_LOGGER_CRITICAL
#define HOST_FAST_PUT 1
#define COLD __attribute__((noinline, cold))
#else
#define HOST_FAST_PUT 0
#define COLD
#endif

COLD static int put_checked(struct tw_logger *l, uint16_t id,
                            const uint32_t *data, uint32_t n)
{
  if (!l)
    return TW_EINVAL;
  if (!data || !n) {
    tw__logger_reject(l);
    return TW_EINVAL;
  }
  return tw__logger_put(l, id, 0, data, n, 0u);
}

#if HOST_FAST_PUT
/* Hosts (speed over size): the common put, specialised, with every rare
 * case (bad arguments, pending drops, full ring, an event across the
 * buffer's end, a sleeping consumer) left to the general path. Same
 * protocol, fewer registers to save: on x86 every store queued before the
 * CAS must drain before it runs. -Os builds (targets) keep the single
 * general path. */
int tw_logger_put(struct tw_logger *l, uint16_t id, const uint32_t *data,
                  uint32_t n)
{
  if (!l || !data || n - 1u >= TW_LOGGER_MAX_DATA ||
      LOAD(&l->drops_pending, RELAXED))
    return put_checked(l, id, data, n);
  uint32_t need = 1u + n, h = LOAD(&l->head, RELAXED), nh;
  do {
    uint32_t cap = l->cap, t = LOAD(&l->tail, ACQUIRE); /* acquire: as in reserve() */
    if (used(cap, h, t) + need > cap || slot(cap, h) + need > cap)
      return put_checked(l, id, data, n); /* full, too big or across the end */
    nh = h + need; /* within 2 cap: the event does not cross the end */
    nh = nh == 2u * cap ? 0u : nh;
  } while (!__atomic_compare_exchange_n(&l->head, &h, nh, 1,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  uint32_t *b = l->buf + slot(l->cap, h);
  for (uint32_t k = 0; k < n; k++)
    b[1u + k] = data[k];
  /* release: as in tw__logger_put */
  STORE(b, (uint32_t)id << 16 | n, RELEASE);
  tw__ring_wake(l);
  return 0;
}
#else
int tw_logger_put(struct tw_logger *l, uint16_t id, const uint32_t *data,
                  uint32_t n)
{
  return put_checked(l, id, data, n);
}
#endif

int tw_logger_get(struct tw_logger *l, struct tw_logger_rec *rec,
                  uint32_t *buf, uint32_t cap)
{
  struct tw__ring_ev v;
  if (!l || !rec || !buf || !cap)
    return TW_EINVAL;
  if (!tw__ring_peek(l, &v, l->cap))
    return 0;
  uint32_t size = v.hdr & 0xFFu;
  rec->id = (uint16_t)(v.hdr >> 16);
  rec->size = (uint16_t)size;
  if (size > cap) {
    rec->dropped = 0; /* the drops are reported once, with the event itself */
    return TW_EMSGSIZE;
  }
  rec->dropped = v.dropped;
  rec->wraps = v.wraps;
  for (uint32_t i = 0; i < size; i++)
    buf[i] = tw__ring_word(l, &v, i, l->cap);
  tw__ring_retire(l, &v, l->cap);
  return (int)size;
}

int tw_logger_get_wait(struct tw_logger *l, struct tw_logger_rec *rec,
                       uint32_t *buf, uint32_t cap, uint32_t timeout)
{
  uint32_t start = tw__ticks(), polls = 0;
  for (;;) {
    int r = tw_logger_get(l, rec, buf, cap);
    uint32_t spent = tw__ticks() - start;
    if (r)
      return r;
    if (timeout != TW_WAIT_FOREVER && spent >= timeout)
      return 0;
    STORE(&l->waiting, 1u, SEQ_CST);
    /* Nothing reserved: sleep until a producer wakes us. Reserved but not
     * committed (its producer was preempted): that producer may have
     * missed our flag, so poll: a few immediate re-checks (another CPU
     * usually finishes the put within microseconds), then one tick at a
     * time. */
    uint32_t left = timeout == TW_WAIT_FOREVER ? timeout : timeout - spent;
    if (LOAD(&l->head, SEQ_CST) != l->tail)
      left = ++polls < 64u ? 0u : 1u;
    else if (!TW_CFG_LOGGER_WAKE && left)
      left = 1u; /* no put wakes us (logger.h): look again every tick */
    tw__wait(&l->waiting, 1u, left);
    STORE(&l->waiting, 0u, RELAXED);
  }
}

uint32_t tw_logger_take_drops(struct tw_logger *l)
{
  /* a producer that claimed pending drops either carries them in its
   * event or adds them back if its own put fails: none is lost or
   * counted twice whichever side wins */
  return xchg(&l->drops_pending, 0u);
}

void tw_logger_stats(struct tw_logger *l, struct tw_logger_stats *st)
{
  uint32_t cap = l->cap, s = slot(cap, l->tail), queued = 0, hdr;
  uint32_t u = used(cap, LOAD(&l->head, ACQUIRE), l->tail);
  for (uint32_t w = 0; w < u && (hdr = LOAD(&l->buf[at(cap, s, w)], ACQUIRE)) != 0;
       w += tw__ring_event_words(hdr))
    queued++;
  st->retrieved = l->retrieved;
  st->puts = l->retrieved + queued;
  st->drops = LOAD(&l->drops_total, RELAXED);
  st->rejects = LOAD(&l->rejects, RELAXED);
  st->pending_drops = LOAD(&l->drops_pending, RELAXED);
  st->used_words = u;
  st->capacity = cap;
}

void tw_logger_stats_reset(struct tw_logger *l)
{
  l->retrieved = 0;
#if TW_CFG_LOGGER_CRITICAL
  xchg(&l->drops_total, 0u); /* under the lock, as the adds are */
  xchg(&l->rejects, 0u);
#else
  /* a store: the old value is not wanted, and a producer's atomic add
   * lands wholly before or after it, as with an exchange (less code) */
  STORE(&l->drops_total, 0u, RELAXED);
  STORE(&l->rejects, 0u, RELAXED);
#endif
}
