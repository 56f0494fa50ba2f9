/*
 * A protobuf encoder for the Perfetto exporter: a growable byte buffer
 * and the wire format's primitives (varint, tag, length-delimited, fixed64,
 * packed varints), written from the encoding's definition.
 *
 * Speed: the writer encodes tens of millions of messages a second, so
 * nothing here checks room: the caller reserves it (pb_room) for what it
 * is about to write, a bound per message, and a submessage reserves one
 * byte for its length, moving its body in the rare case it needs more
 * (pb_open / pb_close). A failed allocation is sticky (err) and reported
 * by the caller, once.
 */
#ifndef TW_EXPORT_PBUF_H
#define TW_EXPORT_PBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

struct pbuf {
  uint8_t *p;
  size_t n, cap;
  int err; /* an allocation failed: the contents are not to be written */
};

/* Room for `need` more bytes; 0, or -1 (err set) when it cannot grow. */
static inline int pb_room(struct pbuf *b, size_t need)
{
  size_t cap;
  uint8_t *p;
  if (b->n + need <= b->cap)
    return 0;
  if (b->err)
    return -1;
  for (cap = b->cap ? b->cap : 256; cap < b->n + need; cap *= 2)
    ;
  if (!(p = realloc(b->p, cap))) {
    b->err = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static inline void pb_free(struct pbuf *b)
{
  free(b->p);
  memset(b, 0, sizeof *b);
}

static inline uint8_t *pb_varint_at(uint8_t *p, uint64_t v)
{
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static inline void pb_varint(struct pbuf *b, uint64_t v)
{
  b->n = (size_t)(pb_varint_at(b->p + b->n, v) - b->p);
}

static inline unsigned pb_varint_len(uint64_t v)
{
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static inline void pb_tag(struct pbuf *b, unsigned field, unsigned wt)
{
  pb_varint(b, (uint64_t)field << 3 | wt);
}

static inline void pb_uint(struct pbuf *b, unsigned field, uint64_t v)
{
  pb_tag(b, field, PB_VARINT);
  pb_varint(b, v);
}

/* int32/int64 fields: two's complement, ten bytes when negative */
static inline void pb_int(struct pbuf *b, unsigned field, int64_t v)
{
  pb_uint(b, field, (uint64_t)v);
}

static inline void pb_fixed64(struct pbuf *b, unsigned field, uint64_t v)
{
  pb_tag(b, field, PB_I64);
  for (int i = 0; i < 8; i++)
    b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

/* Length-delimited bytes; the caller reserved n + 16. */
static inline void pb_bytes(struct pbuf *b, unsigned field, const void *s, size_t n)
{
  pb_tag(b, field, PB_LEN);
  pb_varint(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
}

/* A submessage: its tag and one byte for its length. pb_close fixes the
 * length, moving the body when it takes more than one byte. */
static inline size_t pb_open(struct pbuf *b, unsigned field)
{
  pb_tag(b, field, PB_LEN);
  b->p[b->n] = 0;
  return b->n++;
}

/* The caller reserved 9 bytes beyond the body for a long one. */
static inline void pb_close(struct pbuf *b, size_t at)
{
  size_t len = b->n - at - 1;
  unsigned k;
  if (len < 0x80) {
    b->p[at] = (uint8_t)len;
    return;
  }
  k = pb_varint_len(len);
  memmove(b->p + at + k, b->p + at + 1, len);
  pb_varint_at(b->p + at, len);
  b->n += k - 1;
}

#endif
