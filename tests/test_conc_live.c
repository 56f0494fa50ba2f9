/*
 * The live analysis' queue under concurrency (src/analysis/live.c, "The
 * queue"): the recording thread hands packets over as fast as it can
 * through a small queue while another thread takes snapshots; the worker
 * decodes and analyses them. Nothing is lost unaccounted: every packet
 * is either analysed or counted as skipped by the view, exactly, and the
 * end is seen after the last packet. Run under ThreadSanitizer in CI
 * (label concurrency).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "tracewire/analysis/live.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/reader.h"
#include "tracewire/wire/synth.h"

static atomic_int done, backwards;

static void *watcher(void *arg)
{
  static struct tw_live_view v;
  uint64_t last = 0;
  while (!atomic_load(&done)) {
    tw_live_snapshot(arg, &v);
    if (v.seq < last) /* snapshots only move forward (checked on the main thread) */
      atomic_store(&backwards, 1);
    last = v.seq;
    nanosleep(&(struct timespec){0, 500000}, NULL);
  }
  return NULL;
}

static void run(size_t queue_bytes, int low_priority, int room_for_all)
{
  struct tw_synth_cfg scfg = {.switches = 1, .names = 1, .pkt_bytes = 4096};
  struct tw_synth g;
  static uint8_t buf[8 << 20];
  size_t len = 0;
  assert_int_equal(tw_synth_init(&g, &scfg), 0);
  while (len + 65536 < sizeof buf)
    len += tw_synth_packet(&g, buf + len, sizeof buf - len);
  struct tw_live *l;
  struct tw_live_cfg cfg = {.sources = 1, .queue_bytes = queue_bytes, .publish_ns = 1000000,
                            .low_priority = low_priority};
  assert_int_equal(tw_live_open(&l, &cfg), 0);
  pthread_t th;
  atomic_store(&done, 0);
  assert_int_equal(pthread_create(&th, NULL, watcher, l), 0);
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_pkt pkt;
  unsigned long long pushed = 0;
  for (int round = 0; round < 3; round++) { /* the same packets thrice: a long stream */
    assert_int_equal(tw_conn_mem_open(buf, len, &c), 0);
    assert_int_equal(tw_reader_open(&r, c, NULL), 0);
    while (tw_reader_next(r, &pkt, 0) == 1) {
      tw_live_packet(l, 0, &pkt, tw_reader_pkt_offset(r), tw_reader_pkt_number(r));
      pushed++;
    }
    tw_reader_close(r);
    tw_conn_close(c);
  }
  tw_live_end(l);
  static struct tw_live_view v;
  for (int i = 0; i < 6000; i++) {
    tw_live_snapshot(l, &v);
    if (v.finished)
      break;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  atomic_store(&done, 1);
  pthread_join(th, NULL);
  assert_true(v.finished);
  assert_int_equal(atomic_load(&backwards), 0);
  if (room_for_all)
    assert_int_equal(v.view_skipped, 0);
  assert_int_equal(v.packets + v.view_skipped, pushed);
  assert_int_equal(v.view_skipped, tw_live_skipped(l));
  printf("queue %zu KiB: %llu packets, %llu analysed, %llu skipped by the view\n",
         queue_bytes >> 10, pushed, (unsigned long long)v.packets,
         (unsigned long long)v.view_skipped);
  tw_live_close(l);
}

static void test_small_queue(void **state)
{
  (void)state;
  run(1 << 20, 1, 0); /* the smallest queue, the worker at the lowest priority: skips */
}

static void test_large_queue(void **state)
{
  (void)state;
  run(64 << 20, 0, 1); /* room for all of it: nothing skipped */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_small_queue),
    cmocka_unit_test(test_large_queue),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
