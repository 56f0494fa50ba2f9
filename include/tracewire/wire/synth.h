/*
 * A synthetic target: writes valid UIA event packets from a deterministic
 * script (every vocabulary event with varying fields, names, a custom event,
 * optional ring-overflow DROPS). Tests, the benchmark, the memory test and
 * `tracewire synth` use it where a real target is not needed or too slow.
 * It encodes with the wire API (uia.h) and the vocabulary's descriptors,
 * never with the decoder's code, so a decoder bug cannot hide itself.
 *
 * The preamble (SYNC, TRACE_START, the NAME records and the CUSTOM_DECL)
 * goes out whatever the packet size: what does not fit continues in the
 * stream's next packet, a snapshot record by record (the decoder
 * reassembles them), before any scripted event of that stream.
 *
 * Context: one thread per generator; no allocation.
 */
#ifndef TRACEWIRE_WIRE_SYNTH_H
#define TRACEWIRE_WIRE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The smallest packet that holds the largest record synth writes (a
 * snapshot record: 10 header words and 12 data bytes) between the packet
 * header and footer: every packet then makes progress. */
#define TW_SYNTH_MIN_PKT_BYTES (16u + 52u + 4u)

#define TW_SYNTH_MAX_STREAMS 8

struct tw_synth_cfg {
  uint16_t endpoint;      /* packet source address (default 1) */
  uint16_t instances;     /* logger instances (streams), round robin (default 1) */
  uint32_t freq_hz;       /* announced in SYNC (default 1 MHz) */
  size_t pkt_bytes;       /* packet size bound: 0 (1024) or
                           * TW_SYNTH_MIN_PKT_BYTES..TW_EVPKT_MAX_BYTES */
  uint32_t drop_every;    /* every N events, a DROPS record (0: never) */
  uint32_t drop_count;    /* events it reports dropped (default 3) */
  int names;              /* emit NAME records and a CUSTOM_DECL first */
  uint32_t seed;
  uint16_t endpoints;     /* targets: endpoint, endpoint+1, ... (default 1);
                           * endpoints * instances streams, at most
                           * TW_SYNTH_MAX_STREAMS (else 1 of each) */
  uint64_t start_ticks;   /* first timestamp (default 1000) */
  int ts32;               /* timed events carry only the logger's 32-bit
                           * timestamp word (the host extends it) */
  int control;            /* TRACE_START after the SYNC, and every 400
                           * events a TRACE_STOP / TRACE_START pair */
  int switches;           /* TASK_SWITCH mostly to tasks, interrupts
                           * entered and left in pairs (else only
                           * EnterInt/LeaveInt, at random) */
};

struct tw_synth {
  struct tw_synth_cfg cfg;
  uint32_t rng;
  uint64_t ticks;
  uint16_t pkt_seq[8], ev_seq[8];
  unsigned next_inst;
  unsigned long long events;     /* records of events emitted (all kinds) */
  unsigned long long drops;      /* events DROPS records reported */
  unsigned long long packets;
  unsigned step;
  unsigned restart_step;         /* step of the last TRACE_STOP/START pair */
  uint8_t in_irq[8];             /* cfg.switches: per stream, inside EnterInt */
  unsigned pre_step[8];          /* per stream: preamble items sent */
  struct tw_synth_snap {         /* per stream: the snapshot being sent */
    uint32_t id;
    uint16_t seq0;               /* its first record's sequence number */
    unsigned sent;               /* records already in earlier packets */
    uint64_t ticks;
  } pre_snap[8];
};

/* Returns 0, or TW_ERANGE for a pkt_bytes out of range; the generator is
 * then still usable, with 1024 for a size above TW_EVPKT_MAX_BYTES and
 * TW_SYNTH_MIN_PKT_BYTES for one below that minimum. */
int tw_synth_init(struct tw_synth *g, const struct tw_synth_cfg *cfg);
/* One packet into buf (cap >= cfg.pkt_bytes). Returns its length, or 0
 * when cap is below TW_SYNTH_MIN_PKT_BYTES. */
size_t tw_synth_packet(struct tw_synth *g, uint8_t *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
