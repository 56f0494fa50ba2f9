/* Read access to the engine's results, and the vocabulary-derived table
 * of which events name a task and which object. */
#include <stdio.h>
#include <string.h>
#include "an_internal.h"

void tw__an_kinds_init(struct tw_an *a)
{
  for (uint16_t id = 1; id <= TW_AN_ID_LAST_RTOS; id++) {
    const struct tw_event_desc *d = tw_event_desc_by_id(id);
    struct an_kind *k = &a->kinds[id];
    if (!d || d->module != TW_MOD_RTOS)
      continue;
    k->valid = 1;
    for (unsigned i = 0; i < d->nfields; i++) {
      if (d->fields[i].obj == TW_OBJ_TASK)
        k->has_task = 1;
      else if (d->fields[i].obj != TW_OBJ_NONE)
        k->obj_kind = (uint8_t)d->fields[i].obj;
    }
    if (id == TW_AN_ID_TASK_SWITCH)
      k->has_task = 1;
    k->default_marker = d->default_marker;
    for (uint32_t v = 0; v < TW_AN_MAX_TYPES; v++)
      k->marker[v] = tw_event_marker(d, v);
  }
}

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
  return cause < TW_AN_NCAUSES ? a->lost[cause] : 0;
}

const char *tw_an_name(const struct tw_an *a, enum tw_obj_kind kind, uint32_t number, char *buf,
                       size_t cap)
{
  if ((unsigned)kind < TW_OBJ_COUNT && number < a->nnames[kind] && a->names[kind][number].s)
    return a->names[kind][number].s;
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

int tw_an_ncores(const struct tw_an *a) { return (int)a->ncores; }

int tw_an_task(const struct tw_an *a, int core, uint16_t task, struct tw_an_task_stats *out)
{
  if (core < 0 || (size_t)core >= a->ncores || task >= a->cores[core].ntasks ||
      !a->cores[core].tasks[task].used)
    return -1;
  const struct an_task *t = &a->cores[core].tasks[task];
  memset(out, 0, sizeof *out);
  out->task = task;
  out->prio = task < a->nnames[TW_OBJ_TASK] && a->names[TW_OBJ_TASK][task].have_prio
                  ? a->names[TW_OBJ_TASK][task].prio : -1;
  out->state = (enum tw_an_state)t->state;
  out->wait_kind = t->wait_kind;
  out->wait_obj = t->wait_obj;
  memcpy(out->ns, t->ns, sizeof out->ns);
  out->cpu_ns = t->cpu_ns;
  out->switches_in = t->switches_in;
  out->latency = t->latency;
  return 0;
}

int tw_an_obj(const struct tw_an *a, enum tw_obj_kind kind, uint32_t obj,
              struct tw_an_obj_stats *out)
{
  if ((unsigned)kind >= TW_OBJ_COUNT || obj >= a->nobjs[kind] || !a->objs[kind][obj].used)
    return -1;
  const struct an_obj *o = &a->objs[kind][obj];
  memset(out, 0, sizeof *out);
  out->kind = (uint8_t)kind;
  out->obj = obj;
  memcpy(out->count, o->count, sizeof out->count);
  out->blocks = o->blocks;
  out->releases = o->releases;
  out->contended = o->contended;
  out->max_depth = o->max_depth;
  out->hold = o->hold;
  out->wait = o->wait;
  return 0;
}

int tw_an_irq(const struct tw_an *a, int core, uint32_t irq, struct tw_an_irq_stats *out)
{
  if (core < 0 || (size_t)core >= a->ncores)
    return -1;
  const struct an_core *c = &a->cores[core];
  for (size_t i = 0; i < c->nirqs_used; i++) {
    if (c->irqs[i].irq != irq)
      continue;
    memset(out, 0, sizeof *out);
    out->irq = irq;
    out->count = c->irqs[i].count;
    out->nested = c->irqs[i].nested;
    out->cpu_ns = c->irqs[i].cpu_ns;
    out->cut = c->irqs[i].cut;
    out->max_depth = c->irqs[i].max_depth;
    out->dur = c->irqs[i].dur;
    return 0;
  }
  return -1;
}

int tw_an_core(const struct tw_an *a, int core, struct tw_an_core_stats *out)
{
  if (core < 0 || (size_t)core >= a->ncores || !a->cores[core].used)
    return -1;
  const struct an_core *c = &a->cores[core];
  memset(out, 0, sizeof *out);
  out->t0 = c->t0;
  out->t1 = c->t1;
  out->events = c->events;
  out->switches = c->switches;
  out->isr_ns = c->isr_ns;
  out->unknown_ns = c->unknown_ns;
  out->max_nesting = c->max_nesting;
  out->latency = c->latency;
  return 0;
}
