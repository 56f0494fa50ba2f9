/*
 * libFuzzer target: the framing reader (src/wire/reader.c).
 *
 * Input: byte 0 picks the reader's bounds (max_pkt_bytes, read size), byte
 * 1 seeds the size of each read the byte source delivers (1..n bytes, and
 * now and then "nothing yet", TW_EAGAIN), the rest is the stream. Chunked
 * delivery is the point: a TCP or serial link cuts packets anywhere, and
 * the buffer compaction and "wait for the rest of a candidate" paths only
 * run when it does.
 *
 * Beyond ASan's no-overread, the reader's accounting must be exact, and a
 * violation aborts (a finding like any crash):
 *   every stream byte is in a returned packet, a reported skip, or the
 *   InvalidData padding the reader accepts after a packet (its count);
 *   skips and packets come in stream order with no overlap;
 *   a returned packet's bytes are the stream's bytes at its offset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/error.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct chunky {
  struct tw_conn base;
  const uint8_t *d;
  size_t len, pos;
  uint32_t rng;
  unsigned max_chunk;
};

static uint32_t next_rand(uint32_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

static int chunky_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct chunky *c = (struct chunky *)s;
  (void)timeout_ms;
  if (c->pos == c->len)
    return TW_EOF;
  uint32_t r = next_rand(&c->rng);
  if ((r & 7u) == 0)
    return TW_EAGAIN;
  size_t n = 1 + (r >> 3) % c->max_chunk;
  if (n > cap)
    n = cap;
  if (n > c->len - c->pos)
    n = c->len - c->pos;
  memcpy(buf, c->d + c->pos, n);
  c->pos += n;
  s->nread += n;
  return (int)n;
}

static void chunky_close(struct tw_conn *s) { (void)s; }

static const struct tw_conn_ops chunky_ops = {
  .scheme = "fuzz", .read = chunky_read, .close = chunky_close,
};

struct tiling {
  const uint8_t *d;
  unsigned long long covered; /* stream offset accounted up to */
  unsigned long long gaps;    /* bytes between regions: padding */
};

static void advance(struct tiling *t, unsigned long long off, unsigned long long n)
{
  if (off < t->covered || n == 0)
    abort(); /* regions out of order, overlapping, or empty */
  t->gaps += off - t->covered;
  t->covered = off + n;
}

static void on_skip(void *ctx, const struct tw_skip *k)
{
  advance(ctx, k->offset, k->count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const size_t maxes[8] = {0, 24, 64, 128, 256, 1024, 4096, 65536};
  if (size < 2)
    return 0;
  struct tw_reader_cfg cfg = {
    .max_pkt_bytes = maxes[data[0] & 7u],
    .read_bytes = 1u + ((size_t)(data[0] >> 3) * 37u),
  };
  struct chunky c = {.d = data + 2, .len = size - 2, .rng = 0x9E3779B9u ^ data[1],
                     .max_chunk = 1u + data[1] % 200u};
  tw__conn_init(&c.base, &chunky_ops, "fuzz");
  struct tw_reader *r;
  if (tw_reader_open(&r, &c.base, &cfg) < 0)
    return 0;
  struct tiling t = {.d = c.d};
  tw_reader_on_skip(r, on_skip, &t);
  for (;;) {
    struct tw_pkt p;
    int rc = tw_reader_next(r, &p, 0);
    if (rc == TW_EAGAIN)
      continue; /* the source said "nothing yet"; it always progresses after */
    if (rc != 1)
      break;
    unsigned long long off = tw_reader_pkt_offset(r);
    if (off + p.length > c.len || memcmp(c.d + off, &p.hdr, 4) != 0)
      abort();
    advance(&t, off, p.length);
  }
  const struct tw_reader_stats *st = tw_reader_stats(r);
  t.gaps += c.len - t.covered;
  if (t.gaps != st->padding || st->bytes != c.len)
    abort(); /* a byte neither in a packet, nor reported skipped, nor padding */
  tw_reader_close(r);
  return 0;
}
