/*
 * Decoder semantics: loss accounting by cause, unknown ids, time (frequency
 * conversion, 32-bit extension, backwards steps), snapshots (reassembly and
 * a missing record), custom events, big-endian payloads, multi-stream merge.
 * Streams are built with the wire API (uia.h), never with decoder code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "host/helpers.h"
#include "tracewire/wire/merge.h"
#include "tracewire/error.h"
#include "tracewire/events_gen.h"

/* ---- a tiny packet builder ---- */
struct pb {
  uint8_t buf[1 << 16];
  size_t len;        /* whole stream */
  size_t start;      /* current packet */
  uint16_t pkt_seq, ev_seq;
  int big;           /* payload words big-endian */
};

static void pb_begin(struct pb *b) { b->start = b->len; b->len += TW_EVPKT_HDR_BYTES; }

static void pb_word(struct pb *b, uint32_t w)
{
  if (b->big)
    tw_store_be32(b->buf + b->len, w);
  else
    tw_store_le32(b->buf + b->len, w);
  b->len += 4;
}

static void pb_end(struct pb *b, uint16_t src, uint16_t inst)
{
  uint32_t length = (uint32_t)(b->len - b->start) + 4;
  tw_pkt_hdr h;
  tw_pkt_init_event(&h, b->big ? TW_ENDIAN_BIG : TW_ENDIAN_LITTLE, length, b->pkt_seq++, 0, 1,
                    inst, TW_ADDR_HOST, src);
  memcpy(b->buf + b->start, &h, sizeof h);
  tw_store_be32(b->buf + b->len, tw_pkt_footer(length));
  b->len += 4;
}

static void pb_event(struct pb *b, uint64_t ts, uint16_t id, uint16_t module, const uint32_t *w, size_t n)
{
  uint32_t rec[16];
  int k = tw_record_encode(rec, 16, b->ev_seq++, 1, ts, id, module, w, n);
  assert_true(k > 0);
  for (int i = 0; i < k; i++)
    pb_word(b, rec[i]);
}

static void pb_sync(struct pb *b, uint64_t ts, uint32_t hz) { pb_event(b, ts, 0x102, TW_MOD_CONTROL, &hz, 1); }

/* ---- loss accounting ---- */

static void losses_by_cause_are_exact(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 400, .drop_every = 31, .drop_count = 5 };
  synth_stream(&s, 120, &cfg);
  static const size_t removed[] = {10, 11, 12, 57, 90};
  uint8_t *out = malloc(s.len);
  size_t olen = 0, r = 0;
  unsigned long long lost_seq = 0, lost_drops = 0;
  for (size_t i = 0; i < s.npkts; i++) {
    if (r < 5 && removed[r] == i) {
      lost_seq += (uint16_t)(s.seq_before[i + 1] - s.seq_before[i]);
      lost_drops += s.drops_before[i + 1] - s.drops_before[i];
      r++;
      continue;
    }
    memcpy(out + olen, s.data + s.off[i], s.plen[i]);
    olen += s.plen[i];
  }
  struct text t;
  struct tw_decoder *d = decode_mem(out, olen, &t);
  assert_int_equal(tw_decoder_nstreams(d), 1);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->pkts_lost, 5);
  assert_int_equal(st->events_lost, lost_seq);
  assert_int_equal(st->ring_drops, s.drops_before[s.npkts] - lost_drops);
  assert_true(st->ring_drops > 0);
  assert_int_equal(st->unexplained, 0);
  assert_int_equal(count_diags(&t, TW_DIAG_PKT_LOSS), 3); /* 10-12 is one gap */
  tw_decoder_close(d);
  free(t.buf);
  free(out);
  free(s.data);
}

static void seq_gap_without_cause_is_unexplained(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  uint32_t w = 3;
  pb_begin(&b);
  pb_sync(&b, 10, 1000000);
  pb_event(&b, 20, 4, TW_MOD_RTOS, &w, 1);
  b.ev_seq += 7; /* seven records vanish inside one packet stream, no DROPS */
  pb_event(&b, 30, 4, TW_MOD_RTOS, &w, 1);
  pb_end(&b, 1, 0);
  /* a DROPS record whose events consumed sequence numbers: not double counted */
  pb_begin(&b);
  uint32_t n = 4;
  pb_event(&b, 40, 0x103, TW_MOD_CONTROL, &n, 1);
  b.ev_seq += 4;
  pb_event(&b, 50, 4, TW_MOD_RTOS, &w, 1);
  /* more than 65535 dropped: the 16-bit skip wraps, the count is authoritative */
  n = 70000;
  pb_event(&b, 60, 0x103, TW_MOD_CONTROL, &n, 1);
  b.ev_seq = (uint16_t)(b.ev_seq + 70000);
  pb_event(&b, 70, 4, TW_MOD_RTOS, &w, 1);
  pb_end(&b, 1, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, b.len, &t);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->unexplained, 7);
  assert_int_equal(st->ring_drops, 70004);
  assert_int_equal(st->events_lost, 0);
  assert_int_equal(count_diags(&t, TW_DIAG_EVT_GAP), 1);
  tw_decoder_close(d);
  free(t.buf);
}

/* ---- unknown ids ---- */

static void unknown_ids_reported_once_and_counted(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  uint32_t w[2] = {2, 0};
  pb_begin(&b);
  pb_sync(&b, 1, 1000000);
  for (int i = 0; i < 5; i++) {
    pb_event(&b, 10 + (uint64_t)i, 999, TW_MOD_RTOS, w, 2);
    pb_event(&b, 10 + (uint64_t)i, 4, TW_MOD_RTOS, w, 1);
  }
  pb_event(&b, 20, 4, TW_MOD_KERNEL, w, 1); /* known id, wrong module: unknown */
  pb_end(&b, 1, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, b.len, &t);
  assert_int_equal(t.events, 6); /* SYNC + 5 TaskSwitch */
  assert_int_equal(count_diags(&t, TW_DIAG_UNKNOWN_ID), 2);
  uint16_t ep, mod, id;
  unsigned long long n;
  assert_true(tw_decoder_unknown_at(d, 0, &ep, &mod, &id, &n));
  assert_int_equal(id, 999);
  assert_int_equal(mod, TW_MOD_RTOS);
  assert_int_equal(n, 5);
  assert_true(tw_decoder_unknown_at(d, 1, &ep, &mod, &id, &n));
  assert_int_equal(n, 1);
  assert_int_equal(tw_decoder_stream(d, 0)->unknown, 6);
  tw_decoder_close(d);
  free(t.buf);
}

/* ---- time ---- */

struct times {
  uint64_t ns[64], ticks[64];
  size_t n;
};

static int grab_time(void *ctx, const struct tw_event *ev)
{
  struct times *t = ctx;
  if (t->n < 64) {
    t->ns[t->n] = ev->time_ns;
    t->ticks[t->n++] = ev->ticks;
  }
  return 0;
}

static struct tw_decoder *decode_times(const void *data, size_t len, struct times *tm, struct text *diags)
{
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(tm, 0, sizeof *tm);
  memset(diags, 0, sizeof *diags);
  assert_int_equal(tw_conn_mem_open(data, len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  tw_decoder_on_event(d, grab_time, tm);
  tw_decoder_on_diag(d, text_diag, diags);
  assert_int_equal(tw_decoder_run(d, r), 0);
  tw_reader_close(r);
  tw_conn_close(src);
  return d;
}

static void ticks_to_ns_exact_and_backwards_reported(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  uint32_t w = 1;
  pb_begin(&b);
  pb_sync(&b, 0, 72000000);                              /* 72 MHz: 13.88 ns per tick */
  pb_event(&b, 72000000ull * 3 + 1, 4, TW_MOD_RTOS, &w, 1); /* 3 s + 1 tick */
  pb_event(&b, 72000000ull * 2, 4, TW_MOD_RTOS, &w, 1);     /* backwards */
  pb_event(&b, 1ull << 40, 4, TW_MOD_RTOS, &w, 1);
  pb_end(&b, 1, 0);
  struct times tm;
  struct text dg;
  struct tw_decoder *d = decode_times(b.buf, b.len, &tm, &dg);
  assert_int_equal(tm.n, 4);
  assert_int_equal(tm.ns[1], 3000000013ull);
  assert_int_equal(tm.ns[2], 2000000000ull); /* passed through, not "fixed" */
  /* 2^40 ticks at 72 MHz: exactly floor(2^40 * 1e9 / 72e6) ns */
  assert_int_equal(tm.ns[3], 15270994830222ull);
  assert_int_equal(count_diags(&dg, TW_DIAG_BACKWARDS), 1);
  assert_int_equal(count_diags(&dg, TW_DIAG_NO_FREQ), 0);
  assert_int_equal(tw_decoder_stream(d, 0)->backwards, 1);
  tw_decoder_close(d);
}

static void timestamp_32_bit_extended_across_wrap(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_sync(&b, 0xFFFFFF00ull, 1000000000);
  /* plain records of a TIMED event carry the logger's 32-bit timestamp first */
  uint32_t t32[] = {0xFFFFFFF0u, 0x00000010u, 0x00000100u};
  for (int i = 0; i < 3; i++) {
    uint32_t rec[8];
    uint32_t payload[2] = {t32[i], 7};
    int k = tw_record_encode(rec, 8, b.ev_seq++, 0, 0, 4, TW_MOD_RTOS, payload, 2);
    for (int j = 0; j < k; j++)
      pb_word(&b, rec[j]);
  }
  pb_end(&b, 1, 0);
  struct times tm;
  struct text dg;
  struct tw_decoder *d = decode_times(b.buf, b.len, &tm, &dg);
  assert_int_equal(tm.n, 4);
  assert_int_equal(tm.ticks[1], 0xFFFFFFF0ull);
  assert_int_equal(tm.ticks[2], 0x100000010ull);
  assert_int_equal(tm.ticks[3], 0x100000100ull);
  assert_int_equal(count_diags(&dg, TW_DIAG_BACKWARDS), 0);
  tw_decoder_close(d);
}

/* ---- snapshots, names, custom events ---- */

struct pbsink { struct pb *b; int skip_index, index; };

static int pb_sink(void *ctx, const uint32_t *words, size_t n)
{
  struct pbsink *s = ctx;
  if (s->index++ == s->skip_index)
    return 0; /* this record is "lost" */
  for (size_t i = 0; i < n; i++)
    pb_word(s->b, words[i]);
  return 0;
}

static void name_snapshot(struct pb *b, uint32_t snap_id, unsigned number, const char *name, int lose)
{
  uint8_t data[1100];
  uint32_t w = TW_OBJ_TASK | 3u << 8 | (uint32_t)number << 16;
  memcpy(data, &w, 4);
  size_t n = strlen(name) + 1;
  assert_true(4 + n <= sizeof data);
  memcpy(data + 4, name, n);
  struct pbsink s = { b, lose, 0 };
  uint32_t seq;
  assert_int_equal(tw_snapshot_encode(pb_sink, &s, b->ev_seq, &seq, 1, 5, 0x104, TW_MOD_CONTROL, 0,
                                      0, snap_id, 0x1000, 0, data, 4 + n, 48), 0);
  b->ev_seq = (uint16_t)seq;
}

static void snapshots_reassembled_and_gaps_reported(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_sync(&b, 1, 1000000);
  name_snapshot(&b, 1, 2, "a_rather_long_task_name", -1);  /* 4 records of 8 data bytes */
  name_snapshot(&b, 2, 3, "another_long_task_name", 1);    /* second record lost */
  uint32_t w = 3;
  pb_event(&b, 9, 4, TW_MOD_RTOS, &w, 1);
  w = 2;
  pb_event(&b, 10, 4, TW_MOD_RTOS, &w, 1);
  pb_end(&b, 1, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, b.len, &t);
  assert_string_equal(tw_decoder_name(d, 1, TW_OBJ_TASK, 2), "a_rather_long_task_name");
  assert_null(tw_decoder_name(d, 1, TW_OBJ_TASK, 3));
  assert_int_equal(count_diags(&t, TW_DIAG_SNAPSHOT), 1);
  for (size_t i = 0; i < t.ndiags; i++)
    if (t.diags[i].kind == TW_DIAG_SNAPSHOT)
      assert_int_equal(t.diags[i].err, TW_ESNAPGAP);
  assert_non_null(strstr(t.buf, "TaskSwitch: { task = 2 \"a_rather_long_task_name\" }"));
  assert_non_null(strstr(t.buf, "Name: { kind = task, prio = 3, number = 2, name = \"a_rather_long_task_name\" }"));
  /* the record lost inside snapshot 2 is also an event-sequence gap */
  assert_int_equal(tw_decoder_stream(d, 0)->unexplained, 1);
  tw_decoder_close(d);
  free(t.buf);
}

/* Names are kept whole, however long the target's TW_CFG_NAME_MAX lets
 * them be (they were cut at 63 bytes), through print's text and through a
 * checkpoint (the .twt index) too. */
static void long_names_kept_whole(void **state)
{
  (void)state;
  static struct pb b;
  static const size_t lens[] = {63, 64, 300, 1000};
  static char names[4][1001];
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_sync(&b, 1, 1000000);
  for (unsigned i = 0; i < 4; i++) {
    for (size_t k = 0; k < lens[i]; k++)
      names[i][k] = (char)('a' + (k + i) % 26);
    names[i][lens[i]] = 0;
    name_snapshot(&b, i + 1, i + 2, names[i], -1);
  }
  uint32_t w = 4;
  pb_event(&b, 10, 4, TW_MOD_RTOS, &w, 1);
  pb_end(&b, 1, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, b.len, &t);
  for (unsigned i = 0; i < 4; i++)
    assert_string_equal(tw_decoder_name(d, 1, TW_OBJ_TASK, i + 2), names[i]);
  char want[1100];
  snprintf(want, sizeof want, "TaskSwitch: { task = 4 \"%s\" }", names[2]);
  assert_non_null(strstr(t.buf, want));
  int need = tw_decoder_save(d, NULL, 0);
  assert_true(need > 1400);
  uint8_t *blob = malloc((size_t)need);
  assert_int_equal(tw_decoder_save(d, blob, (size_t)need), need);
  struct tw_decoder *e;
  assert_int_equal(tw_decoder_open(&e, &(struct tw_decoder_cfg){0}), 0);
  assert_int_equal(tw_decoder_restore(e, blob, (size_t)need), 0);
  for (unsigned i = 0; i < 4; i++)
    assert_string_equal(tw_decoder_name(e, 1, TW_OBJ_TASK, i + 2), names[i]);
  tw_decoder_close(e);
  free(blob);
  tw_decoder_close(d);
  free(t.buf);
  /* a version 1 checkpoint (a .twt indexed before: u8 name lengths) still
   * restores: no streams, one name, no customs */
  static const uint8_t v1[] = {
    'T', 'W', 'D', 'S', 1, 0, 0, 0, 0, 0, 0, 0, 0, /* magic, version, freq, no_freq */
    0, 0, 0, 0, 1, 0, 0, 0,                        /* nstreams, nnames */
    9, 0, 0, 0, TW_OBJ_TASK, 1, 0, 0x80, 3, 'a', 'b', 'c', /* key (ep 1, task 9), name */
    0, 0, 0, 0};                                   /* ncustom */
  assert_int_equal(tw_decoder_open(&e, &(struct tw_decoder_cfg){0}), 0);
  assert_int_equal(tw_decoder_restore(e, v1, sizeof v1), 0);
  assert_string_equal(tw_decoder_name(e, 1, TW_OBJ_TASK, 9), "abc");
  tw_decoder_close(e);
}

/* A CUSTOM_DECL snapshot of kind id (timed) with the declaration text. */
static void decl_snapshot(struct pb *b, uint32_t snap_id, uint16_t id, unsigned nfields,
                          const char *decl)
{
  uint8_t data[256];
  uint32_t w = (uint32_t)id | 1u << TW_EV_CUSTOM_DECL_TIMED_SHIFT |
               (uint32_t)nfields << TW_EV_CUSTOM_DECL_NFIELDS_SHIFT;
  size_t n = strlen(decl) + 1;
  assert_true(4 + n <= sizeof data);
  memcpy(data, &w, 4);
  memcpy(data + 4, decl, n);
  struct pbsink s = { b, -1, 0 };
  uint32_t seq;
  assert_int_equal(tw_snapshot_encode(pb_sink, &s, b->ev_seq, &seq, 1, 5, TW_EV_CUSTOM_DECL,
                                      TW_MOD_CONTROL, 0, 0, snap_id, 0x1000, 0, data, 4 + n, 48), 0);
  b->ev_seq = (uint16_t)seq;
}

/* A kind declared again with other fields gets a descriptor of its own;
 * the earlier one is left as it was (events in the merge window point at
 * it: print crashed on one) and comes back when its declaration does. A
 * checkpoint keeps which one is current. */
static void redeclared_custom_kind_keeps_each_descriptor(void **state)
{
  (void)state;
  static struct pb b;
  static const char *const decls[] = {"R a:U8 b:U16", "R x:U32 y:U32 z:U32", "R a:U8 b:U16"};
  static const uint32_t w[][3] = {{1, 2}, {3, 4, 5}, {6, 7}}, nf[] = {2, 3, 2};
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_sync(&b, 1, 1000000);
  for (unsigned i = 0; i < 3; i++) {
    decl_snapshot(&b, i + 1, 45, nf[i], decls[i]);
    pb_event(&b, 10 + i, 45, TW_MOD_CUSTOM, w[i], nf[i]);
  }
  pb_end(&b, 1, 0);
  size_t first = b.len;
  pb_begin(&b);
  pb_event(&b, 20, 45, TW_MOD_CUSTOM, (const uint32_t[]){8, 9}, 2);
  pb_end(&b, 1, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, first, &t);
  const char *p = strstr(t.buf, "R: { a = 1, b = 2 }");
  assert_non_null(p);
  assert_non_null(p = strstr(p, "R: { x = 3, y = 4, z = 5 }"));
  assert_non_null(strstr(p, "R: { a = 6, b = 7 }"));
  uint16_t ep;
  const struct tw_event_desc *a = tw_decoder_custom_at(d, 0, &ep), *x = tw_decoder_custom_at(d, 1, &ep);
  assert_non_null(a);
  assert_non_null(x);
  assert_int_equal(a->nfields, 2);
  assert_int_equal(x->nfields, 3);
  assert_null(tw_decoder_custom_at(d, 2, &ep)); /* the third is the first again */
  int need = tw_decoder_save(d, NULL, 0);
  uint8_t *blob = malloc((size_t)need);
  assert_int_equal(tw_decoder_save(d, blob, (size_t)need), need);
  struct tw_decoder *e;
  struct text u;
  memset(&u, 0, sizeof u);
  assert_int_equal(tw_decoder_open(&e, &(struct tw_decoder_cfg){0}), 0);
  assert_int_equal(tw_decoder_restore(e, blob, (size_t)need), 0);
  u.d = e;
  tw_decoder_on_event(e, text_event, &u);
  tw_decoder_on_diag(e, text_diag, &u);
  struct tw_pkt pkt;
  assert_true(tw_pkt_parse(b.buf + first, b.len - first, b.len - first, &pkt) > 0);
  tw_decoder_packet(e, &pkt, first, 1);
  assert_non_null(u.buf);
  assert_non_null(strstr(u.buf, "R: { a = 8, b = 9 }")); /* under the current declaration */
  tw_decoder_close(e);
  free(u.buf);
  free(blob);
  tw_decoder_close(d);
  free(t.buf);
}

static void custom_events_from_declarations(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 1024 };
  synth_stream(&s, 4, &cfg);
  struct text t;
  struct tw_decoder *d = decode_mem(s.data, s.len, &t);
  uint16_t ep;
  const struct tw_event_desc *c = tw_decoder_custom_at(d, 0, &ep);
  assert_non_null(c);
  assert_int_equal(c->id, 28); /* synth.c: SYNTH_CUSTOM_ID */
  assert_string_equal(c->name, "Sensor");
  assert_int_equal(c->nfields, 3);
  assert_int_equal(c->fields[1].word, 1);   /* one word per field */
  assert_int_equal(c->fields[1].shift, 0);
  assert_int_equal(c->fields[1].bits, 16);
  assert_int_equal(c->fields[2].word, 2);
  assert_int_equal(c->payload_words, 3);
  assert_non_null(strstr(t.buf, "Sensor: { channel = "));
  assert_int_equal(count_diags(&t, TW_DIAG_UNKNOWN_ID), 0);
  tw_decoder_close(d);
  free(t.buf);
  free(s.data);
}

static size_t count_str(const char *s, const char *what)
{
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
    n++;
  return n;
}

/* Issue 19 item 5: below 20 bytes the synthetic target's packet ended
 * before its header and it wrote past the buffer; below about 700 its
 * names and the custom declaration were silently left out. Now a size
 * that cannot hold one record is refused (and never written past), and
 * every size from the minimum up carries the whole preamble, snapshots
 * split across packets where needed, decoded without a complaint. */
static void synth_preamble_at_any_packet_size(void **state)
{
  (void)state;
  static uint8_t buf[TW_EVPKT_MAX_BYTES + 64];
  struct tw_synth g;
  static const size_t bad[] = {1, 19, 20, TW_SYNTH_MIN_PKT_BYTES - 1, TW_EVPKT_MAX_BYTES + 1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct tw_synth_cfg cfg = {.names = 1, .pkt_bytes = bad[i]};
    assert_int_equal(tw_synth_init(&g, &cfg), TW_ERANGE);
    memset(buf, 0xA5, sizeof buf);
    size_t n = tw_synth_packet(&g, buf, sizeof buf); /* still safe: a bounded packet */
    assert_true(n > 0 && n <= g.cfg.pkt_bytes);
    for (size_t k = g.cfg.pkt_bytes; k < sizeof buf; k++)
      assert_int_equal(buf[k], 0xA5);
  }
  assert_int_equal(tw_synth_init(&g, &(struct tw_synth_cfg){.names = 1}), 0);
  assert_int_equal(tw_synth_packet(&g, buf, TW_SYNTH_MIN_PKT_BYTES - 1), 0);

  static const size_t sizes[] = {TW_SYNTH_MIN_PKT_BYTES, 100, 160, 512, 1024};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    struct stream_buf s;
    struct tw_synth_cfg cfg = {.names = 1, .pkt_bytes = sizes[i], .instances = 2};
    synth_stream(&s, 120, &cfg);
    for (size_t p = 0; p < s.npkts; p++)
      assert_true(s.plen[p] <= sizes[i]);
    struct text t;
    struct tw_decoder *d = decode_mem(s.data, s.len, &t);
    assert_int_equal(tw_decoder_nstreams(d), 2);
    for (size_t k = 0; k < 2; k++) {
      const struct tw_stream_stats *st = tw_decoder_stream(d, k);
      assert_int_equal(st->snap_errors, 0);
      assert_int_equal(st->unexplained, 0);
      assert_int_equal(st->events_lost, 0);
    }
    assert_int_equal(t.ndiags, 0);
    if (count_str(t.buf, "Name: {") != 12 || count_str(t.buf, "CustomDecl: {") != 2)
      fail_msg("%zu-byte packets: %zu names, %zu declarations", sizes[i],
               count_str(t.buf, "Name: {"), count_str(t.buf, "CustomDecl: {"));
    assert_non_null(strstr(t.buf, "name = \"control_loop\" }"));
    assert_non_null(strstr(t.buf, "Sensor: { channel = "));
    tw_decoder_close(d);
    free(t.buf);
    free(s.data);
  }
}

/* ---- byte order ---- */

static void big_endian_payload_decodes_the_same(void **state)
{
  (void)state;
  static struct pb le, be;
  memset(&le, 0, sizeof le);
  memset(&be, 0, sizeof be);
  be.big = 1;
  struct pb *bs[2] = {&le, &be};
  for (int i = 0; i < 2; i++) {
    pb_begin(bs[i]);
    pb_sync(bs[i], 100, 1000000);
    uint32_t m[2] = {3u | 1u << 16, 4}; /* task 3, mutex 1, type Block */
    pb_event(bs[i], 200, 5, TW_MOD_RTOS, m, 2);
    uint32_t sl[2] = {0xDEADBEEFu, 17};
    pb_event(bs[i], 300, 3, TW_MOD_KERNEL, sl, 2);
    pb_end(bs[i], 1, 0);
  }
  struct text a, b;
  struct tw_decoder *da = decode_mem(le.buf, le.len, &a), *db = decode_mem(be.buf, be.len, &b);
  assert_int_equal(a.events, 3);
  assert_string_equal(a.buf, b.buf);
  assert_non_null(strstr(b.buf, "Sleep: { wake_timestamp = 3735928559, interrupt_id = 17 }"));
  assert_non_null(strstr(b.buf, "MutexEvent: { task = 3, mutex = 1, type = Block }, marker = UpBlock"));
  tw_decoder_close(da);
  tw_decoder_close(db);
  free(a.buf);
  free(b.buf);
}

/* ---- several streams, one time order ---- */

struct order { uint64_t last; unsigned long long n, back; int streams[8]; };

static int check_order(void *ctx, const struct tw_event *ev)
{
  struct order *o = ctx;
  if (ev->time_ns < o->last)
    o->back++;
  o->last = ev->time_ns;
  o->n++;
  o->streams[ev->stream & 7] = 1;
  return 0;
}

static void streams_merged_into_time_order(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 300, .instances = 3 };
  synth_stream(&s, 90, &cfg);
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_decoder *d;
  struct tw_merge *m;
  struct order o = {0};
  assert_int_equal(tw_conn_mem_open(s.data, s.len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  assert_int_equal(tw_merge_open(&m, 256, check_order, &o), 0);
  tw_decoder_on_event(d, tw_merge_push, m);
  assert_int_equal(tw_decoder_run(d, r), 0);
  assert_int_equal(tw_merge_flush(m), 0);
  assert_int_equal(tw_decoder_nstreams(d), 3);
  assert_true(o.streams[0] && o.streams[1] && o.streams[2]);
  assert_int_equal(o.back, 0);
  assert_int_equal(tw_merge_late(m), 0);
  unsigned long long total = 0;
  for (size_t i = 0; i < 3; i++)
    total += tw_decoder_stream(d, i)->events;
  assert_int_equal(o.n, total);
  tw_merge_close(m);
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(src);
  free(s.data);
}

/* The streamer's golden packet files (tests/golden, written by the target
 * code): every record decodes, nothing is reported as damage or unknown. */
/* NAMES_LOST: the target's running total of refused names is kept per
 * stream (the largest seen) and reported once per increase. */
static void names_lost_reported(void **state)
{
  (void)state;
  static struct pb b;
  memset(&b, 0, sizeof b);
  pb_begin(&b);
  pb_sync(&b, 10, 1000000);
  uint32_t v = 3;
  pb_event(&b, 20, TW_EV_NAMES_LOST, TW_MOD_CONTROL, &v, 1);
  pb_event(&b, 30, TW_EV_NAMES_LOST, TW_MOD_CONTROL, &v, 1); /* again at a START: no news */
  v = 5;
  pb_event(&b, 40, TW_EV_NAMES_LOST, TW_MOD_CONTROL, &v, 1);
  pb_end(&b, 9, 0);
  struct text t;
  struct tw_decoder *d = decode_mem(b.buf, b.len, &t);
  assert_int_equal(tw_decoder_stream(d, 0)->names_lost, 5);
  assert_int_equal(count_diags(&t, TW_DIAG_NAMES_LOST), 2);
  assert_int_equal(tw_decoder_stream(d, 0)->unexplained, 0);
  tw_decoder_close(d);
  free(t.buf);
}

static void streamer_golden_files_decode_cleanly(void **state)
{
  (void)state;
  static const char *files[] = {"streamer_eventpkt.bin", "streamer_minpkt.bin"};
  for (size_t f = 0; f < 2; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/golden/%s", TW_SOURCE_DIR, files[f]);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static uint8_t buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    /* count the records independently, with the wire API */
    size_t records = 0;
    for (size_t o = 0; o < len;) {
      struct tw_pkt p;
      int n = tw_pkt_parse(buf + o, len - o, 0, &p);
      assert_true(n > 0);
      for (size_t r = 0; r < p.payload_len;) {
        struct tw_record rec;
        int k = tw_record_parse(p.payload + r, p.payload_len - r, p.endian, &rec);
        assert_true(k > 0);
        records++;
        r += (size_t)k;
      }
      o += (size_t)n;
    }
    struct text t;
    struct tw_decoder *d = decode_mem(buf, len, &t);
    assert_true(records > 10);
    assert_int_equal(t.events, records); /* no snapshot spans records here */
    assert_int_equal(count_diags(&t, TW_DIAG_SKIP) + count_diags(&t, TW_DIAG_BAD_RECORD) +
                     count_diags(&t, TW_DIAG_SNAPSHOT) + count_diags(&t, TW_DIAG_UNKNOWN_ID) +
                     count_diags(&t, TW_DIAG_EVT_GAP) + count_diags(&t, TW_DIAG_PKT_LOSS), 0);
    tw_decoder_close(d);
    free(t.buf);
  }
}

/* Issue 19, item 8: a target that starts again (reset, reconnect, the same
 * stream sent twice) starts its sequence numbers again. That is a restart,
 * counted as one, and no loss: it used to show as thousands of events
 * "lost in transport" or "unexplained". */
static struct tw_decoder *decode_parts(const uint8_t *a, size_t na, const uint8_t *b, size_t nb,
                                       struct text *t)
{
  uint8_t *both = malloc(na + nb);
  memcpy(both, a, na);
  memcpy(both + na, b, nb);
  struct tw_decoder *d = decode_mem(both, na + nb, t);
  free(both);
  return d;
}

static void check_clean_restart(struct tw_decoder *d, const struct text *t, unsigned long long restarts)
{
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(tw_decoder_nstreams(d), 1);
  assert_int_equal(st->restarts, restarts);
  assert_int_equal(st->pkts_lost, 0);
  assert_int_equal(st->events_lost, 0);
  assert_int_equal(st->unexplained, 0);
  assert_int_equal(count_diags(t, TW_DIAG_RESTART), restarts);
  assert_int_equal(count_diags(t, TW_DIAG_EVT_GAP), 0);
}

static void restart_is_not_loss(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .control = 1, .pkt_bytes = 256 };
  synth_stream(&s, 300, &cfg);
  struct text t, once;
  tw_decoder_close(decode_mem(s.data, s.len, &once));
  free(once.buf);

  /* the same session twice (a board that reset and sent the same again) */
  struct tw_decoder *d = decode_parts(s.data, s.len, s.data, s.len, &t);
  check_clean_restart(d, &t, 1);
  assert_int_equal(t.events, 2 * once.events);
  tw_decoder_close(d);
  free(t.buf);

  /* a second session whose first packet was lost: the packet sequence went
   * back by far more than a reordering does */
  d = decode_parts(s.data, s.len, s.data + s.off[1], s.len - s.off[1], &t);
  check_clean_restart(d, &t, 1);
  tw_decoder_close(d);
  free(t.buf);

  /* a restart after a short session: packet sequence back by 3 only, but
   * the packet starts a session (packet 0, SYNC with event sequence 0) */
  d = decode_parts(s.data, s.off[3], s.data, s.len, &t);
  check_clean_restart(d, &t, 1);
  tw_decoder_close(d);
  free(t.buf);

  /* a duplicated packet (back by one) is no restart, and no loss */
  size_t dup = s.off[11] - s.off[10];
  uint8_t *b = malloc(s.len + dup);
  memcpy(b, s.data, s.off[11]);
  memcpy(b + s.off[11], s.data + s.off[10], dup);
  memcpy(b + s.off[11] + dup, s.data + s.off[11], s.len - s.off[11]);
  d = decode_mem(b, s.len + dup, &t);
  assert_int_equal(tw_decoder_stream(d, 0)->restarts, 0);
  assert_int_equal(tw_decoder_stream(d, 0)->pkts_lost, 0);
  tw_decoder_close(d);
  free(t.buf);
  free(b);

  /* a real loss is still a loss: packet 5 missing */
  d = decode_parts(s.data, s.off[5], s.data + s.off[6], s.len - s.off[6], &t);
  assert_int_equal(tw_decoder_stream(d, 0)->restarts, 0);
  assert_int_equal(tw_decoder_stream(d, 0)->pkts_lost, 1);
  assert_true(tw_decoder_stream(d, 0)->events_lost > 0);
  tw_decoder_close(d);
  free(t.buf);
  free(s.data);
}

/* A session long enough that the next one's packet 0 looks like a jump
 * forward (16-bit packet sequence numbers): told by its first record. */
static void restart_after_a_long_session(void **state)
{
  (void)state;
  struct tw_synth g;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 72 };
  size_t n = 40000, cap = n * 72 + 65536;
  uint8_t *b = malloc(2 * cap);
  size_t len = 0;
  tw_synth_init(&g, &cfg);
  for (size_t i = 0; i < n; i++)
    len += tw_synth_packet(&g, b + len, 65536);
  size_t first = len;
  tw_synth_init(&g, &cfg);
  for (size_t i = 0; i < 100; i++)
    len += tw_synth_packet(&g, b + len, 65536);
  struct text t;
  struct tw_decoder *d = decode_mem(b, len, &t);
  check_clean_restart(d, &t, 1);
  assert_true(first < len);
  tw_decoder_close(d);
  free(t.buf);
  free(b);
}

/* The name table grows from a few slots to max_names (it used to take
 * 9 MB at open): every name stays findable across the growths, in its
 * order, and the bound still holds. Names go in through a checkpoint
 * (tw_decoder_restore), whose layout decoder.c documents. */
static void name_table_grows_to_its_bound(void **state)
{
  (void)state;
  enum { N = 3000 };
  size_t cap = 64 + N * 24;
  uint8_t *b = malloc(cap), *p = b;
#define PUT(v, n) do { uint64_t v_ = (v); for (int k_ = 0; k_ < (n); k_++) *p++ = (uint8_t)(v_ >> (8 * k_)); } while (0)
  PUT(0x53445754u, 4); PUT(1, 4); PUT(0, 4); PUT(0, 1); /* magic, version, freq, no_freq */
  PUT(0, 4);                                            /* no streams */
  PUT(N, 4);
  for (uint32_t i = 0; i < N; i++) {
    char name[16];
    int n = snprintf(name, sizeof name, "task%u", i);
    PUT(1ull << 63 | (uint64_t)(1 + i % 3) << 40 | (uint64_t)TW_OBJ_TASK << 32 | i * 7, 8);
    PUT((uint64_t)n, 1);
    memcpy(p, name, (size_t)n);
    p += n;
  }
  PUT(0, 4); /* no custom kinds */
#undef PUT
  struct tw_decoder *d;
  assert_int_equal(tw_decoder_open(&d, &(struct tw_decoder_cfg){ .max_names = N }), 0);
  assert_int_equal(tw_decoder_restore(d, b, (size_t)(p - b)), 0);
  for (uint32_t i = 0; i < N; i++) {
    char want[16];
    snprintf(want, sizeof want, "task%u", i);
    const char *got = tw_decoder_name(d, (uint16_t)(1 + i % 3), TW_OBJ_TASK, i * 7);
    assert_non_null(got);
    assert_string_equal(got, want);
    uint16_t ep;
    enum tw_obj_kind kind;
    uint32_t number;
    const char *name;
    assert_int_equal(tw_decoder_name_at(d, i, &ep, &kind, &number, &name), 1);
    assert_int_equal(number, i * 7); /* in the order they came */
  }
  assert_null(tw_decoder_name(d, 1, TW_OBJ_TASK, 5));
  tw_decoder_close(d);
  /* one more than the bound: the checkpoint does not restore */
  assert_int_equal(tw_decoder_open(&d, &(struct tw_decoder_cfg){ .max_names = N - 1 }), 0);
  assert_int_equal(tw_decoder_restore(d, b, (size_t)(p - b)), TW_EBADMSG);
  tw_decoder_close(d);
  free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(losses_by_cause_are_exact),
    cmocka_unit_test(seq_gap_without_cause_is_unexplained),
    cmocka_unit_test(unknown_ids_reported_once_and_counted),
    cmocka_unit_test(ticks_to_ns_exact_and_backwards_reported),
    cmocka_unit_test(timestamp_32_bit_extended_across_wrap),
    cmocka_unit_test(snapshots_reassembled_and_gaps_reported),
    cmocka_unit_test(long_names_kept_whole),
    cmocka_unit_test(custom_events_from_declarations),
    cmocka_unit_test(redeclared_custom_kind_keeps_each_descriptor),
    cmocka_unit_test(synth_preamble_at_any_packet_size),
    cmocka_unit_test(big_endian_payload_decodes_the_same),
    cmocka_unit_test(streams_merged_into_time_order),
    cmocka_unit_test(streamer_golden_files_decode_cleanly),
    cmocka_unit_test(name_table_grows_to_its_bound),
    cmocka_unit_test(restart_is_not_loss),
    cmocka_unit_test(restart_after_a_long_session),
    cmocka_unit_test(names_lost_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
