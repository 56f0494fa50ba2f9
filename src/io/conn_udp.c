/* UDP: each datagram is a run of stream bytes (the reader frames them, so a
 * datagram may hold several packets). Replies go to the last sender. */
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

struct udp_source {
  struct tw_conn base;
  struct sockaddr_storage peer;
  socklen_t peer_len;
};

/* Resolve addr:port (passive), create a socket of `type`, SO_REUSEADDR,
 * bind, and record the bound port. Returns the fd or a TW_E* code. */
int tw__bind_socket(struct tw_conn *s, const char *addr, const char *port, int type,
                    char *err, size_t errcap);
int tw__bind_socket(struct tw_conn *s, const char *addr, const char *port, int type,
                    char *err, size_t errcap)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = type, .ai_flags = AI_PASSIVE };
  struct addrinfo *res;
  int g = getaddrinfo(addr, port, &hints, &res);
  if (g != 0) {
    snprintf(err, errcap, "%s: %s", s->name, gai_strerror(g));
    return TW_ENOENT;
  }
  int fd = -1, rc = TW_ENOENT;
  for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = tw_sys->socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      rc = tw__conn_errno(s, "socket");
      continue;
    }
    int one = 1;
    tw_sys->setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (tw_sys->bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      rc = tw__conn_errno(s, "bind");
      tw_sys->close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) {
    snprintf(err, errcap, "%s", s->err);
    return rc;
  }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (tw_sys->getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
    s->bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                    : ((struct sockaddr_in *)&ss)->sin_port);
  return fd;
}

static int udp_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct udp_source *u = (struct udp_source *)s;
  if (cap > 0x40000000u)
    cap = 0x40000000u;
  for (;;) {
    int w = tw__fd_wait(s, s->fd, POLLIN, timeout_ms);
    if (w < 0)
      return w;
    u->peer_len = sizeof u->peer;
    ssize_t n = tw_sys->recvfrom(s->fd, buf, cap, 0, (struct sockaddr *)&u->peer, &u->peer_len);
    if (n > 0) {
      s->nread += (unsigned long long)n;
      return (int)n;
    }
    if (n == 0)
      continue; /* an empty datagram carries nothing */
    if (errno == EINTR || errno == EAGAIN)
      continue;
    return tw__conn_errno(s, "recvfrom");
  }
}

static int udp_write(struct tw_conn *s, const void *buf, size_t n)
{
  struct udp_source *u = (struct udp_source *)s;
  if (u->peer_len == 0) {
    snprintf(s->err, sizeof s->err, "%s: no datagram received yet, so no target address", s->name);
    return TW_ENOTCONN;
  }
  for (;;) {
    ssize_t w = tw_sys->sendto(s->fd, buf, n, 0, (struct sockaddr *)&u->peer, u->peer_len);
    if (w == (ssize_t)n)
      return 0;
    if (w < 0 && errno == EINTR)
      continue;
    if (w >= 0)
      errno = EMSGSIZE;
    return tw__conn_errno(s, "sendto");
  }
}

static void udp_close(struct tw_conn *s)
{
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  free(s);
}

static const struct tw_conn_ops udp_ops = {
  .scheme = "udp", .read = udp_read, .write = udp_write, .close = udp_close,
};

int tw_conn_udp_open(const char *addr, const char *port, int *bound_port,
                       struct tw_conn **out, char *err, size_t errcap)
{
  struct udp_source *u = calloc(1, sizeof *u);
  if (!u)
    return TW_ENOMEM;
  char name[256];
  snprintf(name, sizeof name, "udp://%s:%s", addr, port);
  tw__conn_init(&u->base, &udp_ops, name);
  int fd = tw__bind_socket(&u->base, addr, port, SOCK_DGRAM, err, errcap);
  if (fd < 0) {
    free(u);
    return fd;
  }
  /* a burst of datagrams must not overflow the default buffer */
  int sz = 4 << 20;
  tw_sys->setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  u->base.fd = fd;
  if (bound_port)
    *bound_port = u->base.bound_port;
  *out = &u->base;
  return 0;
}

int tw_conn_bound_port(const struct tw_conn *s) { return s->bound_port; }

int tw_conn_udp_set_peer(struct tw_conn *s, const char *host, const char *port, char *err,
                           size_t errcap)
{
  struct udp_source *u = (struct udp_source *)s;
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM }, *res;
  int g = getaddrinfo(host, port, &hints, &res);
  if (g != 0) {
    snprintf(err, errcap, "%s: target %s:%s: %s", s->name, host, port, gai_strerror(g));
    return TW_ENOENT;
  }
  memcpy(&u->peer, res->ai_addr, res->ai_addrlen);
  u->peer_len = res->ai_addrlen;
  freeaddrinfo(res);
  return 0;
}
