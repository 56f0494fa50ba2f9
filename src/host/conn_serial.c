/* A serial device: raw mode, 8 data bits, no parity, 1 stop bit, no flow
 * control, the given baud rate. A pty accepts the same settings, which is
 * how the tests drive it. */
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
#include "tracewire/host/conn.h"
#include "tracewire/host/sys.h"
#include "tracewire/error.h"

static int serial_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  int n = tw__fd_read(s, s->fd, buf, cap, timeout_ms);
  /* a pty whose other side closed reports EIO: that is the end of input */
  return n == TW_EIO ? TW_EOF : n;
}

static int serial_write(struct tw_conn *s, const void *buf, size_t n)
{
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
  speed_t code = 0;
  for (size_t i = 0; i < sizeof bauds / sizeof bauds[0]; i++)
    if (bauds[i].baud == baud)
      code = bauds[i].code;
  if (!code) {
    snprintf(err, errcap, "serial://%s: unsupported baud rate %u", dev, baud);
    return TW_EINVAL;
  }
  struct tw_conn *s = calloc(1, sizeof *s);
  if (!s)
    return TW_ENOMEM;
  char name[256];
  snprintf(name, sizeof name, "serial://%s?baud=%u", dev, baud);
  tw__conn_init(s, &serial_ops, name);
  s->fd = tw_sys->open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
  int rc = 0;
  struct termios t;
  if (s->fd < 0)
    rc = tw__conn_errno(s, "open");
  else if (tw_sys->tcgetattr(s->fd, &t) != 0)
    rc = tw__conn_errno(s, "tcgetattr");
  else {
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, code);
    cfsetospeed(&t, code);
    if (tw_sys->tcsetattr(s->fd, TCSANOW, &t) != 0)
      rc = tw__conn_errno(s, "tcsetattr");
  }
  if (rc < 0) {
    snprintf(err, errcap, "%s", s->err);
    if (s->fd >= 0)
      tw_sys->close(s->fd);
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}
