/*
 * The timeline (see timeline.h): every event goes into the timeline's RTOS
 * state model, and what is drawn follows the model's changes:
 *
 *   switch      the core's run slice and the task's "running" slice end
 *               and the next ones begin (none while the running task is
 *               unknown, after a loss until the next switch)
 *   irq_*       "interrupt" slices, closed at a loss gap when cut
 *   loss        a slice on the core's "lost events" track from the
 *               core's previous event to the gap
 *   task, obj   mark the endpoint's ready count and the semaphore's count
 *               as changed; counters are written once time moves on, so a
 *               counter has at most one sample per timestamp
 *   event       an instant for every event that is not a switch or an
 *               interrupt entry/exit, with its fields as arguments
 *
 * CPU load: per core, the busy share of each window; busy while the owner
 * the model reports is an interrupt or a task that is not idle (unknown
 * is not busy).
 *
 * With a native scheduler backend (tl_ops.sched, Perfetto) the switch,
 * interrupt-exit and task changes go to its hooks instead of slices.
 */
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "text.h"
#include "tracewire/model/rtos.h"

#define TL_FLOWS 4096u
#define TL_MAX_INSTANCE 0x3FFFu /* core thread ids: pid | 0x8000 | 0x4000 (irq) | N */
#define TL_MAX_EPS 32766u       /* pid = (index + 1) << 16 stays a positive int32 */
/* tid = pid | task number: task numbers are 16 bits (struct tw_rtos_task) */

struct tl_counter {
  int64_t last;           /* last value written */
  uint8_t written, dirty, declared;
};

/* A counter changed at the current timestamp: the endpoint's ready count
 * (index into eps) or an object's count (model object id). Indexes, not
 * pointers: the tables may move before the flush. */
struct tl_dirty {
  uint8_t sem;
  uint32_t index;
};

struct tl_ep {
  uint16_t endpoint;
  struct tl_counter ready;
};

struct tl_core {
  struct tl_ep *ep;
  size_t ep_index;
  struct tl_track t_core, t_irq, t_load, t_lost;
  char n_core[24], n_irq[32], n_load[32], n_lost[40];
  const struct tw_rtos_task *run; /* the task whose run slices are open */
  int irqs_open, busy, lost_declared;
  uint64_t win_start, busy_ns, last_t, prev_t;
};

struct tl_obj {
  struct tl_counter count;
  char *track_name;       /* "sem <name>", made when declared */
};

/* A task's thread track, made once (instants need it for every event). */
struct tl_task {
  struct tl_track t;
  const char *src; /* the model's name it was made from */
  char num[16];    /* "task N" while it has none */
  uint64_t notify_flow; /* a flow from the notification that released it, to end */
};

struct tl_flow {
  uint64_t key, id;
};

struct timeline {
  struct tw_export *x;
  const struct tl_ops *ops;
  void *b;
  struct tw_rtos *m;
  struct tl_ep **eps;
  size_t neps;
  struct tl_core **cores;  /* by model core id */
  size_t ncores;
  struct tl_task **tasks;  /* by model task id: its track, once declared */
  size_t ntasks;
  struct tl_obj *objs;     /* by model object id */
  size_t nobjs;
  struct tl_dirty *dirty;
  size_t ndirty, capdirty;
  uint32_t *lost_sems;     /* semaphores a loss forgot, marked at its event (sem_loss) */
  /* what the event being fed released (on_task), for its flows */
  uint64_t released;       /* the key of the object a task stopped waiting on; 0: none */
  const struct tw_rtos_task *notified; /* the task a notification made ready */
  size_t notify_flows;     /* tasks with a notify_flow to end */
  size_t nlost_sems, caplost_sems;
  struct tl_flow *flows;
  size_t nflows;
  uint64_t next_flow, last_ts, cur_ts;
  uint64_t names;          /* NAME changes so far (tw__tl_names) */
  int have_ts;
  char *buf;               /* scratch for names and argument text */
  size_t cap;
  struct tw__fields *fnames; /* custom kinds' argument names (text.h) */
};

/* The timeline adds these arguments itself (fill_args). */
static const char *const arg_reserved[] = {"marker", "time", NULL};

/* Small uuids: protobuf writes them as varints, two or three bytes. */
static uint64_t uuid(enum tl_kind k, uint32_t dense)
{
  return ((uint64_t)dense + 1) << 3 | (uint64_t)(k - 1);
}

uint64_t tw__tl_uuid_task(const struct tw_rtos_task *t)
{
  return uuid(TL_TASK, t->id);
}

static size_t ep_index(const struct timeline *tl, uint16_t endpoint)
{
  for (size_t i = 0; i < tl->neps; i++)
    if (tl->eps[i]->endpoint == endpoint)
      return i;
  return tl->neps;
}

int32_t tw__tl_pid(const struct timeline *tl, uint16_t endpoint)
{
  return (int32_t)((uint32_t)(ep_index(tl, endpoint) + 1) << 16);
}

int32_t tw__tl_tid(const struct timeline *tl, const struct tw_rtos_task *t)
{
  return tw__tl_pid(tl, t->endpoint) | (int32_t)t->number;
}

uint64_t tw__tl_names(const struct timeline *tl)
{
  return tl->names;
}

const struct tw_rtos *tw__tl_model(const struct timeline *tl)
{
  return tl->m;
}


static void oom(struct timeline *tl)
{
  tw__export_fail(tl->x, TW_ENOMEM, "out of memory");
}

const char *const *tw__tl_field_names(struct timeline *tl, const struct tw_event_desc *d)
{
  const char *const *names;
  if (d->module != TW_MOD_CUSTOM)
    return NULL; /* the vocabulary's are plain and unique */
  if (!(names = tw__fields_of(tl->fnames, d)))
    oom(tl);
  return names;
}

/* Grows an array of elem-sized items to hold index i, zero-filling. */
static int grow(struct timeline *tl, void *arrp, size_t *n, size_t i, size_t elem)
{
  if (tw__grow_zeroed(arrp, n, i, elem) == 0)
    return 0;
  oom(tl);
  return -1;
}

/* Scratch text: at least n bytes. */
static char *scratch(struct timeline *tl, size_t n)
{
  char *b = tw__buf_at_least(&tl->buf, &tl->cap, n);
  if (!b)
    oom(tl);
  return b;
}

/* ---- tracks ------------------------------------------------------------------ */

static struct tl_ep *ep_of(struct timeline *tl, uint16_t endpoint)
{
  char name[32];
  struct tl_track t;
  struct tl_ep *e, **a;
  size_t i = ep_index(tl, endpoint);
  if (i < tl->neps)
    return tl->eps[i];
  if (tl->neps >= TL_MAX_EPS) {
    tw__export_fail(tl->x, TW_ENOSPC, "%s: endpoint %04x: more than %u endpoints cannot be told "
                    "apart (process ids)", tl->x->out, endpoint, TL_MAX_EPS);
    return NULL;
  }
  if (!(e = calloc(1, sizeof *e)) || !(a = realloc(tl->eps, (tl->neps + 1) * sizeof *a))) {
    free(e);
    oom(tl);
    return NULL;
  }
  tl->eps = a;
  a[tl->neps++] = e;
  e->endpoint = endpoint;
  snprintf(name, sizeof name, "target %04x", endpoint);
  t = (struct tl_track){uuid(TL_PROCESS, (uint32_t)i), 0, TL_PROCESS, 0,
                        (int32_t)((uint32_t)(i + 1) << 16), 0, name};
  tl->ops->track(tl->b, &t);
  return e;
}

/* Slice tracks: threads of the endpoint's process for Chrome JSON (which
 * has no other kind); with a native scheduler, Perfetto's CPU N (the
 * model's dense core id) names them and they are plain tracks. */
static struct tl_track core_track(const struct timeline *tl, const struct tl_core *c,
                                  const struct tw_rtos_core *mc, enum tl_kind k, char *name,
                                  size_t cap)
{
  static const char *const fmt[] = {[TL_CORE] = "cpu%u", [TL_IRQ] = "cpu%u irq",
                                    [TL_LOAD] = "cpu%u load %%", [TL_LOST] = "cpu%u lost events"};
  uint32_t sub = k == TL_IRQ ? 0x4000u : k == TL_LOST ? 0x2000u : 0;
  int native = tl->ops->sched != NULL;
  int32_t pid = (int32_t)((uint32_t)(c->ep_index + 1) << 16);
  snprintf(name, cap, native && k == TL_CORE ? "cpu%u events" : fmt[k],
           native ? mc->id : mc->instance);
  /* the lost-events track shares no id with the others: its tid uses
   * instance | 0x2000 under 0x8000, below the irq flag */
  return (struct tl_track){uuid(k, mc->id), uuid(TL_PROCESS, (uint32_t)c->ep_index), k,
                           k == TL_LOAD, pid,
                           k == TL_LOAD || native
                               ? 0
                               : (int32_t)((uint32_t)pid | 0x8000u | sub | mc->instance),
                           name};
}

static struct tl_core *core_of(struct timeline *tl, const struct tw_rtos_change *ch)
{
  const struct tw_rtos_core *mc = ch->core;
  struct tl_core *c;
  if (mc->id < tl->ncores && tl->cores[mc->id])
    return tl->cores[mc->id];
  if (mc->instance > TL_MAX_INSTANCE) {
    tw__export_fail(tl->x, TW_ENOSPC,
                    "%s: core %u of endpoint %04x: cores above %u cannot be told apart "
                    "(thread ids)", tl->x->out, mc->instance, mc->endpoint, TL_MAX_INSTANCE);
    return NULL;
  }
  if (grow(tl, &tl->cores, &tl->ncores, mc->id, sizeof *tl->cores) < 0 ||
      !(c = calloc(1, sizeof *c))) {
    oom(tl);
    return NULL;
  }
  if (!(c->ep = ep_of(tl, mc->endpoint))) {
    free(c);
    return NULL;
  }
  c->ep_index = ep_index(tl, mc->endpoint);
  tl->cores[mc->id] = c;
  c->win_start = c->last_t = c->prev_t = mc->t0;
  c->t_core = core_track(tl, c, mc, TL_CORE, c->n_core, sizeof c->n_core);
  c->t_irq = core_track(tl, c, mc, TL_IRQ, c->n_irq, sizeof c->n_irq);
  c->t_load = core_track(tl, c, mc, TL_LOAD, c->n_load, sizeof c->n_load);
  c->t_lost = core_track(tl, c, mc, TL_LOST, c->n_lost, sizeof c->n_lost);
  tl->ops->track(tl->b, &c->t_core);
  if (!tl->ops->sched)
    tl->ops->track(tl->b, &c->t_irq);
  tl->ops->track(tl->b, &c->t_load);
  if (tl->ops->sched)
    tl->ops->sched->cpu(tl->b, ch);
  return c;
}

/* A task's track (declared the first time); its name is the model's,
 * whole. Stable while the timeline lives. */
static const struct tl_track *task_track(struct timeline *tl, const struct tw_rtos_task *t)
{
  struct tl_task *k = t->id < tl->ntasks ? tl->tasks[t->id] : NULL;
  size_t e;
  if (k && k->src == t->name)
    return &k->t;
  if (!k) {
    if (grow(tl, &tl->tasks, &tl->ntasks, t->id, sizeof *tl->tasks) < 0 ||
        !(k = calloc(1, sizeof *k))) {
      oom(tl);
      static const struct tl_track none = {.kind = TL_TASK, .name = ""};
      return &none;
    }
    tl->tasks[t->id] = k;
    e = ep_index(tl, t->endpoint);
    k->t = (struct tl_track){uuid(TL_TASK, t->id), uuid(TL_PROCESS, (uint32_t)e), TL_TASK, 0,
                             (int32_t)((uint32_t)(e + 1) << 16),
                             (int32_t)((uint32_t)(e + 1) << 16 | t->number), NULL};
    snprintf(k->num, sizeof k->num, "task %u", t->number);
    k->t.name = k->src = t->name;
    if (!k->t.name)
      k->t.name = k->num;
    tl->ops->track(tl->b, &k->t);
    return &k->t;
  }
  k->src = t->name; /* renamed: the NAME change declares it again */
  k->t.name = t->name ? t->name : k->num;
  return &k->t;
}

/* ---- counters -------------------------------------------------------------- */

static void mark(struct timeline *tl, struct tl_counter *k, int sem, size_t index)
{
  if (k->dirty)
    return;
  if (tl->ndirty == tl->capdirty && grow(tl, &tl->dirty, &tl->capdirty, tl->ndirty,
                                         sizeof *tl->dirty) < 0)
    return;
  k->dirty = 1;
  tl->dirty[tl->ndirty++] = (struct tl_dirty){(uint8_t)sem, (uint32_t)index};
}

static void write_counter(struct timeline *tl, struct tl_counter *k, const struct tl_track *t,
                          int64_t v)
{
  if (k->written && k->last == v)
    return;
  if (!k->declared) {
    k->declared = 1;
    tl->ops->track(tl->b, t);
  }
  k->written = 1;
  k->last = v;
  tl->ops->counter(tl->b, tl->cur_ts, t, v);
}

static void flush_ready(struct timeline *tl, struct tl_ep *e)
{
  size_t i = ep_index(tl, e->endpoint);
  struct tl_track t = {uuid(TL_READY, (uint32_t)i), uuid(TL_PROCESS, (uint32_t)i), TL_READY, 1,
                       (int32_t)((uint32_t)(i + 1) << 16), 0, "ready tasks"};
  write_counter(tl, &e->ready, &t, tw_rtos_ready(tl->m, e->endpoint, NULL));
}

static void flush_sem(struct timeline *tl, struct tl_obj *so, const struct tw_rtos_obj *o)
{
  size_t i = ep_index(tl, o->endpoint);
  struct tl_track t = {uuid(TL_SEM, o->id), uuid(TL_PROCESS, (uint32_t)i), TL_SEM, 1,
                       (int32_t)((uint32_t)(i + 1) << 16), 0, NULL};
  if (!so->track_name) {
    size_t n = (o->name ? strlen(o->name) : 12) + 8;
    if (!(so->track_name = malloc(n))) {
      oom(tl);
      return;
    }
    if (o->name)
      snprintf(so->track_name, n, "sem %s", o->name);
    else
      snprintf(so->track_name, n, "sem %u", o->number);
  }
  t.name = so->track_name;
  write_counter(tl, &so->count, &t, o->count);
}

/* Counters changed at cur_ts, written now that time moves on (or at the
 * end): one sample per counter and timestamp, the value after all of the
 * timestamp's events. */
static void flush_counters(struct timeline *tl)
{
  for (size_t i = 0; i < tl->ndirty; i++) {
    const struct tl_dirty *d = &tl->dirty[i];
    if (d->sem) {
      tl->objs[d->index].count.dirty = 0;
      flush_sem(tl, &tl->objs[d->index], tw_rtos_obj_at(tl->m, d->index));
    } else {
      tl->eps[d->index]->ready.dirty = 0;
      flush_ready(tl, tl->eps[d->index]);
    }
  }
  tl->ndirty = 0;
}

/* CPU load: the busy share of each window, as a counter at the window's
 * start. A stretch of whole windows in one state is one counter value. */
static void load_advance(struct timeline *tl, struct tl_core *c, uint64_t t)
{
  uint64_t w = tl->x->cfg.load_window_ns;
  const struct tl_track *tr = &c->t_load;
  if (t < c->last_t)
    t = c->last_t;
  /* t - win_start, not win_start + w: near 2^64 ns (a damaged timestamp)
   * the sum wraps and the loop would never end (issue 19, fuzz_export) */
  while (t - c->win_start >= w) {
    uint64_t end = c->win_start + w;
    if (c->busy)
      c->busy_ns += end - c->last_t;
    tl->ops->counter(tl->b, c->win_start, tr, (int64_t)(c->busy_ns * 100 / w));
    c->busy_ns = 0;
    c->last_t = end;
    c->win_start = end;
    if (t - c->win_start >= w) { /* skip whole windows in one state */
      tl->ops->counter(tl->b, c->win_start, tr, c->busy ? 100 : 0);
      c->win_start += (t - c->win_start) / w * w;
      c->last_t = c->win_start;
    }
  }
  if (c->busy)
    c->busy_ns += t - c->last_t;
  c->last_t = t;
}

/* Before an owner change: time so far at the old busy state, then the new. */
static void owner_changed(struct timeline *tl, struct tl_core *c, const struct tw_rtos_core *mc,
                          uint64_t t)
{
  load_advance(tl, c, t);
  c->busy = mc->owner == TW_RTOS_OWN_TASK || mc->owner == TW_RTOS_OWN_IRQ;
}

/* ---- changes ----------------------------------------------------------------- */

static void on_switch(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch)
{
  if (tl->ops->sched) {
    if (ch->task)
      task_track(tl, ch->task); /* the thread is declared before it runs */
    tl->ops->sched->sw(tl->b, ch);
    owner_changed(tl, c, ch->core, ch->t);
    return;
  }
  if (c->run) {
    const struct tl_track *t = task_track(tl, c->run);
    tl->ops->slice_end(tl->b, ch->t, &c->t_core);
    tl->ops->slice_end(tl->b, ch->t, t);
  }
  c->run = ch->task;
  if (ch->task) {
    const struct tl_track *t = task_track(tl, ch->task);
    tl->ops->slice_begin(tl->b, ch->t, &c->t_core, t->name);
    tl->ops->slice_begin(tl->b, ch->t, t, "running");
  }
  owner_changed(tl, c, ch->core, ch->t);
}

static void on_loss(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch)
{
  char *s = scratch(tl, 96);
  if (!s)
    return;
  if (!c->lost_declared) {
    c->lost_declared = 1;
    tl->ops->track(tl->b, &c->t_lost);
  }
  if (ch->cause == TW_RTOS_LOSS_STOPPED)
    snprintf(s, 96, "not recorded (stopped)");
  else
    snprintf(s, 96, "%llu events lost (%s)", (unsigned long long)ch->count,
             tw_rtos_cause_name(ch->cause));
  tl->ops->slice_begin(tl->b, c->prev_t < ch->t ? c->prev_t : ch->t, &c->t_lost, s);
  tl->ops->slice_end(tl->b, ch->t, &c->t_lost);
}

static struct tl_obj *obj_slot(struct timeline *tl, const struct tw_rtos_obj *o)
{
  if (grow(tl, &tl->objs, &tl->nobjs, o->id, sizeof *tl->objs) < 0)
    return NULL;
  return &tl->objs[o->id];
}

static void instant(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch);

/* A task the model does not have as the running task of its core: its
 * state changes are the scheduler backend's to draw (the running one's
 * state reaches it with the switch that ends its run). */
static int not_running(const struct timeline *tl, const struct tw_rtos_task *t)
{
  const struct tw_rtos_core *mc;
  if (t->core < 0 || (size_t)t->core >= tw_rtos_ncores(tl->m))
    return 1;
  mc = tw_rtos_core_at(tl->m, (size_t)t->core);
  return !(mc->running_known && mc->running == t);
}

/* ---- semaphore counts --------------------------------------------------------- */

/* A semaphore's count can change only when an event acts on it, or at a
 * loss; the timeline takes no OBJ changes (they cost the model its
 * bookkeeping on every event) and marks a semaphore's counter where the
 * model would have told an OBJ change: its act on the event's object, a
 * task starting or ending a wait on it, a loss forgetting it. Marks come
 * in the same order, so the counters are written in the same order. */
static void sem_mark(struct timeline *tl, const struct tw_rtos_obj *o)
{
  struct tl_obj *so;
  if (o && o->kind == TW_OBJ_SEM && (so = obj_slot(tl, o)))
    mark(tl, &so->count, 1, o->id);
}

static int waits_on(const struct tw_rtos_phase *p)
{
  return p->state == TW_RTOS_BLOCKED &&
         (p->wait == TW_RTOS_WAIT_OBJECT || p->wait == TW_RTOS_WAIT_CONDITION);
}

/* A phase change moves the waiter counts of the objects waited on (the
 * model updates them after telling the change: a wait that ends on an
 * object with no waiters known changes nothing). */
static void sem_waits(struct timeline *tl, const struct tw_rtos_change *ch)
{
  const struct tw_rtos_task *t = ch->task;
  const struct tw_rtos_obj *o;
  if (ch->old.state == TW_RTOS_BLOCKED && waits_on(&ch->old) && ch->old.wait_kind == TW_OBJ_SEM &&
      (o = tw_rtos_obj(tl->m, t->endpoint, TW_OBJ_SEM, ch->old.wait_obj)) && o->waiters)
    sem_mark(tl, o);
  if (waits_on(&t->now) && t->now.wait_kind == TW_OBJ_SEM)
    sem_mark(tl, tw_rtos_obj(tl->m, t->endpoint, TW_OBJ_SEM, t->now.wait_obj));
}

/* A loss forgets every object of its endpoint with something known
 * (docs/model.md, "Loss"): remembered now (the state is still the one
 * before the gap), marked after the tasks' changes, at the event. */
static void sem_loss(struct timeline *tl, const struct tw_rtos_change *ch)
{
  for (size_t i = 0; i < tw_rtos_nobjs(tl->m); i++) {
    const struct tw_rtos_obj *o = tw_rtos_obj_at(tl->m, i);
    if (o->endpoint != ch->core->endpoint || o->kind != TW_OBJ_SEM ||
        (!o->holder_known && !o->held && !o->depth && !o->count && !o->count_exact))
      continue;
    if (tl->nlost_sems == tl->caplost_sems &&
        grow(tl, &tl->lost_sems, &tl->caplost_sems, tl->nlost_sems, sizeof *tl->lost_sems) < 0)
      return;
    tl->lost_sems[tl->nlost_sems++] = (uint32_t)i;
  }
}

/* The event's own act on a semaphore, after the losses applied before it. */
static void sem_event(struct timeline *tl, const struct tw_rtos_change *ch)
{
  const struct tw_meaning *mn = ch->meaning;
  for (size_t i = 0; i < tl->nlost_sems; i++)
    sem_mark(tl, tw_rtos_obj_at(tl->m, tl->lost_sems[i]));
  tl->nlost_sems = 0;
  if (ch->obj && mn && mn->obj_act != TW_OACT_NONE && mn->act != TW_ACT_NAME &&
      mn->act != TW_ACT_IRQ_ENTER && mn->act != TW_ACT_IRQ_EXIT && mn->act != TW_ACT_IRQ_NAME &&
      mn->act != TW_ACT_LOSS && mn->act != TW_ACT_TRACE_STOP && mn->act != TW_ACT_TRACE_START)
    sem_mark(tl, ch->obj);
}

static uint64_t flow_key(uint16_t endpoint, unsigned kind, uint32_t number)
{
  return (uint64_t)endpoint << 40 | (uint64_t)kind << 32 | number | 1ull << 63;
}

/* A task made ready: by a notification, or released from a wait on an
 * object (the flow from the object's give ends at the event). */
static void released(struct timeline *tl, const struct tw_rtos_change *ch)
{
  if (ch->task->now.state != TW_RTOS_READY || ch->old.state == TW_RTOS_READY ||
      ch->old.state == TW_RTOS_RUNNING)
    return;
  if (ch->why == TW_ACT_NOTIFY)
    tl->notified = ch->task;
  else if (waits_on(&ch->old) && !tl->released)
    tl->released = flow_key(ch->task->endpoint, ch->old.wait_kind, ch->old.wait_obj);
}

static void on_task(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch)
{
  mark(tl, &c->ep->ready, 0, c->ep_index);
  sem_waits(tl, ch);
  released(tl, ch);
  if (tl->ops->sched && ch->task->now.state != TW_RTOS_RUNNING && not_running(tl, ch->task)) {
    task_track(tl, ch->task);
    tl->ops->sched->state(tl->b, ch);
  }
}

static void on_irq(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch)
{
  owner_changed(tl, c, ch->core, ch->t);
  if (tl->ops->sched) {
    if (ch->kind == TW_RTOS_CH_IRQ_EXIT)
      tl->ops->sched->irq(tl->b, ch);
  } else if (ch->kind == TW_RTOS_CH_IRQ_ENTER) {
    tl->ops->slice_begin(tl->b, ch->t, &c->t_irq, "interrupt");
    c->irqs_open++;
  } else if (c->irqs_open > 0) {
    c->irqs_open--;
    tl->ops->slice_end(tl->b, ch->t, &c->t_irq);
  }
}

static __attribute__((noinline)) void on_other(struct timeline *tl, struct tl_core *c,
                                                const struct tw_rtos_change *ch)
{
  switch (ch->kind) {
  case TW_RTOS_CH_SWITCH:
    on_switch(tl, c, ch);
    break;
  case TW_RTOS_CH_IRQ_ENTER:
  case TW_RTOS_CH_IRQ_EXIT:
    on_irq(tl, c, ch);
    break;
  case TW_RTOS_CH_LOSS:
    sem_loss(tl, ch);
    on_loss(tl, c, ch);
    break;
  case TW_RTOS_CH_TASK:
    on_task(tl, c, ch);
    break;
  case TW_RTOS_CH_NAME:
    tl->names++;
    if (ch->task && ch->task->id < tl->ntasks && tl->tasks[ch->task->id]) {
      tl->ops->track(tl->b, task_track(tl, ch->task)); /* renamed */
      if (tl->ops->sched)
        tl->ops->sched->rename(tl->b, ch);
    }
    owner_changed(tl, c, ch->core, ch->t); /* an idle task's time is not busy */
    break;
  default:
    break;
  }
}

/* Every event ends in an EVENT change: that path is kept short; the
 * other kinds go through on_other. */
static void on_change(void *ctx, const struct tw_rtos_change *ch)
{
  struct timeline *tl = ctx;
  const struct tw_rtos_core *mc = ch->core;
  struct tl_core *c;
  if (!mc)
    return;
  c = mc->id < tl->ncores ? tl->cores[mc->id] : NULL;
  if (__builtin_expect(!c, 0) && !(c = core_of(tl, ch)))
    return;
  if (ch->kind == TW_RTOS_CH_EVENT) {
    if (__builtin_expect(ch->obj != NULL || tl->nlost_sems, 0))
      sem_event(tl, ch);
    instant(tl, c, ch);
    c->prev_t = ch->t;
    tl->released = 0;
    tl->notified = NULL;
    return;
  }
  on_other(tl, c, ch);
}

/* The kinds of change the timeline draws (not PRIO, IRQ_NAME, END: a
 * frame's irq is read when it ends, the rest draws nothing; not OBJ:
 * see sem_mark). */
#define TL_KINDS                                                                               \
  (TW_RTOS_CH_BIT(TW_RTOS_CH_LOSS) | TW_RTOS_CH_BIT(TW_RTOS_CH_SWITCH) |                        \
   TW_RTOS_CH_BIT(TW_RTOS_CH_TASK) | TW_RTOS_CH_BIT(TW_RTOS_CH_IRQ_ENTER) |                     \
   TW_RTOS_CH_BIT(TW_RTOS_CH_IRQ_EXIT) | TW_RTOS_CH_BIT(TW_RTOS_CH_NAME) |                      \
   TW_RTOS_CH_BIT(TW_RTOS_CH_EVENT))

/* ---- instants ---------------------------------------------------------------- */

static struct tl_flow *flow_slot(struct timeline *tl, uint64_t key, int insert)
{
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 50) & (TL_FLOWS - 1);
  for (size_t n = 0; n < TL_FLOWS; n++, i = (i + 1) & (TL_FLOWS - 1)) {
    if (tl->flows[i].key == key)
      return &tl->flows[i];
    if (!tl->flows[i].key)
      return insert && tl->nflows < TL_FLOWS / 2 ? &tl->flows[i] : NULL;
  }
  return NULL;
}

/* A give with no task while a task waits on the object may release it:
 * it starts a flow; the object's next release of a task ends it (the
 * release's event names the object, as a ToTask does, or the task it
 * makes ready had waited on it, as FreeRTOS's TaskEvent Ready after a
 * send, give, set bits or write). A notification that makes a task ready
 * starts a flow that ends at the task's next instant (FreeRTOS records
 * its TaskEvent Ready next). */
static void flows(struct timeline *tl, const struct tw_rtos_change *ch, int can_start,
                  uint64_t *out, uint64_t *in)
{
  const struct tw_meaning *mn = ch->meaning;
  uint64_t key;
  struct tl_flow *fl;
  enum tw_obj_act a;
  if (!mn)
    return;
  if (mn->act == TW_ACT_NOTIFY) {
    struct tl_task *k;
    if (can_start && tl->notified && tl->notified->id < tl->ntasks &&
        (k = tl->tasks[tl->notified->id]) != NULL) {
      tl->notify_flows += !k->notify_flow;
      k->notify_flow = *out = ++tl->next_flow;
    }
    return;
  }
  if (!ch->obj) {
    if (mn->act == TW_ACT_READY && tl->released && (fl = flow_slot(tl, tl->released, 0)) &&
        fl->id) {
      *in = fl->id;
      fl->id = 0;
    }
    return;
  }
  a = mn->obj_act;
  key = flow_key(ch->obj->endpoint, ch->obj->kind, ch->obj->number);
  if (mn->task_field < 0 && (a == TW_OACT_GIVE || a == TW_OACT_GIVE_MANY ||
                             a == TW_OACT_RELEASE_MANY || a == TW_OACT_RELEASE_ALL ||
                             a == TW_OACT_SIGNAL)) {
    /* a give releases a task only when one waits: otherwise the flow
     * would have no end (and cost a flow id for nothing) */
    if (!can_start || !ch->obj->waiters)
      return;
    if ((fl = flow_slot(tl, key, 1))) {
      if (!fl->key)
        tl->nflows++;
      fl->key = key;
      fl->id = *out = ++tl->next_flow;
    }
  } else if (mn->act == TW_ACT_READY && (fl = flow_slot(tl, key, 0)) && fl->id) {
    *in = fl->id;
    fl->id = 0; /* one release per give; the slot stays for reuse */
  }
}

/* Event name: "MutexEvent Lock" for an operation with a constant, written
 * at the start of the scratch buffer (*used: its length); else the
 * descriptor's own string. */
static const char *op_name(struct timeline *tl, const struct tw_event *ev, size_t *used)
{
  const struct tw_event_desc *d = ev->desc;
  uint32_t v = d->marker_field >= 0 && (unsigned)d->marker_field < ev->nvalues
                   ? ev->values[d->marker_field] : 0;
  const char *k = d->marker_field >= 0 ? tw_event_enum_name(d, v) : NULL;
  const char *n = d->seed_name ? d->seed_name : d->name;
  size_t len;
  char *s;
  *used = 0;
  if (!k)
    return n;
  len = strlen(n) + strlen(k) + 2;
  if (!(s = scratch(tl, len)))
    return n;
  snprintf(s, len, "%s %s", n, k);
  *used = len;
  return NULL; /* at tl->buf, which may still move */
}

/* The text of an argument, appended to the scratch buffer at *used
 * (offsets, since the buffer may move as it grows). */
static long arg_text(struct timeline *tl, size_t *used, const char *s, size_t n, uint32_t num,
                     int with_num)
{
  char pre[16];
  int p = with_num ? snprintf(pre, sizeof pre, "%u ", num) : 0;
  char *b = scratch(tl, *used + (size_t)p + n + 1);
  long at = (long)*used;
  if (!b)
    return -1;
  memcpy(b + *used, pre, (size_t)p);
  memcpy(b + *used + p, s, n);
  b[*used + (size_t)p + n] = 0;
  *used += (size_t)p + n + 1;
  return at;
}

static unsigned fill_args(struct timeline *tl, const struct tw_rtos_change *ch,
                          struct tl_arg *a, long *text, size_t used)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_event_desc *d = ev->desc;
  const char *const *names = NULL;
  unsigned n = 0;
  /* the vocabulary's names are plain and unique (tests/test_export_text.c);
   * a custom kind's come from the target: valid UTF-8, unique, not one the
   * timeline adds (arg_reserved) */
  if (d->module == TW_MOD_CUSTOM && !(names = tw__fields_of(tl->fnames, d)))
    oom(tl);
  for (unsigned i = 0; i < d->nfields && n + 3 < TL_MAX_ARGS; i++) {
    const struct tw_field_desc *f = &d->fields[i];
    uint32_t v = i < ev->nvalues ? ev->values[i] : 0;
    const char *s = NULL, *on;
    text[n] = -1;
    if (f->type == TW_FT_STRING) {
      text[n] = arg_text(tl, &used, ev->str ? ev->str : "", ev->str ? ev->str_len : 0, 0, 0);
    } else if ((int)i == d->marker_field && tw_event_enum_name(d, v)) {
      s = tw_event_enum_name(d, v);
    } else if (f->obj == TW_OBJ_OBJKIND) {
      s = tw_obj_kind_name((enum tw_obj_kind)v);
    } else if (f->obj != TW_OBJ_NONE &&
               (on = tw_rtos_name(tl->m, ev->endpoint, f->obj, v)) != NULL) {
      text[n] = arg_text(tl, &used, on, strlen(on), v, 1);
    }
    a[n] = (struct tl_arg){names ? names[i] : f->name, s, v};
    if (s)
      a[n].str_len = strlen(s);
    if (!s && text[n] < 0 && tw_field_type_signed(f->type)) {
      a[n].kind = TL_NUM_INT;
      a[n].inum = tw_field_i32(f, v);
    } else if (!s && text[n] < 0 && f->type == TW_FT_F32) {
      a[n].kind = TL_NUM_FLOAT;
      a[n].fnum = tw_f32_from_bits(v);
    }
    n++;
  }
  for (unsigned i = 0; i < n; i++) /* the buffer stopped moving: point into it */
    if (text[i] >= 0) {
      a[i].str = tl->buf + text[i];
      a[i].str_len = strlen(a[i].str);
      if (d->fields[i].type == TW_FT_STRING && ev->str)
        a[i].str_len = ev->str_len; /* whole, NUL bytes and all */
    }
  if (ch->marker != TW_MARKER_NONE) {
    a[n] = (struct tl_arg){"marker", tw_marker_name(ch->marker), 0};
    a[n].str_len = strlen(a[n].str);
    n++;
  }
  if (ev->flags & TW_EVENT_TIME_INFERRED) { /* docs/exporters.md */
    a[n] = (struct tl_arg){"time", "inferred", 0};
    a[n].str_len = strlen(a[n].str);
    n++;
  }
  return n;
}

static int drawn_as_slices(const struct tw_meaning *mn)
{
  return mn && (mn->act == TW_ACT_RUN || mn->act == TW_ACT_IRQ_ENTER ||
                mn->act == TW_ACT_IRQ_EXIT);
}

const char *tw__tl_describe(struct timeline *tl, const struct tw_rtos_change *ch,
                            struct tl_arg *args, unsigned *nargs)
{
  long text[TL_MAX_ARGS];
  size_t used;
  /* the name first in the scratch buffer, the arguments' text after it */
  const char *name = op_name(tl, ch->ev, &used);
  *nargs = fill_args(tl, ch, args, text, used);
  return name ? name : tl->buf;
}

static void instant(struct timeline *tl, struct tl_core *c, const struct tw_rtos_change *ch)
{
  const struct tw_meaning *mn = ch->meaning;
  const struct tl_track *where, *from;
  uint64_t flow_out = 0, flow_in = 0;
  /* the load is worked out at owner changes and window ends: advancing
   * it at every event adds the same busy time in more steps */
  if (ch->t >= c->win_start + tl->x->cfg.load_window_ns)
    load_advance(tl, c, ch->t);
  if (drawn_as_slices(mn)) {
    if (ch->ev->flags & TW_EVENT_TIME_INFERRED) {
      /* a slice has no arguments to carry the mark: an instant says it */
      struct tl_arg a = {"event", ch->ev->desc->seed_name, 0};
      a.str_len = strlen(a.str);
      tl->ops->note(tl->b, ch->t, &c->t_core, "time inferred", &a, 1);
    }
    return;
  }
  /* a notification is drawn where it was given (the running task's
   * core, or the interrupt's), naming the task it notifies: its flow
   * goes to that task */
  if (ch->task && mn && mn->act != TW_ACT_NAME && mn->act != TW_ACT_NOTIFY)
    where = task_track(tl, ch->task);
  else
    where = mn && mn->act == TW_ACT_IRQ_NAME && !tl->ops->sched ? &c->t_irq : &c->t_core;
  /* A flow starts from a slice open at the give: Chrome JSON binds its
   * start to the enclosing slice (the interrupt's, else the running
   * task's run slice on the core); Perfetto to the instant itself. */
  if (tl->ops->sched)
    from = where;
  else
    from = c->irqs_open > 0 ? &c->t_irq : c->run ? &c->t_core : NULL;
  if (__builtin_expect(tl->released || tl->notified, 0) || (mn && ch->obj) ||
      (mn && mn->act == TW_ACT_NOTIFY))
    flows(tl, ch, from != NULL, &flow_out, &flow_in);
  if (__builtin_expect(tl->notify_flows != 0, 0) && where->kind == TL_TASK && !flow_in &&
      ch->task && ch->task->id < tl->ntasks) {
    struct tl_task *k = tl->tasks[ch->task->id]; /* made by task_track above */
    if (k && k->notify_flow) {
      flow_in = k->notify_flow;
      k->notify_flow = 0;
      tl->notify_flows--;
    }
  }
  tl->ops->instant(tl->b, ch->t, where, ch, flow_out, from, flow_in);
}

/* ---- the front ------------------------------------------------------------------ */

struct timeline *tw__tl_open(struct tw_export *x, const struct tl_ops *ops, void *backend)
{
  struct timeline *tl = calloc(1, sizeof *tl);
  if (!tl || !(tl->flows = calloc(TL_FLOWS, sizeof *tl->flows)) ||
      !(tl->fnames = tw__fields_new(tw__rw_utf8, arg_reserved)) || tw_rtos_create(&tl->m) < 0 ||
      tw_rtos_observe_kinds(tl->m, on_change, tl, TL_KINDS) < 0) {
    if (tl) {
      tw_rtos_destroy(tl->m);
      free(tl->flows);
      tw__fields_free(tl->fnames);
    }
    free(tl);
    tw__export_fail(x, TW_ENOMEM, "out of memory");
    return NULL;
  }
  tl->x = x;
  tl->ops = ops;
  tl->b = backend;
  return tl;
}

void tw__tl_event(struct timeline *tl, const struct tw_event *ev)
{
  if (tl->ndirty && tl->have_ts && ev->time_ns > tl->cur_ts)
    flush_counters(tl);
  if (!tl->have_ts || ev->time_ns > tl->cur_ts)
    tl->cur_ts = ev->time_ns;
  tl->have_ts = 1;
  if (ev->time_ns > tl->last_ts)
    tl->last_ts = ev->time_ns;
  if (tw_rtos_feed(tl->m, ev) == TW_ENOMEM)
    tw__export_fail(tl->x, TW_ENOMEM, "out of memory (RTOS state model)");
}

void tw__tl_loss(struct timeline *tl, uint16_t endpoint, uint16_t instance, uint64_t count)
{
  for (size_t i = 0; i < tw_rtos_ncores(tl->m); i++) {
    const struct tw_rtos_core *mc = tw_rtos_core_at(tl->m, i);
    if (mc->endpoint == endpoint && mc->instance == instance)
      tw_rtos_loss(tl->m, mc->stream, TW_RTOS_LOSS_PACKETS, count);
  }
}

void tw__tl_finish(struct timeline *tl)
{
  flush_counters(tl);
  for (size_t i = 0; i < tl->ncores; i++) {
    struct tl_core *c = tl->cores[i];
    if (!c)
      continue;
    for (; c->irqs_open > 0; c->irqs_open--)
      tl->ops->slice_end(tl->b, tl->last_ts, &c->t_irq);
    if (c->run) {
      tl->ops->slice_end(tl->b, tl->last_ts, &c->t_core);
      tl->ops->slice_end(tl->b, tl->last_ts, task_track(tl, c->run));
      c->run = NULL;
    }
  }
}

void tw__tl_close(struct timeline *tl)
{
  if (!tl)
    return;
  tw_rtos_destroy(tl->m);
  for (size_t i = 0; i < tl->neps; i++)
    free(tl->eps[i]);
  for (size_t i = 0; i < tl->ncores; i++)
    free(tl->cores[i]);
  for (size_t i = 0; i < tl->nobjs; i++)
    free(tl->objs[i].track_name);
  free(tl->eps);
  free(tl->cores);
  free(tl->objs);
  for (size_t i = 0; i < tl->ntasks; i++)
    free(tl->tasks[i]);
  free(tl->tasks);
  free(tl->dirty);
  free(tl->lost_sems);
  free(tl->flows);
  free(tl->buf);
  tw__fields_free(tl->fnames);
  free(tl);
}
