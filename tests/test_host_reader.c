/*
 * Framing under corruption: garbage between packets, flipped bits in
 * header types, lengths and footers, impossible lengths, a truncated tail.
 * Every untouched packet must come out (same bytes, same offset), each
 * damaged region must be reported once with its exact offset and size, and
 * the decoded events must equal those of the untouched packets alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "host/helpers.h"
#include "tracewire/error.h"
#include "tracewire/io/sys.h"

struct got {
  size_t n;
  unsigned long long off[MAX_PKTS];
  size_t len[MAX_PKTS];
  const uint8_t *first[MAX_PKTS];
  struct tw_skip skips[64];
  size_t nskips;
};

static void on_skip(void *ctx, const struct tw_skip *s)
{
  struct got *g = ctx;
  if (g->nskips < 64)
    g->skips[g->nskips++] = *s;
}

static struct got *frame(const uint8_t *data, size_t len, size_t read_bytes)
{
  struct got *g = calloc(1, sizeof *g);
  struct tw_conn *src;
  struct tw_reader *r;
  struct tw_reader_cfg cfg = { .max_pkt_bytes = 4096, .read_bytes = read_bytes };
  assert_int_equal(tw_conn_mem_open(data, len, &src), 0);
  assert_int_equal(tw_reader_open(&r, src, &cfg), 0);
  tw_reader_on_skip(r, on_skip, g);
  struct tw_pkt p;
  int rc;
  while ((rc = tw_reader_next(r, &p, -1)) == 1) {
    g->off[g->n] = tw_reader_pkt_offset(r);
    g->len[g->n] = p.length;
    g->n++;
  }
  assert_int_equal(rc, TW_EOF);
  tw_reader_close(r);
  tw_conn_close(src);
  return g;
}

static void clean_stream_frames_exactly(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 512 };
  synth_stream(&s, 300, &cfg);
  /* small reads: packets straddle every read boundary */
  struct got *g = frame(s.data, s.len, 61);
  assert_int_equal(g->n, 300);
  assert_int_equal(g->nskips, 0);
  for (size_t i = 0; i < 300; i++) {
    assert_int_equal(g->off[i], s.off[i]);
    assert_int_equal(g->len[i], s.plen[i]);
  }
  free(g);
  free(s.data);
}

enum damage { GARBAGE, FLIP_TYPE, FLIP_LENGTH, FLIP_FOOTER_MAGIC, FLIP_FOOTER_LEN, HUGE_LENGTH, ZERO_LENGTH };

struct plan {
  size_t pkt;
  enum damage what;
  int reason;
};

static void damaged_stream_keeps_every_intact_packet(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 512, .drop_every = 97 };
  synth_stream(&s, 200, &cfg);
  static const struct plan plans[] = {
    {5, GARBAGE, TW_EHDRTYPE},         {20, FLIP_TYPE, TW_EHDRTYPE},
    {40, FLIP_LENGTH, TW_EFOOTER},     {60, FLIP_FOOTER_MAGIC, TW_EFOOTER},
    {80, FLIP_FOOTER_LEN, TW_EFOOTER}, {100, HUGE_LENGTH, TW_ETOOBIG},
    {120, ZERO_LENGTH, TW_ESHORT},     {140, GARBAGE, TW_EHDRTYPE},
  };
  size_t np = sizeof plans / sizeof plans[0];
  uint8_t *out = malloc(s.len * 2), *expect = malloc(s.len);
  size_t olen = 0, elen = 0, p = 0;
  unsigned long long want_off[16], want_cnt[16];
  int want_reason[16];
  size_t nwant = 0;
  size_t kept_idx[MAX_PKTS], nkept = 0;
  unsigned long long kept_off[MAX_PKTS];
  for (size_t i = 0; i < s.npkts; i++) {
    const uint8_t *pk = s.data + s.off[i];
    size_t n = s.plen[i];
    if (p < np && plans[p].pkt == i && plans[p].what == GARBAGE) {
      /* garbage whose first byte cannot start a packet; the rest is random */
      want_off[nwant] = olen;
      want_cnt[nwant] = 37;
      want_reason[nwant++] = plans[p].reason;
      out[olen++] = 0x00;
      for (int k = 1; k < 37; k++)
        out[olen++] = (uint8_t)(rand() & 0x0F); /* type nibble 0: never a header */
      p++;
      /* the packet itself is intact */
    } else if (p < np && plans[p].pkt == i) {
      memcpy(out + olen, pk, n);
      uint8_t *q = out + olen;
      switch (plans[p].what) {
      case FLIP_TYPE: q[0] ^= 0x40; break;            /* EventPkt 0xA -> 0xE */
      case FLIP_LENGTH: q[3] ^= 0x10; break;          /* length +- 16 */
      case FLIP_FOOTER_MAGIC: q[n - 1] ^= 0x01; break;
      case FLIP_FOOTER_LEN: q[n - 3] ^= 0x02; break;
      case HUGE_LENGTH: q[1] |= 0x70; break;          /* > max_pkt_bytes */
      case ZERO_LENGTH: q[1] = q[2] = 0; q[3] = 4; break;
      default: break;
      }
      want_off[nwant] = olen;
      want_cnt[nwant] = n;
      want_reason[nwant++] = plans[p].reason;
      olen += n;
      p++;
      continue;
    }
    kept_idx[nkept] = i;
    kept_off[nkept++] = olen;
    memcpy(out + olen, pk, n);
    olen += n;
    memcpy(expect + elen, pk, n);
    elen += n;
  }
  /* truncated tail: half of a copy of the last packet */
  size_t tail = s.plen[s.npkts - 1] / 2;
  want_off[nwant] = olen;
  want_cnt[nwant] = tail;
  want_reason[nwant++] = TW_ETRUNC;
  memcpy(out + olen, s.data + s.off[s.npkts - 1], tail);
  olen += tail;

  struct got *g = frame(out, olen, 100);
  assert_int_equal(g->n, nkept);
  for (size_t i = 0; i < nkept; i++) {
    assert_int_equal(g->off[i], kept_off[i]);
    assert_int_equal(g->len[i], s.plen[kept_idx[i]]);
  }
  assert_int_equal(g->nskips, nwant);
  for (size_t i = 0; i < nwant; i++) {
    assert_int_equal(g->skips[i].offset, want_off[i]);
    assert_int_equal(g->skips[i].count, want_cnt[i]);
    assert_int_equal(g->skips[i].reason, want_reason[i]);
  }
  /* the events are exactly those of the intact packets */
  struct text a, b;
  struct tw_decoder *da = decode_mem(out, olen, &a), *db = decode_mem(expect, elen, &b);
  assert_true(a.events > 1000);
  assert_int_equal(a.events, b.events);
  assert_int_equal(a.len, b.len);
  assert_memory_equal(a.buf, b.buf, a.len);
  assert_int_equal(count_diags(&a, TW_DIAG_SKIP), nwant);
  tw_decoder_close(da);
  tw_decoder_close(db);
  free(a.buf);
  free(b.buf);
  free(g);
  free(out);
  free(expect);
  free(s.data);
}

static void length_bound_checked_before_reading(void **state)
{
  (void)state;
  /* a header claiming 100 MB followed by nothing: rejected at once, not awaited */
  uint8_t buf[64] = {0};
  tw_store_be32(buf, 0xA0000000u | 100000000u);
  struct got *g = frame(buf, sizeof buf, 16);
  assert_int_equal(g->n, 0);
  assert_int_equal(g->nskips, 1);
  assert_int_equal(g->skips[0].offset, 0);
  assert_int_equal(g->skips[0].count, 64);
  assert_int_equal(g->skips[0].reason, TW_ETOOBIG);
  free(g);
}

static void every_single_bit_flip_in_a_header_is_contained(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 0, .pkt_bytes = 256 };
  synth_stream(&s, 3, &cfg);
  /* flip each bit of packet 1's header words 1 and 2-4 and its footer: packets 0 and 2 survive */
  size_t o = s.off[1], n = s.plen[1];
  size_t bits[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 20, 27, 31};
  for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
    for (int where = 0; where < 2; where++) {
      uint8_t *c = malloc(s.len);
      memcpy(c, s.data, s.len);
      size_t at = where ? o + n - 4 : o;
      c[at + 3 - bits[b] / 8] ^= (uint8_t)(1u << (bits[b] % 8));
      struct got *g = frame(c, s.len, 4096);
      assert_true(g->n >= 2);
      assert_int_equal(g->off[0], s.off[0]);
      assert_int_equal(g->off[g->n - 1], s.off[2]);
      if (g->n == 2) { /* damage detected: exactly packet 1 reported */
        assert_int_equal(g->nskips, 1);
        assert_int_equal(g->skips[0].offset, o);
        assert_int_equal(g->skips[0].count, n);
      } else { /* only bits no check covers (endian bit) */
        assert_int_equal(g->n, 3);
      }
      free(g);
      free(c);
    }
  }
  free(s.data);
}

static void invalid_data_padding(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 0, .pkt_bytes = 200 };
  synth_stream(&s, 3, &cfg);
  uint8_t b[4096];
  size_t n = 0, at[3];
  /* padding first (nothing valid before it: reported), then after packets 0 and 1 */
  for (int k = 0; k < 3; k++) {
    tw_pkt_hdr h;
    tw_pkt_set_invalid(&h, 64);
    memcpy(b + n, &h.word1, 4);
    for (int i = 4; i < 64; i++)
      b[n + (size_t)i] = (uint8_t)(i * 7); /* the padding's bytes are garbage */
    n += 64;
    at[k] = n;
    memcpy(b + n, s.data + s.off[k], s.plen[k]);
    n += s.plen[k];
  }
  struct got *g = frame(b, n, 50);
  assert_int_equal(g->n, 3);
  for (int k = 0; k < 3; k++)
    assert_int_equal(g->off[k], at[k]);
  assert_int_equal(g->nskips, 1);
  assert_int_equal(g->skips[0].offset, 0);
  assert_int_equal(g->skips[0].count, 64);
  free(g);
  /* a packet whose type bits became InvalidData keeps its footer: damage, not padding */
  n = 0;
  for (int k = 0; k < 3; k++) {
    memcpy(b + n, s.data + s.off[k], s.plen[k]);
    if (k == 1)
      b[n] &= 0x0F;
    n += s.plen[k];
  }
  g = frame(b, n, 4096);
  assert_int_equal(g->n, 2);
  assert_int_equal(g->nskips, 1);
  assert_int_equal(g->skips[0].offset, s.off[1]);
  assert_int_equal(g->skips[0].count, s.plen[1]);
  free(g);
  free(s.data);
}

/* Random damage anywhere (payloads included): the reader and decoder never
 * read out of bounds (ASan in CI), skips are ordered and inside the input,
 * and every packet the reader returns is one that parses. */
static void random_damage_is_survived(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 160, .drop_every = 13 };
  synth_stream(&s, 30, &cfg);
  uint8_t *c = malloc(s.len);
  srand(12345);
  for (int round = 0; round < 300; round++) {
    memcpy(c, s.data, s.len);
    size_t len = s.len - (size_t)(rand() % 50);
    for (int k = 0; k < 1 + round % 40; k++)
      c[(size_t)rand() % len] ^= (uint8_t)(1u << (rand() % 8));
    struct got *g = frame(c, len, 1 + (size_t)(rand() % 300));
    unsigned long long end = 0;
    for (size_t i = 0; i < g->nskips; i++) {
      assert_true(g->skips[i].offset >= end);
      end = g->skips[i].offset + g->skips[i].count;
      assert_true(end <= len);
    }
    for (size_t i = 0; i < g->n; i++) {
      struct tw_pkt p;
      assert_int_equal(tw_pkt_parse(c + g->off[i], g->len[i], 0, &p), (int)g->len[i]);
    }
    free(g);
    struct text t;
    tw_decoder_close(decode_mem(c, len, &t));
    free(t.buf);
  }
  free(c);
  free(s.data);
}

/* ---- a disconnect cuts the stream ---------------------------------------- */

/* A transport in reconnect mode: reads return the segments in turn; a
 * segment of length 0 is a disconnect (counted, TW_EAGAIN), as
 * conn_tcp.c and conn_tcp_listen.c report one. */
struct script {
  struct tw_conn c;
  const uint8_t *seg[4];
  size_t len[4], n, i;
};

static int script_read(struct tw_conn *c, void *buf, size_t cap, int timeout_ms)
{
  (void)timeout_ms;
  struct script *s = (struct script *)c;
  if (s->i == s->n)
    return TW_EOF;
  size_t k = s->len[s->i];
  if (!k) {
    s->i++;
    c->disconnects++;
    c->disconnect_at = c->nread;
    return TW_EAGAIN;
  }
  assert_true(k <= cap);
  memcpy(buf, s->seg[s->i++], k);
  c->nread += k;
  return (int)k;
}

static void script_close(struct tw_conn *c) { (void)c; }

static const struct tw_conn_ops script_ops = {
  .scheme = "script", .read = script_read, .close = script_close,
};

static void disconnect_cuts_partial_packet(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 200 };
  synth_stream(&s, 6, &cfg);
  /* what a target sends first on its new connection: a command reply */
  uint8_t msg[24];
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_NATIVE, TW_MSG_ACK, sizeof msg, 1, 7, 1, 9, TW_ADDR_HOST, 1);
  memcpy(msg, &h, sizeof h);
  tw_store_be32(msg + 16, 0);
  tw_store_be32(msg + 20, tw_pkt_footer(sizeof msg));
  /* the bytes of packet 2 that arrived before the link went down */
  const size_t cuts[] = {s.plen[2] / 2, 3, 0};
  for (size_t t = 0; t < sizeof cuts / sizeof cuts[0]; t++) {
    struct script sc;
    memset(&sc, 0, sizeof sc);
    tw__conn_init(&sc.c, &script_ops, "script://cut");
    sc.seg[0] = s.data;
    sc.len[0] = s.off[2] + cuts[t];
    sc.len[1] = 0; /* the disconnect */
    sc.seg[2] = msg;
    sc.len[2] = sizeof msg;
    sc.seg[3] = s.data + s.off[3];
    sc.len[3] = s.len - s.off[3];
    sc.n = 4;
    struct got g;
    memset(&g, 0, sizeof g);
    struct tw_reader *r;
    assert_int_equal(tw_reader_open(&r, &sc.c, NULL), 0);
    tw_reader_on_skip(r, on_skip, &g);
    struct tw_pkt p;
    int rc;
    while ((rc = tw_reader_next(r, &p, 0)) != TW_EOF) {
      if (rc == TW_EAGAIN)
        continue;
      assert_int_equal(rc, 1);
      g.off[g.n] = tw_reader_pkt_offset(r);
      g.len[g.n++] = p.length;
    }
    /* packets 0, 1, the reply, 3, 4, 5: nothing after the cut is lost */
    unsigned long long cut_at = s.off[2] + cuts[t];
    assert_int_equal(g.n, 6);
    assert_int_equal(g.off[2], cut_at);
    assert_int_equal(g.len[2], sizeof msg);
    assert_int_equal(g.off[3], cut_at + sizeof msg);
    if (cuts[t]) {
      assert_int_equal(g.nskips, 1);
      assert_int_equal(g.skips[0].offset, s.off[2]);
      assert_int_equal(g.skips[0].count, cuts[t]);
      assert_int_equal(g.skips[0].reason, TW_ECONNRESET);
      assert_string_equal(tw_skip_reason(g.skips[0].reason), "packet cut by a disconnect");
    } else {
      assert_int_equal(g.nskips, 0); /* a cut between packets loses no byte */
    }
    tw_reader_close(r);
  }
  free(s.data);
}

/* ---- a garbage flood -------------------------------------------------------- */

/* A source that never ends and never holds a packet: every read returns
 * bytes at once (a noisy UART at the wrong baud rate, /dev/urandom). */
struct flood {
  struct tw_conn c;
  uint32_t x;
  unsigned long long reads;
};

static int flood_read(struct tw_conn *c, void *buf, size_t cap, int timeout_ms)
{
  (void)timeout_ms;
  struct flood *f = (struct flood *)c;
  uint8_t *b = buf;
  size_t n = cap < 4096 ? cap : 4096;
  for (size_t i = 0; i < n; i++) {
    f->x = f->x * 1103515245u + 12345u;
    b[i] = (uint8_t)(f->x >> 16);
  }
  f->reads++;
  c->nread += n;
  return (int)n;
}

static const struct tw_conn_ops flood_ops = {
  .scheme = "flood", .read = flood_read, .close = script_close,
};

/* Issue 19, item 7: tw_reader_next() used to return only on a packet, the
 * end or a read that timed out, so `record` never saw Ctrl-C or
 * --duration while garbage kept arriving. A call with a timeout now
 * returns TW_EAGAIN within it, and the skip goes on at the next call. */
static void garbage_flood_returns_within_the_timeout(void **state)
{
  (void)state;
  struct flood f;
  memset(&f, 0, sizeof f);
  f.x = 7;
  tw__conn_init(&f.c, &flood_ops, "flood://");
  struct tw_reader *r;
  struct got g;
  memset(&g, 0, sizeof g);
  assert_int_equal(tw_reader_open(&r, &f.c, &(struct tw_reader_cfg){ .read_bytes = 4096 }), 0);
  tw_reader_on_skip(r, on_skip, &g);
  struct tw_pkt p;
  for (int i = 0; i < 3; i++) {
    unsigned long long t0 = tw_sys_mono_ns(), reads = f.reads;
    assert_int_equal(tw_reader_next(r, &p, 50), TW_EAGAIN);
    unsigned long long ms = (tw_sys_mono_ns() - t0) / 1000000u;
    assert_true(ms < 2000); /* 50 ms asked; generous for a loaded machine */
    assert_true(f.reads > reads); /* it read, and skipped what it read */
  }
  assert_int_equal(g.nskips, 0); /* one region, still open: not yet reported */
  tw_reader_close(r);
}

/* The skip scan passes over positions no header can start at: what it
 * reports (packets, regions, offsets, reasons) must be exactly what a
 * byte-by-byte reference scan reports, for streams whose damage puts
 * headers of every type and length at every alignment. */
static void fast_skip_equals_byte_scan(void **state)
{
  (void)state;
  struct stream_buf s;
  struct tw_synth_cfg cfg = { .names = 1, .pkt_bytes = 300, .instances = 2 };
  synth_stream(&s, 200, &cfg);
  uint32_t x = 99;
  uint8_t *c = malloc(s.len);
  for (int round = 0; round < 20; round++) {
    memcpy(c, s.data, s.len);
    for (size_t k = 0; k < s.len / 40; k++) { /* dense damage: many skips */
      x = x * 1103515245u + 12345u;
      c[(x >> 8) % s.len] ^= (uint8_t)(1u << (x & 7));
    }
    struct got *fast = frame(c, s.len, 1 + round * 37);
    /* the definition the byte scan meets: every byte is in a packet or a
     * skip, in order, and no valid packet lies inside a skip */
    unsigned long long at = 0;
    size_t pi = 0, si = 0;
    while (pi < fast->n || si < fast->nskips) {
      if (si < fast->nskips && fast->skips[si].offset == at) {
        for (unsigned long long o = at; o + 4 <= at + fast->skips[si].count; o++) {
          struct tw_pkt p;
          size_t room = s.len - o < 4096 ? s.len - o : 4096;
          /* a candidate inside a skip that parses would have been taken */
          assert_false(tw_pkt_parse(c + o, room, 4096, &p) > 0 && p.hdr_type != TW_PKT_INVALID_DATA &&
                       o + p.length <= at + fast->skips[si].count);
        }
        at += fast->skips[si++].count;
      } else {
        assert_true(pi < fast->n);
        assert_int_equal(fast->off[pi], at);
        at += fast->len[pi++];
      }
    }
    assert_int_equal(at, s.len);
    free(fast);
  }
  free(c);
  free(s.data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(clean_stream_frames_exactly),
    cmocka_unit_test(damaged_stream_keeps_every_intact_packet),
    cmocka_unit_test(length_bound_checked_before_reading),
    cmocka_unit_test(every_single_bit_flip_in_a_header_is_contained),
    cmocka_unit_test(invalid_data_padding),
    cmocka_unit_test(random_damage_is_survived),
    cmocka_unit_test(disconnect_cuts_partial_packet),
    cmocka_unit_test(garbage_flood_returns_within_the_timeout),
    cmocka_unit_test(fast_skip_equals_byte_scan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
