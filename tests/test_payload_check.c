/*
 * The payload check (issue 19; docs/wire-format.md, "Payload check"): the
 * streamer with cfg.check ends every event packet with a PKT_CHECK record
 * holding the CRC-16/CCITT-FALSE of the packet's bytes before it, and the
 * host decoder verifies it.
 *
 * What is proved here, on a real streamer session (names, every kind of
 * record, ring drops, several packets):
 *  - every packet ends with the record, its CRC is right, it takes an
 *    event sequence number, and it is never delivered as an event;
 *  - a reader that knows nothing of it (the same decode with the record
 *    not verified) still reads every event, with the right values;
 *  - every single bit flipped anywhere in any packet but the first and
 *    the last is caught: no event is delivered with a wrong value, the
 *    damaged packet's records are counted lost, and the books balance
 *    exactly (records + lost + ring drops = sequence numbers sent, no
 *    unexplained gap);
 *  - the CRC itself: the nibble table gives the bitwise definition's value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tracewire/error.h"
#include "tracewire/events_gen.h"
#include "tracewire/io/conn.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tw_stream_test.h"
#include "tw_target_reset.h"

#define EP 0x0042u

static uint32_t fake_now;
static uint32_t fake_timer(void) { return fake_now; }

/* A session of the streamer with checks: names, events of several kinds,
 * a ring overflow, TRACE_STOP; into *c. Returns the sequence numbers the
 * target used (records + dropped events). */
static unsigned long long session(struct cap *c, int check)
{
  struct tw_streamer s;
  struct tw_streamer_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  tw_target_reset(fake_timer);
  tw_logger_stats_reset(tw_klog_logger());
  fake_now = 1000;
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 1000000;
  cfg.send = cap_send;
  cfg.send_ctx = c;
  cfg.endpoint = EP;
  cfg.initial_mask = 0xFFFFFFFFu;
  cfg.check = (uint8_t)check;
  assert_int_equal(tw_name_register(TW_OBJ_TASK, 3, "worker", 5), 0);
  assert_int_equal(tw_name_register(TW_OBJ_SEM, 2, "tx_done", 0), 0);
  assert_int_equal(tw_streamer_init(&s, &cfg), 0);
  assert_int_equal(tw_streamer_start(&s), 0);
  for (int k = 0; k < 8; k++)
    assert_true(tw_streamer_poll(&s, 0) >= 0);
  for (unsigned i = 0; i < 300; i++) {
    fake_now += 7;
    tw_sem_at(fake_now, (uint16_t)(i % 5), TW_SEM_Give);
    tw_task_switch_at(fake_now + 1, (uint16_t)(i % 4));
    for (unsigned k = 0; i % 100 == 50 && k < 80; k++) /* the ring overflows: DROPS */
      tw_sem_at(fake_now + 2, (uint16_t)k, TW_SEM_Give);
    assert_true(tw_streamer_poll(&s, 0) >= 0);
  }
  assert_int_equal(tw_streamer_stop(&s, 0), 0);
  for (int k = 0; k < 8; k++)
    assert_true(tw_streamer_poll(&s, 0) >= 0);
  assert_int_equal(tw_streamer_flush(&s), 0);
  struct tw_streamer_stats st;
  tw_streamer_stats(&s, &st);
  assert_int_equal(st.packets, c->npkts);
  return (unsigned long long)st.records + st.drops;
}

/* ---- the host side -------------------------------------------------------- */

#define MAX_EVENTS 4096

struct got {
  const struct tw_decoder *d;
  size_t n;
  uint32_t seq[MAX_EVENTS];
  char line[MAX_EVENTS][160];
  unsigned checks_delivered;
};

static int on_event(void *ctx, const struct tw_event *ev)
{
  struct got *g = ctx;
  if (ev->module == TW_MOD_CONTROL && ev->id == TW_EV_PKT_CHECK)
    g->checks_delivered++;
  assert_true(g->n < MAX_EVENTS);
  g->seq[g->n] = ev->seq;
  /* the values as decoded (names aside: a lost NAME record leaves later
   * events unnamed, which is a loss, not a wrong value) */
  char *l = g->line[g->n];
  int n = snprintf(l, sizeof g->line[0], "%u/%u t=%llu", ev->module, ev->id,
                   (unsigned long long)ev->ticks);
  for (unsigned i = 0; i < ev->nvalues && n < (int)sizeof g->line[0]; i++)
    n += snprintf(l + n, sizeof g->line[0] - (size_t)n, " %u", ev->values[i]);
  if (ev->str && n < (int)sizeof g->line[0])
    snprintf(l + n, sizeof g->line[0] - (size_t)n, " \"%.*s\"", (int)ev->str_len, ev->str);
  g->n++;
  return 0;
}

struct books {
  unsigned long long records, lost, ring, unexplained, checked, failed, pkts_lost;
};

static void decode(const uint8_t *buf, size_t len, struct got *g, struct books *b)
{
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(g, 0, sizeof *g);
  memset(b, 0, sizeof *b);
  assert_int_equal(tw_conn_mem_open(buf, len, &c), 0);
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  g->d = d;
  tw_decoder_on_event(d, on_event, g);
  assert_int_equal(tw_decoder_run(d, r), 0);
  for (size_t i = 0; i < tw_decoder_nstreams(d); i++) {
    const struct tw_stream_stats *st = tw_decoder_stream(d, i);
    b->records += st->records;
    b->lost += st->events_lost;
    b->ring += st->ring_drops;
    b->unexplained += st->unexplained;
    b->checked += st->checked;
    b->failed += st->check_failed;
    b->pkts_lost += st->pkts_lost;
  }
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(c);
}

static void every_packet_checked(void **state)
{
  (void)state;
  static struct cap c;
  static struct got g;
  struct books b;
  cap_init(&c);
  unsigned long long sent = session(&c, 1);
  assert_true(c.npkts > 10);
  for (size_t i = 0; i < c.npkts; i++) {
    const uint8_t *p = c.buf + c.off[i];
    size_t end = c.plen[i] - TW_FOOTER_BYTES; /* the record ends where the footer starts */
    uint32_t w0, idw, crc;
    memcpy(&w0, p + end - 12, 4);
    memcpy(&idw, p + end - 8, 4);
    memcpy(&crc, p + end - 4, 4); /* payload words in the sender's (this host's) order */
    assert_int_equal(w0 >> 27, TW_REC_EVENT);
    assert_int_equal((w0 >> 16) & 0x7FF, 12);
    assert_int_equal(idw, (uint32_t)TW_EV_PKT_CHECK << 16 | TW_MOD_CONTROL);
    assert_int_equal(crc, tw_crc16(p, end - 4));
  }
  decode(c.buf, c.len, &g, &b);
  assert_int_equal(b.checked, c.npkts);
  assert_int_equal(b.failed, 0);
  assert_int_equal(b.records + b.ring, sent); /* the check records took sequence numbers */
  assert_int_equal(b.lost + b.unexplained, 0);
  assert_true(b.ring > 0);
  assert_int_equal(g.checks_delivered, 0);
  assert_true(g.n > 500);
  cap_free(&c);
}

/* The same session without checks decodes to the same lines (event
 * sequence numbers aside: the check records took some), so a reader that
 * ignores the record reads the same trace. */
static void same_events_with_and_without(void **state)
{
  (void)state;
  static struct cap a, c;
  static struct got ga, gc;
  struct books b;
  cap_init(&a);
  cap_init(&c);
  session(&a, 0);
  session(&c, 1);
  decode(a.buf, a.len, &ga, &b);
  decode(c.buf, c.len, &gc, &b);
  assert_true(c.npkts > a.npkts); /* 12 bytes a packet */
  assert_int_equal(ga.n, gc.n);
  for (size_t i = 0; i < ga.n; i++)
    assert_string_equal(ga.line[i], gc.line[i]);
  cap_free(&a);
  cap_free(&c);
}

/* Every single bit of packets 1 .. n-2 flipped in turn (the first has no
 * sequence before it to show a loss, the last none after it). */
static void every_bit_flip_is_caught(void **state)
{
  (void)state;
  static struct cap c;
  static struct got ref, g;
  struct books rb, b;
  cap_init(&c);
  unsigned long long sent = session(&c, 1);
  decode(c.buf, c.len, &ref, &rb);
  uint8_t *buf = malloc(c.len);
  unsigned long long flips = 0, framing = 0, checked_out = 0;
  size_t last = c.npkts - 1 < 6 ? c.npkts - 1 : 6; /* packets 1..5: ~5000 flips */
  for (size_t k = 1; k < last; k++)
    for (size_t byte = 0; byte < c.plen[k]; byte++)
      for (unsigned bit = 0; bit < 8; bit++) {
        memcpy(buf, c.buf, c.len);
        buf[c.off[k] + byte] ^= (uint8_t)(1u << bit);
        decode(buf, c.len, &g, &b);
        flips++;
        /* books: every sequence number received or reported lost */
        if (b.records + b.lost + b.ring + b.unexplained != sent || b.unexplained)
          fail_msg("flip of byte %zu bit %u of packet %zu: %llu + %llu + %llu + %llu != %llu", byte,
                   bit, k, b.records, b.lost, b.ring, b.unexplained, sent);
        /* no wrong value: every event delivered is the reference's with
         * that sequence number */
        size_t j = 0;
        for (size_t i = 0; i < g.n; i++) {
          while (j < ref.n && ref.seq[j] != g.seq[i])
            j++;
          if (j == ref.n || strcmp(ref.line[j], g.line[i]))
            fail_msg("flip of byte %zu bit %u of packet %zu delivered seq %u \"%s\", the "
                     "reference \"%s\"", byte, bit, k, g.seq[i], g.line[i],
                     j < ref.n ? ref.line[j] : "(none)");
        }
        assert_true(g.n < ref.n); /* the damaged packet's events are gone */
        assert_true(b.pkts_lost >= 1);
        checked_out += b.failed > 0;
        framing += b.failed == 0;
      }
  printf("%llu flips: %llu caught by the payload check, %llu by the framing (reader)\n", flips,
         checked_out, framing);
  assert_true(checked_out > flips / 2); /* most bits are payload */
  free(buf);
  cap_free(&c);
}

/* A target that starts again with other firmware, without checks: its new
 * session is read (a restart) and from then on the stream needs no
 * checks. Only a session start can say so (decoder.h). */
static void restart_without_checks(void **state)
{
  (void)state;
  static struct cap a, b;
  static struct got g, gb;
  struct books bk;
  cap_init(&a);
  cap_init(&b);
  session(&a, 1);
  session(&b, 0);
  decode(b.buf, b.len, &gb, &bk);
  uint8_t *both = malloc(a.len + b.len);
  memcpy(both, a.buf, a.len);
  memcpy(both + a.len, b.buf, b.len);
  struct tw_conn *c;
  struct tw_reader *r;
  struct tw_decoder *d;
  memset(&g, 0, sizeof g);
  assert_int_equal(tw_conn_mem_open(both, a.len + b.len, &c), 0);
  assert_int_equal(tw_reader_open(&r, c, NULL), 0);
  assert_int_equal(tw_decoder_open(&d, NULL), 0);
  g.d = d;
  tw_decoder_on_event(d, on_event, &g);
  assert_int_equal(tw_decoder_run(d, r), 0);
  const struct tw_stream_stats *st = tw_decoder_stream(d, 0);
  assert_int_equal(st->restarts, 1);
  assert_int_equal(st->check_failed, 0);
  assert_int_equal(st->checked, a.npkts);
  assert_int_equal(st->events_lost + st->unexplained, 0);
  /* the second session's events all came through, the same values */
  assert_true(g.n >= gb.n);
  for (size_t i = 0; i < gb.n; i++)
    assert_string_equal(g.line[g.n - gb.n + i], gb.line[i]);
  tw_decoder_close(d);
  tw_reader_close(r);
  tw_conn_close(c);
  free(both);
  cap_free(&a);
  cap_free(&b);
}

/* The nibble-table CRC against the definition, bit by bit. */
static uint16_t crc_bitwise(const uint8_t *p, size_t n)
{
  uint16_t crc = 0xFFFFu;
  while (n--) {
    crc ^= (uint16_t)(*p++ << 8);
    for (int i = 0; i < 8; i++)
      crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
  }
  return crc;
}

static void crc_matches_its_definition(void **state)
{
  (void)state;
  uint8_t b[300];
  uint32_t x = 12345;
  assert_int_equal(tw_crc16("123456789", 9), 0x29B1);
  assert_int_equal(tw_crc16("", 0), 0xFFFF);
  for (size_t n = 0; n < sizeof b; n++) {
    x = x * 1103515245u + 12345u;
    b[n] = (uint8_t)(x >> 16);
    assert_int_equal(tw_crc16(b, n + 1), crc_bitwise(b, n + 1));
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(crc_matches_its_definition),
    cmocka_unit_test(every_packet_checked),
    cmocka_unit_test(same_events_with_and_without),
    cmocka_unit_test(every_bit_flip_is_caught),
    cmocka_unit_test(restart_without_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
