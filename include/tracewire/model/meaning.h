/*
 * What each event means to the RTOS state model, as data: the TW_MEANING
 * rows of include/tracewire/events.def, expanded by tools/gen/gen_events.py
 * into src/model/meaning_gen.c. The model (tracewire/model/rtos.h) is the
 * only code that acts on these; consumers read the model. Nothing here
 * names an event: adding an event with a known kind of effect is a row in
 * events.def, not code.
 *
 * Host only (the target never needs it). Read-only data: any thread.
 */
#ifndef TRACEWIRE_MODEL_MEANING_H
#define TRACEWIRE_MODEL_MEANING_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/events_gen.h"
#include "tracewire/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What happens to the event's task (its TASK field), its core, or the
 * trace. docs/model.md gives each one's transitions. */
enum tw_act {
  TW_ACT_NONE,
  TW_ACT_RUN,             /* the task runs on the event's core from now */
  TW_ACT_BLOCK,           /* the task blocks on the object, to take from it when released */
  TW_ACT_WAIT,            /* the task blocks on the object's state; a release gives it nothing */
  TW_ACT_DELAY,           /* the task blocks on time (value: ticks to wait, when given) */
  TW_ACT_NOTIFY_WAIT,     /* the task blocks until notified */
  TW_ACT_READY,           /* the task is released: ready (by the object, if the event names one) */
  TW_ACT_SUSPEND,         /* the task is suspended */
  TW_ACT_RESUME,          /* a suspended task is ready again */
  TW_ACT_NOTIFY,          /* the task is notified: one blocked on a notification is ready */
  TW_ACT_CREATE,          /* the task exists from now, ready (value: its priority, if given) */
  TW_ACT_DELETE,          /* the task is gone: it leaves the analyses */
  TW_ACT_PRIO_SET,        /* base priority := value */
  TW_ACT_PRIO_INHERIT,    /* effective priority := value (raised for a waiter) */
  TW_ACT_PRIO_DISINHERIT, /* effective priority := value (lowered back) */
  TW_ACT_IRQ_ENTER,       /* the core enters an interrupt (nested if already in one) */
  TW_ACT_IRQ_EXIT,        /* the core leaves the innermost interrupt */
  TW_ACT_IRQ_NAME,        /* names the innermost interrupt's irq (object field) */
  TW_ACT_LOSS,            /* events of this core were lost just before (value: how many) */
  TW_ACT_NAME,            /* names an object (kind field, object field, the string) */
  TW_ACT_TRACE_START,     /* recording (re)started: after a stop, a gap */
  TW_ACT_TRACE_STOP,      /* recording stopped */
  TW_ACT_COUNT
};

/* What happens to the event's object. Counts are the units available
 * (semaphores, resources, event flags) or, for an anti-semaphore, its
 * blocking count. */
enum tw_obj_act {
  TW_OACT_NONE,
  TW_OACT_LOCK,           /* the task holds the mutex (depth 1); a waiter's lock ends its block */
  TW_OACT_UNLOCK,         /* the mutex is free */
  TW_OACT_LOCK_INC,       /* the holder locks again (depth + 1) */
  TW_OACT_LOCK_DEC,       /* the holder unlocks once, still holding (depth - 1) */
  TW_OACT_GIVE,           /* count + 1 */
  TW_OACT_GIVE_MANY,      /* count + n, n not in the event */
  TW_OACT_TAKE,           /* count - 1; the task holds it (a binary semaphore's holder) */
  TW_OACT_RELEASE,        /* a give went straight to the released task: count - 1 if it
                             blocked to take (BLOCK), unchanged if it waited (WAIT) */
  TW_OACT_RELEASE_MANY,   /* some waiters released, how many not said */
  TW_OACT_RELEASE_ALL,    /* count 0 and every waiter released (anti-semaphore) */
  TW_OACT_ADD,            /* count + 1 (anti-semaphore: blocks more) */
  TW_OACT_SUB,            /* count - 1, still above 0 */
  TW_OACT_EMPTY,          /* the event shows the count is 0 (a block on it, a pass) */
  TW_OACT_CREATE,         /* the object exists from now (value: its count, if given) */
  TW_OACT_CREATE_BINARY,  /* a semaphore of at most one unit: a lock whose holder is its
                             taker (value: its count, if given) */
  TW_OACT_DELETE,         /* the object is gone: free, count 0 */
  TW_OACT_CONSUME,        /* count - 1, nobody holds it (a message or bytes taken away) */
  TW_OACT_SIGNAL,         /* the object is signalled (bits set, data written): its waiters
                             may be released; no count is kept */
  TW_OACT_CREATE_MAX,     /* the object exists from now, with at most value units (a
                             semaphore's maximum count; 1 makes a semaphore binary); how
                             many it starts with is not said: 0 as a lower bound */
  TW_OACT_COUNT
};

#define TW_MEANING_NO_FIELD (-1)

/* Which task a row's task act acts on (the generator works it out). */
enum tw_task_src {
  TW_TASK_FROM_NONE,      /* none: the row acts on no task */
  TW_TASK_FROM_FIELD,     /* the event's TASK field (task_field) */
  TW_TASK_FROM_OBJECT,    /* the object, when its kind (kind_field) is a task */
  TW_TASK_FROM_RUNNING    /* the task running on the event's core (none inside an
                             interrupt): events that name no task were done by it */
};

struct tw_meaning {
  uint16_t id;            /* event id */
  uint8_t any;            /* 1: for every marker-field value without a row of its own */
  uint32_t value;         /* the marker-field value (enum constant) when !any */
  enum tw_act act;
  enum tw_obj_act obj_act;
  int8_t task_field;      /* indexes into the event's fields, or -1 */
  int8_t obj_field;
  int8_t kind_field;      /* an OBJKIND field: the object's kind is its value */
  int8_t value_field;
  uint8_t obj_kind;       /* enum tw_obj_kind of obj_field when kind_field is -1 */
  uint16_t row;           /* its index in tw_meanings: a key for tables of one's own
                             (pointers may point into another copy of the table: a
                             plugin's; the row does not) */
  uint8_t task_src;       /* enum tw_task_src */
};

/* Sorted by id; an id's rows for one value come before its `any` row. */
extern const struct tw_meaning tw_meanings[];
extern const size_t tw_nmeanings;

/* The meaning of an event with this marker-field value (ignored for events
 * without one), or NULL when the event means nothing to the model (custom
 * events, unknown ids). A binary search: the model caches it per id. */
const struct tw_meaning *tw_meaning_find(uint16_t id, uint32_t marker_value);
const char *tw_act_name(enum tw_act a);          /* "block" */
const char *tw_obj_act_name(enum tw_obj_act a);  /* "give_many" */

#ifdef __cplusplus
}
#endif

#endif
