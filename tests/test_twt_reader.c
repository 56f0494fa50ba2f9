/*
 * The .twt reader's buffer: sized to the file when the file is small (no
 * 5 MiB allocation to open a small trace), and grown when a file that is
 * still being recorded gets a chunk larger than that buffer after it was
 * opened: every chunk is still delivered whole and in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include "tracewire/twt/trace_file.h"

static void chunk_larger_than_the_buffer_after_open(void **state)
{
  (void)state;
  char path[64], err[256];
  struct tw_twt_writer *w;
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  const size_t big_len = 3u << 20; /* well above the small file's buffer */
  uint8_t *big = malloc(big_len);
  assert_non_null(big);
  for (size_t i = 0; i < big_len; i++)
    big[i] = (uint8_t)(i * 2654435761u >> 24);
  snprintf(path, sizeof path, "/tmp/tw_twt_grow_%d.twt", (int)getpid());
  assert_int_equal(tw_twt_create(path, &w, err, sizeof err), 0);
  assert_int_equal(tw_twt_write(w, TW_TWT_DATA, 0, 1, "abc", 3), 0);
  assert_int_equal(tw_twt_open(path, &r, err, sizeof err), 0); /* the file is ~60 bytes now */
  assert_int_equal(tw_twt_write(w, TW_TWT_DATA, 1, 2, big, big_len), 0);
  assert_int_equal(tw_twt_write(w, TW_TWT_NOTE, 0, 3, "end", 3), 0);
  assert_int_equal(tw_twt_close(w, 1), 0);

  int n = 0, seen_abc = 0, seen_big = 0, seen_end = 0;
  while (tw_twt_next(r, &c) == 1) {
    n++;
    assert_false(c.truncated);
    if (c.type == TW_TWT_DATA && c.len == 3 && !memcmp(c.data, "abc", 3))
      seen_abc = n;
    else if (c.type == TW_TWT_DATA && c.len == big_len && !memcmp(c.data, big, big_len))
      seen_big = n;
    else if (c.type == TW_TWT_NOTE && c.len == 3 && !memcmp(c.data, "end", 3))
      seen_end = n;
  }
  assert_true(seen_abc > 0);
  assert_true(seen_big > seen_abc);
  assert_true(seen_end > seen_big);
  tw_twt_close_reader(r);
  unlink(path);
  free(big);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(chunk_larger_than_the_buffer_after_open),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
