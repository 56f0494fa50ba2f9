/*
 * tracewire on FreeRTOS: the collector task and how it sleeps.
 *
 * Build it with the application (it needs FreeRTOS.h and the
 * application's FreeRTOSConfig.h, which includes the trace hooks); it
 * also defines the hooks' per-core state and object counters.
 *
 * Sleeping. The logger's consumer sleeps in tw__wait() and producers wake
 * it with tw__wake() (event_logger.c argues the handshake). Here the
 * collector sleeps in ulTaskNotifyTake, so the scheduler runs everything
 * else meanwhile, and a wake gives that notification. The hard part is
 * where wakes come from: a producer is usually a trace hook, i.e. code
 * running inside the kernel, in a critical section, in the tick
 * interrupt, or in the scheduler itself. Giving a notification there:
 *  - from a hook in an interrupt that called traceISR_ENTER (the tick,
 *    application ISRs) or in task context inside a critical section:
 *    vTaskNotifyGiveFromISR is made for that. It nests inside the
 *    kernel's critical section on one core (it only masks interrupts
 *    again), and with the scheduler suspended it parks the collector on
 *    the pending-ready list. The kernel loops that call hooks while they
 *    walk a list (the tick's delayed list, xTaskResumeAll's pending list)
 *    re-read the list head each turn, so taking the collector off its
 *    delayed list under them is safe. Its own events (the notification
 *    and the collector becoming ready) find the logger's waiting flag
 *    already cleared: no recursion.
 *  - from inside vTaskSwitchContext (the switch-in hook sets in_switch) or
 *    from the collector itself (its own blocking is traced): not woken.
 *    Waking there would make the collector's own going to sleep wake it
 *    again, forever. The wake is deferred instead: the waiting flag is set
 *    back, so the next event from anywhere else wakes the collector, and
 *    the deferred events go out with it.
 *  - from an interrupt the hooks do not know (TW_FREERTOS_IN_ISR() true,
 *    isr_depth 0: possibly above configMAX_SYSCALL_INTERRUPT_PRIORITY,
 *    where no FreeRTOS call is allowed): deferred the same way.
 *  - SMP (configNUMBER_OF_CORES > 1): the FromISR call from inside another
 *    core's critical section is not made; every wake is deferred and the
 *    collector wakes at least every period_ticks.
 * A deferred wake costs latency, never an event: the collector also wakes
 * every period_ticks.
 */
#define TW_FREERTOS_DEFINE_COUNTERS
#include "FreeRTOS.h"
#include "task.h"

#include <string.h>

#include "tracewire/cdefs.h"
#include "tracewire/freertos.h"
#include "tracewire/klog.h"
#include "tracewire/port.h"

/* Application interrupts the hooks are not told about (no traceISR_ENTER)
 * are recognised by the port: on Cortex-M define it as
 * xPortIsInsideInterrupt() in FreeRTOSConfig.h. */
#ifndef TW_FREERTOS_IN_ISR
#define TW_FREERTOS_IN_ISR() 0
#endif

TW_STATIC_ASSERT(TW_CFG_CORES == configNUMBER_OF_CORES,
                 "build the target library with TW_CFG_CORES = configNUMBER_OF_CORES");

#if configNUMBER_OF_CORES > 1
uint32_t tw_port_core_id(void)
{
  return (uint32_t)portGET_CORE_ID();
}
#endif

static TaskHandle_t collector;

TaskHandle_t tw_freertos_collector_task(void)
{
  return collector;
}

static uint32_t fr_ticks(void)
{
  return (uint32_t)xTaskGetTickCount();
}

static void fr_wait(uint32_t *word, uint32_t expect, uint32_t ticks)
{
  if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expect)
    return;
  TickType_t t = ticks == TW_WAIT_FOREVER ? portMAX_DELAY : (TickType_t)ticks;
  if (xTaskGetCurrentTaskHandle() == collector)
    (void)ulTaskNotifyTake(pdTRUE, t); /* a wake, a deferred one, or the timeout */
  else /* nobody wakes another task: a tick at a time (callers re-check) */
    vTaskDelay(t == 0 || t == portMAX_DELAY ? 1 : t);
}

static int may_wake_here(void)
{
#if configNUMBER_OF_CORES > 1
  return 0;
#else
  const struct tw_freertos_core *c = &tw_freertos_cores[0];
  if (c->isr_depth)
    return 1;
  if (TW_FREERTOS_IN_ISR())
    return 0;
  return !c->in_switch && xTaskGetCurrentTaskHandle() != collector;
#endif
}

static void fr_wake(uint32_t *word)
{
  TaskHandle_t t = collector;
  if (!t)
    return;
  if (!may_wake_here()) {
    /* deferred: the next producer sees the flag and wakes the collector */
    __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST);
    return;
  }
  vTaskNotifyGiveFromISR(t, NULL);
}

static const struct tw_waiter fr_waiter = {
  .ticks = fr_ticks,
  .wait = fr_wait,
  .wake = fr_wake,
};

/* Host bytes -> whole message packets -> the command service. */
static void pump_commands(struct tw_freertos_collector *c)
{
  if (!c->cmd || !c->receive)
    return;
  size_t n = c->receive(c->receive_ctx, c->rx + c->rxlen, sizeof c->rx - c->rxlen);
  c->rxlen += n;
  while (c->rxlen >= 4) {
    struct tw_pkt p;
    int len = tw_pkt_parse(c->rx, c->rxlen, 0, &p);
    if (len == TW_ETRUNC && c->rxlen < sizeof c->rx)
      break; /* the rest has not arrived */
    if (len < 0)
      len = 4; /* not a packet here: skip a word and look again */
    else
      (void)tw_cmd_receive(c->cmd, c->rx, (size_t)len);
    memmove(c->rx, c->rx + len, c->rxlen - (size_t)len);
    c->rxlen -= (size_t)len;
  }
  (void)tw_cmd_poll(c->cmd);
}

void tw_freertos_request_stop(struct tw_freertos_collector *c, uint32_t reason)
{
  __atomic_store_n(&c->stop_reason, reason + 1u, __ATOMIC_RELEASE);
  if (c->task)
    xTaskNotifyGive(c->task);
}

int tw_freertos_recording(const struct tw_freertos_collector *c)
{
  return c->recording;
}

int tw_freertos_stopped(const struct tw_freertos_collector *c)
{
  return c->idle;
}

/* SMP: the other cores' streamers do what core 0's does. */
static void follow(struct tw_streamer *lead, struct tw_streamer *s)
{
  uint32_t mask = tw_streamer_get_mask(lead);
  if (tw_streamer_get_mask(s) != mask)
    tw_streamer_set_mask(s, mask);
  if (s->nwork)
    return; /* a start or stop still going out */
  if (lead->running && !s->running)
    (void)tw_streamer_start(s);
  else if (!lead->running && s->running)
    (void)tw_streamer_stop(s, lead->stop_reason);
}

static void poll_more(struct tw_freertos_collector *c)
{
  for (unsigned i = 0; i < c->nmore; i++) {
    follow(c->streamer, c->more[i]);
    (void)tw_streamer_poll(c->more[i], 0);
  }
}

/* The state other tasks may ask about, after a round. */
static void publish(struct tw_freertos_collector *c)
{
  int idle = !c->stop_reason;
  for (unsigned i = 0; i <= c->nmore; i++) {
    const struct tw_streamer *s = i ? c->more[i - 1] : c->streamer;
    idle = idle && !s->running && !s->nwork && !s->held && !s->pend &&
           s->fill == TW_STREAMER_HDR_BYTES;
  }
  c->recording = tw_streamer_running(c->streamer);
  c->idle = idle;
}

static void collector_main(void *arg)
{
  struct tw_freertos_collector *c = arg;
  TickType_t period = c->period_ticks ? c->period_ticks : pdMS_TO_TICKS(10);
  if (!period)
    period = 1;
  /* before its first wait, in case it runs before tw_freertos_start returns */
  __atomic_store_n(&collector, xTaskGetCurrentTaskHandle(), __ATOMIC_RELEASE);
  tw_klog_register_collector();
  for (;;) {
    uint32_t stop = __atomic_exchange_n(&c->stop_reason, 0u, __ATOMIC_ACQUIRE);
    if (stop)
      (void)tw_streamer_stop(c->streamer, stop - 1u);
    pump_commands(c);
    (void)tw_streamer_poll(c->streamer, (uint32_t)period);
    poll_more(c);
    publish(c);
  }
}

int tw_freertos_start(struct tw_freertos_collector *c, const char *name,
                      configSTACK_DEPTH_TYPE stack_words, UBaseType_t priority)
{
  TaskHandle_t t = NULL;
  c->rxlen = 0;
  tw_port_set_waiter(&fr_waiter);
  if (xTaskCreate(collector_main, name, stack_words, c, priority, &t) != pdPASS)
    return TW_ENOMEM;
  c->task = t;
  __atomic_store_n(&collector, t, __ATOMIC_RELEASE);
  return 0;
}
