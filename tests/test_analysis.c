/*
 * The analyses on scripted traces with known answers (tracewire/analysis/scenario.h;
 * docs/analyses.md derives the numbers): events go through the real trace
 * model and the "analysis" MTI plugin, exactly as `tracewire analyze`
 * feeds them after decoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "tw_vocab_event.h"
#include "analysis/an_internal.h"
#include "model/rtos_internal.h"
#include "tracewire/analysis/analysis.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/model/mti_host.h"
#include "tracewire/analysis/report.h"
#include "tracewire/analysis/scenario.h"

#define US 1000ull
#define MS 1000000ull

struct rig {
  struct tw_mti_system *sys;
  MTI_PluginInstance *inst;
  struct tw_an *an;
};

static int feed(void *ctx, const struct tw_event *ev)
{
  return tw_mti_system_feed(ctx, ev);
}

static void rig_run(struct rig *r, const struct tw_scn_cfg *cfg, int64_t starve_ms)
{
  eslapi_CADIParameterValue_t v[3];
  memset(v, 0, sizeof v);
  v[0].parameterID = 1;
  v[0].dataType = CADI_PARAM_INT;
  v[0].intValue = starve_ms;
  v[1].parameterID = 2;
  v[1].dataType = CADI_PARAM_BOOL;
  v[2].parameterID = 3;
  v[2].dataType = CADI_PARAM_STRING; /* no output on release */
  assert_int_equal(tw_mti_system_create(&r->sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(tw_mti_system_add_component(r->sys, 0, 1, 0, NULL), 0);
  MTI_PluginFactory *fac = tw_an_plugin_factory();
  r->inst = eslapi_ObtainPointer(fac->vtbl->Instantiate(fac, "analysis", 3, v),
                                 MTI_PluginInstance);
  assert_non_null(r->inst);
  assert_int_equal(r->inst->vtbl->RegisterSimulation(r->inst, tw_mti_system_simulation(r->sys)),
                   CADI_STATUS_OK);
  r->an = tw_an_plugin_engine(r->inst);
  assert_non_null(r->an);
  assert_int_equal(tw_mti_system_start(r->sys), 0);
  assert_int_equal(tw_scn_run(cfg, feed, r->sys), 0);
  assert_int_equal(tw_mti_system_stop(r->sys), 0);
  tw_an_finish(r->an);
}

static void rig_done(struct rig *r)
{
  r->inst->vtbl->Release(r->inst);
  tw_mti_system_destroy(r->sys);
}

static size_t count_kind(const struct tw_an *a, enum tw_an_finding_kind k)
{
  size_t n = 0;
  for (size_t i = 0; i < tw_an_nfindings(a); i++)
    n += tw_an_finding_at(a, i)->kind == k;
  return n;
}

static const struct tw_an_finding *first_kind(const struct tw_an *a, enum tw_an_finding_kind k)
{
  for (size_t i = 0; i < tw_an_nfindings(a); i++)
    if (tw_an_finding_at(a, i)->kind == k)
      return tw_an_finding_at(a, i);
  return NULL;
}

static int has_task(const struct tw_an_finding *f, uint16_t t)
{
  for (int i = 0; i < f->ntasks; i++)
    if (f->tasks[i] == t)
      return 1;
  return 0;
}

/* 10 clean cycles and the tail: nothing may be reported; every number is
 * the script's. */
static void test_clean_trace(void **state)
{
  (void)state;
  struct rig r;
  struct tw_scn_cfg cfg = {10, -1, 0, -1};
  rig_run(&r, &cfg, 100);
  assert_int_equal(tw_an_nfindings(r.an), 0);
  assert_int_equal(tw_an_nlosses(r.an), 0);

  struct tw_an_core_stats c;
  assert_int_equal(tw_an_core(r.an, 0, &c), 0);
  assert_int_equal(c.t0, 0);
  assert_int_equal(c.t1, 10 * MS + 30 * US);
  assert_int_equal(c.switches, 18 * 10 + 1);
  assert_int_equal(c.max_nesting, 2);
  /* interrupts: ADC 12 us x 11, UART 30 us x 10 (SysTick's 7 inside) */
  assert_int_equal(c.isr_ns, 11 * 12 * US + 10 * 30 * US);

  struct tw_an_task_stats t;
  assert_int_equal(tw_an_task(r.an, 0, 3, &t), 0); /* control */
  assert_int_equal(t.prio, 8);
  assert_int_equal(t.cpu_ns, 10 * 234 * US + 16 * US); /* until each switch away */
  assert_int_equal(t.state, TW_AN_RUNNING);
  assert_non_null(t.latency);
  assert_int_equal(t.latency->n, 11); /* ADC give -> control running, every cycle */
  assert_int_equal(t.latency->min, 12 * US);
  assert_int_equal(t.latency->max, 12 * US);
  assert_int_equal(tw_an_task(r.an, 0, 4, &t), 0); /* sensor */
  assert_int_equal(t.state, TW_AN_READY);
  assert_int_equal(t.latency->n, 20);
  assert_int_equal(t.latency->min, 16 * US);
  assert_int_equal(t.latency->max, 98 * US);
  assert_int_equal(tw_an_task(r.an, 0, 2, &t), 0); /* comms: switched out for ui */
  assert_int_equal(t.state, TW_AN_SUSPENDED);
  /* every nanosecond of the core is someone's: tasks + interrupts + before the first switch */
  uint64_t sum = c.isr_ns + c.unknown_ns;
  for (uint16_t k = 0; k <= 5; k++) {
    assert_int_equal(tw_an_task(r.an, 0, k, &t), 0);
    sum += t.cpu_ns;
  }
  assert_int_equal(sum, c.t1 - c.t0);

  struct tw_an_irq_stats q;
  assert_int_equal(tw_an_irq(r.an, 0, 16, &q), 0);
  assert_int_equal(q.count, 11);
  assert_int_equal(q.dur->min, 12 * US);
  assert_int_equal(q.dur->max, 12 * US);
  assert_int_equal(tw_an_irq(r.an, 0, 15, &q), 0);
  assert_int_equal(q.count, 10);
  assert_int_equal(q.nested, 10);
  assert_int_equal(q.max_depth, 2);
  assert_int_equal(q.dur->max, 7 * US);

  struct tw_an_obj_stats o;
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_MUTEX, 1, &o), 0); /* bus_lock */
  assert_int_equal(o.count[0], 11);
  assert_int_equal(o.count[2], 10); /* IncLock */
  assert_int_equal(o.max_depth, 2);
  assert_int_equal(o.blocks, 0);
  assert_int_equal(o.hold->n, 11);
  assert_int_equal(o.hold->min, 10 * US);
  assert_int_equal(o.hold->max, 70 * US);
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_ASEM, 1, &o), 0);
  assert_int_equal(o.blocks, 10);
  assert_int_equal(o.releases, 10);
  assert_int_equal(o.wait->min, 60 * US); /* Wait at 360, Release at 420 */
  assert_int_equal(o.wait->max, 60 * US);
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_RSEM, 1, &o), 0);
  assert_int_equal(o.blocks, 10);
  assert_int_equal(o.wait->max, 11 * US); /* Block at 600, ToTask at 611 */
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_MSEM, 1, &o), 0);
  assert_int_equal(o.wait->max, 31 * US);
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_MEVENT, 1, &o), 0);
  assert_int_equal(o.wait->max, 21 * US);
  rig_done(&r);
}

static void test_planted_inversion(void **state)
{
  (void)state;
  struct rig r;
  struct tw_scn_cfg cfg = {10, 4, 0, -1};
  rig_run(&r, &cfg, 100);
  assert_int_equal(tw_an_nfindings(r.an), 1);
  const struct tw_an_finding *f = first_kind(r.an, TW_AN_PRIO_INVERSION);
  assert_non_null(f);
  assert_int_equal(f->tasks[0], 3); /* control, blocked */
  assert_int_equal(f->tasks[1], 1); /* logger, the owner */
  assert_true(has_task(f, 4));      /* sensor and comms ran in between */
  assert_true(has_task(f, 2));
  assert_int_equal(f->obj_kinds[0], TW_OBJ_MUTEX);
  assert_int_equal(f->objs[0], 1);
  assert_int_equal(f->t0, 4 * MS + 72 * US);
  assert_int_equal(f->t1, 4 * MS + 2000 * US);
  assert_int_equal(f->ns, 1928 * US);
  assert_false(f->across_gap);
  struct tw_an_obj_stats o;
  assert_int_equal(tw_an_obj(r.an, 0, TW_OBJ_MUTEX, 1, &o), 0);
  assert_int_equal(o.blocks, 1);
  assert_int_equal(o.contended, 1);
  assert_int_equal(o.wait->n, 1);
  assert_int_equal(o.wait->max, 1941 * US);
  rig_done(&r);
}

static void test_loss_flags_findings(void **state)
{
  (void)state;
  struct rig r;
  struct tw_scn_cfg cfg = {10, 4, 0, 4}; /* DROPS in the middle of the inversion */
  rig_run(&r, &cfg, 100);
  const struct tw_an_finding *f = first_kind(r.an, TW_AN_PRIO_INVERSION);
  assert_non_null(f);
  assert_true(f->across_gap);
  assert_int_equal(tw_an_nlosses(r.an), 1);
  assert_int_equal(tw_an_loss_at(r.an, 0)->t, 5 * MS);
  assert_int_equal(tw_an_loss_at(r.an, 0)->count, 7);
  assert_int_equal(tw_an_loss_at(r.an, 0)->cause, TW_AN_LOSS_RING);
  assert_int_equal(tw_an_lost(r.an, TW_AN_LOSS_RING), 7);
  rig_done(&r);

  struct tw_scn_cfg cfg2 = {10, 4, 0, 7}; /* a loss after it: the finding stands */
  rig_run(&r, &cfg2, 100);
  f = first_kind(r.an, TW_AN_PRIO_INVERSION);
  assert_non_null(f);
  assert_false(f->across_gap);
  assert_int_equal(tw_an_nfindings(r.an), 1);
  rig_done(&r);
}

static void test_starvation_threshold(void **state)
{
  (void)state;
  struct rig r;
  struct tw_scn_cfg cfg = {10, 4, 0, -1};
  rig_run(&r, &cfg, 1); /* logger waits 1.936 ms ready during the inversion */
  assert_int_equal(count_kind(r.an, TW_AN_STARVATION), 1);
  const struct tw_an_finding *f = first_kind(r.an, TW_AN_STARVATION);
  assert_int_equal(f->tasks[0], 1);
  assert_int_equal(f->t0, 4 * MS + 64 * US);
  assert_int_equal(f->t1, 4 * MS + 2000 * US);
  assert_int_equal(f->ns, 1936 * US);
  rig_done(&r);
  rig_run(&r, &cfg, 2); /* 2 ms: nobody */
  assert_int_equal(count_kind(r.an, TW_AN_STARVATION), 0);
  rig_done(&r);
}

static void test_planted_deadlock(void **state)
{
  (void)state;
  struct rig r;
  struct tw_scn_cfg cfg = {5, -1, 1, -1};
  rig_run(&r, &cfg, 100);
  assert_int_equal(count_kind(r.an, TW_AN_DEADLOCK), 1);
  const struct tw_an_finding *f = first_kind(r.an, TW_AN_DEADLOCK);
  assert_int_equal(f->ntasks, 2);
  assert_int_equal(f->tasks[0], 2); /* comms closed the cycle */
  assert_int_equal(f->tasks[1], 5); /* ui */
  assert_int_equal(f->nobjs, 2);
  assert_int_equal(f->objs[0], 3); /* comms waits for log_lock (ui's) */
  assert_int_equal(f->objs[1], 2); /* ui waits for cfg_lock (comms') */
  assert_int_equal(f->t0, 5 * MS + 50 * US);
  assert_int_equal(f->t1, 5 * MS + 505 * US);
  /* blocked at the end: the two deadlocked tasks, and control and sensor
   * waiting for the next cycle's interrupt */
  assert_int_equal(count_kind(r.an, TW_AN_BLOCKED_AT_END), 4);
  for (size_t i = 0; i < tw_an_nfindings(r.an); i++) {
    const struct tw_an_finding *b = tw_an_finding_at(r.an, i);
    if (b->kind != TW_AN_BLOCKED_AT_END)
      continue;
    switch (b->tasks[0]) {
    case 2: assert_int_equal(b->objs[0], 3); assert_int_equal(b->t0, 5 * MS + 50 * US); break;
    case 5: assert_int_equal(b->objs[0], 2); assert_int_equal(b->t0, 5 * MS + 40 * US); break;
    case 3: assert_int_equal(b->obj_kinds[0], TW_OBJ_SEM); break;
    case 4: assert_int_equal(b->obj_kinds[0], TW_OBJ_EVENT); break;
    default: fail_msg("unexpected blocked task %u", b->tasks[0]);
    }
    assert_int_equal(b->t1, 5 * MS + 505 * US);
  }
  assert_int_equal(count_kind(r.an, TW_AN_PRIO_INVERSION), 0);
  rig_done(&r);
}

/* Percentiles from the log-bucket histogram are within 1/32 of the exact
 * nearest-rank value; min, max, mean and count are exact. */
static void test_hist_accuracy(void **state)
{
  (void)state;
  struct tw_hist *h = calloc(1, sizeof *h);
  assert_non_null(h);
  uint64_t x = 88172645463325252ull;
  uint64_t *v = malloc(100000 * sizeof *v);
  for (int i = 0; i < 100000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[i] = x % 50000000ull; /* up to 50 ms */
    tw_hist_add(h, v[i]);
  }
  static const double ps[] = {1, 50, 90, 99, 99.9};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
    uint64_t rank = (uint64_t)(ps[k] / 100.0 * 100000 + 0.999999), below = 0, exact = 0;
    /* exact nearest-rank value: the smallest value with >= rank values <= it */
    uint64_t lo = 0, hi = 50000000ull;
    while (lo < hi) {
      uint64_t mid = (lo + hi) / 2;
      below = 0;
      for (int i = 0; i < 100000; i++)
        below += v[i] <= mid;
      if (below >= rank)
        hi = mid;
      else
        lo = mid + 1;
    }
    exact = lo;
    uint64_t got = tw_hist_pct(h, ps[k]);
    double err = got > exact ? (double)(got - exact) : (double)(exact - got);
    assert_true(err <= (double)exact / 32.0 + 1.0);
  }
  assert_int_equal(h->n, 100000);
  tw_hist_add(h, 3);
  assert_int_equal(h->min, 3);
  free(v);
  free(h);
  struct tw_hist small = {0};
  for (uint64_t i = 1; i <= 20; i++)
    tw_hist_add(&small, i);
  assert_int_equal(tw_hist_pct(&small, 50), 10); /* below 32: exact */
  assert_int_equal(tw_hist_pct(&small, 100), 20);
}

/* A vocabulary event on a stream (endpoint 1, instance = stream), values in
 * field order, fed straight to an engine. */
static void feed_ns(struct tw_an *a, uint16_t stream, uint64_t t_ns, uint16_t id, uint32_t v0,
                    uint32_t v1, uint32_t v2, const char *str)
{
  struct tw_event e = tw_test_event(&(struct tw_test_ev){
      .time_ns = t_ns, .endpoint = 1, .instance = stream, .stream = stream, .id = id,
      .v0 = v0, .v1 = v1, .v2 = v2, .str = str});
  assert_int_equal(tw_an_feed(a, &e), 0);
}

static void feed_ev(struct tw_an *a, uint16_t stream, uint64_t t_us, uint16_t id, uint32_t v0,
                    uint32_t v1, uint32_t v2)
{
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(id);
  assert_non_null(e.desc);
  e.time_ns = e.ticks = t_us * US;
  e.endpoint = 1;
  e.instance = stream;
  e.stream = stream;
  e.id = id;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  e.values[0] = v0;
  e.values[1] = v1;
  e.values[2] = v2;
  assert_int_equal(tw_an_feed(a, &e), 0);
}

#define SW TW_EV_TASK_SWITCH
#define MX TW_EV_MUTEX

/* The engine fed directly: two cores kept apart, a timestamp that steps
 * back is held (no negative intervals), an unmatched LeaveInt is counted. */
static void test_engine_direct(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 100, SW, 1, 0, 0);
  feed_ev(a, 0, 150, MX, 1, 1, TW_MUTEX_Lock);   /* task 1 locks mutex 1 */
  feed_ev(a, 0, 200, SW, 2, 0, 0);
  feed_ev(a, 0, 210, MX, 2, 1, TW_MUTEX_Block);  /* task 2 blocks on it */
  feed_ev(a, 0, 190, SW, 1, 0, 0);               /* back in time: held at 210 */
  feed_ev(a, 0, 300, MX, 1, 1, TW_MUTEX_Unlock);
  feed_ev(a, 0, 301, MX, 2, 1, TW_MUTEX_Lock);   /* handover */
  feed_ev(a, 0, 302, SW, 2, 0, 0);
  feed_ev(a, 0, 310, SW, TW_TASK_SWITCH_LeaveInt, 0, 0);
  feed_ev(a, 1, 50, SW, 7, 0, 0);
  feed_ev(a, 1, 80, SW, 8, 0, 0);
  tw_an_finish(a);
  struct tw_an_core_stats c;
  assert_int_equal(tw_an_ncores(a), 2);
  assert_int_equal(tw_an_core(a, 0, &c), 0);
  assert_int_equal(c.switches, 4);
  assert_int_equal(c.t1, 310 * US);
  assert_int_equal(tw_an_core(a, 1, &c), 0);
  assert_int_equal(c.switches, 2);
  struct tw_an_task_stats t1, t2;
  assert_int_equal(tw_an_task(a, 0, 1, &t1), 0);
  assert_int_equal(tw_an_task(a, 0, 2, &t2), 0);
  assert_int_equal(t1.cpu_ns + t2.cpu_ns, 210 * US); /* 100..310, nothing negative */
  assert_int_equal(tw_an_task(a, 1, 1, &t1), -1);   /* listed on the core it ran on */
  assert_int_equal(tw_an_task(a, 1, 8, &t1), 0);
  struct tw_an_obj_stats o;
  assert_int_equal(tw_an_obj(a, 0, TW_OBJ_MUTEX, 1, &o), 0);
  assert_int_equal(o.wait->n, 1);
  assert_int_equal(o.wait->max, 91 * US);             /* blocked 210 .. handed over 301 */
  assert_int_equal(o.hold->n, 1);
  assert_int_equal(o.hold->max, 150 * US);
  assert_int_equal(o.locks, 2);
  assert_int_equal(o.unlocks, 1);
  assert_int_equal(o.contended, 1);
  assert_int_equal(tw_an_nfindings(a), 0);            /* no priorities: no inversion */
  tw_an_destroy(a);
}

/* Issue 19 item 1: blocking on a mutex whose holder runs on another core
 * (never seen on this one) read freed memory. The holder is the model's
 * (tasks belong to the endpoint): the inversion is found. */
static void test_block_on_unseen_owner(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 8, 1, "h");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 5, 2, "m");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 1, 40, "l");
  feed_ev(a, 1, 10, SW, 40, 0, 0);
  feed_ev(a, 1, 20, MX, 40, 1, TW_MUTEX_Lock);
  feed_ev(a, 0, 30, SW, 1, 0, 0);
  feed_ev(a, 0, 35, SW, 2, 0, 0);
  feed_ev(a, 0, 40, MX, 1, 1, TW_MUTEX_Block);
  feed_ev(a, 0, 100, SW, 1, 0, 0);
  tw_an_finish(a);
  assert_int_equal(count_kind(a, TW_AN_PRIO_INVERSION), 1);
  const struct tw_an_finding *f = first_kind(a, TW_AN_PRIO_INVERSION);
  assert_int_equal(f->core, 0);
  assert_int_equal(f->t0, 40 * US);
  assert_int_equal(f->t1, 100 * US);
  assert_int_equal(f->ns, 60 * US);
  assert_true(has_task(f, 1) && has_task(f, 40) && has_task(f, 2));
  tw_an_destroy(a);
}

static void test_window_near_clock_end(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  alarm(60);
  feed_ns(a, 0, 0, SW, 1, 0, 0, NULL);
  feed_ns(a, 0, UINT64_MAX - 1000, SW, 2, 0, 0, NULL);
  feed_ns(a, 0, UINT64_MAX, SW, 1, 0, 0, NULL);
  tw_an_finish(a);
  alarm(0);
  struct tw_an_task_stats t;
  assert_int_equal(tw_an_task(a, 0, 1, &t), 0);
  assert_true(t.cpu_ns == UINT64_MAX - 1000);
  assert_int_equal(tw_an_task(a, 0, 2, &t), 0);
  assert_int_equal(t.cpu_ns, 1000);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  tw_an_write_json(a, f);
  assert_int_equal(fclose(f), 0);
  const char *p = strstr(buf, "\"load_permille\":[");
  assert_non_null(p); /* task 1's: busy in every window but the last */
  p += strlen("\"load_permille\":[");
  assert_int_equal(strtoul(p, NULL, 10), 1000);
  for (char *q = (char *)p; *q && *q != ']'; q++) {
    unsigned long v = strtoul(q, &q, 10);
    assert_true(v <= 1000);
    if (*q == ']')
      break;
  }
  free(buf);
  tw_an_destroy(a);
}

/* The page's column `id` (base64 of LEB128 zigzag deltas) summed back into
 * times, as the page's script does; returns how many. */
static size_t page_times(const char *html, const char *id, int64_t *out, size_t cap)
{
  char key[64];
  snprintf(key, sizeof key, "id=\"%s\">", id);
  const char *p = strstr(html, key);
  assert_non_null(p);
  p += strlen(key);
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint8_t raw[256];
  size_t nraw = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (; *p && *p != '<'; p++) {
    const char *c = strchr(tab, *p);
    if (!c)
      continue; /* newlines, padding */
    acc = acc << 6 | (uint32_t)(c - tab);
    if ((bits += 6) >= 8) {
      assert_true(nraw < sizeof raw);
      raw[nraw++] = (uint8_t)(acc >> (bits -= 8));
    }
  }
  size_t n = 0;
  uint64_t sum = 0;
  for (size_t i = 0; i < nraw && n < cap;) {
    uint64_t v = 0;
    for (int sh = 0; i < nraw; sh += 7) {
      v |= (uint64_t)(raw[i] & 127) << sh;
      if (!(raw[i++] & 128))
        break;
    }
    sum += (v >> 1) ^ (0u - (v & 1));
    memcpy(&out[n++], &sum, sizeof sum);
  }
  return n;
}

/* Issue 19 item 3: the report's times are ns from the trace's start; one
 * damaged timestamp near 2^64 ns wrapped to a negative time and the delta
 * to the next overflowed (UBSan). Times saturate at +-(2^62 - 1) ns
 * (docs/analyses.md), so the page shows them in order, at the edge. */
static void test_report_extreme_times(void **state)
{
  (void)state;
  const uint64_t t0 = 1ull << 63, lim = (1ull << 62) - 1;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  tw_an_finish(a);
  struct tw_report *r;
  struct tw_report_cfg cfg = {.t0 = t0, .t1 = t0 + 1000, .title = "extreme"};
  assert_int_equal(tw_report_open(&r, &cfg), 0);
  const uint64_t ts[] = {0, t0 + 10, t0 + lim + 7, UINT64_MAX};
  const int64_t want[] = {-(int64_t)lim, 10, (int64_t)lim, (int64_t)lim};
  for (size_t i = 0; i < 4; i++) {
    struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .t = ts[i], .lane_kind = TW_OBJ_TASK,
                            .lane = 1, .id = TW_EV_TASK_SWITCH, .type = 1,
                            .task = TW_AN_NO_TASK};
    tw_report_item(r, &it);
  }
  struct tw_an_item run = {.kind = TW_AN_ITEM_STATE, .t = 0, .t1 = UINT64_MAX,
                           .lane_kind = TW_OBJ_TASK, .lane = 1, .state = TW_AN_RUNNING};
  tw_report_item(r, &run);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(tw_report_write(r, a, f), 0);
  assert_int_equal(fclose(f), 0);
  int64_t got[8];
  assert_int_equal(page_times(buf, "tw-ev-t", got, 8), 4);
  for (size_t i = 0; i < 4; i++)
    assert_true(got[i] == want[i]);
  assert_int_equal(page_times(buf, "tw-sg-t0", got, 8), 1);
  assert_true(got[0] == -(int64_t)lim);
  free(buf);
  tw_report_close(r);
  tw_an_destroy(a);
}
/* A loss inside an interrupt: the frame is closed at the gap (its LeaveInt
 * may be among the lost events), not charged to the end of the trace; the
 * running task is unknown until the next switch (untraced time). */
static void test_gap_closes_interrupts(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 0, SW, 1, 0, 0);
  feed_ev(a, 0, 10, SW, TW_TASK_SWITCH_EnterInt, 0, 0);
  feed_ev(a, 0, 10, TW_EV_INTERRUPT, 16, 0, 0);
  feed_ev(a, 0, 50, TW_EV_DROPS, 5, 0, 0);
  feed_ev(a, 0, 60, SW, 1, 0, 0);
  feed_ev(a, 0, 100, SW, TW_TASK_SWITCH_EnterInt, 0, 0);
  feed_ev(a, 0, 100, TW_EV_INTERRUPT, 17, 0, 0);
  feed_ev(a, 0, 110, SW, TW_TASK_SWITCH_LeaveInt, 0, 0);
  feed_ev(a, 0, 200, SW, 2, 0, 0);
  tw_an_finish(a);
  struct tw_an_core_stats c;
  struct tw_an_irq_stats q;
  assert_int_equal(tw_an_core(a, 0, &c), 0);
  assert_int_equal(c.max_nesting, 1);
  assert_int_equal(c.isr_ns, 40 * US + 10 * US);
  assert_int_equal(c.unknown_ns, 10 * US);          /* 50..60: who ran is not known */
  assert_int_equal(c.switches, 2);                  /* 1, then 2: 1 again is none */
  assert_int_equal(tw_an_irq(a, 0, 16, &q), 0);
  assert_int_equal(q.cut, 1);
  assert_int_equal(q.count, 0);
  assert_int_equal(tw_an_irq(a, 0, 17, &q), 0);
  assert_int_equal(q.count, 1);
  assert_int_equal(q.dur->max, 10 * US);
  assert_int_equal(tw_an_nlosses(a), 1);
  assert_int_equal(tw_an_loss_at(a, 0)->t, 50 * US);
  assert_int_equal(tw_an_lost(a, TW_AN_LOSS_RING), 5);
  tw_an_destroy(a);
}

/* Acts FreeRTOS's rows will bring (the model's tests show each): fed with
 * their meaning through the model the engine reads. */
static const struct tw_field_desc fut_fields[] = {
  {"task", TW_FT_U16, 0, 0, 16, TW_OBJ_TASK, ""},
  {"obj", TW_FT_U16, 0, 16, 16, TW_OBJ_SEM, ""},
  {"value", TW_FT_U32, 1, 0, 32, TW_OBJ_NONE, ""}};
static const struct tw_event_desc fut_desc = {
  30, TW_MOD_RTOS, TW_EVF_TIMED, 3, 2, -1, TW_MARKER_NONE, 0, "FUTURE", "Future", "",
  fut_fields, NULL};

static void feed_act(struct tw_an *a, uint64_t t_us, enum tw_act act, enum tw_obj_act oact,
                     int task, uint32_t obj, uint32_t value)
{
  struct tw_meaning mn = {.id = 30, .any = 1, .act = act, .obj_act = oact,
                          .task_field = task < 0 ? -1 : 0, .obj_field = 1, .kind_field = -1,
                          .value_field = 2, .obj_kind = TW_OBJ_SEM, .row = 0xFFFF,
                          .task_src = task < 0 ? TW_TASK_FROM_NONE : TW_TASK_FROM_FIELD};
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = &fut_desc;
  e.time_ns = e.ticks = t_us * US;
  e.endpoint = 1;
  e.id = 30;
  e.module = TW_MOD_RTOS;
  e.nvalues = 3;
  e.values[0] = task < 0 ? 0 : (uint32_t)task;
  e.values[1] = obj;
  e.values[2] = value;
  assert_int_equal(tw__rtos_feed_as((struct tw_rtos *)(uintptr_t)tw_an_model(a), &e, &mn), 0);
}

/* Issue 14's analyses: an inversion through a binary semaphore (its holder
 * is the task that took it), ended when the holder inherits the waiter's
 * priority; a deleted task and a delayed one are not "blocked at end". */
static void test_binary_semaphore_inversion(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 1, 1, "low");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 5, 2, "mid");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 8, 3, "high");
  feed_act(a, 1, TW_ACT_NONE, TW_OACT_CREATE_BINARY, -1, 4, 1);
  feed_ev(a, 0, 2, SW, 1, 0, 0);
  feed_ev(a, 0, 3, TW_EV_SEM_TASK, 1, 4, TW_SEM_TASK_Take);
  feed_ev(a, 0, 4, SW, 3, 0, 0);
  feed_ev(a, 0, 5, TW_EV_SEM_TASK, 3, 4, TW_SEM_TASK_Block);
  feed_ev(a, 0, 6, SW, 2, 0, 0);                      /* mid runs: inverted from here */
  feed_act(a, 20, TW_ACT_PRIO_INHERIT, TW_OACT_NONE, 1, 0, 8); /* ...until low inherits */
  feed_ev(a, 0, 30, SW, 1, 0, 0);
  feed_ev(a, 0, 31, TW_EV_SEM, 4, TW_SEM_Give, 0);
  feed_ev(a, 0, 32, TW_EV_SEM_TASK, 3, 4, TW_SEM_TASK_ToTask);
  feed_act(a, 33, TW_ACT_PRIO_DISINHERIT, TW_OACT_NONE, 1, 0, 1);
  feed_ev(a, 0, 34, SW, 3, 0, 0);
  feed_act(a, 40, TW_ACT_CREATE, TW_OACT_NONE, 6, 0, 4);
  feed_ev(a, 0, 41, TW_EV_SEM_TASK, 6, 5, TW_SEM_TASK_Block);
  feed_act(a, 42, TW_ACT_DELETE, TW_OACT_NONE, 6, 0, 0);
  feed_act(a, 43, TW_ACT_DELAY, TW_OACT_NONE, 3, 0, 100);
  feed_ev(a, 0, 44, SW, 2, 0, 0);
  tw_an_finish(a);
  assert_int_equal(count_kind(a, TW_AN_PRIO_INVERSION), 1);
  const struct tw_an_finding *f = first_kind(a, TW_AN_PRIO_INVERSION);
  assert_int_equal(f->tasks[0], 3);
  assert_int_equal(f->tasks[1], 1);
  assert_true(has_task(f, 2));
  assert_int_equal(f->obj_kinds[0], TW_OBJ_SEM);
  assert_int_equal(f->objs[0], 4);
  assert_int_equal(f->t0, 6 * US);
  assert_int_equal(f->t1, 20 * US);
  assert_int_equal(f->ns, 14 * US);
  assert_int_equal(count_kind(a, TW_AN_BLOCKED_AT_END), 0); /* deleted, delayed */
  assert_int_equal(count_kind(a, TW_AN_STARVATION), 0);
  struct tw_an_task_stats t;
  assert_int_equal(tw_an_task(a, 0, 3, &t), 0);
  assert_int_equal(t.state, TW_AN_BLOCKED); /* a delay is a block (on time) */
  tw_an_destroy(a);
}

static void feed_object(struct tw_an *a, uint64_t t_us, uint32_t type, enum tw_obj_kind kind,
                        uint32_t n, uint32_t arg)
{
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(TW_EV_OBJECT);
  e.time_ns = e.ticks = t_us * US;
  e.endpoint = 1;
  e.id = TW_EV_OBJECT;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  uint32_t v[] = {n, kind, type, 0, 0, arg};
  memcpy(e.values, v, sizeof v);
  assert_int_equal(tw_an_feed(a, &e), 0);
}

/* The analyses on FreeRTOS's events (issue 14): a mutex inversion that
 * inheritance bounds is reported as bounded, with the waiter's wait; the
 * inheritance is counted on the holder; a give-from-ISR notification
 * starts a release latency; a task that takes its signalling semaphore and
 * waits on it again is no deadlock; a task waiting on time or on a
 * notification at the end is no finding, and says what it waits for. */
static void test_freertos_analyses(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 1, 1, "low2");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 4, 2, "mid");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 7, 3, "high2");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 3, 4, "worker");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 8, 5, "Tmr Svc");
  feed_ns(a, 0, 0, TW_EV_NAME, TW_OBJ_TASK, 0, 6, "IDLE");
  feed_object(a, 1, TW_OBJECT_Create, TW_OBJ_MUTEX, 6, 1);
  feed_object(a, 1, TW_OBJECT_Create, TW_OBJ_SEM, 9, 1);
  feed_ev(a, 0, 2, SW, 1, 0, 0);
  feed_ev(a, 0, 3, MX, 1, 6, TW_MUTEX_Lock);
  feed_ev(a, 0, 10, TW_EV_TASK, 3, TW_TASK_Ready, 0);
  feed_ev(a, 0, 10, SW, 3, 0, 0);
  feed_ev(a, 0, 11, MX, 3, 6, TW_MUTEX_Block);
  feed_ev(a, 0, 12, TW_EV_TASK, 1, TW_TASK_PriorityInherit, 7);
  feed_ev(a, 0, 13, SW, 1, 0, 0);
  feed_ev(a, 0, 14, TW_EV_TASK, 2, TW_TASK_Ready, 0); /* mid: lower than low2 now */
  feed_ev(a, 0, 20, MX, 1, 6, TW_MUTEX_Unlock);
  feed_ev(a, 0, 21, TW_EV_TASK, 1, TW_TASK_PriorityDisinherit, 1);
  feed_ev(a, 0, 22, TW_EV_TASK, 3, TW_TASK_Ready, 0);
  feed_ev(a, 0, 22, SW, 3, 0, 0);
  feed_ev(a, 0, 23, MX, 3, 6, TW_MUTEX_Lock);
  feed_ev(a, 0, 24, MX, 3, 6, TW_MUTEX_Unlock);
  /* worker takes its signalling semaphore, then waits on it again */
  feed_ev(a, 0, 25, SW, 4, 0, 0);
  feed_ev(a, 0, 26, TW_EV_SEM_TASK, 4, 9, TW_SEM_TASK_Take);
  feed_ev(a, 0, 27, TW_EV_SEM_TASK, 4, 9, TW_SEM_TASK_Block);
  feed_ev(a, 0, 28, SW, 2, 0, 0);
  feed_ev(a, 0, 29, TW_EV_TASK, 2, TW_TASK_Delay, 5);
  feed_ev(a, 0, 29, SW, 5, 0, 0);
  feed_ev(a, 0, 29, TW_EV_NOTIFY, 5, 0, TW_NOTIFY_TakeBlock);
  /* an interrupt notifies the timer task and gives worker's semaphore */
  feed_ev(a, 0, 30, SW, TW_TASK_SWITCH_EnterInt, 0, 0);
  feed_ev(a, 0, 31, TW_EV_NOTIFY, 5, 0, TW_NOTIFY_GiveFromISR);
  feed_ev(a, 0, 32, TW_EV_TASK, 5, TW_TASK_Ready, 0);
  feed_ev(a, 0, 33, SW, TW_TASK_SWITCH_LeaveInt, 0, 0);
  feed_ev(a, 0, 35, SW, 5, 0, 0);
  feed_ev(a, 0, 36, TW_EV_TASK, 5, TW_TASK_DelayUntil, 100);
  feed_ev(a, 0, 37, SW, 6, 0, 0);
  tw_an_finish(a);

  assert_int_equal(count_kind(a, TW_AN_PRIO_INVERSION), 1);
  const struct tw_an_finding *f = first_kind(a, TW_AN_PRIO_INVERSION);
  assert_true(f->bounded);
  assert_int_equal(f->tasks[0], 3);
  assert_int_equal(f->tasks[1], 1);
  assert_int_equal(f->objs[0], 6);
  assert_int_equal(f->t0, 11 * US);
  assert_int_equal(f->t1, 22 * US);
  assert_int_equal(f->ns, 11 * US);
  assert_int_equal(count_kind(a, TW_AN_DEADLOCK), 0);     /* a signal, not a lock */
  assert_int_equal(count_kind(a, TW_AN_BLOCKED_AT_END), 1); /* worker, on its semaphore */
  assert_int_equal(first_kind(a, TW_AN_BLOCKED_AT_END)->tasks[0], 4);
  struct tw_an_task_stats t;
  assert_int_equal(tw_an_task(a, 0, 1, &t), 0);
  assert_int_equal(t.inherits, 1);
  assert_int_equal(t.inherited_max, 7);
  assert_int_equal(t.inherited_ns, 9 * US);
  assert_int_equal(tw_an_task(a, 0, 5, &t), 0);
  assert_int_equal(t.state, TW_AN_BLOCKED);
  assert_int_equal(t.wait, TW_RTOS_WAIT_TIME);
  assert_non_null(t.latency);
  assert_int_equal(t.latency->n, 1);
  assert_int_equal(t.latency->min, 4 * US); /* the GiveFromISR at 31 -> running at 35 */
  assert_int_equal(tw_an_task(a, 0, 2, &t), 0);
  assert_int_equal(t.wait, TW_RTOS_WAIT_TIME);
  assert_int_equal(t.inherited_max, -1);
  struct tw_an_obj_stats o;
  assert_int_equal(tw_an_obj(a, 0, TW_OBJ_MUTEX, 6, &o), 0);
  assert_int_equal(o.blocks, 1);
  assert_int_equal(o.releases, 1); /* the kernel's Ready ended the block */
  tw_an_destroy(a);
}

/* SMP: a task that migrates is listed on each core it ran on, with the
 * CPU time it got there; each core's time adds up, nothing counted twice. */
static void test_migration(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 0, SW, 1, 0, 0);
  feed_ev(a, 1, 0, SW, 3, 0, 0);
  feed_ev(a, 0, 10, SW, 2, 0, 0);
  feed_ev(a, 1, 12, SW, 1, 0, 0); /* task 1 migrates to core 1 */
  feed_ev(a, 0, 30, SW, 2, 0, 0);
  feed_ev(a, 1, 20, SW, 3, 0, 0);
  feed_ev(a, 1, 30, SW, 3, 0, 0);
  tw_an_finish(a);
  struct tw_an_task_stats t;
  assert_int_equal(tw_an_task(a, 0, 1, &t), 0);
  assert_int_equal(t.cpu_ns, 10 * US);
  assert_int_equal(t.switches_in, 1);
  assert_false(t.home);
  assert_int_equal(tw_an_task(a, 1, 1, &t), 0);
  assert_int_equal(t.cpu_ns, 8 * US);
  assert_true(t.home);
  assert_int_equal(tw_an_task(a, 0, 3, &t), -1); /* never ran on core 0 */
  for (int core = 0; core < 2; core++) {
    struct tw_an_core_stats c;
    uint64_t sum = 0;
    assert_int_equal(tw_an_core(a, core, &c), 0);
    for (uint16_t n = 1; n <= 3; n++)
      if (tw_an_task(a, core, n, &t) == 0)
        sum += t.cpu_ns;
    assert_int_equal(sum + c.isr_ns + c.unknown_ns, c.t1 - c.t0);
  }
  tw_an_destroy(a);
  /* core 0 misses its switch away from task 4, which then runs on core 1
   * later than core 0's last event: core 0 is charged up to its own last
   * event only (it once was charged up to core 1's time: counted twice) */
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 0, SW, 4, 0, 0);
  feed_ev(a, 0, 5, MX, 4, 1, TW_MUTEX_Lock);
  feed_ev(a, 1, 1, SW, 5, 0, 0);
  feed_ev(a, 1, 50, SW, 4, 0, 0);
  feed_ev(a, 1, 60, SW, 5, 0, 0);
  tw_an_finish(a);
  assert_int_equal(tw_an_task(a, 0, 4, &t), 0);
  assert_int_equal(t.cpu_ns, 5 * US);
  assert_int_equal(tw_an_task(a, 1, 4, &t), 0);
  assert_int_equal(t.cpu_ns, 10 * US);
  struct tw_an_core_stats c0;
  assert_int_equal(tw_an_core(a, 0, &c0), 0);
  assert_int_equal(c0.t1 - c0.t0, 5 * US);
  tw_an_destroy(a);
}

/* A mutex hold is timed from the lock to the unlock by its holder; a
 * hold a loss cut (its holder unknown from then) gives no sample, as the
 * model's object change said before the engine stopped asking for them. */
static void test_hold_and_loss(void **state)
{
  (void)state;
  struct tw_an *a;
  struct tw_an_obj_stats o;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 1, SW, 1, 0, 0);
  feed_ev(a, 0, 2, MX, 1, 4, TW_MUTEX_Lock);
  feed_ev(a, 0, 9, MX, 1, 4, TW_MUTEX_Unlock);
  feed_ev(a, 0, 10, MX, 1, 4, TW_MUTEX_Lock);
  feed_ev(a, 0, 12, TW_EV_DROPS, 3, 0, 0);
  feed_ev(a, 0, 13, SW, 1, 0, 0);
  feed_ev(a, 0, 20, MX, 1, 4, TW_MUTEX_Unlock);
  feed_ev(a, 0, 21, MX, 2, 4, TW_MUTEX_Lock);
  feed_ev(a, 0, 24, MX, 2, 4, TW_MUTEX_Unlock);
  tw_an_finish(a);
  assert_int_equal(tw_an_obj(a, 0, TW_OBJ_MUTEX, 4, &o), 0);
  assert_non_null(o.hold);
  assert_int_equal(o.hold->n, 2); /* 2..9 and 21..24; not 10..20, cut by the loss */
  assert_int_equal(o.hold->min, 3 * US);
  assert_int_equal(o.hold->max, 7 * US);
  tw_an_destroy(a);
}

/* An allocation that fails is reported: by the feed, the engine's error
 * and the writers, never swallowed. */
static void test_out_of_memory(void **state)
{
  (void)state;
  struct tw_an *a;
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 0, SW, 1, 0, 0);
  tw__an_fail_alloc = 1; /* the next allocation: the mutex's statistics */
  struct tw_event e;
  memset(&e, 0, sizeof e);
  e.desc = tw_event_desc_by_id(MX);
  e.id = MX;
  e.module = e.desc->module;
  e.nvalues = e.desc->nfields;
  e.time_ns = 5 * US;
  e.values[0] = 1;
  e.values[1] = 9;
  e.values[2] = TW_MUTEX_Lock;
  assert_int_equal(tw_an_feed(a, &e), TW_ENOMEM);
  assert_int_equal(tw_an_error(a), TW_ENOMEM);
  tw_an_finish(a);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(tw_an_write_json(a, f), TW_ENOMEM);
  assert_int_equal(tw_an_write_text(a, f), TW_ENOMEM);
  fclose(f);
  tw_an_destroy(a);
}

/* A write that fails is reported (the header said so; they returned void). */
static void test_write_errors(void **state)
{
  (void)state;
  struct tw_an *a;
  FILE *full = fopen("/dev/full", "w");
  if (!full)
    skip();
  assert_int_equal(tw_an_create(&a, NULL), 0);
  feed_ev(a, 0, 0, SW, 1, 0, 0);
  tw_an_finish(a);
  assert_int_equal(tw_an_write_json(a, full), TW_EIO);
  clearerr(full);
  assert_int_equal(tw_an_write_text(a, full), TW_EIO);
  fclose(full);
  tw_an_destroy(a);
}

/* The same plugin as a shared library, through `tracewire run`'s session. */
static void test_plugin_library(void **state)
{
  (void)state;
  char msg[256], path[] = "/tmp/tw_an_jsonXXXXXX", param[128];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  struct tw_mti_system *sys;
  struct tw_mti_session *s;
  assert_int_equal(tw_mti_system_create(&sys, tw_event_descs, tw_event_ndescs), 0);
  assert_int_equal(tw_mti_system_add_component(sys, 0, 1, 0, NULL), 0);
  assert_int_equal(tw_mti_session_create(&s, sys), 0);
  assert_int_equal(tw_mti_session_add_plugin(s, TW_BINARY_DIR "/examples/plugins/libanalysis.so",
                                             NULL, msg, sizeof msg), 0);
  snprintf(param, sizeof param, "TRACE.analysis.file=%s", path);
  assert_int_equal(tw_mti_session_set_param(s, param, msg, sizeof msg), 0);
  assert_int_equal(tw_mti_session_set_param(s, "TRACE.analysis.json=1", msg, sizeof msg), 0);
  assert_int_not_equal(tw_mti_session_set_param(s, "TRACE.analysis.starve_ms=0", msg, sizeof msg),
                       0); /* out of range */
  assert_int_equal(tw_mti_session_instantiate(s, msg, sizeof msg), 0);
  struct tw_scn_cfg cfg = {6, 2, 1, -1};
  assert_int_equal(tw_mti_system_start(sys), 0);
  assert_int_equal(tw_scn_run(&cfg, feed, sys), 0);
  assert_int_equal(tw_mti_system_stop(sys), 0);
  tw_mti_session_destroy(s); /* the instance writes its results on release */
  tw_mti_system_destroy(sys);
  FILE *f = fdopen(fd, "r");
  char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  unlink(path);
  assert_non_null(strstr(buf, "\"kind\":\"priority_inversion\""));
  assert_non_null(strstr(buf, "\"kind\":\"deadlock\""));
  assert_non_null(strstr(buf, "\"name\":\"bus_lock\""));
  assert_int_equal(buf[0], '{');
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_clean_trace),
    cmocka_unit_test(test_planted_inversion),
    cmocka_unit_test(test_loss_flags_findings),
    cmocka_unit_test(test_starvation_threshold),
    cmocka_unit_test(test_planted_deadlock),
    cmocka_unit_test(test_hist_accuracy),
    cmocka_unit_test(test_engine_direct),
    cmocka_unit_test(test_gap_closes_interrupts),
    cmocka_unit_test(test_binary_semaphore_inversion),
    cmocka_unit_test(test_freertos_analyses),
    cmocka_unit_test(test_migration),
    cmocka_unit_test(test_hold_and_loss),
    cmocka_unit_test(test_out_of_memory),
    cmocka_unit_test(test_write_errors),
    cmocka_unit_test(test_block_on_unseen_owner),
    cmocka_unit_test(test_window_near_clock_end),
    cmocka_unit_test(test_report_extreme_times),
    cmocka_unit_test(test_plugin_library),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
