/* A serial device: raw mode, 8 data bits, no parity, 1 stop bit, no flow
 * control, the given baud rate. A pty accepts the same settings, which is
 * how the tests drive it.
 *
 * Reconnect mode (tw_conn.reconnect): a USB-serial adapter on a board that
 * resets disappears (reads fail with EIO, ENXIO or ENODEV, or return end of
 * input) and re-enumerates under the same path a moment later. The device
 * is closed, the disconnect counted, and later reads open the same path
 * again (settings re-applied), paced by the backoff while it does not
 * exist; each successful re-open adds one to tw_conn.connects.
 *
 * Waiting at open (tw_conn_open_waiting(): the board is not plugged in or
 * powered yet): a device node that does not exist (ENOENT) or has no
 * device behind it (ENODEV, ENXIO) is waited for the same way, connects 0
 * until it opens. Anything else at open stays an error: permission denied
 * will not heal by waiting, nor will a path that is not a tty. (Once
 * waiting, every failed open is retried: a node that udev has just created
 * may be root-only for a moment.) */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

struct serial_conn {
  struct tw_conn base;
  char path[256];
  speed_t code;
  struct tw__backoff backoff;
  int open_errno; /* the last open(2) failure, 0 if open worked */
};

/* Open and configure the device; the descriptor, or a TW_E* with s->err set. */
static int open_tty(struct serial_conn *c)
{
  struct tw_conn *s = &c->base;
  int fd = tw_sys->open(c->path, O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
  c->open_errno = fd < 0 ? errno : 0;
  if (fd < 0)
    return tw__conn_errno(s, "open");
  struct termios t;
  int rc = 0;
  if (tw_sys->tcgetattr(fd, &t) != 0)
    rc = tw__conn_errno(s, "tcgetattr");
  else {
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, c->code);
    cfsetospeed(&t, c->code);
    if (tw_sys->tcsetattr(fd, TCSANOW, &t) != 0)
      rc = tw__conn_errno(s, "tcsetattr");
  }
  if (rc < 0) {
    tw_sys->close(fd);
    return rc;
  }
  return fd;
}

/* Reconnect mode: the device is gone (a USB-serial adapter that
 * re-enumerates after the board resets): open it again, paced by the
 * backoff, until it is back or the read's time is up. */
static int reopen(struct serial_conn *c, unsigned long long deadline)
{
  for (;;) {
    if (tw__backoff_wait(&c->backoff, deadline) < 0)
      return TW_EAGAIN;
    int fd = open_tty(c);
    if (fd >= 0) {
      c->base.fd = fd;
      c->base.connects++;
      tw__backoff_reset(&c->backoff);
      return 0;
    }
    tw__backoff_failed(&c->backoff);
    char why[256], since[64];
    snprintf(why, sizeof why, "%s", c->base.err);
    if (c->base.connects)
      snprintf(since, sizeof since, "device gone since stream byte %llu", c->base.disconnect_at);
    else
      snprintf(since, sizeof since, "waiting for the device to appear");
    snprintf(c->base.err, sizeof c->base.err, "%s (%s; attempt %llu, next in %u ms)", why, since,
             c->backoff.failures, c->backoff.delay_ms);
    if (deadline && tw_sys_mono_ns() >= deadline)
      return TW_EAGAIN;
  }
}

static int serial_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct serial_conn *c = (struct serial_conn *)s;
  unsigned long long deadline = tw__deadline(timeout_ms);
  if (s->fd < 0 && reopen(c, deadline) < 0)
    return TW_EAGAIN;
  errno = 0;
  int n = tw__fd_read(s, s->fd, buf, cap, timeout_ms < 0 ? -1 : tw__ms_left(deadline));
  int e = errno;
  /* a pty whose other side closed, or a device unplugged, reports EIO
   * (ENXIO, ENODEV for some drivers): that is the end of input, or in
   * reconnect mode a device to open again */
  int gone = n == TW_EOF || n == TW_EIO || (n == TW_ESYS && (e == ENXIO || e == ENODEV));
  if (gone && s->reconnect) {
    tw__conn_lost(s, n == TW_EOF ? "end of input" : strerror(e), "re-opening the device");
    return TW_EAGAIN;
  }
  return gone && n != TW_ESYS ? TW_EOF : n;
}

static int serial_write(struct tw_conn *s, const void *buf, size_t n)
{
  if (s->fd < 0 && !s->connects) {
    snprintf(s->err, sizeof s->err, "%s: not connected (waiting for the device to appear)", s->name);
    return TW_ENOTCONN;
  }
  if (s->fd < 0) {
    snprintf(s->err, sizeof s->err, "%s: not connected (the device went away at stream byte %llu; "
             "re-opening)", s->name, s->disconnect_at);
    return TW_ENOTCONN;
  }
  return tw__fd_write_all(s, s->fd, buf, n);
}

static void serial_close(struct tw_conn *s)
{
  if (s->fd >= 0)
    tw_sys->close(s->fd);
  free(s);
}

static const struct tw_conn_ops serial_ops = {
  .scheme = "serial", .read = serial_read, .write = serial_write, .close = serial_close,
};

static const struct { unsigned baud; speed_t code; } bauds[] = {
  {9600, B9600}, {19200, B19200}, {38400, B38400}, {57600, B57600}, {115200, B115200},
  {230400, B230400}, {460800, B460800}, {921600, B921600}, {1000000, B1000000},
  {2000000, B2000000}, {3000000, B3000000}, {4000000, B4000000},
};

int tw_conn_serial_open(const char *dev, unsigned baud, struct tw_conn **out,
                          char *err, size_t errcap)
{
  return tw__conn_serial_open(dev, baud, 0, out, err, errcap);
}

int tw__conn_serial_open(const char *dev, unsigned baud, int wait, struct tw_conn **out,
                         char *err, size_t errcap)
{
  speed_t code = 0;
  for (size_t i = 0; i < sizeof bauds / sizeof bauds[0]; i++)
    if (bauds[i].baud == baud)
      code = bauds[i].code;
  if (!code) {
    snprintf(err, errcap, "serial://%s: unsupported baud rate %u", dev, baud);
    return TW_EINVAL;
  }
  struct serial_conn *c = calloc(1, sizeof *c);
  if (!c)
    return TW_ENOMEM;
  char name[256];
  snprintf(name, sizeof name, "serial://%s?baud=%u", dev, baud);
  tw__conn_init(&c->base, &serial_ops, name);
  snprintf(c->path, sizeof c->path, "%s", dev);
  c->code = code;
  int fd = open_tty(c);
  int e = c->open_errno;
  if (fd < 0 && wait && (e == ENOENT || e == ENODEV || e == ENXIO)) {
    c->base.connects = 0; /* reads open it, paced by the backoff */
    c->base.reconnect = 1;
    tw__backoff_failed(&c->backoff);
    *out = &c->base;
    return 0;
  }
  if (fd < 0) {
    snprintf(err, errcap, "%s", c->base.err);
    free(c);
    return fd;
  }
  c->base.fd = fd;
  *out = &c->base;
  return 0;
}
