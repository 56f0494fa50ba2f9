/*
 * The seed's generic logger names (tracewire/compat/event_logger.h): exact
 * signatures, the retrieve loop of the seed with dropped counts and
 * -EMSGSIZE, 8-bit saturation, documented no-ops.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "tracewire/compat/event_logger.h"

/* The seed's signatures, checked at compile time. */
static void (*const p_init)(struct event_logger *, uint32_t *, uint32_t) = sys_event_logger_init;
static void (*const p_put)(struct event_logger *, uint16_t, uint32_t *, uint8_t) = sys_event_logger_put;
static int (*const p_get)(struct event_logger *, uint16_t *, uint8_t *, uint32_t *, uint8_t *) = sys_event_logger_get;
static int (*const p_getw)(struct event_logger *, uint16_t *, uint8_t *, uint32_t *, uint8_t *) = sys_event_logger_get_wait;
static int (*const p_getwt)(struct event_logger *, uint16_t *, uint8_t *, uint32_t *, uint8_t *, uint32_t) = sys_event_logger_get_wait_timeout;

static struct event_logger lg;
static uint32_t ring[32];

static void test_emsgsize_is_platform_value(void **state)
{
  (void)state;
  assert_int_equal(TW_CFG_EMSGSIZE, EMSGSIZE);
  assert_non_null(p_init); assert_non_null(p_put); assert_non_null(p_get);
  assert_non_null(p_getw); assert_non_null(p_getwt);
}

/* The seed's retrieve loop, driven over a scripted history:
 * 3 events, ring overflow (drops), an event too large for data[3]. */
static void test_seed_retrieve_loop(void **state)
{
  (void)state;
  sys_event_logger_init(&lg, ring, 32);
  uint32_t cs[2] = { 100, 7 }, irq[2] = { 200, 11 }, slp[3] = { 300, 400, 11 };
  uint32_t big[5] = { 1, 2, 3, 4, 5 };
  sys_event_logger_put(&lg, KERNEL_EVENT_CONTEXT_SWITCH_EVENT_ID, cs, 2);
  sys_event_logger_put(&lg, KERNEL_EVENT_INTERRUPT_EVENT_ID, irq, 2);
  for (int i = 0; i < 8; i++)  /* 3 + 3 + 8*3 = 30 of 32 words */
    sys_event_logger_put(&lg, KERNEL_EVENT_INTERRUPT_EVENT_ID, irq, 2);
  sys_event_logger_put(&lg, KERNEL_EVENT_SLEEP_EVENT_ID, slp, 3);  /* 4 words: dropped */
  sys_event_logger_put(&lg, KERNEL_EVENT_SLEEP_EVENT_ID, slp, 3);  /* dropped */

  uint16_t event_id;
  uint8_t dropped_count;
  uint32_t data[3];
  uint8_t data_size;
  int res, n_cs = 0, n_irq = 0, n_sleep = 0, n_big = 0, total_dropped = 0;
  for (int iter = 0; iter < 40; iter++) {
    if (iter == 9) { /* the ring has room again */
      sys_event_logger_put(&lg, KERNEL_EVENT_SLEEP_EVENT_ID, slp, 3);
      sys_event_logger_put(&lg, 42, big, 5);
    }
    data_size = SIZE32_OF(data);
    res = sys_event_logger_get(&lg, &event_id, &dropped_count, data, &data_size);
    if (dropped_count > 0)
      total_dropped += dropped_count;
    if (res > 0) {
      switch (event_id) {
      case KERNEL_EVENT_CONTEXT_SWITCH_EVENT_ID:
        assert_int_equal(res, 2); assert_int_equal(data[1], 7); n_cs++; break;
      case KERNEL_EVENT_INTERRUPT_EVENT_ID:
        assert_int_equal(res, 2); assert_int_equal(data[1], 11); n_irq++; break;
      case KERNEL_EVENT_SLEEP_EVENT_ID:
        assert_int_equal(res, 3); assert_int_equal(data[1], 400); n_sleep++;
        assert_int_equal(dropped_count, 2); /* the two lost sleeps */
        break;
      default:
        fail_msg("unrecognized event id %d", event_id);
      }
    } else if (res == -EMSGSIZE) {
      assert_int_equal(event_id, 42);
      assert_int_equal(data_size, 5); /* how many words it needs */
      assert_int_equal(dropped_count, 0);
      uint32_t wide[8];
      uint8_t wsize = SIZE32_OF(wide);
      assert_int_equal(sys_event_logger_get(&lg, &event_id, &dropped_count, wide, &wsize), 5);
      assert_int_equal(wsize, 5);
      assert_memory_equal(wide, big, sizeof big);
      n_big++;
    } else {
      assert_int_equal(res, 0);
      assert_int_equal(dropped_count, 0);
    }
  }
  assert_int_equal(n_cs, 1);
  assert_int_equal(n_irq, 9);
  assert_int_equal(n_sleep, 1);
  assert_int_equal(n_big, 1);
  assert_int_equal(total_dropped, 2);
}

static void test_dropped_count_saturates_at_255(void **state)
{
  (void)state;
  uint32_t b[8], d = 9, out;
  struct event_logger l;
  uint16_t id; uint8_t dr, sz = 1;
  int got = 0;
  sys_event_logger_init(&l, b, 8);
  for (int i = 0; i < 1000; i++)
    sys_event_logger_put(&l, 1, &d, 1);   /* 4 fit, 996 drop */
  while (sys_event_logger_get(&l, &id, &dr, &out, &sz) == 1) {
    assert_int_equal(dr, 0);
    got++;
  }
  assert_int_equal(got, 4);
  sys_event_logger_put(&l, 1, &d, 1);
  sz = 1;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, &sz), 1);
  assert_int_equal(dr, 255);  /* 996 saturates, never wraps to 228 */
  struct tw_logger_rec rec;   /* the native API keeps the exact count */
  sys_event_logger_put(&l, 1, &d, 1);
  for (int i = 0; i < 300; i++)
    sys_event_logger_put(&l, 1, &d, 1);
  while (tw_logger_get(&l.tw, &rec, &out, 1) == 1)
    ;
  sys_event_logger_put(&l, 1, &d, 1);
  assert_int_equal(tw_logger_get(&l.tw, &rec, &out, 1), 1);
  assert_int_equal(rec.dropped, 297);
}

static void test_bad_arguments_are_no_ops(void **state)
{
  (void)state;
  uint32_t b[8], d = 1, out;
  struct event_logger l;
  uint16_t id = 0xBEEF; uint8_t dr = 0x77, sz = 1;
  sys_event_logger_init(NULL, b, 8);
  sys_event_logger_init(&l, NULL, 8);  /* refused: logger stays inert */
  sys_event_logger_put(&l, 1, &d, 1);
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, &sz), 0);
  sys_event_logger_init(&l, b, 1);     /* too small: inert */
  sys_event_logger_put(&l, 1, &d, 1);
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, &sz), 0);
  sys_event_logger_init(&l, b, 8);
  sys_event_logger_put(NULL, 1, &d, 1);
  sys_event_logger_put(&l, 1, NULL, 1);
  sys_event_logger_put(&l, 1, &d, 0);
  assert_int_equal(l.tw.rejects, 2);
  sys_event_logger_put(&l, 3, &d, 1);
  assert_int_equal(sys_event_logger_get(NULL, &id, &dr, &out, &sz), 0);
  assert_int_equal(sys_event_logger_get(&l, NULL, &dr, &out, &sz), 0);
  assert_int_equal(sys_event_logger_get(&l, &id, NULL, &out, &sz), 0);
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, NULL, &sz), 0);
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, NULL), 0);
  sz = 0;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, &sz), 0);
  sz = 1;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, &out, &sz), 1);
  assert_int_equal(id, 3);
}

/* Seed 004's original takes any buffer size (a modulo ring when it is not
 * a power of two). Every word holds events here: 12 words take four
 * 2-word events (3 words each), where rounding down to 8 took two. */
static void test_any_size_is_used_whole(void **state)
{
  (void)state;
  uint32_t b[13], d[2] = { 1, 2 }, out[2];
  struct event_logger l;
  uint16_t id; uint8_t dr, sz = 2;
  memset(b, 0xEE, sizeof b);
  sys_event_logger_init(&l, b, 12);
  for (int i = 0; i < 5; i++)
    sys_event_logger_put(&l, 1, d, 2);
  assert_int_equal(l.tw.drops_total, 1); /* only the fifth */
  assert_int_equal(b[12], 0xEEEEEEEEu);  /* nothing past the 12 words */
  for (int i = 0; i < 4; i++) {
    sz = 2;
    assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 2);
    assert_int_equal(dr, 0);
  }
  /* 255 words: one event of 254 data words fills it exactly */
  static uint32_t big[255], data[254], got[254];
  for (int i = 0; i < 254; i++)
    data[i] = 0x1000u + (uint32_t)i;
  sys_event_logger_init(&l, big, 255);
  sys_event_logger_put(&l, 7, data, 254);
  sz = 254;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, got, &sz), 254);
  assert_memory_equal(got, data, sizeof data);
}

/* Seed 004's original: a put that does not fit is counted as dropped and
 * the count comes with the next event, an event larger than the whole
 * ring included. tracewire's native put refuses that one (TW_ETOOBIG, a
 * reject); the seed API must behave as the original. */
static void test_oversized_event_is_a_drop_told_with_the_next(void **state)
{
  (void)state;
  uint32_t b[8], d[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8];
  struct event_logger l;
  uint16_t id; uint8_t dr = 0x55, sz = 8;
  sys_event_logger_init(&l, b, 8);
  sys_event_logger_put(&l, 4, d, 8);   /* header + 8 words > 8: can never fit */
  assert_int_equal(l.tw.rejects, 0);
  assert_int_equal(l.tw.drops_total, 1);
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 0); /* nothing went in */
  sys_event_logger_put(&l, 5, d, 1);
  sz = 8;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 1);
  assert_int_equal(id, 5);
  assert_int_equal(dr, 1);
  /* the native API keeps its error */
  assert_int_equal(tw_logger_put(&l.tw, 4, d, 8), TW_ETOOBIG);
  assert_int_equal(l.tw.rejects, 1);
  sys_event_logger_put(&l, 5, d, 1);
  sz = 8;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 1);
  assert_int_equal(dr, 0);
}

/* The original carries the dropped count in the event's own header, so the
 * next event carries it whatever its size, even one that fills the ring. */
static void test_event_that_fills_the_ring_carries_the_drops(void **state)
{
  (void)state;
  uint32_t b[8], d[7] = { 10, 11, 12, 13, 14, 15, 16 }, out[7];
  struct event_logger l;
  uint16_t id; uint8_t dr, sz = 7;
  sys_event_logger_init(&l, b, 8);
  sys_event_logger_put(&l, 1, d, 3);
  sys_event_logger_put(&l, 1, d, 3);   /* 4 + 4 words: full */
  sys_event_logger_put(&l, 1, d, 3);   /* dropped */
  sys_event_logger_put(&l, 1, d, 1);   /* dropped */
  for (int i = 0; i < 2; i++) {
    sz = 7;
    assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 3);
    assert_int_equal(dr, 0);
  }
  sys_event_logger_put(&l, 9, d, 7);   /* header + 7 words: exactly the ring */
  sz = 7;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 7);
  assert_int_equal(id, 9);
  assert_int_equal(dr, 2);
  assert_memory_equal(out, d, sizeof d);
  struct tw_logger_stats st;
  tw_logger_stats(&l.tw, &st);
  assert_int_equal(st.pending_drops, 0);
  assert_int_equal(st.used_words, 0);
  /* again, after the ring went round: the count is the new one */
  sys_event_logger_put(&l, 9, d, 7);
  sys_event_logger_put(&l, 1, d, 1);   /* dropped: full */
  sz = 7;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 7);
  assert_int_equal(dr, 0);
  sys_event_logger_put(&l, 9, d, 7);
  sz = 7;
  assert_int_equal(sys_event_logger_get(&l, &id, &dr, out, &sz), 7);
  assert_int_equal(dr, 1);
}

static void test_get_wait_timeout_returns_zero(void **state)
{
  (void)state;
  uint32_t b[8], out;
  struct event_logger l;
  uint16_t id; uint8_t dr = 5, sz = 1;
  sys_event_logger_init(&l, b, 8);
  assert_int_equal(sys_event_logger_get_wait_timeout(&l, &id, &dr, &out, &sz, 20), 0);
  assert_int_equal(dr, 0);
  uint32_t d = 4;
  sys_event_logger_put(&l, 9, &d, 1);
  assert_int_equal(sys_event_logger_get_wait(&l, &id, &dr, &out, &sz), 1);
  assert_int_equal(out, 4);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_emsgsize_is_platform_value),
    cmocka_unit_test(test_seed_retrieve_loop),
    cmocka_unit_test(test_dropped_count_saturates_at_255),
    cmocka_unit_test(test_bad_arguments_are_no_ops),
    cmocka_unit_test(test_any_size_is_used_whole),
    cmocka_unit_test(test_oversized_event_is_a_drop_told_with_the_next),
    cmocka_unit_test(test_event_that_fills_the_ring_carries_the_drops),
    cmocka_unit_test(test_get_wait_timeout_returns_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
