/*
 * The Perfetto writer (src/export/perfetto.c, perfetto_sched.c) on
 * hand-made events at its limits: the CPU count trace_processor accepts,
 * an interrupt name that grows when made valid UTF-8 (ASan checks the
 * room reserved for it), a clock that stands still while task states
 * change (the pending state marks must not pile up), and the thread ids of
 * tasks of several endpoints. tests/perfetto_check.py checks the files of
 * the shell tests against Perfetto's protos and rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>
#include <cmocka.h>
#include "tw_vocab_event.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/export/export.h"

struct out {
  struct tw_export *x;
  char path[64];
  unsigned char *bytes;
  long n;
  uint32_t seq;
};

static void out_open(struct out *o)
{
  char msg[256];
  struct tw_export_cfg cfg = {.format = "perfetto"};
  int fd;
  memset(o, 0, sizeof *o);
  strcpy(o->path, "/tmp/tw_pf_XXXXXX");
  fd = mkstemp(o->path);
  assert_true(fd >= 0);
  close(fd);
  cfg.out = o->path;
  assert_int_equal(tw_export_open(&o->x, &cfg, msg, sizeof msg), 0);
}

static int ev_at(struct out *o, uint16_t ep, uint16_t inst, uint16_t stream, uint64_t us,
                 uint16_t id, uint32_t v0, uint32_t v1, uint32_t v2, const char *str,
                 size_t str_len)
{
  struct tw_event e = tw_test_event(&(struct tw_test_ev){
      .time_ns = us * 1000, .endpoint = ep, .instance = inst, .stream = stream, .id = id,
      .v0 = v0, .v1 = v1, .v2 = v2});
  e.seq = o->seq++;
  e.str = str; /* (a length of its own: strings with NULs) */
  e.str_len = str_len;
  return tw_export_event(o->x, &e);
}

static int out_close(struct out *o, char *msg, size_t cap)
{
  int rc = tw_export_close(o->x, msg, cap);
  FILE *f = fopen(o->path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  o->n = ftell(f);
  rewind(f);
  o->bytes = calloc(1, (size_t)o->n + 1);
  assert_non_null(o->bytes);
  assert_int_equal(fread(o->bytes, 1, (size_t)o->n, f), (size_t)o->n);
  fclose(f);
  unlink(o->path);
  return rc;
}

static int has(const struct out *o, const void *needle, size_t n)
{
  for (long i = 0; i + (long)n <= o->n; i++)
    if (!memcmp(o->bytes + i, needle, n))
      return 1;
  return 0;
}

/* trace_processor refuses a bundle for CPU 1024 or above: the export
 * says so instead of writing a file it cannot read. */
static void test_too_many_cpus(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  int rc = 0;
  out_open(&o);
  for (uint16_t i = 0; i <= 1024 && !rc; i++)
    rc = ev_at(&o, (uint16_t)(1 + i / 4), i % 4, i, 1 + i, TW_EV_TASK_SWITCH, 1, 0, 0, NULL, 0);
  assert_int_equal(rc, TW_ENOSPC);
  assert_int_equal(out_close(&o, msg, sizeof msg), TW_ENOSPC);
  assert_non_null(strstr(msg, "more than 1024 cores"));
  free(o.bytes);
}

/* An interrupt named by 700 bytes that are not UTF-8: each becomes U+FFFD
 * (three bytes), the whole name written. The room for it was once
 * reserved for the name before its repair. */
static void test_irq_name_grows(void **state)
{
  (void)state;
  struct out o;
  char msg[256], name[700];
  unsigned char want[3 * sizeof name];
  memset(name, 0xFF, sizeof name);
  for (size_t i = 0; i < sizeof name; i++)
    memcpy(want + 3 * i, "\xEF\xBF\xBD", 3);
  out_open(&o);
  assert_int_equal(ev_at(&o, 1, 0, 0, 0, TW_EV_NAME, TW_OBJ_IRQ, 0, 9, name, sizeof name), 0);
  assert_int_equal(ev_at(&o, 1, 0, 0, 1, TW_EV_TASK_SWITCH, 1, 0, 0, NULL, 0), 0);
  assert_int_equal(ev_at(&o, 1, 0, 0, 2, TW_EV_TASK_SWITCH, TW_TASK_SWITCH_EnterInt, 0, 0, NULL, 0), 0);
  assert_int_equal(ev_at(&o, 1, 0, 0, 2, TW_EV_INTERRUPT, 9, 0, 0, NULL, 0), 0);
  assert_int_equal(ev_at(&o, 1, 0, 0, 3, TW_EV_TASK_SWITCH, TW_TASK_SWITCH_LeaveInt, 0, 0, NULL, 0), 0);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  assert_true(has(&o, want, sizeof want));
  free(o.bytes);
}

/* Tasks that are not running block and are released again and again
 * while the clock stands still: each change replaces the task's pending
 * state mark, and the file still comes out once time moves. */
static void test_clock_stands_still(void **state)
{
  (void)state;
  struct out o;
  char msg[256];
  size_t before, after;
  out_open(&o);
  assert_int_equal(ev_at(&o, 1, 0, 0, 1, TW_EV_TASK_SWITCH, 1, 0, 0, NULL, 0), 0);
  for (int k = 0; k < 100000; k++) /* every table at its size (the output buffer: 1 MiB) */
    assert_int_equal(ev_at(&o, 1, 0, 0, 5, TW_EV_SEM_TASK, 2 + (uint32_t)k % 3, 1,
                           k % 2 ? TW_SEM_TASK_ToTask : TW_SEM_TASK_Block, NULL, 0), 0);
  before = mallinfo2().uordblks + mallinfo2().hblkhd; /* large blocks are mmapped */
  for (int k = 0; k < 200000; k++) {
    uint32_t task = 2 + (uint32_t)k % 3;
    uint32_t type = k % 2 ? TW_SEM_TASK_ToTask : TW_SEM_TASK_Block;
    assert_int_equal(ev_at(&o, 1, 0, 0, 5, TW_EV_SEM_TASK, task, 1, type, NULL, 0), 0);
  }
  after = mallinfo2().uordblks + mallinfo2().hblkhd;
  /* not 200000 replaced marks kept (6 MB): a sanitizer's allocator makes
   * mallinfo say nothing, the bound holds where it does */
  assert_true(after < before + (256u << 10));
  assert_int_equal(ev_at(&o, 1, 0, 0, 9, TW_EV_TASK_SWITCH, 2, 0, 0, NULL, 0), 0);
  assert_int_equal(out_close(&o, msg, sizeof msg), 0);
  assert_true(o.n > 0);
  free(o.bytes);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_too_many_cpus),
    cmocka_unit_test(test_irq_name_grows),
    cmocka_unit_test(test_clock_stands_still),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
