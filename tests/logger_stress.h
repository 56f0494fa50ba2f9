/*
 * Stress driver shared by the concurrency tests of the ring (lock-free and
 * critical-section builds): 4 producer threads plus an "interrupt" (a
 * signal handler run on whichever producer the controller thread hits,
 * so it preempts puts at arbitrary points), one consumer using get_wait.
 * Every event is { producer, sequence }. Checked exactly:
 *  - per producer, sequences arrive strictly increasing (FIFO);
 *  - per producer, events retrieved == its successful puts;
 *  - events retrieved + drops reported (with events, plus still pending)
 *    == events produced == the number asked for.
 * TW_STRESS_EVENTS overrides the total (default given by the test).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracewire/logger.h"

#define NPROD 4
#define NSRC (2 * NPROD) /* threads 0..3; the interrupt on thread i is 4+i */
#define IRQ_BURST 3
#ifndef STRESS_THINK
#define STRESS_THINK 150
#endif

static uint32_t stress_ring[4096];
static struct tw_logger stress_log;
static uint64_t stress_total;
static uint64_t tickets;               /* events produced so far */
static uint64_t ok_puts[NSRC], full_puts[NSRC];
static _Thread_local uint32_t irq_seq, my_index = UINT32_MAX;
static int producers_left;

static int take_ticket(void)
{
  return __atomic_fetch_add(&tickets, 1, __ATOMIC_RELAXED) < stress_total;
}

static void put_one(uint32_t who, uint32_t seq)
{
  uint32_t d[2] = { who, seq };
  int r = tw_logger_put(&stress_log, (uint16_t)(100 + who), d, 2);
  if (r == 0)
    __atomic_fetch_add(&ok_puts[who], 1, __ATOMIC_RELAXED);
  else if (r == TW_ENOSPC)
    __atomic_fetch_add(&full_puts[who], 1, __ATOMIC_RELAXED);
  else
    abort();
}

static void on_irq(int sig)
{
  (void)sig;
  if (my_index == UINT32_MAX)
    return; /* the thread has not taken its index yet */
  /* a handler never nests in itself on one thread, so each thread's
   * interrupt is one FIFO source */
  for (int k = 0; k < IRQ_BURST && take_ticket(); k++)
    put_one(NPROD + my_index, irq_seq++);
}

static void *producer(void *arg)
{
  uint32_t who = (uint32_t)(uintptr_t)arg, seq = 0;
  my_index = who;
  while (take_ticket()) {
    put_one(who, seq++);
    /* think time, so the consumer keeps up part of the time and the ring
     * sees both regimes: draining and overflowing */
    for (volatile int spin = 0; spin < STRESS_THINK; spin++)
      ;
  }
  __atomic_fetch_sub(&producers_left, 1, __ATOMIC_RELEASE);
  return NULL;
}

static pthread_t prod_th[NPROD];
static int ctl_stop;

/* The interrupt controller: round-robin signals at a steady rate. */
static void *controller(void *arg)
{
  (void)arg;
  for (unsigned i = 0; !__atomic_load_n(&ctl_stop, __ATOMIC_ACQUIRE); i++) {
    pthread_kill(prod_th[i % NPROD], SIGUSR1);
    for (volatile int spin = 0; spin < 2000; spin++)
      ;
  }
  return NULL;
}

/* words: the ring's capacity, any size up to 4096 (issue 18: not only
 * powers of two). */
static void run_stress_words(uint64_t default_total, uint32_t words)
{
  const char *env = getenv("TW_STRESS_EVENTS");
  stress_total = env && *env ? strtoull(env, NULL, 10) : default_total;
  memset(ok_puts, 0, sizeof ok_puts);
  memset(full_puts, 0, sizeof full_puts);
  __atomic_store_n(&tickets, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&ctl_stop, 0, __ATOMIC_RELAXED);
  assert_int_equal(tw_logger_init(&stress_log, stress_ring, words), 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_irq;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);

  producers_left = NPROD;
  for (uintptr_t i = 0; i < NPROD; i++)
    assert_int_equal(pthread_create(&prod_th[i], NULL, producer, (void *)i), 0);
  pthread_t ctl;
  assert_int_equal(pthread_create(&ctl, NULL, controller, NULL), 0);

  uint64_t got[NSRC] = { 0 }, dropped = 0;
  int64_t last[NSRC];
  for (int i = 0; i < NSRC; i++)
    last[i] = -1;
  struct tw_logger_rec rec;
  uint32_t out[2];
  for (;;) {
    int done = __atomic_load_n(&producers_left, __ATOMIC_ACQUIRE) == 0;
    int r = tw_logger_get_wait(&stress_log, &rec, out, 2, 10);
    if (r == 0 && done)
      break;  /* every producer finished before this empty read */
    if (r == 0)
      continue;
    assert_int_equal(r, 2);
    assert_true(out[0] < NSRC);
    assert_int_equal(rec.id, 100 + out[0]);
    if ((int64_t)out[1] <= last[out[0]])
      fail_msg("source %u: seq %u after %lld", out[0], out[1], (long long)last[out[0]]);
    last[out[0]] = out[1];
    got[out[0]]++;
    dropped += rec.dropped;
  }
  __atomic_store_n(&ctl_stop, 1, __ATOMIC_RELEASE);
  pthread_join(ctl, NULL);
  for (int i = 0; i < NPROD; i++)
    pthread_join(prod_th[i], NULL);
  signal(SIGUSR1, SIG_DFL);

  struct tw_logger_stats st;
  tw_logger_stats(&stress_log, &st);
  uint64_t retrieved = 0, full = 0, irq_events = 0;
  for (int i = 0; i < NSRC; i++) {
    if (i >= NPROD)
      irq_events += ok_puts[i] + full_puts[i];
    assert_int_equal(got[i], ok_puts[i]);
    retrieved += got[i];
    full += full_puts[i];
  }
  printf("stress: %llu events, %llu retrieved, %llu dropped (%u still pending), "
         "%llu from the interrupt\n", (unsigned long long)stress_total,
         (unsigned long long)retrieved, (unsigned long long)(dropped + st.pending_drops),
         st.pending_drops, (unsigned long long)irq_events);
  assert_int_equal(st.used_words, 0);
  assert_int_equal(dropped + st.pending_drops, full);
  assert_int_equal(retrieved + dropped + st.pending_drops, stress_total);
  assert_int_equal(st.drops, full);
  assert_true(irq_events > 0); /* the interrupts ran */
}

static void run_stress(uint64_t default_total)
{
  run_stress_words(default_total, 4096);
}
