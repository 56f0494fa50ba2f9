/*
 * Opening a recorded trace for reading (tracewire/trace/input.h): a .twt
 * with one or several sources, or a raw packet file; each source framed
 * and decoded on its own, read furthest-behind-first so a merge holds
 * little; a time window served from the .twt time index. Every tools/
 * command reads traces through here, and so can any program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracewire/trace/input.h"
#include "tracewire/io/sys.h"
#include "tracewire/twt/conn_twt.h"
#include "tracewire/wire/merge.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/twt/twt_index.h"
#include "tracewire/error.h"
#include "tracewire/model/mti_host.h"

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("tracewire: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void tw_input_diag(void *ctx, const struct tw_diag *g)
{
  struct tw_input_src *src = ctx;
  struct tw_input *t = src->t;
  unsigned long long damage_before = t->damage;
  t->diags++;
  switch (g->kind) {
  case TW_DIAG_SKIP: case TW_DIAG_BAD_RECORD: case TW_DIAG_SNAPSHOT: case TW_DIAG_BAD_DECL:
  case TW_DIAG_CHECK:
    t->damage++;
    break;
  case TW_DIAG_RING_DROPS:
    return; /* DROPS records are events: print shows them, stats sums them */
  default:
    break;
  }
  if (t->quiet)
    return;
  t->damage_said += t->damage != damage_before;
  long long foff = tw_conn_locate(src->conn, g->offset);
  fprintf(stderr, "tracewire: %s", t->path);
  if (t->nsrc > 1)
    fprintf(stderr, " source %d (%s)", src->id, src->uri);
  if (g->kind == TW_DIAG_SKIP)
    fprintf(stderr, ": offset %llu", g->offset);
  else
    fprintf(stderr, ": packet %llu at offset %llu", g->packet, g->offset);
  if (t->is_twt && foff >= 0)
    fprintf(stderr, " (file offset %lld)", foff);
  if (g->stream >= 0)
    fprintf(stderr, ", stream %04x/%u", g->endpoint, g->instance);
  fprintf(stderr, ": %s\n", g->msg);
}

static void on_chunk(void *ctx, const struct tw_twt_chunk *c, int err, const char *msg)
{
  struct tw_input_src *src = ctx;
  struct tw_input *t = src->t;
  int first = src == &t->src[0]; /* whole-file events are reported once */
  if (!c) {
    if (first) {
      t->truncated |= err == TW_ETRUNC;
      t->damage++;
      t->damage_said++;
      fprintf(stderr, "tracewire: %s (%s)\n", msg, tw_err_name(err));
    }
    return;
  }
  if (c->type == TW_TWT_END && first)
    t->have_end = 1;
  if (src->id >= 0 && c->source != src->id)
    return;
  switch (c->type) {
  case TW_TWT_SOURCE:
    if (!src->uri[0])
      snprintf(src->uri, sizeof src->uri, "%.*s", (int)c->len, (const char *)c->data);
    break;
  case TW_TWT_FRAMING: /* before the source's data: the reader has read none */
    if (c->len >= 4 && (tw_load_le32(c->data) & TW_TWT_FRAMING_FOOTERLESS))
      tw_reader_set_footerless(src->r);
    break;
  case TW_TWT_INFO:
    if (c->len >= 4 * TW_INFO_WORDS) {
      for (unsigned i = 0; i < TW_INFO_WORDS; i++)
        src->info[i] = tw_load_be32(c->data + 4 * i);
      src->have_info = 1;
      tw_decoder_set_freq(src->d, (uint16_t)src->info[TW_INFO_ENDPOINT], src->info[TW_INFO_TS_FREQ_HZ]);
    }
    break;
  default:
    break;
  }
}

/* The source ids of a .twt: its leading SOURCE chunks (record writes them
 * all first). None: one stream of every DATA chunk. */
static int discover(struct tw_input *t)
{
  char err[512];
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  if (tw_twt_open(t->open_path, &r, err, sizeof err) < 0) {
    say("%s", err);
    return -1;
  }
  tw_twt_reader_name(r, t->path);
  int rc;
  /* a damaged chunk header among them is passed over, as every reader of
   * the file does, and so is the file's own bookkeeping (INDEX, TOC, END,
   * which `index` drops and writes anew): a rewritten file has the same
   * sources (fuzz_index found an END among them in a damaged file) */
  while ((rc = tw_twt_next(r, &c)) == 1 || rc == TW_EBADMSG) {
    if (rc == TW_EBADMSG || c.type == TW_TWT_INDEX || c.type == TW_TWT_TOC ||
        c.type == TW_TWT_END)
      continue;
    if (c.type != TW_TWT_SOURCE || t->nsrc == TW_INPUT_MAX_SOURCES)
      break;
    int seen = 0;
    for (size_t i = 0; i < t->nsrc; i++)
      seen |= t->src[i].id == c.source;
    if (!seen) {
      /* kept here too: a reader that seeks past the SOURCE chunks */
      snprintf(t->src[t->nsrc].uri, sizeof t->src[t->nsrc].uri, "%.*s", (int)c.len,
               (const char *)c.data);
      t->src[t->nsrc++].id = c.source;
    }
  }
  tw_twt_close_reader(r);
  if (t->nsrc <= 1) {
    t->nsrc = 1;
    t->src[0].id = -1;
  }
  return 0;
}

static int src_event(void *ctx, const struct tw_event *ev)
{
  struct tw_input_src *src = ctx;
  struct tw_input *t = src->t;
  src->last_ns = ev->time_ns;
  if (t->nsrc == 1)
    return t->on_event ? t->on_event(t->ev_ctx, ev) : 0;
  struct tw_event e = *ev;
  e.stream = (uint16_t)((size_t)(src - t->src) * TW_INPUT_STREAMS + ev->stream);
  return t->on_event ? t->on_event(t->ev_ctx, &e) : 0;
}

/* ---- what a file holds: by content ------------------------------------------ */

/* Streams a command made re-readable (tw_input_spool()), by the name given. */
#define SPOOLS 4
static struct spool {
  char key[256];
  int fd, refs;
  char path[64];
} spools[SPOOLS];

static struct spool *spool_of(const char *path)
{
  for (int i = 0; i < SPOOLS; i++)
    if (spools[i].path[0] && !strcmp(spools[i].key, path))
      return &spools[i];
  return NULL;
}

/* An unlinked temporary file (nothing is left behind, whatever happens)
 * and a path that opens it again with an offset of its own. */
static int tmp_file(char *path, size_t cap)
{
  const char *dir = getenv("TMPDIR");
  char tmpl[512];
  if (!dir || !*dir)
    dir = "/tmp";
  int fd = tw_sys->open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) { /* a file system without O_TMPFILE */
    snprintf(tmpl, sizeof tmpl, "%s/tracewire-XXXXXX", dir);
    if ((fd = mkstemp(tmpl)) >= 0)
      tw_file_unlink(tmpl);
  }
  if (fd >= 0)
    snprintf(path, cap, "/proc/self/fd/%d", fd);
  return fd;
}

/* peek[0..n) then the rest of in, into a new temporary file: its fd, or -1
 * (said). */
static int copy_stream(const char *name, int in, const uint8_t *peek, size_t n, char *path,
                       size_t cap)
{
  enum { BUF = 1 << 16 };
  uint8_t *buf = malloc(BUF);
  int out = buf ? tmp_file(path, cap) : -1;
  if (out < 0) {
    say("%s: cannot make a temporary copy to read it from (TMPDIR): %s", name,
        buf ? strerror(errno) : "out of memory");
    free(buf);
    return -1;
  }
  const uint8_t *p = peek;
  for (ssize_t k = (ssize_t)n;;) {
    while (k > 0) {
      ssize_t w = tw_sys->write(out, p, (size_t)k);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        say("%s: copying it to a temporary file: %s", name, w < 0 ? strerror(errno) : "short write");
        tw_sys->close(out);
        free(buf);
        return -1;
      }
      p += w;
      k -= w;
    }
    k = tw_sys->read(in, buf, BUF);
    if (k < 0 && errno == EINTR) {
      k = 0;
      continue;
    }
    if (k <= 0) {
      if (k < 0) {
        say("%s: read: %s", name, strerror(errno));
        tw_sys->close(out);
        out = -1;
      }
      free(buf);
      return out;
    }
    p = buf;
  }
}

/* Up to n bytes, fewer only at the end of the stream; -1 on an error. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n)
{
  size_t got = 0;
  while (got < n) {
    ssize_t k = tw_sys->read(fd, buf + got, n - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return -1;
    if (k == 0)
      break;
    got += (size_t)k;
  }
  return (ssize_t)got;
}

static int is_twt_magic(const uint8_t *m, size_t n)
{
  return n >= 8 && memcmp(m, TW_TWT_MAGIC, 8) == 0;
}

/* Open path as a stream: 1 and *fd + peek for raw packets, 0 for a .twt
 * (copied to t->copy_fd first), -1 said. */
static int open_stream(struct tw_input *t, int *fd, uint8_t peek[8], size_t *npeek)
{
  const char *path = t->path;
  int in = strcmp(path, "-") ? tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0) : 0;
  if (in < 0) {
    say("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  ssize_t n = read_full(in, peek, 8);
  if (n < 0) {
    say("%s: read: %s", path, strerror(errno));
    if (in)
      tw_sys->close(in);
    return -1;
  }
  *npeek = (size_t)n;
  if (!is_twt_magic(peek, *npeek)) {
    *fd = in;
    return 1;
  }
  t->copy_fd = copy_stream(path, in, peek, *npeek, t->copy_path, sizeof t->copy_path);
  if (in)
    tw_sys->close(in);
  if (t->copy_fd < 0)
    return -1;
  t->open_path = t->copy_path;
  return 0;
}

static int sys_stat(const char *path, struct stat *st)
{
  return tw_sys->iVersion >= 4 && tw_sys->stat ? tw_sys->stat(path, st) : stat(path, st);
}

/* What kind of file: 1 re-readable, 0 a stream, -1 refused (said). */
static int file_kind(const char *path)
{
  struct stat st;
  if (!strcmp(path, "-"))
    return 0; /* read as it comes, whatever it is */
  if (sys_stat(path, &st) != 0) {
    say("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    say("%s: is a directory, not a trace", path);
    return -1;
  }
  if (S_ISCHR(st.st_mode)) {
    int fd = tw_sys->open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
    int tty = fd >= 0 && isatty(fd);
    if (fd >= 0)
      tw_sys->close(fd);
    if (!tty) {
      say("%s: is a device, not a trace file (a target on a serial line: tracewire record "
          "--from serial://%s)", path, path);
      return -1;
    }
    return 0;
  }
  return S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
}

int tw_input_spool(const char *path)
{
  struct spool *have = spool_of(path);
  if (have) {
    have->refs++;
    return 0;
  }
  int kind = file_kind(path);
  if (kind != 0)
    return kind < 0 ? TW_INPUT_REPORTED : 0;
  struct spool *sp = NULL;
  for (int i = 0; i < SPOOLS && !sp; i++)
    if (!spools[i].path[0])
      sp = &spools[i];
  if (!sp || strlen(path) >= sizeof sp->key) {
    say("%s: too many streams to copy", path);
    return TW_INPUT_REPORTED;
  }
  int in = strcmp(path, "-") ? tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0) : 0;
  if (in < 0) {
    say("%s: cannot open: %s", path, strerror(errno));
    return TW_INPUT_REPORTED;
  }
  sp->fd = copy_stream(path, in, NULL, 0, sp->path, sizeof sp->path);
  if (in)
    tw_sys->close(in);
  if (sp->fd < 0) {
    sp->path[0] = 0;
    return TW_INPUT_REPORTED;
  }
  snprintf(sp->key, sizeof sp->key, "%s", path);
  sp->refs = 1;
  return 0;
}

void tw_input_unspool(const char *path)
{
  struct spool *sp = spool_of(path);
  if (sp && --sp->refs == 0) {
    tw_sys->close(sp->fd);
    sp->path[0] = 0;
  }
}

int tw_input_open(struct tw_input *t, const char *path)
{
  char err[512];
  uint8_t peek[8];
  size_t npeek = 0;
  int raw_fd = -1;
  memset(t, 0, sizeof *t);
  t->path = t->open_path = path;
  t->copy_fd = -1;
  struct spool *sp = spool_of(path);
  int kind = sp ? 1 : file_kind(path);
  if (kind < 0)
    return TW_INPUT_REPORTED;
  tw_file_guard(path, &t->guard); /* no writer of this process may write over it */
  if (sp) {
    t->open_path = sp->path;
  } else if (kind == 0) {
    int r = open_stream(t, &raw_fd, peek, &npeek);
    if (r < 0)
      return TW_INPUT_REPORTED;
  }
  int twt = raw_fd >= 0 ? 0 : tw_twt_probe(t->open_path);
  if (twt < 0) {
    say("%s: cannot open: %s", path, tw_strerror(twt));
    return TW_INPUT_REPORTED;
  }
  t->is_twt = twt;
  if (twt) {
    if (discover(t) < 0)
      return TW_INPUT_REPORTED;
  } else {
    t->nsrc = 1;
    t->src[0].id = -1;
  }
  struct stat st;
  if (raw_fd < 0 && sys_stat(t->open_path, &st) == 0 && S_ISREG(st.st_mode))
    t->total_bytes = (unsigned long long)st.st_size * t->nsrc; /* each source reads the file */
  struct tw_decoder_cfg dcfg = { .max_streams = TW_INPUT_STREAMS };
  for (size_t i = 0; i < t->nsrc; i++) {
    struct tw_input_src *s = &t->src[i];
    s->t = t;
    int rc = twt ? tw_conn_twt_open(t->open_path, s->id, &s->conn, err, sizeof err)
         : raw_fd >= 0 ? tw_conn_fd_open(raw_fd, strcmp(path, "-") != 0, path, peek, npeek, &s->conn)
                       : tw_conn_file_open(t->open_path, &s->conn, err, sizeof err);
    if (rc < 0) {
      if (raw_fd >= 0)
        snprintf(err, sizeof err, "%s: %s", path, tw_strerror(rc));
      say("%s", err);
      return TW_INPUT_REPORTED;
    }
    raw_fd = -1; /* the connection owns it */
    if (twt && t->open_path != path)
      tw_conn_twt_name(s->conn, path);
    if (tw_reader_open(&s->r, s->conn, NULL) < 0 || tw_decoder_open(&s->d, &dcfg) < 0) {
      say("%s: out of memory", path);
      return TW_INPUT_REPORTED;
    }
    tw_decoder_on_diag(s->d, tw_input_diag, s);
    tw_decoder_on_event(s->d, src_event, s);
    if (twt)
      tw_conn_twt_on_chunk(s->conn, on_chunk, s);
  }
  t->d = t->src[0].d;
  return 0;
}

/* Time window: see input.h. Every offset is checked (twt_index.c) before
 * anything moves; the decoder checkpoint last, per source, and a source
 * whose checkpoint does not restore is read from the start. */
static int seek_source(struct tw_input *t, struct tw_twt_index *ix, size_t i, long long from,
                        long long to, char *err, size_t errcap)
{
  struct tw_twt_resume at[TW_TWT_INDEX_SOURCES], stop[TW_TWT_INDEX_SOURCES];
  struct tw_input_src *s = &t->src[i];
  long k = from > 0 ? tw_twt_index_start(ix, i, (uint64_t)from) : -1;
  long j = to >= 0 ? tw_twt_index_stop(ix, i, (uint64_t)to) : -1;
  int rc;
  if (j >= 0) {
    if ((rc = tw_twt_index_point(ix, j, stop, err, errcap)) < 0)
      return rc;
  }
  if (k >= 0) {
    if ((rc = tw_twt_index_point(ix, k, at, err, errcap)) < 0)
      return rc;
    if (tw_decoder_restore(s->d, at[i].state, at[i].state_len) < 0) {
      snprintf(err, errcap, "%s: index: decoder state of source %d at point %ld does not restore",
               t->path, s->id, k);
      return TW_EBADMSG;
    }
    if ((rc = tw_conn_twt_seek(s->conn, at[i].foff, at[i].soff, at[i].resume)) < 0 ||
        (rc = tw_reader_resume(s->r, at[i].resume, at[i].packets, at[i].in_sync)) < 0) {
      snprintf(err, errcap, "%s", tw_conn_error(s->conn));
      return rc; /* not recoverable: the source moved */
    }
    s->last_ns = at[i].last_ns;
  }
  if (j >= 0) {
    tw_conn_twt_limit(s->conn, stop[i].resume);
    if (stop[i].in_sync & 2) /* footer-less there (tw_reader_resume_point) */
      tw_reader_set_edge_footerless(s->r);
  }
  return 0;
}

int tw_input_window(struct tw_input *t, long long from, long long to)
{
  char why[512] = "";
  struct tw_twt_index *ix;
  if (!t->is_twt || (from <= 0 && to < 0))
    return 0;
  int rc = tw_twt_index_load(t->open_path, &ix, why, sizeof why);
  if (rc == 0)
    return 0;
  if (rc > 0) {
    if (tw_twt_index_nsources(ix) != t->nsrc)
      rc = TW_EBADMSG;
    for (size_t i = 0; rc > 0 && i < t->nsrc; i++)
      if (tw_twt_index_source(ix, i) != t->src[i].id)
        rc = TW_EBADMSG;
    if (rc < 0)
      snprintf(why, sizeof why, "%s: index: its sources are not the file's", t->path);
    for (size_t i = 0; rc > 0 && i < t->nsrc; i++)
      if (tw_twt_index_backwards(ix, i)) {
        /* the merge would see other neighbours than in a full read */
        snprintf(why, sizeof why, "%s: index not used: event times of source %d go backwards",
                 t->path, t->src[i].id);
        rc = TW_ENOTSUP;
      }
    for (size_t i = 0; rc > 0 && i < t->nsrc; i++) {
      int r = seek_source(t, ix, i, from, to, why, sizeof why);
      if (r < 0 && t->src[i].conn->nread) {
        say("%s", why);
        tw_twt_index_free(ix);
        return TW_INPUT_REPORTED;
      }
      if (r < 0)
        rc = r;
    }
    t->index_bytes = tw_twt_index_bytes_read(ix);
    tw_twt_index_free(ix);
  }
  if (rc < 0) {
    /* sources already moved stay so: each one is decoded on its own */
    fprintf(stderr, "tracewire: %s; reading the whole file instead\n", why);
    return 0;
  }
  t->indexed = 1;
  return 0;
}

long tw_input_index_points(const struct tw_input *t, char *why, size_t whycap)
{
  struct tw_twt_index *ix;
  if (!t->is_twt)
    return 0;
  int rc = tw_twt_index_load(t->open_path, &ix, why, whycap);
  if (rc <= 0)
    return rc;
  long n = (long)tw_twt_index_npoints(ix);
  tw_twt_index_free(ix);
  return n;
}

unsigned long long tw_input_bytes_read(const struct tw_input *t)
{
  unsigned long long n = t->index_bytes;
  for (size_t i = 0; t->is_twt && i < t->nsrc; i++)
    n += tw_conn_twt_bytes_read(t->src[i].conn);
  return n;
}

static void skip_cb(void *ctx, const struct tw_skip *skip) { tw_decoder_skip(((struct tw_input_src *)ctx)->d, skip); }

/* Bytes read so far, for progress: file bytes (every source of a .twt
 * reads the file), or stream bytes. */
static unsigned long long done_bytes(const struct tw_input *t)
{
  unsigned long long n = 0;
  for (size_t i = 0; i < t->nsrc; i++)
    n += t->is_twt ? tw_conn_twt_bytes_read(t->src[i].conn) : t->src[i].conn->nread;
  return n;
}

/* Every 1024 packets: is it time to say how far we are (every 250 ms)? */
static void progress(struct tw_input *t, unsigned long long *npkt, int end)
{
  if (!t->on_progress || (!end && (++*npkt & 1023)))
    return;
  unsigned long long now = tw_sys_mono_ns();
  if (!end && now - t->progress_at < 250000000u)
    return;
  t->progress_at = now;
  unsigned long long done = done_bytes(t);
  t->on_progress(t->progress_ctx, end && t->total_bytes ? t->total_bytes : done, t->total_bytes);
}

static int run_one(struct tw_input *t)
{
  struct tw_input_src *s = &t->src[0];
  struct tw_pkt pkt;
  unsigned long long npkt = 0;
  tw_reader_on_skip(s->r, skip_cb, s);
  t->progress_at = tw_sys_mono_ns();
  for (;;) {
    int n = tw_reader_next(s->r, &pkt, -1);
    if (n == TW_EOF)
      break;
    if (n < 0) {
      say("%s: %s", t->path, tw_conn_error(s->conn));
      return TW_INPUT_REPORTED;
    }
    int rc = tw_decoder_packet(s->d, &pkt, tw_reader_pkt_offset(s->r), tw_reader_pkt_number(s->r));
    if (rc)
      return rc;
    progress(t, &npkt, 0);
  }
  progress(t, &npkt, 1);
  return 0;
}

int tw_input_run(struct tw_input *t)
{
  unsigned long long npkt = 0;
  if (t->nsrc == 1)
    return run_one(t);
  for (size_t i = 0; i < t->nsrc; i++)
    tw_reader_on_skip(t->src[i].r, skip_cb, &t->src[i]);
  t->progress_at = tw_sys_mono_ns();
  for (;;) {
    /* the source furthest behind in time reads next: the merge then only
     * has to hold what one packet can put out of order */
    struct tw_input_src *next = NULL;
    for (size_t i = 0; i < t->nsrc; i++)
      if (!t->src[i].done && (!next || t->src[i].last_ns < next->last_ns))
        next = &t->src[i];
    if (!next) {
      progress(t, &npkt, 1);
      return 0;
    }
    progress(t, &npkt, 0);
    struct tw_pkt pkt;
    int n = tw_reader_next(next->r, &pkt, -1);
    if (n == TW_EOF) {
      next->done = 1;
      continue;
    }
    if (n < 0) {
      say("%s: %s", t->path, tw_conn_error(next->conn));
      return TW_INPUT_REPORTED;
    }
    int rc = tw_decoder_packet(next->d, &pkt, tw_reader_pkt_offset(next->r),
                               tw_reader_pkt_number(next->r));
    if (rc)
      return rc;
  }
}

void tw_input_close(struct tw_input *t)
{
  for (size_t i = 0; i < t->nsrc; i++) {
    tw_decoder_close(t->src[i].d);
    tw_reader_close(t->src[i].r);
    tw_conn_close(t->src[i].conn);
    t->src[i].d = NULL;
    t->src[i].r = NULL;
    t->src[i].conn = NULL;
  }
  if (t->copy_path[0] && t->copy_fd >= 0)
    tw_sys->close(t->copy_fd);
  t->copy_path[0] = 0;
  t->copy_fd = -1;
  tw_file_unguard(&t->guard);
}

int tw_input_feed(struct tw_input *t, struct tw_mti_system *sys, size_t window, int merged,
                  tw_event_fn feed, void *ctx)
{
  struct tw_merge *m = NULL;
  int mrc = merged ? tw_merge_open(&m, window, feed, ctx) : 0;
  if (mrc < 0)
    return mrc;
  t->on_event = m ? tw_merge_push : feed;
  t->ev_ctx = m ? (void *)m : ctx;
  tw_mti_system_start(sys);
  int rc = tw_input_run(t);
  if (rc == 0 && m)
    rc = tw_merge_flush(m);
  tw_mti_system_stop(sys);
  tw_merge_close(m);
  return rc;
}
