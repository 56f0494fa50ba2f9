/*
 * The framing reader: turns a byte source into UIA packets.
 *
 * A packet is recognised by its header type and length and confirmed by
 * tw_pkt_parse() (footer magic and length, reserved bits). Anything else is
 * skipped one byte at a time until the next valid packet, and the skipped
 * region is reported once, as (stream offset, byte count, reason), where the
 * reason is why the first candidate of the region was rejected. A damaged
 * packet therefore costs exactly its own bytes: the scan restarts at its
 * second byte, so the next intact packet is always found.
 *
 * InvalidData padding after a valid packet is skipped silently (counted in
 * the stats) when it passes the checks in reader.c's design note.
 *
 * Footer-less packets (TI's own senders write none: the length counts
 * header and payload only) are accepted per stream: a stream is taken for
 * such a sender when an event packet without a valid footer has records
 * that fill it exactly and its length lands on the header of another
 * packet; never from one packet alone (reader.c, "Footer-less streams").
 * From then on its packets may come without a footer, counted in the
 * stats; a packet with a valid footer is still taken as one.
 *
 * Memory: one buffer of 2 * max_pkt_bytes + read_bytes, allocated at open. A
 * length field larger than max_pkt_bytes is rejected before anything is
 * read or allocated for it.
 *
 * Context: one thread per reader. Packets point into the reader's buffer and
 * stay valid until the next tw_reader_next() call.
 */
#ifndef TRACEWIRE_WIRE_READER_H
#define TRACEWIRE_WIRE_READER_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/uia.h"
#include "tracewire/io/conn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_reader_cfg {
  size_t max_pkt_bytes; /* bound on any length field; 0: TW_EVPKT_MAX_BYTES */
  size_t read_bytes;    /* bytes asked of the source per read; 0: 256 KiB */
  int footerless;       /* the sender is known to write no footer (record
                           --no-footer): its packets, replies included, are
                           taken without waiting to detect it */
};

struct tw_skip {
  unsigned long long offset; /* stream offset of the first skipped byte */
  unsigned long long count;  /* bytes skipped */
  int reason;                /* TW_E*: why the first candidate failed */
  uint32_t word;             /* the first word at offset (host order), for the message */
};

typedef void (*tw_skip_fn)(void *ctx, const struct tw_skip *skip);
typedef void (*tw_tap_fn)(void *ctx, const void *bytes, size_t n);

struct tw_reader_stats {
  unsigned long long bytes;        /* delivered by the source */
  unsigned long long packets;      /* valid packets returned */
  unsigned long long skipped;      /* bytes skipped */
  unsigned long long skips;        /* skipped regions */
  unsigned long long padding;      /* InvalidData padding bytes (not damage) */
  unsigned long long footerless;   /* packets taken without a footer */
  int footerless_stream;           /* footer-less: 1 found (see above), 2 told */
  unsigned long long footerless_at; /* stream offset of the packet that showed it */
};

struct tw_reader;

int tw_reader_open(struct tw_reader **out, struct tw_conn *src, const struct tw_reader_cfg *cfg);
void tw_reader_close(struct tw_reader *r); /* does not close the source */
/* Called for every skipped region, before the packet that ends it. */
void tw_reader_on_skip(struct tw_reader *r, tw_skip_fn fn, void *ctx);
/* Called with every run of bytes the source delivers (the recorder stores
 * them as received, corruption included). */
void tw_reader_on_bytes(struct tw_reader *r, tw_tap_fn fn, void *ctx);

/* Next valid packet: 1 (*pkt filled), TW_EAGAIN when the source had nothing
 * within timeout_ms, TW_EOF at the end (trailing bytes reported as a skip
 * first), or a source error. */
int tw_reader_next(struct tw_reader *r, struct tw_pkt *pkt, int timeout_ms);

/* Stream offset and ordinal (0-based) of the packet last returned. */
unsigned long long tw_reader_pkt_offset(const struct tw_reader *r);
unsigned long long tw_reader_pkt_number(const struct tw_reader *r);
const struct tw_reader_stats *tw_reader_stats(const struct tw_reader *r);
struct tw_conn *tw_reader_conn(const struct tw_reader *r);

/* Where a reader that starts here would frame exactly as this one goes on
 * (a .twt time index records it): *off the stream offset of the next
 * unread byte, *num the last packet's ordinal. Returns the framing state,
 * 0..7: bit 0 whether the last thing read was a valid packet (which
 * decides how padding and footer-less packets right here are taken), bit
 * 1 whether the stream is footer-less, bit 2 whether a packet with a
 * footer was seen (then it never becomes footer-less); TW_EAGAIN while
 * bytes are being skipped or a cut is pending. */
int tw_reader_resume_point(const struct tw_reader *r, unsigned long long *off, unsigned long long *num);
/* Make a fresh reader (nothing read yet) go on from such a point: its
 * source must deliver the stream from byte off on; state as returned
 * above. TW_EINVAL if it read, or for a state beyond 7. */
int tw_reader_resume(struct tw_reader *r, unsigned long long off, unsigned long long num, int state);

/* Tell the reader its sender writes no footer (tw_reader_cfg.footerless),
 * before it reads (a .twt says so for record --no-footer). */
void tw_reader_set_footerless(struct tw_reader *r);

/* The data ends at a cut, not where the sender stopped (an index's stop
 * point, tw_conn_twt_limit), and the stream was footer-less there: the
 * last packet before the cut, which no header follows to show its style,
 * is read footer-less as a full read, which sees the header after it, reads
 * it. */
void tw_reader_set_edge_footerless(struct tw_reader *r);

/* Text for a skip reason: "bad footer", "impossible length", ... */
const char *tw_skip_reason(int reason);

#ifdef __cplusplus
}
#endif

#endif
