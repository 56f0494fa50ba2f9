/*
 * The CLI's argument parsers shared by the commands (tools/cli.c):
 * sizes for synth --bytes and index --every, durations for record.
 */
// tw-test-libs: tw_cli
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "cli.h"

static void sizes(void **state)
{
  (void)state;
  assert_int_equal(cli_parse_size("4096"), 4096);
  assert_int_equal(cli_parse_size("16K"), 16u << 10);
  assert_int_equal(cli_parse_size("16k"), 16u << 10);
  assert_int_equal(cli_parse_size("3M"), 3u << 20);
  assert_true(cli_parse_size("2G") == 2ull << 30);
  /* refused: 0 */
  assert_int_equal(cli_parse_size(""), 0);
  assert_int_equal(cli_parse_size("M"), 0);
  assert_int_equal(cli_parse_size("64MB"), 0);
  assert_int_equal(cli_parse_size("1.5M"), 0);
  assert_int_equal(cli_parse_size("-1"), 0);
  assert_int_equal(cli_parse_size("0"), 0);
  assert_int_equal(cli_parse_size("99999999999999999999"), 0); /* beyond 64 bits */
  assert_int_equal(cli_parse_size("17179869184G"), 0);         /* 2^34 GiB overflows */
}

static void seconds(void **state)
{
  (void)state;
  assert_int_equal(cli_parse_seconds("2"), 2000000000ll);
  assert_int_equal(cli_parse_seconds("0.25"), 250000000ll);
  assert_int_equal(cli_parse_seconds("x"), -1);
  assert_int_equal(cli_parse_seconds("-1"), -1);
  assert_int_equal(cli_parse_seconds("2s"), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(sizes),
    cmocka_unit_test(seconds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
