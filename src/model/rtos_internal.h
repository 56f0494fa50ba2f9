/* Internals of the RTOS state model (rtos.c, rtos_acts.c, rtos_names.c). */
#ifndef TW_MODEL_RTOS_INTERNAL_H
#define TW_MODEL_RTOS_INTERNAL_H

#include <stdint.h>
#include "tracewire/model/rtos.h"

/* Tasks and objects live in pages of 256 by number, allocated on first
 * use and never moved: pointers handed out stay valid. Numbers at or above
 * MAX_NUMBER are not kept (counted as out of range). */
#define PAGE_BITS 8u
#define PAGE_SIZE (1u << PAGE_BITS)
#define MAX_NUMBER (1u << 20)
#define ID_TABLE 0x400u /* event ids below this find their meaning by index */
#define VAL_TABLE 16u   /* and marker values below this their row too */

struct rtask {
  struct tw_rtos_task pub; /* first: the public pointer is the struct's */
  uint8_t used;
  uint8_t inherited;       /* prio raised above base by inheritance */
  uint64_t prio_epoch;     /* the endpoint's loss count when prio was last
                              said: older, a lost event may have changed it */
};

struct robj {
  struct tw_rtos_obj pub;
  uint8_t used;
};

struct pages {
  void **page;             /* page[number >> PAGE_BITS] */
  size_t n;
};

struct rep {
  uint16_t endpoint;
  struct pages tasks;
  struct pages objs[TW_OBJ_COUNT];
  uint64_t epoch;          /* losses of any of its cores */
  uint32_t ready, unknown; /* tasks READY / UNKNOWN now */
  struct rtask **tlist;    /* its tasks and objects, for what a loss resets */
  size_t ntlist, captlist;
  struct robj **olist;
  size_t nolist, capolist;
};

struct rcore {
  struct tw_rtos_core pub;
  struct rep *ep;
  struct rtask *run;       /* pub.running, writable */
  int overflow;            /* frames entered beyond TW_RTOS_MAX_NEST, still open */
  struct tw_rtos_frame frames[TW_RTOS_MAX_NEST];
  uint64_t owner_since;    /* time charged up to */
  uint64_t pending[TW_RTOS_NCAUSES];
  uint8_t has_pending, stopped;
};

struct rname {
  uint64_t key;            /* endpoint << 40 | kind << 32 | number, bit 63 set; 0 empty */
  char *s;
};

struct observer {
  tw_rtos_fn fn;
  void *ctx;
  uint32_t kinds;          /* TW_RTOS_CH_BIT of the kinds it wants */
};

struct tw_rtos {
  struct observer obs[TW_RTOS_MAX_OBSERVERS];
  int nobs;
  uint32_t want;           /* the kinds some observer wants */
  uint8_t all_want_all;    /* every observer wants every kind: no test per change */
  const struct tw_meaning *by_id[ID_TABLE]; /* first row of each id, NULL none */
  uint16_t val_slot[ID_TABLE];   /* ids with rows: their index into by_val (0: none) */
  const struct tw_meaning *(*by_val)[VAL_TABLE]; /* [slot][value]: the row meaning_of finds */
  uint8_t *row_marker;     /* by meaning row: the marker of its constant (or the default) */
  struct rcore **by_stream;
  size_t nby_stream;
  struct rep **eps;
  size_t neps, capeps;
  struct rep *last_ep;
  struct rcore **cores;    /* by dense id */
  size_t ncores, capcores;
  struct rtask **tasks;
  size_t ntasks, captasks;
  struct robj **objs;
  size_t nobjs, capobjs;
  struct rname *names;     /* open addressing */
  size_t names_cap, nnames;
  char **old_names;
  size_t nold, capold;
  uint64_t oom, out_of_range;
  int finished;
  /* objects an event changed: one OBJ change each, after its other
   * changes (a block, say, changes waiters and count: one change, not two) */
  struct {
    struct robj *o;
    struct rcore *c;
    const struct tw_rtos_task *old_holder;
    uint64_t old_since, t;
    enum tw_act why;
  } touched[8];
  int ntouched;
  /* The changes told most often (task, object, switch), one each, zeroed
   * once: each telling sets the fields its kind has (always the same ones),
   * so the rest stay zero as an initializer would leave them, without
   * clearing the whole struct every time (that was a measurable share of
   * an observed model's cost). Never told nested: observers must not feed. */
  struct tw_rtos_change ch_task, ch_obj, ch_switch;
  const struct tw_event *ev; /* being fed */
  const struct tw_meaning *mn; /* its meaning */
  const struct tw_rtos_task *evtask; /* its task */
};

/* rtos.c */
void tw__rtos_emit_all(struct tw_rtos *m, const struct tw_rtos_change *ch);
/* Tells every observer (callers check nobs); one observer, the common
 * case, without the loop. */
static inline void tw__rtos_emit(struct tw_rtos *m, const struct tw_rtos_change *ch)
{
  if (m->nobs == 1 && (m->all_want_all || (m->obs[0].kinds & TW_RTOS_CH_BIT(ch->kind))))
    m->obs[0].fn(m->obs[0].ctx, ch);
  else if (m->nobs > 1)
    tw__rtos_emit_all(m, ch);
}
/* tw_rtos_feed with the meaning given (NULL: the table's). Tests use it for
 * acts whose events are not in the vocabulary yet. */
int tw__rtos_feed_as(struct tw_rtos *m, const struct tw_event *ev, const struct tw_meaning *as);

/* The hot path's lookups: a task or object already seen, by two loads. */
static inline struct rtask *tw__rtos_task_fast(const struct rep *e, uint32_t number)
{
  size_t pi = number >> PAGE_BITS;
  struct rtask *t;
  if (pi >= e->tasks.n || !e->tasks.page[pi])
    return NULL;
  t = (struct rtask *)e->tasks.page[pi] + (number & (PAGE_SIZE - 1));
  return t->used ? t : NULL;
}

static inline struct robj *tw__rtos_obj_fast(const struct rep *e, unsigned kind, uint32_t number)
{
  size_t pi = number >> PAGE_BITS;
  struct robj *o;
  if (kind >= TW_OBJ_COUNT || pi >= e->objs[kind].n || !e->objs[kind].page[pi])
    return NULL;
  o = (struct robj *)e->objs[kind].page[pi] + (number & (PAGE_SIZE - 1));
  return o->used ? o : NULL;
}
struct rtask *tw__rtos_task_get(struct tw_rtos *m, struct rep *e, uint32_t number);
struct robj *tw__rtos_obj_get(struct tw_rtos *m, struct rep *e, unsigned kind, uint32_t number);
struct rtask *tw__rtos_task_find(const struct rep *e, uint32_t number);
struct robj *tw__rtos_obj_find(const struct rep *e, unsigned kind, uint32_t number);

/* rtos_acts.c */
void tw__rtos_flush_objs(struct tw_rtos *m);
void tw__rtos_charge(struct tw_rtos *m, struct rcore *c, uint64_t t);
void tw__rtos_act(struct tw_rtos *m, struct rcore *c, const struct tw_meaning *mn,
                  const struct tw_event *ev, uint64_t t, struct tw_rtos_change *evch);
void tw__rtos_apply_loss(struct tw_rtos *m, struct rcore *c, uint64_t t,
                         enum tw_rtos_loss_cause cause, uint64_t count);
void tw__rtos_end(struct tw_rtos *m, struct rcore *c);

/* rtos_names.c */
int tw__rtos_name_set(struct tw_rtos *m, uint16_t endpoint, unsigned kind, uint32_t number,
                      const char *s, size_t len, const char **out);
void tw__rtos_names_free(struct tw_rtos *m);

#endif
