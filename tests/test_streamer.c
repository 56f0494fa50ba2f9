/* The streamer over the real kernel event logger (POSIX port) with a test
 * clock: every event type's record, sequence numbers and exact drops, time
 * extension across wraps and long sleeps, SYNC cadence, refusals, padding,
 * names and custom declarations, stop, flow control. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/vocab.h"
#include "tw_emit_all.h"
#include "tw_stream_test.h"
#include "tw_target_reset.h"

#define EP 0x0042u

static uint32_t fake_now;
static uint32_t fake_timer(void) { return fake_now; }

static struct tw_streamer S;
static struct cap C;
static struct dstream D;

static void cfg_default(struct tw_streamer_cfg *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  tw_source_klog(&cfg->source);
  cfg->source.freq_hz = 1000000;
  cfg->send = cap_send;
  cfg->send_ctx = &C;
  cfg->endpoint = EP;
  cfg->module_id = 7;
  cfg->instance_id = 1;
  cfg->initial_mask = 0xFFFFFFFFu;
}

static int setup(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  tw_target_reset(fake_timer);
  tw_logger_stats_reset(tw_klog_logger());
  fake_now = 1000;
  cap_init(&C);
  memset(&D, 0, sizeof D);
  cfg_default(&cfg);
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  cap_free(&C);
  dstream_free(&D);
  return 0;
}

static void start(void)
{
  assert_int_equal(tw_streamer_start(&S), 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_true(tw_streamer_running(&S));
}

static void finish(void)
{
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(tw_streamer_flush(&S), 0);
  decode_stream(C.buf, C.len, EP, &D);
}

/* Index of the first record with id, from index `from`; fails if none. */
static size_t find_rec(uint16_t id, size_t from)
{
  for (size_t i = from; i < D.n; i++)
    if (D.r[i].id == id)
      return i;
  fail_msg("no record with id %u after %zu", id, from);
  return 0;
}

static void test_init_rejects_bad_config(void **state)
{
  (void)state;
  struct tw_streamer s;
  struct tw_streamer_cfg cfg;
  cfg_default(&cfg);
  cfg.send = NULL;
  assert_int_equal(tw_streamer_init(&s, &cfg), TW_EINVAL);
  cfg_default(&cfg);
  cfg.max_pkt_bytes = 108;
  assert_int_equal(tw_streamer_init(&s, &cfg), TW_EINVAL);
  cfg.max_pkt_bytes = TW_CFG_MAX_PKT_BYTES + 4;
  assert_int_equal(tw_streamer_init(&s, &cfg), TW_EINVAL);
  cfg_default(&cfg);
  cfg.sync_ticks = 0x80000000u; /* must stay below half a wrap */
  assert_int_equal(tw_streamer_init(&s, &cfg), TW_EINVAL);
  cfg_default(&cfg);
  cfg.priority = 4;
  assert_int_equal(tw_streamer_init(&s, &cfg), TW_EINVAL);
}

/* Every timed vocabulary event through its emitter: id, module, 64-bit
 * time, and each field read back through the generated descriptor. */
static void test_every_event_encoding(void **state)
{
  (void)state;
  uint32_t vals[33][8];
  start();
  uint32_t ts = 5000;
  unsigned nev = 0;
  for (size_t i = 0; i < tw_event_ndescs; i++) {
    const struct tw_event_desc *d = &tw_event_descs[i];
    if (!(d->flags & TW_EVF_TIMED))
      continue;
    for (uint8_t f = 0; f < d->nfields; f++) {
      uint32_t mx = d->fields[f].bits == 32 ? 0xFFFFFFFFu : (1u << d->fields[f].bits) - 1u;
      /* distinct, full-width values so a mis-packed field shows */
      vals[d->id][f] = (0xA5C3E1F7u * (d->id + 1) + 0x9E3779B9u * f) & mx;
    }
    if (d->id == TW_EV_SLEEP)
      vals[d->id][0] = ts + 77; /* wake after sleep */
    fake_now = ts + 100;
    assert_int_equal(emit_event_at(d->id, ts, vals[d->id]), 0);
    assert_true(tw_streamer_poll(&S, 0) >= 0);
    ts += 1000;
    nev++;
  }
  assert_int_equal(nev, 27);
  finish();
  size_t at = 0;
  ts = 5000;
  for (size_t i = 0; i < tw_event_ndescs; i++) {
    const struct tw_event_desc *d = &tw_event_descs[i];
    if (!(d->flags & TW_EVF_TIMED))
      continue;
    at = find_rec(d->id, at);
    const struct drec *r = &D.r[at];
    assert_int_equal(r->type, TW_REC_EVENT_TS);
    assert_int_equal(r->module, d->module);
    assert_int_equal(r->ts, ts);
    assert_int_equal(r->nw, d->payload_words);
    for (uint8_t f = 0; f < d->nfields; f++)
      assert_int_equal(tw_field_get(&d->fields[f], r->w), vals[d->id][f]);
    ts += 1000;
  }
}

/* The emitters stay silent when their mask bit is clear. */
static void test_mask_filters_emitters(void **state)
{
  (void)state;
  tw_streamer_set_mask(&S, 1u << (TW_EV_SEM - 1));
  start();
  tw_sem(1, TW_SEM_Give);
  tw_mutex(1, 2, TW_MUTEX_Lock);
  tw_sem(2, TW_SEM_Give);
  finish();
  unsigned sems = 0;
  for (size_t i = 0; i < D.n; i++) {
    assert_int_not_equal(D.r[i].id, TW_EV_MUTEX);
    sems += D.r[i].id == TW_EV_SEM;
  }
  assert_int_equal(sems, 2);
}

/* Overflow: seq numbers skip exactly the dropped count, announced by a
 * DROPS record carrying it; the surviving events are the right ones. */
static void test_drops_exact(void **state)
{
  (void)state;
  start();
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  const unsigned N = 100; /* SEM: 3 ring words each, 128-word ring */
  for (unsigned i = 0; i < N; i++)
    tw_sem_at(2000 + i, (uint16_t)i, TW_SEM_Give);
  struct tw_logger_stats ls;
  tw_logger_stats(tw_klog_logger(), &ls);
  uint32_t dropped = ls.drops;
  assert_true(dropped > 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0); /* the ring's content */
  tw_sem_at(3000, 1000, TW_SEM_Give);        /* carries the drop count */
  fake_now = 4000;
  finish();

  size_t first = find_rec(TW_EV_SEM, 0);
  size_t dr = find_rec(TW_EV_DROPS, first);
  assert_int_equal(D.r[dr].w[0], dropped);
  assert_int_equal(D.r[dr].ts, 3000); /* time of the event that reports it */
  unsigned kept = 0;
  for (size_t i = first; i < dr; i++) {
    assert_int_equal(D.r[i].id, TW_EV_SEM);
    assert_int_equal(D.r[i].w[0] & 0xFFFF, kept); /* oldest kept, in order */
    if (i > first)
      assert_int_equal(D.r[i].seq, (uint16_t)(D.r[i - 1].seq + 1));
    kept++;
  }
  assert_int_equal(kept + dropped, N);
  assert_int_equal(D.r[dr].seq, (uint16_t)(D.r[dr - 1].seq + 1));
  assert_int_equal(D.r[dr + 1].id, TW_EV_SEM);
  assert_int_equal(D.r[dr + 1].w[0] & 0xFFFF, 1000);
  assert_int_equal(D.r[dr + 1].seq, (uint16_t)(D.r[dr].seq + 1 + dropped));
  struct tw_streamer_stats st;
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.drops, dropped);
}

/* 32-bit timestamps extended across several wraps, with polls (and SYNC
 * records) at least every sync_ticks. */
static void test_time_extension_and_sync(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  cfg_default(&cfg);
  cfg.sync_ticks = 0x40000000u;
  fake_now = 0xFFFFFF00u;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  start();
  tw_task_switch_at(0xFFFFFF80u, 3);
  fake_now = 0x00000100u; /* wrapped */
  tw_task_switch_at(0x00000080u, 4);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  uint64_t t = 0x100000100ull;
  for (int i = 0; i < 10; i++) { /* idle for 2.5 wraps, polled */
    t += 0x3FFFFFFFu;
    fake_now = (uint32_t)t;
    assert_true(tw_streamer_poll(&S, 0) >= 0);
  }
  tw_task_switch_at((uint32_t)t - 5, 5);
  finish();

  size_t a = find_rec(TW_EV_TASK_SWITCH, 0);
  assert_int_equal(D.r[a].ts, 0xFFFFFF80u);
  assert_int_equal(D.r[a + 1].ts, 0x100000080ull);
  size_t c = find_rec(TW_EV_TASK_SWITCH, a + 2);
  assert_int_equal(D.r[c].ts, t - 5);
  /* the SYNCs come by clock readings, and carry the stream time (the
   * last event's) so that nothing after them can be older */
  unsigned syncs = 0;
  for (size_t i = 0; i < D.n; i++) {
    if (D.r[i].id != TW_EV_SYNC)
      continue;
    assert_int_equal(D.r[i].w[0], 1000000); /* frequency */
    if (i > a + 1 && i < c)
      assert_int_equal(D.r[i].ts, 0x100000080ull);
    syncs++;
  }
  assert_true(syncs >= 5);
  for (size_t i = 1; i < D.n; i++)
    assert_true(D.r[i].ts >= D.r[i - 1].ts);
}

/* A sleep through more than one wrap: the logger reports whole periods
 * slept as wraps, and the SLEEP record's time reaches back over them. */
static void test_sleep_longer_than_a_wrap(void **state)
{
  (void)state;
  start();
  fake_now = 0x10000000u;
  tw_klog_sleep_enter();
  fake_now = 0x08000000u; /* 2 wraps + 0xF8000000 ticks later */
  tw_klog_sleep_exit(9, 2);
  tw_task_switch_at(0x08000010u, 1);
  fake_now = 0x08000100u;
  finish();
  size_t s = find_rec(TW_EV_SLEEP, 0);
  assert_int_equal(D.r[s].ts, 0x10000000ull);
  assert_int_equal(D.r[s].w[0], 0x08000000u); /* wake, 32-bit */
  assert_int_equal(D.r[s].w[1], 9);
  size_t t = find_rec(TW_EV_TASK_SWITCH, s);
  assert_int_equal(D.r[t].ts, 0x308000010ull);
}

/* A refused packet is kept, counted, and offered again; nothing is lost or
 * reordered; the ring absorbs the wait. */
static void test_refusal_keeps_packet(void **state)
{
  (void)state;
  start();
  size_t before = C.npkts;
  C.busy = 1;
  for (unsigned i = 0; i < 20; i++) {
    tw_sem_at(100 + i, (uint16_t)i, TW_SEM_Give);
    (void)tw_streamer_poll(&S, 0);
  }
  assert_int_equal(tw_streamer_poll(&S, 0), TW_EBUSY);
  struct tw_streamer_stats st;
  tw_streamer_stats(&S, &st);
  assert_true(st.refusals >= 2);
  assert_int_equal(C.npkts, before);
  C.busy = 0;
  for (int i = 0; i < 5; i++)
    assert_true(tw_streamer_poll(&S, 0) >= 0);
  finish();
  unsigned k = 0;
  for (size_t i = 0; i < D.n; i++)
    if (D.r[i].id == TW_EV_SEM)
      assert_int_equal(D.r[i].w[0] & 0xFFFF, k++);
  assert_int_equal(k, 20);
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.packets, C.npkts);
}

/* Fixed-size buffers: every packet is max_pkt_bytes, padded with
 * InvalidData; no packet exceeds the maximum. */
static void test_padding_and_max_size(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  cfg_default(&cfg);
  cfg.pad = 1;
  cfg.max_pkt_bytes = 112; /* the smallest that holds a CUSTOM_DECL record */
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  start();
  for (unsigned i = 0; i < 30; i++) {
    tw_mutex_at(100 + i, 1, (uint16_t)i, TW_MUTEX_Lock);
    assert_true(tw_streamer_poll(&S, 0) >= 0);
  }
  finish();
  for (size_t i = 0; i < C.npkts; i++)
    assert_int_equal(C.plen[i], 112);
  assert_true(D.npad > 0);
  unsigned k = 0;
  for (size_t i = 0; i < D.n; i++)
    if (D.r[i].id == TW_EV_MUTEX)
      assert_int_equal(D.r[i].w[0] >> 16, k++);
  assert_int_equal(k, 30);
}

/* START sends TRACE_START, the name table (EnterInt, LeaveInt first) and
 * the custom declarations; custom events carry their declared layout. */
static void test_names_decls_custom(void **state)
{
  (void)state;
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 3, "idle", 0), 0);
  assert_int_equal(tw_name_register(TW_OBJ_MUTEX, 7, "uart_lock", 9), 0);
  assert_int_equal(tw_name_register(TW_OBJ_NONE, 7, "x", 0), TW_EINVAL);
  assert_int_equal(tw_custom_declare(28, 1, "Adc chan:U8 value:U16"), 0);
  assert_int_equal(tw_custom_declare(28, 1, "Adc chan:U8"), TW_EEXIST);
  assert_int_equal(tw_custom_declare(TW_EV_MUTEX, 1, "M a:U8"), TW_EINVAL);
  assert_int_equal(tw_custom_declare(29, 1, "Bad chan:U64"), TW_EINVAL);
  tw_streamer_set_mask(&S, 0xFFFFFFFFu);
  start();
  uint32_t data[2] = {3, 4095};
  fake_now = 7777;
  tw_custom(28, data, 2);
  tw_custom(30, data, 2); /* undeclared: not recorded */
  finish();

  assert_int_equal(D.r[0].id, TW_EV_SYNC);
  assert_int_equal(D.r[1].id, TW_EV_TRACE_START);
  assert_int_equal(D.r[1].w[0], 0xFFFFFFFFu);
  static const char *const want[] = {"EnterInt", "LeaveInt", "idle", "uart_lock"};
  static const uint16_t num[] = {0xFFFE, 0xFFFF, 3, 7};
  for (int i = 0; i < 4; i++) {
    const struct drec *r = &D.r[2 + i];
    assert_int_equal(r->id, TW_EV_NAME);
    assert_true(r->is_snap);
    uint32_t packed;
    memcpy(&packed, r->data, 4);
    assert_int_equal(packed >> 16, num[i]);
    assert_int_equal(packed & 0xFF, i == 3 ? TW_OBJ_MUTEX : TW_OBJ_TASK);
    assert_int_equal((packed >> 8) & 0xFF, 0); /* prio only for tasks */
    assert_int_equal(r->data_len, 4 + strlen(want[i]));
    assert_memory_equal(r->data + 4, want[i], strlen(want[i]));
  }
  const struct drec *dc = &D.r[6];
  assert_int_equal(dc->id, TW_EV_CUSTOM_DECL);
  uint32_t packed;
  memcpy(&packed, dc->data, 4);
  assert_int_equal(packed, 28u | 1u << 16 | 2u << 24);
  assert_memory_equal(dc->data + 4, "Adc chan:U8 value:U16", 21);
  size_t ce = find_rec(28, 6);
  assert_int_equal(D.r[ce].module, TW_MOD_CUSTOM);
  assert_int_equal(D.r[ce].ts, 7777);
  assert_int_equal(D.r[ce].nw, 2);
  assert_int_equal(D.r[ce].w[1], 4095);
  for (size_t i = 0; i < D.n; i++)
    assert_int_not_equal(D.r[i].id, 30);
  /* on request the table goes out again */
  uint32_t nn = 0, nd = 0;
  assert_int_equal(tw_streamer_send_names(&S, &nn, &nd), 0);
  assert_int_equal(nn, 4);
  assert_int_equal(nd, 1);
}

/* The number of a NAME record (its snapshot data: packed word, name). */
static int name_rec(const struct drec *r, uint16_t number, const char *name)
{
  uint32_t packed;
  if (r->id != TW_EV_NAME || !r->snap_done || r->data_len != 4 + strlen(name))
    return 0;
  memcpy(&packed, r->data, 4);
  return packed >> 16 == number && !memcmp(r->data + 4, name, strlen(name));
}

static size_t find_name(uint16_t number, const char *name, size_t from)
{
  for (size_t i = from; i < D.n; i++)
    if (name_rec(&D.r[i], number, name))
      return i;
  fail_msg("no NAME %u \"%s\" after %zu", number, name, from);
  return 0;
}

/* An object named while recording: its NAME record goes out before the
 * first event recorded after the registration, without a request. A name
 * the full table refuses is counted in NAMES_LOST, then and at every
 * START. */
static void test_names_while_recording(void **state)
{
  (void)state;
  start();
  tw_sem_at(fake_now, 1, TW_SEM_Give);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 9, "late", 4), 0);
  tw_task_switch_at(fake_now, 9);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(tw_name_register(TW_OBJ_QUEUE, 4, "idle_q", 0), 0); /* no event follows */
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  uint16_t n = 100;
  while (tw_name_register(TW_OBJ_QUEUE, n, "q", 0) == 0)
    n++;
  assert_int_equal(tw_name_register(TW_OBJ_QUEUE, 7, "q7", 0), TW_ENOSPC);
  assert_int_equal(tw_name_lost(), 2);
  tw_sem_at(fake_now, 2, TW_SEM_Give);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(tw_streamer_stop(&S, 0), 0);
  while (tw_streamer_running(&S) || S.nwork)
    assert_true(tw_streamer_poll(&S, 0) >= 0);
  start(); /* the dump: every name, then NAMES_LOST */
  finish();

  size_t late = find_name(9, "late", 0);
  size_t sw = find_rec(TW_EV_TASK_SWITCH, 0);
  assert_true(late < sw);
  assert_true(find_rec(TW_EV_SEM, 0) < late); /* not sent ahead of time */
  size_t idle = find_name(4, "idle_q", sw);
  size_t last = find_name((uint16_t)(n - 1), "q", idle);
  size_t lost = find_rec(TW_EV_NAMES_LOST, last);
  assert_int_equal(D.r[lost].w[0], 2);
  assert_true(lost < find_rec(TW_EV_SEM, sw));
  size_t restart = find_rec(TW_EV_TRACE_START, lost);
  assert_true(find_name((uint16_t)(n - 1), "q", restart) < find_rec(TW_EV_NAMES_LOST, restart));
  assert_int_equal(D.r[find_rec(TW_EV_NAMES_LOST, restart)].w[0], 2);
  /* each name once per recording */
  size_t again = 0;
  for (size_t i = sw; i < restart; i++)
    again += name_rec(&D.r[i], 9, "late");
  assert_int_equal(again, 0);
}

/* STR and BLOB custom events leave as snapshot records: one record when
 * short, split across packets when long, resumed after a refusal. */
static void test_string_and_blob_events(void **state)
{
  (void)state;
  uint8_t blob[128];
  for (unsigned i = 0; i < sizeof blob; i++)
    blob[i] = (uint8_t)(i * 7 + 1);
  assert_int_equal(tw_custom_declare(30, 1, "Log text:STR"), 0);
  assert_int_equal(tw_custom_declare(31, 0, "Dump data:BLOB"), 0);
  assert_int_equal(tw_custom_declare(32, 1, "Bad text:STR n:U8"), TW_EINVAL);
  start();
  fake_now = 5555;
  tw_custom_bytes(30, "hello, host", 11);
  tw_custom(30, (uint32_t[]){1}, 1); /* wrong API for a bytes event: ignored */
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  C.busy = 1; /* the blob's first part fills a packet that is refused */
  tw_custom_bytes(31, blob, sizeof blob);
  tw_custom_bytes(31, blob, 1000);   /* cut to TW_CFG_BYTES_MAX */
  assert_int_equal(tw_streamer_poll(&S, 0), TW_EBUSY);
  C.busy = 0;
  finish();

  size_t t = find_rec(30, 0);
  assert_true(D.r[t].is_snap && D.r[t].snap_done);
  assert_int_equal(D.r[t].type, TW_REC_SNAPSHOT_TS);
  assert_int_equal(D.r[t].module, TW_MOD_CUSTOM);
  assert_int_equal(D.r[t].ts, 5555);
  assert_int_equal(D.r[t].data_len, 11);
  assert_memory_equal(D.r[t].data, "hello, host", 11);
  assert_int_not_equal(D.r[t + 1].id, 30);
  for (int k = 0; k < 2; k++) {
    size_t b = find_rec(31, t + 1);
    assert_int_equal(D.r[b].type, TW_REC_SNAPSHOT); /* declared untimed */
    assert_false(D.r[b].snap_done);                  /* more than one record */
    size_t e = b + 1;
    while (D.r[e].id == 31 && !D.r[e].snap_done)
      e++;
    assert_int_equal(D.r[e].id, 31);
    assert_true(D.r[e].pkt > D.r[b].pkt);            /* spans packets */
    assert_int_equal(D.r[e].data_len, sizeof blob);
    assert_memory_equal(D.r[e].data, blob, sizeof blob);
    t = e;
  }
  for (size_t i = 1; i < D.n; i++)
    assert_int_equal(D.r[i].seq, (uint16_t)(D.r[i - 1].seq + 1));
}

/* STOP: what was recorded before goes out, then TRACE_STOP last; nothing
 * after; kernel events arriving while stopped are discarded. */
static void test_stop(void **state)
{
  (void)state;
  start();
  tw_sem_at(10, 1, TW_SEM_Give);
  assert_int_equal(tw_streamer_stop(&S, 1), 0);
  tw_sem_at(11, 2, TW_SEM_Give);       /* mask already 0: not recorded */
  tw_logger_put(tw_klog_logger(), TW_EV_INTERRUPT, (uint32_t[]){12, 5}, 2);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_false(tw_streamer_running(&S));
  assert_true(C.npkts > 0); /* stop flushes */
  tw_logger_put(tw_klog_logger(), TW_EV_INTERRUPT, (uint32_t[]){13, 5}, 2);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  decode_stream(C.buf, C.len, EP, &D);
  const struct drec *last = &D.r[D.n - 1];
  assert_int_equal(last->id, TW_EV_TRACE_STOP);
  assert_int_equal(last->w[0], 1);
  assert_int_equal(D.r[D.n - 2].id, TW_EV_INTERRUPT); /* recorded before the stop */
  assert_int_equal(D.r[D.n - 3].id, TW_EV_SEM);
  assert_int_equal(D.r[D.n - 3].w[0] & 0xFFFF, 1);
  struct tw_streamer_stats st;
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.discarded, 1);
}

/* Drops after the last event of a recording are announced before its
 * TRACE_STOP: over several recordings, the DROPS records between each
 * TRACE_START and TRACE_STOP add up to exactly what the logger dropped in
 * that recording. */
static void test_drops_announced_before_stop(void **state)
{
  (void)state;
  const unsigned bursts[] = {100, 43, 0, 250};
  struct tw_logger_stats ls;
  uint32_t logger_drops[4];
  for (unsigned k = 0; k < 4; k++) {
    tw_logger_stats(tw_klog_logger(), &ls);
    uint32_t before = ls.drops;
    start();
    for (unsigned i = 0; i < bursts[k]; i++) /* no poll: the ring overflows */
      tw_sem_at(fake_now, (uint16_t)i, TW_SEM_Give);
    assert_int_equal(tw_streamer_stop(&S, 1), 0);
    while (tw_streamer_running(&S) || S.nwork)
      assert_true(tw_streamer_poll(&S, 0) >= 0);
    tw_logger_stats(tw_klog_logger(), &ls);
    logger_drops[k] = ls.drops - before;
    assert_int_equal(ls.pending_drops, 0);
    fake_now += 1000;
  }
  assert_true(logger_drops[0] > 0 && logger_drops[3] > 0 && logger_drops[2] == 0);
  assert_int_equal(tw_streamer_flush(&S), 0);
  decode_stream(C.buf, C.len, EP, &D);
  unsigned rec = 0;
  uint32_t announced = 0;
  uint16_t gap_seq = 0;
  for (size_t i = 0; i < D.n; i++) {
    if (D.r[i].id == TW_EV_TRACE_START) {
      announced = 0;
    } else if (D.r[i].id == TW_EV_DROPS) {
      announced += D.r[i].w[0];
      gap_seq = (uint16_t)(D.r[i].seq + 1 + D.r[i].w[0]);
      assert_int_equal(D.r[i + 1].seq, gap_seq); /* the gap DROPS announces */
    } else if (D.r[i].id == TW_EV_TRACE_STOP) {
      assert_true(rec < 4);
      assert_int_equal(announced, logger_drops[rec]);
      rec++;
    }
  }
  assert_int_equal(rec, 4);
}

/* An event the ring can never hold (more data words than a logger event
 * carries), put by an emitter (tw_custom_bytes() on a build whose ring is
 * too small for it, any void emitter), and a tw_custom() of more words
 * than a custom event has: each is a drop, announced by the next event's DROPS, or before TRACE_STOP when
 * no event follows; never a silent loss (docs/instrumentation.md). */
static void test_event_larger_than_ring_is_a_drop(void **state)
{
  (void)state;
  static uint32_t big[TW_LOGGER_MAX_DATA + 45];
  struct tw_streamer_stats st;
  assert_int_equal(tw_custom_declare(30, 1, "Log text:STR"), 0);
  assert_int_equal(tw_custom_declare(28, 0, "Adc chan:U8 value:U16"), 0);
  start();
  tw_task_switch_at(1100, 1);
  big[0] = 1150;
  big[1] = sizeof big - 8;
  tw__trace_put(30, big, sizeof big / 4); /* as tw_custom_bytes() puts it */
  tw_task_switch_at(1200, 2);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  tw_custom(28, big, TW_CUSTOM_MAX_WORDS + 1); /* more words than a custom event has */
  tw_task_switch_at(1300, 3);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  tw__trace_put(30, big, sizeof big / 4); /* the last of the recording */
  assert_int_equal(tw_streamer_stop(&S, 1), 0);
  finish();

  size_t a = find_rec(TW_EV_TASK_SWITCH, 0);
  size_t d = find_rec(TW_EV_DROPS, a);
  assert_int_equal(d, a + 1);
  assert_int_equal(D.r[d].w[0], 1);
  assert_int_equal(D.r[d].ts, 1200);       /* the time of the event it precedes */
  assert_int_equal(D.r[d + 1].id, TW_EV_TASK_SWITCH);
  assert_int_equal(D.r[d + 1].seq, (uint16_t)(D.r[d].seq + 2)); /* the gap it announces */
  size_t d2 = find_rec(TW_EV_DROPS, d + 1);
  assert_int_equal(D.r[d2].w[0], 1);
  assert_int_equal(D.r[d2].ts, 1300);
  assert_int_equal(D.r[d2 + 1].id, TW_EV_TASK_SWITCH);
  size_t d3 = find_rec(TW_EV_DROPS, d2 + 1);
  assert_int_equal(D.r[d3].w[0], 1);
  assert_int_equal(D.r[d3 + 1].id, TW_EV_TRACE_STOP);
  for (size_t i = 0; i < D.n; i++)
    assert_true(D.r[i].id != 30 && D.r[i].id != 28);
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.drops, 3);
}

/* START puts the clock first: SYNC (frequency) then TRACE_START, both in
 * the first packet at the same time. A restart does it again, after
 * discarding what the ring took while stopped. */
static void test_start_gives_clock_first(void **state)
{
  (void)state;
  fake_now = 5000;
  start();
  tw_sem_at(5100, 1, TW_SEM_Give);
  assert_int_equal(tw_streamer_stop(&S, 1), 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  fake_now = 6000;
  tw_logger_put(tw_klog_logger(), TW_EV_INTERRUPT, (uint32_t[]){5900, 5}, 2); /* while stopped */
  fake_now = 7000;
  start();
  finish();
  assert_int_equal(D.r[0].id, TW_EV_SYNC);
  assert_int_equal(D.r[0].w[0], 1000000);
  assert_int_equal(D.r[0].ts, 5000);
  assert_int_equal(D.r[0].pkt, 0);
  assert_int_equal(D.r[1].id, TW_EV_TRACE_START);
  assert_int_equal(D.r[1].ts, 5000);
  assert_int_equal(D.r[1].pkt, 0);
  size_t stop = find_rec(TW_EV_TRACE_STOP, 2);
  assert_int_equal(D.r[stop - 1].id, TW_EV_SEM);
  assert_int_equal(D.r[stop + 1].id, TW_EV_SYNC);
  assert_int_equal(D.r[stop + 1].ts, 7000);
  assert_int_equal(D.r[stop + 2].id, TW_EV_TRACE_START);
  assert_int_equal(D.r[stop + 2].pkt, D.r[stop + 1].pkt);
  for (size_t i = 0; i < D.n; i++)
    assert_int_not_equal(D.r[i].id, TW_EV_INTERRUPT);
  struct tw_streamer_stats st;
  tw_streamer_stats(&S, &st);
  assert_int_equal(st.discarded, 1);
}

/* Control records never step stream time back: a START or GET_NAMES that
 * arrives while older events wait in the ring, a periodic SYNC written
 * while a preempted task is still emitting an event stamped before the
 * collector's clock reading, and STOP are stamped no later than the
 * events after them. */
static void test_control_records_never_backwards(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  cfg_default(&cfg);
  cfg.sync_ticks = 500;
  fake_now = 1000;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 1, "worker", 3), 0);
  start();
  for (unsigned i = 0; i < 10; i++)
    tw_sem_at(1100 + 10 * i, (uint16_t)i, TW_SEM_Give);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  /* events of 2000.. wait in the ring while the clock reads 9000 */
  for (unsigned i = 0; i < 10; i++)
    tw_sem_at(2000 + 10 * i, (uint16_t)(10 + i), TW_SEM_Give);
  fake_now = 9000;
  assert_int_equal(tw_streamer_start(&S), 0); /* a host attaching mid-stream */
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  /* (events are stamped when emitted, so after the reading of 9000) */
  for (unsigned i = 0; i < 10; i++)
    tw_sem_at(9100 + 10 * i, (uint16_t)(20 + i), TW_SEM_Give);
  fake_now = 9600; /* a periodic SYNC is due too */
  assert_int_equal(tw_streamer_send_names(&S, NULL, NULL), 0);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  tw_sem_at(9550, 30, TW_SEM_Give); /* stamped before the reading of 9600 */
  fake_now = 9700;
  assert_int_equal(tw_streamer_stop(&S, 1), 0);
  finish();

  unsigned names = 0, syncs = 0, sems = 0;
  for (size_t i = 0; i < D.n; i++) {
    if (i)
      assert_true(D.r[i].ts >= D.r[i - 1].ts);
    names += D.r[i].id == TW_EV_NAME;
    syncs += D.r[i].id == TW_EV_SYNC;
    sems += D.r[i].id == TW_EV_SEM;
  }
  assert_int_equal(sems, 31);
  assert_int_equal(names, 3 * 3); /* EnterInt, LeaveInt, worker: at START, START, GET_NAMES */
  assert_true(syncs >= 3);        /* first START, the mid-stream START, periodic */
  assert_int_equal(find_rec(TW_EV_TRACE_START, 1), 1); /* one TRACE_START only */
  for (size_t i = 2; i < D.n; i++)
    assert_int_not_equal(D.r[i].id, TW_EV_TRACE_START);
  /* the records made up mid-stream carry the time already reached (the
   * last event written, 1190), not the clock reading (9000) */
  size_t ms = find_rec(TW_EV_SYNC, 1);
  assert_true(D.r[ms].ts <= 2000);
  assert_true(D.r[ms].ts >= 1190);
  size_t gn = find_rec(TW_EV_NAME, find_rec(TW_EV_SEM, ms) + 1); /* GET_NAMES */
  assert_true(D.r[gn].ts <= 9100);
  assert_true(D.r[gn].ts >= 2090);
  size_t last = D.n - 1;
  assert_int_equal(D.r[last].id, TW_EV_TRACE_STOP);
  assert_int_equal(D.r[last].ts, 9700); /* nothing follows it: the clock */
}

/* Flow control: congestion scales the partial-packet delay. */
static void test_congestion_delay(void **state)
{
  (void)state;
  struct tw_streamer_cfg cfg;
  cfg_default(&cfg);
  cfg.flush_ticks = 1000;
  assert_int_equal(tw_streamer_init(&S, &cfg), 0);
  assert_int_equal(tw_streamer_flush_delay(&S), 1000);
  tw_streamer_set_congestion(&S, 100);
  assert_int_equal(tw_streamer_flush_delay(&S), 2000);
  tw_streamer_set_congestion(&S, 500);
  assert_int_equal(tw_streamer_flush_delay(&S), 2000);
  tw_streamer_set_congestion(&S, -50);
  assert_int_equal(tw_streamer_flush_delay(&S), 500);
  start(); /* TRACE_START and the two predefined names: one full packet */
  size_t n0 = C.npkts;
  fake_now += 499;
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(C.npkts, n0); /* partial packet still waits */
  fake_now += 1;
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(C.npkts, n0 + 1);
  tw_streamer_set_congestion(&S, -100); /* most eager: every poll */
  tw_sem_at(fake_now, 1, TW_SEM_Give);
  assert_true(tw_streamer_poll(&S, 0) >= 0);
  assert_int_equal(C.npkts, n0 + 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_init_rejects_bad_config, setup, teardown),
    cmocka_unit_test_setup_teardown(test_every_event_encoding, setup, teardown),
    cmocka_unit_test_setup_teardown(test_mask_filters_emitters, setup, teardown),
    cmocka_unit_test_setup_teardown(test_drops_exact, setup, teardown),
    cmocka_unit_test_setup_teardown(test_time_extension_and_sync, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sleep_longer_than_a_wrap, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refusal_keeps_packet, setup, teardown),
    cmocka_unit_test_setup_teardown(test_padding_and_max_size, setup, teardown),
    cmocka_unit_test_setup_teardown(test_names_decls_custom, setup, teardown),
    cmocka_unit_test_setup_teardown(test_string_and_blob_events, setup, teardown),
    cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
    cmocka_unit_test_setup_teardown(test_drops_announced_before_stop, setup, teardown),
    cmocka_unit_test_setup_teardown(test_event_larger_than_ring_is_a_drop, setup, teardown),
    cmocka_unit_test_setup_teardown(test_names_while_recording, setup, teardown),
    cmocka_unit_test_setup_teardown(test_congestion_delay, setup, teardown),
    cmocka_unit_test_setup_teardown(test_start_gives_clock_first, setup, teardown),
    cmocka_unit_test_setup_teardown(test_control_records_never_backwards, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
