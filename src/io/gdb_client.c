/*
 * GDB remote serial protocol client (tracewire/io/gdb.h).
 *
 * Packets are $payload#cs, cs the modulo-256 sum of the payload in two hex
 * digits; until QStartNoAckMode each side acknowledges every packet with
 * '+' (or '-' to get it again). Replies may be run-length encoded: "c*n"
 * stands for c followed by n - 29 more copies of it. 0x03 alone asks an
 * all-stop target to stop; the stop reply (T.., S.., or W../X.. when it
 * exited) answers the continue that let it run. Notifications (%...#cs)
 * only come in non-stop mode.
 *
 * Replies are matched to requests by their shape, so a stop reply that
 * arrives late (the target stopped by itself just before our 0x03, and
 * the server answers both) is recognised and set aside rather than taken
 * for the data of the next read.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/gdb.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

static int fail(struct tw_gdb *g, int rc, const char *fmt, const char *a)
{
  char what[200];
  snprintf(what, sizeof what, fmt, a);
  snprintf(g->err, sizeof g->err, "%s: gdb server: %s", g->link->name, what);
  return rc;
}

/* The link's own error, said as the gdb server's. */
static int link_fail(struct tw_gdb *g, int rc, const char *doing)
{
  if (rc == TW_EOF || rc == TW_ECONNRESET)
    snprintf(g->err, sizeof g->err, "%s: gdb server closed the connection %s", g->link->name,
             doing);
  else if (rc == TW_EAGAIN || rc == TW_ETIMEDOUT) {
    snprintf(g->err, sizeof g->err, "%s: gdb server did not answer %s within %d ms",
             g->link->name, doing, g->timeout_ms);
    rc = TW_ETIMEDOUT;
  } else
    snprintf(g->err, sizeof g->err, "%s (%s)", tw_conn_error(g->link), doing);
  return rc;
}

void tw_gdb_init(struct tw_gdb *g, struct tw_conn *link)
{
  memset(g, 0, sizeof *g);
  g->link = link;
  g->timeout_ms = 2000;
  g->mem_chunk = 256;
}

const char *tw_gdb_error(const struct tw_gdb *g)
{
  return g->err[0] ? g->err : "no error";
}

static int hexval(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static int send_raw(struct tw_gdb *g, const void *p, size_t n, const char *doing)
{
  int rc = tw_conn_write(g->link, p, n);
  return rc < 0 ? link_fail(g, rc, doing) : 0;
}

/* More bytes from the link into rx; waits up to timeout_ms (0: not at all). */
static int fill(struct tw_gdb *g, int timeout_ms, const char *doing)
{
  if (g->rx_len == sizeof g->rx)
    return fail(g, TW_EPROTO, "a packet longer than %s bytes", "8 K");
  int n = tw_conn_read(g->link, g->rx + g->rx_len, sizeof g->rx - g->rx_len, timeout_ms);
  if (n < 0)
    return n == TW_EAGAIN && timeout_ms == 0 ? TW_EAGAIN : link_fail(g, n, doing);
  g->rx_len += (size_t)n;
  return 0;
}

static void consume(struct tw_gdb *g, size_t n)
{
  memmove(g->rx, g->rx + n, g->rx_len - n);
  g->rx_len -= n;
}

/* The next packet's payload (run-length decoded) into out[cap], '$' or '%'
 * in *kind. Acks it in ack mode. Waits up to timeout_ms for it. */
static int recv_packet(struct tw_gdb *g, char *out, size_t cap, char *kind, int timeout_ms,
                       const char *doing)
{
  unsigned long long deadline = tw__deadline(timeout_ms);
  for (;;) {
    size_t i = 0;
    while (i < g->rx_len && g->rx[i] != '$' && g->rx[i] != '%')
      i++; /* acks and noise between packets */
    consume(g, i);
    unsigned char *hash = g->rx_len ? memchr(g->rx, '#', g->rx_len) : NULL;
    if (hash && (size_t)(hash - g->rx) + 3 <= g->rx_len) {
      size_t plen = (size_t)(hash - g->rx) - 1;
      unsigned sum = 0;
      for (size_t k = 1; k <= plen; k++)
        sum += g->rx[k];
      int h1 = hexval(hash[1]), h2 = hexval(hash[2]);
      if (h1 < 0 || h2 < 0 || (unsigned)(h1 << 4 | h2) != (sum & 0xFFu)) {
        consume(g, plen + 4);
        if (g->noack)
          return fail(g, TW_EPROTO, "a packet with a bad checksum %s", doing);
        int rc = send_raw(g, "-", 1, doing); /* ask for it again */
        if (rc < 0)
          return rc;
        continue;
      }
      if (!g->noack && g->rx[0] == '$') {
        int rc = send_raw(g, "+", 1, doing);
        if (rc < 0)
          return rc;
      }
      *kind = (char)g->rx[0];
      size_t o = 0;
      for (size_t k = 1; k <= plen; k++) {
        if (g->rx[k] == '*' && o > 0 && k < plen) { /* run-length: the previous char again */
          int rep = g->rx[++k] - 29;
          for (int r = 0; r < rep && o + 1 < cap; r++, o++)
            out[o] = out[o - 1];
        } else if (o + 1 < cap) {
          out[o++] = (char)g->rx[k];
        }
      }
      out[o] = 0;
      consume(g, plen + 4);
      return (int)o;
    }
    int left = tw__ms_left(deadline);
    if (timeout_ms >= 0 && left == 0 && timeout_ms != 0)
      return link_fail(g, TW_ETIMEDOUT, doing);
    int rc = fill(g, timeout_ms == 0 ? 0 : left, doing);
    if (rc < 0)
      return rc;
  }
}

static int send_packet(struct tw_gdb *g, const char *payload, const char *doing)
{
  size_t n = strlen(payload);
  char *buf = malloc(n + 5);
  if (!buf)
    return fail(g, TW_ENOMEM, "out of memory %s", doing);
  unsigned sum = 0;
  for (size_t k = 0; k < n; k++)
    sum += (unsigned char)payload[k];
  buf[0] = '$';
  memcpy(buf + 1, payload, n);
  snprintf(buf + 1 + n, 4, "#%02x", sum & 0xFFu);
  for (int tries = 0;; tries++) {
    int rc = send_raw(g, buf, n + 4, doing);
    if (rc < 0 || g->noack) {
      free(buf);
      return rc;
    }
    /* ack mode: '+' or '-' before anything else */
    unsigned long long deadline = tw__deadline(g->timeout_ms);
    while (!g->rx_len || (g->rx[0] != '+' && g->rx[0] != '-')) {
      if (g->rx_len && g->rx[0] != '$' && g->rx[0] != '%') {
        consume(g, 1);
        continue;
      }
      if (g->rx_len) /* a packet before the ack: the server skipped it */
        break;
      int left = tw__ms_left(deadline);
      if ((rc = left == 0 ? link_fail(g, TW_ETIMEDOUT, doing) : fill(g, left, doing)) < 0) {
        free(buf);
        return rc;
      }
    }
    int nak = g->rx_len && g->rx[0] == '-';
    if (g->rx_len && (g->rx[0] == '+' || g->rx[0] == '-'))
      consume(g, 1);
    if (!nak) {
      free(buf);
      return 0;
    }
    if (tries == 3) {
      free(buf);
      return fail(g, TW_EPROTO, "the server refused a packet four times %s", doing);
    }
  }
}

static int is_stop(const char *r)
{
  return (r[0] == 'T' || r[0] == 'S') && hexval(r[1]) >= 0 && hexval(r[2]) >= 0;
}

static int exited(struct tw_gdb *g, const char *r)
{
  g->running = 0;
  snprintf(g->stop, sizeof g->stop, "%s", r);
  snprintf(g->err, sizeof g->err, "%s: the target exited (%s)", g->link->name, r);
  return TW_ENOTCONN;
}

/* A reply to what we sent: stale stop replies (unless a stop reply is
 * what was asked for), console output and notifications are set aside. */
static int reply(struct tw_gdb *g, char *out, size_t cap, int want_stop, const char *doing)
{
  for (;;) {
    char kind;
    int n = recv_packet(g, out, cap, &kind, g->timeout_ms, doing);
    if (n < 0)
      return n;
    if (kind == '%') { /* non-stop notification: a stop, say so and ack it */
      if (!strncmp(out, "Stop:W", 6) || !strncmp(out, "Stop:X", 6))
        return exited(g, out + 5);
      continue;
    }
    if (is_stop(out)) {
      snprintf(g->stop, sizeof g->stop, "%s", out);
      if (want_stop)
        return n;
      continue;
    }
    if (out[0] == 'W' || out[0] == 'X')
      return exited(g, out);
    if (out[0] == 'O' && out[1] && strcmp(out, "OK"))
      continue; /* console output */
    return n;
  }
}

int tw_gdb_request(struct tw_gdb *g, const char *req, char *out, size_t cap)
{
  char doing[80];
  snprintf(doing, sizeof doing, "to '%.40s'", req);
  int rc = send_packet(g, req, doing);
  return rc < 0 ? rc : reply(g, out, cap, !strcmp(req, "?"), doing);
}

int tw_gdb_handshake(struct tw_gdb *g)
{
  char *r = g->buf;
  const size_t cap = sizeof g->buf;
  int n = tw_gdb_request(g, "qSupported:swbreak+;hwbreak+", r, cap);
  if (n < 0)
    return n;
  const char *ps = strstr(r, "PacketSize=");
  size_t pkt = ps ? strtoul(ps + 11, NULL, 16) : 400;
  if (pkt > TW_GDB_MAX_PKT)
    pkt = TW_GDB_MAX_PKT;
  /* an 'm' reply is two hex digits a byte; an 'M' request the same plus
   * its address and length */
  g->mem_chunk = pkt > 64 ? (pkt - 32) / 2 : 16;
  if (strstr(r, "QStartNoAckMode+")) {
    if ((n = tw_gdb_request(g, "QStartNoAckMode", r, cap)) < 0)
      return n;
    g->noack = !strcmp(r, "OK");
  }
  if ((n = tw_gdb_request(g, "?", r, cap)) < 0)
    return n;
  if (r[0] == 'W' || r[0] == 'X')
    return exited(g, r);
  snprintf(g->stop, sizeof g->stop, "%s", r);
  g->running = 0; /* servers stop the target when a debugger attaches */
  g->halt_t0 = tw_sys_mono_ns();
  return 0;
}

int tw_gdb_nonstop(struct tw_gdb *g)
{
  char r[64];
  int n = tw_gdb_request(g, "QNonStop:1", r, sizeof r);
  if (n < 0)
    return n;
  g->nonstop = !strcmp(r, "OK");
  return g->nonstop;
}

/* A stop reply, waiting up to timeout_ms (0: only if it is there). */
static int wait_stop(struct tw_gdb *g, int timeout_ms)
{
  char r[TW_GDB_MAX_PKT + 1], kind;
  for (;;) {
    int n = recv_packet(g, r, sizeof r, &kind, timeout_ms, "to the halt");
    if (n == TW_EAGAIN)
      return 0;
    if (n < 0)
      return n;
    if (r[0] == 'W' || r[0] == 'X')
      return exited(g, r);
    if (is_stop(r)) {
      snprintf(g->stop, sizeof g->stop, "%s", r);
      g->running = 0;
      return 1;
    }
    /* console output and the like while running: not a stop */
  }
}

int tw_gdb_halt(struct tw_gdb *g)
{
  if (!g->running)
    return 0;
  char r[64];
  g->halts++;
  g->halt_t0 = tw_sys_mono_ns();
  if (g->nonstop) {
    int n = tw_gdb_request(g, "vCont;t", r, sizeof r);
    if (n < 0)
      return n;
    g->running = 0;
    return 0;
  }
  /* a stop (or an exit) already there answers the continue, not the halt */
  int rc = wait_stop(g, 0);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  if ((rc = send_raw(g, "\x03", 1, "to the halt")) < 0)
    return rc;
  rc = wait_stop(g, g->timeout_ms);
  if (rc == 0)
    return link_fail(g, TW_ETIMEDOUT, "to the halt");
  return rc < 0 ? rc : 0;
}

int tw_gdb_continue(struct tw_gdb *g)
{
  if (g->running)
    return 0;
  char r[64];
  if (g->nonstop) {
    int n = tw_gdb_request(g, "vCont;c", r, sizeof r);
    if (n < 0)
      return n;
    if (strcmp(r, "OK"))
      return fail(g, TW_EPROTO, "vCont;c answered '%s'", r);
  } else {
    int rc = send_packet(g, "c", "to continue");
    if (rc < 0)
      return rc;
    g->halted_ns += tw_sys_mono_ns() - g->halt_t0; /* stopped from then until now */
  }
  g->running = 1;
  return 0;
}

int tw_gdb_poll_stop(struct tw_gdb *g)
{
  if (!g->running || g->nonstop)
    return 0;
  int rc = wait_stop(g, 0);
  if (rc == 1)
    g->halt_t0 = tw_sys_mono_ns(); /* it stopped by itself, about now */
  return rc;
}

/* "E01" and friends: an error reply. */
static int is_error(const char *r, int n)
{
  return n == 3 && r[0] == 'E' && hexval(r[1]) >= 0 && hexval(r[2]) >= 0;
}

int tw_gdb_read(struct tw_gdb *g, uint32_t addr, void *buf, uint32_t len)
{
  char *r = g->buf;
  uint8_t *out = buf;
  while (len) {
    uint32_t n = len < g->mem_chunk ? len : (uint32_t)g->mem_chunk;
    char req[40];
    snprintf(req, sizeof req, "m%x,%x", addr, n);
    int got = tw_gdb_request(g, req, r, sizeof g->buf);
    if (got < 0)
      return got;
    if (is_error(r, got) || got != (int)(2 * n)) {
      char what[120];
      snprintf(what, sizeof what, "reading %u bytes at 0x%08x: %s", n, addr,
               is_error(r, got) ? "error reply" : "wrong reply length");
      snprintf(g->err, sizeof g->err, "%s: gdb server: %s '%.16s'", g->link->name, what, r);
      return is_error(r, got) ? TW_EIO : TW_EPROTO;
    }
    for (uint32_t k = 0; k < n; k++) {
      int hi = hexval(r[2 * k]), lo = hexval(r[2 * k + 1]);
      if (hi < 0 || lo < 0)
        return fail(g, TW_EPROTO, "a memory reply that is not hex: '%.16s'", r);
      out[k] = (uint8_t)(hi << 4 | lo);
    }
    g->mem_reads++;
    g->mem_bytes += n;
    out += n;
    addr += n;
    len -= n;
  }
  return 0;
}

int tw_gdb_write(struct tw_gdb *g, uint32_t addr, const void *buf, uint32_t len)
{
  char *req = g->buf, r[64];
  const uint8_t *in = buf;
  while (len) {
    uint32_t n = len < g->mem_chunk ? len : (uint32_t)g->mem_chunk;
    int o = snprintf(req, sizeof g->buf, "M%x,%x:", addr, n);
    for (uint32_t k = 0; k < n; k++)
      o += snprintf(req + o, sizeof g->buf - (size_t)o, "%02x", in[k]);
    int got = tw_gdb_request(g, req, r, sizeof r);
    if (got < 0)
      return got;
    if (strcmp(r, "OK")) {
      char what[120];
      snprintf(what, sizeof what, "writing %u bytes at 0x%08x: answered", n, addr);
      snprintf(g->err, sizeof g->err, "%s: gdb server: %s '%.16s'", g->link->name, what, r);
      return is_error(r, got) ? TW_EIO : TW_EPROTO;
    }
    in += n;
    addr += n;
    len -= n;
  }
  return 0;
}
