/*
 * Framing reader (design: include/tracewire/wire/reader.h, docs/host.md).
 *
 * The buffer holds [start, end) unread bytes; base is the stream offset of
 * buf[0]. A candidate at start is judged in two steps: the cheap checks on
 * word 1 (type, length bounds) and, once all its bytes are here, the full
 * tw_pkt_parse() (footer, reserved bits). Waiting for the bytes of a
 * candidate is bounded by max_pkt_bytes, which the buffer always has room
 * for, so no length field can make the reader allocate.
 *
 * InvalidData (type 0) padding has no footer to confirm it, so in a damaged
 * stream it could swallow valid packets. It is skipped silently only when
 * it directly follows a valid packet, its length is sane, its last word is
 * not a footer for that length (then it is a packet whose type bits were
 * hit), and what follows it is the end of input or a plausible packet
 * header. Otherwise its bytes are scanned and reported like any others.
 *
 * A disconnect (a transport in reconnect mode counts one in
 * tw_conn.disconnects) cuts the stream: the bytes before it can never be
 * completed by the bytes after it, which come from a new connection and
 * typically start with the replies to the start-up commands. So the reader
 * marks the stream offset of the cut and treats it like the end of input
 * for the candidates before it: a packet cut short is reported at once as
 * skipped bytes (reason TW_ECONNRESET), instead of waiting for bytes that
 * will never come and then swallowing the new connection's first packets.
 *
 * Footer-less streams. TI's own senders (its RTA service, the streaming
 * and shared-memory loggers) write no footer: a packet's length is header
 * plus records. Without a footer a length has little to confirm it, so a
 * stream is taken for a footer-less sender only on evidence no single
 * packet gives: an event packet whose footer check failed, whose records
 * tile its payload exactly (tw_records_tile), and whose length ends where
 * the next word is a plausible packet header (or padding). Then the stream
 * is footer-less (counted, with the offset that showed it), and from then
 * on a candidate without a valid footer is taken
 *   - an event packet: when its records tile it and the next word is a
 *     header, as for the detection, or at the end of input (or a cut) when
 *     there is no next word. Always that test, in step or not: a packet cut
 *     short in transport whose last record's header survived tiles just as
 *     well with the next packet's first bytes, and only the next header
 *     tells them apart. So a damaged packet still costs its own bytes and
 *     the scan finds the next intact one, and the framing depends on the
 *     bytes only, never on when they arrive (an event packet is handed out
 *     when the next one begins to arrive);
 *   - a message: at once when the reader is in step (the last thing read
 *     was a packet, or nothing yet: the start, or just after a disconnect),
 *     as a reply is waited for; after damage, as an event packet.
 * A sender that wrote a packet with a valid footer writes footers: its
 * stream is never taken for footer-less (a footer-less reading of one of
 * its packets is damage that happens to line up), and a stream taken for
 * one goes back to footers when a packet with a valid footer arrives.
 * A message never shows a stream to be footer-less (nothing in its body
 * can confirm the length, and a message whose footer was hit would pass
 * the next-header test); tw_reader_cfg.footerless says it beforehand, for
 * record --no-footer, whose target's first packet is a reply. A packet
 * with a valid footer is taken as one in any stream; in a footer-less
 * stream an event packet whose records tile it without a footer is read
 * that way first, so a last record word that happens to look like a footer
 * is not eaten.
 *
 * Skipping is the slow path of a damaged or foreign stream (a serial line
 * at the wrong baud rate delivers nothing else): once a region is being
 * skipped, positions whose first two bytes cannot start any header
 * (starts[], made from classify() itself: the type, the reserved bits, the
 * high length bits against max_pkt_bytes) are passed over in a tight loop;
 * the region, its offset, count and reason are exactly what the byte by
 * byte scan reports. Random bytes leave about 2% of positions to judge.
 *
 * A call with a timeout returns within it even when bytes keep coming
 * and none of them is a packet (a garbage flood), so a live caller gets
 * its loop back for Ctrl-C and --duration; the skip goes on at the next
 * call.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/wire/reader.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

struct tw_reader {
  struct tw_conn *src;
  size_t max_pkt, read_bytes;
  uint8_t *buf;
  size_t cap, start, end;
  unsigned long long base;
  int eof;
  int cut;                   /* a disconnect at stream offset cut_off */
  unsigned long long cut_off, disconnects;
  int in_sync;               /* the last thing read was a valid packet */
  int boundary;              /* at the start, or just after a cut: nothing read yet */
  int fl;                    /* the stream is footer-less (see the top) */
  int fl_told;               /* ... because tw_reader_cfg said so */
  int edge_fl;               /* the data ends at a cut into a footer-less stream */
  int footers;               /* a packet with a footer came before a resume point */
  int skipping;
  struct tw_skip skip;
  unsigned long long pkt_off, pkt_num;
  struct tw_reader_stats st;
  tw_skip_fn on_skip;
  void *skip_ctx;
  tw_tap_fn on_bytes;
  void *bytes_ctx;
  const uint8_t *starts;     /* [first two bytes]: 1 if a header may start so */
};

static int classify_min(uint32_t w, size_t max, size_t *len, uint32_t footer);

/* The starts[] table of a max_pkt: a pair of first bytes is plausible
 * when some value of the other two passes classify_min() without a footer
 * (so under either framing: footer-less streams accept shorter lengths; a
 * length's low bits only need to be aligned and at least a header: 64
 * bytes, or the largest aligned value within max). 64 KiB, made once per max_pkt value a process
 * uses and kept: readers are opened often (the fuzzers, every trace
 * source) and the table costs 130,000 classify() calls. */
#define START_TABLES 8
static struct {
  pthread_mutex_t lock;
  size_t max[START_TABLES];
  uint8_t *t[START_TABLES];
} starts_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const uint8_t *starts_for(size_t max)
{
  uint8_t *t = NULL;
  pthread_mutex_lock(&starts_cache.lock);
  int i;
  for (i = 0; i < START_TABLES && starts_cache.t[i]; i++)
    if (starts_cache.max[i] == max) {
      t = starts_cache.t[i];
      break;
    }
  if (!t && (t = malloc(1u << 16))) {
    uint32_t lows[2] = { 0x40u, (uint32_t)(max & 0xFFFCu) };
    for (uint32_t h = 0; h < 0x10000u; h++) {
      size_t len;
      t[h] = 0;
      for (int k = 0; k < 2 && !t[h]; k++)
        t[h] = classify_min(h << 16 | lows[k], max, &len, 0) == 0; /* either framing */
    }
    if (i < START_TABLES) {
      starts_cache.max[i] = max;
      starts_cache.t[i] = t;
    } /* else: a process with that many sizes; this reader's own (leaked) */
  }
  pthread_mutex_unlock(&starts_cache.lock);
  return t;
}

int tw_reader_open(struct tw_reader **out, struct tw_conn *src, const struct tw_reader_cfg *cfg)
{
  struct tw_reader *r = calloc(1, sizeof *r);
  if (!r)
    return TW_ENOMEM;
  r->src = src;
  r->max_pkt = cfg && cfg->max_pkt_bytes ? cfg->max_pkt_bytes : TW_EVPKT_MAX_BYTES;
  r->read_bytes = cfg && cfg->read_bytes ? cfg->read_bytes : 256 * 1024;
  /* a candidate, then a whole packet past it (a footer-less candidate not
   * followed by a header: see footerless()), the next header word */
  r->cap = 2 * r->max_pkt + 4 + r->read_bytes;
  r->buf = malloc(r->cap);
  if (!r->buf) {
    free(r);
    return TW_ENOMEM;
  }
  r->pkt_num = (unsigned long long)-1;
  if (!(r->starts = starts_for(r->max_pkt))) {
    tw_reader_close(r);
    return TW_ENOMEM;
  }
  r->boundary = 1;
  if (cfg && cfg->footerless)
    tw_reader_set_footerless(r);
  *out = r;
  return 0;
}

void tw_reader_set_edge_footerless(struct tw_reader *r)
{
  r->edge_fl = 1;
}

void tw_reader_set_footerless(struct tw_reader *r)
{
  r->fl = r->fl_told = 1;
  r->st.footerless_stream = 2;
}

void tw_reader_close(struct tw_reader *r)
{
  if (r) {
    free(r->buf);
    free(r);
  }
}

void tw_reader_on_skip(struct tw_reader *r, tw_skip_fn fn, void *ctx)
{
  r->on_skip = fn;
  r->skip_ctx = ctx;
}

void tw_reader_on_bytes(struct tw_reader *r, tw_tap_fn fn, void *ctx)
{
  r->on_bytes = fn;
  r->bytes_ctx = ctx;
}

unsigned long long tw_reader_pkt_offset(const struct tw_reader *r) { return r->pkt_off; }
unsigned long long tw_reader_pkt_number(const struct tw_reader *r) { return r->pkt_num; }
const struct tw_reader_stats *tw_reader_stats(const struct tw_reader *r) { return &r->st; }
struct tw_conn *tw_reader_conn(const struct tw_reader *r) { return r->src; }

int tw_reader_resume_point(const struct tw_reader *r, unsigned long long *off, unsigned long long *num)
{
  if (r->skipping || r->cut)
    return TW_EAGAIN;
  *off = r->base + r->start;
  *num = r->pkt_num;
  return r->in_sync | r->fl << 1 | (r->footers || r->st.packets > r->st.footerless) << 2;
}

int tw_reader_resume(struct tw_reader *r, unsigned long long off, unsigned long long num, int state)
{
  if (r->end || r->st.packets || r->base || state < 0 || state > 7)
    return TW_EINVAL;
  r->base = r->pkt_off = off;
  r->pkt_num = num;
  r->in_sync = state & 1;
  r->boundary = 0;
  if (state & 2)
    r->fl = r->st.footerless_stream = 1;
  r->footers = (state & 4) != 0;
  return 0;
}

const char *tw_skip_reason(int reason)
{
  switch (reason) {
  case TW_EHDRTYPE: return "not a packet header (unknown header type)";
  case TW_ESHORT: return "impossible length (smaller than header + footer)";
  case TW_EALIGN: return "impossible length (not a multiple of 4)";
  case TW_ETOOBIG: return "impossible length (exceeds the configured maximum)";
  case TW_EFOOTER: return "bad footer";
  case TW_ERESERVED: return "reserved header bits set";
  case TW_ETRUNC: return "truncated packet at end of input";
  case TW_ECONNRESET: return "packet cut by a disconnect";
  default: return tw_strerror(reason);
  }
}

/* Header bytes and length of a candidate from its first word, or a reason
 * to reject it at once. footer: bytes a footer adds to the smallest packet
 * (0 in a footer-less stream). */
static int classify_min(uint32_t w, size_t max, size_t *len, uint32_t footer)
{
  uint32_t type = w >> 28, hdr, n;
  switch (type) {
  case TW_PKT_EVENT: hdr = TW_EVPKT_HDR_BYTES; n = w & 0x7FFFFFFu; break;
  case TW_PKT_EVENT_WITH_CRC: hdr = TW_CRCPKT_HDR_BYTES; n = w & 0x7FFFFFFu; break;
  case TW_PKT_MIN_EVENT:
    if (w & 0x003F0000u)
      return TW_ERESERVED;
    hdr = TW_MINPKT_HDR_BYTES; n = w & 0xFFFFu; break;
  case TW_PKT_MSG: hdr = TW_MSG_HDR_BYTES; n = (w >> 16) & 0x7FFu; break;
  default: return TW_EHDRTYPE;
  }
  if (n < hdr + footer)
    return TW_ESHORT;
  if (n & 3u)
    return TW_EALIGN;
  if (n > max || n > TW_EVPKT_MAX_BYTES)
    return TW_ETOOBIG;
  *len = n;
  return 0;
}

static int classify(uint32_t w, size_t max, size_t *len)
{
  return classify_min(w, max, len, TW_FOOTER_BYTES);
}

/* The word after a footer-less candidate: another packet's header, under
 * either framing, or InvalidData padding of a sane length. */
static int next_header(const struct tw_reader *r, uint32_t w)
{
  size_t n;
  if (w >> 28 == TW_PKT_INVALID_DATA)
    return !(w & 0x08000000u) && (w & 0x7FFFFFFu) >= 4 && !(w & 3u) &&
           (w & 0x7FFFFFFu) <= r->max_pkt;
  return classify_min(w, r->max_pkt, &n, 0) == 0;
}

/* Does a packet begin inside the len bytes at start, one that is whole
 * (its footer checks, or it is an event packet whose records tile it and a
 * header follows it, or it ends at the edge)? Then the candidate at start
 * was cut short. avail bytes are here. */
static int cut_short(const struct tw_reader *r, size_t len, size_t avail, int edge)
{
  const uint8_t *b = r->buf + r->start;
  for (size_t k = 1; k < len && k + 4 <= avail; k++) {
    size_t qlen;
    struct tw_pkt q;
    if (classify_min(tw_load_be32(b + k), r->max_pkt, &qlen, 0) < 0 || k + qlen > avail)
      continue;
    if (tw_pkt_parse(b + k, qlen, r->max_pkt, &q) > 0)
      return 1;
    if (tw_pkt_parse_ex(b + k, qlen, r->max_pkt, TW_PKT_NO_FOOTER, &q) <= 0 ||
        q.hdr_type == TW_PKT_MSG || q.hdr_type == TW_PKT_INVALID_DATA ||
        tw_records_tile(q.payload, q.payload_len, q.endian) != 0)
      continue;
    if (k + qlen + 4 <= avail ? next_header(r, tw_load_be32(b + k + qlen)) : edge && k + qlen == avail)
      return 1;
  }
  return 0;
}

/* Is the candidate at start (len bytes, all here) a footer-less packet
 * (reader.c's design note)? 1 (*pkt filled), 0, or TW_EAGAIN: the next
 * header is needed and not here yet. */
static int footerless(struct tw_reader *r, size_t len, size_t avail, int edge, struct tw_pkt *pkt)
{
  const uint8_t *b = r->buf + r->start;
  if (tw_pkt_parse_ex(b, len, r->max_pkt, TW_PKT_NO_FOOTER, pkt) <= 0 ||
      pkt->hdr_type == TW_PKT_INVALID_DATA)
    return 0;
  if (pkt->hdr_type == TW_PKT_MSG) {
    if (!r->fl)
      return 0; /* a message never shows the style */
    if (r->in_sync || r->boundary)
      return 1; /* a reply someone waits for: at once */
  } else if (tw_records_tile(pkt->payload, pkt->payload_len, pkt->endian) != 0) {
    return 0;
  }
  if (avail < len + 4)
    return edge ? r->fl || r->edge_fl : TW_EAGAIN;
  if (next_header(r, tw_load_be32(b + len))) {
    if (!r->fl) {
      if (r->footers || r->st.packets > r->st.footerless)
        return 0; /* this sender writes footers: a damaged one, not TI's */
      r->fl = r->st.footerless_stream = 1;
      r->st.footerless_at = r->base + r->start;
    }
    return 1;
  }
  if (!r->fl)
    return 0;
  /* No header next: garbage after an intact packet, or this one was cut
   * short and the next packet begins inside it. Only the bytes beyond
   * tell (as far as a whole packet can reach past this one). */
  if (avail < len + r->max_pkt + 4 && !edge)
    return TW_EAGAIN;
  return !cut_short(r, len, avail, edge);
}

static int fill(struct tw_reader *r, int timeout_ms)
{
  if (r->cap - r->end < r->read_bytes && r->start > 0) {
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->base += r->start;
    r->end -= r->start;
    r->start = 0;
  }
  int n = tw_conn_read(r->src, r->buf + r->end, r->cap - r->end, timeout_ms);
  if (r->src->disconnects != r->disconnects) {
    /* the transport returns no byte of the next connection in the call
     * that reports the disconnect, so everything up to end is before it */
    r->disconnects = r->src->disconnects;
    r->cut = r->end > r->start || r->skipping;
    r->cut_off = r->base + r->end;
  }
  if (n == TW_EOF) {
    r->eof = 1;
    return 0;
  }
  if (n < 0)
    return n;
  if (r->on_bytes)
    r->on_bytes(r->bytes_ctx, r->buf + r->end, (size_t)n);
  r->end += (size_t)n;
  r->st.bytes += (unsigned long long)n;
  return 0;
}

/* 1: padding of *len bytes at start; 0: not padding; TW_EAGAIN: need bytes. */
static int padding(struct tw_reader *r, uint32_t w, size_t avail, int edge, size_t *len)
{
  size_t n = w & 0x7FFFFFFu, next;
  if (!r->in_sync || (w & 0x08000000u) || n < 4 || (n & 3u) || n > r->max_pkt)
    return 0;
  if (avail < n + 4 && !(edge && avail >= n))
    return edge ? 0 : TW_EAGAIN;
  if (n >= 8 && tw_load_be32(r->buf + r->start + n - 4) == tw_pkt_footer((uint32_t)n))
    return 0;
  if (avail >= n + 4) {
    uint32_t w2 = tw_load_be32(r->buf + r->start + n);
    if (w2 >> 28 != TW_PKT_INVALID_DATA && classify(w2, r->max_pkt, &next) < 0)
      return 0;
  }
  *len = n;
  return 1;
}

static void reject(struct tw_reader *r, int reason)
{
  r->in_sync = 0;
  r->boundary = 0;
  if (!r->skipping) {
    r->skipping = 1;
    r->skip.offset = r->base + r->start;
    r->skip.reason = reason;
    r->skip.word = r->end - r->start >= 4 ? tw_load_be32(r->buf + r->start) : 0;
  }
  r->start++;
}

static void flush_skip(struct tw_reader *r)
{
  if (!r->skipping)
    return;
  r->skipping = 0;
  r->skip.count = r->base + r->start - r->skip.offset;
  r->st.skipped += r->skip.count;
  r->st.skips++;
  if (r->on_skip)
    r->on_skip(r->skip_ctx, &r->skip);
}

/* While skipping: pass over the positions no header can start at (see
 * the design note); at most avail bytes, never the cut. */
static size_t pass_over(struct tw_reader *r, size_t avail)
{
  const uint8_t *b = r->buf + r->start;
  size_t i = 0;
  while (i + 1 < avail && !r->starts[b[i] << 8 | b[i + 1]])
    i++;
  r->start += i;
  return avail - i;
}

/* Another fill with what is left of the caller's timeout (-1: none). Once
 * the time is up, a call that has read FLOOD_BYTES and still found no
 * packet returns TW_EAGAIN (a flood); before that, reads go on (a source
 * that answers at once, with a few bytes or its end, is not a flood). */
#define FLOOD_BYTES (64u << 10)

struct clock {
  int timeout_ms;
  unsigned long long deadline, bytes0;
  int fills;
};

static int refill(struct tw_reader *r, struct clock *k)
{
  int left = -1;
  if (k->timeout_ms >= 0) {
    unsigned long long now = tw_sys_mono_ns();
    if (!k->fills) {
      k->deadline = now + (unsigned long long)k->timeout_ms * 1000000u;
      k->bytes0 = r->st.bytes;
    } else if (now >= k->deadline && r->st.bytes - k->bytes0 >= FLOOD_BYTES) {
      return TW_EAGAIN;
    }
    left = now >= k->deadline ? 0 : (int)((k->deadline - now + 999999u) / 1000000u);
  }
  k->fills++;
  return fill(r, left);
}

int tw_reader_next(struct tw_reader *r, struct tw_pkt *pkt, int timeout_ms)
{
  struct clock k = { .timeout_ms = timeout_ms };
  for (;;) {
    if (r->cut && r->base + r->start >= r->cut_off) {
      flush_skip(r); /* a damaged region ends at the cut */
      r->cut = 0;
      r->in_sync = 0;
      r->boundary = 1; /* a new connection starts with a packet */
    }
    /* edge: no more bytes will come for a candidate (end of input, or a
     * disconnect cut the stream at cut_off) */
    size_t avail = r->cut ? (size_t)(r->cut_off - r->base - r->start) : r->end - r->start, len;
    int edge = r->eof || r->cut, short_reason = r->cut ? TW_ECONNRESET : TW_ETRUNC;
    if (r->skipping)
      avail = pass_over(r, avail);
    if (avail < 4) {
      if (edge) {
        if (avail > 0) {
          reject(r, short_reason);
          r->start += avail - 1;
        }
        if (r->cut)
          continue;
        flush_skip(r);
        return TW_EOF;
      }
      int rc = refill(r, &k);
      if (rc < 0)
        return rc;
      continue;
    }
    uint32_t w = tw_load_be32(r->buf + r->start);
    if (w >> 28 == TW_PKT_INVALID_DATA) {
      int pad = padding(r, w, avail, edge, &len);
      if (pad == TW_EAGAIN) {
        int rc = refill(r, &k);
        if (rc < 0)
          return rc;
        continue;
      }
      if (pad == 1) {
        r->start += len;
        r->st.padding += len;
        continue;
      }
    }
    int why = classify_min(w, r->max_pkt, &len, r->fl ? 0 : TW_FOOTER_BYTES);
    if (why < 0) {
      reject(r, why);
      continue;
    }
    if (avail < len) {
      if (edge) {
        reject(r, short_reason);
        continue;
      }
      int rc = refill(r, &k);
      if (rc < 0)
        return rc;
      continue;
    }
    int n = 0, fl = 0;
    if (r->fl && w >> 28 != TW_PKT_MSG) /* records that tile without a footer first */
      fl = footerless(r, len, avail, edge, pkt);
    if (fl == 0)
      n = tw_pkt_parse(r->buf + r->start, len, r->max_pkt, pkt);
    if (fl == 0 && (n == TW_EFOOTER || n == TW_ESHORT) && !(r->fl && w >> 28 != TW_PKT_MSG))
      fl = footerless(r, len, avail, edge, pkt);
    if (fl == TW_EAGAIN) {
      int rc = refill(r, &k);
      if (rc < 0)
        return rc;
      continue;
    }
    if (fl == 1) {
      n = (int)len;
      r->st.footerless++;
    } else if (n <= 0) {
      reject(r, n < 0 ? n : TW_EPROTO);
      continue;
    } else if (pkt->hdr_type != TW_PKT_INVALID_DATA && r->fl && !r->fl_told) {
      r->fl = r->st.footerless_stream = 0; /* it writes footers after all */
    }
    flush_skip(r);
    r->boundary = 0;
    r->pkt_off = r->base + r->start;
    r->pkt_num++;
    r->st.packets++;
    r->in_sync = 1;
    r->start += (size_t)n;
    return 1;
  }
}
