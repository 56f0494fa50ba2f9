/*
 * Grouped findings (src/analysis/group.c, docs/analyses.md "Groups"):
 * a recurring inversion and a deadlock closed from either side, detected
 * by the real detectors, are one group each with the right count, times,
 * worst instance and middle tasks; random findings are grouped exactly as
 * a plain reference model groups them, also when only the latest are kept
 * (recent_findings); severity order; text and JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tw_vocab_event.h"
#include "analysis/an_internal.h"
#include "tracewire/analysis/analysis.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"

#define US 1000ull
#define SW TW_EV_TASK_SWITCH
#define MX TW_EV_MUTEX

static void feed(struct tw_an *a, uint16_t stream, uint64_t t_us, uint16_t id, uint32_t v0,
                 uint32_t v1, uint32_t v2, const char *str)
{
  /* one target per stream */
  struct tw_event e = tw_test_event(&(struct tw_test_ev){
      .time_ns = t_us * US, .endpoint = (uint16_t)(1 + stream), .stream = stream, .id = id,
      .v0 = v0, .v1 = v1, .v2 = v2, .str = str});
  assert_int_equal(tw_an_feed(a, &e), 0);
}

static void name_task(struct tw_an *a, uint32_t number, uint32_t prio, const char *name)
{
  feed(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, prio, number, name);
}

/* Tasks: 1 low (1), 2 mid (5), 4 mid2 (5), 3 high (8); mutex 1. Episode k:
 * low takes the mutex, high blocks on it, mid (even k) or mid2 (odd k) runs
 * for d(k) us: one inversion of d(k) us each. */
static uint64_t d_us(unsigned k) { return 10 + (k * 37) % 50; }

static uint64_t inversion_episodes(struct tw_an *a, unsigned n, uint64_t *worst_t0)
{
  uint64_t worst = 0;
  for (unsigned k = 0; k < n; k++) {
    uint64_t t = 1000 * (uint64_t)(k + 1), d = d_us(k);
    feed(a, 0, t, SW, 1, 0, 0, NULL);
    feed(a, 0, t + 1, MX, 1, 1, TW_MUTEX_Lock, NULL);
    feed(a, 0, t + 2, SW, 3, 0, 0, NULL);
    feed(a, 0, t + 3, MX, 3, 1, TW_MUTEX_Block, NULL);
    feed(a, 0, t + 4, SW, k % 2 ? 4 : 2, 0, 0, NULL); /* inverted from here */
    feed(a, 0, t + 4 + d, SW, 1, 0, 0, NULL);         /* ...to here */
    feed(a, 0, t + 5 + d, MX, 1, 1, TW_MUTEX_Unlock, NULL);
    feed(a, 0, t + 6 + d, MX, 3, 1, TW_MUTEX_Lock, NULL); /* handed over */
    feed(a, 0, t + 7 + d, SW, 3, 0, 0, NULL);
    feed(a, 0, t + 8 + d, MX, 3, 1, TW_MUTEX_Unlock, NULL);
    if (d > worst) {
      worst = d;
      *worst_t0 = (t + 4) * US;
    }
  }
  return worst;
}

static void test_recurring_inversion_is_one_group(void **state)
{
  (void)state;
  struct tw_an *a;
  uint64_t worst_t0 = 0;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  name_task(a, 1, 1, "low");
  name_task(a, 2, 5, "mid");
  name_task(a, 4, 5, "mid2");
  name_task(a, 3, 8, "high");
  uint64_t worst = inversion_episodes(a, 40, &worst_t0);
  tw_an_finish(a);
  assert_int_equal(tw_an_nfindings(a), 40);
  assert_int_equal(tw_an_ngroups(a), 1);
  const struct tw_an_group *g = tw_an_group_at(a, 0);
  assert_int_equal(g->kind, TW_AN_PRIO_INVERSION);
  assert_int_equal(g->count, 40);
  assert_int_equal(g->ntasks, 2);
  assert_int_equal(g->tasks[0], 3);
  assert_int_equal(g->tasks[1], 1);
  assert_int_equal(g->nobjs, 1);
  assert_int_equal(g->objs[0], 1);
  assert_int_equal(g->nothers, 2); /* mid and mid2 */
  assert_true((g->others[0] == 2 && g->others[1] == 4) || (g->others[0] == 4 && g->others[1] == 2));
  assert_int_equal(g->first, 1004 * US);
  assert_int_equal(g->last, (40 * 1000 + 4 + d_us(39)) * US);
  assert_int_equal(g->worst.ns, worst * US);
  assert_int_equal(g->worst.t0, worst_t0);
  assert_int_equal(tw_an_finding_at(a, g->worst_index)->t0, worst_t0);
  uint64_t total = 0;
  for (unsigned k = 0; k < 40; k++) {
    total += d_us(k) * US;
    assert_int_equal(tw_an_finding_group(a, k), 0);
  }
  assert_int_equal(g->total_ns, total);
  assert_int_equal(g->across_gap, 0);
  char text[1400];
  tw_an_group_text(a, g, text, sizeof text);
  assert_non_null(strstr(text, "40 times from 1.004 ms to"));
  assert_non_null(strstr(text, "worst: high blocked on mutex 1 held by lower-priority low"));
  tw_an_destroy(a);
}

/* The cycle a -> b closed by a's block, broken, then the same cycle closed
 * by b's: one group of two (keyed from the lowest task); the open
 * deadlock's end reaches the group (worst, total, last). */
static void test_deadlock_either_side_is_one_group(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  name_task(a, 5, 3, "ta");
  name_task(a, 6, 3, "tb");
  /* closed by ta */
  feed(a, 0, 10, SW, 5, 0, 0, NULL);
  feed(a, 0, 11, MX, 5, 2, TW_MUTEX_Lock, NULL);
  feed(a, 0, 12, SW, 6, 0, 0, NULL);
  feed(a, 0, 13, MX, 6, 3, TW_MUTEX_Lock, NULL);
  feed(a, 0, 14, MX, 6, 2, TW_MUTEX_Block, NULL);
  feed(a, 0, 15, SW, 5, 0, 0, NULL);
  feed(a, 0, 16, MX, 5, 3, TW_MUTEX_Block, NULL); /* cycle from 16 */
  feed(a, 0, 50, MX, 5, 2, TW_MUTEX_Unlock, NULL);
  feed(a, 0, 51, MX, 6, 2, TW_MUTEX_Lock, NULL);  /* tb handed 2: released at 51 */
  feed(a, 0, 52, SW, 6, 0, 0, NULL);
  feed(a, 0, 53, MX, 6, 2, TW_MUTEX_Unlock, NULL);
  feed(a, 0, 54, MX, 6, 3, TW_MUTEX_Unlock, NULL);
  feed(a, 0, 55, MX, 5, 3, TW_MUTEX_Lock, NULL);
  feed(a, 0, 56, SW, 5, 0, 0, NULL);
  feed(a, 0, 57, MX, 5, 3, TW_MUTEX_Unlock, NULL);
  /* the same locks, closed by tb */
  feed(a, 0, 100, MX, 5, 2, TW_MUTEX_Lock, NULL);
  feed(a, 0, 101, SW, 6, 0, 0, NULL);
  feed(a, 0, 102, MX, 6, 3, TW_MUTEX_Lock, NULL);
  feed(a, 0, 103, SW, 5, 0, 0, NULL);
  feed(a, 0, 104, MX, 5, 3, TW_MUTEX_Block, NULL);
  feed(a, 0, 105, SW, 6, 0, 0, NULL);
  feed(a, 0, 106, MX, 6, 2, TW_MUTEX_Block, NULL); /* cycle from 106, open at the end */
  feed(a, 0, 200, SW, 7, 0, 0, NULL);
  tw_an_finish(a);
  size_t ndl = 0, gdl = SIZE_MAX;
  for (size_t i = 0; i < tw_an_nfindings(a); i++)
    if (tw_an_finding_at(a, i)->kind == TW_AN_DEADLOCK) {
      ndl++;
      assert_true(gdl == SIZE_MAX || gdl == tw_an_finding_group(a, i));
      gdl = tw_an_finding_group(a, i);
    }
  assert_int_equal(ndl, 2);
  assert_int_equal(gdl, 0); /* a deadlock sorts first */
  const struct tw_an_group *g = tw_an_group_at(a, 0);
  assert_int_equal(g->kind, TW_AN_DEADLOCK);
  assert_int_equal(g->count, 2);
  assert_int_equal(g->ntasks, 2);
  assert_int_equal(g->tasks[0], 5); /* rotated to the lowest task */
  assert_int_equal(g->tasks[1], 6);
  assert_int_equal(g->objs[0], 3); /* ta waits on 3, tb on 2 */
  assert_int_equal(g->objs[1], 2);
  assert_int_equal(g->first, 16 * US);
  assert_int_equal(g->last, 200 * US);           /* the open one, to the end */
  assert_int_equal(g->worst.ns, 94 * US);        /* 106..200 beats 16..51 */
  assert_int_equal(g->total_ns, (35 + 94) * US);
  tw_an_destroy(a);
}

/* ---- random findings against a reference model ---------------------------------- */

struct ref_group {
  int kind, bounded, endpoint, ntasks, nobjs;
  uint16_t tasks[8], objs[8];
  uint8_t okinds[8];
  uint64_t count, gap, first, last, total, worst_ns, worst_t0;
};

/* The key as docs/analyses.md states it, written independently. */
static void ref_key(const struct tw_an_finding *f, struct ref_group *k)
{
  memset(k, 0, sizeof *k);
  k->kind = f->kind;
  k->bounded = f->bounded; /* a bounded inversion is a group apart */
  k->endpoint = 1 + f->core; /* core i is endpoint 1 + i here */
  int nt = f->kind == TW_AN_PRIO_INVERSION ? 2 : f->ntasks;
  int start = 0;
  if (f->kind == TW_AN_DEADLOCK) {
    for (int i = 0; i < f->ntasks; i++)
      if (f->tasks[i] < f->tasks[start])
        start = i;
  }
  k->ntasks = nt;
  k->nobjs = f->nobjs;
  for (int i = 0; i < nt; i++)
    k->tasks[i] = f->tasks[(start + i) % nt];
  for (int i = 0; i < f->nobjs; i++) {
    k->objs[i] = f->objs[(start + i) % f->nobjs];
    k->okinds[i] = f->obj_kinds[(start + i) % f->nobjs];
  }
}

static int ref_same(const struct ref_group *x, const struct ref_group *y)
{
  return x->kind == y->kind && x->bounded == y->bounded && x->endpoint == y->endpoint && x->ntasks == y->ntasks &&
         x->nobjs == y->nobjs && !memcmp(x->tasks, y->tasks, sizeof x->tasks) &&
         !memcmp(x->objs, y->objs, sizeof x->objs) && !memcmp(x->okinds, y->okinds, sizeof x->okinds);
}

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
  rng = rng * 1103515245u + 12345u;
  return (rng >> 8) % n;
}

static void random_run(size_t recent)
{
  enum { N = 3000 };
  struct tw_an_cfg cfg = {.recent_findings = recent};
  struct tw_an *a;
  static struct ref_group ref[N];
  size_t nref = 0;
  assert_int_equal(tw_an_create(&a, &cfg), 0);
  feed(a, 0, 1, SW, 1, 0, 0, NULL); /* cores 0 and 1: endpoints 1 and 2 */
  feed(a, 1, 1, SW, 1, 0, 0, NULL);
  for (unsigned i = 0; i < N; i++) {
    struct tw_an_finding f = {.kind = (enum tw_an_finding_kind)rnd(TW_AN_NKINDS),
                              .core = (int)rnd(2), .t0 = 1000 + (uint64_t)i * 10,
                              .across_gap = rnd(5) == 0};
    f.ns = rnd(1000);
    f.t1 = f.t0 + f.ns;
    if (f.kind == TW_AN_DEADLOCK) {
      int n = 2 + (int)rnd(2), rot = (int)rnd((uint32_t)n);
      uint16_t cyc[3] = {3, 7, 9}, ob[3] = {1, 2, (uint16_t)(3 + rnd(2))};
      f.ntasks = f.nobjs = n;
      for (int k = 0; k < n; k++) {
        f.tasks[k] = cyc[(k + rot) % n];
        f.objs[k] = ob[(k + rot) % n];
        f.obj_kinds[k] = TW_OBJ_MUTEX;
      }
    } else {
      f.ntasks = f.kind == TW_AN_PRIO_INVERSION ? 2 + (int)rnd(4) : 1;
      f.bounded = f.kind == TW_AN_PRIO_INVERSION && rnd(3) == 0;
      for (int k = 0; k < f.ntasks; k++)
        f.tasks[k] = (uint16_t)(k < 2 ? rnd(3) : 10 + rnd(5));
      f.nobjs = f.kind == TW_AN_STARVATION ? 0 : 1;
      f.objs[0] = (uint16_t)rnd(3);
      f.obj_kinds[0] = rnd(2) ? TW_OBJ_MUTEX : TW_OBJ_SEM;
    }
    tw__an_add_finding(a, &f);
    struct ref_group k;
    ref_key(&f, &k);
    size_t g = 0;
    while (g < nref && !ref_same(&ref[g], &k))
      g++;
    if (g == nref) {
      ref[nref++] = k;
      ref[g].first = UINT64_MAX;
    }
    ref[g].count++;
    ref[g].gap += f.across_gap;
    ref[g].first = f.t0 < ref[g].first ? f.t0 : ref[g].first;
    ref[g].last = f.t1 > ref[g].last ? f.t1 : ref[g].last;
    ref[g].total += f.ns;
    if (ref[g].count == 1 || f.ns > ref[g].worst_ns) {
      ref[g].worst_ns = f.ns;
      ref[g].worst_t0 = f.t0;
    }
  }
  tw_an_finish(a);
  assert_int_equal(tw_an_ngroups(a), nref);
  uint64_t sum = 0;
  for (size_t i = 0; i < tw_an_ngroups(a); i++) {
    const struct tw_an_group *g = tw_an_group_at(a, i);
    struct ref_group k = {.kind = g->kind, .bounded = g->bounded, .endpoint = g->endpoint,
                          .ntasks = g->ntasks, .nobjs = g->nobjs};
    memcpy(k.tasks, g->tasks, sizeof g->tasks);
    memcpy(k.objs, g->objs, sizeof g->objs);
    memcpy(k.okinds, g->obj_kinds, sizeof g->obj_kinds);
    size_t r = 0;
    while (r < nref && !ref_same(&ref[r], &k))
      r++;
    assert_true(r < nref);
    assert_int_equal(g->count, ref[r].count);
    assert_int_equal(g->across_gap, ref[r].gap);
    assert_int_equal(g->first, ref[r].first);
    assert_int_equal(g->last, ref[r].last);
    assert_int_equal(g->total_ns, ref[r].total);
    assert_int_equal(g->worst.ns, ref[r].worst_ns);
    assert_int_equal(g->worst.t0, ref[r].worst_t0);
    if (g->worst_index != SIZE_MAX)
      assert_memory_equal(tw_an_finding_at(a, g->worst_index), &g->worst, sizeof g->worst);
    else
      assert_true(recent); /* only let go when asked */
    if (i)
      assert_true(tw_an_group_cmp(tw_an_group_at(a, i - 1), g) < 0); /* severity order */
    sum += g->count;
  }
  assert_int_equal(sum, N);
  if (recent) {
    assert_true(tw_an_nfindings(a) >= recent && tw_an_nfindings(a) <= 2 * recent);
    /* the ones kept are the latest, in order, each in its group */
    const struct tw_an_finding *last = tw_an_finding_at(a, tw_an_nfindings(a) - 1);
    assert_int_equal(last->t0, 1000 + (uint64_t)(N - 1) * 10);
    for (size_t i = 0; i < tw_an_nfindings(a); i++) {
      struct ref_group k;
      const struct tw_an_group *g = tw_an_group_at(a, tw_an_finding_group(a, i));
      ref_key(tw_an_finding_at(a, i), &k);
      assert_int_equal(g->kind, k.kind);
      assert_int_equal(g->tasks[0], k.tasks[0]);
    }
  } else {
    assert_int_equal(tw_an_nfindings(a), N);
    for (size_t i = 0; i < N; i++) {
      struct ref_group k;
      const struct tw_an_group *g = tw_an_group_at(a, tw_an_finding_group(a, i));
      ref_key(tw_an_finding_at(a, i), &k);
      assert_int_equal(g->kind, k.kind);
      assert_int_equal(g->endpoint, k.endpoint);
      assert_memory_equal(g->tasks, k.tasks, sizeof k.tasks);
      assert_memory_equal(g->objs, k.objs, sizeof k.objs);
    }
  }
  tw_an_destroy(a);
}

static void test_random_against_reference(void **state)
{
  (void)state;
  random_run(0);
}

static void test_random_bounded_instances(void **state)
{
  (void)state;
  random_run(64);
}

/* Severity: a kind's rank first, then the worst instance, the count, the
 * first time. */
static void test_severity_order(void **state)
{
  (void)state;
  struct tw_an_group x = {.kind = TW_AN_DEADLOCK}, y = {.kind = TW_AN_PRIO_INVERSION};
  x.worst.ns = 1;
  y.worst.ns = 1000;
  assert_true(tw_an_group_cmp(&x, &y) < 0);
  x.kind = TW_AN_PRIO_INVERSION;
  assert_true(tw_an_group_cmp(&x, &y) > 0);
  x.worst.ns = 1000;
  x.count = 5;
  y.count = 4;
  assert_true(tw_an_group_cmp(&x, &y) < 0);
  y.count = 5;
  x.first = 10;
  y.first = 9;
  assert_true(tw_an_group_cmp(&x, &y) > 0);
  y.bounded = 1; /* inheritance bounded it: after an unbounded one, however long */
  y.worst.ns = 1000000;
  assert_true(tw_an_group_cmp(&x, &y) < 0);
  x.kind = TW_AN_BLOCKED_AT_END;
  y.kind = TW_AN_STARVATION;
  assert_true(tw_an_group_cmp(&x, &y) > 0);
}

/* Text: one line per group; JSON: every instance with its group, and the
 * groups with their worst instance. */
static void test_text_and_json(void **state)
{
  (void)state;
  struct tw_an *a;
  uint64_t wt0;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  name_task(a, 1, 1, "low");
  name_task(a, 2, 5, "mid");
  name_task(a, 4, 5, "mid2");
  name_task(a, 3, 8, "high");
  inversion_episodes(a, 5, &wt0);
  tw_an_finish(a);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(tw_an_write_text(a, f), 0);
  fclose(f);
  assert_non_null(strstr(buf, "== findings: 5 in 1 group, worst first"));
  assert_non_null(strstr(buf, "  priority_inversion: 5 times from 1.004 ms"));
  free(buf);
  f = open_memstream(&buf, &len);
  assert_int_equal(tw_an_write_json(a, f), 0);
  fclose(f);
  size_t inst = 0;
  for (const char *p = buf; (p = strstr(p, "\"group\":0")); p++)
    inst++;
  assert_int_equal(inst, 5);
  assert_non_null(strstr(buf, "\"finding_groups\":[{\"kind\":\"priority_inversion\""));
  assert_non_null(strstr(buf, "\"count\":5,"));
  assert_non_null(strstr(buf, "\"others\":[{\"task\":2,\"name\":\"mid\",\"prio\":5},"
                              "{\"task\":4,\"name\":\"mid2\",\"prio\":5}]"));
  free(buf);
  tw_an_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_recurring_inversion_is_one_group),
    cmocka_unit_test(test_deadlock_either_side_is_one_group),
    cmocka_unit_test(test_random_against_reference),
    cmocka_unit_test(test_random_bounded_instances),
    cmocka_unit_test(test_severity_order),
    cmocka_unit_test(test_text_and_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
