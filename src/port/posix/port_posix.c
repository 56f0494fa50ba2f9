/*
 * POSIX port (host; first-class: every host test runs on it).
 *
 * Timestamp: the low 32 bits of the x86 TSC where there is one (a few ns
 * to read, invariant on current CPUs, wraps every ~1.4 s at 3 GHz, so wraps
 * are exercised for real); elsewhere CLOCK_MONOTONIC in ns (wraps every
 * 4.3 s). Ticks for get_wait timeouts are milliseconds.
 *
 * Wait/wake: a Linux futex on the logger's `waiting` word; FUTEX_WAKE is a
 * plain system call, safe from a signal handler (which plays the
 * interrupt in the tests). Other systems poll every millisecond.
 *
 * The "interrupt lock" (needed only for TW_CFG_LOGGER_CRITICAL builds)
 * blocks every signal of the calling thread and takes a spinlock shared by
 * all threads: the host equivalent of PRIMASK on a single core.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include "tracewire/compat/event_logger.h"
#include "tracewire/port.h"

/* The seed returns -EMSGSIZE; the freestanding core cannot see errno.h. */
_Static_assert(TW_CFG_EMSGSIZE == EMSGSIZE,
               "TW_CFG_EMSGSIZE must equal this platform's EMSGSIZE");

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t tw_port_timestamp(void)
{
#ifdef HAVE_TSC
  return (uint32_t)__rdtsc();
#else
  return (uint32_t)mono_ns();
#endif
}

uint32_t tw_port_timestamp_hz(void)
{
#ifdef HAVE_TSC
  static uint32_t hz;
  uint32_t v = __atomic_load_n(&hz, __ATOMIC_RELAXED);
  if (v)
    return v;
  uint64_t n0 = mono_ns(), c0 = __rdtsc(), n1;
  struct timespec d = { 0, 20000000 };
  nanosleep(&d, 0);
  n1 = mono_ns();
  v = (uint32_t)((__rdtsc() - c0) * 1000000000u / (n1 - n0));
  __atomic_store_n(&hz, v, __ATOMIC_RELAXED);
  return v;
#else
  return 1000000000u;
#endif
}

uint32_t tw_port_ticks(void)
{
  return (uint32_t)(mono_ns() / 1000000u);
}

uintptr_t tw_port_thread_id(void)
{
  return (uintptr_t)pthread_self();
}

void tw_port_wait(uint32_t *word, uint32_t expect, uint32_t ticks)
{
  struct timespec ts = { 0, 1000000 };
#if defined(__linux__)
  if (ticks == 0xFFFFFFFFu) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expect, NULL, NULL, 0);
    return;
  }
  ts.tv_sec = ticks / 1000u;
  ts.tv_nsec = (long)(ticks % 1000u) * 1000000L;
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expect, &ts, NULL, 0);
#else
  if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == expect && ticks)
    nanosleep(&ts, 0);
#endif
}

void tw_port_wake(uint32_t *word)
{
#if defined(__linux__)
  int saved = errno; /* we may be in a signal handler */
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  errno = saved;
#else
  (void)word;
#endif
}

static int irq_lock_word;
static _Thread_local unsigned irq_depth;
static _Thread_local sigset_t irq_saved;

uint32_t tw_port_irq_lock(void)
{
  sigset_t all, old;
  /* mask first: a handler that ran between the depth check and the mask
   * would see depth 1 and skip the spinlock */
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  if (irq_depth++ == 0) {
    irq_saved = old;
    while (__atomic_exchange_n(&irq_lock_word, 1, __ATOMIC_ACQUIRE))
      while (__atomic_load_n(&irq_lock_word, __ATOMIC_RELAXED))
        ;
  }
  return 0;
}

void tw_port_irq_unlock(uint32_t key)
{
  (void)key;
  if (--irq_depth == 0) {
    __atomic_store_n(&irq_lock_word, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &irq_saved, 0);
  }
}
