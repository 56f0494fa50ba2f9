/*
 * A GDB remote serial protocol client, just enough to read and write a
 * target's memory through any GDB server (QEMU's gdbstub, OpenOCD, pyOCD,
 * the J-Link GDB server, a Black Magic Probe): packets $data#cs with or
 * without acknowledgements, run-length encoded replies, stop replies,
 * interrupting (0x03), continuing, 'm' and 'M', and non-stop mode where a
 * server offers it (memory access while the target runs).
 *
 * The byte link is a connection (tracewire/io/conn.h, usually tcp), so
 * every read and write goes through the syscall table and its faults can
 * be injected. One thread at a time.
 *
 * Target state as this client sees it: after connecting the target is
 * stopped (servers halt it on attach, QEMU among them) until
 * tw_gdb_continue(); tw_gdb_halt() stops it again. In all-stop mode memory
 * is only accessed while it is stopped (a server answers nothing else
 * while it runs); in non-stop mode (tw_gdb_nonstop) at any time.
 *
 * Errors: negative TW_E* with a message in tw_gdb_error(): TW_EOF or
 * TW_ECONNRESET when the server closed the connection, TW_ETIMEDOUT when
 * it did not answer, TW_EPROTO for a malformed or unexpected packet, TW_EIO
 * for an error reply (Exx) naming the request, TW_ENOTCONN when the target
 * exited (W/X stop reply).
 */
#ifndef TRACEWIRE_HOST_GDB_H
#define TRACEWIRE_HOST_GDB_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/io/conn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_GDB_MAX_PKT 4096 /* payload bytes this client handles in one packet */

struct tw_gdb {
  struct tw_conn *link;
  int noack;                 /* QStartNoAckMode accepted */
  int nonstop;               /* non-stop mode on */
  int running;               /* we let the target run (continue sent) */
  int timeout_ms;            /* for each reply (default 2000) */
  size_t mem_chunk;          /* bytes per 'm' / 'M' request */
  char stop[64];             /* the last stop reply ("T05...") */
  unsigned char rx[2 * TW_GDB_MAX_PKT + 64];
  size_t rx_len;
  char buf[TW_GDB_MAX_PKT + 64]; /* requests and replies */
  char err[320];
  /* what the halts cost the target (all-stop mode): how often we stopped
   * it and for how long in all (from asking to letting it run again) */
  unsigned long long halts, halted_ns, mem_reads, mem_bytes;
  unsigned long long halt_t0;    /* when the current stop began */
};

/* Take over a connected link (not owned: the caller closes it). Sends
 * nothing. */
void tw_gdb_init(struct tw_gdb *g, struct tw_conn *link);
/* qSupported (packet size), QStartNoAckMode, '?' (the target's state).
 * 0 or TW_E*. */
int tw_gdb_handshake(struct tw_gdb *g);
/* Try non-stop mode (QNonStop:1): 1 on, 0 when the server has none. */
int tw_gdb_nonstop(struct tw_gdb *g);

/* Stop the target (0x03, or vCont;t in non-stop mode) and wait for its
 * stop reply. 0, or TW_ENOTCONN when it exited meanwhile. */
int tw_gdb_halt(struct tw_gdb *g);
/* Let it run ('c'; vCont;c in non-stop mode). */
int tw_gdb_continue(struct tw_gdb *g);
/* In all-stop mode while running: a stop reply that came by itself (a
 * breakpoint, an exit), without waiting. 1 stopped (g->stop says why),
 * 0 still running, TW_ENOTCONN exited, or an error. */
int tw_gdb_poll_stop(struct tw_gdb *g);

/* len bytes at addr, in mem_chunk requests. Needs the target stopped
 * unless in non-stop mode. */
int tw_gdb_read(struct tw_gdb *g, uint32_t addr, void *buf, uint32_t len);
int tw_gdb_write(struct tw_gdb *g, uint32_t addr, const void *buf, uint32_t len);

/* One request, its reply into reply[cap] (NUL-terminated, run-length
 * decoded). Returns the reply's length. */
int tw_gdb_request(struct tw_gdb *g, const char *req, char *reply, size_t cap);

const char *tw_gdb_error(const struct tw_gdb *g);

#ifdef __cplusplus
}
#endif

#endif
