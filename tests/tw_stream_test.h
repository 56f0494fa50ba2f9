/*
 * Test helpers for the streamer and command service: an in-memory
 * transport that can refuse, and a decoder of captured event packets built
 * on the wire-format parser (tw_pkt_parse, tw_record_parse,
 * tw_snap_reasm_feed). Include after <cmocka.h>.
 */
#ifndef TW_STREAM_TEST_H
#define TW_STREAM_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/streamer.h"
#include "tracewire/uia.h"

#define CAP_BYTES (1u << 20)
#define CAP_PKTS 8192

struct cap {
  uint8_t *buf;
  size_t len;
  size_t npkts;
  size_t off[CAP_PKTS], plen[CAP_PKTS];
  int busy;          /* refuse every offer while set */
  unsigned refused;
};

static inline void cap_init(struct cap *c)
{
  memset(c, 0, sizeof *c);
  c->buf = calloc(1, CAP_BYTES);
  assert_non_null(c->buf);
}

static inline void cap_free(struct cap *c)
{
  free(c->buf);
  c->buf = NULL;
}

static inline int cap_send(void *ctx, const void *p, size_t len)
{
  struct cap *c = ctx;
  if (c->busy) {
    c->refused++;
    return TW_EBUSY;
  }
  assert_true(c->len + len <= CAP_BYTES);
  assert_true(c->npkts < CAP_PKTS);
  memcpy(c->buf + c->len, p, len);
  c->off[c->npkts] = c->len;
  c->plen[c->npkts++] = len;
  c->len += len;
  return 0;
}

/* One decoded record. */
struct drec {
  uint32_t type;
  uint16_t seq;
  int has_ts;
  uint64_t ts;
  uint16_t id, module;
  uint32_t w[32];    /* payload words (host order) */
  size_t nw;
  int is_snap;
  int snap_done;     /* this record completed its snapshot: data is whole */
  uint8_t data[256]; /* snapshot data (on the completing record) */
  size_t data_len;
  size_t pkt;        /* index of the packet that carried it */
};

struct dstream {
  struct drec *r;
  size_t n, cap;
  size_t npkts, npad;
  uint16_t first_pkt_seq;
};

/* Decode every packet of buf[0..len): checks framing, header fields
 * (dest HOST, src, consecutive packet seq, first-event seq), and appends
 * the records. */
static inline void decode_stream(const uint8_t *buf, size_t len, uint16_t src,
                                 struct dstream *ds)
{
  size_t off = 0;
  int have_seq = 0;
  uint16_t next_pkt_seq = 0;
  static uint8_t snapbuf[1024];
  struct tw_snap_reasm ra;

  tw_snap_reasm_init(&ra, snapbuf, sizeof snapbuf);
  if (!ds->r) {
    ds->cap = 65536;
    ds->r = calloc(ds->cap, sizeof *ds->r);
    assert_non_null(ds->r);
  }
  while (off < len) {
    struct tw_pkt p;
    int n = tw_pkt_parse(buf + off, len - off, 0, &p);
    if (n < 0)
      fail_msg("packet at byte %zu: %s", off, tw_strerror(n));
    off += (size_t)n;
    if (p.hdr_type == TW_PKT_INVALID_DATA) {
      ds->npad++;
      continue;
    }
    assert_true(p.hdr_type == TW_PKT_EVENT || p.hdr_type == TW_PKT_MIN_EVENT);
    assert_int_equal(p.endian, TW_ENDIAN_NATIVE);
    if (p.hdr_type == TW_PKT_EVENT) {
      assert_int_equal(tw_pkt_get_dest(&p.hdr), TW_ADDR_HOST);
      assert_int_equal(tw_pkt_get_src(&p.hdr), src);
    }
    uint16_t ps = (uint16_t)tw_pkt_get_seq(&p.hdr);
    if (have_seq)
      assert_int_equal(ps, next_pkt_seq);
    else
      ds->first_pkt_seq = ps;
    have_seq = 1;
    next_pkt_seq = (uint16_t)(ps + 1);
    size_t roff = 0;
    int first = 1;
    assert_true(p.payload_len > 0); /* never an empty packet */
    while (roff < p.payload_len) {
      struct tw_record rec;
      int rl = tw_record_parse(p.payload + roff, p.payload_len - roff, p.endian, &rec);
      if (rl < 0)
        fail_msg("packet %zu record at %zu: %s", ds->npkts, roff, tw_strerror(rl));
      if (first)
        assert_int_equal(tw_pkt_get_event_seq(&p.hdr), rec.seq & 0x3FFFu);
      first = 0;
      assert_true(ds->n < ds->cap);
      struct drec *d = &ds->r[ds->n++];
      memset(d, 0, sizeof *d);
      d->type = rec.type;
      d->seq = (uint16_t)rec.seq;
      d->has_ts = rec.has_ts;
      d->ts = rec.ts;
      d->id = rec.event_id;
      d->module = rec.module_id;
      d->pkt = ds->npkts;
      d->is_snap = rec.is_snapshot;
      if (rec.is_snapshot) {
        int done = tw_snap_reasm_feed(&ra, &rec);
        if (done < 0)
          fail_msg("packet %zu: snapshot: %s", ds->npkts, tw_strerror(done));
        if (done == 1) {
          assert_true(ra.total <= sizeof d->data);
          memcpy(d->data, ra.buf, ra.total);
          d->data_len = ra.total;
          d->snap_done = 1;
        }
      } else {
        d->nw = rec.payload_len / 4;
        assert_true(d->nw <= 32);
        for (size_t i = 0; i < d->nw; i++)
          d->w[i] = tw_record_word(&rec, i);
      }
      roff += (size_t)rl;
    }
    ds->npkts++;
  }
}

static inline void dstream_free(struct dstream *ds)
{
  free(ds->r);
  memset(ds, 0, sizeof *ds);
}

#endif
