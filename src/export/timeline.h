/*
 * The timeline shared by the Perfetto and Chrome JSON exporters: what the
 * RTOS state model (tracewire/model/rtos.h) says becomes tracks, slices,
 * instants, flows and counters (docs/exporters.md, "Timeline"). A backend
 * implements struct tl_ops; timeline.c decides what is drawn, the backend
 * only how it is encoded, so both formats show the same picture. The
 * timeline feeds its own model and draws from the model's changes: it
 * works out no meaning itself.
 *
 * Tracks (uuid = kind << 56 | endpoint << 40 | number):
 *   process   one per endpoint ("target 0001"), pid = endpoint
 *   core      "cpu<N>" (thread of the process): which task runs; slices
 *   irq       "cpu<N> irq": interrupt handlers, nested
 *   lost      "cpu<N> lost events": a slice over each gap, named by how
 *             many events were lost and why
 *   task      a thread per task (tid = endpoint << 16 | task): run
 *             intervals, and the task's sync operations as instants
 *   counters  "ready tasks" per endpoint, "cpu<N> load %" per core (busy
 *             share of each load window), "sem <name>" per semaphore; at
 *             most one sample per counter and timestamp
 * Flows: an operation with no task that can release one (a give, a
 * release of many or all) starts a flow keyed by its object; the next
 * release of a task by that object ends it there.
 *
 * Memory: bounded by tasks, objects and cores, not by events.
 */
#ifndef TW_EXPORT_TIMELINE_H
#define TW_EXPORT_TIMELINE_H

#include "export_internal.h"

enum tl_kind { TL_PROCESS = 1, TL_CORE, TL_IRQ, TL_TASK, TL_READY, TL_LOAD, TL_SEM, TL_LOST };

struct tl_track {
  uint64_t uuid, parent;  /* parent 0: none */
  enum tl_kind kind;
  int counter;            /* a counter track */
  int32_t pid, tid;       /* process / thread ids (tid 0: not a thread) */
  const char *name;
};

#define TL_MAX_ARGS 20
enum tl_num { TL_NUM_UINT, TL_NUM_INT, TL_NUM_FLOAT };
struct tl_arg {
  const char *name;
  const char *str; /* NULL: the number; else str_len bytes (whole, not cut) */
  uint64_t num;    /* TL_NUM_UINT */
  enum tl_num kind;
  int64_t inum;    /* TL_NUM_INT: I8..I32 fields, sign-extended */
  double fnum;     /* TL_NUM_FLOAT: F32 fields (may be NaN or infinite) */
  size_t str_len;
};

struct tl_ops {
  /* a track, before its first use; again when its name changes */
  void (*track)(void *b, const struct tl_track *t);
  void (*slice_begin)(void *b, uint64_t ts, const struct tl_track *t, const char *name);
  void (*slice_end)(void *b, uint64_t ts, const struct tl_track *t);
  /* flow_out: this instant starts flow id (0: none); flow_in ends one */
  void (*instant)(void *b, uint64_t ts, const struct tl_track *t, const char *name,
                  const struct tl_arg *args, unsigned nargs, uint64_t flow_out,
                  uint64_t flow_in);
  void (*counter)(void *b, uint64_t ts, const struct tl_track *t, int64_t value);
};

struct timeline;

struct timeline *tw__tl_open(struct tw_export *x, const struct tl_ops *ops, void *backend);
void tw__tl_event(struct timeline *tl, const struct tw_event *ev);
/* Events lost in transport on (endpoint, instance), shown before its next event. */
void tw__tl_loss(struct timeline *tl, uint16_t endpoint, uint16_t instance, uint64_t count);
/* Slices still open at the end are closed at the last event's time. */
void tw__tl_finish(struct timeline *tl);
void tw__tl_close(struct timeline *tl);

#endif
