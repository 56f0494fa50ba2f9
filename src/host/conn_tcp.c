/* TCP, connecting to a target. */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/host/conn.h"
#include "tracewire/host/sys.h"
#include "tracewire/error.h"

static int tcp_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  return tw__fd_read(s, s->fd, buf, cap, timeout_ms);
}

static int tcp_write(struct tw_conn *s, const void *buf, size_t n)
{
  return tw__fd_write_all(s, s->fd, buf, n);
}

static void tcp_close(struct tw_conn *s)
{
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  free(s);
}

static const struct tw_conn_ops tcp_ops = {
  .scheme = "tcp", .read = tcp_read, .write = tcp_write, .close = tcp_close,
};

/* Shared with source_tcp_listen.c: the accepted connection uses these ops. */
const struct tw_conn_ops *tw__tcp_ops(void);
const struct tw_conn_ops *tw__tcp_ops(void) { return &tcp_ops; }

int tw_conn_tcp_connect(const char *host, const char *port, struct tw_conn **out,
                          char *err, size_t errcap)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
  int g = getaddrinfo(host, port, &hints, &res);
  if (g != 0) {
    snprintf(err, errcap, "tcp://%s:%s: %s", host, port, gai_strerror(g));
    return TW_ENOENT;
  }
  struct tw_conn *s = calloc(1, sizeof *s);
  if (!s) {
    freeaddrinfo(res);
    return TW_ENOMEM;
  }
  char name[256];
  snprintf(name, sizeof name, "tcp://%s:%s", host, port);
  tw__conn_init(s, &tcp_ops, name);
  int rc = TW_ENOENT;
  for (ai = res; ai; ai = ai->ai_next) {
    int fd = tw_sys->socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      rc = tw__conn_errno(s, "socket");
      continue;
    }
    if (tw_sys->connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      int one = 1;
      tw_sys->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      s->fd = fd;
      break;
    }
    rc = tw__conn_errno(s, "connect");
    tw_sys->close(fd);
  }
  freeaddrinfo(res);
  if (s->fd < 0) {
    snprintf(err, errcap, "%s", s->err);
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}
