/*
 * The time merge (src/wire/merge.c) against a reference written the
 * plainest way: hold events in an array, release the minimum on (time,
 * arrival order) by a linear scan when more than `window` are held, with
 * the same single-stream pass-through rule (include/tracewire/wire/merge.h).
 * Random streams with ties across streams, timestamps going backwards
 * within a stream, bursts from one stream longer than the window, a stream
 * appearing late, strings that the producer overwrites after the push; the
 * released order and the late count must be identical for every window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tracewire/error.h"
#include "tracewire/wire/merge.h"

#define MAXN 30000

struct out { uint16_t stream; uint32_t seq; uint64_t t; char str[8]; };
struct rec { struct out o[MAXN]; size_t n; };

static int sink(void *ctx, const struct tw_event *ev)
{
  struct rec *r = ctx;
  struct out *o = &r->o[r->n++];
  o->stream = ev->stream;
  o->seq = ev->seq;
  o->t = ev->time_ns;
  memset(o->str, 0, sizeof o->str);
  if (ev->str)
    memcpy(o->str, ev->str, ev->str_len < 7 ? ev->str_len : 7);
  return 0;
}

/* ---- the reference ---- */
struct ref {
  size_t window, n;
  struct { struct tw_event ev; unsigned long long order; char s[8]; } held[MAXN];
  unsigned long long order, late;
  uint64_t last_out;
  int streams_seen, first_stream, pass;
  struct rec *r;
};

static void ref_release(struct ref *f, const struct tw_event *ev)
{
  if (ev->time_ns < f->last_out)
    f->late++;
  else
    f->last_out = ev->time_ns;
  sink(f->r, ev);
}

static void ref_pop(struct ref *f)
{
  size_t b = 0;
  for (size_t i = 1; i < f->n; i++)
    if (f->held[i].ev.time_ns < f->held[b].ev.time_ns ||
        (f->held[i].ev.time_ns == f->held[b].ev.time_ns && f->held[i].order < f->held[b].order))
      b = i;
  struct tw_event ev = f->held[b].ev;
  char s[8];
  memcpy(s, f->held[b].s, 8);
  if (ev.str)
    ev.str = s;
  f->held[b] = f->held[--f->n];
  if (f->held[b].ev.str && b < f->n)
    f->held[b].ev.str = f->held[b].s;
  ref_release(f, &ev);
}

static void ref_push(struct ref *f, const struct tw_event *ev)
{
  if (f->first_stream < 0)
    f->first_stream = ev->stream;
  if (!f->streams_seen && ev->stream != f->first_stream) {
    f->streams_seen = 1;
    f->pass = 0;
  }
  if (f->pass) {
    ref_release(f, ev);
    return;
  }
  if (!f->streams_seen && f->n == f->window) {
    while (f->n)
      ref_pop(f);
    f->pass = 1;
    ref_release(f, ev);
    return;
  }
  f->held[f->n].ev = *ev;
  f->held[f->n].order = f->order++;
  memset(f->held[f->n].s, 0, 8);
  if (ev->str) {
    memcpy(f->held[f->n].s, ev->str, ev->str_len);
    f->held[f->n].ev.str = f->held[f->n].s;
  }
  f->n++;
  if (f->n > f->window)
    ref_pop(f);
}

/* ---- the scenarios ---- */
static uint32_t rnd_state;
static uint32_t rnd(void)
{
  rnd_state = rnd_state * 1664525u + 1013904223u;
  return rnd_state >> 8;
}

static struct rec got, want;
static struct ref ref;

static void run(size_t window, unsigned nstreams, size_t n, int late_stream, uint32_t seed)
{
  struct tw_merge *m;
  uint64_t t[8] = {0};
  uint32_t seq = 0;
  char buf[8];
  rnd_state = seed;
  memset(&got, 0, sizeof got);
  memset(&want, 0, sizeof want);
  memset(&ref, 0, sizeof ref);
  ref.window = window;
  ref.first_stream = -1;
  ref.r = &want;
  assert_int_equal(tw_merge_open(&m, window, sink, &got), 0);
  unsigned cur = 0;
  for (size_t i = 0; i < n; i++) {
    if (rnd() % 8 == 0) /* bursts: a stream keeps the floor a while */
      cur = rnd() % nstreams;
    unsigned sidx = cur;
    if (late_stream && i < n / 2)
      sidx = 0; /* the other streams appear half way through */
    uint16_t stream = (uint16_t)(sidx * 37); /* sparse stream numbers */
    uint32_t r = rnd() % 100;
    if (r < 3 && t[sidx] > 500)
      t[sidx] -= rnd() % 500; /* time goes backwards */
    else
      t[sidx] += 10 * (rnd() % 4); /* ties within and across streams */
    struct tw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.time_ns = t[sidx];
    ev.stream = stream;
    ev.seq = seq++;
    if (r % 7 == 0) {
      snprintf(buf, sizeof buf, "s%u", (unsigned)(ev.seq % 100000));
      ev.str = buf;
      ev.str_len = strlen(buf);
    }
    assert_int_equal(tw_merge_push(m, &ev), 0);
    ref_push(&ref, &ev);
    memset(buf, 'X', sizeof buf); /* the producer reuses its buffer */
  }
  assert_int_equal(tw_merge_flush(m), 0);
  while (ref.n)
    ref_pop(&ref);
  assert_int_equal(got.n, n);
  assert_int_equal(want.n, n);
  for (size_t i = 0; i < n; i++) {
    if (memcmp(&got.o[i], &want.o[i], sizeof got.o[i]) != 0)
      fail_msg("window %zu, %u streams, seed %u: event %zu is seq %u (stream %u, t %llu), "
               "reference seq %u (stream %u, t %llu)", window, nstreams, seed, i, got.o[i].seq,
               got.o[i].stream, (unsigned long long)got.o[i].t, want.o[i].seq, want.o[i].stream,
               (unsigned long long)want.o[i].t);
  }
  assert_int_equal(tw_merge_late(m), ref.late);
  tw_merge_close(m);
}

static void same_order_as_the_reference(void **state)
{
  (void)state;
  static const size_t windows[] = {1, 2, 3, 16, 100, 4096};
  for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
    for (unsigned s = 1; s <= 5; s++)
      run(windows[w], s, 8000, 0, 1000u * (unsigned)w + s);
}

static void late_streams_and_pass_through(void **state)
{
  (void)state;
  static const size_t windows[] = {1, 7, 64, 500};
  for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
    run(windows[w], 4, 20000, 1, 77u + (unsigned)w);
}

/* Issue 19 item 4: window + 1 wrapped for SIZE_MAX (`print --window -1`),
 * the storage came out empty and the first push wrote past it. Every
 * window beyond the maximum is refused; the maximum itself works. */
static void window_bounds(void **state)
{
  (void)state;
  struct tw_merge *m = NULL;
  static const size_t bad[] = {SIZE_MAX, SIZE_MAX - 1, (size_t)TW_MERGE_MAX_WINDOW + 1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(tw_merge_open(&m, bad[i], sink, &got), TW_ERANGE);
  memset(&got, 0, sizeof got);
  assert_int_equal(tw_merge_open(&m, TW_MERGE_MAX_WINDOW, sink, &got), 0);
  struct tw_event ev;
  memset(&ev, 0, sizeof ev);
  for (uint32_t i = 0; i < 3; i++) {
    ev.seq = i;
    ev.time_ns = 30 - 10 * i; /* held: released in time order at the flush */
    assert_int_equal(tw_merge_push(m, &ev), 0);
  }
  assert_int_equal(got.n, 0);
  assert_int_equal(tw_merge_flush(m), 0);
  assert_int_equal(got.n, 3);
  assert_int_equal(got.o[0].seq, 2);
  assert_int_equal(got.o[2].seq, 0);
  tw_merge_close(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_order_as_the_reference),
    cmocka_unit_test(late_streams_and_pass_through),
    cmocka_unit_test(window_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
