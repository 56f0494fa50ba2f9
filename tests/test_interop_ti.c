/*
 * What real UIA senders send (issue 18), as byte streams written word by
 * word from the descriptions (spec 000 and 001, and what TI's own loggers
 * and services are documented to write), never with tracewire's encoder:
 *   - TI's snapshot length word (this record's data in whole words above,
 *     the total below) beside the seed's; a rejected snapshot record still
 *     counts in the sequence accounting;
 *   - HdrType_Event records without a timestamp, for every event kind: the
 *     time of the stream's previous timed record, marked inferred;
 *   - footer-less packets (TI's senders set the length to header + records
 *     and write no footer), detected per stream, counted, resync exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "host/helpers.h"
#include "tracewire/events_gen.h"
#include "tracewire/error.h"

/* ---- a byte writer: words in the sender's order, headers from the diagrams */

struct bytes {
  uint8_t b[1 << 16];
  size_t len;
  int big;          /* payload words big-endian (packet header E bit) */
  size_t pkt;       /* start of the open packet */
  uint16_t pkt_seq;
  int footer;       /* write the footer word (tracewire, the seed) or not (TI) */
};

static void be(struct bytes *o, uint32_t w)
{
  o->b[o->len++] = (uint8_t)(w >> 24);
  o->b[o->len++] = (uint8_t)(w >> 16);
  o->b[o->len++] = (uint8_t)(w >> 8);
  o->b[o->len++] = (uint8_t)w;
}

static void word(struct bytes *o, uint32_t w)
{
  if (o->big) {
    be(o, w);
    return;
  }
  o->b[o->len++] = (uint8_t)w;
  o->b[o->len++] = (uint8_t)(w >> 8);
  o->b[o->len++] = (uint8_t)(w >> 16);
  o->b[o->len++] = (uint8_t)(w >> 24);
}

static void data_bytes(struct bytes *o, const void *p, size_t n)
{
  memcpy(o->b + o->len, p, n);
  o->len += n;
  while (o->len & 3)
    o->b[o->len++] = 0;
}

/* HdrType_EventPkt, 4 header words, always big-endian (001). */
static void pkt_begin(struct bytes *o) { o->pkt = o->len; o->len += 16; }

static void pkt_end(struct bytes *o, uint16_t src, uint16_t instance)
{
  uint32_t length = (uint32_t)(o->len - o->pkt) + (o->footer ? 4u : 0u);
  size_t end = o->len;
  o->len = o->pkt;
  be(o, 10u << 28 | (uint32_t)o->big << 27 | length); /* H=EventPkt, E, L (27 bits) */
  be(o, (uint32_t)o->pkt_seq++ << 16);                /* packet seq, event seq 0, prio 0 */
  be(o, (uint32_t)instance << 16 | 0x0001u);          /* D=0, instance, logger module */
  be(o, 0xFFFFu << 16 | src);                         /* dest HOST, src */
  o->len = end;
  if (o->footer)
    be(o, length << 16 | 0x7777u);
}

/* EventHdr: H b31-27, L b26-16 (bytes, header word included), S b15-0 (000). */
static uint32_t evhdr(uint32_t type, uint32_t bytes, uint32_t seq)
{
  return type << 27 | bytes << 16 | (seq & 0xFFFFu);
}

static void rec_ts(struct bytes *o, uint32_t seq, uint64_t ts, uint16_t id, uint16_t module,
                   const uint32_t *w, size_t n)
{
  word(o, evhdr(1, 16u + 4u * (uint32_t)n, seq)); /* HdrType_EventWithTimestamp */
  word(o, (uint32_t)ts);
  word(o, (uint32_t)(ts >> 32));
  word(o, (uint32_t)id << 16 | module);
  for (size_t i = 0; i < n; i++)
    word(o, w[i]);
}

/* HdrType_Event as 000 draws it: header, id word, the fields. No timestamp. */
static void rec_plain(struct bytes *o, uint32_t seq, uint16_t id, uint16_t module,
                      const uint32_t *w, size_t n)
{
  word(o, evhdr(0, 8u + 4u * (uint32_t)n, seq));
  word(o, (uint32_t)id << 16 | module);
  for (size_t i = 0; i < n; i++)
    word(o, w[i]);
}

/* ---- decoding, keeping every event ---------------------------------------- */

#define MAXEV 256
struct got {
  struct tw_event ev[MAXEV];
  char str[MAXEV][64];
  size_t n;
  struct text t; /* print lines and diagnostics */
};

static int keep(void *ctx, const struct tw_event *ev)
{
  struct got *g = ctx;
  if (g->n < MAXEV) {
    g->ev[g->n] = *ev;
    if (ev->str) {
      snprintf(g->str[g->n], sizeof g->str[0], "%.*s", (int)ev->str_len, ev->str);
      g->ev[g->n].str = g->str[g->n];
    }
    g->n++;
  }
  return text_event(&g->t, ev);
}

static struct tw_decoder *decode(const struct bytes *o, struct got *g)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(g, 0, sizeof *g);
  assert_int_equal(tw_conn_mem_open(o->b, o->len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  g->t.d = d;
  tw_decoder_on_event(d, keep, g);
  tw_decoder_on_diag(d, text_diag, &g->t);
  tw_reader_on_skip(r, (tw_skip_fn)tw_decoder_skip, d);
  assert_int_equal(tw_decoder_run(d, r), 0);
  tw_reader_close(r);
  tw_conn_close(src);
  return d;
}

static size_t count_str(const char *s, const char *what)
{
  size_t n = 0;
  for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
    n++;
  return n;
}

static void done(struct tw_decoder *d, struct got *g)
{
  free(g->t.buf);
  tw_decoder_close(d);
}

/* ---- TI's snapshot layout ----------------------------------------------------- */

/* A NAME (task 3, priority 5, "sensor_task") as TI's loggers would write a
 * snapshot of it: the data rounded up to whole words, cut in records of at
 * most max_words data words, each length word (its data in whole words,
 * in bytes) << 16 | total, the address advancing by the whole words. */
static void ti_name_snapshot(struct bytes *o, uint32_t *seq, uint32_t snap_id, uint32_t max_words,
                             int with_ts, uint64_t ts, const char *name)
{
  uint8_t data[64];
  uint32_t packed = TW_OBJ_TASK | 5u << 8 | 3u << 16;
  size_t slen = strlen(name) + 1; /* with its NUL */
  memcpy(data, &packed, 4);       /* the sender's order: this host's, E says which */
  memcpy(data + 4, name, slen);
  uint32_t total = (uint32_t)(4 + slen), off = 0, left = (total + 3) / 4;
  assert_false(o->big);
  do {
    uint32_t words = left > max_words ? max_words : left;
    word(o, evhdr(with_ts ? 3 : 2, (with_ts ? 40u : 32u) + 4u * words, (*seq)++));
    if (with_ts) {
      word(o, (uint32_t)ts);
      word(o, (uint32_t)(ts >> 32));
    }
    word(o, (uint32_t)TW_EV_NAME << 16 | TW_MOD_CONTROL);
    word(o, 0x0800ABCDu); /* file name pointer */
    word(o, 99);          /* line */
    word(o, snap_id);
    word(o, 0x20000000u + off);
    word(o, (4u * words) << 16 | total);
    word(o, 0);           /* format pointer */
    uint8_t chunk[128] = {0};
    memcpy(chunk, data + off, total - off < 4 * words ? total - off : 4 * words);
    data_bytes(o, chunk, 4u * words);
    off += 4u * words;
    left -= words;
  } while (left);
}

static void test_ti_snapshot_layout_decodes(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  memset(&o, 0, sizeof o);
  o.footer = 1;
  uint32_t seq = 0, hz = 1000000;
  pkt_begin(&o);
  rec_ts(&o, seq++, 1000, TW_EV_SYNC, TW_MOD_CONTROL, &hz, 1);
  ti_name_snapshot(&o, &seq, 1, 2, 1, 1100, "sensor_task"); /* 16 bytes: two records */
  ti_name_snapshot(&o, &seq, 2, 8, 1, 1200, "idle");        /* 9 bytes: one, padded */
  pkt_end(&o, 7, 0);
  struct tw_decoder *d = decode(&o, &g);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->snap_errors, 0);
  assert_int_equal(st->unexplained + st->events_lost, 0);
  assert_int_equal(g.n, 3);
  assert_int_equal(g.ev[1].id, TW_EV_NAME);
  assert_string_equal(g.ev[1].str, "sensor_task");
  assert_int_equal(g.ev[1].values[2], 3);
  assert_int_equal(g.ev[1].values[1], 5);
  assert_string_equal(g.ev[2].str, "idle");
  assert_string_equal(tw_decoder_name(d, 7, TW_OBJ_TASK, 3), "idle"); /* the later one */
  assert_int_equal(g.ev[2].flags, 0); /* timed snapshot records */
  done(d, &g);
}

/* A snapshot record rejected for its lengths arrived all the same: its
 * sequence number counts, so no gap is reported for it. */
static void test_rejected_snapshot_record_counts_in_sequence(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  memset(&o, 0, sizeof o);
  o.footer = 1;
  uint32_t hz = 1000000, v = 3;
  pkt_begin(&o);
  rec_ts(&o, 0, 1000, TW_EV_SYNC, TW_MOD_CONTROL, &hz, 1);
  word(&o, evhdr(2, 40, 1)); /* snapshot, 8 bytes of room */
  word(&o, (uint32_t)TW_EV_NAME << 16 | TW_MOD_CONTROL);
  word(&o, 0); word(&o, 0); word(&o, 9); word(&o, 0x1000);
  word(&o, 4u << 16 | 12u); /* fits neither layout: this > total, and 4 is not the room */
  word(&o, 0); word(&o, 0x11111111u); word(&o, 0x22222222u);
  rec_ts(&o, 2, 1100, TW_EV_TASK_SWITCH, TW_MOD_RTOS, &v, 1);
  pkt_end(&o, 1, 0);
  struct tw_decoder *d = decode(&o, &g);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->snap_errors, 1);
  assert_int_equal(st->unexplained, 0);
  assert_int_equal(st->events_lost, 0);
  assert_int_equal(count_diags(&g.t, TW_DIAG_EVT_GAP), 0);
  assert_int_equal(count_diags(&g.t, TW_DIAG_SNAPSHOT), 1);
  assert_int_equal(g.n, 2);
  done(d, &g);
}

/* ---- HdrType_Event without a timestamp -------------------------------------------- */

static int plain_kind(const struct tw_event_desc *d)
{
  for (unsigned i = 0; i < d->nfields; i++)
    if (d->fields[i].type == TW_FT_STRING)
      return 0; /* travels as snapshot records */
  return d->id != TW_EV_DROPS && d->id != TW_EV_SYNC; /* they steer the decoder */
}

/* Every kind of the vocabulary as a plain record holding exactly its
 * fields, after one timed record: decoded, with the timed record's time,
 * marked inferred (print: ", time = inferred"). */
static void test_plain_records_of_every_kind(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  for (int big = 0; big <= 1; big++) {
    memset(&o, 0, sizeof o);
    o.footer = 1;
    o.big = big;
    uint32_t seq = 0, hz = 1000000, nkinds = 0, w[TW_EVENT_MAX_VALUES];
    pkt_begin(&o);
    rec_ts(&o, seq++, 5000, TW_EV_SYNC, TW_MOD_CONTROL, &hz, 1);
    for (size_t k = 0; k < tw_event_ndescs; k++) {
      const struct tw_event_desc *d = &tw_event_descs[k];
      if (!plain_kind(d) || d->id == TW_EV_PKT_CHECK)
        continue; /* a packet's check (issue 19) is verified and consumed, not delivered */
      for (unsigned i = 0; i < d->payload_words; i++)
        w[i] = 0x01020304u * (uint32_t)(k + 1) + i;
      rec_plain(&o, seq++, d->id, d->module, w, d->payload_words);
      nkinds++;
    }
    pkt_end(&o, 1, 0);
    struct tw_decoder *d = decode(&o, &g);
    const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
    assert_int_equal(st->bad_records, 0);
    assert_int_equal(st->unexplained, 0);
    assert_int_equal(g.n, 1 + nkinds);
    for (size_t i = 1; i < g.n; i++) {
      const struct tw_event *ev = &g.ev[i];
      size_t k = (size_t)(ev->desc - tw_event_descs);
      assert_true(ev->flags & TW_EVENT_TIME_INFERRED);
      assert_int_equal(ev->time_ns, 5000000); /* 5000 ticks at 1 MHz */
      for (unsigned f = 0; f < ev->desc->payload_words; f++)
        w[f] = 0x01020304u * (uint32_t)(k + 1) + f;
      for (unsigned f = 0; f < ev->nvalues; f++)
        assert_int_equal(ev->values[f], tw_field_get(&ev->desc->fields[f], w));
    }
    assert_int_equal(g.ev[0].flags, 0);
    assert_int_equal(count_str(g.t.buf, ", time = inferred\n"), nkinds);
    done(d, &g);
  }
}

/* A TIMED kind's plain record with one word more than its fields carries the
 * logger's 32-bit timestamp first (not inferred); with exactly its fields it
 * has none (inferred), and the next timed record sets the time again. */
static void test_plain_record_with_and_without_timestamp_word(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  memset(&o, 0, sizeof o);
  o.footer = 1;
  uint32_t hz = 1000000, one[1] = {4}, two[2] = {7000, 4};
  pkt_begin(&o);
  rec_ts(&o, 0, 5000, TW_EV_SYNC, TW_MOD_CONTROL, &hz, 1);
  rec_plain(&o, 1, TW_EV_TASK_SWITCH, TW_MOD_RTOS, one, 1); /* no timestamp */
  rec_plain(&o, 2, TW_EV_TASK_SWITCH, TW_MOD_RTOS, two, 2); /* 32-bit timestamp 7000 */
  rec_plain(&o, 3, TW_EV_TASK_SWITCH, TW_MOD_RTOS, one, 1); /* none again: 7000 */
  pkt_end(&o, 1, 0);
  struct tw_decoder *d = decode(&o, &g);
  assert_int_equal(g.n, 4);
  assert_int_equal(g.ev[1].time_ns, 5000000);
  assert_true(g.ev[1].flags & TW_EVENT_TIME_INFERRED);
  assert_int_equal(g.ev[1].values[0], 4);
  assert_int_equal(g.ev[2].time_ns, 7000000);
  assert_int_equal(g.ev[2].flags, 0);
  assert_int_equal(g.ev[2].values[0], 4);
  assert_int_equal(g.ev[3].time_ns, 7000000);
  assert_true(g.ev[3].flags & TW_EVENT_TIME_INFERRED);
  done(d, &g);
}

/* ---- footer-less packets ---------------------------------------------------------- */

/* A stream as TI's streaming logger sends it: event packets whose length is
 * header + records, no footer. npkts packets of 3 timed TASK_SWITCH records
 * each (first a SYNC); offsets of each packet in off[]. */
static void ti_stream(struct bytes *o, size_t npkts, size_t *off)
{
  uint32_t seq = 0, hz = 1000000;
  memset(o, 0, sizeof *o);
  for (size_t p = 0; p < npkts; p++) {
    off[p] = o->len;
    pkt_begin(o);
    if (p == 0)
      rec_ts(o, seq++, 100, TW_EV_SYNC, TW_MOD_CONTROL, &hz, 1);
    for (int i = 0; i < 3; i++) {
      uint32_t task = (uint32_t)(p * 3 + (size_t)i) % 7 + 1;
      rec_ts(o, seq, 1000 + 10 * seq, TW_EV_TASK_SWITCH, TW_MOD_RTOS, &task, 1);
      seq++;
    }
    pkt_end(o, 1, 0);
  }
  off[npkts] = o->len;
}

static struct tw_decoder *decode_cfg(const uint8_t *b, size_t len, struct got *g,
                                     const struct tw_reader_cfg *cfg, struct tw_reader_stats *st)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(g, 0, sizeof *g);
  assert_int_equal(tw_conn_mem_open(b, len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, cfg), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  g->t.d = d;
  tw_decoder_on_event(d, keep, g);
  tw_decoder_on_diag(d, text_diag, &g->t);
  tw_reader_on_skip(r, (tw_skip_fn)tw_decoder_skip, d);
  assert_int_equal(tw_decoder_run(d, r), 0);
  *st = *tw_reader_stats(r);
  tw_reader_close(r);
  tw_conn_close(src);
  return d;
}

static void test_footerless_stream_detected_and_counted(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g, g1;
  size_t off[21];
  struct tw_reader_stats st, st1;
  ti_stream(&o, 20, off);
  struct tw_decoder *d = decode_cfg(o.b, o.len, &g, NULL, &st);
  assert_int_equal(st.packets, 20);
  assert_int_equal(st.footerless, 20);
  assert_true(st.footerless_stream);
  assert_int_equal(st.footerless_at, 0);
  assert_int_equal(st.skipped, 0);
  assert_int_equal(g.n, 61);
  const struct tw_stream_stats *ss = tw_decoder_stream(d, 0);
  assert_int_equal(ss->pkts_lost + ss->events_lost + ss->unexplained + ss->bad_records, 0);
  /* the same bytes one at a time: the framing depends on the bytes only */
  struct tw_reader_cfg one = { .read_bytes = 1 };
  struct tw_decoder *d1 = decode_cfg(o.b, o.len, &g1, &one, &st1);
  assert_int_equal(st1.packets, 20);
  assert_int_equal(st1.footerless, 20);
  assert_string_equal(g1.t.buf, g.t.buf);
  done(d1, &g1);
  done(d, &g);
}

/* One packet without a footer is not evidence: refused, said, skipped. */
static void test_one_footerless_packet_is_not_enough(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  size_t off[2];
  struct tw_reader_stats st;
  ti_stream(&o, 1, off);
  struct tw_decoder *d = decode_cfg(o.b, o.len, &g, NULL, &st);
  assert_int_equal(st.packets, 0);
  assert_false(st.footerless_stream);
  assert_int_equal(st.skipped, o.len);
  assert_int_equal(g.n, 0);
  assert_int_equal(count_diags(&g.t, TW_DIAG_SKIP), 1);
  assert_int_equal(g.t.diags[0].err, TW_EFOOTER);
  done(d, &g);
}

/* Damage in a footer-less stream costs exactly the damaged bytes: garbage
 * between packets, a packet whose length field was hit, a packet cut
 * short by lost bytes. Every other packet is decoded. */
static void test_footerless_resync_is_exact(void **state)
{
  (void)state;
  static struct bytes o, x;
  static struct got g;
  size_t off[21];
  struct tw_reader_stats st;
  ti_stream(&o, 20, off);
  for (int kind = 0; kind < 3; kind++) {
    size_t victim = 7, damaged;
    memset(&x, 0, sizeof x);
    memcpy(x.b, o.b, off[victim]);
    x.len = off[victim];
    if (kind == 0) { /* 13 bytes of garbage before packet 7 */
      for (int i = 0; i < 13; i++)
        x.b[x.len++] = (uint8_t)(0x5A + 37 * i);
      damaged = 13;
      memcpy(x.b + x.len, o.b + off[victim], o.len - off[victim]);
      x.len += o.len - off[victim];
    } else if (kind == 1) { /* packet 7's length field hit: 4 bytes more */
      memcpy(x.b + x.len, o.b + off[victim], o.len - off[victim]);
      x.b[x.len + 3] = (uint8_t)(x.b[x.len + 3] + 4);
      x.len += o.len - off[victim];
      damaged = off[victim + 1] - off[victim];
    } else { /* the last 8 bytes of packet 7 lost in transport */
      size_t keep_n = off[victim + 1] - off[victim] - 8;
      memcpy(x.b + x.len, o.b + off[victim], keep_n);
      x.len += keep_n;
      memcpy(x.b + x.len, o.b + off[victim + 1], o.len - off[victim + 1]);
      x.len += o.len - off[victim + 1];
      damaged = keep_n;
    }
    struct tw_decoder *d = decode_cfg(x.b, x.len, &g, NULL, &st);
    assert_int_equal(st.skipped, damaged);
    assert_int_equal(st.skips, 1);
    assert_int_equal(st.packets, kind == 0 ? 20 : 19);
    assert_int_equal(g.n, kind == 0 ? 61 : 58);
    const struct tw_stream_stats *ss = tw_decoder_stream(d, 0);
    assert_int_equal(ss->pkts_lost, kind == 0 ? 0 : 1);
    assert_int_equal(ss->unexplained, 0);
    done(d, &g);
  }
}

/* A footer hit in a stream with footers does not make it footer-less: the
 * packet is skipped as before, messages included. */
static void test_damaged_footer_is_not_a_footerless_stream(void **state)
{
  (void)state;
  static struct bytes o;
  static struct got g;
  struct tw_reader_stats st;
  uint32_t hz = 1000000, v = 1, seq = 0;
  memset(&o, 0, sizeof o);
  o.footer = 1;
  size_t at[5];
  for (int p = 0; p < 4; p++) {
    at[p] = o.len;
    pkt_begin(&o);
    rec_ts(&o, seq++, 100 + (uint32_t)p, p ? TW_EV_TASK_SWITCH : TW_EV_SYNC,
           p ? TW_MOD_RTOS : TW_MOD_CONTROL, p ? &v : &hz, 1);
    pkt_end(&o, 1, 0);
  }
  at[4] = o.len;
  o.b[at[2] - 1] ^= 0x01; /* packet 1's footer */
  /* a message (an ACK reply, HdrType_Msg) with its footer hit, then one more packet */
  size_t m = o.len;
  be(&o, 9u << 28 | 20u << 16 | 0u << 12 | 0x001u);
  be(&o, 5u << 16 | 1u);
  be(&o, 0x1234u);
  be(&o, 0xFFFFu << 16 | 1u);
  be(&o, 20u << 16 | 0x7776u);
  pkt_begin(&o);
  rec_ts(&o, seq++, 200, TW_EV_TASK_SWITCH, TW_MOD_RTOS, &v, 1);
  pkt_end(&o, 1, 0);
  struct tw_decoder *d = decode_cfg(o.b, o.len, &g, NULL, &st);
  assert_false(st.footerless_stream);
  assert_int_equal(st.footerless, 0);
  assert_int_equal(st.packets, 4);
  assert_int_equal(st.skipped, (at[2] - at[1]) + 20);
  (void)m;
  done(d, &g);
}

static void count_msg(void *ctx, const struct tw_pkt *p)
{
  int *n = ctx;
  (*n)++;
  assert_true(p->footerless);
  assert_int_equal(p->payload_len, 4);
  assert_int_equal(tw_pkt_word(p, 0), 0x30); /* little-endian body, E = 0 */
}

/* record --no-footer: a reply with no footer, the first and only packet of
 * the stream, is taken at once; after that a footer-less event stream. */
static void test_configured_footerless_takes_a_lone_reply(void **state)
{
  (void)state;
  static struct bytes o;
  memset(&o, 0, sizeof o);
  /* RESULT of GET_MASK: header (E = 0: little-endian body) and one word */
  be(&o, 9u << 28 | 0u << 27 | 20u << 16 | 2u << 12 | 0x001u);
  be(&o, 5u << 16 | 3u);
  be(&o, 0xABCDu);
  be(&o, 0xFFFFu << 16 | 1u);
  o.b[o.len++] = 0x30; o.b[o.len++] = 0; o.b[o.len++] = 0; o.b[o.len++] = 0;
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_pkt p;
  struct tw_reader_cfg cfg = { .footerless = 1 };
  int nmsg = 0;
  assert_int_equal(tw_conn_mem_open(o.b, o.len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, &cfg), 0);
  assert_int_equal(tw_reader_next(r, &p, 0), 1);
  count_msg(&nmsg, &p);
  assert_int_equal(tw_reader_next(r, &p, 0), TW_EOF);
  assert_int_equal(tw_reader_stats(r)->footerless, 1);
  assert_int_equal(nmsg, 1);
  tw_reader_close(r);
  tw_conn_close(src);
  /* without being told, a lone footer-less reply is not taken */
  assert_int_equal(tw_conn_mem_open(o.b, o.len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_reader_next(r, &p, 0), TW_EOF);
  assert_int_equal(tw_reader_stats(r)->skipped, o.len);
  tw_reader_close(r);
  tw_conn_close(src);
}

/* A reader resumed mid-stream (a .twt time index) from the state another
 * left frames the rest exactly as that one does, footer-less included. */
static void test_footerless_resume_point(void **state)
{
  (void)state;
  static struct bytes o;
  size_t off[11];
  ti_stream(&o, 10, off);
  struct tw_conn *src;
  struct tw_reader *r, *r2;
  struct tw_pkt p;
  unsigned long long at, num;
  assert_int_equal(tw_conn_mem_open(o.b, o.len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  for (int i = 0; i < 4; i++)
    assert_int_equal(tw_reader_next(r, &p, 0), 1);
  int stt = tw_reader_resume_point(r, &at, &num);
  assert_int_equal(stt, 3); /* in sync, footer-less */
  assert_int_equal(at, off[4]);
  struct tw_conn *src2;
  assert_int_equal(tw_conn_mem_open(o.b + at, o.len - at, &src2), 0);
  assert_int_equal(tw_reader_open(&r2, src2, NULL), 0);
  assert_int_equal(tw_reader_resume(r2, at, num, stt), 0);
  for (int i = 4; i < 10; i++) {
    struct tw_pkt q;
    assert_int_equal(tw_reader_next(r, &p, 0), 1);
    assert_int_equal(tw_reader_next(r2, &q, 0), 1);
    assert_int_equal(tw_reader_pkt_offset(r2), tw_reader_pkt_offset(r));
    assert_int_equal(q.length, p.length);
  }
  assert_int_equal(tw_reader_next(r2, &p, 0), TW_EOF);
  assert_int_equal(tw_reader_resume(r2, 0, 0, 4), TW_EINVAL);
  tw_reader_close(r);
  tw_reader_close(r2);
  tw_conn_close(src);
  tw_conn_close(src2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ti_snapshot_layout_decodes),
    cmocka_unit_test(test_rejected_snapshot_record_counts_in_sequence),
    cmocka_unit_test(test_plain_records_of_every_kind),
    cmocka_unit_test(test_plain_record_with_and_without_timestamp_word),
    cmocka_unit_test(test_footerless_stream_detected_and_counted),
    cmocka_unit_test(test_one_footerless_packet_is_not_enough),
    cmocka_unit_test(test_footerless_resync_is_exact),
    cmocka_unit_test(test_damaged_footer_is_not_a_footerless_stream),
    cmocka_unit_test(test_configured_footerless_takes_a_lone_reply),
    cmocka_unit_test(test_footerless_resume_point),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
