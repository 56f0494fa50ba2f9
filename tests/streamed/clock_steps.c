/*
 * The streamer's 64-bit clock when a 32-bit reading is a little older
 * than the last one (docs/streamer.md, "Time"): a custom timer that steps
 * back, events stamped before a poll's reading and drained after it,
 * two producers' events committed out of timestamp order, and the first
 * poll after a long sleep reading the clock before the SLEEP event is
 * drained. None of them is a 2^32 wrap: the host must see times within
 * a few ticks of the script's, never hours ahead. Built twice (the
 * general streamer over tw_source_klog, and the minimal one,
 * TW_CFG_STREAMER_MINIMAL), since both extend time with the same rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/events_gen.h"
#include "tracewire/klog.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tw_stream_test.h"

#define EP 0x0005u

static uint32_t fake_now; /* the scripted timer */
static uint32_t fake_timer(void) { return fake_now; }

static struct tw_streamer S;
static struct cap C;
static struct dstream D;

static int setup(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t buf[TW_EVENT_MAX_DATA];
  struct tw_streamer_cfg cfg = {
    .send = cap_send,
    .send_ctx = &C,
    .endpoint = EP,
    .initial_mask = 0xFFFFFFFFu,
  };
  tw_klog_set_timer(fake_timer);
  __atomic_store_n(&tw_trace_mask, 0, __ATOMIC_RELAXED);
  while (tw_klog_get(&rec, buf, TW_EVENT_MAX_DATA) > 0)
    ;
#if !TW_CFG_STREAMER_MINIMAL
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
#endif
  fake_now = 1000;
  cap_init(&C);
  memset(&D, 0, sizeof D);
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_streamer_start(&S), 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_true(tw_streamer_running(&S));
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  cap_free(&C);
  dstream_free(&D);
  return 0;
}

static void poll_once(void)
{
  assert_true(tw_streamer_poll(&S, 0) >= 0);
}

static void finish(void)
{
  assert_int_equal(tw_streamer_stop(&S, 1), 0);
  for (int i = 0; i < 100 && !tw_streamer_idle(&S); i++)
    poll_once();
  assert_true(tw_streamer_idle(&S));
  decode_stream(C.buf, C.len, EP, &D);
}

/* The times of the task switch records, in order. */
static size_t switch_times(uint64_t *ts, size_t max)
{
  size_t n = 0;
  for (size_t i = 0; i < D.n && n < max; i++)
    if (D.r[i].id == TW_EV_TASK_SWITCH)
      ts[n++] = D.r[i].ts;
  return n;
}

/* A timer that steps back a few ticks between two polls, events stamped
 * before a poll's reading and drained after it, and two producers'
 * events out of order: every event keeps its own time. */
static void test_small_steps_back(void **state)
{
  (void)state;
  tw_task_switch_at(1000, 1);
  poll_once();                    /* reads 1000 */
  fake_now = 990;            /* the timer steps back */
  poll_once();
  tw_task_switch_at(995, 2);
  fake_now = 1005;
  poll_once();
  tw_task_switch_at(1003, 3); /* stamped before the reading of 1010 */
  fake_now = 1010;
  poll_once();
  fake_now = 1030;
  tw_task_switch_at(1020, 4); /* two producers: committed in this order */
  tw_task_switch_at(1015, 5);
  poll_once();
  fake_now = 1040;
  tw_task_switch_at(1040, 6);
  finish();

  uint64_t ts[8];
  const uint64_t want[] = {1000, 995, 1003, 1020, 1015, 1040};
  assert_int_equal(switch_times(ts, 8), 6);
  for (size_t i = 0; i < 6; i++)
    assert_int_equal(ts[i], want[i]);
  /* TRACE_STOP carries the clock, not a time 2^32 ahead */
  assert_int_equal(D.r[D.n - 1].id, TW_EV_TRACE_STOP);
  assert_true(D.r[D.n - 1].ts < 0x100000000ull);
}

/* A step back just short of half a wrap is still a step back; the
 * clock then runs on across a real wrap, polled every 2^30 ticks. */
static void test_step_back_then_wrap(void **state)
{
  (void)state;
  fake_now = 0x48000000u; /* polled at least every 2^31 ticks */
  poll_once();
  fake_now = 0x90000000u;
  poll_once();
  fake_now = 0x90000000u - 0x7FFFFFF0u; /* 2^31 - 16 ticks back */
  poll_once();
  tw_task_switch_at(fake_now, 1);
  poll_once();
  uint64_t t = 0x90000000u;
  for (int i = 0; i < 5; i++) { /* forward again, past 2^32 */
    t += 0x3FFFFFFFu;
    fake_now = (uint32_t)t;
    poll_once();
  }
  tw_task_switch_at((uint32_t)t, 2);
  finish();

  uint64_t ts[4];
  assert_int_equal(switch_times(ts, 4), 2);
  assert_int_equal(ts[0], 0x10000010u);
  assert_int_equal(ts[1], t);
}

/* A sleep of three quarters of a wrap plus one whole period: the first
 * poll after it reads the clock before the SLEEP event is drained. The
 * reading is 3/4 of a wrap past the last one, which alone says "earlier":
 * the SLEEP event re-anchors the clock. */
static void test_poll_before_sleep_drained(void **state)
{
  (void)state;
  fake_now = 0x10000000u;
  poll_once();
  tw_klog_sleep_enter();
  fake_now = 0xD0000000u;   /* 1 wrap + 0xC0000000 ticks later */
  tw_klog_sleep_exit(7, 1);
  tw_task_switch_at(0xD0000010u, 1);
  fake_now = 0xD0000100u;
  finish();

  size_t s = 0;
  while (s < D.n && D.r[s].id != TW_EV_SLEEP)
    s++;
  assert_true(s < D.n);
  assert_int_equal(D.r[s].ts, 0x10000000ull);
  uint64_t ts[2];
  assert_int_equal(switch_times(ts, 2), 1);
  assert_int_equal(ts[0], 0x1D0000010ull);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_small_steps_back, setup, teardown),
    cmocka_unit_test_setup_teardown(test_step_back_then_wrap, setup, teardown),
    cmocka_unit_test_setup_teardown(test_poll_before_sleep_drained, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
