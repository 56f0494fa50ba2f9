/*
 * The kernel event logger: the global ring plus the policy of the seed
 * (which ids may be used, masks, collector exclusion, timestamp source).
 * All policy state is single 32-bit or pointer words read with relaxed
 * atomics: a producer racing a mask or timer change records either with
 * the old or the new setting, never with a torn one.
 */
#include "tracewire/direct.h"
#include "tracewire/klog.h"
#include "tracewire/port.h"
#include "tracewire/trace.h"
#include "logger_ring.h"

_Static_assert(TW_CFG_KLOG_CAPACITY >= 2 && TW_CFG_KLOG_CAPACITY <= TW_LOGGER_MAX_WORDS,
               "TW_CFG_KLOG_CAPACITY must be 2..TW_LOGGER_MAX_WORDS words");

#define BUILD_SET ((TW_CFG_KLOG_CONTEXT_SWITCH ? 1u : 0u) |                    \
                   (TW_CFG_KLOG_INTERRUPT ? 2u : 0u) |                          \
                   (TW_CFG_KLOG_SLEEP ? 4u : 0u))

_Static_assert(TW_CFG_CORES >= 1 && TW_CFG_CORES <= 8, "TW_CFG_CORES: 1..8");

/* One ring per core (klog_config.h, TW_CFG_CORES); klog[0] is "the"
 * logger of a single-core build and of the seed's API. */
static uint32_t ring[TW_CFG_CORES][TW_CFG_KLOG_CAPACITY];
#define KLOG(i) TW_LOGGER_INITIALIZER(ring[(i) < TW_CFG_CORES ? (i) : 0], TW_CFG_KLOG_CAPACITY)
static struct tw_logger klog[TW_CFG_CORES] = {
  KLOG(0),
#if TW_CFG_CORES > 1
  KLOG(1),
#endif
#if TW_CFG_CORES > 2
  KLOG(2),
#endif
#if TW_CFG_CORES > 3
  KLOG(3),
#endif
#if TW_CFG_CORES > 4
  KLOG(4),
#endif
#if TW_CFG_CORES > 5
  KLOG(5),
#endif
#if TW_CFG_CORES > 6
  KLOG(6),
#endif
#if TW_CFG_CORES > 7
  KLOG(7),
#endif
};
static tw_klog_timer_fn timer;
static uintptr_t collector;
static uint32_t sleep_ts[TW_CFG_CORES];

#if TW_CFG_CORES > 1
/* a bad index from the port must not write outside the array */
#define CORE() (tw_port_core_id() % TW_CFG_CORES)
#else
#define CORE() 0u
#endif
#if TW_CFG_KLOG_DYNAMIC
static uint32_t mask = TW_CFG_KLOG_INITIAL_MASK;
#endif

struct tw_logger *tw_klog_logger(void)
{
  return &klog[0];
}

struct tw_logger *tw_klog_logger_of(uint32_t core)
{
  return core < TW_CFG_CORES ? &klog[core] : 0;
}

struct tw_logger *tw_klog_here(void)
{
  return &klog[CORE()];
}

uint32_t tw_klog_timestamp(void)
{
  tw_klog_timer_fn fn = __atomic_load_n(&timer, __ATOMIC_RELAXED);
  return fn ? fn() : tw_port_timestamp();
}

uint32_t tw_klog_timestamp_hz(void)
{
  return __atomic_load_n(&timer, __ATOMIC_RELAXED) ? 0u : tw_port_timestamp_hz();
}

/* The kernel rings' general put (the emitters' tw__trace_put and put_now's
 * rare cases, the spec 004 API's stamped events): the logger's put with the
 * rings' capacity a constant and no leading or wraps word, so only the
 * steps it uses are built; the clock, when stamp is given, read once the
 * slot is reserved (logger_ring.h); a full ring and pending drops are
 * counted and carried as by tw__logger_put. */
__attribute__((noinline)) static int klog_put(struct tw_logger *l, uint32_t id, uint32_t (*stamp)(void),
                                              const uint32_t *w, uint32_t n)
{
  return tw__ring_put(l, (uint16_t)id, 0, stamp, w, n, 0u, TW_CFG_KLOG_CAPACITY);
}

#if !TW_CFG_DIRECT /* else src/target/direct.c puts the emitters' events */
/* The timestamp and payload (1 or 2 words) of an event reserved at slot
 * s, then its header. Its words cross the buffer's end only where the
 * capacity is a power of two (tw__ring_reserve_flat): then with a mask. */
__attribute__((always_inline)) static inline void put_words(uint32_t *buf, uint32_t s, uint32_t hdr,
                                                            uint32_t a, uint32_t b)
{
  const uint32_t cap = TW_CFG_KLOG_CAPACITY, size = hdr & 0xFFu;
  uint32_t ts = tw__port_timestamp_inline();
  if (s + size < cap) { /* the usual case: plain stores at fixed offsets */
    uint32_t *p = &buf[s];
    p[1] = ts;
    p[2] = a;
    if (size > 2u)
      p[3] = b;
  } else {
    buf[(s + 1u) & (cap - 1u)] = ts;
    buf[(s + 2u) & (cap - 1u)] = a;
    if (size > 2u)
      buf[(s + 3u) & (cap - 1u)] = b;
  }
  /* release: as in tw__ring_publish */
  __atomic_store_n(&buf[s], hdr, __ATOMIC_RELEASE);
}

/* The emitters' put of any size (tw__trace_put, tw__trace_put_stamped)
 * through klog_put. An event that can never fit (more than
 * 255 data words, or more than the ring: a custom event of a build with
 * too small a ring) is a drop, as in the seed's API, not a reject: a void
 * emitter has no caller to tell, and a reject never reaches the host
 * (docs/instrumentation.md). Without custom events only the vocabulary's
 * emitters put here, and a ring of 2 + TW_EV_MAX_PAYLOAD_WORDS words
 * holds the largest of them (header, timestamp, payload): then it cannot
 * happen, and the streamed configuration does not pay for it. */
#define EMIT_TOO_LARGE_POSSIBLE \
  (TW_CFG_CUSTOM_DECLS || TW_CFG_KLOG_CAPACITY < 2u + TW_EV_MAX_PAYLOAD_WORDS)
static void emit_put(struct tw_logger *l, uint32_t id, uint32_t (*stamp)(void), const uint32_t *w,
                     uint32_t n)
{
  uint32_t words = n + (stamp != 0);
  if (EMIT_TOO_LARGE_POSSIBLE && (words - 1u >= TW_LOGGER_MAX_DATA || words >= TW_CFG_KLOG_CAPACITY)) {
    tw__logger_drop(l); /* what the put would refuse (TW_ETOOBIG) */
    return;
  }
  (void)klog_put(l, id, stamp, w, n);
}

void tw__trace_put(uint16_t id, const uint32_t *words, uint32_t n)
{
  /* void: a full ring is counted by the logger as an exact drop */
  if (words)
    emit_put(&klog[CORE()], id, 0, words, n);
}

void tw__trace_put_stamped(uint16_t id, const uint32_t *words, uint32_t n)
{
  if (words && n)
    emit_put(&klog[CORE()], id, tw_klog_timestamp, words + 1, n - 1u);
}

/* A full ring or pending drops: the general put counts and carries them. */
__attribute__((noinline, cold)) static void put_now_slow(struct tw_logger *l, uint32_t hdr,
                                                         uint32_t a, uint32_t b)
{
  uint32_t w[2] = { a, b };
  (void)klog_put(l, hdr >> 16, tw_klog_timestamp, w, (hdr & 0xFFu) - 1u); /* 1-2 words: fits */
}

/* The emitters' put (trace.h TW_TRACE_PUT_NOW): hdr = id << 16 | size,
 * size = 1 + payload words (1 or 2, in a and b). Everything runs inline on
 * the ring with the rare cases out of line: this is what every generated
 * kernel/RTOS emitter pays (docs/performance.md). With
 * TW_CFG_LOGGER_CRITICAL (one core) the whole put is one interrupt lock,
 * so the event is committed before anything else runs and the emitters'
 * timestamps are in ring order; lock-free, the clock is read after the
 * reservation. With a capacity that is not a power of two, an event that
 * would cross the buffer's end takes the general put too. A custom timer (tw_klog_set_timer) is a call, so its events
 * take the general put, which keeps this one free of calls and so of
 * saved registers; TW_CFG_CM_TIMESTAMP_FN is the inline way to another
 * clock on Cortex-M. */
void tw__trace_put_now(uint32_t hdr, uint32_t a, uint32_t b)
{
  struct tw_logger *l = &klog[CORE()]; /* this core's ring (one: klog[0]) */
  uint32_t *buf = l->buf, need = 1u + (hdr & 0xFFu), s1;
  if (__atomic_load_n(&timer, __ATOMIC_RELAXED)) {
    put_now_slow(l, hdr, a, b);
    return;
  }
  /* the kernel rings' size is a constant here: cheaper index arithmetic */
#if TW_CFG_LOGGER_CRITICAL
  uint32_t key = tw__port_irq_lock_inline();
  s1 = __atomic_load_n(&l->drops_pending, __ATOMIC_RELAXED)
           ? 0u : tw__ring_reserve_flat(l, need, TW_CFG_KLOG_CAPACITY);
  if (s1)
    put_words(buf, s1 - 1u, hdr, a, b);
  tw__port_irq_unlock_inline(key);
#else
  s1 = __atomic_load_n(&l->drops_pending, __ATOMIC_RELAXED)
           ? 0u : tw__ring_reserve_flat(l, need, TW_CFG_KLOG_CAPACITY);
  if (s1)
    put_words(buf, s1 - 1u, hdr, a, b);
#endif
  if (!s1) /* pending drops, a full ring, or the buffer's end: the general put */
    put_now_slow(l, hdr, a, b);
  else
    tw__ring_wake(l);
}
#endif

void tw_klog_set_timer(tw_klog_timer_fn fn)
{
  __atomic_store_n(&timer, fn, __ATOMIC_RELAXED);
}

void tw_klog_set_mask(uint32_t m)
{
#if TW_CFG_KLOG_DYNAMIC
  __atomic_store_n(&mask, m, __ATOMIC_RELAXED);
#else
  (void)m;
#endif
}

uint32_t tw_klog_get_mask(void)
{
#if TW_CFG_KLOG_DYNAMIC
  return __atomic_load_n(&mask, __ATOMIC_RELAXED);
#else
  return ~7u | BUILD_SET;
#endif
}

static inline int enabled(uint32_t id)
{
  if (id - 1u < 3u && !(BUILD_SET >> (id - 1u) & 1u))
    return 0;
#if TW_CFG_KLOG_DYNAMIC
  return id - 1u < TW_KLOG_MAX_DYNAMIC_ID &&
         (__atomic_load_n(&mask, __ATOMIC_RELAXED) >> (id - 1u) & 1u);
#else
  return id != 0;
#endif
}

int tw_klog_enabled(uint32_t id)
{
  return enabled(id);
}

static int check_custom(uint16_t id, const uint32_t *data, uint32_t n)
{
  int r = 0;
  if (id == 0 || (n && !data))
    r = TW_EINVAL;
  else if (id <= TW_KLOG_SLEEP_ID)
    r = TW_EEXIST;
  else if (TW_CFG_KLOG_DYNAMIC && id > TW_KLOG_MAX_DYNAMIC_ID)
    r = TW_ERANGE;
  if (r)
    tw__logger_reject(tw_klog_here());
  return r;
}

int tw_klog_put(uint16_t id, const uint32_t *data, uint32_t n)
{
  int r = check_custom(id, data, n);
  if (!r && !n) {
    tw__logger_reject(tw_klog_here());
    r = TW_EINVAL;
  }
  return r ? r : tw__logger_put(tw_klog_here(), id, 0, data, n, 0u);
}

int tw_klog_put_timed(uint16_t id, const uint32_t *data, uint32_t n)
{
  int r = check_custom(id, data, n);
  return r ? r : klog_put(tw_klog_here(), id, tw_klog_timestamp, data, n);
}

/* The seed's policy for an event that can never fit (seed 004's original):
 * a drop, told with the next event. Here rather than in the ring core,
 * whose native put refuses such an event; any context. */
void tw__logger_drop(struct tw_logger *l)
{
#if TW_CFG_LOGGER_CRITICAL
  uint32_t key = tw_port_irq_lock();
  __atomic_store_n(&l->drops_pending, __atomic_load_n(&l->drops_pending, __ATOMIC_RELAXED) + 1u,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&l->drops_total, __atomic_load_n(&l->drops_total, __ATOMIC_RELAXED) + 1u,
                   __ATOMIC_RELAXED);
  tw_port_irq_unlock(key);
#else
  __atomic_fetch_add(&l->drops_pending, 1u, __ATOMIC_RELAXED);
  __atomic_fetch_add(&l->drops_total, 1u, __ATOMIC_RELAXED);
#endif
}

int tw__klog_put_seed(uint16_t id, const uint32_t *data, uint32_t n, int timed)
{
  struct tw_logger *l = tw_klog_here();
  int r = check_custom(id, data, n);
  if (!r && !n && !timed) {
    tw__logger_reject(l);
    r = TW_EINVAL;
  }
  if (r)
    return r;
  if (1u + (timed != 0) + n > l->cap) {
    tw__logger_drop(l); /* never fits: a drop, as in the original */
    return TW_ENOSPC;
  }
  return klog_put(l, id, timed ? tw_klog_timestamp : 0, data, n);
}

static void put_stamped(uint16_t id, uint32_t value)
{
  (void)klog_put(tw_klog_here(), id, tw_klog_timestamp, &value, 1u);
}

void tw_klog_context_switch(uintptr_t out, uintptr_t in)
{
  uintptr_t c = __atomic_load_n(&collector, __ATOMIC_RELAXED);
  if (!enabled(TW_KLOG_CONTEXT_SWITCH_ID) || (c && (out == c || in == c)))
    return;
  put_stamped(TW_KLOG_CONTEXT_SWITCH_ID, (uint32_t)out);
}

void tw_klog_interrupt(uint32_t irq)
{
  if (enabled(TW_KLOG_INTERRUPT_ID))
    put_stamped(TW_KLOG_INTERRUPT_ID, irq);
}

void tw_klog_sleep_enter(void)
{
  if (enabled(TW_KLOG_SLEEP_ID))
    sleep_ts[CORE()] = tw_klog_timestamp();
}

void tw_klog_sleep_exit(uint32_t irq, uint32_t wraps)
{
  if (!enabled(TW_KLOG_SLEEP_ID))
    return;
  uint32_t core = CORE();
  uint32_t d[3] = { sleep_ts[core], tw_klog_timestamp(), irq };
  (void)tw__logger_put(&klog[core], TW_KLOG_SLEEP_ID, 0, d, 3u, wraps);
}

void tw_klog_register_collector(void)
{
  __atomic_store_n(&collector, tw_port_thread_id(), __ATOMIC_RELAXED);
}

uintptr_t tw_klog_collector(void)
{
  return __atomic_load_n(&collector, __ATOMIC_RELAXED);
}

int tw_klog_get(struct tw_logger_rec *rec, uint32_t *buf, uint32_t cap)
{
  return tw_logger_get(&klog[0], rec, buf, cap);
}

int tw_klog_get_wait(struct tw_logger_rec *rec, uint32_t *buf, uint32_t cap,
                     uint32_t timeout)
{
  return tw_logger_get_wait(&klog[0], rec, buf, cap, timeout);
}

uint32_t tw_klog_take_drops(void)
{
  return tw_logger_take_drops(&klog[0]);
}
