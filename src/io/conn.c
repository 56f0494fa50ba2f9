/* What every transport shares: the dispatch, error text with context, and
 * descriptor I/O through tw_sys with EINTR retried and timeouts via poll. */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

void tw__conn_init(struct tw_conn *s, const struct tw_conn_ops *ops, const char *name)
{
  s->ops = ops;
  s->fd = -1;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->err[0] = 0;
  s->nread = 0;
  s->connects = 1; /* tcp-listen sets 0: it has no target until one connects */
}

int tw_conn_connected(const struct tw_conn *s)
{
  return s->connects > s->disconnects;
}

int tw__conn_errno(struct tw_conn *s, const char *what)
{
  int e = errno;
  snprintf(s->err, sizeof s->err, "%s: %s: %s", s->name, what, strerror(e));
  switch (e) {
  case EAGAIN: return TW_EAGAIN;
  case ENOSPC: return TW_ENOSPC;
  case ECONNRESET: case EPIPE: return TW_ECONNRESET;
  case ENOTCONN: return TW_ENOTCONN;
  case ETIMEDOUT: return TW_ETIMEDOUT;
  case ENOENT: return TW_ENOENT;
  case ENOMEM: return TW_ENOMEM;
  case EIO: return TW_EIO;
  default: return TW_ESYS;
  }
}

int tw__fd_wait(struct tw_conn *s, int fd, short events, int timeout_ms)
{
  struct pollfd p = { .fd = fd, .events = events };
  for (;;) {
    int n = tw_sys->poll(&p, 1, timeout_ms);
    if (n > 0)
      return 0;
    if (n == 0)
      return TW_EAGAIN;
    if (errno != EINTR)
      return tw__conn_errno(s, "poll");
  }
}

int tw__fd_read(struct tw_conn *s, int fd, void *buf, size_t cap, int timeout_ms)
{
  if (cap > 0x40000000u)
    cap = 0x40000000u; /* the result must fit an int */
  for (;;) {
    if (timeout_ms >= 0) {
      int w = tw__fd_wait(s, fd, POLLIN, timeout_ms);
      if (w < 0)
        return w;
    }
    ssize_t n = tw_sys->read(fd, buf, cap);
    if (n > 0) {
      s->nread += (unsigned long long)n;
      return (int)n;
    }
    if (n == 0)
      return TW_EOF;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN && timeout_ms < 0) {
      /* a non-blocking descriptor (a TCP reconnection) with no timeout:
       * wait for it instead of spinning on read */
      int w = tw__fd_wait(s, fd, POLLIN, -1);
      if (w < 0)
        return w;
      continue;
    }
    if (errno == EAGAIN && timeout_ms != 0)
      continue; /* spurious wakeup: wait again */
    return tw__conn_errno(s, "read");
  }
}

int tw__fd_write_all(struct tw_conn *s, int fd, const void *buf, size_t n)
{
  const char *p = buf;
  while (n > 0) {
    ssize_t w = tw_sys->write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno == EAGAIN) {
      int r = tw__fd_wait(s, fd, POLLOUT, 1000);
      if (r < 0 && r != TW_EAGAIN)
        return r;
      continue;
    }
    if (w == 0)
      errno = EIO;
    return tw__conn_errno(s, "write");
  }
  return 0;
}

void tw__conn_lost(struct tw_conn *s, const char *why, const char *then)
{
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  s->fd = -1;
  s->disconnects++;
  s->disconnect_at = s->nread;
  snprintf(s->err, sizeof s->err, "%s: target disconnected at stream byte %llu (%s); %s", s->name,
           s->nread, why, then);
}

void tw__backoff_failed(struct tw__backoff *b)
{
  b->delay_ms = b->delay_ms ? b->delay_ms * 2 : 50;
  if (b->delay_ms > 1000)
    b->delay_ms = 1000;
  b->next_ns = tw_sys_mono_ns() + (unsigned long long)b->delay_ms * 1000000u;
  b->failures++;
}

void tw__backoff_reset(struct tw__backoff *b)
{
  b->next_ns = 0;
  b->delay_ms = 0;
  b->failures = 0;
}

unsigned long long tw__deadline(int timeout_ms)
{
  return timeout_ms < 0 ? 0 : tw_sys_mono_ns() + (unsigned long long)timeout_ms * 1000000u;
}

int tw__ms_left(unsigned long long deadline_ns)
{
  if (!deadline_ns)
    return -1;
  unsigned long long now = tw_sys_mono_ns();
  return now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999u) / 1000000u);
}

int tw__backoff_wait(const struct tw__backoff *b, unsigned long long deadline_ns)
{
  for (;;) {
    unsigned long long now = tw_sys_mono_ns();
    if (now >= b->next_ns)
      return 0;
    if (deadline_ns && now >= deadline_ns)
      return TW_EAGAIN;
    unsigned long long until = deadline_ns && deadline_ns < b->next_ns ? deadline_ns : b->next_ns;
    tw_sys->poll(NULL, 0, (int)((until - now + 999999u) / 1000000u)); /* a sleep */
  }
}

int tw_conn_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  return s->ops->read(s, buf, cap, timeout_ms);
}

int tw_conn_write(struct tw_conn *s, const void *buf, size_t n)
{
  if (!s->ops->write) {
    snprintf(s->err, sizeof s->err, "%s: cannot send to a %s source", s->name, s->ops->scheme);
    return TW_ENOTSUP;
  }
  return s->ops->write(s, buf, n);
}

void tw_conn_close(struct tw_conn *s)
{
  if (s)
    s->ops->close(s);
}

const char *tw_conn_error(const struct tw_conn *s)
{
  return s->err[0] ? s->err : "no error";
}

long long tw_conn_locate(struct tw_conn *s, unsigned long long off)
{
  return s->ops->locate ? s->ops->locate(s, off) : (long long)off;
}
