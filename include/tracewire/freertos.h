/*
 * tracewire on FreeRTOS: the collector as a FreeRTOS task
 * (src/port/freertos/tw_freertos.c; docs/porting-freertos.md).
 *
 * The collector owns the streamer and the command service. It blocks on
 * its task notification, given by the logger's wake path when an event
 * arrives (a waiter installed with tw_port_set_waiter), so it costs
 * nothing while the system is quiet and never spins. The transport is the
 * application's: the streamer's send function (UART, TCP, USB ...) and an
 * optional receive function for host commands.
 *
 *     static struct tw_streamer s;        // tw_streamer_init(&s, &cfg) first
 *     static struct tw_cmd k;             // optional: tw_cmd_init(&k, ...)
 *     static struct tw_freertos_collector c = {
 *       .streamer = &s, .cmd = &k, .receive = my_rx, .period_ticks = pdMS_TO_TICKS(10) };
 *     tw_freertos_start(&c, "tw", 512, 1); // before or after vTaskStartScheduler
 *
 * SMP: build the target library with TW_CFG_CORES = configNUMBER_OF_CORES;
 * each core records into its own ring (the glue supplies tw_port_core_id
 * from portGET_CORE_ID), streamed as logger instance = core. The
 * collector drains every core's streamer; wakes from inside the kernel
 * are deferred on SMP (tw_freertos.c), so it also wakes every
 * period_ticks.
 *
 * Include after FreeRTOS.h and task.h.
 */
#ifndef TRACEWIRE_FREERTOS_H
#define TRACEWIRE_FREERTOS_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/cmd.h"
#include "tracewire/streamer.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_FREERTOS_RX_BYTES
#define TW_FREERTOS_RX_BYTES 512 /* reassembly buffer for host commands */
#endif

/* Host bytes that arrived since the last call, at most cap of them, into
 * buf; 0 when none. Called by the collector, never blocks. */
typedef size_t (*tw_freertos_rx_fn)(void *ctx, void *buf, size_t cap);

struct tw_freertos_collector {
  struct tw_streamer *streamer;  /* initialised, with the application's send */
  /* SMP (configNUMBER_OF_CORES > 1): the streamers of cores 1.. (source
   * tw_source_klog_core(core), instance_id = core, secondary = 1), in
   * core order; they follow streamer's START, STOP and mask. */
  struct tw_streamer *const *more;
  unsigned nmore;
  struct tw_cmd *cmd;            /* NULL: no host commands */
  tw_freertos_rx_fn receive;     /* NULL: no host commands */
  void *receive_ctx;
  /* The longest the collector blocks without an event: how late a
   * partial packet, a SYNC or a host command may be handled. 0: 10 ms. */
  TickType_t period_ticks;
  /* The collector's account, for other tasks (written by the collector
   * after each round; read with tw_freertos_recording/_stopped). */
  volatile int recording;        /* the streamer is recording */
  volatile int idle;             /* stopped, nothing queued or unsent */
  /* private */
  TaskHandle_t task;
  volatile uint32_t stop_reason; /* 0: none; else reason + 1 */
  size_t rxlen;
  uint8_t rx[TW_FREERTOS_RX_BYTES];
};

/* Install the notification waiter and create the collector task (name,
 * stack depth in words, priority: usually just above idle, so it runs
 * when the application does not; the ring absorbs bursts). Returns 0, or
 * TW_ENOMEM when the task could not be created. Thread context, once. */
int tw_freertos_start(struct tw_freertos_collector *c, const char *name,
                      configSTACK_DEPTH_TYPE stack_words, UBaseType_t priority);

/* The collector task's handle (NULL before it started). Any context. */
TaskHandle_t tw_freertos_collector_task(void);

/* Ask the collector to stop recording, as the host's STOP would: it
 * drains the ring, announces the drops, writes TRACE_STOP (reason, e.g.
 * 1 = application) and flushes. Task context. */
void tw_freertos_request_stop(struct tw_freertos_collector *c, uint32_t reason);
/* 1 while recording (the host's START came); 1 once stopped with
 * everything sent. Any task; the values are those of the collector's last
 * round (it runs at least every period_ticks). */
int tw_freertos_recording(const struct tw_freertos_collector *c);
int tw_freertos_stopped(const struct tw_freertos_collector *c);

#ifdef __cplusplus
}
#endif

#endif
