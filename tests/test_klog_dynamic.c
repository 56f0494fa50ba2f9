/*
 * The kernel event logger built with TW_CFG_KLOG_DYNAMIC=1 and a 64-word
 * ring: recording starts off, the mask (bit 0 = event id 1) selects
 * events, custom ids above 32 are refused (native: TW_ERANGE; seed:
 * ignored and counted). This test compiles its own copy of the kernel
 * logger with that configuration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TW_CFG_KLOG_DYNAMIC 1
#define TW_CFG_KLOG_CAPACITY 64
#include "target/kernel_event_logger.c"
#include "tracewire/compat/event_logger.h"

static uint32_t now_val = 100;
static uint32_t fake_timer(void)
{
  return now_val;
}

static int count_events(uint16_t *last_id)
{
  struct tw_logger_rec rec;
  uint32_t out[8];
  int n = 0;
  while (tw_klog_get(&rec, out, 8) > 0) {
    *last_id = rec.id;
    n++;
  }
  return n;
}

static void test_recording_off_by_default(void **state)
{
  (void)state;
  uint16_t id = 0;
  assert_int_equal(sys_k_event_logger_get_mask(), 0);
  for (int t = 1; t <= 40; t++)
    assert_int_equal(sys_k_must_log_event(t), 0);
  tw_klog_interrupt(1);
  tw_klog_context_switch(1, 2);
  tw_klog_sleep_enter();
  tw_klog_sleep_exit(1, 0);
  assert_int_equal(count_events(&id), 0);
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.capacity, 64);
}

static void test_mask_bit0_is_event_type_1(void **state)
{
  (void)state;
  uint16_t id = 0;
  sys_k_event_logger_set_timer(fake_timer);
  sys_k_event_logger_set_mask(1 << (KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID - 1));
  assert_int_equal(sys_k_event_logger_get_mask(), 2);
  assert_int_equal(sys_k_must_log_event(KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID), 1);
  assert_int_equal(sys_k_must_log_event(KERNEL_EVENT_LOGGER_CONTEXT_SWITCH_EVENT_ID), 0);
  tw_klog_context_switch(1, 2);
  tw_klog_interrupt(7);
  assert_int_equal(count_events(&id), 1);
  assert_int_equal(id, 2);
  sys_k_event_logger_set_mask(1 << 0 | 1 << 2);
  tw_klog_interrupt(7);
  tw_klog_context_switch(1, 2);
  tw_klog_sleep_enter();
  tw_klog_sleep_exit(1, 0);
  assert_int_equal(count_events(&id), 2);
  assert_int_equal(id, 3);
  /* bit 31 is event 32, the highest custom id with a mask bit */
  sys_k_event_logger_set_mask((int)0x80000000u);
  assert_int_equal(sys_k_must_log_event(32), 1);
  assert_int_equal(sys_k_must_log_event(31), 0);
  assert_int_equal(sys_k_must_log_event(33), 0);
  sys_k_event_logger_set_mask(0);
}

static void test_custom_ids_above_32_refused(void **state)
{
  (void)state;
  uint32_t d = 1;
  uint16_t id = 0;
  struct tw_logger_stats st;
  tw_logger_stats_reset(tw_klog_logger());
  assert_int_equal(tw_klog_put(33, &d, 1), TW_ERANGE);
  assert_int_equal(tw_klog_put_timed(300, NULL, 0), TW_ERANGE);
  sys_k_event_logger_put(33, &d, 1);          /* ignored, counted */
  sys_k_event_logger_put_timed(40);
  assert_int_equal(tw_klog_put(32, &d, 1), 0);
  assert_int_equal(tw_klog_put(18, &d, 1), 0);
  assert_int_equal(count_events(&id), 2);
  assert_int_equal(id, 18);
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.rejects, 4);
}

/* The seed's dynamic custom-event idiom: put only when must_log says so. */
static void test_must_log_gates_custom_event(void **state)
{
  (void)state;
  uint16_t id = 0;
  uint32_t data[2] = { 1, 2 };
  for (int on = 0; on < 2; on++) {
    sys_k_event_logger_set_mask(on ? 1 << (8 - 1) : 0);
    if (sys_k_must_log_event(8))
      sys_k_event_logger_put(8, data, ARRAY_SIZE(data));
    assert_int_equal(count_events(&id), on);
  }
  assert_int_equal(id, 8);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_recording_off_by_default),
    cmocka_unit_test(test_mask_bit0_is_event_type_1),
    cmocka_unit_test(test_custom_ids_above_32_refused),
    cmocka_unit_test(test_must_log_gates_custom_event),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
