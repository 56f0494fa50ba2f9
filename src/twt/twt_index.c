/*
 * .twt time index: building (decode as the file is written, checkpoint
 * every N bytes of DATA) and using (find the TOC from the end, check every
 * offset before trusting it). Design: include/tracewire/twt/twt_index.h.
 *
 * Payload layouts (INDEX, TOC): tracewire/twt/layout.h.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracewire/twt/twt_index.h"
#include "tracewire/io/conn.h"
#include "tracewire/wire/decoder.h"
#include "tracewire/wire/reader.h"
#include "tracewire/io/sys.h"
#include "tracewire/cmd.h"
#include "tracewire/uia.h"
#include "tracewire/error.h"

#define NSRC TW_TWT_INDEX_SOURCES
#define RECENT 64
#define NONE UINT64_MAX

static void put32(uint8_t *p, uint32_t v) { tw_store_le32(p, v); }
static void put64(uint8_t *p, uint64_t v) { tw_store_le32(p, (uint32_t)v); tw_store_le32(p + 4, (uint32_t)(v >> 32)); }
static uint64_t get64(const uint8_t *p) { return tw_load_le32(p) | (uint64_t)tw_load_le32(p + 4) << 32; }

static uint32_t fnv(const uint8_t *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

/* ---- a byte source the indexer pushes chunks into ---------------------- */

struct push {
  struct tw_conn base;
  const uint8_t *p;
  size_t n;
  int eof;
};

static int push_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct push *q = (struct push *)s;
  (void)timeout_ms;
  if (!q->n)
    return q->eof ? TW_EOF : TW_EAGAIN;
  size_t n = q->n < cap ? q->n : cap;
  memcpy(buf, q->p, n);
  q->p += n;
  q->n -= n;
  s->nread += n;
  return (int)n;
}

static void push_close(struct tw_conn *s) { (void)s; }
static const struct tw_conn_ops push_ops = { .scheme = "index", .read = push_read, .close = push_close };

/* ---- building ------------------------------------------------------------ */

struct ix_src {
  struct tw_twt_indexer *ix;
  int id;
  struct push in;
  struct tw_reader *r;
  struct tw_decoder *d;
  unsigned long long fed;
  struct { unsigned long long foff, soff, len; } recent[RECENT];
  unsigned nrecent;
  uint64_t last_ns, max_ns;
  int have_ev, backwards;
};

struct point {
  unsigned long long foff;
  uint64_t max_before1[NSRC], min_in[NSRC];
};

struct tw_twt_indexer {
  unsigned long long every, since;
  int frozen, dead, due;
  size_t nsrc;
  struct ix_src src[NSRC];
  struct point *pts;
  size_t npts, ptcap;
  uint8_t *buf;
  size_t bufcap;
};

int tw_twt_indexer_open(struct tw_twt_indexer **out, unsigned long long every)
{
  struct tw_twt_indexer *ix = calloc(1, sizeof *ix);
  if (!ix)
    return TW_ENOMEM;
  ix->every = every ? every : TW_TWT_INDEX_EVERY;
  *out = ix;
  return 0;
}

void tw_twt_indexer_close(struct tw_twt_indexer *ix)
{
  if (!ix)
    return;
  for (size_t i = 0; i < ix->nsrc; i++) {
    tw_decoder_close(ix->src[i].d);
    tw_reader_close(ix->src[i].r);
  }
  free(ix->pts);
  free(ix->buf);
  free(ix);
}

static int ix_event(void *ctx, const struct tw_event *ev)
{
  struct ix_src *s = ctx;
  if (s->have_ev && ev->time_ns < s->last_ns)
    s->backwards = 1;
  s->last_ns = ev->time_ns;
  if (!s->have_ev || ev->time_ns > s->max_ns)
    s->max_ns = ev->time_ns;
  s->have_ev = 1;
  struct tw_twt_indexer *ix = s->ix;
  if (ix->npts) {
    uint64_t *m = &ix->pts[ix->npts - 1].min_in[s - ix->src];
    if (ev->time_ns < *m)
      *m = ev->time_ns;
  }
  return 0;
}

/* The source rule of readers (src/trace/input.c discover()): the ids of the
 * leading SOURCE chunks (INDEX, TOC and END among them do not end them:
 * the writer never feeds those here, and a rewrite drops them); one or
 * none: a single stream of every DATA chunk. */
static int freeze(struct tw_twt_indexer *ix)
{
  ix->frozen = 1;
  if (ix->nsrc <= 1) {
    ix->nsrc = 1;
    ix->src[0].id = -1;
  }
  struct tw_decoder_cfg dcfg = { .max_streams = TW_TWT_INDEX_STREAMS };
  for (size_t i = 0; i < ix->nsrc; i++) {
    struct ix_src *s = &ix->src[i];
    s->ix = ix;
    tw__conn_init(&s->in.base, &push_ops, "index");
    if (tw_reader_open(&s->r, &s->in.base, NULL) < 0 || tw_decoder_open(&s->d, &dcfg) < 0)
      return TW_ENOMEM;
    tw_decoder_on_event(s->d, ix_event, s);
  }
  return 0;
}

static void drain(struct ix_src *s)
{
  struct tw_pkt pkt;
  while (tw_reader_next(s->r, &pkt, 0) == 1)
    tw_decoder_packet(s->d, &pkt, tw_reader_pkt_offset(s->r), tw_reader_pkt_number(s->r));
}

static void feed(struct ix_src *s, const struct tw_twt_chunk *c)
{
  unsigned i = s->nrecent++ % RECENT;
  s->recent[i].foff = c->file_offset;
  s->recent[i].soff = s->fed;
  s->recent[i].len = c->len;
  s->in.p = c->data;
  s->in.n = c->len;
  s->fed += c->len;
  drain(s);
}

int tw_twt_indexer_chunk(struct tw_twt_indexer *ix, const struct tw_twt_chunk *c)
{
  if (ix->dead)
    return 0;
  if (!ix->frozen) {
    if (c->type == TW_TWT_SOURCE) {
      int seen = 0;
      for (size_t i = 0; i < ix->nsrc; i++)
        seen |= ix->src[i].id == c->source;
      if (!seen && ix->nsrc < NSRC)
        ix->src[ix->nsrc++].id = c->source;
      return 0;
    }
    if (freeze(ix) < 0) {
      ix->dead = 1;
      return TW_ENOMEM;
    }
  }
  for (size_t i = 0; i < ix->nsrc; i++) {
    struct ix_src *s = &ix->src[i];
    if (s->id >= 0 && c->source != s->id)
      continue;
    if (c->type == TW_TWT_DATA)
      feed(s, c);
    else if (c->type == TW_TWT_INFO && c->len >= 4 * TW_INFO_WORDS)
      tw_decoder_set_freq(s->d, (uint16_t)tw_load_be32(c->data + 4 * TW_INFO_ENDPOINT),
                          tw_load_be32(c->data + 4 * TW_INFO_TS_FREQ_HZ));
    else if (c->type == TW_TWT_FRAMING && c->len >= 4 &&
             (tw_load_le32(c->data) & TW_TWT_FRAMING_FOOTERLESS))
      tw_reader_set_footerless(s->r); /* as readers do (input.c): before any data */
  }
  if (c->type == TW_TWT_DATA) {
    ix->since += c->len;
    if (ix->since >= ix->every)
      ix->due = 1;
  }
  return c->type == TW_TWT_DATA && ix->due;
}

static int room(struct tw_twt_indexer *ix, size_t need)
{
  if (need <= ix->bufcap)
    return 0;
  size_t cap = ix->bufcap ? ix->bufcap : 4096;
  while (cap < need)
    cap *= 2;
  uint8_t *b = realloc(ix->buf, cap);
  if (!b)
    return TW_ENOMEM;
  ix->buf = b;
  ix->bufcap = cap;
  return 0;
}

/* Where s resumes: the chunk holding its next byte (or the point itself,
 * when every byte fed so far is framed). */
static int locate(const struct ix_src *s, unsigned long long x, unsigned long long here,
                  unsigned long long *foff, unsigned long long *soff)
{
  if (x == s->fed) {
    *foff = here;
    *soff = x;
    return 1;
  }
  unsigned n = s->nrecent < RECENT ? s->nrecent : RECENT;
  for (unsigned i = 0; i < n; i++)
    if (x >= s->recent[i].soff && x < s->recent[i].soff + s->recent[i].len) {
      *foff = s->recent[i].foff;
      *soff = s->recent[i].soff;
      return 1;
    }
  return 0;
}

static int add_point(struct tw_twt_indexer *ix, unsigned long long foff)
{
  if (ix->npts == ix->ptcap) {
    size_t cap = ix->ptcap ? 2 * ix->ptcap : 64;
    struct point *p = realloc(ix->pts, cap * sizeof *p);
    if (!p)
      return TW_ENOMEM;
    ix->pts = p;
    ix->ptcap = cap;
  }
  struct point *p = &ix->pts[ix->npts++];
  p->foff = foff;
  for (size_t i = 0; i < NSRC; i++) {
    p->max_before1[i] = i < ix->nsrc && ix->src[i].have_ev ? ix->src[i].max_ns + 1 : 0;
    p->min_in[i] = NONE;
  }
  return 0;
}

int tw_twt_indexer_point(struct tw_twt_indexer *ix, unsigned long long foff, const uint8_t **out,
                         size_t *len)
{
  if (ix->dead || !ix->frozen)
    return 0;
  size_t n = 8;
  for (size_t i = 0; i < ix->nsrc; i++) {
    struct ix_src *s = &ix->src[i];
    unsigned long long x, pk, f, so;
    int sync = tw_reader_resume_point(s->r, &x, &pk);
    if (sync < 0 || !locate(s, x, foff, &f, &so))
      return 0;
    int need = tw_decoder_save(s->d, NULL, 0);
    if (need < 0 || room(ix, n + 52 + (size_t)need) < 0)
      return 0;
    uint8_t *p = ix->buf + n;
    put32(p, (uint32_t)s->id);
    put32(p + 4, (uint32_t)sync);
    put64(p + 8, f);
    put64(p + 16, so);
    put64(p + 24, x);
    put64(p + 32, pk);
    put64(p + 40, s->last_ns);
    put32(p + 48, (uint32_t)need);
    tw_decoder_save(s->d, p + 52, (size_t)need);
    n += 52 + (size_t)need;
  }
  if (n + 4 > TW_TWT_MAX_CHUNK || room(ix, n + 4) < 0 || add_point(ix, foff) < 0)
    return 0;
  put32(ix->buf, 1);
  put32(ix->buf + 4, (uint32_t)ix->nsrc);
  put32(ix->buf + n, fnv(ix->buf, n));
  n += 4;
  ix->due = 0;
  ix->since = 0;
  *out = ix->buf;
  *len = n;
  return 1;
}

int tw_twt_indexer_toc(struct tw_twt_indexer *ix, const uint8_t **out, size_t *len)
{
  if (ix->dead || !ix->frozen || !ix->npts)
    return 0;
  for (size_t i = 0; i < ix->nsrc; i++) {
    ix->src[i].in.eof = 1; /* the tail decodes as a reader's end of file */
    drain(&ix->src[i]);
  }
  size_t per = 8 + 16 * ix->nsrc, n = 12 + 8 * ix->nsrc + ix->npts * per + 4;
  if (n > TW_TWT_MAX_CHUNK || room(ix, n) < 0)
    return 0;
  uint8_t *p = ix->buf;
  put32(p, 1);
  put32(p + 4, (uint32_t)ix->nsrc);
  put32(p + 8, (uint32_t)ix->npts);
  p += 12;
  for (size_t i = 0; i < ix->nsrc; i++, p += 8) {
    put32(p, (uint32_t)ix->src[i].id);
    put32(p + 4, (uint32_t)ix->src[i].backwards);
  }
  uint64_t after[NSRC];
  for (size_t i = 0; i < NSRC; i++)
    after[i] = NONE;
  /* smallest time after each point: a suffix minimum, filled backwards */
  for (size_t k = ix->npts; k-- > 0;) {
    uint8_t *e = p + k * per;
    put64(e, ix->pts[k].foff);
    for (size_t i = 0; i < ix->nsrc; i++) {
      if (ix->pts[k].min_in[i] < after[i])
        after[i] = ix->pts[k].min_in[i];
      put64(e + 8 + 16 * i, ix->pts[k].max_before1[i]);
      put64(e + 16 + 16 * i, after[i]);
    }
  }
  put32(ix->buf + n - 4, fnv(ix->buf, n - 4));
  *out = ix->buf;
  *len = n;
  return 1;
}

/* ---- using ---------------------------------------------------------------- */

struct ipoint {
  unsigned long long foff;
  uint64_t max_before1[NSRC], min_after[NSRC];
};

struct tw_twt_index {
  int fd;
  char path[256];
  unsigned long long size, toc, nread;
  size_t nsrc, npts;
  int ids[NSRC], backwards[NSRC];
  struct ipoint *pts;
  uint8_t *buf;
  size_t bufcap;
};

static int rd(struct tw_twt_index *ix, unsigned long long off, void *buf, size_t n, char *err,
              size_t errcap)
{
  ssize_t k = pread(ix->fd, buf, n, (off_t)off);
  if (k != (ssize_t)n) {
    snprintf(err, errcap, "%s: index: read of %zu bytes at file offset %llu failed", ix->path, n,
             off);
    return TW_ESYS;
  }
  ix->nread += n;
  return 0;
}


/* A chunk header at off, whole inside the file (payload included). */
static int chunk_at(struct tw_twt_index *ix, unsigned long long off, struct tw_twt_chunk *c,
                    char *err, size_t errcap)
{
  uint8_t h[TW_TWT_CHUNK_HDR_BYTES];
  if (off < TW_TWT_HDR_BYTES || off + sizeof h > ix->size) {
    snprintf(err, errcap, "%s: index: file offset %llu is outside the chunks (file %llu bytes)",
             ix->path, off, ix->size);
    return TW_EBADMSG;
  }
  int rc = rd(ix, off, h, sizeof h, err, errcap);
  if (rc < 0)
    return rc;
  c->type = (uint16_t)(h[4] | h[5] << 8);
  c->source = (uint16_t)(h[6] | h[7] << 8);
  c->len = tw_load_le32(h + 8);
  c->file_offset = off;
  if (tw_load_le32(h) != TW_TWT_CHUNK_MAGIC || c->len > TW_TWT_MAX_CHUNK ||
      tw_load_le32(h + 12) != tw_twt_check_word(c->len, c->type, c->source) ||
      off + sizeof h + c->len > ix->size) {
    snprintf(err, errcap, "%s: index: file offset %llu is not a chunk header", ix->path, off);
    return TW_EBADMSG;
  }
  return 0;
}

static int payload(struct tw_twt_index *ix, const struct tw_twt_chunk *c, char *err, size_t errcap)
{
  if (c->len > ix->bufcap) {
    uint8_t *b = realloc(ix->buf, c->len);
    if (!b)
      return TW_ENOMEM;
    ix->buf = b;
    ix->bufcap = c->len;
  }
  return rd(ix, c->file_offset + TW_TWT_CHUNK_HDR_BYTES, ix->buf, c->len, err, errcap);
}

static int parse_toc(struct tw_twt_index *ix, const uint8_t *p, size_t len, char *err,
                     size_t errcap)
{
  if (len < 16 || tw_load_le32(p + len - 4) != fnv(p, len - 4) || tw_load_le32(p) != 1)
    goto bad;
  len -= 4;
  ix->nsrc = tw_load_le32(p + 4);
  ix->npts = tw_load_le32(p + 8);
  size_t per = 8 + 16 * ix->nsrc;
  if (!ix->nsrc || ix->nsrc > NSRC || ix->npts > len / per || len != 12 + 8 * ix->nsrc + ix->npts * per)
    goto bad;
  p += 12;
  for (size_t i = 0; i < ix->nsrc; i++, p += 8) {
    ix->ids[i] = (int)tw_load_le32(p);
    ix->backwards[i] = tw_load_le32(p + 4) & 1;
  }
  ix->pts = calloc(ix->npts ? ix->npts : 1, sizeof *ix->pts);
  if (!ix->pts)
    return TW_ENOMEM;
  for (size_t k = 0; k < ix->npts; k++, p += per) {
    struct ipoint *q = &ix->pts[k];
    q->foff = get64(p);
    if (q->foff >= ix->toc || (k && q->foff <= ix->pts[k - 1].foff))
      goto bad;
    for (size_t i = 0; i < ix->nsrc; i++) {
      q->max_before1[i] = get64(p + 8 + 16 * i);
      q->min_after[i] = get64(p + 16 + 16 * i);
    }
  }
  return 0;
bad:
  snprintf(err, errcap, "%s: index: TOC chunk at file offset %llu is malformed", ix->path, ix->toc);
  return TW_EBADMSG;
}

static int load(struct tw_twt_index *ix, char *err, size_t errcap)
{
  struct stat st;
  if (fstat(ix->fd, &st) != 0)
    return 0;
  ix->size = (unsigned long long)st.st_size;
  const unsigned long long end_bytes = TW_TWT_CHUNK_HDR_BYTES + 32;
  if (ix->size < TW_TWT_HDR_BYTES + end_bytes)
    return 0;
  struct tw_twt_chunk c;
  char ignore[8];
  /* a file that does not end in a 32-byte END has no index to use */
  if (chunk_at(ix, ix->size - end_bytes, &c, ignore, sizeof ignore) < 0 || c.type != TW_TWT_END ||
      c.len != 32)
    return 0;
  int rc = payload(ix, &c, err, errcap);
  if (rc < 0)
    return rc;
  ix->toc = get64(ix->buf + 24);
  if (!ix->toc)
    return 0;
  if ((rc = chunk_at(ix, ix->toc, &c, err, errcap)) < 0)
    return rc;
  if (c.type != TW_TWT_TOC || ix->toc + TW_TWT_CHUNK_HDR_BYTES + c.len > ix->size - end_bytes) {
    snprintf(err, errcap, "%s: index: END points at file offset %llu, which is no TOC chunk",
             ix->path, ix->toc);
    return TW_EBADMSG;
  }
  if ((rc = payload(ix, &c, err, errcap)) < 0 ||
      (rc = parse_toc(ix, ix->buf, c.len, err, errcap)) < 0)
    return rc;
  return 1;
}

int tw_twt_index_load(const char *path, struct tw_twt_index **out, char *err, size_t errcap)
{
  struct tw_twt_index *ix = calloc(1, sizeof *ix);
  if (!ix)
    return TW_ENOMEM;
  snprintf(ix->path, sizeof ix->path, "%s", path);
  ix->fd = tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0);
  if (ix->fd < 0) {
    free(ix);
    return 0;
  }
  int rc = load(ix, err, errcap);
  if (rc <= 0) {
    tw_twt_index_free(ix);
    return rc;
  }
  *out = ix;
  return 1;
}

void tw_twt_index_free(struct tw_twt_index *ix)
{
  if (!ix)
    return;
  if (ix->fd >= 0)
    tw_sys->close(ix->fd);
  free(ix->pts);
  free(ix->buf);
  free(ix);
}

size_t tw_twt_index_nsources(const struct tw_twt_index *ix) { return ix->nsrc; }
size_t tw_twt_index_npoints(const struct tw_twt_index *ix) { return ix->npts; }
int tw_twt_index_source(const struct tw_twt_index *ix, size_t i) { return ix->ids[i]; }
int tw_twt_index_backwards(const struct tw_twt_index *ix, size_t i) { return ix->backwards[i]; }
unsigned long long tw_twt_index_bytes_read(const struct tw_twt_index *ix) { return ix->nread; }

long tw_twt_index_start(const struct tw_twt_index *ix, size_t i, uint64_t from)
{
  long k = -1;
  /* max_before grows with k: the last point with every earlier event < from */
  for (size_t j = 0; j < ix->npts; j++)
    if (ix->pts[j].max_before1[i] == 0 || ix->pts[j].max_before1[i] - 1 < from)
      k = (long)j;
    else
      break;
  return k;
}

long tw_twt_index_stop(const struct tw_twt_index *ix, size_t i, uint64_t to)
{
  for (size_t j = 0; j < ix->npts; j++)
    if (ix->pts[j].min_after[i] > to)
      return (long)j;
  return -1;
}

static int parse_point(struct tw_twt_index *ix, const struct tw_twt_chunk *c,
                       struct tw_twt_resume *out, char *err, size_t errcap)
{
  if (c->len < 12)
    goto bad;
  const uint8_t *p = ix->buf, *end = ix->buf + c->len - 4;
  if (tw_load_le32(end) != fnv(p, c->len - 4) || tw_load_le32(p) != 1 ||
      tw_load_le32(p + 4) != ix->nsrc)
    goto bad;
  p += 8;
  for (size_t i = 0; i < ix->nsrc; i++) {
    struct tw_twt_resume *r = &out[i];
    if (end - p < 52)
      goto bad;
    r->id = (int)tw_load_le32(p);
    r->in_sync = (int)tw_load_le32(p + 4);
    r->foff = get64(p + 8);
    r->soff = get64(p + 16);
    r->resume = get64(p + 24);
    r->packets = get64(p + 32);
    r->last_ns = get64(p + 40);
    r->state_len = tw_load_le32(p + 48);
    r->state = p + 52;
    if (r->id != ix->ids[i] || r->in_sync > 7 || r->resume < r->soff ||
        r->state_len > (size_t)(end - p - 52))
      goto bad;
    p += 52 + r->state_len;
  }
  if (p != end)
    goto bad;
  return 0;
bad:
  snprintf(err, errcap, "%s: index: INDEX chunk at file offset %llu is malformed", ix->path,
           c->file_offset);
  return TW_EBADMSG;
}

/* The chunk a source resumes at must be a chunk, and the boundary inside
 * that source's bytes of it. */
static int check_resume(struct tw_twt_index *ix, const struct tw_twt_resume *r, char *err,
                        size_t errcap)
{
  struct tw_twt_chunk c;
  int rc = chunk_at(ix, r->foff, &c, err, errcap);
  if (rc < 0)
    return rc;
  int mine = c.type == TW_TWT_DATA && (r->id < 0 || c.source == r->id);
  if (mine ? r->resume - r->soff >= c.len : r->resume != r->soff) {
    snprintf(err, errcap, "%s: index: source %d resumes at stream offset %llu, not inside the "
             "chunk at file offset %llu", ix->path, r->id, r->resume, r->foff);
    return TW_EBADMSG;
  }
  return 0;
}

int tw_twt_index_point(struct tw_twt_index *ix, long k, struct tw_twt_resume *out, char *err,
                       size_t errcap)
{
  if (k < 0 || (size_t)k >= ix->npts)
    return TW_EINVAL;
  struct tw_twt_chunk c;
  int rc = chunk_at(ix, ix->pts[k].foff, &c, err, errcap);
  if (rc == 0 && c.type != TW_TWT_INDEX) {
    snprintf(err, errcap, "%s: index: file offset %llu holds no INDEX chunk", ix->path,
             c.file_offset);
    rc = TW_EBADMSG;
  }
  if (rc == 0)
    rc = payload(ix, &c, err, errcap);
  if (rc == 0)
    rc = parse_point(ix, &c, out, err, errcap);
  for (size_t i = 0; rc == 0 && i < ix->nsrc; i++)
    rc = check_resume(ix, &out[i], err, errcap);
  return rc;
}
