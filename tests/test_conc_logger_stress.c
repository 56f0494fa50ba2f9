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

/* A ring that is no power of two (4093 words, prime): the mirror indices
 * wrap at 8186, every event crosses the buffer's end now and then. */
static void test_stress_odd_ring_2m(void **state)
{
  (void)state;
  run_stress_words(2000000u, 4093);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_stress_10m),
                                      cmocka_unit_test(test_stress_odd_ring_2m) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
