/*
 * tw-smp-target: the target side of SMP (TW_CFG_CORES = 2) on the host.
 * Two threads play two cores: each records into its own core's ring
 * (tw_port_core_id, here a thread-local index) while tasks migrate
 * between them; one streamer per core (instance id = core, core 1's
 * secondary), both into one file of UIA packets, drained by the main
 * thread as a collector would. tests/sh/smp_cores.sh decodes the file
 * with `tracewire` and checks every event kept its core.
 *
 *   tw-smp-target OUT.bin [--fill-names]
 *
 * --fill-names registers 60 more queue names than the first three, into a
 * table of TW_CFG_NAMES (48): the refused ones are reported (NAMES_LOST,
 * `tracewire info`). Prints "names lost: N".
 *
 * The script: on each core, rounds of { TaskSwitch to a task, MutexEvent
 * Lock by it on mutex number core + 1 }; task 3 runs on core 0 for the
 * first half and on core 1 for the second (a migration). Prints
 * "core C: N events" per core.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/port.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"

#define ROUNDS 200

static _Thread_local uint32_t my_core;
uint32_t tw_port_core_id(void)
{
  return my_core;
}

static FILE *out;
static int file_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  return fwrite(p, 1, len, out) == len ? 0 : TW_EIO;
}

static unsigned emitted[2];

static void *core_main(void *arg)
{
  my_core = (uint32_t)(uintptr_t)arg;
  uint16_t own = (uint16_t)(10 + my_core); /* a task that stays on this core */
  for (unsigned r = 0; r < ROUNDS; r++) {
    int migrant_here = (r < ROUNDS / 2) == (my_core == 0);
    uint16_t task = migrant_here && r % 2 ? 3 : own;
    tw_task_switch(task);
    tw_mutex(task, (uint16_t)(my_core + 1), TW_MUTEX_Lock);
    emitted[my_core] += 2;
  }
  return NULL;
}

int main(int argc, char **argv)
{
  int fill = argc == 3 && !strcmp(argv[2], "--fill-names");
  if ((argc != 2 && !fill) || !(out = fopen(argv[1], "wb"))) {
    fprintf(stderr, "usage: tw-smp-target OUT.bin [--fill-names]\n");
    return 2;
  }
  static struct tw_streamer s[2];
  for (uint32_t c = 0; c < 2; c++) {
    struct tw_streamer_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    if (tw_source_klog_core(&cfg.source, c))
      return 1;
    cfg.source.freq_hz = tw_port_timestamp_hz();
    cfg.send = file_send;
    cfg.endpoint = 0x0051;
    cfg.module_id = 1;
    cfg.instance_id = (uint16_t)c;
    cfg.initial_mask = 0xFFFFFFFFu;
    cfg.secondary = c != 0;
    if (tw_streamer_init(&s[c], &cfg) || tw_streamer_start(&s[c]))
      return 1;
    (void)tw_streamer_poll(&s[c], 0);
  }
  (void)tw_name_register(TW_OBJ_TASK, 3, "migrant", 4);
  (void)tw_name_register(TW_OBJ_TASK, 10, "stays0", 2);
  (void)tw_name_register(TW_OBJ_TASK, 11, "stays1", 2);
  for (uint16_t q = 1; fill && q <= 60; q++)
    (void)tw_name_register(TW_OBJ_QUEUE, q, "q", 0);
  if (fill)
    printf("names lost: %u\n", tw_name_lost());
  pthread_t t[2];
  for (uintptr_t c = 0; c < 2; c++)
    if (pthread_create(&t[c], NULL, core_main, (void *)c))
      return 1;
  for (int c = 0; c < 2; c++)
    pthread_join(t[c], NULL);
  for (int c = 0; c < 2; c++) {
    (void)tw_streamer_stop(&s[c], 1);
    while (tw_streamer_running(&s[c]) || s[c].nwork)
      (void)tw_streamer_poll(&s[c], 0);
    struct tw_logger_stats st;
    tw_logger_stats(tw_klog_logger_of((uint32_t)c), &st);
    printf("core %d: %u events, %u dropped\n", c, emitted[c], st.drops);
  }
  return fclose(out) ? 1 : 0;
}
