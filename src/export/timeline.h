/*
 * The timeline shared by the Perfetto and Chrome JSON exporters: what the
 * RTOS state model (tracewire/model/rtos.h) says becomes tracks, slices,
 * instants, flows and counters (docs/exporters.md, "Timeline"). A backend
 * implements struct tl_ops; timeline.c decides what is drawn, the backend
 * only how it is encoded, so both formats show the same picture. The
 * timeline feeds its own model and draws from the model's changes: it
 * works out no meaning itself.
 *
 * Tracks (uuid = (dense id + 1) << 3 | kind - 1: small, so cheap to encode;
 * the dense ids are the model's, or the endpoint's index):
 *   process   one per endpoint ("target 0001"), pid = (endpoint index + 1) << 16
 *   core      "cpu<N>" (thread of the process): which task runs; slices
 *   irq       "cpu<N> irq": interrupt handlers, nested
 *   lost      "cpu<N> lost events": a slice over each gap, named by how
 *             many events were lost and why
 *   task      a thread per task (tid = pid | task number): run
 *             intervals, and the task's sync operations as instants
 *   counters  "ready tasks" per endpoint, "cpu<N> load %" per core (busy
 *             share of each load window), "sem <name>" per semaphore; at
 *             most one sample per counter and timestamp
 * Flows: an operation with no task that can release one (a give, a
 * release of many or all) starts a flow keyed by its object; the next
 * release of a task by that object ends it there.
 *
 * A backend that draws the scheduler natively (Perfetto: CPU lanes and
 * thread states) sets tl_ops.sched: run intervals and interrupts then go
 * to its hooks instead of being slices, the core track ("cpu<N> events",
 * N = the model's dense core id, Perfetto's CPU number) is a plain track
 * for the events no task did, and task state changes of tasks that are
 * not running reach it too.
 *
 * Memory: bounded by tasks, objects and cores, not by events.
 */
#ifndef TW_EXPORT_TIMELINE_H
#define TW_EXPORT_TIMELINE_H

#include "export_internal.h"
#include "tracewire/model/rtos.h"

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

/* The scheduler, for a backend that draws it natively. Every hook gets
 * the model's change; the state is already updated (docs/model.md). */
struct tl_sched_ops {
  /* a core seen for the first time (ch->core), before anything on it */
  void (*cpu)(void *b, const struct tw_rtos_change *ch);
  /* the core's running task changes: ch->prev -> ch->task (either NULL:
   * none known); ch->prev->now is the state it left the CPU in */
  void (*sw)(void *b, const struct tw_rtos_change *ch);
  /* a task that is not the running task of a core changed state
   * (ch->old -> ch->task->now) */
  void (*state)(void *b, const struct tw_rtos_change *ch);
  /* an interrupt frame ended (ch->frame, ch->depth, ch->cut) */
  void (*irq)(void *b, const struct tw_rtos_change *ch);
  /* a task was renamed (ch->task) */
  void (*rename)(void *b, const struct tw_rtos_change *ch);
};

struct tl_ops {
  /* a track, before its first use; again when its name changes */
  void (*track)(void *b, const struct tl_track *t);
  void (*slice_begin)(void *b, uint64_t ts, const struct tl_track *t, const char *name);
  void (*slice_end)(void *b, uint64_t ts, const struct tl_track *t);
  /* the event of ch as an instant on t; flow_out: it starts flow id (0:
   * none) from flow_from (a track with a slice open at ts: the running
   * task's or the interrupt's, or t itself with a native scheduler);
   * flow_in ends one, on t. tw__tl_describe() gives the event's name and
   * arguments as text for a backend that wants them so. */
  void (*instant)(void *b, uint64_t ts, const struct tl_track *t,
                  const struct tw_rtos_change *ch, uint64_t flow_out,
                  const struct tl_track *flow_from, uint64_t flow_in);
  void (*counter)(void *b, uint64_t ts, const struct tl_track *t, int64_t value);
  /* an instant of the timeline's own, with a name and arguments ("time
   * inferred" for a switch whose time was inferred) */
  void (*note)(void *b, uint64_t ts, const struct tl_track *t, const char *name,
               const struct tl_arg *args, unsigned nargs);
  const struct tl_sched_ops *sched; /* NULL: run intervals and interrupts as slices */
};

struct timeline;

/* The name ("SemEvent Give") and arguments of ch's event, every field as
 * an argument (object numbers with their names, constant names, strings
 * whole, the marker). Valid until the next call. */
const char *tw__tl_describe(struct timeline *tl, const struct tw_rtos_change *ch,
                            struct tl_arg *args, unsigned *nargs);
/* A custom kind's argument names, valid UTF-8 and unique within the kind
 * and apart from the timeline's own ("marker", "time"); NULL for the
 * vocabulary's kinds (their own names are so already) or out of memory. */
const char *const *tw__tl_field_names(struct timeline *tl, const struct tw_event_desc *d);
/* The model the timeline feeds (names, tasks, objects). */
const struct tw_rtos *tw__tl_model(const struct timeline *tl);
/* How many times the model's names changed so far: a backend caching
 * text made from names checks it instead of looking the names up. */
uint64_t tw__tl_names(const struct timeline *tl);
/* Process id of an endpoint, thread id of a task (docs/exporters.md). */
int32_t tw__tl_pid(const struct timeline *tl, uint16_t endpoint);
int32_t tw__tl_tid(const struct timeline *tl, const struct tw_rtos_task *t);
/* Track uuids (see above). */
uint64_t tw__tl_uuid_task(const struct tw_rtos_task *t);

struct timeline *tw__tl_open(struct tw_export *x, const struct tl_ops *ops, void *backend);
void tw__tl_event(struct timeline *tl, const struct tw_event *ev);
/* Events lost in transport on (endpoint, instance), shown before its next event. */
void tw__tl_loss(struct timeline *tl, uint16_t endpoint, uint16_t instance, uint64_t count);
/* Slices still open at the end are closed at the last event's time. */
void tw__tl_finish(struct timeline *tl);
void tw__tl_close(struct timeline *tl);

#endif
