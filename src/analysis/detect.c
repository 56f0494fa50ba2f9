/*
 * The detectors (docs/analyses.md, "Detectors"), on the model's states:
 *
 *   priority inversion  a task H blocked on a lock (a mutex, or a binary
 *                       semaphore: its holder is the task that took it)
 *                       held by L, while a task R runs on H's core with
 *                       prio(L) < prio(R) < prio(H) (effective priorities:
 *                       an inheritance that lifts L ends the inversion);
 *                       when no R ran but L, of a lower base priority,
 *                       inherited H's, the inversion was bounded: reported
 *                       as such with H's wait
 *   deadlock            a cycle task -> holder of the lock it waits on
 *   starvation          ready for longer than the threshold, then run (or
 *                       the trace ends)
 *   blocked at end      still blocked on an object when the trace ends
 *
 * A loss makes states unknown (docs/model.md): an episode that a gap cuts
 * ends there; a state the model only knows from before a gap (a task's
 * last known state) still counts for starvation and blocked-at-end. Such
 * findings, and any whose state began in an earlier loss epoch than it
 * ended, are flagged across_gap.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"

void tw__an_add_finding(struct tw_an *a, const struct tw_an_finding *f)
{
  if (tw__an_grow(a, &a->findings, &a->nfind_cap, a->nfind + 1, sizeof *f) < 0)
    return;
  a->findings[a->nfind++] = *f;
  tw__an_group_add(a, a->nfind - 1); /* group.c: its group counts it */
}

static uint64_t epoch_now(const struct tw_an *a, const struct tw_rtos_task *t)
{
  return tw_rtos_epoch(a->m, t->endpoint);
}

/* ---- priority inversion ---------------------------------------------------------- */

static void inv_close(struct tw_an *a, int core, struct an_task *h, uint64_t now)
{
  if (h->inv_on) {
    h->inv_ns += now - h->inv_seg;
    h->inv_last = now;
    h->inv_on = 0;
  }
  if (h->inv_ns || h->inv_inherited) {
    struct tw_an_finding f = {.kind = TW_AN_PRIO_INVERSION, .core = core, .t0 = h->inv_first,
                              .t1 = h->inv_last, .ns = h->inv_ns, .nobjs = 1};
    if (!h->inv_ns) { /* bounded: the whole wait for the lower-priority holder */
      f.bounded = 1;
      f.t0 = h->inv_block;
      f.t1 = now;
      f.ns = now - h->inv_block;
    }
    f.tasks[f.ntasks++] = h->t->number;
    f.tasks[f.ntasks++] = h->inv_owner;
    for (int i = 0; i < h->ninv_mid && f.ntasks < TW_AN_MAX_INVOLVED; i++)
      f.tasks[f.ntasks++] = h->inv_mid[i];
    f.obj_kinds[0] = h->inv_kind;
    f.objs[0] = (uint16_t)h->inv_obj;
    f.across_gap = h->inv_epoch != epoch_now(a, h->t);
    tw__an_add_finding(a, &f);
  }
  h->inv_ns = 0;
  h->inv_seen = 0;
  h->ninv_mid = 0;
  h->inv_inherited = 0;
}

/* The episode's lock and holder, when first seen. */
static void inv_note(struct tw_an *a, struct an_task *h, const struct tw_rtos_task *l,
                     const struct tw_rtos_obj *m)
{
  h->inv_owner = l->number;
  h->inv_kind = m->kind;
  h->inv_obj = m->number;
  h->inv_epoch = epoch_now(a, h->t);
}

static void inv_eval_one(struct tw_an *a, struct an_task *h, uint64_t now)
{
  const struct tw_rtos_task *ht = h->t;
  const struct tw_rtos_obj *m = tw_rtos_obj(a->m, ht->endpoint, ht->now.wait_kind,
                                            ht->now.wait_obj);
  const struct tw_rtos_core *mc = ht->core >= 0 ? tw_rtos_core_at(a->m, (size_t)ht->core) : NULL;
  const struct tw_rtos_task *r = mc && mc->running_known ? mc->running : NULL;
  const struct tw_rtos_task *l = m && m->holder_known ? m->holder : NULL;
  int on = r && l && r != l && r != ht && ht->prio >= 0 && l->prio >= 0 && r->prio >= 0 &&
           l->prio < r->prio && r->prio < ht->prio;
  /* a holder of lower base priority lifted to the waiter's: bounded */
  if (!h->inv_seen && !h->inv_inherited && l && l != ht && ht->prio >= 0 &&
      l->base_prio >= 0 && l->base_prio < ht->prio && l->prio >= ht->prio) {
    h->inv_inherited = 1;
    inv_note(a, h, l, m);
  }
  if (on && !h->inv_on) {
    h->inv_on = 1;
    h->inv_seg = now;
    if (!h->inv_seen) {
      h->inv_seen = 1;
      h->inv_first = now;
      inv_note(a, h, l, m);
    }
  } else if (!on && h->inv_on) {
    h->inv_ns += now - h->inv_seg;
    h->inv_last = now;
    h->inv_on = 0;
  }
  if (on) {
    int known = 0;
    for (int i = 0; i < h->ninv_mid; i++)
      known |= h->inv_mid[i] == r->number;
    if (!known && h->ninv_mid < TW_AN_INV_MID)
      h->inv_mid[h->ninv_mid++] = r->number;
  }
}

void tw__an_inv_eval(struct tw_an *a, int core, uint64_t now)
{
  (void)core; /* every waiter: its own core decides who runs beside it */
  for (size_t i = 0; i < a->ninv; i++)
    inv_eval_one(a, &a->tasks[a->inv_list[i]], now);
}

void tw__an_inv_block(struct tw_an *a, int core, struct an_task *h, uint64_t now)
{
  (void)core;
  if (!h->inv_listed) {
    if (tw__an_grow(a, &a->inv_list, &a->capinv, a->ninv + 1, sizeof *a->inv_list) < 0)
      return;
    a->inv_list[a->ninv++] = h->t->id;
    h->inv_listed = 1;
  }
  h->inv_seen = 0;
  h->inv_ns = 0;
  h->ninv_mid = 0;
  h->inv_on = 0;
  h->inv_inherited = 0;
  h->inv_block = now;
  inv_eval_one(a, h, now);
}

void tw__an_inv_unblock(struct tw_an *a, int core, struct an_task *h, uint64_t now)
{
  if (!h->inv_listed)
    return;
  inv_close(a, core, h, now);
  for (size_t i = 0; i < a->ninv; i++)
    if (a->inv_list[i] == h->t->id) {
      a->inv_list[i] = a->inv_list[--a->ninv];
      break;
    }
  h->inv_listed = 0;
}

/* ---- deadlock ------------------------------------------------------------------------ */

static int same_endpoint(const struct tw_an *a, int core, uint16_t endpoint)
{
  const struct tw_rtos_core *mc = core >= 0 ? tw_rtos_core_at(a->m, (size_t)core) : NULL;
  return mc && mc->endpoint == endpoint;
}

void tw__an_deadlock_release(struct tw_an *a, int core, struct an_task *t, uint64_t now)
{
  (void)core;
  for (size_t i = 0; i < a->nopen_dl; i++) {
    struct tw_an_finding *f = &a->findings[a->open_dl[i]];
    int hit = 0;
    for (int k = 0; k < f->ntasks; k++)
      hit |= f->tasks[k] == t->t->number;
    if (!hit || !same_endpoint(a, f->core, t->t->endpoint))
      continue;
    struct tw_an_finding before = *f;
    f->t1 = now;
    f->ns = now - f->t0;
    f->across_gap |= a->dl_epoch[i] != epoch_now(a, t->t);
    tw__an_group_update(a, a->open_dl[i], &before);
    a->open_dl[i] = a->open_dl[a->nopen_dl - 1];
    a->dl_epoch[i] = a->dl_epoch[a->nopen_dl - 1];
    a->nopen_dl--;
    i--;
  }
}

static void deadlock_open(struct tw_an *a, struct tw_an_finding *f, uint64_t epoch)
{
  tw__an_add_finding(a, f);
  if (a->nopen_dl < sizeof a->open_dl / sizeof a->open_dl[0] && a->nfind &&
      a->findings[a->nfind - 1].kind == TW_AN_DEADLOCK) {
    a->open_dl[a->nopen_dl] = a->nfind - 1;
    a->dl_epoch[a->nopen_dl++] = epoch;
  }
}

/* Follows holders from t, blocked on a lock, until it comes back to t. */
void tw__an_deadlock_check(struct tw_an *a, int core, struct an_task *t, uint64_t now)
{
  const struct tw_rtos_task *w = t->t;
  struct tw_an_finding f = {.kind = TW_AN_DEADLOCK, .core = core, .t0 = now, .t1 = now};
  uint64_t ep = w->now.epoch;
  f.tasks[f.ntasks++] = w->number;
  for (int steps = 0; steps < TW_AN_MAX_INVOLVED; steps++) {
    const struct tw_rtos_obj *o = tw_rtos_obj(a->m, w->endpoint, w->now.wait_kind,
                                              w->now.wait_obj);
    if (!tw__an_is_lock(o) || !o->holder_known || !o->holder || f.nobjs >= TW_AN_MAX_INVOLVED)
      return;
    if (o->holder == w && o->kind != TW_OBJ_MUTEX)
      return; /* took the semaphore and waits for the next give: a signal, not a lock */
    f.obj_kinds[f.nobjs] = o->kind;
    f.objs[f.nobjs++] = (uint16_t)o->number;
    if (o->holder == t->t) {
      f.across_gap = ep != epoch_now(a, t->t);
      deadlock_open(a, &f, ep);
      return;
    }
    w = o->holder;
    if (w->now.state != TW_RTOS_BLOCKED || w->now.wait != TW_RTOS_WAIT_OBJECT ||
        f.ntasks >= TW_AN_MAX_INVOLVED)
      return;
    f.tasks[f.ntasks++] = w->number;
    if (w->now.epoch < ep)
      ep = w->now.epoch;
  }
}

/* ---- starvation ------------------------------------------------------------------------- */

void tw__an_starve_found(struct tw_an *a, int core, struct an_task *x, uint64_t since,
                         uint64_t epoch, uint64_t now)
{
  const struct tw_rtos_task *t = x->t;
  struct tw_an_finding f = {.kind = TW_AN_STARVATION, .core = core, .t0 = since, .t1 = now,
                            .ns = now - since, .ntasks = 1};
  if (now < since || now - since <= a->cfg.starve_ns)
    return;
  if (t->base_prio == 0)
    return; /* priority 0: the idle task by convention (docs/analyses.md) */
  f.tasks[0] = t->number;
  f.across_gap = epoch != epoch_now(a, t);
  tw__an_add_finding(a, &f);
}

/* ---- end of trace ------------------------------------------------------------------------ */

static int waits_on_object(const struct tw_rtos_phase *p)
{
  return p->state == TW_RTOS_BLOCKED &&
         (p->wait == TW_RTOS_WAIT_OBJECT || p->wait == TW_RTOS_WAIT_CONDITION);
}

static void blocked_at_end(struct tw_an *a, struct an_task *x, uint64_t end)
{
  const struct tw_rtos_task *t = x->t;
  const struct tw_rtos_phase *p = &t->now;
  int gap = 0;
  if (t->now.state == TW_RTOS_UNKNOWN && waits_on_object(&t->last)) {
    p = &t->last; /* known only from before a gap: reported, flagged */
    gap = 1;
  } else if (!waits_on_object(p)) {
    return;
  }
  struct tw_an_finding f = {.kind = TW_AN_BLOCKED_AT_END, .core = x->core, .t0 = p->since,
                            .t1 = end, .ns = end > p->since ? end - p->since : 0, .ntasks = 1,
                            .nobjs = 1};
  f.tasks[0] = t->number;
  f.obj_kinds[0] = p->wait_kind;
  f.objs[0] = (uint16_t)p->wait_obj;
  f.across_gap = gap || p->epoch != epoch_now(a, t);
  tw__an_add_finding(a, &f);
}

void tw__an_finish_detectors(struct tw_an *a)
{
  for (size_t i = 0; i < a->ntasks; i++) {
    struct an_task *x = &a->tasks[i];
    uint64_t end;
    if (!x->t || !x->seen || x->core < 0 || (size_t)x->core >= a->ncores ||
        !a->cores[x->core].mc)
      continue;
    end = a->cores[x->core].t1;
    blocked_at_end(a, x, end);
    if (x->inv_listed)
      tw__an_inv_unblock(a, x->core, x, end);
  }
  for (size_t i = 0; i < a->nopen_dl; i++) {
    struct tw_an_finding *f = &a->findings[a->open_dl[i]];
    const struct tw_rtos_core *mc = tw_rtos_core_at(a->m, (size_t)f->core);
    struct tw_an_finding before = *f;
    f->t1 = (size_t)f->core < a->ncores ? a->cores[f->core].t1 : f->t1;
    f->ns = f->t1 - f->t0;
    f->across_gap |= mc && a->dl_epoch[i] != tw_rtos_epoch(a->m, mc->endpoint);
    tw__an_group_update(a, a->open_dl[i], &before);
  }
  a->nopen_dl = 0;
  /* held locks at the end: their hold interval is drawn to the end */
  for (size_t i = 0; i < a->nobjs; i++) {
    const struct tw_rtos_obj *o = a->objs[i].o;
    if (!o || !tw__an_is_lock(o) || !o->holder_known || !o->holder || o->holder->core < 0 ||
        (size_t)o->holder->core >= a->ncores)
      continue;
    struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = o->holder->core, .t = o->held_since,
                            .t1 = a->cores[o->holder->core].t1, .lane_kind = o->kind,
                            .lane = o->number, .state = TW_AN_RUNNING,
                            .wait_kind = TW_OBJ_TASK, .wait_obj = o->holder->number};
    tw__an_emit(a, &it);
  }
}
