/*
 * The modelled target's link (sim/sim_link.c) end to end, in process: the
 * workload model -> emitters -> kernel event logger -> streamer -> UIA
 * packets into memory, and host commands fed in on the read side at given
 * virtual times -> command service -> replies in the same byte stream.
 * Packets are checked with the wire-format parser (tw_pkt_parse,
 * tw_record_parse): the same-seed stream is byte-identical, SET_MASK
 * narrows what follows its RESULT, STOP ends the run with TRACE_STOP
 * (reason 0 = command), garbage before a command is skipped. With the
 * host decoder: a START and a GET_NAMES from the host mid-stream (what
 * `tracewire record` sends to a target that started itself) add records
 * but never a backwards time step, the clock is known from the first
 * record, and the model's events are those of a run without commands.
 */
// tw-test-libs: tw_sim
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/cmd.h"
#include "tracewire/events_gen.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/trace.h"
#include "tw_sim.h"
#include "tw_sim_link.h"

struct sink {
  uint8_t *buf;
  size_t len, cap;
};

struct cmd_at {
  uint64_t at;           /* virtual time from which it is readable */
  uint8_t bytes[64];
  size_t len, off;
};

struct io {
  struct sink out;
  struct tw_sim *sim;
  struct cmd_at cmds[4];
  unsigned ncmds;
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
  struct sink *s = &((struct io *)ctx)->out;
  if (s->len + len > s->cap) {
    s->cap = (s->len + len) * 2;
    s->buf = realloc(s->buf, s->cap);
    assert_non_null(s->buf);
  }
  memcpy(s->buf + s->len, buf, len);
  s->len += len;
  return 0;
}

/* Delivers each command's bytes (a few at a time, to exercise framing)
 * once the model's clock has reached its time. */
static int cmd_read(void *ctx, void *buf, size_t cap)
{
  struct io *io = ctx;
  for (unsigned i = 0; i < io->ncmds; i++) {
    struct cmd_at *c = &io->cmds[i];
    if (c->off == c->len)
      continue;
    if (io->sim->now < c->at)
      return 0;
    size_t n = c->len - c->off;
    if (n > 7)
      n = 7;
    if (n > cap)
      n = cap;
    memcpy(buf, c->bytes + c->off, n);
    c->off += n;
    return (int)n;
  }
  return 0;
}

static size_t make_cmd(uint8_t *out, uint16_t cmd_id, uint16_t seq, const uint32_t *body,
                       size_t nbody)
{
  size_t len = TW_MSG_HDR_BYTES + 4 * nbody + TW_FOOTER_BYTES;
  tw_pkt_hdr h;
  memset(&h, 0, sizeof h);
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, TW_MSG_CMD, (uint32_t)len, TW_SVC_LOGGER, seq, cmd_id,
                  0xC0DE0000u | seq, TW_ADDR_DEFAULT, TW_ADDR_HOST);
  memcpy(out, &h, sizeof h);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(out + 16 + 4 * i, body[i]);
  tw_store_be32(out + len - 4, tw_pkt_footer((uint32_t)len));
  return len;
}

static void add_cmd(struct io *io, uint64_t at, const uint8_t *pre, size_t npre, uint16_t cmd_id,
                    uint16_t seq, const uint32_t *body, size_t nbody)
{
  struct cmd_at *c = &io->cmds[io->ncmds++];
  c->at = at;
  if (npre)
    memcpy(c->bytes, pre, npre);
  c->len = npre + make_cmd(c->bytes + npre, cmd_id, seq, body, nbody);
  c->off = 0;
}

static struct tw_sim sim;
static struct tw_sim_link lnk;

static void run(struct io *io, enum tw_sim_scenario sc, uint32_t seed)
{
  tw_name_reset();
  io->sim = &sim;
  tw_sim_init(&sim, seed);
  assert_int_equal(tw_sim_scenario_setup(&sim, sc), 0);
  assert_true(tw_sim_set_collector(&sim, 10, tw_sim_link_drain, &lnk) > 0);
  tw_sim_register_names(&sim);
  assert_int_equal(tw_sim_link_init(&lnk, sink_write, cmd_read, io, TW_SIM_HZ,
                                    TW_SIM_LINK_ALL_EVENTS), 0);
  tw_sim_run(&sim, tw_sim_scenario_duration(sc), 0);
  assert_int_equal(tw_sim_link_finish(&lnk), 0);
}

/* What the stream says, in order. */
struct seen {
  unsigned pkts, msgs, records;
  int result_at, ack_at;          /* record index when the reply was seen */
  uint32_t result_word;
  int stop_reason;
  unsigned after_result_other;    /* non-TaskSwitch RTOS/kernel events after RESULT */
  unsigned after_result_ts;       /* TaskSwitch events after RESULT */
  unsigned names;
  uint64_t last_other_ts;         /* latest non-TaskSwitch RTOS/kernel event */
  uint64_t last_ts;               /* latest event */
};

static void scan(const struct sink *s, struct seen *v)
{
  memset(v, 0, sizeof *v);
  v->result_at = v->ack_at = v->stop_reason = -1;
  size_t off = 0;
  while (off < s->len) {
    struct tw_pkt p;
    int n = tw_pkt_parse(s->buf + off, s->len - off, 0, &p);
    if (n <= 0)
      fail_msg("bad packet at byte %zu: %s", off, tw_strerror(n));
    off += (size_t)n;
    v->pkts++;
    if (p.hdr_type == TW_PKT_MSG) {
      v->msgs++;
      uint32_t type = tw_pkt_get_msg_type(&p.hdr);
      if (type == TW_MSG_RESULT) {
        v->result_at = (int)v->records;
        v->result_word = tw_load_be32(p.payload);
      } else if (type == TW_MSG_ACK) {
        v->ack_at = (int)v->records;
      } else {
        fail_msg("unexpected reply type %u", type);
      }
      continue;
    }
    assert_int_equal(p.hdr_type, TW_PKT_EVENT);
    size_t ro = 0;
    while (ro < p.payload_len) {
      struct tw_record r;
      int rl = tw_record_parse(p.payload + ro, p.payload_len - ro, p.endian, &r);
      if (rl <= 0)
        fail_msg("bad record in packet %u: %s", v->pkts, tw_strerror(rl));
      ro += (size_t)rl;
      v->records++;
      if (r.event_id == TW_EV_TRACE_STOP)
        v->stop_reason = (int)tw_record_word(&r, 0);
      if (r.event_id == TW_EV_NAME && (!r.is_snapshot || r.snap.address == 0))
        v->names++;
      if (r.module_id != TW_MOD_CONTROL) {
        if (r.ts > v->last_ts)
          v->last_ts = r.ts;
        if (r.event_id != TW_EV_TASK_SWITCH && r.ts > v->last_other_ts)
          v->last_other_ts = r.ts;
      }
      if (v->result_at >= 0 && r.module_id != TW_MOD_CONTROL) {
        if (r.event_id == TW_EV_TASK_SWITCH)
          v->after_result_ts++;
        else
          v->after_result_other++;
      }
    }
  }
}

static void test_same_seed_same_bytes(void **state)
{
  (void)state;
  struct io a = { 0 }, b = { 0 }, c = { 0 };
  run(&a, TW_SIM_SC_PIPELINE, 21);
  run(&b, TW_SIM_SC_PIPELINE, 21);
  run(&c, TW_SIM_SC_PIPELINE, 22);
  assert_true(a.out.len > 10000);
  assert_int_equal(a.out.len, b.out.len);
  assert_memory_equal(a.out.buf, b.out.buf, a.out.len);
  assert_true(a.out.len != c.out.len || memcmp(a.out.buf, c.out.buf, a.out.len) != 0);
  struct seen v;
  scan(&a.out, &v);
  assert_int_equal(v.msgs, 0);
  assert_int_equal(v.stop_reason, 1); /* the application ended the run */
  /* 8 tasks + 9 objects + 3 interrupts + the 2 predefined task names */
  assert_true(v.names >= 20);
  free(a.out.buf);
  free(b.out.buf);
  free(c.out.buf);
}

static void test_set_mask_then_stop(void **state)
{
  (void)state;
  struct io io = { 0 };
  static const uint8_t junk[] = { 0x00, 0x13, 0x37, 0x42, 0xFF };
  uint32_t mask = 1u << (TW_EV_TASK_SWITCH - 1);
  add_cmd(&io, 5000, junk, sizeof junk, TW_LCMD_SET_MASK, 1, &mask, 1);
  add_cmd(&io, 20000, NULL, 0, TW_LCMD_STOP, 2, NULL, 0);
  run(&io, TW_SIM_SC_PIPELINE, 3);
  /* STOP ended the run early, shortly after it arrived. */
  assert_true(sim.stopped);
  assert_in_range(sim.now, 20000, 23000);
  assert_true(lnk.resync_bytes >= sizeof junk);
  struct seen v;
  scan(&io.out, &v);
  assert_int_equal(v.msgs, 2);
  assert_true(v.result_at > 0);
  assert_int_equal(v.result_word, mask);
  assert_true(v.ack_at > v.result_at);
  /* The command is readable from 5 ms and handled at the collector's next
   * run (within a tick); from then on only TaskSwitch is recorded. Events
   * recorded before may still follow the RESULT in the stream (the ring
   * and the partial packet). */
  assert_true(v.after_result_ts > 50);
  assert_in_range(v.last_other_ts, 4000, 6100);
  assert_true(v.last_ts > 19000);
  assert_int_equal(v.stop_reason, 0); /* stopped by command */
  free(io.out.buf);
}

static unsigned objects(const struct tw_sim *s)
{
  unsigned n = s->ntasks + 1; /* + SysTick */
  for (unsigned i = 0; i < TW_SIM_MAX_OBJS; i++)
    n += s->mutex[i].used + s->sem[i].used + s->event[i].used + s->msem[i].used +
         s->mevent[i].used + s->asem[i].used + s->rsem[i].used;
  for (unsigned i = 0; i < TW_SIM_MAX_IRQS; i++)
    n += s->irq[i].used;
  return n;
}

/* The demo's storm overflows the ring; every event is either on the wire
 * or counted as dropped, exactly, and every name fits the name table. */
static void test_demo_drops_exact_and_names_fit(void **state)
{
  (void)state;
  struct io io = { 0 };
  run(&io, TW_SIM_SC_DEMO, 1);
  struct tw_streamer_stats st;
  tw_streamer_stats(&lnk.streamer, &st);
  assert_true(st.drops > 100);
  assert_int_equal((uint64_t)st.events + st.drops, sim.nevents);
  assert_int_equal(tw_name_count(), 2 + objects(&sim)); /* + EnterInt, LeaveInt */
  struct seen v;
  scan(&io.out, &v);
  assert_int_equal(v.names, tw_name_count());
  free(io.out.buf);

  /* Without the storm nothing is lost. */
  memset(&io, 0, sizeof io);
  run(&io, TW_SIM_SC_PIPELINE, 1);
  tw_streamer_stats(&lnk.streamer, &st);
  assert_int_equal(st.drops, 0);
  assert_int_equal(st.events, sim.nevents);
  free(io.out.buf);
}

/* The host decoder's account of a byte stream. */
struct decoded {
  unsigned long long diags[TW_DIAG_LIMIT + 1];
  unsigned long long names, syncs, starts;
  uint64_t last_ticks;
  unsigned long long backwards_seen; /* checked here too, not only by the decoder */
  uint64_t *model;                   /* kernel/RTOS events: ticks, id, first value */
  size_t nmodel, cap;
};

static void on_diag(void *ctx, const struct tw_diag *g)
{
  struct decoded *d = ctx;
  d->diags[g->kind]++;
}

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct decoded *d = ctx;
  if (ev->ticks < d->last_ticks)
    d->backwards_seen++;
  d->last_ticks = ev->ticks;
  if (ev->module == TW_MOD_CONTROL) {
    d->names += ev->id == TW_EV_NAME;
    d->syncs += ev->id == TW_EV_SYNC;
    d->starts += ev->id == TW_EV_TRACE_START;
    return 0;
  }
  if (d->nmodel + 3 > d->cap) {
    d->cap = d->cap ? 2 * d->cap : 65536;
    d->model = realloc(d->model, d->cap * sizeof *d->model);
    assert_non_null(d->model);
  }
  d->model[d->nmodel++] = ev->ticks;
  d->model[d->nmodel++] = ev->id;
  d->model[d->nmodel++] = ev->nvalues ? ev->values[0] : 0;
  return 0;
}

static void decode(const struct sink *s, struct decoded *d)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *dec;
  memset(d, 0, sizeof *d);
  assert_int_equal(tw_conn_mem_open(s->buf, s->len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&dec, NULL), 0);
  tw_decoder_on_event(dec, on_event, d);
  tw_decoder_on_diag(dec, on_diag, d);
  assert_int_equal(tw_decoder_run(dec, r), 0);
  assert_int_equal(tw_decoder_nstreams(dec), 1);
  assert_int_equal(tw_decoder_stream(dec, 0)->backwards, 0);
  assert_int_equal(tw_decoder_stream(dec, 0)->freq_hz, TW_SIM_HZ);
  tw_decoder_close(dec);
  tw_reader_close(r);
  tw_conn_close(src);
}

/* tracewire record sends GET_INFO and START to a target that is already
 * recording; a host may ask for the names again at any time, also in the
 * storm while the ring holds older events. None of it may make the stream's
 * time step back, and none of it may change what the model does. */
static void test_midstream_start_and_names(void **state)
{
  (void)state;
  struct io quiet = { 0 }, busy = { 0 };
  run(&quiet, TW_SIM_SC_DEMO, 1);
  add_cmd(&busy, 2500, NULL, 0, TW_LCMD_GET_INFO, 1, NULL, 0);
  add_cmd(&busy, 2500, NULL, 0, TW_LCMD_START, 2, NULL, 0);
  add_cmd(&busy, 20500, NULL, 0, TW_LCMD_GET_NAMES, 3, NULL, 0);
  add_cmd(&busy, 41000, NULL, 0, TW_LCMD_GET_NAMES, 4, NULL, 0); /* in the storm */
  run(&busy, TW_SIM_SC_DEMO, 1);

  struct decoded q, b;
  decode(&quiet.out, &q);
  decode(&busy.out, &b);
  for (int k = 0; k <= TW_DIAG_LIMIT; k++)
    if (k != TW_DIAG_RING_DROPS) {
      if (q.diags[k] || b.diags[k])
        fail_msg("diagnostic kind %d: %llu without commands, %llu with", k, q.diags[k],
                 b.diags[k]);
    }
  assert_true(b.diags[TW_DIAG_RING_DROPS] > 0); /* the storm still overflows */
  assert_int_equal(q.backwards_seen, 0);
  assert_int_equal(b.backwards_seen, 0);
  assert_int_equal(q.starts, 1);
  assert_int_equal(b.starts, 1);        /* a START while recording adds no TRACE_START */
  assert_int_equal(b.syncs, q.syncs + 1); /* ... but gives the clock again */
  assert_int_equal(b.names, 4 * q.names); /* START + two GET_NAMES resend the table */
  /* the commands changed the stream, not the model */
  assert_true(busy.out.len > quiet.out.len);
  assert_int_equal(b.nmodel, q.nmodel);
  assert_memory_equal(b.model, q.model, q.nmodel * sizeof *q.model);
  free(q.model);
  free(b.model);
  free(quiet.out.buf);
  free(busy.out.buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_seed_same_bytes),
    cmocka_unit_test(test_set_mask_then_stop),
    cmocka_unit_test(test_demo_drops_exact_and_names_fit),
    cmocka_unit_test(test_midstream_start_and_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
