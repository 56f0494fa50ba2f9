/* The FreeRTOS hook header without a kernel, against stand-ins for the
 * few kernel names it uses: what the real-kernel test
 * (tests/freertos/kernel_hooks.c, needs FREERTOS_KERNEL_PATH) cannot
 * stage: a macro the application defined first is kept, numbers stop
 * short of the interrupt task numbers, the acting task inside interrupts,
 * a name table that fills up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tw_target_reset.h"

/* ---- stand-ins for what FreeRTOS provides where the hooks expand ---- */
typedef unsigned long UBaseType_t;
typedef struct tskTCB {
  UBaseType_t uxPriority;
  char pcTaskName[16];
  UBaseType_t uxTaskNumber;
} TCB_t;
static TCB_t *pxCurrentTCB;
#define portGET_CORE_ID() 0

/* The application's own hooks, defined before the header: they win. */
static int user_created, user_sent;
#define traceTASK_CREATE(pxNewTCB) (user_created++, (void)(pxNewTCB))
#define traceQUEUE_SEND(pxQueue) (user_sent++, (void)(pxQueue))

#define TW_FREERTOS_DEFINE_COUNTERS
#include "tracewire/hooks/freertos_trace.h"

static uint32_t now;
static uint32_t timer(void) { return now; }

static int ring_empty(void)
{
  struct tw_logger_rec rec;
  uint32_t buf[8];
  return tw_klog_get(&rec, buf, 8) == 0;
}

static int setup(void **state)
{
  (void)state;
  tw_target_reset(timer);
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  memset(tw_freertos_cores, 0, sizeof tw_freertos_cores);
  memset(&tw_freertos_numbers, 0, sizeof tw_freertos_numbers);
  return 0;
}

static void test_user_macros_win(void **state)
{
  (void)state;
  TCB_t t = {3, "sensor", 0};
  traceTASK_CREATE(&t);
  traceQUEUE_SEND(&t);
  assert_int_equal(user_created, 1);
  assert_int_equal(user_sent, 1);
  assert_int_equal(t.uxTaskNumber, 0); /* the header's version did not run */
  assert_true(ring_empty());
}

static void test_numbers_skip_interrupt_numbers(void **state)
{
  (void)state;
  uint16_t last = (uint16_t)(TW_TASK_SWITCH_EnterInt - 2);
  assert_int_equal(tw__fr_next(&last), TW_TASK_SWITCH_EnterInt - 1);
  assert_int_equal(tw__fr_next(&last), 1); /* never EnterInt, LeaveInt, or 0 */
  assert_int_equal(tw__fr_next(&last), 2);
  last = 0xFFFF;
  assert_int_equal(tw__fr_next(&last), 1);
  /* every number of a full cycle is usable and unique */
  last = 0;
  uint32_t n = 0;
  for (;;) {
    uint16_t v = tw__fr_next(&last);
    assert_true(v >= 1 && v < (uint16_t)TW_TASK_SWITCH_EnterInt);
    if (v == 1 && n)
      break;
    n++;
  }
  assert_int_equal(n, TW_TASK_SWITCH_EnterInt - 1u);
}

static uint32_t next_task_field(uint16_t want_id)
{
  struct tw_logger_rec rec;
  uint32_t buf[8];
  assert_true(tw_klog_get(&rec, buf, 8) > 1);
  assert_int_equal(rec.id, want_id);
  return buf[1];
}

static void test_acting_task_in_interrupts(void **state)
{
  (void)state;
  TCB_t a = {2, "a", 5};
  pxCurrentTCB = &a;
  traceTASK_SWITCHED_IN();
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), 5);
  assert_int_equal(TW__FR_CUR(), 5);
  assert_int_equal(tw_freertos_cores[0].in_switch, 0);
  traceISR_ENTER();
  traceISR_ENTER(); /* nested */
  assert_int_equal(TW__FR_CUR(), TW_TASK_SWITCH_EnterInt);
  traceISR_EXIT();
  assert_int_equal(TW__FR_CUR(), TW_TASK_SWITCH_EnterInt);
  traceISR_EXIT_TO_SCHEDULER();
  assert_int_equal(TW__FR_CUR(), 5);
  /* an exit without an enter (an ISR calling portYIELD_FROM_ISR that
   * never called traceISR_ENTER): recorded, no underflow */
  traceISR_EXIT();
  assert_int_equal(tw_freertos_cores[0].isr_depth, 0);
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), TW_TASK_SWITCH_EnterInt);
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), TW_TASK_SWITCH_EnterInt);
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), TW_TASK_SWITCH_LeaveInt);
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), TW_TASK_SWITCH_LeaveInt);
  assert_int_equal(next_task_field(TW_EV_TASK_SWITCH), TW_TASK_SWITCH_LeaveInt);
  assert_true(ring_empty());
  /* mask clear: nothing recorded, the state still follows */
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  a.uxTaskNumber = 6;
  traceTASK_SWITCHED_IN();
  assert_int_equal(TW__FR_CUR(), 6);
  assert_true(ring_empty());
}

/* A created object's name is registered before its Create event; when the
 * table is full the registration is refused and counted, the event still
 * recorded. */
static void test_created_names(void **state)
{
  (void)state;
  uint32_t before = tw_name_count();
  tw__fr_created(TW_OBJ_TIMER, 7, "blink", 0, 0, 1, 250);
  assert_int_equal(tw_name_count(), before + 1);
  assert_string_equal(tw_name_at(before)->name, "blink");
  struct tw_logger_rec rec;
  uint32_t buf[8];
  assert_int_equal(tw_klog_get(&rec, buf, 8), 1 + TW_EV_OBJECT_WORDS);
  assert_int_equal(rec.id, TW_EV_OBJECT);
  for (uint32_t i = tw_name_count(); i < TW_CFG_NAMES + 2 + 3; i++)
    tw__fr_created(TW_OBJ_QUEUE, (uint16_t)i, "q", 0, 0, 4, 8);
  assert_int_equal(tw_name_count(), TW_CFG_NAMES + 2);
  assert_int_equal(tw_name_lost(), 3);
  uint32_t creates = 0, dropped = 0; /* the small test ring overflows */
  while (tw_klog_get(&rec, buf, 8) > 0) {
    creates += rec.id == TW_EV_OBJECT;
    dropped += rec.dropped;
  }
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(creates + dropped + st.pending_drops, TW_CFG_NAMES + 5 - before - 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_user_macros_win, setup),
    cmocka_unit_test_setup(test_numbers_skip_interrupt_numbers, setup),
    cmocka_unit_test_setup(test_acting_task_in_interrupts, setup),
    cmocka_unit_test_setup(test_created_names, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
