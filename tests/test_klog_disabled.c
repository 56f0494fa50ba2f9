/*
 * Predefined events are enabled independently at build time: this copy of
 * the kernel logger records context switches only (interrupt and sleep
 * compiled out), without dynamic mode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TW_CFG_KLOG_INTERRUPT 0
#define TW_CFG_KLOG_SLEEP 0
#include "target/kernel_event_logger.c"
#include "tracewire/compat/event_logger.h"

static void test_only_enabled_predefined_events_recorded(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t out[4];
  assert_int_equal(sys_k_must_log_event(1), 1);
  assert_int_equal(sys_k_must_log_event(2), 0);
  assert_int_equal(sys_k_must_log_event(3), 0);
  assert_int_equal(sys_k_must_log_event(4), 1);
  assert_int_equal((uint32_t)sys_k_event_logger_get_mask(), ~6u);
  tw_klog_interrupt(1);
  tw_klog_sleep_enter();
  tw_klog_sleep_exit(1, 0);
  tw_klog_context_switch(0x42, 0x43);
  assert_int_equal(tw_klog_get(&rec, out, 4), 2);
  assert_int_equal(rec.id, 1);
  assert_int_equal(out[1], 0x42);
  assert_int_equal(tw_klog_get(&rec, out, 4), 0);
  /* their ids stay reserved: custom events may not take them */
  assert_int_equal(tw_klog_put(2, out, 1), TW_EEXIST);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_only_enabled_predefined_events_recorded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
