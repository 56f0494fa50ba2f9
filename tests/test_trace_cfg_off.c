/* Build options: TW_CFG_EV_MUTEX=0 compiles tw_mutex to nothing while the
 * other emitters still record; the argument expressions are not needed. */
#define TW_CFG_EV_MUTEX 0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

static void test_event_configured_out(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t buf[8];
  while (tw_klog_get(&rec, buf, 8) > 0)
    ;
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  tw_mutex(1, 2, TW_MUTEX_Lock);
  tw_mutex_at(5, 1, 2, TW_MUTEX_Unlock);
  assert_int_equal(tw_klog_get(&rec, buf, 8), 0);
  tw_sem(1, TW_SEM_Give);
  assert_int_equal(tw_klog_get(&rec, buf, 8), 2); /* timestamp + one packed word */
  assert_int_equal(rec.id, TW_EV_SEM);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_event_configured_out) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
