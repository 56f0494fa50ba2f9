/*
 * RTT, the host's side (tracewire/io/rtt_host.h).
 *
 * Up channel read: load the descriptor (write and read offsets together),
 * check it, copy [rd, wr) (two pieces when it wraps), then store the new
 * read offset: the target reuses those bytes only after it sees it. Down
 * channel write: the mirror image, the write offset stored after the
 * bytes. Target words are little-endian (as every RTT host assumes).
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <string.h>
#include "tracewire/io/rtt_host.h"
#include "tracewire/rtt.h"
#include "tracewire/uia.h"
#include "tracewire/error.h"

static uint32_t le32(const uint8_t *p)
{
  return tw_load_le32(p);
}

static int bad(struct tw_rtt_host *h, const char *what, uint32_t a, uint32_t b)
{
  char msg[200];
  snprintf(msg, sizeof msg, what, a, b);
  snprintf(h->err, sizeof h->err, "control block at 0x%08x: %s (corrupt or overwritten control block)",
           h->cb, msg);
  return TW_EPROTO;
}

int tw_rtt_host_find(struct tw_rtt_host *h, uint32_t from, uint32_t len, uint32_t *found)
{
  enum { CHUNK = 1024 };
  static const char id[] = TW_RTT_ID;
  const size_t idn = sizeof id; /* with its NUL */
  uint8_t buf[CHUNK + sizeof id];
  size_t keep = 0;
  uint64_t end = (uint64_t)from + len;
  uint64_t bad_from = 0, bad_to = 0;
  h->err[0] = 0;
  for (uint64_t a = from; a < end;) {
    uint32_t n = end - a < CHUNK ? (uint32_t)(end - a) : CHUNK;
    int rc = h->mem.read(h->mem.ctx, (uint32_t)a, buf + keep, n);
    if (rc == TW_ENOTCONN || rc == TW_EOF || rc == TW_ECONNRESET || rc == TW_ETIMEDOUT || rc == TW_ENOMEM)
      return rc; /* the link, not the memory */
    if (rc < 0) { /* memory the target does not have (a range past its RAM): skip it */
      if (!bad_to)
        bad_from = a;
      bad_to = a + n;
      keep = 0;
      a += n;
      continue;
    }
    size_t have = keep + n;
    for (size_t i = 0; i + idn <= have; i++)
      if (!memcmp(buf + i, id, idn)) {
        *found = (uint32_t)(a - keep + i);
        return 1;
      }
    /* the identifier may straddle two chunks: keep the tail */
    keep = have < idn - 1 ? have : idn - 1;
    memmove(buf, buf + have - keep, keep);
    a += n;
  }
  if (bad_to)
    snprintf(h->err, sizeof h->err, "0x%08x..0x%08x could not be read", (uint32_t)bad_from,
             (uint32_t)(bad_to - 1u));
  return 0;
}

static void chan_name(struct tw_rtt_host *h, struct tw_rtt_chan_info *c, uint32_t at)
{
  c->name[0] = 0;
  if (!at || h->mem.read(h->mem.ctx, at, c->name, sizeof c->name - 1) < 0) {
    c->name[0] = 0;
    return;
  }
  c->name[sizeof c->name - 1] = 0;
  for (char *p = c->name; *p; p++)
    if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
      *p = '?'; /* for messages: never print what the target left there */
}

/* Check a descriptor as read (24 bytes) against what attach found. */
static int check_desc(struct tw_rtt_host *h, const char *kind, unsigned idx,
                      const struct tw_rtt_chan_info *c, const uint8_t *d, uint32_t *wr,
                      uint32_t *rd)
{
  uint32_t buf = le32(d + 4), size = le32(d + 8);
  *wr = le32(d + 12);
  *rd = le32(d + 16);
  char what[120];
  if (buf != c->buf || size != c->size) {
    snprintf(what, sizeof what, "%s channel %u: buffer moved from 0x%%08x to 0x%%08x", kind, idx);
    return bad(h, what, c->buf, buf);
  }
  if (*wr >= size || *rd >= size) {
    snprintf(what, sizeof what, "%s channel %u: offsets (write %%u, read %%u) outside the %u-byte buffer",
             kind, idx, size);
    return bad(h, what, *wr, *rd);
  }
  return 0;
}

static int read_chan(struct tw_rtt_host *h, struct tw_rtt_chan_info *c, uint32_t desc,
                     const char *kind, unsigned idx)
{
  uint8_t d[TW_RTT_CHAN_BYTES];
  int rc = h->mem.read(h->mem.ctx, desc, d, sizeof d);
  if (rc < 0)
    return rc;
  c->desc = desc;
  c->buf = le32(d + 4);
  c->size = le32(d + 8);
  c->flags = le32(d + 20);
  if (c->size == 0)
    return TW_EAGAIN; /* not configured yet */
  char what[120];
  if (c->size < 2 || c->size > TW_RTT_HOST_MAX_BUF) {
    snprintf(what, sizeof what, "%s channel %u: buffer size %%u (expected 2..%%u)", kind, idx);
    return bad(h, what, c->size, TW_RTT_HOST_MAX_BUF);
  }
  if ((uint64_t)c->buf + c->size > 0x100000000ull) {
    snprintf(what, sizeof what, "%s channel %u: buffer 0x%%08x + %%u past the address space", kind, idx);
    return bad(h, what, c->buf, c->size);
  }
  uint32_t wr, rd;
  if ((rc = check_desc(h, kind, idx, c, d, &wr, &rd)) < 0)
    return rc;
  chan_name(h, c, le32(d));
  return 0;
}

int tw_rtt_host_attach(struct tw_rtt_host *h, const struct tw_rtt_mem *mem, uint32_t cb,
                       unsigned up_index, unsigned down_index)
{
  uint8_t hdr[TW_RTT_CB_HDR_BYTES];
  h->mem = *mem;
  h->cb = cb;
  h->up_index = up_index;
  h->down_index = down_index;
  h->has_down = 0;
  h->err[0] = 0;
  int rc = mem->read(mem->ctx, cb, hdr, sizeof hdr);
  if (rc < 0)
    return rc;
  if (memcmp(hdr, TW_RTT_ID, sizeof TW_RTT_ID)) {
    snprintf(h->err, sizeof h->err, "no RTT control block at 0x%08x (no \"SEGGER RTT\" identifier)",
             cb);
    return TW_EPROTO;
  }
  h->max_up = (int32_t)le32(hdr + 16);
  h->max_down = (int32_t)le32(hdr + 20);
  if (h->max_up < 1 || h->max_up > TW_RTT_HOST_MAX_CHANNELS || h->max_down < 0 ||
      h->max_down > TW_RTT_HOST_MAX_CHANNELS)
    return bad(h, "%u up and %u down channels (expected 1..32 and 0..32)", (uint32_t)h->max_up,
               (uint32_t)h->max_down);
  if ((int32_t)up_index >= h->max_up) {
    snprintf(h->err, sizeof h->err, "control block at 0x%08x has %d up channels: no channel %u",
             cb, h->max_up, up_index);
    return TW_EINVAL;
  }
  uint32_t chans = cb + TW_RTT_CB_HDR_BYTES;
  if ((rc = read_chan(h, &h->up, chans + TW_RTT_CHAN_BYTES * up_index, "up", up_index)) < 0)
    return rc;
  if ((int32_t)down_index < h->max_down) {
    uint32_t dd = chans + TW_RTT_CHAN_BYTES * ((uint32_t)h->max_up + down_index);
    rc = read_chan(h, &h->down, dd, "down", down_index);
    if (rc < 0 && rc != TW_EAGAIN)
      return rc;
    h->has_down = rc == 0;
  }
  return 0;
}

/* Copy n bytes of channel c's buffer from offset at, around its end,
 * into out (the host reads: up) or from in (the host writes: down), then
 * store the new offset at the descriptor's offset_field: the read offset
 * after a read, the write offset after a write. Only the side that owns
 * that offset moves it, which is what makes the target's concurrent use
 * safe (docs/rtt.md). */
static int ring_copy(struct tw_rtt_host *h, const struct tw_rtt_chan_info *c, uint32_t at,
                     uint32_t n, uint8_t *out, const uint8_t *in, uint32_t offset_field)
{
  int rc;
  for (uint32_t left = n; left;) {
    uint32_t k = c->size - at < left ? c->size - at : left;
    rc = out ? h->mem.read(h->mem.ctx, c->buf + at, out, k)
             : h->mem.write(h->mem.ctx, c->buf + at, in, k);
    if (rc < 0)
      return rc;
    out = out ? out + k : NULL;
    in = in ? in + k : NULL;
    left -= k;
    at = at + k == c->size ? 0 : at + k;
  }
  if (!n)
    return 0;
  uint8_t v[4];
  tw_store_le32(v, at);
  return h->mem.write(h->mem.ctx, c->desc + offset_field, v, 4);
}

int tw_rtt_host_read(struct tw_rtt_host *h, void *buf, size_t cap)
{
  uint8_t d[TW_RTT_CHAN_BYTES];
  uint32_t wr, rd;
  h->polls++;
  int rc = h->mem.read(h->mem.ctx, h->up.desc, d, sizeof d);
  if (rc < 0)
    return rc;
  if ((rc = check_desc(h, "up", h->up_index, &h->up, d, &wr, &rd)) < 0)
    return rc;
  uint32_t avail = wr >= rd ? wr - rd : h->up.size - rd + wr;
  if (avail > cap)
    avail = (uint32_t)cap;
  if ((rc = ring_copy(h, &h->up, rd, avail, buf, NULL, 16)) < 0)
    return rc;
  h->up_bytes += avail;
  return (int)avail;
}

int tw_rtt_host_write(struct tw_rtt_host *h, const void *buf, size_t n)
{
  if (!h->has_down) {
    snprintf(h->err, sizeof h->err, "control block at 0x%08x has no down channel %u (%d down channels)",
             h->cb, h->down_index, h->max_down);
    return TW_ENOTSUP;
  }
  uint8_t d[TW_RTT_CHAN_BYTES];
  uint32_t wr, rd;
  int rc = h->mem.read(h->mem.ctx, h->down.desc, d, sizeof d);
  if (rc < 0)
    return rc;
  if ((rc = check_desc(h, "down", h->down_index, &h->down, d, &wr, &rd)) < 0)
    return rc;
  uint32_t room = rd > wr ? rd - wr - 1u : h->down.size - 1u - (wr - rd);
  if (room > n)
    room = (uint32_t)n;
  if ((rc = ring_copy(h, &h->down, wr, room, NULL, buf, 12)) < 0)
    return rc;
  h->down_bytes += room;
  return (int)room;
}
