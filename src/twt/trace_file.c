/* .twt writer and reader (format: include/tracewire/twt/trace_file.h). */
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
#include "tracewire/twt/trace_file.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/io/file.h"
#include "tracewire/io/sys.h"
#include "tracewire/uia.h"
#include "tracewire/error.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put64(uint8_t *p, uint64_t v) { tw_store_le32(p, (uint32_t)v); tw_store_le32(p + 4, (uint32_t)(v >> 32)); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint64_t get64(const uint8_t *p) { return tw_load_le32(p) | (uint64_t)tw_load_le32(p + 4) << 32; }

/* ---- writer -------------------------------------------------------------- */

struct tw_twt_writer {
  int fd;
  int err;
  char path[256];
  char msg[400];
  unsigned long long offset, data_bytes, data_chunks;
  uint8_t *buf;
  struct tw_twt_indexer *ix;
  uint64_t created, end_ns;
  int hdr_done;
};

static int wfail(struct tw_twt_writer *w, const char *what)
{
  int e = errno;
  if (!w->err) {
    w->err = e == ENOSPC ? TW_ENOSPC : TW_ESYS;
    snprintf(w->msg, sizeof w->msg, "%s: %s at file offset %llu: %s", w->path, what, w->offset,
             strerror(e));
  }
  return w->err;
}

static int write_all(struct tw_twt_writer *w, const void *buf, size_t n)
{
  const char *p = buf;
  while (n > 0) {
    ssize_t k = tw_sys->write(w->fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      if (k == 0)
        errno = EIO;
      return wfail(w, "write");
    }
    p += k;
    n -= (size_t)k;
    w->offset += (unsigned long long)k;
  }
  return 0;
}

/* A chunk that failed half-way (a full disk) is cut off, so the file is
 * whole chunks only: every reader takes it as a trace that was not stopped
 * cleanly, with nothing damaged. If even that fails, readers still cope
 * (a partial last chunk is reported as truncated). */
static void cut_partial(struct tw_twt_writer *w, unsigned long long at)
{
  if (w->offset == at || tw_sys->iVersion < 2 || !tw_sys->ftruncate)
    return;
  if (tw_sys->ftruncate(w->fd, (off_t)at) == 0) {
    size_t l = strlen(w->msg);
    snprintf(w->msg + l, sizeof w->msg - l, "; the trace ends with the last whole chunk, at %llu bytes",
             at);
    w->offset = at;
  }
}

int tw_twt_create(const char *path, struct tw_twt_writer **out, char *err, size_t errcap)
{
  struct tw_twt_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->buf = malloc(TW_TWT_CHUNK_HDR_BYTES + TW_TWT_MAX_CHUNK))) {
    free(w);
    return TW_ENOMEM;
  }
  snprintf(w->path, sizeof w->path, "%s", path);
  /* never over a file this process reads (io/file.h); "-": stdout */
  w->fd = tw_file_create(path, err, errcap);
  if (w->fd < 0) {
    int rc = w->fd;
    free(w->buf);
    free(w);
    return rc;
  }
  w->created = tw_sys_wall_ns();
  *out = w;
  return 0;
}

/* The file header goes out with the first chunk (or at close), so the
 * creation time can still be set without seeking back: the file may be a
 * pipe (-o -). */
static int write_header(struct tw_twt_writer *w)
{
  uint8_t h[TW_TWT_HDR_BYTES] = {0};
  if (w->hdr_done)
    return w->err;
  w->hdr_done = 1;
  memcpy(h, TW_TWT_MAGIC, 8);
  tw_store_le32(h + 8, TW_TWT_VERSION);
  tw_store_le32(h + 12, TW_TWT_HDR_BYTES);
  put64(h + 16, w->created);
  return write_all(w, h, sizeof h);
}

int tw_twt_writer_index(struct tw_twt_writer *w, unsigned long long every)
{
  return w->ix ? 0 : tw_twt_indexer_open(&w->ix, every);
}

void tw_twt_writer_times(struct tw_twt_writer *w, uint64_t created_ns, uint64_t end_ns)
{
  w->end_ns = end_ns;
  if (created_ns && !w->hdr_done)
    w->created = created_ns;
}

static int write_chunk(struct tw_twt_writer *w, uint16_t type, uint16_t source, uint64_t arrival_ns,
                       const void *data, size_t len);

/* Feed the index what was just written; write an INDEX chunk when due. */
static void index_chunk(struct tw_twt_writer *w, const struct tw_twt_chunk *c)
{
  const uint8_t *p;
  size_t n;
  int due = tw_twt_indexer_chunk(w->ix, c);
  if (due < 0) {
    tw_twt_indexer_close(w->ix); /* out of memory: the file goes on, unindexed */
    w->ix = NULL;
  } else if (due && tw_twt_indexer_point(w->ix, w->offset, &p, &n) == 1) {
    write_chunk(w, TW_TWT_INDEX, 0, c->arrival_ns, p, n);
  }
}

int tw_twt_write(struct tw_twt_writer *w, uint16_t type, uint16_t source, uint64_t arrival_ns,
                 const void *data, size_t len)
{
  return write_chunk(w, type, source, arrival_ns, data, len);
}

static int write_chunk(struct tw_twt_writer *w, uint16_t type, uint16_t source, uint64_t arrival_ns,
                       const void *data, size_t len)
{
  const uint8_t *p = data;
  if (w->err || write_header(w) < 0)
    return w->err;
  do {
    uint32_t n = len > TW_TWT_MAX_CHUNK ? TW_TWT_MAX_CHUNK : (uint32_t)len;
    uint8_t *h = w->buf;
    tw_store_le32(h, TW_TWT_CHUNK_MAGIC);
    put16(h + 4, type);
    put16(h + 6, source);
    tw_store_le32(h + 8, n);
    tw_store_le32(h + 12, tw_twt_check_word(n, type, source));
    put64(h + 16, arrival_ns);
    if (n)
      memcpy(h + TW_TWT_CHUNK_HDR_BYTES, p, n);
    /* one write per chunk: a crash leaves whole chunks and at most one part */
    unsigned long long at = w->offset;
    int rc = write_all(w, h, TW_TWT_CHUNK_HDR_BYTES + n);
    if (rc < 0) {
      cut_partial(w, at);
      return rc;
    }
    if (type == TW_TWT_DATA) {
      w->data_bytes += n;
      w->data_chunks++;
    }
    if (w->ix && type != TW_TWT_INDEX && type != TW_TWT_TOC)
      index_chunk(w, &(struct tw_twt_chunk){ .type = type, .source = source, .len = n,
                                             .arrival_ns = arrival_ns, .file_offset = at,
                                             .data = h + TW_TWT_CHUNK_HDR_BYTES });
    p += n;
    len -= n;
  } while (len > 0);
  return 0;
}

int tw_twt_close(struct tw_twt_writer *w, int clean)
{
  if (!w)
    return 0;
  write_header(w);
  if (clean && !w->err) {
    uint8_t e[32];
    const uint8_t *toc;
    size_t toclen, elen = 24;
    uint64_t now = w->end_ns ? w->end_ns : tw_sys_wall_ns();
    put64(e, w->data_bytes);
    put64(e + 8, w->data_chunks);
    put64(e + 16, now);
    if (w->ix && tw_twt_indexer_toc(w->ix, &toc, &toclen) == 1) {
      /* END says where the TOC is: a reader finds it from the file's end */
      put64(e + 24, w->offset);
      elen = 32;
      write_chunk(w, TW_TWT_TOC, 0, now, toc, toclen);
    }
    write_chunk(w, TW_TWT_END, 0, now, e, elen);
  }
  tw_twt_indexer_close(w->ix);
  if (tw_sys->fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
    wfail(w, "fsync");
  if (tw_sys->close(w->fd) != 0)
    wfail(w, "close");
  int rc = w->err;
  free(w->buf);
  free(w);
  return rc;
}

const char *tw_twt_writer_error(const struct tw_twt_writer *w) { return w->err ? w->msg : "no error"; }
unsigned long long tw_twt_data_bytes(const struct tw_twt_writer *w) { return w->data_bytes; }

/* ---- reader -------------------------------------------------------------- */

/* The buffer holds the largest chunk plus a read's worth. A regular file
 * smaller than that gets a buffer its size (plus one byte, so a read can
 * see the end): opening a small trace costs no 5 MiB allocation. The
 * buffer grows up to RBUF if a chunk needs it (a file still being
 * recorded grows after it was opened). */
#define RBUF (TW_TWT_MAX_CHUNK + TW_TWT_CHUNK_HDR_BYTES + (1u << 20))
#define RBUF_MIN (64u << 10)
#define READ_AHEAD (256u << 10)

struct tw_twt_reader {
  int fd, eof;
  char path[256];
  char msg[400];
  uint8_t *buf;
  size_t cap, start, end;
  unsigned long long base; /* file offset of buf[0] */
  uint64_t created;
  int pending;             /* error to return on the next call */
  unsigned long long nread; /* bytes read from the file */
};

/* Room for need bytes from start (need <= RBUF - chunk bounds hold that). */
static int rgrow(struct tw_twt_reader *r, size_t need)
{
  size_t cap = r->cap;
  while (cap < need + 1 && cap < RBUF)
    cap = cap * 2 < RBUF ? cap * 2 : RBUF;
  if (cap == r->cap)
    return 0;
  uint8_t *b = realloc(r->buf, cap);
  if (!b) {
    snprintf(r->msg, sizeof r->msg, "%s: out of memory for a %zu-byte read buffer", r->path, cap);
    return TW_ENOMEM;
  }
  r->buf = b;
  r->cap = cap;
  return 0;
}

static int rfill(struct tw_twt_reader *r, size_t need)
{
  while (r->end - r->start < need && !r->eof) {
    if (r->start > 0) {
      memmove(r->buf, r->buf + r->start, r->end - r->start);
      r->base += r->start;
      r->end -= r->start;
      r->start = 0;
    }
    int g = rgrow(r, need);
    if (g < 0)
      return g;
    /* reads of READ_AHEAD (or what a chunk needs): a reader that seeks
     * (time index) and stops early reads little past what it uses */
    size_t want = r->cap - r->end, short_by = need - (r->end - r->start);
    if (want > READ_AHEAD && short_by < READ_AHEAD)
      want = READ_AHEAD;
    else if (want > short_by && short_by >= READ_AHEAD)
      want = short_by;
    ssize_t n = tw_sys->read(r->fd, r->buf + r->end, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      snprintf(r->msg, sizeof r->msg, "%s: read at file offset %llu: %s", r->path,
               r->base + r->end, strerror(errno));
      return TW_ESYS;
    }
    if (n == 0)
      r->eof = 1;
    r->end += (size_t)n;
    r->nread += (unsigned long long)n;
  }
  return r->end - r->start >= need ? 1 : 0;
}

int tw_twt_probe(const char *path)
{
  int fd = tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return TW_ENOENT;
  char m[8] = {0};
  ssize_t n = tw_sys->read(fd, m, 8);
  tw_sys->close(fd);
  return n == 8 && memcmp(m, TW_TWT_MAGIC, 8) == 0;
}

int tw_twt_open(const char *path, struct tw_twt_reader **out, char *err, size_t errcap)
{
  struct tw_twt_reader *r = calloc(1, sizeof *r);
  if (!r)
    return TW_ENOMEM;
  snprintf(r->path, sizeof r->path, "%s", path);
  r->fd = tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0);
  int open_errno = errno;
  struct stat st;
  r->cap = RBUF;
  if (r->fd >= 0 && fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) &&
      (unsigned long long)st.st_size < RBUF)
    r->cap = (size_t)st.st_size + 1 > RBUF_MIN ? (size_t)st.st_size + 1 : RBUF_MIN;
  if (!(r->buf = malloc(r->cap))) {
    if (r->fd >= 0)
      tw_sys->close(r->fd);
    free(r);
    return TW_ENOMEM;
  }
  int rc = 0;
  if (r->fd < 0) {
    snprintf(err, errcap, "%s: %s", path, strerror(open_errno));
    rc = TW_ENOENT;
  } else if ((rc = rfill(r, TW_TWT_HDR_BYTES)) <= 0 ||
             memcmp(r->buf, TW_TWT_MAGIC, 8) != 0) {
    snprintf(err, errcap, "%s: not a .twt trace (no \"TWTRACE\" header at offset 0)", path);
    rc = TW_EBADMSG;
  } else if (tw_load_le32(r->buf + 8) != TW_TWT_VERSION) {
    snprintf(err, errcap, "%s: .twt version %u, this tracewire reads version %u", path,
             tw_load_le32(r->buf + 8), TW_TWT_VERSION);
    rc = TW_ENOTSUP;
  } else if (tw_load_le32(r->buf + 12) < TW_TWT_HDR_BYTES ||
             tw_load_le32(r->buf + 12) > TW_TWT_MAX_HDR ||
             rfill(r, tw_load_le32(r->buf + 12)) <= 0) {
    /* the header size comes from the file: bounded before it moves the
     * read position (a huge value used to index far outside the buffer) */
    snprintf(err, errcap, "%s: damaged file header: header size %u at offset 12 (expected %u..%u, "
             "within the file)", path, tw_load_le32(r->buf + 12), TW_TWT_HDR_BYTES, TW_TWT_MAX_HDR);
    rc = TW_EBADMSG;
  } else {
    r->created = get64(r->buf + 16);
    r->start = tw_load_le32(r->buf + 12);
    rc = 0;
  }
  if (rc < 0) {
    tw_twt_close_reader(r);
    return rc;
  }
  *out = r;
  return 0;
}

static int chunk_header_ok(const uint8_t *h)
{
  uint32_t len = tw_load_le32(h + 8);
  return tw_load_le32(h) == TW_TWT_CHUNK_MAGIC && len <= TW_TWT_MAX_CHUNK &&
         tw_load_le32(h + 12) == tw_twt_check_word(len, get16(h + 4), get16(h + 6));
}

/* A damaged chunk header at file offset off: the bytes up to the next
 * valid chunk header (magic, bounded length, check word) are skipped and
 * said, and reading goes on from there, so one damaged header does not
 * cost the rest of the file (a flipped bit in a chunk's length would
 * otherwise end every reader there). Returns TW_EBADMSG. */
static int resync(struct tw_twt_reader *r, unsigned long long off)
{
  static const uint8_t magic[4] = { 0x54, 0x57, 0x43, 0x4B }; /* TW_TWT_CHUNK_MAGIC, LE */
  r->start++;
  for (;;) {
    int rc = rfill(r, TW_TWT_CHUNK_HDR_BYTES);
    if (rc < 0)
      return rc;
    size_t avail = r->end - r->start;
    if (rc == 0) {
      /* no header can start in what is left */
      r->start = r->end;
      snprintf(r->msg, sizeof r->msg, "%s: damaged chunk header at file offset %llu; no chunk "
               "header after it: the rest of the file (%llu bytes) is not read", r->path, off,
               r->base + r->end - off);
      return TW_EBADMSG;
    }
    const uint8_t *p = memmem(r->buf + r->start, avail, magic, 4);
    if (!p) {
      r->start = r->end - 3; /* a magic may straddle the next read */
      continue;
    }
    r->start = (size_t)(p - r->buf);
    if (r->end - r->start < TW_TWT_CHUNK_HDR_BYTES)
      continue;
    if (chunk_header_ok(p)) {
      unsigned long long at = r->base + r->start;
      snprintf(r->msg, sizeof r->msg, "%s: damaged chunk header at file offset %llu; %llu bytes "
               "skipped to the next chunk header, at file offset %llu", r->path, off, at - off, at);
      return TW_EBADMSG;
    }
    r->start++;
  }
}

int tw_twt_next(struct tw_twt_reader *r, struct tw_twt_chunk *c)
{
  if (r->pending) {
    int e = r->pending;
    r->pending = 0;
    return e;
  }
  int rc = rfill(r, TW_TWT_CHUNK_HDR_BYTES);
  if (rc < 0)
    return rc;
  unsigned long long off = r->base + r->start;
  if (rc == 0) {
    if (r->end == r->start)
      return 0;
    snprintf(r->msg, sizeof r->msg, "%s: truncated chunk header at file offset %llu (%zu bytes): "
             "the recording did not finish; everything before it was read", r->path, off,
             r->end - r->start);
    r->start = r->end;
    return TW_ETRUNC;
  }
  const uint8_t *h = r->buf + r->start;
  if (!chunk_header_ok(h))
    return resync(r, off);
  c->type = get16(h + 4);
  c->source = get16(h + 6);
  c->len = tw_load_le32(h + 8);
  c->arrival_ns = get64(h + 16);
  rc = rfill(r, TW_TWT_CHUNK_HDR_BYTES + c->len);
  if (rc < 0)
    return rc;
  c->truncated = 0;
  if (rc == 0) {
    /* the part that made it to disk is still what was received: hand it
     * out, and report the truncation on the next call */
    size_t have = r->end - r->start - TW_TWT_CHUNK_HDR_BYTES;
    snprintf(r->msg, sizeof r->msg, "%s: truncated chunk at file offset %llu (%zu of %u payload "
             "bytes): the recording did not finish; everything before it was read", r->path, off,
             have, c->len);
    c->len = (uint32_t)have;
    c->truncated = 1;
    r->pending = TW_ETRUNC;
  }
  c->file_offset = off;
  c->data = r->buf + r->start + TW_TWT_CHUNK_HDR_BYTES;
  r->start += TW_TWT_CHUNK_HDR_BYTES + c->len;
  return 1;
}

uint64_t tw_twt_created_ns(const struct tw_twt_reader *r) { return r->created; }
void tw_twt_reader_name(struct tw_twt_reader *r, const char *name)
{
  snprintf(r->path, sizeof r->path, "%s", name);
}
unsigned long long tw_twt_bytes_read(const struct tw_twt_reader *r) { return r->nread; }

int tw_twt_seek(struct tw_twt_reader *r, unsigned long long off)
{
  if (tw_sys->lseek(r->fd, (off_t)off, SEEK_SET) < 0) {
    snprintf(r->msg, sizeof r->msg, "%s: seek to file offset %llu: %s", r->path, off, strerror(errno));
    return TW_ESYS;
  }
  r->base = off;
  r->start = r->end = 0;
  r->eof = 0;
  r->pending = 0;
  return 0;
}
const char *tw_twt_reader_error(const struct tw_twt_reader *r) { return r->msg[0] ? r->msg : "no error"; }

void tw_twt_close_reader(struct tw_twt_reader *r)
{
  if (!r)
    return;
  if (r->fd >= 0)
    tw_sys->close(r->fd);
  free(r->buf);
  free(r);
}
