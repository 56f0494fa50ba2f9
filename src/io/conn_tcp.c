/*
 * TCP, connecting to a target.
 *
 * Reconnect mode (tw_conn.reconnect): a board that resets takes its TCP
 * server down and brings it back. The end of the connection (close, reset,
 * a keepalive timeout) closes our socket and counts a disconnect; later
 * reads connect again to the address that worked at open. Each attempt is
 * a non-blocking connect whose wait is bounded by the read's timeout (so
 * the caller's loop keeps its pace: Ctrl-C, --duration, other sources), an
 * attempt still pending when the read's time is up goes on at the next
 * read, and failed attempts are paced by a backoff growing to 1 s so a
 * dead target costs a few system calls a second. A new connection adds
 * one to tw_conn.connects; the owner re-sends its start-up commands.
 *
 * Waiting at open (tw_conn_open_waiting(): the board is still off or being
 * flashed): the same machinery before the first connection. Every address
 * the name resolved to is tried once at open with a non-blocking connect
 * (up to 1 s for an answer, so a powered-off board behind a router does
 * not hold the open for the kernel's ~2 min of SYN retries); when they are
 * refused, unreachable or unanswered the connection is returned waiting
 * (connects 0), and reads go on trying the addresses in turn with the
 * backoff. The first address that answers becomes "the address that
 * worked" for later reconnects. Errors that say the target will never be
 * reachable this way (permission denied by a firewall rule, address family
 * not supported) stay errors.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

struct tcp_conn {
  struct tw_conn base;
  struct sockaddr_storage addr; /* the address that worked at open */
  socklen_t addrlen;
  int family, protocol;
  struct addrinfo *ais;         /* waiting for the first connection: every address */
  const struct addrinfo *next_ai; /* the one to try next */
  int last_errno;               /* the last failed attempt's */
  int cfd;                      /* a connect in progress, or -1 */
  unsigned long long cfd_since; /* when it started (monotonic ns) */
  struct tw__backoff backoff;
};

/* How long open waits for an answer to a first attempt (waiting mode). */
#define OPEN_ANSWER_MS 1000

/* An attempt still pending after this long is abandoned and retried: a
 * SYN to a board that is off would otherwise wait for the kernel's ~2 min. */
#define CONNECT_GIVE_UP_NS 3000000000ull

static void connected(struct tcp_conn *t, int fd)
{
  int one = 1;
  tw_sys->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  t->base.fd = fd;
  t->base.connects++;
  t->cfd = -1;
  tw__backoff_reset(&t->backoff);
  if (t->ais) { /* t->addr is the one that answered: keep it for reconnects */
    freeaddrinfo(t->ais);
    t->ais = NULL;
  }
}

static void attempt_failed(struct tcp_conn *t, const char *what)
{
  int e = errno;
  if (t->cfd >= 0)
    tw_sys->close(t->cfd);
  t->cfd = -1;
  t->last_errno = e;
  tw__backoff_failed(&t->backoff);
  if (!t->base.connects)
    snprintf(t->base.err, sizeof t->base.err,
             "%s: waiting for the target to appear: %s: %s (attempt %llu, next in %u ms)",
             t->base.name, what, strerror(e), t->backoff.failures, t->backoff.delay_ms);
  else
    snprintf(t->base.err, sizeof t->base.err,
             "%s: target gone since stream byte %llu; reconnecting: %s: %s (attempt %llu, next in %u ms)",
             t->base.name, t->base.disconnect_at, what, strerror(e), t->backoff.failures,
             t->backoff.delay_ms);
}

/* Before the first connection the resolved addresses are tried in turn
 * (a name may resolve to ::1 and 127.0.0.1, the target listening on one). */
static void pick_address(struct tcp_conn *t)
{
  if (!t->ais)
    return;
  const struct addrinfo *ai = t->next_ai;
  t->next_ai = ai->ai_next ? ai->ai_next : t->ais;
  memcpy(&t->addr, ai->ai_addr, ai->ai_addrlen);
  t->addrlen = ai->ai_addrlen;
  t->family = ai->ai_family;
  t->protocol = ai->ai_protocol;
}

static int start_connect(struct tcp_conn *t)
{
  pick_address(t);
  t->cfd = tw_sys->socket(t->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, t->protocol);
  if (t->cfd < 0) {
    attempt_failed(t, "socket");
    return TW_EAGAIN;
  }
  t->cfd_since = tw_sys_mono_ns();
  int rc;
  do
    rc = tw_sys->connect(t->cfd, (const struct sockaddr *)&t->addr, t->addrlen);
  while (rc != 0 && errno == EINTR);
  if (rc == 0) {
    connected(t, t->cfd);
    return 0;
  }
  if (errno != EINPROGRESS) {
    attempt_failed(t, "connect");
    return TW_EAGAIN;
  }
  return TW_EAGAIN; /* pending: finish_connect() waits for it */
}

static int finish_connect(struct tcp_conn *t, unsigned long long deadline)
{
  struct pollfd p = { .fd = t->cfd, .events = POLLOUT };
  int n = tw_sys->poll(&p, 1, tw__ms_left(deadline));
  if (n < 0 && errno != EINTR) {
    attempt_failed(t, "poll");
    return TW_EAGAIN;
  }
  if (n <= 0) {
    if (tw_sys_mono_ns() - t->cfd_since > CONNECT_GIVE_UP_NS) {
      errno = ETIMEDOUT;
      attempt_failed(t, "connect");
    }
    return TW_EAGAIN;
  }
  int soerr = 0;
  socklen_t len = sizeof soerr;
  int (*gso)(int, int, int, void *, socklen_t *) =
      tw_sys->iVersion >= 3 && tw_sys->getsockopt ? tw_sys->getsockopt : getsockopt;
  if (gso(t->cfd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
    soerr = errno;
  if (soerr) {
    errno = soerr;
    attempt_failed(t, "connect");
    return TW_EAGAIN;
  }
  connected(t, t->cfd);
  return 0;
}

/* Connect again, within the deadline: 0 when connected, else TW_EAGAIN. */
static int reconnect(struct tcp_conn *t, unsigned long long deadline)
{
  for (;;) {
    if (t->cfd < 0) {
      if (tw__backoff_wait(&t->backoff, deadline) < 0)
        return TW_EAGAIN;
      if (start_connect(t) == 0)
        return 0;
    }
    if (t->cfd >= 0 && finish_connect(t, deadline) == 0)
      return 0;
    if (deadline && tw_sys_mono_ns() >= deadline)
      return TW_EAGAIN;
  }
}

static int tcp_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct tcp_conn *t = (struct tcp_conn *)s;
  unsigned long long deadline = tw__deadline(timeout_ms);
  if (s->fd < 0 && reconnect(t, deadline) < 0)
    return TW_EAGAIN;
  int n = tw__fd_read(s, s->fd, buf, cap, timeout_ms < 0 ? -1 : tw__ms_left(deadline));
  if (s->reconnect && (n == TW_EOF || n == TW_ECONNRESET || n == TW_ETIMEDOUT)) {
    tw__conn_lost(s, n == TW_EOF ? "closed" : n == TW_ECONNRESET ? "reset" : "timed out",
                  "reconnecting");
    return TW_EAGAIN; /* nothing now; later reads connect again */
  }
  return n;
}

static int tcp_write(struct tw_conn *s, const void *buf, size_t n)
{
  if (s->fd < 0 && !s->connects) {
    snprintf(s->err, sizeof s->err, "%s: not connected (waiting for the target to appear)", s->name);
    return TW_ENOTCONN;
  }
  if (s->fd < 0) {
    snprintf(s->err, sizeof s->err, "%s: not connected (the target went away at stream byte %llu; "
             "reconnecting)", s->name, s->disconnect_at);
    return TW_ENOTCONN;
  }
  return tw__fd_write_all(s, s->fd, buf, n);
}

static void tcp_close(struct tw_conn *s)
{
  struct tcp_conn *t = (struct tcp_conn *)s;
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  if (t->cfd >= 0)
    tw_sys->close(t->cfd);
  if (t->ais)
    freeaddrinfo(t->ais);
  free(t);
}

static const struct tw_conn_ops tcp_ops = {
  .scheme = "tcp", .read = tcp_read, .write = tcp_write, .close = tcp_close,
};

/* Failures a target that is off, booting or being flashed gives. */
static int heals(int e)
{
  return e == ECONNREFUSED || e == ETIMEDOUT || e == EHOSTUNREACH || e == ENETUNREACH ||
         e == EHOSTDOWN || e == ENETDOWN || e == ECONNRESET || e == ECONNABORTED;
}

/* Waiting mode: one attempt at every address. 0 when one answered;
 * TW_EAGAIN when the target may still appear (s->err says why, without the
 * attempt count: "NAME: connect: Connection refused"); another TW_E* when
 * no attempt can heal. */
static int first_round(struct tcp_conn *t)
{
  struct tw_conn *s = &t->base;
  int healable = 0, e = 0;
  for (const struct addrinfo *ai = t->ais; ai; ai = ai->ai_next) {
    if (start_connect(t) == 0 ||
        (t->cfd >= 0 && finish_connect(t, tw__deadline(OPEN_ANSWER_MS)) == 0))
      return 0;
    if (t->cfd >= 0) { /* no answer yet: the next reads go on waiting for it */
      snprintf(s->err, sizeof s->err, "%s: connect: no answer within %d ms", s->name,
               OPEN_ANSWER_MS);
      return TW_EAGAIN;
    }
    healable |= heals(t->last_errno);
    if (!e || heals(t->last_errno))
      e = t->last_errno; /* the reason to give: a healable one if any */
  }
  errno = e;
  int rc = tw__conn_errno(s, "connect");
  return healable ? TW_EAGAIN : rc;
}

int tw_conn_tcp_connect(const char *host, const char *port, struct tw_conn **out,
                          char *err, size_t errcap)
{
  return tw__conn_tcp_connect(host, port, 0, out, err, errcap);
}

int tw__conn_tcp_connect(const char *host, const char *port, int wait, struct tw_conn **out,
                         char *err, size_t errcap)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
  int g = getaddrinfo(host, port, &hints, &res);
  if (g != 0) {
    snprintf(err, errcap, "tcp://%s:%s: %s", host, port, gai_strerror(g));
    return TW_ENOENT;
  }
  struct tcp_conn *t = calloc(1, sizeof *t);
  if (!t) {
    freeaddrinfo(res);
    return TW_ENOMEM;
  }
  struct tw_conn *s = &t->base;
  char name[256];
  snprintf(name, sizeof name, "tcp://%s:%s", host, port);
  tw__conn_init(s, &tcp_ops, name);
  t->cfd = -1;
  if (wait) {
    for (ai = res; ai; ai = ai->ai_next)
      if (ai->ai_addrlen > sizeof t->addr) {
        snprintf(err, errcap, "%s: address too long", name);
        freeaddrinfo(res);
        free(t);
        return TW_EINVAL;
      }
    t->ais = res;
    t->next_ai = res;
    s->connects = 0;
    s->reconnect = 1;
    int rc = first_round(t);
    if (rc < 0 && rc != TW_EAGAIN) {
      snprintf(err, errcap, "%s", s->err);
      tcp_close(s);
      return rc;
    }
    *out = s;
    return 0;
  }
  int rc = TW_ENOENT;
  for (ai = res; ai; ai = ai->ai_next) {
    int fd = tw_sys->socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      rc = tw__conn_errno(s, "socket");
      continue;
    }
    if (tw_sys->connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        ai->ai_addrlen <= sizeof t->addr) {
      int one = 1;
      tw_sys->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      s->fd = fd;
      memcpy(&t->addr, ai->ai_addr, ai->ai_addrlen);
      t->addrlen = ai->ai_addrlen;
      t->family = ai->ai_family;
      t->protocol = ai->ai_protocol;
      break;
    }
    rc = tw__conn_errno(s, "connect");
    tw_sys->close(fd);
  }
  freeaddrinfo(res);
  if (s->fd < 0) {
    snprintf(err, errcap, "%s", s->err);
    free(t);
    return rc;
  }
  *out = s;
  return 0;
}
