/* A .twt trace as a byte source: the DATA chunks of one source id, in file
 * order, so the reader frames a recording exactly as it framed the live
 * stream. Other chunks go to an optional callback (INFO: the target's
 * clock). A truncated or damaged tail ends the stream, with a message. */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/error.h"

#define MAPS 64

struct twt_source {
  struct tw_conn base;
  struct tw_twt_reader *r;
  int want;                  /* source id, or -1 */
  struct tw_twt_chunk c;
  size_t used;               /* bytes of c delivered */
  int have;
  tw_twt_chunk_fn on_chunk;
  void *ctx;
  /* recent (stream offset -> file offset) of DATA payloads, for locate() */
  struct { unsigned long long soff, foff, len; } map[MAPS];
  unsigned nmap;
  unsigned long long discard; /* stream bytes to drop (a seek to mid-chunk) */
  unsigned long long limit;   /* stream offset that reads as the end */
  int has_limit;
};

static int twt_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct twt_source *t = (struct twt_source *)s;
  (void)timeout_ms;
  if (t->has_limit && s->nread >= t->limit)
    return TW_EOF;
  while (!t->have || t->used == t->c.len) {
    int rc = tw_twt_next(t->r, &t->c);
    if (rc == 0)
      return TW_EOF;
    if (rc < 0) {
      snprintf(s->err, sizeof s->err, "%s", tw_twt_reader_error(t->r));
      if (t->on_chunk)
        t->on_chunk(t->ctx, NULL, rc, s->err);
      if (rc == TW_EBADMSG)
        continue; /* the reader went on at the next chunk header */
      return TW_EOF; /* the readable prefix is the trace */
    }
    t->used = 0;
    t->have = 0;
    if (t->c.type == TW_TWT_DATA && (t->want < 0 || t->c.source == t->want)) {
      t->have = 1;
      unsigned i = t->nmap++ % MAPS;
      t->map[i].soff = s->nread;
      t->map[i].foff = t->c.file_offset + TW_TWT_CHUNK_HDR_BYTES;
      t->map[i].len = t->c.len;
      if (t->discard) {
        t->used = t->discard < t->c.len ? (size_t)t->discard : t->c.len;
        t->discard -= t->used;
        s->nread += t->used;
      }
    } else if (t->on_chunk) {
      t->on_chunk(t->ctx, &t->c, 0, NULL);
    }
  }
  size_t n = t->c.len - t->used;
  if (n > cap)
    n = cap;
  if (t->has_limit && n > t->limit - s->nread)
    n = (size_t)(t->limit - s->nread);
  memcpy(buf, t->c.data + t->used, n);
  t->used += n;
  s->nread += n;
  return (int)n;
}

static long long twt_locate(struct tw_conn *s, unsigned long long off)
{
  struct twt_source *t = (struct twt_source *)s;
  unsigned n = t->nmap < MAPS ? t->nmap : MAPS;
  for (unsigned i = 0; i < n; i++)
    if (off >= t->map[i].soff && off < t->map[i].soff + t->map[i].len)
      return (long long)(t->map[i].foff + (off - t->map[i].soff));
  return -1;
}

static void twt_close(struct tw_conn *s)
{
  struct twt_source *t = (struct twt_source *)s;
  tw_twt_close_reader(t->r);
  free(t);
}

static const struct tw_conn_ops twt_ops = {
  .scheme = "twt", .read = twt_read, .close = twt_close, .locate = twt_locate,
};

int tw_conn_twt_open(const char *path, int source_id, struct tw_conn **out, char *err, size_t errcap)
{
  struct twt_source *t = calloc(1, sizeof *t);
  if (!t)
    return TW_ENOMEM;
  tw__conn_init(&t->base, &twt_ops, path);
  int rc = tw_twt_open(path, &t->r, err, errcap);
  if (rc < 0) {
    free(t);
    return rc;
  }
  t->want = source_id;
  *out = &t->base;
  return 0;
}

void tw_conn_twt_name(struct tw_conn *s, const char *name)
{
  snprintf(s->name, sizeof s->name, "%s", name);
  tw_twt_reader_name(((struct twt_source *)s)->r, name);
}

void tw_conn_twt_on_chunk(struct tw_conn *s, tw_twt_chunk_fn fn, void *ctx)
{
  struct twt_source *t = (struct twt_source *)s;
  t->on_chunk = fn;
  t->ctx = ctx;
}

int tw_conn_twt_seek(struct tw_conn *s, unsigned long long foff, unsigned long long soff,
                     unsigned long long resume)
{
  struct twt_source *t = (struct twt_source *)s;
  if (resume < soff || s->nread)
    return TW_EINVAL;
  int rc = tw_twt_seek(t->r, foff);
  if (rc < 0) {
    snprintf(s->err, sizeof s->err, "%s", tw_twt_reader_error(t->r));
    return rc;
  }
  t->have = 0;
  t->used = 0;
  s->nread = soff;
  t->discard = resume - soff;
  return 0;
}

void tw_conn_twt_limit(struct tw_conn *s, unsigned long long stop)
{
  struct twt_source *t = (struct twt_source *)s;
  t->limit = stop;
  t->has_limit = 1;
}

unsigned long long tw_conn_twt_bytes_read(const struct tw_conn *s)
{
  return tw_twt_bytes_read(((const struct twt_source *)s)->r);
}
