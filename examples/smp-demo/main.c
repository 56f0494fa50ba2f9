/*
 * tw-smp-demo: the workload model's multi-core scenario "smp" (sim/sim_smp.c,
 * docs/sim.md) on a two-core target build (TW_CFG_CORES=2): each core
 * records into its own ring, a streamer per core (instance = core, core
 * 1's secondary) writes UIA packets into one file, drained by a collector
 * task on core 0, as on a FreeRTOS SMP target. tests/sh/smp_sim.sh records
 * the file with `tracewire record --from` and checks the analyses and
 * exports against what the model says it did.
 *
 *   tw-smp-demo OUT.bin [--seed N] [--duration US]
 *
 * Prints, for every task of every core: "task CORE NUMBER NAME CPU_US"
 * (the CPU time the model charged it on that core, the idle task's
 * sleep included) and per core
 * "core C: N events, D dropped".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/port.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_sim.h"

#define NCORES 2

static struct tw_sim cores[NCORES];
static struct tw_streamer streamers[NCORES];
static FILE *out;
static int write_failed;

uint32_t tw_port_core_id(void)
{
  return tw_sim_smp_core();
}

static int file_send(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  if (fwrite(p, 1, len, out) != len)
    write_failed = 1;
  return 0;
}

/* The streamers observe the latest clock of any core: a clock a streamer
 * reads must never step back (the cores' clocks are up to a step apart). */
static uint32_t smp_now(void *ctx)
{
  (void)ctx;
  return (uint32_t)tw_sim_smp_now(cores, NCORES);
}

/* The collector (a task on core 0): every core's ring. */
static int drain(void *ctx)
{
  (void)ctx;
  int moved = 0;
  for (int c = 0; c < NCORES; c++) {
    int n = tw_streamer_poll(&streamers[c], 0);
    if (n > 0)
      moved += n;
  }
  return write_failed ? -1 : moved;
}

static int start_streamers(void)
{
  for (uint32_t c = 0; c < NCORES; c++) {
    struct tw_streamer_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    if (tw_source_klog_core(&cfg.source, c))
      return -1;
    cfg.source.now = smp_now;
    cfg.source.freq_hz = TW_SIM_HZ;
    cfg.send = file_send;
    cfg.endpoint = TW_ADDR_DEFAULT;
    cfg.module_id = 1;
    cfg.instance_id = (uint16_t)c;
    cfg.initial_mask = 0xFFFFFFFFu;
    cfg.secondary = c != 0; /* names go out once, with core 0's */
    if (tw_streamer_init(&streamers[c], &cfg) || tw_streamer_start(&streamers[c]))
      return -1;
    while (streamers[c].nwork)
      (void)tw_streamer_poll(&streamers[c], 0);
  }
  return 0;
}

int main(int argc, char **argv)
{
  uint32_t seed = 1;
  uint64_t duration = tw_sim_smp_duration();
  if (argc < 2) {
    fprintf(stderr, "usage: tw-smp-demo OUT.bin [--seed N] [--duration US]\n");
    return 2;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seed"))
      seed = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--duration"))
      duration = strtoull(argv[i + 1], NULL, 0);
    else {
      fprintf(stderr, "tw-smp-demo: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (!(out = fopen(argv[1], "wb"))) {
    perror(argv[1]);
    return 1;
  }
  tw_sim_smp_init(cores, NCORES, seed);
  if (tw_sim_smp_setup(cores, NCORES) < 0 ||
      tw_sim_set_collector(&cores[0], 10, drain, NULL) < 0) {
    fprintf(stderr, "tw-smp-demo: setting up the scenario failed\n");
    return 1;
  }
  for (int c = 0; c < NCORES; c++)
    tw_sim_register_names(&cores[c]);
  if (start_streamers() < 0) {
    fprintf(stderr, "tw-smp-demo: starting the streamers failed\n");
    return 1;
  }
  tw_sim_smp_run(cores, NCORES, duration, 0);
  for (int c = 0; c < NCORES; c++) {
    (void)tw_streamer_stop(&streamers[c], 1);
    while (tw_streamer_running(&streamers[c]) || streamers[c].nwork)
      (void)tw_streamer_poll(&streamers[c], 0);
  }
  for (int c = 0; c < NCORES; c++) {
    struct tw_logger_stats st;
    tw_logger_stats(tw_klog_logger_of((uint32_t)c), &st);
    printf("core %d: %llu events, %lu dropped\n", c, (unsigned long long)cores[c].nevents,
           (unsigned long)st.drops);
    for (unsigned i = 0; i < cores[c].ntasks; i++) /* the idle task's own time too */
      printf("task %d %u %s %llu\n", c, cores[c].wire[i], cores[c].tasks[i].name,
             (unsigned long long)(cores[c].tasks[i].cpu + (i == 0 ? cores[c].idle : 0)));
  }
  if (fclose(out) || write_failed) {
    fprintf(stderr, "tw-smp-demo: writing %s failed\n", argv[1]);
    return 1;
  }
  return 0;
}
