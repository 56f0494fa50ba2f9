/*
 * The FreeRTOS hooks against the real kernel (FREERTOS_KERNEL_PATH, POSIX
 * port): a driver task performs each kind of operation FreeRTOS traces,
 * then reads what the hooks put in the kernel event logger and checks the
 * events, their order and their fields. Interrupt-side operations run in
 * the tick hook, between traceISR_ENTER and traceISR_EXIT; allocation
 * failures come from this file's pvPortMalloc, which fails on request;
 * low-power idle from a stand-in portSUPPRESS_TICKS_AND_SLEEP
 * (FreeRTOSConfig.h).
 *
 * Exit 0 when every check passed, 1 with the failing check and the events
 * around it on stderr. Prints how many of the FreeRTOS trace macros the
 * hooks map were seen firing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "event_groups.h"
#include "message_buffer.h"
#include "queue.h"
#include "semphr.h"
#include "stream_buffer.h"
#include "task.h"
#include "timers.h"

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

/* the hooks' state (this program does not link the glue) */
struct tw_freertos_core tw_freertos_cores[TW_FREERTOS_CORES];
struct tw_freertos_numbers tw_freertos_numbers;

/* ---- the harness ----------------------------------------------------------------- */

static int checks;
static const char *case_name = "start";
static void dump(void);

#define CHECK(c)                                                                         \
  do {                                                                                   \
    checks++;                                                                            \
    if (!(c)) {                                                                          \
      fprintf(stderr, "kernel_hooks: %s: %s:%d: CHECK(%s) failed\n", case_name, __FILE__, \
              __LINE__, #c);                                                             \
      dump();                                                                            \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

static volatile int asserts_expected, asserts_seen;
void tw_test_assert_failed(const char *file, int line)
{
  if (asserts_expected) {
    asserts_seen++;
    return;
  }
  fprintf(stderr, "kernel_hooks: %s: configASSERT failed at %s:%d\n", case_name, file, line);
  exit(1);
}

/* pvPortMalloc for the kernel: malloc, or NULL while fail_allocs > 0. */
static volatile int fail_allocs;
void *pvPortMalloc(size_t n)
{
  void *p = NULL;
  vTaskSuspendAll();
  if (fail_allocs > 0)
    fail_allocs--;
  else
    p = malloc(n);
  (void)xTaskResumeAll();
  return p;
}

void vPortFree(void *p)
{
  vTaskSuspendAll();
  free(p);
  (void)xTaskResumeAll();
}

#define MAXEV 16384
struct ev {
  uint16_t id;
  uint32_t w[4]; /* payload words after the timestamp */
};
static struct ev evs[MAXEV];
static int nev, cursor;

#define MASK(bits) ((bits) >= 32 ? 0xFFFFFFFFu : (1u << (bits)) - 1u)
#define FIELD(e, EV, F) \
  (((e)->w[TW_EV_##EV##_##F##_WORD] >> TW_EV_##EV##_##F##_SHIFT) & MASK(TW_EV_##EV##_##F##_BITS))

/* the value of an event's marker field (its type), or -1 */
static int type_of(const struct ev *e)
{
  const struct tw_event_desc *d = tw_event_desc_by_id(e->id);
  if (!d || d->marker_field < 0)
    return -1;
  return (int)tw_field_get(&d->fields[d->marker_field], e->w);
}

static void dump(void)
{
  int from = getenv("KH_ALL") ? 0 : cursor > 30 ? cursor - 30 : 0;
  fprintf(stderr, "kernel_hooks: events from %d of %d (cursor %d):\n", from, nev, cursor);
  for (int i = from; i < nev && i < from + 120; i++) {
    const struct tw_event_desc *d = tw_event_desc_by_id(evs[i].id);
    int t = type_of(&evs[i]);
    const char *tn = t >= 0 && d ? tw_event_enum_name(d, (uint32_t)t) : NULL;
    fprintf(stderr, "  %5d %-18s %-20s %08x %08x %08x\n", i, d ? d->seed_name : "?",
            tn ? tn : "", evs[i].w[0], evs[i].w[1], evs[i].w[2]);
  }
}

/* Everything recorded so far, appended to evs[]. */
static void collect(void)
{
  struct tw_logger_rec r;
  uint32_t buf[8];
  int n;
  while ((n = tw_klog_get(&r, buf, 8)) > 0) {
    if (r.dropped) {
      fprintf(stderr, "kernel_hooks: %s: the ring dropped %u events\n", case_name, r.dropped);
      exit(1);
    }
    if (nev == MAXEV) {
      fprintf(stderr, "kernel_hooks: %s: more than %d events in one case\n", case_name, MAXEV);
      exit(1);
    }
    evs[nev].id = r.id;
    memset(evs[nev].w, 0, sizeof evs[nev].w);
    for (int i = 1; i < n && i < 5; i++)
      evs[nev].w[i - 1] = buf[i];
    nev++;
  }
}

static void begin(const char *name)
{
  collect();
  case_name = name;
  nev = cursor = 0;
}

/* Which (id, type) pairs were matched, for the coverage line. */
static uint8_t seen[64][32];

/* The next event from the cursor with this id and type (-1: any type). */
static struct ev *next(uint16_t id, int type)
{
  collect();
  for (int i = cursor; i < nev; i++)
    if (evs[i].id == id && (type < 0 || type_of(&evs[i]) == type)) {
      cursor = i + 1;
      if (id < 64 && type >= 0 && type < 32)
        seen[id][type] = 1;
      return &evs[i];
    }
  fprintf(stderr, "kernel_hooks: %s: no event id %u type %d after %d\n", case_name, id, type,
          cursor);
  dump();
  exit(1);
}

/* The number of events with this id and type from the cursor on. */
static int count(uint16_t id, int type)
{
  int k = 0;
  collect();
  for (int i = cursor; i < nev; i++)
    k += evs[i].id == id && (type < 0 || type_of(&evs[i]) == type);
  return k;
}

static uint16_t tnum(TaskHandle_t t) { return (uint16_t)uxTaskGetTaskNumber(t); }
static uint16_t qnum(QueueHandle_t q) { return (uint16_t)uxQueueGetQueueNumber(q); }
static uint16_t me(void) { return tnum(xTaskGetCurrentTaskHandle()); }

/* The name registered last for (kind, number), or NULL. */
static const char *name_of(enum tw_obj_kind kind, uint16_t number)
{
  const char *found = NULL;
  for (uint32_t i = 0; i < tw_name_count(); i++) {
    const struct tw_name_entry *e = tw_name_at(i);
    if (e->kind == kind && e->number == number)
      found = e->name;
  }
  return found;
}

static struct ev *expect_create(enum tw_obj_kind kind, uint16_t number, uint8_t variant,
                                uint32_t arg, uint16_t arg2)
{
  struct ev *e = next(TW_EV_OBJECT, TW_OBJECT_Create);
  CHECK(FIELD(e, OBJECT, KIND) == kind && FIELD(e, OBJECT, NUMBER) == number);
  CHECK(FIELD(e, OBJECT, VARIANT) == variant && FIELD(e, OBJECT, ARG) == arg);
  CHECK(FIELD(e, OBJECT, ARG2) == arg2);
  return e;
}

static void expect_delete(enum tw_obj_kind kind, uint16_t number)
{
  struct ev *e = next(TW_EV_OBJECT, TW_OBJECT_Delete);
  CHECK(FIELD(e, OBJECT, KIND) == kind && FIELD(e, OBJECT, NUMBER) == number);
}

static void expect_task(int type, uint16_t task, uint32_t arg)
{
  struct ev *e = next(TW_EV_TASK, type);
  CHECK(FIELD(e, TASK, TASK) == task && FIELD(e, TASK, ARG) == arg);
}

/* ---- interrupts: work the tick hook runs once ---------------------------------------- */

static void (*volatile isr_job)(void);
static volatile int isr_done;

void vApplicationTickHook(void)
{
  void (*job)(void) = isr_job;
  if (!job)
    return;
  isr_job = NULL;
  traceISR_ENTER();
  job();
  traceISR_EXIT();
  isr_done = 1;
}

static void run_in_isr(void (*job)(void))
{
  isr_done = 0;
  isr_job = job;
  while (!isr_done)
    vTaskDelay(1);
}

/* Low-power idle, simulated: see FreeRTOSConfig.h. */
volatile int tw_test_sleep_wanted;
void tw_test_suppress_ticks(uint32_t expected)
{
  (void)expected;
  tw_test_sleep_wanted = 0;
  vTaskStepTick(0);
}

/* ---- tasks -------------------------------------------------------------------------- */

static void park_task(void *arg)
{
  (void)arg;
  for (;;)
    vTaskDelay(portMAX_DELAY);
}

static void exit_task(void *arg)
{
  (void)arg;
  vTaskDelay(2);
  vTaskDelete(NULL);
}

static void case_task_life(void)
{
  begin("task life");
  TaskHandle_t t = NULL;
  CHECK(xTaskCreate(exit_task, "child", configMINIMAL_STACK_SIZE, NULL, 3, &t) == pdPASS);
  uint16_t n = tnum(t);
  CHECK(n > 0 && n < (uint16_t)TW_TASK_SWITCH_EnterInt);
  CHECK(name_of(TW_OBJ_TASK, n) && !strcmp(name_of(TW_OBJ_TASK, n), "child"));
  expect_create(TW_OBJ_TASK, n, 0, 3, 0);
  expect_task(TW_TASK_Ready, n, 0);
  TickType_t now = xTaskGetTickCount();
  vTaskDelay(6); /* the child runs, sleeps 2 ticks, deletes itself */
  expect_task(TW_TASK_Delay, me(), 6);
  struct ev *e = next(TW_EV_TASK, TW_TASK_Deadline);
  CHECK(FIELD(e, TASK, TASK) == me() && FIELD(e, TASK, ARG) >= now + 6);
  e = next(TW_EV_TASK_SWITCH, -1);
  CHECK(FIELD(e, TASK_SWITCH, TASK) == n);
  expect_task(TW_TASK_Delay, n, 2);
  expect_task(TW_TASK_Ready, n, 0);
  expect_delete(TW_OBJ_TASK, n);
  expect_task(TW_TASK_Ready, me(), 0);

  begin("delay until, suspend, resume, priority");
  TickType_t last = xTaskGetTickCount();
  xTaskDelayUntil(&last, 3);
  expect_task(TW_TASK_DelayUntil, me(), last);
  CHECK(xTaskCreate(park_task, "park", configMINIMAL_STACK_SIZE, NULL, 2, &t) == pdPASS);
  vTaskSuspend(t);
  expect_task(TW_TASK_Suspend, tnum(t), 0);
  vTaskResume(t);
  expect_task(TW_TASK_Resume, tnum(t), 0);
  expect_task(TW_TASK_Ready, tnum(t), 0);
  vTaskPrioritySet(t, 4);
  expect_task(TW_TASK_PrioritySet, tnum(t), 4);
  uint16_t parked = tnum(t); /* read before the delete frees the task */
  vTaskDelete(t);
  expect_delete(TW_OBJ_TASK, parked);
}

static TaskHandle_t isr_task;
static void job_resume(void) { (void)xTaskResumeFromISR(isr_task); }

static void case_interrupts(void)
{
  begin("interrupt, resume from it");
  CHECK(xTaskCreate(park_task, "park2", configMINIMAL_STACK_SIZE, NULL, 2, &isr_task) == pdPASS);
  vTaskSuspend(isr_task);
  run_in_isr(job_resume);
  struct ev *e = next(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_EnterInt);
  expect_task(TW_TASK_ResumeFromISR, tnum(isr_task), 0);
  expect_task(TW_TASK_Ready, tnum(isr_task), 0);
  e = next(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_LeaveInt);
  (void)e;
  CHECK(tw_freertos_cores[0].isr_depth == 0);
  vTaskDelete(isr_task);

  begin("ticks");
  TickType_t t0 = xTaskGetTickCount();
  vTaskDelay(3);
  e = next(TW_EV_SCHED, TW_SCHED_Tick);
  CHECK(FIELD(e, SCHED, VALUE) >= t0);
  uint32_t prev = FIELD(e, SCHED, VALUE);
  e = next(TW_EV_SCHED, TW_SCHED_Tick);
  /* one event per tick: the count it had, the same again for a tick that
   * came while the scheduler was suspended (FreeRTOS pends it) */
  CHECK(FIELD(e, SCHED, VALUE) == prev + 1 || FIELD(e, SCHED, VALUE) == prev);

  begin("low-power idle");
  tw_test_sleep_wanted = 1;
  vTaskDelay(10); /* everything blocked: the idle task "sleeps" */
  CHECK(!tw_test_sleep_wanted);
  next(TW_EV_SCHED, TW_SCHED_TickJump);
  e = next(TW_EV_SLEEP, -1);
  CHECK(FIELD(e, SLEEP, INTERRUPT_ID) == 0);
}

/* ---- mutexes ---------------------------------------------------------------------------- */

static SemaphoreHandle_t mtx;
static TaskHandle_t holder;

static void hold_task(void *arg)
{
  (void)arg;
  CHECK(xSemaphoreTake(mtx, portMAX_DELAY) == pdTRUE);
  (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY); /* hold until told */
  CHECK(xSemaphoreGive(mtx) == pdTRUE);
  vTaskDelete(NULL);
}

static void want_task(void *arg)
{
  TickType_t wait = (TickType_t)(uintptr_t)arg;
  if (xSemaphoreTake(mtx, wait) == pdTRUE)
    CHECK(xSemaphoreGive(mtx) == pdTRUE);
  vTaskDelete(NULL);
}

static void case_mutex(void)
{
  begin("mutex: inheritance");
  mtx = xSemaphoreCreateMutex();
  CHECK(mtx);
  uint16_t m = qnum(mtx);
  expect_create(TW_OBJ_MUTEX, m, queueQUEUE_TYPE_MUTEX, 1, 0);
  CHECK(count(TW_EV_MUTEX, TW_MUTEX_Unlock) == 0); /* the give at creation is no unlock */
  vQueueAddToRegistry(mtx, "lock");
  CHECK(name_of(TW_OBJ_MUTEX, m) && !strcmp(name_of(TW_OBJ_MUTEX, m), "lock"));
  TaskHandle_t hi = NULL;
  CHECK(xTaskCreate(hold_task, "low", configMINIMAL_STACK_SIZE, NULL, 2, &holder) == pdPASS);
  vTaskDelay(2); /* low takes the mutex and waits */
  CHECK(xTaskCreate(want_task, "high", configMINIMAL_STACK_SIZE, (void *)(uintptr_t)portMAX_DELAY,
                    4, &hi) == pdPASS);
  uint16_t lo = tnum(holder), h = tnum(hi);
  vTaskDelay(2); /* high blocks on it: low inherits 4 */
  xTaskNotifyGive(holder);
  vTaskDelay(2); /* low gives, drops back to 2; high takes, gives */
  struct ev *e = next(TW_EV_MUTEX, TW_MUTEX_Lock);
  CHECK(FIELD(e, MUTEX, TASK) == lo && FIELD(e, MUTEX, MUTEX) == m);
  e = next(TW_EV_MUTEX, TW_MUTEX_Block);
  CHECK(FIELD(e, MUTEX, TASK) == h && FIELD(e, MUTEX, MUTEX) == m);
  expect_task(TW_TASK_PriorityInherit, lo, 4);
  e = next(TW_EV_MUTEX, TW_MUTEX_Unlock);
  CHECK(FIELD(e, MUTEX, TASK) == lo);
  expect_task(TW_TASK_PriorityDisinherit, lo, 2);
  e = next(TW_EV_MUTEX, TW_MUTEX_Lock);
  CHECK(FIELD(e, MUTEX, TASK) == h);
  e = next(TW_EV_MUTEX, TW_MUTEX_Unlock);
  CHECK(FIELD(e, MUTEX, TASK) == h);

  begin("mutex: timeout, inheritance undone");
  CHECK(xSemaphoreTake(mtx, 0) == pdTRUE);
  CHECK(xTaskCreate(want_task, "impatient", configMINIMAL_STACK_SIZE, (void *)(uintptr_t)2, 6,
                    &hi) == pdPASS); /* runs at once, blocks 2 ticks */
  h = tnum(hi);
  vTaskDelay(4);
  CHECK(xSemaphoreGive(mtx) == pdTRUE);
  e = next(TW_EV_MUTEX, TW_MUTEX_Block);
  CHECK(FIELD(e, MUTEX, TASK) == h);
  expect_task(TW_TASK_PriorityInherit, me(), 6);
  expect_task(TW_TASK_PriorityDisinherit, me(), 5);
  e = next(TW_EV_MUTEX_EXT, TW_MUTEX_EXT_TakeFailed);
  CHECK(FIELD(e, MUTEX_EXT, TASK) == h && FIELD(e, MUTEX_EXT, MUTEX) == m);
  e = next(TW_EV_MUTEX, TW_MUTEX_Unlock);
  CHECK(FIELD(e, MUTEX, TASK) == me());

  begin("recursive mutex");
  SemaphoreHandle_t r = xSemaphoreCreateRecursiveMutex();
  CHECK(r);
  uint16_t rn = qnum(r);
  expect_create(TW_OBJ_MUTEX, rn, queueQUEUE_TYPE_RECURSIVE_MUTEX, 1, 0);
  CHECK(xSemaphoreTakeRecursive(r, 0) == pdTRUE);
  CHECK(xSemaphoreTakeRecursive(r, 0) == pdTRUE);
  CHECK(xSemaphoreGiveRecursive(r) == pdTRUE);
  CHECK(xSemaphoreGiveRecursive(r) == pdTRUE);
  CHECK(xSemaphoreGiveRecursive(r) == pdFALSE); /* not the holder any more */
  e = next(TW_EV_MUTEX, TW_MUTEX_Lock);
  CHECK(FIELD(e, MUTEX, MUTEX) == rn && FIELD(e, MUTEX, TASK) == me());
  e = next(TW_EV_MUTEX, TW_MUTEX_IncLock);
  CHECK(FIELD(e, MUTEX, MUTEX) == rn);
  e = next(TW_EV_MUTEX, TW_MUTEX_DecLock);
  CHECK(FIELD(e, MUTEX, MUTEX) == rn);
  e = next(TW_EV_MUTEX, TW_MUTEX_Unlock);
  CHECK(FIELD(e, MUTEX, MUTEX) == rn);
  e = next(TW_EV_MUTEX_EXT, TW_MUTEX_EXT_GiveFailed);
  CHECK(FIELD(e, MUTEX_EXT, MUTEX) == rn && FIELD(e, MUTEX_EXT, TASK) == me());
  vSemaphoreDelete(r);
  expect_delete(TW_OBJ_MUTEX, rn);
  vSemaphoreDelete(mtx);
  expect_delete(TW_OBJ_MUTEX, m);
}

/* ---- semaphores ------------------------------------------------------------------------- */

static SemaphoreHandle_t bsem;
static void job_sem(void)
{
  (void)xSemaphoreGiveFromISR(bsem, NULL);          /* Give */
  (void)xSemaphoreGiveFromISR(bsem, NULL);          /* full: GiveFromISRFailed */
  (void)xSemaphoreTakeFromISR(bsem, NULL);          /* TakeFromISR */
  (void)xSemaphoreTakeFromISR(bsem, NULL);          /* empty: TakeFromISRFailed */
}

static void case_semaphores(void)
{
  begin("binary semaphore");
  bsem = xSemaphoreCreateBinary();
  CHECK(bsem);
  uint16_t b = qnum(bsem);
  expect_create(TW_OBJ_SEM, b, queueQUEUE_TYPE_BINARY_SEMAPHORE, 1, 0);
  vQueueAddToRegistry(bsem, "rx_ready");
  CHECK(name_of(TW_OBJ_SEM, b) && !strcmp(name_of(TW_OBJ_SEM, b), "rx_ready"));
  CHECK(xSemaphoreGive(bsem) == pdTRUE);
  CHECK(xSemaphoreGive(bsem) == pdFALSE);
  CHECK(xQueuePeek(bsem, NULL, 0) == pdTRUE);
  CHECK(xSemaphoreTake(bsem, 0) == pdTRUE);
  CHECK(xSemaphoreTake(bsem, 0) == pdFALSE);
  CHECK(xQueuePeek(bsem, NULL, 0) == pdFALSE);
  CHECK(xQueuePeek(bsem, NULL, 2) == pdFALSE);
  CHECK(xSemaphoreTake(bsem, 2) == pdFALSE);
  struct ev *e = next(TW_EV_SEM, TW_SEM_Give);
  CHECK(FIELD(e, SEM, SEM) == b);
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_GiveFailed);
  CHECK(FIELD(e, SEM_EXT, SEM) == b && FIELD(e, SEM_EXT, TASK) == me());
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_Peek);
  CHECK(FIELD(e, SEM_EXT, SEM) == b);
  e = next(TW_EV_SEM_TASK, TW_SEM_TASK_Take);
  CHECK(FIELD(e, SEM_TASK, SEM) == b && FIELD(e, SEM_TASK, TASK) == me());
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_TakeFailed);
  CHECK(FIELD(e, SEM_EXT, SEM) == b);
  next(TW_EV_SEM_EXT, TW_SEM_EXT_PeekFailed);
  next(TW_EV_SEM_EXT, TW_SEM_EXT_BlockPeek);
  next(TW_EV_SEM_EXT, TW_SEM_EXT_PeekFailed);
  e = next(TW_EV_SEM_TASK, TW_SEM_TASK_Block);
  CHECK(FIELD(e, SEM_TASK, SEM) == b && FIELD(e, SEM_TASK, TASK) == me());
  next(TW_EV_SEM_EXT, TW_SEM_EXT_TakeFailed);

  begin("semaphore from an interrupt");
  run_in_isr(job_sem);
  next(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_EnterInt);
  e = next(TW_EV_SEM, TW_SEM_Give);
  CHECK(FIELD(e, SEM, SEM) == b);
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_GiveFromISRFailed);
  CHECK(FIELD(e, SEM_EXT, TASK) == (uint16_t)TW_TASK_SWITCH_EnterInt);
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_TakeFromISR);
  CHECK(FIELD(e, SEM_EXT, TASK) == (uint16_t)TW_TASK_SWITCH_EnterInt && FIELD(e, SEM_EXT, SEM) == b);
  next(TW_EV_SEM_EXT, TW_SEM_EXT_TakeFromISRFailed);
  next(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_LeaveInt);
  vSemaphoreDelete(bsem);
  expect_delete(TW_OBJ_SEM, b);

  begin("counting semaphore");
  SemaphoreHandle_t c = xSemaphoreCreateCounting(3, 1);
  CHECK(c);
  uint16_t cn = qnum(c);
  expect_create(TW_OBJ_SEM, cn, queueQUEUE_TYPE_COUNTING_SEMAPHORE, 3, 1);
  CHECK(xSemaphoreGive(c) == pdTRUE && xSemaphoreGive(c) == pdTRUE);
  CHECK(xQueueGenericSend(c, NULL, 2, queueSEND_TO_BACK) == pdFALSE); /* at its maximum */
  e = next(TW_EV_SEM_EXT, TW_SEM_EXT_BlockGive);
  CHECK(FIELD(e, SEM_EXT, SEM) == cn);
  next(TW_EV_SEM_EXT, TW_SEM_EXT_GiveFailed);
  vSemaphoreDelete(c);
}

/* ---- queues and queue sets -------------------------------------------------------------- */

static QueueHandle_t q;
static void job_queue(void)
{
  uint32_t v = 7;
  (void)xQueueSendFromISR(q, &v, NULL);     /* SendFromISR */
  (void)xQueueSendFromISR(q, &v, NULL);
  (void)xQueueSendFromISR(q, &v, NULL);     /* full: SendFromISRFailed */
  (void)xQueuePeekFromISR(q, &v);           /* PeekFromISR */
  (void)xQueueReceiveFromISR(q, &v, NULL);  /* ReceiveFromISR */
  (void)xQueueReceiveFromISR(q, &v, NULL);
  (void)xQueueReceiveFromISR(q, &v, NULL);  /* empty: ReceiveFromISRFailed */
  (void)xQueuePeekFromISR(q, &v);           /* empty: PeekFromISRFailed */
}

static void expect_q(int type, uint16_t num, uint32_t waiting)
{
  struct ev *e = next(TW_EV_QUEUE, type);
  CHECK(FIELD(e, QUEUE, QUEUE) == num && FIELD(e, QUEUE, COUNT) == waiting);
}

static void case_queues(void)
{
  begin("queue");
  q = xQueueCreate(2, sizeof(uint32_t));
  CHECK(q);
  uint16_t n = qnum(q);
  expect_create(TW_OBJ_QUEUE, n, queueQUEUE_TYPE_BASE, 2, sizeof(uint32_t));
  vQueueAddToRegistry(q, "samples");
  CHECK(name_of(TW_OBJ_QUEUE, n) && !strcmp(name_of(TW_OBJ_QUEUE, n), "samples"));
  uint32_t v = 1;
  CHECK(xQueueSend(q, &v, 0) == pdTRUE && xQueueSend(q, &v, 0) == pdTRUE);
  CHECK(xQueueSend(q, &v, 0) == pdFALSE);
  CHECK(xQueueSend(q, &v, 2) == pdFALSE);
  CHECK(xQueuePeek(q, &v, 0) == pdTRUE);
  CHECK(xQueueReceive(q, &v, 0) == pdTRUE && xQueueReceive(q, &v, 0) == pdTRUE);
  CHECK(xQueueReceive(q, &v, 0) == pdFALSE);
  CHECK(xQueuePeek(q, &v, 0) == pdFALSE);
  CHECK(xQueuePeek(q, &v, 2) == pdFALSE);
  CHECK(xQueueReceive(q, &v, 2) == pdFALSE);
  expect_q(TW_QUEUE_Send, n, 0);
  expect_q(TW_QUEUE_Send, n, 1);
  expect_q(TW_QUEUE_SendFailed, n, 2);
  expect_q(TW_QUEUE_BlockSend, n, 2);
  expect_q(TW_QUEUE_SendFailed, n, 2);
  expect_q(TW_QUEUE_Peek, n, 2);
  expect_q(TW_QUEUE_Receive, n, 2);
  expect_q(TW_QUEUE_Receive, n, 1);
  expect_q(TW_QUEUE_ReceiveFailed, n, 0);
  expect_q(TW_QUEUE_PeekFailed, n, 0);
  expect_q(TW_QUEUE_BlockPeek, n, 0);
  expect_q(TW_QUEUE_PeekFailed, n, 0);
  expect_q(TW_QUEUE_BlockReceive, n, 0);
  expect_q(TW_QUEUE_ReceiveFailed, n, 0);

  begin("queue from an interrupt");
  run_in_isr(job_queue);
  expect_q(TW_QUEUE_SendFromISR, n, 0);
  expect_q(TW_QUEUE_SendFromISR, n, 1);
  expect_q(TW_QUEUE_SendFromISRFailed, n, 2);
  expect_q(TW_QUEUE_PeekFromISR, n, 2);
  expect_q(TW_QUEUE_ReceiveFromISR, n, 2);
  expect_q(TW_QUEUE_ReceiveFromISR, n, 1);
  expect_q(TW_QUEUE_ReceiveFromISRFailed, n, 0);
  expect_q(TW_QUEUE_PeekFromISRFailed, n, 0);

  begin("queue set");
  QueueSetHandle_t set = xQueueCreateSet(2);
  CHECK(set);
  expect_create(TW_OBJ_QUEUE, qnum(set), queueQUEUE_TYPE_SET, 2, sizeof(void *));
  CHECK(xQueueAddToSet(q, set) == pdPASS);
  CHECK(xQueueSend(q, &v, 0) == pdTRUE);
  CHECK(xQueueSelectFromSet(set, 0) == q);
  expect_q(TW_QUEUE_Send, n, 0);
  expect_q(TW_QUEUE_SetSend, qnum(set), 0);
  expect_q(TW_QUEUE_Receive, qnum(set), 1);
  CHECK(xQueueReceive(q, &v, 0) == pdTRUE);
  CHECK(xQueueRemoveFromSet(q, set) == pdPASS);
  uint16_t sn = qnum(set); /* read before the delete frees it */
  vQueueDelete(set);
  vQueueDelete(q);
  expect_delete(TW_OBJ_QUEUE, sn);
  expect_delete(TW_OBJ_QUEUE, n);
}

/* ---- event groups ----------------------------------------------------------------------- */

static EventGroupHandle_t grp;
static void wait_bits_task(void *arg)
{
  EventBits_t want = (EventBits_t)(uintptr_t)arg;
  (void)xEventGroupWaitBits(grp, want, pdTRUE, pdTRUE, portMAX_DELAY);
  vTaskDelete(NULL);
}

static void sync_task(void *arg)
{
  (void)arg;
  (void)xEventGroupSync(grp, 0x400, 0xC00, portMAX_DELAY);
  vTaskDelete(NULL);
}

static void job_bits(void)
{
  (void)xEventGroupSetBitsFromISR(grp, 0x1000, NULL);
  (void)xEventGroupClearBitsFromISR(grp, 0x1000);
}

static void expect_eg(int type, uint16_t g, uint32_t bits)
{
  struct ev *e = next(TW_EV_EGROUP, type);
  CHECK(FIELD(e, EGROUP, GROUP) == g && FIELD(e, EGROUP, BITS) == bits);
}

static void case_event_groups(void)
{
  begin("event group");
  grp = xEventGroupCreate();
  CHECK(grp);
  uint16_t g = (uint16_t)uxEventGroupGetNumber(grp);
  CHECK(g > 0);
  expect_create(TW_OBJ_EGROUP, g, 0, 0, 0);
  (void)xEventGroupSetBits(grp, 0x3);
  (void)xEventGroupClearBits(grp, 0x1);
  (void)xEventGroupWaitBits(grp, 0x2, pdFALSE, pdTRUE, 0); /* already set: no block */
  TaskHandle_t t = NULL;
  CHECK(xTaskCreate(wait_bits_task, "waiter", configMINIMAL_STACK_SIZE, (void *)0x4, 6, &t) == pdPASS);
  uint16_t w = tnum(t);
  (void)xEventGroupSetBits(grp, 0x4);                          /* releases the waiter */
  (void)xEventGroupWaitBits(grp, 0x10, pdFALSE, pdTRUE, 2);   /* times out */
  expect_eg(TW_EGROUP_SetBits, g, 0x3);
  expect_eg(TW_EGROUP_ClearBits, g, 0x1);
  expect_eg(TW_EGROUP_WaitEnd, g, 0x2);
  expect_eg(TW_EGROUP_WaitBlock, g, 0x4);
  expect_eg(TW_EGROUP_SetBits, g, 0x4);
  expect_task(TW_TASK_Ready, w, 0);
  expect_eg(TW_EGROUP_WaitEnd, g, 0x4);
  expect_eg(TW_EGROUP_WaitBlock, g, 0x10);
  expect_eg(TW_EGROUP_WaitTimeout, g, 0x10);

  begin("event group rendezvous");
  (void)xEventGroupSync(grp, 0x100, 0x300, 2); /* alone: times out */
  CHECK(xTaskCreate(sync_task, "sync", configMINIMAL_STACK_SIZE, NULL, 6, &t) == pdPASS);
  (void)xEventGroupSync(grp, 0x800, 0xC00, portMAX_DELAY); /* completes the rendezvous */
  expect_eg(TW_EGROUP_SetBits, g, 0x100);
  expect_eg(TW_EGROUP_SyncBlock, g, 0x300);
  expect_eg(TW_EGROUP_SyncTimeout, g, 0x300);
  expect_eg(TW_EGROUP_SetBits, g, 0x400);
  expect_eg(TW_EGROUP_SyncBlock, g, 0xC00);
  expect_eg(TW_EGROUP_SetBits, g, 0x800);
  expect_eg(TW_EGROUP_SyncEnd, g, 0xC00);
  expect_eg(TW_EGROUP_SyncEnd, g, 0xC00);

  begin("event group from an interrupt");
  run_in_isr(job_bits);
  vTaskDelay(2); /* the timer task runs the pended calls */
  expect_eg(TW_EGROUP_SetBitsFromISR, g, 0x1000);
  struct ev *e = next(TW_EV_TIMER, TW_TIMER_PendCallFromISR);
  CHECK(FIELD(e, TIMER, VALUE) == 0x1000);
  expect_eg(TW_EGROUP_ClearBitsFromISR, g, 0x1000);
  next(TW_EV_TIMER, TW_TIMER_PendCallFromISR);
  expect_eg(TW_EGROUP_SetBits, g, 0x1000);
  expect_eg(TW_EGROUP_ClearBits, g, 0x1000);
  vEventGroupDelete(grp);
  expect_delete(TW_OBJ_EGROUP, g);
}

/* ---- notifications ------------------------------------------------------------------------ */

static void take_task(void *arg)
{
  (void)arg;
  for (;;)
    (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
}

static void wait_task(void *arg)
{
  (void)arg;
  uint32_t v;
  for (;;)
    (void)xTaskNotifyWaitIndexed(1, 0, 0xFFFFFFFFu, &v, portMAX_DELAY);
}

static TaskHandle_t taker, waiter;
static void job_notify(void)
{
  vTaskNotifyGiveFromISR(taker, NULL);
  (void)xTaskNotifyIndexedFromISR(waiter, 1, 0x30, eSetBits, NULL);
}

static void expect_note(int type, uint16_t task, unsigned index, uint32_t value)
{
  struct ev *e = next(TW_EV_NOTIFY, type);
  CHECK(FIELD(e, NOTIFY, TASK) == task && FIELD(e, NOTIFY, INDEX) == index);
  CHECK(FIELD(e, NOTIFY, VALUE) == value);
}

static void case_notifications(void)
{
  begin("notifications");
  CHECK(xTaskCreate(take_task, "taker", configMINIMAL_STACK_SIZE, NULL, 6, &taker) == pdPASS);
  CHECK(xTaskCreate(wait_task, "waiter", configMINIMAL_STACK_SIZE, NULL, 6, &waiter) == pdPASS);
  uint16_t tk = tnum(taker), wt = tnum(waiter);
  xTaskNotifyGive(taker);
  (void)xTaskNotifyIndexed(waiter, 1, 0x55, eSetValueWithOverwrite);
  expect_note(TW_NOTIFY_TakeBlock, tk, 0, 0);
  expect_note(TW_NOTIFY_WaitBlock, wt, 1, 0);
  expect_note(TW_NOTIFY_Notify, tk, 0, 1);
  expect_task(TW_TASK_Ready, tk, 0);
  expect_note(TW_NOTIFY_Take, tk, 0, 1);
  expect_note(TW_NOTIFY_Notify, wt, 1, 0x55);
  expect_note(TW_NOTIFY_Wait, wt, 1, 0x55);

  begin("notifications from an interrupt");
  run_in_isr(job_notify);
  vTaskDelay(1);
  expect_note(TW_NOTIFY_GiveFromISR, tk, 0, 1);
  expect_note(TW_NOTIFY_NotifyFromISR, wt, 1, 0x30);
  vTaskDelete(taker);
  vTaskDelete(waiter);
}

/* ---- timers -------------------------------------------------------------------------------- */

static void timer_cb(TimerHandle_t t) { (void)t; }
static void pended(void *a, uint32_t b) { (void)a; (void)b; }

static void case_timers(void)
{
  begin("timer");
  TimerHandle_t tm = xTimerCreate("tick3", 3, pdTRUE, NULL, timer_cb);
  CHECK(tm);
  uint16_t n = (uint16_t)uxTimerGetTimerNumber(tm);
  CHECK(name_of(TW_OBJ_TIMER, n) && !strcmp(name_of(TW_OBJ_TIMER, n), "tick3"));
  expect_create(TW_OBJ_TIMER, n, 0, 3, 1);
  CHECK(xTimerStart(tm, 0) == pdPASS);
  vTaskDelay(7); /* expires twice */
  CHECK(xTimerDelete(tm, 0) == pdPASS);
  CHECK(xTimerPendFunctionCall(pended, NULL, 42, 0) == pdPASS);
  vTaskDelay(1);
  /* The timer task (priority 8) takes a command as soon as it is queued,
   * before the sender's traceTIMER_COMMAND_SEND runs: Received, then Send. */
  struct ev *e = next(TW_EV_TIMER, TW_TIMER_CommandReceived);
  CHECK(FIELD(e, TIMER, TIMER) == n && FIELD(e, TIMER, COMMAND) == tmrCOMMAND_START);
  e = next(TW_EV_TIMER, TW_TIMER_CommandSend);
  CHECK(FIELD(e, TIMER, TIMER) == n && FIELD(e, TIMER, COMMAND) == tmrCOMMAND_START);
  e = next(TW_EV_TIMER, TW_TIMER_Expired);
  CHECK(FIELD(e, TIMER, TIMER) == n);
  e = next(TW_EV_TIMER, TW_TIMER_Expired);
  e = next(TW_EV_TIMER, TW_TIMER_CommandReceived);
  CHECK(FIELD(e, TIMER, COMMAND) == tmrCOMMAND_DELETE);
  expect_delete(TW_OBJ_TIMER, n);
  e = next(TW_EV_TIMER, TW_TIMER_CommandSend);
  CHECK(FIELD(e, TIMER, COMMAND) == tmrCOMMAND_DELETE);
  CHECK(FIELD(e, TIMER, TIMER) == 0); /* the timer task freed it already */
  e = next(TW_EV_TIMER, TW_TIMER_PendCall);
  CHECK(FIELD(e, TIMER, VALUE) == 42);

  begin("timer queue full");
  TaskHandle_t daemon = xTimerGetTimerDaemonTaskHandle();
  vTaskSuspend(daemon);
  tm = xTimerCreate("t2", 5, pdFALSE, NULL, timer_cb);
  CHECK(tm);
  int refused = 0;
  for (int i = 0; i < configTIMER_QUEUE_LENGTH + 1; i++)
    refused += xTimerReset(tm, 0) != pdPASS;
  CHECK(refused == 1);
  CHECK(xTimerPendFunctionCall(pended, NULL, 1, 0) == pdFAIL);
  vTaskResume(daemon);
  vTaskDelay(2);
  CHECK(xTimerDelete(tm, 10) == pdPASS);
  next(TW_EV_TIMER, TW_TIMER_CommandSendFailed);
  next(TW_EV_TIMER, TW_TIMER_PendCallFailed);
}

/* ---- stream and message buffers ------------------------------------------------------------ */

static StreamBufferHandle_t sb;
static void job_stream(void)
{
  uint8_t b[4] = {1, 2, 3, 4};
  (void)xStreamBufferSendFromISR(sb, b, 4, NULL);
  (void)xStreamBufferReceiveFromISR(sb, b, 4, NULL);
  (void)xStreamBufferResetFromISR(sb);
}

static void expect_sb(int type, uint16_t n, uint32_t bytes)
{
  struct ev *e = next(TW_EV_SBUF, type);
  CHECK(FIELD(e, SBUF, SBUF) == n && FIELD(e, SBUF, BYTES) == bytes);
}

static void case_stream_buffers(void)
{
  begin("stream buffer");
  sb = xStreamBufferCreate(16, 1);
  CHECK(sb);
  uint16_t n = (uint16_t)uxStreamBufferGetStreamBufferNumber(sb);
  expect_create(TW_OBJ_SBUF, n, sbTYPE_STREAM_BUFFER, 16, 1);
  uint8_t buf[32] = {0};
  CHECK(xStreamBufferSend(sb, buf, 10, 0) == 10);
  CHECK(xStreamBufferReceive(sb, buf, sizeof buf, 0) == 10);
  CHECK(xStreamBufferReceive(sb, buf, sizeof buf, 0) == 0);
  CHECK(xStreamBufferReceive(sb, buf, sizeof buf, 2) == 0);
  CHECK(xStreamBufferSend(sb, buf, 16, 0) == 16);
  CHECK(xStreamBufferSend(sb, buf, 1, 0) == 0);
  CHECK(xStreamBufferSend(sb, buf, 1, 2) == 0);
  CHECK(xStreamBufferReset(sb) == pdPASS);
  expect_sb(TW_SBUF_Send, n, 10);
  expect_sb(TW_SBUF_Receive, n, 10);
  expect_sb(TW_SBUF_ReceiveFailed, n, 0);
  expect_sb(TW_SBUF_BlockReceive, n, 0);
  expect_sb(TW_SBUF_ReceiveFailed, n, 0);
  expect_sb(TW_SBUF_Send, n, 16);
  expect_sb(TW_SBUF_SendFailed, n, 0);
  expect_sb(TW_SBUF_BlockSend, n, 0);
  expect_sb(TW_SBUF_SendFailed, n, 0);
  expect_sb(TW_SBUF_Reset, n, 0);

  begin("stream buffer from an interrupt");
  run_in_isr(job_stream);
  expect_sb(TW_SBUF_SendFromISR, n, 4);
  expect_sb(TW_SBUF_ReceiveFromISR, n, 4);
  expect_sb(TW_SBUF_ResetFromISR, n, 0);
  vStreamBufferDelete(sb);
  expect_delete(TW_OBJ_SBUF, n);

  begin("message buffer");
  MessageBufferHandle_t mb = xMessageBufferCreate(32);
  CHECK(mb);
  uint16_t mn = (uint16_t)uxStreamBufferGetStreamBufferNumber(mb);
  CHECK(mn == (uint16_t)(n + 1));
  expect_create(TW_OBJ_SBUF, mn, sbTYPE_MESSAGE_BUFFER, 32, 1); /* FreeRTOS makes the trigger level 1 */
  vMessageBufferDelete(mb);
}

/* ---- creation failures ------------------------------------------------------------------- */

static void expect_failed(enum tw_obj_kind kind, uint8_t variant)
{
  struct ev *e = next(TW_EV_OBJECT, TW_OBJECT_CreateFailed);
  CHECK(FIELD(e, OBJECT, KIND) == kind && FIELD(e, OBJECT, VARIANT) == variant);
  CHECK(FIELD(e, OBJECT, NUMBER) == 0);
}

static void case_failures(void)
{
  begin("creation failures");
  TaskHandle_t t;
  fail_allocs = 1;
  CHECK(xTaskCreate(park_task, "nope", configMINIMAL_STACK_SIZE, NULL, 1, &t) != pdPASS);
  fail_allocs = 1;
  CHECK(!xQueueCreate(4, 4));
  fail_allocs = 1;
  CHECK(!xSemaphoreCreateBinary());
  fail_allocs = 1;
  CHECK(!xSemaphoreCreateMutex());
  fail_allocs = 1;
  CHECK(!xSemaphoreCreateCounting(4, 0));
  fail_allocs = 1;
  CHECK(!xEventGroupCreate());
  fail_allocs = 1;
  CHECK(!xTimerCreate("nope", 5, pdFALSE, NULL, timer_cb));
  fail_allocs = 1;
  CHECK(!xStreamBufferCreate(16, 1));
  asserts_expected = 1;
  CHECK(!xStreamBufferCreateStatic(16, 1, NULL, NULL));
  asserts_expected = 0;
  CHECK(asserts_seen > 0);
  /* this kernel never calls traceTASK_CREATE_FAILED or
   * traceTIMER_CREATE_FAILED (mapped all the same, for kernels that do) */
  expect_failed(TW_OBJ_QUEUE, queueQUEUE_TYPE_BASE);
  expect_failed(TW_OBJ_SEM, queueQUEUE_TYPE_BINARY_SEMAPHORE);
  expect_failed(TW_OBJ_MUTEX, queueQUEUE_TYPE_MUTEX);
  expect_failed(TW_OBJ_SEM, queueQUEUE_TYPE_COUNTING_SEMAPHORE);
  expect_failed(TW_OBJ_EGROUP, 0);
  expect_failed(TW_OBJ_SBUF, sbTYPE_STREAM_BUFFER);
  expect_failed(TW_OBJ_SBUF, sbTYPE_STREAM_BUFFER);
  CHECK(count(TW_EV_OBJECT, TW_OBJECT_CreateFailed) == 0); /* one event per failure */
}

/* ---- numbering ---------------------------------------------------------------------------- */

static void case_numbers(void)
{
  begin("numbers stop short of the interrupt task numbers");
  tw_freertos_numbers.queue = (uint16_t)(TW_TASK_SWITCH_EnterInt - 2);
  QueueHandle_t a = xQueueCreate(1, 1), b = xQueueCreate(1, 1), c = xQueueCreate(1, 1);
  CHECK(a && b && c);
  CHECK(qnum(a) == (uint16_t)(TW_TASK_SWITCH_EnterInt - 1));
  CHECK(qnum(b) == 1 && qnum(c) == 2); /* numbering restarts at 1 */
  expect_create(TW_OBJ_QUEUE, qnum(a), 0, 1, 1);
  expect_create(TW_OBJ_QUEUE, 1, 0, 1, 1);
  vQueueDelete(a);
  vQueueDelete(b);
  vQueueDelete(c);
  tw_freertos_numbers.task = (uint16_t)(TW_TASK_SWITCH_EnterInt - 1);
  TaskHandle_t t;
  CHECK(xTaskCreate(park_task, "wrap", configMINIMAL_STACK_SIZE, NULL, 1, &t) == pdPASS);
  CHECK(tnum(t) == 1);
  vTaskDelete(t);
}

/* ---- the driver ------------------------------------------------------------------------------ */

static void driver(void *arg)
{
  (void)arg;
  case_name = "scheduler start";
  collect();
  cursor = 0;
  next(TW_EV_SCHED, TW_SCHED_Start);
  next(TW_EV_TASK_SWITCH, -1);
  case_task_life();
  case_interrupts();
  case_mutex();
  case_semaphores();
  case_queues();
  case_event_groups();
  case_notifications();
  case_timers();
  case_stream_buffers();
  case_failures();
  case_numbers();
  collect();
  unsigned types = 0;
  for (int id = 0; id < 64; id++)
    for (int t = 0; t < 32; t++)
      types += seen[id][t];
  printf("kernel_hooks: %d checks passed; %u event types matched against the real kernel\n",
         checks, types);
  exit(0);
}

int main(void)
{
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  TaskHandle_t t;
  if (xTaskCreate(driver, "driver", configMINIMAL_STACK_SIZE * 4, NULL, 5, &t) != pdPASS)
    return 1;
  vTaskStartScheduler();
  fprintf(stderr, "kernel_hooks: the scheduler returned\n");
  return 1;
}
