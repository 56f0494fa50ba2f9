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

/* Decimal digits only (no sign, space or suffix: strtoul would take them
 * and wrap a value beyond the type, and getaddrinfo takes a port modulo
 * 65536), within [min, max]. */
static int parse_dec(const char *s, unsigned long long min, unsigned long long max,
                     unsigned long long *out)
{
  unsigned long long v = 0;
  if (!*s)
    return TW_EINVAL;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (max - (unsigned)(*s - '0')) / 10)
      return TW_ERANGE;
    v = v * 10 + (unsigned)(*s - '0');
  }
  if (v < min)
    return TW_ERANGE;
  *out = v;
  return 0;
}

/* "host:port", "[v6]:port", ":port" (host defaults to def_host); the port
 * a number from min_port (0: pick one, for listening) to 65535. */
static int split_port(const char *hp, const char *def_host, unsigned min_port, char *host,
                      size_t hcap, char *port, size_t pcap);

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

static int split_port(const char *hp, const char *def_host, unsigned min_port, char *host,
                      size_t hcap, char *port, size_t pcap)
{
  unsigned long long v;
  int rc = split_hostport(hp, def_host, host, hcap, port, pcap);
  if (rc == 0 && parse_dec(port, min_port, 65535, &v) < 0)
    return TW_ERANGE;
  return rc;
}

static int open_tcp(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  char host[256], port[32];
  if (split_port(rest, NULL, 1, host, sizeof host, port, sizeof port) < 0) {
    snprintf(err, errcap, "tcp://%s: expected tcp://HOST:PORT, PORT from 1 to 65535", rest);
    return TW_EINVAL;
  }
  return tw__conn_tcp_connect(host, port, wait, out, err, errcap);
}

/* Listening transports bind to loopback unless an address is given: a
 * recorder should not be reachable from the network by accident. */
static int open_tcp_listen(const char *rest, int wait, struct tw_conn **out, char *err, size_t errcap)
{
  (void)wait; /* nothing to wait for: bound at open, or a file */
  char host[256], port[32];
  if (split_port(rest, "127.0.0.1", 0, host, sizeof host, port, sizeof port) < 0) {
    snprintf(err, errcap, "tcp-listen://%s: expected tcp-listen://[ADDR]:PORT, PORT from 0 "
             "(any free one) to 65535", rest);
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
  if (split_port(hp, "127.0.0.1", 0, host, sizeof host, port, sizeof port) < 0 ||
      (q && (strncmp(q, "?target=", 8) != 0 ||
             split_port(q + 8, NULL, 1, thost, sizeof thost, tport, sizeof tport) < 0))) {
    snprintf(err, errcap, "udp://%s: expected udp://[ADDR]:PORT[?target=HOST:PORT], ports from "
             "0 to 65535 (a target's from 1)", rest);
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
    unsigned long long v;
    if (strncmp(q, "?baud=", 6) != 0 || parse_dec(q + 6, 1, 0xFFFFFFFFu, &v) < 0) {
      snprintf(err, errcap, "serial://%s: expected serial:///dev/ttyX?baud=N, N a baud rate "
               "(50 to 4000000)", rest);
      return TW_EINVAL;
    }
    baud = (unsigned)v;
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
