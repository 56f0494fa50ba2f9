/*
 * The ring built with TW_CFG_LOGGER_CRITICAL=1 (what Cortex-M0 gets: the
 * reservation and counters under tw_port_irq_lock instead of CAS), run on
 * the POSIX port's lock (signals masked + spinlock) under the same stress
 * as the lock-free build, with 1 million events: each put costs two
 * sigprocmask calls here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define TW_CFG_LOGGER_CRITICAL 1
#include "target/event_logger.c"
#define STRESS_THINK 20
#include "logger_stress.h"

static void test_stress_critical_1m(void **state)
{
  (void)state;
  run_stress(1000000u);
}

/* The same on a ring that is no power of two (issue 18). */
static void test_stress_critical_odd_ring(void **state)
{
  (void)state;
  run_stress_words(300000u, 4093);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_stress_critical_1m),
                                      cmocka_unit_test(test_stress_critical_odd_ring) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
