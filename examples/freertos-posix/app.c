/*
 * A small but realistic FreeRTOS application, traced (docs/porting-freertos.md):
 *
 *   sensor (5)   every 5 ms a sample into queue raw_q
 *   filter (4)   raw_q -> filt_q
 *   logger (2)   filt_q; every 8th sample written under mutex bus
 *   display (3)  every 20 ms draws for 1 ms under mutex bus
 *   comms (4)    waits for bit 0 of event group events, set by the
 *                auto-reload timer heartbeat (every 50 ms); formats a
 *                message under mutex bus and sends it through message
 *                buffer msg_buf, one of 2 slots of counting semaphore
 *                tx_slots
 *   uart_tx (3)  msg_buf; gives the slot back
 *   isr_worker (6)  the tick hook's "interrupt" (every 10 ms) gives binary
 *                semaphore tick_sem from the ISR; the worker takes it and
 *                notifies control
 *   control (5)  ulTaskNotifyTake
 *   monitor (1)  every 100 ms creates a task helper (2) that works 1 ms
 *                and deletes itself
 * and the planted problems, every 40 ms from the same start tick, at
 * offsets where nothing else periodic runs (display works at 0 and 20 ms,
 * a helper at 0 or 20: either would keep low from taking first):
 *   inversion through a binary semaphore: low (1) takes res_bsem at 5 ms
 *                and works 4 ms; high (7) wants it at 6 ms; medium (5)
 *                spins 6 ms from 7 ms: high waits for medium, nothing
 *                bounds it (a semaphore has no holder to inherit)
 *   bounded inversion through a mutex: low2 (1) takes res_mutex at 25 ms
 *                and works 4 ms; high2 (7) wants it at 26 ms: low2
 *                inherits 7 until it gives, the wait is bounded by its
 *                critical section
 *   deadlock:    at 100 ms dl_a (2) and dl_b (2) lock lock_a and lock_b
 *                in opposite order, each asking for its second once the
 *                other holds its first: both block forever
 *   ring overflow: at 300 ms the supervisor (9) writes a burst of custom
 *                LogBurst events larger than the ring, with everything
 *                else held off, then lets the collector catch up: the
 *                drops are exact and announced
 *
 * Every operation the trace must show is counted here, where the
 * application does it (APP_COUNTS); tests/sh/freertos_app.sh compares
 * those counts with the recorded trace, exactly. What the kernel decides
 * on its own (blocking, readying, switching) is not counted.
 */
#include <stdio.h>
#include <string.h>

#include "FreeRTOS.h"
#include "event_groups.h"
#include "message_buffer.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "timers.h"

#include "tracewire/freertos.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

#include "app.h"

/* ---- the application's own account ------------------------------------------------ */

/* Where the port traces its tick interrupt itself (Cortex-M: the SysTick
 * handler calls traceISR_ENTER/EXIT), the tick hook already runs inside a
 * traced interrupt; on the POSIX port it marks its "interrupt" itself. */
#ifndef APP_TICK_IS_TRACED
#define APP_TICK_IS_TRACED 0
#endif
#if APP_TICK_IS_TRACED
#define APP_COUNT_ISR(X)
#else
#define APP_COUNT_ISR(X) X(isr_enter, "TaskSwitch", "EnterInt", "-", "-")
#endif

/* counter, event, type, object kind, object name */
#define APP_COUNTS(X)                                                        \
  X(raw_send, "QueueEvent", "Send", "queue", "raw_q")                        \
  X(raw_send_failed, "QueueEvent", "SendFailed", "queue", "raw_q")           \
  X(raw_recv, "QueueEvent", "Receive", "queue", "raw_q")                     \
  X(filt_send, "QueueEvent", "Send", "queue", "filt_q")                      \
  X(filt_send_failed, "QueueEvent", "SendFailed", "queue", "filt_q")         \
  X(filt_recv, "QueueEvent", "Receive", "queue", "filt_q")                   \
  X(bus_lock, "MutexEvent", "Lock", "mutex", "bus")                          \
  X(bus_unlock, "MutexEvent", "Unlock", "mutex", "bus")                      \
  X(resm_lock, "MutexEvent", "Lock", "mutex", "res_mutex")                   \
  X(resm_unlock, "MutexEvent", "Unlock", "mutex", "res_mutex")               \
  X(locka_lock, "MutexEvent", "Lock", "mutex", "lock_a")                     \
  X(lockb_lock, "MutexEvent", "Lock", "mutex", "lock_b")                     \
  X(tick_give, "SemEvent", "Give", "sem", "tick_sem")                        \
  X(tick_take, "SemEventTask", "Take", "sem", "tick_sem")                    \
  X(bsem_give, "SemEvent", "Give", "sem", "res_bsem")                        \
  X(bsem_take, "SemEventTask", "Take", "sem", "res_bsem")                    \
  X(slot_give, "SemEvent", "Give", "sem", "tx_slots")                        \
  X(slot_take, "SemEventTask", "Take", "sem", "tx_slots")                    \
  X(notify, "NotifyEvent", "Notify", "task", "control")                      \
  X(notify_take, "NotifyEvent", "Take", "task", "control")                   \
  X(hb_expired, "TimerEvent", "Expired", "timer", "heartbeat")               \
  X(hb_set, "EventGroupEvent", "SetBits", "egroup", "events")                \
  X(ev_wait_end, "EventGroupEvent", "WaitEnd", "egroup", "events")           \
  X(msg_send, "StreamBufferEvent", "Send", "sbuf", "msg_buf")                \
  X(msg_recv, "StreamBufferEvent", "Receive", "sbuf", "msg_buf")             \
  X(helper_create, "ObjectEvent", "Create", "task", "helper")                \
  X(helper_delete, "ObjectEvent", "Delete", "task", "helper")                \
  APP_COUNT_ISR(X)

#define X(name, ev, type, kind, obj) name,
enum app_count { APP_COUNTS(X) APP_NCOUNTS };
#undef X
static volatile uint32_t counts[APP_NCOUNTS];
static uint32_t burst_emitted;

/* One writer per counter at a time (a task, or the ISR for tick_give). */
#define COUNT(c) (counts[(c)]++)

/* ---- objects and tasks -------------------------------------------------------------- */

#define LOG_BURST_ID 28 /* custom event id: the first one events.def leaves to users */
#define PERIOD 40       /* ms: the planted problems repeat */
#define INV_AT 5        /* ms into the period: the binary-semaphore inversion */
#define BOUNDED_AT 25   /* ms into the period: the mutex inversion inheritance bounds */

static struct tw_freertos_collector *coll;
static uint32_t run_ticks;
static TickType_t t0;
static volatile int isr_on, stopping, holding;
static volatile int helpers_alive;

static QueueHandle_t raw_q, filt_q;
static SemaphoreHandle_t bus, res_mutex, lock_a, lock_b, tick_sem, res_bsem, tx_slots;
static EventGroupHandle_t events;
static TimerHandle_t heartbeat;
static MessageBufferHandle_t msg_buf;
static TaskHandle_t control_task;

#define APP_TASKS(X)                                                         \
  X(sensor, 5) X(filter, 4) X(logger, 2) X(display, 3) X(comms, 4)           \
  X(uart_tx, 3) X(isr_worker, 6) X(control, 5) X(monitor, 1)                 \
  X(low, 1) X(medium, 5) X(high, 7) X(low2, 1) X(high2, 7)

#define X(name, prio) static void name##_main(void *arg); static TaskHandle_t name##_h;
APP_TASKS(X)
#undef X
static TaskHandle_t dl_a_h, dl_b_h;

#define MS(ms) pdMS_TO_TICKS(ms)
#define STACK (configMINIMAL_STACK_SIZE * 2)

/* Work for ms milliseconds of CPU time as the tick counts it. */
static void work(uint32_t ms)
{
  TickType_t end = xTaskGetTickCount() + MS(ms);
  while ((int32_t)(xTaskGetTickCount() - end) < 0)
    ;
}

static void lock(SemaphoreHandle_t m, enum app_count c)
{
  if (xSemaphoreTake(m, portMAX_DELAY) == pdTRUE)
    COUNT(c);
}

static void unlock(SemaphoreHandle_t m, enum app_count c)
{
  if (xSemaphoreGive(m) == pdTRUE)
    COUNT(c);
}

/* Sleeps until tick t (at once if it is past). */
static void sleep_to(TickType_t t)
{
  TickType_t now = xTaskGetTickCount();
  if ((int32_t)(t - now) > 0)
    vTaskDelay(t - now);
}

/* vTaskDelayUntil for tasks that hold_off suspends:
 * - periods missed while suspended are skipped, keeping the phase (a
 *   task catching up on each would keep the lower priorities off the CPU
 *   long enough to starve them);
 * - a resume before the wake time returns early from vTaskDelayUntil with
 *   *last already in the future, after which it would return at once,
 *   every time: the rest of the wait is slept here. */
static void delay_until(TickType_t *last, TickType_t period)
{
  int32_t late = (int32_t)(xTaskGetTickCount() - *last);
  if (late >= (int32_t)period)
    *last += (TickType_t)late / period * period;
  vTaskDelayUntil(last, period);
  sleep_to(*last);
}

/* Wait for the next period of the planted problems, at offset ms into it
 * (the first period starts at t0). */
static void at_offset(TickType_t *last, uint32_t offset)
{
  if (!*last) {
    *last = t0 + MS(offset);
    sleep_to(*last);
  }
  delay_until(last, MS(PERIOD));
}

/* ---- the pipeline --------------------------------------------------------------------- */

static void sensor_main(void *arg)
{
  (void)arg;
  TickType_t last = t0;
  for (uint32_t v = 0;; v++) {
    delay_until(&last, MS(5));
    COUNT(xQueueSend(raw_q, &v, 0) == pdTRUE ? raw_send : raw_send_failed);
  }
}

static void filter_main(void *arg)
{
  (void)arg;
  uint32_t v, acc = 0;
  for (;;) {
    if (xQueueReceive(raw_q, &v, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(raw_recv);
    acc = (acc * 3 + v) / 4;
    COUNT(xQueueSend(filt_q, &acc, 0) == pdTRUE ? filt_send : filt_send_failed);
  }
}

static void logger_main(void *arg)
{
  (void)arg;
  uint32_t v;
  for (unsigned n = 0;; n++) {
    if (xQueueReceive(filt_q, &v, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(filt_recv);
    if (n % 8 == 7) {
      lock(bus, bus_lock);
      unlock(bus, bus_unlock);
    }
  }
}

static void display_main(void *arg)
{
  (void)arg;
  TickType_t last = t0;
  for (;;) {
    delay_until(&last, MS(20));
    lock(bus, bus_lock);
    work(1);
    unlock(bus, bus_unlock);
  }
}

static void heartbeat_cb(TimerHandle_t t)
{
  (void)t;
  COUNT(hb_expired);
  (void)xEventGroupSetBits(events, 1);
  COUNT(hb_set);
}

static void comms_main(void *arg)
{
  (void)arg;
  char msg[32];
  for (unsigned n = 0;; n++) {
    if (!(xEventGroupWaitBits(events, 1, pdTRUE, pdTRUE, portMAX_DELAY) & 1))
      continue;
    COUNT(ev_wait_end);
    lock(bus, bus_lock);
    int len = snprintf(msg, sizeof msg, "heartbeat %u", n);
    unlock(bus, bus_unlock);
    if (xSemaphoreTake(tx_slots, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(slot_take);
    if (xMessageBufferSend(msg_buf, msg, (size_t)len, portMAX_DELAY) > 0)
      COUNT(msg_send);
  }
}

static void uart_tx_main(void *arg)
{
  (void)arg;
  char msg[32];
  for (;;) {
    if (xMessageBufferReceive(msg_buf, msg, sizeof msg, portMAX_DELAY) == 0)
      continue;
    COUNT(msg_recv);
    work(1); /* the bytes go out */
    if (xSemaphoreGive(tx_slots) == pdTRUE)
      COUNT(slot_give);
  }
}

/* ---- the interrupt, notifications ------------------------------------------------------ */

void app_tick_hook(void)
{
  static unsigned n;
  if (!isr_on || ++n % 10)
    return;
#if !APP_TICK_IS_TRACED
  traceISR_ENTER();
  COUNT(isr_enter);
#endif
  if (xSemaphoreGiveFromISR(tick_sem, NULL) == pdTRUE)
    COUNT(tick_give);
#if !APP_TICK_IS_TRACED
  traceISR_EXIT();
#endif
}

static void isr_worker_main(void *arg)
{
  (void)arg;
  for (;;) {
    if (xSemaphoreTake(tick_sem, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(tick_take);
    xTaskNotifyGive(control_task);
    COUNT(notify);
  }
}

static void control_main(void *arg)
{
  (void)arg;
  for (;;) {
    (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    COUNT(notify_take);
    work(0);
  }
}

/* ---- tasks that come and go ------------------------------------------------------------- */

static void helper_main(void *arg)
{
  (void)arg;
  work(1);
  COUNT(helper_delete); /* counted before: vTaskDelete(NULL) does not return */
  __atomic_fetch_sub(&helpers_alive, 1, __ATOMIC_RELAXED);
  vTaskDelete(NULL);
}

static void monitor_main(void *arg)
{
  (void)arg;
  TickType_t last = t0;
  for (;;) {
    delay_until(&last, MS(100));
    if (holding)
      continue; /* the supervisor holds everything off (hold_off) */
    __atomic_fetch_add(&helpers_alive, 1, __ATOMIC_RELAXED);
    if (xTaskCreate(helper_main, "helper", STACK, NULL, 2, NULL) == pdPASS)
      COUNT(helper_create);
    else
      __atomic_fetch_sub(&helpers_alive, 1, __ATOMIC_RELAXED);
  }
}

/* ---- the planted problems ------------------------------------------------------------------ */

static void low_main(void *arg)
{
  (void)arg;
  TickType_t last = 0;
  for (;;) {
    at_offset(&last, INV_AT);
    if (xSemaphoreTake(res_bsem, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(bsem_take);
    work(4);
    if (xSemaphoreGive(res_bsem) == pdTRUE)
      COUNT(bsem_give);
  }
}

static void high_main(void *arg)
{
  (void)arg;
  TickType_t last = 0;
  for (;;) {
    at_offset(&last, INV_AT + 1);
    if (xSemaphoreTake(res_bsem, portMAX_DELAY) != pdTRUE)
      continue;
    COUNT(bsem_take);
    if (xSemaphoreGive(res_bsem) == pdTRUE)
      COUNT(bsem_give);
  }
}

static void medium_main(void *arg)
{
  (void)arg;
  TickType_t last = 0;
  for (;;) {
    at_offset(&last, INV_AT + 2);
    work(6);
  }
}

static void low2_main(void *arg)
{
  (void)arg;
  TickType_t last = 0;
  for (;;) {
    at_offset(&last, BOUNDED_AT);
    lock(res_mutex, resm_lock);
    work(4);
    unlock(res_mutex, resm_unlock);
  }
}

static void high2_main(void *arg)
{
  (void)arg;
  TickType_t last = 0;
  for (;;) {
    at_offset(&last, BOUNDED_AT + 1);
    lock(res_mutex, resm_lock);
    unlock(res_mutex, resm_unlock);
  }
}

static uint8_t dl_holds[2]; /* each deadlock task holds its first lock */

static void deadlock_main(void *arg)
{
  int a_first = arg != NULL;
  vTaskDelayUntil(&(TickType_t){t0}, MS(100));
  lock(a_first ? lock_a : lock_b, a_first ? locka_lock : lockb_lock);
  /* the other holds its first lock before this one asks for its second: a
   * deadlock by construction. A fixed delay was not enough on a loaded
   * host (under sanitizers the POSIX port ran it out before the other task
   * ran at all: one took both locks, no deadlock). */
  __atomic_store_n(&dl_holds[a_first], 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&dl_holds[!a_first], __ATOMIC_RELAXED))
    vTaskDelay(1);
  lock(a_first ? lock_b : lock_a, a_first ? lockb_lock : locka_lock); /* never */
  for (;;)
    vTaskDelay(portMAX_DELAY);
}

/* ---- the supervisor ---------------------------------------------------------------------- */

/* Setup that cannot fail in a working build; configASSERT may be off. */
static void must(int ok, const char *what)
{
  if (!ok) {
    char buf[96];
    snprintf(buf, sizeof buf, "tw-freertos-app: %s failed", what);
    app_platform_log(buf);
    app_platform_finish(1);
  }
}

static void name(enum tw_obj_kind kind, UBaseType_t number, const char *n)
{
  (void)tw_name_register(kind, (uint16_t)number, n, 0);
}

static void make_objects(void)
{
  raw_q = xQueueCreate(8, sizeof(uint32_t));
  filt_q = xQueueCreate(8, sizeof(uint32_t));
  bus = xSemaphoreCreateMutex();
  res_mutex = xSemaphoreCreateMutex();
  lock_a = xSemaphoreCreateMutex();
  lock_b = xSemaphoreCreateMutex();
  tick_sem = xSemaphoreCreateBinary();
  res_bsem = xSemaphoreCreateBinary();
  tx_slots = xSemaphoreCreateCounting(2, 2);
  events = xEventGroupCreate();
  msg_buf = xMessageBufferCreate(128);
  heartbeat = xTimerCreate("heartbeat", MS(50), pdTRUE, NULL, heartbeat_cb);
  must(raw_q && filt_q && bus && res_mutex && lock_a && lock_b && tick_sem && res_bsem &&
           tx_slots && events && msg_buf && heartbeat, "creating the objects");
  vQueueAddToRegistry(raw_q, "raw_q");
  vQueueAddToRegistry(filt_q, "filt_q");
  vQueueAddToRegistry(bus, "bus");
  vQueueAddToRegistry(res_mutex, "res_mutex");
  vQueueAddToRegistry(lock_a, "lock_a");
  vQueueAddToRegistry(lock_b, "lock_b");
  vQueueAddToRegistry(tick_sem, "tick_sem");
  vQueueAddToRegistry(res_bsem, "res_bsem");
  vQueueAddToRegistry(tx_slots, "tx_slots");
  /* FreeRTOS has no names for these: give them tracewire names */
  name(TW_OBJ_EGROUP, uxEventGroupGetNumber(events), "events");
  name(TW_OBJ_SBUF, uxStreamBufferGetStreamBufferNumber(msg_buf), "msg_buf");
  if (xSemaphoreGive(res_bsem) == pdTRUE) /* a binary semaphore starts empty */
    COUNT(bsem_give);
}

static void make_tasks(void)
{
#define X(n, prio) must(xTaskCreate(n##_main, #n, STACK, NULL, prio, &n##_h) == pdPASS, "creating " #n);
  APP_TASKS(X)
#undef X
  control_task = control_h;
  must(xTaskCreate(deadlock_main, "dl_a", STACK, (void *)1, 2, &dl_a_h) == pdPASS, "creating dl_a");
  must(xTaskCreate(deadlock_main, "dl_b", STACK, NULL, 2, &dl_b_h) == pdPASS, "creating dl_b");
}

/* Nothing that is counted may run or record: the interrupt held, the
 * heartbeat stopped (the timer task takes the stop), the application's
 * tasks suspended, the helpers gone. Suspended rather than held off by
 * priority: a task kept ready that long would be starving, and the
 * analyses would rightly say so (the drain over QEMU's UART takes more
 * than 100 ms). */
static void hold_off(void)
{
  holding = 1;
  isr_on = 0;
  (void)xTimerStop(heartbeat, portMAX_DELAY);
  /* the monitor last: suspended between counting a helper and creating
   * it, it would leave a helper counted that never comes */
#define X(n, prio) if (n##_h != monitor_h) vTaskSuspend(n##_h);
  APP_TASKS(X)
#undef X
  vTaskDelay(MS(5)); /* the timer task takes the stop; the monitor sees holding */
  while (__atomic_load_n(&helpers_alive, __ATOMIC_RELAXED))
    vTaskDelay(1);
  vTaskSuspend(monitor_h);
}

static void let_go(void)
{
  holding = 0;
  (void)xTimerStart(heartbeat, portMAX_DELAY);
#define X(n, prio) vTaskResume(n##_h);
  APP_TASKS(X)
#undef X
  isr_on = 1;
}

/* The ring overflow: a burst bigger than the ring while nothing else that
 * is counted can run (held off, and the supervisor has the top priority),
 * then the collector drains at the supervisor's priority before anything
 * else may record again. */
static void burst(void)
{
  struct tw_logger *l = tw_klog_logger();
  hold_off();
  uint32_t n = 2 * TW_CFG_KLOG_CAPACITY / 3; /* 3 ring words each: twice the ring */
  for (uint32_t i = 0; i < n; i++) {
    tw_custom(LOG_BURST_ID, &i, 1);
    burst_emitted++;
  }
  UBaseType_t prio = uxTaskPriorityGet(coll->task);
  vTaskPrioritySet(coll->task, configMAX_PRIORITIES - 1);
  /* caught up: the ring has room for far more than the application
   * records in a tick (it is never quite empty: these very waits record) */
  while (tw_logger_used(l) > TW_CFG_KLOG_CAPACITY / 8)
    vTaskDelay(1);
  vTaskPrioritySet(coll->task, prio);
  let_go();
}

/* The end: everything that is counted stops before tracing does. */
static void quiesce(void)
{
  stopping = 1;
  hold_off();
}

static void supervisor_main(void *arg)
{
  (void)arg;
  while (!tw_freertos_recording(coll)) /* the host's START */
    vTaskDelay(MS(10));
  make_objects();
  t0 = xTaskGetTickCount(); /* every task's periods count from here */
  make_tasks();
  (void)xTimerStart(heartbeat, portMAX_DELAY);
  isr_on = 1;
  vTaskDelayUntil(&(TickType_t){t0}, MS(300));
  burst();
  vTaskDelayUntil(&(TickType_t){t0}, run_ticks);
  quiesce();
  tw_freertos_request_stop(coll, 1);
  while (tw_freertos_recording(coll) || !tw_freertos_stopped(coll))
    vTaskDelay(MS(5));
  app_platform_finish(0);
  vTaskDelete(NULL);
}

void app_start(struct tw_freertos_collector *collector, uint32_t run_ms)
{
  coll = collector;
  run_ticks = MS(run_ms);
  must(tw_custom_declare(LOG_BURST_ID, 1, "LogBurst seq:U32") == 0, "declaring LogBurst");
  must(xTaskCreate(supervisor_main, "supervisor", STACK, NULL, configMAX_PRIORITIES - 1, NULL) ==
           pdPASS, "creating the supervisor");
}

void app_print_counts(void (*line)(const char *text))
{
  static const char *const what[][4] = {
#define X(name, ev, type, kind, obj) {ev, type, kind, obj},
    APP_COUNTS(X)
#undef X
  };
  char buf[160];
  for (unsigned i = 0; i < APP_NCOUNTS; i++) {
    snprintf(buf, sizeof buf, "tw-app-count %s %s %s %s %lu", what[i][0], what[i][1], what[i][2],
             what[i][3], (unsigned long)counts[i]);
    line(buf);
  }
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  snprintf(buf, sizeof buf, "tw-app-ring emitted %lu dropped %lu", (unsigned long)burst_emitted,
           (unsigned long)st.drops);
  line(buf);
}
