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

static int classify(uint32_t w, size_t max, size_t *len);

/* The starts[] table of a max_pkt: a pair of first bytes is plausible
 * when some value of the other two passes classify() (a length's low bits
 * only need to be aligned and at least a header: 64 bytes, or the largest
 * aligned value within max). 64 KiB, made once per max_pkt value a process
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
        t[h] = classify(h << 16 | lows[k], max, &len) == 0;
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
  r->cap = r->max_pkt + 4 + r->read_bytes; /* padding + the next header word */
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
  *out = r;
  return 0;
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
  return r->in_sync;
}

int tw_reader_resume(struct tw_reader *r, unsigned long long off, unsigned long long num, int in_sync)
{
  if (r->end || r->st.packets || r->base)
    return TW_EINVAL;
  r->base = r->pkt_off = off;
  r->pkt_num = num;
  r->in_sync = in_sync != 0;
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
 * to reject it at once. */
static int classify(uint32_t w, size_t max, size_t *len)
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
  if (n < hdr + TW_FOOTER_BYTES)
    return TW_ESHORT;
  if (n & 3u)
    return TW_EALIGN;
  if (n > max || n > TW_EVPKT_MAX_BYTES)
    return TW_ETOOBIG;
  *len = n;
  return 0;
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

/* Another fill with what is left of the caller's timeout (-1: none); the
 * first of a call always reads, later ones return TW_EAGAIN once the time
 * is up. */
struct clock {
  int timeout_ms;
  unsigned long long deadline;
  int fills;
};

static int refill(struct tw_reader *r, struct clock *k)
{
  int left = -1;
  if (k->timeout_ms >= 0) {
    unsigned long long now = tw_sys_mono_ns();
    if (!k->fills)
      k->deadline = now + (unsigned long long)k->timeout_ms * 1000000u;
    else if (now >= k->deadline)
      return TW_EAGAIN;
    left = (int)((k->deadline - now + 999999u) / 1000000u);
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
    int why = classify(w, r->max_pkt, &len);
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
    int n = tw_pkt_parse(r->buf + r->start, len, r->max_pkt, pkt);
    if (n <= 0) {
      reject(r, n < 0 ? n : TW_EPROTO);
      continue;
    }
    flush_skip(r);
    r->pkt_off = r->base + r->start;
    r->pkt_num++;
    r->st.packets++;
    r->in_sync = 1;
    r->start += (size_t)n;
    return 1;
  }
}
