/*
 * The cost of tracing FreeRTOS: a queue send + receive pair (no blocking)
 * on the real kernel's POSIX port, built without the tracewire hooks and
 * with them (BENCH_TRACED), recording (2 QUEUE events per pair) and with
 * recording stopped (the hooks' mask test only). bench/run.sh runs both
 * builds and prints the difference per event.
 *
 * One task at the top priority runs batches of BATCH pairs, timed with
 * CLOCK_MONOTONIC; the ring (large enough for a batch) is drained between
 * batches, untimed. Best of ROUNDS batches, ns per pair. The POSIX port
 * masks signals (a system call) in every critical section, so the pair
 * itself costs far more than on a microcontroller: the difference, not the
 * ratio, is the hook's cost.
 *
 * Prints one line: "<label> pair <ns> [recording off <ns>]".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"

#if BENCH_TRACED
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"
struct tw_freertos_core tw_freertos_cores[TW_FREERTOS_CORES];
struct tw_freertos_numbers tw_freertos_numbers;
#endif

#define BATCH 20000u
static unsigned rounds = 30;

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void drain(void)
{
#if BENCH_TRACED
  struct tw_logger_rec r;
  uint32_t buf[8];
  while (tw_klog_get(&r, buf, 8) > 0)
    if (r.dropped) {
      fprintf(stderr, "bench_queue: the ring dropped events: make it larger\n");
      exit(1);
    }
#endif
}

static double best_pair(QueueHandle_t q)
{
  double best = 1e30;
  uint32_t v = 1;
  for (unsigned r = 0; r < rounds; r++) {
    drain();
    double t0 = now_ns();
    for (unsigned i = 0; i < BATCH; i++) {
      (void)xQueueSend(q, &v, 0);
      (void)xQueueReceive(q, &v, 0);
    }
    double ns = (now_ns() - t0) / BATCH;
    if (ns < best)
      best = ns;
  }
  return best;
}

static void bench(void *arg)
{
  (void)arg;
  QueueHandle_t q = xQueueCreate(4, sizeof(uint32_t));
  if (!q)
    exit(1);
#if BENCH_TRACED
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  double on = best_pair(q);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  double off = best_pair(q);
  printf("traced pair %.1f recording-off %.1f\n", on, off);
#else
  printf("plain pair %.1f\n", best_pair(q));
#endif
  fflush(stdout);
  exit(0);
}

int main(int argc, char **argv)
{
  if (argc > 1)
    rounds = (unsigned)atoi(argv[1]) > 0 ? (unsigned)atoi(argv[1]) : rounds;
  if (xTaskCreate(bench, "bench", configMINIMAL_STACK_SIZE, NULL, configMAX_PRIORITIES - 1, NULL) != pdPASS)
    return 1;
  vTaskStartScheduler();
  return 1;
}
