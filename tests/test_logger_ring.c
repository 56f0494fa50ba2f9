/*
 * The native ring API (tracewire/logger.h): every documented behaviour,
 * including the white-box cases (indices just below their 2 * capacity
 * wrap, a producer preempted between reservation and commit), and rings of
 * any size against a plain reference model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracewire/logger.h"
#include "tracewire/port.h"

static uint32_t ring[16];
static struct tw_logger lg;

static int setup(void **state)
{
  (void)state;
  memset(ring, 0xA5, sizeof ring); /* init must clear garbage */
  return tw_logger_init(&lg, ring, 16);
}

static void put2(uint16_t id, uint32_t a, uint32_t b, int expect)
{
  uint32_t d[2] = { a, b };
  assert_int_equal(tw_logger_put(&lg, id, d, 2), expect);
}

static void get_expect(uint16_t id, uint32_t n, uint32_t first, uint32_t dropped)
{
  uint32_t out[255];
  struct tw_logger_rec rec;
  assert_int_equal(tw_logger_get(&lg, &rec, out, 255), (int)n);
  assert_int_equal(rec.id, id);
  assert_int_equal(rec.size, n);
  assert_int_equal(out[0], first);
  assert_int_equal(rec.dropped, dropped);
}

static void test_init_rejects_bad_arguments(void **state)
{
  (void)state;
  uint32_t b[8];
  struct tw_logger l;
  assert_int_equal(tw_logger_init(NULL, b, 8), TW_EINVAL);
  assert_int_equal(tw_logger_init(&l, NULL, 8), TW_EINVAL);
  assert_int_equal(tw_logger_init(&l, b, 0), TW_EINVAL);
  assert_int_equal(tw_logger_init(&l, b, 1), TW_EINVAL);
  assert_int_equal(tw_logger_init(&l, b, TW_LOGGER_MAX_WORDS + 1u), TW_EINVAL);
  assert_int_equal(tw_logger_init(&l, b, 6), 0);  /* any size: no power of 2 needed */
  assert_int_equal(tw_logger_init(&l, b, 7), 0);
  assert_int_equal(tw_logger_init(&l, b, 2), 0);
  assert_int_equal(tw_logger_init(&l, b, 8), 0);
}

static void test_fifo_order_and_empty(void **state)
{
  (void)state;
  uint32_t out[4];
  struct tw_logger_rec rec;
  assert_int_equal(tw_logger_get(&lg, &rec, out, 4), 0);
  put2(7, 1, 2, 0);
  uint32_t one = 3;
  assert_int_equal(tw_logger_put(&lg, 8, &one, 1), 0);
  put2(9, 4, 5, 0);
  get_expect(7, 2, 1, 0);
  get_expect(8, 1, 3, 0);
  assert_int_equal(tw_logger_get(&lg, &rec, out, 4), 2);
  assert_int_equal(rec.id, 9);
  assert_int_equal(out[1], 5);
  assert_int_equal(tw_logger_get(&lg, &rec, out, 4), 0);
}

static void test_put_rejects_null_zero_and_oversize(void **state)
{
  (void)state;
  uint32_t d[300] = { 0 };
  struct tw_logger_stats st;
  assert_int_equal(tw_logger_put(NULL, 1, d, 1), TW_EINVAL);
  assert_int_equal(tw_logger_put(&lg, 1, NULL, 1), TW_EINVAL);
  assert_int_equal(tw_logger_put(&lg, 1, d, 0), TW_EINVAL);
  /* 16-word ring: header + 15 data words is the largest event */
  assert_int_equal(tw_logger_put(&lg, 1, d, 16), TW_ETOOBIG);
  assert_int_equal(tw_logger_put(&lg, 1, d, 256), TW_ETOOBIG);
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.rejects, 4); /* the NULL logger has no counter */
  assert_int_equal(st.drops, 0);
  assert_int_equal(st.used_words, 0); /* nothing truncated in */
  d[14] = 0xE14;
  assert_int_equal(tw_logger_put(&lg, 1, d, 15), 0);
  uint32_t out[15];
  struct tw_logger_rec rec;
  assert_int_equal(tw_logger_get(&lg, &rec, out, 15), 15);
  assert_int_equal(out[14], 0xE14);
}

static void test_largest_event_in_big_ring(void **state)
{
  (void)state;
  static uint32_t big[512];
  struct tw_logger l;
  uint32_t d[255], out[255];
  struct tw_logger_rec rec;
  for (int i = 0; i < 255; i++)
    d[i] = (uint32_t)i * 3u;
  assert_int_equal(tw_logger_init(&l, big, 512), 0);
  assert_int_equal(tw_logger_put(&l, 1, d, 255), 0);
  assert_int_equal(tw_logger_get(&l, &rec, out, 255), 255);
  assert_memory_equal(out, d, sizeof d);
}

static void test_full_ring_drops_and_reports_exact_count(void **state)
{
  (void)state;
  /* 16 words hold five 2-word events (3 words each) */
  for (uint32_t i = 0; i < 5; i++)
    put2(1, i, 0, 0);
  for (uint32_t i = 0; i < 300; i++)
    put2(1, 100 + i, 0, TW_ENOSPC);
  struct tw_logger_stats st;
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.drops, 300);
  assert_int_equal(st.pending_drops, 300);
  assert_int_equal(st.puts, 5);
  for (uint32_t i = 0; i < 5; i++)
    get_expect(1, 2, i, 0);
  put2(1, 999, 0, 0);   /* carries the 300 drops (exact, > 255) */
  put2(1, 1000, 0, 0);  /* nothing dropped before this one */
  get_expect(1, 2, 999, 300);
  get_expect(1, 2, 1000, 0);
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.pending_drops, 0);
  assert_int_equal(st.retrieved, 7);
}

static void test_emsgsize_leaves_event(void **state)
{
  (void)state;
  uint32_t d[3] = { 10, 11, 12 }, out[3] = { 0 };
  struct tw_logger_rec rec;
  for (int i = 0; i < 6; i++)
    put2(2, 0, 0, i < 5 ? 0 : TW_ENOSPC);
  for (int i = 0; i < 5; i++)
    get_expect(2, 2, 0, 0);
  assert_int_equal(tw_logger_put(&lg, 3, d, 3), 0); /* carries 1 drop */
  assert_int_equal(tw_logger_get(&lg, &rec, out, 2), TW_EMSGSIZE);
  assert_int_equal(rec.size, 3);
  assert_int_equal(rec.id, 3);
  assert_int_equal(rec.dropped, 0); /* reported with the retrieval */
  assert_int_equal(out[0], 0);      /* nothing copied */
  assert_int_equal(tw_logger_get(&lg, &rec, out, 3), 3);
  assert_int_equal(rec.dropped, 1);
  assert_memory_equal(out, d, sizeof d);
  assert_int_equal(tw_logger_get(NULL, &rec, out, 3), TW_EINVAL);
  assert_int_equal(tw_logger_get(&lg, NULL, out, 3), TW_EINVAL);
  assert_int_equal(tw_logger_get(&lg, &rec, NULL, 3), TW_EINVAL);
  assert_int_equal(tw_logger_get(&lg, &rec, out, 0), TW_EINVAL);
}

/* Events straddle the physical end of the ring many times over. */
static void test_events_wrap_around_the_buffer_end(void **state)
{
  (void)state;
  for (uint32_t i = 0; i < 1000; i++) {
    uint32_t d[4] = { i, i + 1, i + 2, i + 3 }, out[4];
    struct tw_logger_rec rec;
    uint32_t n = 1 + i % 4;
    assert_int_equal(tw_logger_put(&lg, (uint16_t)i, d, n), 0);
    assert_int_equal(tw_logger_get(&lg, &rec, out, 4), (int)n);
    assert_int_equal(rec.id, (uint16_t)i);
    assert_memory_equal(out, d, n * 4);
  }
  for (uint32_t k = 0; k < 16; k++)
    assert_int_equal(ring[k], 0); /* retired words are cleared */
}

/* White box: the mirror indices (in [0, 2 * capacity)) start just below
 * their wrap. */
static void test_indices_wrap_at_twice_the_capacity(void **state)
{
  (void)state;
  lg.head = lg.tail = 2u * 16u - 3u;
  uint32_t seq = 0, next = 0;
  for (int round = 0; round < 40; round++) {
    while (1) {
      uint32_t d[2] = { seq, ~seq };
      int r = tw_logger_put(&lg, 5, d, 2);
      if (r == TW_ENOSPC)
        break;
      assert_int_equal(r, 0);
      seq++;
    }
    assert_true((lg.head - lg.tail + 32u) % 32u <= 16u);
    assert_true(lg.head < 32u && lg.tail < 32u);
    struct tw_logger_rec rec;
    uint32_t out[2];
    int r;
    uint32_t before = next;
    while ((r = tw_logger_get(&lg, &rec, out, 2)) > 0) {
      assert_int_equal(out[0], next);
      assert_int_equal(out[1], ~next);
      assert_int_equal(rec.dropped, next == before && round ? 1u : 0u);
      next++;
    }
    assert_int_equal(r, 0);
    assert_int_equal(lg.head, lg.tail);
  }
  assert_true(seq > 40u); /* the indices went round the 32 many times */
  assert_int_equal(next, seq);
}

/* Rings of every size from 2 to 40 words and a few large odd ones, driven
 * by random puts (1..8 words, sometimes larger than the ring) and gets,
 * against a plain model of the documented behaviour: a put fits when the
 * words in use plus its header, data and (with drops pending, unless the
 * event alone fills the ring) a drops word are within the capacity; a put
 * that does not fit is dropped and its count comes with the next event;
 * FIFO order. Indices start anywhere below their 2 * capacity wrap. */
struct model_ev { uint16_t id; uint32_t n, first, dropped; };

static uint32_t rng_state = 12345u;
static uint32_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static void model_run(uint32_t cap, unsigned ops)
{
  static uint32_t buf[1031];
  static struct model_ev q[1031];
  struct tw_logger l;
  uint32_t used = 0, pending = 0, qh = 0, qn = 0, serial = 0;
  assert_int_equal(tw_logger_init(&l, buf, cap), 0);
  l.head = l.tail = rnd() % (2u * cap); /* white box: anywhere on the index circle */
  for (unsigned op = 0; op < ops; op++) {
    if (rnd() % 3) {
      uint32_t n = 1u + rnd() % (cap < 10 ? cap : 10), d[16];
      for (uint32_t k = 0; k < n; k++)
        d[k] = serial * 31u + k;
      uint32_t need = 1u + n;
      int r = tw_logger_put(&l, (uint16_t)(serial & 0xFFFF), d, n);
      if (need > cap) {
        assert_int_equal(r, TW_ETOOBIG);
      } else {
        uint32_t room = need + (pending && need < cap);
        if (used + room <= cap) {
          assert_int_equal(r, 0);
          q[(qh + qn++) % 1031] = (struct model_ev){ (uint16_t)(serial & 0xFFFF), n, d[0], pending };
          used += room;
          pending = 0;
        } else {
          assert_int_equal(r, TW_ENOSPC);
          pending++;
        }
      }
      serial++;
    } else {
      struct tw_logger_rec rec;
      uint32_t out[16];
      int r = tw_logger_get(&l, &rec, out, 16);
      if (!qn) {
        assert_int_equal(r, 0);
        continue;
      }
      struct model_ev *e = &q[qh];
      assert_int_equal(r, (int)e->n);
      assert_int_equal(rec.id, e->id);
      assert_int_equal(out[0], e->first);
      assert_int_equal(out[e->n - 1], e->first + e->n - 1);
      assert_int_equal(rec.dropped, e->dropped);
      used -= 1u + e->n + (e->dropped && 1u + e->n < cap);
      qh = (qh + 1) % 1031;
      qn--;
    }
    struct tw_logger_stats st;
    tw_logger_stats(&l, &st);
    assert_int_equal(st.used_words, used);
    assert_int_equal(st.pending_drops, pending);
    assert_true(l.head < 2u * cap && l.tail < 2u * cap);
  }
  for (uint32_t k = 0; k < cap && !qn; k++)
    assert_int_equal(buf[k], 0); /* an empty ring is all zero */
}

static void test_any_size_against_a_model(void **state)
{
  (void)state;
  for (uint32_t cap = 2; cap <= 40; cap++)
    model_run(cap, 20000);
  model_run(255, 50000);
  model_run(1000, 50000);
  model_run(1031, 50000);
}

/* White box: a producer preempted between reservation and commit. */
static void test_preempted_producer_blocks_later_events(void **state)
{
  (void)state;
  struct tw_logger_rec rec;
  uint32_t out[2];
  uint32_t h = lg.head;
  lg.head += 3; /* "thread" reserved [h, h+3) and was interrupted */
  put2(2, 0x1A, 0x1B, 0);  /* the "interrupt" puts and commits */
  assert_int_equal(tw_logger_get(&lg, &rec, out, 2), 0); /* not before h */
  struct tw_logger_stats st;
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.puts, 0);
  assert_int_equal(st.used_words, 6);
  /* the thread resumes: data, then the header */
  ring[(h + 1) % 16] = 0x7A; /* slots: indices modulo the capacity */
  ring[(h + 2) % 16] = 0x7B;
  __atomic_store_n(&ring[h % 16], 1u << 16 | 2u, __ATOMIC_RELEASE);
  get_expect(1, 2, 0x7A, 0);
  get_expect(2, 2, 0x1A, 0);
}

static void test_stats_reset(void **state)
{
  (void)state;
  for (int i = 0; i < 7; i++)
    put2(1, 0, 0, i < 5 ? 0 : TW_ENOSPC);
  uint32_t d = 0;
  assert_int_equal(tw_logger_put(&lg, 1, &d, 0), TW_EINVAL);
  get_expect(1, 2, 0, 0);
  struct tw_logger_stats st;
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.puts, 5);
  assert_int_equal(st.retrieved, 1);
  assert_int_equal(st.drops, 2);
  assert_int_equal(st.rejects, 1);
  assert_int_equal(st.capacity, 16);
  assert_int_equal(st.used_words, 12);
  tw_logger_stats_reset(&lg);
  tw_logger_stats(&lg, &st);
  assert_int_equal(st.retrieved, 0);
  assert_int_equal(st.puts, 4);
  assert_int_equal(st.drops, 0);
  assert_int_equal(st.rejects, 0);
  assert_int_equal(st.pending_drops, 2); /* still owed to the next event */
}

TW_LOGGER_DEFINE(static_log, 8);

static void test_static_definition_needs_no_init(void **state)
{
  (void)state;
  uint32_t d = 42, out;
  struct tw_logger_rec rec;
  assert_int_equal(tw_logger_put(&static_log, 4, &d, 1), 0);
  assert_int_equal(tw_logger_get(&static_log, &rec, &out, 1), 1);
  assert_int_equal(out, 42);
}

/* A ring exactly one event large: the drop word can never fit, so the
 * count stays pending instead of wedging the event. */
/* An event that fills the whole ring has no room for a drops word; it
 * still carries the pending count (issue 18: the next event carries it,
 * whatever its size). */
static void test_event_filling_the_ring_carries_the_drops(void **state)
{
  (void)state;
  uint32_t b[2], d = 1, out;
  struct tw_logger l;
  struct tw_logger_rec rec;
  assert_int_equal(tw_logger_init(&l, b, 2), 0);
  assert_int_equal(tw_logger_put(&l, 1, &d, 1), 0);
  assert_int_equal(tw_logger_put(&l, 1, &d, 1), TW_ENOSPC);
  assert_int_equal(tw_logger_put(&l, 1, &d, 1), TW_ENOSPC);
  assert_int_equal(tw_logger_get(&l, &rec, &out, 1), 1);
  assert_int_equal(rec.dropped, 0);
  d = 2;
  assert_int_equal(tw_logger_put(&l, 1, &d, 1), 0);
  struct tw_logger_stats st;
  tw_logger_stats(&l, &st);
  assert_int_equal(st.pending_drops, 0);
  assert_int_equal(st.used_words, 2);
  assert_int_equal(tw_logger_get(&l, &rec, &out, 1), 1);
  assert_int_equal(rec.dropped, 2);
  assert_int_equal(out, 2);
  tw_logger_stats(&l, &st);
  assert_int_equal(st.drops, 2);
  assert_int_equal(b[0] | b[1], 0); /* retired */
}

static void test_get_wait_times_out(void **state)
{
  (void)state;
  uint32_t out[2];
  struct tw_logger_rec rec;
  uint32_t t0 = tw_port_ticks();
  assert_int_equal(tw_logger_get_wait(&lg, &rec, out, 2, 30), 0);
  uint32_t spent = tw_port_ticks() - t0;
  assert_true(spent >= 30);
  assert_true(spent < 1000);
  put2(1, 5, 6, 0);
  assert_int_equal(tw_logger_get_wait(&lg, &rec, out, 2, 0), 2);
  assert_int_equal(tw_logger_get_wait(&lg, &rec, out, 2, 0), 0);
}

static void *late_producer(void *arg)
{
  (void)arg;
  struct timespec ts = { 0, 50 * 1000000L };
  nanosleep(&ts, NULL);
  uint32_t d[2] = { 77, 78 };
  tw_logger_put(&lg, 6, d, 2);
  return NULL;
}

static void test_get_wait_woken_by_thread(void **state)
{
  (void)state;
  pthread_t th;
  uint32_t out[2];
  struct tw_logger_rec rec;
  assert_int_equal(pthread_create(&th, NULL, late_producer, NULL), 0);
  uint32_t t0 = tw_port_ticks();
  assert_int_equal(tw_logger_get_wait(&lg, &rec, out, 2, TW_WAIT_FOREVER), 2);
  assert_true(tw_port_ticks() - t0 < 5000);
  assert_int_equal(out[0], 77);
  pthread_join(th, NULL);
}

static void on_alarm(int sig)
{
  (void)sig;
  uint32_t d[2] = { 0xAA, 0xBB };
  tw_logger_put(&lg, 2, d, 2);
}

static void test_get_wait_woken_by_interrupt(void **state)
{
  (void)state;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  uint32_t out[2];
  struct tw_logger_rec rec;
  ualarm(40000, 0);
  assert_int_equal(tw_logger_get_wait(&lg, &rec, out, 2, 5000), 2);
  assert_int_equal(rec.id, 2);
  assert_int_equal(out[1], 0xBB);
  signal(SIGALRM, SIG_DFL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_init_rejects_bad_arguments),
    cmocka_unit_test_setup(test_fifo_order_and_empty, setup),
    cmocka_unit_test_setup(test_put_rejects_null_zero_and_oversize, setup),
    cmocka_unit_test(test_largest_event_in_big_ring),
    cmocka_unit_test_setup(test_full_ring_drops_and_reports_exact_count, setup),
    cmocka_unit_test_setup(test_emsgsize_leaves_event, setup),
    cmocka_unit_test_setup(test_events_wrap_around_the_buffer_end, setup),
    cmocka_unit_test_setup(test_indices_wrap_at_twice_the_capacity, setup),
    cmocka_unit_test(test_any_size_against_a_model),
    cmocka_unit_test_setup(test_preempted_producer_blocks_later_events, setup),
    cmocka_unit_test_setup(test_stats_reset, setup),
    cmocka_unit_test(test_static_definition_needs_no_init),
    cmocka_unit_test(test_event_filling_the_ring_carries_the_drops),
    cmocka_unit_test_setup(test_get_wait_times_out, setup),
    cmocka_unit_test_setup(test_get_wait_woken_by_thread, setup),
    cmocka_unit_test_setup(test_get_wait_woken_by_interrupt, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
