/*
 * Scripted RTOS traces with known answers, for the analysis tests, the
 * report's browser test, the benchmark and `tw-scenario` (examples/):
 * six tasks with priorities, three interrupts (one nested in another),
 * and every kind of sync object of seed 002 in a fixed 1 ms cycle, with
 * optional planted problems. docs/analyses.md lists the expected results.
 *
 * Tasks (number name prio): 0 idle 0, 1 logger 2, 2 comms 5, 3 control 8,
 * 4 sensor 6, 5 ui 3. Mutexes 1 bus_lock, 2 cfg_lock, 3 log_lock; sem 1
 * adc_ready; event 1 rx_event; msem 1 rx_msem; mevent 1 io_mevent; asem 1
 * flush_asem; rsem 1 buf_pool. IRQs 15 SysTick, 16 ADC, 17 UART.
 *
 * Context: any thread; no allocation except in tw_scn_write (stdio).
 */
#ifndef TRACEWIRE_ANALYSIS_SCENARIO_H
#define TRACEWIRE_ANALYSIS_SCENARIO_H

#include <stdint.h>
#include <stdio.h>
#include "tracewire/event.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_scn_cfg {
  uint64_t cycles;          /* 1 ms cycles (default 20) */
  int64_t inversion_at;     /* cycle that starts the planted inversion, -1 none */
  int deadlock;             /* end with the planted deadlock (comms <-> ui) */
  int64_t drops_at;         /* cycle that starts with a DROPS record (7 events), -1 none */
};

/* Every event, in time order, to fn (a nonzero return stops and is
 * returned). Events use the vocabulary's descriptors, stream 0,
 * endpoint 1, times in ns from 0. */
typedef int (*tw_scn_fn)(void *ctx, const struct tw_event *ev);
int tw_scn_run(const struct tw_scn_cfg *cfg, tw_scn_fn fn, void *ctx);

/* The same as raw UIA event packets (1 GHz clock, SYNC first, names as
 * snapshot NAME records). Returns 0 or a negative TW_E*. */
int tw_scn_write(const struct tw_scn_cfg *cfg, FILE *f);

/* Events in one cycle of the clean script (for sizing benchmarks). */
#define TW_SCN_EVENTS_PER_CYCLE 70

#ifdef __cplusplus
}
#endif

#endif
