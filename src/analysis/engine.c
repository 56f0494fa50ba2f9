/*
 * The analysis engine: one pass, bounded state (docs/analyses.md).
 *
 * Per core it keeps the running task, a stack of interrupt frames and, per
 * task number, the task's state with the time it entered it. Every change
 * of "who owns the CPU" (a task switch, EnterInt, LeaveInt) first charges
 * the elapsed time to the previous owner (the innermost interrupt, else the
 * running task) and to the current CPU-load window. Windows are a fixed
 * array whose width doubles (pairs merge) when time runs past its end, so
 * the per-owner load-over-time series stays TW_AN_WINDOWS long whatever
 * the trace length.
 *
 * Task states follow the events: TASK_SWITCH makes its task RUNNING and
 * the previous one READY (preempted) - or SUSPENDED when the new task has
 * a lower priority, because a priority scheduler only does that when the
 * old task stopped wanting the CPU (a delay or suspension the trace does
 * not show). Events whose marker is a block (UpBlock, DownBlock, Wait)
 * block their task on their object; UpPush (ToTask), a mutex handed over
 * by Lock, an anti-semaphore Release, or the task simply being switched
 * in, release it.
 *
 * Objects (mutexes, semaphores, ...) are global by kind and number; names
 * and priorities come from NAME events. Distributions go into log-bucket
 * histograms (hist.c), allocated on first use.
 *
 * Detectors run inline: priority inversion and deadlock on the state
 * changes that can start or end them, starvation when a ready task finally
 * runs, and the end-of-trace checks in tw_an_finish(). Loss (DROPS records,
 * packet gaps) advances a per-core epoch; a finding whose state began in
 * an earlier epoch than it ended is flagged across_gap.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"

/* ---- small helpers --------------------------------------------------------- */

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap : 8;
  while (n < need)
    n *= 2;
  void *q = realloc(p, n * elem);
  if (!q)
    return NULL;
  memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
  *cap = n;
  return q;
}

static struct tw_hist *hist_get(struct tw_hist **h)
{
  if (!*h)
    *h = calloc(1, sizeof **h);
  return *h;
}

static void hist_add(struct tw_hist **h, uint64_t v)
{
  if (hist_get(h))
    tw_hist_add(*h, v);
}

struct an_task *tw__an_task(struct tw_an *a, struct an_core *c, uint32_t num)
{
  (void)a;
  if (num >= TW_AN_NO_TASK)
    return NULL;
  if (num >= c->ntasks) {
    struct an_task *t = grow(c->tasks, &c->ntasks, (size_t)num + 1, sizeof *t);
    if (!t)
      return NULL;
    c->tasks = t;
  }
  struct an_task *t = &c->tasks[num];
  if (!t->used) {
    t->used = 1;
    t->num = (uint16_t)num;
    t->prio = -1;
  }
  return t;
}

struct an_obj *tw__an_obj(struct tw_an *a, unsigned kind, uint32_t num)
{
  if (kind >= TW_OBJ_COUNT || num > 0xFFFF)
    return NULL;
  if (num >= a->nobjs[kind]) {
    struct an_obj *o = grow(a->objs[kind], &a->nobjs[kind], (size_t)num + 1, sizeof *o);
    if (!o)
      return NULL;
    a->objs[kind] = o;
  }
  struct an_obj *o = &a->objs[kind][num];
  if (!o->used) {
    o->used = 1;
    o->owner = TW_AN_NO_TASK;
  }
  return o;
}

struct an_core *tw__an_core(struct tw_an *a, int core)
{
  if (core < 0 || core > 255)
    return NULL;
  if ((size_t)core >= a->ncores) {
    struct an_core *c = grow(a->cores, &a->ncores_cap, (size_t)core + 1, sizeof *c);
    if (!c)
      return NULL;
    a->cores = c;
    a->ncores = (size_t)core + 1;
  }
  struct an_core *c = &a->cores[core];
  if (!c->used) {
    c->used = 1;
    c->running = TW_AN_NO_TASK;
    c->win_w = 1000; /* 1 us; doubles as the trace grows */
  }
  return c;
}

static int task_prio(const struct tw_an *a, uint32_t task)
{
  if (task < a->nnames[TW_OBJ_TASK] && a->names[TW_OBJ_TASK][task].have_prio)
    return a->names[TW_OBJ_TASK][task].prio;
  return -1;
}

static struct an_irq *irq_get(struct an_core *c, uint32_t irq)
{
  for (size_t i = 0; i < c->nirqs_used; i++)
    if (c->irqs[i].irq == irq)
      return &c->irqs[i];
  struct an_irq *q = grow(c->irqs, &c->nirqs, c->nirqs_used + 1, sizeof *q);
  if (!q)
    return NULL;
  c->irqs = q;
  q = &c->irqs[c->nirqs_used++];
  q->irq = irq;
  return q;
}

static void emit(struct tw_an *a, const struct tw_an_item *it)
{
  if (a->obs)
    a->obs(a->obs_ctx, it);
}

/* ---- CPU accounting and windows -------------------------------------------- */

static void win_merge(struct an_core *c)
{
  for (size_t i = 0; i < c->ntasks; i++)
    if (c->tasks[i].win)
      tw__an_win_halve(c->tasks[i].win);
  for (size_t i = 0; i < c->nirqs_used; i++)
    if (c->irqs[i].win)
      tw__an_win_halve(c->irqs[i].win);
  tw__an_win_halve(c->win_switches);
  tw__an_win_halve(c->win_unknown);
  c->win_w *= 2;
}

void tw__an_win_halve(uint64_t *w)
{
  for (unsigned i = 0; i < TW_AN_WINDOWS / 2; i++)
    w[i] = w[2 * i] + w[2 * i + 1];
  memset(w + TW_AN_WINDOWS / 2, 0, sizeof *w * (TW_AN_WINDOWS / 2));
}

/* Widens the windows until t falls inside the series. Divides rather than
 * multiplies: win_w * TW_AN_WINDOWS wraps for a span near 2^64 ns (a
 * damaged timestamp), which once made this loop forever. */
static void win_reach(struct an_core *c, uint64_t t)
{
  while (t >= c->t0 && (t - c->t0) / TW_AN_WINDOWS >= c->win_w)
    win_merge(c);
}

/* Adds [from, to) to window series w (split at window borders). The last
 * border may lie beyond 2^64 ns: it saturates instead of wrapping back. */
static void win_add(const struct an_core *c, uint64_t *w, uint64_t from, uint64_t to)
{
  while (from < to) {
    uint64_t i = (from - c->t0) / c->win_w;
    if (i >= TW_AN_WINDOWS)
      break; /* beyond the series: so is the rest */
    uint64_t end = i + 1 > (UINT64_MAX - c->t0) / c->win_w ? UINT64_MAX
                                                           : c->t0 + (i + 1) * c->win_w;
    uint64_t stop = to < end ? to : end;
    w[i] += stop - from;
    from = stop;
  }
}

static uint64_t **owner_win(struct an_core *c)
{
  if (c->depth > 0) {
    struct an_irq *q = irq_get(c, c->frames[c->depth - 1].irq);
    return q ? &q->win : NULL;
  }
  if (c->running != TW_AN_NO_TASK && c->running < c->ntasks)
    return &c->tasks[c->running].win;
  return NULL;
}

static void charge(struct tw_an *a, struct an_core *c, uint64_t t)
{
  (void)a;
  if (t <= c->last_t) {
    return;
  }
  uint64_t dt = t - c->last_t;
  win_reach(c, t);
  if (c->depth > 0) {
    struct an_irq *q = irq_get(c, c->frames[c->depth - 1].irq);
    if (q)
      q->cpu_ns += dt;
    c->isr_ns += dt;
    if (c->running != TW_AN_NO_TASK && c->running < c->ntasks)
      c->tasks[c->running].intr_ns += dt; /* the running task, interrupted */
  } else if (c->running != TW_AN_NO_TASK && c->running < c->ntasks) {
    c->tasks[c->running].cpu_ns += dt;
  } else {
    c->unknown_ns += dt;
  }
  uint64_t **w = owner_win(c);
  if (w && !*w)
    *w = calloc(TW_AN_WINDOWS, sizeof **w);
  win_add(c, w && *w ? *w : c->win_unknown, c->last_t, t);
  c->last_t = t;
}

/* ---- task states ------------------------------------------------------------ */

static void set_state(struct tw_an *a, int core, struct an_task *t, enum tw_an_state s,
                      uint64_t now)
{
  struct an_core *c = &a->cores[core];
  if (t->state != TW_AN_UNKNOWN || t->seen) {
    uint64_t from = t->seen ? t->since : now;
    t->ns[t->state] += now - from;
    if (now > from || t->state != s) {
      struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = core, .t = from, .t1 = now,
                              .lane_kind = TW_OBJ_TASK, .lane = t->num, .state = t->state,
                              .wait_kind = t->wait_kind, .wait_obj = t->wait_obj};
      if (now > from)
        emit(a, &it);
    }
  }
  t->seen = 1;
  t->since = now;
  t->state = (uint8_t)s;
  t->epoch = c->epoch;
  if (s != TW_AN_BLOCKED) {
    t->wait_kind = 0;
    t->wait_obj = 0;
  }
}

static void add_finding(struct tw_an *a, const struct tw_an_finding *f)
{
  struct tw_an_finding *v = grow(a->findings, &a->nfind_cap, a->nfind + 1, sizeof *v);
  if (!v)
    return;
  a->findings = v;
  a->findings[a->nfind++] = *f;
}

static void inv_close(struct tw_an *a, int core, struct an_task *h, uint64_t now)
{
  if (h->inv_on) {
    h->inv_ns += now - h->inv_seg;
    h->inv_last = now;
    h->inv_on = 0;
  }
  if (h->inv_ns) {
    struct tw_an_finding f = {.kind = TW_AN_PRIO_INVERSION, .core = core, .t0 = h->inv_first,
                              .t1 = h->inv_last, .ns = h->inv_ns, .nobjs = 1};
    f.tasks[f.ntasks++] = h->num;
    f.tasks[f.ntasks++] = h->inv_owner;
    for (int i = 0; i < h->ninv_mid && f.ntasks < TW_AN_MAX_INVOLVED; i++)
      f.tasks[f.ntasks++] = h->inv_mid[i];
    f.obj_kinds[0] = TW_OBJ_MUTEX;
    f.objs[0] = (uint16_t)h->inv_mutex;
    f.across_gap = h->inv_epoch != a->cores[core].epoch;
    add_finding(a, &f);
  }
  h->inv_ns = 0;
  h->inv_seen = 0;
  h->ninv_mid = 0;
}

/* A blocked-on-mutex task h suffers inversion while a task of priority
 * strictly between the mutex owner's and h's runs. */
static void inv_eval_one(struct tw_an *a, struct an_core *c, struct an_task *h, uint64_t now)
{
  struct an_obj *m = tw__an_obj(a, TW_OBJ_MUTEX, h->wait_obj);
  uint32_t r = c->running, l = m ? m->owner : TW_AN_NO_TASK;
  int ph = h->prio, pl = task_prio(a, l), pr = task_prio(a, r);
  int on = m && r != TW_AN_NO_TASK && l != TW_AN_NO_TASK && r != l && r != h->num &&
           ph >= 0 && pl >= 0 && pr >= 0 && pl < pr && pr < ph;
  if (on && !h->inv_on) {
    h->inv_on = 1;
    h->inv_seg = now;
    if (!h->inv_seen) {
      h->inv_seen = 1;
      h->inv_first = now;
      h->inv_owner = (uint16_t)l;
      h->inv_mutex = h->wait_obj;
      h->inv_epoch = c->epoch;
    }
  } else if (!on && h->inv_on) {
    h->inv_ns += now - h->inv_seg;
    h->inv_last = now;
    h->inv_on = 0;
  }
  if (on) {
    int known = 0;
    for (int i = 0; i < h->ninv_mid; i++)
      known |= h->inv_mid[i] == r;
    if (!known && h->ninv_mid < (int)(sizeof h->inv_mid / sizeof h->inv_mid[0]))
      h->inv_mid[h->ninv_mid++] = (uint16_t)r;
  }
}

static void inv_eval(struct tw_an *a, struct an_core *c, uint64_t now)
{
  if (!c->nmutex_blocked)
    return;
  for (size_t i = 0; i < c->ntasks; i++) {
    struct an_task *h = &c->tasks[i];
    if (h->used && h->state == TW_AN_BLOCKED && h->wait_kind == TW_OBJ_MUTEX) {
      h->prio = task_prio(a, h->num);
      inv_eval_one(a, c, h, now);
    }
  }
}

static void deadlock_release(struct tw_an *a, int core, uint16_t task, uint64_t now)
{
  for (size_t i = 0; i < a->nopen_dl; i++) {
    struct tw_an_finding *f = &a->findings[a->open_dl[i]];
    int hit = 0;
    for (int k = 0; k < f->ntasks; k++)
      hit |= f->tasks[k] == task;
    if (!hit || f->core != core)
      continue;
    f->t1 = now;
    f->ns = now - f->t0;
    f->across_gap |= a->dl_epoch[i] != a->cores[core].epoch;
    a->open_dl[i] = a->open_dl[a->nopen_dl - 1];
    a->dl_epoch[i] = a->dl_epoch[a->nopen_dl - 1];
    a->nopen_dl--;
    i--;
  }
}

/* Ends task t's block on its object: the object's wait distribution gets
 * the blocked time; t becomes READY. */
static void unblock(struct tw_an *a, int core, struct an_task *t, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  if (t->state != TW_AN_BLOCKED)
    return;
  struct an_obj *o = tw__an_obj(a, t->wait_kind, t->wait_obj);
  if (o)
    hist_add(&o->wait, now - t->since);
  if (t->wait_kind == TW_OBJ_MUTEX) {
    c->nmutex_blocked--;
    inv_close(a, core, t, now);
  }
  deadlock_release(a, core, t->num, now);
  set_state(a, core, t, TW_AN_READY, now);
}

static void deadlock_check(struct tw_an *a, int core, struct an_task *t, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  struct tw_an_finding f = {.kind = TW_AN_DEADLOCK, .core = core, .t0 = now};
  uint32_t m = t->wait_obj;
  f.tasks[f.ntasks++] = t->num;
  for (int steps = 0; steps < TW_AN_MAX_INVOLVED; steps++) {
    struct an_obj *o = tw__an_obj(a, TW_OBJ_MUTEX, m);
    if (!o || o->owner == TW_AN_NO_TASK || f.nobjs >= TW_AN_MAX_INVOLVED)
      return;
    f.obj_kinds[f.nobjs] = TW_OBJ_MUTEX;
    f.objs[f.nobjs++] = (uint16_t)m;
    if (o->owner == t->num) {
      uint64_t ep = c->epoch;
      for (int k = 0; k < f.ntasks; k++) {
        struct an_task *x = tw__an_task(a, c, f.tasks[k]);
        if (x && x->epoch < ep)
          ep = x->epoch;
      }
      f.across_gap = ep != c->epoch;
      f.t1 = f.t0;
      add_finding(a, &f);
      size_t need = a->nopen_dl + 1;
      if (need <= sizeof a->open_dl / sizeof a->open_dl[0]) {
        a->open_dl[a->nopen_dl] = a->nfind - 1;
        a->dl_epoch[a->nopen_dl++] = ep;
      }
      return;
    }
    struct an_task *w = tw__an_task(a, c, o->owner);
    if (!w || w->state != TW_AN_BLOCKED || w->wait_kind != TW_OBJ_MUTEX ||
        f.ntasks >= TW_AN_MAX_INVOLVED)
      return;
    f.tasks[f.ntasks++] = w->num;
    m = w->wait_obj;
  }
}

static void block(struct tw_an *a, int core, struct an_task *t, unsigned kind, uint32_t obj,
                  uint64_t now)
{
  struct an_core *c = &a->cores[core];
  struct an_obj *o = tw__an_obj(a, kind, obj);
  if (t->state == TW_AN_BLOCKED)
    unblock(a, core, t, now); /* a release we did not see */
  set_state(a, core, t, TW_AN_BLOCKED, now);
  t->wait_kind = (uint8_t)kind;
  t->wait_obj = obj;
  if (o)
    o->blocks++;
  if (kind == TW_OBJ_MUTEX) {
    c->nmutex_blocked++;
    t->prio = task_prio(a, t->num);
    t->inv_seen = 0;
    t->inv_ns = 0;
    t->ninv_mid = 0;
    uint16_t num = t->num;
    deadlock_check(a, core, t, now);
    /* deadlock_check may meet a mutex owner this core has not seen yet and
     * grow c->tasks: t may point into the freed array now. */
    t = &c->tasks[num];
    inv_eval_one(a, c, t, now);
  }
}

static void starve_check(struct tw_an *a, int core, struct an_task *t, uint64_t now)
{
  if (t->state != TW_AN_READY || now - t->since <= a->cfg.starve_ns)
    return;
  if (task_prio(a, t->num) == 0)
    return; /* priority 0: the idle task by convention (docs/analyses.md) */
  struct tw_an_finding f = {.kind = TW_AN_STARVATION, .core = core, .t0 = t->since, .t1 = now,
                            .ns = now - t->since, .ntasks = 1};
  f.tasks[0] = t->num;
  f.across_gap = t->epoch != a->cores[core].epoch;
  add_finding(a, &f);
}

/* A release in interrupt context: latency runs until the task runs. */
static void note_release(struct an_core *c, struct an_task *t, uint64_t now)
{
  if (c->depth == 0)
    return;
  struct an_frame *fr = &c->frames[c->depth - 1];
  t->rel_t = fr->have_give ? fr->give_t : now;
  t->rel_pending = 1;
}

/* ---- events ---------------------------------------------------------------------- */

static void task_switch(struct tw_an *a, int core, uint32_t task, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  struct an_task *t = tw__an_task(a, c, task);
  if (!t)
    return;
  charge(a, c, now);
  if (c->running != task) {
    struct an_task *r = c->running != TW_AN_NO_TASK ? tw__an_task(a, c, c->running) : NULL;
    if (r && r->state == TW_AN_RUNNING) {
      int pr = task_prio(a, r->num), pt = task_prio(a, task);
      set_state(a, core, r, pr >= 0 && pt >= 0 && pt < pr ? TW_AN_SUSPENDED : TW_AN_READY,
                now);
    }
    c->switches++;
    win_add(c, c->win_switches, c->t0 + (now - c->t0) / c->win_w * c->win_w,
            c->t0 + (now - c->t0) / c->win_w * c->win_w + 1);
  }
  if (t->state == TW_AN_BLOCKED)
    unblock(a, core, t, now); /* running again: released, even if we missed how */
  starve_check(a, core, t, now);
  if (t->state != TW_AN_RUNNING)
    set_state(a, core, t, TW_AN_RUNNING, now);
  t->switches_in++;
  if (t->rel_pending) {
    hist_add(&t->latency, now - t->rel_t);
    hist_add(&c->latency, now - t->rel_t);
    t->rel_pending = 0;
  }
  c->running = (uint16_t)task;
  inv_eval(a, c, now);
}

static void irq_item(struct tw_an *a, int core, const struct an_frame *fr, uint64_t t1)
{
  struct tw_an_item it = {.kind = TW_AN_ITEM_IRQ, .core = core, .t = fr->start, .t1 = t1,
                          .lane_kind = TW_OBJ_IRQ, .lane = fr->irq, .state = TW_AN_RUNNING,
                          .depth = fr->depth};
  emit(a, &it);
}

static void enter_item(struct tw_an *a, int core, const struct an_frame *fr)
{
  struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = core, .t = fr->start,
                          .lane_kind = TW_OBJ_IRQ, .lane = fr->irq, .id = TW_AN_ID_TASK_SWITCH,
                          .type = 0xFFFE, .marker = TW_MARKER_UP, .task = TW_AN_NO_TASK};
  emit(a, &it);
}

static void enter_int(struct tw_an *a, int core, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  charge(a, c, now);
  if (c->depth >= TW_AN_MAX_NEST) {
    c->overflow++;
    return;
  }
  struct an_frame *fr = &c->frames[c->depth++];
  memset(fr, 0, sizeof *fr);
  fr->start = now;
  fr->irq = TW_AN_IRQ_UNKNOWN;
  fr->depth = c->depth;
  if (c->depth > c->max_nesting)
    c->max_nesting = c->depth;
}

static void leave_int(struct tw_an *a, int core, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  if (c->depth == 0) {
    c->unmatched++;
    return;
  }
  charge(a, c, now);
  struct an_frame *fr = &c->frames[c->depth - 1];
  struct an_irq *q = irq_get(c, fr->irq);
  if (q) {
    q->count++;
    if (fr->depth > 1)
      q->nested++;
    if (fr->depth > q->max_depth)
      q->max_depth = fr->depth;
    hist_add(&q->dur, now - fr->start);
  }
  if (!fr->announced)
    enter_item(a, core, fr);
  struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = core, .t = now,
                          .lane_kind = TW_OBJ_IRQ, .lane = fr->irq, .id = TW_AN_ID_TASK_SWITCH,
                          .type = 0xFFFF, .marker = TW_MARKER_DOWN, .task = TW_AN_NO_TASK};
  emit(a, &it);
  irq_item(a, core, fr, now);
  c->depth--;
}

static void interrupt(struct tw_an *a, int core, uint32_t irq, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  if (c->depth > 0 && c->frames[c->depth - 1].irq == TW_AN_IRQ_UNKNOWN) {
    charge(a, c, now);
    struct an_frame *fr = &c->frames[c->depth - 1];
    fr->irq = irq;
    fr->announced = 1;
    enter_item(a, core, fr);
    return;
  }
  struct an_irq *q = irq_get(c, irq); /* seed-004 style: an instant, no duration */
  if (q)
    q->count++;
}

static void mutex_event(struct tw_an *a, int core, struct an_task *t, uint32_t m,
                        uint32_t type, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  struct an_obj *o = tw__an_obj(a, TW_OBJ_MUTEX, m);
  if (!o)
    return;
  switch (type) {
  case 0: /* Lock */
    if (t->state == TW_AN_BLOCKED && t->wait_kind == TW_OBJ_MUTEX && t->wait_obj == m) {
      o->contended++;
      o->releases++;
      unblock(a, core, t, now);
    }
    if (o->owner != TW_AN_NO_TASK && o->owner != t->num)
      o->lost_unlocks++;
    o->owner = t->num;
    o->owner_core = (uint8_t)core;
    o->depth = 1;
    o->lock_t = now;
    if (o->max_depth < 1)
      o->max_depth = 1;
    break;
  case 1: /* Unlock */
    if (o->owner == t->num)
      hist_add(&o->hold, now - o->lock_t);
    if (o->owner != TW_AN_NO_TASK) {
      struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = core, .t = o->lock_t, .t1 = now,
                              .lane_kind = TW_OBJ_MUTEX, .lane = m, .state = TW_AN_RUNNING,
                              .wait_kind = TW_OBJ_TASK, .wait_obj = o->owner};
      emit(a, &it);
    }
    o->owner = TW_AN_NO_TASK;
    o->depth = 0;
    break;
  case 2: /* IncLock */
    if (++o->depth > o->max_depth)
      o->max_depth = o->depth;
    break;
  case 3: /* DecLock */
    if (o->depth > 1)
      o->depth--;
    break;
  case 4: /* Block */
    block(a, core, t, TW_OBJ_MUTEX, m, now);
    break;
  default:
    break;
  }
  if (type <= 1)
    inv_eval(a, c, now);
}

static void release_all(struct tw_an *a, int core, unsigned kind, uint32_t obj, uint64_t now)
{
  struct an_core *c = &a->cores[core];
  for (size_t i = 0; i < c->ntasks; i++) {
    struct an_task *t = &c->tasks[i];
    if (t->used && t->state == TW_AN_BLOCKED && t->wait_kind == kind && t->wait_obj == obj) {
      note_release(c, t, now);
      unblock(a, core, t, now);
    }
  }
}

static void sync_event(struct tw_an *a, int core, const struct tw_an_ev *ev,
                       const struct an_kind *k)
{
  struct an_core *c = &a->cores[core];
  struct an_obj *o = tw__an_obj(a, k->obj_kind, ev->obj);
  enum tw_marker mk = tw__an_marker(a, ev->id, ev->type);
  if (o && ev->type < 8)
    o->count[ev->type]++;
  if (ev->task == TW_AN_NO_TASK || !k->has_task) {
    /* Give / Trigger / Release / ToTaskList: no task named */
    if (c->depth > 0 && (mk == TW_MARKER_UP || mk == TW_MARKER_UP_UP || mk == TW_MARKER_UP_PUSH ||
                         mk == TW_MARKER_UP_UP_PUSH)) {
      c->frames[c->depth - 1].have_give = 1;
      c->frames[c->depth - 1].give_t = ev->t;
    }
    if (k->obj_kind == TW_OBJ_ASEM && ev->type == 2) { /* Release: all waiters go */
      if (o)
        o->releases++;
      release_all(a, core, TW_OBJ_ASEM, ev->obj, ev->t);
    }
    return;
  }
  struct an_task *t = tw__an_task(a, c, ev->task);
  if (!t)
    return;
  if (k->obj_kind == TW_OBJ_MUTEX) {
    mutex_event(a, core, t, ev->obj, ev->type, ev->t);
    return;
  }
  switch (mk) {
  case TW_MARKER_UP_PUSH: /* ToTask */
    if (o)
      o->releases++;
    note_release(c, t, ev->t);
    if (t->state == TW_AN_BLOCKED)
      unblock(a, core, t, ev->t);
    else if (t->state != TW_AN_RUNNING && t->state != TW_AN_READY)
      set_state(a, core, t, TW_AN_READY, ev->t); /* a ready task stays ready since earlier */
    break;
  case TW_MARKER_UP_BLOCK: case TW_MARKER_DOWN_BLOCK: case TW_MARKER_WAIT:
    block(a, core, t, k->obj_kind, ev->obj, ev->t);
    break;
  default:
    break;
  }
}

static void name_event(struct tw_an *a, const struct tw_an_ev *ev)
{
  unsigned kind = ev->type;
  if (kind >= TW_OBJ_COUNT || ev->obj > 0xFFFF)
    return;
  struct an_name *n = grow(a->names[kind], &a->nnames[kind], ev->obj + 1, sizeof *n);
  if (!n)
    return;
  a->names[kind] = n;
  n = &n[ev->obj];
  free(n->s);
  n->s = NULL;
  if (ev->str && (n->s = malloc(ev->str_len + 1))) {
    memcpy(n->s, ev->str, ev->str_len);
    n->s[ev->str_len] = 0;
  }
  if (kind == TW_OBJ_TASK) {
    n->prio = (int)ev->index;
    n->have_prio = 1;
  }
}

/* Events are missing before t: an interrupt open before the gap most
 * likely ended inside it (its LeaveInt may be among the lost), so open
 * frames are closed at t rather than charged forever; their durations are
 * unknown and stay out of the distributions. */
static void close_frames_at_gap(struct tw_an *a, int core, uint64_t t)
{
  struct an_core *c = &a->cores[core];
  if (!c->depth)
    return;
  charge(a, c, t);
  while (c->depth > 0) {
    struct an_frame *fr = &c->frames[--c->depth];
    struct an_irq *q = irq_get(c, fr->irq);
    if (q)
      q->cut++;
    if (!fr->announced)
      enter_item(a, core, fr);
    irq_item(a, core, fr, t);
  }
}

static void push_loss(struct tw_an *a, int core, enum tw_an_loss_cause cause, uint64_t t,
                      uint64_t count)
{
  struct an_core *c = &a->cores[core];
  close_frames_at_gap(a, core, t);
  c->epoch++;
  a->lost[cause] += count;
  if (a->nloss >= TW_AN_MAX_LOSSES) { /* bounded: the rest joins the last entry */
    a->losses[a->nloss - 1].count += count;
    a->loss_merged++;
    return;
  }
  struct tw_an_loss *l = grow(a->losses, &a->nloss_cap, a->nloss + 1, sizeof *l);
  if (!l)
    return;
  a->losses = l;
  a->losses[a->nloss++] = (struct tw_an_loss){cause, core, t, count};
}

static void item_for_event(struct tw_an *a, int core, const struct tw_an_ev *ev,
                           const struct an_kind *k)
{
  if (!a->obs)
    return;
  struct an_core *c = &a->cores[core];
  struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = core, .t = ev->t, .id = ev->id,
                          .type = ev->type, .marker = tw__an_marker(a, ev->id, ev->type),
                          .obj_kind = k->obj_kind, .obj = ev->obj, .task = ev->task,
                          .index = ev->index};
  if (ev->task != TW_AN_NO_TASK) {
    it.lane_kind = TW_OBJ_TASK;
    it.lane = ev->task;
  } else if (c->depth > 0) {
    it.lane_kind = TW_OBJ_IRQ;
    it.lane = c->frames[c->depth - 1].irq;
  } else if (c->running != TW_AN_NO_TASK) {
    it.lane_kind = TW_OBJ_TASK;
    it.lane = c->running;
  } else {
    it.lane_kind = (uint8_t)k->obj_kind;
    it.lane = ev->obj;
  }
  emit(a, &it);
}

void tw_an_event(struct tw_an *a, int core, const struct tw_an_ev *in)
{
  if (a->finished)
    return;
  struct an_core *c = tw__an_core(a, core);
  if (!c)
    return;
  struct tw_an_ev e = *in;
  const struct tw_an_ev *ev = &e;
  if (!c->events++)
    c->t0 = c->last_t = c->t1 = e.t;
  if (e.t < c->t1) { /* the decoder passes backward steps through: hold time still */
    c->backwards++;
    e.t = c->t1;
  }
  c->t1 = e.t;
  if (c->pending_loss_n) {
    for (int i = 0; i < TW_AN_NCAUSES; i++)
      if (c->pending_loss[i])
        push_loss(a, core, (enum tw_an_loss_cause)i, ev->t, c->pending_loss[i]);
    memset(c->pending_loss, 0, sizeof c->pending_loss);
    c->pending_loss_n = 0;
  }
  const struct an_kind *k = tw__an_kind(a, ev->id);
  switch (ev->id) {
  case TW_AN_ID_TASK_SWITCH:
    if (ev->type == 0xFFFE) {
      enter_int(a, core, ev->t);
      return; /* announced with its irq (INTERRUPT) or at LeaveInt */
    }
    if (ev->type == 0xFFFF) {
      leave_int(a, core, ev->t);
      return;
    }
    task_switch(a, core, ev->type, ev->t);
    break;
  case TW_AN_ID_INTERRUPT:
    interrupt(a, core, ev->obj, ev->t);
    return;
  case TW_AN_ID_DROPS:
    push_loss(a, core, TW_AN_LOSS_RING, ev->t, ev->index);
    return;
  case TW_AN_ID_NAME:
    name_event(a, ev);
    return;
  default:
    if (!k)
      return;
    sync_event(a, core, ev, k);
    break;
  }
  item_for_event(a, core, ev, k ? k : tw__an_kind(a, TW_AN_ID_TASK_SWITCH));
}

void tw_an_loss(struct tw_an *a, int core, enum tw_an_loss_cause cause, uint64_t count)
{
  struct an_core *c = tw__an_core(a, core);
  if (!c || cause >= TW_AN_NCAUSES || !count)
    return;
  c->pending_loss[cause] += count;
  c->pending_loss_n = 1;
}

/* ---- end of trace -------------------------------------------------------------- */

static void finish_core(struct tw_an *a, int core)
{
  struct an_core *c = &a->cores[core];
  uint64_t end = c->t1;
  charge(a, c, end);
  while (c->depth > 0) { /* interrupts still open: drawn to the end */
    struct an_frame *fr = &c->frames[--c->depth];
    if (!fr->announced)
      enter_item(a, core, fr);
    irq_item(a, core, fr, end);
  }
  for (size_t i = 0; i < c->ntasks; i++) {
    struct an_task *t = &c->tasks[i];
    if (!t->used)
      continue;
    if (t->state == TW_AN_BLOCKED) {
      struct tw_an_finding f = {.kind = TW_AN_BLOCKED_AT_END, .core = core, .t0 = t->since,
                                .t1 = end, .ns = end - t->since, .ntasks = 1, .nobjs = 1};
      f.tasks[0] = t->num;
      f.obj_kinds[0] = t->wait_kind;
      f.objs[0] = (uint16_t)t->wait_obj;
      f.across_gap = t->epoch != c->epoch;
      add_finding(a, &f);
      if (t->wait_kind == TW_OBJ_MUTEX)
        inv_close(a, core, t, end);
    }
    starve_check(a, core, t, end);
    set_state(a, core, t, (enum tw_an_state)t->state, end); /* close the last interval */
  }
}

void tw_an_finish(struct tw_an *a)
{
  if (a->finished)
    return;
  for (size_t i = 0; i < a->ncores; i++)
    if (a->cores[i].used && a->cores[i].events)
      finish_core(a, (int)i);
  for (size_t i = 0; i < a->nopen_dl; i++) {
    struct tw_an_finding *f = &a->findings[a->open_dl[i]];
    f->t1 = a->cores[f->core].t1;
    f->ns = f->t1 - f->t0;
    f->across_gap |= a->dl_epoch[i] != a->cores[f->core].epoch;
  }
  a->nopen_dl = 0;
  /* held mutexes at the end: their hold interval is drawn to the end */
  for (size_t m = 0; m < a->nobjs[TW_OBJ_MUTEX]; m++) {
    struct an_obj *o = &a->objs[TW_OBJ_MUTEX][m];
    if (o->used && o->owner != TW_AN_NO_TASK && o->owner_core < a->ncores) {
      struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = o->owner_core, .t = o->lock_t,
                              .t1 = a->cores[o->owner_core].t1, .lane_kind = TW_OBJ_MUTEX,
                              .lane = (uint32_t)m, .state = TW_AN_RUNNING,
                              .wait_kind = TW_OBJ_TASK, .wait_obj = o->owner};
      emit(a, &it);
    }
  }
  a->finished = 1;
}

/* ---- lifetime ----------------------------------------------------------------- */

int tw_an_create(struct tw_an **out, const struct tw_an_cfg *cfg)
{
  struct tw_an *a = calloc(1, sizeof *a);
  if (!a)
    return TW_ENOMEM;
  if (cfg)
    a->cfg = *cfg;
  if (!a->cfg.starve_ns)
    a->cfg.starve_ns = 100000000ull;
  tw__an_kinds_init(a);
  *out = a;
  return 0;
}

void tw_an_destroy(struct tw_an *a)
{
  if (!a)
    return;
  for (size_t i = 0; i < a->ncores; i++) {
    struct an_core *c = &a->cores[i];
    for (size_t k = 0; k < c->ntasks; k++) {
      free(c->tasks[k].win);
      free(c->tasks[k].latency);
    }
    for (size_t k = 0; k < c->nirqs_used; k++) {
      free(c->irqs[k].win);
      free(c->irqs[k].dur);
    }
    free(c->tasks);
    free(c->irqs);
    free(c->latency);
    free(c->name);
  }
  for (unsigned k = 0; k < TW_OBJ_COUNT; k++) {
    for (size_t i = 0; i < a->nobjs[k]; i++) {
      free(a->objs[k][i].hold);
      free(a->objs[k][i].wait);
    }
    for (size_t i = 0; i < a->nnames[k]; i++)
      free(a->names[k][i].s);
    free(a->objs[k]);
    free(a->names[k]);
  }
  free(a->cores);
  free(a->findings);
  free(a->losses);
  free(a);
}

void tw_an_observe(struct tw_an *a, tw_an_observer fn, void *ctx)
{
  a->obs = fn;
  a->obs_ctx = ctx;
}

void tw_an_set_core_name(struct tw_an *a, int core, const char *name)
{
  struct an_core *c = tw__an_core(a, core);
  if (!c || !name)
    return;
  free(c->name);
  c->name = strdup(name);
}
