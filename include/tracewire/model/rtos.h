/*
 * The RTOS state model: the one place on the host that knows what events
 * mean (docs/model.md). Feed it decoded events (struct tw_event) one at a
 * time; it keeps, per endpoint (target), the names of numbered objects
 * (whole strings, unbounded), every task's state, what a blocked task
 * waits on, its base and effective priority and its core, and every sync
 * object's holder, count and waiters; per core (stream) the running task,
 * the interrupt nesting and where the CPU time went. What each event does
 * comes from the TW_MEANING rows of events.def (tracewire/model/meaning.h),
 * never from code that names events.
 *
 * Consumers (analyses, the timeline behind Perfetto and JSON, the report,
 * the MTI dump sources, live views) either query the state or observe its
 * changes: every change is one call to each observer, in the order the
 * model makes them, all of an event's changes before the TW_RTOS_CH_EVENT
 * change that closes it.
 *
 * Loss: a DROPS record, a transport gap reported with tw_rtos_loss(), or
 * a restart after TRACE_STOP makes everything that may be stale unknown
 * until an event re-establishes it: the core's interrupt frames are closed
 * at the gap, its running task is unknown until the next switch, every
 * task of the endpoint not running on another core is UNKNOWN (the last
 * known state is kept apart, for detectors that flag their findings
 * across the gap), mutex holders are unknown and counts restart at 0 as a
 * lower bound (count_exact 0) until a block or a release pins them again.
 * Counts never go negative.
 *
 * Identity: a task is (endpoint, number) and may run on any core of its
 * endpoint (SMP); an object is (endpoint, kind, number); a core is a
 * decoder stream (endpoint, logger instance). Every task, object and core
 * also gets a dense id (0, 1, ... in order of first sight) so consumers
 * can keep their own data in plain arrays. Pointers to tasks, objects and
 * cores are stable for the model's life; name strings too (a rename keeps
 * the old string alive until tw_rtos_destroy).
 *
 * Cost: no allocation per event once every task, object and core has been
 * seen; an event is a few table lookups and its changes.
 *
 * Context: one thread per model; not reentrant: an observer must not feed
 * the model it observes. Errors: 0 or a negative TW_E* (tracewire/error.h).
 */
#ifndef TRACEWIRE_MODEL_RTOS_H
#define TRACEWIRE_MODEL_RTOS_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/event.h"
#include "tracewire/model/meaning.h"
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_RTOS_MAX_NEST 64      /* interrupt frames per core; deeper ones are counted */
#define TW_RTOS_MAX_OBSERVERS 8
#define TW_RTOS_IRQ_UNNAMED 0xFFFFFFFFu /* a frame no INTERRUPT event named */

enum tw_rtos_state {
  TW_RTOS_UNKNOWN,   /* never seen doing anything, or stale after a loss */
  TW_RTOS_RUNNING,   /* the running task of its core */
  TW_RTOS_READY,     /* wants the CPU: preempted, released or resumed */
  TW_RTOS_BLOCKED,   /* waits: see wait */
  TW_RTOS_SUSPENDED,
  TW_RTOS_DELETED,   /* gone: leaves the analyses */
  TW_RTOS_NSTATES
};

/* What a BLOCKED task waits for. */
enum tw_rtos_wait {
  TW_RTOS_WAIT_NONE,
  TW_RTOS_WAIT_OBJECT,    /* to take from wait_kind/wait_obj (a Block) */
  TW_RTOS_WAIT_CONDITION, /* for wait_kind/wait_obj's state, taking nothing (a Wait) */
  TW_RTOS_WAIT_TIME,      /* a delay: wait_value ticks when the event said */
  TW_RTOS_WAIT_NOTIFY,    /* a notification */
  TW_RTOS_WAIT_UNSEEN,    /* switched out for a lower-priority task: it stopped wanting
                             the CPU for a reason the trace does not show */
  TW_RTOS_NWAITS
};

/* Who the CPU time of a core goes to. */
enum tw_rtos_owner {
  TW_RTOS_OWN_UNKNOWN, /* before the first switch, after a loss until the next one */
  TW_RTOS_OWN_TASK,    /* a task that is not idle */
  TW_RTOS_OWN_IDLE,    /* the idle task (named like one: docs/model.md) */
  TW_RTOS_OWN_IRQ,     /* an interrupt handler */
  TW_RTOS_NOWNERS
};

enum tw_rtos_loss_cause {
  TW_RTOS_LOSS_RING,        /* DROPS: the target's ring overflowed */
  TW_RTOS_LOSS_PACKETS,     /* packet sequence gap in transport */
  TW_RTOS_LOSS_UNEXPLAINED, /* event sequence gap with neither */
  TW_RTOS_LOSS_STOPPED,     /* recording stopped, then started again */
  TW_RTOS_NCAUSES
};

/* A state with what it waits on and since when: a task's now, its last
 * known one before a loss, or (in a change) the one it left. */
struct tw_rtos_phase {
  uint8_t state;           /* enum tw_rtos_state */
  uint8_t wait;            /* enum tw_rtos_wait (BLOCKED) */
  uint8_t wait_kind;       /* enum tw_obj_kind (WAIT_OBJECT, WAIT_CONDITION) */
  uint32_t wait_obj;
  uint64_t wait_value;     /* WAIT_TIME: ticks, 0 when not said */
  uint64_t since;          /* ns */
  uint64_t epoch;          /* the endpoint's loss count when it began */
};

struct tw_rtos_task {
  uint32_t id;             /* dense, model-wide */
  uint16_t endpoint;
  uint16_t number;
  struct tw_rtos_phase now;
  struct tw_rtos_phase last; /* now.state UNKNOWN after a loss: the state before it */
  int base_prio;           /* -1 unknown; from NAME or a priority event */
  int prio;                /* effective priority (inherited while above base); -1 unknown */
  int core;                /* dense id of the core it runs or last ran on; -1 none */
  uint8_t idle;            /* named like an idle task */
  const char *name;        /* NULL until named */
  uint64_t cpu_ns;         /* running, interrupts excluded */
  uint64_t irq_ns;         /* interrupts taken while it was the running task */
};

struct tw_rtos_obj {
  uint32_t id;             /* dense, model-wide */
  uint16_t endpoint;
  uint8_t kind;            /* enum tw_obj_kind */
  uint32_t number;
  const char *name;
  uint8_t binary;          /* at most one unit (CREATE_BINARY): a lock, held by its taker */
  /* mutexes, and the taker of a semaphore unit */
  const struct tw_rtos_task *holder; /* NULL: free, or unknown (holder_known 0) */
  uint8_t holder_known;
  uint8_t held;            /* held by someone (also when holder is unknown) */
  uint32_t depth;          /* recursive lock depth */
  uint64_t held_since;
  /* counted objects (meaning.h): exact, or a lower bound after GiveMany or a loss */
  int64_t count;
  uint8_t count_exact;
  uint32_t waiters;        /* tasks known to be blocked on it */
};

struct tw_rtos_frame {
  uint32_t irq;            /* TW_RTOS_IRQ_UNNAMED until an INTERRUPT names it */
  uint64_t since;          /* entered, ns */
  uint64_t net_ns;         /* its own time so far (nested frames excluded) */
};

struct tw_rtos_core {
  uint32_t id;             /* dense, model-wide */
  uint16_t stream, endpoint, instance;
  const struct tw_rtos_task *running; /* NULL: none known */
  uint8_t running_known;   /* 0 before the first switch and after a loss */
  enum tw_rtos_owner owner;
  int depth;               /* interrupt nesting */
  const struct tw_rtos_frame *frames; /* [0, depth), innermost last */
  uint64_t t0, t;          /* first and latest event time (ns); a step back is held at t */
  uint64_t events, epoch;  /* events fed; losses on this core */
  uint64_t lost[TW_RTOS_NCAUSES];
  uint64_t ns[TW_RTOS_NOWNERS]; /* CPU time by owner, t0..t */
  uint64_t backwards, unmatched_exits, nest_overflows, conflicts;
  int max_depth;
};

/* ---- changes ------------------------------------------------------------------ */

enum tw_rtos_ch {
  TW_RTOS_CH_LOSS,      /* first of a loss's changes: count, cause */
  TW_RTOS_CH_SWITCH,    /* core's running task: prev -> task (either NULL: none known) */
  TW_RTOS_CH_TASK,      /* task's state or wait: old -> task->now */
  TW_RTOS_CH_PRIO,      /* task's base_prio or prio */
  TW_RTOS_CH_IRQ_ENTER, /* frame depth (1 = outermost) entered */
  TW_RTOS_CH_IRQ_NAME,  /* the innermost frame's irq became known */
  TW_RTOS_CH_IRQ_EXIT,  /* frame depth left: irq, since, net_ns; cut: closed at a loss */
  TW_RTOS_CH_OBJ,       /* object's holder, depth, count or waiters */
  TW_RTOS_CH_NAME,      /* obj_kind/number named (task and obj set when tracked) */
  TW_RTOS_CH_EVENT,     /* the event itself, last: meaning, marker, task, obj */
  TW_RTOS_CH_END,       /* tw_rtos_finish, per core: t is the core's last time */
  TW_RTOS_NCH
};

/* One change. The first fields are set for every kind; the rest belong
 * to one kind each. */
struct tw_rtos_change {
  enum tw_rtos_ch kind;
  enum tw_act why;                   /* the act that caused it (LOSS for loss resets) */
  uint64_t t;                        /* ns (held at the core's latest time) */
  const struct tw_event *ev;         /* the event being fed; NULL at END */
  const struct tw_rtos_core *core;
  const struct tw_rtos_task *task;   /* SWITCH: switched in; TASK, PRIO; EVENT and OBJ: the
                                        event's task; IRQ_*: the core's running task */
  const struct tw_rtos_obj *obj;     /* OBJ; EVENT: its object; NAME */
  const struct tw_meaning *meaning;  /* the event's meaning, for every change it causes
                                        (NULL: none, or not caused by an event) */
  /* Each kind's own fields (reading another kind's is meaningless). Plain
   * members, not an anonymous union: public headers are C99 too. */
  const struct tw_rtos_task *prev;   /* SWITCH: switched out */
  struct tw_rtos_phase old;          /* TASK: the phase it left */
  const struct tw_rtos_task *old_holder; /* OBJ: holder before (when it was known) */
  uint64_t old_since;                /* OBJ: held_since before */
  const struct tw_rtos_frame *frame; /* IRQ_* */
  int depth;                         /* IRQ_*: of the frame, 1 = outermost */
  int cut;                           /* IRQ_EXIT: closed at a loss, duration unknown */
  enum tw_rtos_loss_cause cause;     /* LOSS */
  uint64_t count;                    /* LOSS */
  enum tw_marker marker;             /* EVENT */
  uint32_t value;                    /* EVENT: the meaning's value field, 0 when none */
  uint8_t obj_kind;                  /* EVENT, NAME: the object the event names */
  uint32_t obj_number;               /* EVENT, NAME */
};

typedef void (*tw_rtos_fn)(void *ctx, const struct tw_rtos_change *ch);

/* ---- lifetime and feeding ----------------------------------------------------- */

struct tw_rtos;

int tw_rtos_create(struct tw_rtos **out);
void tw_rtos_destroy(struct tw_rtos *m);
/* Adds an observer of every kind of change (TW_ENOSPC beyond
 * TW_RTOS_MAX_OBSERVERS). */
int tw_rtos_observe(struct tw_rtos *m, tw_rtos_fn fn, void *ctx);
/* An observer of the kinds in `kinds` only (TW_RTOS_CH_BIT(k) of each):
 * a kind nobody asked for is not made at all (an object change costs the
 * model its bookkeeping per event). */
#define TW_RTOS_CH_BIT(k) (1u << (k))
#define TW_RTOS_CH_ALL (TW_RTOS_CH_BIT(TW_RTOS_NCH) - 1u)
int tw_rtos_observe_kinds(struct tw_rtos *m, tw_rtos_fn fn, void *ctx, uint32_t kinds);
void tw_rtos_unobserve(struct tw_rtos *m, tw_rtos_fn fn, void *ctx);
/* One event, in time order per stream (streams may interleave). 0, or
 * TW_ENOMEM when a new task, object, core or name could not be stored:
 * the event's other effects are applied, tw_rtos_oom() counts it. */
int tw_rtos_feed(struct tw_rtos *m, const struct tw_event *ev);
/* Events lost in transport on a stream (the decoder's packet or sequence
 * gaps), applied just before that stream's next event. */
void tw_rtos_loss(struct tw_rtos *m, uint16_t stream, enum tw_rtos_loss_cause cause,
                  uint64_t count);
/* End of the trace: pending losses are applied and every core gets an END
 * change (its intervals end at its last event). Feeding after it is an
 * error (TW_EINVAL). */
void tw_rtos_finish(struct tw_rtos *m);

/* ---- queries (valid between feeds and in observers) -------------------------- */

const struct tw_rtos_core *tw_rtos_core_of(const struct tw_rtos *m, uint16_t stream);
size_t tw_rtos_ncores(const struct tw_rtos *m);
const struct tw_rtos_core *tw_rtos_core_at(const struct tw_rtos *m, size_t id);
/* The time up to which core c's CPU time is charged: ns[] and its tasks'
 * cpu_ns and irq_ns cover c->t0 to this; the time since, up to c->t, goes to
 * c->owner at its next change (charging is lazy). A live view adds it. */
uint64_t tw_rtos_core_charged(const struct tw_rtos_core *c);
/* NULL for a task never mentioned. */
const struct tw_rtos_task *tw_rtos_task(const struct tw_rtos *m, uint16_t endpoint,
                                        uint32_t number);
size_t tw_rtos_ntasks(const struct tw_rtos *m);
const struct tw_rtos_task *tw_rtos_task_at(const struct tw_rtos *m, size_t id);
const struct tw_rtos_obj *tw_rtos_obj(const struct tw_rtos *m, uint16_t endpoint,
                                      enum tw_obj_kind kind, uint32_t number);
size_t tw_rtos_nobjs(const struct tw_rtos *m);
const struct tw_rtos_obj *tw_rtos_obj_at(const struct tw_rtos *m, size_t id);
/* Whole name of a numbered thing of an endpoint (any kind, irqs too), or NULL. */
const char *tw_rtos_name(const struct tw_rtos *m, uint16_t endpoint, enum tw_obj_kind kind,
                         uint32_t number);
/* Names: 0.. until it returns 0. */
int tw_rtos_name_at(const struct tw_rtos *m, size_t i, uint16_t *endpoint,
                    enum tw_obj_kind *kind, uint32_t *number, const char **name);
/* Losses so far on any core of the endpoint: a task phase whose epoch is
 * older began before a gap. */
uint64_t tw_rtos_epoch(const struct tw_rtos *m, uint16_t endpoint);
/* Tasks of an endpoint known to be ready now (a lower bound while some
 * are unknown: *unknown says how many). */
uint32_t tw_rtos_ready(const struct tw_rtos *m, uint16_t endpoint, uint32_t *unknown);
/* Allocation failures so far (each also returned by the feed it hit). */
uint64_t tw_rtos_oom(const struct tw_rtos *m);

const char *tw_rtos_state_name(enum tw_rtos_state s);  /* "blocked" */
const char *tw_rtos_wait_name(enum tw_rtos_wait w);    /* "object" */
const char *tw_rtos_cause_name(enum tw_rtos_loss_cause c); /* "ring" */

#ifdef __cplusplus
}
#endif

#endif
