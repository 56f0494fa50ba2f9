/*
 * The CLI's argument parsers shared by the commands (tools/cli.c):
 * sizes for synth --bytes and index --every, durations for record, strict
 * counts for --window.
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
  assert_int_equal(cli_parse_seconds(".5"), 500000000ll);
  assert_int_equal(cli_parse_seconds("3."), 3000000000ll);
  /* strtod took these (issue 19 item 9): nan made an undefined cast */
  static const char *const bad[] = {"", ".", "nan", "inf", "1e3", " 1", "+1", "0x10", "1,5",
                                    "18000000001"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(cli_parse_seconds(bad[i]), -1);
}

/* Numbers that may be hex (masks, seeds, ticks). */
static void hex_or_decimal(void **state)
{
  (void)state;
  unsigned long long v = 0;
  assert_int_equal(cli_parse_num("0x1FFFF", 0, 0xFFFFFFFFu, &v), 0);
  assert_int_equal(v, 0x1FFFF);
  assert_int_equal(cli_parse_num("0XffffFFFF", 0, 0xFFFFFFFFu, &v), 0);
  assert_int_equal(v, 0xFFFFFFFFu);
  assert_int_equal(cli_parse_num("131071", 0, 0xFFFFFFFFu, &v), 0);
  assert_int_equal(v, 131071);
  assert_int_equal(cli_parse_num("0xFFFFFFFFFFFFFFFF", 0, ~0ull, &v), 0);
  assert_true(v == ~0ull);
  static const char *const bad[] = {"", "0x", "0x-1", "0x 1", "-0x1", "0x1FFFFFFFF", "0xg",
                                    "0x10000000000000000", "1 ", "x1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(cli_parse_num(bad[i], 0, 0xFFFFFFFFu, &v), -1);
}

/* Strict unsigned numbers (issue 19 item 4: `--window -1` became SIZE_MAX
 * through strtoul and overflowed the merge). */
static void strict_numbers(void **state)
{
  (void)state;
  unsigned long long v = 99;
  assert_int_equal(cli_parse_uint("4096", 1, 4096, &v), 0);
  assert_int_equal(v, 4096);
  assert_int_equal(cli_parse_uint("1", 1, 4096, &v), 0);
  assert_int_equal(v, 1);
  assert_int_equal(cli_parse_uint("18446744073709551615", 0, ~0ull, &v), 0);
  assert_true(v == ~0ull);
  static const char *const bad[] = {"-1", "abc", "", " 5", "+5", "5 ", "5x", "0", "4097",
                                    "18446744073709551616", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v = 99;
    if (cli_parse_uint(bad[i], 1, 4096, &v) == 0)
      fail_msg("'%s' accepted as %llu", bad[i], v);
    assert_int_equal(v, 99); /* untouched */
  }
  size_t w = 0;
  assert_int_equal(cli_parse_window("print", "1048576", &w), 0);
  assert_int_equal(w, 1048576);
  assert_int_equal(cli_parse_window("print", "-1", &w), -1); /* says so on stderr */
  assert_int_equal(cli_parse_window("print", "1048577", &w), -1);
  assert_int_equal(w, 1048576);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(sizes),
    cmocka_unit_test(seconds),
    cmocka_unit_test(strict_numbers),
    cmocka_unit_test(hex_or_decimal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
