/* The FreeRTOS hook header against stand-ins for the kernel's private
 * structures (the fields configUSE_TRACE_FACILITY provides): each hook
 * records the mapped event with the right numbers, and creation hooks
 * number objects and register names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"

/* ---- stand-ins for FreeRTOS's tasks.c / queue.c internals ---- */
typedef unsigned long UBaseType_t;
typedef struct tskTCB {
  UBaseType_t uxPriority;
  char pcTaskName[16];
  UBaseType_t uxTaskNumber;
} TCB_t;
typedef TCB_t *TaskHandle_t;
typedef struct {
  TaskHandle_t xMutexHolder;
  UBaseType_t uxRecursiveCallCount;
} SemaphoreData_t;
typedef struct QueueDefinition {
  union { SemaphoreData_t xSemaphore; } u;
  UBaseType_t uxQueueNumber;
  uint8_t ucQueueType;
} Queue_t;
#define queueQUEUE_TYPE_BASE 0
#define queueQUEUE_TYPE_MUTEX 1
#define queueQUEUE_TYPE_COUNTING_SEMAPHORE 2
#define queueQUEUE_TYPE_BINARY_SEMAPHORE 3
#define queueQUEUE_TYPE_RECURSIVE_MUTEX 4
static TCB_t *pxCurrentTCB;
static TaskHandle_t xTaskGetCurrentTaskHandle(void) { return pxCurrentTCB; }
static UBaseType_t uxTaskGetTaskNumber(TaskHandle_t t) { return t->uxTaskNumber; }

#define TW_FREERTOS_DEFINE_COUNTERS
#include "tracewire/hooks/freertos_trace.h"

static uint32_t now;
static uint32_t timer(void) { return now; }

struct ev { uint16_t id; uint32_t w[4]; int n; };

static struct ev next_event(void)
{
  struct tw_logger_rec rec;
  uint32_t buf[8];
  struct ev e = {0};
  int n = tw_klog_get(&rec, buf, 8);
  assert_true(n > 1);
  assert_int_equal(buf[0], now); /* timestamp first */
  e.id = rec.id;
  e.n = n - 1;
  for (int i = 1; i < n && i < 5; i++)
    e.w[i - 1] = buf[i];
  return e;
}

static void expect_ev(uint16_t id, uint32_t w0, uint32_t w1)
{
  struct ev e = next_event();
  assert_int_equal(e.id, id);
  assert_int_equal(e.w[0], w0);
  if (e.n > 1)
    assert_int_equal(e.w[1], w1);
}

static void test_hooks(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t buf[8];
  tw_klog_set_timer(timer);
  while (tw_klog_get(&rec, buf, 8) > 0)
    ;
  tw_name_reset();
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  now = 42;

  TCB_t a = {3, "sensor", 0}, b = {1, "logger", 0};
  traceTASK_CREATE(&a);
  traceTASK_CREATE(&b);
  assert_int_equal(a.uxTaskNumber, 1);
  assert_int_equal(b.uxTaskNumber, 2);
  Queue_t mtx = {{{NULL, 0}}, 0, queueQUEUE_TYPE_RECURSIVE_MUTEX};
  Queue_t sem = {{{NULL, 0}}, 0, queueQUEUE_TYPE_BINARY_SEMAPHORE};
  Queue_t q = {{{NULL, 0}}, 0, queueQUEUE_TYPE_BASE};
  traceCREATE_MUTEX(&mtx);
  traceQUEUE_CREATE(&sem);
  traceQUEUE_CREATE(&q);
  assert_int_equal(mtx.uxQueueNumber, 1);
  assert_int_equal(q.uxQueueNumber, 3);
  traceQUEUE_REGISTRY_ADD(&mtx, "i2c");
  traceQUEUE_REGISTRY_ADD(&sem, "rx_sem");
  assert_int_equal(tw_name_count(), 2 + 4);
  const struct tw_name_entry *n = tw_name_at(2);
  assert_string_equal(n->name, "sensor");
  assert_int_equal(n->prio, 3);
  n = tw_name_at(4);
  assert_int_equal(n->kind, TW_OBJ_MUTEX);
  assert_string_equal(n->name, "i2c");
  assert_int_equal(tw_name_at(5)->kind, TW_OBJ_SEM);

  pxCurrentTCB = &a;
  traceTASK_SWITCHED_IN();
  expect_ev(TW_EV_TASK_SWITCH, 1, 0);
  traceQUEUE_RECEIVE(&mtx);
  expect_ev(TW_EV_MUTEX, 1u | 1u << 16, TW_MUTEX_Lock);
  mtx.u.xSemaphore.xMutexHolder = &a;
  traceTAKE_MUTEX_RECURSIVE(&mtx);
  expect_ev(TW_EV_MUTEX, 1u | 1u << 16, TW_MUTEX_IncLock);
  mtx.u.xSemaphore.uxRecursiveCallCount = 2;
  traceGIVE_MUTEX_RECURSIVE(&mtx);
  expect_ev(TW_EV_MUTEX, 1u | 1u << 16, TW_MUTEX_DecLock);
  mtx.u.xSemaphore.uxRecursiveCallCount = 1;
  traceGIVE_MUTEX_RECURSIVE(&mtx); /* the last give: the queue send says Unlock */
  traceQUEUE_SEND(&mtx);
  expect_ev(TW_EV_MUTEX, 1u | 1u << 16, TW_MUTEX_Unlock);
  pxCurrentTCB = &b;
  traceBLOCKING_ON_QUEUE_RECEIVE(&mtx);
  expect_ev(TW_EV_MUTEX, 2u | 1u << 16, TW_MUTEX_Block);
  traceBLOCKING_ON_QUEUE_RECEIVE(&sem);
  expect_ev(TW_EV_SEM_TASK, 2u | 2u << 16, TW_SEM_TASK_Block);
  TW_FREERTOS_ISR_ENTER();
  expect_ev(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_EnterInt, 0);
  traceQUEUE_SEND_FROM_ISR(&sem);
  expect_ev(TW_EV_SEM, 2u | (uint32_t)TW_SEM_Give << 16, 0);
  traceGIVE_FROM_ISR(&sem);
  expect_ev(TW_EV_SEM, 2u | (uint32_t)TW_SEM_Give << 16, 0);
  TW_FREERTOS_ISR_EXIT();
  expect_ev(TW_EV_TASK_SWITCH, TW_TASK_SWITCH_LeaveInt, 0);
  traceQUEUE_RECEIVE(&sem);
  expect_ev(TW_EV_SEM_TASK, 2u | 2u << 16, TW_SEM_TASK_Take);
  traceTAKE_SEMAPHORE(&sem);
  expect_ev(TW_EV_SEM_TASK, 2u | 2u << 16, TW_SEM_TASK_Take);
  traceQUEUE_SEND(&q);
  expect_ev(TW_EV_EVENT, 3u | (uint32_t)TW_EVENT_Trigger << 16, 0);
  traceBLOCKING_ON_QUEUE_SEND(&q);
  expect_ev(TW_EV_EVENT_TASK, 2u | 3u << 16, TW_EVENT_TASK_Block);
  traceQUEUE_RECEIVE(&q);
  expect_ev(TW_EV_EVENT_TASK, 2u | 3u << 16, TW_EVENT_TASK_Consume);
  traceTAKE_MUTEX(&mtx);
  expect_ev(TW_EV_MUTEX, 2u | 1u << 16, TW_MUTEX_Lock);
  traceGIVE_MUTEX(&mtx);
  expect_ev(TW_EV_MUTEX, 2u | 1u << 16, TW_MUTEX_Unlock);
  assert_int_equal(tw_klog_get(&rec, buf, 8), 0); /* nothing else */

  /* mask clear: the hooks record nothing */
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  traceTASK_SWITCHED_IN();
  traceQUEUE_SEND(&sem);
  assert_int_equal(tw_klog_get(&rec, buf, 8), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_hooks) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
