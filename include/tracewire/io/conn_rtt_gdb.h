/*
 * rtt+gdb://HOST:PORT[?options]: RTT through a GDB server
 * (src/host/conn_rtt_gdb.c; the user's side in docs/rtt.md).
 *
 *   addr=ADDR, size=BYTES  where to search for the control block
 *                          (default 0x20000000, 65536)
 *   cb=ADDR                its address: no search
 *   up=N, down=N           the channels (default 0, 0)
 *   poll=MS                between polls that found nothing (default 10)
 *   find=MS                how long to search before giving up (3000)
 *   timeout=MS             for each server reply (2000)
 *   mode=auto|halt|nonstop auto: non-stop where the server has it (reads
 *                          while the target runs), else halt for each poll
 */
#ifndef TRACEWIRE_HOST_CONN_RTT_GDB_H
#define TRACEWIRE_HOST_CONN_RTT_GDB_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/io/conn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_gdb;
struct tw_rtt_host;

struct tw_rtt_gdb_opts {
  uint32_t addr, size, cb;
  int have_cb;
  unsigned up, down;
  int poll_ms, find_ms, timeout_ms;
  int mode; /* 0 auto, 1 halt, 2 nonstop */
};

void tw_rtt_gdb_opts_default(struct tw_rtt_gdb_opts *o);

/* Connect to the server at host:port and (unless wait) find the control
 * block, searching up to find ms: an error names the range and the
 * options when it is not there. wait: the waiting and reconnecting of
 * tw_conn_open_waiting(). query: the options after '?', or NULL. */
int tw_conn_rtt_gdb_open(const char *host, const char *port, const char *query, int wait,
                         struct tw_conn **out, char *err, size_t errcap);

/* For measurements and tests: the GDB client (halts, time halted, reads)
 * and the RTT state (bytes, polls) of an rtt+gdb connection; NULL for
 * another transport. */
const struct tw_gdb *tw_conn_rtt_gdb_client(const struct tw_conn *s);
const struct tw_rtt_host *tw_conn_rtt_gdb_rtt(const struct tw_conn *s);

#ifdef __cplusplus
}
#endif

#endif
