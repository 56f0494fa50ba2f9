/*
 * The kernel event logger in its default build (every predefined event
 * on, no dynamic mask, 128 words): event formats, custom id rules, custom
 * timer, collector exclusion, sleep events, timestamp wrap, the seed's
 * sys_k_* names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <string.h>

#include "tracewire/compat/event_logger.h"
#include "tracewire/klog.h"
#include "tracewire/port.h"

static uint32_t fake_now;
static uint32_t fake_timer(void)
{
  return fake_now;
}

static void drain(void)
{
  struct tw_logger_rec rec;
  uint32_t out[255];
  while (tw_klog_get(&rec, out, 255) != 0)
    ;
  tw_logger_stats_reset(tw_klog_logger());
}

static int setup(void **state)
{
  (void)state;
  tw_klog_set_timer(fake_timer);
  drain();
  return 0;
}

static void expect(uint16_t id, uint32_t n, const uint32_t *words, uint32_t wraps)
{
  struct tw_logger_rec rec;
  uint32_t out[255];
  assert_int_equal(tw_klog_get(&rec, out, 255), (int)n);
  assert_int_equal(rec.id, id);
  assert_int_equal(rec.wraps, wraps);
  assert_memory_equal(out, words, n * 4);
}

static void test_defaults(void **state)
{
  (void)state;
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.capacity, 128);
  assert_int_equal(tw_klog_enabled(1), 1);
  assert_int_equal(tw_klog_enabled(2), 1);
  assert_int_equal(tw_klog_enabled(3), 1);
  assert_int_equal(sys_k_must_log_event(40), 1); /* no dynamic mode */
  assert_int_equal(sys_k_must_log_event(0), 0);
  assert_int_equal(sys_k_event_logger_get_mask(), -1);
  sys_k_event_logger_set_mask(0); /* ignored without dynamic mode */
  assert_int_equal(sys_k_must_log_event(KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID), 1);
  assert_int_equal(KERNEL_EVENT_LOGGER_CONTEXT_SWITCH_EVENT_ID, 1);
  assert_int_equal(KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID, 2);
  assert_int_equal(KERNEL_EVENT_LOGGER_SLEEP_EVENT_ID, 3);
}

static void test_predefined_formats(void **state)
{
  (void)state;
  fake_now = 1000;
  tw_klog_interrupt(17);
  fake_now = 1500;
  tw_klog_context_switch(0x1234, 0x5678);
  fake_now = 2000;
  tw_klog_sleep_enter();
  fake_now = 2600;
  tw_klog_sleep_exit(5, 0);
  expect(2, 2, (uint32_t[]){ 1000, 17 }, 0);
  expect(1, 2, (uint32_t[]){ 1500, 0x1234 }, 0);
  expect(3, 3, (uint32_t[]){ 2000, 2600, 5 }, 0);
}

/* Timestamps are raw 32-bit values: a wrap between two events shows as a
 * smaller second value, and the modular difference is the elapsed time. */
static void test_timestamp_wrap_between_events(void **state)
{
  (void)state;
  fake_now = 0xFFFFFFF0u;
  tw_klog_interrupt(1);
  fake_now = 0x00000010u;
  tw_klog_interrupt(2);
  struct tw_logger_rec rec;
  uint32_t a[2], b[2];
  assert_int_equal(tw_klog_get(&rec, a, 2), 2);
  assert_int_equal(tw_klog_get(&rec, b, 2), 2);
  assert_true(b[0] < a[0]);
  assert_int_equal(b[0] - a[0], 0x20u);
}

/* An interrupt that was pending while the clock was read runs as soon as
 * the read is done (the timer masks interrupts around its read, as the
 * Cortex-M firmware's does). Its events must not land before the event
 * whose clock was read first: the clock is read once the event's place in
 * the ring is taken, so the ring stays in time order. Seen under QEMU with
 * FreeRTOS: custom events stamped before a tick interrupt's EnterInt and
 * LeaveInt landed after them, up to 0.9 ms back. */
static int isr_pending;
static uint32_t isr_timer(void)
{
  uint32_t t = fake_now;
  fake_now += 10;
  if (isr_pending) {
    isr_pending = 0;
    tw_klog_interrupt(7); /* the interrupt, right after the read */
  }
  return t;
}

static void test_stamp_after_reservation(void **state)
{
  (void)state;
  tw_klog_set_timer(isr_timer);
  const uint32_t v = 0xABCD;
  fake_now = 100;
  isr_pending = 1;
  assert_int_equal(tw_klog_put_timed(20, &v, 1), 0); /* the spec 004 API */
  fake_now = 200;
  isr_pending = 1;
  tw_klog_context_switch(0x1000, 0x2000); /* a predefined stamped event */
  struct tw_logger_rec rec;
  uint32_t out[4], last = 0;
  int n = 0;
  while (tw_klog_get(&rec, out, 4) > 0) {
    assert_true(out[0] >= last); /* never back in time in ring order */
    last = out[0];
    n++;
  }
  assert_int_equal(n, 4);
  tw_klog_set_timer(fake_timer);
}

/* A sleep longer than 2^32 cycles: the event records what the seed says
 * (sleep and wake low words); rec.wraps carries the whole periods. */
static void test_sleep_longer_than_2_pow_32(void **state)
{
  (void)state;
  uint64_t sleep_at = 0x00000001FFFFFF00ull, slept = 0x280000000ull; /* 2.5 * 2^32 */
  uint64_t wake_at = sleep_at + slept;
  fake_now = (uint32_t)sleep_at;
  tw_klog_sleep_enter();
  fake_now = (uint32_t)wake_at;
  tw_klog_sleep_exit(9, (uint32_t)(slept >> 32));
  struct tw_logger_rec rec;
  uint32_t out[3];
  assert_int_equal(tw_klog_get(&rec, out, 3), 3);
  assert_int_equal(out[0], (uint32_t)sleep_at);
  assert_int_equal(out[1], (uint32_t)wake_at);
  assert_int_equal(out[2], 9);
  assert_int_equal(rec.wraps, 2);
  /* what a consumer does to extend time */
  uint64_t ext = sleep_at + ((uint64_t)rec.wraps << 32) + (uint32_t)(out[1] - out[0]);
  assert_true(ext == wake_at);
  /* the seed API sees the plain 3-word event */
  tw_klog_sleep_enter();
  tw_klog_sleep_exit(9, 1);
  uint16_t id; uint8_t dr, sz = 3;
  assert_int_equal(sys_k_event_logger_get(&id, &dr, out, &sz), 3);
  assert_int_equal(id, 3);
  assert_int_equal(sz, 3);
}

static void test_custom_id_rules(void **state)
{
  (void)state;
  uint32_t d[2] = { 5, 6 };
  assert_int_equal(tw_klog_put(1, d, 2), TW_EEXIST);
  assert_int_equal(tw_klog_put(2, d, 2), TW_EEXIST);
  assert_int_equal(tw_klog_put(3, d, 2), TW_EEXIST);
  assert_int_equal(tw_klog_put(0, d, 2), TW_EINVAL);
  assert_int_equal(tw_klog_put(8, NULL, 2), TW_EINVAL);
  assert_int_equal(tw_klog_put(8, d, 0), TW_EINVAL);
  assert_int_equal(tw_klog_put_timed(3, NULL, 0), TW_EEXIST);
  assert_int_equal(tw_klog_put_timed(9, NULL, 1), TW_EINVAL);
  sys_k_event_logger_put(2, d, 2);     /* seed: ignored, counted */
  sys_k_event_logger_put(8, NULL, 1);
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.rejects, 10);
  assert_int_equal(st.puts, 0);
  /* 4..17 (RTOS vocabulary) and ids above 32 are fine without dynamic mode */
  assert_int_equal(tw_klog_put(4, d, 2), 0);
  assert_int_equal(tw_klog_put(200, d, 1), 0);
  expect(4, 2, d, 0);
  expect(200, 1, d, 0);
}

/* The seed's custom-event examples, verbatim in spirit. */
static void test_seed_custom_event_examples(void **state)
{
  (void)state;
#define MY_CUSTOM_EVENT_ID 8
#define MY_CUSTOM_TIME_ONLY_EVENT_ID 9
  uint32_t custom_data_1 = 0xC1, custom_data_2 = 0xC2;
  if (sys_k_must_log_event(MY_CUSTOM_EVENT_ID)) {
    uint32_t data[2];
    data[0] = custom_data_1;
    data[1] = custom_data_2;
    sys_k_event_logger_put(MY_CUSTOM_EVENT_ID, data, ARRAY_SIZE(data));
  }
  fake_now = 0x7777;
  if (sys_k_must_log_event(MY_CUSTOM_TIME_ONLY_EVENT_ID))
    sys_k_event_logger_put_timed(MY_CUSTOM_TIME_ONLY_EVENT_ID);
  uint32_t extra[2] = { 1, 2 };
  fake_now = 0x8888;
  assert_int_equal(tw_klog_put_timed(10, extra, 2), 0);
  expect(8, 2, (uint32_t[]){ 0xC1, 0xC2 }, 0);
  expect(9, 1, (uint32_t[]){ 0x7777 }, 0);
  expect(10, 3, (uint32_t[]){ 0x8888, 1, 2 }, 0);
}

/* Seed 004's original counts a custom event larger than the whole ring
 * (128 words here) as dropped, told with the next event; the native
 * tw_klog_put refuses it with TW_ETOOBIG. */
static void test_seed_oversized_custom_event_is_a_drop(void **state)
{
  (void)state;
  static uint32_t big[200];
  uint16_t id;
  uint8_t dropped = 0, size;
  uint32_t data[3] = { 0 };
  struct tw_logger_stats st;
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.pending_drops, 0);
  sys_k_event_logger_put(20, big, 200);
  fake_now = 0x99;
  sys_k_event_logger_put_timed(21);
  size = 3;
  assert_int_equal(sys_k_event_logger_get(&id, &dropped, data, &size), 1);
  assert_int_equal(id, 21);
  assert_int_equal(dropped, 1);
  assert_int_equal(data[0], 0x99);
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.rejects, 0);
  assert_int_equal(tw_klog_put(20, big, 200), TW_ETOOBIG);
  tw_logger_stats(tw_klog_logger(), &st);
  assert_int_equal(st.rejects, 1);
  assert_int_equal(st.pending_drops, 0);
}

/* The seed's retrieve loop on the kernel logger, with drops and an event
 * too large for data[3]. */
static void test_seed_kernel_retrieve_loop(void **state)
{
  (void)state;
  uint32_t big[4] = { 1, 2, 3, 4 };
  fake_now = 50;
  for (int i = 0; i < 50; i++)   /* 42 fit in 128 words, 8 drop */
    tw_klog_interrupt((uint32_t)i);
  uint16_t event_id;
  uint8_t dropped_count;
  uint32_t data[3];
  uint8_t data_size;
  int res, got = 0, dropped = 0, too_big = 0;
  while (1) {
    data_size = SIZE32_OF(data);
    res = sys_k_event_logger_get_wait_timeout(&event_id, &dropped_count, data,
                                              &data_size, 10);
    if (dropped_count > 0)
      dropped += dropped_count;
    if (res > 0) {
      switch (event_id) {
      case KERNEL_EVENT_INTERRUPT_EVENT_ID:
        assert_int_equal(data[1], got < 42 ? (uint32_t)got : 49u);
        got++;
        if (got == 42) { /* room again: one more irq, then a big one */
          tw_klog_interrupt(49);
          tw_klog_put(12, big, 4);
        }
        break;
      default:
        fail_msg("unrecognized event id %d", event_id);
      }
    } else if (res == -EMSGSIZE) {
      assert_int_equal(data_size, 4);
      assert_int_equal(event_id, 12);
      uint32_t wide[4];
      data_size = 4;
      assert_int_equal(sys_k_event_logger_get(&event_id, &dropped_count, wide, &data_size), 4);
      assert_memory_equal(wide, big, sizeof big);
      too_big++;
    } else {
      break; /* timed out: nothing left */
    }
  }
  assert_int_equal(got, 43);
  assert_int_equal(dropped, 8);
  assert_int_equal(too_big, 1);
}

static uintptr_t collector_id;
static void *collector_main(void *arg)
{
  (void)arg;
  sys_k_event_logger_register_as_collector();
  collector_id = tw_port_thread_id();
  return NULL;
}

static void test_collector_context_switches_not_recorded(void **state)
{
  (void)state;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, collector_main, NULL), 0);
  pthread_join(th, NULL);
  assert_true(tw_klog_collector() == collector_id);
  assert_true(collector_id != 0);
  fake_now = 1;
  tw_klog_context_switch(collector_id, 0x10);   /* collector out */
  tw_klog_context_switch(0x10, collector_id);   /* collector in */
  tw_klog_context_switch(0x10, 0x20);           /* recorded */
  tw_klog_interrupt(3);                          /* unaffected */
  expect(1, 2, (uint32_t[]){ 1, 0x10 }, 0);
  expect(2, 2, (uint32_t[]){ 1, 3 }, 0);
  struct tw_logger_rec rec;
  uint32_t out[2];
  assert_int_equal(tw_klog_get(&rec, out, 2), 0);
}

static void test_default_timer_is_port_timestamp(void **state)
{
  (void)state;
  tw_klog_set_timer(NULL);
  assert_true(tw_klog_timestamp_hz() > 0);
  uint32_t a = tw_port_timestamp();
  tw_klog_interrupt(1);
  uint32_t b = tw_port_timestamp();
  struct tw_logger_rec rec;
  uint32_t out[2];
  assert_int_equal(tw_klog_get(&rec, out, 2), 2);
  assert_true(out[0] - a <= b - a); /* taken between a and b (mod 2^32) */
  sys_k_event_logger_set_timer(fake_timer);
  assert_int_equal(tw_klog_timestamp_hz(), 0);
  fake_now = 0xABCD;
  assert_int_equal(tw_klog_timestamp(), 0xABCD);
}

static void on_alarm(int sig)
{
  (void)sig;
  tw_klog_interrupt(0x51); /* the signal plays the interrupt */
}

static void test_get_wait_woken_by_interrupt_hook(void **state)
{
  (void)state;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  fake_now = 0x99;
  ualarm(30000, 0);
  uint16_t id;
  uint8_t dropped = 0xEE, size = 3;
  uint32_t data[3];
  assert_int_equal(sys_k_event_logger_get_wait(&id, &dropped, data, &size), 2);
  assert_int_equal(id, KERNEL_EVENT_LOGGER_INTERRUPT_EVENT_ID);
  assert_int_equal(dropped, 0);
  assert_int_equal(size, 2);
  assert_int_equal(data[0], 0x99);
  assert_int_equal(data[1], 0x51);
  signal(SIGALRM, SIG_DFL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_defaults, setup),
    cmocka_unit_test_setup(test_predefined_formats, setup),
    cmocka_unit_test_setup(test_timestamp_wrap_between_events, setup),
    cmocka_unit_test_setup(test_stamp_after_reservation, setup),
    cmocka_unit_test_setup(test_sleep_longer_than_2_pow_32, setup),
    cmocka_unit_test_setup(test_custom_id_rules, setup),
    cmocka_unit_test_setup(test_seed_custom_event_examples, setup),
    cmocka_unit_test_setup(test_seed_oversized_custom_event_is_a_drop, setup),
    cmocka_unit_test_setup(test_seed_kernel_retrieve_loop, setup),
    cmocka_unit_test_setup(test_collector_context_switches_not_recorded, setup),
    cmocka_unit_test_setup(test_default_timer_is_port_timestamp, setup),
    cmocka_unit_test_setup(test_get_wait_woken_by_interrupt_hook, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
