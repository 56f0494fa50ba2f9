/* A file of raw packets (or anything readable: a FIFO, /dev/stdin). */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

static int file_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  (void)timeout_ms; /* regular files never block */
  return tw__fd_read(s, s->fd, buf, cap, -1);
}

static void file_close(struct tw_conn *s)
{
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  free(s);
}

static const struct tw_conn_ops file_ops = {
  .scheme = "file", .read = file_read, .write = NULL, .close = file_close,
};

int tw_conn_file_open(const char *path, struct tw_conn **out, char *err, size_t errcap)
{
  struct tw_conn *s = calloc(1, sizeof *s);
  if (!s)
    return TW_ENOMEM;
  tw__conn_init(s, &file_ops, path);
  s->fd = strcmp(path, "-") == 0 ? 0 : tw_sys->open(path, O_RDONLY | O_CLOEXEC, 0);
  if (s->fd < 0) {
    int rc = tw__conn_errno(s, "open");
    snprintf(err, errcap, "%s", s->err);
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}
