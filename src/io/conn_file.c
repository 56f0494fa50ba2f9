/* A file of raw packets (or anything readable: a FIFO, /dev/stdin), and
 * an open descriptor whose first bytes were already read to tell what it
 * holds (a stream cannot seek back): those bytes are delivered first. */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

#define PEEK_MAX 64

struct fd_conn {
  struct tw_conn base;
  uint8_t peek[PEEK_MAX];
  size_t npeek, used;
  int own; /* close the descriptor at close */
};

static int file_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct fd_conn *f = (struct fd_conn *)s;
  if (f->used < f->npeek) {
    size_t n = f->npeek - f->used < cap ? f->npeek - f->used : cap;
    memcpy(buf, f->peek + f->used, n);
    f->used += n;
    s->nread += n;
    return (int)n;
  }
  /* a regular file is always ready; a FIFO or a pipe may not be, and
   * record's loop needs its timeout back to check Ctrl-C and --duration */
  return tw__fd_read(s, s->fd, buf, cap, timeout_ms);
}

static void file_close(struct tw_conn *s)
{
  if (s->fd >= 0 && ((struct fd_conn *)s)->own)
    tw_sys->close(s->fd);
  free(s);
}

static const struct tw_conn_ops file_ops = {
  .scheme = "file", .read = file_read, .write = NULL, .close = file_close,
};

int tw_conn_file_open(const char *path, struct tw_conn **out, char *err, size_t errcap)
{
  struct fd_conn *f = calloc(1, sizeof *f);
  if (!f)
    return TW_ENOMEM;
  struct tw_conn *s = &f->base;
  tw__conn_init(s, &file_ops, path);
  f->own = strcmp(path, "-") != 0;
  s->fd = f->own ? tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0) : 0;
  if (s->fd < 0) {
    int rc = tw__conn_errno(s, "open");
    snprintf(err, errcap, "%s", s->err);
    free(f);
    return rc;
  }
  *out = s;
  return 0;
}

int tw_conn_fd_open(int fd, int own, const char *name, const void *peek, size_t npeek,
                    struct tw_conn **out)
{
  struct fd_conn *f = calloc(1, sizeof *f);
  if (!f || npeek > PEEK_MAX) {
    free(f);
    return f ? TW_EINVAL : TW_ENOMEM;
  }
  tw__conn_init(&f->base, &file_ops, name);
  f->base.fd = fd;
  f->own = own;
  if (npeek)
    memcpy(f->peek, peek, npeek);
  f->npeek = npeek;
  *out = &f->base;
  return 0;
}
