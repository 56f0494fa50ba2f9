/*
 * rtt+gdb://HOST:PORT[?options]: a target's RTT channels (tracewire/rtt.h)
 * read and written through a GDB server's memory access (gdb.h), so any
 * probe with a GDB server streams a trace: QEMU's gdbstub, OpenOCD, pyOCD,
 * the J-Link GDB server, a Black Magic Probe. docs/rtt.md has the user's
 * side; this note the mechanics.
 *
 * A poll: (all-stop servers) halt the target, (first time) find and check
 * the control block, read what the up channel holds and move its read
 * offset, write what waits for the down channel, let the target run. A
 * server in non-stop mode (QNonStop:1 answered OK) reads and writes while
 * the target runs: no halt at all. Polls follow each other at once while
 * data comes, and every `poll` ms when it does not.
 *
 * The control block: the whole [addr, addr + size) range is searched for
 * the identifier (or cb= gives it), then the block is re-read and checked
 * on every poll (identifier, channels, buffer, offsets). The target
 * initialises it when it starts, so the search goes on, the target
 * running in between, for `find` ms before giving up with the range and
 * the option that moves it.
 *
 * Reconnect mode (record --reconnect): the GDB server going away (its
 * connection is reconnected with a backoff by the tcp transport
 * underneath), the target exiting, or the control block failing its
 * checks (a reset re-initialises it; a corrupted one) counts a disconnect;
 * the block is searched for again, without a time limit, and finding it
 * counts a connection, so `record` sends its start-up commands again.
 * Without it each of those ends the stream with what happened.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracewire/io/conn.h"
#include "tracewire/io/conn_rtt_gdb.h"
#include "tracewire/io/gdb.h"
#include "tracewire/io/rtt_host.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

enum { MODE_AUTO, MODE_HALT, MODE_NONSTOP };

struct rtt_conn {
  struct tw_conn base;
  struct tw_conn *link;          /* tcp to the GDB server */
  struct tw_gdb gdb;
  struct tw_rtt_host rtt;
  struct tw_rtt_gdb_opts o;
  unsigned long long link_connects; /* the link's connections handled */
  int ready;                     /* handshake done on this connection */
  int attached;                  /* control block found and checked */
  unsigned long long search_t0;  /* when the search began (0: not searching) */
  int said_searching;
  uint8_t *stage;                /* up-channel bytes not yet delivered */
  size_t stage_len, stage_off, stage_cap;
  uint8_t pend[4096];            /* down-channel bytes not yet written */
  size_t pend_len;
  int quiet;                     /* the last poll found nothing */
};

static int mem_read(void *ctx, uint32_t addr, void *buf, uint32_t len)
{
  return tw_gdb_read(ctx, addr, buf, len);
}

static int mem_write(void *ctx, uint32_t addr, const void *buf, uint32_t len)
{
  return tw_gdb_write(ctx, addr, buf, len);
}

static int say(struct rtt_conn *c, int rc, const char *msg)
{
  snprintf(c->base.err, sizeof c->base.err, "%s: %s", c->base.name, msg);
  return rc;
}

/* The target went away (reconnect mode): count it and search again. */
static void lost(struct rtt_conn *c, const char *why)
{
  if (c->attached || c->base.connects > c->base.disconnects) {
    c->base.disconnects++;
    c->base.disconnect_at = c->base.nread;
  }
  c->attached = 0;
  c->search_t0 = 0;
  snprintf(c->base.err, sizeof c->base.err, "%s: target lost at stream byte %llu (%s); %s",
           c->base.name, c->base.nread, why, "waiting for it to come back");
}

/* Find and check the control block (target stopped, or non-stop). 1 when
 * attached, 0 not yet, < 0 error. */
static int search(struct rtt_conn *c)
{
  struct tw_rtt_mem mem = { .read = mem_read, .write = mem_write, .ctx = &c->gdb };
  uint32_t at = c->o.cb;
  unsigned long long now = tw_sys_mono_ns();
  if (!c->search_t0)
    c->search_t0 = now;
  c->rtt.mem = mem;
  int rc = c->o.have_cb ? 1 : tw_rtt_host_find(&c->rtt, c->o.addr, c->o.size, &at);
  if (rc == 1) {
    rc = tw_rtt_host_attach(&c->rtt, &mem, at, c->o.up, c->o.down);
    if (rc == 0) {
      c->attached = 1;
      c->search_t0 = 0;
      c->said_searching = 0;
      c->base.connects++; /* a (new) session of the target to record */
      c->base.err[0] = 0;
      return 1;
    }
    if (rc != TW_EAGAIN && rc != TW_EPROTO)
      return rc; /* the memory failed, not the block */
  } else if (rc < 0) {
    return rc;
  }
  char msg[400];
  char unread[300] = "";
  if (rc == 0 && c->rtt.err[0]) { /* the server refused part of the range */
    const char *why = strstr(tw_gdb_error(&c->gdb), "gdb server: ");
    snprintf(unread, sizeof unread, " (%s: %s)", c->rtt.err, why ? why + 12 : tw_gdb_error(&c->gdb));
  }
  if (rc == 0)
    snprintf(msg, sizeof msg, "no RTT control block in 0x%08x..0x%08x%s; give its address with "
             "?cb=ADDR or search elsewhere with ?addr=ADDR&size=BYTES", c->o.addr,
             (uint32_t)(c->o.addr + c->o.size - 1u), unread);
  else if (rc == TW_EAGAIN)
    snprintf(msg, sizeof msg, "RTT control block at 0x%08x: up channel %u is not configured yet",
             at, c->o.up);
  else
    snprintf(msg, sizeof msg, "%s", c->rtt.err);
  if (!c->base.reconnect && now - c->search_t0 >= (unsigned long long)c->o.find_ms * 1000000u) {
    char full[800];
    snprintf(full, sizeof full, "%s (searched for %.1f s)", msg, (double)(now - c->search_t0) / 1e9);
    return say(c, rc == TW_EPROTO ? TW_EPROTO : TW_ENOENT, full);
  }
  say(c, 0, msg);
  return 0;
}

/* A new connection to the server: handshake, and non-stop if asked. */
static int greet(struct rtt_conn *c)
{
  tw_gdb_init(&c->gdb, c->link);
  c->gdb.timeout_ms = c->o.timeout_ms;
  int rc = tw_gdb_handshake(&c->gdb);
  if (rc < 0)
    return rc;
  if (c->o.mode != MODE_HALT) {
    rc = tw_gdb_nonstop(&c->gdb);
    if (rc < 0)
      return rc;
    if (!rc && c->o.mode == MODE_NONSTOP)
      return say(c, TW_ENOTSUP, "this GDB server has no non-stop mode (QNonStop:1 unanswered); "
                                "use ?mode=halt");
  }
  c->ready = 1;
  return 0;
}

static int stage_room(struct rtt_conn *c, size_t need)
{
  if (c->stage_off == c->stage_len)
    c->stage_off = c->stage_len = 0;
  if (c->stage_cap - c->stage_len >= need)
    return 0;
  size_t cap = c->stage_len + need;
  uint8_t *p = realloc(c->stage, cap);
  if (!p)
    return say(c, TW_ENOMEM, "out of memory");
  c->stage = p;
  c->stage_cap = cap;
  return 0;
}

/* Read the up channel into the stage and write what waits for the down
 * channel. Target stopped or non-stop. */
static int transfer(struct rtt_conn *c)
{
  int rc = stage_room(c, c->rtt.up.size);
  if (rc < 0)
    return rc;
  int n = tw_rtt_host_read(&c->rtt, c->stage + c->stage_len, c->stage_cap - c->stage_len);
  if (n < 0)
    return n;
  c->stage_len += (size_t)n;
  c->base.nread += (unsigned long long)n;
  c->quiet = n == 0;
  if (c->pend_len && c->rtt.has_down) {
    int w = tw_rtt_host_write(&c->rtt, c->pend, c->pend_len);
    if (w < 0)
      return w;
    memmove(c->pend, c->pend + w, c->pend_len - (size_t)w);
    c->pend_len -= (size_t)w;
  }
  return 0;
}

/* One poll. 0 (maybe with bytes staged), or an error that ends the stream. */
static int cycle(struct rtt_conn *c)
{
  struct tw_conn *l = c->link;
  l->reconnect = c->base.reconnect;
  if (!tw_conn_connected(l)) { /* the tcp link reconnects inside its reads */
    int n = tw_conn_read(l, c->gdb.rx, sizeof c->gdb.rx, 0);
    if (n < 0 && n != TW_EAGAIN)
      return n;
    if (!tw_conn_connected(l))
      return 0;
  }
  if (l->connects != c->link_connects) {
    c->link_connects = l->connects;
    c->ready = 0;
    c->attached = 0;
  }
  int rc = c->ready ? 0 : greet(c);
  if (rc == 0 && !c->gdb.nonstop && c->gdb.running && (rc = tw_gdb_poll_stop(&c->gdb)) > 0)
    rc = 0; /* it stopped by itself (a breakpoint, a fault): read it anyway */
  if (rc == 0 && !c->gdb.nonstop)
    rc = tw_gdb_halt(&c->gdb); /* all-stop: memory only while it is stopped */
  if (rc == 0 && !c->attached && (rc = search(c)) > 0)
    rc = 0;
  if (rc == TW_ENOENT || (rc == TW_EPROTO && !c->attached)) {
    (void)tw_gdb_continue(&c->gdb); /* searched long enough: leave it running */
    return rc;                      /* (base.err says where we looked) */
  }
  if (rc == 0 && c->attached) {
    rc = transfer(c);
    if (rc == TW_EPROTO) { /* the block failed its checks: reset or corrupted */
      snprintf(c->base.err, sizeof c->base.err, "%s: %s", c->base.name, c->rtt.err);
      if (!c->base.reconnect)
        return TW_EPROTO;
      lost(c, c->rtt.err);
      rc = 0;
    }
  }
  if (rc == 0)
    rc = tw_gdb_continue(&c->gdb);
  if (rc >= 0)
    return 0;
  /* the target exited, or the server went away */
  const char *why = tw_gdb_error(&c->gdb);
  if (!c->base.reconnect) {
    if (rc == TW_ENOTCONN || rc == TW_EOF || rc == TW_ECONNRESET) {
      say(c, TW_EOF, why);
      return TW_EOF;
    }
    snprintf(c->base.err, sizeof c->base.err, "%s", why);
    return rc;
  }
  lost(c, why);
  c->ready = 0; /* a new handshake, on this connection or the next */
  if (rc == TW_ECONNRESET || rc == TW_EOF || rc == TW_ETIMEDOUT) {
    /* the server went away: a write only fails, a read tells the tcp
     * transport, which then reconnects (what is read is the old session's) */
    for (int i = 0; i < 4 && tw_conn_connected(l) && tw_conn_read(l, c->gdb.rx, sizeof c->gdb.rx, 0) > 0; i++)
      ;
  }
  return 0;
}

static int rtt_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms)
{
  struct rtt_conn *c = (struct rtt_conn *)s;
  unsigned long long deadline = tw__deadline(timeout_ms);
  for (;;) {
    if (c->stage_off < c->stage_len) {
      size_t n = c->stage_len - c->stage_off;
      if (n > cap)
        n = cap;
      if (n > 0x40000000u)
        n = 0x40000000u;
      memcpy(buf, c->stage + c->stage_off, n);
      c->stage_off += n;
      return (int)n;
    }
    unsigned long long gone = s->disconnects;
    int rc = cycle(c);
    if (rc < 0)
      return rc;
    if (c->stage_off < c->stage_len)
      continue;
    if (s->disconnects != gone)
      return TW_EAGAIN; /* the owner notes the loss (s->err) before we search again */
    int left = tw__ms_left(deadline);
    if (timeout_ms == 0 || left == 0)
      return TW_EAGAIN;
    /* nothing came: let the target run a while before the next halt */
    int wait = left < 0 || left > c->o.poll_ms ? c->o.poll_ms : left;
    tw_sys->poll(NULL, 0, wait);
  }
}

static int rtt_write(struct tw_conn *s, const void *buf, size_t n)
{
  struct rtt_conn *c = (struct rtt_conn *)s;
  if (!c->attached)
    return say(c, TW_ENOTCONN, "not connected (no RTT control block found yet)");
  if (!c->rtt.has_down)
    return say(c, TW_ENOTSUP, "the control block has no down channel to send commands on");
  if (n > sizeof c->pend - c->pend_len)
    return say(c, TW_ENOSPC, "the target does not read its down channel (4 KiB waiting)");
  memcpy(c->pend + c->pend_len, buf, n);
  c->pend_len += n;
  /* out now rather than at the next poll: a command waits for its reply */
  int rc = cycle(c);
  return rc < 0 ? rc : 0;
}

static void rtt_close(struct tw_conn *s)
{
  struct rtt_conn *c = (struct rtt_conn *)s;
  if (c->ready && !c->gdb.running && tw_conn_connected(c->link)) {
    /* leave the target running, as found; detach so the server lets go */
    char r[16];
    c->gdb.timeout_ms = 500;
    if (c->gdb.nonstop || tw_gdb_continue(&c->gdb) == 0)
      (void)tw_gdb_request(&c->gdb, "D", r, sizeof r);
  }
  tw_conn_close(c->link);
  free(c->stage);
  free(c);
}

static const struct tw_conn_ops rtt_ops = {
  .scheme = "rtt+gdb", .read = rtt_read, .write = rtt_write, .close = rtt_close,
};

/* "addr=0x20000000&size=65536&...": 0, or TW_EINVAL naming the option. */
static int parse_opts(const char *q, struct tw_rtt_gdb_opts *o, char *bad, size_t badcap)
{
  while (q && *q) {
    const char *end = strchr(q, '&'), *eq = strchr(q, '=');
    size_t len = end ? (size_t)(end - q) : strlen(q);
    if (!eq || eq > q + len) {
      snprintf(bad, badcap, "%.*s", (int)len, q);
      return TW_EINVAL;
    }
    char key[16], val[64], *tail;
    snprintf(key, sizeof key, "%.*s", (int)(eq - q), q);
    snprintf(val, sizeof val, "%.*s", (int)(q + len - eq - 1), eq + 1);
    unsigned long long v = strtoull(val, &tail, 0);
    int num = val[0] && !*tail;
    if (!strcmp(key, "mode") && (!strcmp(val, "auto") || !strcmp(val, "halt") || !strcmp(val, "nonstop")))
      o->mode = !strcmp(val, "halt") ? MODE_HALT : !strcmp(val, "nonstop") ? MODE_NONSTOP : MODE_AUTO;
    else if (!strcmp(key, "addr") && num && v <= 0xFFFFFFFFull)
      o->addr = (uint32_t)v;
    else if (!strcmp(key, "size") && num && v >= 16 && v <= 0x100000000ull)
      o->size = (uint32_t)(v - (v == 0x100000000ull));
    else if (!strcmp(key, "cb") && num && v <= 0xFFFFFFFFull)
      o->cb = (uint32_t)v, o->have_cb = 1;
    else if (!strcmp(key, "up") && num && v < TW_RTT_HOST_MAX_CHANNELS)
      o->up = (unsigned)v;
    else if (!strcmp(key, "down") && num && v < TW_RTT_HOST_MAX_CHANNELS)
      o->down = (unsigned)v;
    else if (!strcmp(key, "poll") && num && v >= 1 && v <= 10000)
      o->poll_ms = (int)v;
    else if (!strcmp(key, "find") && num && v <= 3600000)
      o->find_ms = (int)v;
    else if (!strcmp(key, "timeout") && num && v >= 10 && v <= 60000)
      o->timeout_ms = (int)v;
    else {
      snprintf(bad, badcap, "%.*s", (int)len, q);
      return TW_EINVAL;
    }
    q = end ? end + 1 : NULL;
  }
  if ((uint64_t)o->addr + o->size > 0x100000000ull) {
    snprintf(bad, badcap, "addr=0x%08x&size=%u (past 4 GiB)", o->addr, o->size);
    return TW_EINVAL;
  }
  return 0;
}

void tw_rtt_gdb_opts_default(struct tw_rtt_gdb_opts *o)
{
  *o = (struct tw_rtt_gdb_opts){
    .addr = 0x20000000u, .size = 0x10000u, .poll_ms = 10, .find_ms = 3000, .timeout_ms = 2000,
    .mode = MODE_AUTO,
  };
}

int tw_conn_rtt_gdb_open(const char *host, const char *port, const char *query, int wait,
                         struct tw_conn **out, char *err, size_t errcap)
{
  struct tw_rtt_gdb_opts o;
  char bad[128];
  tw_rtt_gdb_opts_default(&o);
  if (parse_opts(query, &o, bad, sizeof bad) < 0) {
    snprintf(err, errcap, "rtt+gdb://%s:%s: bad option '%s' (addr=, size=, cb=, up=, down=, "
             "poll=MS, find=MS, timeout=MS, mode=auto|halt|nonstop)", host, port, bad);
    return TW_EINVAL;
  }
  struct rtt_conn *c = calloc(1, sizeof *c);
  if (!c)
    return TW_ENOMEM;
  char name[256];
  snprintf(name, sizeof name, "rtt+gdb://%s:%s", host, port);
  tw__conn_init(&c->base, &rtt_ops, name);
  c->o = o;
  int rc = tw__conn_tcp_connect(host, port, wait, &c->link, err, errcap);
  if (rc < 0) {
    free(c);
    return rc;
  }
  /* connected means: a control block found (the first poll does it) */
  c->base.connects = 0;
  c->base.reconnect = wait;
  if (!tw_conn_connected(c->link)) {
    snprintf(c->base.err, sizeof c->base.err, "%s: %s", name, tw_conn_error(c->link));
    *out = &c->base;
    return 0;
  }
  c->link_connects = c->link->connects;
  if ((rc = greet(c)) < 0) {
    snprintf(err, errcap, "%s: %s", name, c->base.err[0] ? c->base.err : tw_gdb_error(&c->gdb));
    tw_conn_close(c->link);
    free(c);
    return rc;
  }
  /* find the block now, so the first command has somewhere to go: the
   * target may still be starting, so search with it running in between */
  while ((rc = cycle(c)) == 0 && !c->attached)
    tw_sys->poll(NULL, 0, c->o.poll_ms);
  if (rc < 0) {
    snprintf(err, errcap, "%s", c->base.err[0] ? c->base.err : tw_gdb_error(&c->gdb));
    rtt_close(&c->base);
    return rc;
  }
  *out = &c->base;
  return 0;
}

const struct tw_gdb *tw_conn_rtt_gdb_client(const struct tw_conn *s)
{
  return s->ops == &rtt_ops ? &((const struct rtt_conn *)s)->gdb : NULL;
}

const struct tw_rtt_host *tw_conn_rtt_gdb_rtt(const struct tw_conn *s)
{
  return s->ops == &rtt_ops ? &((const struct rtt_conn *)s)->rtt : NULL;
}
