/* From a URI to a transport: one row per scheme. */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/conn_rtt_gdb.h"
#include "tracewire/error.h"

/* "host:port", "[v6]:port", ":port" (host defaults to def_host). */
static int split_hostport(const char *hp, const char *def_host, char *host, size_t hcap,
                          char *port, size_t pcap)
{
  const char *colon;
  if (hp[0] == '[') {
    const char *end = strchr(hp, ']');
    if (!end || end[1] != ':')
      return TW_EINVAL;
    snprintf(host, hcap, "%.*s", (int)(end - hp - 1), hp + 1);
    colon = end + 1;
  } else {
    colon = strrchr(hp, ':');
    if (!colon)
      return TW_EINVAL;
    snprintf(host, hcap, "%.*s", (int)(colon - hp), hp);
  }
  if (!host[0]) {
    if (!def_host)
      return TW_EINVAL;
    snprintf(host, hcap, "%s", def_host);
  }
  snprintf(port, pcap, "%s", colon + 1);
  return port[0] ? 0 : TW_EINVAL;
}

static int open_tcp(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  char host[256], port[32];
  if (split_hostport(rest, NULL, host, sizeof host, port, sizeof port) < 0)
    goto bad;
  return tw__conn_tcp_connect(host, port, wait, out, err, errcap);
bad:
  snprintf(err, errcap, "tcp://%s: expected tcp://HOST:PORT", rest);
  return TW_EINVAL;
}

/* Listening transports bind to loopback unless an address is given: a
 * recorder should not be reachable from the network by accident. */
static int open_tcp_listen(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  (void)wait; /* nothing to wait for: bound at open, or a file */
  char host[256], port[32];
  if (split_hostport(rest, "127.0.0.1", host, sizeof host, port, sizeof port) < 0) {
    snprintf(err, errcap, "tcp-listen://%s: expected tcp-listen://[ADDR]:PORT", rest);
    return TW_EINVAL;
  }
  return tw_conn_tcp_listen(host, port, NULL, out, err, errcap);
}

static int open_udp(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  (void)wait; /* nothing to wait for: bound at open, or a file */
  char host[256], port[32], hp[300], thost[256], tport[32];
  const char *q = strchr(rest, '?');
  snprintf(hp, sizeof hp, "%.*s", (int)(q ? (size_t)(q - rest) : strlen(rest)), rest);
  if (split_hostport(hp, "127.0.0.1", host, sizeof host, port, sizeof port) < 0 ||
      (q && (strncmp(q, "?target=", 8) != 0 ||
             split_hostport(q + 8, NULL, thost, sizeof thost, tport, sizeof tport) < 0))) {
    snprintf(err, errcap, "udp://%s: expected udp://[ADDR]:PORT[?target=HOST:PORT]", rest);
    return TW_EINVAL;
  }
  int rc = tw_conn_udp_open(host, port, NULL, out, err, errcap);
  if (rc == 0 && q && (rc = tw_conn_udp_set_peer(*out, thost, tport, err, errcap)) < 0)
    tw_conn_close(*out);
  return rc;
}

static int open_serial(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  char dev[256];
  unsigned baud = 115200;
  const char *q = strchr(rest, '?');
  snprintf(dev, sizeof dev, "%.*s", (int)(q ? (size_t)(q - rest) : strlen(rest)), rest);
  if (q) {
    char *end;
    if (strncmp(q, "?baud=", 6) != 0 || (baud = (unsigned)strtoul(q + 6, &end, 10), *end)) {
      snprintf(err, errcap, "serial://%s: expected serial:///dev/ttyX?baud=N", rest);
      return TW_EINVAL;
    }
  }
  return tw__conn_serial_open(dev, baud, wait, out, err, errcap);
}

static int open_file(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  (void)wait; /* nothing to wait for: bound at open, or a file */
  return tw_conn_file_open(rest, out, err, errcap);
}

/* rtt+gdb://HOST:PORT[?options] (conn_rtt_gdb.h) */
static int open_rtt_gdb(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  char host[256], port[32], hp[300];
  const char *q = strchr(rest, '?');
  snprintf(hp, sizeof hp, "%.*s", (int)(q ? (size_t)(q - rest) : strlen(rest)), rest);
  if (split_hostport(hp, NULL, host, sizeof host, port, sizeof port) < 0) {
    snprintf(err, errcap, "rtt+gdb://%s: expected rtt+gdb://HOST:PORT[?options]", rest);
    return TW_EINVAL;
  }
  return tw_conn_rtt_gdb_open(host, port, q ? q + 1 : NULL, wait, out, err, errcap);
}

static const struct {
  const char *prefix;
  int (*open)(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap);
} schemes[] = {
  {"tcp://", open_tcp},
  {"tcp-listen://", open_tcp_listen},
  {"udp://", open_udp},
  {"serial://", open_serial},
  {"file://", open_file},
  {"rtt+gdb://", open_rtt_gdb},
};

static int open_uri(const char *uri, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
    size_t n = strlen(schemes[i].prefix);
    if (strncmp(uri, schemes[i].prefix, n) == 0)
      return schemes[i].open(uri + n, wait, out, err, errcap);
  }
  if (strstr(uri, "://")) {
    snprintf(err, errcap, "%s: unknown scheme (tcp, tcp-listen, udp, serial, file, rtt+gdb)", uri);
    return TW_EINVAL;
  }
  return tw_conn_file_open(uri, out, err, errcap);
}

int tw_conn_open(const char *uri, struct tw_conn **out, char *err, size_t errcap)
{
  return open_uri(uri, 0, out, err, errcap);
}

int tw_conn_open_waiting(const char *uri, struct tw_conn **out, char *err, size_t errcap)
{
  int rc = open_uri(uri, 1, out, err, errcap);
  if (rc == 0)
    (*out)->reconnect = 1;
  return rc;
}
