/*
 * The lock-free ring under fire: 4 producer threads and a signal-driven
 * interrupt producer, 10 million events, one consumer (see
 * tests/logger_stress.h for what is checked). TW_STRESS_EVENTS lowers the
 * count where time is short (CI under TSan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "logger_stress.h"

static void test_stress_10m(void **state)
{
  (void)state;
  run_stress(10000000u);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_stress_10m) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
