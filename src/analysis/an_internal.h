/* The analysis engine's state, shared by engine.c, detect.c, query.c,
 * output.c and report.c. What events mean comes from the RTOS state model
 * (tracewire/model/rtos.h); this is what the analyses add to it: time
 * series, distributions, counts and the detectors' episodes. Tasks,
 * objects and cores are kept by the model's dense ids. */
#ifndef TW_ANALYSIS_INTERNAL_H
#define TW_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "tracewire/analysis/analysis.h"
#include "tracewire/model/rtos.h"

#define TW_AN_MAX_LOSSES 4096
#define TW_AN_MAX_TYPES 8
#define TW_AN_INV_MID 6

struct an_task {
  const struct tw_rtos_task *t;  /* NULL: slot unused */
  int core;                      /* home core: where it last ran, else where first seen */
  uint8_t seen;                  /* took part in an event, not only named */
  uint8_t state;                 /* enum tw_an_state now (DELETED: left the analyses) */
  uint64_t since;                /* of that state */
  uint64_t ns[TW_AN_NSTATES];
  uint64_t cpu_ns, intr_ns;      /* charged by the engine up to its end of trace */
  uint64_t switches_in;
  uint64_t rel_t;
  int rel_pending;
  struct tw_hist *latency;
  uint64_t *win;
  /* priority inversion episode while blocked on a lock (mutex, binary semaphore) */
  int inv_on, inv_seen, ninv_mid, inv_listed;
  uint64_t inv_first, inv_last, inv_seg, inv_ns, inv_epoch;
  uint16_t inv_owner, inv_mid[TW_AN_INV_MID];
  uint8_t inv_kind;
  uint32_t inv_obj;
};

struct an_frame {
  uint64_t give_t;
  int have_give, announced;
  uint16_t enter_id;             /* the event that entered it, for its glyph */
  uint32_t enter_type;
  enum tw_marker enter_marker;
};

struct an_irq {
  uint32_t irq;
  uint64_t count, nested, cpu_ns, cut; /* cut: closed at a loss gap, duration unknown */
  int max_depth;
  struct tw_hist *dur;
  uint64_t *win;
};

struct an_core {
  const struct tw_rtos_core *mc; /* NULL: slot unused */
  char *name;
  const struct tw_rtos_task *last_run; /* last known running task (switch counting) */
  struct an_frame frames[TW_RTOS_MAX_NEST];
  struct an_irq *irqs;
  size_t nirqs, nirqs_used;
  int in_span;                   /* has had an event the analyses count */
  int named_now;                 /* the event being fed named an interrupt frame */
  uint64_t t0, t1, events, switches, isr_ns, unknown_ns;
  uint64_t last_t;               /* time charged up to */
  int own_irq;                   /* who time goes to now: irq index, or -1 */
  const struct tw_rtos_task *own_task; /* else this task, else unknown */
  struct tw_hist *latency;
  uint64_t win_w;                /* window width, ns */
  uint64_t win_cur, win_cur_end; /* the window holding last_t, and where it ends */
  uint64_t win_switches[TW_AN_WINDOWS], win_unknown[TW_AN_WINDOWS];
};

struct an_obj {
  const struct tw_rtos_obj *o;   /* NULL: slot unused */
  uint64_t count[TW_AN_MAX_TYPES];
  uint64_t locks, unlocks, inc_locks, dec_locks;
  uint64_t blocks, releases, contended;
  int max_depth;
  struct tw_hist *hold, *wait;
};

/* What the engine does with an event of a meaning row, worked out once
 * from the row (engine.c, acts_init) so an event is a table read. */
struct an_act {
  uint8_t type;        /* the marker-field value the row is for; 0xFF: read it */
  uint8_t lock_ctr;    /* 1 locks, 2 unlocks, 3 inc_locks, 4 dec_locks, 0 none */
  uint8_t block, release, give, ready, irq_name;
  uint8_t in_span;     /* counted in the core's span (not recording control) */
  uint8_t item;        /* drawn as an event item (not a frame, name or loss) */
};

struct tw_an {
  struct tw_an_cfg cfg;
  struct an_act *acts;           /* by meaning row */
  struct tw_rtos *m;
  int own_model, finished;
  int err;                       /* first error (TW_ENOMEM), sticky */
  tw_an_observer obs;
  void *obs_ctx;
  void (*on_core)(void *ctx, struct tw_an *a, int core);
  void *on_core_ctx;
  struct an_core *cores;         /* by model core id */
  size_t ncores, ncores_used;    /* capacity; 1 + the highest id in use */
  const struct tw_rtos_core *last_mc; /* the core of the last change, found */
  struct an_core *last_core;
  struct an_task *tasks;         /* by model task id */
  size_t ntasks;
  struct an_obj *objs;           /* by model object id */
  size_t nobjs;
  uint32_t *inv_list;            /* task ids blocked on a lock now */
  size_t ninv, capinv;
  struct tw_an_finding *findings;
  size_t nfind, nfind_cap;
  size_t open_dl[64];
  uint64_t dl_epoch[64];
  size_t nopen_dl;
  struct tw_an_loss *losses;
  size_t nloss, nloss_cap, loss_merged;
  uint64_t lost[TW_AN_NCAUSES];
};

/* Allocation failures a test injects: the Nth allocation from now fails
 * (0: none). Not thread-safe; tests only. */
extern unsigned long tw__an_fail_alloc;

void *tw__an_calloc(struct tw_an *a, size_t n, size_t size);
int tw__an_grow(struct tw_an *a, void *arrp, size_t *n, size_t need, size_t elem);
void tw__an_hist_add(struct tw_an *a, struct tw_hist **h, uint64_t v);
void tw__an_win_halve(uint64_t *w);
void tw__an_emit(struct tw_an *a, const struct tw_an_item *it);
struct an_task *tw__an_task_slow(struct tw_an *a, const struct tw_rtos_task *t);
struct an_obj *tw__an_obj_slow(struct tw_an *a, const struct tw_rtos_obj *o);

/* The engine's data of a model task or object: a load when it is there. */
static inline struct an_task *tw__an_task_of(struct tw_an *a, const struct tw_rtos_task *t)
{
  if (t && t->id < a->ntasks && a->tasks[t->id].t)
    return &a->tasks[t->id];
  return tw__an_task_slow(a, t);
}

static inline struct an_obj *tw__an_obj_of(struct tw_an *a, const struct tw_rtos_obj *o)
{
  if (o && o->id < a->nobjs && a->objs[o->id].o)
    return &a->objs[o->id];
  return tw__an_obj_slow(a, o);
}
enum tw_an_state tw__an_state_of(const struct tw_rtos_phase *p);
void tw__an_add_finding(struct tw_an *a, const struct tw_an_finding *f);

/* detect.c */
void tw__an_inv_block(struct tw_an *a, int core, struct an_task *h, uint64_t now);
void tw__an_inv_unblock(struct tw_an *a, int core, struct an_task *h, uint64_t now);
void tw__an_inv_eval(struct tw_an *a, int core, uint64_t now);
void tw__an_deadlock_check(struct tw_an *a, int core, struct an_task *t, uint64_t now);
void tw__an_deadlock_release(struct tw_an *a, int core, struct an_task *t, uint64_t now);
void tw__an_starve_check(struct tw_an *a, int core, struct an_task *t, uint64_t since,
                         uint64_t epoch, uint64_t now);
void tw__an_finish_detectors(struct tw_an *a);
int tw__an_is_lock(const struct tw_rtos_obj *o);

void tw__an_finding_text(const struct tw_an *a, const struct tw_an_finding *fd, char *buf,
                         size_t cap);

#endif
