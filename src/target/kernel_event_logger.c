/*
 * The kernel event logger: the global ring plus the policy of the seed
 * (which ids may be used, masks, collector exclusion, timestamp source).
 * All policy state is single 32-bit or pointer words read with relaxed
 * atomics: a producer racing a mask or timer change records either with
 * the old or the new setting, never with a torn one.
 */
#include "tracewire/klog.h"
#include "tracewire/port.h"

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
  uint32_t ts = tw_klog_timestamp();
  return r ? r : tw__logger_put(tw_klog_here(), id, &ts, data, n, 0u);
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
  uint32_t ts = timed ? tw_klog_timestamp() : 0u;
  return tw__logger_put(l, id, timed ? &ts : 0, data, n, 0u);
}

static void put_stamped(uint16_t id, uint32_t value)
{
  uint32_t ts = tw_klog_timestamp();
  (void)tw__logger_put(tw_klog_here(), id, &ts, &value, 1u, 0u);
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
