/*
 * Analyses of an RTOS trace: task states, CPU load, interrupts, release
 * latency, per-object statistics, detectors (priority inversion,
 * deadlock, starvation, blocked at end) and the loss report.
 * docs/analyses.md defines every number and rule.
 *
 * Shape: a streaming engine (struct tw_an) fed decoded events one at a
 * time, in time order per stream. What the events mean comes from the
 * RTOS state model (tracewire/model/rtos.h), which the engine feeds and
 * observes: the engine adds time series, distributions, counts and the
 * detectors. It keeps bounded summaries (log-bucket histograms, fixed
 * window arrays), never the events, so memory grows with the number of
 * tasks and objects, not with trace length. The engine is driven by the
 * MTI plugin "analysis" (tw_an_plugin_factory(); built into the CLI and
 * exported as libanalysis.so for `tracewire run`).
 *
 * An optional observer sees each timeline item (an event with its lane
 * and marker, a task or interrupt state change) as the engine derives
 * it; the HTML report (tracewire/analysis/report.h) is such an observer.
 *
 * Context: one thread per engine; not reentrant; nothing is ISR-safe.
 * Errors: int 0 or a negative TW_E* (tracewire/error.h).
 */
#ifndef TRACEWIRE_ANALYSIS_ANALYSIS_H
#define TRACEWIRE_ANALYSIS_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>
#include "tracewire/mti.h"
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_AN_NO_TASK 0xFFFFu
#define TW_AN_IRQ_UNKNOWN 0xFFFFFFFFu /* interrupt entered without an INTERRUPT event */
#define TW_AN_WINDOWS 128             /* CPU-load windows kept (widths double as needed) */

/* ---- log-bucket histogram ---------------------------------------------- */

/* Values (ns) in buckets of 1/TW_HIST_SUB of a power of two: a percentile
 * is reported as its bucket's midpoint clamped to [min, max], within
 * 1/(2*TW_HIST_SUB) = 3.1% of the exact value; values below 2*TW_HIST_SUB
 * are exact. min, max, mean and count are exact. Fixed size (5 KiB). */
#define TW_HIST_SUB 16
#define TW_HIST_EXP 42 /* buckets up to 2^45 ns (9.7 h); larger values count in the top one */
struct tw_hist {
  uint64_t n, min, max;
  double sum;
  uint64_t b[TW_HIST_EXP * TW_HIST_SUB];
};
void tw_hist_add(struct tw_hist *h, uint64_t v);
/* p in [0, 100]; 0 when empty. */
uint64_t tw_hist_pct(const struct tw_hist *h, double p);
double tw_hist_mean(const struct tw_hist *h);
/* Bucket i's lower bound (for drawing the histogram). */
uint64_t tw_hist_bucket_lo(unsigned i);

/* ---- the engine --------------------------------------------------------- */

enum tw_an_state { TW_AN_UNKNOWN, TW_AN_RUNNING, TW_AN_READY, TW_AN_BLOCKED, TW_AN_SUSPENDED,
                   TW_AN_NSTATES };

enum tw_an_finding_kind { TW_AN_PRIO_INVERSION, TW_AN_DEADLOCK, TW_AN_STARVATION,
                          TW_AN_BLOCKED_AT_END, TW_AN_NKINDS };

/* The model's causes (enum tw_rtos_loss_cause), in the same order. */
enum tw_an_loss_cause { TW_AN_LOSS_RING, TW_AN_LOSS_PACKETS, TW_AN_LOSS_UNEXPLAINED,
                        TW_AN_LOSS_STOPPED, TW_AN_NCAUSES };

#define TW_AN_MAX_INVOLVED 8
struct tw_an_finding {
  enum tw_an_finding_kind kind;
  int core;
  uint64_t t0, t1;           /* the exact window (ns); t1 = end of trace when still open */
  uint64_t ns;               /* inverted time (inversion; a bounded one: its wait), wait
                                (starvation, blocked) */
  int across_gap;            /* events were lost inside [t0, t1] (or before, for a state
                                the finding relies on): the conclusion may be wrong */
  int ntasks, nobjs;
  uint16_t tasks[TW_AN_MAX_INVOLVED];   /* inversion: high, low (owner), middle... */
  uint8_t obj_kinds[TW_AN_MAX_INVOLVED]; /* enum tw_obj_kind */
  uint16_t objs[TW_AN_MAX_INVOLVED];
  int bounded;               /* inversion: no middle task ran, the holder inherited the
                                waiter's priority; ns is the wait (t0 block, t1 release) */
};

struct tw_an_loss {
  enum tw_an_loss_cause cause;
  int core;
  uint64_t t;                /* time of the first event after the loss */
  uint64_t count;            /* events (0: not known, a recording restart) */
};

/* Timeline items for observers. lane_kind is TW_OBJ_TASK, TW_OBJ_IRQ or an
 * object kind; lane is its number. */
enum tw_an_item_kind { TW_AN_ITEM_EVENT, TW_AN_ITEM_STATE, TW_AN_ITEM_IRQ };
struct tw_an_item {
  enum tw_an_item_kind kind;
  int core;
  uint64_t t, t1;            /* t1: end of a STATE / IRQ interval */
  uint8_t lane_kind;
  uint32_t lane;
  /* EVENT: */
  uint16_t id;
  uint32_t type;             /* the marker field's value (TASK_SWITCH: the task field) */
  enum tw_marker marker;
  uint8_t obj_kind;
  uint32_t obj, task, index;
  /* STATE (task lanes): new state and, for BLOCKED, what it waits on.
   * IRQ (irq lanes): state RUNNING at entry (depth = nesting), UNKNOWN at exit. */
  enum tw_an_state state;
  uint8_t wait_kind;
  uint32_t wait_obj;
  int depth;
};
typedef void (*tw_an_observer)(void *ctx, const struct tw_an_item *it);

struct tw_an_cfg {
  uint64_t starve_ns;        /* starvation threshold; 0: 100 ms */
  size_t recent_findings;    /* 0: keep every finding (tw_an_finding_at); N: only about
                                the latest N (between N and 2N) and open ones, for a
                                live view that runs for hours. The groups count all. */
};

struct tw_an;
struct tw_rtos;

int tw_an_create(struct tw_an **out, const struct tw_an_cfg *cfg);
/* An engine on a model someone else feeds (the MTI system's, from
 * TraceContext::GetModel): it observes model from its next event on;
 * tw_an_feed is then TW_EINVAL. model must outlive the engine. */
int tw_an_create_on(struct tw_an **out, struct tw_rtos *model, const struct tw_an_cfg *cfg);
void tw_an_destroy(struct tw_an *a);
void tw_an_observe(struct tw_an *a, tw_an_observer fn, void *ctx);
/* One decoded event. Events of one stream come in time order; a core is a
 * stream (the model's core ids: 0, 1, ... in order of first event).
 * Returns 0, or TW_ENOMEM when the engine or the model could not store
 * something (the results are incomplete; tw_an_error() keeps it). */
int tw_an_feed(struct tw_an *a, const struct tw_event *ev);
/* Loss the decoder saw on a stream (packet gaps, unexplained sequence
 * gaps), placed before the stream's next event; DROPS records arrive as
 * events. */
void tw_an_loss(struct tw_an *a, uint16_t stream, enum tw_an_loss_cause cause, uint64_t count);
/* Closes open intervals at the last event's time and runs the end-of-trace
 * detectors. Further events are ignored. */
void tw_an_finish(struct tw_an *a);
/* Name of core i for output ("board.cpu0"); copied. 0 or TW_ENOMEM. */
int tw_an_set_core_name(struct tw_an *a, int core, const char *name);
/* fn(ctx, a, core) is called when the engine first hears of a core (during
 * the feed of that core's first event): a host can name it then. */
void tw_an_on_core(struct tw_an *a, void (*fn)(void *ctx, struct tw_an *a, int core),
                   void *ctx);
/* The first error so far (0: none): an allocation that failed. */
int tw_an_error(const struct tw_an *a);
/* The RTOS state model the engine reads (names, states, objects). */
const struct tw_rtos *tw_an_model(const struct tw_an *a);

/* Results (valid after tw_an_finish). */
size_t tw_an_nfindings(const struct tw_an *a);
const struct tw_an_finding *tw_an_finding_at(const struct tw_an *a, size_t i);
size_t tw_an_nlosses(const struct tw_an *a);
const struct tw_an_loss *tw_an_loss_at(const struct tw_an *a, size_t i);
uint64_t tw_an_lost(const struct tw_an *a, enum tw_an_loss_cause cause);
/* Name of a task, object or irq of core's endpoint, whole ("mutex 3" style
 * fallback written into buf). */
const char *tw_an_name(const struct tw_an *a, int core, enum tw_obj_kind kind, uint32_t number,
                       char *buf, size_t cap);
const char *tw_an_finding_name(enum tw_an_finding_kind k); /* "priority_inversion" */
const char *tw_an_state_name(enum tw_an_state s);           /* "running" */

/* Queries used by tests and the report. -1 / NULL when unknown. A task is
 * listed on every core it ran on, and on its home core: the core it last
 * ran on (else where it was first seen), among the tasks of that core's
 * endpoint. CPU time, switches and load are the core's share (a task that
 * migrates is counted on each core for what it got there, never twice);
 * states, latency and inheritance are the task's. */
struct tw_an_task_stats {
  uint16_t task;
  int prio;                  /* -1: no NAME record */
  enum tw_an_state state;    /* at the end */
  uint8_t wait_kind;
  uint32_t wait_obj;
  uint64_t ns[TW_AN_NSTATES]; /* time in each state */
  uint64_t cpu_ns;           /* CPU time on this core (running, interrupts excluded) */
  uint64_t switches_in;      /* on this core */
  const struct tw_hist *latency; /* ISR release -> running */
  uint8_t wait;              /* what a BLOCKED task waits for (enum tw_rtos_wait: an
                                object, a condition, time, a notification) */
  uint64_t inherits;         /* times its priority was raised by inheritance */
  uint64_t inherited_ns;     /* time it ran, or waited, at an inherited priority */
  int inherited_max;         /* the highest priority it inherited (-1: none) */
  int home;                  /* 1: this is its home core (where it last ran) */
};
int tw_an_task(const struct tw_an *a, int core, uint16_t task, struct tw_an_task_stats *out);
struct tw_an_obj_stats {
  uint8_t kind;
  uint32_t obj;
  uint64_t count[8];         /* events per type value (0..7) */
  uint64_t locks, unlocks, inc_locks, dec_locks; /* mutexes */
  uint64_t blocks, releases, contended;
  int max_depth;             /* mutex: deepest recursive lock */
  const struct tw_hist *hold; /* mutex only */
  const struct tw_hist *wait; /* blocked time, all kinds */
};
/* The object of core's endpoint. */
int tw_an_obj(const struct tw_an *a, int core, enum tw_obj_kind kind, uint32_t obj,
              struct tw_an_obj_stats *out);
struct tw_an_irq_stats {
  uint32_t irq;
  uint64_t count, nested, cpu_ns;
  uint64_t cut;              /* frames closed at a loss gap (duration unknown) */
  int max_depth;
  const struct tw_hist *dur;
};
int tw_an_irq(const struct tw_an *a, int core, uint32_t irq, struct tw_an_irq_stats *out);
struct tw_an_core_stats {
  uint64_t t0, t1, events, switches, isr_ns, unknown_ns;
  int max_nesting;
  const struct tw_hist *latency;
};
int tw_an_core(const struct tw_an *a, int core, struct tw_an_core_stats *out);
int tw_an_ncores(const struct tw_an *a);

/* ---- grouped findings (docs/analyses.md, "Groups") -------------------------------
 * Findings of the same kind, endpoint, tasks and objects are one group: a
 * recurring problem is one line with how often, when first and last, and
 * its worst instance. The key is the kind's tasks and objects, except the
 * middle tasks of a priority inversion (who ran varies per episode: kept
 * apart, in others[]); a deadlock cycle is keyed from its lowest-numbered
 * task, so the same cycle closed by another of its tasks is the same group.
 * A bounded inversion (inheritance bounded it) is a group apart from an
 * unbounded one of the same tasks. Severity order, worst first: kind
 * (deadlock, priority inversion, starvation, blocked at end), unbounded
 * before bounded, then the worst instance's duration, then the count,
 * then the first time. */
struct tw_an_group {
  enum tw_an_finding_kind kind;
  int core;                  /* of its first instance (names resolve on its endpoint) */
  uint16_t endpoint;
  int ntasks, nobjs;         /* the key (deadlock: rotated to the lowest task) */
  uint16_t tasks[TW_AN_MAX_INVOLVED];
  uint8_t obj_kinds[TW_AN_MAX_INVOLVED];
  uint16_t objs[TW_AN_MAX_INVOLVED];
  int bounded;               /* inversion: bounded by priority inheritance (part of the
                                key: a bounded one is another problem than one that is not) */
  int nothers;               /* inversion: the middle tasks of every instance (first 8) */
  uint16_t others[TW_AN_MAX_INVOLVED];
  uint64_t count;            /* instances */
  uint64_t across_gap;       /* instances flagged across_gap */
  uint64_t first, last;      /* t0 of the earliest instance, t1 of the latest (ns) */
  uint64_t total_ns;         /* sum of the instances' ns */
  struct tw_an_finding worst; /* the longest (ns; the earliest of equals) */
  size_t worst_index;        /* its tw_an_finding_at index; SIZE_MAX: not kept */
  uint64_t seq;              /* order of first sight (a stable tie-break) */
};

/* Groups: after tw_an_finish in severity order (worst first), before it in
 * order of first sight. */
size_t tw_an_ngroups(const struct tw_an *a);
const struct tw_an_group *tw_an_group_at(const struct tw_an *a, size_t i);
/* The tw_an_group_at index of finding i's group (SIZE_MAX: none, after an
 * allocation failure). */
size_t tw_an_finding_group(const struct tw_an *a, size_t i);
/* Severity order: < 0 when x is worse than y (sorts first). */
int tw_an_group_cmp(const struct tw_an_group *x, const struct tw_an_group *y);
/* One line about a group: its worst instance's text, and for more than
 * one instance how many, first and last. */
void tw_an_group_text(const struct tw_an *a, const struct tw_an_group *g, char *buf, size_t cap);
/* One finding's text (the same as analyze prints). */
void tw_an_finding_text(const struct tw_an *a, const struct tw_an_finding *f, char *buf,
                        size_t cap);

/* Output: a human summary, or the full results as one JSON object
 * (docs/analyses.md, "JSON"). 0, or TW_EIO when writing f failed, or the
 * engine's own error (results incomplete): the output is still written. */
int tw_an_write_text(const struct tw_an *a, FILE *f);
int tw_an_write_json(const struct tw_an *a, FILE *f);

/* ---- the MTI plugin ------------------------------------------------------- */

/* The factory of the "analysis" plugin. Parameters: starve_ms (INT),
 * json (BOOL: JSON instead of text), file (STRING: output on Release, "-"
 * stdout, "" none). */
MTI_PluginFactory *tw_an_plugin_factory(void);
/* The engine behind an instance this factory made (NULL for others). */
struct tw_an *tw_an_plugin_engine(MTI_PluginInstance *inst);

#ifdef __cplusplus
}
#endif

#endif
