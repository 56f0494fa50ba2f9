/*
 * Watching a target while it is recorded (docs/live.md): what `tracewire
 * record --live` and `tracewire top` show, as data. The terminal drawing
 * is the tool's; the numbers, their windows, the grouping and the sort
 * orders are here, so another front end shows the same.
 *
 * Shape: the recording thread hands each packet it framed to
 * tw_live_packet() (a copy into a bounded queue: it never waits, and the
 * recording never slows for the view). A worker thread decodes the
 * packets again and feeds an analysis engine (tracewire/analysis/
 * analysis.h), which feeds the RTOS state model (tracewire/model/rtos.h):
 * task states, CPU time, interrupts and findings come from them, nothing
 * is worked out twice. Every publish_ns (wall) the worker writes a
 * snapshot (struct tw_live_view) that any thread copies with
 * tw_live_snapshot().
 *
 * When the worker falls behind (the queue is full), packets are left out
 * of the view, never out of the recording: the view counts them
 * (view_skipped), and the state model marks what it no longer knows as
 * unknown, as after any loss.
 *
 * Windows: the CPU shares and interrupt rates "over the last second" are
 * over the last second of the target's own time (the trace's clock),
 * sampled every tenth of it; the link and loss rates the tool shows are
 * over the last second of wall time (struct tw_meter below).
 *
 * Context: tw_live_packet, _skip, _freq and _end from one thread (the
 * recorder's); tw_live_snapshot from any; open and close from the one
 * that owns it. Errors: 0 or a negative TW_E* (tracewire/error.h).
 */
#ifndef TRACEWIRE_ANALYSIS_LIVE_H
#define TRACEWIRE_ANALYSIS_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/analysis/analysis.h"
#include "tracewire/uia.h"
#include "tracewire/wire/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- windows: the change of cumulative counters over the last span ---------------- */

/* Samples of cumulative counters (any number of them: a counter that
 * appears later was 0 before), kept at least span/10 apart; the latest is
 * always kept. The change over "the last span" is from the newest sample
 * at least span old (else the oldest) to the latest: a window of span to
 * 1.1 span, or less at the start (covered says how much). */
#define TW_METER_SLOTS 16
struct tw_meter {
  uint64_t span;
  size_t width, cap;         /* counters per sample; allocated */
  uint64_t t[TW_METER_SLOTS + 1];
  uint64_t *v;               /* (TW_METER_SLOTS + 1) * cap: the ring, then the latest */
  size_t head, n;            /* ring: next slot, samples in it */
  int have_latest;
};
void tw_meter_init(struct tw_meter *m, uint64_t span);
void tw_meter_free(struct tw_meter *m);
/* A sample of n counters at time t (any unit; not before the last one).
 * 0, or TW_ENOMEM (the sample is not taken). */
int tw_meter_add(struct tw_meter *m, uint64_t t, const uint64_t *v, size_t n);
/* Counter i's change over the last span; *covered (may be NULL): the time
 * it is over (0: one sample or none). */
uint64_t tw_meter_delta(const struct tw_meter *m, size_t i, uint64_t *covered);
/* The same per second, for a time unit of ns: 0 when nothing is covered. */
double tw_meter_rate(const struct tw_meter *m, size_t i);

/* ---- the view --------------------------------------------------------------------- */

#define TW_LIVE_NAME 32
#define TW_LIVE_TASKS 256
#define TW_LIVE_IRQS 64
#define TW_LIVE_GROUPS 32

struct tw_live_task {
  char name[TW_LIVE_NAME];   /* "task N" when not named */
  uint16_t endpoint, number;
  int core;                  /* dense core id it runs or last ran on; -1 none */
  int prio;                  /* effective; -1 unknown */
  uint8_t state;             /* enum tw_rtos_state */
  uint8_t wait;              /* enum tw_rtos_wait (blocked) */
  uint8_t idle;
  char waits_on[TW_LIVE_NAME]; /* the object it is blocked on, "" when none */
  double cpu_window;         /* % of a core over the window (window_ns) */
  double cpu_total;          /* % of its core since that core's first event */
};

struct tw_live_irq {            /* one that was entered at least once */
  char name[TW_LIVE_NAME];
  int core;
  uint32_t irq;              /* TW_AN_IRQ_UNKNOWN: not named */
  double per_s;              /* entries per second of trace time, over the window */
  uint64_t count;            /* since the start */
};

struct tw_live_group {
  enum tw_an_finding_kind kind;
  int core;
  uint64_t count, across_gap, first, last, worst_ns, worst_t0;
  uint64_t new_count;        /* instances added since the previous snapshot */
  char what[120];            /* who and on what, short: "high on res held by low",
                                "left -> lock_b -> right -> lock_a -> left" */
  char text[240];            /* tw_an_group_text */
};

struct tw_live_view {
  uint64_t seq;              /* snapshots so far (0: none yet) */
  int finished;              /* tw_live_end seen and everything analysed */
  int err;                   /* the engine's first error (results incomplete) */
  uint64_t t0, t;            /* trace time of the first and latest event (ns) */
  uint64_t window_ns;        /* trace time the window columns cover */
  uint64_t events;           /* events analysed */
  uint64_t packets;          /* packets analysed */
  uint64_t view_skipped;     /* packets left out of the view (it was behind) */
  int ncores;
  double irq_pct, unknown_pct; /* of all cores' time since the start */
  size_t ntasks, ntasks_total;
  struct tw_live_task tasks[TW_LIVE_TASKS];
  size_t nirqs, nirqs_total;
  struct tw_live_irq irqs[TW_LIVE_IRQS];
  uint64_t findings;         /* instances, all groups */
  size_t ngroups, ngroups_total; /* shown (worst first), and all */
  struct tw_live_group groups[TW_LIVE_GROUPS];
};

enum tw_live_sort { TW_LIVE_SORT_WINDOW, TW_LIVE_SORT_TOTAL, TW_LIVE_SORT_PRIO, TW_LIVE_SORT_NAME,
                    TW_LIVE_NSORTS };
/* Sorts v's tasks (ties: the next key, then endpoint and number). */
void tw_live_sort(struct tw_live_view *v, enum tw_live_sort by);
const char *tw_live_sort_name(enum tw_live_sort by); /* "cpu 1 s" */

/* ---- the live analysis ------------------------------------------------------------ */

struct tw_live_cfg {
  uint64_t starve_ns;        /* the analyses' starvation threshold; 0: 100 ms */
  size_t queue_bytes;        /* packets waiting for the worker; 0: 8 MiB */
  uint64_t publish_ns;       /* how often a snapshot is made (wall); 0: 200 ms */
  uint64_t window_ns;        /* the window of the CPU and interrupt columns; 0: 1 s */
  size_t sources;            /* sources (--from); their streams are kept apart */
  size_t streams;            /* streams per source, as the decoder numbers them; 0: 64 */
  int low_priority;          /* the worker gets the CPU only when nothing else wants it
                                (Linux SCHED_IDLE): the recording first, always */
};

struct tw_live;

/* Starts the worker. */
int tw_live_open(struct tw_live **out, const struct tw_live_cfg *cfg);
/* Stops the worker (what it has not analysed is left) and frees all. */
void tw_live_close(struct tw_live *l);

/* The recording thread's side; none of them waits. A packet as framed
 * (tw_reader_next), with its stream offset and ordinal for diagnostics. */
void tw_live_packet(struct tw_live *l, uint16_t source, const struct tw_pkt *pkt,
                    unsigned long long offset, unsigned long long number);
void tw_live_skip(struct tw_live *l, uint16_t source, const struct tw_skip *sk);
/* The target's clock, as the recorder learnt it (GET_INFO). */
void tw_live_freq(struct tw_live *l, uint16_t source, uint16_t endpoint, uint32_t hz);
/* No more input: the worker analyses what is queued, runs the end-of-trace
 * detectors and makes a last snapshot (finished). May wait for room in
 * the queue (the recording is over). */
void tw_live_end(struct tw_live *l);

/* The latest snapshot, copied into *out (its seq 0: none yet). */
void tw_live_snapshot(struct tw_live *l, struct tw_live_view *out);
/* Packets left out of the view so far (the recorder's count, exact). */
uint64_t tw_live_skipped(const struct tw_live *l);

#ifdef __cplusplus
}
#endif

#endif
