/*
 * The decoder: UIA event packets -> struct tw_event, with loss accounting,
 * time conversion, names, custom events and snapshot reassembly.
 *
 * Streams: one per (endpoint = packet source address, logger instance id).
 * Each stream keeps its packet and event sequence state, its clock, its
 * snapshot reassembly buffer and its counters. Names and custom event
 * declarations belong to the endpoint (the target), shared by its streams.
 *
 * Loss by cause, per stream (docs/host.md, "Loss accounting"):
 *   ring_drops        sum of the target's DROPS records: the logger ring
 *                     overflowed before the events reached a packet
 *   pkts_lost         packet sequence gaps: packets lost in transport
 *   events_lost       event sequence gaps at a packet sequence gap: the
 *                     events those lost packets carried
 *   unexplained       event sequence gaps with neither a DROPS record nor a
 *                     packet gap (should be 0; reported when not)
 * Whether a DROPS record's events also consumed sequence numbers is the
 * target's choice; both are recognised (a gap equal to the pending DROPS
 * count is not counted twice).
 *
 * Restarts (counted in restarts, never as loss): a target that reset or
 * reconnected from scratch starts its sequence numbers again. A packet
 * whose sequence number does not follow starts a new run when it is the
 * start of a session (packet sequence 0, first record a SYNC or TRACE_START
 * with event sequence 0: what the streamer sends first after init,
 * docs/streamer.md) or when the packet sequence went back by more than
 * TW_DECODER_RESTART_BACK packets. The next record then starts the event
 * sequence afresh (no gap), pending DROPS and packet gaps are dropped, and
 * a TW_DIAG_RESTART says so. What the previous session sent after its
 * last packet that arrived cannot be counted: the diagnostic says from
 * where. A step back of up to TW_DECODER_RESTART_BACK is a duplicated or
 * reordered packet (TW_DIAG_PKT_LOSS with TW_EPROTO and count 0).
 *
 * Payload check (docs/wire-format.md, "Payload check"): a packet that ends
 * with a PKT_CHECK record is verified (CRC-16/CCITT-FALSE of its bytes);
 * from the first verified one on, a stream's packets must all carry one,
 * until a session starts again without them (the restart signature
 * above: a target with other firmware).
 * A packet that fails (wrong CRC, or none where the stream has them) is
 * dropped whole before anything in it is used (its address may be the
 * damaged part), counted in check_failed and said (TW_DIAG_CHECK); its
 * records then show as a sequence gap: lost in transport, never decoded
 * with a wrong value. PKT_CHECK records are consumed, not delivered.
 *
 * Time: 64-bit ticks -> ns with the stream's frequency (SYNC.freq_hz, or
 * tw_decoder_set_freq() from the target's info reply; until either is known
 * 1 GHz is assumed and a diagnostic says so). A timestamp smaller than the
 * stream's previous one is reported (TW_DIAG_BACKWARDS) and passed through
 * unchanged: the decoder never "fixes" time silently.
 *
 * Memory: bounded by the configuration (streams, names, custom kinds,
 * snapshot bytes, unknown-id table), never by trace length.
 *
 * Context: one thread per decoder. Event pointers (desc, str) are valid
 * during the callback only, except desc, which lives as long as the decoder.
 */
#ifndef TRACEWIRE_WIRE_DECODER_H
#define TRACEWIRE_WIRE_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/uia.h"
#include "tracewire/wire/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tw_decoder_cfg {
  size_t max_streams;   /* default 64 */
  size_t max_names;     /* per decoder, default 65536 */
  size_t max_custom;    /* custom event kinds, default 256 */
  size_t max_snapshot;  /* bytes of one reassembled snapshot, default 65535 */
  uint32_t default_freq_hz; /* 0: 1 GHz (ticks are ns) until SYNC says otherwise */
};

enum tw_diag_kind {
  TW_DIAG_SKIP,        /* bytes skipped by the reader (offset, count, err) */
  TW_DIAG_PKT_LOSS,    /* packet sequence gap (count packets) */
  TW_DIAG_EVT_GAP,     /* event sequence gap with no DROPS and no packet loss */
  TW_DIAG_RING_DROPS,  /* a DROPS record (count events) */
  TW_DIAG_BACKWARDS,   /* timestamp went backwards (a = previous, b = new ticks) */
  TW_DIAG_UNKNOWN_ID,  /* first record of an unknown event id (a = module, b = id) */
  TW_DIAG_SNAPSHOT,    /* snapshot record missing or inconsistent (err) */
  TW_DIAG_BAD_RECORD,  /* a record that cannot be parsed (err); rest of packet skipped */
  TW_DIAG_NO_FREQ,     /* events timed before any frequency was known */
  TW_DIAG_BAD_DECL,    /* a CUSTOM_DECL that cannot be parsed */
  TW_DIAG_LIMIT,       /* a configured bound was reached (err = TW_ENOSPC) */
  TW_DIAG_NAMES_LOST,  /* the target's name table was full (count: names it refused so far) */
  TW_DIAG_RESTART,     /* the sequence numbers started again (a = old next, b = new packet seq) */
  TW_DIAG_CHECK        /* a packet failed its payload check (err TW_ECRC): dropped */
};

/* A packet sequence that goes back further than this is a restart. */
#define TW_DECODER_RESTART_BACK 64u

struct tw_diag {
  enum tw_diag_kind kind;
  int err;                    /* TW_E* when meaningful, else 0 */
  int stream;                 /* stream index, -1 if none */
  uint16_t endpoint, instance;
  unsigned long long offset;  /* stream byte offset (packet start, or skip start) */
  unsigned long long packet;  /* packet ordinal */
  unsigned long long count;
  uint64_t a, b;
  char msg[200];              /* one line, no trailing newline */
};

struct tw_stream_stats {
  uint16_t endpoint, instance, module;
  uint32_t freq_hz;
  unsigned long long packets, records, events;
  unsigned long long pkts_lost, events_lost, ring_drops, unexplained;
  unsigned long long backwards, snap_errors, bad_records, unknown;
  unsigned long long restarts;   /* new runs of sequence numbers (see above): not loss */
  unsigned long long checked;    /* packets whose payload check was verified */
  unsigned long long check_failed; /* packets dropped: check wrong, or missing on a
                                      stream that has them (lost: see above) */
  uint64_t first_ticks, last_ticks;
  int have_time;
  unsigned long long names_lost; /* NAMES_LOST: names the target's full table
                                    refused (its running total, the largest seen) */
};

typedef int (*tw_event_fn)(void *ctx, const struct tw_event *ev);
typedef void (*tw_diag_fn)(void *ctx, const struct tw_diag *d);
/* A message packet (replies to commands, NOTIFY, ...). */
typedef void (*tw_msg_fn)(void *ctx, const struct tw_pkt *pkt);

struct tw_decoder;

int tw_decoder_open(struct tw_decoder **out, const struct tw_decoder_cfg *cfg);
void tw_decoder_close(struct tw_decoder *d);
void tw_decoder_on_event(struct tw_decoder *d, tw_event_fn fn, void *ctx);
void tw_decoder_on_diag(struct tw_decoder *d, tw_diag_fn fn, void *ctx);
void tw_decoder_on_msg(struct tw_decoder *d, tw_msg_fn fn, void *ctx);

/* Decode one packet found at stream offset `offset`, ordinal `number`.
 * Returns 0, or the first nonzero value an event callback returned. */
int tw_decoder_packet(struct tw_decoder *d, const struct tw_pkt *pkt,
                      unsigned long long offset, unsigned long long number);
/* Account a reader skip (reported as TW_DIAG_SKIP). */
void tw_decoder_skip(struct tw_decoder *d, const struct tw_skip *skip);
/* Read packets until the end of the reader's source; decodes them all.
 * Returns 0 at the end, the callback's nonzero value, or a source error. */
int tw_decoder_run(struct tw_decoder *d, struct tw_reader *r);

/* Frequency for an endpoint's streams (target info reply). */
void tw_decoder_set_freq(struct tw_decoder *d, uint16_t endpoint, uint32_t freq_hz);
/* Name of a numbered object of an endpoint, whole (as long as the target
 * sent it; a NUL byte in it ends it), or NULL. The string stays valid
 * until the object is renamed or the decoder is closed. */
const char *tw_decoder_name(const struct tw_decoder *d, uint16_t endpoint,
                            enum tw_obj_kind kind, uint32_t number);
/* Iterate names: 0.. until it returns 0. */
int tw_decoder_name_at(const struct tw_decoder *d, size_t i, uint16_t *endpoint,
                       enum tw_obj_kind *kind, uint32_t *number, const char **name);
size_t tw_decoder_nstreams(const struct tw_decoder *d);
const struct tw_stream_stats *tw_decoder_stream(const struct tw_decoder *d, size_t i);
/* Unknown event ids seen: 0.. until it returns 0. */
int tw_decoder_unknown_at(const struct tw_decoder *d, size_t i, uint16_t *endpoint,
                          uint16_t *module, uint16_t *id, unsigned long long *count);
/* Custom event kinds declared in-band: 0.. until NULL. */
const struct tw_event_desc *tw_decoder_custom_at(const struct tw_decoder *d, size_t i,
                                                 uint16_t *endpoint);
/* Checkpoint: the state decoding so far left that changes how the rest of
 * the stream decodes (streams' clocks and sequence state, names, custom
 * declarations; not the counters). Lets a reader start in the middle of a
 * trace (a .twt time index, docs/trace-file.md) and decode exactly as a
 * reader that came from the start. tw_decoder_save() writes up to cap
 * bytes and returns the size it needs (call again with a larger buffer if
 * it exceeds cap), or TW_EAGAIN while a snapshot is half reassembled (no
 * checkpoint possible there). tw_decoder_restore() needs a decoder that
 * has decoded nothing, with a configuration at least as large as the
 * saver's; TW_EBADMSG (and the decoder left fresh) on a malformed blob. */
int tw_decoder_save(const struct tw_decoder *d, void *buf, size_t cap);
int tw_decoder_restore(struct tw_decoder *d, const void *buf, size_t len);
/* ns for a stream's ticks, with its frequency. */
uint64_t tw_decoder_ticks_to_ns(const struct tw_decoder *d, int stream, uint64_t ticks);

#ifdef __cplusplus
}
#endif

#endif
