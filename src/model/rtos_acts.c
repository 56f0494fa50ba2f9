/*
 * What the acts of tracewire/model/meaning.h do to the state
 * (docs/model.md, "Transitions"). Each act changes the state first and
 * tells the observers after each step, so an observer reading the model
 * sees the state its change describes.
 *
 * Time: a core's CPU time is charged to its owner (innermost interrupt,
 * else the running task, else unknown) whenever the owner is about to
 * change, so charging costs nothing on events that change no owner.
 */
#include <string.h>
#include "rtos_internal.h"
#include "tracewire/error.h"

/* ---- time ---------------------------------------------------------------------------- */

static enum tw_rtos_owner owner_of(const struct rcore *c)
{
  if (c->pub.depth > 0 || c->overflow > 0)
    return TW_RTOS_OWN_IRQ;
  if (!c->pub.running_known || !c->run)
    return TW_RTOS_OWN_UNKNOWN;
  return c->run->pub.idle ? TW_RTOS_OWN_IDLE : TW_RTOS_OWN_TASK;
}

void tw__rtos_charge(struct tw_rtos *m, struct rcore *c, uint64_t t)
{
  uint64_t dt;
  (void)m;
  if (t <= c->owner_since)
    return;
  dt = t - c->owner_since;
  c->owner_since = t;
  c->pub.ns[c->pub.owner] += dt;
  if (c->pub.owner == TW_RTOS_OWN_IRQ) {
    if (c->pub.depth > 0 && !c->overflow)
      c->frames[c->pub.depth - 1].net_ns += dt;
    if (c->pub.running_known && c->run)
      c->run->pub.irq_ns += dt; /* the running task, interrupted */
  } else if (c->run && c->pub.running_known) {
    c->run->pub.cpu_ns += dt;
  }
}

static void set_owner(struct rcore *c) { c->pub.owner = owner_of(c); }

/* ---- task phases ------------------------------------------------------------------------- */

/* The OBJ changes an event caused, one per object, with the holder it had
 * before the event. */
void tw__rtos_flush_objs(struct tw_rtos *m)
{
  int n = m->ntouched;
  m->ntouched = 0;
  struct tw_rtos_change *ch = &m->ch_obj;
  ch->kind = TW_RTOS_CH_OBJ;
  ch->meaning = m->mn;
  ch->ev = m->ev;
  ch->task = m->evtask;
  for (int i = 0; i < n; i++) {
    ch->why = m->touched[i].why;
    ch->t = m->touched[i].t;
    ch->core = &m->touched[i].c->pub;
    ch->obj = &m->touched[i].o->pub;
    ch->old_holder = m->touched[i].old_holder;
    ch->old_since = m->touched[i].old_since;
    tw__rtos_emit(m, ch);
  }
}

static inline void obj_changed(struct tw_rtos *m, struct rcore *c, struct robj *o, uint64_t now,
                               enum tw_act why, const struct tw_rtos_task *old_holder,
                               uint64_t old_since)
{
  int i;
  if (!(m->want & TW_RTOS_CH_BIT(TW_RTOS_CH_OBJ)))
    return; /* nobody listens for objects: no bookkeeping */
  for (i = 0; i < m->ntouched; i++)
    if (m->touched[i].o == o)
      return; /* told once, at the end of the event, with what it was before */
  if (m->ntouched == (int)(sizeof m->touched / sizeof m->touched[0]))
    tw__rtos_flush_objs(m);
  i = m->ntouched++;
  m->touched[i].o = o;
  m->touched[i].c = c;
  m->touched[i].old_holder = old_holder;
  m->touched[i].old_since = old_since;
  m->touched[i].t = now;
  m->touched[i].why = why;
}

static int waits_on(const struct tw_rtos_phase *p)
{
  return p->state == TW_RTOS_BLOCKED &&
         (p->wait == TW_RTOS_WAIT_OBJECT || p->wait == TW_RTOS_WAIT_CONDITION);
}

static void waiters_add(struct tw_rtos *m, struct rcore *c, const struct tw_rtos_phase *p,
                        int d, uint64_t now, enum tw_act why)
{
  struct robj *o;
  if (!waits_on(p) || !(o = tw__rtos_obj_fast(c->ep, p->wait_kind, p->wait_obj)))
    return;
  if (d < 0 && !o->pub.waiters)
    return;
  obj_changed(m, c, o, now, why, o->pub.holder_known ? o->pub.holder : NULL,
              o->pub.held_since);
  o->pub.waiters += (uint32_t)d;
}

struct phase_to {
  uint8_t state, wait, wait_kind;
  uint32_t wait_obj;
  uint64_t wait_value;
};

static int same_phase(const struct tw_rtos_phase *p, struct phase_to to)
{
  return p->state == to.state && p->wait == to.wait && p->wait_kind == to.wait_kind &&
         p->wait_obj == to.wait_obj && p->wait_value == to.wait_value;
}

/* Moves task t (of core c's endpoint) to a new phase, keeping the
 * endpoint's ready/unknown counts and the objects' waiter counts. The new
 * phase comes by value (in registers): read back through memory right
 * after the caller's narrow stores it stalled store forwarding. */
static void set_phase(struct tw_rtos *m, struct rcore *c, struct rtask *t, struct phase_to tov,
                      enum tw_act why, uint64_t now)
{
  const struct phase_to *to = &tov;
  struct tw_rtos_phase old;
  struct rep *e = c->ep;
  if (same_phase(&t->pub.now, tov))
    return;
  old = t->pub.now;
  e->ready += (to->state == TW_RTOS_READY) - (old.state == TW_RTOS_READY);
  e->unknown += (to->state == TW_RTOS_UNKNOWN) - (old.state == TW_RTOS_UNKNOWN);
  if (to->state == TW_RTOS_UNKNOWN && old.state != TW_RTOS_UNKNOWN)
    t->pub.last = old;
  t->pub.now = (struct tw_rtos_phase){.state = to->state, .wait = to->wait,
                                      .wait_kind = to->wait_kind, .wait_obj = to->wait_obj,
                                      .wait_value = to->wait_value, .since = now,
                                      .epoch = e->epoch};
  if (m->nobs) {
    struct tw_rtos_change *ch = &m->ch_task;
    ch->kind = TW_RTOS_CH_TASK;
    ch->meaning = m->mn;
    ch->why = why;
    ch->t = now;
    ch->ev = m->ev;
    ch->core = &c->pub;
    ch->task = &t->pub;
    ch->old = old;
    tw__rtos_emit(m, ch);
  }
  if (old.state == TW_RTOS_BLOCKED)
    waiters_add(m, c, &old, -1, now, why);
  if (to->state == TW_RTOS_BLOCKED)
    waiters_add(m, c, &t->pub.now, 1, now, why);
}

static void to_state(struct tw_rtos *m, struct rcore *c, struct rtask *t, uint8_t state,
                     enum tw_act why, uint64_t now)
{
  set_phase(m, c, t, (struct phase_to){.state = state}, why, now);
}

static void prio_changed(struct tw_rtos *m, struct rcore *c, struct rtask *t, uint64_t now,
                         enum tw_act why)
{
  if (m->nobs) {
    struct tw_rtos_change ch = {.kind = TW_RTOS_CH_PRIO, .meaning = m->mn, .why = why, .t = now,
                                .ev = m->ev, .core = &c->pub, .task = &t->pub};
    tw__rtos_emit(m, &ch);
  }
}

static void set_prio(struct tw_rtos *m, struct rcore *c, struct rtask *t, enum tw_act why,
                     int v, uint64_t now)
{
  int base = t->pub.base_prio, prio = t->pub.prio;
  t->prio_epoch = c->ep->epoch;
  switch (why) {
  case TW_ACT_PRIO_INHERIT:
  case TW_ACT_PRIO_DISINHERIT:
    t->pub.prio = v;
    t->inherited = t->pub.base_prio >= 0 && v != t->pub.base_prio;
    break;
  default: /* PRIO_SET, NAME, CREATE: the base; the effective one follows unless raised */
    t->pub.base_prio = v;
    if (!t->inherited || v >= t->pub.prio) {
      t->pub.prio = v;
      t->inherited = 0;
    }
    break;
  }
  if (base != t->pub.base_prio || prio != t->pub.prio)
    prio_changed(m, c, t, now, why);
}

/* ---- switches and interrupts ---------------------------------------------------------- */

static void emit_switch(struct tw_rtos *m, struct rcore *c, const struct rtask *prev,
                        const struct rtask *next, enum tw_act why, uint64_t now)
{
  struct tw_rtos_change *ch = &m->ch_switch;
  if (!m->nobs)
    return;
  ch->kind = TW_RTOS_CH_SWITCH;
  ch->meaning = m->mn;
  ch->why = why;
  ch->t = now;
  ch->ev = m->ev;
  ch->core = &c->pub;
  ch->task = next ? &next->pub : NULL;
  ch->prev = prev ? &prev->pub : NULL;
  tw__rtos_emit(m, ch);
}

static void set_running(struct rcore *c, struct rtask *t, int known)
{
  c->run = t;
  c->pub.running = t ? &t->pub : NULL;
  c->pub.running_known = (uint8_t)known;
  set_owner(c);
}

/* Task t runs on core c while another core still has it as its running
 * task: that core missed its switch away; its running task is unknown
 * from its own latest time (the cores' clocks are their own: this event's
 * time may lie anywhere on the other core's, and time charged there past
 * its last event would be counted twice). */
static void take_from_other_core(struct tw_rtos *m, struct rcore *c, struct rtask *t)
{
  struct rcore *o;
  if (t->pub.core < 0 || (uint32_t)t->pub.core == c->pub.id ||
      (size_t)t->pub.core >= m->ncores)
    return;
  o = m->cores[t->pub.core];
  if (o->run != t || !o->pub.running_known)
    return;
  tw__rtos_charge(m, o, o->pub.t);
  set_running(o, NULL, 0);
  o->pub.conflicts++;
  emit_switch(m, o, t, NULL, TW_ACT_RUN, o->pub.t);
}

static void act_run(struct tw_rtos *m, struct rcore *c, struct rtask *t, uint64_t now)
{
  struct rtask *prev = c->pub.running_known ? c->run : NULL;
  if (prev == t) {
    to_state(m, c, t, TW_RTOS_RUNNING, TW_ACT_RUN, now); /* already had the CPU */
    return;
  }
  tw__rtos_charge(m, c, now);
  take_from_other_core(m, c, t);
  if (prev && prev->pub.now.state == TW_RTOS_RUNNING) {
    /* A priority scheduler switches to a lower priority only when the old
     * task stopped wanting the CPU (a delay or suspension not traced).
     * Priorities said before a loss may have changed in it (a raise lost):
     * then it may as well have been preempted, so its state is unknown. */
    int lower = prev->pub.prio >= 0 && t->pub.prio >= 0 && t->pub.prio < prev->pub.prio;
    int sure = prev->prio_epoch == c->ep->epoch && t->prio_epoch == c->ep->epoch;
    struct phase_to to = {
        .state = !lower ? TW_RTOS_READY : sure ? TW_RTOS_BLOCKED : TW_RTOS_UNKNOWN,
        .wait = lower && sure ? TW_RTOS_WAIT_UNSEEN : TW_RTOS_WAIT_NONE};
    set_phase(m, c, prev, to, TW_ACT_RUN, now);
  }
  to_state(m, c, t, TW_RTOS_RUNNING, TW_ACT_RUN, now);
  t->pub.core = (int)c->pub.id;
  set_running(c, t, 1);
  emit_switch(m, c, prev, t, TW_ACT_RUN, now);
}

static void irq_emit(struct tw_rtos *m, struct rcore *c, enum tw_rtos_ch kind, int depth,
                     const struct tw_rtos_frame *f, int cut, enum tw_act why, uint64_t now)
{
  if (m->nobs) {
    struct tw_rtos_change ch = {.kind = kind, .why = why, .t = now, .ev = m->ev, .core = &c->pub,
                                .meaning = m->mn, .task = c->pub.running, .depth = depth,
                                .frame = f, .cut = cut};
    tw__rtos_emit(m, &ch);
  }
}

static void irq_enter(struct tw_rtos *m, struct rcore *c, uint64_t now)
{
  tw__rtos_charge(m, c, now);
  if (c->pub.depth == TW_RTOS_MAX_NEST || c->overflow) {
    c->overflow++; /* deeper than we keep: counted, and its exit matched */
    c->pub.nest_overflows++;
    set_owner(c);
    return;
  }
  c->frames[c->pub.depth] = (struct tw_rtos_frame){.irq = TW_RTOS_IRQ_UNNAMED, .since = now};
  c->pub.depth++;
  if (c->pub.depth > c->pub.max_depth)
    c->pub.max_depth = c->pub.depth;
  set_owner(c);
  irq_emit(m, c, TW_RTOS_CH_IRQ_ENTER, c->pub.depth, &c->frames[c->pub.depth - 1], 0,
           TW_ACT_IRQ_ENTER, now);
}

static void irq_exit(struct tw_rtos *m, struct rcore *c, uint64_t now, int cut, enum tw_act why)
{
  int d = c->pub.depth;
  if (c->overflow) {
    tw__rtos_charge(m, c, now);
    c->overflow--;
    return;
  }
  if (!d) {
    c->pub.unmatched_exits++; /* its entry was before the trace or a gap: ignored */
    return;
  }
  tw__rtos_charge(m, c, now);
  c->pub.depth--;
  set_owner(c);
  irq_emit(m, c, TW_RTOS_CH_IRQ_EXIT, d, &c->frames[d - 1], cut, why, now);
}

static void irq_name(struct tw_rtos *m, struct rcore *c, uint32_t irq, uint64_t now)
{
  struct tw_rtos_frame *f;
  if (!c->pub.depth || c->overflow)
    return; /* outside a frame: an instant (seed-004 only instrumentation) */
  f = &c->frames[c->pub.depth - 1];
  if (f->irq != TW_RTOS_IRQ_UNNAMED)
    return;
  f->irq = irq;
  irq_emit(m, c, TW_RTOS_CH_IRQ_NAME, c->pub.depth, f, 0, TW_ACT_IRQ_NAME, now);
}

/* ---- loss ------------------------------------------------------------------------------- */

static void forget_task(struct tw_rtos *m, struct rcore *c, struct rtask *t, uint64_t now)
{
  if (t->pub.now.state == TW_RTOS_DELETED)
    return; /* gone for good (a new task with its number says Create, or runs) */
  if (t->pub.now.state == TW_RTOS_RUNNING && t->pub.core >= 0 &&
      (uint32_t)t->pub.core != c->pub.id && (size_t)t->pub.core < m->ncores &&
      m->cores[t->pub.core]->run == t && m->cores[t->pub.core]->pub.running_known)
    return; /* running on a core whose own stream is complete */
  to_state(m, c, t, TW_RTOS_UNKNOWN, TW_ACT_LOSS, now);
  if (t->inherited) { /* its disinherit may be among the lost */
    t->inherited = 0;
    t->pub.prio = t->pub.base_prio;
    prio_changed(m, c, t, now, TW_ACT_LOSS);
  }
}

static void forget_obj(struct tw_rtos *m, struct rcore *c, struct robj *o, uint64_t now)
{
  struct tw_rtos_obj *p = &o->pub;
  const struct tw_rtos_task *h = p->holder_known ? p->holder : NULL;
  uint64_t since = p->held_since;
  if (!p->holder_known && !p->held && !p->depth && !p->count && !p->count_exact)
    return; /* nothing known to forget */
  obj_changed(m, c, o, now, TW_ACT_LOSS, h, since);
  p->holder = NULL;
  p->holder_known = 0;
  p->held = 0;
  p->depth = 0;
  p->count = 0; /* restarts: 0 is a lower bound of any count */
  p->count_exact = 0;
}

void tw__rtos_apply_loss(struct tw_rtos *m, struct rcore *c, uint64_t t,
                         enum tw_rtos_loss_cause cause, uint64_t count)
{
  struct rep *e = c->ep;
  if (m->nobs) {
    struct tw_rtos_change ch = {.kind = TW_RTOS_CH_LOSS, .meaning = m->mn, .why = TW_ACT_LOSS, .t = t,
                                .ev = m->ev, .core = &c->pub, .cause = cause, .count = count};
    tw__rtos_emit(m, &ch);
  }
  tw__rtos_charge(m, c, t);
  c->overflow = 0;
  while (c->pub.depth > 0) /* their exits may be among the lost: closed here, cut */
    irq_exit(m, c, t, 1, TW_ACT_LOSS);
  c->pub.epoch++;
  c->pub.lost[cause] += count;
  e->epoch++;
  if (c->pub.running_known) {
    struct rtask *prev = c->run;
    set_running(c, NULL, 0);
    emit_switch(m, c, prev, NULL, TW_ACT_LOSS, t);
  }
  for (size_t i = 0; i < e->ntlist; i++)
    forget_task(m, c, e->tlist[i], t);
  for (size_t i = 0; i < e->nolist; i++)
    forget_obj(m, c, e->olist[i], t);
}

void tw__rtos_end(struct tw_rtos *m, struct rcore *c)
{
  tw__rtos_charge(m, c, c->pub.t);
  if (m->nobs) {
    struct tw_rtos_change ch = {.kind = TW_RTOS_CH_END, .t = c->pub.t, .core = &c->pub};
    tw__rtos_emit(m, &ch);
  }
}

/* ---- objects ------------------------------------------------------------------------------ */

/* One unit taken: a count at 0 means a give we did not see (or an
 * untraced one): the count stays 0 and is no longer exact. */
static void consume(struct tw_rtos_obj *p)
{
  if (p->count > 0)
    p->count--;
  else
    p->count_exact = 0;
}

static void hold(struct tw_rtos_obj *p, const struct rtask *t, uint64_t now)
{
  const struct tw_rtos_task *tp = t ? &t->pub : NULL;
  if (!p->holder_known || p->holder != tp)
    p->held_since = now;
  p->holder = tp;
  p->holder_known = 1;
  p->held = tp != NULL;
}

static void release_all(struct tw_rtos *m, struct rcore *c, struct robj *o, uint64_t now)
{
  struct rep *e = c->ep;
  for (size_t i = 0; i < e->ntlist && o->pub.waiters; i++) {
    struct rtask *t = e->tlist[i];
    if (waits_on(&t->pub.now) && t->pub.now.wait_kind == o->pub.kind &&
        t->pub.now.wait_obj == o->pub.number)
      to_state(m, c, t, TW_RTOS_READY, TW_ACT_READY, now);
  }
}

static void mutex_act(struct tw_rtos_obj *p, enum tw_obj_act a, const struct rtask *t,
                      uint64_t now)
{
  switch (a) {
  case TW_OACT_LOCK:
    hold(p, t, now);
    p->depth = 1;
    break;
  case TW_OACT_UNLOCK:
    hold(p, NULL, now);
    p->depth = 0;
    break;
  case TW_OACT_LOCK_INC:
    hold(p, t, now);
    p->depth = p->depth ? p->depth + 1 : 2; /* after a loss: at least two deep */
    break;
  case TW_OACT_LOCK_DEC:
    hold(p, t, now);
    p->depth = p->depth > 1 ? p->depth - 1 : 1;
    break;
  default:
    break;
  }
}

static void count_act(struct tw_rtos_obj *p, enum tw_obj_act a, const struct rtask *t,
                      int took, uint32_t value, uint64_t now)
{
  switch (a) {
  case TW_OACT_GIVE:
  case TW_OACT_GIVE_MANY:
    p->count++;
    p->count_exact &= a == TW_OACT_GIVE;
    if (p->count > 0)
      hold(p, NULL, now); /* units free: nobody holds it */
    break;
  case TW_OACT_TAKE:
    consume(p);
    hold(p, t, now);
    break;
  case TW_OACT_RELEASE:
    if (took) { /* the give went straight to the task */
      consume(p);
      hold(p, t, now);
    }
    break;
  case TW_OACT_RELEASE_MANY: /* n - k units left, neither said: 0 is a lower bound */
    p->count = 0;
    p->count_exact = 0;
    break;
  case TW_OACT_RELEASE_ALL:
  case TW_OACT_EMPTY:
    p->count = 0;
    p->count_exact = 1;
    break;
  case TW_OACT_ADD:
    p->count++;
    break;
  case TW_OACT_CREATE:
  case TW_OACT_CREATE_BINARY:
    p->count = value;
    p->count_exact = 1;
    p->binary = a == TW_OACT_CREATE_BINARY;
    hold(p, NULL, now);
    break;
  case TW_OACT_CREATE_MAX: /* how many units it starts with is not said */
    p->count = 0;
    p->count_exact = 0;
    p->binary = value == 1 && p->kind == TW_OBJ_SEM;
    p->depth = 0;
    hold(p, NULL, now);
    break;
  case TW_OACT_DELETE:
    p->count = 0;
    p->count_exact = 1;
    p->depth = 0;
    hold(p, NULL, now);
    break;
  case TW_OACT_CONSUME: /* a message taken away: nobody holds a queue */
    consume(p);
    hold(p, NULL, now);
    break;
  case TW_OACT_SUB: /* still blocking: at least 1 left */
    if (p->count > 1) {
      p->count--;
    } else {
      p->count = 1;
      p->count_exact = 0;
    }
    break;
  default:
    break;
  }
}

static void obj_act(struct tw_rtos *m, struct rcore *c, const struct tw_meaning *mn,
                    struct robj *o, struct rtask *t, const struct tw_rtos_phase *task_was,
                    uint32_t value, uint64_t now)
{
  struct tw_rtos_obj *p = &o->pub;
  const struct tw_rtos_task *h = p->holder_known ? p->holder : NULL;
  uint64_t since = p->held_since;
  enum tw_obj_act a = mn->obj_act;
  obj_changed(m, c, o, now, mn->act, h, since);
  if (a >= TW_OACT_LOCK && a <= TW_OACT_LOCK_DEC) {
    if (!t)
      return;
    if (a == TW_OACT_LOCK && waits_on(&t->pub.now) && t->pub.now.wait_kind == p->kind &&
        t->pub.now.wait_obj == p->number)
      to_state(m, c, t, TW_RTOS_READY, TW_ACT_READY, now); /* handed over: its block ends */
    mutex_act(p, a, t, now);
  } else {
    /* a release consumes a unit unless the task only waited for a state */
    int took = !(task_was && task_was->state == TW_RTOS_BLOCKED &&
                 task_was->wait == TW_RTOS_WAIT_CONDITION);
    count_act(p, a, t, took, mn->value_field >= 0 ? value : 0, now);
    if (a == TW_OACT_RELEASE_ALL)
      release_all(m, c, o, now);
  }
}

/* ---- tasks ------------------------------------------------------------------------------- */

static void block(struct tw_rtos *m, struct rcore *c, struct rtask *t, const struct tw_meaning *mn,
                  unsigned kind, uint32_t obj, uint32_t value, uint64_t now)
{
  struct phase_to to = {.state = TW_RTOS_BLOCKED};
  switch (mn->act) {
  case TW_ACT_BLOCK: to.wait = TW_RTOS_WAIT_OBJECT; break;
  case TW_ACT_WAIT: to.wait = TW_RTOS_WAIT_CONDITION; break;
  case TW_ACT_DELAY: to.wait = TW_RTOS_WAIT_TIME; to.wait_value = value; break;
  default: to.wait = TW_RTOS_WAIT_NOTIFY; break;
  }
  if (to.wait == TW_RTOS_WAIT_OBJECT || to.wait == TW_RTOS_WAIT_CONDITION) {
    to.wait_kind = (uint8_t)kind;
    to.wait_obj = obj;
  }
  set_phase(m, c, t, to, mn->act, now);
}

static void task_act(struct tw_rtos *m, struct rcore *c, const struct tw_meaning *mn,
                     struct rtask *t, unsigned kind, uint32_t obj, uint32_t value, uint64_t now)
{
  uint8_t s = t->pub.now.state;
  switch (mn->act) {
  case TW_ACT_RUN:
    act_run(m, c, t, now);
    break;
  case TW_ACT_NOTIFY_WAIT:
    /* a kernel may wait for an object through a notification (FreeRTOS
     * stream buffers): what the task waits for is still the object */
    if (s == TW_RTOS_BLOCKED && waits_on(&t->pub.now))
      break;
    block(m, c, t, mn, kind, obj, value, now);
    break;
  case TW_ACT_BLOCK: case TW_ACT_WAIT: case TW_ACT_DELAY:
    block(m, c, t, mn, kind, obj, value, now);
    break;
  case TW_ACT_NOTIFY: /* wakes a task waiting for a notification, only */
    if (s == TW_RTOS_BLOCKED && t->pub.now.wait == TW_RTOS_WAIT_NOTIFY)
      to_state(m, c, t, TW_RTOS_READY, mn->act, now);
    break;
  case TW_ACT_READY: /* released; a ready task stays ready since earlier */
    if (s != TW_RTOS_RUNNING && s != TW_RTOS_READY)
      to_state(m, c, t, TW_RTOS_READY, mn->act, now);
    break;
  case TW_ACT_SUSPEND:
    to_state(m, c, t, TW_RTOS_SUSPENDED, mn->act, now);
    break;
  case TW_ACT_RESUME:
    if (s != TW_RTOS_RUNNING && s != TW_RTOS_READY)
      to_state(m, c, t, TW_RTOS_READY, mn->act, now);
    break;
  case TW_ACT_CREATE:
    if (mn->value_field >= 0)
      set_prio(m, c, t, mn->act, (int)value, now);
    to_state(m, c, t, TW_RTOS_READY, mn->act, now);
    break;
  case TW_ACT_DELETE:
    to_state(m, c, t, TW_RTOS_DELETED, mn->act, now);
    break;
  case TW_ACT_PRIO_SET: case TW_ACT_PRIO_INHERIT: case TW_ACT_PRIO_DISINHERIT:
    set_prio(m, c, t, mn->act, (int)value, now);
    break;
  default:
    break;
  }
}

/* ---- names ---------------------------------------------------------------------------------- */

static int is_idle_name(const char *s)
{
  return s && strcasestr(s, "idle") != NULL;
}

static void act_name(struct tw_rtos *m, struct rcore *c, unsigned kind, uint32_t number,
                     uint32_t prio, int have_prio, uint64_t now, struct tw_rtos_change *evch)
{
  const struct tw_event *ev = m->ev;
  const char *s = NULL;
  struct rtask *t = NULL;
  struct robj *o;
  size_t len;
  if (!ev->str || kind >= TW_OBJ_COUNT)
    return;
  len = strnlen(ev->str, ev->str_len);
  if (tw__rtos_name_set(m, c->pub.endpoint, kind, number, ev->str, len, &s) < 0)
    m->oom++;
  if (kind == TW_OBJ_TASK && number < TW_TASK_PSEUDO_FIRST &&
      (t = tw__rtos_task_get(m, c->ep, number))) {
    for (size_t i = 0; i < m->ncores; i++) /* an idle task's time is not busy time */
      if (m->cores[i]->run == t)
        tw__rtos_charge(m, m->cores[i], now);
    t->pub.name = s ? s : t->pub.name;
    t->pub.idle = (uint8_t)is_idle_name(t->pub.name);
    for (size_t i = 0; i < m->ncores; i++)
      if (m->cores[i]->run == t)
        set_owner(m->cores[i]);
    if (have_prio)
      set_prio(m, c, t, TW_ACT_NAME, (int)prio, now);
    evch->task = &t->pub;
  } else if ((o = tw__rtos_obj_find(c->ep, kind, number)) && s) {
    o->pub.name = s;
    evch->obj = &o->pub;
  }
  if (m->nobs) {
    struct tw_rtos_change ch = {.kind = TW_RTOS_CH_NAME, .meaning = m->mn, .why = TW_ACT_NAME, .t = now, .ev = ev,
                                .core = &c->pub, .task = evch->task, .obj = evch->obj,
                                .obj_kind = (uint8_t)kind, .obj_number = number};
    tw__rtos_emit(m, &ch);
  }
}

/* ---- one event ------------------------------------------------------------------------------- */

static int is_task_act(enum tw_act a)
{
  return a >= TW_ACT_RUN && a <= TW_ACT_PRIO_DISINHERIT;
}

/* Kinds the model keeps state for: not tasks, interrupts or foreign ids. */
static int is_sync_kind(unsigned k)
{
  return k != TW_OBJ_NONE && k != TW_OBJ_TASK && k != TW_OBJ_IRQ && k != TW_OBJ_THREAD &&
         k != TW_OBJ_OBJKIND && k < TW_OBJ_COUNT;
}

static uint32_t field(const struct tw_event *ev, int i)
{
  return i >= 0 && i < ev->nvalues ? ev->values[i] : 0;
}

/* The task the event acts on (meaning.h, enum tw_task_src), or NULL: none,
 * or an interrupt (a TASK field's own constants, or a task-less event
 * inside an interrupt frame). */
static struct rtask *event_task(struct tw_rtos *m, struct rcore *c, const struct tw_meaning *mn,
                                const struct tw_event *ev, unsigned kind, uint32_t obj)
{
  uint32_t n;
  struct rtask *t;
  switch (mn->task_src) {
  case TW_TASK_FROM_FIELD:
    if (mn->task_field >= ev->nvalues || !(is_task_act(mn->act) || mn->act == TW_ACT_NONE))
      return NULL;
    n = ev->values[mn->task_field];
    break;
  case TW_TASK_FROM_OBJECT:
    if (kind != TW_OBJ_TASK)
      return NULL;
    n = obj;
    break;
  case TW_TASK_FROM_RUNNING:
    return c->pub.running_known && !c->pub.depth && !c->overflow ? c->run : NULL;
  default:
    return NULL;
  }
  if (n >= TW_TASK_PSEUDO_FIRST)
    return NULL; /* interrupt context, not a task */
  t = tw__rtos_task_fast(c->ep, n);
  return t ? t : tw__rtos_task_get(m, c->ep, n);
}

void tw__rtos_act(struct tw_rtos *m, struct rcore *c, const struct tw_meaning *mn,
                  const struct tw_event *ev, uint64_t t, struct tw_rtos_change *evch)
{
  unsigned kind = mn->kind_field >= 0 ? field(ev, mn->kind_field) : mn->obj_kind;
  uint32_t obj = field(ev, mn->obj_field), value = field(ev, mn->value_field);
  struct rtask *task = NULL;
  struct robj *o = NULL;
  struct tw_rtos_phase was;
  evch->value = value;
  evch->obj_kind = mn->obj_field >= 0 ? (uint8_t)kind : TW_OBJ_NONE;
  evch->obj_number = obj;
  if (mn->task_src != TW_TASK_FROM_NONE && (task = event_task(m, c, mn, ev, kind, obj)))
    evch->task = m->evtask = &task->pub;
  if (mn->obj_field >= 0 && mn->obj_field < ev->nvalues && is_sync_kind(kind) &&
      mn->act != TW_ACT_NAME) {
    o = tw__rtos_obj_fast(c->ep, kind, obj);
    if (!o)
      o = tw__rtos_obj_get(m, c->ep, kind, obj);
    evch->obj = o ? &o->pub : NULL;
  }
  switch (mn->act) {
  case TW_ACT_IRQ_ENTER: irq_enter(m, c, t); return;
  case TW_ACT_IRQ_EXIT: irq_exit(m, c, t, 0, TW_ACT_IRQ_EXIT); return;
  case TW_ACT_IRQ_NAME: irq_name(m, c, obj, t); return;
  case TW_ACT_LOSS: tw__rtos_apply_loss(m, c, t, TW_RTOS_LOSS_RING, value); return;
  case TW_ACT_TRACE_STOP: c->stopped = 1; return;
  case TW_ACT_TRACE_START:
    if (c->stopped) { /* what ran while nothing was recorded is not known */
      c->stopped = 0;
      tw__rtos_apply_loss(m, c, t, TW_RTOS_LOSS_STOPPED, 0);
    }
    return;
  case TW_ACT_NAME:
    act_name(m, c, kind, obj, value, mn->value_field >= 0, t, evch);
    return;
  default:
    break;
  }
  if (task) {
    was = task->pub.now;
    task_act(m, c, mn, task, kind, obj, value, t);
  }
  if (o && mn->obj_act != TW_OACT_NONE)
    obj_act(m, c, mn, o, task, task ? &was : NULL, value, t);
}
