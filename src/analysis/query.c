/* Read access to the engine's results; names come from the model, per
 * endpoint, whole. */
#include <stdio.h>
#include <string.h>
#include "an_internal.h"

size_t tw_an_nfindings(const struct tw_an *a) { return a->nfind; }

const struct tw_an_finding *tw_an_finding_at(const struct tw_an *a, size_t i)
{
  return i < a->nfind ? &a->findings[i] : NULL;
}

size_t tw_an_nlosses(const struct tw_an *a) { return a->nloss; }

const struct tw_an_loss *tw_an_loss_at(const struct tw_an *a, size_t i)
{
  return i < a->nloss ? &a->losses[i] : NULL;
}

uint64_t tw_an_lost(const struct tw_an *a, enum tw_an_loss_cause cause)
{
  return (unsigned)cause < TW_AN_NCAUSES ? a->lost[cause] : 0;
}

static const struct an_core *core_at(const struct tw_an *a, int core)
{
  if (core < 0 || (size_t)core >= a->ncores || !a->cores[core].mc)
    return NULL;
  return &a->cores[core];
}

const char *tw_an_name(const struct tw_an *a, int core, enum tw_obj_kind kind, uint32_t number,
                       char *buf, size_t cap)
{
  const struct an_core *c = core_at(a, core);
  const char *s = c ? tw_rtos_name(a->m, c->mc->endpoint, kind, number) : NULL;
  if (s)
    return s;
  if (kind == TW_OBJ_IRQ && number == TW_AN_IRQ_UNKNOWN)
    snprintf(buf, cap, "irq ?");
  else
    snprintf(buf, cap, "%s %u", tw_obj_kind_name(kind), (unsigned)number);
  return buf;
}

const char *tw_an_finding_name(enum tw_an_finding_kind k)
{
  static const char *const n[] = {"priority_inversion", "deadlock", "starvation",
                                  "blocked_at_end"};
  return (unsigned)k < TW_AN_NKINDS ? n[k] : "?";
}

const char *tw_an_state_name(enum tw_an_state s)
{
  static const char *const n[] = {"unknown", "running", "ready", "blocked", "suspended"};
  return (unsigned)s < TW_AN_NSTATES ? n[s] : "?";
}

int tw_an_ncores(const struct tw_an *a) { return (int)a->ncores_used; }

/* The engine's task for (core's endpoint, number), listed on that core. */
static const struct an_task *task_on(const struct tw_an *a, int core, uint32_t number)
{
  const struct an_core *c = core_at(a, core);
  const struct tw_rtos_task *t = c ? tw_rtos_task(a->m, c->mc->endpoint, number) : NULL;
  const struct an_task *x = t && t->id < a->ntasks ? &a->tasks[t->id] : NULL;
  return x && tw__an_listed(a, x, (size_t)core) ? x : NULL;
}

int tw_an_task(const struct tw_an *a, int core, uint16_t task, struct tw_an_task_stats *out)
{
  const struct an_task *x = task_on(a, core, task);
  const struct tw_rtos_phase *p;
  if (!x)
    return -1;
  p = &x->t->now;
  memset(out, 0, sizeof *out);
  out->task = task;
  out->prio = x->t->base_prio;
  out->state = (enum tw_an_state)x->state;
  if (out->state == TW_AN_BLOCKED) {
    out->wait = p->wait;
    out->wait_kind = p->wait_kind;
    out->wait_obj = p->wait_obj;
  }
  out->inherits = x->inh_count;
  out->inherited_ns = x->inh_ns;
  out->inherited_max = x->inh_count ? x->inh_max : -1;
  memcpy(out->ns, x->ns, sizeof out->ns);
  const struct an_core *c = &a->cores[core];
  const struct an_load *l = x->t->id < c->nload ? &c->load[x->t->id] : NULL;
  out->cpu_ns = l ? l->cpu_ns : 0;
  out->switches_in = l ? l->switches_in : 0;
  out->home = x->core == core;
  out->latency = x->latency;
  return 0;
}

int tw_an_obj(const struct tw_an *a, int core, enum tw_obj_kind kind, uint32_t obj,
              struct tw_an_obj_stats *out)
{
  const struct an_core *c = core_at(a, core);
  const struct tw_rtos_obj *o = c ? tw_rtos_obj(a->m, c->mc->endpoint, kind, obj) : NULL;
  const struct an_obj *x = o && o->id < a->nobjs ? &a->objs[o->id] : NULL;
  if (!x || !x->o)
    return -1;
  memset(out, 0, sizeof *out);
  out->kind = (uint8_t)kind;
  out->obj = obj;
  memcpy(out->count, x->count, sizeof out->count);
  out->locks = x->lock_ops[AN_LOCKS];
  out->unlocks = x->lock_ops[AN_UNLOCKS];
  out->inc_locks = x->lock_ops[AN_INC_LOCKS];
  out->dec_locks = x->lock_ops[AN_DEC_LOCKS];
  out->blocks = x->blocks;
  out->releases = x->releases;
  out->contended = x->contended;
  out->max_depth = x->max_depth;
  out->hold = x->hold;
  out->wait = x->wait;
  return 0;
}

int tw_an_irq(const struct tw_an *a, int core, uint32_t irq, struct tw_an_irq_stats *out)
{
  const struct an_core *c = core_at(a, core);
  for (size_t i = 0; c && i < c->nirqs_used; i++) {
    const struct an_irq *q = &c->irqs[i];
    if (q->irq != irq)
      continue;
    memset(out, 0, sizeof *out);
    out->irq = irq;
    out->count = q->count;
    out->nested = q->nested;
    out->cpu_ns = q->cpu_ns;
    out->cut = q->cut;
    out->max_depth = q->max_depth;
    out->dur = q->dur;
    return 0;
  }
  return -1;
}

int tw_an_core(const struct tw_an *a, int core, struct tw_an_core_stats *out)
{
  const struct an_core *c = core_at(a, core);
  if (!c || !c->in_span)
    return -1;
  memset(out, 0, sizeof *out);
  out->t0 = c->t0;
  out->t1 = c->t1;
  out->events = c->events;
  out->switches = c->switches;
  out->isr_ns = c->isr_ns;
  out->unknown_ns = c->unknown_ns;
  out->max_nesting = c->mc->max_depth;
  out->latency = c->latency;
  return 0;
}
