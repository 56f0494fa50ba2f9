/*
 * tracewire streamer: the collector thread's work. It drains the kernel
 * event logger, turns each event into a UIA EventHdr record with a 64-bit
 * timestamp, packs records into UIA event packets and hands full packets to
 * a transport. docs/streamer.md states what the host can rely on (sequence
 * numbers, drops, SYNC cadence, the time extension rule).
 *
 * Threading: every tw_streamer_* function except tw_streamer_stats() runs
 * in ONE thread, the collector (the logger's single consumer). Emitters in
 * other threads and interrupts only touch the logger and the trace mask.
 *
 * No allocation: the packet buffer lives in the caller's struct, sized by
 * TW_CFG_MAX_PKT_BYTES (uia.h, default 128 = UIAPacket_maxPktLengthInBytes).
 *
 *     static struct tw_streamer s;
 *     tw_streamer_init(&s, &cfg);            // cfg.source, cfg.send, ...
 *     tw_streamer_start(&s);
 *     for (;;) tw_streamer_poll(&s, 10);     // the collector thread
 */
#ifndef TRACEWIRE_STREAMER_H
#define TRACEWIRE_STREAMER_H

#include "tracewire/cdefs.h"

#include <stddef.h>
#include <stdint.h>
#include "tracewire/uia.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1: MinEventPkt (2-word header: device = endpoint & 0x1F, no logger ids,
 * no destination) for small targets; 0: EventPkt (4-word header). */
#ifndef TW_CFG_MIN_EVENT_PKT
#define TW_CFG_MIN_EVENT_PKT 0
#endif
/* 1: the minimal configuration's streamer (docs/performance.md, "The
 * minimal configuration"), for a firmware that only records: it drains
 * core 0's kernel event logger in place (no cfg.source: an event is
 * written from the ring's words and retired once its record is in the
 * packet, so there is no event buffer and nothing held back), and leaves
 * out what such a firmware does not use: periodic SYNC (SYNC goes out at
 * START), names registered while recording (the table goes out at START),
 * statistics, the timed flush, congestion and padding (a partial packet
 * goes out whenever a poll has emptied the ring), the payload check
 * (PKT_CHECK), waiting in poll (the
 * caller paces it), back-off, secondary streamers, and the command
 * service (cmd_service.c compiles to nothing). What goes on the wire is
 * the same protocol (docs/streamer.md), so every host tool reads it. */
#ifndef TW_CFG_STREAMER_MINIMAL
#define TW_CFG_STREAMER_MINIMAL 0
#endif
#ifndef TW_CFG_STREAMER_BATCH
#define TW_CFG_STREAMER_BATCH 64 /* logger events taken per poll, at most */
#endif
#define TW_EVENT_MAX_DATA 255 /* largest logger event (data words) */

#if TW_CFG_MIN_EVENT_PKT
#define TW_STREAMER_HDR_BYTES TW_MINPKT_HDR_BYTES
#else
#define TW_STREAMER_HDR_BYTES TW_EVPKT_HDR_BYTES
#endif
TW_STATIC_ASSERT(TW_CFG_MAX_PKT_BYTES % 4 == 0 &&
               TW_CFG_MAX_PKT_BYTES >= TW_STREAMER_HDR_BYTES + TW_FOOTER_BYTES + 64 &&
               TW_CFG_MAX_PKT_BYTES <= TW_EVPKT_MAX_BYTES,
               "event packet must hold a snapshot record with a short name");

/* What the logger reports about one retrieved event. */
struct tw_src_rec {
  uint16_t id;       /* event id */
  uint16_t size;     /* data words */
  uint32_t dropped;  /* exact count of events dropped just before this one */
  uint32_t wraps;    /* whole 2^32 clock periods slept on top of what the
                        timestamps show (SLEEP events after a long sleep) */
};

/* The logger the streamer drains (src/target/source_klog.c binds the
 * kernel event logger; tests bind fakes). get/get_wait return data words
 * (> 0), 0 when nothing came, or a negative TW_E* code (TW_EMSGSIZE: the
 * event is larger than cap; rec->size says how large). */
struct tw_source {
  int (*get)(void *ctx, struct tw_src_rec *rec, uint32_t *buf, uint32_t cap);
  int (*get_wait)(void *ctx, struct tw_src_rec *rec, uint32_t *buf, uint32_t cap,
                  uint32_t timeout);
  uint32_t (*now)(void *ctx);               /* the 32-bit clock events carry */
  void (*set_mask)(void *ctx, uint32_t mask); /* may be NULL */
  /* drops not yet attached to an event, taken (so STOP can announce
   * them before TRACE_STOP); may be NULL */
  uint32_t (*take_drops)(void *ctx);
  void *ctx;
  uint32_t capacity_words;
  uint32_t freq_hz;
};

/* Hand one packet (wire image, len bytes) to the link. Return 0 when
 * accepted (the bytes may be reused at once), TW_EBUSY to refuse: the
 * streamer keeps the packet, counts a refusal and offers it again on the
 * next poll. Called in the collector thread. */
typedef int (*tw_pkt_send_fn)(void *ctx, const void *pkt, size_t len);

struct tw_streamer_cfg {
#if !TW_CFG_STREAMER_MINIMAL /* the minimal streamer drains core 0's kernel logger */
  struct tw_source source;
#endif
  tw_pkt_send_fn send;
  void *send_ctx;
  uint16_t endpoint;      /* source address of packets (TW_ADDR_DEFAULT) */
  uint16_t module_id;     /* logger module id in the packet header */
  uint16_t instance_id;   /* logger instance id (one per core) */
  uint8_t priority;       /* packet priority, 0..3 */
#if !TW_CFG_STREAMER_MINIMAL
  uint8_t pad;            /* 1: every packet is max_pkt_bytes long, the rest
                             InvalidData padding (fixed-size buffers) */
  uint8_t check;          /* 1: every event packet ends with a PKT_CHECK record,
                             the CRC of the packet, which the host verifies
                             (a link that flips bits: docs/wire-format.md,
                             "Payload check"); 12 bytes a packet */
#endif
  uint32_t max_pkt_bytes; /* <= TW_CFG_MAX_PKT_BYTES; 0 = that */
#if !TW_CFG_STREAMER_MINIMAL
  uint32_t sync_ticks;    /* SYNC at least this often (clock ticks); 0 =
                             2^30; at most 2^31 - 1 */
  uint32_t flush_ticks;   /* a partial packet waits at most this long at
                             congestion 0 (clock ticks); 0 = no timed flush */
#endif
  uint32_t initial_mask;  /* mask START puts in force */
#if !TW_CFG_STREAMER_MINIMAL
  /* 1: another streamer of the same endpoint (core 0's on SMP) sends the
   * names and custom declarations; this one sends events only */
  uint8_t secondary;
#endif
};

struct tw_streamer_stats {
  uint32_t events, drops, records, packets, refusals, bytes, oversize, discarded;
};

/* Pending work the streamer does in order, one step per record. */
enum tw_streamer_work { TW_SW_NONE, TW_SW_START, TW_SW_NAMES, TW_SW_DECLS, TW_SW_STOP };

/* The state first and the buffers last: on a Cortex-M, fields within
 * 124 bytes of the start take 16-bit loads and stores. */
struct tw_streamer {
  uint32_t fill;              /* bytes in pkt (header included) */
  uint32_t max_bytes;
  uint32_t tail;              /* bytes kept free after the records: footer, check */
  int held;                   /* pkt is complete and was refused */
  uint16_t pkt_seq;           /* next packet sequence number */
  uint16_t ev_seq;            /* next event sequence number */
  uint16_t first_seq;         /* of the first record in pkt */
  int running;
  uint32_t mask;              /* in force while running; kept while stopped */
  /* time: last observation of the clock, extended */
  uint64_t now;
  uint32_t now_lo;
  uint64_t out_ts;            /* newest timestamp written: the stream time */
  uint32_t pdrops;            /* drops to announce before the next event */
#if TW_CFG_STREAMER_MINIMAL
  uint32_t due;               /* START, names, STOP asked for, not yet done */
#else
  int work[4];                /* queued enum tw_streamer_work */
  unsigned nwork;
#endif
  unsigned cursor;            /* names / decls sent so far in this dump */
  uint32_t snap_id;
  uint32_t stop_reason;
  uint32_t stop_budget;       /* events STOP may still drain */
#if !TW_CFG_STREAMER_MINIMAL
  uint64_t last_sync;
  uint64_t first_ts;          /* time the partial packet got its first record */
  /* an event taken from the logger and not yet fully written */
  int pend;                   /* 0 none, 1 DROPS record due, 2 event due */
  struct tw_src_rec prec;
  uint64_t pts;               /* its extended timestamp */
  uint32_t poff;              /* bytes of a STR/BLOB event already sent */
  uint32_t names_sent;        /* name table entries already sent this recording */
  uint32_t lost_sent;         /* tw_name_lost() last reported (NAMES_LOST) */
  int congestion;             /* -100..100 (FLOWCTRL) */
  uint32_t backoff;           /* word to sleep on while the link is busy */
  struct tw_streamer_stats st;
#endif
  struct tw_streamer_cfg cfg;
  uint32_t pkt[TW_CFG_MAX_PKT_BYTES / 4]; /* header, records, footer */
#if !TW_CFG_STREAMER_MINIMAL
  /* sized for the largest logger event so a get never leaves one stuck */
  uint32_t pdata[TW_EVENT_MAX_DATA];
#endif
};

/* Validate cfg and initialise (stopped; nothing sent). TW_EINVAL for a
 * missing callback or an out-of-range size. Thread context. */
int tw_streamer_init(struct tw_streamer *s, const struct tw_streamer_cfg *cfg);

/* Queue START: trace mask := s->mask; records SYNC (the clock) and
 * TRACE_START in one packet, then every NAME and every CUSTOM_DECL, and
 * NAMES_LOST when the name table refused registrations. While recording:
 * SYNC and the names only. Names registered while recording follow as
 * NAME records, each before the first event recorded after it (and
 * NAMES_LOST again when the refused count grows). Collector thread.
 * Returns 0 or TW_EBUSY (work queue full). */
int tw_streamer_start(struct tw_streamer *s);
/* Queue STOP: mask := 0 at once, the ring is drained, the drops that no
 * event carried yet are announced in a DROPS record, TRACE_STOP (reason)
 * is written and the partial packet flushed: every drop of the recording
 * is announced before its TRACE_STOP. Collector thread. */
int tw_streamer_stop(struct tw_streamer *s, uint32_t reason);
#if !TW_CFG_STREAMER_MINIMAL
/* Queue a dump of the name table and custom declarations; *names and *decls
 * receive how many records that will be (may be NULL). */
int tw_streamer_send_names(struct tw_streamer *s, uint32_t *names, uint32_t *decls);
#endif

/* The mask START puts in force (and in force now when running). Mask bits:
 * bit id-1 for ids 1..32. Collector thread. */
void tw_streamer_set_mask(struct tw_streamer *s, uint32_t mask);
uint32_t tw_streamer_get_mask(const struct tw_streamer *s);
#if !TW_CFG_STREAMER_MINIMAL
/* FLOWCTRL congestion, clamped to -100..100. Collector thread. */
void tw_streamer_set_congestion(struct tw_streamer *s, int level);
/* Clock ticks a partial packet may wait at the current congestion. */
uint32_t tw_streamer_flush_delay(const struct tw_streamer *s);
#endif

/* One round of the collector: offer a refused packet again, do queued
 * work, take up to TW_CFG_STREAMER_BATCH events (waiting up to `timeout`
 * port ticks for the first when idle; 0 = no wait), write a SYNC when due,
 * flush a partial packet whose delay expired. Returns events taken, or
 * TW_EBUSY when the transport refused the held packet again (after
 * sleeping `timeout` ticks, so a busy link is not polled in a spin). Collector thread;
 * call at least once per sync_ticks (docs/streamer.md).
 * TW_CFG_STREAMER_MINIMAL: `timeout` is unused (it never waits: the
 * caller paces the polls, at least one per 2^31 clock ticks); no SYNC is
 * due; a partial packet goes out when the poll has emptied the ring. */
int tw_streamer_poll(struct tw_streamer *s, uint32_t timeout);
/* Send the partial packet now. 0, TW_EBUSY (refused; kept). Collector. */
int tw_streamer_flush(struct tw_streamer *s);

#if !TW_CFG_STREAMER_MINIMAL
/* Counters (racy snapshot from another thread is fine for display). */
void tw_streamer_stats(const struct tw_streamer *s, struct tw_streamer_stats *st);
void tw_streamer_reset_stats(struct tw_streamer *s);
#endif
static inline int tw_streamer_running(const struct tw_streamer *s) { return s->running; }
/* 1 when nothing is queued or unsent: START and STOP done, no packet held
 * or partly filled. Collector thread. */
int tw_streamer_idle(const struct tw_streamer *s);

/* The kernel event logger as a source (src/target/source_klog.c): core
 * 0's, or (SMP, TW_CFG_CORES > 1) core `core`'s, one streamer per core
 * with instance_id = core; 0 or TW_EINVAL for a core out of range. */
void tw_source_klog(struct tw_source *src);
int tw_source_klog_core(struct tw_source *src, uint32_t core);

#ifdef __cplusplus
}
#endif

#endif
