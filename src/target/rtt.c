/*
 * RTT channels (include/tracewire/rtt.h): byte rings shared with a host
 * that reads and writes target RAM through a debug probe.
 *
 * Ownership: in an up channel the target owns wr and the bytes from wr to
 * rd - 1 (its free space), the host owns rd and the bytes from rd to
 * wr - 1 (its data); a down channel swaps the roles. Each side only ever
 * stores its own offset, except OVERWRITE, where the target moves rd
 * itself (documented as such: meant for a host that reads after a halt).
 *
 * Orders (the host is another bus master, so these are real barriers):
 *   - writer: bytes, then the offset with release: the host that sees the
 *     new offset sees the bytes;
 *   - the other side's offset with acquire before touching the bytes it
 *     releases: the host finished reading them (up) or writing them (down).
 *
 * A host that writes nonsense into its offset (a stale or confused probe)
 * cannot make the target write outside a buffer: every copy wraps at the
 * channel's size and only the target's own offset positions it; a read
 * offset out of range counts as "drained" for writes and a write offset
 * out of range as "nothing" for reads.
 */
#include "tracewire/rtt.h"

_Static_assert(TW_CFG_RTT_UP >= 1 && TW_CFG_RTT_DOWN >= 1, "RTT needs an up and a down channel");

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static int addr32(const void *p, uint32_t *out)
{
  uintptr_t a = (uintptr_t)p;
  if (a > 0xFFFFFFFFu)
    return TW_EINVAL;
  *out = (uint32_t)a;
  return 0;
}

static uint8_t *bytes_at(uint32_t a)
{
  return (uint8_t *)(uintptr_t)a;
}

int tw_rtt_init(struct tw_rtt_cb *cb)
{
  /* the identifier reversed, so this image of it in the program's
   * constants is not what a host searching memory looks for */
  static const char rev[] = "TTR REGGES";
  uint32_t a;
  if (!cb || addr32(cb, &a) < 0)
    return TW_EINVAL;
  volatile char *id = cb->id;
  for (unsigned i = 0; i < TW_RTT_ID_BYTES; i++)
    id[i] = 0;
  cb->max_up = TW_CFG_RTT_UP;
  cb->max_down = TW_CFG_RTT_DOWN;
  for (unsigned i = 0; i < TW_CFG_RTT_UP; i++)
    cb->up[i] = (struct tw_rtt_chan){ 0 };
  for (unsigned i = 0; i < TW_CFG_RTT_DOWN; i++)
    cb->down[i] = (struct tw_rtt_chan){ 0 };
  /* release: the descriptors are in place before any byte of the id, and
   * the id's first byte goes last, so no host matches a partial block */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  for (unsigned i = 0; i < sizeof rev - 1; i++)
    id[sizeof rev - 2 - i] = rev[i];
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return 0;
}

static int config(struct tw_rtt_chan *c, const char *name, void *buf, uint32_t size,
                  uint32_t flags)
{
  uint32_t n = 0, b;
  if (!buf || size < 2 || (name && addr32(name, &n) < 0) || addr32(buf, &b) < 0 ||
      addr32((const uint8_t *)buf + size - 1, &b) < 0)
    return TW_EINVAL;
  (void)addr32(buf, &b);
  /* size 0 while the rest changes: a host skips an unconfigured channel */
  STORE_REL(&c->size, 0u);
  c->name = n;
  c->buf = b;
  c->wr = 0;
  c->rd = 0;
  c->flags = flags;
  STORE_REL(&c->size, size);
  return 0;
}

int tw_rtt_config_up(struct tw_rtt_cb *cb, unsigned ch, const char *name, void *buf,
                     uint32_t size, enum tw_rtt_mode mode)
{
  if (!cb || ch >= TW_CFG_RTT_UP || (unsigned)mode > TW_RTT_MODE_MASK)
    return TW_EINVAL;
  return config(&cb->up[ch], name, buf, size, (uint32_t)mode);
}

int tw_rtt_config_down(struct tw_rtt_cb *cb, unsigned ch, const char *name, void *buf,
                       uint32_t size)
{
  if (!cb || ch >= TW_CFG_RTT_DOWN)
    return TW_EINVAL;
  return config(&cb->down[ch], name, buf, size, 0u);
}

int tw_rtt_set_mode(struct tw_rtt_cb *cb, unsigned ch, enum tw_rtt_mode mode)
{
  if (!cb || ch >= TW_CFG_RTT_UP || (unsigned)mode > TW_RTT_MODE_MASK)
    return TW_EINVAL;
  struct tw_rtt_chan *c = &cb->up[ch];
  c->flags = (c->flags & ~TW_RTT_MODE_MASK) | (uint32_t)mode;
  return 0;
}

/* Free bytes of an up channel as the target sees them (wr its own). */
static uint32_t room(const struct tw_rtt_chan *c, uint32_t wr)
{
  /* acquire: the host has read the bytes below rd before we reuse them */
  uint32_t rd = LOAD_ACQ(&c->rd);
  if (rd >= c->size)
    rd = wr; /* nonsense from the host: treat as drained, never go outside */
  return rd > wr ? rd - wr - 1u : c->size - 1u - (wr - rd);
}

/* Copy n bytes at offset wr (wrapping) and publish the new offset. */
static uint32_t put(struct tw_rtt_chan *c, uint32_t wr, const uint8_t *p, uint32_t n)
{
  uint8_t *buf = bytes_at(c->buf);
  uint32_t size = c->size;
  for (uint32_t i = 0; i < n; i++) {
    buf[wr++] = p[i];
    if (wr == size)
      wr = 0;
  }
  /* release: the bytes are in RAM before the host sees the offset */
  STORE_REL(&c->wr, wr);
  return wr;
}

/* OVERWRITE: make room for n (< size) bytes by moving rd past the oldest. */
static void discard_oldest(struct tw_rtt_chan *c, uint32_t wr, uint32_t n)
{
  if (room(c, wr) < n) {
    uint32_t rd = wr + n + 1u;
    STORE_REL(&c->rd, rd >= c->size ? rd - c->size : rd);
  }
}

int tw_rtt_write(struct tw_rtt_cb *cb, unsigned ch, const void *data, uint32_t len)
{
  if (!cb || ch >= TW_CFG_RTT_UP || (len && !data))
    return TW_EINVAL;
  struct tw_rtt_chan *c = &cb->up[ch];
  uint32_t size = c->size, wr = c->wr;
  if (size < 2 || wr >= size)
    return TW_EINVAL;
  const uint8_t *p = data;
  uint32_t mode = c->flags & TW_RTT_MODE_MASK, left = len;
  if (mode == TW_RTT_OVERWRITE) {
    if (left > size - 1u) { /* only the newest size - 1 bytes can stay */
      p += left - (size - 1u);
      left = size - 1u;
    }
    discard_oldest(c, wr, left);
    put(c, wr, p, left);
    return (int)len;
  }
  if (mode == TW_RTT_SKIP && room(c, wr) < left)
    return 0;
  while (left) {
    uint32_t n = room(c, wr);
    if (n > left)
      n = left;
    wr = put(c, wr, p, n);
    p += n;
    left -= n;
    if (mode != TW_RTT_BLOCK)
      break;
  }
  return (int)(len - left);
}

uint32_t tw_rtt_unread(const struct tw_rtt_cb *cb, unsigned ch)
{
  if (!cb || ch >= TW_CFG_RTT_UP || cb->up[ch].size < 2)
    return 0;
  const struct tw_rtt_chan *c = &cb->up[ch];
  return c->size - 1u - room(c, c->wr);
}

int tw_rtt_read(struct tw_rtt_cb *cb, unsigned ch, void *out, uint32_t cap)
{
  if (!cb || ch >= TW_CFG_RTT_DOWN || (cap && !out))
    return TW_EINVAL;
  struct tw_rtt_chan *c = &cb->down[ch];
  uint32_t size = c->size, rd = c->rd;
  if (size < 2 || rd >= size)
    return TW_EINVAL;
  /* acquire: the host wrote the bytes below wr before it stored wr */
  uint32_t wr = LOAD_ACQ(&c->wr), n = 0;
  if (wr >= size)
    return 0; /* nonsense from the host: nothing to read */
  const uint8_t *buf = bytes_at(c->buf);
  uint8_t *o = out;
  while (rd != wr && n < cap) {
    o[n++] = buf[rd++];
    if (rd == size)
      rd = 0;
  }
  /* release: our reads are done before the host may reuse the bytes */
  STORE_REL(&c->rd, rd);
  return (int)n;
}

int tw_rtt_send(void *ctx, const void *pkt, size_t len)
{
  struct tw_rtt_cb *cb = ctx;
  struct tw_rtt_chan *c = &cb->up[0];
  uint32_t mode = c->flags & TW_RTT_MODE_MASK, wr = c->wr;
  if (c->size < 2 || wr >= c->size || len > c->size - 1u)
    return TW_EINVAL; /* a packet larger than the channel can never go */
  if (mode == TW_RTT_OVERWRITE)
    discard_oldest(c, wr, (uint32_t)len);
  else
    while (room(c, wr) < len)
      if (mode != TW_RTT_BLOCK)
        return TW_EBUSY; /* whole packets only: offered again at the next poll */
  put(c, wr, pkt, (uint32_t)len);
  return 0;
}
