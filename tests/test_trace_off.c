/* TW_CFG_TRACE=0: every emitter is empty; nothing reaches the logger even
 * with the whole mask set. */
#define TW_CFG_TRACE 0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"
#include "tw_emit_all.h"

static void test_all_emitters_compiled_out(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t buf[8];
  uint32_t v[4] = {1, 2, 3, 4};
  while (tw_klog_get(&rec, buf, 8) > 0)
    ;
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  for (uint16_t id = 1; id <= 17; id++)
    assert_int_equal(emit_event_at(id, 10, v), 0);
  tw_task_switch(1);
  assert_int_equal(tw_klog_get(&rec, buf, 8), 0);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_all_emitters_compiled_out) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
