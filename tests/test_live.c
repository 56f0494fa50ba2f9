/*
 * The live analysis (src/analysis/live.c, docs/live.md): a scripted trace
 * with known answers (tracewire/analysis/scenario.h: control runs 234 us
 * of every 1 ms cycle, each interrupt fires once a cycle) is framed and
 * handed over packet by packet, as `record --live` does; the snapshots
 * show the tasks with their names, states and CPU shares over the last
 * window and since the start, the interrupt rates, and the findings as
 * groups, equal to what `analyze` finds in the same trace. The windows
 * (tw_meter) are checked against plain arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "tracewire/analysis/live.h"
#include "tracewire/analysis/scenario.h"
#include "tracewire/error.h"
#include "tracewire/io/conn.h"
#include "tracewire/model/rtos.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"

/* ---- tw_meter ------------------------------------------------------------------- */

static void test_meter_window(void **state)
{
  (void)state;
  struct tw_meter m;
  tw_meter_init(&m, 1000);
  uint64_t cov;
  assert_int_equal(tw_meter_delta(&m, 0, &cov), 0);
  assert_int_equal(cov, 0);
  /* a counter growing 3 per time unit, sampled every 7 units, a second one
   * appearing at t = 500 growing 1 per unit */
  for (uint64_t t = 0; t <= 5000; t += 7) {
    uint64_t v[2] = {3 * t, t >= 500 ? t - 500 : 0};
    assert_int_equal(tw_meter_add(&m, t, v, t >= 500 ? 2 : 1), 0);
    uint64_t d = tw_meter_delta(&m, 0, &cov);
    assert_int_equal(d, 3 * cov); /* whatever the window, the rate is exact */
    if (t >= 1700) {
      assert_true(cov >= 1000 && cov <= 1100 + 7); /* span .. 1.1 span (+ a step) */
      assert_int_equal(tw_meter_delta(&m, 1, NULL), cov);
      assert_true(tw_meter_rate(&m, 0) > 2.99e9 && tw_meter_rate(&m, 0) < 3.01e9);
    } else {
      assert_true(cov <= t); /* from the first sample: less at the start */
    }
  }
  assert_int_equal(tw_meter_delta(&m, 7, &cov), 0); /* a counter never given */
  tw_meter_free(&m);
  /* no counters at all (a view before the first task: UBSan once caught a
   * memcpy from NULL here) */
  tw_meter_init(&m, 1000);
  assert_int_equal(tw_meter_add(&m, 5, NULL, 0), 0);
  assert_int_equal(tw_meter_add(&m, 500, NULL, 0), 0);
  assert_int_equal(tw_meter_delta(&m, 0, &cov), 0);
  assert_int_equal(cov, 495);
  tw_meter_free(&m);
}

/* ---- the scenario through the live analysis ---------------------------------------- */

static uint8_t *scenario_bytes(const struct tw_scn_cfg *cfg, size_t *len)
{
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  assert_non_null(f);
  assert_int_equal(tw_scn_write(cfg, f), 0);
  fclose(f);
  return (uint8_t *)buf;
}

/* Frames bytes into packets and hands each to the live analysis. */
static unsigned long long hand_over(struct tw_live *l, const uint8_t *bytes, size_t len)
{
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_pkt pkt;
  unsigned long long n = 0;
  assert_int_equal(tw_conn_mem_open(bytes, len, &c), 0);
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  while (tw_reader_next(r, &pkt, 0) == 1) {
    tw_live_packet(l, 0, &pkt, tw_reader_pkt_offset(r), tw_reader_pkt_number(r));
    n++;
  }
  tw_reader_close(r);
  tw_conn_close(c);
  return n;
}

static void wait_finished(struct tw_live *l, struct tw_live_view *v)
{
  for (int i = 0; i < 3000; i++) { /* up to 60 s: a loaded machine, sanitizers */
    tw_live_snapshot(l, v);
    if (v->finished)
      return;
    nanosleep(&(struct timespec){0, 20000000}, NULL);
  }
  fail_msg("the live analysis did not finish");
}

static const struct tw_live_task *task_named(const struct tw_live_view *v, const char *name)
{
  for (size_t i = 0; i < v->ntasks; i++)
    if (!strcmp(v->tasks[i].name, name))
      return &v->tasks[i];
  return NULL;
}

static const struct tw_live_irq *irq_named(const struct tw_live_view *v, const char *name)
{
  for (size_t i = 0; i < v->nirqs; i++)
    if (!strcmp(v->irqs[i].name, name))
      return &v->irqs[i];
  return NULL;
}

static void test_scenario_view(void **state)
{
  (void)state;
  struct tw_scn_cfg scfg = {.cycles = 3000, .inversion_at = 1500, .deadlock = 1, .drops_at = -1};
  size_t len;
  uint8_t *bytes = scenario_bytes(&scfg, &len);
  struct tw_live *l;
  struct tw_live_cfg cfg = {.sources = 1};
  assert_int_equal(tw_live_open(&l, &cfg), 0);
  unsigned long long pkts = hand_over(l, bytes, len);
  tw_live_end(l);
  static struct tw_live_view v;
  wait_finished(l, &v);
  assert_int_equal(v.err, 0);
  assert_int_equal(v.view_skipped, 0);
  assert_int_equal(v.packets, pkts);
  assert_true(v.events > 2990 * TW_SCN_EVENTS_PER_CYCLE);
  assert_int_equal(v.ncores, 1);
  assert_true(v.t - v.t0 > 2900000000ull);
  /* the window: the last second of trace time, sampled every tenth */
  assert_true(v.window_ns >= 1000000000ull && v.window_ns <= 1100000000ull);

  const struct tw_live_task *ctl = task_named(&v, "control");
  assert_non_null(ctl);
  assert_int_equal(ctl->prio, 8);
  /* 234 us a cycle; the deadlock at the end stops comms and ui only */
  assert_true(ctl->cpu_total > 22.4 && ctl->cpu_total < 24.4);
  assert_true(ctl->cpu_window > 22.4 && ctl->cpu_window < 24.4);
  for (const char *const *n = (const char *const[]){"idle", "logger", "comms", "sensor", "ui", NULL};
       *n; n++)
    assert_non_null(task_named(&v, *n));
  const struct tw_live_task *comms = task_named(&v, "comms");
  assert_int_equal(comms->state, TW_RTOS_BLOCKED); /* the planted deadlock */
  assert_string_equal(comms->waits_on, "log_lock");

  tw_live_sort(&v, TW_LIVE_SORT_WINDOW);
  for (size_t i = 1; i < v.ntasks; i++)
    assert_true(v.tasks[i - 1].cpu_window >= v.tasks[i].cpu_window);
  tw_live_sort(&v, TW_LIVE_SORT_PRIO);
  assert_string_equal(v.tasks[0].name, "control");
  tw_live_sort(&v, TW_LIVE_SORT_NAME);
  assert_string_equal(v.tasks[0].name, "comms");

  for (const char *const *n = (const char *const[]){"ADC", "UART", "SysTick", NULL}; *n; n++) {
    const struct tw_live_irq *q = irq_named(&v, *n);
    assert_non_null(q);
    assert_true(q->count >= 2999 && q->count <= 3000);
    assert_true(q->per_s > 990 && q->per_s < 1010); /* once per 1 ms cycle */
  }

  /* the findings: what analyze finds in this trace (the planted deadlock and
   * inversion, four tasks blocked at the end), as groups, worst first */
  assert_int_equal(v.ngroups, 6);
  assert_int_equal(v.ngroups_total, 6);
  assert_int_equal(v.findings, 6);
  assert_int_equal(v.groups[0].kind, TW_AN_DEADLOCK);
  assert_int_equal(v.groups[1].kind, TW_AN_PRIO_INVERSION);
  assert_int_equal(v.groups[1].worst_ns, 1928000);
  assert_int_equal(v.groups[1].worst_t0, 1500072000);
  for (size_t i = 2; i < 6; i++)
    assert_int_equal(v.groups[i].kind, TW_AN_BLOCKED_AT_END);
  assert_non_null(strstr(v.groups[0].text, "comms"));
  tw_live_close(l);
  free(bytes);
}

/* A snapshot while the trace is still coming in: the analysis follows. */
static void test_snapshots_while_running(void **state)
{
  (void)state;
  struct tw_scn_cfg scfg = {.cycles = 400, .inversion_at = -1, .drops_at = -1};
  size_t len;
  uint8_t *bytes = scenario_bytes(&scfg, &len);
  struct tw_live *l;
  struct tw_live_cfg cfg = {.sources = 1, .publish_ns = 1000000};
  assert_int_equal(tw_live_open(&l, &cfg), 0);
  static struct tw_live_view v;
  tw_live_snapshot(l, &v);
  assert_int_equal(v.events, 0); /* nothing yet (a snapshot may already be there: empty) */
  hand_over(l, bytes, len);
  uint64_t seq = 0;
  for (int i = 0; i < 3000 && !seq; i++) {
    tw_live_snapshot(l, &v);
    seq = v.events ? v.seq : 0;
    nanosleep(&(struct timespec){0, 2000000}, NULL);
  }
  assert_true(seq > 0);
  assert_false(v.finished); /* no end yet */
  tw_live_end(l);
  wait_finished(l, &v);
  assert_true(v.seq > seq);
  assert_non_null(task_named(&v, "sensor"));
  for (size_t i = 0; i < v.ngroups; i++) /* a clean trace: only tasks waiting at its end */
    assert_int_equal(v.groups[i].kind, TW_AN_BLOCKED_AT_END);
  tw_live_close(l);
  free(bytes);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_meter_window),
    cmocka_unit_test(test_scenario_view),
    cmocka_unit_test(test_snapshots_while_running),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
