/*
 * tw_sim_link: the modelled target's tracing stack over a byte link, the
 * same on the host demo (TCP or a file) and on the Cortex-M3 firmware
 * (UART0): kernel event logger -> streamer -> UIA event packets -> write();
 * read() -> UIA message packets -> command service -> replies -> write().
 *
 * The workload model's collector task calls tw_sim_link_drain() once per OS
 * tick: it reads whatever command bytes arrived, hands each complete
 * message packet to the command service, then lets the streamer take
 * events (no waiting: the model is single-threaded and virtual time only
 * moves when the model says so). That makes the packet stream a pure
 * function of scenario and seed as long as the host sends no commands.
 *
 * Framing of the host's bytes: a message packet's length is in its first
 * header word; a first word that is not a plausible HdrType_Msg header is
 * skipped a byte at a time (resynchronisation) and counted.
 *
 * Freestanding. One thread (the model's).
 */
#ifndef TW_SIM_LINK_H
#define TW_SIM_LINK_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/cmd.h"
#include "tracewire/streamer.h"

/* Write all len bytes (blocking). 0, or a negative TW_E* code: the link is
 * gone, tw_sim_link_drain() then stops the run. */
typedef int (*tw_link_write_fn)(void *ctx, const void *buf, size_t len);
/* Read up to cap bytes without blocking: count (0 = nothing yet), or a
 * negative TW_E* code when the link is closed. */
typedef int (*tw_link_read_fn)(void *ctx, void *buf, size_t cap);

struct tw_sim_link {
  struct tw_streamer streamer;
  struct tw_cmd cmd;
  tw_link_write_fn write;
  tw_link_read_fn read;      /* may be NULL: no command channel */
  void *io;
  uint8_t rx[TW_CFG_CMD_MAX_BYTES];
  size_t rx_fill;
  uint32_t resync_bytes;     /* bytes skipped looking for a message header */
  int write_failed;
  int started;
};

/* Everything on: the ids 1..17 of the kernel and RTOS vocabulary. */
#define TW_SIM_LINK_ALL_EVENTS 0x1FFFFu

/* Set up streamer and command service (endpoint TW_ADDR_DEFAULT) over the
 * kernel event logger, timestamps at freq_hz, and START recording with
 * mask. Returns 0 or a negative TW_E* code. */
int tw_sim_link_init(struct tw_sim_link *l, tw_link_write_fn write, tw_link_read_fn read,
                     void *io, uint32_t freq_hz, uint32_t mask);
/* Options of tw_sim_link_init_opts(). */
#define TW_SIM_LINK_CHECK 1u /* the streamer's payload check (tw_streamer_cfg.check) */
/* The same with options (TW_SIM_LINK_*). */
int tw_sim_link_init_opts(struct tw_sim_link *l, tw_link_write_fn write, tw_link_read_fn read,
                          void *io, uint32_t freq_hz, uint32_t mask, unsigned opts);
/* The collector's work (a tw_sim_drain): commands in, events out. Returns
 * events taken, or -1 once recording was stopped (by a STOP command) or
 * the link failed, which ends the model's run. */
int tw_sim_link_drain(void *link);
/* End of run: stop recording (TRACE_STOP, reason 1 = application) unless
 * the host already did, drain the ring and flush the last packet. */
int tw_sim_link_finish(struct tw_sim_link *l);

/* Real time, for lingering (the model's clock is virtual). */
struct tw_link_clock {
  uint32_t (*now_ms)(void *ctx);  /* free-running milliseconds */
  void (*pause)(void *ctx);       /* wait a little (may be NULL: spin) */
  void *ctx;
};

/* After the run (and tw_sim_link_finish): keep answering the host's
 * commands until nothing arrived for quiet_ms, max_ms passed, or the host
 * closed its side, so every command sent before the end gets its reply
 * and no unread byte is left on the link (a TCP peer closing with unread
 * data resets the connection and loses the stream's tail). Returns
 * command bytes taken. */
unsigned long tw_sim_link_linger(struct tw_sim_link *l, const struct tw_link_clock *clk,
                                 uint32_t quiet_ms, uint32_t max_ms);

#endif
