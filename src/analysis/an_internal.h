/* The analysis engine's state, shared by engine.c, detect.c, query.c,
 * output.c and report.c. What events mean comes from the RTOS state model
 * (tracewire/model/rtos.h); this is what the analyses add to it: time
 * series, distributions, counts and the detectors' episodes. Tasks,
 * objects and cores are kept by the model's dense ids. */
#ifndef TW_ANALYSIS_INTERNAL_H
#define TW_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
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
  uint64_t rel_t;
  /* priority inheritance: effective priority above the base */
  int inh_on, inh_max;
  uint64_t inh_since, inh_ns, inh_count;
  int rel_pending;
  struct tw_hist *latency;
  const struct tw_rtos_obj *wait_o; /* what it last blocked on (model pointers are stable) */
  /* priority inversion episode while blocked on a lock (mutex, binary semaphore);
   * inv_inherited: the lower-priority holder inherited this task's priority
   * (an inversion that inheritance bounds, from inv_block to the release) */
  int inv_on, inv_seen, ninv_mid, inv_listed, inv_inherited;
  uint64_t inv_first, inv_last, inv_seg, inv_ns, inv_epoch, inv_block;
  uint16_t inv_owner, inv_mid[TW_AN_INV_MID];
  uint8_t inv_kind;
  uint32_t inv_obj;
};

struct an_frame {
  uint64_t give_t;
  int have_give, announced;
  int irq_index;                 /* into the core's irqs once looked up, else -1 */
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

/* Whether the outputs list an interrupt: an entry is made when a frame
 * opens, before the frame's INTERRUPT event names it (an "irq ?" entry
 * that then never takes a nanosecond nor an exit); one with nothing
 * taken, nothing cut and no time has nothing to say. */
static inline int tw__an_irq_listed(const struct an_irq *q)
{
  return q->count || q->cut || q->cpu_ns;
}

/* What a task got on one core (SMP: a task runs on any core of its
 * endpoint; each core charges its own time to it, nothing twice). */
struct an_load {
  uint64_t cpu_ns, intr_ns;      /* charged by the engine up to its end of trace */
  uint64_t switches_in;
  uint64_t *win;                 /* busy ns per window of this core */
  uint8_t ran;                   /* ran here: listed on this core */
};

struct an_core {
  const struct tw_rtos_core *mc; /* NULL: slot unused */
  struct an_load *load;          /* by model task id */
  size_t nload;
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
  uint64_t win_limit;            /* where the last window ends (UINT64_MAX: beyond) */
  uint64_t win_switches[TW_AN_WINDOWS], win_unknown[TW_AN_WINDOWS];
};

struct an_obj {
  const struct tw_rtos_obj *o;   /* NULL: slot unused */
  uint64_t count[TW_AN_MAX_TYPES];
  uint64_t lock_ops[5];           /* by an_act.lock_ctr: [LOCKS] locks, ... ([0] unused) */
  uint64_t blocks, releases, contended;
  int max_depth;
  struct tw_hist *hold, *wait;
  /* the model's holder and since when, as the object's last event left
   * them (NULL: free or not known): what an unlock ends (the engine does
   * not ask the model for object changes, engine.c says why) */
  const struct tw_rtos_task *held_by;
  uint64_t held_from;
};

enum { AN_LOCKS = 1, AN_UNLOCKS, AN_INC_LOCKS, AN_DEC_LOCKS };

/* What the engine does with an event of a meaning row, worked out once
 * from the row (engine.c, acts_init) so an event is a table read. */
struct an_act {
  uint8_t type;        /* the marker-field value the row is for; 0xFF: read it */
  uint8_t lock_ctr;    /* an index into an_obj.lock_ops, 0 none */
  uint8_t block, release, give, ready, irq_name;
  uint8_t special;     /* give, ready or irq_name: more to do than counting */
  int8_t index_field;  /* the field a report item shows as the input index, or -1 */
  uint8_t in_span;     /* counted in the core's span (not recording control) */
  uint8_t item;        /* drawn as an event item (not a frame, name or loss) */
};

struct tw_an {
  struct tw_an_cfg cfg;
  struct an_act *acts;           /* by meaning row */
  size_t nacts;
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
  /* grouped findings (group.c) */
  struct tw_an_group *groups;    /* in order of first sight until finished, then by severity */
  size_t ngroups, ngroups_cap;
  uint32_t *ghash;               /* open addressing: group index + 1 */
  size_t ghcap;
  size_t *fgroup;                /* the group of each finding, parallel to findings */
  size_t fgroup_cap;
  size_t nfind_dropped;          /* findings let go (cfg.recent_findings) */
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
/* The analyses' state of a model phase (a wait the trace does not show
 * counts as suspended; deleted and unknown as unknown). */
static inline enum tw_an_state tw__an_state_of(const struct tw_rtos_phase *p)
{
  switch (p->state) {
  case TW_RTOS_RUNNING: return TW_AN_RUNNING;
  case TW_RTOS_READY: return TW_AN_READY;
  case TW_RTOS_BLOCKED:
    return p->wait == TW_RTOS_WAIT_UNSEEN ? TW_AN_SUSPENDED : TW_AN_BLOCKED;
  case TW_RTOS_SUSPENDED: return TW_AN_SUSPENDED;
  default: return TW_AN_UNKNOWN; /* and DELETED, which the analyses no longer follow */
  }
}
void tw__an_add_finding(struct tw_an *a, const struct tw_an_finding *f);

struct an_load *tw__an_load_slow(struct tw_an *a, struct an_core *c, const struct tw_rtos_task *t);

/* The task's share of core c: a load when it is there. */
static inline struct an_load *tw__an_load_of(struct tw_an *a, struct an_core *c,
                                             const struct tw_rtos_task *t)
{
  if (t->id < c->nload)
    return &c->load[t->id];
  return tw__an_load_slow(a, c, t);
}
/* Whether task x is listed on core ci: its home core, or one it ran on. */
int tw__an_listed(const struct tw_an *a, const struct an_task *x, size_t ci);

/* group.c: every finding joins its group when added (tw__an_add_finding);
 * a detector that changes a finding afterwards (an open deadlock's end)
 * says so with what it was before. tw__an_groups_finish sorts them. */
void tw__an_group_add(struct tw_an *a, size_t i);
void tw__an_group_update(struct tw_an *a, size_t i, const struct tw_an_finding *before);
void tw__an_groups_finish(struct tw_an *a);
void tw__an_groups_free(struct tw_an *a);

/* detect.c */
void tw__an_inv_block(struct tw_an *a, int core, struct an_task *h, uint64_t now);
void tw__an_inv_unblock(struct tw_an *a, int core, struct an_task *h, uint64_t now);
void tw__an_inv_eval(struct tw_an *a, int core, uint64_t now);
void tw__an_deadlock_check(struct tw_an *a, int core, struct an_task *t, uint64_t now);
void tw__an_deadlock_release(struct tw_an *a, int core, struct an_task *t, uint64_t now);
void tw__an_starve_found(struct tw_an *a, int core, struct an_task *t, uint64_t since,
                         uint64_t epoch, uint64_t now);
/* Ready since `since` and running (or the trace ends) at now: longer
 * than the threshold is a finding (the check inline: it is every run). */
static inline void tw__an_starve_check(struct tw_an *a, int core, struct an_task *t,
                                       uint64_t since, uint64_t epoch, uint64_t now)
{
  if (now > since && now - since > a->cfg.starve_ns)
    tw__an_starve_found(a, core, t, since, epoch, now);
}
void tw__an_finish_detectors(struct tw_an *a);
/* A lock: a mutex, or a binary semaphore (its holder is its taker). */
static inline int tw__an_is_lock(const struct tw_rtos_obj *o)
{
  return o && (o->kind == TW_OBJ_MUTEX || o->binary);
}

/* JSON output; instances 0 leaves the findings list empty (the report
 * embeds them its own way; the groups are there either way). */
int tw__an_write_json(const struct tw_an *a, FILE *f, int instances);
/* s as a JSON string: valid UTF-8, safe inside an HTML <script> (output.c). */
void tw__an_jstr(FILE *f, const char *s);

void tw__an_finding_text(const struct tw_an *a, const struct tw_an_finding *fd, char *buf,
                         size_t cap);

#endif
