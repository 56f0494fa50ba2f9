/*
 * RTT: a SEGGER-RTT-compatible control block, so a debug probe (J-Link,
 * OpenOCD's rtt server, pyOCD, probe-rs) or `tracewire record --from
 * rtt+gdb://` moves trace bytes through the target's RAM instead of a UART.
 *
 * Layout (the public one every RTT host reads; 32-bit words, target order):
 *
 *     +0   char     id[16]       "SEGGER RTT", NUL-padded, written last
 *     +16  int32    max_up       number of up channels (target -> host)
 *     +20  int32    max_down     number of down channels (host -> target)
 *     +24  channel  up[max_up], then down[max_down], 24 bytes each:
 *          +0 name (address of a C string, or 0)   +4 buffer address
 *          +8 size in bytes   +12 write offset   +16 read offset   +20 flags
 *
 * Each channel is a byte ring with one writer and one reader: up channels
 * are written by the target (write offset) and read by the host (read
 * offset); down channels the other way round. A ring of `size` bytes holds
 * at most size - 1 (write == read means empty). The host reads and writes
 * RAM while the CPU runs (or, through a GDB server that cannot, halts it
 * briefly: docs/rtt.md), so every offset is published with release after
 * the bytes it covers and loaded with acquire before the bytes it allows.
 *
 * Up-channel modes (flags bits 0-1; values as SEGGER's):
 *   TW_RTT_SKIP       a write that does not fit entirely writes nothing
 *                     (non-blocking; the streamer then keeps its packet
 *                     and the logger's ring absorbs the back-pressure as
 *                     exact drops)
 *   TW_RTT_TRIM       writes what fits (non-blocking; for text: a packet
 *                     channel is never cut, tw_rtt_send treats it as SKIP)
 *   TW_RTT_BLOCK      waits until the host made room (the host must poll)
 *   TW_RTT_OVERWRITE  tracewire's: never waits, discards the oldest bytes
 *                     by moving the read offset itself (post-mortem: read
 *                     the newest data after a halt; a host reading
 *                     concurrently may get a torn packet, which its reader
 *                     reports as skipped bytes and a sequence gap)
 *
 * Context: one writer per up channel and one reader per down channel at a
 * time (the collector thread for the streamer's channel; several writers
 * on one channel need a lock of their own). The control block and its
 * buffers must have 32-bit addresses (always on a 32-bit target; a 64-bit
 * host test maps them low) and live in RAM the probe can read (on a part
 * with a data cache: non-cacheable, or cleaned). Freestanding, no
 * allocation.
 */
#ifndef TRACEWIRE_RTT_H
#define TRACEWIRE_RTT_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/error.h"
#include "tracewire/cdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TW_CFG_RTT_UP
#define TW_CFG_RTT_UP 1   /* up channels in the control block */
#endif
#ifndef TW_CFG_RTT_DOWN
#define TW_CFG_RTT_DOWN 1 /* down channels */
#endif

enum tw_rtt_mode { TW_RTT_SKIP = 0, TW_RTT_TRIM = 1, TW_RTT_BLOCK = 2, TW_RTT_OVERWRITE = 3 };
#define TW_RTT_MODE_MASK 3u

#define TW_RTT_ID "SEGGER RTT"
#define TW_RTT_ID_BYTES 16u
#define TW_RTT_CB_HDR_BYTES 24u  /* id, max_up, max_down */
#define TW_RTT_CHAN_BYTES 24u    /* one channel descriptor */

/* One channel descriptor (SEGGER_RTT_BUFFER_UP / _DOWN). Addresses are
 * 32-bit target addresses. */
struct tw_rtt_chan {
  uint32_t name;   /* address of the channel's name, or 0 */
  uint32_t buf;    /* address of its buffer */
  uint32_t size;   /* bytes */
  uint32_t wr;     /* write offset: target (up), host (down) */
  uint32_t rd;     /* read offset: host (up), target (down) */
  uint32_t flags;  /* bits 0-1: enum tw_rtt_mode */
};
TW_STATIC_ASSERT(sizeof(struct tw_rtt_chan) == TW_RTT_CHAN_BYTES, "RTT channel is 24 bytes");

struct tw_rtt_cb {
  char id[TW_RTT_ID_BYTES];
  int32_t max_up;
  int32_t max_down;
  struct tw_rtt_chan up[TW_CFG_RTT_UP];
  struct tw_rtt_chan down[TW_CFG_RTT_DOWN];
};
TW_STATIC_ASSERT(sizeof(struct tw_rtt_cb) ==
                   TW_RTT_CB_HDR_BYTES + TW_RTT_CHAN_BYTES * (TW_CFG_RTT_UP + TW_CFG_RTT_DOWN),
               "RTT control block layout");

/* Set up cb with every channel unconfigured (size 0), then publish it: the
 * identifier is written last, so a host searching RAM never finds a half
 * made block. TW_EINVAL for NULL or an address above 4 GiB. Thread
 * context, before anything else uses cb. */
int tw_rtt_init(struct tw_rtt_cb *cb);

/* Give channel ch a buffer of size bytes (>= 2) and a mode; name may be
 * NULL. The offsets restart at 0: configure a channel before the host
 * uses it. TW_EINVAL for a bad channel, size, mode or address. */
int tw_rtt_config_up(struct tw_rtt_cb *cb, unsigned ch, const char *name, void *buf,
                     uint32_t size, enum tw_rtt_mode mode);
int tw_rtt_config_down(struct tw_rtt_cb *cb, unsigned ch, const char *name, void *buf,
                       uint32_t size);
/* Change an up channel's mode. */
int tw_rtt_set_mode(struct tw_rtt_cb *cb, unsigned ch, enum tw_rtt_mode mode);

/* Write len bytes to up channel ch as its mode says. Returns the bytes
 * written (SKIP: len or 0; TRIM: what fitted; BLOCK, OVERWRITE: len, and
 * OVERWRITE with len > size - 1 keeps the last size - 1), or TW_EINVAL
 * for an unconfigured channel. The channel's one writer. */
int tw_rtt_write(struct tw_rtt_cb *cb, unsigned ch, const void *data, uint32_t len);
/* Bytes the host has not read yet from up channel ch (0 when drained). */
uint32_t tw_rtt_unread(const struct tw_rtt_cb *cb, unsigned ch);

/* Read up to cap bytes the host wrote to down channel ch; returns the
 * count (0: nothing) or TW_EINVAL. Never waits. The channel's one reader. */
int tw_rtt_read(struct tw_rtt_cb *cb, unsigned ch, void *buf, uint32_t cap);

/* The streamer's transport (tw_pkt_send_fn) on up channel 0 of the control
 * block ctx: the whole packet or nothing. 0 when written; TW_EBUSY when it
 * does not fit now (SKIP, TRIM), so the streamer offers it again later. */
int tw_rtt_send(void *ctx, const void *pkt, size_t len);

#ifdef __cplusplus
}
#endif

#endif
