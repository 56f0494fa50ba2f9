/*
 * The analysis engine: one pass, bounded state (docs/analyses.md).
 *
 * The engine feeds the RTOS state model (tracewire/model/rtos.h) and
 * builds its results from the model's changes; it decides nothing about
 * what an event means. What it adds:
 *
 *   time      every change of who owns a core (a switch, an interrupt
 *             entered, named or left, a loss) first charges the elapsed
 *             time to the previous owner (the innermost interrupt, else the
 *             running task, else "untraced") and to the current CPU-load
 *             window. Windows are a fixed array whose width doubles (pairs
 *             merge) when time runs past its end, so the load-over-time
 *             series stays TW_AN_WINDOWS long whatever the trace length.
 *             The engine's span is its events' (the model's events apart
 *             from recording control), which it charges up to at the end.
 *   states    per task the time in each state (a task blocked on a reason
 *             the trace does not show, or suspended, is "suspended");
 *             state intervals go to the observer (the HTML report)
 *   objects   per object the counts of its operations, blocks, releases,
 *             the wait (blocked time) and mutex hold distributions
 *   latency   a task released while an interrupt frame is active gets a
 *             pending release time (the frame's last give, else the
 *             release): when it next runs, the difference is a sample
 *   loss      each gap is a loss entry; findings whose state began before
 *             a gap are flagged (detect.c)
 *
 * Allocation failures are counted, never dropped silently: tw_an_feed
 * returns TW_ENOMEM, tw_an_error() and the output writers report it.
 */
#include <stdlib.h>
#include <string.h>
#include "an_internal.h"
#include "tracewire/error.h"

unsigned long tw__an_fail_alloc;

/* Out of line: the changes that are not on every event. Inlined into
 * on_change they made it save every register on each of the ~2.6 changes
 * per event. */
#define COLD __attribute__((noinline))

/* ---- allocation -------------------------------------------------------------- */

static int inject_failure(void)
{
  return tw__an_fail_alloc && --tw__an_fail_alloc == 0;
}

void *tw__an_calloc(struct tw_an *a, size_t n, size_t size)
{
  void *p = inject_failure() ? NULL : calloc(n, size);
  if (!p && a && !a->err)
    a->err = TW_ENOMEM;
  return p;
}

/* Grows *arrp (n elements of elem bytes) to hold index need - 1, zeroed.
 * a may be NULL (an array outside an engine: the live view's). */
int tw__an_grow(struct tw_an *a, void *arrp, size_t *n, size_t need, size_t elem)
{
  void **arr = arrp;
  size_t cap = *n ? *n : 8;
  char *p;
  if (need <= *n)
    return 0;
  while (cap < need)
    cap *= 2;
  if (inject_failure() || !(p = realloc(*arr, cap * elem))) {
    if (a && !a->err)
      a->err = TW_ENOMEM;
    return TW_ENOMEM;
  }
  memset(p + *n * elem, 0, (cap - *n) * elem);
  *arr = p;
  *n = cap;
  return 0;
}

void tw__an_hist_add(struct tw_an *a, struct tw_hist **h, uint64_t v)
{
  if (!*h)
    *h = tw__an_calloc(a, 1, sizeof **h);
  if (*h)
    tw_hist_add(*h, v);
}

void tw__an_emit(struct tw_an *a, const struct tw_an_item *it)
{
  if (a->obs)
    a->obs(a->obs_ctx, it);
}

/* ---- tables by model id -------------------------------------------------------- */

static struct an_core *core_slow(struct tw_an *a, const struct tw_rtos_core *mc)
{
  struct an_core *c;
  if (!mc)
    return NULL;
  if (mc->id >= a->ncores && tw__an_grow(a, &a->cores, &a->ncores, mc->id + 1, sizeof *c) < 0)
    return NULL;
  c = &a->cores[mc->id];
  if (mc->id >= a->ncores_used)
    a->ncores_used = mc->id + 1;
  if (!c->mc) {
    c->mc = mc;
    c->own_irq = -1;
    c->win_w = 1000; /* 1 us; doubles as the trace grows */
    if (a->on_core)
      a->on_core(a->on_core_ctx, a, (int)mc->id);
    c = &a->cores[mc->id]; /* the hook may have grown the table (a name) */
  }
  a->last_mc = mc;
  a->last_core = c;
  return c;
}

/* Changes come in runs on one core: the last one found is kept. */
static inline struct an_core *core_of(struct tw_an *a, const struct tw_rtos_core *mc)
{
  return mc == a->last_mc ? a->last_core : core_slow(a, mc);
}

struct an_task *tw__an_task_slow(struct tw_an *a, const struct tw_rtos_task *t)
{
  struct an_task *x;
  if (!t)
    return NULL;
  if (t->id >= a->ntasks && tw__an_grow(a, &a->tasks, &a->ntasks, t->id + 1, sizeof *x) < 0)
    return NULL;
  x = &a->tasks[t->id];
  if (!x->t) {
    x->t = t;
    x->core = t->core;
    x->state = (uint8_t)tw__an_state_of(&t->now);
    x->since = t->now.since;
  }
  return x;
}

struct an_load *tw__an_load_slow(struct tw_an *a, struct an_core *c, const struct tw_rtos_task *t)
{
  if (tw__an_grow(a, &c->load, &c->nload, (size_t)t->id + 1, sizeof *c->load) < 0)
    return NULL;
  return &c->load[t->id];
}

int tw__an_listed(const struct tw_an *a, const struct an_task *x, size_t ci)
{
  if (!x->t || !x->seen)
    return 0;
  if (x->core == (int)ci)
    return 1;
  return ci < a->ncores && x->t->id < a->cores[ci].nload && a->cores[ci].load[x->t->id].ran;
}

struct an_obj *tw__an_obj_slow(struct tw_an *a, const struct tw_rtos_obj *o)
{
  struct an_obj *x;
  if (!o)
    return NULL;
  if (o->id >= a->nobjs && tw__an_grow(a, &a->objs, &a->nobjs, o->id + 1, sizeof *x) < 0)
    return NULL;
  x = &a->objs[o->id];
  x->o = o;
  return x;
}


static struct an_irq *irq_get(struct tw_an *a, struct an_core *c, uint32_t irq, int *index)
{
  for (size_t i = 0; i < c->nirqs_used; i++)
    if (c->irqs[i].irq == irq) {
      *index = (int)i;
      return &c->irqs[i];
    }
  if (tw__an_grow(a, &c->irqs, &c->nirqs, c->nirqs_used + 1, sizeof *c->irqs) < 0)
    return NULL;
  *index = (int)c->nirqs_used;
  c->irqs[c->nirqs_used].irq = irq;
  return &c->irqs[c->nirqs_used++];
}

/* ---- CPU accounting and windows -------------------------------------------------- */

void tw__an_win_halve(uint64_t *w)
{
  for (unsigned i = 0; i < TW_AN_WINDOWS / 2; i++)
    w[i] = w[2 * i] + w[2 * i + 1];
  memset(w + TW_AN_WINDOWS / 2, 0, sizeof *w * (TW_AN_WINDOWS / 2));
}

static void win_merge(struct tw_an *a, struct an_core *c)
{
  (void)a;
  for (size_t i = 0; i < c->nload; i++)
    if (c->load[i].win)
      tw__an_win_halve(c->load[i].win);
  for (size_t i = 0; i < c->nirqs_used; i++)
    if (c->irqs[i].win)
      tw__an_win_halve(c->irqs[i].win);
  tw__an_win_halve(c->win_switches);
  tw__an_win_halve(c->win_unknown);
  c->win_w *= 2;
}

/* The end of window i; the last border may lie beyond 2^64 ns: it
 * saturates instead of wrapping back. */
static uint64_t win_end(const struct an_core *c, uint64_t i)
{
  return i + 1 > (UINT64_MAX - c->t0) / c->win_w ? UINT64_MAX : c->t0 + (i + 1) * c->win_w;
}

/* The cursor onto the window holding last_t, found by dividing (after the
 * windows widened, or at the start); charging moves it along without. */
static void win_seek(struct an_core *c)
{
  c->win_cur = (c->last_t - c->t0) / c->win_w;
  c->win_cur_end = win_end(c, c->win_cur);
  c->win_limit = win_end(c, TW_AN_WINDOWS - 1);
}

/* Widens the windows until t falls inside the series. Compares with the
 * series' end, worked out once per width (win_seek; a division on every
 * charge was a measurable share of the pass); that end saturates at
 * UINT64_MAX rather than wrap (a span near 2^64 ns: a damaged timestamp;
 * wrapping once made this loop forever), and a series that reaches
 * UINT64_MAX already holds every time there is. */
static void win_reach(struct tw_an *a, struct an_core *c, uint64_t t)
{
  int merged = 0;
  while (t >= c->win_limit && c->win_limit != UINT64_MAX) {
    win_merge(a, c);
    c->win_limit = win_end(c, TW_AN_WINDOWS - 1);
    merged = 1;
  }
  if (merged)
    win_seek(c);
}

/* Adds [last_t, to) to window series w (split at window borders) and
 * moves the cursor to `to`'s window. */
static void win_add(struct an_core *c, uint64_t *w, uint64_t to)
{
  uint64_t from = c->last_t;
  while (from < to && c->win_cur < TW_AN_WINDOWS) {
    uint64_t stop = to < c->win_cur_end ? to : c->win_cur_end;
    w[c->win_cur] += stop - from;
    from = stop;
    if (from == c->win_cur_end && from != UINT64_MAX) {
      c->win_cur++;
      c->win_cur_end = win_end(c, c->win_cur);
    }
  }
}

static uint64_t *series(struct tw_an *a, uint64_t **w)
{
  if (!*w)
    *w = tw__an_calloc(a, TW_AN_WINDOWS, sizeof **w);
  return *w;
}

/* Charges [last_t, t) to the core's owner as the engine knows it. */
static void charge(struct tw_an *a, struct an_core *c, uint64_t t)
{
  uint64_t dt, *w = NULL;
  struct an_load *run;
  if (!c->in_span || t <= c->last_t)
    return;
  dt = t - c->last_t;
  win_reach(a, c, t);
  run = c->own_task ? tw__an_load_of(a, c, c->own_task) : NULL;
  if (c->own_irq >= 0) {
    struct an_irq *q = &c->irqs[c->own_irq];
    q->cpu_ns += dt;
    c->isr_ns += dt;
    if (run)
      run->intr_ns += dt; /* the running task, interrupted */
    w = series(a, &q->win);
  } else if (run) {
    run->cpu_ns += dt;
    run->ran = 1;
    w = series(a, &run->win);
  } else {
    c->unknown_ns += dt;
  }
  win_add(c, w ? w : c->win_unknown, t);
  c->last_t = t;
}

/* After an owner change in the model: who the engine charges from now. */
static void set_owner(struct tw_an *a, struct an_core *c)
{
  const struct tw_rtos_core *mc = c->mc;
  c->own_task = mc->running_known ? mc->running : NULL;
  c->own_irq = -1;
  if (mc->depth > 0) { /* the frame's irq, looked up once (it is named once) */
    struct an_frame *af = &c->frames[mc->depth - 1];
    uint32_t irq = mc->frames[mc->depth - 1].irq;
    int i;
    if (af->irq_index >= 0 && (size_t)af->irq_index < c->nirqs_used &&
        c->irqs[af->irq_index].irq == irq)
      c->own_irq = af->irq_index;
    else if (irq_get(a, c, irq, &i))
      c->own_irq = af->irq_index = i;
  }
}

/* ---- task states ------------------------------------------------------------------ */

static void state_item(struct tw_an *a, int core, const struct an_task *x,
                       const struct tw_rtos_phase *p, enum tw_an_state s, uint64_t from,
                       uint64_t to)
{
  if (!a->obs)
    return; /* items are for an observer (the report): none, nothing to build */
  struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = core, .t = from, .t1 = to,
                          .lane_kind = TW_OBJ_TASK, .lane = x->t->number, .state = s};
  if (s == TW_AN_BLOCKED) {
    it.wait_kind = p->wait_kind;
    it.wait_obj = p->wait_obj;
  }
  if (to > from)
    tw__an_emit(a, &it);
}

/* The time since the task's last change goes to the state it had. */
static void close_state(struct tw_an *a, struct an_task *x, const struct tw_rtos_phase *old,
                        uint64_t now)
{
  uint64_t from = x->since;
  if (x->state == TW_AN_UNKNOWN && !x->seen)
    return; /* not in the analyses before its first event */
  if (old->state == TW_RTOS_DELETED)
    return;
  if (now > from) {
    x->ns[x->state] += now - from;
    state_item(a, x->core >= 0 ? x->core : 0, x, old, (enum tw_an_state)x->state, from, now);
  }
}

static COLD void wait_ended(struct tw_an *a, const struct tw_rtos_phase *old,
                       const struct tw_rtos_change *ch, struct an_task *x, uint64_t now)
{
  const struct tw_rtos_obj *o = x->wait_o;
  struct an_obj *ao;
  int core = x->core >= 0 ? x->core : (int)ch->core->id;
  if (!o || o->kind != old->wait_kind || o->number != old->wait_obj)
    o = tw_rtos_obj(a->m, x->t->endpoint, old->wait_kind, old->wait_obj);
  ao = tw__an_obj_of(a, o);
  if (ao && ch->task->now.state != TW_RTOS_UNKNOWN)
    tw__an_hist_add(a, &ao->wait, now - old->since); /* not across a gap: length unknown */
  if (ao && ch->why == TW_ACT_READY && ch->meaning && ch->meaning->obj_field < 0)
    ao->releases++; /* a kernel's "the task is ready" (FreeRTOS): what it waited on released it */
  if (ao && tw__an_is_lock(o)) {
    tw__an_inv_unblock(a, core, x, now);
    if (ch->why == TW_ACT_READY && o->kind == TW_OBJ_MUTEX && ch->meaning &&
        ch->meaning->obj_act == TW_OACT_LOCK) {
      ao->contended++; /* handed over by a lock */
      ao->releases++;
    }
  }
  tw__an_deadlock_release(a, core, x, now);
}

/* A release in interrupt context: latency runs until the task runs. */
static void note_release(struct an_core *c, struct an_task *x, uint64_t now)
{
  const struct tw_rtos_core *mc = c->mc;
  if (!mc->depth)
    return;
  x->rel_t = c->frames[mc->depth - 1].have_give ? c->frames[mc->depth - 1].give_t : now;
  x->rel_pending = 1;
}

static void on_task(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch)
{
  struct an_task *x = tw__an_task_of(a, ch->task);
  const struct tw_rtos_phase *old = &ch->old, *now = &ch->task->now;
  int core = (int)ch->core->id;
  if (!x)
    return;
  if (ch->why != TW_ACT_LOSS && !x->seen) {
    x->seen = 1;
    x->since = ch->t;
    if (x->core < 0)
      x->core = core;
  } else {
    close_state(a, x, old, ch->t);
  }
  if (old->state == TW_RTOS_BLOCKED && old->wait != TW_RTOS_WAIT_UNSEEN)
    wait_ended(a, old, ch, x, ch->t);
  if (now->state == TW_RTOS_RUNNING && x->rel_pending) {
    /* released in an interrupt, running now (switched in, or switched to
     * while still the core's task: the scheduler chose it again) */
    tw__an_hist_add(a, &x->latency, ch->t - x->rel_t);
    tw__an_hist_add(a, &c->latency, ch->t - x->rel_t);
    x->rel_pending = 0;
  }
  if (now->state == TW_RTOS_RUNNING) {
    if (old->state == TW_RTOS_READY)
      tw__an_starve_check(a, core, x, old->since, old->epoch, ch->t);
    else if (old->state == TW_RTOS_UNKNOWN && ch->task->last.state == TW_RTOS_READY)
      tw__an_starve_check(a, core, x, ch->task->last.since, ch->task->last.epoch, ch->t);
  }
  if (now->state == TW_RTOS_READY && ch->why == TW_ACT_READY && ch->meaning &&
      ch->meaning->act != TW_ACT_READY)
    note_release(c, x, ch->t); /* a handover or a release of all: ToTask notes its own */
  x->state = (uint8_t)tw__an_state_of(now);
  x->since = ch->t;
  if (now->state == TW_RTOS_BLOCKED &&
      (now->wait == TW_RTOS_WAIT_OBJECT || now->wait == TW_RTOS_WAIT_CONDITION)) {
    /* looked up once: its end (wait_ended) needs it again */
    const struct tw_rtos_obj *o = x->wait_o =
        tw_rtos_obj(a->m, x->t->endpoint, now->wait_kind, now->wait_obj);
    if (now->wait == TW_RTOS_WAIT_OBJECT && tw__an_is_lock(o)) {
      tw__an_deadlock_check(a, core, x, ch->t);
      tw__an_inv_block(a, core, x, ch->t);
    }
  }
}

/* ---- switches and interrupts ---------------------------------------------------- */

/* A switch at last_t (charge() ran first): its window is the cursor's. */
static void win_switch(struct an_core *c)
{
  if (c->in_span && c->win_cur < TW_AN_WINDOWS)
    c->win_switches[c->win_cur]++;
}

static COLD void on_switch(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch)
{
  struct an_task *x;
  struct an_load *l;
  charge(a, c, ch->t);
  set_owner(a, c);
  if (!ch->task)
    return; /* the running task became unknown (a loss) */
  if ((l = tw__an_load_of(a, c, ch->task))) {
    l->switches_in++;
    l->ran = 1;
  }
  if (ch->task != c->last_run) { /* a switch to the last known running task is none */
    c->switches++;
    win_switch(c);
  }
  c->last_run = ch->task;
  if (!(x = tw__an_task_of(a, ch->task)))
    return;
  x->core = (int)ch->core->id;
  tw__an_inv_eval(a, (int)ch->core->id, ch->t);
}

static void irq_item(struct tw_an *a, int core, uint32_t irq, uint64_t t0, uint64_t t1,
                     int depth)
{
  if (!a->obs)
    return;
  struct tw_an_item it = {.kind = TW_AN_ITEM_IRQ, .core = core, .t = t0, .t1 = t1,
                          .lane_kind = TW_OBJ_IRQ, .lane = irq, .state = TW_AN_RUNNING,
                          .depth = depth};
  tw__an_emit(a, &it);
}

/* The entry's glyph, drawn once the frame's irq is known (or at its exit). */
static void enter_item(struct tw_an *a, int core, const struct tw_rtos_frame *f,
                       const struct an_frame *af)
{
  if (!a->obs)
    return;
  struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = core, .t = f->since,
                          .lane_kind = TW_OBJ_IRQ, .lane = f->irq, .id = af->enter_id,
                          .type = af->enter_type, .marker = af->enter_marker,
                          .task = TW_AN_NO_TASK};
  tw__an_emit(a, &it);
}

static uint32_t marker_value(const struct tw_event *ev)
{
  int mf = ev && ev->desc ? ev->desc->marker_field : -1;
  return mf >= 0 && mf < ev->nvalues ? ev->values[mf] : 0;
}

static enum tw_marker marker_of(const struct tw_event *ev)
{
  return ev ? tw_event_marker_of(ev) : TW_MARKER_NONE;
}

static COLD void on_irq(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch)
{
  int core = (int)ch->core->id, i;
  const struct tw_rtos_frame *f = ch->frame;
  struct an_frame *af = &c->frames[ch->depth - 1];
  struct an_irq *q;
  charge(a, c, ch->t);
  if (ch->kind == TW_RTOS_CH_IRQ_ENTER) {
    memset(af, 0, sizeof *af);
    af->irq_index = -1;
    af->enter_id = ch->ev ? ch->ev->id : 0;
    af->enter_type = marker_value(ch->ev);
    af->enter_marker = marker_of(ch->ev);
  } else if (ch->kind == TW_RTOS_CH_IRQ_NAME) {
    af->announced = 1;
    c->named_now = 1;
    enter_item(a, core, f, af);
  } else if ((q = irq_get(a, c, f->irq, &i))) { /* exit */
    if (ch->cut) {
      q->cut++; /* its LeaveInt may be among the lost: duration unknown */
    } else {
      q->count++;
      q->nested += ch->depth > 1;
      q->max_depth = ch->depth > q->max_depth ? ch->depth : q->max_depth;
      tw__an_hist_add(a, &q->dur, ch->t - f->since);
    }
    if (!af->announced)
      enter_item(a, core, f, af);
    if (!ch->cut && ch->ev && a->obs) {
      struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = core, .t = ch->t,
                              .lane_kind = TW_OBJ_IRQ, .lane = f->irq, .id = ch->ev->id,
                              .type = marker_value(ch->ev), .marker = marker_of(ch->ev),
                              .task = TW_AN_NO_TASK};
      tw__an_emit(a, &it);
    }
    irq_item(a, core, f->irq, f->since, ch->t, ch->depth);
  }
  set_owner(a, c);
}

/* ---- objects ---------------------------------------------------------------------- */

/* The hold a mutex's unlock ended, for the observer. */
static void held_item(struct tw_an *a, const struct tw_rtos_change *ch,
                      const struct an_obj *ao)
{
  const struct tw_rtos_obj *o = ch->obj;
  struct tw_an_item it = {.kind = TW_AN_ITEM_STATE, .core = (int)ch->core->id,
                          .t = ao->held_from, .t1 = ch->t, .lane_kind = o->kind,
                          .lane = o->number, .state = TW_AN_RUNNING,
                          .wait_kind = TW_OBJ_TASK, .wait_obj = ao->held_by->number};
  tw__an_emit(a, &it);
}

/* An event on an object (after the model's acts): the deepest recursive
 * lock, the hold an unlock ended, and the inversions a change of lock
 * ownership may start or end. Done here rather than on the model's object
 * changes, which the engine does not ask for: they were a change, and the
 * model's bookkeeping for it, on most events, a sixth of the pass. */
static void obj_event(struct tw_an *a, const struct tw_rtos_change *ch, struct an_obj *ao)
{
  const struct tw_rtos_obj *o = ch->obj;
  if ((int)o->depth > ao->max_depth)
    ao->max_depth = (int)o->depth;
  if (ch->meaning->obj_act == TW_OACT_UNLOCK && ao->held_by) {
    if (ao->held_by == ch->task)
      tw__an_hist_add(a, &ao->hold, ch->t - ao->held_from);
    if (a->obs)
      held_item(a, ch, ao);
  }
  ao->held_by = o->holder_known ? o->holder : NULL;
  ao->held_from = o->held_since;
  if (a->ninv && tw__an_is_lock(o))
    tw__an_inv_eval(a, (int)ch->core->id, ch->t);
}

/* ---- events -------------------------------------------------------------------------- */

/* The give of an interrupt frame that may release a task: its release
 * latency starts here. */
static int may_release(enum tw_obj_act a)
{
  return a == TW_OACT_GIVE || a == TW_OACT_GIVE_MANY || a == TW_OACT_RELEASE_MANY ||
         a == TW_OACT_RELEASE_ALL || a == TW_OACT_SIGNAL;
}

/* The first plain field besides the task, object and type (a multi
 * object's input, shown by the report), or -1. */
static int8_t index_field(const struct tw_meaning *mn)
{
  const struct tw_event_desc *d = tw_event_desc_by_id(mn->id);
  for (int i = 0; d && i < d->nfields; i++)
    if (i != d->marker_field && i != mn->task_field && i != mn->obj_field &&
        d->fields[i].obj == TW_OBJ_NONE && d->fields[i].type != TW_FT_STRING)
      return (int8_t)i;
  return -1;
}

/* The engine's reading of each meaning row, once. */
static int acts_init(struct tw_an *a)
{
  if (!(a->acts = tw__an_calloc(a, tw_nmeanings + 1, sizeof *a->acts)))
    return TW_ENOMEM;
  a->nacts = tw_nmeanings;
  for (size_t i = 0; i < tw_nmeanings; i++) {
    const struct tw_meaning *mn = &tw_meanings[i];
    struct an_act *k = &a->acts[i];
    enum tw_act act = mn->act;
    enum tw_obj_act oa = mn->obj_act;
    k->type = mn->any || mn->value > 0xFE ? 0xFF : (uint8_t)mn->value;
    k->lock_ctr = oa == TW_OACT_LOCK ? AN_LOCKS : oa == TW_OACT_UNLOCK ? AN_UNLOCKS
                : oa == TW_OACT_LOCK_INC ? AN_INC_LOCKS : oa == TW_OACT_LOCK_DEC ? AN_DEC_LOCKS : 0;
    k->block = act == TW_ACT_BLOCK || act == TW_ACT_WAIT;
    k->release = (act == TW_ACT_READY) + (oa == TW_OACT_RELEASE_ALL);
    k->give = may_release(oa) || act == TW_ACT_NOTIFY; /* a notification gives too */
    k->ready = act == TW_ACT_READY;
    k->irq_name = act == TW_ACT_IRQ_NAME;
    k->in_span = act != TW_ACT_TRACE_START && act != TW_ACT_TRACE_STOP;
    k->item = act != TW_ACT_NAME && act != TW_ACT_LOSS && act != TW_ACT_IRQ_NAME &&
              act != TW_ACT_IRQ_ENTER && act != TW_ACT_IRQ_EXIT;
    k->special = k->give || k->ready || k->irq_name;
    k->index_field = index_field(mn);
  }
  return 0;
}

static void count_obj(struct an_obj *ao, const struct an_act *k, const struct tw_event *ev)
{
  uint32_t type = k->type;
  if (type == 0xFF) {
    int mf = ev->desc ? ev->desc->marker_field : -1;
    type = mf >= 0 && mf < ev->nvalues ? ev->values[mf] : TW_AN_MAX_TYPES;
  }
  if (type < TW_AN_MAX_TYPES)
    ao->count[type]++;
  ao->lock_ops[k->lock_ctr]++; /* [0]: not a lock operation, never read */
  ao->blocks += k->block;
  ao->releases += k->release;
}

static void count_event(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch,
                        const struct an_act *k)
{
  struct an_obj *ao = ch->obj ? tw__an_obj_of(a, ch->obj) : NULL;
  if (ao) {
    count_obj(ao, k, ch->ev);
    obj_event(a, ch, ao);
  }
  if (!k->special)
    return; /* most events: no give, release or interrupt name */
  if (k->give && c->mc->depth > 0) {
    c->frames[c->mc->depth - 1].have_give = 1;
    c->frames[c->mc->depth - 1].give_t = ch->t;
  }
  if (k->ready && ch->task) {
    struct an_task *x = tw__an_task_of(a, ch->task);
    if (x)
      note_release(c, x, ch->t);
  }
  if (k->irq_name && !c->named_now) { /* seed-004 style: an instant */
    int i;
    struct an_irq *q = irq_get(a, c, ch->obj_number, &i);
    if (q)
      q->count++;
  }
}

/* The event on the lane it belongs to: its task's, else the innermost
 * interrupt's, else the running task's, else its object's. */
static void event_item(struct tw_an *a, const struct an_core *c, const struct tw_rtos_change *ch,
                       const struct an_act *k)
{
  const struct tw_event *ev = ch->ev;
  const struct tw_rtos_core *mc = c->mc;
  int mf = ev->desc ? ev->desc->marker_field : -1;
  struct tw_an_item it = {.kind = TW_AN_ITEM_EVENT, .core = (int)mc->id, .t = ch->t,
                          .id = ev->id, .marker = ch->marker, .obj_kind = ch->obj_kind,
                          .obj = ch->obj_number, .task = TW_AN_NO_TASK};
  it.type = mf >= 0 && mf < ev->nvalues ? ev->values[mf] : 0;
  if (k->index_field >= 0 && k->index_field < ev->nvalues) /* a multi object's input */
    it.index = ev->values[k->index_field];
  if (ch->task) {
    it.task = ch->task->number;
    it.lane_kind = TW_OBJ_TASK;
    it.lane = ch->task->number;
  } else if (mc->depth > 0) {
    it.lane_kind = TW_OBJ_IRQ;
    it.lane = mc->frames[mc->depth - 1].irq;
  } else if (mc->running_known && mc->running) {
    it.lane_kind = TW_OBJ_TASK;
    it.lane = mc->running->number;
  } else {
    it.lane_kind = ch->obj_kind;
    it.lane = ch->obj_number;
  }
  tw__an_emit(a, &it);
}

/* Events the analyses count: the model's, apart from recording control. */
static void on_event(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch)
{
  const struct tw_meaning *mn = ch->meaning;
  const struct an_act *k = mn && mn->row < a->nacts ? &a->acts[mn->row] : NULL;
  if (!k || !k->in_span)
    return;
  if (!c->in_span) {
    c->in_span = 1;
    c->t0 = c->t1 = c->last_t = ch->t;
    win_seek(c);
    set_owner(a, c);
  }
  c->t1 = ch->t;
  c->events++;
  if (ch->task && mn->act != TW_ACT_NAME) { /* mentioned: in the analyses from now */
    struct an_task *x = tw__an_task_of(a, ch->task);
    if (x && !x->seen) {
      x->seen = 1;
      x->since = ch->t;
      if (x->core < 0)
        x->core = (int)c->mc->id;
    }
  }
  count_event(a, c, ch, k);
  c->named_now = 0;
  /* interrupts are drawn as frames; names and losses not at all */
  if (k->item && a->obs)
    event_item(a, c, ch, k);
}

/* ---- loss --------------------------------------------------------------------------- */

static COLD void on_loss(struct tw_an *a, struct an_core *c, const struct tw_rtos_change *ch)
{
  struct tw_an_loss *l;
  enum tw_an_loss_cause cause = (enum tw_an_loss_cause)ch->cause;
  if (!c->in_span) {
    c->in_span = 1;
    c->t0 = c->t1 = c->last_t = ch->t;
    win_seek(c);
  }
  charge(a, c, ch->t);
  for (size_t i = 0; i < a->nobjs; i++) /* the model forgot their holders too */
    if (a->objs[i].o && a->objs[i].o->endpoint == ch->core->endpoint)
      a->objs[i].held_by = NULL;
  a->lost[cause] += ch->count;
  if (a->nloss >= TW_AN_MAX_LOSSES) { /* bounded: the rest joins the last entry */
    a->losses[a->nloss - 1].count += ch->count;
    a->loss_merged++;
    return;
  }
  if (tw__an_grow(a, &a->losses, &a->nloss_cap, a->nloss + 1, sizeof *l) < 0)
    return;
  a->losses[a->nloss++] = (struct tw_an_loss){cause, (int)ch->core->id, ch->t, ch->count};
}

_Static_assert((int)TW_AN_LOSS_STOPPED == (int)TW_RTOS_LOSS_STOPPED &&
               (int)TW_AN_NCAUSES == (int)TW_RTOS_NCAUSES, "loss causes are the model's");

/* ---- priority inheritance ---------------------------------------------------------- */

/* A task's effective priority above its base: inherited, from when to
 * when, how often, how high. */
static COLD void on_prio(struct tw_an *a, const struct tw_rtos_change *ch)
{
  const struct tw_rtos_task *t = ch->task;
  struct an_task *x = tw__an_task_of(a, t);
  int up = t->base_prio >= 0 && t->prio > t->base_prio;
  if (!x)
    return;
  if (up && !x->inh_on) {
    x->inh_on = 1;
    x->inh_since = ch->t;
    x->inh_count++;
  }
  if (up && t->prio > x->inh_max)
    x->inh_max = t->prio;
  if (!up && x->inh_on) {
    x->inh_on = 0;
    x->inh_ns += ch->t - x->inh_since;
  }
}

/* ---- the observer ----------------------------------------------------------------- */

static void on_change(void *ctx, const struct tw_rtos_change *ch)
{
  struct tw_an *a = ctx;
  struct an_core *c;
  if (!(c = core_of(a, ch->core))) /* every change has a core; NULL: out of memory */
    return;
  /* tests, most frequent first, rather than a switch: its one indirect
   * jump, taken ~2.6 times an event to a different place each time, was
   * mispredicted nearly every time (a measurable share of the pass) */
  if (ch->kind == TW_RTOS_CH_EVENT)
    on_event(a, c, ch);
  else if (ch->kind == TW_RTOS_CH_TASK)
    on_task(a, c, ch);
  else if (ch->kind == TW_RTOS_CH_SWITCH)
    on_switch(a, c, ch);
  else if (ch->kind == TW_RTOS_CH_IRQ_ENTER || ch->kind == TW_RTOS_CH_IRQ_NAME ||
           ch->kind == TW_RTOS_CH_IRQ_EXIT)
    on_irq(a, c, ch);
  else if (ch->kind == TW_RTOS_CH_PRIO) {
    on_prio(a, ch);
    tw__an_inv_eval(a, (int)ch->core->id, ch->t);
  } else if (ch->kind == TW_RTOS_CH_LOSS) {
    on_loss(a, c, ch);
  }
}

/* ---- feeding --------------------------------------------------------------------- */

int tw_an_feed(struct tw_an *a, const struct tw_event *ev)
{
  int rc;
  if (!a->own_model)
    return TW_EINVAL; /* someone else feeds the model */
  if (a->finished)
    return 0;
  rc = tw_rtos_feed(a->m, ev);
  if (rc == TW_ENOMEM && !a->err)
    a->err = rc;
  return a->err;
}

void tw_an_loss(struct tw_an *a, uint16_t stream, enum tw_an_loss_cause cause, uint64_t count)
{
  if ((unsigned)cause < TW_AN_NCAUSES && !a->finished)
    tw_rtos_loss(a->m, stream, (enum tw_rtos_loss_cause)cause, count);
}

/* ---- end of trace --------------------------------------------------------------------- */

static void finish_core(struct tw_an *a, struct an_core *c)
{
  const struct tw_rtos_core *mc = c->mc;
  int core = (int)mc->id;
  charge(a, c, c->t1);
  for (int d = mc->depth; d > 0; d--) { /* interrupts still open: drawn to the end */
    const struct tw_rtos_frame *f = &mc->frames[d - 1];
    if (!c->frames[d - 1].announced)
      enter_item(a, core, f, &c->frames[d - 1]);
    irq_item(a, core, f->irq, f->since, c->t1, d);
  }
}

static void finish_task(struct tw_an *a, struct an_task *x)
{
  const struct tw_rtos_task *t = x->t;
  struct an_core *c;
  uint64_t end;
  if (!x->seen || x->core < 0 || (size_t)x->core >= a->ncores || !a->cores[x->core].mc)
    return;
  c = &a->cores[x->core];
  end = c->t1 > x->since ? c->t1 : x->since;
  if (t->now.state == TW_RTOS_READY)
    tw__an_starve_check(a, x->core, x, t->now.since, t->now.epoch, end);
  if (x->inh_on && end > x->inh_since) /* still inherited at the end */
    x->inh_ns += end - x->inh_since;
  x->inh_on = 0;
  close_state(a, x, &t->now, end); /* the last interval */
  x->since = end;
}

void tw_an_finish(struct tw_an *a)
{
  if (a->finished)
    return;
  if (a->own_model)
    tw_rtos_finish(a->m); /* a shared model is its owner's to finish */
  for (size_t i = 0; i < a->ncores; i++)
    if (a->cores[i].mc && a->cores[i].in_span)
      finish_core(a, &a->cores[i]);
  tw__an_finish_detectors(a);
  for (size_t i = 0; i < a->ntasks; i++)
    if (a->tasks[i].t)
      finish_task(a, &a->tasks[i]);
  tw__an_groups_finish(a); /* every finding is in: severity order */
  a->finished = 1;
  /* nothing more to hear (a shared model may go on): on_change need not ask */
  tw_rtos_unobserve(a->m, on_change, a);
}

/* ---- lifetime ---------------------------------------------------------------------- */

static int create(struct tw_an **out, struct tw_rtos *model, const struct tw_an_cfg *cfg)
{
  struct tw_an *a = tw__an_calloc(NULL, 1, sizeof *a);
  int rc;
  *out = NULL;
  if (!a)
    return TW_ENOMEM;
  if (cfg)
    a->cfg = *cfg;
  if (!a->cfg.starve_ns)
    a->cfg.starve_ns = 100000000ull;
  a->own_model = !model;
  if (acts_init(a) < 0) {
    free(a);
    return TW_ENOMEM;
  }
  rc = model ? 0 : tw_rtos_create(&model);
  a->m = model;
  /* every change but the objects' (obj_event) */
  if (rc < 0 || (rc = tw_rtos_observe_kinds(a->m, on_change, a,
                                            TW_RTOS_CH_ALL & ~TW_RTOS_CH_BIT(TW_RTOS_CH_OBJ))) < 0) {
    if (a->own_model)
      tw_rtos_destroy(a->m);
    free(a->acts);
    free(a);
    return rc;
  }
  *out = a;
  return 0;
}

int tw_an_create(struct tw_an **out, const struct tw_an_cfg *cfg)
{
  return create(out, NULL, cfg);
}

int tw_an_create_on(struct tw_an **out, struct tw_rtos *model, const struct tw_an_cfg *cfg)
{
  return model ? create(out, model, cfg) : TW_EINVAL;
}

void tw_an_destroy(struct tw_an *a)
{
  if (!a)
    return;
  for (size_t i = 0; i < a->ncores; i++) {
    struct an_core *c = &a->cores[i];
    for (size_t k = 0; k < c->nirqs_used; k++) {
      free(c->irqs[k].win);
      free(c->irqs[k].dur);
    }
    free(c->irqs);
    free(c->latency);
    free(c->name);
    for (size_t k = 0; k < c->nload; k++)
      free(c->load[k].win);
    free(c->load);
  }
  for (size_t i = 0; i < a->ntasks; i++)
    free(a->tasks[i].latency);
  for (size_t i = 0; i < a->nobjs; i++) {
    free(a->objs[i].hold);
    free(a->objs[i].wait);
  }
  if (a->own_model)
    tw_rtos_destroy(a->m);
  else
    tw_rtos_unobserve(a->m, on_change, a); /* unless tw_an_finish did */
  free(a->cores);
  free(a->tasks);
  free(a->objs);
  free(a->inv_list);
  free(a->acts);
  free(a->findings);
  tw__an_groups_free(a);
  free(a->losses);
  free(a);
}

void tw_an_observe(struct tw_an *a, tw_an_observer fn, void *ctx)
{
  a->obs = fn;
  a->obs_ctx = ctx;
}

int tw_an_set_core_name(struct tw_an *a, int core, const char *name)
{
  char *copy;
  if (core < 0 || !name)
    return TW_EINVAL;
  if ((size_t)core >= a->ncores &&
      tw__an_grow(a, &a->cores, &a->ncores, (size_t)core + 1, sizeof *a->cores) < 0)
    return TW_ENOMEM;
  a->last_mc = NULL; /* the table may have moved */
  if (!(copy = strdup(name))) {
    a->err = a->err ? a->err : TW_ENOMEM;
    return TW_ENOMEM;
  }
  free(a->cores[core].name);
  a->cores[core].name = copy;
  return 0;
}

void tw_an_on_core(struct tw_an *a, void (*fn)(void *ctx, struct tw_an *a, int core), void *ctx)
{
  a->on_core = fn;
  a->on_core_ctx = ctx;
}

int tw_an_error(const struct tw_an *a) { return a->err; }

const struct tw_rtos *tw_an_model(const struct tw_an *a) { return a->m; }
