/*
 * The host's side of an RTT control block (the layout and ownership rules
 * are in tracewire/rtt.h): find the block in a range of target memory,
 * read what the target wrote to an up channel, write to a down channel.
 * Memory is reached through two callbacks (a GDB server: conn_rtt_gdb.c;
 * a test: plain memory), so this file knows nothing of probes.
 *
 * Nothing the target's memory says is trusted: the block is re-read and
 * checked on every poll (identifier, channel counts, buffer address and
 * size as found, offsets inside the buffer) and every read is bounded by
 * the channel's size as found. A block that fails a check is reported
 * with what and where ("control block at 0x20000400: up channel 0: write
 * offset 5000 outside its 1024-byte buffer") and never followed.
 *
 * One thread at a time.
 */
#ifndef TRACEWIRE_HOST_RTT_HOST_H
#define TRACEWIRE_HOST_RTT_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_rtt_mem {
  /* 0 or a negative TW_E* code (the memory's own message kept by ctx) */
  int (*read)(void *ctx, uint32_t addr, void *buf, uint32_t len);
  int (*write)(void *ctx, uint32_t addr, const void *buf, uint32_t len);
  void *ctx;
};

#define TW_RTT_HOST_MAX_CHANNELS 32   /* more in a block means it is not one */
#define TW_RTT_HOST_MAX_BUF (16u << 20) /* a larger channel buffer: corrupt */

struct tw_rtt_chan_info {
  uint32_t desc;   /* address of its descriptor */
  uint32_t buf, size, flags;
  char name[32];   /* read once at attach; "" when none or unreadable */
};

struct tw_rtt_host {
  struct tw_rtt_mem mem;
  uint32_t cb;               /* address of the control block */
  int32_t max_up, max_down;
  unsigned up_index, down_index;
  int has_down;              /* the block has the down channel asked for */
  struct tw_rtt_chan_info up, down;
  char err[320];
  unsigned long long up_bytes, down_bytes, polls;
};

/* Look for the identifier "SEGGER RTT" in [from, from + len), reading in
 * chunks. Returns 1 and *found, 0 when it is not there, or an error of
 * the link under the memory (closed, timed out). Chunks the memory refuses
 * (past the target's RAM) are skipped; h->err then names them. */
int tw_rtt_host_find(struct tw_rtt_host *h, uint32_t from, uint32_t len, uint32_t *found);

/* Use the block at cb, channels up_index and down_index (a block without
 * that down channel is fine: writes are then refused). 0, or TW_EPROTO
 * (not a block, or a corrupt one: h->err says what), TW_EAGAIN (the
 * channel is not configured yet: size 0), or the memory's error. */
int tw_rtt_host_attach(struct tw_rtt_host *h, const struct tw_rtt_mem *mem, uint32_t cb,
                       unsigned up_index, unsigned down_index);

/* What the target wrote to the up channel since the last read, up to cap
 * bytes; the read offset is moved past them. Returns the count (0:
 * nothing), TW_EPROTO when the block no longer checks out (overwritten,
 * or the target re-initialised it: attach again), or the memory's error. */
int tw_rtt_host_read(struct tw_rtt_host *h, void *buf, size_t cap);

/* Up to n bytes into the down channel; returns how many fit (0: full), or
 * an error as for read; TW_ENOTSUP without a down channel. */
int tw_rtt_host_write(struct tw_rtt_host *h, const void *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
