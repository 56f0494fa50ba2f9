/*
 * Direct recording: the minimal configuration (docs/performance.md). With
 * TW_CFG_DIRECT=1 the generated emitters frame each event as a UIA packet
 * of its own straight into an RTT up channel, under the interrupt lock,
 * as SEGGER SystemView writes into its RTT buffer: the channel's buffer is
 * the ring, so there is no event logger ring, no collector thread and no
 * packet buffer, and the whole recording path fits in about 1 KB of code
 * and some 100 bytes of RAM beside the RTT buffer.
 *
 * The host sees what the streamer sends (docs/streamer.md), one event per
 * packet: a MinEventPkt (TW_CFG_MIN_EVENT_PKT=1) or EventPkt holding the
 * event with its 64-bit timestamp (the clock is read inside the lock, so
 * timestamps are in stream order), preceded, when due, by a packet with a
 * SYNC record (sync_ticks passed since the last) and a DROPS record (events
 * the channel could not take before this one). tw_direct_start() writes SYNC, TRACE_START and a
 * NAME record per name; tw_direct_stop() TRACE_STOP. Sequence numbers and
 * drop counts are exact as the streamer's: an event that does not fit the
 * channel (TW_RTT_SKIP, TW_RTT_TRIM) is counted and announced by the next
 * one's DROPS record; TW_RTT_OVERWRITE discards the oldest bytes instead
 * (post-mortem); TW_RTT_BLOCK waits for the host with interrupts locked.
 *
 * What it does not do: custom events (build with TW_CFG_CUSTOM_DECLS=0),
 * commands from the host, names registered while recording (they go out
 * at the next start), batching (each event pays an 8-byte header and a
 * 4-byte footer), several cores (the lock is the core's interrupt mask).
 *
 * The channel's buffer must be 4-byte aligned and its size a power of two
 * (>= 256): packets are whole words, written with a mask.
 */
#ifndef TRACEWIRE_DIRECT_H
#define TRACEWIRE_DIRECT_H

#include <stdint.h>
#include "tracewire/rtt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_CFG_DIRECT
#define TW_CFG_DIRECT 0
#endif

struct tw_direct_cfg {
  struct tw_rtt_cb *rtt;  /* control block, initialised (tw_rtt_init) */
  unsigned channel;       /* its up channel to write, configured */
  uint32_t freq_hz;       /* rate of the timestamp clock, for SYNC */
  uint16_t endpoint;      /* packet source address (TW_ADDR_DEFAULT) */
  uint32_t sync_ticks;    /* a SYNC at least this often; 0 = 2^30, < 2^31 */
};

struct tw_direct_stats {
  uint32_t events;   /* events written */
  uint32_t drops;    /* events that did not fit the channel */
  uint32_t packets;  /* packets written (events and control) */
  uint32_t bytes;
};

/* Bind the recorder to its channel; stopped. TW_EINVAL for a channel that
 * is not configured, not aligned or not a power of two. Thread context,
 * before start. */
int tw_direct_init(const struct tw_direct_cfg *cfg);

/* SYNC, TRACE_START {mask}, mask on (tw_trace_mask), then the names.
 * TW_EBUSY when the channel has no room for them all now: try again once
 * the host has read (SYNC and the names are written again; the host keeps
 * a name's last record). While recording: SYNC and the names. Thread
 * context; interrupts are locked while it writes. */
int tw_direct_start(uint32_t mask);

/* Mask off, then TRACE_STOP {reason}. TW_EBUSY when it does not fit now
 * (the mask stays off). Thread context. */
int tw_direct_stop(uint32_t reason);

void tw_direct_stats(struct tw_direct_stats *st);

#ifdef __cplusplus
}
#endif

#endif
