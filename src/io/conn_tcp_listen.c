/* TCP, waiting for a target to connect. Binds at open so the port is known
 * (and printed) before the target starts; accepts on the first read, with
 * the read's timeout. One connection at a time: a trace is one target's
 * stream; in reconnect mode the next read after a disconnect accepts the
 * target's next connection (tw_conn.connects counts them). */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

int tw__bind_socket(struct tw_conn *s, const char *addr, const char *port, int type,
                    char *err, size_t errcap);

struct listen_source {
  struct tw_conn base;
  int lfd;
};

static int do_accept(struct listen_source *l, int timeout_ms)
{
  int w = tw__fd_wait(&l->base, l->lfd, POLLIN, timeout_ms);
  if (w < 0)
    return w;
  int fd;
  do
    fd = tw_sys->accept(l->lfd, NULL, NULL);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return tw__conn_errno(&l->base, "accept");
  l->base.fd = fd;
  l->base.connects++;
  return 0;
}

static int listen_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct listen_source *l = (struct listen_source *)s;
  if (s->fd < 0) {
    int rc = do_accept(l, timeout_ms);
    if (rc < 0)
      return rc;
  }
  int n = tw__fd_read(s, s->fd, buf, cap, timeout_ms);
  if (s->reconnect && (n == TW_EOF || n == TW_ECONNRESET)) {
    tw__conn_lost(s, n == TW_EOF ? "closed" : "reset", "waiting for it to reconnect");
    return TW_EAGAIN; /* nothing now; the next read accepts */
  }
  return n;
}

static int listen_write(struct tw_conn *s, const void *buf, size_t n)
{
  if (s->fd < 0) {
    /* a command before any data: wait a little for the target to connect */
    int rc = do_accept((struct listen_source *)s, 1000);
    if (rc < 0) {
      snprintf(s->err, sizeof s->err, "%s: no target connected yet", s->name);
      return rc == TW_EAGAIN ? TW_ENOTCONN : rc;
    }
  }
  return tw__fd_write_all(s, s->fd, buf, n);
}

static void listen_close(struct tw_conn *s)
{
  struct listen_source *l = (struct listen_source *)s;
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  if (l->lfd >= 0)
    tw_sys->close(l->lfd);
  free(l);
}

static const struct tw_conn_ops listen_ops = {
  .scheme = "tcp-listen", .read = listen_read, .write = listen_write, .close = listen_close,
};

int tw_conn_tcp_listen(const char *addr, const char *port, int *bound_port,
                         struct tw_conn **out, char *err, size_t errcap)
{
  struct listen_source *l = calloc(1, sizeof *l);
  if (!l)
    return TW_ENOMEM;
  char name[256];
  snprintf(name, sizeof name, "tcp-listen://%s:%s", addr, port);
  tw__conn_init(&l->base, &listen_ops, name);
  l->base.connects = 0; /* no target until one connects */
  l->lfd = tw__bind_socket(&l->base, addr, port, SOCK_STREAM, err, errcap);
  if (l->lfd < 0) {
    int rc = l->lfd;
    free(l);
    return rc;
  }
  /* a backlog of a few: a target that reconnects while its previous
   * connection is still being drained must not have its SYN dropped
   * (the kernel would retry only after a second) */
  if (tw_sys->listen(l->lfd, 4) != 0) {
    int rc = tw__conn_errno(&l->base, "listen");
    snprintf(err, errcap, "%s", l->base.err);
    tw_sys->close(l->lfd);
    free(l);
    return rc;
  }
  if (bound_port)
    *bound_port = l->base.bound_port;
  *out = &l->base;
  return 0;
}
